//! The test client against a small server: typed calls in both eras,
//! elicitation answered by a closure, raw and HTTP-shaped messages, the
//! catalogue snapshot.

use mcp_era_server::mcp_era_types::v2026_07_28::{
    CallToolResult, ElicitResult, ElicitResultAction,
};
use mcp_era_server::schemars::{self, JsonSchema};
use mcp_era_server::{
    Elicitation, InputRequired, McpServer, RequestContext, RetryInput, ToolAnswer, input,
};
use mcp_era_testing::mcp_era_client::{ByEra, Era, Error};
use mcp_era_testing::{TestClient, raw};
use serde_json::{Value, json};

#[derive(serde::Deserialize, JsonSchema)]
struct Name {
    /// Your name
    name: String,
}

#[derive(McpServer, Default)]
#[mcp(name = "sample", version = "2.0.0", tools(list_changed))]
struct Sample;

#[mcp_era_server::router]
impl Sample {
    /// Adds two integers.
    #[tool(read_only)]
    fn add(&self, a: i64, b: i64) -> String {
        (a + b).to_string()
    }

    /// Greets whoever answers.
    #[tool]
    fn greet(&self, retry: &RetryInput) -> ToolAnswer {
        match retry.elicited::<Name>("who")? {
            Some(Elicitation::Accepted(Name { name })) => {
                Ok(CallToolResult::text(format!("Hello, {name}!")).into())
            }
            Some(_) => Ok(CallToolResult::text("Hello, stranger!").into()),
            None => InputRequired::new()
                .request("who", input::elicit::<Name>("Who are you?")?)
                .into(),
        }
    }

    /// Says the tool list changed.
    #[tool]
    fn touch(&self, ctx: &RequestContext) -> String {
        ctx.events().tools_list_changed();
        "touched".into()
    }

    /// The readme.
    #[resource(uri = "docs://readme", mime_type = "text/plain")]
    fn readme(&self) -> String {
        "Read me.".into()
    }

    /// Says hello to `name`.
    #[prompt]
    fn hello(&self, name: String) -> String {
        format!("Say hello to {name}.")
    }
}

type Result = std::result::Result<(), Error>;

#[tokio::test]
async fn typed_calls_in_the_modern_era() -> Result {
    let client = TestClient::new(Sample).await?;
    assert_eq!(client.era(), Era::Modern);
    assert_eq!(
        client
            .call_tool_text("add", json!({"a": 2, "b": 40}))
            .await?,
        "42"
    );
    let ByEra::Modern(tools) = client.list_tools(None).await? else {
        panic!("a modern answer");
    };
    let names: Vec<&str> = tools.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "greet", "touch"]);
    let discover = client.discover().await?.expect("a modern server");
    assert_eq!(discover.supported_versions, ["2026-07-28"]);
    assert!(matches!(
        client.read_resource("docs://readme").await?,
        ByEra::Modern(_)
    ));
    let prompt = client
        .get_prompt("hello", [("name".to_owned(), "Ada".to_owned())].into())
        .await?;
    let text = serde_json::to_value(prompt).expect("JSON");
    assert_eq!(text["messages"][0]["content"]["text"], "Say hello to Ada.");
    client.close().await.expect("the serving loop ends cleanly");
    Ok(())
}

#[tokio::test]
async fn typed_calls_in_the_legacy_era() -> Result {
    let client = TestClient::legacy(Sample).await?;
    assert_eq!(client.era(), Era::Legacy);
    assert_eq!(client.protocol_version(), "2025-11-25");
    assert_eq!(
        client
            .call_tool_text("add", json!({"a": 1, "b": 2}))
            .await?,
        "3"
    );
    assert!(matches!(client.list_prompts().await?, ByEra::Legacy(_)));
    // A legacy session answers a missing resource with -32002.
    let missing = client.read_resource("docs://nothing").await;
    assert!(
        matches!(&missing, Err(Error::Rpc { error, .. }) if error.code == -32002),
        "{missing:?}"
    );
    Ok(())
}

#[tokio::test]
async fn elicitation_is_answered_by_the_closure_in_both_eras() -> Result {
    let accept = |_request| {
        let mut result = ElicitResult::new(ElicitResultAction::Accept);
        result.content =
            Some(serde_json::from_value(json!({"name": "Ada"})).expect("a content map"));
        result
    };
    let modern = TestClient::builder(Sample)
        .on_elicit(accept)
        .connect()
        .await?;
    assert_eq!(
        modern.call_tool_text("greet", Value::Null).await?,
        "Hello, Ada!"
    );
    let legacy = TestClient::builder(Sample)
        .legacy()
        .on_elicit(accept)
        .connect()
        .await?;
    assert_eq!(
        legacy.call_tool_text("greet", Value::Null).await?,
        "Hello, Ada!"
    );
    // Without a closure the capability is not declared: the call fails.
    let plain = TestClient::new(Sample).await?;
    assert!(plain.call_tool_text("greet", Value::Null).await.is_err());
    Ok(())
}

#[tokio::test]
async fn failed_tools_and_bad_arguments_are_errors_of_call_tool_text() -> Result {
    let client = TestClient::new(Sample).await?;
    let failed = client.call_tool_text("add", json!({"a": "one"})).await;
    assert!(
        matches!(failed, Err(Error::InvalidResult { .. })),
        "{failed:?}"
    );
    let not_an_object = client.call_tool("add", json!([1, 2])).await;
    assert!(matches!(not_an_object, Err(Error::InvalidResult { .. })));
    Ok(())
}

#[tokio::test]
async fn raw_messages_and_http_statuses() -> Result {
    let client = TestClient::new(Sample).await?;
    let answer = client
        .send_raw(raw::request(
            1,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
        ))
        .await
        .expect("answered");
    assert_eq!(answer["result"]["content"][0]["text"], "2");
    assert_eq!(
        client
            .send_raw(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await,
        None
    );
    let unknown = raw::request(2, "unknown/method", json!({}));
    let http = client
        .send_http(unknown.clone(), raw::headers_for(&unknown))
        .await;
    assert_eq!((http.status, http.error_code()), (404, Some(-32601)));
    let mut headers = raw::headers_for(&unknown);
    headers.protocol_version = None;
    let http = client.send_http(unknown, headers).await;
    assert_eq!((http.status, http.error_code()), (400, Some(-32020)));
    Ok(())
}

#[tokio::test]
async fn the_catalogue_matches_its_snapshot() -> Result {
    let client = TestClient::new(Sample).await?;
    let catalogue = client.catalogue().await?;
    assert_eq!(
        catalogue["tools"][0]["inputSchema"]["required"],
        json!(["a", "b"])
    );
    assert!(catalogue.get("resourceTemplates").is_some());
    client
        .assert_catalogue_snapshot("tests/snapshots/sample.json")
        .await;
    Ok(())
}

#[tokio::test]
async fn the_test_client_runs_the_rule_check() -> Result {
    let client = TestClient::new(Sample).await?;
    client.check().await.assert_ok();
    Ok(())
}

#[derive(McpServer)]
#[mcp(name = "modern-only", version = "1.0.0", versions(legacy = []))]
struct ModernOnly;

#[mcp_era_server::router]
impl ModernOnly {
    /// Echoes.
    #[tool]
    fn echo(&self, text: String) -> String {
        text
    }
}

#[tokio::test]
async fn a_modern_only_server_refuses_a_legacy_client() {
    let refused = TestClient::legacy(ModernOnly).await;
    assert!(refused.is_err(), "{refused:?}");
    let report = mcp_era_testing::check_server(ModernOnly).await;
    report.assert_ok();
    let modern_only = mcp_era_testing::check::rules::MODERN_ONLY_INITIALIZE;
    assert!(report.checked().contains(&modern_only));
}

#[tokio::test]
async fn a_listen_stream_receives_list_changes() -> Result {
    use mcp_era_server::mcp_era_types::v2026_07_28::SubscriptionFilter;

    let client = TestClient::new(Sample).await?;
    let mut changes = client
        .subscribe(SubscriptionFilter::new().with_tools_list_changed(true))
        .await?;
    assert_eq!(
        client.call_tool_text("touch", Value::Null).await?,
        "touched"
    );
    let note = tokio::time::timeout(std::time::Duration::from_secs(5), changes.next())
        .await
        .expect("a notification within 5 s")
        .expect("the stream is open");
    assert_eq!(note.method, "notifications/tools/list_changed");
    Ok(())
}

#[tokio::test]
async fn a_server_with_middleware_is_tested_and_checked_as_itself() -> Result {
    use mcp_era_server::McpServerExt;
    use mcp_era_server::errors::codes;
    use mcp_era_server::middleware::{RequestLogLayer, ResultLimitLayer, for_tools};

    let layered = || {
        Sample
            .layer(RequestLogLayer::new())
            .layer(for_tools(["add"], ResultLimitLayer::new(8)))
    };
    mcp_era_testing::check_server(layered()).await.assert_ok();
    let client = TestClient::new(layered()).await?;
    let refused = client.call_tool("add", json!({"a": 1, "b": 2})).await;
    assert!(
        matches!(&refused, Err(Error::Rpc { error, .. }) if error.code == codes::RESULT_TOO_LARGE),
        "{refused:?}"
    );
    let touched = client.call_tool_text("touch", json!({})).await?;
    assert_eq!(touched, "touched", "other tools skip the limit");
    Ok(())
}
