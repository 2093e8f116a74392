//! The client against the real `mcp-everything` fixture: spawned as a child
//! process over stdio (a re-run of this test binary) and served over HTTP
//! on a loopback port. Concurrency, cancellation by drop, timeouts, MRTR in
//! both eras, and `subscriptions/listen`.
//!
//! `harness = false`: run with `fixture::FIXTURE` as its argument this
//! binary is the stdio fixture server.

#![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.

mod fixture;

use std::pin::Pin;
use std::process::{ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use fixture::http_url;
use mcp_era_client::mcp_era_types::v2026_07_28 as m;
use mcp_era_client::transport::BoxFuture;
use mcp_era_client::{
    ByEra, Client, ClientHandler, ClientOptions, Era, EraMode, Error, HandlerError,
};
use serde_json::{Value, json};
use tokio::io::AsyncWrite;

/// Answers elicitation with a name, sampling with "Paris", roots with one root.
struct Answers;

impl ClientHandler for Answers {
    fn elicit(
        &self,
        _request: m::ElicitRequestParams,
    ) -> BoxFuture<'_, Result<m::ElicitResult, HandlerError>> {
        Box::pin(async {
            Ok(
                serde_json::from_value(json!({"action": "accept", "content": {"name": "Alice"}}))
                    .unwrap(),
            )
        })
    }

    fn create_message(
        &self,
        _request: m::CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<m::CreateMessageResult, HandlerError>> {
        Box::pin(async {
            Ok(
                serde_json::from_value(json!({"role": "assistant", "model": "t",
                "content": {"type": "text", "text": "Paris"}}))
                .unwrap(),
            )
        })
    }
}

fn opts(era: EraMode) -> ClientOptions {
    ClientOptions {
        era,
        capabilities: serde_json::from_value(
            json!({"elicitation": {}, "sampling": {}, "roots": {}}),
        )
        .unwrap(),
        handler: Some(Arc::new(Answers)),
        request_timeout: Duration::from_secs(10),
        ..ClientOptions::default()
    }
}

async fn stdio(era: EraMode) -> Client {
    fixture::stdio(opts(era)).await
}

fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

async fn call(client: &Client, name: &str, args: Value) -> Result<Value, Error> {
    client
        .request("tools/call", json!({"name": name, "arguments": args}))
        .await
}

/// 100 calls at once over one stdio pipe: each gets its own answer.
async fn hundred_concurrent_calls_over_one_pipe() {
    let client = stdio(EraMode::Modern).await;
    let calls: Vec<_> = (0..100)
        .map(|i| {
            let c = client.clone();
            tokio::spawn(async move {
                let r = call(
                    &c,
                    "json_schema_2020_12_tool",
                    json!({"name": format!("n{i}"), "email": "e"}),
                )
                .await
                .unwrap();
                (i, text(&r))
            })
        })
        .collect();
    for task in calls {
        let (i, text) = task.await.unwrap();
        assert!(text.contains(&format!("\"n{i}\"")), "call {i} got {text}");
    }
    client.close().await;
}

/// A writer that keeps a copy of every byte it passes on.
struct Tee<W> {
    inner: W,
    copy: Arc<Mutex<Vec<u8>>>,
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Tee<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &poll {
            let n = *n;
            self.copy.lock().unwrap().extend_from_slice(&buf[..n]);
        }
        poll
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Dropping a request's future sends `notifications/cancelled` with its id;
/// a timeout does the same; the connection keeps working.
async fn dropped_and_timed_out_requests_are_cancelled() {
    let me = std::env::current_exe().unwrap();
    let mut child = tokio::process::Command::new(me)
        .arg(fixture::FIXTURE)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let copy = Arc::new(Mutex::new(Vec::new()));
    let writer = Tee {
        inner: child.stdin.take().unwrap(),
        copy: copy.clone(),
    };
    let pid = child.id().unwrap_or(0);
    let client = Client::connect_streams(
        child.stdout.take().unwrap(),
        writer,
        "fixture",
        pid,
        opts(EraMode::Modern),
    )
    .await
    .unwrap();
    // test_reconnection takes 100 ms: give up after 10 ms by dropping the future.
    let dropped = tokio::time::timeout(
        Duration::from_millis(10),
        call(&client, "test_reconnection", json!({})),
    )
    .await;
    assert!(dropped.is_err());
    let timed_out = client
        .request_with_timeout(
            "tools/call",
            json!({"name": "test_reconnection", "arguments": {}}),
            Duration::from_millis(10),
        )
        .await;
    assert!(
        matches!(timed_out, Err(Error::Timeout { .. })),
        "{timed_out:?}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = call(&client, "test_simple_text", json!({})).await.unwrap();
    assert!(!text(&after).is_empty());
    let lines: Vec<Value> = String::from_utf8(copy.lock().unwrap().clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let calls: Vec<&Value> = lines
        .iter()
        .filter(|l| l["params"]["name"] == "test_reconnection")
        .map(|l| &l["id"])
        .collect();
    let cancelled: Vec<&Value> = lines
        .iter()
        .filter(|l| l["method"] == "notifications/cancelled")
        .map(|l| &l["params"]["requestId"])
        .collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls, cancelled,
        "each abandoned call is cancelled by its id"
    );
    client.close().await;
    let _ = child.kill().await;
}

/// An MRTR tool answered through the handler: modern (retry with
/// inputResponses) and legacy (real elicitation/create requests).
async fn mrtr_answered_through_the_handler(client: &Client, era: Era) {
    assert_eq!(client.era(), era);
    let r = call(client, "test_input_required_result_elicitation", json!({}))
        .await
        .unwrap();
    assert_eq!(text(&r), "Hello, Alice!", "{era:?}: {r}");
    let r = call(client, "test_input_required_result_sampling", json!({}))
        .await
        .unwrap();
    assert_eq!(text(&r), "Sampling result: Paris", "{era:?}: {r}");
    let r = call(client, "test_input_required_result_list_roots", json!({}))
        .await
        .unwrap();
    assert_eq!(text(&r), "Found 0 root(s)", "{era:?}: {r}");
    client.close().await;
}

async fn mrtr_over_stdio_in_both_eras() {
    mrtr_answered_through_the_handler(&stdio(EraMode::Modern).await, Era::Modern).await;
    mrtr_answered_through_the_handler(&stdio(EraMode::Legacy).await, Era::Legacy).await;
}

async fn mrtr_over_http_in_both_eras() {
    let url = http_url().await;
    for (mode, era) in [
        (EraMode::Modern, Era::Modern),
        (EraMode::Legacy, Era::Legacy),
    ] {
        let client = Client::connect_http(&url, opts(mode)).await.unwrap();
        mrtr_answered_through_the_handler(&client, era).await;
    }
}

/// Answers elicitation with the call tag it was asked under as the name.
struct TagEcho;

impl ClientHandler for TagEcho {
    fn elicit(
        &self,
        _request: m::ElicitRequestParams,
    ) -> BoxFuture<'_, Result<m::ElicitResult, HandlerError>> {
        let name = format!("{:?}", mcp_era_client::handler::call_tag());
        Box::pin(async move {
            Ok(
                serde_json::from_value(json!({"action": "accept", "content": {"name": name}}))
                    .unwrap(),
            )
        })
    }
}

/// A server request is answered under the tag of the request it belongs
/// to when the transport says which (an MRTR round, a legacy POST's own
/// stream), and under none over a legacy stdio pipe.
async fn server_requests_carry_the_tag_of_their_call() {
    let url = http_url().await;
    let tagged = |mode| ClientOptions {
        handler: Some(Arc::new(TagEcho)),
        ..opts(mode)
    };
    let cases = [
        (
            Client::connect_http(&url, tagged(EraMode::Modern))
                .await
                .unwrap(),
            "Some(7)",
        ),
        (
            Client::connect_http(&url, tagged(EraMode::Legacy))
                .await
                .unwrap(),
            "Some(7)",
        ),
        (fixture::stdio(tagged(EraMode::Modern)).await, "Some(7)"),
        (fixture::stdio(tagged(EraMode::Legacy)).await, "None"),
    ];
    for (client, tag) in cases {
        let era = client.era();
        let r = mcp_era_client::handler::with_call_tag(
            7,
            call(&client, "test_input_required_result_elicitation", json!({})),
        )
        .await
        .unwrap();
        assert_eq!(text(&r), format!("Hello, {tag}!"), "{era:?}: {r}");
        client.close().await;
    }
}

/// A tool with an `x-mcp-header` argument called before any `tools/list`:
/// the server's `-32020` makes the client learn the annotations and retry.
async fn param_headers_are_learned_on_a_header_mismatch() {
    let url = http_url().await;
    let client = Client::connect_http(&url, opts(EraMode::Modern))
        .await
        .unwrap();
    for region in ["eu-west", "Zürich", " padded "] {
        let r = call(&client, "test_custom_header", json!({"region": region}))
            .await
            .unwrap();
        assert_eq!(text(&r), format!("Region: {region}"));
    }
}

/// Input of a kind the client did not declare is refused, not answered.
async fn undeclared_input_is_refused() {
    let o = ClientOptions {
        era: EraMode::Modern,
        handler: Some(Arc::new(Answers)),
        ..ClientOptions::default()
    };
    let client = fixture::stdio(o).await;
    let e = call(&client, "test_input_required_result_sampling", json!({})).await;
    assert!(
        matches!(
            e,
            Err(Error::UndeclaredInput { .. }) | Err(Error::Rpc { .. })
        ),
        "{e:?}"
    );
    client.close().await;
}

/// `subscriptions/listen`: a list change arrives on the stream and drops
/// the cached tool list.
async fn subscriptions_deliver_list_changes() {
    for client in [
        stdio(EraMode::Modern).await,
        Client::connect_http(&http_url().await, opts(EraMode::Modern))
            .await
            .unwrap(),
    ] {
        let mut sub = client
            .subscribe(m::SubscriptionFilter::new().with_tools_list_changed(true))
            .await
            .unwrap();
        let listed = client.list_all_tools().await.unwrap();
        let n = match &listed {
            ByEra::Modern(l) => l.tools.len(),
            ByEra::Legacy(l) => l.tools.len(),
        };
        assert!(n > 0);
        call(&client, "test_trigger_tool_change", json!({}))
            .await
            .unwrap();
        let note = tokio::time::timeout(Duration::from_secs(5), sub.next())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(note.method, "notifications/tools/list_changed");
        drop(sub);
        client.close().await;
    }
}

/// A fetched list is reused while fresh and dropped by a list change.
async fn list_changes_invalidate_the_cached_list() {
    let url = http_url().await;
    let cache = Arc::new(mcp_era_client::cache::Cache::default());
    let o = ClientOptions {
        cache: cache.clone(),
        ..opts(EraMode::Modern)
    };
    let client = Client::connect_http(&url, o).await.unwrap();
    let origin = url.trim_end_matches("/mcp").to_owned();
    let key = mcp_era_client::cache::ServerKey::Origin(origin);
    let mut sub = client
        .subscribe(m::SubscriptionFilter::new().with_tools_list_changed(true))
        .await
        .unwrap();
    client.list_all_tools().await.unwrap();
    assert!(
        cache.list(&key, None, "tools/list").is_some(),
        "cached for its ttlMs"
    );
    call(&client, "test_trigger_tool_change", json!({}))
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(5), sub.next())
        .await
        .unwrap()
        .unwrap();
    assert!(
        cache.list(&key, None, "tools/list").is_none(),
        "dropped by list_changed"
    );
}

fn main() -> ExitCode {
    fixture::main(&[
        ("hundred_concurrent_calls_over_one_pipe", || {
            Box::pin(hundred_concurrent_calls_over_one_pipe())
        }),
        ("dropped_and_timed_out_requests_are_cancelled", || {
            Box::pin(dropped_and_timed_out_requests_are_cancelled())
        }),
        ("mrtr_over_stdio_in_both_eras", || {
            Box::pin(mrtr_over_stdio_in_both_eras())
        }),
        ("mrtr_over_http_in_both_eras", || {
            Box::pin(mrtr_over_http_in_both_eras())
        }),
        ("server_requests_carry_the_tag_of_their_call", || {
            Box::pin(server_requests_carry_the_tag_of_their_call())
        }),
        ("undeclared_input_is_refused", || {
            Box::pin(undeclared_input_is_refused())
        }),
        ("subscriptions_deliver_list_changes", || {
            Box::pin(subscriptions_deliver_list_changes())
        }),
        ("list_changes_invalidate_the_cached_list", || {
            Box::pin(list_changes_invalidate_the_cached_list())
        }),
        ("param_headers_are_learned_on_a_header_mismatch", || {
            Box::pin(param_headers_are_learned_on_a_header_mismatch())
        }),
    ])
}
