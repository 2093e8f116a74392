//! The generated client against the real `mcp-everything`, served
//! in-process over HTTP, in both eras; and the snapshot it was generated
//! from still equals what the server lists.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

use std::sync::Arc;

use mcp_era_client::mcp_era_types::v2026_07_28::ContentBlock;
use mcp_era_client::{Client, ClientOptions, EraMode};
use mcp_era_server::http::HttpConfig;
use mcp_everything::Everything;
use mcp_everything_client::{EverythingClient, GreetArgs, ListNotesArgs, ToolCallError};

async fn serve() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let server = Arc::new(Everything::new());
        mcp_era_server::http::serve_listener(server, listener, HttpConfig::new(addr)).await
    });
    format!("http://{addr}/mcp")
}

async fn connect(era: EraMode) -> Client {
    let options = ClientOptions {
        era,
        ..ClientOptions::default()
    };
    Client::connect_http(&serve().await, options).await.unwrap()
}

fn text(content: &[ContentBlock]) -> String {
    match content.first() {
        Some(ContentBlock::TextContent(t)) => t.text.clone(),
        other => panic!("expected a text block, got {other:?}"),
    }
}

async fn three_tools(era: EraMode) {
    let tools = EverythingClient::new(connect(era).await);
    // Arguments in, content blocks out.
    let greeting = tools.greet(GreetArgs { name: "Ada".into() }).await.unwrap();
    assert_eq!(text(&greeting), "Hello, Ada!");
    // No arguments.
    let simple = tools.test_simple_text().await.unwrap();
    assert_eq!(text(&simple), "This is a simple text response for testing.");
    // Typed output (structuredContent; a legacy session gets the JSON text).
    let notes = tools
        .list_notes(ListNotesArgs { title: None })
        .await
        .unwrap();
    assert!(!notes.is_empty());
    assert!(notes.iter().all(|n| !n.title.is_empty()));
    // `isError: true` is an error carrying the blocks.
    match tools.test_error_handling().await {
        Err(e @ ToolCallError::Tool { .. }) => {
            assert!(e.text().unwrap().contains("intentionally returns an error"));
        }
        other => panic!("expected a tool error, got {other:?}"),
    }
}

#[tokio::test]
async fn three_tools_modern() {
    three_tools(EraMode::Modern).await;
}

#[tokio::test]
async fn three_tools_legacy() {
    three_tools(EraMode::Legacy).await;
}

/// The committed snapshot is what the server lists (modern era). With
/// `MCP_SNAPSHOT_BLESS=1` the test rewrites it instead.
#[tokio::test]
async fn snapshot_is_current() {
    let client = connect(EraMode::Modern).await;
    let list = client.list_all_tools().await.unwrap();
    let mut live = serde_json::to_value(&list).unwrap();
    live.as_object_mut().unwrap().retain(|k, _| k == "tools");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tools.json");
    let fresh = serde_json::to_string_pretty(&live).unwrap() + "\n";
    if std::env::var("MCP_SNAPSHOT_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(path, fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(path).unwrap();
    assert!(
        committed == fresh,
        "mcp-everything-client/tools.json is out of date; refresh it with\n  \
         MCP_SNAPSHOT_BLESS=1 cargo test -p mcp-everything-client --test everything snapshot_is_current"
    );
}
