//! The fixture against the library's protocol rule check and, through the
//! in-process test client, in both eras.

use mcp_era_testing::check::rules;
use mcp_era_testing::mcp_era_client::{ByEra, Error};
use mcp_era_testing::{TestClient, check_server};
use mcp_everything::Everything;

#[tokio::test]
async fn the_fixture_follows_every_rule_the_check_knows() {
    let report = check_server(Everything::new()).await;
    report.assert_ok();
    // A dual-era server with tools, resources and prompts: every rule but
    // the modern-only server's applies.
    let skipped: Vec<&str> = rules::ALL
        .iter()
        .filter(|rule| !report.checked().contains(rule))
        .map(|rule| rule.id)
        .collect();
    assert_eq!(skipped, [rules::MODERN_ONLY_INITIALIZE.id]);
}

#[tokio::test]
async fn the_fixture_serves_both_eras_in_process() -> Result<(), Error> {
    for client in [
        TestClient::new(Everything::new()).await?,
        TestClient::legacy(Everything::new()).await?,
    ] {
        let tools = match client.list_all_tools().await? {
            ByEra::Modern(list) => list.tools.len(),
            ByEra::Legacy(list) => list.tools.len(),
        };
        assert!(tools > 5, "{tools} tools");
        let text = client
            .call_tool_text("test_simple_text", serde_json::Value::Null)
            .await?;
        assert!(!text.is_empty());
    }
    Ok(())
}
