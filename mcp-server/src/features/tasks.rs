//! The tasks extension (`io.modelcontextprotocol/tasks`): a `tools/call`
//! may answer a task handle (`CreateTaskResult`) that the client polls
//! with `tasks/get`, feeds with `tasks/update` and stops with
//! `tasks/cancel`. The rules implemented, with their sources, are in
//! `docs/tasks.md`.
//!
//! * The server turns the extension on by declaring it:
//!   `#[mcp(extension("io.modelcontextprotocol/tasks"))]`. Without
//!   it `tasks/*` answer `-32601` and every tool runs synchronously.
//! * Each tool says whether it may run as a task ([`TaskSupport`]):
//!   `#[tool(task = "optional")]` in a router,
//!   [`ToolsHandler::task_support`](crate::ToolsHandler::task_support) by
//!   hand, or [`ToolRouter::set_task_support`](crate::ToolRouter::set_task_support).
//! * The server alone decides, per call. A call becomes a task only when
//!   the tool allows it and the request declared the extension in its
//!   client capabilities; it then becomes a task at the moment its handler
//!   first waits (or calls
//!   [`RequestContext::continue_as_task`](crate::RequestContext::continue_as_task)).
//!   A handler that answers without waiting answers directly: an
//!   immediate result, or an `input_required` result (multi round-trip
//!   requests are resolved synchronously before any task exists). Without
//!   the extension an `optional` tool runs synchronously and a `required`
//!   one answers `-32021` naming the extension.
//! * Inside a task, an `input_required` result of the handler parks the
//!   task in `input_required`: `tasks/get` shows the outstanding
//!   `inputRequests`, `tasks/update` answers them (partially, if the
//!   client likes), and once all are answered the handler is called again
//!   with `inputResponses` and `requestState`, exactly like an MRTR retry.
//! * Results end `completed` (`isError` results too), JSON-RPC errors end
//!   `failed`, `tasks/cancel` ends `cancelled` (stopping the work) and is
//!   an idempotent acknowledgement on a finished task.
//!
//! * **Authorization.** A task belongs to the principal that created it
//!   (a [`Principal`](crate::Principal) set by middleware, or with the
//!   `auth` feature the validated token's subject, else client id):
//!   `tasks/get`, `tasks/update` and `tasks/cancel` from anyone else get
//!   the same `-32602` as an unknown id, a `subscriptions/listen` naming
//!   it leaves it out of the acknowledged `taskIds` as it leaves out an
//!   unknown one, and its `notifications/tasks` reach only listen streams
//!   of the owner. Every one of these paths asks one rule, `owned_by`. Without
//!   authentication every caller is the same nobody, and the 128-bit
//!   random id is the only credential.
//!
//! Tasks are kept in a [`TaskStore`] ([`MemoryTaskStore`] by default;
//! `RedisTaskStore` with the `redis` feature, for several processes) for
//! `ttlMs` after creation; the engine of a server type is
//! [`ServerDeclaration::tasks`](crate::ServerDeclaration::tasks).

use std::sync::Arc;
use std::task::Poll;

use mcp_era_types::ext::tasks::{GetTaskRequestParams, methods};
use mcp_era_types::v2026_07_28::{
    CallToolRequest, CallToolRequestParams, ClientRequest, InputResponse, RequestId,
    RequestMetaObject,
};
use serde_json::{Map, Value, json};

pub use crate::model::handlers::TaskSupport;
pub use crate::state::tasks::store::{
    Change, DEFAULT_MEMORY_CAPACITY, MemoryTaskStore, StoreError, StoreFuture, TaskRecord,
    TaskStatus, TaskStore,
};
pub use crate::state::tasks::wire::iso8601;
pub use crate::state::tasks::{
    DEFAULT_END_RETRY_WINDOW, DEFAULT_POLL_INTERVAL_MS, DEFAULT_TTL_MS, END_RETRY_MAX_DELAY,
    MAX_TASK_ROUNDS, Tasks,
};

#[cfg(feature = "redis")]
pub use crate::state::tasks::redis::{
    DEFAULT_PREFIX as REDIS_DEFAULT_PREFIX, DEFAULT_TIMEOUT as REDIS_DEFAULT_TIMEOUT,
    RECONNECT_MAX_DELAY as REDIS_RECONNECT_MAX_DELAY, RedisTaskStore,
};

use crate::model::context::{MessageContext, RequestContext};
use crate::model::declaration::ServerDeclaration;
use crate::model::extensions::{
    ExtensionTable, MethodCall, MethodHook, ReplyFuture, ServerFacts, ToolCallHook,
};
pub(crate) use crate::model::server::Detach;
use crate::state::tasks::{Work, announce, now_ms, owned_by, store_failure, wire};
use crate::wire::errors::{self, ErrorObject, HandlerResult};
use crate::wire::reply::Reply;

/// The extension identifier.
pub const TASKS_EXTENSION: &str = mcp_era_types::ext::tasks::EXTENSION;
/// `tasks/get`.
pub const TASKS_GET: &str = methods::TASKS_GET;
/// `tasks/update`.
pub const TASKS_UPDATE: &str = methods::TASKS_UPDATE;
/// `tasks/cancel`.
pub const TASKS_CANCEL: &str = methods::TASKS_CANCEL;
/// The task status notification, sent on `subscriptions/listen` streams
/// that asked for the task's id.
pub const NOTIFICATIONS_TASKS: &str = methods::NOTIFICATIONS_TASKS;
/// The three methods the extension adds.
pub const TASK_METHODS: &[&str] = &[TASKS_GET, TASKS_UPDATE, TASKS_CANCEL];

/// How many `taskIds` one `subscriptions/listen` may follow; ids past it
/// are not acknowledged (each costs a store read when the stream opens).
pub const MAX_LISTEN_TASK_IDS: usize = 256;

/// The ids of a listen filter's `taskIds` that `caller` may follow: its
/// own tasks in the store, first [`MAX_LISTEN_TASK_IDS`] distinct ids. An
/// unknown and another principal's id are left out alike, so the
/// acknowledgement tells nothing about other callers' tasks.
pub(crate) async fn followable(
    declaration: &ServerDeclaration,
    ids: &[Value],
    caller: Option<&str>,
) -> HandlerResult<Vec<Value>> {
    let store = declaration.tasks().store();
    let mut kept: Vec<Value> = Vec::new();
    let mut asked = 0;
    for id in ids {
        let Some(task_id) = id.as_str() else {
            continue;
        };
        if asked == MAX_LISTEN_TASK_IDS || kept.contains(id) {
            continue;
        }
        asked += 1;
        let record = store.get(task_id).await.map_err(store_failure)?;
        if record.is_some_and(|r| owned_by(r.owner.as_deref(), caller)) {
            kept.push(id.clone());
        }
    }
    Ok(kept)
}

/// `-32021` naming the extension (`data.requiredCapabilities.extensions`).
pub(crate) fn missing_extension() -> ErrorObject {
    errors::missing_client_capability(json!({ "extensions": { TASKS_EXTENSION: {} } }))
}

/// Whether the request declared the extension in its client capabilities.
pub(crate) fn client_declared(meta: &RequestMetaObject) -> bool {
    meta.client_capabilities
        .extensions
        .as_ref()
        .is_some_and(|e| e.contains_key(TASKS_EXTENSION))
}

/// Whether the server declares the extension.
pub(crate) fn server_declared(declaration: &ServerDeclaration) -> bool {
    declaration
        .capabilities()
        .extensions
        .as_ref()
        .is_some_and(|e| e.contains_key(TASKS_EXTENSION))
}

/// Registers the extension's methods and its `tools/call` hook when the
/// declaration declares it; nothing otherwise.
pub(crate) fn register(declaration: &ServerDeclaration, table: &mut ExtensionTable) {
    if !server_declared(declaration) {
        return;
    }
    for method in TASK_METHODS {
        table.add_method(method, MethodHook::Later(answer));
    }
    table.add_tool_call(ToolCallHook {
        route: task_route,
        run: run_as_task,
    });
}

fn answer(call: MethodCall<'_>) -> ReplyFuture<'_> {
    Box::pin(handle_method(
        call.declaration,
        call.detach,
        call.id,
        call.method,
        call.params,
        call.meta,
        call.ctx,
    ))
}

fn run_as_task<'a>(
    detach: &'a dyn Detach,
    declaration: &'a Arc<ServerDeclaration>,
    request: Box<ClientRequest>,
    ctx: &'a RequestContext,
) -> ReplyFuture<'a> {
    Box::pin(call_tool_as_task(detach, declaration, request, ctx))
}

/// Polls `work` once: `Ready` if it finished without waiting.
async fn poll_once(work: &mut Work) -> Poll<HandlerResult<Reply>> {
    std::future::poll_fn(|cx| Poll::Ready(work.as_mut().poll(cx))).await
}

fn rendered(
    declaration: &ServerDeclaration,
    server_info: bool,
    result: Value,
) -> HandlerResult<Reply> {
    let result = if server_info {
        declaration.with_server_info(result)
    } else {
        result
    };
    Reply::from_value(&result)
}

/// An unknown, expired or someone else's task.
fn not_found() -> ErrorObject {
    errors::invalid_params("Failed to retrieve task: Task not found")
}

/// How a `tools/call` on a server that declares the extension runs, as
/// the module docs say: synchronously (`None`), as a possible task (the
/// owned handle it needs), or not at all (`-32021`). Decided before any
/// future is built, so that the common synchronous call carries none of
/// the task machinery.
fn task_route<'d>(
    server: &dyn ServerFacts,
    detach: Option<&'d dyn Detach>,
    call: &CallToolRequest,
    ctx: &RequestContext,
) -> HandlerResult<Option<&'d dyn Detach>> {
    let support = server.tool_task_support(&call.params.name);
    match (support, client_declared(&ctx.meta)) {
        (TaskSupport::Never, _) | (TaskSupport::Optional, false) => Ok(None),
        (TaskSupport::Required, false) => Err(missing_extension()),
        // Without an owned handle on the server (a direct `handle_message`
        // call) nothing can outlive the request: run synchronously.
        (_, true) => Ok(detach),
    }
}

/// A `tools/call` that [`task_route`] sent here: it runs, and becomes a
/// task if it has not answered at its first poll.
async fn call_tool_as_task(
    detach: &dyn Detach,
    declaration: &Arc<ServerDeclaration>,
    request: Box<ClientRequest>,
    ctx: &RequestContext,
) -> HandlerResult<Reply> {
    let stored = match &*request {
        ClientRequest::CallToolRequest(call) => wire::to_json(&call.params),
        other => {
            return Err(errors::internal_error(format!(
                "{} cannot become a task",
                other.method()
            )));
        }
    };
    let mut task_ctx = ctx.clone();
    task_ctx.task_eligible = true;
    // Progress and log notifications are not carried by tasks ("Task
    // Status Notifications"); a call that may become one sends none.
    task_ctx.sink = None;
    let mut work = detach.start(*request, task_ctx);
    if let Poll::Ready(answer) = poll_once(&mut work).await {
        return answer;
    }
    let tasks = declaration.tasks();
    let record = tasks.new_record(stored, ctx.principal().map(str::to_owned))?;
    tasks
        .store()
        .create(record.clone())
        .await
        .map_err(store_failure)?;
    tasks.spawn_round(
        record.task_id.clone(),
        record.expires_at_ms(),
        work,
        ctx.events.clone(),
    );
    rendered(
        declaration,
        ctx.server_info_in_results,
        wire::create_task_result(&record),
    )
}

/// `tasks/get`, `tasks/update`, `tasks/cancel`, once the envelope checks
/// passed (the server declares the extension). The request's own
/// capability is checked before any lookup.
async fn handle_method(
    declaration: &Arc<ServerDeclaration>,
    detach: Option<&dyn Detach>,
    id: &RequestId,
    method: &str,
    params: Option<&Value>,
    meta: &RequestMetaObject,
    ctx: &MessageContext,
) -> HandlerResult<Reply> {
    if !client_declared(meta) {
        return Err(missing_extension());
    }
    let tasks = declaration.tasks();
    // Another principal's task answers exactly like an unknown one, so a
    // leaked id reveals nothing; the check goes with the read or the
    // atomic change, not in a read of its own.
    let caller = ctx.principal();
    let result = match method {
        TASKS_GET => {
            let params: GetTaskRequestParams = wire::read_params(method, params)?;
            let record = tasks
                .get(&params.task_id, ctx.events.as_ref())
                .await
                .map_err(store_failure)?
                .filter(|record| owned_by(record.owner.as_deref(), caller))
                .ok_or_else(not_found)?;
            wire::to_json(&wire::get_task_result(&record)?)
        }
        TASKS_CANCEL => {
            let params: GetTaskRequestParams = wire::read_params(method, params)?;
            let record = tasks
                .cancel(&params.task_id, caller)
                .await
                .map_err(store_failure)?
                .ok_or_else(not_found)?;
            announce(ctx.events.as_ref(), Some(&record));
            wire::cancel_ack()
        }
        TASKS_UPDATE => {
            // Read as JSON, not as the generated `UpdateTaskRequestParams`:
            // answers to keys the task never asked are ignored, so one
            // malformed answer must not reject the others.
            let params = params.and_then(Value::as_object);
            let task_id = wire::task_id(params.and_then(|p| p.get("taskId")))?;
            let Some(Value::Object(responses)) = params.and_then(|p| p.get("inputResponses"))
            else {
                return Err(errors::invalid_params(
                    "params.inputResponses must be an object",
                ));
            };
            update(
                declaration,
                detach,
                id,
                task_id,
                caller,
                responses.clone(),
                ctx,
            )
            .await?;
            wire::update_ack()
        }
        other => {
            return Err(errors::method_not_found(format!("Unknown method {other}")));
        }
    };
    rendered(declaration, ctx.server_info_in_results, result)
}

/// Takes the answers for outstanding keys (others are ignored); when none
/// is left outstanding, the handler runs its next round.
async fn update(
    declaration: &Arc<ServerDeclaration>,
    detach: Option<&dyn Detach>,
    id: &RequestId,
    task_id: &str,
    caller: Option<&str>,
    responses: Map<String, Value>,
    ctx: &MessageContext,
) -> HandlerResult<()> {
    let tasks = declaration.tasks();
    let now = now_ms();
    let lease_until = tasks.lease_from(now);
    let mut invalid: Option<String> = None;
    let mut resume: Option<(Value, Option<String>, Map<String, Value>)> = None;
    let mut written: Option<TaskRecord> = None;
    let mut change = |r: &mut TaskRecord| {
        invalid = None;
        resume = None;
        written = None;
        if !owned_by(r.owner.as_deref(), caller) || r.status != TaskStatus::InputRequired {
            return false;
        }
        let mut taken = Map::new();
        for (key, answer) in &responses {
            if !r.input_requests.contains_key(key) || r.answers.contains_key(key) {
                continue;
            }
            if serde_json::from_value::<InputResponse>(answer.clone()).is_err() {
                invalid = Some(key.clone());
                return false;
            }
            taken.insert(key.clone(), answer.clone());
        }
        if taken.is_empty() {
            return false;
        }
        r.answers.extend(taken);
        r.last_updated_at_ms = now;
        if r.input_requests.keys().all(|k| r.answers.contains_key(k)) {
            let answers: Map<String, Value> = r
                .answers
                .iter()
                .map(|(wire, answer)| {
                    let key = r.key_map.get(wire).cloned().unwrap_or_else(|| wire.clone());
                    (key, answer.clone())
                })
                .collect();
            resume = Some((r.request.clone(), r.request_state.take(), answers));
            r.input_requests.clear();
            r.answers.clear();
            r.key_map.clear();
            r.status = TaskStatus::Working;
            r.status_message = None;
            r.round += 1;
            r.lease_until_ms = lease_until;
            r.lease_lapsed_at_ms = None;
            written = Some(r.clone());
        }
        true
    };
    let found = match tasks.store().update(task_id, &mut change).await {
        Ok(found) => found,
        Err(e) => {
            // The write that resumes the task may have landed although its
            // answer was lost; then the next round must still run, or the
            // task would stay `working`.
            if let (Some(written), Some((request, state, answers)), Some(detach)) =
                (written, resume, detach)
                && let Ok((request, round_ctx)) =
                    next_round(declaration, request, state, answers, id, ctx)
            {
                let work = detach.start(request, round_ctx);
                tasks.resume_if_written(written, work, ctx.events.clone());
            }
            return Err(store_failure(e));
        }
    };
    if found
        .as_ref()
        .is_none_or(|r| !owned_by(r.owner.as_deref(), caller))
    {
        return Err(not_found());
    }
    if let Some(key) = invalid {
        return Err(errors::invalid_params(format!(
            "inputResponses.{key} is not a valid input response"
        )));
    }
    let Some((request, state, answers)) = resume else {
        return Ok(());
    };
    announce(ctx.events.as_ref(), found.as_ref());
    let round = next_round(declaration, request, state, answers, id, ctx).and_then(
        |(request, round_ctx)| {
            detach
                .map(|d| d.start(request, round_ctx))
                .ok_or_else(|| errors::internal_error("This transport cannot resume tasks"))
        },
    );
    let expires_at_ms = found.as_ref().and_then(TaskRecord::expires_at_ms);
    match round {
        Ok(work) => tasks.spawn_round(task_id.to_owned(), expires_at_ms, work, ctx.events.clone()),
        Err(error) => {
            tasks.spawn_failure(task_id.to_owned(), expires_at_ms, error, ctx.events.clone());
        }
    }
    Ok(())
}

/// The `tools/call` of the next round: the stored call with the answers
/// as `inputResponses` and the round's `requestState`.
fn next_round(
    declaration: &Arc<ServerDeclaration>,
    mut request: Value,
    state: Option<String>,
    answers: Map<String, Value>,
    id: &RequestId,
    ctx: &MessageContext,
) -> HandlerResult<(ClientRequest, RequestContext)> {
    if let Value::Object(params) = &mut request {
        params.insert("inputResponses".into(), Value::Object(answers));
        match state {
            // Kept by the server while the task waited: a fresh expiry,
            // however long the user took.
            Some(state) => params.insert(
                "requestState".into(),
                Value::String(declaration.request_state().renew(state)),
            ),
            None => params.remove("requestState"),
        };
    }
    let params: CallToolRequestParams = serde_json::from_value(request)
        .map_err(|e| errors::internal_error(format!("The stored task call is invalid: {e}")))?;
    let round_ctx = RequestContext {
        id: id.clone(),
        meta: params.meta.clone(),
        legacy: None,
        sink: None,
        events: ctx.events.clone(),
        peer: None,
        stream_closer: None,
        declaration: Some(declaration.clone()),
        server_info_in_results: false,
        // The round runs for the `tasks/update` that completed its input.
        http_request: ctx.http_request.clone(),
        remote_addr: ctx.remote_addr,
        task_eligible: false,
    };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(id.clone(), params));
    Ok((request, round_ctx))
}
