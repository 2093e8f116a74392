//! MCP Apps (`io.modelcontextprotocol/ui`): the extension's types, its
//! names, and the behaviour around `_meta.ui`.
//!
//! Every `McpUi*` type is generated from the extension's official schema
//! (npm `@modelcontextprotocol/ext-apps` 2.0.4, `dist/src/generated/schema.json`,
//! pinned in `schema/manifest.toml`), with the same guarantees as the core
//! modules (exact JSON round trip, consts checked, unknown keys kept in
//! `extra` and written back): the `_meta.ui` of tools ([`McpUiToolMeta`])
//! and UI resources ([`McpUiResourceMeta`], [`McpUiResourceCsp`],
//! [`McpUiResourcePermissions`]), the host's declaration
//! ([`McpUiClientCapabilities`]), and the host↔App messages a Rust host
//! speaks ([`McpUiInitializeRequest`], [`McpUiToolResultNotification`], …).
//! The schema copies the core types it uses (a content block, a tool)
//! inline, each a little different from the core's, so they are generated
//! here under their place's name. The names and the URI and origin checks
//! are `mcp_era_apps_rules`'s, the one copy the derive shares; this file
//! adds only behaviour.
//!
//! ```
//! use mcp_era_types::ext::apps::{McpUiToolMeta, McpUiToolVisibility};
//!
//! let meta = serde_json::json!({"ui": {"resourceUri": "ui://notes/app", "visibility": ["app"]}});
//! let ui = McpUiToolMeta::from_meta(meta.as_object().unwrap()).unwrap().unwrap();
//! assert_eq!(ui.resource_uri.as_deref(), Some("ui://notes/app"));
//! assert!(ui.app_only() && !ui.visible_to(McpUiToolVisibility::Model));
//! ```

use std::collections::BTreeMap;

use serde_json::{Map, Value};

pub use crate::generated::ext_apps::*;
pub use mcp_era_apps_rules::{
    CSP_KEYS, EXTENSION_ID, LEGACY_RESOURCE_URI_KEY, META_KEY, MIME_TYPE, PERMISSION_KEYS,
    URI_PREFIX, VISIBILITIES, check_origin, check_ui_uri,
};

/// The former name of [`McpUiClientCapabilities`].
#[deprecated(
    since = "0.2.0",
    note = "use `McpUiClientCapabilities`, generated from the schema"
)]
pub type ClientSettings = McpUiClientCapabilities;
/// The former name of [`McpUiToolVisibility`].
#[deprecated(
    since = "0.2.0",
    note = "use `McpUiToolVisibility`, generated from the schema"
)]
pub type Visibility = McpUiToolVisibility;
/// The former name of [`McpUiToolMeta`].
#[deprecated(
    since = "0.2.0",
    note = "use `McpUiToolMeta`, generated from the schema"
)]
pub type ToolUiMeta = McpUiToolMeta;
/// The former name of [`McpUiResourceMeta`].
#[deprecated(
    since = "0.2.0",
    note = "use `McpUiResourceMeta`, generated from the schema"
)]
pub type ResourceUiMeta = McpUiResourceMeta;
/// The former name of [`McpUiResourceCsp`].
#[deprecated(
    since = "0.2.0",
    note = "use `McpUiResourceCsp`, generated from the schema"
)]
pub type ResourceCsp = McpUiResourceCsp;
/// The former name of [`McpUiResourcePermissions`].
#[deprecated(
    since = "0.2.0",
    note = "use `McpUiResourcePermissions`, generated from the schema"
)]
pub type Permissions = McpUiResourcePermissions;

impl McpUiClientCapabilities {
    /// A host that renders HTML Apps: `{"mimeTypes": ["text/html;profile=mcp-app"]}`.
    pub fn html() -> Self {
        Self::new().with_mime_types(vec![MIME_TYPE.to_owned()])
    }

    /// The settings as the JSON object a capabilities map holds.
    pub fn to_object(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        }
    }

    /// The client's settings, if its `capabilities.extensions` declares the
    /// extension. A malformed `mimeTypes` (not a list of strings, or
    /// `null`) counts as an empty list: the host renders nothing, so
    /// app-only tools stay hidden from it.
    pub fn of(extensions: Option<&BTreeMap<String, Map<String, Value>>>) -> Option<Self> {
        let settings = extensions?.get(EXTENSION_ID)?;
        let parsed = serde_json::from_value::<Self>(Value::Object(settings.clone()));
        match parsed {
            Ok(parsed) if !matches!(settings.get("mimeTypes"), Some(Value::Null)) => Some(parsed),
            _ => Some(Self::new().with_mime_types(Vec::new())),
        }
    }

    /// Whether the host renders HTML Apps: `mimeTypes` lists
    /// [`MIME_TYPE`], or is absent (the only content type there is; a host
    /// that leaves the list out is read leniently).
    pub fn renders_html(&self) -> bool {
        self.mime_types
            .as_ref()
            .is_none_or(|types| types.iter().any(|m| m == MIME_TYPE))
    }
}

/// Whether a client whose `capabilities.extensions` is `extensions` renders
/// HTML Apps: it declares the extension and does not leave [`MIME_TYPE`]
/// out of its `mimeTypes`.
pub fn client_renders_apps(extensions: Option<&BTreeMap<String, Map<String, Value>>>) -> bool {
    McpUiClientCapabilities::of(extensions).is_some_and(|s| s.renders_html())
}

impl McpUiToolVisibility {
    /// The name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Model => "model",
            Self::App => "app",
        }
    }
}

impl McpUiToolMeta {
    /// The UI settings in a tool's `_meta`: `_meta.ui`, its `resourceUri`
    /// taken from the deprecated flat `ui/resourceUri` when only that is
    /// given. `Ok(None)` when neither is there; `Err` when `_meta.ui` is
    /// not the documented shape.
    pub fn from_meta(meta: &Map<String, Value>) -> Result<Option<Self>, serde_json::Error> {
        let legacy = meta.get(LEGACY_RESOURCE_URI_KEY).and_then(Value::as_str);
        let mut ui = match meta.get(META_KEY) {
            Some(value) => serde_json::from_value::<Self>(value.clone())?,
            None if legacy.is_some() => Self::new(),
            None => return Ok(None),
        };
        if ui.resource_uri.is_none() {
            ui.resource_uri = legacy.map(str::to_owned);
        }
        Ok(Some(ui))
    }

    /// Writes `_meta.ui` and, for older hosts, the flat `ui/resourceUri`.
    pub fn write_to(&self, meta: &mut Map<String, Value>) {
        if let Ok(value) = serde_json::to_value(self) {
            meta.insert(META_KEY.to_owned(), value);
        }
        if let Some(uri) = &self.resource_uri {
            meta.insert(
                LEGACY_RESOURCE_URI_KEY.to_owned(),
                Value::String(uri.clone()),
            );
        }
    }

    /// Whether `who` may use the tool (absent visibility: both).
    pub fn visible_to(&self, who: McpUiToolVisibility) -> bool {
        self.visibility.as_ref().is_none_or(|v| v.contains(&who))
    }

    /// Only an App may call the tool: hosts keep it out of the agent's list.
    pub fn app_only(&self) -> bool {
        !self.visible_to(McpUiToolVisibility::Model)
    }
}

impl McpUiResourceCsp {
    /// Every domain with the key it is listed under.
    pub fn domains(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            ("connectDomains", &self.connect_domains),
            ("resourceDomains", &self.resource_domains),
            ("frameDomains", &self.frame_domains),
            ("baseUriDomains", &self.base_uri_domains),
        ]
        .into_iter()
        .flat_map(|(key, list)| list.iter().flatten().map(move |d| (key, d.as_str())))
    }
}

impl McpUiResourceMeta {
    /// `_meta.ui` of a resource or of its contents; `Ok(None)` when absent.
    pub fn from_meta(meta: &Map<String, Value>) -> Result<Option<Self>, serde_json::Error> {
        meta.get(META_KEY)
            .map(|value| serde_json::from_value(value.clone()))
            .transpose()
    }

    /// Writes `_meta.ui`.
    pub fn write_to(&self, meta: &mut Map<String, Value>) {
        if let Ok(value) = serde_json::to_value(self) {
            meta.insert(META_KEY.to_owned(), value);
        }
    }

    /// What is wrong: each CSP entry that is not an origin.
    pub fn problems(&self) -> Vec<String> {
        let Some(csp) = &self.csp else {
            return Vec::new();
        };
        csp.domains()
            .filter_map(|(key, domain)| {
                check_origin(domain)
                    .err()
                    .map(|e| format!("csp.{key}: {e}"))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resource_meta_round_trips_the_spec_example() {
        let meta = json!({"ui": {
            "csp": {"connectDomains": ["https://api.openweathermap.org"],
                    "resourceDomains": ["https://cdn.jsdelivr.net"]},
            "permissions": {"clipboardWrite": {}},
            "domain": "a904794854a047f6.claudemcpcontent.com",
            "prefersBorder": true,
            "future": 1
        }});
        let map = meta.as_object().expect("object");
        let ui = McpUiResourceMeta::from_meta(map)
            .expect("parses")
            .expect("present");
        assert_eq!(ui.prefers_border, Some(true));
        assert!(
            ui.permissions
                .as_ref()
                .is_some_and(|p| p.clipboard_write.is_some())
        );
        assert!(ui.problems().is_empty());
        let mut out = Map::new();
        ui.write_to(&mut out);
        assert_eq!(Value::Object(out), meta);
    }

    #[test]
    fn tool_meta_reads_the_flat_key_and_writes_both() {
        let legacy = json!({"ui/resourceUri": "ui://a/b"});
        let ui = McpUiToolMeta::from_meta(legacy.as_object().expect("object"))
            .expect("parses")
            .expect("present");
        assert_eq!(ui.resource_uri.as_deref(), Some("ui://a/b"));
        assert!(
            ui.visible_to(McpUiToolVisibility::Model) && ui.visible_to(McpUiToolVisibility::App)
        );
        let mut out = Map::new();
        McpUiToolMeta::new()
            .with_resource_uri("ui://a/b")
            .with_visibility([McpUiToolVisibility::App])
            .write_to(&mut out);
        assert_eq!(
            Value::Object(out),
            json!({"ui": {"resourceUri": "ui://a/b", "visibility": ["app"]}, "ui/resourceUri": "ui://a/b"})
        );
        let bad = json!({"ui": {"visibility": ["agent"]}});
        assert!(McpUiToolMeta::from_meta(bad.as_object().expect("object")).is_err());
    }

    #[test]
    fn clients_that_render_apps() {
        let mut extensions = BTreeMap::new();
        assert!(!client_renders_apps(Some(&extensions)));
        extensions.insert(EXTENSION_ID.to_owned(), Map::new());
        assert!(client_renders_apps(Some(&extensions)), "read leniently");
        let other = json!({"mimeTypes": ["text/uri-list"]});
        let other = other.as_object().cloned().expect("object");
        extensions.insert(EXTENSION_ID.to_owned(), other);
        assert!(!client_renders_apps(Some(&extensions)));
        extensions.insert(
            EXTENSION_ID.to_owned(),
            McpUiClientCapabilities::html().to_object(),
        );
        assert!(client_renders_apps(Some(&extensions)));
        // A malformed declaration renders nothing (fail closed).
        for malformed in [json!("text/plain"), json!([1, 2]), json!(null), json!({})] {
            let settings = json!({"mimeTypes": malformed});
            let settings = settings.as_object().cloned().expect("object");
            extensions.insert(EXTENSION_ID.to_owned(), settings);
            assert!(!client_renders_apps(Some(&extensions)), "{malformed}");
        }
    }

    /// The rules crate's names (which the derive writes at compile time)
    /// are the schema's.
    #[test]
    fn the_shared_names_are_the_schemas() {
        assert_eq!(EXTENSION, EXTENSION_ID);
        let wire = |value: Value| -> Vec<String> {
            let keys = value.as_object().map(|o| o.keys().cloned().collect());
            let mut keys: Vec<String> = keys.unwrap_or_default();
            keys.sort();
            keys
        };
        let sorted = |keys: &[(&str, &str)]| -> Vec<String> {
            let mut names: Vec<String> = keys.iter().map(|(_, w)| (*w).to_owned()).collect();
            names.sort();
            names
        };
        // Every field set: a key the schema adds breaks this literal.
        let csp = McpUiResourceCsp {
            connect_domains: Some(Vec::new()),
            resource_domains: Some(Vec::new()),
            frame_domains: Some(Vec::new()),
            base_uri_domains: Some(Vec::new()),
            extra: Map::new(),
        };
        let csp = serde_json::to_value(csp).expect("serializes");
        assert_eq!(wire(csp), sorted(CSP_KEYS));
        let permissions = McpUiResourcePermissions {
            camera: Some(Map::new()),
            microphone: Some(Map::new()),
            geolocation: Some(Map::new()),
            clipboard_write: Some(Map::new()),
            extra: Map::new(),
        };
        let permissions = serde_json::to_value(permissions).expect("serializes");
        assert_eq!(wire(permissions), sorted(PERMISSION_KEYS));
        let visibilities = [McpUiToolVisibility::Model, McpUiToolVisibility::App];
        let names: Vec<&str> = visibilities.iter().map(|v| v.as_str()).collect();
        assert_eq!(names, VISIBILITIES);
        for v in visibilities {
            assert_eq!(
                serde_json::to_value(v).expect("serializes"),
                json!(v.as_str())
            );
        }
    }
}
