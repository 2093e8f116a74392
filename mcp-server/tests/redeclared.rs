//! `McpServerExt::redeclared`: a derived-like server narrowed to 2026-07-28
//! at run time refuses `initialize` and keeps its identity and state.
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::sync::Arc;

use mcp_era_server::mcp_era_types::v2026_07_28::Implementation;
use mcp_era_server::transport::MessageContext;
use mcp_era_server::{McpServer, McpServerExt, ServerDeclaration};
use serde_json::{Value, json};

struct Named(Arc<ServerDeclaration>);

impl McpServer for Named {
    fn declaration(&self) -> Arc<ServerDeclaration> {
        Arc::clone(&self.0)
    }
}

fn dual() -> Named {
    let info = Implementation::builder().name("dual").version("1").build();
    Named(Arc::new(ServerDeclaration::new(info)))
}

async fn initialize<S: McpServer + 'static>(server: &S) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let outcome = server.handle_value(message, &MessageContext::stdio()).await;
    serde_json::from_slice(&outcome.into_body().unwrap_or_default()).unwrap_or(Value::Null)
}

#[tokio::test]
async fn a_narrowed_duplicate_refuses_initialize_and_keeps_the_rest() {
    let server = dual();
    assert!(initialize(&server).await.get("result").is_some());
    let modern_only = server
        .declaration()
        .duplicate()
        .with_versions(["2026-07-28"], [] as [&str; 0])
        .unwrap();
    let served = server.redeclared(modern_only);
    let answer = initialize(&served).await;
    assert_eq!(
        answer["error"]["data"]["supported"],
        json!(["2026-07-28"]),
        "{answer}"
    );
    let declaration = served.declaration();
    assert_eq!(declaration.server_info().name, "dual");
    assert!(!declaration.is_dual_era());
    assert!(Arc::ptr_eq(
        declaration.tasks(),
        served.inner().declaration().tasks()
    ));
}
