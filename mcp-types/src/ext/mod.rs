//! Types of the official extensions (`io.modelcontextprotocol/<name>`), one module each.

pub mod apps;
