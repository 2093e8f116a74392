//! One pass from the bytes of a well-formed modern request to its typed
//! form: the envelope is read key by key and the params go straight into
//! their method's type once the method is known.
//!
//! It accepts only what the generated request types accept and builds the
//! same values; anything else (unknown or escaped keys, a duplicate key,
//! an unknown method) is refused, and the caller tries the slower paths.

use mcp_era_types::v2026_07_28::{
    CallToolRequest, CallToolRequestParams, ClientRequest, CompleteRequest, CompleteRequestParams,
    DiscoverRequest, GetPromptRequest, GetPromptRequestParams, ListPromptsRequest,
    ListResourceTemplatesRequest, ListResourcesRequest, ListToolsRequest, PaginatedRequestParams,
    ReadResourceRequest, ReadResourceRequestParams, RequestId, RequestParams,
    SubscriptionsListenRequest, SubscriptionsListenRequestParams, methods,
};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

macro_rules! modern_requests {
    ($( $method:path => $variant:ident($request:ident, $params:ty), )*) => {
        /// The params of a known method.
        #[allow(
            clippy::enum_variant_names,
            reason = "named after the `ClientRequest` variants they become"
        )]
        enum Params {
            $( $variant($params), )*
        }

        fn is_known(method: &str) -> bool {
            matches!(method, $( $method )|*)
        }

        fn read_params<'de, D: Deserializer<'de>>(
            method: &str,
            deserializer: D,
        ) -> Result<Params, D::Error> {
            Ok(match method {
                $( $method => Params::$variant(<$params>::deserialize(deserializer)?), )*
                _ => return Err(de::Error::custom("not a modern request method")),
            })
        }

        impl Params {
            fn into_request(self, id: RequestId) -> ClientRequest {
                match self {
                    $( Params::$variant(params) => ClientRequest::$variant($request::new(id, params)), )*
                }
            }
        }
    };
}

modern_requests! {
    methods::SERVER_DISCOVER => DiscoverRequest(DiscoverRequest, RequestParams),
    methods::TOOLS_CALL => CallToolRequest(CallToolRequest, CallToolRequestParams),
    methods::TOOLS_LIST => ListToolsRequest(ListToolsRequest, PaginatedRequestParams),
    methods::RESOURCES_LIST => ListResourcesRequest(ListResourcesRequest, PaginatedRequestParams),
    methods::RESOURCES_READ => ReadResourceRequest(ReadResourceRequest, ReadResourceRequestParams),
    methods::RESOURCES_TEMPLATES_LIST =>
        ListResourceTemplatesRequest(ListResourceTemplatesRequest, PaginatedRequestParams),
    methods::PROMPTS_LIST => ListPromptsRequest(ListPromptsRequest, PaginatedRequestParams),
    methods::PROMPTS_GET => GetPromptRequest(GetPromptRequest, GetPromptRequestParams),
    methods::COMPLETION_COMPLETE => CompleteRequest(CompleteRequest, CompleteRequestParams),
    methods::SUBSCRIPTIONS_LISTEN =>
        SubscriptionsListenRequest(SubscriptionsListenRequest, SubscriptionsListenRequestParams),
}

/// The typed request, when the message is a modern request of the common
/// shape: the four envelope keys, each once, unescaped, and nothing else.
pub(crate) fn read(message: &[u8]) -> Option<Box<ClientRequest>> {
    // UTF-8 checked once for the whole message: read from a `str`, serde
    // does not check each string again (a tenth of the request's parse).
    let message = std::str::from_utf8(message).ok()?;
    let mut deserializer = serde_json::Deserializer::from_str(message);
    let request = deserializer.deserialize_map(RequestVisitor).ok()?;
    deserializer.end().ok()?;
    Some(request)
}

struct ParamsSeed<'m>(&'m str);

impl<'de> DeserializeSeed<'de> for ParamsSeed<'_> {
    type Value = Params;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Params, D::Error> {
        read_params(self.0, deserializer)
    }
}

struct RequestVisitor;

impl<'de> Visitor<'de> for RequestVisitor {
    // Boxed here: the request is large, and every move would copy it.
    type Value = Box<ClientRequest>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a modern JSON-RPC request")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Box<ClientRequest>, A::Error> {
        let refuse = || de::Error::custom("not of the common shape");
        let mut jsonrpc = false;
        let mut id: Option<RequestId> = None;
        let mut method: Option<&'de str> = None;
        let mut params: Option<Params> = None;
        // Params seen before the method wait, unparsed, for it.
        let mut early_params: Option<&'de RawValue> = None;
        while let Some(key) = map.next_key::<&'de str>()? {
            let params_seen = params.is_some() || early_params.is_some();
            match key {
                "jsonrpc" if !jsonrpc => {
                    if map.next_value::<&'de str>()? != "2.0" {
                        return Err(refuse());
                    }
                    jsonrpc = true;
                }
                "id" if id.is_none() => id = Some(map.next_value()?),
                "method" if method.is_none() => {
                    let name = map.next_value::<&'de str>()?;
                    if !is_known(name) {
                        return Err(refuse());
                    }
                    method = Some(name);
                }
                "params" if !params_seen => match method {
                    Some(method) => params = Some(map.next_value_seed(ParamsSeed(method))?),
                    None => early_params = Some(map.next_value()?),
                },
                _ => return Err(refuse()),
            }
        }
        let (true, Some(id), Some(method)) = (jsonrpc, id, method) else {
            return Err(refuse());
        };
        let params = match (params, early_params) {
            (Some(params), _) => params,
            (None, Some(raw)) => read_params(method, raw).map_err(de::Error::custom)?,
            (None, None) => return Err(refuse()),
        };
        Ok(Box::new(params.into_request(id)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two-pass reading this module replaces on the common path.
    fn typed(message: &str) -> Option<ClientRequest> {
        let method = serde_json::from_str::<serde_json::Value>(message).ok()?;
        let method = method.get("method")?.as_str()?;
        is_known(method).then_some(())?;
        ClientRequest::from_json(&serde_json::from_str(message).ok()?).ok()
    }

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    #[test]
    fn reads_what_the_generated_types_read_in_any_key_order() {
        let call = format!(r#""params":{{"name":"echo","arguments":{{"text":"hi"}},{META}}}"#);
        for message in [
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call",{call}}}"#),
            format!(r#"{{{call},"method":"tools/call","id":"a","jsonrpc":"2.0"}}"#),
            format!(r#"{{"id":-3,{call},"jsonrpc":"2.0","method":"tools/call"}} "#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#),
        ] {
            let fast = read(message.as_bytes());
            assert!(fast.is_some(), "{message}");
            assert_eq!(fast.map(|request| *request), typed(&message), "{message}");
        }
    }

    #[test]
    fn refuses_every_other_shape() {
        let params = format!(r#""params":{{"name":"echo",{META}}}"#);
        for message in [
            // Kept in `extra` by the generated type: the slow path's job.
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call",{params},"x":1}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call",{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call",{params},{params}}}"#),
            format!(r#"{{"json\u0072pc":"2.0","id":1,"method":"tools/call",{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1.5,"method":"tools/call",{params}}}"#),
            format!(r#"{{"jsonrpc":"1.0","id":1,"method":"tools/call",{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping",{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","method":"tools/call",{params}}}"#),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#.to_owned(),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call",{params}}} x"#),
        ] {
            assert_eq!(read(message.as_bytes()), None, "{message}");
        }
    }
}
