//! Feature `skills`: SHA-256 digests, `SKILL.md` frontmatter parsing, and
//! the checks a host makes on a file it reads against the skill's entry
//! (size, digest, and for `SKILL.md` the frontmatter field by field).

use std::fmt;

use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use super::{SKILL_MD, SkillEntry, SkillFile};

/// `sha256:` and the 64 lowercase hex digits of the SHA-256 of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        out.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        out.push(char::from(b"0123456789abcdef"[usize::from(byte & 0xf)]));
    }
    out
}

/// A `SKILL.md` whose frontmatter cannot be used, with the 1-based line of
/// the file the problem is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontmatterError {
    /// 1-based line in the `SKILL.md` file.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for FrontmatterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for FrontmatterError {}

/// The YAML frontmatter of a `SKILL.md` as a JSON object: the text between
/// a first line `---` and the next line `---` (a leading BOM and CRLF line
/// ends allowed), parsed as YAML, which must be a mapping with string keys
/// whose `name` and `description` are non-empty strings.
pub fn parse_frontmatter(text: &str) -> Result<Map<String, Value>, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end_matches(['\r', '\n']) != "---" {
        return Err(FrontmatterError {
            line: 1,
            message: "SKILL.md must begin with a `---` line opening the YAML frontmatter".into(),
        });
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        let bare = line.trim_end_matches(['\r', '\n']);
        if bare.trim_end_matches([' ', '\t']) == "---" {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return Err(FrontmatterError {
            line: 1,
            message: "the frontmatter opened on line 1 has no closing `---` line".into(),
        });
    }
    // The YAML starts on the file's line 2: the parser's lines are shifted
    // by one, in the line reported and in its message.
    let value: Value = serde_norway::from_str(&yaml).map_err(|e| FrontmatterError {
        line: e.location().map_or(2, |l| l.line() + 1),
        message: format!("invalid YAML frontmatter: {}", shift_lines(&e.to_string())),
    })?;
    let Value::Object(map) = value else {
        return Err(FrontmatterError {
            line: 2,
            message: "the frontmatter must be a YAML mapping".into(),
        });
    };
    for field in ["name", "description"] {
        match map.get(field) {
            Some(Value::String(s)) if !s.is_empty() => {}
            _ => {
                return Err(FrontmatterError {
                    line: line_of_key(&yaml, field).map_or(2, |l| l + 1),
                    message: format!("frontmatter `{field}` must be a non-empty string"),
                });
            }
        }
    }
    Ok(map)
}

/// `text` with each `line N` made `line N+1`.
fn shift_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("line ") {
        let (before, after) = rest.split_at(at + 5);
        out.push_str(before);
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        match after[..digits].parse::<usize>() {
            Ok(n) => out.push_str(&(n + 1).to_string()),
            Err(_) => out.push_str(&after[..digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// The 1-based line of the YAML where top-level `key:` is written.
fn line_of_key(yaml: &str, key: &str) -> Option<usize> {
    yaml.lines()
        .position(|l| {
            l.strip_prefix(key)
                .is_some_and(|rest| rest.starts_with(':'))
        })
        .map(|i| i + 1)
}

/// Why content read for a skill must not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifyError {
    /// The entry lists no file with this URI: reading it is a change to
    /// the skill, treated like a digest mismatch.
    Unlisted {
        /// The URI read.
        uri: String,
    },
    /// The entry is `"dynamic"`: there is nothing to verify against.
    Dynamic {
        /// The skill's URI.
        uri: String,
    },
    /// The content's length differs from the entry's `size`.
    Size {
        /// The URI read.
        uri: String,
        /// The entry's `size`.
        expected: u64,
        /// The bytes received.
        actual: u64,
    },
    /// The content's SHA-256 differs from the entry's `digest`.
    Digest {
        /// The URI read.
        uri: String,
        /// The entry's `digest`.
        expected: String,
        /// The digest of the bytes received.
        actual: String,
    },
    /// The `SKILL.md` frontmatter cannot be parsed.
    Frontmatter {
        /// The URI read.
        uri: String,
        /// The parse failure.
        error: FrontmatterError,
    },
    /// A frontmatter field of `SKILL.md` differs from the entry's.
    Field {
        /// The URI read.
        uri: String,
        /// The field that differs.
        field: String,
        /// The entry's value (`null` when absent).
        entry: Value,
        /// The file's value (`null` when absent).
        file: Value,
    },
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unlisted { uri } => write!(f, "{uri} is not listed in the skill's resources"),
            Self::Dynamic { uri } => write!(
                f,
                "{uri} declares dynamic resources: no digests to verify against"
            ),
            Self::Size {
                uri,
                expected,
                actual,
            } => {
                write!(
                    f,
                    "{uri}: size mismatch, listed {expected} bytes, read {actual}"
                )
            }
            Self::Digest {
                uri,
                expected,
                actual,
            } => {
                write!(
                    f,
                    "{uri}: digest mismatch, listed {expected}, read {actual}"
                )
            }
            Self::Frontmatter { uri, error } => write!(f, "{uri}: {error}"),
            Self::Field {
                uri,
                field,
                entry,
                file,
            } => write!(
                f,
                "{uri}: frontmatter field `{field}` differs: listed {entry}, file has {file}"
            ),
        }
    }
}

impl std::error::Error for VerifyError {}

impl SkillFile {
    /// Checks `bytes` against this entry: the size first (a length that
    /// differs fails without hashing), then the digest.
    pub fn verify(&self, bytes: &[u8]) -> Result<(), VerifyError> {
        let actual = bytes.len() as u64;
        if actual != self.size {
            return Err(VerifyError::Size {
                uri: self.uri.clone(),
                expected: self.size,
                actual,
            });
        }
        let actual = digest(bytes);
        if actual != self.digest {
            return Err(VerifyError::Digest {
                uri: self.uri.clone(),
                expected: self.digest.clone(),
                actual,
            });
        }
        Ok(())
    }
}

impl SkillEntry {
    /// Checks the content of `uri`, one of this skill's files: it must be
    /// listed, and match its size and digest. For the skill's own
    /// `SKILL.md` the frontmatter must also equal the entry's, field by
    /// field (an absent field counts as `null`). Content that fails must
    /// not be used.
    pub fn verify(&self, uri: &str, bytes: &[u8]) -> Result<(), VerifyError> {
        if self.files().is_none() {
            return Err(VerifyError::Dynamic {
                uri: self.uri.clone(),
            });
        }
        let file = self.file(uri).ok_or_else(|| VerifyError::Unlisted {
            uri: uri.to_owned(),
        })?;
        file.verify(bytes)?;
        if uri == self.uri && uri.ends_with(SKILL_MD) {
            self.verify_frontmatter(bytes)?;
        }
        Ok(())
    }

    /// Parses the frontmatter of `SKILL.md` content and compares it with
    /// the entry's, field by field.
    pub fn verify_frontmatter(&self, bytes: &[u8]) -> Result<(), VerifyError> {
        let text = std::str::from_utf8(bytes).map_err(|e| VerifyError::Frontmatter {
            uri: self.uri.clone(),
            error: FrontmatterError {
                line: 1,
                message: format!("SKILL.md is not UTF-8: {e}"),
            },
        })?;
        let file = parse_frontmatter(text).map_err(|error| VerifyError::Frontmatter {
            uri: self.uri.clone(),
            error,
        })?;
        let mut fields: Vec<&String> = file.keys().chain(self.frontmatter.keys()).collect();
        fields.sort();
        fields.dedup();
        for field in fields {
            let listed = self.frontmatter.get(field).unwrap_or(&Value::Null);
            let found = file.get(field).unwrap_or(&Value::Null);
            if listed != found {
                return Err(VerifyError::Field {
                    uri: self.uri.clone(),
                    field: field.clone(),
                    entry: listed.clone(),
                    file: found.clone(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ext::skills::SkillResources;

    const MD: &str =
        "---\nname: pdf\ndescription: Read PDFs\nmetadata:\n  version: \"2.1\"\n---\n\nBody.\n";

    fn entry(md: &str) -> SkillEntry {
        SkillEntry {
            uri: "skill://pdf/SKILL.md".into(),
            frontmatter: parse_frontmatter(md).unwrap(),
            resources: SkillResources::Files(vec![SkillFile {
                uri: "skill://pdf/SKILL.md".into(),
                digest: digest(md.as_bytes()),
                size: md.len() as u64,
            }]),
        }
    }

    #[test]
    fn digest_is_sha256_hex() {
        assert_eq!(
            digest(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn frontmatter_is_parsed_verbatim() {
        let map = parse_frontmatter(MD).unwrap();
        assert_eq!(map["metadata"]["version"], "2.1");
        assert_eq!(map.len(), 3);
        assert!(parse_frontmatter("\u{feff}---\r\nname: a\r\ndescription: b\r\n---\r\n").is_ok());
    }

    #[test]
    fn frontmatter_errors_name_the_line() {
        let bad = "---\nname: pdf\ndescription: [unclosed\nlicense: MIT\n---\n";
        let err = parse_frontmatter(bad).unwrap_err();
        // Where the parser gave up, and where the sequence opened, in file lines.
        assert_eq!(err.line, 4, "{err}");
        assert!(err.message.contains("line 3 column 14"), "{err}");
        let missing = parse_frontmatter("---\nname: pdf\n---\n").unwrap_err();
        assert!(missing.message.contains("description"), "{missing}");
        assert_eq!(parse_frontmatter("# no frontmatter").unwrap_err().line, 1);
        assert_eq!(parse_frontmatter("---\nname: a\n").unwrap_err().line, 1);
        let empty_name =
            parse_frontmatter("---\nx: 1\nname: ''\ndescription: d\n---\n").unwrap_err();
        assert_eq!(empty_name.line, 3, "{empty_name}");
    }

    #[test]
    fn verify_checks_size_digest_and_frontmatter() {
        let e = entry(MD);
        e.verify("skill://pdf/SKILL.md", MD.as_bytes()).unwrap();
        let longer = format!("{MD}x");
        assert!(matches!(
            e.verify("skill://pdf/SKILL.md", longer.as_bytes()),
            Err(VerifyError::Size { .. })
        ));
        let tampered = MD.replace("Body", "Evil");
        assert!(matches!(
            e.verify("skill://pdf/SKILL.md", tampered.as_bytes()),
            Err(VerifyError::Digest { .. })
        ));
        assert!(matches!(
            e.verify("skill://pdf/other.md", b""),
            Err(VerifyError::Unlisted { .. })
        ));
        // Same digest and size as listed, but the frontmatter says otherwise.
        let other = MD.replace("Read PDFs", "Steal keys");
        let mut lying = entry(&other);
        lying.frontmatter = e.frontmatter.clone();
        assert!(matches!(
            lying.verify("skill://pdf/SKILL.md", other.as_bytes()),
            Err(VerifyError::Field { field, .. }) if field == "description"
        ));
    }
}
