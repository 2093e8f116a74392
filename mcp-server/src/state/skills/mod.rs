//! The skills a server type serves (Skills extension, SEP-2640): a
//! catalogue of skills held in memory, built in code ([`Skill::builder`]) or
//! loaded from a directory of `SKILL.md` skills ([`Skills::load_dir`]).
//!
//! Files are read once, when a skill is loaded: the bytes served are the
//! bytes digested, so a listing never promises content the server no
//! longer has, and no request path ever reaches the filesystem (a `..` or an
//! encoded slash in a URI can only miss). Loading refuses, with a
//! [`SkillError`] naming the skill and file, symlinks that leave the skill's
//! directory, symlink loops, non-regular files, malformed frontmatter (with
//! its line), a name that breaks the naming rules or differs from the
//! directory, and skills over the SEP's limits; the other skills load.

mod error;
mod walk;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use mcp_era_types::ext::skills::{
    self as ext, MAX_RESOURCES_PER_SKILL, MAX_SKILL_BYTES, SKILL_MD, SkillEntry, SkillFile,
    SkillResources,
};
use serde_json::{Map, Value};

use crate::state::events::ServerEvents;
pub use error::SkillError;
use walk::{Walk, is_servable};

/// One file of a skill, held in memory with its digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFileData {
    bytes: Arc<[u8]>,
    digest: String,
    mime_type: String,
}

impl SkillFileData {
    fn new(relative: &str, bytes: Vec<u8>) -> Self {
        let digest = ext::digest(&bytes);
        let mime_type = mime_type_of(relative, &bytes).to_owned();
        Self {
            bytes: bytes.into(),
            digest,
            mime_type,
        }
    }

    /// The raw content.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// `sha256:…` of the content.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// The `mimeType` it is served with (from its extension; text/plain or
    /// application/octet-stream otherwise).
    pub fn mime_type(&self) -> &str {
        &self.mime_type
    }
}

/// One skill: its path in the `skill://` namespace (`pdf-processing`, or
/// `acme/billing/refunds`), its frontmatter and its files by relative
/// path, `SKILL.md` included.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    path: String,
    frontmatter: Map<String, Value>,
    files: BTreeMap<String, SkillFileData>,
    refused: BTreeMap<String, String>,
}

/// Builds a [`Skill`] from files given in code.
#[derive(Debug, Clone)]
pub struct SkillBuilder {
    path: String,
    files: Vec<(String, Vec<u8>)>,
}

impl SkillBuilder {
    /// Adds (or replaces) the file at `relative` (`SKILL.md`,
    /// `references/FORMS.md`).
    #[must_use]
    pub fn file(mut self, relative: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        let relative = relative.into();
        self.files.retain(|(r, _)| *r != relative);
        self.files.push((relative, bytes.into()));
        self
    }

    /// The skill, or why it cannot be served: a bad path, no or malformed
    /// `SKILL.md` frontmatter, a name that breaks the rules or is not the
    /// path's last segment, a bad file path, or too many or too large files.
    pub fn build(self) -> Result<Skill, SkillError> {
        let fail = |file: Option<&str>, line, message: String| SkillError {
            skill: self.path.clone(),
            file: file.map(str::to_owned),
            line,
            message,
        };
        // The skill's URIs carry its path as it is: it needs no encoding.
        let plain = matches!(ext::encode_path(&self.path), Cow::Borrowed(_));
        if !plain || ext::checked_path(&format!("{}{}", ext::SCHEME, self.path)).is_err() {
            return Err(fail(
                None,
                None,
                "the skill path must be `/`-separated segments of letters, digits and \
                 `-._~!$&'()*+,;=:@`, without `.` or `..`"
                    .into(),
            ));
        }
        let name = self.path.rsplit('/').next().unwrap_or_default();
        let Some((_, skill_md)) = self.files.iter().find(|(r, _)| r == SKILL_MD) else {
            return Err(fail(None, None, "no SKILL.md at the skill's root".into()));
        };
        let text = std::str::from_utf8(skill_md)
            .map_err(|e| fail(Some(SKILL_MD), None, format!("SKILL.md is not UTF-8: {e}")))?;
        let frontmatter = ext::parse_frontmatter(text)
            .map_err(|e| fail(Some(SKILL_MD), Some(e.line), e.message))?;
        let declared = frontmatter
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !ext::is_valid_name(declared) {
            return Err(fail(
                Some(SKILL_MD),
                None,
                format!(
                    "frontmatter name `{declared}` breaks the naming rules (1-64 lowercase letters, digits and single hyphens, no hyphen at either end)"
                ),
            ));
        }
        if declared != name {
            return Err(fail(
                Some(SKILL_MD),
                None,
                format!(
                    "frontmatter name `{declared}` differs from the skill path's last segment `{name}`"
                ),
            ));
        }
        if self.files.len() > MAX_RESOURCES_PER_SKILL {
            return Err(fail(
                None,
                None,
                format!(
                    "{} files; a skill has at most {MAX_RESOURCES_PER_SKILL}",
                    self.files.len()
                ),
            ));
        }
        let total: u64 = self.files.iter().map(|(_, b)| b.len() as u64).sum();
        if total > MAX_SKILL_BYTES {
            return Err(fail(
                None,
                None,
                format!("{total} bytes; a skill has at most {MAX_SKILL_BYTES}"),
            ));
        }
        let mut files = BTreeMap::new();
        for (relative, bytes) in self.files {
            if !is_servable(&relative) {
                return Err(fail(
                    Some(&relative),
                    None,
                    "file paths are relative, `/`-separated, without `.`, `..`, `\\` or NUL".into(),
                ));
            }
            let data = SkillFileData::new(&relative, bytes);
            files.insert(relative, data);
        }
        Ok(Skill {
            path: self.path,
            frontmatter,
            files,
            refused: BTreeMap::new(),
        })
    }
}

impl Skill {
    /// A skill at `path` (its last segment is the skill's name), built from
    /// files given in code:
    ///
    /// ```
    /// use mcp_era_server::skills::Skill;
    ///
    /// let skill = Skill::builder("git-workflow")
    ///     .file("SKILL.md", "---\nname: git-workflow\ndescription: Team Git conventions\n---\n\nRebase, never merge.\n")
    ///     .file("references/BRANCHES.md", "main, release/*, feature/*\n")
    ///     .build()?;
    /// assert_eq!(skill.uri(), "skill://git-workflow/SKILL.md");
    /// assert_eq!(skill.entry().files().map(<[_]>::len), Some(2));
    /// # Ok::<(), mcp_era_server::skills::SkillError>(())
    /// ```
    pub fn builder(path: impl Into<String>) -> SkillBuilder {
        SkillBuilder {
            path: path.into(),
            files: Vec::new(),
        }
    }

    /// Loads the skill in directory `dir` at `path`. Files that cannot be
    /// served safely (a symlink out of `dir`, a symlink loop, a device or
    /// socket) are left out and reported in the second value; a request
    /// for one gets an error saying why. The skill itself fails on what
    /// [`SkillBuilder::build`] refuses, and on I/O errors.
    pub fn from_dir(dir: &Path, path: &str) -> Result<(Skill, Vec<SkillError>), SkillError> {
        Self::from_dir_within(dir, path, None)
    }

    /// [`from_dir`](Self::from_dir), refusing a `dir` that resolves outside
    /// `within` (a skills directory whose entry was swapped for a link).
    fn from_dir_within(
        dir: &Path,
        path: &str,
        within: Option<&Path>,
    ) -> Result<(Skill, Vec<SkillError>), SkillError> {
        let fail = |file: Option<String>, message: String| SkillError {
            skill: path.to_owned(),
            file,
            line: None,
            message,
        };
        let root = dir
            .canonicalize()
            .map_err(|e| fail(None, format!("cannot open {}: {e}", dir.display())))?;
        if within.is_some_and(|within| !root.starts_with(within)) {
            return Err(fail(
                None,
                "symlink pointing outside the skills directory refused".into(),
            ));
        }
        let mut walk = Walk {
            root: root.clone(),
            files: Vec::new(),
            refused: BTreeMap::new(),
            problems: Vec::new(),
            visited: BTreeSet::from([root.clone()]),
            total: 0,
            skill: path.to_owned(),
        };
        walk.dir(&root, "")?;
        let mut builder = Skill::builder(path);
        builder.files = walk.files;
        let mut skill = builder.build()?;
        skill.refused = walk.refused;
        Ok((skill, walk.problems))
    }

    /// The skill's path in the `skill://` namespace.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The skill's name (the path's last segment, equal to
    /// `frontmatter.name`).
    pub fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or_default()
    }

    /// `skill://<path>/SKILL.md`.
    pub fn uri(&self) -> String {
        ext::skill_md_uri(&self.path)
    }

    /// `skill://<path>`, the skill's root directory resource.
    pub fn root_uri(&self) -> String {
        format!("{}{}", ext::SCHEME, self.path)
    }

    /// The `SKILL.md` frontmatter, verbatim.
    pub fn frontmatter(&self) -> &Map<String, Value> {
        &self.frontmatter
    }

    /// The files by path relative to the skill's root.
    pub fn files(&self) -> &BTreeMap<String, SkillFileData> {
        &self.files
    }

    /// Files left out when loading, with the reason, by relative path.
    pub fn refused(&self) -> &BTreeMap<String, String> {
        &self.refused
    }

    /// The skill's entry in `skills/list` and `skills/get`.
    pub fn entry(&self) -> SkillEntry {
        let root = self.root_uri();
        SkillEntry {
            uri: self.uri(),
            frontmatter: self.frontmatter.clone(),
            resources: SkillResources::Files(
                self.files
                    .iter()
                    .map(|(relative, data)| SkillFile {
                        uri: format!("{root}/{}", ext::encode_path(relative)),
                        digest: data.digest.clone(),
                        size: data.bytes.len() as u64,
                    })
                    .collect(),
            ),
        }
    }
}

/// What [`Skills::load_dir`] loaded and refused.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// The URIs of the skills now served.
    pub loaded: Vec<String>,
    /// Skills not served, and files left out of served skills.
    pub problems: Vec<SkillError>,
}

/// The skills of one server type: a catalogue replaced atomically on each
/// change, which announces `notifications/resources/list_changed` (the
/// `SKILL.md` resources are in `resources/list`) on the hub given to
/// [`set_events`](Self::set_events).
#[derive(Debug, Default)]
pub struct Skills {
    catalogue: RwLock<Arc<BTreeMap<String, Skill>>>,
    events: Mutex<Option<ServerEvents>>,
    page_size: std::sync::atomic::AtomicUsize,
}

/// `skills/list` and `resources/directory/read` page size by default.
pub const DEFAULT_PAGE_SIZE: usize = 100;

impl Skills {
    /// An empty catalogue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Announces changes on `events` (give the transport the same hub).
    pub fn set_events(&self, events: ServerEvents) {
        *self.events.lock().unwrap_or_else(PoisonError::into_inner) = Some(events);
    }

    /// Entries per `skills/list` or `resources/directory/read` page (at
    /// least 1; [`DEFAULT_PAGE_SIZE`] until set).
    pub fn set_page_size(&self, size: usize) {
        self.page_size
            .store(size.max(1), std::sync::atomic::Ordering::Relaxed);
    }

    /// The page size in force.
    pub fn page_size(&self) -> usize {
        match self.page_size.load(std::sync::atomic::Ordering::Relaxed) {
            0 => DEFAULT_PAGE_SIZE,
            n => n,
        }
    }

    /// The skills served now, by path.
    pub fn snapshot(&self) -> Arc<BTreeMap<String, Skill>> {
        self.catalogue
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Swaps the catalogue; announces the change if there is one.
    fn swap(&self, change: impl FnOnce(&mut BTreeMap<String, Skill>)) {
        let changed = {
            let mut slot = self
                .catalogue
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            let mut next = (**slot).clone();
            change(&mut next);
            let changed = next != **slot;
            *slot = Arc::new(next);
            changed
        };
        if changed
            && let Some(events) = &*self.events.lock().unwrap_or_else(PoisonError::into_inner)
        {
            events.resources_list_changed();
        }
    }

    /// Adds a skill, replacing the one at the same path.
    pub fn insert(&self, skill: Skill) {
        self.swap(|skills| {
            skills.insert(skill.path.clone(), skill);
        });
    }

    /// Removes the skill at `path`; whether there was one.
    pub fn remove(&self, path: &str) -> bool {
        let present = self.snapshot().contains_key(path);
        self.swap(|skills| {
            skills.remove(path);
        });
        present
    }

    /// Replaces every skill.
    pub fn replace_all(&self, skills: impl IntoIterator<Item = Skill>) {
        let next: BTreeMap<_, _> = skills.into_iter().map(|s| (s.path.clone(), s)).collect();
        self.swap(|skills| *skills = next);
    }

    /// Serves the skills of directory `root`, one per subdirectory holding
    /// a `SKILL.md` (the subdirectory's name is the skill's path; hidden
    /// ones and plain files are skipped), replacing
    /// every skill served before. Skills that fail to load are reported and
    /// left out; the others are served. Fails only when `root` itself
    /// cannot be read.
    pub fn load_dir(&self, root: impl AsRef<Path>) -> std::io::Result<LoadReport> {
        let (skills, report) = read_root(root.as_ref())?;
        self.replace_all(skills);
        Ok(report)
    }

    /// Re-reads `root` every `interval` (polling: no file-watching
    /// dependency) and swaps the catalogue when it changed, which announces
    /// `notifications/resources/list_changed`. Needs a Tokio runtime; stop
    /// it by aborting the handle. Each round's report goes to `tracing`.
    pub fn watch_dir(
        self: &Arc<Self>,
        root: impl Into<PathBuf>,
        interval: Duration,
    ) -> tokio::task::JoinHandle<()> {
        let root = root.into();
        let skills = Arc::clone(self);
        tokio::spawn(async move {
            let mut last: Option<LoadReport> = None;
            loop {
                tokio::time::sleep(interval).await;
                let root = root.clone();
                let read = tokio::task::spawn_blocking(move || read_root(&root)).await;
                match read {
                    Ok(Ok((read, report))) => {
                        if last.as_ref() != Some(&report) {
                            for problem in &report.problems {
                                tracing::warn!(%problem, "skill not served");
                            }
                        }
                        skills.replace_all(read);
                        last = Some(report);
                    }
                    Ok(Err(error)) => tracing::warn!(%error, "skills directory unreadable"),
                    Err(error) => tracing::warn!(%error, "skills reload failed"),
                }
            }
        })
    }
}

/// Reads every skill under `root`.
fn read_root(root: &Path) -> std::io::Result<(Vec<Skill>, LoadReport)> {
    let mut report = LoadReport::default();
    let mut skills = Vec::new();
    let canonical_root = root.canonicalize()?;
    let mut entries: Vec<_> = std::fs::read_dir(root)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        // `.git` and friends are not skills.
        if name.starts_with('.') {
            continue;
        }
        let dir = entry.path();
        let fail = |message: String| SkillError {
            skill: name.clone(),
            file: None,
            line: None,
            message,
        };
        match dir.canonicalize() {
            Ok(real) if !real.starts_with(&canonical_root) => {
                report.problems.push(fail(
                    "symlink pointing outside the skills directory refused".into(),
                ));
                continue;
            }
            Ok(real) if !real.is_dir() => continue,
            Ok(_) => {}
            Err(e) => {
                report.problems.push(fail(format!("cannot open: {e}")));
                continue;
            }
        }
        match Skill::from_dir_within(&dir, &name, Some(&canonical_root)) {
            Ok((skill, problems)) => {
                report.loaded.push(skill.uri());
                report.problems.extend(problems);
                skills.push(skill);
            }
            Err(problem) => report.problems.push(problem),
        }
    }
    Ok((skills, report))
}

/// A `mimeType` from the file's extension; otherwise text/plain for UTF-8
/// content and application/octet-stream for the rest.
fn mime_type_of(relative: &str, bytes: &[u8]) -> &'static str {
    let extension = relative
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "py" => "text/x-python",
        "sh" => "text/x-shellscript",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        _ if std::str::from_utf8(bytes).is_ok() => "text/plain",
        _ => "application/octet-stream",
    }
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests panic on broken fixtures")]
    use super::*;

    #[test]
    fn a_file_name_cannot_forge_report_lines() {
        let error = SkillError {
            skill: "notes".into(),
            file: Some("a\nmcp-everything: loaded skill://evil\u{1b}[2J".into()),
            line: None,
            message: "file name cannot be a skill:// path segment".into(),
        };
        let shown = error.to_string();
        assert!(!shown.contains(['\n', '\u{1b}']), "{shown}");
        assert!(shown.contains("a\\u{a}mcp-everything"), "{shown}");
        assert!(shown.contains("\\u{1b}[2J"), "{shown}");
    }

    /// A fresh directory under the system's temporary one.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("skills-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    #[test]
    fn a_directory_swapped_for_a_link_after_the_check_is_not_read() {
        let base = scratch("swap");
        let (root, outside) = (base.join("skill"), base.join("outside"));
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("docs/notes.md"), "inside").unwrap();
        std::fs::write(outside.join("notes.md"), "secret").unwrap();
        let walk = Walk {
            root: root.clone(),
            files: Vec::new(),
            refused: BTreeMap::new(),
            problems: Vec::new(),
            visited: BTreeSet::new(),
            total: 0,
            skill: "skill".into(),
        };
        // The path as checked, then the race: `docs` becomes a link out.
        let checked = root.join("docs/notes.md").canonicalize().unwrap();
        assert_eq!(walk.read_inside(&checked).unwrap().unwrap(), b"inside");
        std::fs::rename(root.join("docs"), base.join("docs-was")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("docs")).unwrap();
        assert_eq!(walk.read_inside(&checked).unwrap(), None);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
