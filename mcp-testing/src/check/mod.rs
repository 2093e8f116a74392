//! The protocol's rules as a library check: [`check_server`] sends a
//! server, in-process, the messages that probe the rules of MCP 2026-07-28
//! every server must follow (and the 2025-11-25 ones of a dual-era
//! server), in the stdio and in the HTTP-shaped context where the rule
//! differs, and returns a [`Report`] naming each violation and the rule it
//! breaks.
//!
//! ```
//! use mcp_era_server::McpServer;
//!
//! #[derive(McpServer)]
//! #[mcp(name = "adder", version = "1.0.0")]
//! struct Adder;
//!
//! #[mcp_era_server::router]
//! impl Adder {
//!     /// Adds two integers.
//!     #[tool]
//!     fn add(&self, a: i64, b: i64) -> String {
//!         (a + b).to_string()
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! mcp_era_testing::check_server(Adder).await.assert_ok();
//! # });
//! ```
//!
//! The rules are listed in [`rules`], each with its section of the
//! requirements digest (`§2.3` is item 3 of section 2; `edge 3` is the
//! digest's third edge case) and a one-line statement. The check only
//! sends what cannot change a correct server's state: `server/discover`,
//! the list methods, a read of the first listed resource, and requests a
//! correct server rejects before any handler runs (unknown tools and
//! prompts, missing headers).
//!
//! A server written with `#[derive(McpServer)]` and `#[router]` cannot
//! break most of these rules: the runtime owns the envelope, `_meta`,
//! version and header checks and `server/discover`, the router's
//! catalogue is checked when the transports start, and the typed results
//! require `resultType` and the caching hints. The check earns its keep on
//! hand-written handlers (`ToolsHandler`, `ResourcesHandler`, …) and
//! hand-made declarations, and as a regression test of the runtime itself.

mod probes;
pub mod rules;

use std::fmt;
use std::sync::Arc;

use mcp_era_server::McpServer;

pub use rules::Rule;

/// One broken rule: which, and what was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The rule broken.
    pub rule: Rule,
    /// What was sent and what came back.
    pub detail: String,
}

/// What [`check_server`] found: the rules it checked and every violation.
#[derive(Debug, Clone, Default)]
pub struct Report {
    server: String,
    checked: Vec<Rule>,
    violations: Vec<Violation>,
}

impl Report {
    /// Whether no rule was broken.
    pub fn is_ok(&self) -> bool {
        self.violations.is_empty()
    }

    /// Every violation, in the order found.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// The rules that were checked (those that apply to this server: a
    /// modern-only server is not asked for a legacy session, a server
    /// without resources is not asked to read one).
    pub fn checked(&self) -> &[Rule] {
        &self.checked
    }

    /// Whether `rule` was broken.
    pub fn breaks(&self, rule: &Rule) -> bool {
        self.violations.iter().any(|v| v.rule.id == rule.id)
    }

    /// The ids of the broken rules, each once, in the order found.
    pub fn broken_ids(&self) -> Vec<&'static str> {
        let mut ids: Vec<&'static str> = Vec::new();
        for v in &self.violations {
            if !ids.contains(&v.rule.id) {
                ids.push(v.rule.id);
            }
        }
        ids
    }

    /// Panics with the full report when a rule was broken; for `#[test]`s.
    ///
    /// # Panics
    ///
    /// When [`is_ok`](Self::is_ok) is false.
    #[track_caller]
    pub fn assert_ok(&self) {
        if !self.is_ok() {
            panic!("{self}");
        }
    }

    fn checking(&mut self, rule: Rule) {
        if !self.checked.iter().any(|r| r.id == rule.id) {
            self.checked.push(rule);
        }
    }

    fn violation(&mut self, rule: Rule, detail: String) {
        self.checking(rule);
        self.violations.push(Violation { rule, detail });
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "MCP rule check of `{}`: {} violation(s), {} rule(s) checked",
            self.server,
            self.violations.len(),
            self.checked.len()
        )?;
        for v in &self.violations {
            writeln!(
                f,
                "  - [{}] {} ({}): {}",
                v.rule.section, v.rule.id, v.rule.text, v.detail
            )?;
        }
        Ok(())
    }
}

/// Checks `server` against every rule in [`rules`] that applies to it.
/// Needs a tokio runtime.
pub async fn check_server<S: McpServer + 'static>(server: S) -> Report {
    check_shared(&Arc::new(server)).await
}

/// [`check_server`] then [`Report::assert_ok`]: one line in a `#[tokio::test]`.
///
/// # Panics
///
/// With the full report, when a rule is broken.
pub async fn assert_conforms<S: McpServer + 'static>(server: S) {
    check_server(server).await.assert_ok();
}

/// [`check_server`] for a server already shared (a [`TestClient`](crate::TestClient)'s).
pub(crate) async fn check_shared<S: McpServer + 'static>(server: &Arc<S>) -> Report {
    let declaration = server.declaration();
    let info = declaration.server_info();
    let mut report = Report {
        server: format!("{} {}", info.name, info.version),
        ..Report::default()
    };
    probes::run(server, &mut report).await;
    report
}
