//! [`AuthConfig`]: the resource server's settings, the scopes each request
//! needs, the Protected Resource Metadata document (RFC 9728) and the
//! `WWW-Authenticate` challenges that point to it.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};

use super::dpop::DpopConfig;
use super::fetch::split_origin;
use super::token::{Claims, TokenValidator};
use crate::model::declaration::extend_unique;

/// The resource server's settings (`HttpConfig::auth`).
#[derive(Clone)]
pub struct AuthConfig {
    /// This MCP endpoint's canonical URI (`https://mcp.example.com/mcp`):
    /// the `resource` of the metadata, and the audience tokens must name.
    pub resource: String,
    /// Issuers of the authorization servers clients may use.
    pub authorization_servers: Vec<String>,
    /// Scopes listed in the metadata (default: every scope required below).
    pub scopes_supported: Vec<String>,
    /// Scopes every request needs.
    pub required_scopes: Vec<String>,
    /// Scopes the methods of a capability need on top, by capability
    /// (`tools`, `resources`, `prompts`, `completions`, `tasks`).
    pub capability_scopes: HashMap<String, Vec<String>>,
    /// Scopes a `tools/call` of a tool needs on top, by tool name.
    pub tool_scopes: HashMap<String, Vec<String>>,
    /// Scope hierarchy: a granted scope also grants these (transitively),
    /// e.g. `admin` → `write` → `read`.
    pub implied_scopes: HashMap<String, Vec<String>>,
    /// The token check.
    pub validator: Arc<dyn TokenValidator>,
    /// DPoP-bound tokens (RFC 9449), off unless set ([`Self::with_dpop`]).
    pub dpop: Option<DpopConfig>,
}

impl std::fmt::Debug for AuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthConfig")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("required_scopes", &self.required_scopes)
            .field("capability_scopes", &self.capability_scopes)
            .field("tool_scopes", &self.tool_scopes)
            .field("implied_scopes", &self.implied_scopes)
            .field("dpop", &self.dpop)
            .finish_non_exhaustive()
    }
}

impl AuthConfig {
    /// Tokens for `resource` from `authorization_server`, checked by
    /// `validator`; no scope required yet.
    pub fn new(
        resource: impl Into<String>,
        authorization_server: impl Into<String>,
        validator: Arc<dyn TokenValidator>,
    ) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers: vec![authorization_server.into()],
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            capability_scopes: HashMap::new(),
            tool_scopes: HashMap::new(),
            implied_scopes: HashMap::new(),
            validator,
            dpop: None,
        }
    }

    /// Accepts DPoP-bound tokens under the `DPoP` scheme, as `dpop` says.
    pub fn with_dpop(mut self, dpop: DpopConfig) -> Self {
        self.dpop = Some(dpop);
        self
    }

    /// Every request needs `scopes`.
    pub fn require_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.required_scopes
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Calls of `tool` need `scopes` as well.
    pub fn tool_requires<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        tool: impl Into<String>,
        scopes: I,
    ) -> Self {
        self.tool_scopes
            .entry(tool.into())
            .or_default()
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// The methods of `capability` (`tools`, `resources`, `prompts`,
    /// `completions`, `tasks`) need `scopes` as well.
    pub fn capability_requires<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        capability: impl Into<String>,
        scopes: I,
    ) -> Self {
        self.capability_scopes
            .entry(capability.into())
            .or_default()
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// A token granted `scope` also holds `implied` (and what those imply).
    pub fn scope_implies<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        scope: impl Into<String>,
        implied: I,
    ) -> Self {
        self.implied_scopes
            .entry(scope.into())
            .or_default()
            .extend(implied.into_iter().map(Into::into));
        self
    }

    /// Adds the scopes the server declares (`#[mcp(scopes = [...])]`,
    /// `#[mcp(tools(scopes = [...]))]`, `#[tool(scopes = [...])]`) to the
    /// ones set here: each list becomes the union of both. The transport
    /// does this at start with
    /// [`McpServer::declared_scopes`](crate::McpServer::declared_scopes).
    pub fn with_declared_scopes(
        mut self,
        declared: &crate::model::declaration::DeclaredScopes,
    ) -> Self {
        extend_unique(&mut self.required_scopes, declared.required.iter().cloned());
        for (capability, scopes) in &declared.capabilities {
            let entry = self
                .capability_scopes
                .entry(capability.clone())
                .or_default();
            extend_unique(entry, scopes.iter().cloned());
        }
        for (tool, scopes) in &declared.tools {
            let entry = self.tool_scopes.entry(tool.clone()).or_default();
            extend_unique(entry, scopes.iter().cloned());
        }
        self
    }

    /// The scopes of `wanted` that `claims` lack, after the hierarchy.
    pub fn missing<'a>(&self, claims: &Claims, wanted: &'a [String]) -> Vec<&'a str> {
        let mut held: Vec<&str> = claims.scopes.iter().map(String::as_str).collect();
        let mut next = 0;
        while let Some(scope) = held.get(next).copied() {
            for implied in self.implied_scopes.get(scope).into_iter().flatten() {
                if !held.contains(&implied.as_str()) {
                    held.push(implied);
                }
            }
            next += 1;
        }
        wanted
            .iter()
            .map(String::as_str)
            .filter(|scope| !held.contains(scope))
            .collect()
    }

    /// Scopes a request for `method` (of tool `tool`, for `tools/call`)
    /// needs beyond the server-wide ones.
    pub(crate) fn scopes_for(&self, method: &str, tool: Option<&str>) -> Vec<String> {
        let capability = match method.split('/').next() {
            Some("completion") => "completions",
            Some(prefix) => prefix,
            None => "",
        };
        let mut needed: Vec<String> = self
            .capability_scopes
            .get(capability)
            .cloned()
            .unwrap_or_default();
        if let Some(tool) = tool {
            needed.extend(self.tool_scopes.get(tool).into_iter().flatten().cloned());
        }
        needed
    }

    /// The Protected Resource Metadata document (RFC 9728 §2).
    pub fn metadata(&self) -> Value {
        let mut scopes = self.scopes_supported.clone();
        for scope in self
            .required_scopes
            .iter()
            .chain(by_key(&self.capability_scopes))
            .chain(by_key(&self.tool_scopes))
        {
            if !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
        let mut document = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "scopes_supported": scopes,
            "bearer_methods_supported": ["header"],
        });
        if let (Some(dpop), Value::Object(fields)) = (&self.dpop, &mut document) {
            fields.insert(
                "dpop_signing_alg_values_supported".into(),
                json!(dpop.algorithm_names()),
            );
            fields.insert(
                "dpop_bound_access_tokens_required".into(),
                Value::Bool(dpop.required),
            );
        }
        document
    }

    /// Where the metadata lives (RFC 9728 §3.1): the well-known prefix
    /// between the resource's authority and its path.
    pub fn metadata_url(&self) -> String {
        let (origin, path) = split_origin(&self.resource);
        format!("{origin}/.well-known/oauth-protected-resource{path}")
    }

    /// The paths this server answers with the metadata: the one for the
    /// resource's path and the bare well-known path.
    pub(crate) fn metadata_paths(&self) -> [String; 2] {
        let (_, path) = split_origin(&self.resource);
        [
            format!("/.well-known/oauth-protected-resource{path}"),
            "/.well-known/oauth-protected-resource".to_owned(),
        ]
    }

    /// The `WWW-Authenticate` value of a 401 (`error` when a token was sent
    /// and refused) or a 403 (`insufficient_scope`).
    pub(crate) fn challenge(&self, error: Option<(&str, &str)>, scopes: &[&str]) -> String {
        self.challenge_for("Bearer", error, scopes)
    }

    /// The `DPoP` challenge (RFC 9449 §7.1): as [`Self::challenge`], plus
    /// `algs` naming the accepted proof algorithms.
    pub(crate) fn dpop_challenge(&self, error: Option<(&str, &str)>, scopes: &[&str]) -> String {
        let mut value = self.challenge_for("DPoP", error, scopes);
        if let Some(dpop) = &self.dpop {
            value.push_str(&format!(", algs=\"{}\"", dpop.algorithm_names().join(" ")));
        }
        value
    }

    fn challenge_for(&self, scheme: &str, error: Option<(&str, &str)>, scopes: &[&str]) -> String {
        let mut value = format!("{scheme} resource_metadata=\"{}\"", self.metadata_url());
        if !scopes.is_empty() {
            value.push_str(&format!(", scope=\"{}\"", scopes.join(" ")));
        }
        if let Some((error, description)) = error {
            let description = description.replace(['"', '\\'], "'");
            value.push_str(&format!(
                ", error=\"{error}\", error_description=\"{description}\""
            ));
        }
        value
    }
}

/// The scopes of `map` in key order, so the metadata is the same on every
/// start.
fn by_key(map: &HashMap<String, Vec<String>>) -> impl Iterator<Item = &String> {
    let mut entries: Vec<(&String, &Vec<String>)> = map.iter().collect();
    entries.sort();
    entries.into_iter().flat_map(|(_, scopes)| scopes)
}
