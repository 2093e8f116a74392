//! The two transports: [`stdio`] (spawns the server, one JSON message per
//! line) and [`http`] (Streamable HTTP: one POST per message, answered as
//! JSON or as an SSE stream). They move JSON-RPC messages; what the messages
//! mean is the [`Client`](crate::Client)'s business.

pub mod http;
pub mod stdio;
