//! Prompts: the static table behind `#[prompt]` methods, the
//! [`PromptRouter`] of prompts known at run time, and the results made
//! from their return types.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use mcp_era_types::v2026_07_28::{
    ContentBlock, GetPromptRequestParams, GetPromptResult, GetPromptResultResponseResult,
    InputRequiredResult, ListPromptsResult, PaginatedRequestParams, Prompt, PromptMessage, methods,
};

use super::args::ArgumentError;
use super::names::Ordered;
use super::page::page;
use super::rendered::RenderedPages;
use super::tools::BoxFuture;
use super::{RetryInput, StateSeal};
use crate::model::context::RequestContext;
use crate::state::events::ServerEvents;
use crate::state::request_state::string_arguments_digest;
use crate::wire::errors::{self, ErrorObject, HandlerResult};
use crate::wire::reply::Reply;

/// What `prompts/get` answers.
pub type PromptOutcome = HandlerResult<GetPromptResultResponseResult>;

/// The arguments of `prompts/get` (strings by name).
pub type PromptArguments = BTreeMap<String, String>;

/// A value a prompt method may return. A `String` is one user message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a prompt",
    note = "return `String` or `&str` (one user message), `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, `InputRequiredResult`, or a `HandlerResult` of one of these"
)]
pub trait IntoPromptResult {
    /// The `prompts/get` answer.
    fn into_prompt_result(self) -> PromptOutcome;
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> PromptOutcome {
        PromptMessage::user(ContentBlock::text(self)).into_prompt_result()
    }
}

impl IntoPromptResult for &str {
    fn into_prompt_result(self) -> PromptOutcome {
        self.to_owned().into_prompt_result()
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> PromptOutcome {
        vec![self].into_prompt_result()
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> PromptOutcome {
        Ok(GetPromptResult::new(self).into())
    }
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> PromptOutcome {
        Ok(self.into())
    }
}

impl IntoPromptResult for InputRequiredResult {
    fn into_prompt_result(self) -> PromptOutcome {
        Ok(self.into())
    }
}

impl IntoPromptResult for GetPromptResultResponseResult {
    fn into_prompt_result(self) -> PromptOutcome {
        Ok(self)
    }
}

impl<T: IntoPromptResult> IntoPromptResult for Result<T, ErrorObject> {
    fn into_prompt_result(self) -> PromptOutcome {
        self.and_then(IntoPromptResult::into_prompt_result)
    }
}

/// A prompt argument that is missing or does not parse: `-32602`.
pub fn argument_error(error: ArgumentError) -> ErrorObject {
    errors::invalid_params(error.to_string())
}

/// One `prompts/get` as a handler sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptCall {
    /// The arguments (empty when absent).
    pub arguments: PromptArguments,
    /// The answers and state of a retried request.
    pub retry: RetryInput,
}

/// The handler of a `#[prompt]` method.
pub type PromptFn<S> =
    for<'a> fn(&'a S, PromptCall, &'a RequestContext) -> BoxFuture<'a, PromptOutcome>;

/// One `#[prompt]` method as the router macro writes it down.
pub struct PromptSpec<S> {
    /// Builds the description (arguments included); run once.
    pub describe: fn() -> Prompt,
    /// The handler.
    pub get: PromptFn<S>,
}

/// Prompts by name, in listing order, and the pages rendered from them;
/// `H` calls a prompt.
struct Prompts<H> {
    prompts: Ordered<(Prompt, H)>,
    pages: RenderedPages,
}

impl<H> Default for Prompts<H> {
    fn default() -> Self {
        Self {
            prompts: Ordered::default(),
            pages: RenderedPages::default(),
        }
    }
}

impl<H> Prompts<H> {
    /// Adds `prompt`, or replaces the one of its name in place.
    fn insert(&mut self, prompt: Prompt, handler: H) {
        self.pages.clear();
        self.prompts.insert(prompt.name.clone(), (prompt, handler));
    }

    fn remove(&mut self, name: &str) -> bool {
        let removed = self.prompts.remove(name).is_some();
        if removed {
            self.pages.clear();
        }
        removed
    }

    fn find(&self, name: &str) -> HandlerResult<&(Prompt, H)> {
        self.prompts
            .get(name)
            .ok_or_else(|| errors::invalid_params(format!("Unknown prompt: {name}")))
    }

    fn list(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListPromptsResult> {
        let (prompts, next) = page(self.prompts.entries(), params.cursor.as_deref())?;
        let prompts = prompts.iter().map(|(p, _)| p.clone()).collect();
        let mut result = ListPromptsResult::new(prompts, ctx.cache_hints());
        result.next_cursor = next;
        Ok(result)
    }

    fn list_reply(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        self.pages
            .list_reply(params.cursor.as_deref(), ctx, || self.list(params, ctx))
    }
}

/// `prompts/get` of `prompt` through `get`: the `requestState` opened
/// before and sealed after, the description filled in when left out.
async fn get_prompt<Fut>(
    prompt: &Prompt,
    params: GetPromptRequestParams,
    ctx: &RequestContext,
    get: impl FnOnce(PromptCall) -> Fut,
) -> PromptOutcome
where
    Fut: Future<Output = PromptOutcome>,
{
    let seal = StateSeal::new(
        ctx,
        methods::PROMPTS_GET,
        || Cow::Borrowed(prompt.name.as_str()),
        || string_arguments_digest(params.arguments.as_ref()),
    );
    let state = seal.open(params.request_state)?;
    let call = PromptCall {
        arguments: params.arguments.unwrap_or_default(),
        retry: RetryInput::new(params.input_responses, state),
    };
    let mut outcome = get(call).await?;
    match &mut outcome {
        GetPromptResultResponseResult::GetPromptResult(result) if result.description.is_none() => {
            result.description.clone_from(&prompt.description);
        }
        GetPromptResultResponseResult::InputRequiredResult(result) => seal.seal(result)?,
        _ => {}
    }
    Ok(outcome)
}

/// The prompts of a `#[mcp_era_server::router]` impl, described once.
pub struct PromptTable<S: 'static> {
    prompts: Prompts<PromptFn<S>>,
}

impl<S> PromptTable<S> {
    /// Describes every prompt.
    pub fn build(specs: &[PromptSpec<S>]) -> Self {
        let mut prompts = Prompts::default();
        for spec in specs {
            prompts.insert((spec.describe)(), spec.get);
        }
        Self { prompts }
    }

    /// `prompts/list`.
    pub fn list(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListPromptsResult> {
        self.prompts.list(params, ctx)
    }

    /// [`list`](Self::list)'s page as result bytes, each page rendered once.
    pub fn list_reply(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        self.prompts.list_reply(params, ctx)
    }

    /// `prompts/get`: an unknown name is `-32602 "Unknown prompt: X"`.
    pub async fn get(
        &self,
        server: &S,
        params: GetPromptRequestParams,
        ctx: &RequestContext,
    ) -> PromptOutcome {
        let (prompt, get) = self.prompts.find(&params.name)?;
        get_prompt(prompt, params, ctx, |call| get(server, call, ctx)).await
    }
}

type DynPromptFn =
    Arc<dyn Fn(PromptCall, RequestContext) -> BoxFuture<'static, PromptOutcome> + Send + Sync>;

/// Prompts known only at run time (read from a file, a backend's): build
/// and change the catalogue without macros. Cheap to clone; clones share
/// the catalogue. Every change publishes `notifications/prompts/list_changed`
/// on the hub given to [`with_events`](Self::with_events), and forgets the
/// rendered `prompts/list` pages.
///
/// ```
/// use mcp_era_server::mcp_era_types::v2026_07_28::{Prompt, PromptArgument};
/// use mcp_era_server::{PromptCall, PromptRouter, ServerEvents};
///
/// let events = ServerEvents::new(); // also give it to `StdioConfig`/`HttpConfig`
/// let prompts = PromptRouter::new().with_events(events.clone());
/// let mut prompt = Prompt::new("summarise");
/// prompt.arguments = Some(vec![PromptArgument::new("topic").with_required(true)]);
/// prompts.add(prompt, |call: PromptCall, _ctx| async move {
///     format!("Summarise {} in three sentences.", call.arguments["topic"])
/// });
/// assert_eq!(prompts.names(), ["summarise"]);
/// assert!(prompts.remove("summarise"));
/// ```
#[derive(Clone, Default)]
pub struct PromptRouter {
    prompts: Arc<RwLock<Prompts<DynPromptFn>>>,
    events: Option<ServerEvents>,
}

impl std::fmt::Debug for PromptRouter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptRouter")
            .field("prompts", &self.names())
            .finish_non_exhaustive()
    }
}

impl PromptRouter {
    /// An empty router that announces no changes.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same router, announcing changes on `events`.
    pub fn with_events(mut self, events: ServerEvents) -> Self {
        self.events = Some(events);
        self
    }

    fn read(&self) -> RwLockReadGuard<'_, Prompts<DynPromptFn>> {
        self.prompts.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Prompts<DynPromptFn>> {
        self.prompts.write().unwrap_or_else(PoisonError::into_inner)
    }

    fn changed(&self) {
        if let Some(events) = &self.events {
            events.prompts_list_changed();
        }
    }

    /// Adds `prompt` (or replaces the one of its name), answered by
    /// `handler`. A `prompts/get` without one of the prompt's required
    /// arguments is refused (`-32602`) before `handler` runs.
    pub fn add<F, Fut, R>(&self, prompt: Prompt, handler: F)
    where
        F: Fn(PromptCall, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        let handler: DynPromptFn = Arc::new(move |call, ctx| {
            let answer = handler(call, ctx);
            Box::pin(async move { answer.await.into_prompt_result() })
        });
        self.write().insert(prompt, handler);
        self.changed();
    }

    /// Removes prompt `name`; `false` when there was none.
    pub fn remove(&self, name: &str) -> bool {
        let removed = self.write().remove(name);
        if removed {
            self.changed();
        }
        removed
    }

    /// The prompt names, in listing order.
    pub fn names(&self) -> Vec<String> {
        let prompts = self.read();
        let entries = prompts.prompts.entries();
        entries.iter().map(|(p, _)| p.name.clone()).collect()
    }

    /// `prompts/list`.
    pub async fn list_prompts(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListPromptsResult> {
        self.read().list(&params, ctx)
    }

    /// [`list_prompts`](Self::list_prompts)'s page as result bytes, each
    /// page rendered once per catalogue version.
    pub async fn list_prompts_reply(
        &self,
        params: PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        self.read().list_reply(&params, ctx)
    }

    /// `prompts/get`: an unknown name or a missing required argument is
    /// `-32602`.
    pub async fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        ctx: &RequestContext,
    ) -> PromptOutcome {
        let (prompt, handler) = {
            let prompts = self.read();
            let (prompt, handler) = prompts.find(&params.name)?;
            (prompt.clone(), Arc::clone(handler))
        };
        let given = params.arguments.as_ref();
        for argument in prompt.arguments.iter().flatten() {
            if argument.required == Some(true)
                && !given.is_some_and(|given| given.contains_key(&argument.name))
            {
                return Err(errors::invalid_params(format!(
                    "Missing required argument: {}",
                    argument.name
                )));
            }
        }
        get_prompt(&prompt, params, ctx, |call| handler(call, ctx.clone())).await
    }
}
