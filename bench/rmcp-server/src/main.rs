//! A one-tool rmcp 3.11 server for `bench/compare.sh`, written the way rmcp's
//! own examples write one (`examples/servers/src/counter_streamhttp.rs`,
//! `counter_stdio.rs`): a `#[tool_router]` impl holding the router in a field,
//! `#[tool_handler]` on `ServerHandler`, `serve(stdio())` for stdio, and a
//! `StreamableHttpService` nested at `/mcp` in an axum router for HTTP.
//!
//!     rmcp-bench-server stdio
//!     rmcp-bench-server http 127.0.0.1:PORT
//!
//! HTTP is stateless (`legacy_session_mode = false`) with JSON responses
//! (`json_response = true`), so a `tools/call` is answered with one
//! `application/json` body, never an SSE stream.

use rmcp::{
    ServiceExt,
    handler::server::router::tool::ToolRouter,
    tool, tool_handler, tool_router,
    transport::{
        stdio,
        streamable_http_server::{
            StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
        },
    },
};

use tokio_util::sync::CancellationToken;

const USAGE: &str = "usage: rmcp-bench-server stdio | rmcp-bench-server http 127.0.0.1:PORT";

#[derive(Clone)]
struct Bench {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Bench {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    /// The same tool, name and text as `mcp-everything`'s.
    #[tool(description = "Returns a simple text response")]
    fn test_simple_text(&self) -> String {
        "This is a simple text response for testing.".to_string()
    }
}

#[tool_handler(router = self.tool_router, name = "rmcp-bench-server", version = "0.1.0")]
impl rmcp::ServerHandler for Bench {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["stdio"] => {
            let service = Bench::new().serve(stdio()).await?;
            service.waiting().await?;
            Ok(())
        }
        ["http", addr] => {
            let ct = CancellationToken::new();
            // Stateless mode calls the factory for every request: hand out
            // clones of one server (the router's routes are `Arc`s) rather
            // than building the router each time.
            let server = Bench::new();
            let service = StreamableHttpService::new(
                move || Ok(server.clone()),
                LocalSessionManager::default().into(),
                StreamableHttpServerConfig::default()
                    .with_legacy_session_mode(false)
                    .with_json_response(true)
                    .with_sse_keep_alive(None)
                    .with_cancellation_token(ct.child_token()),
            );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(*addr).await?;
            eprintln!(
                "rmcp-bench-server listening on http://{}/mcp",
                listener.local_addr()?
            );
            axum::serve(listener, router)
                .with_graceful_shutdown(async move {
                    let _ = tokio::signal::ctrl_c().await;
                    ct.cancel();
                })
                .await?;
            Ok(())
        }
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    }
}
