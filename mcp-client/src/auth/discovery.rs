//! Finding the authorization server: the `Bearer`/`DPoP` challenges' parameters,
//! the protected resource metadata (RFC 9728) and the authorization server
//! metadata (RFC 8414, then OpenID discovery), each checked against what
//! it must describe.

use hyper::Method;
use hyper::body::Bytes;
use oauth2::url::Url;
use serde_json::Value;

use super::error::{AuthError, fail};
use super::oauth::OAuth;

/// The parameters of the `Bearer` and `DPoP` challenges of a
/// `WWW-Authenticate` value (the first value of each parameter wins).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Challenge {
    /// `resource_metadata`.
    pub resource_metadata: Option<String>,
    /// `scope`.
    pub scope: Option<String>,
    /// `error`.
    pub error: Option<String>,
    /// Whether there is a `DPoP` challenge (RFC 9449 §7.1).
    pub dpop: bool,
    /// The `DPoP` challenge's `algs`: the proof algorithms the resource accepts.
    pub algs: Option<String>,
}

/// Reads the `Bearer` and `DPoP` challenges of a `WWW-Authenticate` value
/// (RFC 9110 §11.6.1: comma-separated challenges, each a scheme and its
/// parameters). Parameters before any scheme count as `Bearer`'s; those
/// of other schemes are ignored.
pub fn parse_challenge(header: &str) -> Challenge {
    let mut c = Challenge::default();
    let chars: Vec<char> = header.chars().collect();
    let mut i = 0;
    let mut scheme = String::from("bearer");
    let skip = |i: &mut usize, also_commas: bool| {
        while *i < chars.len() && (chars[*i].is_whitespace() || (also_commas && chars[*i] == ',')) {
            *i += 1;
        }
    };
    loop {
        skip(&mut i, true);
        let start = i;
        while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '=' && chars[i] != ',' {
            i += 1;
        }
        if i == start {
            break;
        }
        let name: String = chars[start..i].iter().collect();
        skip(&mut i, false);
        if chars.get(i) != Some(&'=') {
            // A token not followed by `=` starts a new challenge.
            scheme = name.to_ascii_lowercase();
            if scheme == "dpop" {
                c.dpop = true;
            }
            continue;
        }
        i += 1;
        skip(&mut i, false);
        let value = if chars.get(i) == Some(&'"') {
            i += 1;
            let mut v = String::new();
            while let Some(&ch) = chars.get(i) {
                i += 1;
                match ch {
                    '\\' => {
                        v.extend(chars.get(i));
                        i += 1;
                    }
                    '"' => break,
                    other => v.push(other),
                }
            }
            v
        } else {
            let start = i;
            while i < chars.len() && chars[i] != ',' {
                i += 1;
            }
            chars[start..i].iter().collect::<String>().trim().to_owned()
        };
        if scheme != "bearer" && scheme != "dpop" {
            continue;
        }
        let slot = match name.as_str() {
            "resource_metadata" => &mut c.resource_metadata,
            "scope" => &mut c.scope,
            "error" => &mut c.error,
            "algs" if scheme == "dpop" => &mut c.algs,
            _ => continue,
        };
        slot.get_or_insert(value);
    }
    c
}

/// `{origin}/.well-known/{name}{path}` (path without a trailing `/`).
fn well_known(url: &Url, name: &str, path: &str) -> String {
    format!(
        "{}/.well-known/{name}{}",
        url.origin().ascii_serialization(),
        path.trim_end_matches('/')
    )
}

impl OAuth {
    async fn get_json(&self, url: &str) -> Result<Option<Value>, AuthError> {
        let response = self
            .http
            .send(
                Method::GET,
                url,
                vec![("accept", "application/json".into())],
                Bytes::new(),
            )
            .await?;
        if !response.status().is_success() {
            return Ok(None);
        }
        Ok(serde_json::from_slice(response.body()).ok())
    }

    /// Finds and checks the protected resource metadata.
    pub(super) async fn protected_resource(
        &self,
        challenge: &Challenge,
    ) -> Result<Value, AuthError> {
        let mut candidates = Vec::new();
        if let Some(url) = &challenge.resource_metadata {
            candidates.push(url.clone());
        } else {
            let path = self.mcp_url.path();
            if path != "/" && !path.is_empty() {
                candidates.push(well_known(&self.mcp_url, "oauth-protected-resource", path));
            }
            candidates.push(well_known(&self.mcp_url, "oauth-protected-resource", ""));
        }
        for url in candidates {
            let Some(prm) = self.get_json(&url).await? else {
                continue;
            };
            let resource = prm
                .get("resource")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if !resource_covers(resource, &self.mcp_url) {
                return fail(format!(
                    "the protected resource metadata is for `{resource}`, not `{}`",
                    self.mcp_url
                ));
            }
            return Ok(prm);
        }
        fail("no protected resource metadata found")
    }

    /// Finds the authorization server metadata of `issuer` and checks its issuer.
    pub(super) async fn server_metadata(&self, issuer: &str) -> Result<Value, AuthError> {
        let url = Url::parse(issuer).map_err(|e| AuthError(format!("issuer `{issuer}`: {e}")))?;
        let path = url.path().trim_end_matches('/').to_owned();
        let candidates = if path.is_empty() {
            vec![
                well_known(&url, "oauth-authorization-server", ""),
                well_known(&url, "openid-configuration", ""),
            ]
        } else {
            vec![
                well_known(&url, "oauth-authorization-server", &path),
                well_known(&url, "openid-configuration", &path),
                format!(
                    "{}{path}/.well-known/openid-configuration",
                    url.origin().ascii_serialization()
                ),
            ]
        };
        for candidate in candidates {
            let Some(meta) = self.get_json(&candidate).await? else {
                continue;
            };
            let got = meta
                .get("issuer")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if got != issuer {
                return fail(format!(
                    "the metadata at {candidate} is for issuer `{got}`, not `{issuer}`"
                ));
            }
            return Ok(meta);
        }
        fail(format!("no authorization server metadata for `{issuer}`"))
    }
}

/// Whether a protected resource identifier covers the MCP URL: the same
/// URL, or the same origin with a path prefix of it.
fn resource_covers(resource: &str, mcp: &Url) -> bool {
    let Ok(r) = Url::parse(resource) else {
        return false;
    };
    if r.origin() != mcp.origin() {
        return false;
    }
    let prefix = r.path().trim_end_matches('/');
    let path = mcp.path();
    path == prefix || path.starts_with(&format!("{prefix}/")) || prefix.is_empty()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.
    use super::*;

    #[test]
    fn challenges_parse() {
        let c = parse_challenge(
            r#"Bearer error="insufficient_scope", scope="a b", resource_metadata="http://x/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scope.as_deref(), Some("a b"));
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("http://x/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(parse_challenge("Bearer"), Challenge::default());
        assert_eq!(
            parse_challenge("Bearer realm=x, scope=read")
                .scope
                .as_deref(),
            Some("read")
        );
    }

    #[test]
    fn dpop_challenges_parse() {
        let c = parse_challenge(
            r#"DPoP error="use_dpop_nonce", error_description="nonce, please", algs="ES256 RS256""#,
        );
        assert!(c.dpop);
        assert_eq!(c.error.as_deref(), Some("use_dpop_nonce"));
        assert_eq!(c.algs.as_deref(), Some("ES256 RS256"));
        // Both schemes in one value (RFC 9449 §7.1 allows offering both).
        let c = parse_challenge(
            r#"Bearer resource_metadata="http://x/prm", scope="a", DPoP algs="ES256", Basic realm="r", scope=nope"#,
        );
        assert!(c.dpop);
        assert_eq!(c.resource_metadata.as_deref(), Some("http://x/prm"));
        assert_eq!(c.scope.as_deref(), Some("a"));
        assert_eq!(c.algs.as_deref(), Some("ES256"));
        assert_eq!(c.error, None);
        let c = parse_challenge(r#"dpop resource_metadata="http://x/prm""#);
        assert!(c.dpop);
        assert_eq!(c.resource_metadata.as_deref(), Some("http://x/prm"));
        // A bare parameter list counts as Bearer's; Bearer has no algs.
        let c = parse_challenge(r#"scope="s", algs="ES256""#);
        assert_eq!(
            (c.scope.as_deref(), c.algs, c.dpop),
            (Some("s"), None, false)
        );
        assert_eq!(
            parse_challenge(r#"Bearer scope="a\"b""#).scope.as_deref(),
            Some("a\"b")
        );
    }

    #[test]
    fn resource_coverage() {
        let mcp = Url::parse("http://localhost:3000/mcp").unwrap();
        assert!(resource_covers("http://localhost:3000/mcp", &mcp));
        assert!(resource_covers("http://localhost:3000", &mcp));
        assert!(resource_covers("http://localhost:3000/", &mcp));
        assert!(!resource_covers("http://localhost:3001/mcp", &mcp));
        assert!(!resource_covers("http://localhost:3000/other", &mcp));
        assert!(!resource_covers("http://localhost:3000/mc", &mcp));
    }

    #[test]
    fn well_known_urls() {
        let u = Url::parse("http://as.example:8080/tenant1").unwrap();
        assert_eq!(
            well_known(&u, "oauth-authorization-server", "/tenant1"),
            "http://as.example:8080/.well-known/oauth-authorization-server/tenant1"
        );
    }
}
