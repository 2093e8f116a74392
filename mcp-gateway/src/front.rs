//! The front: a server of both eras, written by hand against the public
//! [`McpServer`] trait, whose declaration is the backend's and whose
//! capability requests are forwarded to it.

use std::sync::Arc;

use mcp_era_client::Era;
use mcp_era_server::mcp_era_types::v2026_07_28::{
    CallToolResultResponseResult, ClientRequest, CompleteResult, GetPromptResultResponseResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    ReadResourceResultResponseResult,
};
use mcp_era_server::{
    HandlerResult, McpServer, Reply, RequestContext, ServerDeclaration, ServerEvents, errors,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::backend::{Backend, publish};
use crate::input::Rounds;
use crate::progress::ProgressRoutes;
use crate::translate::modern_result;

/// A gateway in front of one backend: modern clients reach a legacy server
/// (and legacy clients reach it through a legacy session, as with any
/// server of ours); a modern backend is passed through.
pub struct Gateway {
    backend: Arc<Backend>,
    declaration: Arc<ServerDeclaration>,
    events: ServerEvents,
    /// The calls waiting for their client's input, when the backend may ask.
    rounds: Option<Rounds>,
    progress: ProgressRoutes,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl Gateway {
    /// A front for `backend`, declaring what it declared, whose list
    /// changes are published on [`events`](Self::events) from now on (give
    /// that hub to the transport's config).
    pub async fn new(backend: Backend) -> Self {
        let declaration = Arc::new(backend.declaration());
        let events = ServerEvents::new();
        let progress = ProgressRoutes::default();
        for notifications in backend.notifications().await {
            tokio::spawn(publish(notifications, events.clone(), progress.clone()));
        }
        let rounds = backend
            .bridge()
            .map(|(bridge, patience)| Rounds::new(Arc::clone(bridge), patience));
        Self {
            backend: Arc::new(backend),
            declaration,
            events,
            rounds,
            progress,
        }
    }

    /// The hub the backend's notifications are published on.
    pub fn events(&self) -> &ServerEvents {
        &self.events
    }

    /// The backend.
    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    /// Forwards `request` and returns the backend's result in its modern
    /// shape, checked against the modern type `T`. A call that may ask
    /// for input goes through the rounds, when the backend may ask.
    async fn forward<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
        ctx: &RequestContext,
    ) -> HandlerResult<T> {
        let result = match &self.rounds {
            Some(rounds) if may_ask(method) => {
                rounds
                    .call(&self.backend, method, params, ctx, &self.progress)
                    .await?
            }
            _ => {
                let mut params = params;
                let token = self.progress.open(ctx, &mut params);
                let result = self.backend.forward_call(method, params).await;
                if let Some(token) = token {
                    self.progress.close(&token);
                }
                result?
            }
        };
        let input_required = result.get("resultType") == Some(&Value::from("input_required"));
        let result = if self.backend.era() == Era::Legacy && !input_required {
            modern_result(method, result, ctx.cache_hints())
        } else {
            result
        };
        serde_json::from_value(result).map_err(|e| {
            tracing::warn!(method, "the backend's result is not a valid one: {e}");
            errors::internal_error(format!(
                "the backend's result of {method} is not valid: {e}"
            ))
        })
    }
}

/// Whether the backend may ask for input during `method` (MRTR's three).
fn may_ask(method: &str) -> bool {
    matches!(method, "tools/call" | "prompts/get" | "resources/read")
}

/// The `params` of a typed request, as JSON.
fn params_of(request: &ClientRequest) -> HandlerResult<Value> {
    let mut request = serde_json::to_value(request)
        .map_err(|e| errors::internal_error(format!("request not serializable: {e}")))?;
    Ok(request
        .get_mut("params")
        .map(Value::take)
        .unwrap_or_else(|| Value::Object(serde_json::Map::new())))
}

impl McpServer for Gateway {
    fn declaration(&self) -> Arc<ServerDeclaration> {
        Arc::clone(&self.declaration)
    }

    async fn dispatch_capability(
        &self,
        request: ClientRequest,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        let method = request.method();
        let params = params_of(&request)?;
        match request {
            ClientRequest::ListToolsRequest(_) => {
                ctx.reply(self.forward::<ListToolsResult>(method, params, ctx).await?)
            }
            ClientRequest::CallToolRequest(_) => ctx.reply(
                self.forward::<CallToolResultResponseResult>(method, params, ctx)
                    .await?,
            ),
            ClientRequest::ListResourcesRequest(_) => ctx.reply(
                self.forward::<ListResourcesResult>(method, params, ctx)
                    .await?,
            ),
            ClientRequest::ListResourceTemplatesRequest(_) => ctx.reply(
                self.forward::<ListResourceTemplatesResult>(method, params, ctx)
                    .await?,
            ),
            ClientRequest::ReadResourceRequest(_) => ctx.reply(
                self.forward::<ReadResourceResultResponseResult>(method, params, ctx)
                    .await?,
            ),
            ClientRequest::ListPromptsRequest(_) => ctx.reply(
                self.forward::<ListPromptsResult>(method, params, ctx)
                    .await?,
            ),
            ClientRequest::GetPromptRequest(_) => ctx.reply(
                self.forward::<GetPromptResultResponseResult>(method, params, ctx)
                    .await?,
            ),
            ClientRequest::CompleteRequest(_) => {
                ctx.reply(self.forward::<CompleteResult>(method, params, ctx).await?)
            }
            other => Err(errors::method_not_found(format!(
                "{} is not forwarded",
                other.method()
            ))),
        }
    }
}
