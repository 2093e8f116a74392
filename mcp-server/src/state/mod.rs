//! Layer 1, the runtime state a server type owns beside its static
//! declaration: the event hub, the task engine and its stores, the skills
//! catalogue, the cache of `Mcp-Param-*` annotations.

pub(crate) mod events;
pub(crate) mod param_header_cache;
pub(crate) mod skills;
pub(crate) mod tasks;
