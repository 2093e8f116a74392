//! One client's connection as both transports drive it: what each incoming
//! message is (request, response, cancellation, other notification, or
//! not JSON), and what a connection holds between messages (the client
//! peer, the requests in flight, the legacy session). The stdio loop has
//! one per process; HTTP one per legacy session.

use std::sync::{Arc, Mutex, PoisonError};

use mcp_era_types::v2025_11_25::methods::INITIALIZE;
use mcp_era_types::v2026_07_28::RequestId;
use mcp_era_types::v2026_07_28::methods::SUBSCRIPTIONS_LISTEN;
use serde_json::Value;

use crate::model::context::{LegacySession, MessageContext};
use crate::model::peer::{ClientPeer, is_response};
use crate::runtime::in_flight::{InFlight, cancelled_request, id_key};
use crate::wire::message::{Parsed, has_modern_meta, parse, request_id};

/// What one incoming message is.
pub(crate) enum Message {
    /// Anything the server answers: a request, or a message whose envelope
    /// is bad (the entry point answers its error).
    Request(Request),
    /// A client's answer to a server→client request.
    Response(Value),
    /// A notification, never answered (a `notifications/cancelled` names
    /// its request by [`cancelled_key`]).
    Notification(Value),
    /// Not JSON: answered with `-32700`.
    Unparsable,
}

/// A message for the entry point, with what the transport needs to know
/// of it before dispatch.
pub(crate) struct Request {
    pub(crate) message: Parsed,
    pub(crate) kind: Kind,
}

impl Request {
    /// The JSON text of its id (what `notifications/cancelled` names);
    /// `None` when it has none (a bad envelope, answered at once). Built
    /// on demand: a modern HTTP request never needs it.
    pub(crate) fn key(&self) -> Option<String> {
        self.id().as_ref().map(id_key)
    }

    /// Its id, kept where the key may be needed later: the key is built
    /// (by [`id_key`]) only if the request goes on in a task.
    pub(crate) fn id(&self) -> Option<Value> {
        match &self.message {
            Parsed::Modern(request) => Some(match request_id(request) {
                RequestId::String(id) => Value::from(id.as_str()),
                RequestId::Integer(id) => Value::from(*id),
            }),
            Parsed::Json(message) => message.get("id").cloned(),
            Parsed::Invalid => None,
        }
    }
}

/// The requests a transport treats apart.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Legacy `initialize`: may open a legacy session.
    Initialize,
    /// `subscriptions/listen`: a stream that lives until cancelled.
    Listen,
    Other,
}

/// Parses `bytes` once and says what the message is.
pub(crate) fn classify(bytes: &[u8]) -> Message {
    let message = match parse(bytes) {
        Parsed::Invalid => return Message::Unparsable,
        Parsed::Json(message) => message,
        modern @ Parsed::Modern(_) => return Message::Request(request(modern)),
    };
    if is_response(&message) {
        return Message::Response(message);
    }
    let notification = message.get("id").is_none()
        && message
            .get("method")
            .and_then(Value::as_str)
            .is_some_and(|method| !method.is_empty());
    if notification {
        return Message::Notification(message);
    }
    Message::Request(request(Parsed::Json(message)))
}

/// The in-flight key of the request a `notifications/cancelled` names.
pub(crate) fn cancelled_key(notification: &Value) -> Option<String> {
    cancelled_request(notification).map(id_key)
}

impl Message {
    /// Whether its `_meta` makes it modern (step 4 keys on it; a response
    /// never is).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn is_modern(&self) -> bool {
        match self {
            Message::Request(Request {
                message: Parsed::Modern(_),
                ..
            }) => true,
            Message::Request(Request {
                message: Parsed::Json(message),
                ..
            })
            | Message::Notification(message) => has_modern_meta(message.get("params")),
            _ => false,
        }
    }
}

fn request(message: Parsed) -> Request {
    let kind = match message.method() {
        Some(INITIALIZE) => Kind::Initialize,
        Some(SUBSCRIPTIONS_LISTEN) => Kind::Listen,
        _ => Kind::Other,
    };
    Request { message, kind }
}

/// What a connection holds between messages.
pub(crate) struct Connection {
    /// Server→client requests waiting for the client's answer.
    pub(crate) peer: ClientPeer,
    /// The client's requests running, cancellable.
    pub(crate) in_flight: Arc<InFlight>,
    /// The legacy session `initialize` opened, if any.
    legacy: Mutex<Option<LegacySession>>,
}

impl Connection {
    pub(crate) fn new(peer: ClientPeer, legacy: Option<LegacySession>) -> Self {
        Self {
            peer,
            in_flight: Arc::default(),
            legacy: Mutex::new(legacy),
        }
    }

    /// The legacy session, if one is open.
    pub(crate) fn legacy(&self) -> Option<LegacySession> {
        self.legacy
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// `f` of the legacy session, read in place.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn with_legacy<R>(&self, f: impl FnOnce(Option<&LegacySession>) -> R) -> R {
        f(self
            .legacy
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref())
    }

    /// Opens (or replaces) the legacy session.
    #[cfg_attr(not(feature = "stdio"), allow(dead_code))]
    pub(crate) fn set_legacy(&self, session: LegacySession) {
        *self.legacy.lock().unwrap_or_else(PoisonError::into_inner) = Some(session);
    }

    /// `ctx` with what this connection adds: its peer and legacy session.
    pub(crate) fn context(&self, ctx: MessageContext) -> MessageContext {
        let ctx = ctx.with_peer(self.peer.clone());
        match self.legacy() {
            Some(session) => ctx.with_legacy_session(session),
            None => ctx,
        }
    }

    /// Hands a client's response to the request waiting for it; false when
    /// none waits here.
    pub(crate) fn deliver(&self, response: &Value) -> bool {
        self.peer.deliver(response)
    }

    /// Aborts the request `key` names; false when none runs here.
    pub(crate) fn cancel(&self, key: &str) -> bool {
        self.in_flight.cancel(key)
    }

    /// Stops what runs: the session's subscriptions, server→client
    /// requests (they fail), the requests in flight.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn end(&self) {
        self.with_legacy(|legacy| legacy.map(LegacySession::stop_following));
        self.peer.close();
        self.in_flight.abort_all(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(bytes: &str) -> &'static str {
        match classify(bytes.as_bytes()) {
            Message::Request(request) => match (request.kind, request.key().is_some()) {
                (Kind::Initialize, _) => "initialize",
                (Kind::Listen, _) => "listen",
                (Kind::Other, true) => "request",
                (Kind::Other, false) => "request without id",
            },
            Message::Response(_) => "response",
            Message::Notification(notification) if cancelled_key(&notification).is_some() => {
                "cancel"
            }
            Message::Notification(_) => "notification",
            Message::Unparsable => "unparsable",
        }
    }

    #[test]
    fn every_kind_of_message_is_told_apart() {
        let cases = [
            ("{", "unparsable"),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
                "initialize",
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"subscriptions/listen"}"#,
                "listen",
            ),
            (
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
                "request",
            ),
            (
                r#"{"jsonrpc":"2.0","id":{},"method":"tools/list"}"#,
                "request",
            ),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                "request without id",
            ),
            (r#"{"jsonrpc":"2.0","method":""}"#, "request without id"),
            (r#"{"jsonrpc":"2.0","id":3,"result":{}}"#, "response"),
            (
                r#"{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}}"#,
                "response",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
                "cancel",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#,
                "notification",
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                "notification",
            ),
        ];
        for (bytes, expected) in cases {
            assert_eq!(kind_of(bytes), expected, "{bytes}");
        }
    }

    #[test]
    fn a_cancellation_names_the_key_its_request_runs_under() {
        let Message::Request(request) = classify(br#"{"jsonrpc":"2.0","id":"x","method":"ping"}"#)
        else {
            panic!("a request");
        };
        let Message::Notification(notification) = classify(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}"#,
        ) else {
            panic!("a notification");
        };
        assert_eq!(request.key(), cancelled_key(&notification));
    }
}
