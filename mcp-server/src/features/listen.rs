//! `subscriptions/listen`: the long-lived request that carries server-wide
//! events to a modern client. The acknowledgement comes first; every
//! notification is tagged with the listen request's id as
//! `_meta["io.modelcontextprotocol/subscriptionId"]`; only the types the
//! filter asked for (and the server declared) are delivered; task ids
//! only for the caller's own tasks (the tasks module's ownership rule).
//!
//! The request never completes on its own: it ends when the client cancels
//! it (stdio `notifications/cancelled`, or closing the HTTP stream), which
//! drops the handler. When the event hub is gone it ends with a
//! `SubscriptionsListenResult`.

use mcp_era_types::v2026_07_28::{
    SubscriptionFilter, SubscriptionsListenRequestParams, meta_keys, methods,
};
use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use crate::model::context::{Following, RequestContext};
use crate::model::declaration::ServerDeclaration;
use crate::model::peer::Sink;
use crate::state::events::{ServerEvent, ServerEvents};
use crate::wire::errors::HandlerResult;

/// The part of `filter` this server honours, given its declared
/// capabilities.
pub fn honoured_filter(
    declaration: &ServerDeclaration,
    filter: &SubscriptionFilter,
) -> SubscriptionFilter {
    let caps = declaration.capabilities();
    let tools = caps.tools.as_ref().and_then(|t| t.list_changed) == Some(true);
    let prompts = caps.prompts.as_ref().and_then(|p| p.list_changed) == Some(true);
    let resources_list = caps.resources.as_ref().and_then(|r| r.list_changed) == Some(true);
    let subscribe = caps.resources.as_ref().and_then(|r| r.subscribe) == Some(true);
    let mut out = SubscriptionFilter::new();
    if tools && filter.tools_list_changed == Some(true) {
        out.tools_list_changed = Some(true);
    }
    if prompts && filter.prompts_list_changed == Some(true) {
        out.prompts_list_changed = Some(true);
    }
    if resources_list && filter.resources_list_changed == Some(true) {
        out.resources_list_changed = Some(true);
    }
    if subscribe {
        out.resource_subscriptions = filter.resource_subscriptions.clone();
    }
    // Tasks extension ("Task Status Notifications"): `taskIds`.
    if crate::features::tasks::server_declared(declaration)
        && let Some(ids) = filter.extra.get(TASK_IDS).filter(|ids| ids.is_array())
    {
        out.extra.insert(TASK_IDS.into(), ids.clone());
    }
    out
}

const TASK_IDS: &str = "taskIds";

fn wants_task(filter: &SubscriptionFilter, task_id: &str) -> bool {
    filter
        .extra
        .get(TASK_IDS)
        .and_then(Value::as_array)
        .is_some_and(|ids| ids.iter().any(|id| id == task_id))
}

/// The notification `event` makes for a stream with `filter` opened by
/// `caller`, if it asked for it (and may see it).
fn wanted(
    filter: &SubscriptionFilter,
    caller: Option<&str>,
    event: &ServerEvent,
) -> Option<(&'static str, Value)> {
    match event {
        ServerEvent::ToolsListChanged if filter.tools_list_changed == Some(true) => {
            Some((methods::NOTIFICATIONS_TOOLS_LIST_CHANGED, json!({})))
        }
        ServerEvent::PromptsListChanged if filter.prompts_list_changed == Some(true) => {
            Some((methods::NOTIFICATIONS_PROMPTS_LIST_CHANGED, json!({})))
        }
        ServerEvent::ResourcesListChanged if filter.resources_list_changed == Some(true) => {
            Some((methods::NOTIFICATIONS_RESOURCES_LIST_CHANGED, json!({})))
        }
        ServerEvent::ResourceUpdated(uri)
            if filter
                .resource_subscriptions
                .as_ref()
                .is_some_and(|s| s.iter().any(|u| u == uri)) =>
        {
            Some((
                methods::NOTIFICATIONS_RESOURCES_UPDATED,
                json!({ "uri": uri }),
            ))
        }
        ServerEvent::TaskStatus {
            task_id,
            owner,
            task,
        } if wants_task(filter, task_id)
            && crate::state::tasks::owned_by(owner.as_deref(), caller) =>
        {
            Some((crate::features::tasks::NOTIFICATIONS_TASKS, task.clone()))
        }
        _ => None,
    }
}

/// A listen once acknowledged: all it keeps while it runs, owned, so that
/// the request and its context can go.
pub(crate) struct Listening {
    filter: SubscriptionFilter,
    caller: Option<String>,
    subscription_id: Value,
    sink: Option<Sink>,
    events: Option<broadcast::Receiver<ServerEvent>>,
    _following: Option<Following>,
}

/// Opens one `subscriptions/listen` request: checks it, keeps what
/// `following` returns for its filter, and acknowledges it on the
/// request's sink. [`Listening::run`] serves it from there.
pub(crate) async fn open(
    declaration: &ServerDeclaration,
    params: SubscriptionsListenRequestParams,
    ctx: &RequestContext,
    following: impl FnOnce(&SubscriptionFilter) -> Option<Following>,
) -> HandlerResult<Listening> {
    // Task notifications need the extension on this request ("Task Status
    // Notifications": MUST answer -32021 otherwise).
    if crate::features::tasks::server_declared(declaration)
        && params.notifications.extra.contains_key(TASK_IDS)
        && !crate::features::tasks::client_declared(&ctx.meta)
    {
        return Err(crate::features::tasks::missing_extension());
    }
    let caller = ctx.principal();
    let mut filter = honoured_filter(declaration, &params.notifications);
    drop(params);
    if let Some(Value::Array(ids)) = filter.extra.get(TASK_IDS) {
        let ids = crate::features::tasks::followable(declaration, ids, caller).await?;
        filter.extra.insert(TASK_IDS.into(), Value::Array(ids));
    }
    // Subscribed first: what the hook causes is delivered.
    let events = ctx.events.as_ref().map(ServerEvents::subscribe);
    let listening = Listening {
        _following: following(&filter),
        events,
        caller: caller.map(str::to_owned),
        subscription_id: serde_json::to_value(&ctx.id).unwrap_or(Value::Null),
        sink: ctx.sink.clone(),
        filter,
    };
    listening.notify(
        methods::NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED,
        json!({ "notifications": listening.filter }),
    );
    Ok(listening)
}

impl Listening {
    /// Delivers what the filter asked for until the event hub closes or
    /// the server shuts down; never, without a hub. The result is the
    /// request's answer.
    pub(crate) async fn run(mut self) -> Value {
        let Some(mut events) = self.events.take() else {
            return std::future::pending().await;
        };
        loop {
            match events.recv().await {
                Ok(ServerEvent::ShuttingDown) => break,
                Ok(event) => {
                    if let Some((method, params)) =
                        wanted(&self.filter, self.caller.as_deref(), &event)
                    {
                        self.notify(method, params);
                    }
                }
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => break,
            }
        }
        json!({
            "resultType": "complete",
            "_meta": { meta_keys::SUBSCRIPTION_ID: self.subscription_id },
        })
    }

    /// A notification tagged with the subscription id.
    fn notify(&self, method: &str, mut params: Value) {
        let Some(sink) = &self.sink else { return };
        if let Value::Object(object) = &mut params {
            object.insert(
                "_meta".into(),
                json!({ meta_keys::SUBSCRIPTION_ID: self.subscription_id.clone() }),
            );
        }
        sink(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }
}

/// The legacy notification a legacy session gets for `event`: list
/// changes when the server declared `listChanged` for that list, resource
/// updates for URIs the session subscribed to. `None` when the session
/// did not ask for it.
pub fn legacy_notification(
    declaration: &ServerDeclaration,
    session: &crate::model::context::LegacySession,
    event: &ServerEvent,
) -> Option<Value> {
    let mut all = SubscriptionFilter::new();
    all.tools_list_changed = Some(true);
    all.prompts_list_changed = Some(true);
    all.resources_list_changed = Some(true);
    all.resource_subscriptions = Some(session.subscriptions());
    let filter = honoured_filter(declaration, &all);
    // No task ids in a legacy filter: the caller does not matter.
    let (method, params) = wanted(&filter, None, event)?;
    Some(json!({ "jsonrpc": "2.0", "method": method, "params": params }))
}
