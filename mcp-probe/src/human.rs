//! Readable output helpers shared by every human-output path.

/// `n` and the noun, singular for one: `1 file`, `2 files`.
pub(crate) fn count(n: impl Into<u64>, noun: &str) -> String {
    match n.into() {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!(count(0u64, "file"), "0 files");
        assert_eq!(count(1u64, "file"), "1 file");
        assert_eq!(count(2u64, "byte"), "2 bytes");
    }
}
