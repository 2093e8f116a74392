//! `mcp-era-codegen`: the generator's CLI, a thin shell over the library for any
//! MCP schema file (this repository's own modules come from `cargo xtask regen`).

use std::path::PathBuf;
use std::process::ExitCode;

use mcp_era_codegen::manifest::Era;
use mcp_era_codegen::{EmitOptions, detect_era, generate_revision};

const USAGE: &str = "usage: mcp-era-codegen --schema FILE [--out FILE] [options]

Generates Rust types from one MCP JSON schema (stdout without --out).

options:
  --version V            the VERSION constant (default: the schema's folder name, e.g. 2026-07-28)
  --era modern|legacy    default: detected ($defs has DiscoverRequest: modern; InitializeRequest: legacy)
  --module NAME          wrap the output in `pub mod NAME { ... }`
  --derive PATH          an extra derive for every type (repeatable)
  --serde PATH           the serde crate path (default ::serde)
  --serde-json PATH      the serde_json crate path (default ::serde_json)
  --runtime PATH         the runtime module (default ::mcp_era_types::__private)
  --named-feature F      gate the by-name lookup on cargo feature F (default: left out)
  --command TEXT         the command named in the @generated header
  --check                do not write: fail if --out differs from what would be written";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let mut schema = None;
    let mut out = None;
    let mut version = None;
    let mut era = None;
    let mut check = false;
    let mut command = None;
    let mut options = EmitOptions::default().named_feature(None);
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        if flag == "--check" {
            check = true;
            continue;
        }
        if flag == "-h" || flag == "--help" {
            println!("{USAGE}");
            return Ok(());
        }
        let value = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n\n{USAGE}"))?;
        match flag.as_str() {
            "--schema" => schema = Some(PathBuf::from(value)),
            "--out" => out = Some(PathBuf::from(value)),
            "--version" => version = Some(value),
            "--era" => {
                era = Some(match value.as_str() {
                    "modern" => Era::Modern,
                    "legacy" => Era::Legacy,
                    other => return Err(format!("--era {other}: expected modern or legacy")),
                })
            }
            "--module" => options = options.module(value),
            "--derive" => options = options.derive(value),
            "--serde" => options = options.serde_path(value),
            "--serde-json" => options = options.serde_json_path(value),
            "--runtime" => options = options.runtime(value),
            "--named-feature" => options = options.named_feature(Some(&value)),
            "--command" => command = Some(value),
            other => return Err(format!("unknown argument {other}\n\n{USAGE}")),
        }
    }
    let schema_path = schema.ok_or_else(|| format!("--schema is required\n\n{USAGE}"))?;
    let version = match version {
        Some(v) => v,
        None => schema_path
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| !n.is_empty())
            .ok_or("cannot take the version from the schema's folder: pass --version")?,
    };
    let text = std::fs::read_to_string(&schema_path)
        .map_err(|e| format!("cannot read {}: {e}", schema_path.display()))?;
    let schema: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not valid JSON: {e}", schema_path.display()))?;
    let era = match era.or_else(|| detect_era(&schema)) {
        Some(era) => era,
        None => return Err("cannot tell the schema's era: pass --era modern|legacy".into()),
    };
    let command = command.unwrap_or_else(|| {
        let mut c = format!("mcp-era-codegen --schema {}", schema_path.display());
        if let Some(out) = &out {
            c.push_str(&format!(" --out {}", out.display()));
        }
        c
    });
    let options = options.command(command);
    let source = generate_revision(&schema, era, &version, &options)
        .map_err(|e| format!("{}: {e}", schema_path.display()))?;
    let Some(out) = out else {
        use std::io::Write;
        return std::io::stdout()
            .write_all(source.as_bytes())
            .map_err(|e| format!("cannot write to stdout: {e}"));
    };
    let current = std::fs::read_to_string(&out).ok();
    if current.as_deref() == Some(source.as_str()) {
        println!("{} is up to date", out.display());
        return Ok(());
    }
    if check {
        return Err(format!(
            "{} is out of date; rerun without --check",
            out.display()
        ));
    }
    std::fs::write(&out, source).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(())
}
