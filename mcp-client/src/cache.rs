//! What the client remembers about servers: the era per server process
//! (stdio) or origin (HTTP), and `server/discover` results for as long as
//! their `ttlMs` allows.
//!
//! * A `ttlMs` of 0 or an absent one means the result is stale at once; a
//!   negative one counts as 0 ([`normalise_discover`]).
//! * `cacheScope: "public"` entries are shared by every authorization
//!   context; `"private"` ones are keyed by the context they were fetched
//!   under and never returned to another one.
//! * Complete list results (`tools/list`, `prompts/list`, `resources/list`,
//!   `resources/templates/list`, all pages merged) follow the same rules;
//!   a `notifications/*/list_changed` drops them at once
//!   ([`Cache::invalidate_list`]).
//! * Time comes from a [`Clock`], so tests use [`FakeClock`] and never sleep.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use mcp_era_types::v2026_07_28::{CacheScope, DiscoverResult};
use mcp_era_types::versions::Era;
use serde_json::Value;

/// A source of the current time.
pub trait Clock: Send + Sync + fmt::Debug {
    /// Now.
    fn now(&self) -> Instant;
}

/// The real clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A clock that moves only when told to.
#[derive(Debug)]
pub struct FakeClock {
    base: Instant,
    offset: Mutex<Duration>,
}

impl Default for FakeClock {
    fn default() -> Self {
        Self {
            base: Instant::now(),
            offset: Mutex::new(Duration::ZERO),
        }
    }
}

impl FakeClock {
    /// A fake clock at an arbitrary start.
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        *lock(&self.offset) += by;
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Instant {
        self.base + *lock(&self.offset)
    }
}

/// Locks, recovering the data if another thread panicked while holding it
/// (every value here is valid after any partial update).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Which server an entry is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ServerKey {
    /// One running stdio server process: its command line and process id.
    Process {
        /// The command line, for diagnostics.
        command: String,
        /// The OS process id.
        pid: u32,
    },
    /// An HTTP origin: `scheme://host:port`.
    Origin(String),
}

/// An opaque authorization context (for HTTP, the `Authorization` header
/// value). Its contents are never printed.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct AuthContext(String);

impl AuthContext {
    /// Wraps a credential or any other string that identifies the context.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }
}

impl fmt::Debug for AuthContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AuthContext(..)")
    }
}

/// What was learned about a server's era.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EraEntry {
    /// The era.
    pub era: Era,
    /// The version last agreed with it.
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Scope {
    Public,
    Private(Option<AuthContext>),
}

#[derive(Debug, Clone)]
struct DiscoverEntry {
    result: DiscoverResult,
    fresh_until: Instant,
}

/// The client's cache; share one between clients with an `Arc`.
#[derive(Debug)]
pub struct Cache {
    clock: Arc<dyn Clock>,
    eras: Mutex<HashMap<ServerKey, EraEntry>>,
    discover: Mutex<HashMap<(ServerKey, Scope), DiscoverEntry>>,
    lists: Mutex<HashMap<ListKey, (Value, Instant)>>,
}

/// A cached list: which server, in which scope, which method.
type ListKey = (ServerKey, Scope, String);

impl Default for Cache {
    fn default() -> Self {
        Self::new(Arc::new(SystemClock))
    }
}

impl Cache {
    /// An empty cache reading time from `clock`.
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self {
            clock,
            eras: Mutex::default(),
            discover: Mutex::default(),
            lists: Mutex::default(),
        }
    }

    /// The remembered era of `server`.
    pub fn era(&self, server: &ServerKey) -> Option<EraEntry> {
        lock(&self.eras).get(server).cloned()
    }

    /// Remembers the era of `server` and the version agreed with it.
    pub fn remember_era(&self, server: ServerKey, era: Era, version: impl Into<String>) {
        lock(&self.eras).insert(
            server,
            EraEntry {
                era,
                version: version.into(),
            },
        );
    }

    /// Forgets the era of `server` (its cached assumption failed) and every
    /// discover result from it.
    pub fn forget(&self, server: &ServerKey) {
        lock(&self.eras).remove(server);
        lock(&self.discover).retain(|(s, _), _| s != server);
        lock(&self.lists).retain(|(s, _, _), _| s != server);
    }

    /// Stores a complete list result of `method` fetched under `auth`, fresh
    /// for its `ttlMs` (0 or absent: not kept) in its `cacheScope`.
    pub fn store_list(
        &self,
        server: ServerKey,
        auth: Option<&AuthContext>,
        method: &str,
        result: &Value,
    ) {
        let ttl = result.get("ttlMs").and_then(Value::as_u64).unwrap_or(0);
        let scope = match result.get("cacheScope").and_then(Value::as_str) {
            Some("public") => Scope::Public,
            _ => Scope::Private(auth.cloned()),
        };
        let mut map = lock(&self.lists);
        map.remove(&(server.clone(), Scope::Public, method.to_owned()));
        map.remove(&(
            server.clone(),
            Scope::Private(auth.cloned()),
            method.to_owned(),
        ));
        if ttl == 0 {
            return;
        }
        let fresh_until = self.clock.now() + Duration::from_millis(ttl);
        map.insert(
            (server, scope, method.to_owned()),
            (result.clone(), fresh_until),
        );
    }

    /// A fresh complete list result of `method` usable under `auth`.
    pub fn list(
        &self,
        server: &ServerKey,
        auth: Option<&AuthContext>,
        method: &str,
    ) -> Option<Value> {
        let now = self.clock.now();
        let map = lock(&self.lists);
        [Scope::Private(auth.cloned()), Scope::Public]
            .into_iter()
            .filter_map(|scope| map.get(&(server.clone(), scope, method.to_owned())))
            .find(|(_, until)| now < *until)
            .map(|(v, _)| v.clone())
    }

    /// Drops every cached list of `method` from `server` (its list changed).
    pub fn invalidate_list(&self, server: &ServerKey, method: &str) {
        lock(&self.lists).retain(|(s, _, m), _| !(s == server && m == method));
    }

    /// Stores a discover result fetched under `auth`. Results with
    /// `ttlMs` 0 are stale at once and not kept.
    pub fn store_discover(
        &self,
        server: ServerKey,
        auth: Option<&AuthContext>,
        result: DiscoverResult,
    ) {
        let scope = match result.cache_scope {
            CacheScope::Public => Scope::Public,
            CacheScope::Private => Scope::Private(auth.cloned()),
        };
        let mut map = lock(&self.discover);
        // A newer answer replaces whatever this context could see before.
        map.remove(&(server.clone(), Scope::Public));
        map.remove(&(server.clone(), Scope::Private(auth.cloned())));
        if result.ttl_ms == 0 {
            return;
        }
        let fresh_until = self.clock.now() + Duration::from_millis(result.ttl_ms);
        map.insert(
            (server, scope),
            DiscoverEntry {
                result,
                fresh_until,
            },
        );
    }

    /// A fresh discover result for `server` usable under `auth`: a public
    /// one, or a private one fetched under the same context.
    pub fn discover(
        &self,
        server: &ServerKey,
        auth: Option<&AuthContext>,
    ) -> Option<DiscoverResult> {
        let now = self.clock.now();
        let map = lock(&self.discover);
        [Scope::Private(auth.cloned()), Scope::Public]
            .into_iter()
            .filter_map(|scope| map.get(&(server.clone(), scope)))
            .find(|e| now < e.fresh_until)
            .map(|e| e.result.clone())
    }
}

/// Makes a raw `DiscoverResult` readable before typed parsing, applying the
/// caching rules: an absent or non-numeric `ttlMs` becomes 0 (stale), a
/// negative one 0, a fractional one is truncated; an absent `cacheScope`
/// becomes `"private"` (the safe reading).
pub fn normalise_discover(result: &mut Value) {
    let Some(obj) = result.as_object_mut() else {
        return;
    };
    let ttl = match obj.get("ttlMs") {
        Some(Value::Number(n)) => n.as_u64().unwrap_or_else(|| match n.as_f64() {
            Some(f) if f > 0.0 => f as u64,
            _ => 0,
        }),
        _ => 0,
    };
    obj.insert("ttlMs".to_owned(), Value::from(ttl));
    if !obj
        .get("cacheScope")
        .is_some_and(|s| s == "public" || s == "private")
    {
        obj.insert("cacheScope".to_owned(), Value::from("private"));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests: a panic is the failure report.
    use super::*;
    use serde_json::json;

    fn discover(ttl: Value, scope: &str) -> DiscoverResult {
        let mut v = json!({"resultType":"complete","supportedVersions":["2026-07-28"],
            "capabilities":{},"ttlMs":ttl,"cacheScope":scope});
        normalise_discover(&mut v);
        serde_json::from_value(v).unwrap()
    }

    fn setup() -> (Arc<FakeClock>, Cache, ServerKey) {
        let clock = Arc::new(FakeClock::new());
        let cache = Cache::new(clock.clone());
        (clock, cache, ServerKey::Origin("http://localhost:1".into()))
    }

    #[test]
    fn fresh_for_ttl_then_stale() {
        let (clock, cache, key) = setup();
        cache.store_discover(key.clone(), None, discover(json!(1000), "public"));
        assert!(cache.discover(&key, None).is_some());
        clock.advance(Duration::from_millis(999));
        assert!(cache.discover(&key, None).is_some());
        clock.advance(Duration::from_millis(1));
        assert!(cache.discover(&key, None).is_none());
    }

    #[test]
    fn zero_absent_negative_ttl_are_stale_at_once() {
        let (_clock, cache, key) = setup();
        for ttl in [json!(0), json!(-5), json!(null), json!("60000")] {
            cache.store_discover(key.clone(), None, discover(ttl.clone(), "public"));
            assert!(cache.discover(&key, None).is_none(), "{ttl}");
        }
        let mut v = json!({"supportedVersions":[],"capabilities":{}});
        normalise_discover(&mut v);
        assert_eq!(v["ttlMs"], 0);
        assert_eq!(v["cacheScope"], "private");
        let mut v = json!({"ttlMs": 1500.7, "cacheScope": "public"});
        normalise_discover(&mut v);
        assert_eq!(v["ttlMs"], 1500);
        assert_eq!(v["cacheScope"], "public");
    }

    #[test]
    fn public_entries_are_shared_across_contexts() {
        let (_clock, cache, key) = setup();
        let alice = AuthContext::new("Bearer alice");
        cache.store_discover(key.clone(), Some(&alice), discover(json!(60_000), "public"));
        assert!(
            cache
                .discover(&key, Some(&AuthContext::new("Bearer bob")))
                .is_some()
        );
        assert!(cache.discover(&key, None).is_some());
    }

    #[test]
    fn private_entries_stay_in_their_context() {
        let (_clock, cache, key) = setup();
        let alice = AuthContext::new("Bearer alice");
        let bob = AuthContext::new("Bearer bob");
        cache.store_discover(
            key.clone(),
            Some(&alice),
            discover(json!(60_000), "private"),
        );
        assert!(cache.discover(&key, Some(&alice)).is_some());
        assert!(cache.discover(&key, Some(&bob)).is_none());
        assert!(cache.discover(&key, None).is_none());
        // Anonymous private entries are a context of their own too.
        cache.store_discover(key.clone(), None, discover(json!(60_000), "private"));
        assert!(cache.discover(&key, None).is_some());
        assert!(cache.discover(&key, Some(&bob)).is_none());
        assert_eq!(format!("{alice:?}"), "AuthContext(..)");
    }

    #[test]
    fn entries_are_per_server() {
        let (_clock, cache, key) = setup();
        cache.store_discover(key.clone(), None, discover(json!(60_000), "public"));
        assert!(
            cache
                .discover(&ServerKey::Origin("http://localhost:2".into()), None)
                .is_none()
        );
        let p1 = ServerKey::Process {
            command: "srv".into(),
            pid: 1,
        };
        let p2 = ServerKey::Process {
            command: "srv".into(),
            pid: 2,
        };
        cache.remember_era(p1.clone(), Era::Modern, "2026-07-28");
        assert_eq!(cache.era(&p1).unwrap().era, Era::Modern);
        assert!(cache.era(&p2).is_none(), "a new process is probed again");
    }

    #[test]
    fn forgetting_drops_era_and_discover() {
        let (_clock, cache, key) = setup();
        cache.remember_era(key.clone(), Era::Legacy, "2025-11-25");
        cache.store_discover(key.clone(), None, discover(json!(60_000), "public"));
        cache.forget(&key);
        assert!(cache.era(&key).is_none());
        assert!(cache.discover(&key, None).is_none());
    }

    #[test]
    fn lists_are_cached_for_their_ttl_until_invalidated() {
        let (clock, cache, key) = setup();
        let list = json!({"tools": [], "ttlMs": 1000, "cacheScope": "public"});
        cache.store_list(key.clone(), None, "tools/list", &list);
        assert_eq!(cache.list(&key, None, "tools/list"), Some(list.clone()));
        assert!(cache.list(&key, None, "prompts/list").is_none());
        cache.invalidate_list(&key, "tools/list");
        assert!(cache.list(&key, None, "tools/list").is_none());
        cache.store_list(key.clone(), None, "tools/list", &list);
        clock.advance(Duration::from_millis(1000));
        assert!(cache.list(&key, None, "tools/list").is_none());
        let private = json!({"tools": [], "ttlMs": 1000, "cacheScope": "private"});
        let alice = AuthContext::new("a");
        cache.store_list(key.clone(), Some(&alice), "tools/list", &private);
        assert!(cache.list(&key, None, "tools/list").is_none());
        assert!(cache.list(&key, Some(&alice), "tools/list").is_some());
    }

    #[test]
    fn a_newer_stale_answer_replaces_a_fresh_one() {
        let (_clock, cache, key) = setup();
        cache.store_discover(key.clone(), None, discover(json!(60_000), "public"));
        cache.store_discover(key.clone(), None, discover(json!(0), "public"));
        assert!(cache.discover(&key, None).is_none());
    }
}
