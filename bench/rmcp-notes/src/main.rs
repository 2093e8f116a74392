//! The notes server of `mcp-era/examples/notes.rs`, written with rmcp 3.11:
//! three tools, a `note://{id}` resource template, a prompt with a completion
//! for its `style` argument, over stdio or Streamable HTTP.
//!
//!     rmcp-notes                      # stdio
//!     rmcp-notes http 127.0.0.1:8080  # Streamable HTTP at /mcp
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use rmcp::{
    ErrorData as McpError, Json, RoleServer, ServerHandler, ServiceExt,
    handler::server::wrapper::Parameters,
    model::*,
    prompt, prompt_handler, prompt_router,
    service::RequestContext,
    tool, tool_handler, tool_router,
    transport::{
        stdio,
        streamable_http_server::{
            StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
        },
    },
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

const STYLES: &[&str] = &["bullet points", "one paragraph", "haiku"];

#[derive(Clone, Default)]
struct Notes {
    notes: Arc<Mutex<BTreeMap<u32, Note>>>,
}

#[derive(Clone, Serialize, Deserialize, JsonSchema)]
struct Note {
    id: u32,
    title: String,
    body: String,
}

#[derive(Deserialize, JsonSchema)]
struct AddNoteArgs {
    title: String,
    body: String,
}

#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    /// A word to look for
    query: String,
    limit: Option<u32>,
}

/// Notes whose title or body contains the query.
#[derive(Serialize, JsonSchema)]
struct Found {
    notes: Vec<Note>,
}

#[derive(Deserialize, JsonSchema)]
struct DeleteNoteArgs {
    id: u32,
}

#[derive(Deserialize, JsonSchema)]
struct SummariseArgs {
    id: String,
    /// e.g. `bullet points`
    style: Option<String>,
}

impl Notes {
    fn notes(&self) -> std::sync::MutexGuard<'_, BTreeMap<u32, Note>> {
        self.notes.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[tool_router]
impl Notes {
    /// Adds a note and returns it.
    #[tool]
    fn add_note(
        &self,
        Parameters(AddNoteArgs { title, body }): Parameters<AddNoteArgs>,
    ) -> Json<Note> {
        let mut notes = self.notes();
        let id = notes.keys().next_back().map_or(1, |last| last + 1);
        let note = Note { id, title, body };
        notes.insert(id, note.clone());
        Json(note)
    }

    /// Finds notes by a word in their title or body.
    #[tool(annotations(read_only_hint = true))]
    fn search(
        &self,
        Parameters(SearchArgs { query, limit }): Parameters<SearchArgs>,
    ) -> Json<Found> {
        let query = query.to_lowercase();
        let notes = self
            .notes()
            .values()
            .filter(|n| {
                format!("{} {}", n.title, n.body)
                    .to_lowercase()
                    .contains(&query)
            })
            .take(limit.map_or(usize::MAX, |n| n as usize))
            .cloned()
            .collect();
        Json(Found { notes })
    }

    /// Deletes a note.
    #[tool(annotations(destructive_hint = true, idempotent_hint = true))]
    fn delete_note(
        &self,
        Parameters(DeleteNoteArgs { id }): Parameters<DeleteNoteArgs>,
    ) -> Result<String, String> {
        match self.notes().remove(&id) {
            Some(note) => Ok(format!("Deleted note {id}: {}", note.title)),
            None => Err(format!("There is no note {id}")),
        }
    }
}

#[prompt_router]
impl Notes {
    /// Asks the model to summarise a note.
    #[prompt]
    fn summarise(
        &self,
        Parameters(SummariseArgs { id, style }): Parameters<SummariseArgs>,
    ) -> Vec<PromptMessage> {
        let style = style.unwrap_or_else(|| "one paragraph".into());
        vec![PromptMessage::new_text(
            Role::User,
            format!("Read the resource note://{id} and summarise it as {style}."),
        )]
    }
}

#[tool_handler]
#[prompt_handler]
impl ServerHandler for Notes {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .enable_completions()
                .build(),
        )
        .with_server_info(Implementation::new("notes", "1.0.0"))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("note://{id}", "note")
                .with_description("A note's text, as Markdown.")
                .with_mime_type("text/markdown"),
        ]))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let resources = self
            .notes()
            .values()
            .map(|n| {
                Resource::new(format!("note://{}", n.id), n.title.clone())
                    .with_mime_type("text/markdown")
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let id = request
            .uri
            .strip_prefix("note://")
            .and_then(|id| id.parse().ok());
        let notes = self.notes();
        match id.and_then(|id| notes.get(&id)) {
            Some(n) => Ok(ReadResourceResult::new(vec![
                ResourceContents::text(format!("# {}\n\n{}", n.title, n.body), request.uri)
                    .with_mime_type("text/markdown"),
            ])
            .into()),
            None => Err(McpError::resource_not_found(
                format!("No note at {}", request.uri),
                None,
            )),
        }
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let values = match &request.r#ref {
            Reference::Prompt(p) if p.name == "summarise" && request.argument.name == "style" => {
                let prefix = request.argument.value.to_lowercase();
                STYLES
                    .iter()
                    .filter(|s| s.starts_with(&prefix))
                    .map(|s| s.to_string())
                    .collect()
            }
            _ => vec![],
        };
        let completion =
            CompletionInfo::new(values).map_err(|e| McpError::internal_error(e, None))?;
        Ok(CompleteResult::new(completion))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] | ["stdio"] => {
            Notes::default().serve(stdio()).await?.waiting().await?;
        }
        ["http", addr] => {
            let server = Notes::default();
            let ct = tokio_util::sync::CancellationToken::new();
            let service = StreamableHttpService::new(
                move || Ok(server.clone()),
                LocalSessionManager::default().into(),
                StreamableHttpServerConfig::default().with_cancellation_token(ct.child_token()),
            );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(addr).await?;
            axum::serve(listener, router)
                .with_graceful_shutdown(async move {
                    let _ = tokio::signal::ctrl_c().await;
                    ct.cancel();
                })
                .await?;
        }
        _ => return Err("usage: rmcp-notes [stdio | http ADDR]".into()),
    }
    Ok(())
}
