//! Readable output helpers shared by every human-output path. Servers
//! choose much of the text printed (names, descriptions, instructions,
//! error messages), so every readable line goes through [`escape`]: a
//! hostile server must not retitle, clear or reorder the terminal
//! (CWE-150). `--json` output is printed as is (serde escapes it).

use std::borrow::Cow;
use std::fmt::Write;

/// Prints a readable line on stdout, its control characters escaped.
macro_rules! outln {
    () => { println!() };
    ($($arg:tt)*) => { println!("{}", $crate::human::escape(&format!($($arg)*), false)) };
}

/// Prints multi-line readable text on stdout: escaped, newlines kept.
macro_rules! outtext {
    ($($arg:tt)*) => { println!("{}", $crate::human::escape(&format!($($arg)*), true)) };
}

/// Prints a readable line on stderr, its control characters escaped.
macro_rules! errln {
    ($($arg:tt)*) => { eprintln!("{}", $crate::human::escape(&format!($($arg)*), false)) };
}

pub(crate) use {errln, outln, outtext};

/// `text` with every character that could drive a terminal written out
/// visibly: C0 controls (ESC included) and DEL as `\x1b`, C1 controls and
/// bidi overrides/isolates as `\u{202e}`. With `keep_newlines`, `\n` (and
/// a `\r` just before one) stay.
pub(crate) fn escape(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    let mut chars = text.chars().peekable();
    if !text.chars().any(is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    while let Some(c) = chars.next() {
        let newline = c == '\n' || (c == '\r' && chars.peek() == Some(&'\n'));
        if !is_control(c) || (keep_newlines && newline) {
            out.push(c);
        } else if c < '\u{80}' {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
    Cow::Owned(out)
}

fn is_control(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// `n` and the noun, singular for one: `1 file`, `2 files`.
pub(crate) fn count(n: impl Into<u64>, noun: &str) -> String {
    match n.into() {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::{count, escape};

    #[test]
    fn controls_are_escaped_visibly() {
        let hostile = "a\u{1b}]0;pwned\u{7}b\u{1b}[2J\rc\u{7f}\u{9b}d\u{202e}e\u{2066}f\tg";
        let shown = r"a\x1b]0;pwned\x07b\x1b[2J\x0dc\x7f\u{9b}d\u{202e}e\u{2066}f\x09g";
        assert_eq!(escape(hostile, false), shown);
        assert_eq!(escape(hostile, true), shown);
        assert_eq!(escape("one\ntwo\r\n", false), r"one\x0atwo\x0d\x0a");
        assert_eq!(escape("one\ntwo\r\n", true), "one\ntwo\r\n");
        assert_eq!(escape("é → ü, \\x1b", false), "é → ü, \\x1b");
    }

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!(count(0u64, "file"), "0 files");
        assert_eq!(count(1u64, "file"), "1 file");
        assert_eq!(count(2u64, "byte"), "2 bytes");
    }
}
