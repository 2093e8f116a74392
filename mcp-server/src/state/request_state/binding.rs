//! What a sealed state is bound to: the method, the target, a digest of
//! the canonical arguments, the caller.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// What one sealed state is for: the request it may come back on. Build
/// it from the request being answered (first round) or retried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub(super) method: String,
    pub(super) target: String,
    /// SHA-256 of the canonical arguments.
    pub(super) arguments: [u8; 32],
    pub(super) principal: Option<String>,
}

impl Binding {
    /// `method` (`tools/call`, `prompts/get`, `resources/read`), `target`
    /// (the tool or prompt name, the resource URI), the request's
    /// `arguments` (`None` reads as `{}`) and the caller.
    pub fn new(
        method: &str,
        target: &str,
        arguments: Option<&Map<String, Value>>,
        principal: Option<&str>,
    ) -> Self {
        Self::from_digest(method, target, arguments_digest(arguments), principal)
    }

    /// The same from the arguments' digest ([`arguments_digest`]).
    pub(crate) fn from_digest(
        method: &str,
        target: &str,
        arguments: [u8; 32],
        principal: Option<&str>,
    ) -> Self {
        Self {
            method: method.to_owned(),
            target: target.to_owned(),
            arguments,
            principal: principal.map(str::to_owned),
        }
    }
}

/// The digest of no arguments (`{}`), computed once: most calls have none.
fn no_arguments() -> [u8; 32] {
    static NO_ARGUMENTS: OnceLock<[u8; 32]> = OnceLock::new();
    *NO_ARGUMENTS.get_or_init(|| Sha256::digest(b"{}").into())
}

/// SHA-256 of the canonical JSON of a request's arguments (`None` reads
/// as `{}`).
pub(crate) fn arguments_digest(arguments: Option<&Map<String, Value>>) -> [u8; 32] {
    match arguments {
        Some(arguments) if !arguments.is_empty() => {
            let mut digest = Sha256::new();
            hash_object(arguments, &mut digest);
            digest.finalize().into()
        }
        _ => no_arguments(),
    }
}

/// The same for a prompt's string arguments: a sorted map of strings is
/// its own canonical JSON, so the digest equals that of the same
/// arguments as a JSON object.
pub(crate) fn string_arguments_digest(arguments: Option<&BTreeMap<String, String>>) -> [u8; 32] {
    match arguments {
        Some(arguments) if !arguments.is_empty() => {
            let mut digest = Sha256::new();
            hash_json(arguments, &mut digest);
            digest.finalize().into()
        }
        _ => no_arguments(),
    }
}

/// Lower-case hex.
pub(super) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    out
}

/// Feeds the hash JSON with object keys sorted at every depth, whatever
/// order the map keeps (serde_json's `preserve_order` would keep the
/// client's), without building the text.
fn hash_canonical(value: &Value, digest: &mut Sha256) {
    match value {
        Value::Object(map) => hash_object(map, digest),
        Value::Array(items) => {
            digest.update(b"[");
            for (at, item) in items.iter().enumerate() {
                if at > 0 {
                    digest.update(b",");
                }
                hash_canonical(item, digest);
            }
            digest.update(b"]");
        }
        scalar => hash_json(scalar, digest),
    }
}

fn hash_object(map: &Map<String, Value>, digest: &mut Sha256) {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    if !entries.is_sorted_by(|a, b| a.0 <= b.0) {
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    }
    digest.update(b"{");
    for (at, (key, value)) in entries.into_iter().enumerate() {
        if at > 0 {
            digest.update(b",");
        }
        hash_json(key, digest);
        digest.update(b":");
        hash_canonical(value, digest);
    }
    digest.update(b"}");
}

/// A scalar or a key as serde_json writes it, straight into the hash.
fn hash_json(value: &(impl Serialize + ?Sized), digest: &mut Sha256) {
    struct Feed<'a>(&'a mut Sha256);
    impl std::io::Write for Feed<'_> {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.update(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // Writing a scalar or a string into a sink that never fails cannot fail.
    let _ = serde_json::to_writer(Feed(digest), value);
}
