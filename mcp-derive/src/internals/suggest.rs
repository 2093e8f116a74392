//! "Did you mean" for unknown attribute keys (edit distance).

/// The candidate closest to `input`, if it is close enough to be a typo.
pub fn did_you_mean<'a>(input: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (levenshtein(input, c), *c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3) && *d < c.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The message for an unknown key `key` in `context` (e.g. "`#[mcp]`").
pub fn unknown_key_message(key: &str, context: &str, candidates: &[&str]) -> String {
    match did_you_mean(key, candidates) {
        Some(best) => format!("unknown {context} key `{key}`; did you mean `{best}`?"),
        None => format!(
            "unknown {context} key `{key}`; expected one of: {}",
            candidates
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_keys_only() {
        assert_eq!(did_you_mean("titel", &["title", "name"]), Some("title"));
        assert_eq!(
            did_you_mean("instruction", &["instructions", "name"]),
            Some("instructions")
        );
        assert_eq!(did_you_mean("zzzzzz", &["title", "name"]), None);
    }
}
