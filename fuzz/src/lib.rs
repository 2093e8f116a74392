//! Helpers shared by the fuzz targets: one current-thread runtime with a
//! paused clock (the fixture's sleeping tools then cost nothing), the
//! fixture server, and the checks every answer must pass.

use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use mcp_everything::Everything;
use serde_json::Value;

/// How long (on the paused clock) a target waits before calling a future
/// stuck: far beyond any sleep of the fixture.
pub const STUCK: Duration = Duration::from_secs(3600);

/// The one runtime of the process.
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("a current-thread runtime")
    })
}

/// Runs `future` to completion, or `None` when it is still pending after
/// [`STUCK`] of (paused, so instant) time.
pub fn block_on<F: Future>(future: F) -> Option<F::Output> {
    runtime()
        .block_on(async { tokio::time::timeout(STUCK, future).await })
        .ok()
}

/// The fixture server, built once (its secret is per process).
pub fn server() -> Arc<Everything> {
    static SERVER: OnceLock<Arc<Everything>> = OnceLock::new();
    Arc::clone(SERVER.get_or_init(|| Arc::new(Everything::new())))
}

/// The id the server must echo for `id` read from `message`, if it is a
/// valid one: a string, an integer that fits `i64`, or `-0` written so
/// (JSON's integer zero, which serde_json reads as the float `-0.0`).
pub fn echoed_id(message: &[u8], id: &Value) -> Option<Value> {
    if id.is_string() || id.as_i64().is_some() {
        return Some(id.clone());
    }
    #[derive(serde::Deserialize)]
    struct IdOnly<'a> {
        #[serde(borrow)]
        id: Option<&'a serde_json::value::RawValue>,
    }
    let raw = serde_json::from_slice::<IdOnly<'_>>(message).ok()?.id?;
    (raw.get() == "-0").then(|| Value::from(0))
}

/// Checks one answer the server wrote: a JSON object with `jsonrpc: "2.0"`
/// and exactly one of `result` and `error`, or (`notification` true) a
/// notification or server→client request with a string `method`. Returns
/// it parsed.
pub fn check_message(bytes: &[u8], notification_ok: bool) -> Value {
    let message: Value = match serde_json::from_slice(bytes) {
        Ok(message) => message,
        Err(e) => panic!(
            "the server wrote invalid JSON ({e}): {:?}",
            String::from_utf8_lossy(bytes)
        ),
    };
    assert_eq!(
        message.get("jsonrpc"),
        Some(&Value::from("2.0")),
        "no jsonrpc 2.0: {message}"
    );
    let result = message.get("result").is_some();
    let error = message.get("error").is_some();
    let method = message.get("method").is_some_and(Value::is_string);
    if notification_ok && method {
        assert!(!result && !error, "a method with a result/error: {message}");
    } else {
        assert!(
            result != error,
            "not exactly one of result/error: {message}"
        );
    }
    message
}
