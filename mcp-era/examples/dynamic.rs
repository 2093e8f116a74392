//! A server without macros: its name, instructions, tools, resources and
//! prompts are read from a JSON file at start (`examples/dynamic.json` when
//! none is given), and the file is read again every second while it serves:
//! tools, resources and prompts added or removed there are served at once
//! and announced as `list_changed`.
//!
//!     cargo run -p mcp-era --example dynamic                               # stdio
//!     cargo run -p mcp-era --example dynamic -- http 127.0.0.1:8080 my.json
//!
//! A tool answers its `reply` text with `{argument}` replaced by the call's
//! arguments; a prompt does the same with its `text`.
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use mcp_era::server::http::{self, HttpConfig};
use mcp_era::server::{
    HandlerResult, McpServer, PromptCall, PromptRouter, Reply, RequestContext, ServerDeclaration,
    ServerEvents, ToolCall, ToolRouter, errors, stdio,
};
use mcp_era::types::v2026_07_28::prelude::*;
use serde::Deserialize;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/dynamic.json");

/// The file's shape.
#[derive(Deserialize, Clone, PartialEq)]
struct Config {
    name: String,
    version: String,
    instructions: Option<String>,
    #[serde(default)]
    tools: Vec<ToolEntry>,
    #[serde(default)]
    resources: Vec<ResourceEntry>,
    #[serde(default)]
    prompts: Vec<PromptEntry>,
}

#[derive(Deserialize, Clone, PartialEq)]
struct ToolEntry {
    #[serde(flatten)]
    tool: Tool,
    reply: String,
}

#[derive(Deserialize, Clone, PartialEq)]
struct ResourceEntry {
    #[serde(flatten)]
    resource: Resource,
    text: String,
}

#[derive(Deserialize, Clone, PartialEq)]
struct PromptEntry {
    #[serde(flatten)]
    prompt: Prompt,
    text: String,
}

/// `template` with each `{name}` replaced by the argument of that name.
fn fill(template: &str, arguments: &BTreeMap<String, String>) -> String {
    arguments
        .iter()
        .fold(template.to_owned(), |text, (name, value)| {
            text.replace(&format!("{{{name}}}"), value)
        })
}

struct Catalogue {
    declaration: Arc<ServerDeclaration>,
    tools: ToolRouter,
    prompts: PromptRouter,
    /// The last read (its resources are served from it).
    config: RwLock<Config>,
    events: ServerEvents,
}

impl Catalogue {
    fn new(config: Config, events: ServerEvents) -> Result<Self, String> {
        let info = Implementation::builder()
            .name(config.name.clone())
            .version(config.version.clone())
            .build();
        // Every list may change while the server runs.
        let mut capabilities = ServerCapabilities::new();
        capabilities.tools = Some(ServerCapabilitiesTools::new().with_list_changed(true));
        capabilities.resources = Some(ServerCapabilitiesResources::new().with_list_changed(true));
        capabilities.prompts = Some(ServerCapabilitiesPrompts::new().with_list_changed(true));
        let mut declaration = ServerDeclaration::new(info).with_capabilities(capabilities);
        if let Some(instructions) = &config.instructions {
            declaration = declaration.with_instructions(instructions.clone());
        }
        let server = Self {
            declaration: Arc::new(declaration),
            tools: ToolRouter::new().with_events(events.clone()),
            prompts: PromptRouter::new().with_events(events.clone()),
            config: RwLock::new(config.clone()),
            events,
        };
        server.sync_tools(&config.tools)?;
        server.sync_prompts(&config.prompts);
        Ok(server)
    }

    fn config(&self) -> Config {
        self.config
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Makes the router's tools those of `entries` (each change announced).
    fn sync_tools(&self, entries: &[ToolEntry]) -> Result<(), String> {
        for name in self.tools.names() {
            if !entries.iter().any(|e| e.tool.name == name) {
                self.tools.remove(&name);
            }
        }
        for entry in entries {
            let reply = entry.reply.clone();
            self.tools.remove(&entry.tool.name);
            self.tools
                .add_raw(entry.tool.clone(), move |call: ToolCall, _| {
                    let arguments = call
                        .arguments
                        .iter()
                        .map(|(k, v)| (k.clone(), v.as_str().map_or(v.to_string(), str::to_owned)))
                        .collect();
                    std::future::ready(fill(&reply, &arguments))
                })
                .map_err(|e| format!("tool {}: {e}", entry.tool.name))?;
        }
        Ok(())
    }

    /// Makes the router's prompts those of `entries` (each change announced).
    fn sync_prompts(&self, entries: &[PromptEntry]) {
        for name in self.prompts.names() {
            if !entries.iter().any(|e| e.prompt.name == name) {
                self.prompts.remove(&name);
            }
        }
        for entry in entries {
            let text = entry.text.clone();
            self.prompts
                .add(entry.prompt.clone(), move |call: PromptCall, _| {
                    std::future::ready(fill(&text, &call.arguments))
                });
        }
    }

    /// Takes a new read of the file: what changed is served and announced.
    fn update(&self, new: Config) -> Result<(), String> {
        let old = self.config();
        if old.tools != new.tools {
            self.sync_tools(&new.tools)?;
        }
        if old.resources != new.resources {
            self.events.resources_list_changed();
        }
        if old.prompts != new.prompts {
            self.sync_prompts(&new.prompts);
        }
        *self.config.write().unwrap_or_else(|e| e.into_inner()) = new;
        Ok(())
    }

    fn read_resource(&self, uri: &str) -> HandlerResult<ReadResourceResult> {
        let config = self.config();
        let entry = config
            .resources
            .iter()
            .find(|r| r.resource.uri == uri)
            .ok_or_else(|| errors::resource_not_found(uri))?;
        let mut contents = TextResourceContents::from_uri_and_text(uri, entry.text.clone());
        contents.mime_type = entry.resource.mime_type.clone();
        let contents = vec![ReadResourceResultContentsItem::TextResourceContents(
            contents,
        )];
        Ok(ReadResourceResult::new(
            contents,
            CacheHints::new(0, CacheScope::Private),
        ))
    }
}

/// One page holds everything: any cursor is one this server never gave.
fn first_page(params: &PaginatedRequestParams) -> HandlerResult<()> {
    match &params.cursor {
        Some(cursor) => Err(errors::invalid_params(format!("Invalid cursor: {cursor}"))),
        None => Ok(()),
    }
}

impl McpServer for Catalogue {
    fn declaration(&self) -> Arc<ServerDeclaration> {
        Arc::clone(&self.declaration)
    }

    async fn dispatch_capability(
        &self,
        request: ClientRequest,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        match request {
            ClientRequest::ListToolsRequest(list) => {
                self.tools.list_tools_reply(list.params, ctx).await
            }
            ClientRequest::CallToolRequest(call) => {
                ctx.reply(self.tools.call_tool(call.params, ctx).await?)
            }
            ClientRequest::ListResourcesRequest(list) => {
                first_page(&list.params)?;
                let resources = self.config().resources.into_iter().map(|r| r.resource);
                ctx.reply(ListResourcesResult::new(
                    resources.collect(),
                    ctx.cache_hints(),
                ))
            }
            ClientRequest::ListResourceTemplatesRequest(list) => {
                first_page(&list.params)?;
                ctx.reply(ListResourceTemplatesResult::new(
                    Vec::new(),
                    ctx.cache_hints(),
                ))
            }
            ClientRequest::ReadResourceRequest(read) => {
                ctx.reply(self.read_resource(&read.params.uri)?)
            }
            ClientRequest::ListPromptsRequest(list) => {
                self.prompts.list_prompts_reply(list.params, ctx).await
            }
            ClientRequest::GetPromptRequest(get) => {
                ctx.reply(self.prompts.get_prompt(get.params, ctx).await?)
            }
            other => Err(errors::method_not_found(format!(
                "{} is not served",
                other.method()
            ))),
        }
    }

    fn tool_param_headers(&self, name: &str) -> Option<Vec<mcp_era::server::ParamHeader>> {
        self.tools.param_headers(name)
    }
}

fn read(path: &str) -> Result<(Config, SystemTime), String> {
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map_err(|e| format!("{path}: {e}"))?;
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let config = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    Ok((config, modified))
}

/// Reads `path` again whenever it changes; a broken read keeps what is served.
async fn follow(server: Arc<Catalogue>, path: String, mut seen: SystemTime) {
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        match read(&path) {
            Ok((_, modified)) if modified == seen => {}
            Ok((config, modified)) => {
                seen = modified;
                if let Err(e) = server.update(config) {
                    eprintln!("dynamic: not applied: {e}");
                }
            }
            Err(e) => eprintln!("dynamic: {e}"),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (listen, path) = match args.as_slice() {
        [] => (None, EXAMPLE.to_owned()),
        [mode, path] if mode == "stdio" => (None, path.clone()),
        [mode, addr] if mode == "http" => (Some(addr.clone()), EXAMPLE.to_owned()),
        [mode, addr, path] if mode == "http" => (Some(addr.clone()), path.clone()),
        _ => return Err("usage: dynamic [stdio FILE | http ADDR [FILE]]".into()),
    };
    let (config, modified) = read(&path)?;
    let events = ServerEvents::new();
    let server = Arc::new(Catalogue::new(config, events.clone())?);
    tokio::spawn(follow(Arc::clone(&server), path, modified));
    let served = match listen {
        Some(addr) => {
            let mut config = HttpConfig::bind(&addr).map_err(|e| e.to_string())?;
            config.events = events;
            let listener = tokio::net::TcpListener::bind(config.listen)
                .await
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
            eprintln!(
                "dynamic: serving {} on http://{addr}/mcp",
                server.config().name
            );
            http::serve_listener(server, listener, config).await
        }
        None => {
            let config = stdio::StdioConfig {
                events,
                ..stdio::StdioConfig::default()
            };
            stdio::serve_with(server, tokio::io::stdin(), tokio::io::stdout(), config).await
        }
    };
    served.map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]
    use super::*;
    use mcp_era::server::ServerEvent;
    use mcp_era::testing::{TestClient, check_server};
    use serde_json::json;

    fn example() -> Config {
        read(EXAMPLE).unwrap().0
    }

    #[tokio::test]
    async fn the_example_meets_the_rules_in_both_eras() {
        check_server(Catalogue::new(example(), ServerEvents::new()).unwrap())
            .await
            .assert_ok();
    }

    #[tokio::test]
    async fn clients_of_both_eras_use_what_the_file_says() {
        for legacy in [false, true] {
            let server = Catalogue::new(example(), ServerEvents::new()).unwrap();
            let client = if legacy {
                TestClient::legacy(server).await.unwrap()
            } else {
                TestClient::new(server).await.unwrap()
            };
            let text = client.call_tool_text("greet", json!({"name": "Ann"})).await;
            assert_eq!(text.unwrap(), "Hello, Ann!");
            let catalogue = client.catalogue().await.unwrap();
            assert_eq!(catalogue["resources"][0]["uri"], "config://motd");
            assert_eq!(catalogue["prompts"][0]["name"], "summarise");
        }
    }

    #[tokio::test]
    async fn a_new_read_changes_the_lists_and_announces_it() {
        let events = ServerEvents::new();
        let server = Catalogue::new(example(), events.clone()).unwrap();
        let mut heard = events.subscribe();
        let mut next = example();
        next.tools[0].tool.name = "welcome".into();
        next.resources.clear();
        server.update(next).unwrap();
        assert_eq!(server.tools.names(), ["welcome"]);
        let mut got = Vec::new();
        while let Ok(event) = heard.try_recv() {
            got.push(event);
        }
        assert!(got.contains(&ServerEvent::ToolsListChanged), "{got:?}");
        assert!(got.contains(&ServerEvent::ResourcesListChanged), "{got:?}");
        assert!(!got.contains(&ServerEvent::PromptsListChanged), "{got:?}");
        assert!(server.read_resource("config://motd").is_err());
    }
}
