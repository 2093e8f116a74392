//! Layer 1, the runtime state a server type owns beside its static
//! declaration: the event hub (and its Redis relay), the task engine and
//! its stores, the legacy session and stream-event stores, the skills
//! catalogue, the cache of `Mcp-Param-*` annotations, the keys that seal
//! `requestState`.

pub(crate) mod events;
pub(crate) mod opened;
pub(crate) mod param_header_cache;
#[cfg(feature = "redis")]
pub(crate) mod redis_events;
pub mod request_state;
pub mod sessions;
pub(crate) mod skills;
pub(crate) mod tasks;
