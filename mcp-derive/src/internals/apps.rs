//! MCP Apps (`io.modelcontextprotocol/ui`) at compile time: the names the
//! derive writes and the checks of `ui://` URIs and CSP origins. The same
//! rules run again at start (`mcp_era_types::ext::apps::{check_ui_uri,
//! check_origin}`), for catalogues built without the macro; the test in
//! `tests.rs` keeps the two in step.

/// The extension identifier.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an HTML App.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";
/// The flat tool `_meta` key older hosts read.
pub const LEGACY_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// `#[resource(csp(...))]` keys and their `_meta.ui.csp` names.
pub const CSP_KEYS: &[(&str, &str)] = &[
    ("connect_domains", "connectDomains"),
    ("resource_domains", "resourceDomains"),
    ("frame_domains", "frameDomains"),
    ("base_uri_domains", "baseUriDomains"),
];
/// `#[resource(permissions(...))]` keys and their `_meta.ui.permissions` names.
pub const PERMISSION_KEYS: &[(&str, &str)] = &[
    ("camera", "camera"),
    ("microphone", "microphone"),
    ("geolocation", "geolocation"),
    ("clipboard_write", "clipboardWrite"),
];
/// The values of `#[tool(visibility = [...])]`.
pub const VISIBILITIES: &[&str] = &["model", "app"];

/// `Ok` for `ui://` and something after it, without whitespace.
pub fn check_ui_uri(uri: &str) -> Result<(), String> {
    match uri.strip_prefix("ui://") {
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

/// `Ok` for `scheme://host[:port]`: scheme https, http, wss or ws; host a
/// DNS name (`*.` allowed in front), `localhost` or IPv4; port digits or
/// `*`; no path.
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
