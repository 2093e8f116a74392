//! Project automation, run as `cargo xtask <command>`: the only writer of
//! generated files.
//!
//! - `regen [--check] [--schema-dir DIR]`: regenerate `mcp-types/src/generated/`
//!   from the schemas pinned in `schema/manifest.toml`.
//! - `diff A B [--out FILE] [--schema-dir DIR]`: the semantic changelog between
//!   two schemas (revisions of the manifest, `draft`, or files) as Markdown; `regen`
//!   keeps the checked-in ones under `docs/schema-diff/` current (see the `diff` module).
//! - `fetch-schema [--dest DIR]`: download the pinned schema files and verify them.
//! - `layers [--doc FILE]`: check that each crate's files import one another
//!   only along the layers that `ARCHITECTURE.md` declares (see the `layers` module).

mod diff;
mod layers;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use mcp_era_codegen::manifest::{Draft, Manifest, sha256_hex};
use mcp_era_codegen::{
    DeltaBase, EmitOptions, ExtensionTarget, generate_delta, generate_extension, generate_revision,
    generate_versions,
};
use mcp_era_versions::{IMPLEMENTED_VERSIONS, KnownVersion};

const USAGE: &str = "usage:
  cargo xtask regen [--check] [--schema-dir DIR]
  cargo xtask diff A B [--out FILE] [--schema-dir DIR]
  cargo xtask fetch-schema [--dest DIR]
  cargo xtask layers [--doc FILE]

The schema directory holds <revision>/schema.json for every revision of
schema/manifest.toml, and each [[extension]] file at its `path`
(ext/tasks/schema.json). It defaults to $MCP_SCHEMA_DIR, then to schema/upstream
(where fetch-schema puts the files).

diff compares two schemas, each a revision of schema/manifest.toml (or
`draft`) or a path to a schema file, and prints (or writes to FILE) the
changes of the generated Rust types as Markdown, breaking ones tagged.

layers checks every crate that a ```layers block of ARCHITECTURE.md (or of
--doc FILE) declares: no file imports a higher layer or a sibling group of
its own layer, and no files import each other in a circle.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("regen") => regen(&args[1..]),
        Some("diff") => schema_diff(&args[1..]),
        Some("fetch-schema") => fetch_schema(&args[1..]),
        Some("layers") => check_layers(&args[1..]),
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
    let mut extension_modules = Vec::new();
    for revision in manifest.generated() {
        let schema = revision.load(&dir).map_err(|e| e.to_string())?;
        let module = revision.module_name();
        let source = generate_revision(&schema, revision.era, &revision.version, &options)
            .map_err(|e| format!("{}: {e}", revision.version))?;
        expected.insert(format!("{module}.rs"), source);
        modules.push((module, None));
    }
    if let Some(draft) = &manifest.draft {
        let schema = draft.load(&dir).map_err(|e| e.to_string())?;
        // A delta of the newest generated revision of its era, if any: the
        // draft mostly equals it, and a full copy doubles the compile time.
        let base = manifest
            .generated()
            .filter(|r| r.era == draft.era)
            .max_by(|a, b| a.version.cmp(&b.version));
        let source = match base {
            Some(base) => {
                let base_schema = base.load(&dir).map_err(|e| e.to_string())?;
                let base_module = format!("super::{}", base.module_name());
                let base = DeltaBase {
                    version: &base.version,
                    schema: &base_schema,
                    module: &base_module,
                };
                generate_delta(&schema, draft.era, Draft::NAME, &base, &options)
            }
            None => generate_revision(&schema, draft.era, Draft::NAME, &options),
        }
        .map_err(|e| format!("{}: {e}", Draft::NAME))?;
        expected.insert(format!("{}.rs", Draft::NAME), source);
        modules.push((Draft::NAME.to_owned(), Some(draft.feature.clone())));
    }
    for extension in &manifest.extensions {
        let schema = extension.load(&dir).map_err(|e| e.to_string())?;
        let core = manifest
            .revisions
            .iter()
            .find(|r| r.version == extension.core)
            .ok_or_else(|| format!("extension {}: no core {}", extension.name, extension.core))?;
        let core_schema = core.load(&dir).map_err(|e| e.to_string())?;
        let core_module = format!("::mcp_era_types::{}", core.module_name());
        let target = ExtensionTarget {
            identifier: &extension.identifier,
            core_version: &core.version,
            core_schema: &core_schema,
            core_module: &core_module,
        };
        let source = generate_extension(&schema, core.era, &target, &options)
            .map_err(|e| format!("extension {}: {e}", extension.name))?;
        let module = extension.module_name();
        expected.insert(format!("{module}.rs"), source);
        extension_modules.push((module, extension.name.clone()));
    }
    expected.insert(
        "mod.rs".into(),
        module_index(&modules, &extension_modules, &options.command),
    );

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
    files.extend(diff::checked_in(&manifest, &dir, &root)?);
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
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
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
    if let Some(steps) = follow_up(&manifest, IMPLEMENTED_VERSIONS) {
        println!("\n{steps}");
    }
    Ok(())
}

/// What else to do when a revision has types but the runtime does not
/// implement it (typically: a new revision was just generated); `None`
/// when every generated revision is implemented.
fn follow_up(manifest: &Manifest, implemented: &[KnownVersion]) -> Option<String> {
    let pending: Vec<&str> = manifest
        .generated()
        .filter(|r| !implemented.iter().any(|k| k.version == r.version))
        .map(|r| r.version.as_str())
        .collect();
    if pending.is_empty() {
        return None;
    }
    let list = pending.join(", ");
    Some(format!(
        "note: {list} now {} types in mcp-types but the runtime does not implement {}: \
         no server serves or advertises {} yet. To adopt a revision (docs/adopting-a-revision.md):\n\
         \x20 1. read docs/schema-diff/ (written by this regen; `cargo xtask diff A B` for any pair): \
         new methods, new or removed types, changed fields and enum values, each judged for semver;\n\
         \x20 2. handle each difference in mcp-server and mcp-client (dispatch new methods, \
         switch or add the v* imports, per-version behaviour of legacy sessions);\n\
         \x20 3. add it to IMPLEMENTED_VERSIONS and its era list in mcp-versions/src/implemented.rs;\n\
         \x20 4. add tests: mcp-server/tests/behaviour.rs (discover, _meta version, -32022, \
         initialize), mcp-client/tests, official examples; keep mcp-derive-ui/tests/ui/unimplemented_version.rs \
         naming an unimplemented version;\n\
         \x20 5. run the interop scripts; update docs/adopting-a-revision.md, README and CHANGELOG.md.",
        if pending.len() == 1 { "has" } else { "have" },
        if pending.len() == 1 { "it" } else { "them" },
        if pending.len() == 1 { "it" } else { "them" },
    ))
}

/// `generated/mod.rs`: one module per generated revision, the draft
/// behind its feature, and the extension modules, crate-private because
/// `ext/` re-exports each (`ext_tasks` as `ext::tasks`).
fn module_index(
    modules: &[(String, Option<String>)],
    extensions: &[(String, String)],
    command: &str,
) -> String {
    let mut out = format!(
        "// @generated by `{command}`. Do not edit by hand: change codegen/ and regenerate.\n\n\
         //! The generated modules, one per revision of `schema/manifest.toml`.\n\
         //! They are formatted by prettyplease, so rustfmt skips them.\n\n"
    );
    for (module, feature) in modules {
        let gate = match feature {
            Some(feature) => format!(
                "// The upstream draft: not a protocol version, never served.\n\
                 #[cfg(feature = \"{feature}\")]\n"
            ),
            None => String::new(),
        };
        out.push_str(&format!(
            "// Some schema properties have no description.\n{gate}#[allow(missing_docs)]\n#[rustfmt::skip]\npub mod {module};\n"
        ));
    }
    for (module, name) in extensions {
        out.push_str(&format!(
            "// Public as `ext::{name}`.\n#[allow(missing_docs)]\n#[rustfmt::skip]\npub(crate) mod {module};\n"
        ));
    }
    out
}

fn schema_diff(args: &[String]) -> Result<(), String> {
    let mut args = args.to_vec();
    let root = workspace_root();
    let out = take_value(&mut args, "--out")?;
    let explicit_dir = take_value(&mut args, "--schema-dir")?;
    let [old, new] = args.as_slice() else {
        return Err(format!("diff needs two schemas\n\n{USAGE}"));
    };
    let manifest = Manifest::read(&root.join("schema/manifest.toml")).map_err(|e| e.to_string())?;
    let dir = schema_dir(explicit_dir, &root)?;
    let text = diff::markdown(&manifest, &dir, old, new)?;
    match out {
        Some(path) => {
            std::fs::write(&path, text).map_err(|e| format!("cannot write {path}: {e}"))?
        }
        None => print!("{text}"),
    }
    Ok(())
}

fn check_layers(args: &[String]) -> Result<(), String> {
    let mut args = args.to_vec();
    let root = workspace_root();
    let doc = take_value(&mut args, "--doc")?
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join(layers::DOC));
    no_more(&args)?;
    print!("{}", layers::run(&root, &doc)?);
    Ok(())
}

fn fetch_schema(args: &[String]) -> Result<(), String> {
    let mut args = args.to_vec();
    let root = workspace_root();
    let dest = take_value(&mut args, "--dest")?
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("schema/upstream"));
    no_more(&args)?;
    let manifest = Manifest::read(&root.join("schema/manifest.toml")).map_err(|e| e.to_string())?;
    let mut pins: Vec<(&str, PathBuf, &str, &str)> = manifest
        .revisions
        .iter()
        .map(|r| {
            (
                r.version.as_str(),
                r.schema_path(&dest),
                r.url.as_str(),
                r.sha256.as_str(),
            )
        })
        .collect();
    if let Some(draft) = &manifest.draft {
        pins.push((
            Draft::NAME,
            draft.schema_path(&dest),
            draft.url.as_str(),
            draft.sha256.as_str(),
        ));
    }
    for extension in &manifest.extensions {
        pins.push((
            extension.identifier.as_str(),
            extension.schema_path(&dest),
            extension.url.as_str(),
            extension.sha256.as_str(),
        ));
    }
    for (name, path, url, sha256) in pins {
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
            .arg(url)
            .status()
            .map_err(|e| format!("cannot run curl (is it installed?): {e}"))?;
        if !status.success() {
            let _ = std::fs::remove_file(&path);
            return Err(format!(
                "could not download {} ({}). Offline? Point --schema-dir or \
                 MCP_SCHEMA_DIR at a directory that already holds the files.",
                url, status
            ));
        }
        let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
        let actual = sha256_hex(&bytes);
        if actual != sha256 {
            return Err(format!(
                "{name}: downloaded file has sha256 {actual}, manifest pins {sha256}"
            ));
        }
        println!("{name} verified: {}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        reason = "test code: a panic is the failure report"
    )]

    use super::*;

    fn manifest_with(extra_modern: &str) -> Manifest {
        let text = std::fs::read_to_string(workspace_root().join("schema/manifest.toml")).unwrap();
        let entry = format!(
            "[[revision]]\nversion = \"{extra_modern}\"\nera = \"modern\"\ngenerate = true\n\
             url = \"https://example.com/b0f60ba5409db7a6582440a7b473cc0398890f15/x.json\"\nsha256 = \"{}\"\n\n",
            "0".repeat(64)
        );
        // Newest first: the new entry goes before the first one.
        let text = text.replacen("[[revision]]", &format!("{entry}[[revision]]"), 1);
        Manifest::parse(&text).unwrap()
    }

    #[test]
    fn a_generated_but_unimplemented_revision_names_the_follow_up_steps() {
        let project = Manifest::read(&workspace_root().join("schema/manifest.toml")).unwrap();
        assert_eq!(follow_up(&project, IMPLEMENTED_VERSIONS), None);
        let steps = follow_up(&manifest_with("2026-12-01"), IMPLEMENTED_VERSIONS).unwrap();
        assert!(
            steps.starts_with("note: 2026-12-01 now has types"),
            "{steps}"
        );
        for expected in [
            "docs/adopting-a-revision.md",
            "mcp-versions/src/implemented.rs",
            "mcp-server/tests/behaviour.rs",
        ] {
            assert!(steps.contains(expected), "{expected}: {steps}");
        }
    }

    #[test]
    fn the_draft_is_gated_by_its_feature() {
        let index = module_index(
            &[
                ("v2026_07_28".into(), None),
                ("draft".into(), Some("draft".into())),
            ],
            &[("ext_tasks".into(), "tasks".into())],
            "cargo xtask regen",
        );
        assert!(index.contains("#[rustfmt::skip]\npub(crate) mod ext_tasks;"));
        assert!(index.contains(
            "#[cfg(feature = \"draft\")]\n#[allow(missing_docs)]\n#[rustfmt::skip]\npub mod draft;"
        ));
        assert!(!index.contains(
            "#[cfg(feature = \"draft\")]\n#[allow(missing_docs)]\n#[rustfmt::skip]\npub mod v2026"
        ));
    }
}
