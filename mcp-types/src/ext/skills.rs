//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640), written
//! by hand because no schema is published: the `skills/list`, `skills/get`
//! and `resources/directory/read` messages, skill entries, `skill://` URI
//! helpers and (feature `skills`) digests, frontmatter parsing and the
//! checks a host makes on what it reads.
//!
//! Where the SEP draft and the conformance suite differ, these types follow
//! the suite: every file entry carries `size`, and `resources` is required,
//! either a list of files or the string `"dynamic"`.
//!
//! ```
//! use mcp_era_types::ext::skills::{self, SkillEntry};
//!
//! let entry: SkillEntry = serde_json::from_value(serde_json::json!({
//!     "uri": "skill://git-workflow/SKILL.md",
//!     "frontmatter": {"name": "git-workflow", "description": "Team conventions"},
//!     "resources": "dynamic"
//! }))
//! .unwrap();
//! assert_eq!(skills::skill_name(&entry.uri), Some("git-workflow"));
//! assert_eq!(skills::skill_root(&entry.uri), Some("skill://git-workflow"));
//! assert!(entry.files().is_none());
//! ```

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::v2026_07_28::{CacheScope, Resource};

/// The extension's identifier, the key under `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/skills";
/// The method that enumerates a server's skills.
pub const SKILLS_LIST: &str = "skills/list";
/// The method that returns one skill's entry by the URI of its `SKILL.md`.
pub const SKILLS_GET: &str = "skills/get";
/// The method that lists a directory resource's direct children (gated by
/// the `directoryRead` setting).
pub const RESOURCES_DIRECTORY_READ: &str = "resources/directory/read";
/// The file every skill has at its root.
pub const SKILL_MD: &str = "SKILL.md";
/// The URI scheme servers should use for skill files.
pub const SCHEME: &str = "skill://";
/// The `mimeType` of a directory resource.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";
/// The `mimeType` a `SKILL.md` resource should have.
pub const SKILL_MD_MIME_TYPE: &str = "text/markdown";
/// The `resources` value of a skill whose content cannot be pre-digested.
pub const DYNAMIC: &str = "dynamic";
/// The `_meta` key prefix for skill resources.
pub const META_PREFIX: &str = "io.modelcontextprotocol.skills/";
/// The most file entries a skill should have (suite: SHOULD NOT exceed).
pub const MAX_RESOURCES_PER_SKILL: usize = 512;
/// The most bytes a skill's files should add up to: 16 MiB.
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// The extension's settings under `capabilities.extensions`: an empty object
/// declares support with no optional features.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillsSettings {
    /// The server implements `resources/directory/read`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory_read: Option<bool>,
    /// Settings this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SkillsSettings {
    /// Whether `directoryRead` is `true`.
    pub fn directory_read(&self) -> bool {
        self.directory_read == Some(true)
    }
}

/// `skills/list` parameters: an optional pagination cursor.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListSkillsParams {
    /// The `nextCursor` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// `skills/list` result: one page of entries, with the list-caching hints
/// (2026-07-28 and later).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// The entries of this page; an entry is never split across pages.
    pub skills: Vec<SkillEntry>,
    /// Present when more pages follow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness hint of the listing, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache the listing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Other members (`resultType`, `_meta`).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `skills/get` parameters: the URI of a skill's `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetSkillParams {
    /// The skill's `SKILL.md` URI.
    pub uri: String,
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// `skills/get` result: one entry, no cursor; the suite requires the
/// caching hints on 2026-07-28 (the SEP draft leaves them open).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetSkillResult {
    /// The skill's entry, as `skills/list` would give it.
    pub skill: SkillEntry,
    /// Freshness hint, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Other members (`resultType`, `_meta`).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `resources/directory/read` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectoryReadParams {
    /// The directory resource's URI, without a trailing slash.
    pub uri: String,
    /// The `nextCursor` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// The request's `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// `resources/directory/read` result: the direct children, subdirectories
/// with `mimeType` [`DIRECTORY_MIME_TYPE`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DirectoryReadResult {
    /// The directory's direct children.
    pub resources: Vec<Resource>,
    /// Present when more pages follow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Other members (`resultType`, `_meta`, caching hints).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One skill: the URI of its `SKILL.md`, its frontmatter verbatim, and its
/// files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillEntry {
    /// The `SKILL.md` resource URI; its last path segment before `SKILL.md`
    /// is the skill's name.
    pub uri: String,
    /// The `SKILL.md` YAML frontmatter rendered as JSON, every field.
    pub frontmatter: Map<String, Value>,
    /// Every file of the skill, or `"dynamic"`.
    pub resources: SkillResources,
}

impl SkillEntry {
    /// `frontmatter.name`, if a string.
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name").and_then(Value::as_str)
    }

    /// `frontmatter.description`, if a string.
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.get("description").and_then(Value::as_str)
    }

    /// The file list; `None` for a dynamic skill.
    pub fn files(&self) -> Option<&[SkillFile]> {
        match &self.resources {
            SkillResources::Files(files) => Some(files),
            SkillResources::Dynamic => None,
        }
    }

    /// The file entry of `uri`, if listed.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        self.files()?.iter().find(|f| f.uri == uri)
    }

    /// The skill's root directory URI (`SKILL.md` removed).
    pub fn root(&self) -> Option<&str> {
        skill_root(&self.uri)
    }
}

/// A skill's files: the complete list, or `"dynamic"` when the content is
/// generated and cannot be pre-digested.
#[derive(Debug, Clone, PartialEq)]
pub enum SkillResources {
    /// Every file, each once, `SKILL.md` included.
    Files(Vec<SkillFile>),
    /// `"dynamic"`: no manifest, no integrity.
    Dynamic,
}

impl Serialize for SkillResources {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Files(files) => files.serialize(serializer),
            Self::Dynamic => serializer.serialize_str(DYNAMIC),
        }
    }
}

impl<'de> Deserialize<'de> for SkillResources {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(s) if s == DYNAMIC => Ok(Self::Dynamic),
            array @ Value::Array(_) => serde_json::from_value(array)
                .map(Self::Files)
                .map_err(serde::de::Error::custom),
            other => Err(serde::de::Error::custom(format!(
                "resources must be an array of files or \"dynamic\", not {other}"
            ))),
        }
    }
}

/// One file of a skill: its URI, the SHA-256 of its raw bytes and its
/// length in bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillFile {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits.
    pub digest: String,
    /// The length of the raw content in bytes.
    pub size: u64,
}

/// The URI of the `SKILL.md` of the skill at `skill_path` under `skill://`.
pub fn skill_md_uri(skill_path: &str) -> String {
    format!("{SCHEME}{skill_path}/{SKILL_MD}")
}

/// The skill root of a `SKILL.md` URI (any scheme): the URI without
/// `/SKILL.md`.
pub fn skill_root(uri: &str) -> Option<&str> {
    uri.strip_suffix(SKILL_MD)?
        .strip_suffix('/')
        .filter(|root| root.contains("://") && !root.ends_with("://"))
}

/// The skill name a `SKILL.md` URI carries: its last segment before
/// `SKILL.md`.
pub fn skill_name(uri: &str) -> Option<&str> {
    let root = skill_root(uri)?;
    let (_, path) = root.split_once("://")?;
    path.rsplit('/').next().filter(|name| !name.is_empty())
}

/// The Agent Skills naming rules: 1–64 characters, lowercase ASCII letters,
/// digits and hyphens, no leading, trailing or doubled hyphen.
pub fn is_valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// Why a `skill://` URI is refused before any lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UriError {
    /// Not a `skill://` URI.
    NotSkillScheme,
    /// Empty path or an empty segment (`skill:///x`, `a//b`, trailing `/`).
    EmptySegment,
    /// A `.` or `..` segment.
    DotSegment,
    /// A backslash or a NUL (raw or percent-encoded), a raw query or
    /// fragment, an encoded `/`, or `%` that starts no escape of UTF-8
    /// text: each can hide a traversal from a naive check.
    Forbidden(char),
}

impl fmt::Display for UriError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotSkillScheme => write!(f, "not a {SCHEME} URI"),
            Self::EmptySegment => f.write_str("empty path segment (absolute path or `//`)"),
            Self::DotSegment => f.write_str("`.` or `..` path segment (path traversal)"),
            Self::Forbidden('%') => f.write_str(
                "malformed or refused percent-encoding (encoded path traversal is refused)",
            ),
            Self::Forbidden(c) => write!(f, "character {c:?} is not allowed"),
        }
    }
}

impl std::error::Error for UriError {}

/// The path of a `skill://` URI (`pdf-processing/references/FORMS.md`),
/// percent-decoded (RFC 3986: `My%20Notes.md` is `My Notes.md`) and checked
/// to be a plain relative path: every segment non-empty, no `.` or `..`,
/// no `\` or NUL (raw or encoded), no raw `?` or `#`, no encoded `/`.
pub fn checked_path(uri: &str) -> Result<Cow<'_, str>, UriError> {
    let path = uri.strip_prefix(SCHEME).ok_or(UriError::NotSkillScheme)?;
    if let Some(c) = path.chars().find(|c| matches!(c, '\\' | '\0' | '?' | '#')) {
        return Err(UriError::Forbidden(c));
    }
    let decoded = percent_decode(path)?;
    for segment in decoded.split('/') {
        match segment {
            "" => return Err(UriError::EmptySegment),
            "." | ".." => return Err(UriError::DotSegment),
            _ => {}
        }
    }
    Ok(decoded)
}

/// `path` with its `%XX` escapes decoded; an escape of `/`, `\`, NUL, `?`
/// or `#`, a malformed one, or bytes that are not UTF-8 are refused.
fn percent_decode(path: &str) -> Result<Cow<'_, str>, UriError> {
    if !path.contains('%') {
        return Ok(Cow::Borrowed(path));
    }
    let refused = UriError::Forbidden('%');
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let hex = bytes.get(i + 1..i + 3).ok_or_else(|| refused.clone())?;
        let hex = std::str::from_utf8(hex).map_err(|_| refused.clone())?;
        let byte = u8::from_str_radix(hex, 16).map_err(|_| refused.clone())?;
        if matches!(byte, b'/' | b'\\' | 0) {
            return Err(refused);
        }
        out.push(byte);
        i += 3;
    }
    String::from_utf8(out).map(Cow::Owned).map_err(|_| refused)
}

/// `path` written as a `skill://` URI path: each segment's bytes other
/// than RFC 3986's `pchar` (letters, digits, `-._~!$&'()*+,;=:@`)
/// percent-encoded, `/` kept between segments. [`checked_path`] reads it
/// back.
pub fn encode_path(path: &str) -> Cow<'_, str> {
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&b);
    if path.bytes().all(plain) {
        return Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len() + 16);
    for b in path.bytes() {
        if plain(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Cow::Owned(out)
}

#[cfg(feature = "skills")]
mod verify;
#[cfg(feature = "skills")]
pub use verify::{FrontmatterError, VerifyError, digest, parse_frontmatter};
