//! Layer 4, the two eras: the modern per-request gate and the legacy
//! (2025-11-25) session methods, with the `Mcp-Param-*` check.

pub(crate) mod legacy;
pub(crate) mod modern;
pub(crate) mod param_headers;
