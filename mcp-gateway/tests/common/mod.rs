//! What the gateway's tests share: modern requests to the front.
#![allow(dead_code, reason = "each test file uses its part")]

use mcp_era_gateway::Gateway;
use mcp_era_server::McpServerExt;
use mcp_era_server::transport::MessageContext;
use serde_json::{Value, json};

/// The whole response body of a modern request to the front.
pub async fn ask(gateway: &Gateway, method: &str, params: Value) -> Value {
    ask_declaring(gateway, method, params, json!({})).await
}

/// [`ask`] from a client declaring `capabilities`.
pub async fn ask_declaring(
    gateway: &Gateway,
    method: &str,
    params: Value,
    capabilities: Value,
) -> Value {
    ask_in(
        gateway,
        method,
        params,
        capabilities,
        &MessageContext::stdio(),
    )
    .await
}

/// [`ask_declaring`] as it came in `context` (an HTTP request's, say).
pub async fn ask_in(
    gateway: &Gateway,
    method: &str,
    mut params: Value,
    capabilities: Value,
    context: &MessageContext,
) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "progressToken": "p1"
    });
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    gateway.handle_value(message, context).await.json().unwrap()
}

/// Our modern client, on an in-memory stdio pipe to `gateway`'s front
/// (its event hub wired in, as the binary does).
pub async fn front_client(gateway: Gateway) -> mcp_era_client::Client {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(theirs);
    let config = mcp_era_server::stdio::StdioConfig {
        events: gateway.events().clone(),
        ..Default::default()
    };
    tokio::spawn(mcp_era_server::stdio::serve_with(
        std::sync::Arc::new(gateway),
        read,
        write,
        config,
    ));
    let (read, write) = tokio::io::split(ours);
    let options = mcp_era_client::ClientOptions {
        era: mcp_era_gateway::EraMode::Modern,
        ..Default::default()
    };
    mcp_era_client::Client::connect_streams(read, write, "front", 0, options)
        .await
        .unwrap()
}
