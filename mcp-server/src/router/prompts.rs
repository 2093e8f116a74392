//! Prompts: the static table behind `#[prompt]` methods and the results
//! made from their return types.

use std::borrow::Cow;
use std::collections::BTreeMap;

use mcp_era_types::v2026_07_28::{
    ContentBlock, GetPromptRequestParams, GetPromptResult, GetPromptResultResponseResult,
    InputRequiredResult, ListPromptsResult, PaginatedRequestParams, Prompt, PromptMessage, methods,
};

use super::args::ArgumentError;
use super::names::NameMap;
use super::page::page;
use super::rendered::{PageKey, RenderedPages};
use super::tools::BoxFuture;
use super::{RetryInput, StateSeal};
use crate::model::context::RequestContext;
use crate::state::request_state::string_arguments_digest;
use crate::wire::errors::{self, ErrorObject, HandlerResult};
use crate::wire::reply::{self, Reply};

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

/// The prompts of a `#[mcp_era_server::router]` impl, described once.
pub struct PromptTable<S: 'static> {
    prompts: Vec<(Prompt, PromptFn<S>)>,
    by_name: NameMap<String, usize>,
    pages: RenderedPages,
}

impl<S> PromptTable<S> {
    /// Describes every prompt.
    pub fn build(specs: &[PromptSpec<S>]) -> Self {
        let prompts: Vec<(Prompt, PromptFn<S>)> = specs
            .iter()
            .map(|spec| ((spec.describe)(), spec.get))
            .collect();
        let by_name = prompts
            .iter()
            .enumerate()
            .map(|(at, (prompt, _))| (prompt.name.clone(), at))
            .collect();
        Self {
            prompts,
            by_name,
            pages: RenderedPages::default(),
        }
    }

    /// `prompts/list`.
    pub fn list(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<ListPromptsResult> {
        let (prompts, next) = page(&self.prompts, params.cursor.as_deref())?;
        let prompts = prompts.iter().map(|(p, _)| p.clone()).collect();
        let mut result = ListPromptsResult::new(prompts, ctx.cache_hints());
        result.next_cursor = next;
        Ok(result)
    }

    /// [`list`](Self::list)'s page as result bytes, each page rendered once.
    pub fn list_reply(
        &self,
        params: &PaginatedRequestParams,
        ctx: &RequestContext,
    ) -> HandlerResult<Reply> {
        let key = PageKey::new(params.cursor.as_deref(), false, ctx);
        self.pages.get_or_render(key, || {
            reply::render(self.list(params, ctx)?, ctx.result_server_info())
        })
    }

    /// `prompts/get`: an unknown name is `-32602 "Unknown prompt: X"`.
    pub async fn get(
        &self,
        server: &S,
        params: GetPromptRequestParams,
        ctx: &RequestContext,
    ) -> PromptOutcome {
        let &at = self
            .by_name
            .get(&params.name)
            .ok_or_else(|| errors::invalid_params(format!("Unknown prompt: {}", params.name)))?;
        let (prompt, get) = &self.prompts[at];
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
        let mut outcome = get(server, call, ctx).await?;
        match &mut outcome {
            GetPromptResultResponseResult::GetPromptResult(result)
                if result.description.is_none() =>
            {
                result.description.clone_from(&prompt.description);
            }
            GetPromptResultResponseResult::InputRequiredResult(result) => seal.seal(result)?,
            _ => {}
        }
        Ok(outcome)
    }
}
