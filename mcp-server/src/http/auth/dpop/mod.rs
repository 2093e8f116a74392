//! DPoP for the resource server (RFC 9449): [`DpopConfig`] switches on the
//! `DPoP` authorization scheme (§7.1), proofs are checked as §4.3 says
//! (`proof.rs`, the key in `jwk.rs`), `jti`s are remembered (`replay.rs`)
//! and nonces may be required (§9, `nonce.rs`).

mod jwk;
mod nonce;
pub(crate) mod proof;
mod replay;

use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::Algorithm;

use nonce::Nonces;
pub(crate) use nonce::constant_time_eq;
use replay::ReplayCache;

/// DPoP settings ([`AuthConfig::with_dpop`](super::AuthConfig::with_dpop));
/// off unless set. Proofs must use an algorithm of
/// [`algorithms`](Self::algorithms) (asymmetric only), carry an `iat`
/// within [`iat_window`](Self::iat_window) of now, a `jti` this key has not
/// used within that window, the request's method and URI and the token's
/// hash, and a key whose thumbprint the token's `cnf.jkt` names.
#[derive(Clone)]
pub struct DpopConfig {
    /// Only DPoP-bound tokens under the `DPoP` scheme are accepted; a
    /// `Bearer` request is refused (`dpop_bound_access_tokens_required`).
    pub required: bool,
    /// The proof algorithms accepted (`dpop_signing_alg_values_supported`).
    pub algorithms: Vec<Algorithm>,
    /// How old a proof's `iat` may be.
    pub iat_window: Duration,
    /// How far ahead of this server's clock a proof's `iat` may be: small,
    /// since every accepted proof is remembered until its `iat` leaves the
    /// window.
    pub iat_future_leeway: Duration,
    /// Proofs must carry a nonce this server issued (RFC 9449 §9).
    pub require_nonce: bool,
    // Shared by every clone.
    replay: Arc<ReplayCache>,
    nonces: Arc<Nonces>,
}

impl std::fmt::Debug for DpopConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The nonce key stays out of logs.
        f.debug_struct("DpopConfig")
            .field("required", &self.required)
            .field("algorithms", &self.algorithms)
            .field("iat_window", &self.iat_window)
            .field("iat_future_leeway", &self.iat_future_leeway)
            .field("require_nonce", &self.require_nonce)
            .finish_non_exhaustive()
    }
}

/// Proofs kept for replay checks at most (about 100 bytes each).
pub const DEFAULT_REPLAY_CAPACITY: usize = 100_000;

/// Proofs of one key kept at most: a client may make about 80 requests a
/// second with one key before its proofs are refused.
pub const DEFAULT_REPLAY_PER_KEY: usize = 10_000;

/// How long a server nonce stays current (it is accepted for twice this).
pub const DEFAULT_NONCE_LIFETIME: Duration = Duration::from_secs(300);

impl Default for DpopConfig {
    fn default() -> Self {
        Self::new()
    }
}

impl DpopConfig {
    /// DPoP accepted next to bearer tokens: ES256, ES384, RS256, PS256 and
    /// EdDSA proofs, an `iat` at most 120 s old and 5 s ahead, no nonce, a
    /// per-process nonce key, [`DEFAULT_REPLAY_CAPACITY`] proofs remembered
    /// ([`DEFAULT_REPLAY_PER_KEY`] per key).
    pub fn new() -> Self {
        let mut key = [0u8; 32];
        // Without OS randomness the key is the process's start time and id:
        // weaker nonces, never a refusal to start.
        if getrandom::fill(&mut key).is_err() {
            let seed = format!("{}-{}", super::token::now_secs(), std::process::id());
            key[..seed.len().min(32)].copy_from_slice(&seed.as_bytes()[..seed.len().min(32)]);
        }
        Self {
            required: false,
            algorithms: vec![
                Algorithm::ES256,
                Algorithm::ES384,
                Algorithm::RS256,
                Algorithm::PS256,
                Algorithm::EdDSA,
            ],
            iat_window: Duration::from_secs(120),
            iat_future_leeway: Duration::from_secs(5),
            require_nonce: false,
            replay: Arc::new(ReplayCache::new(
                DEFAULT_REPLAY_CAPACITY,
                DEFAULT_REPLAY_PER_KEY,
            )),
            nonces: Arc::new(Nonces::new(&key, DEFAULT_NONCE_LIFETIME.as_secs())),
        }
    }

    /// Refuses bearer tokens: every request needs a DPoP-bound token.
    pub fn required(mut self, required: bool) -> Self {
        self.required = required;
        self
    }

    /// Requires server nonces in proofs.
    pub fn require_nonce(mut self, require: bool) -> Self {
        self.require_nonce = require;
        self
    }

    /// The accepted proof algorithms; symmetric ones (HS*) are dropped.
    pub fn algorithms<I: IntoIterator<Item = Algorithm>>(mut self, algorithms: I) -> Self {
        self.algorithms = algorithms
            .into_iter()
            .filter(|a| !matches!(a, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512))
            .collect();
        self
    }

    /// How old a proof's `iat` may be (default 120 s).
    pub fn iat_window(mut self, window: Duration) -> Self {
        self.iat_window = window;
        self
    }

    /// How far ahead of now a proof's `iat` may be (default 5 s).
    pub fn iat_future_leeway(mut self, leeway: Duration) -> Self {
        self.iat_future_leeway = leeway;
        self
    }

    /// How many accepted proofs are remembered for replay checks, in all
    /// and per key (defaults [`DEFAULT_REPLAY_CAPACITY`] and
    /// [`DEFAULT_REPLAY_PER_KEY`]). A full share refuses that key's proofs
    /// until its oldest leave the `iat` window; a full table refuses all.
    pub fn replay_limits(mut self, capacity: usize, per_key: usize) -> Self {
        self.replay = Arc::new(ReplayCache::new(capacity, per_key));
        self
    }

    /// Nonces from this key (any length), so that several processes behind
    /// one address accept each other's, rotating every `lifetime`.
    pub fn nonce_key(mut self, key: &[u8], lifetime: Duration) -> Self {
        self.nonces = Arc::new(Nonces::new(key, lifetime.as_secs()));
        self
    }

    /// The `algs` of a challenge and the metadata's algorithm list.
    pub(crate) fn algorithm_names(&self) -> Vec<String> {
        self.algorithms.iter().map(|a| format!("{a:?}")).collect()
    }

    /// The nonce to send now, when nonces are required.
    pub(crate) fn current_nonce(&self) -> Option<String> {
        self.require_nonce
            .then(|| self.nonces.current(super::token::now_secs()))
    }
}
