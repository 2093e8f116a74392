//! An MCP client that speaks both eras: 2026-07-28 ("modern": no
//! handshake, `_meta` on every request, `server/discover`) and 2025-11-25
//! and older ("legacy": `initialize`).
//!
//! * [`Client`] connects over stdio (spawning the server) or Streamable
//!   HTTP, detects the era, agrees on a version and sends requests.
//! * [`negotiate`] holds the detection and selection rules as plain
//!   functions; [`cache`] what is remembered between connections;
//!   [`headers`] and [`sse`] the HTTP details.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_client::Error> {
//! use mcp_client::{Client, ClientOptions};
//!
//! let client = Client::connect_stdio("my-server", &[], ClientOptions::default()).await?;
//! println!("{:?} {}", client.era(), client.protocol_version());
//! let tools = client.list_tools(None).await?;
//! # let _ = tools;
//! # Ok(()) }
//! ```
//!
//! `http://` URLs always work; `https://` needs the `rustls` feature (rustls
//! with ring, the bundled web PKI roots, plus
//! [`ClientOptions::extra_root_certificates`] for a private CA). Without it,
//! an `https://` URL is refused with a message naming the feature.

#![deny(missing_docs)]

pub mod cache;
mod client;
mod error;
pub mod handler;
pub mod headers;
pub mod negotiate;
pub mod sse;
pub mod subscription;
pub mod transport;

pub use client::{ByEra, Client, ClientOptions, EraMode};
pub use error::{Error, Result};
pub use handler::{ClientHandler, HandlerError};
pub use mcp_types;
pub use mcp_types::versions::Era;
pub use subscription::{Notification, Subscription};
