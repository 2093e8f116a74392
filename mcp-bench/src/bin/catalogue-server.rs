//! A server of N generated tools (`mcp_bench::catalogue`) over Streamable
//! HTTP, for `bench/catalogue.sh`: `catalogue-server TOOLS 127.0.0.1:PORT`.

use mcp_bench::{CatalogueServer, catalogue};
use mcp_era_server::http::{self, HttpConfig};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(tools), Some(addr)) = (args.first().and_then(|n| n.parse().ok()), args.get(1)) else {
        eprintln!("usage: catalogue-server TOOLS 127.0.0.1:PORT");
        std::process::exit(2);
    };
    let server = CatalogueServer {
        tools: catalogue(tools),
    };
    http::run(server, HttpConfig::bind(addr)?)
}
