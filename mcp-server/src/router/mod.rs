//! Typed tools, resources, prompts and completions: what `#[mcp_server::router]`
//! generates code against, and the macro-free [`ToolRouter`](tools::ToolRouter) for catalogues
//! known only at run time.
//!
//! A router's catalogue is static: each tool, resource, template and prompt
//! is described once (schemas included), listed from that table with
//! pagination and the declared cache hints, and the HTTP `Mcp-Param-*`
//! check reads its header annotations from the same table.

pub mod args;
pub mod completions;
mod page;
pub mod prompts;
pub mod resources;
pub mod tools;
pub mod uri_template;
mod validation;

pub use page::PAGE_SIZE;

use mcp_types::v2026_07_28::{InputResponse, InputResponses};

/// What a retried request carries (multi round-trip requests): the
/// client's answers to the previous `input_required` result, by key, and the
/// `requestState` the server put in it, echoed back. Empty on a first call.
///
/// The state comes back from the client: a server that relies on it
/// protects it (sign it, or keep it server-side under an opaque key).
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
}
