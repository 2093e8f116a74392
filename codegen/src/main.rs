//! `mcp-era-codegen`: the generator's CLI, a thin shell over the library for any
//! MCP schema file (this repository's own modules come from `cargo xtask regen`).

use std::path::PathBuf;
use std::process::ExitCode;

use mcp_era_codegen::manifest::Era;
use mcp_era_codegen::{EmitOptions, detect_era, generate_revision};

const USAGE: &str = "usage: mcp-era-codegen --schema FILE [--out FILE] [options]
       mcp-era-codegen client --help   (a typed client from a tool catalogue)

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
    if args.first().map(String::as_str) == Some("client") {
        return client(args.into_iter().skip(1).collect());
    }
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
    write_out(out, source, check)
}

/// Writes `source` to `out` unless it is already there; with `check`, a
/// difference is an error instead.
fn write_out(out: PathBuf, source: String, check: bool) -> Result<(), String> {
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

const CLIENT_USAGE: &str =
    "usage: mcp-era-codegen client (--tools FILE | --stdio CMD [ARGS..] | --url URL) [options]

Generates a typed Rust client for a server's tools (stdout without --out).
--tools reads a saved catalogue: an array of tools, a tools/list result or
a JSON-RPC response. --stdio (everything after it is the command) and --url
need the `live` feature; `mcp-probe --codegen` does the same with no feature.

options:
  --out FILE             write the module here
  --name NAME            the client struct is NAMEClient (default Tools)
  --client-path PATH     the client crate (default ::mcp_era::client)
  --save-tools FILE      also write the catalogue as fetched
  --check                do not write: fail if --out differs";

fn client(args: Vec<String>) -> Result<(), String> {
    use mcp_era_codegen::client::{ClientOptions, generate};
    let mut tools = None;
    let mut server: Option<Vec<String>> = None;
    let mut url = None;
    let mut out = None;
    let mut save = None;
    let mut check = false;
    let mut options = ClientOptions::default();
    let mut command = vec!["mcp-era-codegen client".to_owned()];
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--check" => {
                check = true;
                continue;
            }
            "-h" | "--help" => {
                println!("{CLIENT_USAGE}");
                return Ok(());
            }
            "--stdio" => {
                let rest: Vec<String> = args.by_ref().collect();
                if rest.is_empty() {
                    return Err(format!("--stdio needs a command\n\n{CLIENT_USAGE}"));
                }
                command.push(format!("--stdio {}", rest.join(" ")));
                server = Some(rest);
                continue;
            }
            _ => {}
        }
        let value = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n\n{CLIENT_USAGE}"))?;
        match flag.as_str() {
            "--tools" => tools = Some(PathBuf::from(&value)),
            "--url" => url = Some(value.clone()),
            "--out" => out = Some(PathBuf::from(&value)),
            "--save-tools" => save = Some(PathBuf::from(&value)),
            "--name" => options.name = value.clone(),
            "--client-path" => options.client_path = value.clone(),
            other => return Err(format!("unknown argument {other}\n\n{CLIENT_USAGE}")),
        }
        if flag != "--save-tools" {
            command.push(format!("{flag} {value}"));
        }
    }
    let catalogue = match (tools, server, url) {
        (Some(path), None, None) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            serde_json::from_str(&text)
                .map_err(|e| format!("{} is not valid JSON: {e}", path.display()))?
        }
        (None, Some(cmd), None) => fetch_stdio(cmd)?,
        (None, None, Some(url)) => fetch_url(url)?,
        _ => {
            return Err(format!(
                "give one of --tools, --stdio, --url\n\n{CLIENT_USAGE}"
            ));
        }
    };
    if let Some(save) = save {
        let text = serde_json::to_string_pretty(&catalogue).map_err(|e| e.to_string())? + "\n";
        std::fs::write(&save, text).map_err(|e| format!("cannot write {}: {e}", save.display()))?;
    }
    options.command = command.join(" ");
    let generated = generate(&catalogue, &options).map_err(|e| e.to_string())?;
    for w in &generated.warnings {
        eprintln!("warning: {w}");
    }
    match out {
        Some(out) => write_out(out, generated.source, check),
        None => {
            use std::io::Write;
            std::io::stdout()
                .write_all(generated.source.as_bytes())
                .map_err(|e| format!("cannot write to stdout: {e}"))
        }
    }
}

#[cfg(feature = "live")]
fn fetch_stdio(mut cmd: Vec<String>) -> Result<serde_json::Value, String> {
    use mcp_era_codegen::client::live::{Server, fetch};
    let program = cmd.remove(0);
    fetch(&Server::Stdio(program, cmd)).map_err(|e| e.to_string())
}

#[cfg(feature = "live")]
fn fetch_url(url: String) -> Result<serde_json::Value, String> {
    use mcp_era_codegen::client::live::{Server, fetch};
    fetch(&Server::Url(url)).map_err(|e| e.to_string())
}

#[cfg(not(feature = "live"))]
const NO_LIVE: &str = "--stdio and --url need the `live` feature \
    (cargo install mcp-era-codegen --features live), or use `mcp-probe --codegen`";

#[cfg(not(feature = "live"))]
fn fetch_stdio(_: Vec<String>) -> Result<serde_json::Value, String> {
    Err(NO_LIVE.into())
}

#[cfg(not(feature = "live"))]
fn fetch_url(_: String) -> Result<serde_json::Value, String> {
    Err(NO_LIVE.into())
}
