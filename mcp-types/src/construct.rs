//! Support for the generated constructors: the builders' [`Unset`] marker
//! and [`CacheHints`], the one parameter that stands for a cacheable
//! result's `ttlMs` and `cacheScope`.
//!
//! Each revision with cacheable results names its own hints type,
//! e.g. `mcp_era_types::v2026_07_28::CacheHints` (= `CacheHints<CacheScope>`).

/// A required field of a builder that has not been set yet.
///
/// Builders (e.g. `Resource::builder()`) have one type parameter per required
/// field. It starts as `Unset` and becomes the field's type when its setter
/// is called, so each setter can be called once, and `build()` exists only
/// once every parameter is set. An error such as "no method named `build`
/// found for `ResourceBuilder<String>`" (the compiler leaves out trailing
/// `Unset` parameters: this is `ResourceBuilder<String, Unset>`) means the
/// field in the position of `Unset` (required fields in schema order) is
/// missing; "no method named `name`" means that field was already set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Unset;

/// The two values of a revision's `CacheScope` enum, implemented by the
/// generated enum so that [`CacheHints`] can name them.
pub trait CacheScopeValues: Copy {
    /// `"public"`: no user-specific data; shared caches may keep it.
    const PUBLIC: Self;
    /// `"private"`: reusable only within the same authorization context.
    const PRIVATE: Self;
}

/// How long (`ttl_ms`) and by whom (`scope`) a result may be cached: the
/// `ttlMs` and `cacheScope` fields of a cacheable result, given to its
/// constructor as one value.
///
/// Use the revision's alias, e.g. `mcp_era_types::v2026_07_28::CacheHints`:
///
/// ```
/// use mcp_era_types::v2026_07_28::{CacheHints, CacheScope, ListToolsResult};
///
/// let hints = CacheHints::public(60_000);
/// assert_eq!(hints, CacheHints::new(60_000, CacheScope::Public));
/// let result = ListToolsResult::new(vec![], hints);
/// assert_eq!((result.ttl_ms, result.cache_scope), (60_000, CacheScope::Public));
/// assert_eq!(result.cache_hints(), hints);
/// assert_eq!(CacheHints::NONE, CacheHints::private(0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheHints<S> {
    /// Milliseconds the client may consider the result fresh (0: stale at once).
    pub ttl_ms: u64,
    /// Who may share the cached result.
    pub scope: S,
}

impl<S: CacheScopeValues> CacheHints<S> {
    /// No caching: 0 ms, private.
    pub const NONE: Self = CacheHints {
        ttl_ms: 0,
        scope: S::PRIVATE,
    };

    /// Hints with this time to live (milliseconds) and scope.
    pub const fn new(ttl_ms: u64, scope: S) -> Self {
        CacheHints { ttl_ms, scope }
    }

    /// Fresh for `ttl_ms` milliseconds, cacheable by shared caches.
    pub const fn public(ttl_ms: u64) -> Self {
        CacheHints {
            ttl_ms,
            scope: S::PUBLIC,
        }
    }

    /// Fresh for `ttl_ms` milliseconds, within the same authorization context.
    pub const fn private(ttl_ms: u64) -> Self {
        CacheHints {
            ttl_ms,
            scope: S::PRIVATE,
        }
    }
}
