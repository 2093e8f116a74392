//! Protocol constants this runtime follows: the handshake method
//! ([`INITIALIZE`]), the methods the modern era removed or lets clients
//! cache ([`REMOVED_METHODS`], [`CACHEABLE_METHODS`]), the limits it
//! applies ([`MAX_INPUT_ROUNDS`], [`PAGE_SIZE`],
//! [`MAX_COMPLETION_VALUES`]) and the versions it implements
//! ([`IMPLEMENTED_VERSIONS`] and per era).

pub use crate::dispatch::INITIALIZE;
pub use crate::era::legacy::MAX_INPUT_ROUNDS;
pub use crate::era::modern::{CACHEABLE_METHODS, REMOVED_METHODS};
pub use crate::model::declaration::{
    IMPLEMENTED_LEGACY_VERSIONS, IMPLEMENTED_MODERN_VERSIONS, IMPLEMENTED_VERSIONS,
};
pub use crate::model::handlers::MAX_COMPLETION_VALUES;
pub use crate::router::PAGE_SIZE;
