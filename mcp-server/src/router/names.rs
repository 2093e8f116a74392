//! Maps keyed by what the server itself names (tools, prompts, resource
//! URIs, kept pages): a lookup hashes the client's string a word at a time
//! (the multiply-rotate hash rustc uses for its own tables), not with
//! SipHash. SipHash's keyed hashing guards a map whose keys an attacker
//! inserts; no client inserts keys here, and SipHash cost the two lookups
//! of a `tools/call` about 600 instructions.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map from names the server chose.
pub(crate) type NameMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// Eight bytes per round: `(h.rotate_left(5) ^ word) * K`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct WordHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl WordHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        let mut word = [0; 8];
        for chunk in &mut chunks {
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ rest.len() as u64);
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Entries in the order they were added, found by their name: an entry
/// added under a name it already has replaces the old one in place.
pub(crate) struct Ordered<T> {
    entries: Vec<T>,
    at: NameMap<String, usize>,
}

impl<T> Default for Ordered<T> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            at: NameMap::default(),
        }
    }
}

impl<T> Ordered<T> {
    /// Adds `entry` under `name`, or replaces the one of that name.
    pub(crate) fn insert(&mut self, name: String, entry: T) {
        match self.at.get(&name) {
            Some(&at) => self.entries[at] = entry,
            None => {
                self.at.insert(name, self.entries.len());
                self.entries.push(entry);
            }
        }
    }

    /// Removes the entry of `name`; `None` when there was none.
    pub(crate) fn remove(&mut self, name: &str) -> Option<T> {
        let at = self.at.remove(name)?;
        for index in self.at.values_mut() {
            if *index > at {
                *index -= 1;
            }
        }
        Some(self.entries.remove(at))
    }

    /// The entry of `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&T> {
        self.at.get(name).map(|&at| &self.entries[at])
    }

    /// Every entry, in order.
    pub(crate) fn entries(&self) -> &[T] {
        &self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn ordered_entries_keep_their_place() {
        let mut ordered = Ordered::default();
        for name in ["a", "b", "c"] {
            ordered.insert(name.to_owned(), name.to_uppercase());
        }
        ordered.insert("b".to_owned(), "B2".to_owned());
        assert_eq!(ordered.entries(), ["A", "B2", "C"]);
        assert_eq!(ordered.remove("a").as_deref(), Some("A"));
        assert_eq!(ordered.remove("a"), None);
        assert_eq!(ordered.get("c").map(String::as_str), Some("C"));
        assert_eq!(ordered.entries(), ["B2", "C"]);
    }

    #[test]
    fn names_that_differ_anywhere_hash_apart() {
        let build = BuildHasherDefault::<WordHasher>::default();
        let names = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "tool_1",
            "tool_10",
            "tool_01",
            "test_simple_text",
            "test_simple_texu",
        ];
        let hashes: std::collections::BTreeSet<u64> =
            names.iter().map(|n| build.hash_one(n)).collect();
        assert_eq!(hashes.len(), names.len());
        assert_eq!(build.hash_one("tool_1"), build.hash_one("tool_1"));
        // Trailing zero bytes count: the length is folded into the last word.
        assert_ne!(build.hash_one(&b"a"[..]), build.hash_one(&b"a\0"[..]));
    }
}
