//! Layer 0, bytes ⇄ JSON-RPC: parsing, the envelope, errors and reply
//! bytes. Knows nothing of eras, declarations or handlers.

pub mod errors;
pub(crate) mod message;
pub(crate) mod random_id;
pub(crate) mod read_request;
pub(crate) mod reply;
pub(crate) mod scan;
