//! Typed tools, resources and prompts: what `#[mcp_server::router]`
//! generates code against, and the macro-free [`ToolRouter`] for catalogues
//! known only at run time.
//!
//! A router's catalogue is static: each tool, resource, template and prompt
//! is described once (schemas included), listed from that table with
//! pagination and the declared cache hints, and the HTTP `Mcp-Param-*`
//! check reads its header annotations from the same table.

pub mod args;
mod page;
pub mod prompts;
pub mod resources;
pub mod tools;
pub mod uri_template;

pub use page::PAGE_SIZE;
