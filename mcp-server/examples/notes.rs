//! A notes server: three typed tools, a `note://{id}` resource template and
//! a prompt, over stdio or HTTP.
//!
//!     cargo run -p mcp-era-server --example notes            # stdio
//!     cargo run -p mcp-era-server --example notes -- http 127.0.0.1:8080
use std::collections::BTreeMap;
use std::sync::Mutex;

use mcp_era_server::http::HttpConfig;
use mcp_era_server::{Json, McpServer, router, schemars::JsonSchema};
use serde::{Deserialize, Serialize};

#[derive(McpServer, Default)]
#[mcp(name = "notes", version = "1.0.0", tools, resources, prompts)]
#[mcp(versions(legacy = ["2025-11-25"]), cache(ttl_ms = 5000, scope = "private"))]
struct Notes {
    notes: Mutex<BTreeMap<u32, Note>>,
}

#[derive(Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "mcp_era_server::schemars")]
struct Note {
    id: u32,
    title: String,
    body: String,
}

/// Notes whose title or body contains the query.
#[derive(Serialize, JsonSchema)]
#[schemars(crate = "mcp_era_server::schemars")]
struct Found {
    notes: Vec<Note>,
}

#[router]
impl Notes {
    /// Adds a note and returns its id.
    #[tool]
    fn add_note(&self, title: String, body: String) -> Json<Note> {
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        let id = notes.keys().next_back().map_or(1, |last| last + 1);
        let note = Note { id, title, body };
        notes.insert(id, note.clone());
        Json(note)
    }

    /// Finds notes by a word in their title or body.
    #[tool(read_only)]
    fn search(&self, #[arg(description = "A word to look for")] query: String) -> Json<Found> {
        let notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        let query = query.to_lowercase();
        let hit = |n: &&Note| {
            format!("{} {}", n.title, n.body)
                .to_lowercase()
                .contains(&query)
        };
        Json(Found {
            notes: notes.values().filter(hit).cloned().collect(),
        })
    }

    /// Deletes a note.
    #[tool(destructive, idempotent)]
    fn delete_note(&self, id: u32) -> Result<String, String> {
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        match notes.remove(&id) {
            Some(note) => Ok(format!("Deleted note {id}: {}", note.title)),
            None => Err(format!("There is no note {id}")),
        }
    }

    /// A note's text, as Markdown.
    #[resource(template = "note://{id}", name = "note", mime_type = "text/markdown")]
    fn note(&self, id: u32) -> Option<String> {
        let notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        notes
            .get(&id)
            .map(|n| format!("# {}\n\n{}", n.title, n.body))
    }

    /// Asks the model to summarise a note.
    #[prompt]
    fn summarise(
        &self,
        id: u32,
        #[arg(description = "e.g. `bullet points`")] style: Option<String>,
    ) -> String {
        let style = style.unwrap_or_else(|| "one paragraph".into());
        format!("Read the resource note://{id} and summarise it as {style}.")
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] | ["stdio"] => mcp_era_server::stdio::run(Notes::default()),
        ["http", addr] => {
            let addr = addr
                .parse()
                .map_err(|e| std::io::Error::other(format!("{addr}: {e}")))?;
            mcp_era_server::http::run(Notes::default(), HttpConfig::new(addr))
        }
        _ => Err(std::io::Error::other("usage: notes [stdio | http ADDR]")),
    }
}
