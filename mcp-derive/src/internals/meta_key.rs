//! The `_meta` key syntax (the spec's `_meta` rules) for extension identifiers:
//! `^(?:label(?:\.label)*/)?(?:name)?$` where a label starts with a letter,
//! ends with a letter or digit and has letters, digits and hyphens inside,
//! and a name is empty or starts and ends with a letter or digit with
//! letters, digits, `-`, `_`, `.` inside. Extension identifiers also need a
//! prefix.

/// Why `id` is not a valid extension identifier, or `None` if it is.
pub fn extension_id_error(id: &str) -> Option<String> {
    let (prefix, name) = match id.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, id),
    };
    let prefix_ok = prefix.is_none_or(|p| p.split('.').all(valid_label));
    if !prefix_ok || !valid_name(name) {
        return Some(format!(
            "extension identifier `{id}` does not follow the `_meta` key syntax: \
             dot-separated labels (letters, digits, `-`; starting with a letter, ending with a letter or digit) \
             then `/`, then a name (letters, digits, `-`, `_`, `.`; starting and ending with a letter or digit)"
        ));
    }
    if prefix.is_none() {
        return Some(format!(
            "extension identifier `{id}` has no prefix; extension identifiers need a vendor prefix \
             such as `com.example/{id}` (official extensions use `io.modelcontextprotocol/`)"
        ));
    }
    None
}

fn valid_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphabetic()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        }
        _ => false,
    }
}

fn valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (None, _) | (_, None) => true,
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::extension_id_error;

    #[test]
    fn accepts_valid_ids() {
        for id in [
            "io.modelcontextprotocol/tasks",
            "io.modelcontextprotocol/ui",
            "com.example-1/x_y.z-9",
            "a/b",
            "com.example/",
        ] {
            assert_eq!(extension_id_error(id), None, "{id}");
        }
    }

    #[test]
    fn rejects_bad_syntax_and_missing_prefix() {
        for id in [
            "",
            "tasks",
            "1com.example/x",
            "com-/x",
            "com..x/y",
            "a/b/c",
            "a/-x",
            "a/x.",
            "a b/c",
        ] {
            assert!(extension_id_error(id).is_some(), "{id}");
        }
        assert!(extension_id_error("tasks").is_some_and(|m| m.contains("has no prefix")));
    }
}
