//! Tool input schemas from Rust types (feature `schemars`).
//!
//! ```ignore
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Add { a: f64, b: f64 }
//! let tool = Tool::new(mcp_server::schema::input_schema::<Add>()?, "add");
//! ```

use mcp_types::v2026_07_28::ToolInputSchema;
use serde_json::Value;

use crate::errors::{self, HandlerResult};

/// The JSON Schema of `T` as a tool `inputSchema` (`type: "object"`, with
/// `properties`, `required`, and `definitions` when `T` nests types).
/// Fails with `-32603` when `T`'s schema is not an object schema.
pub fn input_schema<T: schemars::JsonSchema>() -> HandlerResult<ToolInputSchema> {
    let schema = schemars::schema_for!(T);
    let mut value = serde_json::to_value(schema)
        .map_err(|e| errors::internal_error(format!("schema of a tool input: {e}")))?;
    if let Value::Object(object) = &mut value {
        // The 2026 schema reads a missing `$schema` as 2020-12; schemars 0.8
        // writes draft-07, so the dialect is kept as written.
        object.remove("title");
    }
    serde_json::from_value(value).map_err(|e| {
        errors::internal_error(format!("a tool input schema must be an object schema: {e}"))
    })
}
