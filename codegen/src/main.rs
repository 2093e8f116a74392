//! `mcp-era-codegen`: the generator's CLI, a thin shell over the library for any
//! MCP schema file (this repository's own modules come from `cargo xtask regen`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mcp_era_codegen::manifest::Era;
use mcp_era_codegen::{
    EmitOptions, ExtensionTarget, detect_era, generate_extension, generate_revision,
};

const USAGE: &str = "usage: mcp-era-codegen --schema FILE [--out FILE] [options]
       mcp-era-codegen --schema EXT_FILE --extension ID --core CORE_FILE [--out FILE] [options]
       mcp-era-codegen client --help   (a typed client from a tool catalogue)

Generates Rust types from one MCP JSON schema (stdout without --out): a
protocol revision, or with --extension an extension schema whose copies of
core definitions must equal the core revision's and are imported from it.

options:
  --version V            the VERSION constant (default: the schema's folder name, e.g. 2026-07-28)
  --era modern|legacy    default: detected ($defs has DiscoverRequest: modern; InitializeRequest: legacy)
                         from the schema, or with --extension from the core schema
  --extension ID         generate an extension module, e.g. io.modelcontextprotocol/tasks
  --core FILE            the core revision's schema that the extension was written against
  --core-version V       the core revision (default: the core schema's folder name)
  --core-module PATH     the core revision's generated module (default: ::mcp_era_types::vYYYY_MM_DD)
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
    let mut extension = Extension::default();
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
            "--extension" => extension.identifier = Some(value),
            "--core" => extension.core = Some(PathBuf::from(value)),
            "--core-version" => extension.core_version = Some(value),
            "--core-module" => extension.core_module = Some(value),
            other => return Err(format!("unknown argument {other}\n\n{USAGE}")),
        }
    }
    let schema_path = schema.ok_or_else(|| format!("--schema is required\n\n{USAGE}"))?;
    extension.check(version.is_some())?;
    let schema = read_schema(&schema_path)?;
    let command = command.unwrap_or_else(|| {
        let mut c = format!("mcp-era-codegen --schema {}", schema_path.display());
        if let Some(id) = &extension.identifier {
            c.push_str(&format!(" --extension {id}"));
        }
        if let Some(core) = &extension.core {
            c.push_str(&format!(" --core {}", core.display()));
        }
        for (flag, value) in [
            ("--core-version", &extension.core_version),
            ("--core-module", &extension.core_module),
        ] {
            if let Some(value) = value {
                c.push_str(&format!(" {flag} {value}"));
            }
        }
        if let Some(out) = &out {
            c.push_str(&format!(" --out {}", out.display()));
        }
        c
    });
    let options = options.command(command);
    let source = match extension.identifier.take() {
        Some(identifier) => {
            // Present: `check` refused --extension without it.
            let core_path = extension.core.unwrap_or_default();
            let core_version = match extension.core_version {
                Some(v) => v,
                None => folder_name(&core_path).ok_or(
                    "cannot take the core version from the core schema's folder: pass --core-version",
                )?,
            };
            let core_module = extension
                .core_module
                .unwrap_or_else(|| format!("::mcp_era_types::v{}", core_version.replace('-', "_")));
            let core_schema = read_schema(&core_path)?;
            let era = era_of(era, &core_schema, &core_path)?;
            let target = ExtensionTarget {
                identifier: &identifier,
                core_version: &core_version,
                core_schema: &core_schema,
                core_module: &core_module,
            };
            generate_extension(&schema, era, &target, &options)
        }
        None => {
            let version = match version {
                Some(v) => v,
                None => folder_name(&schema_path)
                    .ok_or("cannot take the version from the schema's folder: pass --version")?,
            };
            let era = era_of(era, &schema, &schema_path)?;
            generate_revision(&schema, era, &version, &options)
        }
    }
    .map_err(|e| format!("{}: {e}", schema_path.display()))?;
    let Some(out) = out else {
        use std::io::Write;
        return std::io::stdout()
            .write_all(source.as_bytes())
            .map_err(|e| format!("cannot write to stdout: {e}"));
    };
    write_out(out, source, check)
}

/// The flags of an extension module; `--extension` is what asks for one.
#[derive(Default)]
struct Extension {
    identifier: Option<String>,
    core: Option<PathBuf>,
    core_version: Option<String>,
    core_module: Option<String>,
}

impl Extension {
    /// Refuses flags that contradict each other, before any file is read.
    fn check(&self, version_given: bool) -> Result<(), String> {
        if self.identifier.is_some() {
            if self.core.is_none() {
                return Err(format!(
                    "--extension needs --core CORE_FILE: the schema of the core revision \
                     it was written against\n\n{USAGE}"
                ));
            }
            if version_given {
                return Err(format!(
                    "--version names a revision; an extension's core revision is \
                     --core-version\n\n{USAGE}"
                ));
            }
            return Ok(());
        }
        let given = [
            (self.core.is_some(), "--core"),
            (self.core_version.is_some(), "--core-version"),
            (self.core_module.is_some(), "--core-module"),
        ];
        match given.into_iter().find(|(given, _)| *given) {
            Some((_, flag)) => Err(format!(
                "{flag} belongs to an extension module: pass --extension ID too\n\n{USAGE}"
            )),
            None => Ok(()),
        }
    }
}

fn read_schema(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not valid JSON: {e}", path.display()))
}

/// A schema's folder name, which names its revision (`2026-07-28/schema.json`).
fn folder_name(path: &Path) -> Option<String> {
    path.parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
}

/// `--era` if given, else detected from `schema` (a revision's own, or an
/// extension's core: an extension schema need not say its era).
fn era_of(given: Option<Era>, schema: &serde_json::Value, path: &Path) -> Result<Era, String> {
    given.or_else(|| detect_era(schema)).ok_or_else(|| {
        format!(
            "cannot tell the era of {}: pass --era modern|legacy",
            path.display()
        )
    })
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
