//! In-process handling of one message, bytes in → response bytes out,
//! against a bare `serde_json` parse + serialize of the same request bytes
//! (the floor any JSON-RPC server pays). Run: `cargo bench -p mcp-bench`.

use divan::{Bencher, black_box};
use mcp_bench::{
    BenchServer, CatalogueServer, DISCOVER, RenderEachTime, RouterServer, TOOLS_CALL, block_on,
    catalogue, tools_list,
};
use mcp_era_server::transport::MessageContext;
use mcp_era_server::{McpServer, McpServerExt};

fn main() {
    divan::main();
}

/// Parse the request into a `serde_json::Value` and serialize it back.
fn bare_serde_json(bytes: &[u8]) -> Vec<u8> {
    let value: serde_json::Value = serde_json::from_slice(bytes).unwrap_or_default();
    serde_json::to_vec(&value).unwrap_or_default()
}

/// Handle the request: the outcome's body is the bytes a transport writes.
fn handle(bytes: &[u8]) -> Vec<u8> {
    handle_with(&BenchServer, bytes)
}

fn handle_with(server: &impl McpServer, bytes: &[u8]) -> Vec<u8> {
    let ctx = MessageContext::stdio();
    let outcome = block_on(server.handle_message(bytes, &ctx));
    outcome.body.unwrap_or_default()
}

#[divan::bench_group]
mod discover {
    use super::*;

    #[divan::bench]
    fn serde_json_baseline(bencher: Bencher) {
        bencher.bench(|| bare_serde_json(black_box(DISCOVER)));
    }

    #[divan::bench]
    fn mcp_era_server(bencher: Bencher) {
        bencher.bench(|| handle(black_box(DISCOVER)));
    }
}

#[divan::bench_group]
mod tools_call {
    use super::*;

    #[divan::bench]
    fn serde_json_baseline(bencher: Bencher) {
        bencher.bench(|| bare_serde_json(black_box(TOOLS_CALL)));
    }

    #[divan::bench]
    fn mcp_era_server(bencher: Bencher) {
        bencher.bench(|| handle(black_box(TOOLS_CALL)));
    }

    /// The same call to a `#[router]` tool with a typed argument.
    #[divan::bench]
    fn mcp_server_router(bencher: Bencher) {
        bencher.bench(|| handle_with(&RouterServer, black_box(TOOLS_CALL)));
    }

    /// The router call through a layer that does nothing: what the
    /// middleware machinery itself costs (a server without layers runs none
    /// of it).
    #[divan::bench]
    fn mcp_server_router_noop_layer(bencher: Bencher) {
        let server = RouterServer.layer(tower::layer::util::Identity::new());
        bencher.bench(|| handle_with(&server, black_box(TOOLS_CALL)));
    }
}

/// One `tools/list` page (100 tools) of a 20-tool and of a 10,000-tool
/// catalogue: kept pages cost the same whatever the catalogue's size;
/// `render_each_time` builds and serializes the page per request.
#[divan::bench_group]
mod tools_list {
    use super::*;

    const SIZES: [usize; 2] = [20, 10_000];

    /// The middle page of the catalogue (the first of a small one).
    fn middle_page(tools: usize) -> Vec<u8> {
        let start = tools / 2 / 100 * 100;
        tools_list((start > 0).then(|| start.to_string()).as_deref())
    }

    #[divan::bench(args = SIZES)]
    fn kept_pages(bencher: Bencher, tools: usize) {
        let server = CatalogueServer {
            tools: catalogue(tools),
        };
        let request = middle_page(tools);
        bencher.bench(|| handle_with(&server, black_box(&request)));
    }

    #[divan::bench(args = SIZES)]
    fn render_each_time(bencher: Bencher, tools: usize) {
        let server = RenderEachTime {
            tools: catalogue(tools),
        };
        let request = middle_page(tools);
        bencher.bench(|| handle_with(&server, black_box(&request)));
    }
}
