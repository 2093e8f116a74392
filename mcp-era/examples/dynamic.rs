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
//! arguments; a prompt does the same with its `text`, a resource template
//! with the variables of the URI read.
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use mcp_era::server::http::{self, HttpConfig};
use mcp_era::server::{
    HandlerResult, McpServer, PromptCall, PromptRouter, Reply, RequestContext, ResourceRequest,
    ResourceRouter, ServerDeclaration, ServerEvents, ToolCall, ToolRouter, errors, stdio,
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
    #[serde(default, rename = "resourceTemplates")]
    templates: Vec<TemplateEntry>,
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
struct TemplateEntry {
    #[serde(flatten)]
    template: ResourceTemplate,
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
    /// Replaced when the file's name, version or instructions change.
    declaration: RwLock<Arc<ServerDeclaration>>,
    tools: ToolRouter,
    resources: ResourceRouter,
    prompts: PromptRouter,
    /// The last read, to tell what a new one changes.
    config: RwLock<Config>,
}

/// How long a client may trust `server/discover`: the file is read every
/// second, and what discover says (name, version, instructions) follows it.
const DISCOVER_TTL_MS: u64 = 1_000;

/// The declaration the file describes.
fn declare(config: &Config) -> ServerDeclaration {
    let info = Implementation::builder()
        .name(config.name.clone())
        .version(config.version.clone())
        .build();
    // Every list may change while the server runs.
    let mut capabilities = ServerCapabilities::new();
    capabilities.tools = Some(ServerCapabilitiesTools::new().with_list_changed(true));
    capabilities.resources = Some(ServerCapabilitiesResources::new().with_list_changed(true));
    capabilities.prompts = Some(ServerCapabilitiesPrompts::new().with_list_changed(true));
    let mut declaration = ServerDeclaration::new(info)
        .with_capabilities(capabilities)
        .with_discover_cache(DISCOVER_TTL_MS, CacheScope::Public);
    if let Some(instructions) = &config.instructions {
        declaration = declaration.with_instructions(instructions.clone());
    }
    declaration
}

impl Catalogue {
    fn new(config: Config, events: ServerEvents) -> Result<Self, String> {
        let server = Self {
            declaration: RwLock::new(Arc::new(declare(&config))),
            tools: ToolRouter::new().with_events(events.clone()),
            resources: ResourceRouter::new().with_events(events.clone()),
            prompts: PromptRouter::new().with_events(events),
            config: RwLock::new(config.clone()),
        };
        server.sync_tools(&config.tools)?;
        server.sync_resources(&config.resources, &config.templates)?;
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

    /// Makes the router's resources and templates those of the file (each
    /// change announced).
    fn sync_resources(
        &self,
        entries: &[ResourceEntry],
        templates: &[TemplateEntry],
    ) -> Result<(), String> {
        for uri in self.resources.uris() {
            if !entries.iter().any(|e| e.resource.uri == uri) {
                self.resources.remove(&uri);
            }
        }
        for uri_template in self.resources.uri_templates() {
            if !templates
                .iter()
                .any(|t| t.template.uri_template == uri_template)
            {
                self.resources.remove_template(&uri_template);
            }
        }
        for entry in entries {
            let text = entry.text.clone();
            self.resources.add(entry.resource.clone(), move |_, _| {
                std::future::ready(text.clone())
            })?;
        }
        for entry in templates {
            let text = entry.text.clone();
            self.resources.add_template(
                entry.template.clone(),
                move |request: ResourceRequest, _| {
                    std::future::ready(fill(&text, &request.variables.into_iter().collect()))
                },
            )?;
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
        let identity = |c: &Config| (c.name.clone(), c.version.clone(), c.instructions.clone());
        if identity(&old) != identity(&new) {
            // A new discover; tasks and sealed `requestState`s carry over.
            let next = declare(&new).with_state_of(&self.declaration());
            *self.declaration.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(next);
        }
        if old.tools != new.tools {
            self.sync_tools(&new.tools)?;
        }
        if old.resources != new.resources || old.templates != new.templates {
            self.sync_resources(&new.resources, &new.templates)?;
        }
        if old.prompts != new.prompts {
            self.sync_prompts(&new.prompts);
        }
        *self.config.write().unwrap_or_else(|e| e.into_inner()) = new;
        Ok(())
    }
}

impl McpServer for Catalogue {
    fn declaration(&self) -> Arc<ServerDeclaration> {
        let declaration = self.declaration.read();
        Arc::clone(&declaration.unwrap_or_else(|e| e.into_inner()))
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
                self.resources.list_resources_reply(list.params, ctx).await
            }
            ClientRequest::ListResourceTemplatesRequest(list) => {
                self.resources
                    .list_resource_templates_reply(list.params, ctx)
                    .await
            }
            ClientRequest::ReadResourceRequest(read) => {
                ctx.reply(self.resources.read_resource(read.params, ctx).await?)
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
            stdio::serve_stdio(server, config).await
        }
    };
    served.map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests panic on unexpected shapes")]
    use super::*;
    use mcp_era::client::ByEra;
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
            let read = client.client().read_resource("greeting://Ann").await;
            let read = match read.unwrap() {
                ByEra::Modern(result) => serde_json::to_value(result),
                ByEra::Legacy(result) => serde_json::to_value(result),
            };
            assert_eq!(read.unwrap()["contents"][0]["text"], "Hello, Ann!");
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
        assert!(server.resources.uris().is_empty());
        assert_eq!(server.declaration().server_info().name, "dynamic-catalogue");

        let mut renamed = example();
        renamed.name = "renamed".into();
        server.update(renamed).unwrap();
        assert_eq!(server.declaration().server_info().name, "renamed");
    }
}
