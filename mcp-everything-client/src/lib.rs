//! A typed client for the `mcp-everything` fixture server, generated at
//! build time (`build.rs`, [`mcp_era_codegen::client::build`]) from the
//! committed `tools.json` snapshot of its `tools/list`.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use mcp_era_client::{Client, ClientOptions};
//! use mcp_everything_client::{EverythingClient, GreetArgs};
//!
//! let client = Client::connect_stdio("mcp-everything", &["stdio".into()], ClientOptions::default()).await?;
//! let everything = EverythingClient::new(client);
//! let content = everything.greet(GreetArgs { name: "Ada".into() }).await?;
//! # let _ = content;
//! # Ok(()) }
//! ```
//!
//! [`mcp_era_codegen::client::build`]: https://docs.rs/mcp-era-codegen

include!(concat!(env!("OUT_DIR"), "/everything.rs"));
