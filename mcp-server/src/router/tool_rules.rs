//! What a described tool must satisfy (its name, its `x-mcp-header`
//! annotations, its MCP Apps `_meta.ui`) and which requests see it.

use mcp_era_types::ext::apps;
use mcp_era_types::v2026_07_28::Tool;
use serde_json::Value;

use crate::model::context::Era;
use crate::model::handlers::ParamHeader;

/// Whether `name` follows the spec's tool name rules: 1 to 128 characters
/// from `A-Z a-z 0-9 _ - .`.
pub fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Whether `name` is a valid header name suffix (RFC 9110 token).
pub fn valid_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The `x-mcp-header` annotations of `tool`'s input schema, or what is
/// wrong with them: header names must be tokens, unique regardless of
/// case, on properties of a primitive type.
pub fn param_headers_of(tool: &Tool) -> Result<Vec<ParamHeader>, String> {
    let mut found: Vec<ParamHeader> = Vec::new();
    let Some(Value::Object(properties)) = tool.input_schema.extra.get("properties") else {
        return Ok(found);
    };
    for (argument, schema) in properties {
        let Some(header) = schema.get("x-mcp-header") else {
            continue;
        };
        let Some(header) = header.as_str().filter(|h| valid_header_name(h)) else {
            return Err(format!(
                "argument `{argument}`: `x-mcp-header` must be a header name token, found {header}"
            ));
        };
        if !mcp_era_types::headers::mirrorable_type(schema) {
            return Err(format!(
                "argument `{argument}`: `x-mcp-header` applies only to string, integer or boolean arguments"
            ));
        }
        let header = header.to_ascii_lowercase();
        if found.iter().any(|p| p.header == header) {
            return Err(format!(
                "two arguments use the header name `Mcp-Param-{header}`"
            ));
        }
        found.push(ParamHeader {
            argument: argument.clone(),
            header,
        });
    }
    Ok(found)
}

/// Which requests see a tool. A hidden tool is callable by name but never
/// listed; a tool of one era is listed and called only by requests of that
/// era, and a call from the other answers exactly as an unknown tool does.
///
/// ```
/// use mcp_era_server::{Era, ToolVisibility};
///
/// let internal = ToolVisibility::HIDDEN;
/// let old_clients_only = ToolVisibility::LISTED.only(Era::Legacy);
/// # let _ = (internal, old_clients_only);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolVisibility {
    /// Listed by `tools/list`.
    pub listed: bool,
    /// The one era served (`None`: both).
    pub era: Option<Era>,
}

impl Default for ToolVisibility {
    fn default() -> Self {
        Self::LISTED
    }
}

impl ToolVisibility {
    /// Listed and called in both eras (the default).
    pub const LISTED: Self = Self {
        listed: true,
        era: None,
    };
    /// Called but never listed, in both eras.
    pub const HIDDEN: Self = Self {
        listed: false,
        era: None,
    };

    /// The same, for requests of `era` only.
    pub const fn only(self, era: Era) -> Self {
        Self {
            listed: self.listed,
            era: Some(era),
        }
    }

    /// Whether requests of `era` may call the tool.
    pub fn serves(&self, era: Era) -> bool {
        self.era.is_none_or(|only| only == era)
    }

    /// Whether `tools/list` shows the tool to requests of `era`.
    pub fn lists(&self, era: Era) -> bool {
        self.listed && self.serves(era)
    }
}

/// Whether a tool's `_meta.ui` (MCP Apps) makes it app-only, or why that
/// `_meta.ui` is wrong.
///
/// The spec has the host keep such a tool out of the agent's list. A
/// client that does not render Apps does not know that rule and would show
/// the tool to its model, so the server lists it only to clients that
/// declare the extension (modern: in the request's client capabilities;
/// legacy: in the session's). A call by name is served like a hidden
/// tool's: the server cannot tell an App's call from a model's, and the
/// spec puts the call checks on the host.
pub(super) fn app_only(tool: &Tool) -> Result<bool, String> {
    let Some(meta) = &tool.meta else {
        return Ok(false);
    };
    let ui = apps::McpUiToolMeta::from_meta(meta).map_err(|e| format!("_meta.ui: {e}"))?;
    let Some(ui) = ui else { return Ok(false) };
    if let Some(uri) = &ui.resource_uri {
        apps::check_ui_uri(uri).map_err(|e| format!("_meta.ui.resourceUri: {e}"))?;
    }
    if ui.visibility.as_ref().is_some_and(Vec::is_empty) {
        return Err(
            "_meta.ui.visibility is empty: neither the model nor an App could use the tool".into(),
        );
    }
    Ok(ui.app_only())
}
