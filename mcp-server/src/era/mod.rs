//! Layer 4, the two eras: the modern per-request gate and the legacy
//! (2025-11-25) session methods, with the `Mcp-Param-*` check, and the
//! list of extensions that fills each declaration's table.

pub(crate) mod extensions;
pub(crate) mod legacy;
pub(crate) mod modern;
pub(crate) mod param_headers;
