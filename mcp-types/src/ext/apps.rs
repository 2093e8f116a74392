//! MCP Apps (`io.modelcontextprotocol/ui`): the extension's names and the
//! `_meta.ui` objects of UI resources and of the tools that link to them.
//!
//! Written by hand from the extension's specification (SEP-1865, stable
//! 2026-01-26: `specification/2026-01-26/apps.mdx` in
//! `modelcontextprotocol/ext-apps`, and `src/spec.types.ts` there). Unknown
//! keys are kept (`extra`) and written back, like the generated types.
//!
//! ```
//! use mcp_era_types::ext::apps::{ToolUiMeta, Visibility};
//!
//! let meta = serde_json::json!({"ui": {"resourceUri": "ui://notes/app", "visibility": ["app"]}});
//! let ui = ToolUiMeta::from_meta(meta.as_object().unwrap()).unwrap().unwrap();
//! assert_eq!(ui.resource_uri.as_deref(), Some("ui://notes/app"));
//! assert!(ui.app_only() && !ui.visible_to(Visibility::Model));
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The extension identifier, the key in `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an HTML App (the only content type of the stable spec).
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The URI scheme every UI resource uses.
pub const URI_PREFIX: &str = "ui://";

/// The `_meta` key of a tool's and a resource's UI settings.
pub const META_KEY: &str = "ui";

/// The flat tool `_meta` key older hosts read instead of
/// `_meta.ui.resourceUri` (deprecated by the spec, still written by the
/// reference SDK's `registerAppTool`, and by this crate, for those hosts).
pub const LEGACY_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// A client's (host's) settings for the extension in
/// `capabilities.extensions["io.modelcontextprotocol/ui"]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientSettings {
    /// The UI content types the host renders (required by the spec; kept
    /// absent when a host left it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_types: Option<Vec<String>>,
    /// Keys this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ClientSettings {
    /// A host that renders HTML Apps: `{"mimeTypes": ["text/html;profile=mcp-app"]}`.
    pub fn html() -> Self {
        Self {
            mime_types: Some(vec![MIME_TYPE.to_owned()]),
            extra: Map::new(),
        }
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
            _ => Some(Self {
                mime_types: Some(Vec::new()),
                extra: Map::new(),
            }),
        }
    }

    /// Whether the host renders HTML Apps: `mimeTypes` lists
    /// [`MIME_TYPE`], or is absent (the only content type there is; a host
    /// that leaves the required list out is read leniently).
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
    ClientSettings::of(extensions).is_some_and(|s| s.renders_html())
}

/// Who may use a tool (`_meta.ui.visibility`; default both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// The agent sees and calls the tool.
    Model,
    /// The App of the same server connection calls the tool.
    App,
}

impl Visibility {
    /// The name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Model => "model",
            Self::App => "app",
        }
    }
}

/// A tool's `_meta.ui`: the App that shows its results and who may use it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUiMeta {
    /// The `ui://` resource that renders the tool's results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may use the tool (absent: `["model", "app"]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
    /// Keys this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolUiMeta {
    /// A link to the App at `resource_uri`, visible to both.
    pub fn linked(resource_uri: impl Into<String>) -> Self {
        Self {
            resource_uri: Some(resource_uri.into()),
            ..Self::default()
        }
    }

    /// The same with `visibility`.
    pub fn with_visibility(mut self, visibility: impl IntoIterator<Item = Visibility>) -> Self {
        self.visibility = Some(visibility.into_iter().collect());
        self
    }

    /// The UI settings in a tool's `_meta`: `_meta.ui`, its `resourceUri`
    /// taken from the deprecated flat `ui/resourceUri` when only that is
    /// given. `Ok(None)` when neither is there; `Err` when `_meta.ui` is
    /// not the documented shape.
    pub fn from_meta(meta: &Map<String, Value>) -> Result<Option<Self>, serde_json::Error> {
        let legacy = meta.get(LEGACY_RESOURCE_URI_KEY).and_then(Value::as_str);
        let mut ui = match meta.get(META_KEY) {
            Some(value) => serde_json::from_value::<Self>(value.clone())?,
            None if legacy.is_some() => Self::default(),
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

    /// Whether `who` may use the tool.
    pub fn visible_to(&self, who: Visibility) -> bool {
        self.visibility.as_ref().is_none_or(|v| v.contains(&who))
    }

    /// Only an App may call the tool: hosts keep it out of the agent's list.
    pub fn app_only(&self) -> bool {
        !self.visible_to(Visibility::Model)
    }
}

/// A permission request (`{}` on the wire).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requested {}

/// The external origins an App needs (`_meta.ui.csp`); hosts build the
/// iframe's Content Security Policy from them and allow nothing else.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceCsp {
    /// `connect-src`: fetch, XHR, WebSocket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_domains: Option<Vec<String>>,
    /// `script-src`, `style-src`, `img-src`, `font-src`, `media-src`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_domains: Option<Vec<String>>,
    /// `frame-src`: nested iframes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_domains: Option<Vec<String>>,
    /// `base-uri`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_uri_domains: Option<Vec<String>>,
    /// Keys this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ResourceCsp {
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

/// Browser features an App asks for (`_meta.ui.permissions`); hosts may
/// grant them through the iframe's `allow` attribute.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Permissions {
    /// `camera`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<Requested>,
    /// `microphone`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microphone: Option<Requested>,
    /// `geolocation`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<Requested>,
    /// `clipboard-write`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard_write: Option<Requested>,
    /// Keys this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A UI resource's `_meta.ui`, on its `resources/list` entry and on the
/// contents `resources/read` answers (where hosts read it first).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceUiMeta {
    /// The origins the App needs (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<ResourceCsp>,
    /// Browser features the App asks for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Permissions>,
    /// A dedicated sandbox origin; its format is each host's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the host draws a border and background (absent: host's choice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
    /// Keys this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ResourceUiMeta {
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

/// `Ok` for a UI resource URI: `ui://` and something after it, without
/// whitespace.
pub fn check_ui_uri(uri: &str) -> Result<(), String> {
    match uri.strip_prefix(URI_PREFIX) {
        None => Err(format!(
            "`{uri}` is not a UI resource URI: it must start with `ui://`"
        )),
        Some("") => Err(format!("`{uri}` names no resource after `ui://`")),
        Some(rest) if rest.chars().any(char::is_whitespace) => {
            Err(format!("`{uri}` contains whitespace"))
        }
        Some(_) => Ok(()),
    }
}

/// `Ok` for a CSP source the spec's domain lists take: an origin
/// `scheme://host[:port]` with scheme `https`, `http`, `wss` or `ws`, the
/// host a DNS name (optionally `*.` for subdomains), `localhost` or an IPv4
/// address, and the port digits or `*`. Anything else (a path, a keyword,
/// whitespace, `;`) would widen or break the host's policy.
pub fn check_origin(origin: &str) -> Result<(), String> {
    let bad = |why: &str| Err(format!("`{origin}` is not an origin: {why}"));
    let Some((scheme, rest)) = origin.split_once("://") else {
        return bad("write `https://host` (a scheme, `://`, a host)");
    };
    if !matches!(scheme, "https" | "http" | "wss" | "ws") {
        return bad("the scheme must be https, http, wss or ws");
    }
    if rest.contains(['/', '?', '#']) {
        return bad("an origin has no path, query or fragment");
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (rest, None),
    };
    if let Some(port) = port
        && port != "*"
        && !(!port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit()))
    {
        return bad("the port must be digits or `*`");
    }
    let name = host.strip_prefix("*.").unwrap_or(host);
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    if name.is_empty() || !name.split('.').all(label_ok) {
        return bad(
            "the host must be a DNS name (`*.` allowed in front), `localhost` or an IPv4 address",
        );
    }
    Ok(())
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
        let ui = ResourceUiMeta::from_meta(map)
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
        let ui = ToolUiMeta::from_meta(legacy.as_object().expect("object"))
            .expect("parses")
            .expect("present");
        assert_eq!(ui.resource_uri.as_deref(), Some("ui://a/b"));
        assert!(ui.visible_to(Visibility::Model) && ui.visible_to(Visibility::App));
        let mut out = Map::new();
        ToolUiMeta::linked("ui://a/b")
            .with_visibility([Visibility::App])
            .write_to(&mut out);
        assert_eq!(
            Value::Object(out),
            json!({"ui": {"resourceUri": "ui://a/b", "visibility": ["app"]}, "ui/resourceUri": "ui://a/b"})
        );
        let bad = json!({"ui": {"visibility": ["agent"]}});
        assert!(ToolUiMeta::from_meta(bad.as_object().expect("object")).is_err());
    }

    #[test]
    fn origins() {
        for ok in [
            "https://api.example.com",
            "wss://realtime.service.com",
            "https://*.cloudflare.com",
            "http://localhost:8080",
            "http://127.0.0.1:*",
        ] {
            assert_eq!(check_origin(ok), Ok(()), "{ok}");
        }
        for bad in [
            "api.example.com",
            "https://",
            "https://a.com/path",
            "ftp://a.com",
            "https://a.com; script-src *",
            "'self'",
            "https://*",
            "https://a..com",
            "https://a.com:x",
        ] {
            assert!(check_origin(bad).is_err(), "{bad}");
        }
        assert!(check_ui_uri("ui://notes/app").is_ok());
        assert!(check_ui_uri("https://x").is_err() && check_ui_uri("ui://").is_err());
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
        extensions.insert(EXTENSION_ID.to_owned(), ClientSettings::html().to_object());
        assert!(client_renders_apps(Some(&extensions)));
        // A malformed declaration renders nothing (fail closed).
        for malformed in [json!("text/plain"), json!([1, 2]), json!(null), json!({})] {
            let settings = json!({"mimeTypes": malformed});
            let settings = settings.as_object().cloned().expect("object");
            extensions.insert(EXTENSION_ID.to_owned(), settings);
            assert!(!client_renders_apps(Some(&extensions)), "{malformed}");
        }
    }
}
