//! Era detection and negotiation over stdio, against fake servers running
//! as tokio tasks on an in-memory pipe.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use mcp_era_client::{ByEra, ClientOptions, Era, EraMode, Error};
use serde_json::{Map, Value, json};

fn opts() -> ClientOptions {
    ClientOptions {
        probe_timeout: Duration::from_millis(500),
        request_timeout: Duration::from_secs(5),
        ..Default::default()
    }
}

fn assert_modern_meta(req: &Value, version: &str) {
    let meta = &req["params"]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"], version,
        "{req}"
    );
    assert!(
        meta["io.modelcontextprotocol/clientCapabilities"].is_object(),
        "{req}"
    );
    assert_eq!(
        meta["io.modelcontextprotocol/clientInfo"]["name"], "mcp-client",
        "{req}"
    );
}

#[tokio::test]
async fn modern_server_is_detected_and_every_request_has_meta() {
    let (client, log) = stdio_client(modern_handler(&["2026-07-28"]), opts()).await;
    let client = client.unwrap();
    assert_eq!(client.era(), Era::Modern);
    assert_eq!(client.protocol_version(), "2026-07-28");
    assert_eq!(client.supported_versions().unwrap(), ["2026-07-28"]);
    assert_eq!(client.instructions().as_deref(), Some("Be nice."));
    match client.server_info().unwrap() {
        ByEra::Modern(i) => assert_eq!(
            (i.name.as_str(), i.version.as_str()),
            ("fake-modern", "1.2.3")
        ),
        other => panic!("{other:?}"),
    }
    assert!(matches!(client.capabilities(), ByEra::Modern(c) if c.tools.is_some()));
    assert!(
        matches!(client.list_tools(None).await.unwrap(), ByEra::Modern(t) if t.tools.len() == 1)
    );
    let mut args = Map::new();
    args.insert("a".into(), json!(1));
    assert!(matches!(
        client.call_tool("add", args).await.unwrap(),
        ByEra::Modern(_)
    ));
    assert_eq!(
        log.methods(),
        ["server/discover", "tools/list", "tools/call"]
    );
    for req in log.all() {
        assert_modern_meta(&req, "2026-07-28");
    }
    assert_eq!(log.all()[2]["params"]["arguments"], json!({"a": 1}));
}

#[tokio::test]
async fn method_not_found_on_discover_falls_back_to_initialize() {
    let handler = legacy_handler(|r| error(r, -32601, "Method not found", None));
    let (client, log) = stdio_client(handler, opts()).await;
    let client = client.unwrap();
    assert_eq!(client.era(), Era::Legacy);
    assert_eq!(client.protocol_version(), "2025-11-25");
    assert_eq!(client.supported_versions(), None);
    assert_eq!(client.instructions().as_deref(), Some("Old school."));
    assert!(matches!(client.server_info().unwrap(), ByEra::Legacy(i) if i.name == "fake-legacy"));
    assert!(
        matches!(client.list_tools(None).await.unwrap(), ByEra::Legacy(t) if t.tools.len() == 1)
    );
    assert_eq!(
        log.methods(),
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/list"
        ]
    );
    let all = log.all();
    assert_eq!(all[1]["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(all[1]["params"]["clientInfo"]["name"], "mcp-client");
    assert!(
        all[3]["params"].get("_meta").is_none(),
        "legacy requests carry no modern _meta"
    );
}

#[tokio::test]
async fn other_legacy_errors_fall_back_too_never_keyed_on_one_code() {
    fn invalid_params(r: &Value) -> Option<Value> {
        error(r, -32602, "Invalid params", None)
    }
    fn server_error(r: &Value) -> Option<Value> {
        error(r, -32000, "Server not initialized", None)
    }
    fn bare_unsupported(r: &Value) -> Option<Value> {
        error(r, -32022, "looks modern, lacks data.supported", None)
    }
    for reply in [invalid_params, server_error, bare_unsupported] {
        let (client, log) = stdio_client(legacy_handler(reply), opts()).await;
        assert_eq!(client.unwrap().era(), Era::Legacy);
        assert_eq!(log.methods()[..2], ["server/discover", "initialize"]);
    }
}

#[tokio::test(start_paused = true)]
async fn silent_server_times_out_then_falls_back() {
    let handler = legacy_handler(|_| None);
    let (client, log) = stdio_client(handler, opts()).await;
    let client = client.unwrap();
    assert_eq!(client.era(), Era::Legacy);
    // A round trip, so the server has read everything sent before it.
    client.list_tools(None).await.unwrap();
    assert_eq!(
        log.methods(),
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/list"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn silent_server_under_forced_modern_is_an_error() {
    let (client, log) = stdio_client(
        legacy_handler(|_| None),
        ClientOptions {
            era: EraMode::Modern,
            ..opts()
        },
    )
    .await;
    let e = client.unwrap_err();
    assert!(matches!(e, Error::NotModern { .. }), "{e}");
    assert!(e.to_string().contains("probe timeout"), "{e}");
    assert_eq!(log.methods(), ["server/discover"]);
}

#[tokio::test]
async fn forced_legacy_skips_the_probe() {
    let handler = legacy_handler(|r| error(r, -32601, "Method not found", None));
    let (client, log) = stdio_client(
        handler,
        ClientOptions {
            era: EraMode::Legacy,
            ..opts()
        },
    )
    .await;
    let client = client.unwrap();
    assert_eq!(client.era(), Era::Legacy);
    client.list_tools(None).await.unwrap();
    assert_eq!(
        log.methods(),
        ["initialize", "notifications/initialized", "tools/list"]
    );
}

#[tokio::test]
async fn unsupported_version_picks_a_mutual_one_and_never_falls_back() {
    let options = ClientOptions {
        modern_versions: vec!["2027-01-01".into(), "2026-07-28".into()],
        ..opts()
    };
    let (client, log) = stdio_client(modern_handler(&["2026-07-28"]), options).await;
    let client = client.unwrap();
    assert_eq!(client.era(), Era::Modern);
    assert_eq!(client.protocol_version(), "2026-07-28");
    let all = log.all();
    assert_eq!(log.methods(), ["server/discover", "server/discover"]);
    assert_modern_meta(&all[0], "2027-01-01");
    assert_modern_meta(&all[1], "2026-07-28");
}

#[tokio::test]
async fn no_mutual_version_names_both_lists_and_does_not_fall_back() {
    let (client, log) = stdio_client(modern_handler(&["2099-01-01"]), opts()).await;
    let e = client.unwrap_err();
    assert_eq!(
        e.to_string(),
        "no protocol version in common: client supports [2026-07-28], server supports [2099-01-01]"
    );
    assert_eq!(log.methods(), ["server/discover"]);
}

#[tokio::test]
async fn another_modern_error_is_modern_and_retried() {
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let modern = modern_handler(&["2026-07-28"]);
    let handler: Handler = Arc::new(move |req| {
        if req["method"] == "server/discover" && seen.fetch_add(1, Ordering::SeqCst) == 0 {
            return error(
                req,
                -32021,
                "Missing capability",
                Some(json!({"requiredCapabilities": {"roots": {}}})),
            );
        }
        modern(req)
    });
    let (client, log) = stdio_client(handler, opts()).await;
    assert_eq!(client.unwrap().era(), Era::Modern);
    assert_eq!(log.methods(), ["server/discover", "server/discover"]);
}

#[tokio::test]
async fn unsupported_version_mid_session_is_retried_exactly_once() {
    // tools/list answers -32022 `rejections` times, then succeeds.
    fn server(rejections: usize) -> (Handler, Arc<AtomicUsize>) {
        let count = Arc::new(AtomicUsize::new(0));
        let seen = count.clone();
        let modern = modern_handler(&["2026-07-28"]);
        let handler: Handler = Arc::new(move |req| {
            if req["method"] == "tools/list" && seen.fetch_add(1, Ordering::SeqCst) < rejections {
                let data = json!({"supported": ["2026-07-28"], "requested": "2026-07-28"});
                return error(req, -32022, "Unsupported protocol version", Some(data));
            }
            modern(req)
        });
        (handler, count)
    }
    let (handler, count) = server(1);
    let client = stdio_client(handler, opts()).await.0.unwrap();
    client.list_tools(None).await.unwrap();
    assert_eq!(count.load(Ordering::SeqCst), 2);

    let (handler, count) = server(2);
    let client = stdio_client(handler, opts()).await.0.unwrap();
    let e = client.list_tools(None).await.unwrap_err();
    assert!(
        matches!(&e, Error::Rpc { error, .. } if error.code == -32022),
        "{e}"
    );
    assert_eq!(count.load(Ordering::SeqCst), 2, "one retry, no more");
}

#[tokio::test]
async fn legacy_initialize_counter_offer_outside_our_list_is_refused() {
    let handler: Handler = Arc::new(|req| match req["method"].as_str()? {
        "initialize" => result(req, initialize_result("2024-01-01")),
        _ => error(req, -32601, "Method not found", None),
    });
    let e = stdio_client(handler, opts()).await.0.unwrap_err();
    assert!(
        matches!(&e, Error::NoMutualVersion { server, .. } if server == &["2024-01-01"]),
        "{e}"
    );
}

/// Older legacy revisions are known but not implemented: a server that can
/// only speak one of them is refused, never spoken to with 2025-11-25 rules.
#[tokio::test]
async fn legacy_counter_offer_of_an_unimplemented_older_revision_is_refused() {
    for older in ["2025-06-18", "2025-03-26", "2024-11-05"] {
        let handler: Handler = Arc::new(move |req| match req["method"].as_str()? {
            "initialize" => result(req, initialize_result(older)),
            _ => error(req, -32601, "Method not found", None),
        });
        let e = stdio_client(handler, opts()).await.0.unwrap_err();
        assert!(
            matches!(&e, Error::NoMutualVersion { client, server }
                if server == &[older] && client == &["2025-11-25"]),
            "{older}: {e}"
        );
    }
}

#[tokio::test]
async fn negative_ttl_and_extra_members_are_tolerated() {
    let handler: Handler = Arc::new(|req| match req["method"].as_str()? {
        "server/discover" => {
            let mut d = discover_result(&["2026-07-28"], -5, "private");
            d["serverInfo"] = json!({"name": "in-body", "version": "1"});
            d["_meta"] = json!({});
            result(req, d)
        }
        _ => error(req, -32601, "Method not found", None),
    });
    let client = stdio_client(handler, opts()).await.0.unwrap();
    assert_eq!(client.discover_result().unwrap().ttl_ms, 0);
    assert!(matches!(client.server_info().unwrap(), ByEra::Modern(i) if i.name == "in-body"));
}

#[tokio::test]
async fn a_real_process_is_spawned_and_stderr_passes_through() {
    // A legacy server in sh: silent to everything but initialize (id 2).
    let script = r#"while IFS= read -r line; do
  case "$line" in
    *'"initialize"'*) echo '{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"sh","version":"1"}}}' ;;
    *) echo "(sh test server: stderr passes through; expected)" >&2 ;;
  esac
done"#;
    let options = ClientOptions {
        probe_timeout: Duration::from_millis(300),
        ..opts()
    };
    let client =
        mcp_era_client::Client::connect_stdio("sh", &["-c".into(), script.into()], options)
            .await
            .unwrap();
    assert_eq!(client.era(), Era::Legacy);
    client.close().await;

    let e = mcp_era_client::Client::connect_stdio("/nonexistent/server", &[], opts())
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Spawn { .. }), "{e}");
}

#[tokio::test]
async fn the_probe_retry_happens_once() {
    // The server claims 2026-07-28 but rejects it anyway, every time.
    let handler: Handler = Arc::new(|req| {
        let data = json!({"supported": ["2026-07-28"], "requested": "2026-07-28"});
        error(req, -32022, "Unsupported protocol version", Some(data))
    });
    let (client, log) = stdio_client(handler, opts()).await;
    let e = client.unwrap_err();
    assert!(
        matches!(&e, Error::Rpc { error, .. } if error.code == -32022),
        "{e}"
    );
    assert_eq!(log.methods(), ["server/discover", "server/discover"]);
}

#[tokio::test]
async fn a_probe_answered_after_its_timeout_ends_modern_not_in_an_error() {
    // A slow starter: it answers server/discover after the probe timeout,
    // then (as the Python SDK does) refuses initialize on a connection that
    // already serves the modern era, and answers discover again.
    let script = r#"discover='{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"slow","version":"1"}}}'
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -E 's/.*"id":([0-9]+).*/\1/')
  case "$line" in
    *'"server/discover"'*) [ "$id" = 1 ] && sleep 1; echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":$discover}" ;;
    *'"initialize"'*) echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"error\":{\"code\":-32022,\"message\":\"connection is serving the 2026-07-28 protocol\",\"data\":{\"requested\":\"2025-11-25\",\"supported\":[\"2026-07-28\"]}}}" ;;
  esac
done"#;
    let options = ClientOptions {
        probe_timeout: Duration::from_millis(300),
        ..opts()
    };
    let client =
        mcp_era_client::Client::connect_stdio("sh", &["-c".into(), script.into()], options)
            .await
            .unwrap();
    assert_eq!(client.era(), Era::Modern);
    assert_eq!(client.protocol_version(), "2026-07-28");
    assert!(matches!(client.server_info().unwrap(), ByEra::Modern(i) if i.name == "slow"));
    client.close().await;
}
