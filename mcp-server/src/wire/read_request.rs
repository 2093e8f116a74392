//! One pass from the bytes of a well-formed modern request to its typed
//! form: the envelope is scanned key by key, and the params go straight
//! into their method's type once the method is known. The params of
//! `tools/call`, `server/discover` and the lists, and their `_meta`, are
//! scanned too; other values (arguments, capabilities, other methods'
//! params) are read by serde_json where they stand.
//!
//! It accepts only what the generated request types accept and builds the
//! same values; anything else (unknown or escaped keys, a duplicate key,
//! an unknown method) is refused, and the caller tries the slower paths.

use std::sync::Arc;

use mcp_era_types::v2026_07_28::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientRequest, CompleteRequest,
    CompleteRequestParams, DiscoverRequest, GetPromptRequest, GetPromptRequestParams,
    ListPromptsRequest, ListResourceTemplatesRequest, ListResourcesRequest, ListToolsRequest,
    PaginatedRequestParams, ReadResourceRequest, ReadResourceRequestParams, RequestId,
    RequestMetaObject, RequestParams, SubscriptionsListenRequest, SubscriptionsListenRequestParams,
    meta_keys, methods,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::wire::scan::{Scanner, fill};

macro_rules! modern_requests {
    ($( $method:path => $variant:ident($request:ident, $params:ty, $read:ident), )*) => {
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

        fn read_params(method: &str, scan: &mut Scanner<'_>) -> Option<Params> {
            match method {
                $( $method => $read(scan).map(Params::$variant), )*
                _ => None,
            }
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
    methods::SERVER_DISCOVER => DiscoverRequest(DiscoverRequest, RequestParams, plain_params),
    methods::TOOLS_CALL => CallToolRequest(CallToolRequest, CallToolRequestParams, call_params),
    methods::TOOLS_LIST => ListToolsRequest(ListToolsRequest, PaginatedRequestParams, page_params),
    methods::RESOURCES_LIST =>
        ListResourcesRequest(ListResourcesRequest, PaginatedRequestParams, page_params),
    methods::RESOURCES_READ =>
        ReadResourceRequest(ReadResourceRequest, ReadResourceRequestParams, by_serde),
    methods::RESOURCES_TEMPLATES_LIST =>
        ListResourceTemplatesRequest(ListResourceTemplatesRequest, PaginatedRequestParams, page_params),
    methods::PROMPTS_LIST => ListPromptsRequest(ListPromptsRequest, PaginatedRequestParams, page_params),
    methods::PROMPTS_GET => GetPromptRequest(GetPromptRequest, GetPromptRequestParams, by_serde),
    methods::COMPLETION_COMPLETE =>
        CompleteRequest(CompleteRequest, CompleteRequestParams, by_serde),
    methods::SUBSCRIPTIONS_LISTEN => SubscriptionsListenRequest(
        SubscriptionsListenRequest,
        SubscriptionsListenRequestParams,
        by_serde
    ),
}

/// The typed request, when the message is a modern request of the common
/// shape: the four envelope keys, each once, unescaped, and nothing else.
pub(crate) fn read(message: &[u8]) -> Option<Box<ClientRequest>> {
    // UTF-8 checked once for the whole message: what is read from a `str`
    // is not checked again.
    let mut scan = Scanner::new(std::str::from_utf8(message).ok()?);
    let (mut jsonrpc, mut id, mut method, mut params) = (None, None, None, None);
    // Params met before the method wait, unread, for it.
    let mut early_params = None;
    scan.members(|key, scan| match key.unchecked() {
        "jsonrpc" => fill(&mut jsonrpc, || (scan.plain_str()? == "2.0").then_some(())),
        "id" => fill(&mut id, || read_id(scan)),
        "method" => fill(&mut method, || {
            scan.plain_str().filter(|name| is_known(name))
        }),
        "params" if params.is_none() && early_params.is_none() => {
            match method {
                Some(method) => params = Some(read_params(method, scan)?),
                None => early_params = Some(scan.raw()?),
            }
            Some(())
        }
        _ => None,
    })?;
    scan.end()?;
    let (Some(()), Some(id), Some(method)) = (jsonrpc, id, method) else {
        return None;
    };
    let params = match (params, early_params) {
        (Some(params), _) => params,
        (None, Some(raw)) => {
            let mut scan = Scanner::new(raw);
            let params = read_params(method, &mut scan)?;
            scan.end()?;
            params
        }
        (None, None) => return None,
    };
    Some(Box::new(params.into_request(id)))
}

#[derive(serde::Deserialize)]
struct MethodOnly<'a> {
    #[serde(borrow)]
    method: Option<&'a str>,
}

/// The two-pass read (the method, then its typed request) of what [`read`]
/// refuses. A request that deserializes into its method's typed request
/// carries, by construction, everything steps 2–6 check (its `_meta` has
/// the modern keys, so it is modern whatever the transport says).
pub(crate) fn read_modern(message: &[u8]) -> Option<ClientRequest> {
    fn typed<T: serde::de::DeserializeOwned>(message: &[u8]) -> Option<T> {
        serde_json::from_slice(message).ok()
    }
    let method = serde_json::from_slice::<MethodOnly<'_>>(message)
        .ok()?
        .method?;
    Some(match method {
        methods::SERVER_DISCOVER => ClientRequest::DiscoverRequest(typed(message)?),
        methods::TOOLS_CALL => ClientRequest::CallToolRequest(typed(message)?),
        methods::TOOLS_LIST => ClientRequest::ListToolsRequest(typed(message)?),
        methods::RESOURCES_LIST => ClientRequest::ListResourcesRequest(typed(message)?),
        methods::RESOURCES_READ => ClientRequest::ReadResourceRequest(typed(message)?),
        methods::RESOURCES_TEMPLATES_LIST => {
            ClientRequest::ListResourceTemplatesRequest(typed(message)?)
        }
        methods::PROMPTS_LIST => ClientRequest::ListPromptsRequest(typed(message)?),
        methods::PROMPTS_GET => ClientRequest::GetPromptRequest(typed(message)?),
        methods::COMPLETION_COMPLETE => ClientRequest::CompleteRequest(typed(message)?),
        methods::SUBSCRIPTIONS_LISTEN => ClientRequest::SubscriptionsListenRequest(typed(message)?),
        _ => return None,
    })
}

/// Panics unless the scanned read of `message` is none or the generated
/// types' own read (the fuzz target and the property test check it).
#[cfg(any(test, fuzzing))]
pub(crate) fn check_against_serde(message: &[u8]) {
    if let Some(scanned) = read(message) {
        let by_serde = read_modern(message);
        assert_eq!(
            Some(*scanned),
            by_serde,
            "{}",
            String::from_utf8_lossy(message)
        );
    }
}

/// A string or an integer id.
fn read_id(scan: &mut Scanner<'_>) -> Option<RequestId> {
    if scan.peek()? == b'"' {
        scan.string().map(RequestId::String)
    } else {
        scan.integer().map(RequestId::Integer)
    }
}

/// Params read by their type's own `Deserialize`.
fn by_serde<T: DeserializeOwned>(scan: &mut Scanner<'_>) -> Option<T> {
    scan.value()
}

/// Params of `_meta` alone (`server/discover`), scanned.
fn plain_params(scan: &mut Scanner<'_>) -> Option<RequestParams> {
    let mut meta = None;
    scan.members(|key, scan| match key.unchecked() {
        "_meta" => fill(&mut meta, || request_meta(scan)),
        _ => None,
    })?;
    Some(RequestParams {
        meta: meta?,
        extra: Map::new(),
    })
}

/// A list's params (`_meta` and a `cursor`), scanned.
fn page_params(scan: &mut Scanner<'_>) -> Option<PaginatedRequestParams> {
    let (mut meta, mut cursor) = (None, None);
    scan.members(|key, scan| match key.unchecked() {
        "_meta" => fill(&mut meta, || request_meta(scan)),
        "cursor" => fill(&mut cursor, || scan.string()),
        _ => None,
    })?;
    Some(PaginatedRequestParams {
        meta: meta?,
        cursor,
        extra: Map::new(),
    })
}

/// A `tools/call`'s params, scanned; keys outside the schema (kept in
/// `extra` by the generated type) are left to the serde path.
fn call_params(scan: &mut Scanner<'_>) -> Option<CallToolRequestParams> {
    let (mut meta, mut arguments, mut input_responses, mut name, mut request_state) =
        (None, None, None, None, None);
    scan.members(|key, scan| match key.unchecked() {
        "name" => fill(&mut name, || scan.string()),
        "_meta" => fill(&mut meta, || request_meta(scan)),
        "arguments" => fill(&mut arguments, || scan.value()),
        "inputResponses" => fill(&mut input_responses, || scan.value()),
        "requestState" => fill(&mut request_state, || scan.string()),
        _ => None,
    })?;
    // A literal: a property added to the schema must be read here too.
    Some(CallToolRequestParams {
        meta: meta?,
        arguments,
        input_responses,
        name: name?,
        request_state,
        extra: Map::new(),
    })
}

/// A request's `_meta`, scanned: other keys go to `extra`, as the
/// generated type keeps them.
fn request_meta(scan: &mut Scanner<'_>) -> Option<RequestMetaObject> {
    let (mut capabilities, mut info, mut log_level, mut version, mut progress) =
        (None, None, None, None, None);
    let mut extra = Map::new();
    scan.members(|key, scan| match key.unchecked() {
        meta_keys::PROTOCOL_VERSION => fill(&mut version, || scan.string()),
        meta_keys::CLIENT_CAPABILITIES => fill(&mut capabilities, || client_capabilities(scan)),
        meta_keys::CLIENT_INFO => fill(&mut info, || scan.value().map(Arc::new)),
        meta_keys::LOG_LEVEL => fill(&mut log_level, || scan.value()),
        meta_keys::PROGRESS_TOKEN => fill(&mut progress, || scan.value()),
        _ => {
            let key = key.checked().filter(|key| !extra.contains_key(*key))?;
            let value = scan.value::<Value>()?;
            extra.insert(key.to_owned(), value);
            Some(())
        }
    })?;
    Some(RequestMetaObject {
        client_capabilities: capabilities?,
        client_info: info,
        log_level,
        protocol_version: version?,
        progress_token: progress,
        extra,
    })
}

/// The client's capabilities; an empty object (a client with none of the
/// optional ones) needs no parse.
fn client_capabilities(scan: &mut Scanner<'_>) -> Option<Arc<ClientCapabilities>> {
    let capabilities = if scan.empty_object() {
        ClientCapabilities::default()
    } else {
        scan.value()?
    };
    Some(Arc::new(capabilities))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    /// `read` gives what the generated types' own `Deserialize` gives.
    fn same_as_serde(message: &str) -> Option<ClientRequest> {
        let fast = read(message.as_bytes()).map(|request| *request);
        assert_eq!(fast, read_modern(message.as_bytes()), "{message}");
        fast
    }

    #[test]
    fn reads_what_the_generated_types_read_in_any_key_order() {
        let call = format!(r#""params":{{"name":"echo","arguments":{{"text":"hi"}},{META}}}"#);
        for message in [
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call",{call}}}"#),
            format!(r#"{{{call},"method":"tools/call","id":"a","jsonrpc":"2.0"}}"#),
            format!(r#"{{"id":-3,{call},"jsonrpc":"2.0","method":"tools/call"}} "#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#),
            r#" { "jsonrpc" : "2.0" , "id" : "a\"b" , "method" : "tools/call" , "params" : { "name" : "\u0065cho" , "requestState" : "s" , "_meta" : { "io.modelcontextprotocol/clientCapabilities" : { "roots" : { } } , "io.modelcontextprotocol/protocolVersion" : "2026-07-28" , "io.modelcontextprotocol/logLevel" : "info" , "io.modelcontextprotocol/clientInfo" : { "name" : "c" , "version" : "1" } , "progressToken" : 7 , "traceparent" : "00-x" , "x" : [ 1 , { } ] } } }
"#
                .to_owned(),
        ] {
            assert!(same_as_serde(&message).is_some(), "{message}");
        }
    }

    #[test]
    fn refuses_every_other_shape() {
        let params = format!(r#""params":{{"name":"echo",{META}}}"#);
        let meta_with = |more: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}{more}}}}}}}"#
            )
        };
        for message in [
            // Kept in `extra` by the generated type: the slow path's job.
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call",{params},"x":1}}"#),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","x":1,{META}}}}}"#
            ),
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
            meta_with(r#","io.modelcontextprotocol/protocolVersion":"2026-07-28""#),
            meta_with(r#","a":1,"a":2"#),
            meta_with(r#","io.modelcontextprotocol/logLevel":"loud""#),
        ] {
            assert_eq!(read(message.as_bytes()), None, "{message}");
        }
    }

    #[test]
    fn deep_arguments_are_refused_where_serde_refuses_them() {
        for depth in [1, 90, 99, 100, 101, 123, 124, 125, 126, 127, 128, 140] {
            let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let message = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","arguments":{{"a":{nested}}},{META}}}}}"#
            );
            check_against_serde(message.as_bytes());
        }
        let shallow = format!(r#"{{"a":{}{}}}"#, "[".repeat(99), "]".repeat(99));
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","arguments":{shallow},{META}}}}}"#
        );
        assert!(read(message.as_bytes()).is_some(), "99 levels are read");
    }

    /// A JSON text and whether the scan must read it (no escaped key, no
    /// repeated key, no key outside the schema where the scan refuses them).
    type Text = (String, bool);

    fn ws() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec!["", "", " ", "\n\t "])
    }

    /// Object text from members, in the order given.
    fn object(members: &[(String, String)], ws: &str) -> String {
        let inner: Vec<String> = members
            .iter()
            .map(|(key, value)| format!("{ws}{key}{ws}:{ws}{value}{ws}"))
            .collect();
        format!("{{{}}}", inner.join(","))
    }

    fn string_value() -> BoxedStrategy<String> {
        prop_oneof![
            "[a-z0-9/-]{0,8}".prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
            "[a\"\\\\\u{1}é/]{0,6}".prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
            Just(r#""\u0065cho""#.to_owned()),
        ]
        .boxed()
    }

    /// Mostly a value the key accepts, now and then one it refuses.
    fn value_for(key: &str) -> BoxedStrategy<String> {
        let valid: &[&str] = match key {
            meta_keys::CLIENT_CAPABILITIES => {
                &["{}", "{ }", r#"{"roots":{}}"#, r#"{"sampling":{},"x":1}"#]
            }
            meta_keys::CLIENT_INFO => &[r#"{"name":"c","version":"1"}"#],
            meta_keys::LOG_LEVEL => &[r#""info""#, r#""debug""#],
            meta_keys::PROGRESS_TOKEN => &["1", r#""t""#],
            "arguments" | "inputResponses" => &["{}", r#"{"a":[1,{"b":"}"}]}"#],
            meta_keys::PROTOCOL_VERSION | "name" | "requestState" | "cursor" => {
                return prop_oneof![
                    9 => string_value(),
                    1 => Just("1".to_owned()),
                ]
                .boxed();
            }
            _ => &[
                "{}",
                "[]",
                "null",
                "1",
                "-2.5e3",
                "true",
                r#""s""#,
                r#"[{"a":"]"}]"#,
            ],
        };
        let noise = [
            "null",
            "[]",
            "{}",
            r#""loud""#,
            "1.5",
            "[1,",
            "tru",
            r#"{"a":1,}"#,
        ];
        prop_oneof![
            9 => prop::sample::select(valid.to_vec()),
            1 => prop::sample::select(noise.to_vec()),
        ]
        .prop_map(str::to_owned)
        .boxed()
    }

    fn meta() -> impl Strategy<Value = Text> {
        let required = (
            value_for(meta_keys::PROTOCOL_VERSION),
            value_for(meta_keys::CLIENT_CAPABILITIES),
        )
            .prop_map(|(version, capabilities)| {
                vec![
                    (format!("{:?}", meta_keys::PROTOCOL_VERSION), version),
                    (
                        format!("{:?}", meta_keys::CLIENT_CAPABILITIES),
                        capabilities,
                    ),
                ]
            });
        let keys = prop::sample::select(vec![
            meta_keys::PROTOCOL_VERSION,
            meta_keys::CLIENT_CAPABILITIES,
            meta_keys::CLIENT_INFO,
            meta_keys::LOG_LEVEL,
            meta_keys::PROGRESS_TOKEN,
            "traceparent",
            "a",
            "io.modelcontextprotocol/other",
        ]);
        let more =
            prop::collection::vec(keys.prop_flat_map(|key| (Just(key), value_for(key))), 0..4);
        (required, more, ws(), prop::bool::weighted(0.15)).prop_flat_map(
            |(required, more, ws, escape)| {
                let mut members = required;
                members.extend(
                    more.into_iter()
                        .map(|(key, value)| (format!("{key:?}"), value)),
                );
                let scannable = !escape && unique(&members);
                if escape {
                    members[0].0 = members[0].0.replacen('o', "\\u006f", 1);
                }
                Just(members)
                    .prop_shuffle()
                    .prop_map(move |members| (object(&members, ws), scannable))
            },
        )
    }

    fn unique(members: &[(String, String)]) -> bool {
        let keys: std::collections::BTreeSet<_> = members.iter().map(|(key, _)| key).collect();
        keys.len() == members.len()
    }

    /// A method's params: `_meta`, the `required` keys and some of the
    /// `optional` ones (`x` is outside every schema).
    fn params(
        required: &'static [&'static str],
        optional: &'static [&'static str],
    ) -> impl Strategy<Value = Text> {
        let required = required
            .iter()
            .map(|key| value_for(key).prop_map(move |value| (*key, value)))
            .collect::<Vec<_>>();
        let keys = prop::sample::select(optional);
        let optional =
            prop::collection::vec(keys.prop_flat_map(|key| (Just(key), value_for(key))), 0..3);
        (meta(), required, optional, ws()).prop_flat_map(|(meta, required, optional, ws)| {
            let outside = optional.iter().any(|(key, _)| *key == "x");
            let mut members = vec![("\"_meta\"".to_owned(), meta.0)];
            members.extend(
                required
                    .into_iter()
                    .chain(optional)
                    .map(|(key, value)| (format!("{key:?}"), value)),
            );
            let scannable = meta.1 && !outside && unique(&members);
            Just(members)
                .prop_shuffle()
                .prop_map(move |members| (object(&members, ws), scannable))
        })
    }

    fn request() -> impl Strategy<Value = Text> {
        let id = prop_oneof![
            6 => (-99_999_999_999_999_999_i64..99_999_999_999_999_999).prop_map(|n| n.to_string()),
            3 => string_value(),
            1 => prop::sample::select(vec!["-0", "1.0", "1e2", "01", "9223372036854775807", "[]"])
                .prop_map(str::to_owned),
        ];
        let method_and_params = prop_oneof![
            6 => params(&["name"], &["arguments", "requestState", "inputResponses", "x"])
                .prop_map(|params| (r#""tools/call""#, params)),
            2 => params(&[], &["cursor", "x"]).prop_map(|params| (r#""tools/list""#, params)),
            1 => params(&[], &["x"]).prop_map(|params| (r#""server/discover""#, params)),
            1 => params(&["name"], &["x"]).prop_map(|params| (r#""ping""#, params)),
            1 => params(&["name"], &["x"]).prop_map(|params| (r#""tools\/call""#, params)),
        ];
        let jsonrpc = prop_oneof![9 => Just(r#""2.0""#), 1 => Just(r#""1.0""#), 1 => Just("2")];
        (id, method_and_params, jsonrpc, ws(), 0..6_u8).prop_flat_map(
            |(id, (method, (params, params_ok)), jsonrpc, ws, extra)| {
                let long_id = id.trim_start_matches('-').len() > 18 && !id.starts_with('"');
                let mut members = vec![
                    ("\"jsonrpc\"".to_owned(), jsonrpc.to_owned()),
                    ("\"id\"".to_owned(), id),
                    ("\"method\"".to_owned(), method.to_owned()),
                    ("\"params\"".to_owned(), params),
                ];
                match extra {
                    0 => members.push(("\"id\"".to_owned(), "2".to_owned())),
                    1 => members.push(("\"x\"".to_owned(), "1".to_owned())),
                    _ => {}
                }
                let scannable = params_ok && extra > 1 && !long_id && !method.contains('\\');
                Just(members)
                    .prop_shuffle()
                    .prop_map(move |members| (object(&members, ws), scannable))
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Whatever the scan reads is what serde reads; where the shape is
        /// one it reads, it refuses only what serde refuses.
        #[test]
        fn reads_as_serde_reads((message, scannable) in request()) {
            check_against_serde(message.as_bytes());
            if scannable {
                let scanned = read(message.as_bytes()).is_some();
                prop_assert_eq!(scanned, read_modern(message.as_bytes()).is_some(), "{}", message);
            }
        }
    }
}
