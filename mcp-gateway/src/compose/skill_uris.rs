//! A prefixed backend's skills at the front: its name as the first
//! segment of each `skill://` path (`skill://git-workflow/SKILL.md` of
//! backend `files` is `skill://files/git-workflow/SKILL.md`). A skill's
//! name is its path's last segment, so it stays the name its frontmatter
//! gives, and two backends' skills of one name are both served.

use serde_json::Value;

use super::config::Composition;

/// Where a skill's files are.
pub(super) const SCHEME: &str = "skill://";

/// `uri` (a `skill://` URI of member `index`) as the front names it.
pub(super) fn front(composition: &Composition, index: usize, uri: &str) -> Option<String> {
    let path = uri.strip_prefix(SCHEME)?;
    Some(if composition.prefixed(index) {
        format!("{SCHEME}{}/{path}", composition.members[index].name)
    } else {
        uri.to_owned()
    })
}

/// The front's `uri` as member `index` names it (unchanged when it is not
/// one of the member's prefixed skill URIs).
pub(super) fn backend(composition: &Composition, index: usize, uri: &str) -> String {
    if composition.prefixed(index)
        && let Some(rest) = uri
            .strip_prefix(SCHEME)
            .and_then(|path| path.strip_prefix(composition.members[index].name.as_str()))
            .and_then(|rest| rest.strip_prefix('/'))
    {
        return format!("{SCHEME}{rest}");
    }
    uri.to_owned()
}

/// Every `uri` member of `value` (at any depth) that is a `skill://` URI
/// of member `index`, renamed as the front names it: a skills entry and
/// its files, a read's contents, a directory's children, a listed
/// `SKILL.md`.
pub(super) fn to_front(composition: &Composition, index: usize, value: &mut Value) {
    if !composition.prefixed(index) {
        return;
    }
    match value {
        Value::Object(object) => {
            for (key, member) in object.iter_mut() {
                match member {
                    Value::String(uri) if key == "uri" => {
                        if let Some(renamed) = front(composition, index, uri) {
                            *uri = renamed;
                        }
                    }
                    other => to_front(composition, index, other),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                to_front(composition, index, item);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn two() -> Composition {
        Composition::from_toml(
            "[[backend]]\nname = \"files\"\ncommand = \"a\"\n\
             [[backend]]\nname = \"plain\"\ncommand = \"b\"\nprefix = \"never\"",
        )
        .unwrap()
    }

    #[test]
    fn a_prefixed_backends_skill_uris_gain_its_name_and_lose_it_back() {
        let composition = two();
        let uri = "skill://git-workflow/SKILL.md";
        let front_uri = front(&composition, 0, uri).unwrap();
        assert_eq!(front_uri, "skill://files/git-workflow/SKILL.md");
        assert_eq!(backend(&composition, 0, &front_uri), uri);
        // Not its prefix, not a skill URI, or an unprefixed member: as is.
        assert_eq!(
            backend(&composition, 0, "skill://other/x"),
            "skill://other/x"
        );
        assert_eq!(backend(&composition, 0, "file:///x"), "file:///x");
        assert_eq!(front(&composition, 1, uri).as_deref(), Some(uri));
        assert_eq!(front(&composition, 0, "file:///x"), None);

        let mut entry = json!({"uri": uri, "frontmatter": {"name": "git-workflow", "uri": 1},
            "resources": [{"uri": "skill://git-workflow/a.md"}, {"uri": "https://x"}]});
        to_front(&composition, 0, &mut entry);
        assert_eq!(entry["uri"], "skill://files/git-workflow/SKILL.md");
        assert_eq!(
            entry["resources"][0]["uri"],
            "skill://files/git-workflow/a.md"
        );
        assert_eq!(entry["resources"][1]["uri"], "https://x");
        assert_eq!(entry["frontmatter"]["name"], "git-workflow");
    }
}
