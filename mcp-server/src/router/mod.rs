//! Typed tools, resources, prompts and completions: what `#[mcp_era_server::router]`
//! generates code against, and the macro-free [`ToolRouter`](tools::ToolRouter) for catalogues
//! known only at run time.
//!
//! A router's catalogue is static: each tool, resource, template and prompt
//! is described once (schemas included), listed from that table with
//! pagination and the declared cache hints, and the HTTP `Mcp-Param-*`
//! check reads its header annotations from the same table.

pub mod args;
pub mod completions;
pub mod input;
mod names;
mod page;
pub mod prompts;
mod rendered;
pub mod resource_router;
pub mod resources;
pub(crate) mod routed;
mod tool_results;
mod tool_rules;
pub mod tools;
pub mod uri_template;
mod validation;

pub use page::PAGE_SIZE;

use mcp_era_types::v2026_07_28::{
    CreateMessageResult, ElicitResultAction, InputRequiredResult, InputResponse, InputResponses,
    Root, SamplingMessageContent, SamplingMessageContentBlock,
};
use serde::de::DeserializeOwned;
use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::model::context::RequestContext;
use crate::state::request_state::{Binding, RequestStateSealing};
use crate::wire::errors::{self, HandlerResult};

/// The `requestState` seal of one routed request: opens the state the
/// client echoes back before the handler runs, and seals the state of an
/// `input_required` answer (see [`crate::request_state`]). Does nothing
/// when sealing is off or the context has no server (a direct call).
pub(crate) enum StateSeal<'a> {
    Off,
    /// The call carries no state and its handler's return type says it
    /// never asks for input: nothing is hashed (most of a seal's cost),
    /// and a state it returns anyway is refused.
    Unneeded {
        method: &'static str,
    },
    On(Sealed<'a>),
}

/// What a seal binds, kept as parts: the [`Binding`] is built only when a
/// state is opened or sealed, which most calls never do.
pub(crate) struct Sealed<'a> {
    sealing: &'a RequestStateSealing,
    method: &'static str,
    target: Cow<'a, str>,
    arguments: [u8; 32],
    principal: Option<&'a str>,
}

impl<'a> StateSeal<'a> {
    /// For `method` on `target` with arguments of this digest (asked only
    /// when sealing is on), from `ctx`'s caller.
    pub(crate) fn new(
        ctx: &'a RequestContext,
        method: &'static str,
        target: impl FnOnce() -> Cow<'a, str>,
        arguments: impl FnOnce() -> [u8; 32],
    ) -> Self {
        match ctx
            .declaration
            .as_deref()
            .map(|d| d.request_state())
            .filter(|s| s.is_enabled())
        {
            None => Self::Off,
            Some(sealing) => Self::On(Sealed {
                sealing,
                method,
                target: target(),
                arguments: arguments(),
                principal: ctx.principal(),
            }),
        }
    }

    /// The handler's plaintext of the `requestState` a retry carries;
    /// `-32602` naming the reason when it does not open.
    pub(crate) fn open(&self, state: Option<String>) -> HandlerResult<Option<String>> {
        match (self, state) {
            (Self::On(sealed), Some(token)) => {
                sealed.sealing.open(&sealed.binding(), &token).map(Some)
            }
            (Self::Unneeded { method }, Some(_)) => Err(unhashed(method)),
            (_, state) => Ok(state),
        }
    }

    /// Seals the `requestState` of an `input_required` result.
    pub(crate) fn seal(&self, result: &mut InputRequiredResult) -> HandlerResult<()> {
        match (self, &mut result.request_state) {
            (Self::On(sealed), Some(state)) => {
                *state = sealed.sealing.seal(&sealed.binding(), state)?;
                Ok(())
            }
            (Self::Unneeded { method }, Some(_)) => Err(unhashed(method)),
            _ => Ok(()),
        }
    }
}

/// A state met where none was expected: a handler whose return type says
/// it never asks for input did (the runtime hashes the arguments of every
/// call that carries a state, so a client cannot cause this).
fn unhashed(method: &str) -> errors::ErrorObject {
    errors::internal_error(format!(
        "a {method} handler asked for input, but its return type's `IntoToolResult::CAN_REQUIRE_INPUT` is false"
    ))
}

impl Sealed<'_> {
    fn binding(&self) -> Binding {
        Binding::from_digest(self.method, &self.target, self.arguments, self.principal)
    }
}

/// What a retried request carries (multi round-trip requests): the
/// client's answers to the previous `input_required` result, by key, and the
/// `requestState` the server put in it, echoed back. Empty on a first call.
///
/// The runtime seals the state before it reaches the client and opens it
/// here, so `state` is what the handler wrote, and a state the client
/// changed, replayed for another call or kept past its expiry never gets
/// here (`-32602`; see [`crate::request_state`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RetryInput {
    /// `inputResponses` (empty when absent).
    pub responses: InputResponses,
    /// `requestState`.
    pub state: Option<String>,
}

impl RetryInput {
    /// From a request's `inputResponses` and `requestState`.
    pub fn new(responses: Option<InputResponses>, state: Option<String>) -> Self {
        Self {
            responses: responses.unwrap_or_default(),
            state,
        }
    }

    /// The answer to the input request `key`, if the client sent one.
    pub fn response(&self, key: &str) -> Option<&InputResponse> {
        self.responses.get(key)
    }

    /// Whether this is a first call (no answers, no state).
    pub fn is_first_round(&self) -> bool {
        self.responses.is_empty() && self.state.is_none()
    }

    /// The answer to the elicitation `key` (`None` if the client sent
    /// none: ask again), its content read as `T`. An accepted answer
    /// without content (URL mode) reads as `{}`, or as `null` for a type
    /// that needs one, such as `()`. `-32602` when the answer is not an
    /// elicitation result or its content does not deserialize as `T`.
    pub fn elicited<T: DeserializeOwned>(
        &self,
        key: &str,
    ) -> HandlerResult<Option<Elicitation<T>>> {
        let Some(response) = self.response(key) else {
            return Ok(None);
        };
        let InputResponse::ElicitResult(result) = response else {
            return Err(not_a(key, "an elicitation result"));
        };
        Ok(Some(match result.action {
            ElicitResultAction::Decline => Elicitation::Declined,
            ElicitResultAction::Cancel => Elicitation::Cancelled,
            ElicitResultAction::Accept => {
                let content = match &result.content {
                    Some(content) => serde_json::to_value(content)
                        .map_err(|e| errors::internal_error(e.to_string()))?,
                    None => Value::Object(Map::new()),
                };
                let read = serde_json::from_value(content.clone()).or_else(|error| {
                    if content.as_object().is_some_and(Map::is_empty) {
                        serde_json::from_value(Value::Null).map_err(|_| error)
                    } else {
                        Err(error)
                    }
                });
                Elicitation::Accepted(read.map_err(|e| {
                    errors::invalid_params(format!(
                        "inputResponses.{key}: the content does not fit the requested schema: {e}"
                    ))
                })?)
            }
        }))
    }

    /// The sampling answer `key`, as the client sent it.
    /// `-32602` when it is not a `sampling/createMessage` result.
    pub fn sampled(&self, key: &str) -> HandlerResult<Option<&CreateMessageResult>> {
        match self.response(key) {
            None => Ok(None),
            Some(InputResponse::CreateMessageResult(result)) => Ok(Some(result)),
            Some(_) => Err(not_a(key, "a sampling result")),
        }
    }

    /// The text of the sampling answer `key` (its text blocks, joined).
    /// `-32602` when it is not a sampling result or holds no text.
    pub fn sampled_text(&self, key: &str) -> HandlerResult<Option<String>> {
        let Some(result) = self.sampled(key)? else {
            return Ok(None);
        };
        let texts: Vec<&str> = match &result.content {
            SamplingMessageContent::TextContent(text) => vec![text.text.as_str()],
            SamplingMessageContent::Array(blocks) => blocks
                .iter()
                .filter_map(|block| match block {
                    SamplingMessageContentBlock::TextContent(text) => Some(text.text.as_str()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        if texts.is_empty() {
            return Err(errors::invalid_params(format!(
                "inputResponses.{key} holds no text"
            )));
        }
        Ok(Some(texts.concat()))
    }

    /// The roots of the `roots/list` answer `key`. `-32602` when it is not
    /// a `roots/list` result.
    pub fn roots(&self, key: &str) -> HandlerResult<Option<&[Root]>> {
        match self.response(key) {
            None => Ok(None),
            Some(InputResponse::ListRootsResult(result)) => Ok(Some(&result.roots)),
            Some(_) => Err(not_a(key, "a roots/list result")),
        }
    }
}

/// How the user answered an elicitation ([`RetryInput::elicited`]; asked with
/// [`input::elicit`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// `accept`, with the content read as `T`.
    Accepted(T),
    /// `decline`: the user said no.
    Declined,
    /// `cancel`: the user dismissed the request without choosing.
    Cancelled,
}

impl<T> Elicitation<T> {
    /// The accepted content, if accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accepted(value) => Some(value),
            Self::Declined | Self::Cancelled => None,
        }
    }
}

/// `-32602`: the answer under `key` is of another kind than asked.
fn not_a(key: &str, kind: &str) -> errors::ErrorObject {
    errors::invalid_params(format!("inputResponses.{key} must be {kind}"))
}
