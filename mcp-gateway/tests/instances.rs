//! Several gateway instances: two gateways in process, each with its HTTP
//! front on a loopback port, peers of each other, in front of our fixture
//! spoken to as a legacy backend. A round answered by A is completed when
//! its retry reaches B (forwarded to A); an instance that does not know
//! the holder refuses with a retryable error; a forwarded retry is never
//! forwarded again. The same through a composition (`Composite`).
#![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use mcp_era_gateway::{
    Backend, BackendOptions, Composite, Composition, EraMode, FORWARDED_BY, Gateway, Instances,
};
use mcp_era_server::McpServer;
use mcp_era_server::stdio::{self, StdioConfig};
use mcp_everything::Everything;
use serde_json::{Value, json};
use tokio::net::TcpListener;

mod common;
use common::ask_declaring;

/// A gateway in front of the fixture (a legacy backend, over an in-memory
/// pipe) as instance `instances`.
async fn gateway(instances: Instances) -> Gateway {
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(theirs);
    tokio::spawn(stdio::serve_with(
        Arc::new(Everything::new()),
        server_read,
        server_write,
        StdioConfig::default(),
    ));
    let (read, write) = tokio::io::split(ours);
    let options = BackendOptions {
        era: EraMode::Legacy,
        instances,
        ..BackendOptions::default()
    };
    let backend = Backend::connect_streams(read, write, "everything", &options)
        .await
        .unwrap();
    Gateway::new(backend).await
}

/// `server`'s HTTP front on `listener`.
fn serve<S: McpServer + 'static>(server: Arc<S>, listener: TcpListener) {
    let addr = listener.local_addr().unwrap();
    let config = mcp_era_server::http::HttpConfig::new(addr);
    tokio::spawn(mcp_era_server::http::serve_listener(
        server, listener, config,
    ));
}

async fn loopback() -> (TcpListener, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    (listener, addr)
}

fn url(addr: SocketAddr) -> String {
    format!("http://{addr}/mcp")
}

fn call(name: &str) -> Value {
    json!({"name": name, "arguments": {"message": "Your name?"}})
}

/// A modern `tools/call` of `params` posted to the front at `addr`, with
/// `extra` headers: the HTTP status and the JSON-RPC response.
async fn post(addr: SocketAddr, mut params: Value, extra: &[(&str, &str)]) -> (u16, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
    });
    let name = params["name"].as_str().unwrap().to_owned();
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    let mut request = hyper::Request::post(url(addr))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name);
    for (header, value) in extra {
        request = request.header(*header, *value);
    }
    let request = request
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let client = Client::builder(TokioExecutor::new()).build_http();
    let response = client.request(request).await.unwrap();
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&body);
    let message = if text.trim_start().starts_with('{') {
        serde_json::from_str(&text).unwrap()
    } else {
        // An SSE stream: the response is the event carrying the id.
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|message| message.get("id") == Some(&json!(7)))
            .unwrap_or_else(|| panic!("no response in {text}"))
    };
    (status, message)
}

/// `call` again with `response` accepted for the one input request of
/// `first` (an `input_required` result), with its `requestState`.
fn answered(call: &Value, first: &Value, response: &str) -> Value {
    let key = first["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap();
    let mut retry = call.clone();
    retry["inputResponses"] =
        json!({ key: {"action": "accept", "content": {"response": response}} });
    retry["requestState"] = first["requestState"].clone();
    retry
}

fn accepted(response: &str) -> String {
    format!(r#"User response: action=accept, content={{"response":"{response}"}}"#)
}

#[tokio::test]
async fn a_retry_reaching_a_peer_is_forwarded_to_the_instance_holding_its_round() {
    let ((listen_a, addr_a), (listen_b, addr_b)) = (loopback().await, loopback().await);
    let a = Instances::new("a")
        .unwrap()
        .with_peer("b", &url(addr_b))
        .unwrap();
    let b = Instances::new("b")
        .unwrap()
        .with_peer("a", &url(addr_a))
        .unwrap();
    let (a, b) = (Arc::new(gateway(a).await), Arc::new(gateway(b).await));
    serve(Arc::clone(&a), listen_a);
    serve(Arc::clone(&b), listen_b);
    let elicitation = json!({"elicitation": {}});
    let call = call("test_elicitation");

    // Asked at A (over HTTP), answered at B (over HTTP): B forwards to A.
    let (_, first) = post(addr_a, call.clone(), &[]).await;
    let first = &first["result"];
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert!(
        first["requestState"].as_str().unwrap().starts_with("a."),
        "{first}"
    );
    let (status, second) = post(addr_b, answered(&call, first, "Ann"), &[]).await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(
        second["result"]["content"][0]["text"],
        accepted("Ann"),
        "{second}"
    );

    // The other way, from a client B serves on another front (stdio):
    // the forwarded request's headers are made from the request itself.
    let first = ask_declaring(&b, "tools/call", call.clone(), elicitation.clone()).await;
    let first = &first["result"];
    assert!(
        first["requestState"].as_str().unwrap().starts_with("b."),
        "{first}"
    );
    let retry = answered(&call, first, "Bo");
    let second = ask_declaring(&a, "tools/call", retry.clone(), elicitation.clone()).await;
    assert_eq!(
        second["result"]["content"][0]["text"],
        accepted("Bo"),
        "{second}"
    );
    // Answered once: B's answer to the same retry again, through A.
    let again = ask_declaring(&a, "tools/call", retry, elicitation).await;
    assert_eq!(again["error"]["code"], -32602, "{again}");
}

#[tokio::test]
async fn an_instance_that_cannot_reach_the_holder_refuses_retryably() {
    let (listen_a, addr_a) = loopback().await;
    let a = Arc::new(gateway(Instances::new("a").unwrap()).await);
    serve(Arc::clone(&a), listen_a);
    let elicitation = json!({"elicitation": {}});
    let call = call("test_elicitation");
    let (_, first) = post(addr_a, call.clone(), &[]).await;
    let retry = answered(&call, &first["result"], "Cy");

    // No peer named `a`: refused, naming both instances.
    let lone = gateway(Instances::new("c").unwrap()).await;
    let refused = ask_declaring(&lone, "tools/call", retry.clone(), elicitation.clone()).await;
    let error = &refused["error"];
    assert_eq!(error["code"], -32602, "{refused}");
    assert_eq!(
        error["data"],
        json!({"instance": "c", "heldBy": "a", "retryable": true})
    );
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("held by gateway instance a, which instance c cannot reach"),
        "{message}"
    );
    assert!(message.contains("without requestState"), "{message}");

    // A peer `a` that is down: refused the same way.
    let (dead, dead_addr) = loopback().await;
    drop(dead);
    let with_dead = Instances::new("d")
        .unwrap()
        .with_peer("a", &url(dead_addr))
        .unwrap();
    let with_dead = gateway(with_dead).await;
    let refused = ask_declaring(&with_dead, "tools/call", retry.clone(), elicitation.clone()).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(refused["error"]["data"]["heldBy"], "a", "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("refused"), "the cause is named: {message}");

    // The round is still A's to complete.
    let done = ask_declaring(&a, "tools/call", retry, elicitation).await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        accepted("Cy"),
        "{done}"
    );
}

#[tokio::test]
async fn a_forwarded_retry_is_never_forwarded_again() {
    let ((listen_a, addr_a), (listen_b, addr_b)) = (loopback().await, loopback().await);
    let a = Arc::new(gateway(Instances::new("a").unwrap()).await);
    let b = Instances::new("b")
        .unwrap()
        .with_peer("a", &url(addr_a))
        .unwrap();
    let b = Arc::new(gateway(b).await);
    serve(Arc::clone(&a), listen_a);
    serve(Arc::clone(&b), listen_b);
    let call = call("test_elicitation");
    let (_, first) = post(addr_a, call.clone(), &[]).await;
    let retry = answered(&call, &first["result"], "Di");

    // B knows A, but the retry says it was forwarded already: refused.
    let (status, refused) = post(addr_b, retry.clone(), &[(FORWARDED_BY, "x")]).await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("forwarded here already"), "{message}");

    // So A's round is still pending, and the plain retry completes it.
    let (status, done) = post(addr_b, retry, &[]).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        accepted("Di"),
        "{done}"
    );
}

/// A composition of one backend under a prefix, as instance `instances`.
async fn composite(file: &str, instances: Instances) -> Composite {
    let options = BackendOptions {
        instances,
        ..BackendOptions::default()
    };
    Composite::start(Composition::from_toml(file).unwrap(), options)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_composition_forwards_the_front_request_to_its_peer() {
    // The fixture over HTTP, shared by both instances, spoken to as legacy.
    let (listen_fixture, fixture) = loopback().await;
    serve(Arc::new(Everything::new()), listen_fixture);
    let file = format!(
        "[[backend]]\nname = \"ev\"\nurl = \"{}\"\nera = \"legacy\"\nprefix = \"always\"\n",
        url(fixture)
    );
    let ((listen_a, addr_a), (listen_b, addr_b)) = (loopback().await, loopback().await);
    let a = Instances::new("a")
        .unwrap()
        .with_peer("b", &url(addr_b))
        .unwrap();
    let b = Instances::new("b")
        .unwrap()
        .with_peer("a", &url(addr_a))
        .unwrap();
    let a = Arc::new(composite(&file, a).await);
    let b = Arc::new(composite(&file, b).await);
    serve(Arc::clone(&a), listen_a);
    serve(Arc::clone(&b), listen_b);

    let call = call("ev__test_elicitation");
    let (_, first) = post(addr_a, call.clone(), &[]).await;
    let first = &first["result"];
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert!(
        first["requestState"].as_str().unwrap().starts_with("a."),
        "{first}"
    );
    let (status, second) = post(addr_b, answered(&call, first, "Eve"), &[]).await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(
        second["result"]["content"][0]["text"],
        accepted("Eve"),
        "{second}"
    );
}
