//! A notes server: three tools, the notes as a live list of `note://{id}`
//! resources, a prompt whose `style` completes; stdio or HTTP, modern and
//! legacy clients.
//!
//!     cargo run -p mcp-era --example notes                        # stdio
//!     cargo run -p mcp-era --example notes -- http 127.0.0.1:8080
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use mcp_era::prelude::*;

#[derive(McpServer, Default)]
#[mcp(
    name = "notes",
    version = "1.0.0",
    cache(ttl_ms = 5000, scope = "private")
)]
struct Notes {
    notes: Mutex<BTreeMap<u32, Note>>,
}

// serde through `mcp-era`: the facade is the only dependency.
#[derive(Clone, Serialize, Deserialize, JsonSchema)]
#[serde(crate = "mcp_era::serde")]
struct Note {
    id: u32,
    title: String,
    body: String,
}

/// Notes whose title or body contains the query.
#[derive(Serialize, JsonSchema)]
#[serde(crate = "mcp_era::serde")]
struct Found {
    notes: Vec<Note>,
}

const STYLES: [&str; 3] = ["bullet points", "one paragraph", "haiku"];

impl Notes {
    fn notes(&self) -> MutexGuard<'_, BTreeMap<u32, Note>> {
        self.notes.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[router]
impl Notes {
    /// Adds a note and returns it.
    #[tool]
    fn add_note(&self, title: String, body: String) -> Json<Note> {
        let mut notes = self.notes();
        let id = notes.keys().next_back().map_or(1, |last| last + 1);
        let note = Note { id, title, body };
        notes.insert(id, note.clone());
        Json(note)
    }

    /// Finds notes by a word in their title or body.
    #[tool(read_only)]
    fn search(
        &self,
        #[arg(description = "A word to look for")] query: String,
        #[arg(description = "At most this many notes")] limit: Option<usize>,
    ) -> Json<Found> {
        let query = query.to_lowercase();
        let hit = |n: &&Note| {
            format!("{} {}", n.title, n.body)
                .to_lowercase()
                .contains(&query)
        };
        let notes = self.notes();
        let found = notes.values().filter(hit).take(limit.unwrap_or(usize::MAX));
        Json(Found {
            notes: found.cloned().collect(),
        })
    }

    /// Deletes a note.
    #[tool(destructive, idempotent)]
    fn delete_note(&self, id: u32) -> Result<String, String> {
        match self.notes().remove(&id) {
            Some(note) => Ok(format!("Deleted note {id}: {}", note.title)),
            None => Err(format!("There is no note {id}")),
        }
    }

    /// A note's text, as Markdown.
    #[resource(template = "note://{id}", name = "note", mime_type = "text/markdown", list = Self::listed)]
    fn note(&self, id: u32) -> Option<String> {
        let notes = self.notes();
        notes
            .get(&id)
            .map(|n| format!("# {}\n\n{}", n.title, n.body))
    }

    fn listed(&self) -> Vec<ListedResource<u32>> {
        let notes = self.notes();
        notes
            .values()
            .map(|n| ListedResource::new(n.id).name(&n.title))
            .collect()
    }

    /// Asks the model to summarise a note.
    #[prompt]
    fn summarise(
        &self,
        id: u32,
        #[arg(description = "e.g. `bullet points`", complete = Self::styles)] style: Option<String>,
    ) -> String {
        let style = style.unwrap_or_else(|| "one paragraph".into());
        format!("Read the resource note://{id} and summarise it as {style}.")
    }

    fn styles(&self, partial: &str) -> Vec<&'static str> {
        STYLES
            .into_iter()
            .filter(|s| s.starts_with(partial))
            .collect()
    }
}

fn main() -> std::process::ExitCode {
    serve_from_args(Notes::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_era::client::{ByEra, Error};
    use mcp_era::testing::{TestClient, check_server};
    use serde_json::json;

    #[tokio::test]
    async fn notes_are_added_found_listed_and_deleted() -> Result<(), Error> {
        let client = TestClient::new(Notes::default()).await?;
        let added = json!({"title": "Shopping", "body": "eggs, milk"});
        client.call_tool("add_note", added).await?;
        let found = client
            .call_tool_text("search", json!({"query": "EGGS"}))
            .await?;
        assert!(found.contains("Shopping"), "{found}");
        let ByEra::Modern(listed) = client.list_resources().await? else {
            panic!("a modern answer");
        };
        assert_eq!(listed.resources[0].uri, "note://1");
        let deleted = client
            .call_tool_text("delete_note", json!({"id": 1}))
            .await?;
        assert_eq!(deleted, "Deleted note 1: Shopping");
        // A second delete fails as a tool (isError), not as a protocol error.
        assert!(
            client
                .call_tool_text("delete_note", json!({"id": 1}))
                .await
                .is_err()
        );
        Ok(())
    }

    #[tokio::test]
    async fn legacy_clients_read_the_same_notes() -> Result<(), Error> {
        let client = TestClient::legacy(Notes::default()).await?;
        let added = json!({"title": "Plan", "body": "ship it"});
        client.call_tool("add_note", added).await?;
        let ByEra::Legacy(read) = client.read_resource("note://1").await? else {
            panic!("a legacy answer");
        };
        let text = serde_json::to_value(&read.contents[0]).expect("JSON");
        assert_eq!(text["text"], "# Plan\n\nship it");
        Ok(())
    }

    #[tokio::test]
    async fn follows_the_protocol_rules_with_and_without_notes() {
        check_server(Notes::default()).await.assert_ok();
        let notes = Notes::default();
        notes.add_note("One".into(), "1".into());
        check_server(notes).await.assert_ok();
    }

    #[tokio::test]
    async fn the_catalogue_is_unchanged() -> Result<(), Error> {
        let client = TestClient::new(Notes::default()).await?;
        client
            .assert_catalogue_snapshot("tests/snapshots/notes.json")
            .await;
        Ok(())
    }
}
