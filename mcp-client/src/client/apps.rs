//! MCP Apps (`io.modelcontextprotocol/ui`) for a client: declaring the
//! extension, a tool's link to its App, and reading the App (its HTML and
//! `_meta.ui`), with the types of `mcp_era_types::ext::apps`.

use mcp_era_types::ext::apps::{self, McpUiClientCapabilities, McpUiResourceMeta, McpUiToolMeta};
use serde_json::{Map, Value, json};

use super::Client;
use super::options::ClientOptions;
use crate::error::{Error, Result};

impl ClientOptions {
    /// Declares the extension with `{"mimeTypes": ["text/html;profile=mcp-app"]}`
    /// (modern: in every request; legacy: in `initialize`): servers then
    /// list the tools only an App may call, which they keep from clients
    /// that render no Apps. Declare it only if you render Apps.
    pub fn declare_apps(&mut self) {
        self.capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(
                apps::EXTENSION_ID.to_owned(),
                McpUiClientCapabilities::html().to_object(),
            );
    }
}

/// A tool's link to its App, read from the tool's `_meta` (a modern or a
/// legacy `Tool`'s `meta`): `_meta.ui`, or the deprecated flat
/// `ui/resourceUri`. `Ok(None)` for a tool without one.
///
/// ```
/// use mcp_era_client::apps::tool_ui;
///
/// let meta = serde_json::json!({"ui": {"resourceUri": "ui://counter/app"}});
/// let ui = tool_ui(meta.as_object()).unwrap().unwrap();
/// assert_eq!(ui.resource_uri.as_deref(), Some("ui://counter/app"));
/// ```
pub fn tool_ui(meta: Option<&Map<String, Value>>) -> Result<Option<McpUiToolMeta>> {
    let Some(meta) = meta else { return Ok(None) };
    McpUiToolMeta::from_meta(meta).map_err(|e| Error::InvalidResult {
        method: "tools/list".into(),
        detail: format!("_meta.ui: {e}"),
    })
}

/// An App as `resources/read` answered it.
#[derive(Debug, Clone, PartialEq)]
pub struct App {
    /// Its `ui://` URI.
    pub uri: String,
    /// Its MIME type (`text/html;profile=mcp-app` for an HTML App).
    pub mime_type: String,
    /// The HTML (`text`, or `blob` decoded).
    pub html: String,
    /// The contents' `_meta.ui` (CSP, permissions, domain, border).
    pub ui: Option<McpUiResourceMeta>,
    /// What is wrong with `ui` ([`McpUiResourceMeta::problems`]): each CSP
    /// entry that is not an origin (`*`, `'unsafe-inline'`, `javascript:`,
    /// `https://a.example; script-src *`). A host never joins such an entry
    /// into a policy: it drops it or refuses the App.
    pub problems: Vec<String>,
}

impl Client {
    /// Reads the App at `uri` (a tool's `_meta.ui.resourceUri`): its one
    /// contents item must be HTML of the App MIME type, as the spec
    /// requires of a UI resource; anything else is an
    /// [`Error::InvalidResult`] saying what.
    pub async fn read_app(&self, uri: &str) -> Result<App> {
        let invalid = |detail: String| Error::InvalidResult {
            method: "resources/read".into(),
            detail,
        };
        apps::check_ui_uri(uri).map_err(invalid)?;
        let result = self.request("resources/read", json!({"uri": uri})).await?;
        let contents = match result.get("contents").and_then(Value::as_array) {
            Some(contents) => contents,
            None => {
                return Err(invalid(
                    "the answer has no `contents` (input required?)".into(),
                ));
            }
        };
        let [item] = contents.as_slice() else {
            return Err(invalid(format!(
                "an App has one contents item, not {}",
                contents.len()
            )));
        };
        let mime_type = item
            .get("mimeType")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if mime_type != apps::MIME_TYPE {
            return Err(invalid(format!(
                "`{uri}` has mimeType `{mime_type}`, not `{}`",
                apps::MIME_TYPE
            )));
        }
        let html = match (item.get("text"), item.get("blob")) {
            (Some(Value::String(text)), _) => text.clone(),
            (_, Some(Value::String(blob))) => {
                let bytes = mcp_era_types::headers::base64_decode(blob).map_err(invalid)?;
                String::from_utf8(bytes)
                    .map_err(|_| invalid("the App's blob is not UTF-8".into()))?
            }
            _ => return Err(invalid("the App has neither `text` nor `blob`".into())),
        };
        let ui = match item.get("_meta").and_then(Value::as_object) {
            Some(meta) => {
                McpUiResourceMeta::from_meta(meta).map_err(|e| invalid(format!("_meta.ui: {e}")))?
            }
            None => None,
        };
        let problems = ui
            .as_ref()
            .map(McpUiResourceMeta::problems)
            .unwrap_or_default();
        Ok(App {
            uri: uri.to_owned(),
            mime_type: mime_type.to_owned(),
            html,
            ui,
            problems,
        })
    }
}
