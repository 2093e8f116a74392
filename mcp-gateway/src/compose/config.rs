//! The composition file: several backends behind one front, in TOML.
//!
//! ```toml
//! separator = "__"            # between a backend's name and its items' names
//! page_size = 100             # items per page of a merged list
//!
//! [[backend]]
//! name = "files"
//! command = "npx"
//! args = ["-y", "@modelcontextprotocol/server-filesystem", "/srv"]
//! env = { LOG_LEVEL = "warn" }  # beside the gateway's own environment
//! prefix = "always"           # always | never | conditional (the default)
//!
//! [[backend]]
//! name = "search"
//! url = "http://127.0.0.1:3001/mcp"
//! timeout = 20                # seconds for one forwarded request
//! era = "modern"              # auto (the default) | legacy | modern
//! max_concurrent = 8          # requests forwarded at once; more wait
//! restart = "never"           # always (the default) | never
//! tools = { exclude = ["delete_*"] }   # by the backend's names; `*` any run
//!
//! [[access]]
//! principal = "alice"         # the OAuth subject; `*`: every principal
//! tools = { include = ["search__*"] }  # by the front's names
//!
//! [[access]]
//! missing_scope = "files:write"  # or `scope = "..."`: the token's scopes
//! tools = { exclude = ["files__write_*"] }
//! ```

use std::time::Duration;

use mcp_era_client::EraMode;
use serde::Deserialize;

use super::access::Selector;
use super::filter::{Filter, Filters};
use crate::backend::{BackendSpec, Restart};

/// When a backend's tool and prompt names get its name in front.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PrefixMode {
    /// Always `name` + separator + the backend's own name.
    Always,
    /// Never: the backend's names as they are (an App calling its tools by
    /// bare name keeps working; a collision is then an error to fix).
    Never,
    /// Only when the front has more than one backend.
    #[default]
    Conditional,
}

impl PrefixMode {
    /// Its name in the composition file.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Always => "always",
            Self::Never => "never",
            Self::Conditional => "conditional",
        }
    }
}

/// One backend of a composition.
#[derive(Debug, Clone)]
pub struct Member {
    /// Its name: the prefix of its items, and how logs and errors name it.
    pub name: String,
    /// Where it is.
    pub spec: BackendSpec,
    /// Whether its names are prefixed.
    pub prefix: PrefixMode,
    /// How long one forwarded request may take (`None`: the gateway's).
    pub timeout: Option<Duration>,
    /// The era to speak (`None`: the gateway's).
    pub era: Option<EraMode>,
    /// Which of its items the front shows, by their names at the backend.
    pub filters: Filters,
    /// How many requests may be forwarded to it at once (`None`: no
    /// bound); more wait for a slot up to its timeout.
    pub max_concurrent: Option<usize>,
    /// Whether it is started again when it exits or cannot be started
    /// (`None`: as the gateway's options say).
    pub restart: Option<Restart>,
}

/// What the requests a rule selects see, by the names at the front.
#[derive(Debug, Clone)]
pub struct Access {
    /// The requests it applies to: one principal's (or any), or by the
    /// scopes of their token.
    pub selector: Selector,
    /// Its filters, over every backend's items.
    pub filters: Filters,
}

/// Several backends behind one front, and how their names meet.
#[derive(Debug, Clone)]
pub struct Composition {
    /// Between a backend's name and an item's (default `__`).
    pub separator: String,
    /// Items per page of a merged list (default [`DEFAULT_PAGE_SIZE`]).
    pub page_size: usize,
    /// The backends, in the order that settles which one a name belongs to
    /// when two claim it after start.
    pub members: Vec<Member>,
    /// The access rules: a request sees what every rule that applies to it
    /// shows (a request no rule selects, what the backends show).
    pub access: Vec<Access>,
}

/// Items per page of a merged list, unless the file says.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// The default separator: `__` is valid in tool names (SEP-986 allows
/// `A-Za-z0-9_-.`), rare inside them, and what most aggregators use.
pub const DEFAULT_SEPARATOR: &str = "__";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    separator: Option<String>,
    page_size: Option<usize>,
    #[serde(default)]
    backend: Vec<BackendEntry>,
    #[serde(default)]
    access: Vec<AccessEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AccessEntry {
    principal: Option<String>,
    scope: Option<String>,
    missing_scope: Option<String>,
    #[serde(default)]
    tools: Filter,
    #[serde(default)]
    prompts: Filter,
    #[serde(default)]
    resources: Filter,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BackendEntry {
    name: String,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    url: Option<String>,
    #[serde(default)]
    env: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    prefix: PrefixMode,
    timeout: Option<u64>,
    era: Option<String>,
    max_concurrent: Option<usize>,
    restart: Option<String>,
    #[serde(default)]
    tools: Filter,
    #[serde(default)]
    prompts: Filter,
    #[serde(default)]
    resources: Filter,
}

/// Whether `text` may be part of a tool name (SEP-986's characters).
fn name_chars(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// A rule's `scope` or `missing_scope`: one scope token (RFC 6749 §3.3),
/// since a token's scopes are matched one by one.
fn one_scope(rule: usize, key: &str, scope: String) -> Result<String, String> {
    if scope.is_empty() || scope.contains(char::is_whitespace) {
        return Err(format!(
            "[[access]] rule {rule}: {key} {scope:?}: one scope, without spaces (a rule per scope)"
        ));
    }
    Ok(scope)
}

impl Composition {
    /// Reads a composition file's text; the error names the file's mistake.
    pub fn from_toml(text: &str) -> Result<Self, String> {
        let file: File = toml::from_str(text).map_err(|e| e.to_string())?;
        let separator = file.separator.unwrap_or_else(|| DEFAULT_SEPARATOR.into());
        if separator.is_empty() || !name_chars(&separator) {
            return Err(format!(
                "separator {separator:?}: one or more of A-Z a-z 0-9 _ - . (tool names allow no other)"
            ));
        }
        let page_size = file.page_size.unwrap_or(DEFAULT_PAGE_SIZE);
        if page_size == 0 {
            return Err("page_size: 1 or more".into());
        }
        if file.backend.is_empty() {
            return Err("no [[backend]]".into());
        }
        let mut members: Vec<Member> = Vec::with_capacity(file.backend.len());
        for entry in file.backend {
            let name = entry.name;
            // Not `.` or `..` either: the name is also a `skill://` path
            // segment.
            if name.is_empty()
                || !name_chars(&name)
                || name.contains(&separator)
                || name.chars().all(|c| c == '.')
            {
                return Err(format!(
                    "backend name {name:?}: one or more of A-Z a-z 0-9 _ - ., without the separator {separator:?}, not only dots"
                ));
            }
            if members.iter().any(|member| member.name == name) {
                return Err(format!("two backends are named {name:?}"));
            }
            let spec = match (entry.command, entry.url) {
                (Some(program), None) => BackendSpec::Command {
                    program,
                    args: entry.args,
                    env: entry.env.into_iter().collect(),
                },
                (None, Some(url)) if entry.args.is_empty() && entry.env.is_empty() => {
                    BackendSpec::Url(url)
                }
                (None, Some(_)) => {
                    return Err(format!(
                        "backend {name:?}: args and env go with command, not url"
                    ));
                }
                _ => return Err(format!("backend {name:?}: one of command or url")),
            };
            let era = match entry.era.as_deref() {
                None => None,
                Some("auto") => Some(EraMode::Auto),
                Some("legacy") => Some(EraMode::Legacy),
                Some("modern") => Some(EraMode::Modern),
                Some(other) => {
                    return Err(format!(
                        "backend {name:?}: era {other:?} is not auto, legacy or modern"
                    ));
                }
            };
            let restart = match entry.restart.as_deref() {
                None => None,
                Some("always") => Some(Restart::Always),
                Some("never") => Some(Restart::Never),
                Some(other) => {
                    return Err(format!(
                        "backend {name:?}: restart {other:?} is not always or never"
                    ));
                }
            };
            if entry.max_concurrent == Some(0) {
                return Err(format!("backend {name:?}: max_concurrent 1 or more"));
            }
            members.push(Member {
                name,
                spec,
                prefix: entry.prefix,
                timeout: entry.timeout.map(Duration::from_secs),
                era,
                filters: Filters {
                    tools: entry.tools,
                    prompts: entry.prompts,
                    resources: entry.resources,
                },
                max_concurrent: entry.max_concurrent,
                restart,
            });
        }
        let mut access = Vec::with_capacity(file.access.len());
        for (index, entry) in file.access.into_iter().enumerate() {
            // Counted from 1, as a reader counts the file's tables.
            let rule = index + 1;
            let selector = match (entry.principal, entry.scope, entry.missing_scope) {
                (Some(principal), None, None) => Selector::Principal(principal),
                (None, Some(scope), None) => Selector::Scope(one_scope(rule, "scope", scope)?),
                (None, None, Some(scope)) => {
                    Selector::MissingScope(one_scope(rule, "missing_scope", scope)?)
                }
                _ => {
                    return Err(format!(
                        "[[access]] rule {rule}: exactly one of principal, scope or missing_scope"
                    ));
                }
            };
            access.push(Access {
                selector,
                filters: Filters {
                    tools: entry.tools,
                    prompts: entry.prompts,
                    resources: entry.resources,
                },
            });
        }
        Ok(Self {
            separator,
            page_size,
            members,
            access,
        })
    }

    /// The name `member`'s item `name` has at the front.
    pub(crate) fn front_name(&self, member: usize, name: &str) -> String {
        if self.prefixed(member) {
            format!("{}{}{name}", self.members[member].name, self.separator)
        } else {
            name.to_owned()
        }
    }

    /// Whether `member`'s names are prefixed.
    pub(crate) fn prefixed(&self, member: usize) -> bool {
        match self.members[member].prefix {
            PrefixMode::Always => true,
            PrefixMode::Never => false,
            PrefixMode::Conditional => self.members.len() > 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_with_its_defaults() {
        let composition = Composition::from_toml(
            r#"
            [[backend]]
            name = "a"
            command = "srv"
            args = ["stdio"]
            env = { TOKEN = "t0ps3cret", MODE = "x" }
            [[backend]]
            name = "b"
            url = "http://127.0.0.1:1/mcp"
            prefix = "never"
            timeout = 5
            era = "legacy"
            restart = "never"
            "#,
        )
        .unwrap();
        assert_eq!(composition.separator, "__");
        assert_eq!(composition.front_name(0, "echo"), "a__echo");
        assert_eq!(composition.front_name(1, "echo"), "echo");
        assert_eq!(composition.members[1].timeout, Some(Duration::from_secs(5)));
        assert!(matches!(composition.members[1].era, Some(EraMode::Legacy)));
        assert_eq!(composition.members[0].restart, None);
        assert_eq!(composition.members[1].restart, Some(Restart::Never));
        let BackendSpec::Command { env, .. } = &composition.members[0].spec else {
            panic!("{:?}", composition.members[0].spec);
        };
        assert_eq!(env.len(), 2);
        // An environment's values are secrets: never shown.
        let shown = format!("{:?}", composition.members[0].spec);
        assert!(
            shown.contains("TOKEN") && !shown.contains("t0ps3cret"),
            "{shown}"
        );
    }

    #[test]
    fn conditional_prefixes_only_beside_another_backend() {
        let one = Composition::from_toml("[[backend]]\nname = \"a\"\ncommand = \"srv\"").unwrap();
        assert_eq!(one.front_name(0, "echo"), "echo");
    }

    #[test]
    fn access_rules_select_by_principal_or_scope() {
        let composition = Composition::from_toml(
            r#"
            [[backend]]
            name = "files"
            command = "srv"
            [[access]]
            principal = "ci-bot"
            tools = { include = ["files__read_*"] }
            [[access]]
            scope = "files:admin"
            [[access]]
            missing_scope = "files:write"
            tools = { exclude = ["files__write_*"] }
            "#,
        )
        .unwrap();
        let selectors: Vec<&Selector> = composition.access.iter().map(|a| &a.selector).collect();
        assert_eq!(
            selectors,
            [
                &Selector::Principal("ci-bot".into()),
                &Selector::Scope("files:admin".into()),
                &Selector::MissingScope("files:write".into()),
            ]
        );
        let write_rule = &composition.access[2].filters;
        assert!(!write_rule.tools.allows("files__write_file"));
        assert!(write_rule.tools.allows("files__read_file"));
    }

    #[test]
    fn an_access_rule_has_exactly_one_selector() {
        let backend = "[[backend]]\nname = \"a\"\ncommand = \"x\"\n";
        let cases = [
            (
                "[[access]]\nprincipal = \"p\"\n[[access]]\ntools = { exclude = [\"*\"] }",
                "[[access]] rule 2: exactly one of principal, scope or missing_scope",
            ),
            (
                "[[access]]\nprincipal = \"p\"\nscope = \"s\"",
                "[[access]] rule 1: exactly one of",
            ),
            (
                "[[access]]\nscope = \"s\"\nmissing_scope = \"s\"",
                "[[access]] rule 1: exactly one of",
            ),
            (
                "[[access]]\nscope = \"a b\"",
                "[[access]] rule 1: scope \"a b\": one scope",
            ),
            (
                "[[access]]\nmissing_scope = \"\"",
                "[[access]] rule 1: missing_scope \"\": one scope",
            ),
            ("[[access]]\nscopes = [\"s\"]", "scopes"),
        ];
        for (rules, expected) in cases {
            let text = format!("{backend}{rules}");
            let error = Composition::from_toml(&text).unwrap_err();
            assert!(error.contains(expected), "{text:?}: {error}");
        }
    }

    #[test]
    fn mistakes_are_named() {
        let cases = [
            ("", "no [[backend]]"),
            (
                "[[backend]]\nname = \"a\"\ncommand = \"x\"\nmax_concurrent = 0",
                "max_concurrent 1 or more",
            ),
            (
                "page_size = 0\n[[backend]]\nname = \"a\"\ncommand = \"x\"",
                "page_size",
            ),
            ("[[backend]]\nname = \"a\"", "one of command or url"),
            (
                "[[backend]]\nname = \"a\"\nurl = \"y\"\nenv = { A = \"b\" }",
                "env go with command",
            ),
            (
                "[[backend]]\nname = \"a\"\ncommand = \"x\"\nurl = \"y\"",
                "one of command or url",
            ),
            (
                "[[backend]]\nname = \"a b\"\ncommand = \"x\"",
                "backend name \"a b\"",
            ),
            (
                "separator = \"/\"\n[[backend]]\nname = \"a\"\ncommand = \"x\"",
                "separator \"/\"",
            ),
            (
                "[[backend]]\nname = \"x__y\"\ncommand = \"x\"",
                "without the separator",
            ),
            (
                "[[backend]]\nname = \"..\"\ncommand = \"x\"",
                "not only dots",
            ),
            (
                "[[backend]]\nname = \"a\"\ncommand = \"x\"\n[[backend]]\nname = \"a\"\ncommand = \"y\"",
                "two backends are named \"a\"",
            ),
            (
                "[[backend]]\nname = \"a\"\ncommand = \"x\"\nprefix = \"sometimes\"",
                "sometimes",
            ),
            (
                "[[backend]]\nname = \"a\"\ncommand = \"x\"\nera = \"new\"",
                "era \"new\"",
            ),
            (
                "[[backend]]\nname = \"a\"\ncommand = \"x\"\nrestart = \"often\"",
                "restart \"often\"",
            ),
            (
                "[[backend]]\nname = \"a\"\ncommand = \"x\"\ncolour = 1",
                "colour",
            ),
        ];
        for (text, expected) in cases {
            let error = Composition::from_toml(text).unwrap_err();
            assert!(error.contains(expected), "{text:?}: {error}");
        }
    }
}
