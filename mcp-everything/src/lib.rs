//! `mcp-everything`: a dual-era MCP fixture server (2026-07-28 and
//! 2025-11-25 on one endpoint) with every tool, resource and prompt the
//! official conformance suite calls, and the skills of `skills/` (skills
//! extension), written with `mcp-server`.
//!
//! The binary runs it: `mcp-everything stdio`,
//! `mcp-everything http --listen 127.0.0.1:PORT`, or `mcp-everything demo`
//! (talks to its own stdio server and prints the exchange).

#![deny(missing_docs)]

pub mod demo;
pub mod fixture;
pub mod skills;

pub use fixture::Everything;
