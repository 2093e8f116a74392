//! Parse → validate: the attribute IR of `#[derive(McpServer)]` and the
//! checks on it, kept apart from token output (`crate::expand`).

pub mod attr;
pub mod check;
pub mod ctxt;
pub mod json;
pub mod meta_key;
pub mod suggest;
