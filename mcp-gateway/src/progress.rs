//! The backend's `notifications/progress`, delivered on the stream of the
//! front request it reports on.
//!
//! Each front request with a `progressToken` gets a token of the gateway's
//! own for the backend (two clients may choose the same token); the
//! backend's progress under it is sent as the front request's progress,
//! under the front's token.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use mcp_era_server::RequestContext;
use serde_json::Value;

/// In-flight front requests, by the progress token the backend was given.
#[derive(Clone, Default)]
pub(crate) struct ProgressRoutes {
    routes: Arc<Mutex<HashMap<String, RequestContext>>>,
    issued: Arc<AtomicU64>,
}

impl ProgressRoutes {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, RequestContext>> {
        self.routes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A token for the backend, routed to `ctx`, when `ctx` asked for
    /// progress; put in `params._meta.progressToken`.
    pub(crate) fn open(&self, ctx: &RequestContext, params: &mut Value) -> Option<String> {
        ctx.progress_token()?;
        let token = format!(
            "gateway-{}",
            self.issued.fetch_add(1, Ordering::Relaxed) + 1
        );
        if let Some(params) = params.as_object_mut() {
            let meta = params
                .entry("_meta")
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert("progressToken".into(), Value::from(token.clone()));
            }
        }
        self.lock().insert(token.clone(), ctx.clone());
        Some(token)
    }

    /// Routes `token` to `ctx` from now on (a call's next round), or drops
    /// the route when `ctx` asked for no progress.
    pub(crate) fn reroute(&self, token: &str, ctx: &RequestContext) {
        let mut routes = self.lock();
        if ctx.progress_token().is_some() {
            routes.insert(token.to_owned(), ctx.clone());
        } else {
            routes.remove(token);
        }
    }

    /// Forgets `token`.
    pub(crate) fn close(&self, token: &str) {
        self.lock().remove(token);
    }

    /// Sends a backend's `notifications/progress` (its `params`) as the
    /// progress of the front request its token is routed to.
    pub(crate) fn deliver(&self, params: &Value) {
        let Some(token) = params.get("progressToken").and_then(Value::as_str) else {
            return;
        };
        let Some(progress) = params.get("progress").and_then(Value::as_f64) else {
            return;
        };
        let Some(ctx) = self.lock().get(token).cloned() else {
            return;
        };
        let mut note = ctx.progress(progress);
        if let Some(total) = params.get("total").and_then(Value::as_f64) {
            note = note.total(total);
        }
        if let Some(message) = params.get("message").and_then(Value::as_str) {
            note = note.message(message);
        }
        note.send();
    }
}
