//! MCP Apps (`io.modelcontextprotocol/ui`): the names its messages and
//! `_meta` use, and the checks of `ui://` resource URIs and of the CSP
//! origins an App lists.
//!
//! One copy for the compile-time checks of `#[derive(McpServer)]` and
//! `#[router]` and the run-time ones of `mcp_era_types::ext::apps` (for
//! catalogues built without the macros). No dependencies, so a proc-macro
//! crate can use it.
//!
//! ```
//! use mcp_era_apps_rules::{check_origin, check_ui_uri};
//!
//! assert!(check_ui_uri("ui://notes/app").is_ok());
//! assert!(check_origin("https://*.example.com").is_ok());
//! assert!(check_origin("https://a.com; script-src *").is_err());
//! ```

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
/// reference SDK's `registerAppTool`, and by this toolkit, for those hosts).
pub const LEGACY_RESOURCE_URI_KEY: &str = "ui/resourceUri";

/// `_meta.ui.csp` keys: the Rust name (`#[resource(csp(...))]`) and the
/// wire name of each.
pub const CSP_KEYS: &[(&str, &str)] = &[
    ("connect_domains", "connectDomains"),
    ("resource_domains", "resourceDomains"),
    ("frame_domains", "frameDomains"),
    ("base_uri_domains", "baseUriDomains"),
];

/// `_meta.ui.permissions` keys: the Rust name
/// (`#[resource(permissions(...))]`) and the wire name of each.
pub const PERMISSION_KEYS: &[(&str, &str)] = &[
    ("camera", "camera"),
    ("microphone", "microphone"),
    ("geolocation", "geolocation"),
    ("clipboard_write", "clipboardWrite"),
];

/// The values of `_meta.ui.visibility` (`#[tool(visibility = [...])]`).
pub const VISIBILITIES: &[&str] = &["model", "app"];

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

    #[test]
    fn origins() {
        for ok in [
            "https://api.example.com",
            "wss://realtime.service.com",
            "https://*.cloudflare.com",
            "http://localhost:8080",
            "http://127.0.0.1:*",
            "wss://realtime.example.com:8443",
            "http://127.0.0.1",
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
            "https://-a.com",
            "https://a.com:",
            "https://a.com:123456",
        ] {
            assert!(check_origin(bad).is_err(), "{bad}");
        }
        assert!(check_ui_uri("ui://notes/app").is_ok());
        assert!(check_ui_uri("https://x").is_err() && check_ui_uri("ui://").is_err());
        assert!(check_ui_uri("ui://a b").is_err());
    }
}
