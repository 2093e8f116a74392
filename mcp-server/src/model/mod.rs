//! Layer 2, what a server is and what a message carries: the declaration,
//! the contexts, the outcome, the peer, the handler traits, `McpServer` and
//! the extension table.

pub(crate) mod context;
pub(crate) mod declaration;
pub(crate) mod extensions;
pub(crate) mod handlers;
pub(crate) mod outcome;
pub(crate) mod peer;
pub(crate) mod server;
