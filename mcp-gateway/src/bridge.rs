//! Where the backend's requests for input (elicitation, sampling, roots)
//! go: to the front call they belong to, which makes them its client's
//! `input_required` rounds (see `rounds`).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use mcp_era_client::handler::{HandlerError, InputKind, call_tag};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

/// A mutex's guard, whether or not a panic poisoned it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One request of the backend, waiting for the front's client.
pub(crate) struct Ask {
    pub(crate) kind: InputKind,
    /// `{method, params}`, as an `inputRequests` entry.
    pub(crate) request: Value,
    pub(crate) reply: oneshot::Sender<Result<Value, HandlerError>>,
}

/// Where the backend's requests go: each to the call it names (its call
/// tag), or, naming none, to the call holding the lane, or to the only
/// call that may ask; it is refused when there is no such call.
#[derive(Default)]
pub(crate) struct Bridge {
    holder: Mutex<Option<UnboundedSender<Ask>>>,
    tagged: Mutex<HashMap<u64, UnboundedSender<Ask>>>,
}

impl Bridge {
    pub(crate) async fn ask<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<T, HandlerError> {
        let kind =
            InputKind::of(method, &params).ok_or_else(|| HandlerError::unsupported(method))?;
        let (reply, answer) = oneshot::channel();
        let ask = Ask {
            kind,
            request: json!({"method": method, "params": params}),
            reply,
        };
        let call = match call_tag() {
            Some(tag) => lock(&self.tagged).get(&tag).cloned(),
            None => lock(&self.holder).clone().or_else(|| self.only_call()),
        };
        let sent = call.is_some_and(|call| call.send(ask).is_ok());
        if !sent {
            return Err(HandlerError::new(
                -32603,
                format!("{method} outside a call the gateway can ask its client about"),
            ));
        }
        let answer = answer
            .await
            .map_err(|_| HandlerError::new(-32603, "the client did not answer in time"))??;
        serde_json::from_value(answer)
            .map_err(|e| HandlerError::new(-32602, format!("the client's answer to {method}: {e}")))
    }

    pub(crate) fn attach(&self, holder: UnboundedSender<Ask>) {
        *lock(&self.holder) = Some(holder);
    }

    pub(crate) fn detach(&self) {
        *lock(&self.holder) = None;
    }

    /// The one call that may ask, when there is just one: a request that
    /// names no call (a legacy HTTP backend may send it on its session's
    /// `GET` stream) is taken to be its.
    fn only_call(&self) -> Option<UnboundedSender<Ask>> {
        let tagged = lock(&self.tagged);
        match tagged.len() {
            1 => tagged.values().next().cloned(),
            _ => None,
        }
    }

    /// Sends the requests that carry call tag `tag` to `call`.
    pub(crate) fn register(&self, tag: u64, call: UnboundedSender<Ask>) {
        lock(&self.tagged).insert(tag, call);
    }

    pub(crate) fn forget(&self, tag: u64) {
        lock(&self.tagged).remove(&tag);
    }
}
