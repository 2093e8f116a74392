//! Catalogue snapshots: the tools (with their input and output schemas),
//! resources, resource templates and prompts a server lists, as stable
//! pretty JSON compared with a file, so that an accidental change (a
//! renamed argument, a schema that lost a constraint) fails a test.
//!
//! ```no_run
//! # async fn test(client: mcp_era_testing::TestClient<impl mcp_era_server::McpServer + 'static>) {
//! client.assert_catalogue_snapshot("tests/snapshots/catalogue.json").await;
//! # }
//! ```
//!
//! The file is compared byte for byte with the catalogue rendered by
//! `serde_json::to_string_pretty` plus a final newline. The keys of each
//! object are sorted (serde_json's default map), the lists keep the
//! server's order, and the per-response `_meta`, `ttlMs` and
//! `cacheScope` are left out: they describe the answer, not the catalogue.
//!
//! **Blessing**: run the tests with `MCP_SNAPSHOT_BLESS=1` to write the
//! files (a missing file fails the test otherwise), then review and commit
//! them. `cargo test` runs tests in the package's directory, so a relative
//! path lands under the package.

use std::path::Path;
use std::sync::Arc;

use mcp_era_client::{Error, Result};
use mcp_era_server::McpServer;
use serde_json::{Map, Value, json};

use crate::raw;

/// The environment variable that makes snapshot assertions write their
/// files instead of comparing.
pub const BLESS_ENV: &str = "MCP_SNAPSHOT_BLESS";

/// The most pages one list may take before the catalogue gives up.
const MAX_PAGES: usize = 1000;

/// The list methods of the catalogue: the key in the snapshot, the
/// capability that serves it, the method and the result's array member.
const LISTS: [(&str, &str, &str, &str); 4] = [
    ("tools", "tools", "tools/list", "tools"),
    ("resources", "resources", "resources/list", "resources"),
    (
        "resourceTemplates",
        "resources",
        "resources/templates/list",
        "resourceTemplates",
    ),
    ("prompts", "prompts", "prompts/list", "prompts"),
];

/// The catalogue of `server`: an object with `tools`, `resources`,
/// `resourceTemplates` and `prompts` (each present when the server
/// declares its capability), every page of each list fetched.
pub async fn catalogue<S: McpServer + 'static>(server: &Arc<S>) -> Result<Value> {
    let declaration = server.declaration();
    let capabilities = declaration.capabilities();
    let capabilities = serde_json::to_value(capabilities).unwrap_or_else(|_| json!({}));
    let mut catalogue = Map::new();
    for (key, capability, method, items) in LISTS {
        if capabilities.get(capability).is_none_or(Value::is_null) {
            continue;
        }
        catalogue.insert(key.into(), Value::Array(list(server, method, items).await?));
    }
    Ok(Value::Object(catalogue))
}

/// Every item of list `method`, following `nextCursor`.
async fn list<S: McpServer + 'static>(
    server: &Arc<S>,
    method: &str,
    items: &str,
) -> Result<Vec<Value>> {
    let invalid = |detail: String| Error::InvalidResult {
        method: method.to_owned(),
        detail,
    };
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    for page in 0..MAX_PAGES {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let answer = raw::stdio(server, &raw::request(page, method, params)).await;
        let answer = answer.unwrap_or(Value::Null);
        let Some(result) = answer.get("result") else {
            return Err(invalid(format!("not a result: {answer}")));
        };
        match result.get(items) {
            Some(Value::Array(found)) => all.extend(found.iter().cloned()),
            _ => return Err(invalid(format!("no `{items}` array: {result}"))),
        }
        match result.get("nextCursor") {
            Some(Value::String(next)) if cursor.as_ref() != Some(next) => {
                cursor = Some(next.clone());
            }
            None | Some(Value::Null) => return Ok(all),
            Some(other) => return Err(invalid(format!("bad `nextCursor`: {other}"))),
        }
    }
    Err(invalid(format!("more than {MAX_PAGES} pages")))
}

/// Compares `value`, rendered as pretty JSON with a final newline, with
/// the file at `path`.
///
/// # Panics
///
/// When they differ or the file is missing, with both versions in the
/// message; unless `MCP_SNAPSHOT_BLESS=1` is set, which writes the file
/// (creating its directory) instead. Also when the file cannot be read
/// or written.
pub fn assert_json_snapshot(path: impl AsRef<Path>, value: &Value) {
    let bless = std::env::var(BLESS_ENV).is_ok_and(|v| v == "1");
    compare(path.as_ref(), value, bless);
}

fn compare(path: &Path, value: &Value, bless: bool) {
    let rendered = match serde_json::to_string_pretty(value) {
        Ok(text) => text + "\n",
        Err(e) => panic!("the snapshot value could not be rendered: {e}"),
    };
    if bless {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            panic!("could not create {}: {e}", dir.display());
        }
        if let Err(e) = std::fs::write(path, &rendered) {
            panic!("could not write the snapshot {}: {e}", path.display());
        }
        return;
    }
    let stored = match std::fs::read_to_string(path) {
        Ok(stored) => stored,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => panic!(
            "no snapshot at {} (run with {BLESS_ENV}=1 to write it); the value is:\n{rendered}",
            path.display()
        ),
        Err(e) => panic!("could not read the snapshot {}: {e}", path.display()),
    };
    if stored != rendered {
        panic!(
            "the value differs from the snapshot {} (run with {BLESS_ENV}=1 to accept it)\n{}",
            path.display(),
            diff(&stored, &rendered)
        );
    }
}

/// A line diff short enough to read in a test failure: the lines only in
/// the snapshot (`-`) and only in the new value (`+`), in order, after the
/// common start and end.
fn diff(old: &str, new: &str) -> String {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    let start = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let end = old[start..]
        .iter()
        .rev()
        .zip(new[start..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = format!("@@ line {} @@\n", start + 1);
    for line in &old[start..old.len() - end] {
        out.push_str(&format!("-{line}\n"));
    }
    for line in &new[start..new.len() - end] {
        out.push_str(&format!("+{line}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_shows_only_the_changed_lines() {
        let d = diff(
            "{\n  \"a\": 1,\n  \"b\": 2\n}\n",
            "{\n  \"a\": 1,\n  \"b\": 3\n}\n",
        );
        assert_eq!(d, "@@ line 3 @@\n-  \"b\": 2\n+  \"b\": 3\n");
    }

    #[test]
    fn a_matching_file_passes_and_a_different_one_panics() {
        let dir = std::env::temp_dir().join(format!("mcp-era-testing-{}", std::process::id()));
        let path = dir.join("value.json");
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(&path, "{\n  \"a\": 1\n}\n").expect("write");
        compare(&path, &json!({"a": 1}), false);
        let changed = std::panic::catch_unwind(|| compare(&path, &json!({"a": 2}), false));
        let message = changed.expect_err("a changed value fails");
        let message = message
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(message.contains("-  \"a\": 1\n+  \"a\": 2"), "{message}");
        compare(&path, &json!({"a": 2}), true);
        compare(&path, &json!({"a": 2}), false);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
