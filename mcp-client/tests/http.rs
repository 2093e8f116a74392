//! Era detection, headers, legacy sessions and the era cache over
//! Streamable HTTP, against fake servers on a local port.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use mcp_era_client::cache::Cache;
use mcp_era_client::{ByEra, Client, ClientOptions, Era, EraMode, Error};
use serde_json::{Map, Value, json};

fn opts() -> ClientOptions {
    ClientOptions {
        probe_timeout: Duration::from_secs(5),
        request_timeout: Duration::from_secs(5),
        ..Default::default()
    }
}

/// A modern HTTP server: JSON for discover and tools/list, SSE for tools/call.
fn modern_http(ttl: i64) -> HttpHandler {
    Arc::new(move |req| {
        let body = &req.body;
        let version = body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
            .as_str()
            .unwrap_or("");
        if req.headers.get("mcp-protocol-version").map(String::as_str) != Some(version) {
            return HttpResponse::json(
                400,
                &json!({"jsonrpc":"2.0","id":body["id"],"error":{"code":-32020,"message":"Header mismatch"}}),
            );
        }
        match body["method"].as_str().unwrap_or("") {
            "server/discover" => HttpResponse::json(
                200,
                &json!({"jsonrpc":"2.0","id":body["id"],"result":discover_result(&["2026-07-28"], ttl, "public")}),
            ),
            "tools/list" => HttpResponse::json(
                200,
                &json!({"jsonrpc":"2.0","id":body["id"],"result":tools_list_modern()}),
            ),
            "tools/call" => HttpResponse::sse(
                &json!({"jsonrpc":"2.0","id":body["id"],"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}]}}),
            ),
            _ => HttpResponse::json(
                404,
                &json!({"jsonrpc":"2.0","id":body["id"],"error":{"code":-32601,"message":"Method not found"}}),
            ),
        }
    })
}

/// A legacy HTTP server: the modern probe gets `probe`; sessions are enforced.
fn legacy_http(probe: fn() -> HttpResponse) -> HttpHandler {
    Arc::new(move |req| {
        let body = &req.body;
        match body["method"].as_str().unwrap_or("") {
            "initialize" => HttpResponse::json(
                200,
                &json!({"jsonrpc":"2.0","id":body["id"],"result":initialize_result("2025-11-25")}),
            )
            .with_header("Mcp-Session-Id", "sess-1"),
            _ if req.headers.get("mcp-session-id").map(String::as_str) != Some("sess-1") => probe(),
            "notifications/initialized" => HttpResponse::empty(202),
            "tools/list" => HttpResponse::sse(
                &json!({"jsonrpc":"2.0","id":body["id"],"result":tools_list_legacy()}),
            ),
            _ => HttpResponse::json(
                200,
                &json!({"jsonrpc":"2.0","id":body["id"],"error":{"code":-32601,"message":"Method not found"}}),
            ),
        }
    })
}

fn methods(log: &std::sync::Mutex<Vec<HttpRequest>>) -> Vec<String> {
    log.lock()
        .unwrap()
        .iter()
        .map(|r| r.body["method"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[tokio::test]
async fn modern_http_sends_meta_and_standard_headers() {
    let (url, log) = http_server(modern_http(0)).await;
    let client = Client::connect_http(&url, opts()).await.unwrap();
    assert_eq!(client.era(), Era::Modern);
    client.list_tools(None).await.unwrap();
    let mut args = Map::new();
    args.insert("x".into(), json!("y"));
    // A non-ASCII tool name travels Base64-encoded in Mcp-Name; the answer is SSE.
    let r = client.call_tool("añadir", args).await.unwrap();
    assert!(matches!(r, ByEra::Modern(_)));
    let log = log.lock().unwrap();
    let names: Vec<_> = log
        .iter()
        .map(|r| r.body["method"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["server/discover", "tools/list", "tools/call"]);
    for req in log.iter() {
        assert_eq!(req.headers["mcp-protocol-version"], "2026-07-28");
        assert_eq!(
            req.headers["mcp-method"],
            req.body["method"].as_str().unwrap()
        );
        assert_eq!(
            req.body["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["name"],
            "mcp-client"
        );
        assert!(req.headers["accept"].contains("text/event-stream"));
        assert!(!req.headers.contains_key("mcp-session-id"));
    }
    assert!(!log[1].headers.contains_key("mcp-name"));
    assert_eq!(log[2].headers["mcp-name"], "=?base64?YcOxYWRpcg==?=");
}

#[tokio::test]
async fn http_400_with_empty_body_falls_back_to_a_legacy_session() {
    let (url, log) = http_server(legacy_http(|| HttpResponse::empty(400))).await;
    let client = Client::connect_http(&url, opts()).await.unwrap();
    assert_eq!(client.era(), Era::Legacy);
    assert_eq!(client.session_id().as_deref(), Some("sess-1"));
    assert!(
        matches!(client.list_tools(None).await.unwrap(), ByEra::Legacy(t) if t.tools.len() == 1)
    );
    assert_eq!(
        methods(&log),
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/list"
        ]
    );
    let log = log.lock().unwrap();
    assert!(
        !log[1].headers.contains_key("mcp-session-id"),
        "initialize has no session yet"
    );
    assert!(!log[1].headers.contains_key("mcp-protocol-version"));
    for req in &log[2..] {
        assert_eq!(req.headers["mcp-session-id"], "sess-1");
        assert_eq!(req.headers["mcp-protocol-version"], "2025-11-25");
    }
    assert!(log[3].body["params"].get("_meta").is_none());
}

#[tokio::test]
async fn other_4xx_answers_without_a_modern_error_fall_back() {
    fn not_json() -> HttpResponse {
        HttpResponse {
            status: 400,
            content_type: "text/plain",
            headers: vec![],
            body: "Bad Request".into(),
        }
    }
    fn legacy_json_error() -> HttpResponse {
        HttpResponse::json(
            400,
            &json!({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}),
        )
    }
    fn not_found() -> HttpResponse {
        HttpResponse::empty(404)
    }
    fn method_not_found_200() -> HttpResponse {
        HttpResponse::json(
            200,
            &json!({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}),
        )
    }
    for probe in [not_json, legacy_json_error, not_found, method_not_found_200] {
        let (url, log) = http_server(legacy_http(probe)).await;
        let client = Client::connect_http(&url, opts()).await.unwrap();
        assert_eq!(client.era(), Era::Legacy);
        assert_eq!(methods(&log)[..2], ["server/discover", "initialize"]);
    }
}

#[tokio::test]
async fn a_400_with_unsupported_version_is_modern_and_retried() {
    // Like the conformance `request-metadata` scenario: reject the first request.
    let first = Arc::new(AtomicUsize::new(0));
    let inner = modern_http(0);
    let (url, log) = http_server(Arc::new(move |req| {
        if first.fetch_add(1, Ordering::SeqCst) == 0 {
            return HttpResponse::json(400, &json!({"jsonrpc":"2.0","id":req.body["id"],"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}));
        }
        inner(req)
    }))
    .await;
    let client = Client::connect_http(&url, opts()).await.unwrap();
    assert_eq!(client.era(), Era::Modern);
    assert_eq!(methods(&log), ["server/discover", "server/discover"]);
    assert_eq!(
        log.lock().unwrap()[1].headers["mcp-protocol-version"],
        "2026-07-28"
    );
}

#[tokio::test]
async fn forced_modern_against_a_legacy_server_fails_clearly() {
    let (url, _log) = http_server(legacy_http(|| HttpResponse::empty(400))).await;
    let e = Client::connect_http(
        &url,
        ClientOptions {
            era: EraMode::Modern,
            ..opts()
        },
    )
    .await
    .unwrap_err();
    assert!(matches!(e, Error::NotModern { .. }), "{e}");
    assert!(e.to_string().contains("HTTP 400 with an empty body"), "{e}");
}

#[tokio::test]
async fn the_era_is_cached_per_origin() {
    let cache = Arc::new(Cache::default());
    let (url, log) = http_server(legacy_http(|| HttpResponse::empty(400))).await;
    let o = || ClientOptions {
        cache: cache.clone(),
        ..opts()
    };
    let first = Client::connect_http(&url, o()).await.unwrap();
    assert!(!first.era_from_cache());
    let second = Client::connect_http(&url, o()).await.unwrap();
    assert!(second.era_from_cache());
    assert_eq!(second.era(), Era::Legacy);
    assert_eq!(
        methods(&log),
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "initialize",
            "notifications/initialized"
        ],
        "the second connection skips the probe"
    );
}

#[tokio::test]
async fn a_fresh_discover_result_is_reused_and_a_stale_one_is_not() {
    let cache = Arc::new(Cache::default());
    let (url, log) = http_server(modern_http(600_000)).await;
    let o = || ClientOptions {
        cache: cache.clone(),
        ..opts()
    };
    Client::connect_http(&url, o()).await.unwrap();
    let second = Client::connect_http(&url, o()).await.unwrap();
    assert_eq!(second.era(), Era::Modern);
    assert_eq!(
        second
            .server_info()
            .map(|i| matches!(i, ByEra::Modern(i) if i.name == "fake-modern")),
        Some(true)
    );
    assert_eq!(
        methods(&log),
        ["server/discover"],
        "ttlMs 600000: no second discover"
    );

    let (url, log) = http_server(modern_http(0)).await;
    Client::connect_http(&url, o()).await.unwrap();
    Client::connect_http(&url, o()).await.unwrap();
    assert_eq!(
        methods(&log),
        ["server/discover", "server/discover"],
        "ttlMs 0: stale at once"
    );
}

#[tokio::test]
async fn a_wrong_cached_era_is_probed_again() {
    let cache = Arc::new(Cache::default());
    let (url, log) = http_server(modern_http(0)).await;
    // Pretend this origin was legacy last time.
    let origin = url.trim_end_matches("/mcp").to_owned();
    cache.remember_era(
        mcp_era_client::cache::ServerKey::Origin(origin),
        Era::Legacy,
        "2025-11-25",
    );
    let client = Client::connect_http(
        &url,
        ClientOptions {
            cache: cache.clone(),
            ..opts()
        },
    )
    .await
    .unwrap();
    assert_eq!(client.era(), Era::Modern);
    assert_eq!(methods(&log), ["initialize", "server/discover"]);
}

#[tokio::test]
async fn server_errors_and_refused_connections_are_errors_not_fallbacks() {
    let (url, log) = http_server(Arc::new(|_| HttpResponse::empty(500))).await;
    let e = Client::connect_http(&url, opts()).await.unwrap_err();
    assert!(
        matches!(
            e,
            Error::Http {
                status: Some(500),
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(methods(&log), ["server/discover"]);

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let e = Client::connect_http(&format!("http://127.0.0.1:{port}/mcp"), opts())
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Http { status: None, .. }), "{e}");
}

#[tokio::test]
async fn an_sse_event_over_16_mib_is_an_error_not_a_buffer() {
    let huge = format!("data: {}\n\n", "x".repeat(17 * 1024 * 1024));
    let modern = modern_http(0);
    let handler: HttpHandler = Arc::new(move |req| {
        if req.body["method"] != "tools/call" {
            return modern(req);
        }
        HttpResponse {
            status: 200,
            content_type: "text/event-stream",
            headers: vec![],
            body: huge.clone(),
        }
    });
    let (url, _log) = http_server(handler).await;
    let client = Client::connect_http(&url, opts()).await.unwrap();
    let e = client.call_tool("add", Map::new()).await.unwrap_err();
    assert!(
        matches!(&e, Error::Http { status: Some(200), detail, .. }
            if detail.contains("SSE event larger than 16777216 bytes")),
        "{e}"
    );
}

#[tokio::test]
async fn an_apps_csp_entry_that_is_not_an_origin_is_flagged() {
    let modern = modern_http(0);
    let handler: HttpHandler = Arc::new(move |req| {
        if req.body["method"] != "resources/read" {
            return modern(req);
        }
        let csp = json!({"connectDomains": ["https://api.example", "https://a.example; script-src *"],
                         "resourceDomains": ["*", "'unsafe-inline'", "javascript:"]});
        HttpResponse::json(
            200,
            &json!({"jsonrpc": "2.0", "id": req.body["id"], "result": {
                "resultType": "complete", "ttlMs": 0, "cacheScope": "public",
                "contents": [{"uri": "ui://x/app", "mimeType": "text/html;profile=mcp-app",
                              "text": "<p>app</p>", "_meta": {"ui": {"csp": csp}}}]}}),
        )
    });
    let (url, _log) = http_server(handler).await;
    let client = Client::connect_http(&url, opts()).await.unwrap();
    let app = client.read_app("ui://x/app").await.unwrap();
    assert_eq!(app.problems.len(), 4, "{:?}", app.problems);
    for entry in [
        "a.example; script-src *",
        "`*`",
        "unsafe-inline",
        "javascript:",
    ] {
        assert!(
            app.problems.iter().any(|p| p.contains(entry)),
            "{entry}: {:?}",
            app.problems
        );
    }
    assert!(!app.problems.iter().any(|p| p.contains("api.example")));
}

#[tokio::test]
async fn a_skills_cursor_that_comes_back_is_an_error_not_a_short_list() {
    let handler: HttpHandler = Arc::new(move |req| {
        let id = &req.body["id"];
        let result = match req.body["method"].as_str().unwrap_or("") {
            "server/discover" => {
                let mut discover = discover_result(&["2026-07-28"], 0, "public");
                discover["capabilities"] =
                    json!({"extensions": {"io.modelcontextprotocol/skills": {}}});
                discover
            }
            "skills/list" => {
                let skill = |name: &str| {
                    json!({"uri": format!("skill://{name}/SKILL.md"),
                           "frontmatter": {"name": name, "description": "d"},
                           "resources": "dynamic"})
                };
                // The second page names itself as the next one.
                let name = if req.body["params"]["cursor"].is_null() {
                    "a"
                } else {
                    "b"
                };
                json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "public",
                       "skills": [skill(name)], "nextCursor": "c1"})
            }
            _ => Value::Null,
        };
        HttpResponse::json(200, &json!({"jsonrpc": "2.0", "id": id, "result": result}))
    });
    let (url, _log) = http_server(handler).await;
    let client = Client::connect_http(&url, opts()).await.unwrap();
    let e = client.list_all_skills().await.unwrap_err();
    assert!(e.to_string().contains("repeated cursor `c1`"), "{e}");
}

#[tokio::test]
async fn json_rpc_errors_reach_the_caller() {
    let (url, _log) = http_server(modern_http(0)).await;
    let client = Client::connect_http(&url, opts()).await.unwrap();
    let e = client.request("nope/nope", Value::Null).await.unwrap_err();
    assert!(
        matches!(&e, Error::Rpc { error, .. } if error.code == -32601),
        "{e}"
    );
}

#[tokio::test]
async fn an_expired_legacy_session_is_renewed_once_and_closed_with_delete() {
    let generation = Arc::new(AtomicUsize::new(0));
    let g = generation.clone();
    let (url, log) = http_server(Arc::new(move |req| {
        let body = &req.body;
        let current = format!("sess-{}", g.load(Ordering::SeqCst));
        match body["method"].as_str().unwrap_or("") {
            "initialize" => {
                let id = format!("sess-{}", g.fetch_add(1, Ordering::SeqCst) + 1);
                HttpResponse::json(200, &json!({"jsonrpc":"2.0","id":body["id"],"result":initialize_result("2025-11-25")}))
                    .with_header("Mcp-Session-Id", &id)
            }
            "" => HttpResponse::empty(405), // DELETE
            _ if req.headers.get("mcp-session-id") != Some(&current) => HttpResponse::empty(404),
            "notifications/initialized" => HttpResponse::empty(202),
            _ => HttpResponse::json(200, &json!({"jsonrpc":"2.0","id":body["id"],"result":tools_list_legacy()})),
        }
    }))
    .await;
    let client = Client::connect_http(
        &url,
        ClientOptions {
            era: EraMode::Legacy,
            ..opts()
        },
    )
    .await
    .unwrap();
    assert_eq!(client.session_id().as_deref(), Some("sess-1"));
    // The server forgets the session.
    generation.store(5, Ordering::SeqCst);
    client.list_tools(None).await.unwrap();
    assert_eq!(client.session_id().as_deref(), Some("sess-6"));
    client.close().await;
    let log = log.lock().unwrap();
    let m: Vec<_> = log
        .iter()
        .map(|r| r.body["method"].as_str().unwrap_or("DELETE").to_owned())
        .collect();
    assert_eq!(
        m,
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "initialize",
            "notifications/initialized",
            "tools/list",
            "DELETE"
        ]
    );
    assert_eq!(log[6].headers["mcp-session-id"], "sess-6");
}
