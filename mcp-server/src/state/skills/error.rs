//! Why a skill was not loaded, printed so that names read from the
//! filesystem cannot forge log lines.

use std::fmt;

/// Why a skill (or one of its files) was not loaded: which skill, which
/// file and line, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillError {
    /// The skill's path (or its directory, when loading one).
    pub skill: String,
    /// The file, relative to the skill's root, when one is at fault.
    pub file: Option<String>,
    /// The 1-based line in that file, for frontmatter errors.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SkillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Names come from the filesystem: a `\n` or an ESC in one must not
        // forge lines or terminal codes in a log (CWE-117).
        write!(f, "skill `{}`", Escaped(&self.skill))?;
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, ", {} line {line}", Escaped(file))?,
            (Some(file), None) => write!(f, ", {}", Escaped(file))?,
            _ => {}
        }
        write!(f, ": {}", Escaped(&self.message))
    }
}

/// Text with its control characters written as `\u{..}` escapes.
struct Escaped<'a>(&'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            if c.is_control() {
                write!(f, "\\u{{{:x}}}", u32::from(c))?;
            } else {
                fmt::Write::write_char(f, c)?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for SkillError {}
