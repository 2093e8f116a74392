//! A MODERN-ONLY backend for the era gateway, written with rust-mcp-sdk
//! 2.0.0 (crates.io; the SDK that dropped `initialize`, sessions and
//! server→client requests for 2026-07-28). Over stdio only: the SDK's
//! streamable-http feature pulls reqwest and rustls, too much build for an
//! opt-in check (interop/gateway-legacy.sh with RUST_MCP_SDK2=1).
//!
//! What the gateway's legacy clients reach through it:
//!   - `add(a, b)`: a plain tool (the SDK's `mcp_tool` macro), `a + b`;
//!   - `ask_color()`: asks the client for `{"color": str}` with an MRTR
//!     `input_required` result (`elicitation/create`, key `color`), returns
//!     `color=<answer>` on the retry; it declares that it needs the client's
//!     elicitation capability, so the SDK refuses the call (-32021) from a
//!     client that has none;
//!   - `register_tool(name)`: registers a tool NAME at run time (it echoes
//!     its `text`) and publishes a tools list change on the open
//!     `subscriptions/listen` stream;
//!   - the resource `rsdk2://notes/readme` and the prompt `review(code)`.
//!
//! `subscriptions/listen`: the SDK's default handler acknowledges and
//! answers at once (the stream ends as it opens), and later list changes
//! still go out on stdout, outside any stream, without a `subscriptionId`.
//! This server keeps the stream open the way the SDK's docs suggest
//! (override the handler): it stores the filter, acknowledges, and never
//! answers; its notifications carry the listen's id. The cost: at stdin's
//! EOF the SDK's runtime waits for every handler task, so the process does
//! not exit by itself (the gateway kills it after its grace).

use async_trait::async_trait;
use rust_mcp_sdk::{
    error::SdkResult,
    macros,
    mcp_server::{server_runtime, McpServerOptions, ServerHandler},
    schema::{
        schema_utils::CallToolError, CallToolRequestParams, CallToolResult, GetPromptRequestParams,
        Implementation, InputRequiredResult, ListPromptsResult, ListResourcesResult,
        ListToolsResult, ListToolsResultCacheScope, NotificationMetaObject, NotificationParams,
        PaginatedRequestParams, ReadResourceRequestParams, RequestId, RpcError, ServerCapabilities,
        ServerCapabilitiesPrompts, ServerCapabilitiesResources, ServerCapabilitiesTools,
        ServerResult, SubscriptionsAcknowledgedNotificationParams,
        SubscriptionsListenRequestParams, SubscriptionsListenResult, Tool,
    },
    McpServer, RequestContext, RequiredClientCapability, ServerDetails, StdioTransport,
    ToMcpServerHandler, TransportOptions,
};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

const README_URI: &str = "rsdk2://notes/readme";
const README_TEXT: &str = "gateway-rsdk2 readme: served by rust-mcp-sdk 2.0.0, modern only";

#[macros::mcp_tool(name = "add", description = "Add two integers.")]
#[derive(Debug, ::serde::Deserialize, ::serde::Serialize, macros::JsonSchema)]
pub struct AddTool {
    a: i64,
    b: i64,
}

#[macros::mcp_tool(
    name = "ask_color",
    description = "Ask the user for a colour by elicitation (an MRTR round) and return it."
)]
#[derive(Debug, ::serde::Deserialize, ::serde::Serialize, macros::JsonSchema)]
pub struct AskColorTool {}

#[macros::mcp_tool(
    name = "register_tool",
    description = "Register a tool NAME (it echoes its argument) and announce the list change."
)]
#[derive(Debug, ::serde::Deserialize, ::serde::Serialize, macros::JsonSchema)]
pub struct RegisterTool {
    name: String,
}

#[derive(Default)]
struct Rsdk2Handler {
    /// Tools registered at run time by `register_tool`.
    registered: Mutex<Vec<String>>,
    /// The id of the open `subscriptions/listen` request, if any.
    listen_id: Mutex<Option<RequestId>>,
}

/// A handler's result built from its JSON shape (the schema's own types).
fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, RpcError> {
    serde_json::from_value(value)
        .map_err(|e| RpcError::internal_error().with_message(e.to_string()))
}

fn text_result(text: String) -> ServerResult {
    CallToolResult::text_content(vec![text.into()]).into()
}

fn argument(params: &CallToolRequestParams, name: &str) -> Option<String> {
    params
        .arguments
        .as_ref()?
        .get(name)?
        .as_str()
        .map(str::to_string)
}

impl Rsdk2Handler {
    fn ask_color(&self, params: &CallToolRequestParams) -> Result<ServerResult, RpcError> {
        let answer = params
            .input_responses
            .as_ref()
            .and_then(|responses| responses.0.get("color"))
            .and_then(|response| serde_json::to_value(response).ok());
        if let Some(answer) = answer {
            let color = answer["content"]["color"].as_str().unwrap_or_default();
            return Ok(text_result(format!("color={color}")));
        }
        let asked: InputRequiredResult = from_json(json!({
            "resultType": "input_required",
            "inputRequests": {"color": {"method": "elicitation/create", "params": {
                "mode": "form",
                "message": "Which colour?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"color": {"type": "string", "description": "Your favourite colour"}},
                    "required": ["color"],
                },
            }}},
        }))?;
        Ok(asked.into())
    }

    async fn register(
        &self,
        name: String,
        runtime: Arc<dyn McpServer>,
    ) -> Result<ServerResult, RpcError> {
        self.registered.lock().unwrap().push(name.clone());
        let listen_id = self.listen_id.lock().unwrap().clone();
        let params = NotificationParams {
            meta: Some(NotificationMetaObject {
                io_modelcontextprotocol_subscription_id: listen_id,
                extra: None,
            }),
        };
        runtime
            .notify_tool_list_changed(Some(params))
            .await
            .map_err(|e| RpcError::internal_error().with_message(e.to_string()))?;
        Ok(text_result(format!("registered {name}")))
    }
}

#[async_trait]
impl ServerHandler for Rsdk2Handler {
    fn required_capabilities_for_tool_call(
        &self,
        tool_name: &str,
    ) -> Vec<RequiredClientCapability> {
        match tool_name {
            "ask_color" => vec![RequiredClientCapability::Elicitation],
            _ => Vec::new(),
        }
    }

    async fn handle_list_tools_request(
        &self,
        _params: Option<PaginatedRequestParams>,
        _context: &RequestContext,
        _runtime: Arc<dyn McpServer>,
    ) -> Result<ListToolsResult, RpcError> {
        let mut tools = vec![AddTool::tool(), AskColorTool::tool(), RegisterTool::tool()];
        for name in self.registered.lock().unwrap().iter() {
            tools.push(from_json::<Tool>(json!({
                "name": name,
                "description": format!("Registered at run time as {name}."),
                "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            }))?);
        }
        Ok(ListToolsResult {
            tools,
            cache_scope: ListToolsResultCacheScope::Private,
            result_type: "complete".to_string(),
            ttl_ms: 0,
            meta: None,
            next_cursor: None,
        })
    }

    async fn handle_call_tool_request_mrtr(
        &self,
        params: CallToolRequestParams,
        _context: &RequestContext,
        runtime: Arc<dyn McpServer>,
    ) -> Result<ServerResult, RpcError> {
        match params.name.as_str() {
            "add" => {
                let arguments = Value::Object(params.arguments.clone().unwrap_or_default());
                let add: AddTool = serde_json::from_value(arguments)
                    .map_err(|e| RpcError::invalid_params().with_message(e.to_string()))?;
                Ok(text_result(format!("{}", add.a + add.b)))
            }
            "ask_color" => self.ask_color(&params),
            "register_tool" => match argument(&params, "name") {
                Some(name) => self.register(name, runtime).await,
                None => Err(RpcError::invalid_params().with_message("register_tool needs a name")),
            },
            name if self.registered.lock().unwrap().iter().any(|n| n == name) => {
                let text = argument(&params, "text").unwrap_or_default();
                Ok(text_result(format!("{name}: {text}")))
            }
            name => {
                let result: CallToolResult = CallToolError::unknown_tool(name.to_string()).into();
                Ok(result.into())
            }
        }
    }

    async fn handle_list_resources_request(
        &self,
        _params: Option<PaginatedRequestParams>,
        _context: &RequestContext,
        _runtime: Arc<dyn McpServer>,
    ) -> Result<ListResourcesResult, RpcError> {
        from_json(json!({
            "resultType": "complete", "cacheScope": "private", "ttlMs": 0,
            "resources": [{"uri": README_URI, "name": "readme", "mimeType": "text/plain"}],
        }))
    }

    async fn handle_read_resource_request(
        &self,
        params: ReadResourceRequestParams,
        _context: &RequestContext,
        _runtime: Arc<dyn McpServer>,
    ) -> Result<ServerResult, RpcError> {
        if params.uri != README_URI {
            // 2026-07-28: an unknown resource is invalid params (-32602).
            return Err(RpcError::invalid_params()
                .with_message(format!("Resource not found: {}", params.uri))
                .with_data(Some(json!({"uri": params.uri}))));
        }
        let result: rust_mcp_sdk::schema::ReadResourceResult = from_json(json!({
            "resultType": "complete", "cacheScope": "private", "ttlMs": 0,
            "contents": [{"uri": README_URI, "mimeType": "text/plain", "text": README_TEXT}],
        }))?;
        Ok(result.into())
    }

    async fn handle_list_prompts_request(
        &self,
        _params: Option<PaginatedRequestParams>,
        _context: &RequestContext,
        _runtime: Arc<dyn McpServer>,
    ) -> Result<ListPromptsResult, RpcError> {
        from_json(json!({
            "resultType": "complete", "cacheScope": "private", "ttlMs": 0,
            "prompts": [{"name": "review", "description": "Ask for a review of CODE.",
                         "arguments": [{"name": "code", "required": true}]}],
        }))
    }

    async fn handle_get_prompt_request(
        &self,
        params: GetPromptRequestParams,
        _context: &RequestContext,
        _runtime: Arc<dyn McpServer>,
    ) -> Result<ServerResult, RpcError> {
        if params.name != "review" {
            return Err(
                RpcError::invalid_params().with_message(format!("Unknown prompt: {}", params.name))
            );
        }
        let code = params
            .arguments
            .as_ref()
            .and_then(|a| a.get("code"))
            .cloned()
            .unwrap_or_default();
        let result: rust_mcp_sdk::schema::GetPromptResult = from_json(json!({
            "resultType": "complete",
            "messages": [{"role": "user", "content": {"type": "text", "text": format!("Please review this code: {code}")}}],
        }))?;
        Ok(result.into())
    }

    async fn handle_subscriptions_listen_request(
        &self,
        request_id: RequestId,
        params: SubscriptionsListenRequestParams,
        _context: &RequestContext,
        runtime: Arc<dyn McpServer>,
    ) -> Result<SubscriptionsListenResult, RpcError> {
        runtime.store_subscription(params.notifications.clone());
        runtime.stream_started();
        *self.listen_id.lock().unwrap() = Some(request_id.clone());
        let ack = SubscriptionsAcknowledgedNotificationParams {
            notifications: params.notifications,
            meta: Some(NotificationMetaObject {
                io_modelcontextprotocol_subscription_id: Some(request_id),
                extra: None,
            }),
        };
        runtime
            .notify_subscriptions_acknowledged(ack)
            .await
            .map_err(|e| RpcError::internal_error().with_message(e.to_string()))?;
        // The stream stays open for the life of the connection.
        std::future::pending().await
    }
}

#[tokio::main]
async fn main() -> SdkResult<()> {
    let server_details = ServerDetails {
        server_info: Implementation {
            name: "gateway-rsdk2-modern".into(),
            version: "2.0.0".into(),
            title: None,
            description: Some("rust-mcp-sdk 2.0.0, modern-only".into()),
            icons: vec![],
            website_url: None,
        },
        capabilities: ServerCapabilities {
            tools: Some(ServerCapabilitiesTools {
                list_changed: Some(true),
            }),
            resources: Some(ServerCapabilitiesResources {
                list_changed: None,
                subscribe: None,
            }),
            prompts: Some(ServerCapabilitiesPrompts { list_changed: None }),
            ..Default::default()
        },
        instructions: Some(
            "rust-mcp-sdk 2.0.0, modern-only, backend for the era gateway's legacy-client tests."
                .into(),
        ),
        meta: None,
    };
    let transport = StdioTransport::new(TransportOptions::default())?;
    let server = server_runtime::create_server(McpServerOptions {
        transport,
        handler: Rsdk2Handler::default().to_mcp_server_handler(),
        server_details,
        message_observer: None,
    });
    server.start().await
}
