//! The front requests being forwarded, each under a number of the
//! gateway's own, `N`: the backend's progress under the token `gateway-N`
//! and its log messages sent under call tag `N` go to that request's
//! stream.
//!
//! The token is the gateway's own because two clients may choose the same
//! one. The call tag is how our client says which request a message came
//! with (a Streamable HTTP response stream, an MRTR round, the one request
//! waiting on a stdio pipe); a message it cannot tie to a request (over
//! stdio while several wait) goes nowhere.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use mcp_era_server::RequestContext;
use mcp_era_server::mcp_era_types::v2026_07_28::LoggingLevel;
use serde_json::Value;

/// The prefix of the progress tokens the backend is given.
const TOKEN_PREFIX: &str = "gateway-";

/// In-flight front requests, by their number.
#[derive(Clone, Default)]
pub(crate) struct CallRoutes {
    routes: Arc<Mutex<HashMap<u64, RequestContext>>>,
    issued: Arc<AtomicU64>,
}

impl CallRoutes {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, RequestContext>> {
        self.routes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A number for the request of `ctx`, whose `params` are about to be
    /// forwarded: given as `params._meta.progressToken` when it asked for
    /// progress, and routed to `ctx` when it asked for progress or logs.
    /// Run the backend call under it ([`with_call_tag`]) and close it
    /// after.
    ///
    /// [`with_call_tag`]: mcp_era_client::handler::with_call_tag
    pub(crate) fn open(&self, ctx: &RequestContext, params: &mut Value) -> u64 {
        let call = self.issued.fetch_add(1, Ordering::Relaxed) + 1;
        if ctx.progress_token().is_some()
            && let Some(params) = params.as_object_mut()
        {
            let meta = params
                .entry("_meta")
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert(
                    "progressToken".into(),
                    format!("{TOKEN_PREFIX}{call}").into(),
                );
            }
        }
        self.reroute(call, ctx);
        call
    }

    /// Routes `call` to `ctx` from now on (a call's next round), or drops
    /// the route when `ctx` asked for neither progress nor logs.
    pub(crate) fn reroute(&self, call: u64, ctx: &RequestContext) {
        let mut routes = self.lock();
        if ctx.progress_token().is_some() || ctx.log_level().is_some() {
            routes.insert(call, ctx.clone());
        } else {
            routes.remove(&call);
        }
    }

    /// Forgets `call`.
    pub(crate) fn close(&self, call: u64) {
        self.lock().remove(&call);
    }

    /// Sends a backend's `notifications/progress` (its `params`) as the
    /// progress of the front request its token is routed to.
    pub(crate) fn progress(&self, params: &Value) {
        let Some(call) = params
            .get("progressToken")
            .and_then(Value::as_str)
            .and_then(|token| token.strip_prefix(TOKEN_PREFIX))
            .and_then(|n| n.parse().ok())
        else {
            return;
        };
        let Some(progress) = params.get("progress").and_then(Value::as_f64) else {
            return;
        };
        let Some(ctx) = self.lock().get(&call).cloned() else {
            return;
        };
        if ctx.progress_token().is_none() {
            return;
        }
        let mut note = ctx.progress(progress);
        if let Some(total) = params.get("total").and_then(Value::as_f64) {
            note = note.total(total);
        }
        if let Some(message) = params.get("message").and_then(Value::as_str) {
            note = note.message(message);
        }
        note.send();
    }

    /// Sends a backend's `notifications/message` that came with `call` on
    /// that front request's stream, when the request asked for logs at its
    /// level or above; one with no call, or of an unknown level, goes
    /// nowhere.
    pub(crate) fn log(&self, call: Option<u64>, params: &Value) {
        let Some(ctx) = call.and_then(|call| self.lock().get(&call).cloned()) else {
            return;
        };
        let level = params
            .get("level")
            .and_then(|level| serde_json::from_value::<LoggingLevel>(level.clone()).ok());
        if level.is_some_and(|level| ctx.wants_log(level)) {
            ctx.notify("notifications/message", params);
        }
    }
}
