//! The skills the fixture serves (skills extension): the files of
//! `mcp-everything/skills/`, embedded at build time so the binary serves
//! them from any working directory and after being copied elsewhere
//! (`tests/skills.rs` checks that this list is exactly that directory).

use mcp_era_server::skills::{Skill, SkillError, Skills};

/// Each embedded file: skill path, path within the skill, content.
pub const FILES: &[(&str, &str, &[u8])] = &[
    (
        "git-workflow",
        "SKILL.md",
        include_bytes!("../skills/git-workflow/SKILL.md"),
    ),
    (
        "git-workflow",
        "references/BRANCHES.md",
        include_bytes!("../skills/git-workflow/references/BRANCHES.md"),
    ),
    (
        "pdf-processing",
        "SKILL.md",
        include_bytes!("../skills/pdf-processing/SKILL.md"),
    ),
    (
        "pdf-processing",
        "references/FORMS.md",
        include_bytes!("../skills/pdf-processing/references/FORMS.md"),
    ),
    (
        "pdf-processing",
        "scripts/extract.py",
        include_bytes!("../skills/pdf-processing/scripts/extract.py"),
    ),
];

/// The embedded skills, built with the same checks as a directory load.
pub fn embedded() -> Result<Vec<Skill>, SkillError> {
    let mut paths: Vec<&str> = FILES.iter().map(|(skill, _, _)| *skill).collect();
    paths.dedup();
    paths
        .into_iter()
        .map(|path| {
            FILES
                .iter()
                .filter(|(skill, _, _)| *skill == path)
                .fold(Skill::builder(path), |b, (_, file, bytes)| {
                    b.file(*file, *bytes)
                })
                .build()
        })
        .collect()
}

/// Puts the embedded skills in `skills`, the fixture's catalogue (a no-op
/// when they are there already: nothing changes, nothing is announced).
pub fn install(skills: &Skills) -> Result<(), SkillError> {
    for skill in embedded()? {
        skills.insert(skill);
    }
    Ok(())
}
