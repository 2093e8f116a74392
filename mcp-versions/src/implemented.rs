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

/// Why a version cannot be served in the era it was listed for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionRejection {
    /// Not a protocol version this toolkit knows.
    Unknown(String),
    /// A version of the other era.
    WrongEra(String, Era),
    /// Known, with or without types, but the runtime does not implement it.
    NotImplemented(String),
    /// Listed twice.
    Duplicate(String),
    /// No modern version: a server must serve at least one.
    NoModernVersion,
}

fn implemented_list() -> String {
    IMPLEMENTED_VERSIONS
        .iter()
        .map(|k| {
            let era = match k.era {
                Era::Modern => "modern",
                Era::Legacy => "legacy",
            };
            format!("{} ({era})", k.version)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl core::fmt::Display for VersionRejection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Unknown(value) => write!(
                f,
                "unknown MCP protocol version `{value}`; implemented versions: {}",
                implemented_list()
            ),
            Self::WrongEra(value, Era::Modern) => write!(
                f,
                "`{value}` is a legacy protocol version and cannot be listed in `modern`; \
                 move it to `versions(legacy = [...])`"
            ),
            Self::WrongEra(value, Era::Legacy) => write!(
                f,
                "`{value}` is a modern protocol version and cannot be listed in `legacy` \
                 (a legacy `initialize` must never agree to it); move it to `versions(modern = [...])`"
            ),
            Self::NotImplemented(value) => write!(
                f,
                "MCP protocol version `{value}` is known but not implemented by the runtime, \
                 so a server cannot serve it; implemented versions: {} \
                 (adopting a revision: docs/adopting-a-revision.md)",
                implemented_list()
            ),
            Self::Duplicate(value) => write!(f, "duplicate protocol version `{value}`"),
            Self::NoModernVersion => f.write_str(
                "no modern protocol version; a server must serve at least one modern version",
            ),
        }
    }
}

/// The servable versions of `want` among `values`, newest first; the first
/// value that cannot be served is the error.
pub fn servable_list<I, V>(values: I, want: Era) -> Result<Vec<&'static str>, VersionRejection>
where
    I: IntoIterator<Item = V>,
    V: AsRef<str>,
{
    let mut out: Vec<&'static str> = Vec::new();
    for value in values {
        let version = servable(value.as_ref(), want)?;
        if out.contains(&version) {
            return Err(VersionRejection::Duplicate(version.to_owned()));
        }
        out.push(version);
    }
    out.sort_by_key(|v| IMPLEMENTED_VERSIONS.iter().position(|k| k.version == *v));
    Ok(out)
}

impl std::error::Error for VersionRejection {}

/// `value` as the runtime's own constant when a server may list it among
/// its `want` versions: known, of that era, and implemented. The one check
/// behind `#[mcp(versions(...))]` and `ServerDeclaration::with_versions`.
pub fn servable(value: &str, want: Era) -> Result<&'static str, VersionRejection> {
    let Some(era) = crate::era_of(value) else {
        return Err(VersionRejection::Unknown(value.to_owned()));
    };
    if !era_eq(era, want) {
        return Err(VersionRejection::WrongEra(value.to_owned(), want));
    }
    IMPLEMENTED_VERSIONS
        .iter()
        .find(|k| k.version == value)
        .map(|k| k.version)
        .ok_or_else(|| VersionRejection::NotImplemented(value.to_owned()))
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

    #[test]
    fn servable_versions_are_known_implemented_and_of_their_era() {
        assert_eq!(servable("2026-07-28", Era::Modern), Ok("2026-07-28"));
        assert_eq!(servable("2025-11-25", Era::Legacy), Ok("2025-11-25"));
        assert!(matches!(
            servable("2025-11-25", Era::Modern),
            Err(VersionRejection::WrongEra(..))
        ));
        assert!(matches!(
            servable("2026-07-28", Era::Legacy),
            Err(VersionRejection::WrongEra(..))
        ));
        assert!(matches!(
            servable("2025-06-18", Era::Legacy),
            Err(VersionRejection::NotImplemented(_))
        ));
        let unknown = servable("2030-01-01", Era::Modern).unwrap_err();
        assert!(
            unknown
                .to_string()
                .contains("2026-07-28 (modern), 2025-11-25 (legacy)"),
            "{unknown}"
        );
    }
}
