//! The `x-mcp-header` annotations of the backend's tools, learned from the
//! `tools/list` pages that pass through the gateway, so that the front's
//! check of a call's `Mcp-Param-*` headers does not list the backend's
//! tools again on every call (a legacy backend's list may not be cached by
//! clients, but its annotations change only with a `list_changed`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use mcp_era_server::ParamHeader;
use serde_json::Value;

/// How long learned annotations are trusted without a `list_changed`.
const TRUSTED_FOR: Duration = Duration::from_secs(60);

/// The annotations of every tool seen since the last first page, or none.
#[derive(Clone, Default)]
pub(crate) struct ToolHeaders(Arc<Mutex<Option<Learned>>>);

/// When the first page was seen, and each tool's annotations.
type Learned = (Instant, HashMap<String, Vec<ParamHeader>>);

impl ToolHeaders {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Learned>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Learns the tools of a `tools/list` `result`, a first page (which
    /// starts over) or a later one.
    pub(crate) fn learn(&self, first_page: bool, result: &Value) {
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        let mut table = self.lock();
        if first_page || table.is_none() {
            *table = Some((Instant::now(), HashMap::new()));
        }
        let Some((_, known)) = table.as_mut() else {
            return;
        };
        for tool in tools {
            if let Some(name) = tool.get("name").and_then(Value::as_str) {
                known.insert(name.to_owned(), headers_of(tool));
            }
        }
    }

    /// Tool `name`'s annotations, if it was seen lately.
    pub(crate) fn get(&self, name: &str) -> Option<Vec<ParamHeader>> {
        match &*self.lock() {
            Some((since, known)) if since.elapsed() < TRUSTED_FOR => known.get(name).cloned(),
            _ => None,
        }
    }

    /// Forgets them all (the backend's tools changed).
    pub(crate) fn forget(&self) {
        *self.lock() = None;
    }
}

/// The `x-mcp-header` annotations of one tool's input properties.
fn headers_of(tool: &Value) -> Vec<ParamHeader> {
    let Some(properties) = tool
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    properties
        .iter()
        .filter_map(|(argument, schema)| {
            let header = schema.get("x-mcp-header")?.as_str()?;
            Some(ParamHeader {
                argument: argument.clone(),
                header: header.to_ascii_lowercase(),
            })
        })
        .collect()
}
