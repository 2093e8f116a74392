//! The pinned schema manifest (`schema/manifest.toml`) and verified loading of
//! the schema files it names.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::{Error, Result};

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
        let path = self.schema_path(schema_dir);
        let bytes = std::fs::read(&path)
            .map_err(|e| Error::new(format!("cannot read {}: {e}", path.display())))?;
        let actual = sha256_hex(&bytes);
        if actual != self.sha256 {
            return Err(Error::new(format!(
                "{}: sha256 is {actual}, but schema/manifest.toml pins {} for {}. \
                 If this is a deliberate schema update, update the manifest entry \
                 (sha256 and commit) and regenerate.",
                path.display(),
                self.sha256,
                self.version
            )));
        }
        serde_json::from_slice(&bytes)
            .map_err(|e| Error::new(format!("{} is not valid JSON: {e}", path.display())))
    }
}

impl Manifest {
    /// Parses manifest text and checks it for internal consistency.
    pub fn parse(text: &str) -> Result<Self> {
        let manifest: Manifest =
            toml::from_str(text).map_err(|e| Error::new(format!("schema/manifest.toml: {e}")))?;
        for (i, rev) in manifest.revisions.iter().enumerate() {
            if rev.sha256.len() != 64 || !rev.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(Error::new(format!(
                    "schema/manifest.toml: revision {}: sha256 must be 64 hex digits",
                    rev.version
                )));
            }
            if !rev.url.contains(&manifest.upstream.commit) {
                return Err(Error::new(format!(
                    "schema/manifest.toml: revision {}: url is not pinned to upstream commit {}",
                    rev.version, manifest.upstream.commit
                )));
            }
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
    }
}
