//! A legacy backend's requests to its client during a call (elicitation,
//! sampling, roots) as the front's `input_required` rounds (a modern
//! backend's rounds pass through: `Backend::forward_call`).
//!
//! Our client answers the backend through [`Bridge`] (see `bridge`), which
//! hands each request to the front call it belongs to; that call answers
//! its own client `input_required` with the requests and a `requestState`
//! naming the pending backend call (and the gateway instance holding it:
//! a retry reaching another instance is forwarded here, see `instances`),
//! and the client's retry carries the answers back. Over HTTP our client says
//! which call a request belongs to
//! ([`call_tag`](mcp_era_client::handler::call_tag)), so calls run side by
//! side. A legacy stdio backend's request names no call, so there the calls
//! that may ask (`tools/call`, `prompts/get`, `resources/read`) take one
//! lane at a time: a request is always the lane holder's. `docs/gateway.md`
//! argues it.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_era_client::handler::{HandlerError, with_call_tag};
use mcp_era_server::mcp_era_types::v2026_07_28::Error as ErrorObject;
use mcp_era_server::{RequestContext, errors};
use serde_json::{Value, json};
use tokio::sync::OwnedMutexGuard;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::task::JoinHandle;

use crate::backend::Backend;
use crate::bridge::{Ask, Bridge, lock};
use crate::calls::CallRoutes;
use crate::instances::Instances;

/// How the backend's requests find a call.
enum Seat {
    /// The call holds the lane: every request that names no call is its.
    /// Held until the backend call ends (see `Pending`'s `Drop`).
    Lane(OwnedMutexGuard<()>),
    /// The requests carrying this call tag are the call's.
    Tag(u64),
}

/// A forwarded call between two rounds: its seat, the backend call still
/// running, and the requests its client was sent.
struct Pending {
    method: String,
    seat: Option<Seat>,
    call: Option<JoinHandle<Result<Value, ErrorObject>>>,
    bridge: Arc<Bridge>,
    asks: UnboundedReceiver<Ask>,
    sent: Vec<(String, Ask)>,
    asked: usize,
    /// The call's number (its progress token and call tag), routed to the
    /// front request of the current round.
    route: (u64, CallRoutes),
}

/// A call ended, or given up before its backend call ended (its client
/// cancelled it, went away mid-round or never came back): the backend call
/// is cancelled (our client tells the backend), what the backend still
/// asks is refused, and a lane stays taken until the backend call is gone,
/// so that nothing it asks reaches the next call.
impl Drop for Pending {
    fn drop(&mut self) {
        let (call, routes) = &self.route;
        routes.close(*call);
        let unfinished = self.call.take().filter(|call| !call.is_finished());
        if let Some(call) = &unfinished {
            call.abort();
            for (_, ask) in self.sent.drain(..) {
                let _ = ask
                    .reply
                    .send(Err(HandlerError::new(-32603, "the call was given up")));
            }
        }
        match self.seat.take() {
            Some(Seat::Tag(tag)) => self.bridge.forget(tag),
            Some(Seat::Lane(lane)) => {
                self.bridge.detach();
                if let Some(call) = unfinished {
                    tokio::spawn(async move {
                        let _ = call.await;
                        drop(lane);
                    });
                }
            }
            None => {}
        }
    }
}

/// What a round ends with.
enum Next {
    Done(Result<Value, ErrorObject>),
    Input(BTreeMap<String, Value>),
}

impl Pending {
    /// Answers the requests sent in the last round from `responses`; one
    /// left unanswered is refused, so the backend goes on.
    fn answer(&mut self, responses: Option<&Value>) {
        for (key, ask) in self.sent.drain(..) {
            let answer = responses
                .and_then(|r| r.get(&key))
                .cloned()
                .ok_or_else(|| HandlerError::new(-32602, format!("no answer to {key}")));
            let _ = ask.reply.send(answer);
        }
    }

    /// Waits for the backend call to end or to ask something the client
    /// declared it can answer (a request of another kind is refused).
    async fn next(&mut self, capabilities: &Value) -> Next {
        let Some(call) = self.call.as_mut() else {
            return Next::Done(Err(errors::internal_error("the forwarded call is gone")));
        };
        loop {
            tokio::select! {
                result = &mut *call => {
                    return Next::Done(result.unwrap_or_else(|e| {
                        Err(errors::internal_error(format!("the forwarded call failed: {e}")))
                    }));
                }
                Some(ask) = self.asks.recv() => {
                    let mut requests = BTreeMap::new();
                    let mut ask = Some(ask);
                    while let Some(one) = ask.take().or_else(|| self.asks.try_recv().ok()) {
                        if !one.kind.declared_in(capabilities) {
                            let refused = HandlerError::new(
                                -32601,
                                "the gateway's client did not declare this capability",
                            );
                            let _ = one.reply.send(Err(refused));
                            continue;
                        }
                        self.asked += 1;
                        let key = format!("gateway-{}", self.asked);
                        requests.insert(key.clone(), one.request.clone());
                        self.sent.push((key, one));
                    }
                    if !requests.is_empty() {
                        return Next::Input(requests);
                    }
                }
            }
        }
    }
}

/// The calls waiting for their client's next round, by `requestState`.
pub(crate) struct Rounds {
    bridge: Arc<Bridge>,
    /// Taken by each call when the backend's requests name no call.
    lane: Option<Arc<tokio::sync::Mutex<()>>>,
    pending: Arc<Mutex<HashMap<String, Pending>>>,
    /// How long a call waits for its client's retry.
    patience: Duration,
    /// Names this process in the `requestState` handles (see `instances`).
    instances: Instances,
}

impl Rounds {
    /// Rounds over `bridge`; `tagged` when the backend's requests say
    /// which call they belong to (no lane is needed then).
    pub(crate) fn new(
        bridge: Arc<Bridge>,
        patience: Duration,
        tagged: bool,
        instances: Instances,
    ) -> Self {
        Self {
            instances,
            bridge,
            lane: (!tagged).then(Arc::default),
            pending: Arc::default(),
            patience,
        }
    }

    /// `method` (a call that may ask for input) forwarded to `backend`,
    /// or, for a retry, the pending call its `requestState` names answered
    /// and followed: the backend's result, or an `input_required` one.
    pub(crate) async fn call(
        &self,
        backend: &Arc<Backend>,
        method: &str,
        mut params: Value,
        ctx: &RequestContext,
        calls: &CallRoutes,
    ) -> Result<Value, ErrorObject> {
        let capabilities = serde_json::to_value(ctx.client_capabilities()).unwrap_or_default();
        let mut pending = match params.get("requestState").and_then(Value::as_str) {
            Some(state) => {
                let mut pending = lock(&self.pending)
                    .remove(state)
                    .filter(|p| p.method == method)
                    .ok_or_else(|| {
                        errors::invalid_params(
                            "requestState names no call waiting for input (answered, expired, or another method's)",
                        )
                    })?;
                pending.answer(params.get("inputResponses"));
                calls.reroute(pending.route.0, ctx);
                pending
            }
            None => {
                let (holder, asks) = unbounded_channel();
                let lane = match &self.lane {
                    Some(lane) => Some(Arc::clone(lane).lock_owned().await),
                    None => None,
                };
                let number = calls.open(ctx, &mut params);
                let seat = match lane {
                    Some(lane) => {
                        self.bridge.attach(holder);
                        Seat::Lane(lane)
                    }
                    None => {
                        self.bridge.register(number, holder);
                        Seat::Tag(number)
                    }
                };
                let backend = Arc::clone(backend);
                let owned = method.to_owned();
                let call = tokio::spawn(with_call_tag(number, async move {
                    backend.forward_call(&owned, params).await
                }));
                Pending {
                    method: method.to_owned(),
                    seat: Some(seat),
                    call: Some(call),
                    bridge: Arc::clone(&self.bridge),
                    asks,
                    sent: Vec::new(),
                    asked: 0,
                    route: (number, calls.clone()),
                }
            }
        };
        match pending.next(&capabilities).await {
            Next::Done(result) => result,
            Next::Input(requests) => {
                let state = self.instances.mint()?;
                lock(&self.pending).insert(state.clone(), pending);
                self.expire_later(state.clone());
                Ok(json!({
                    "resultType": "input_required",
                    "inputRequests": requests,
                    "requestState": state,
                }))
            }
        }
    }

    /// Gives up the call `state` names if its client has not come back in
    /// time (see `Pending`'s `Drop`).
    fn expire_later(&self, state: String) {
        let (pending, patience) = (Arc::clone(&self.pending), self.patience);
        tokio::spawn(async move {
            tokio::time::sleep(patience).await;
            let abandoned = lock(&pending).remove(&state);
            if let Some(abandoned) = abandoned {
                tracing::warn!(
                    method = abandoned.method,
                    "a call waited for its client's input in vain: cancelled"
                );
            }
        });
    }
}
