//! Project automation, run as `cargo xtask <command>`: the only writer of
//! generated files.
//!
//! - `regen [--check] [--schema-dir DIR]`: regenerate `mcp-types/src/generated/`
//!   from the schemas pinned in `schema/manifest.toml`.
//! - `fetch-schema [--dest DIR]`: download the pinned schema files and verify them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use codegen::manifest::{Manifest, sha256_hex};
use codegen::{EmitOptions, generate_revision, generate_versions};

const USAGE: &str = "usage:
  cargo xtask regen [--check] [--schema-dir DIR]
  cargo xtask fetch-schema [--dest DIR]

The schema directory holds <revision>/schema.json for every revision of
schema/manifest.toml. It defaults to $MCP_SCHEMA_DIR, then to schema/upstream
(where fetch-schema puts the files).";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("regen") => regen(&args[1..]),
        Some("fetch-schema") => fetch_schema(&args[1..]),
        _ => Err(USAGE.to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn workspace_root() -> PathBuf {
    let xtask_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    xtask_dir.parent().unwrap_or(xtask_dir).to_path_buf()
}

/// Reads `--flag VALUE` from `args`; other flags are returned for checking.
fn take_value(args: &mut Vec<String>, flag: &str) -> Result<Option<String>, String> {
    match args.iter().position(|a| a == flag) {
        Some(i) if i + 1 < args.len() => {
            let value = args.remove(i + 1);
            args.remove(i);
            Ok(Some(value))
        }
        Some(_) => Err(format!("{flag} needs a value\n\n{USAGE}")),
        None => Ok(None),
    }
}

fn take_flag(args: &mut Vec<String>, flag: &str) -> bool {
    let before = args.len();
    args.retain(|a| a != flag);
    args.len() != before
}

fn no_more(args: &[String]) -> Result<(), String> {
    match args.first() {
        Some(unknown) => Err(format!("unknown argument {unknown}\n\n{USAGE}")),
        None => Ok(()),
    }
}

fn schema_dir(explicit: Option<String>, root: &Path) -> Result<PathBuf, String> {
    if let Some(dir) = explicit {
        return Ok(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("MCP_SCHEMA_DIR") {
        return Ok(PathBuf::from(dir));
    }
    let fetched = root.join("schema/upstream");
    if fetched.is_dir() {
        return Ok(fetched);
    }
    Err(format!(
        "no schema directory: pass --schema-dir DIR, set MCP_SCHEMA_DIR \
         (e.g. MCP_SCHEMA_DIR=../shared/mcp-schema), or run `cargo xtask fetch-schema`\n\n{USAGE}"
    ))
}

fn regen(args: &[String]) -> Result<(), String> {
    let started = Instant::now();
    let mut args = args.to_vec();
    let check = take_flag(&mut args, "--check");
    let explicit_dir = take_value(&mut args, "--schema-dir")?;
    no_more(&args)?;

    let root = workspace_root();
    let manifest = Manifest::read(&root.join("schema/manifest.toml")).map_err(|e| e.to_string())?;
    let dir = schema_dir(explicit_dir, &root)?;
    let options = EmitOptions::default();

    let mut expected: BTreeMap<String, String> = BTreeMap::new();
    let mut modules = Vec::new();
    for revision in manifest.generated() {
        let schema = revision.load(&dir).map_err(|e| e.to_string())?;
        let module = revision.module_name();
        let source = generate_revision(&schema, revision.era, &revision.version, &options)
            .map_err(|e| format!("{}: {e}", revision.version))?;
        expected.insert(format!("{module}.rs"), source);
        modules.push(module);
    }
    expected.insert("mod.rs".into(), module_index(&modules, &options.command));

    // Every generated file, by path; only `out_dir` may hold orphans.
    let out_dir = root.join("mcp-types/src/generated");
    let mut files: BTreeMap<PathBuf, String> = expected
        .into_iter()
        .map(|(name, contents)| (out_dir.join(name), contents))
        .collect();
    files.insert(
        root.join("mcp-versions/src/generated.rs"),
        generate_versions(&manifest, &options).map_err(|e| e.to_string())?,
    );
    let stale: Vec<PathBuf> = files
        .iter()
        .filter(|(path, contents)| {
            std::fs::read_to_string(path).ok().as_deref() != Some(contents.as_str())
        })
        .map(|(path, _)| path.clone())
        .collect();
    let orphans: Vec<PathBuf> = std::fs::read_dir(&out_dir)
        .map_err(|e| format!("cannot list {}: {e}", out_dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| !files.contains_key(path))
        .collect();

    if check {
        if stale.is_empty() && orphans.is_empty() {
            println!("generated code is up to date ({:.2?})", started.elapsed());
            return Ok(());
        }
        let mut message = String::from("generated code is out of date:\n");
        for path in &stale {
            message.push_str(&format!("  stale: {}\n", path.display()));
        }
        for path in &orphans {
            message.push_str(&format!("  produced by no schema: {}\n", path.display()));
        }
        message.push_str(&format!(
            "run: MCP_SCHEMA_DIR={} cargo xtask regen",
            dir.display()
        ));
        return Err(message);
    }

    std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    for path in &stale {
        std::fs::write(path, &files[path])
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    for path in &orphans {
        std::fs::remove_file(path).map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
        println!("removed {}", path.display());
    }
    println!(
        "regen: {} files, {} changed, {} removed ({:.2?})",
        files.len(),
        stale.len(),
        orphans.len(),
        started.elapsed()
    );
    Ok(())
}

/// `generated/mod.rs`: one module per generated revision.
fn module_index(modules: &[String], command: &str) -> String {
    let mut out = format!(
        "// @generated by `{command}`. Do not edit by hand: change codegen/ and regenerate.\n\n\
         //! The generated modules, one per revision of `schema/manifest.toml`.\n\
         //! They are formatted by prettyplease, so rustfmt skips them.\n\n"
    );
    for module in modules {
        out.push_str(&format!(
            "// Some schema properties have no description.\n#[allow(missing_docs)]\n#[rustfmt::skip]\npub mod {module};\n"
        ));
    }
    out
}

fn fetch_schema(args: &[String]) -> Result<(), String> {
    let mut args = args.to_vec();
    let root = workspace_root();
    let dest = take_value(&mut args, "--dest")?
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("schema/upstream"));
    no_more(&args)?;
    let manifest = Manifest::read(&root.join("schema/manifest.toml")).map_err(|e| e.to_string())?;
    for revision in &manifest.revisions {
        let path = revision.schema_path(&dest);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        let status = Command::new("curl")
            .args(["--fail", "--silent", "--show-error", "--location"])
            .args([
                "--retry",
                "3",
                "--retry-delay",
                "2",
                "--connect-timeout",
                "15",
            ])
            .arg("--output")
            .arg(&path)
            .arg(&revision.url)
            .status()
            .map_err(|e| format!("cannot run curl (is it installed?): {e}"))?;
        if !status.success() {
            let _ = std::fs::remove_file(&path);
            return Err(format!(
                "could not download {} ({}). Offline? Point --schema-dir or \
                 MCP_SCHEMA_DIR at a directory that already holds the files.",
                revision.url, status
            ));
        }
        let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
        let actual = sha256_hex(&bytes);
        if actual != revision.sha256 {
            return Err(format!(
                "{}: downloaded file has sha256 {actual}, manifest pins {}",
                revision.version, revision.sha256
            ));
        }
        println!("{} verified: {}", revision.version, path.display());
    }
    Ok(())
}
