//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) from
//! the host's side: list and get skill entries, read a skill's files with
//! every byte verified against its entry, and list skill directories.
//!
//! Nothing is fetched ahead of need: [`list_skills`](Client::list_skills)
//! and [`get_skill`](Client::get_skill) read no file; [`load_skill`](Client::load_skill)
//! reads `SKILL.md` alone; each supporting file is read when asked for
//! ([`read_skill_file`](Client::read_skill_file)). Every read is checked
//! before it is returned: the entry must list the URI, the length must be
//! the entry's `size` and the SHA-256 its `digest`, and a `SKILL.md`'s
//! frontmatter must equal the entry's field by field. Content that fails
//! is never returned: the call is an [`Error::SkillVerification`]. A
//! mismatch may also mean the entry is stale; call
//! [`get_skill`](Client::get_skill) for a fresh one and start over.

use mcp_era_types::ext::skills::{
    DirectoryReadResult, EXTENSION_ID, GetSkillResult, ListSkillsResult, RESOURCES_DIRECTORY_READ,
    SKILL_MD, SKILLS_GET, SKILLS_LIST, SkillEntry, SkillsSettings, VerifyError,
};
use mcp_era_types::v2026_07_28::methods;
use serde_json::{Value, json};

use super::Client;
use super::exchange::parse;
use crate::error::{Error, Result};

/// A skill whose `SKILL.md` was read and verified.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSkill {
    /// The entry it was verified against.
    pub entry: SkillEntry,
    /// The `SKILL.md` text, frontmatter included.
    pub skill_md: String,
    /// Whether digests backed the check (`false` for a `"dynamic"` skill,
    /// checked on its frontmatter alone).
    pub verified: bool,
}

impl Client {
    /// The server's skills settings, if it declares the extension.
    pub fn skills_settings(&self) -> Option<SkillsSettings> {
        let capabilities = serde_json::to_value(self.capabilities()).ok()?;
        let settings = capabilities.get("extensions")?.get(EXTENSION_ID)?;
        serde_json::from_value(settings.clone()).ok()
    }

    fn require_skills(&self, method: &str) -> Result<SkillsSettings> {
        self.skills_settings().ok_or_else(|| Error::NotDeclared {
            method: method.to_owned(),
            missing: format!("the {EXTENSION_ID} extension"),
        })
    }

    /// One page of `skills/list`. Reads no skill file.
    pub async fn list_skills(&self, cursor: Option<&str>) -> Result<ListSkillsResult> {
        self.require_skills(SKILLS_LIST)?;
        let params = match cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let result = self.request(SKILLS_LIST, params).await?;
        parse(SKILLS_LIST, result)
    }

    /// Every `skills/list` entry, following `nextCursor` (at most
    /// [`ClientOptions::max_pages`](crate::ClientOptions::max_pages)
    /// pages). Reads no skill file.
    pub async fn list_all_skills(&self) -> Result<Vec<SkillEntry>> {
        let mut skills = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        for _ in 0..self.opts().max_pages.max(1) {
            let page = self.list_skills(cursor.as_deref()).await?;
            skills.extend(page.skills);
            match page.next_cursor {
                None => return Ok(skills),
                Some(next) if next.is_empty() => return Ok(skills),
                // A cursor seen before would list the same pages again: the
                // list is not complete, so it is not returned as if it were.
                Some(next) if !seen.insert(next.clone()) => {
                    return Err(Error::InvalidResult {
                        method: SKILLS_LIST.into(),
                        detail: format!("the server repeated cursor `{next}`"),
                    });
                }
                Some(next) => cursor = Some(next),
            }
        }
        Err(Error::InvalidResult {
            method: SKILLS_LIST.into(),
            detail: format!(
                "more than {} pages (ClientOptions::max_pages)",
                self.opts().max_pages.max(1)
            ),
        })
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is at `uri`,
    /// listed or not. Reads no skill file.
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry> {
        self.require_skills(SKILLS_GET)?;
        let result = self.request(SKILLS_GET, json!({ "uri": uri })).await?;
        let result: GetSkillResult = parse(SKILLS_GET, result)?;
        if result.skill.uri != uri {
            return Err(Error::InvalidResult {
                method: SKILLS_GET.into(),
                detail: format!("asked for {uri}, got the entry of {}", result.skill.uri),
            });
        }
        Ok(result.skill)
    }

    /// `resources/directory/read`: one page of a directory resource's
    /// children. Not sent unless the server declares `directoryRead: true`.
    pub async fn read_directory(
        &self,
        uri: &str,
        cursor: Option<&str>,
    ) -> Result<DirectoryReadResult> {
        if !self
            .require_skills(RESOURCES_DIRECTORY_READ)?
            .directory_read()
        {
            return Err(Error::NotDeclared {
                method: RESOURCES_DIRECTORY_READ.into(),
                missing: format!("{EXTENSION_ID} with directoryRead: true"),
            });
        }
        let mut params = json!({ "uri": uri });
        if let Some(c) = cursor {
            params["cursor"] = json!(c);
        }
        let result = self.request(RESOURCES_DIRECTORY_READ, params).await?;
        parse(RESOURCES_DIRECTORY_READ, result)
    }

    /// Reads the skill's `SKILL.md` and verifies it (size, digest,
    /// frontmatter). Reads nothing else. A `"dynamic"` skill has no digests:
    /// its frontmatter is still compared, and the result says
    /// `verified: false`.
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill> {
        let bytes = self.read_raw(&entry.uri).await?;
        let verified = entry.files().is_some();
        if verified {
            entry.verify(&entry.uri, &bytes)
        } else {
            entry.verify_frontmatter(&bytes)
        }
        .map_err(Error::SkillVerification)?;
        let skill_md = String::from_utf8(bytes).map_err(|e| {
            Error::SkillVerification(VerifyError::Frontmatter {
                uri: entry.uri.clone(),
                error: mcp_era_types::ext::skills::FrontmatterError {
                    line: 1,
                    message: format!("{SKILL_MD} is not UTF-8: {e}"),
                },
            })
        })?;
        Ok(LoadedSkill {
            entry: entry.clone(),
            skill_md,
            verified,
        })
    }

    /// Reads one of the skill's files (`uri` must be listed in the entry)
    /// and returns its bytes once they match the entry's size and digest
    /// (and, for `SKILL.md`, its frontmatter). A file the entry does not
    /// list is refused without being read.
    pub async fn read_skill_file(&self, entry: &SkillEntry, uri: &str) -> Result<Vec<u8>> {
        if entry.files().is_none() {
            return Err(Error::SkillVerification(VerifyError::Dynamic {
                uri: entry.uri.clone(),
            }));
        }
        if entry.file(uri).is_none() {
            return Err(Error::SkillVerification(VerifyError::Unlisted {
                uri: uri.to_owned(),
            }));
        }
        let bytes = self.read_raw(uri).await?;
        entry
            .verify(uri, &bytes)
            .map_err(Error::SkillVerification)?;
        Ok(bytes)
    }

    /// The raw bytes of a resource: its text as UTF-8, or its blob decoded.
    async fn read_raw(&self, uri: &str) -> Result<Vec<u8>> {
        let result = self
            .request(methods::RESOURCES_READ, json!({ "uri": uri }))
            .await?;
        raw_content(uri, &result)
    }
}

/// The bytes of the content for `uri` in a `resources/read` result.
fn raw_content(uri: &str, result: &Value) -> Result<Vec<u8>> {
    let invalid = |detail: String| Error::InvalidResult {
        method: methods::RESOURCES_READ.into(),
        detail,
    };
    let contents = result["contents"]
        .as_array()
        .ok_or_else(|| invalid("no contents array".into()))?;
    let content = contents
        .iter()
        .find(|c| c["uri"] == uri)
        .or_else(|| (contents.len() == 1).then(|| &contents[0]))
        .ok_or_else(|| invalid(format!("no content for {uri}")))?;
    if let Some(text) = content["text"].as_str() {
        return Ok(text.as_bytes().to_vec());
    }
    if let Some(blob) = content["blob"].as_str() {
        use base64::Engine as _;
        return base64::engine::general_purpose::STANDARD
            .decode(blob)
            .map_err(|e| invalid(format!("blob of {uri} is not base64: {e}")));
    }
    Err(invalid(format!(
        "content of {uri} has neither text nor blob"
    )))
}
