//! The pinned schema manifest (`schema/manifest.toml`) and verified loading of
//! the schema files it names.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// Which generation of the protocol a revision belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// 2026-07-28 and later: per-request `_meta`, `server/discover`.
    Modern,
    /// 2025-11-25 and older: the `initialize` handshake.
    Legacy,
}

/// The parsed manifest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Where the schema files come from.
    pub upstream: Upstream,
    /// Every known revision, newest first.
    #[serde(rename = "revision")]
    pub revisions: Vec<Revision>,
    /// The upstream draft schema, if pinned: generated as `mcp_era_types::draft`
    /// behind a cargo feature; not a protocol version, so it is in no
    /// version table and never served.
    #[serde(default)]
    pub draft: Option<Draft>,
    /// Extension schemas (`[[extension]]`): each generated as
    /// `mcp_era_types::ext::<name>` on top of a core revision.
    #[serde(default, rename = "extension")]
    pub extensions: Vec<Extension>,
}

/// A pinned extension schema (`[[extension]]` in the manifest). Its
/// `$defs` repeat the core definitions it refers to; those must equal the
/// core revision's and are imported from its module, not generated again.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extension {
    /// Short name: the module `ext::<name>` (generated as `ext_<name>.rs`).
    pub name: String,
    /// The extension identifier, e.g. `io.modelcontextprotocol/tasks`.
    pub identifier: String,
    /// The generated core revision whose types the extension reuses.
    pub core: String,
    /// The schema file, relative to the schema directory.
    pub path: String,
    /// `owner/name` of the repository that publishes the schema, or
    /// `npm:<package>` for a schema published in a package.
    pub repository: String,
    /// The commit the file is pinned to (for a package: its version).
    pub commit: String,
    /// Download URL of the file at that commit.
    pub url: String,
    /// Expected sha256 of that file, lower-case hex.
    pub sha256: String,
}

impl Extension {
    /// The generated module's name, e.g. `ext_tasks`.
    pub fn module_name(&self) -> String {
        format!("ext_{}", self.name)
    }

    /// Where the schema lies under a schema directory.
    pub fn schema_path(&self, schema_dir: &Path) -> PathBuf {
        schema_dir.join(&self.path)
    }

    /// Reads the extension schema from `schema_dir`, checks its sha256 and
    /// parses it.
    pub fn load(&self, schema_dir: &Path) -> Result<serde_json::Value> {
        load_verified(
            &self.schema_path(schema_dir),
            &self.sha256,
            &self.identifier,
        )
    }
}

/// The pinned draft schema (`[draft]` in the manifest).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Draft {
    /// The era its rules follow.
    pub era: Era,
    /// The cargo feature of `mcp-types` that compiles the module.
    pub feature: String,
    /// Download URL of `schema.json` at the pinned commit.
    pub url: String,
    /// Expected sha256 of that file, lower-case hex.
    pub sha256: String,
}

impl Draft {
    /// The module name and the directory under the schema directory.
    pub const NAME: &'static str = "draft";

    /// Where the draft schema lies under a schema directory.
    pub fn schema_path(&self, schema_dir: &Path) -> PathBuf {
        schema_dir.join(Self::NAME).join("schema.json")
    }

    /// Reads the draft schema from `schema_dir`, checks its sha256 and
    /// parses it.
    pub fn load(&self, schema_dir: &Path) -> Result<serde_json::Value> {
        load_verified(&self.schema_path(schema_dir), &self.sha256, Self::NAME)
    }
}

/// The upstream repository and the commit every URL is pinned to.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Upstream {
    /// `owner/name` on GitHub.
    pub repository: String,
    /// Full commit hash.
    pub commit: String,
}

/// One protocol revision.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Revision {
    /// The protocol version string, e.g. `2026-07-28`.
    pub version: String,
    /// Its era.
    pub era: Era,
    /// Whether `mcp-types` gets a generated module for it.
    pub generate: bool,
    /// Download URL of `schema.json` at the pinned commit.
    pub url: String,
    /// Expected sha256 of that file, lower-case hex.
    pub sha256: String,
}

impl Revision {
    /// Rust module name of the revision, e.g. `v2026_07_28`.
    pub fn module_name(&self) -> String {
        format!("v{}", self.version.replace('-', "_"))
    }

    /// Where the schema of this revision lies under a schema directory.
    pub fn schema_path(&self, schema_dir: &Path) -> PathBuf {
        schema_dir.join(&self.version).join("schema.json")
    }

    /// Reads this revision's schema from `schema_dir`, checks its sha256 and
    /// parses it.
    pub fn load(&self, schema_dir: &Path) -> Result<serde_json::Value> {
        load_verified(&self.schema_path(schema_dir), &self.sha256, &self.version)
    }
}

/// Reads `path`, checks its sha256 against the manifest's `pinned` one for
/// entry `what`, and parses it.
fn load_verified(path: &Path, pinned: &str, what: &str) -> Result<serde_json::Value> {
    let bytes = std::fs::read(path)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", path.display())))?;
    let actual = sha256_hex(&bytes);
    if actual != pinned {
        return Err(Error::new(format!(
            "{}: sha256 is {actual}, but schema/manifest.toml pins {pinned} for {what}. \
             If this is a deliberate schema update, update the manifest entry \
             (sha256 and commit) and regenerate.",
            path.display(),
        )));
    }
    serde_json::from_slice(&bytes)
        .map_err(|e| Error::new(format!("{} is not valid JSON: {e}", path.display())))
}

fn check_pin(what: &str, sha256: &str, url: &str, commit: &str) -> Result<()> {
    if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::new(format!(
            "schema/manifest.toml: {what}: sha256 must be 64 hex digits"
        )));
    }
    if !url.contains(commit) {
        return Err(Error::new(format!(
            "schema/manifest.toml: {what}: url is not pinned to upstream commit {commit}"
        )));
    }
    Ok(())
}

impl Manifest {
    /// Parses manifest text and checks it for internal consistency.
    pub fn parse(text: &str) -> Result<Self> {
        let manifest: Manifest =
            toml::from_str(text).map_err(|e| Error::new(format!("schema/manifest.toml: {e}")))?;
        let commit = &manifest.upstream.commit;
        if let Some(draft) = &manifest.draft {
            check_pin("draft", &draft.sha256, &draft.url, commit)?;
        }
        for ext in &manifest.extensions {
            let what = format!("extension {}", ext.name);
            check_pin(&what, &ext.sha256, &ext.url, &ext.commit)?;
            let valid_name = !ext.name.is_empty()
                && ext
                    .name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
            if !valid_name {
                return Err(Error::new(format!(
                    "schema/manifest.toml: {what}: name must be lower-case ASCII, digits or _"
                )));
            }
            let core = manifest.revisions.iter().find(|r| r.version == ext.core);
            if !core.is_some_and(|r| r.generate) {
                return Err(Error::new(format!(
                    "schema/manifest.toml: {what}: core {} is not a generated revision",
                    ext.core
                )));
            }
        }
        for (i, rev) in manifest.revisions.iter().enumerate() {
            let what = format!("revision {}", rev.version);
            check_pin(&what, &rev.sha256, &rev.url, commit)?;
            // Dates compare as strings; `KNOWN_VERSIONS` promises newest first,
            // which also rules out a revision listed twice.
            if i > 0 && manifest.revisions[i - 1].version <= rev.version {
                return Err(Error::new(format!(
                    "schema/manifest.toml: revision {} must come after {} (newest first, each once)",
                    manifest.revisions[i - 1].version,
                    rev.version
                )));
            }
        }
        Ok(manifest)
    }

    /// Reads and parses the manifest file.
    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(format!("cannot read {}: {e}", path.display())))?;
        Self::parse(&text)
    }

    /// The revisions that get a generated module.
    pub fn generated(&self) -> impl Iterator<Item = &Revision> {
        self.revisions.iter().filter(|r| r.generate)
    }
}

/// Lower-case hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(version: &str) -> String {
        format!(
            "[[revision]]\nversion = \"{version}\"\nera = \"legacy\"\ngenerate = false\n\
             url = \"https://example.com/abc/{version}.json\"\nsha256 = \"{}\"\n",
            "0".repeat(64)
        )
    }

    fn manifest(versions: &[&str]) -> Result<Manifest> {
        let mut text = String::from("[upstream]\nrepository = \"o/r\"\ncommit = \"abc\"\n");
        for v in versions {
            text.push_str(&entry(v));
        }
        Manifest::parse(&text)
    }

    #[test]
    fn revisions_must_be_newest_first_and_unique() {
        assert!(manifest(&["2025-11-25", "2025-06-18"]).is_ok());
        let error = manifest(&["2025-06-18", "2025-11-25"]).unwrap_err();
        assert!(error.0.contains("newest first"), "{error}");
        assert!(manifest(&["2025-06-18", "2025-06-18"]).is_err());
    }

    #[test]
    fn the_project_manifest_parses() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../schema/manifest.toml");
        let manifest = Manifest::read(std::path::Path::new(path)).unwrap();
        assert!(manifest.generated().any(|r| r.era == Era::Modern));
        assert!(manifest.generated().any(|r| r.era == Era::Legacy));
        let tasks = manifest.extensions.iter().find(|e| e.name == "tasks");
        assert_eq!(
            tasks.map(|e| e.identifier.as_str()),
            Some("io.modelcontextprotocol/tasks")
        );
        let draft = manifest.draft.expect("the draft schema is pinned");
        assert_eq!(draft.era, Era::Modern);
    }
}
