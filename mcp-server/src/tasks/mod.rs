//! The tasks extension (`io.modelcontextprotocol/tasks`): a `tools/call`
//! may answer a task handle (`CreateTaskResult`) that the client polls
//! with `tasks/get`, feeds with `tasks/update` and stops with
//! `tasks/cancel`. The rules implemented, with their sources, are in
//! `docs/tasks.md`.
//!
//! * The server turns the extension on by declaring it:
//!   `#[mcp(tools, extension("io.modelcontextprotocol/tasks"))]`. Without
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
//!   of the owner. Every one of these paths asks [`owned_by`]. Without
//!   authentication every caller is the same nobody, and the 128-bit
//!   random id is the only credential.
//!
//! Tasks are kept in a [`TaskStore`] ([`MemoryTaskStore`] by default;
//! `RedisTaskStore` with the `redis` feature, for several processes) for
//! `ttlMs` after creation; the engine of a server type is
//! [`ServerDeclaration::tasks`](crate::ServerDeclaration::tasks).

#[cfg(feature = "redis")]
mod redis;
mod store;
mod wire;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::task::Poll;
use std::time::Duration;

use mcp_types::v2026_07_28::{
    CallToolRequest, CallToolRequestParams, ClientRequest, InputResponse, RequestId,
    RequestMetaObject,
};
use serde_json::{Map, Value, json};
use tokio::task::{AbortHandle, JoinError, JoinHandle};

pub use store::{
    Change, DEFAULT_MEMORY_CAPACITY, MemoryTaskStore, StoreError, StoreFuture, TaskRecord,
    TaskStatus, TaskStore,
};
pub use wire::iso8601;

#[cfg(feature = "redis")]
pub use self::redis::{DEFAULT_PREFIX as REDIS_DEFAULT_PREFIX, RedisTaskStore};

use crate::context::{MessageContext, RequestContext, principal};
use crate::declaration::ServerDeclaration;
use crate::errors::{self, ErrorObject, HandlerResult};
use crate::events::ServerEvents;
use crate::reply::Reply;
use crate::server::McpServer;

/// The extension identifier.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// `tasks/get`.
pub const TASKS_GET: &str = "tasks/get";
/// `tasks/update`.
pub const TASKS_UPDATE: &str = "tasks/update";
/// `tasks/cancel`.
pub const TASKS_CANCEL: &str = "tasks/cancel";
/// The task status notification, sent on `subscriptions/listen` streams
/// that asked for the task's id.
pub const NOTIFICATIONS_TASKS: &str = "notifications/tasks";
/// The three methods the extension adds.
pub const TASK_METHODS: &[&str] = &[TASKS_GET, TASKS_UPDATE, TASKS_CANCEL];

/// The default `ttlMs` of a task: one hour.
pub const DEFAULT_TTL_MS: u64 = 3_600_000;
/// The default `pollIntervalMs`: 500 ms.
pub const DEFAULT_POLL_INTERVAL_MS: u64 = 500;
/// How many handler rounds (`input_required` and back) one task may take
/// before it fails with `-32603`.
pub const MAX_TASK_ROUNDS: u32 = 16;

/// Whether a tool may run as a task. The wire carries no such flag: it
/// only feeds the server's own decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskSupport {
    /// Always synchronous.
    #[default]
    Never,
    /// A task when the request declared the extension, else synchronous.
    Optional,
    /// A task when the request declared the extension, else `-32021`.
    Required,
}

/// The extension's one authorization rule: a task is visible to, and
/// changed by, the principal that created it and nobody else (`None` is
/// the unauthenticated caller).
pub(crate) fn owned_by(owner: Option<&str>, caller: Option<&str>) -> bool {
    owner == caller
}

/// The principal of a request, for [`owned_by`].
pub(crate) fn caller_of(http_request: Option<&http::request::Parts>) -> Option<String> {
    http_request.and_then(|parts| principal(&parts.extensions))
}

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

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
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

/// A handler call that owns everything it needs, so it can outlive the
/// request that started it.
pub(crate) type Work = Pin<Box<dyn Future<Output = HandlerResult<Reply>> + Send + 'static>>;

/// Starts handler calls that may outlive their request: what a transport
/// that holds its server in an `Arc` gives the entry point.
pub(crate) trait Detach: Send + Sync {
    /// The call of `request`, owning a handle on the server.
    fn start(&self, request: ClientRequest, ctx: RequestContext) -> Work;
}

impl<S: McpServer + 'static> Detach for Arc<S> {
    fn start(&self, request: ClientRequest, ctx: RequestContext) -> Work {
        let server = Arc::clone(self);
        Box::pin(async move { server.dispatch_capability(request, &ctx).await })
    }
}

/// The tasks of one server type: where they are stored, their `ttlMs` and
/// `pollIntervalMs`, and the rounds running in this process.
pub struct Tasks {
    store: RwLock<Arc<dyn TaskStore>>,
    settings: RwLock<Settings>,
    running: Mutex<HashMap<String, AbortHandle>>,
}

#[derive(Debug, Clone, Copy)]
struct Settings {
    ttl_ms: Option<u64>,
    poll_interval_ms: u64,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("settings", &*self.read_settings())
            .field("running", &self.running_rounds())
            .finish_non_exhaustive()
    }
}

impl Default for Tasks {
    fn default() -> Self {
        Self::new()
    }
}

impl Tasks {
    /// An engine over a fresh [`MemoryTaskStore`], with
    /// [`DEFAULT_TTL_MS`] and [`DEFAULT_POLL_INTERVAL_MS`].
    pub fn new() -> Self {
        Self {
            store: RwLock::new(Arc::new(MemoryTaskStore::default())),
            settings: RwLock::new(Settings {
                ttl_ms: Some(DEFAULT_TTL_MS),
                poll_interval_ms: DEFAULT_POLL_INTERVAL_MS,
            }),
            running: Mutex::new(HashMap::new()),
        }
    }

    fn read_settings(&self) -> std::sync::RwLockReadGuard<'_, Settings> {
        self.settings.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_settings(&self) -> std::sync::RwLockWriteGuard<'_, Settings> {
        self.settings
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, AbortHandle>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Replaces the store (set it before serving: tasks in the old store
    /// are not moved).
    pub fn set_store(&self, store: Arc<dyn TaskStore>) {
        *self.store.write().unwrap_or_else(PoisonError::into_inner) = store;
    }

    /// The store.
    pub fn store(&self) -> Arc<dyn TaskStore> {
        Arc::clone(&self.store.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// The `ttlMs` of new tasks (`None`: unlimited; a store may still have
    /// to drop finished tasks when full).
    pub fn set_ttl_ms(&self, ttl_ms: Option<u64>) {
        self.write_settings().ttl_ms = ttl_ms;
    }

    /// The `pollIntervalMs` of new tasks (at least 1).
    pub fn set_poll_interval_ms(&self, poll_interval_ms: u64) {
        self.write_settings().poll_interval_ms = poll_interval_ms.max(1);
    }

    /// How many handler rounds run in this process now (finished rounds
    /// leave nothing behind).
    pub fn running_rounds(&self) -> usize {
        self.running().len()
    }

    fn new_record(&self, request: Value, owner: Option<String>) -> HandlerResult<TaskRecord> {
        let task_id = crate::random_id::random_id()
            .map_err(|e| errors::internal_error(format!("no randomness for a task id: {e}")))?;
        let settings = *self.read_settings();
        let now = now_ms();
        Ok(TaskRecord {
            task_id,
            status: TaskStatus::Working,
            status_message: None,
            created_at_ms: now,
            last_updated_at_ms: now,
            ttl_ms: settings.ttl_ms,
            poll_interval_ms: Some(settings.poll_interval_ms),
            request,
            request_state: None,
            input_requests: Map::new(),
            answers: Map::new(),
            key_map: Default::default(),
            used_keys: Default::default(),
            round: 1,
            owner,
            result: None,
            error: None,
        })
    }

    /// Runs one handler round in the background and records how it ends.
    fn spawn_round(&'static self, task_id: String, work: Work, events: Option<ServerEvents>) {
        let handle = tokio::spawn(work);
        self.running()
            .insert(task_id.clone(), handle.abort_handle());
        tokio::spawn(async move {
            let joined = self.supervise(&task_id, handle).await;
            self.running().remove(&task_id);
            let end = match joined {
                Ok(Ok(reply)) => match reply.to_value() {
                    Ok(result) => RoundEnd::Result(result),
                    Err(error) => RoundEnd::Error(error),
                },
                Ok(Err(error)) => RoundEnd::Error(error),
                Err(join) if join.is_cancelled() => return,
                Err(_) => RoundEnd::Error(errors::internal_error("The tool panicked")),
            };
            match self.end_round(&task_id, end).await {
                Ok(record) => announce(events.as_ref(), record.as_ref()),
                Err(e) => {
                    tracing::warn!(task = %task_id, "could not record the end of a task round: {e}");
                }
            }
        });
    }

    /// Waits for a round; with a shared store, also stops it when another
    /// process cancelled the task.
    async fn supervise(
        &self,
        task_id: &str,
        mut handle: JoinHandle<HandlerResult<Reply>>,
    ) -> Result<HandlerResult<Reply>, JoinError> {
        let store = self.store();
        if !store.is_shared() {
            return handle.await;
        }
        let every = Duration::from_millis(self.read_settings().poll_interval_ms);
        loop {
            if let Ok(joined) = tokio::time::timeout(every, &mut handle).await {
                return joined;
            }
            let gone = match store.get(task_id).await {
                Ok(Some(record)) => record.status.is_terminal(),
                Ok(None) => true,
                Err(_) => false,
            };
            if gone {
                handle.abort();
                return handle.await;
            }
        }
    }

    /// Records the end of a round: parks the task on `input_required`,
    /// or ends it (`completed` / `failed`) unless it already ended.
    async fn end_round(
        &self,
        task_id: &str,
        end: RoundEnd,
    ) -> Result<Option<TaskRecord>, StoreError> {
        let store = self.store();
        let now = now_ms();
        let mut change: Box<dyn FnMut(&mut TaskRecord) -> bool + Send> = match end {
            RoundEnd::Result(result)
                if result.get("resultType").and_then(Value::as_str) == Some("input_required") =>
            {
                let requests = result
                    .get("inputRequests")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                let state = result
                    .get("requestState")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                Box::new(move |r: &mut TaskRecord| {
                    if r.status != TaskStatus::Working {
                        return false;
                    }
                    if requests.is_empty() || r.round >= MAX_TASK_ROUNDS {
                        let reason = if requests.is_empty() {
                            "The tool asked for input without any input request"
                        } else {
                            "The task still needed input after too many rounds"
                        };
                        fail(r, &errors::internal_error(reason), now);
                        return true;
                    }
                    park(r, &requests, state.clone(), now);
                    true
                })
            }
            RoundEnd::Result(result) => {
                let result = without_server_info(result);
                Box::new(move |r: &mut TaskRecord| {
                    if r.status.is_terminal() {
                        return false;
                    }
                    r.status = TaskStatus::Completed;
                    r.status_message = None;
                    r.result = Some(result.clone());
                    r.last_updated_at_ms = now;
                    true
                })
            }
            RoundEnd::Error(error) => Box::new(move |r: &mut TaskRecord| {
                if r.status.is_terminal() {
                    return false;
                }
                fail(r, &error, now);
                true
            }),
        };
        store.update(task_id, &mut *change).await
    }

    /// Cancels the task of `owner` (see the module docs, "Authorization"):
    /// `cancelled` unless it already ended, and its round in this process
    /// (if any) is stopped. `None` for an unknown id or another owner's task.
    pub async fn cancel(
        &self,
        task_id: &str,
        owner: Option<&str>,
    ) -> Result<Option<TaskRecord>, StoreError> {
        let now = now_ms();
        let mut change = |r: &mut TaskRecord| {
            if !owned_by(r.owner.as_deref(), owner) || r.status.is_terminal() {
                return false;
            }
            r.status = TaskStatus::Cancelled;
            r.status_message = Some("Cancelled at the client's request".into());
            r.input_requests.clear();
            r.answers.clear();
            r.last_updated_at_ms = now;
            true
        };
        let Some(record) = self.store().update(task_id, &mut change).await? else {
            return Ok(None);
        };
        if !owned_by(record.owner.as_deref(), owner) {
            return Ok(None);
        }
        if let Some(abort) = self.running().remove(task_id) {
            abort.abort();
        }
        Ok(Some(record))
    }
}

/// Publishes a task's new status to listen streams (`notifications/tasks`
/// carries the `DetailedTask`, without `resultType`).
fn announce(events: Option<&ServerEvents>, record: Option<&TaskRecord>) {
    let (Some(events), Some(record)) = (events, record) else {
        return;
    };
    let mut task = wire::detailed_task(record);
    if let Value::Object(object) = &mut task {
        object.remove("resultType");
    }
    events.publish(crate::events::ServerEvent::TaskStatus {
        task_id: record.task_id.clone(),
        owner: record.owner.clone(),
        task,
    });
}

enum RoundEnd {
    Result(Value),
    Error(ErrorObject),
}

fn fail(record: &mut TaskRecord, error: &ErrorObject, now: u64) {
    record.status = TaskStatus::Failed;
    record.status_message = Some(error.message.clone());
    record.error = Some(wire::to_json(error));
    record.input_requests.clear();
    record.answers.clear();
    record.last_updated_at_ms = now;
}

/// `input_required` with `requests`; a key already issued in this task
/// gets a fresh wire key ("Task Update Requests": keys are unique over a
/// task's life).
fn park(record: &mut TaskRecord, requests: &Map<String, Value>, state: Option<String>, now: u64) {
    record.input_requests.clear();
    record.answers.clear();
    record.key_map.clear();
    for (key, request) in requests {
        let mut wire = key.clone();
        let mut n = record.round;
        while record.used_keys.contains(&wire) {
            wire = format!("{key}.{n}");
            n += 1;
        }
        record.used_keys.insert(wire.clone());
        record.key_map.insert(wire.clone(), key.clone());
        record.input_requests.insert(wire, request.clone());
    }
    record.request_state = state;
    record.status = TaskStatus::InputRequired;
    record.status_message = Some("Waiting for input".into());
    record.last_updated_at_ms = now;
}

/// A stored result without the response-level `serverInfo`.
fn without_server_info(mut result: Value) -> Value {
    if let Some(Value::Object(meta)) = result.get_mut("_meta") {
        meta.remove(mcp_types::v2026_07_28::meta_keys::SERVER_INFO);
        if meta.is_empty()
            && let Value::Object(object) = &mut result
        {
            object.remove("_meta");
        }
    }
    result
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
        crate::envelope::with_server_info(declaration, result)
    } else {
        result
    };
    Reply::from_value(&result)
}

/// An unknown, expired or someone else's task.
fn not_found() -> ErrorObject {
    errors::invalid_params("Failed to retrieve task: Task not found")
}

fn store_failure(e: StoreError) -> ErrorObject {
    errors::internal_error(format!("The task store failed: {e}"))
}

/// How a `tools/call` on a server that declares the extension runs, as
/// the module docs say: synchronously (`None`), as a possible task (the
/// owned handle it needs), or not at all (`-32021`). Decided before any
/// future is built, so that the common synchronous call carries none of
/// the task machinery.
pub(crate) fn task_route<'d, S: McpServer>(
    server: &S,
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
pub(crate) async fn call_tool_as_task(
    detach: &dyn Detach,
    declaration: &'static ServerDeclaration,
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
    let record = tasks.new_record(stored, caller_of(ctx.http_request.as_deref()))?;
    tasks
        .store()
        .create(record.clone())
        .await
        .map_err(store_failure)?;
    tasks.spawn_round(record.task_id.clone(), work, ctx.events.clone());
    rendered(
        declaration,
        ctx.server_info_in_results,
        wire::create_task_result(&record),
    )
}

/// `tasks/get`, `tasks/update`, `tasks/cancel`, once the envelope checks
/// passed (the server declares the extension). The request's own
/// capability is checked before any lookup.
pub(crate) async fn handle_method(
    declaration: &'static ServerDeclaration,
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
    let caller = caller_of(ctx.http_request.as_deref());
    let result = match method {
        TASKS_GET => {
            let params: wire::TaskIdParams = wire::read_params(method, params)?;
            let task_id = wire::task_id(&params.task_id)?;
            let record = tasks
                .store()
                .get(task_id)
                .await
                .map_err(store_failure)?
                .filter(|record| owned_by(record.owner.as_deref(), caller.as_deref()))
                .ok_or_else(not_found)?;
            wire::detailed_task(&record)
        }
        TASKS_CANCEL => {
            let params: wire::TaskIdParams = wire::read_params(method, params)?;
            let task_id = wire::task_id(&params.task_id)?;
            let record = tasks
                .cancel(task_id, caller.as_deref())
                .await
                .map_err(store_failure)?
                .ok_or_else(not_found)?;
            announce(ctx.events.as_ref(), Some(&record));
            wire::ack()
        }
        TASKS_UPDATE => {
            let params: wire::UpdateParams = wire::read_params(method, params)?;
            let task_id = wire::task_id(&params.task_id)?;
            let Some(Value::Object(responses)) = params.input_responses else {
                return Err(errors::invalid_params(
                    "params.inputResponses must be an object",
                ));
            };
            update(
                declaration,
                detach,
                id,
                task_id,
                caller.as_deref(),
                responses,
                ctx,
            )
            .await?;
            wire::ack()
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
    declaration: &'static ServerDeclaration,
    detach: Option<&dyn Detach>,
    id: &RequestId,
    task_id: &str,
    caller: Option<&str>,
    responses: Map<String, Value>,
    ctx: &MessageContext,
) -> HandlerResult<()> {
    let tasks = declaration.tasks();
    let now = now_ms();
    let mut invalid: Option<String> = None;
    let mut resume: Option<(Value, Option<String>, Map<String, Value>)> = None;
    let mut change = |r: &mut TaskRecord| {
        invalid = None;
        resume = None;
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
        }
        true
    };
    let found = tasks
        .store()
        .update(task_id, &mut change)
        .await
        .map_err(store_failure)?;
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
    match round {
        Ok(work) => tasks.spawn_round(task_id.to_owned(), work, ctx.events.clone()),
        Err(error) => {
            let now = now_ms();
            let mut change = |r: &mut TaskRecord| {
                if r.status.is_terminal() {
                    return false;
                }
                fail(r, &error, now);
                true
            };
            tasks
                .store()
                .update(task_id, &mut change)
                .await
                .map_err(store_failure)?;
        }
    }
    Ok(())
}

/// The `tools/call` of the next round: the stored call with the answers
/// as `inputResponses` and the round's `requestState`.
fn next_round(
    declaration: &'static ServerDeclaration,
    mut request: Value,
    state: Option<String>,
    answers: Map<String, Value>,
    id: &RequestId,
    ctx: &MessageContext,
) -> HandlerResult<(ClientRequest, RequestContext)> {
    if let Value::Object(params) = &mut request {
        params.insert("inputResponses".into(), Value::Object(answers));
        match state {
            Some(state) => params.insert("requestState".into(), Value::String(state)),
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
        declaration: Some(declaration),
        server_info_in_results: false,
        // The round runs for the `tasks/update` that completed its input.
        http_request: ctx.http_request.clone(),
        task_eligible: false,
    };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(id.clone(), params));
    Ok((request, round_ctx))
}
