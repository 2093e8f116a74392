//! The versions the runtime implements: what `mcp-server` may serve and
//! `mcp-client` may offer. Hand-written, unlike the rest of this crate.
//!
//! A version gets here only when the runtime does what that version says
//! (see `docs/adopting-a-revision.md`); having generated types
//! ([`GENERATED_VERSIONS`]) is necessary, not sufficient. Older legacy
//! revisions (2025-06-18, 2025-03-26 with its JSON-RPC batches, 2024-11-05)
//! are known but not implemented: a server cannot list them in
//! `versions(legacy = ...)`, and a legacy `initialize` asking for one is
//! answered with the newest implemented legacy version, as the spec's
//! version negotiation says.

use crate::{Era, GENERATED_VERSIONS, KnownVersion};

/// Every version the runtime implements, newest first.
pub const IMPLEMENTED_VERSIONS: &[KnownVersion] = &[
    KnownVersion {
        version: "2026-07-28",
        era: Era::Modern,
    },
    KnownVersion {
        version: "2025-11-25",
        era: Era::Legacy,
    },
];

/// The modern versions the runtime implements, newest first: the default of
/// `#[mcp(versions(modern = ...))]` and of the client's modern offer.
pub const IMPLEMENTED_MODERN_VERSIONS: &[&str] = &["2026-07-28"];

/// The legacy versions the runtime implements, newest first: what
/// `#[mcp(versions(legacy = ...))]` may list and the client's legacy offer.
pub const IMPLEMENTED_LEGACY_VERSIONS: &[&str] = &["2025-11-25"];

/// Whether the runtime implements `version` (exact comparison).
pub fn is_implemented(version: &str) -> bool {
    IMPLEMENTED_VERSIONS.iter().any(|k| k.version == version)
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn era_eq(a: Era, b: Era) -> bool {
    matches!(
        (a, b),
        (Era::Modern, Era::Modern) | (Era::Legacy, Era::Legacy)
    )
}

/// Whether `list` is exactly the versions of `era` in `IMPLEMENTED_VERSIONS`.
const fn is_era_list(list: &[&str], era: Era) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < IMPLEMENTED_VERSIONS.len() {
        let k = IMPLEMENTED_VERSIONS[i];
        if era_eq(k.era, era) {
            if j >= list.len() || !str_eq(list[j], k.version) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    j == list.len()
}

const fn has_types(k: KnownVersion) -> bool {
    let mut i = 0;
    while i < GENERATED_VERSIONS.len() {
        let g = GENERATED_VERSIONS[i];
        if str_eq(g.version, k.version) && era_eq(g.era, k.era) {
            return true;
        }
        i += 1;
    }
    false
}

// Checked when this crate compiles: a version cannot be implemented without
// types (e.g. after its manifest entry lost `generate = true`), and the
// per-era lists cannot drift from the main one.
const _: () = {
    let mut i = 0;
    while i < IMPLEMENTED_VERSIONS.len() {
        assert!(
            has_types(IMPLEMENTED_VERSIONS[i]),
            "an implemented version has no generated types of that era (GENERATED_VERSIONS)"
        );
        i += 1;
    }
    assert!(is_era_list(IMPLEMENTED_MODERN_VERSIONS, Era::Modern));
    assert!(is_era_list(IMPLEMENTED_LEGACY_VERSIONS, Era::Legacy));
    assert!(!IMPLEMENTED_MODERN_VERSIONS.is_empty());
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_legacy_revisions_are_known_but_not_implemented() {
        for version in ["2025-06-18", "2025-03-26", "2024-11-05"] {
            assert_eq!(crate::era_of(version), Some(Era::Legacy));
            assert!(!is_implemented(version), "{version}");
        }
        // The draft has types behind a feature of mcp-types, but it is not a
        // protocol version: unknown here, so the derive refuses it.
        assert_eq!(crate::era_of("draft"), None);
        assert!(!is_implemented("draft"));
        assert!(is_implemented("2026-07-28"));
        assert!(is_implemented("2025-11-25"));
    }

    #[test]
    fn era_lists_are_checked() {
        assert!(is_era_list(&["2026-07-28"], Era::Modern));
        assert!(!is_era_list(&[], Era::Modern));
        assert!(!is_era_list(&["2026-07-28", "2025-11-25"], Era::Modern));
        assert!(!is_era_list(&["2025-06-18"], Era::Legacy));
    }
}
