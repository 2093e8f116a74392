//! Resources and prompts through the typed methods, in both eras, against
//! fake servers: pagination, `resources/read` errors, prompt arguments and
//! the HTTP `Mcp-Name` header.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use mcp_era_client::{ByEra, Client, ClientOptions, Era, EraMode, Error};
use serde_json::{Value, json};

fn opts(era: EraMode) -> ClientOptions {
    ClientOptions {
        era,
        probe_timeout: Duration::from_millis(500),
        request_timeout: Duration::from_secs(5),
        ..Default::default()
    }
}

/// Two pages of `key` items: `a` without a cursor, then `b` for cursor "p2".
fn two_pages(req: &Value, key: &str, modern: bool, make: fn(&str) -> Value) -> Option<Value> {
    let (item, next) = match req["params"]["cursor"].as_str() {
        None => ("a", Some("p2")),
        Some("p2") => ("b", None),
        Some(_) => return error(req, -32602, "Invalid cursor", None),
    };
    let mut page = json!({ key: [make(item)] });
    if let Some(next) = next {
        page["nextCursor"] = json!(next);
    }
    if modern {
        page["resultType"] = json!("complete");
        page["ttlMs"] = json!(if next.is_some() { 60_000 } else { 1_000 });
        page["cacheScope"] = json!("public");
    }
    result(req, page)
}

fn resource(name: &str) -> Value {
    json!({"uri": format!("test://{name}"), "name": name, "mimeType": "text/plain"})
}

fn template(name: &str) -> Value {
    json!({"uriTemplate": format!("test://{name}/{{id}}"), "name": name})
}

fn prompt(name: &str) -> Value {
    json!({"name": name, "arguments": [{"name": "who", "required": true}]})
}

/// Resources and prompts, paged; shared by the modern and the legacy server.
fn catalogue(req: &Value, modern: bool) -> Option<Value> {
    let complete = |mut v: Value| {
        if modern {
            v["resultType"] = json!("complete");
        }
        v
    };
    match req["method"].as_str()? {
        "resources/list" => two_pages(req, "resources", modern, resource),
        "resources/templates/list" => two_pages(req, "resourceTemplates", modern, template),
        "prompts/list" => two_pages(req, "prompts", modern, prompt),
        "resources/read" => match req["params"]["uri"].as_str()? {
            "test://a" => result(
                req,
                complete(
                    json!({"contents": [{"uri": "test://a", "mimeType": "text/plain", "text": "A"}],
                    "ttlMs": 0, "cacheScope": "private"}),
                ),
            ),
            uri if modern => error(
                req,
                -32602,
                &format!("Resource not found: {uri}"),
                Some(json!({"uri": uri})),
            ),
            uri => error(req, -32002, &format!("Resource not found: {uri}"), None),
        },
        "prompts/get" => {
            let who = req["params"]["arguments"]["who"]
                .as_str()
                .unwrap_or("nobody");
            result(
                req,
                complete(
                    json!({"messages": [{"role": "user", "content": {"type": "text", "text": format!("hi {who}")}}]}),
                ),
            )
        }
        _ => None,
    }
}

fn modern_server() -> Handler {
    let base = modern_handler(&["2026-07-28"]);
    Arc::new(move |req| catalogue(req, true).or_else(|| base(req)))
}

fn legacy_server() -> Handler {
    let base = legacy_handler(|r| error(r, -32601, "Method not found", None));
    Arc::new(move |req| catalogue(req, false).or_else(|| base(req)))
}

fn names(v: &Value, key: &str, field: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i[field].as_str().unwrap().to_owned())
        .collect()
}

async fn exercise(client: &Client) {
    let all = serde_json::to_value(client.list_resources().await.unwrap()).unwrap();
    assert_eq!(names(&all, "resources", "name"), ["a", "b"]);
    assert!(all.get("nextCursor").is_none(), "{all}");
    let all = serde_json::to_value(client.list_resource_templates().await.unwrap()).unwrap();
    assert_eq!(names(&all, "resourceTemplates", "name"), ["a", "b"]);
    let all = serde_json::to_value(client.list_prompts().await.unwrap()).unwrap();
    assert_eq!(names(&all, "prompts", "name"), ["a", "b"]);

    let read = serde_json::to_value(client.read_resource("test://a").await.unwrap()).unwrap();
    assert_eq!(read["contents"][0]["text"], "A");
    let e = client.read_resource("test://missing").await.unwrap_err();
    assert!(
        matches!(&e, Error::Rpc { method, .. } if method == "resources/read"),
        "{e}"
    );
    assert!(e.to_string().contains("test://missing"), "{e}");

    let args = BTreeMap::from([("who".to_owned(), "you".to_owned())]);
    let got = serde_json::to_value(client.get_prompt("a", args).await.unwrap()).unwrap();
    assert_eq!(got["messages"][0]["content"]["text"], "hi you");
    let got = serde_json::to_value(client.get_prompt("a", BTreeMap::new()).await.unwrap()).unwrap();
    assert_eq!(got["messages"][0]["content"]["text"], "hi nobody");
}

#[tokio::test]
async fn modern_lists_follow_cursors_and_requests_carry_meta() {
    let (client, log) = stdio_client(modern_server(), opts(EraMode::Modern)).await;
    let client = client.unwrap();
    assert_eq!(client.era(), Era::Modern);
    exercise(&client).await;
    // The merged list keeps the strictest caching hint of its pages.
    match client.list_resources().await.unwrap() {
        ByEra::Modern(r) => assert_eq!(r.ttl_ms, 1_000),
        other => panic!("{other:?}"),
    }
    let all = log.all();
    for req in &all {
        let v = &req["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"];
        assert_eq!(v, "2026-07-28", "{req}");
    }
    let cursors: Vec<_> = all
        .iter()
        .filter(|r| r["method"] == "prompts/list")
        .map(|r| r["params"]["cursor"].clone())
        .collect();
    assert_eq!(cursors, [Value::Null, json!("p2")]);
    let gets: Vec<_> = all
        .iter()
        .filter(|r| r["method"] == "prompts/get")
        .collect();
    assert_eq!(gets[0]["params"]["arguments"], json!({"who": "you"}));
    assert!(gets[1]["params"].get("arguments").is_none());
}

#[tokio::test]
async fn legacy_lists_follow_cursors_within_the_session() {
    let (client, log) = stdio_client(legacy_server(), opts(EraMode::Legacy)).await;
    let client = client.unwrap();
    assert_eq!(client.era(), Era::Legacy);
    exercise(&client).await;
    assert!(matches!(
        client.read_resource("test://a").await.unwrap(),
        ByEra::Legacy(_)
    ));
    for req in log.all().iter().skip(2) {
        assert!(req["params"].get("_meta").is_none(), "{req}");
    }
}

#[tokio::test]
async fn endless_or_looping_cursors_are_errors() {
    let looping: Handler = Arc::new(|req| match req["method"].as_str()? {
        "resources/list" => result(
            req,
            json!({"resultType": "complete", "resources": [], "nextCursor": "same", "ttlMs": 0, "cacheScope": "public"}),
        ),
        "prompts/list" => {
            let n = req["params"]["cursor"].as_str().map_or(0, |c| c.len());
            result(
                req,
                json!({"resultType": "complete", "prompts": [], "nextCursor": "x".repeat(n + 1), "ttlMs": 0, "cacheScope": "public"}),
            )
        }
        _ => modern_handler(&["2026-07-28"])(req),
    });
    let options = ClientOptions {
        max_pages: 3,
        ..opts(EraMode::Modern)
    };
    let (client, log) = stdio_client(looping, options).await;
    let client = client.unwrap();
    let e = client.list_resources().await.unwrap_err();
    assert!(e.to_string().contains("repeated cursor `same`"), "{e}");
    let e = client.list_prompts().await.unwrap_err();
    assert!(matches!(e, Error::InvalidResult { .. }), "{e}");
    assert!(e.to_string().contains("more than 3 pages"), "{e}");
    let prompt_pages = log
        .methods()
        .iter()
        .filter(|m| *m == "prompts/list")
        .count();
    assert_eq!(prompt_pages, 3);
}

#[tokio::test]
async fn http_reads_and_prompts_carry_mcp_name() {
    let handler: HttpHandler = Arc::new(|req| {
        let body = &req.body;
        let reply = match body["method"].as_str().unwrap_or("") {
            "server/discover" => result(body, discover_result(&["2026-07-28"], 0, "public")),
            _ => catalogue(body, true),
        };
        HttpResponse::json(200, &reply.unwrap_or(Value::Null))
    });
    let (url, log) = http_server(handler).await;
    let client = Client::connect_http(&url, opts(EraMode::Modern))
        .await
        .unwrap();
    client.read_resource("test://a").await.unwrap();
    client.get_prompt("a", BTreeMap::new()).await.unwrap();
    client.list_prompts().await.unwrap();
    let log = log.lock().unwrap();
    let header = |i: usize, name: &str| log[i].headers.get(name).cloned();
    assert_eq!(header(1, "mcp-method").as_deref(), Some("resources/read"));
    assert_eq!(header(1, "mcp-name").as_deref(), Some("test://a"));
    assert_eq!(header(2, "mcp-method").as_deref(), Some("prompts/get"));
    assert_eq!(header(2, "mcp-name").as_deref(), Some("a"));
    assert_eq!(header(3, "mcp-method").as_deref(), Some("prompts/list"));
    assert_eq!(header(3, "mcp-name"), None);
}
