//! `--list-skills` and `--get-skill NAME|URI` (skills extension), and the
//! skill loading the conformance client does: entries come from
//! `skills/list` (or `skills/get` for a URI), files are read only when a
//! skill is loaded, and every byte read is verified against the entry by
//! `mcp_era_client` before it is used.

use std::collections::HashSet;

use mcp_era_client::Client;
use mcp_era_client::mcp_era_types::ext::skills::SkillEntry;
use serde_json::{Value, json};

use crate::human::count;
use crate::human::{outln, outtext};
use crate::{Failure, MAX_PAGES};

/// Every listed skill: URI, name, description and file count. Reads no file.
pub(crate) async fn list(client: &Client) -> Result<Value, Failure> {
    let entries = all_entries(client).await?;
    Ok(Value::Array(entries.iter().map(summary).collect()))
}

/// Every `skills/list` entry, page by page. A repeated cursor or more
/// than [`MAX_PAGES`] pages is an error: the client's own loop ends quietly
/// at a cursor equal to the last, which would print part of the list as all.
pub(crate) async fn all_entries(client: &Client) -> Result<Vec<SkillEntry>, Failure> {
    let mut entries = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen = HashSet::new();
    for _ in 0..MAX_PAGES {
        let page = client.list_skills(cursor.as_deref()).await?;
        entries.extend(page.skills);
        match page.next_cursor {
            None => return Ok(entries),
            Some(next) if next.is_empty() => return Ok(entries),
            Some(next) if !seen.insert(next.clone()) => {
                let message = format!("skills/list: the server repeated cursor `{next}`");
                return Err(Failure::new(4, message));
            }
            Some(next) => cursor = Some(next),
        }
    }
    let message = format!("skills/list: more than {MAX_PAGES} pages");
    Err(Failure::new(4, message))
}

fn summary(entry: &SkillEntry) -> Value {
    json!({
        "uri": entry.uri,
        "name": entry.name(),
        "description": entry.description(),
        "files": entry.files().map(<[_]>::len),
    })
}

/// The entry of the skill named `name` (or at URI `name`): from
/// `skills/get` for a URI, else the one listed entry with that name (two
/// with one name are ambiguous: give the URI).
pub(crate) async fn find(client: &Client, name: &str) -> Result<SkillEntry, Failure> {
    if name.contains("://") {
        return Ok(client.get_skill(name).await?);
    }
    let entries = all_entries(client).await?;
    let mut named: Vec<SkillEntry> = entries
        .into_iter()
        .filter(|e| e.name() == Some(name))
        .collect();
    match named.len() {
        0 => Err(Failure::new(
            1,
            format!("no listed skill is named `{name}`"),
        )),
        1 => Ok(named.remove(0)),
        _ => Err(Failure::new(
            1,
            format!(
                "{} skills are named `{name}` ({}): give the URI",
                named.len(),
                named
                    .iter()
                    .map(|e| e.uri.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// `--get-skill`: the entry, and its `SKILL.md` read and verified. The
/// supporting files are listed, not read.
pub(crate) async fn get(client: &Client, name: &str) -> Result<Value, Failure> {
    let entry = find(client, name).await?;
    let loaded = client.load_skill(&entry).await?;
    Ok(json!({
        "entry": entry,
        "verified": loaded.verified,
        "skillMd": loaded.skill_md,
    }))
}

/// Loads a skill as a host does when the model asks for it: `SKILL.md`
/// first, verified, then each supporting file, each verified. Stops at the
/// first file that fails, reading nothing more.
pub(crate) async fn load_all(client: &Client, entry: &SkillEntry) -> Result<usize, Failure> {
    client.load_skill(entry).await?;
    let mut read = 1;
    for file in entry.files().unwrap_or_default() {
        if file.uri == entry.uri {
            continue;
        }
        client.read_skill_file(entry, &file.uri).await?;
        read += 1;
    }
    Ok(read)
}

/// Readable output of `--list-skills`.
pub(crate) fn print_list(list: &Value) {
    for line in list_lines(list) {
        outln!("{line}");
    }
}

fn list_lines(list: &Value) -> Vec<String> {
    let items = list.as_array().map(Vec::as_slice).unwrap_or_default();
    let mut lines = vec![format!("skills ({}):", items.len())];
    for item in items {
        let files = match item["files"].as_u64() {
            Some(n) => count(n, "file"),
            None => "dynamic".into(),
        };
        lines.push(format!(
            "  {}  {}  ({files})",
            item["name"].as_str().unwrap_or("?"),
            item["uri"].as_str().unwrap_or("?")
        ));
        if let Some(description) = item["description"].as_str() {
            lines.push(format!("      {description}"));
        }
    }
    lines
}

/// Readable output of `--get-skill`.
pub(crate) fn print_skill(skill: &Value) {
    let entry = &skill["entry"];
    outln!(
        "skill:              {}",
        entry["uri"].as_str().unwrap_or("?")
    );
    let check = if skill["verified"] == json!(true) {
        "size, digest and frontmatter verified"
    } else {
        "dynamic: frontmatter checked, no digests"
    };
    outln!("  SKILL.md:         {check}");
    for file in entry["resources"].as_array().into_iter().flatten() {
        let size = match file["size"].as_u64() {
            Some(n) => count(n, "byte"),
            None => format!("size {}", file["size"]),
        };
        outln!(
            "  {}  {size}  {}",
            file["uri"].as_str().unwrap_or("?"),
            file["digest"].as_str().unwrap_or("?")
        );
    }
    outln!();
    let md = skill["skillMd"].as_str().unwrap_or_default();
    outtext!("{}", md.strip_suffix('\n').unwrap_or(md));
}

#[cfg(test)]
mod tests {
    use super::list_lines;
    use serde_json::json;

    #[test]
    fn file_counts_are_singular_for_one() {
        let list = json!([
            {"uri": "skill://a/SKILL.md", "name": "a", "files": 1},
            {"uri": "skill://b/SKILL.md", "name": "b", "files": 2},
            {"uri": "skill://c/SKILL.md", "name": "c"},
        ]);
        assert_eq!(
            list_lines(&list)[1..],
            [
                "  a  skill://a/SKILL.md  (1 file)",
                "  b  skill://b/SKILL.md  (2 files)",
                "  c  skill://c/SKILL.md  (dynamic)",
            ]
        );
    }
}
