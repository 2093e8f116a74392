//! The read of one skill directory: every file checked, after opening, to
//! be inside it; links out, loops and files a URI cannot name refused.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use mcp_era_types::ext::skills::{self as ext, MAX_SKILL_BYTES};

use super::error::SkillError;
use crate::state::opened::{fd_path, opened_path, same_file};

/// A recursive read of one skill directory.
pub(super) struct Walk {
    pub(super) root: PathBuf,
    pub(super) files: Vec<(String, Vec<u8>)>,
    pub(super) refused: BTreeMap<String, String>,
    pub(super) problems: Vec<SkillError>,
    pub(super) visited: BTreeSet<PathBuf>,
    pub(super) total: u64,
    pub(super) skill: String,
}

impl Walk {
    fn refuse(&mut self, relative: String, message: String) {
        self.problems.push(SkillError {
            skill: self.skill.clone(),
            file: Some(relative.clone()),
            line: None,
            message: message.clone(),
        });
        self.refused.insert(relative, message);
    }

    fn io(&self, relative: &str, e: std::io::Error) -> SkillError {
        SkillError {
            skill: self.skill.clone(),
            file: (!relative.is_empty()).then(|| relative.to_owned()),
            line: None,
            message: format!("cannot read: {e}"),
        }
    }

    pub(super) fn dir(&mut self, dir: &Path, prefix: &str) -> Result<(), SkillError> {
        // Listed through the opened directory, once it is known to be in
        // the skill's: a directory swapped for a link meanwhile is neither
        // listed nor entered.
        let handle = std::fs::File::open(dir).map_err(|e| self.io(prefix, e))?;
        if !self.inside(&handle, dir).map_err(|e| self.io(prefix, e))? {
            return Err(self.io(prefix, moved_out()));
        }
        let listed = opened_path(&handle).map_or_else(|| dir.to_owned(), |_| fd_path(&handle));
        let mut entries: Vec<_> = std::fs::read_dir(&listed)
            .map_err(|e| self.io(prefix, e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.io(prefix, e))?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                let shown = name.to_string_lossy().into_owned();
                self.refuse(format!("{prefix}{shown}"), "file name is not UTF-8".into());
                continue;
            };
            let relative = format!("{prefix}{name}");
            if !is_servable(&relative) {
                self.refuse(
                    relative,
                    "file name cannot be a skill:// path segment".into(),
                );
                continue;
            }
            let path = entry.path();
            let link = entry
                .file_type()
                .map_err(|e| self.io(&relative, e))?
                .is_symlink();
            // Where the entry really is: a loop fails here (ELOOP), a link
            // out of the skill's directory is caught just below.
            let real = match path.canonicalize() {
                Ok(real) => real,
                Err(e) if link && is_loop(&e) => {
                    self.refuse(relative, "symlink loop refused".into());
                    continue;
                }
                Err(e) if link => {
                    self.refuse(relative, format!("dangling symlink refused: {e}"));
                    continue;
                }
                Err(e) => return Err(self.io(&relative, e)),
            };
            if !real.starts_with(&self.root) {
                self.refuse(
                    relative,
                    "symlink pointing outside the skill's directory refused".into(),
                );
                continue;
            }
            let meta = std::fs::metadata(&real).map_err(|e| self.io(&relative, e))?;
            if meta.is_dir() {
                if !self.visited.insert(real.clone()) {
                    self.refuse(
                        relative,
                        "symlink loop refused (directory already read)".into(),
                    );
                    continue;
                }
                self.dir(&real, &format!("{relative}/"))?;
                self.visited.remove(&real);
            } else if meta.is_file() {
                self.total += meta.len();
                if self.total > MAX_SKILL_BYTES {
                    return Err(SkillError {
                        skill: self.skill.clone(),
                        file: Some(relative),
                        line: None,
                        message: format!("the skill exceeds {MAX_SKILL_BYTES} bytes"),
                    });
                }
                match self.read_inside(&real) {
                    Ok(Some(bytes)) => self.files.push((relative, bytes)),
                    Ok(None) => self.refuse(
                        relative,
                        "moved outside the skill's directory while being read; refused".into(),
                    ),
                    Err(e) => return Err(self.io(&relative, e)),
                }
            } else {
                self.refuse(relative, "not a regular file or directory".into());
            }
        }
        Ok(())
    }
}

impl Walk {
    /// The bytes of the file at `real`, checked after opening to be in the
    /// skill's directory (`None` if not): a checked path may be swapped
    /// for a link out of the directory before it is opened.
    pub(super) fn read_inside(&self, real: &Path) -> std::io::Result<Option<Vec<u8>>> {
        use std::io::Read as _;
        let file = std::fs::File::open(real)?;
        if !self.inside(&file, real)? {
            return Ok(None);
        }
        // No more than the skill may hold, whatever the file grew to.
        let mut bytes = Vec::new();
        file.take(MAX_SKILL_BYTES.saturating_add(1))
            .read_to_end(&mut bytes)?;
        Ok(Some(bytes))
    }

    /// Whether the opened `file` (opened at `path`) is in the skill's
    /// directory: where the kernel says it is (Linux), else where `path`
    /// now leads, if that is the very file opened (device and inode).
    fn inside(&self, file: &std::fs::File, path: &Path) -> std::io::Result<bool> {
        if let Some(real) = opened_path(file) {
            return Ok(real.starts_with(&self.root));
        }
        let real = path.canonicalize()?;
        Ok(
            real.starts_with(&self.root)
                && same_file(&file.metadata()?, &std::fs::metadata(&real)?),
        )
    }
}

fn moved_out() -> std::io::Error {
    std::io::Error::other("moved outside the skill's directory while being read")
}

/// Whether a skill file at `relative` can be served: its URI (each
/// segment percent-encoded) reads back as this path.
pub(super) fn is_servable(relative: &str) -> bool {
    let uri = format!("{}x/{}", ext::SCHEME, ext::encode_path(relative));
    ext::checked_path(&uri).is_ok_and(|path| path.strip_prefix("x/") == Some(relative))
}

/// Whether `e` is ELOOP, too many levels of symbolic links.
fn is_loop(e: &std::io::Error) -> bool {
    let eloop = if cfg!(any(
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd"
    )) {
        62
    } else {
        40
    };
    e.raw_os_error() == Some(eloop)
}
