//! Validation of the parsed attributes: versions against the known and the
//! implemented lists of `mcp-versions`, extension identifiers, caching
//! hints, cross-key rules.

use mcp_era_versions::{
    Era, IMPLEMENTED_LEGACY_VERSIONS, IMPLEMENTED_MODERN_VERSIONS, KNOWN_VERSIONS,
};
use syn::{Expr, Lit, LitStr};

use super::attr::Attrs;
use super::ctxt::Ctxt;
use super::meta_key::extension_id_error;

/// The largest `ttl_ms`: 2^53 - 1, the largest integer every JSON client
/// (JavaScript included) reads exactly.
pub const MAX_TTL_MS: u64 = (1 << 53) - 1;

/// The validated values the expansion needs besides the attributes.
pub struct Checked {
    /// Modern versions served, newest first.
    pub modern: Vec<&'static str>,
    /// Legacy versions served, newest first.
    pub legacy: Vec<&'static str>,
    /// `discover(ttl_ms)`, if given.
    pub ttl_ms: Option<u64>,
    /// `discover(scope)`: `Some(true)` for public.
    pub scope_public: Option<bool>,
    /// `cache(ttl_ms)`, if given.
    pub cache_ttl_ms: Option<u64>,
    /// `cache(scope)`: `Some(true)` for public.
    pub cache_scope_public: Option<bool>,
}

/// Checks one version list; returns the known versions of the right era,
/// newest first.
fn check_versions(cx: &mut Ctxt, list: &[LitStr], want: Era) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for lit in list {
        let value = lit.value();
        let version = match mcp_era_versions::servable(&value, want) {
            Ok(version) => version,
            Err(rejection) => {
                cx.error_spanned_by(lit, rejection.to_string());
                continue;
            }
        };
        if out.contains(&version) {
            let duplicate = mcp_era_versions::VersionRejection::Duplicate(value);
            cx.error_spanned_by(lit, duplicate.to_string());
            continue;
        }
        out.push(version);
    }
    out.sort_by_key(|v| KNOWN_VERSIONS.iter().position(|k| k.version == *v));
    out
}

/// Runs every check, recording errors in `cx`.
pub fn check(cx: &mut Ctxt, attrs: &Attrs) -> Checked {
    let modern = match &attrs.modern {
        Some((span, list)) => {
            let checked = check_versions(cx, list, Era::Modern);
            if attrs.modern_written_empty {
                cx.syn_error(syn::Error::new(
                    *span,
                    "`versions(modern = [])` is empty; a server must serve at least one modern version",
                ));
            }
            checked
        }
        None => IMPLEMENTED_MODERN_VERSIONS.to_vec(),
    };
    // Dual-era unless the server opts out with `legacy = []`: most clients
    // in use still speak only the legacy era.
    let legacy = match &attrs.legacy {
        Some((_, list)) => check_versions(cx, list, Era::Legacy),
        None => IMPLEMENTED_LEGACY_VERSIONS.to_vec(),
    };

    let ttl_ms = attrs.ttl_ms.as_ref().and_then(|expr| checked_ttl(cx, expr));
    let scope_public = attrs
        .scope
        .as_ref()
        .and_then(|scope| checked_scope(cx, scope));
    let cache_ttl_ms = attrs
        .cache_ttl_ms
        .as_ref()
        .and_then(|expr| checked_ttl(cx, expr));
    let cache_scope_public = attrs
        .cache_scope
        .as_ref()
        .and_then(|scope| checked_scope(cx, scope));

    for entry in &attrs.extensions {
        if let Some(message) = extension_id_error(&entry.id.value()) {
            cx.error_spanned_by(&entry.id, message);
        }
    }
    for entry in &attrs.experimental {
        if entry.id.value().is_empty() {
            cx.error_spanned_by(
                &entry.id,
                "an experimental capability name must not be empty",
            );
        }
    }

    if let (Some(_), Some(file)) = (&attrs.instructions, &attrs.instructions_file) {
        cx.error_spanned_by(
            file,
            "`instructions` and `instructions_file` are mutually exclusive",
        );
    }

    for icon in &attrs.icons {
        check_icon(cx, icon);
    }
    let capabilities = [
        &attrs.tools,
        &attrs.resources,
        &attrs.prompts,
        &attrs.completions,
    ];
    for scopes in capabilities
        .into_iter()
        .flatten()
        .filter_map(|c| c.scopes.as_ref())
        .chain(&attrs.scopes)
    {
        check_scopes(cx, scopes);
    }
    Checked {
        modern,
        legacy,
        ttl_ms,
        scope_public,
        cache_ttl_ms,
        cache_scope_public,
    }
}

pub fn checked_ttl(cx: &mut Ctxt, expr: &Expr) -> Option<u64> {
    match check_ttl(expr) {
        Ok(ttl) => Some(ttl),
        Err(message) => {
            cx.error_spanned_by(expr, message);
            None
        }
    }
}

pub fn checked_scope(cx: &mut Ctxt, scope: &LitStr) -> Option<bool> {
    match scope.value().as_str() {
        "public" => Some(true),
        "private" => Some(false),
        other => {
            cx.error_spanned_by(
                scope,
                format!("unknown cache scope `{other}`; expected `public` or `private`"),
            );
            None
        }
    }
}

/// `ttl_ms`: an integer literal in `0..=MAX_TTL_MS`.
fn check_ttl(expr: &Expr) -> Result<u64, String> {
    let overflow = || {
        format!(
            "`ttl_ms` overflows: it must be at most {MAX_TTL_MS} \
             (2^53 - 1, the largest integer every JSON client reads exactly)"
        )
    };
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(int), ..
        }) => match int.base10_parse::<u64>() {
            Ok(v) if v <= MAX_TTL_MS => Ok(v),
            _ => Err(overflow()),
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            Err("`ttl_ms` must not be negative: ttlMs is an integer >= 0 (milliseconds)".to_owned())
        }
        _ => Err("`ttl_ms` must be an integer literal (milliseconds)".to_owned()),
    }
}

/// An icon needs `src`; `theme` is `light` or `dark`.
pub fn check_icon(cx: &mut Ctxt, icon: &super::attr::Icon) {
    if icon.src.is_none() {
        cx.syn_error(syn::Error::new(
            icon.span,
            "`icon(...)` needs `src = \"...\"`",
        ));
    }
    if let Some(theme) = &icon.theme
        && !matches!(theme.value().as_str(), "light" | "dark")
    {
        cx.error_spanned_by(
            theme,
            format!(
                "unknown icon theme `{}`; expected `light` or `dark`",
                theme.value()
            ),
        );
    }
}

/// Each scope is an RFC 6749 §3.3 `scope-token` (printable ASCII without
/// space, `"` or `\`: scopes travel space-separated in a quoted
/// `WWW-Authenticate` parameter), listed once.
pub fn check_scopes(cx: &mut Ctxt, scopes: &super::attr::Scopes) {
    let mut seen: Vec<String> = Vec::new();
    for lit in &scopes.list {
        let scope = lit.value();
        let token = scope
            .bytes()
            .all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E));
        if scope.is_empty() {
            cx.error_spanned_by(lit, "an OAuth scope must not be empty");
        } else if !token {
            cx.error_spanned_by(
                lit,
                format!(
                    "`{}` is not an OAuth scope: a scope is one or more printable ASCII characters without spaces, `\"` or `\\` (RFC 6749 §3.3)",
                    scope.escape_debug()
                ),
            );
        } else if seen.contains(&scope) {
            cx.error_spanned_by(lit, format!("duplicate scope `{scope}`"));
        } else {
            seen.push(scope);
        }
    }
}
