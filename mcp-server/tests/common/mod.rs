//! Helpers the integration tests share: a runtime for one future, and the
//! `_meta` and body of a modern request.
// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use std::future::Future;

use serde_json::{Value, json};

/// Runs `future` to its end on a runtime of its own (timers and I/O on).
pub fn block_on<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(future)
}

/// The `_meta` every modern request carries: the version, no capabilities.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A modern request with id 1: `params` plus the required `_meta`.
pub fn request(method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}
