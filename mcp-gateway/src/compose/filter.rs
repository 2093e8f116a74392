//! Which items a backend shows at the front, and which a principal sees:
//! `include` and `exclude` patterns (`*` matches any run of characters)
//! per kind. A hidden item is left out of the lists and is unknown to
//! calls, reads and completions.

use serde::Deserialize;

use super::kind::Kind;

/// The patterns of one kind: an item is shown when it matches an
/// `include` (or there are none) and no `exclude`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    /// Patterns of the items shown (empty: all).
    #[serde(default)]
    pub include: Vec<String>,
    /// Patterns of the items hidden, even when included.
    #[serde(default)]
    pub exclude: Vec<String>,
}

impl Filter {
    /// Whether `name` is shown.
    pub fn allows(&self, name: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|p| matches(p, name)))
            && !self.exclude.iter().any(|p| matches(p, name))
    }
}

/// The filters of each kind: tool and prompt names; resource URIs and
/// template URIs (`resources` applies to both).
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// Tool names.
    pub tools: Filter,
    /// Prompt names.
    pub prompts: Filter,
    /// Resource URIs and resource template URIs.
    pub resources: Filter,
}

impl Filters {
    /// Whether item `key` of `kind` is shown.
    pub(crate) fn allows(&self, kind: Kind, key: &str) -> bool {
        match kind {
            Kind::Tools => self.tools.allows(key),
            Kind::Prompts => self.prompts.allows(key),
            // A skill is named by its `SKILL.md` resource's URI.
            Kind::Resources | Kind::Templates | Kind::Skills => self.resources.allows(key),
        }
    }
}

/// Whether `text` matches `pattern`, whose `*` match any run of
/// characters (none included) and whose other characters match
/// themselves.
fn matches(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty(); // no `*`: the whole text
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_match_any_run() {
        for (pattern, text, expected) in [
            ("read_file", "read_file", true),
            ("read_file", "read_files", false),
            ("read_*", "read_file", true),
            ("read_*", "read_", true),
            ("read_*", "write_file", false),
            ("*_file", "read_file", true),
            ("*", "", true),
            ("a*b*c", "abc", true),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxcyyb", false),
            ("ab*ba", "aba", false),
            ("file:///srv/*", "file:///srv/a/b.txt", true),
        ] {
            assert_eq!(matches(pattern, text), expected, "{pattern:?} {text:?}");
        }
    }

    #[test]
    fn exclude_wins_over_include() {
        let filter = Filter {
            include: vec!["read_*".into()],
            exclude: vec!["*_secret".into()],
        };
        assert!(filter.allows("read_file"));
        assert!(!filter.allows("read_secret"));
        assert!(!filter.allows("write_file"));
        assert!(Filter::default().allows("anything"));
    }
}
