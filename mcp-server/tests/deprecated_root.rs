//! The root paths of earlier releases still compile for one release
//! (they warn: see the `compile_fail` doc tests on
//! `mcp_era_server::transport`), and name the same items as the new ones.
#![allow(deprecated)]

mod common;

use common::block_on;
use mcp_era_server::{Era, EraOf, McpServer, RequestContext};
use serde_json::json;

#[derive(McpServer)]
#[mcp(name = "old-paths", version = "1.0.0")]
struct Old;

fn _types(
    _: mcp_era_server::Outcome,
    _: mcp_era_server::MessageContext,
    _: mcp_era_server::HttpHeaders,
    _: mcp_era_server::LegacySession,
    _: mcp_era_server::ClientPeer,
    _: mcp_era_server::Sink,
) -> mcp_era_server::transport::Outcome {
    unreachable!()
}

#[allow(clippy::assertions_on_constants)]
#[test]
fn old_constants_are_the_new_ones() {
    use mcp_era_server::protocol;
    assert_eq!(mcp_era_server::INITIALIZE, protocol::INITIALIZE);
    assert_eq!(mcp_era_server::MAX_INPUT_ROUNDS, protocol::MAX_INPUT_ROUNDS);
    assert_eq!(mcp_era_server::PAGE_SIZE, protocol::PAGE_SIZE);
    assert_eq!(mcp_era_server::REMOVED_METHODS, protocol::REMOVED_METHODS);
    assert_eq!(
        mcp_era_server::CACHEABLE_METHODS,
        protocol::CACHEABLE_METHODS
    );
    assert_eq!(
        mcp_era_server::IMPLEMENTED_VERSIONS,
        protocol::IMPLEMENTED_VERSIONS
    );
    assert_eq!(
        mcp_era_server::IMPLEMENTED_MODERN_VERSIONS,
        protocol::IMPLEMENTED_MODERN_VERSIONS
    );
    assert_eq!(
        mcp_era_server::IMPLEMENTED_LEGACY_VERSIONS,
        protocol::IMPLEMENTED_LEGACY_VERSIONS
    );
    assert_eq!(
        mcp_era_server::MAX_COMPLETION_VALUES,
        protocol::MAX_COMPLETION_VALUES
    );
    assert_eq!(
        mcp_era_server::DEFAULT_CLIENT_REQUEST_TIMEOUT,
        mcp_era_server::transport::DEFAULT_CLIENT_REQUEST_TIMEOUT
    );
}

#[test]
fn old_types_and_functions_still_work() {
    let ctx = mcp_era_server::MessageContext::stdio();
    let _ = mcp_era_server::Transport::Stdio;
    let headers = mcp_era_server::HttpHeaders::default();
    let _ = mcp_era_server::Transport::Http(headers);
    assert!(mcp_era_server::is_response(
        &json!({"jsonrpc": "2.0", "id": 1, "result": {}})
    ));
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let outcome: mcp_era_server::Outcome =
        block_on(mcp_era_server::handle_message(&Old, body, &ctx));
    assert!(outcome.json().is_some());
    let value = json!({"jsonrpc":"2.0","id":2,"method":"ping"});
    let outcome = block_on(mcp_era_server::handle_value(&Old, value, &ctx));
    assert!(outcome.json().is_some());
}

/// `Era::of(&ctx)` with the deprecated `EraOf` trait in scope.
fn _era_of(ctx: &RequestContext) -> Era {
    let era = Era::of(ctx);
    assert_eq!(era, ctx.era());
    era
}

/// `mcp_era_server::Era` is the toolkit's one `Era`.
#[test]
fn one_era() {
    let era: mcp_era_types::versions::Era = Era::Modern;
    let _: Era = era;
}
