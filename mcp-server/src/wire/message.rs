//! One message, parsed once: the typed fast path for well-formed modern
//! requests, JSON otherwise, and the JSON-RPC envelope (steps 1–3).

use mcp_era_types::v2026_07_28::{ClientRequest, RequestId, RequestMetaObject, meta_keys};
use serde_json::{Map, Value};

use crate::wire::errors::{self, ErrorObject};
use crate::wire::read_request;

/// A message after the one parse it gets.
pub(crate) enum Parsed {
    /// A well-formed modern request, read straight into its typed form
    /// (boxed: it is large, and moves with its task).
    Modern(Box<ClientRequest>),
    /// Anything else, as JSON, for the step-by-step checks.
    Json(Value),
    /// Not JSON at all.
    Invalid,
}

impl Parsed {
    /// The method of a request or notification, when it has a string one.
    #[cfg_attr(
        not(any(feature = "auth", feature = "stdio", feature = "http")),
        allow(dead_code)
    )]
    pub(crate) fn method(&self) -> Option<&str> {
        match self {
            Parsed::Modern(request) => Some(request.method()),
            Parsed::Json(message) => message.get("method").and_then(Value::as_str),
            Parsed::Invalid => None,
        }
    }

    /// The tool a `tools/call` names, if this is one.
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    pub(crate) fn tool_name(&self) -> Option<&str> {
        match self {
            Parsed::Modern(request) => match &**request {
                ClientRequest::CallToolRequest(call) => Some(call.params.name.as_str()),
                _ => None,
            },
            Parsed::Json(message) if message.get("method") == Some(&Value::from("tools/call")) => {
                message.pointer("/params/name").and_then(Value::as_str)
            }
            _ => None,
        }
    }

    /// The `id` of a request, when it is a string or an integer.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn id(&self) -> Option<RequestId> {
        match self {
            Parsed::Modern(request) => Some(request_id(request).clone()),
            Parsed::Json(message) => message.get("id").and_then(valid_id),
            Parsed::Invalid => None,
        }
    }
}

/// `id` as a request id, when it is a string or an integer.
pub(crate) fn valid_id(id: &Value) -> Option<RequestId> {
    match id {
        Value::String(s) => Some(RequestId::String(s.clone())),
        Value::Number(n) => n.as_i64().map(RequestId::Integer),
        _ => None,
    }
}

/// Parses a message once. A modern request whose every part is well formed
/// (the common case) is read straight into its typed form (in one pass
/// when it has the common shape, see `read_request`); when that
/// fails for any reason the message is parsed as JSON and goes through the
/// checks one by one, so every error is the one the checks would give.
pub(crate) fn parse(message: &[u8]) -> Parsed {
    let request =
        read_request::read(message).or_else(|| read_request::read_modern(message).map(Box::new));
    if let Some(request) = request {
        return Parsed::Modern(request);
    }
    match serde_json::from_slice::<Value>(message) {
        Ok(mut value) => {
            integer_negative_zero_id(message, &mut value);
            Parsed::Json(value)
        }
        Err(_) => Parsed::Invalid,
    }
}

#[derive(serde::Deserialize)]
struct IdOnly<'a> {
    #[serde(borrow)]
    id: Option<&'a serde_json::value::RawValue>,
}

/// JSON's `-0` is the integer zero, but serde_json reads it as the float
/// `-0.0` (which, written `-0.0`, is not a valid id): the raw text decides.
fn integer_negative_zero_id(message: &[u8], value: &mut Value) {
    let Some(id) = value.get_mut("id") else {
        return;
    };
    if id.as_f64() != Some(0.0) || id.is_i64() || id.is_u64() {
        return;
    }
    let raw = serde_json::from_slice::<IdOnly<'_>>(message)
        .ok()
        .and_then(|only| only.id);
    if raw.is_some_and(|raw| raw.get() == "-0") {
        *id = Value::from(0);
    }
}

/// What the checks read from a typed request.
pub(crate) struct RequestParts<'a> {
    pub(crate) id: &'a RequestId,
    pub(crate) meta: &'a RequestMetaObject,
    pub(crate) call: Call<'a>,
}

/// The id of a typed request.
#[cfg_attr(not(feature = "stdio"), allow(dead_code))]
pub(crate) fn request_id(request: &ClientRequest) -> &RequestId {
    request_parts(request).id
}

pub(crate) fn request_parts(request: &ClientRequest) -> RequestParts<'_> {
    let method = request.method();
    let parts = |id, meta, name| RequestParts {
        id,
        meta,
        call: Call {
            method,
            name,
            arguments: None,
        },
    };
    match request {
        ClientRequest::DiscoverRequest(r) => parts(&r.id, &r.params.meta, None),
        ClientRequest::ListResourcesRequest(r) => parts(&r.id, &r.params.meta, None),
        ClientRequest::ListResourceTemplatesRequest(r) => parts(&r.id, &r.params.meta, None),
        ClientRequest::ReadResourceRequest(r) => {
            parts(&r.id, &r.params.meta, Some(r.params.uri.as_str()))
        }
        ClientRequest::SubscriptionsListenRequest(r) => parts(&r.id, &r.params.meta, None),
        ClientRequest::ListPromptsRequest(r) => parts(&r.id, &r.params.meta, None),
        ClientRequest::GetPromptRequest(r) => {
            parts(&r.id, &r.params.meta, Some(r.params.name.as_str()))
        }
        ClientRequest::ListToolsRequest(r) => parts(&r.id, &r.params.meta, None),
        ClientRequest::CallToolRequest(r) => {
            let mut parts = parts(&r.id, &r.params.meta, Some(r.params.name.as_str()));
            parts.call.arguments = r.params.arguments.as_ref();
            parts
        }
        ClientRequest::CompleteRequest(r) => parts(&r.id, &r.params.meta, None),
    }
}

/// A request whose envelope is valid.
pub(crate) struct Envelope<'a> {
    pub(crate) id: RequestId,
    pub(crate) method: &'a str,
    pub(crate) params: Option<&'a Value>,
}

/// Steps 2 and 3: the JSON-RPC envelope; `Ok(None)` for a notification.
/// An error carries the id when it could be read.
pub(crate) fn read_envelope(
    message: &Value,
) -> Result<Option<Envelope<'_>>, (Option<RequestId>, ErrorObject)> {
    let object = match message {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err((
                None,
                errors::invalid_request("Batch arrays are not supported"),
            ));
        }
        _ => {
            return Err((
                None,
                errors::invalid_request("A JSON-RPC message must be an object"),
            ));
        }
    };
    let id = match object.get("id") {
        None => None,
        Some(id) => match valid_id(id) {
            Some(id) => Some(id),
            None => {
                return Err((
                    None,
                    errors::invalid_request("The id must be a string or an integer"),
                ));
            }
        },
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err((id, errors::invalid_request("jsonrpc must be \"2.0\"")));
    }
    let Some(method) = object.get("method").and_then(Value::as_str) else {
        return Err((
            id,
            errors::invalid_request("A request needs a string method"),
        ));
    };
    Ok(id.map(|id| Envelope {
        id,
        method,
        params: object.get("params"),
    }))
}

impl Envelope<'_> {
    /// What steps 7–10 read besides `_meta`.
    pub(crate) fn call(&self) -> Call<'_> {
        let params = self.params.and_then(Value::as_object);
        Call {
            method: self.method,
            name: mcp_era_types::headers::name_source(self.method)
                .and_then(|key| params.and_then(|p| p.get(key)))
                .and_then(Value::as_str),
            arguments: params
                .and_then(|p| p.get("arguments"))
                .and_then(Value::as_object),
        }
    }

    /// Whether its `_meta` is modern: it carries a modern key, or is not
    /// an object at all (step 4 keys on it).
    pub(crate) fn has_modern_meta(&self) -> bool {
        has_modern_meta(self.params)
    }
}

/// Whether `params._meta` is modern (see [`Envelope::has_modern_meta`]).
pub(crate) fn has_modern_meta(params: Option<&Value>) -> bool {
    match params
        .and_then(Value::as_object)
        .and_then(|p| p.get("_meta"))
    {
        Some(Value::Object(meta)) => {
            meta.contains_key(meta_keys::PROTOCOL_VERSION)
                || meta.contains_key(meta_keys::CLIENT_CAPABILITIES)
        }
        Some(_) => true,
        None => false,
    }
}

/// What steps 7–10 read of a request besides its `_meta`.
pub(crate) struct Call<'a> {
    pub(crate) method: &'a str,
    /// `params.name` or `params.uri`, what `Mcp-Name` must equal.
    pub(crate) name: Option<&'a str>,
    pub(crate) arguments: Option<&'a Map<String, Value>>,
}
