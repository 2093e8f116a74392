//! MCP mounted at `/mcp` of an axum application, beside its own routes,
//! behind tower-http tracing and CORS layers; a tool reads the tenant that
//! a middleware put in the request's extensions.
//!
//!     cargo run -p mcp-era --example axum
//!     curl -s localhost:8080/health
//!     curl -s localhost:8080/mcp -H 'Content-Type: application/json' \
//!       -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' \
//!       -H 'Mcp-Name: whoami' -H 'X-Tenant: acme' -d '{"jsonrpc":"2.0","id":1,
//!       "method":"tools/call","params":{"name":"whoami","_meta":{
//!       "io.modelcontextprotocol/protocolVersion":"2026-07-28",
//!       "io.modelcontextprotocol/clientCapabilities":{}}}}'

use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use mcp_era::prelude::*;
use mcp_era::server::http::{HttpConfig, McpService};
use tower_http::cors::CorsLayer;
use tower_http::trace::TraceLayer;

#[derive(McpServer)]
#[mcp(name = "axum-example", version = "1.0.0")]
struct Tenants;

/// What the tenant middleware found, as a request extension.
#[derive(Clone)]
struct Tenant(String);

#[router]
impl Tenants {
    /// Names the tenant this request was made for.
    #[tool(read_only)]
    fn whoami(&self, ctx: &RequestContext) -> String {
        let tenant = ctx.extension::<Tenant>().map_or("nobody", |t| t.0.as_str());
        format!("tenant: {tenant}")
    }
}

/// Stands in for authentication: the `X-Tenant` header becomes an extension.
async fn tenant(mut request: Request, next: Next) -> Response {
    let tenant = request
        .headers()
        .get("x-tenant")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("anonymous")
        .to_owned();
    request.extensions_mut().insert(Tenant(tenant));
    next.run(request).await
}

/// The application: its own routes plus MCP under `/mcp`. The default
/// config accepts `Host: localhost` (loopback) only; an app reached under
/// another name adds it with `.allow_host("api.example.com")`.
fn app() -> std::io::Result<Router> {
    let mcp = McpService::new(Tenants, HttpConfig::default())?;
    Ok(Router::new()
        .route("/health", get(|| async { "ok" }))
        .nest_service("/mcp", mcp)
        .layer(middleware::from_fn(tenant))
        .layer(CorsLayer::permissive())
        .layer(TraceLayer::new_for_http()))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::INFO)
        .init();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    eprintln!("listening on http://127.0.0.1:8080 (/health, /mcp)");
    axum::serve(listener, app()?).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_era::client::Error;
    use mcp_era::testing::{TestClient, check_server};

    #[tokio::test]
    async fn without_the_middleware_nobody_is_the_tenant() -> Result<(), Error> {
        let client = TestClient::new(Tenants).await?;
        let text = client
            .call_tool_text("whoami", serde_json::Value::Null)
            .await?;
        assert_eq!(text, "tenant: nobody");
        Ok(())
    }

    #[tokio::test]
    async fn follows_the_protocol_rules() {
        check_server(Tenants).await.assert_ok();
    }
}
