//! `--codegen FILE` and `--save-tools FILE`: every tool the server lists
//! (all pages) as a typed Rust client module (`mcp_era_codegen::client`),
//! and the raw catalogue for a committed snapshot (a `build.rs` then
//! regenerates without a live server).

use std::path::Path;

use mcp_era_client::Client;
use mcp_era_codegen::client::{ClientOptions, generate};
use serde_json::{Value, json};

use crate::Failure;
use crate::human::errln;

/// What `--codegen`/`--save-tools` asked for.
pub(crate) struct Request<'a> {
    pub out: Option<&'a Path>,
    pub save_tools: Option<&'a Path>,
    pub name: &'a str,
    pub client_path: &'a str,
}

/// Lists every tool, writes what was asked; the report entry names the
/// files, the tool count and the generator's warnings (also on stderr).
pub(crate) async fn run(client: &Client, request: &Request<'_>) -> Result<Value, Failure> {
    let list = client.list_all_tools().await?;
    let mut catalogue =
        serde_json::to_value(&list).map_err(|e| Failure::new(4, format!("tools/list: {e}")))?;
    if let Value::Object(map) = &mut catalogue {
        // Only the tools: a snapshot should not change with `_meta`.
        map.retain(|k, _| k == "tools");
    }
    let count = catalogue["tools"].as_array().map_or(0, Vec::len);
    let mut report = json!({"tools": count});
    if let Some(path) = request.save_tools {
        let text = serde_json::to_string_pretty(&catalogue)
            .map_err(|e| Failure::new(1, e.to_string()))?
            + "\n";
        write(path, &text)?;
        report["savedTools"] = json!(path.display().to_string());
    }
    if let Some(path) = request.out {
        let options = ClientOptions::new(request.name)
            .client_path(request.client_path)
            .command(format!("mcp-probe --codegen {}", path.display()));
        let generated = generate(&catalogue, &options)
            .map_err(|e| Failure::new(1, format!("--codegen: {e}")))?;
        for w in &generated.warnings {
            errln!("mcp-probe: codegen warning: {w}");
        }
        write(path, &generated.source)?;
        report["module"] = json!(path.display().to_string());
        report["warnings"] = generated
            .warnings
            .iter()
            .map(|w| json!({"tool": w.tool, "path": w.path, "message": w.message}))
            .collect();
    }
    Ok(report)
}

fn write(path: &Path, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text)
        .map_err(|e| Failure::new(1, format!("cannot write {}: {e}", path.display())))
}
