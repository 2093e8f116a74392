//! Sealed `requestState` (multi round-trip requests): the runtime encrypts
//! and authenticates what a handler puts in
//! [`InputRequired::state`](crate::InputRequired::state) before it reaches
//! the client, and opens it again on the retry, so a handler reads its own
//! plaintext in [`RetryInput::state`](crate::RetryInput::state) and the
//! client can neither read nor forge it.
//!
//! # The rules
//!
//! * **On by default.** Every `tools/call`, `prompts/get` and
//!   `resources/read` served by a `#[router]`, a
//!   [`ToolRouter`](crate::ToolRouter) or the router's prompt and resource
//!   tables is sealed; a handler written by hand against the raw params
//!   may call [`RequestStateSealing::seal`] and
//!   [`open`](RequestStateSealing::open) itself.
//! * **Keys.** Configure them once per server type, before serving:
//!   `server.declaration().request_state().set_keys(keys)`, for stdio
//!   and HTTP alike. Without keys the first sealed state draws a random
//!   key for the process: right for one instance, wrong for several.
//!   **Replicas behind a load balancer must share the keys**, or a retry
//!   that lands on another instance is refused ("unknown key id"); so
//!   must instances sharing a task store (Redis), as a task's input round
//!   resumes on whichever instance took the `tasks/update`.
//!   [`RequestStateKeys::from_env`] reads `MCP_REQUEST_STATE_KEYS`
//!   (`kid:BASE64URL[,kid:BASE64URL…]`, the first one current). Keys are
//!   at least 32 random bytes; `head -c 32 /dev/urandom | basenc --base64url`
//!   makes one.
//! * **Rotation.** The current key seals; older keys only open. Add the
//!   new key in front (`k2:…,k1:…`) everywhere, and drop `k1` once the
//!   longest-lived state (the expiry, 10 minutes by default) has passed.
//! * **What a token is bound to**, inside the sealed payload: the method,
//!   the tool or prompt name or resource URI, a SHA-256 of the arguments
//!   (canonical JSON: object keys sorted, absent arguments read as `{}`;
//!   a retry carries the same arguments as the first call, so a state
//!   earned for `delete {path: a}` cannot be replayed to `delete {path:
//!   b}`), the caller ([`Principal`](crate::Principal), the token's
//!   subject with `auth`, or none) and an expiry
//!   ([`DEFAULT_REQUEST_STATE_TTL`], [`RequestStateSealing::set_ttl`]).
//!   `_meta` and `inputResponses` are not bound: they change between
//!   rounds.
//! * **Refusals** answer `-32602` with a message naming the reason (never
//!   the key) and `data.reason` one of `not_a_token`, `unknown_key`,
//!   `integrity`, `expired`, `other_method`, `other_target`,
//!   `other_arguments`, `other_principal`; the handler is not called.
//! * **Opt-out**: [`RequestStateSealing::disable`] passes the state
//!   through in the clear, for servers whose state is only an opaque key
//!   to data kept server-side.
//!
//! The token is `v1.<kid>.<base64url(nonce ‖ ciphertext)>`:
//! XChaCha20-Poly1305 with a random 24-byte nonce, `v1.<kid>` as
//! associated data, under a key derived from the configured bytes with
//! SHA-256. State that never leaves the server (a task's input round, the
//! legacy bridge's server→client requests) gets a fresh expiry when its
//! round resumes, so a user may take longer than the expiry to answer.

mod binding;
mod keys;

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use crate::wire::errors::{self, ErrorObject};

pub use binding::Binding;
use binding::hex;
pub(crate) use binding::{arguments_digest, string_arguments_digest};
use keys::Sealed;
pub use keys::{
    DEFAULT_REQUEST_STATE_TTL, KeyError, MIN_KEY_LEN, REQUEST_STATE_KEYS_ENV, Refusal,
    RequestStateKeys,
};

/// How one server type seals `requestState`: its keys (random for the
/// process until [`set_keys`](Self::set_keys)), the expiry, and whether
/// sealing is on. Owned by the server's declaration:
/// `server.declaration().request_state()`.
pub struct RequestStateSealing {
    keys: RwLock<Option<Arc<RequestStateKeys>>>,
    ttl_ms: AtomicU64,
    disabled: AtomicBool,
}

impl fmt::Debug for RequestStateSealing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys = self
            .keys
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        f.debug_struct("RequestStateSealing")
            .field("keys", &keys)
            .field("ttl_ms", &self.ttl_ms.load(Ordering::Relaxed))
            .field("enabled", &self.is_enabled())
            .finish()
    }
}

impl Default for RequestStateSealing {
    fn default() -> Self {
        Self::new()
    }
}

impl RequestStateSealing {
    /// Sealing on, keys drawn at first use, [`DEFAULT_REQUEST_STATE_TTL`].
    pub fn new() -> Self {
        Self {
            keys: RwLock::new(None),
            ttl_ms: AtomicU64::new(ttl_ms(DEFAULT_REQUEST_STATE_TTL)),
            disabled: AtomicBool::new(false),
        }
    }

    /// Seals with `keys` from now on (states sealed before under other
    /// keys no longer open).
    pub fn set_keys(&self, keys: RequestStateKeys) {
        *self.keys.write().unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(keys));
    }

    /// The keys in use (drawing the random ones if none were set).
    pub fn keys(&self) -> Result<Arc<RequestStateKeys>, ErrorObject> {
        if let Some(keys) = &*self.keys.read().unwrap_or_else(PoisonError::into_inner) {
            return Ok(Arc::clone(keys));
        }
        let mut slot = self.keys.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(keys) = &*slot {
            return Ok(Arc::clone(keys));
        }
        let keys = Arc::new(
            RequestStateKeys::random().map_err(|e| errors::internal_error(e.to_string()))?,
        );
        *slot = Some(Arc::clone(&keys));
        Ok(keys)
    }

    /// How long a sealed state opens (at least one second).
    pub fn set_ttl(&self, ttl: Duration) {
        self.ttl_ms.store(ttl_ms(ttl).max(1000), Ordering::Relaxed);
    }

    /// How long a sealed state opens.
    pub fn ttl(&self) -> Duration {
        Duration::from_millis(self.ttl_ms.load(Ordering::Relaxed))
    }

    /// Opt-out: the state passes through in the clear, as the handler
    /// wrote it. Only for servers whose state reveals nothing and proves
    /// nothing (an opaque key to data kept server-side, checked there).
    pub fn disable(&self) {
        self.disabled.store(true, Ordering::Relaxed);
    }

    /// Whether states are sealed.
    pub fn is_enabled(&self) -> bool {
        !self.disabled.load(Ordering::Relaxed)
    }

    /// `state` sealed for `binding`, with the current key and a fresh
    /// expiry (`state` itself when sealing is off). `-32603` only when
    /// the system has no randomness.
    pub fn seal(&self, binding: &Binding, state: &str) -> Result<String, ErrorObject> {
        if !self.is_enabled() {
            return Ok(state.to_owned());
        }
        let payload = Sealed {
            m: binding.method.clone(),
            t: binding.target.clone(),
            a: hex(&binding.arguments),
            p: binding.principal.clone(),
            x: self.expiry(),
            s: state.to_owned(),
        };
        self.keys()?.seal_payload(&payload)
    }

    /// The handler's state in `token`, if it was sealed by one of the
    /// keys for `binding` and has not expired (`token` itself when
    /// sealing is off).
    pub fn open(&self, binding: &Binding, token: &str) -> Result<String, ErrorObject> {
        if !self.is_enabled() {
            return Ok(token.to_owned());
        }
        let payload = self.keys()?.open_payload(token)?;
        let refusal = if payload.x < now_ms() {
            Some(Refusal::Expired)
        } else if payload.m != binding.method {
            Some(Refusal::OtherMethod)
        } else if payload.t != binding.target {
            Some(Refusal::OtherTarget)
        } else if payload.a != hex(&binding.arguments) {
            Some(Refusal::OtherArguments)
        } else if payload.p != binding.principal {
            Some(Refusal::OtherPrincipal)
        } else {
            None
        };
        match refusal {
            Some(refusal) => Err(refusal.into()),
            None => Ok(payload.s),
        }
    }

    /// `token` sealed again with a fresh expiry and the current key, its
    /// binding unchanged: for state the server kept itself while a round
    /// waited (a task's input, the legacy bridge). `token` as it was when
    /// it does not open, so the retry refuses it with the reason.
    pub(crate) fn renew(&self, token: String) -> String {
        if !self.is_enabled() {
            return token;
        }
        let Ok(keys) = self.keys() else {
            return token;
        };
        match keys.open_payload(&token) {
            Ok(mut payload) => {
                payload.x = self.expiry();
                keys.seal_payload(&payload).unwrap_or(token)
            }
            Err(_) => token,
        }
    }

    fn expiry(&self) -> u64 {
        now_ms().saturating_add(self.ttl_ms.load(Ordering::Relaxed))
    }
}

fn ttl_ms(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX)
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use base64::Engine as _;
    use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
    use serde_json::{Map, Value, json};
    use sha2::{Digest, Sha256};

    use super::keys::Sealed;
    use super::*;

    const K1: [u8; 32] = [1; 32];
    const K2: [u8; 32] = [2; 32];

    fn sealing(keys: RequestStateKeys) -> RequestStateSealing {
        let sealing = RequestStateSealing::new();
        sealing.set_keys(keys);
        sealing
    }

    fn bind(name: &str, arguments: Value, principal: Option<&str>) -> Binding {
        Binding::new("tools/call", name, arguments.as_object(), principal)
    }

    #[test]
    fn digests_are_of_the_canonical_text() {
        let canonical = br#"{"a":"1","b":{"c":[1,"x",null],"d":true}}"#;
        let shuffled = json!({"b": {"d": true, "c": [1, "x", null]}, "a": "1"});
        let expected: [u8; 32] = Sha256::digest(canonical).into();
        assert_eq!(arguments_digest(shuffled.as_object()), expected);
        let empty: [u8; 32] = Sha256::digest(b"{}").into();
        assert_eq!(arguments_digest(None), empty);
        assert_eq!(arguments_digest(Some(&Map::new())), arguments_digest(None));
        // A prompt's string arguments hash as the same JSON object.
        let strings = BTreeMap::from([
            ("b".to_owned(), "2".to_owned()),
            ("a".to_owned(), "1".to_owned()),
        ]);
        let object = json!({"a": "1", "b": "2"});
        assert_eq!(
            string_arguments_digest(Some(&strings)),
            arguments_digest(object.as_object())
        );
        assert_eq!(string_arguments_digest(None), arguments_digest(None));
        assert_eq!(hex(&[0x00, 0x9f, 0xff]), "009fff");
    }

    fn reason(error: &ErrorObject) -> &str {
        assert_eq!(error.code, -32602, "{error:?}");
        error
            .data
            .as_ref()
            .and_then(|d| d["reason"].as_str())
            .unwrap_or_default()
    }

    #[test]
    fn round_trip_hides_the_state() {
        let s = sealing(RequestStateKeys::new("k1", K1).unwrap());
        let b = bind("t", json!({"x": 1}), Some("alice"));
        let token = s.seal(&b, "secret plan").unwrap();
        assert!(token.starts_with("v1.k1."), "{token}");
        assert!(!token.contains("secret"));
        // A random nonce: the same state seals differently each time.
        assert_ne!(token, s.seal(&b, "secret plan").unwrap());
        assert_eq!(s.open(&b, &token).unwrap(), "secret plan");
    }

    #[test]
    fn arguments_are_bound_in_canonical_order() {
        let s = sealing(RequestStateKeys::new("k1", K1).unwrap());
        let token = s
            .seal(
                &bind("t", json!({"a": 1, "b": {"d": [1, 2], "c": "x"}}), None),
                "st",
            )
            .unwrap();
        let mut reordered = serde_json::Map::new();
        reordered.insert("b".into(), json!({"c": "x", "d": [1, 2]}));
        reordered.insert("a".into(), json!(1));
        let b = Binding::new("tools/call", "t", Some(&reordered), None);
        assert_eq!(s.open(&b, &token).unwrap(), "st");
        // Absent arguments read as `{}`.
        let empty = Binding::new("tools/call", "t", None, None);
        let token = s.seal(&empty, "e").unwrap();
        assert_eq!(s.open(&bind("t", json!({}), None), &token).unwrap(), "e");
    }

    #[test]
    fn each_refusal_names_its_reason() {
        let s = sealing(RequestStateKeys::new("k1", K1).unwrap());
        let b = bind("t", json!({"x": 1}), Some("alice"));
        let token = s.seal(&b, "st").unwrap();
        let refused = |binding: &Binding, token: &str| {
            let error = s.open(binding, token).unwrap_err();
            assert!(!error.message.contains("AQEB"), "the key leaks: {error:?}");
            reason(&error).to_owned()
        };
        assert_eq!(refused(&b, "plain text"), "not_a_token");
        assert_eq!(refused(&b, "v2.k1.AAAA"), "not_a_token");
        assert_eq!(
            refused(&b, &token.replacen("v1.k1.", "v1.k9.", 1)),
            "unknown_key"
        );
        // One character of the ciphertext changed.
        let mut tampered = token.clone().into_bytes();
        let last = tampered.len() - 3;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert_eq!(refused(&b, &tampered), "integrity");
        assert_eq!(refused(&b, "v1.k1.not*base64"), "integrity");
        assert_eq!(refused(&b, "v1.k1.AAAA"), "integrity");
        let other_method = Binding::new(
            "prompts/get",
            "t",
            json!({"x": 1}).as_object(),
            Some("alice"),
        );
        assert_eq!(refused(&other_method, &token), "other_method");
        assert_eq!(
            refused(&bind("u", json!({"x": 1}), Some("alice")), &token),
            "other_target"
        );
        assert_eq!(
            refused(&bind("t", json!({"x": 2}), Some("alice")), &token),
            "other_arguments"
        );
        assert_eq!(
            refused(&bind("t", json!({"x": 1}), Some("bob")), &token),
            "other_principal"
        );
        assert_eq!(
            refused(&bind("t", json!({"x": 1}), None), &token),
            "other_principal"
        );
    }

    #[test]
    fn an_expired_state_is_refused_and_renewal_restarts_the_clock() {
        let s = sealing(RequestStateKeys::new("k1", K1).unwrap());
        let b = bind("t", json!({}), None);
        let keys = s.keys().unwrap();
        let old = Sealed {
            m: b.method.clone(),
            t: b.target.clone(),
            a: hex(&b.arguments),
            p: None,
            x: now_ms() - 1,
            s: "st".into(),
        };
        let expired = keys.seal_payload(&old).unwrap();
        assert_eq!(reason(&s.open(&b, &expired).unwrap_err()), "expired");
        let renewed = s.renew(expired);
        assert_eq!(s.open(&b, &renewed).unwrap(), "st");
        // What does not open is left as it was, for the retry to refuse.
        assert_eq!(s.renew("junk".into()), "junk");
    }

    #[test]
    fn rotation_opens_old_states_and_refuses_unknown_ids() {
        let before = sealing(RequestStateKeys::new("k1", K1).unwrap());
        let b = bind("t", json!({}), None);
        let old = before.seal(&b, "old").unwrap();
        let after = sealing(
            RequestStateKeys::new("k2", K2)
                .unwrap()
                .with_previous("k1", K1)
                .unwrap(),
        );
        assert_eq!(after.open(&b, &old).unwrap(), "old");
        let new = after.seal(&b, "new").unwrap();
        assert!(new.starts_with("v1.k2."));
        // The old ring does not know k2.
        assert_eq!(reason(&before.open(&b, &new).unwrap_err()), "unknown_key");
        // k1 dropped: refused.
        let dropped = sealing(RequestStateKeys::new("k2", K2).unwrap());
        assert_eq!(reason(&dropped.open(&b, &old).unwrap_err()), "unknown_key");
        // The same id with other bytes: an integrity failure.
        let impostor = sealing(RequestStateKeys::new("k1", K2).unwrap());
        assert_eq!(reason(&impostor.open(&b, &old).unwrap_err()), "integrity");
    }

    #[test]
    fn parse_reads_a_ring_first_key_current() {
        let k2 = URL_SAFE_NO_PAD.encode(K2);
        let k1 = URL_SAFE.encode(K1);
        let ring = RequestStateKeys::parse(&format!("k2:{k2}, k1:{k1}")).unwrap();
        assert_eq!(ring.current_key_id(), "k2");
        assert_eq!(ring.key_ids().collect::<Vec<_>>(), ["k2", "k1"]);
        let short = URL_SAFE_NO_PAD.encode([0u8; 31]);
        for bad in [
            String::new(),
            "k1".into(),
            // A bare key, its id forgotten: never echoed.
            k1.clone(),
            format!("k1:{short}"),
            format!("k1:{k1},k1:{k2}"),
            "k1:***".into(),
            format!("bad.id:{k1}"),
        ] {
            let error = RequestStateKeys::parse(&bad).unwrap_err().to_string();
            assert!(!error.contains(&k1) && !error.contains(&k2), "{error}");
        }
    }

    #[test]
    fn debug_shows_key_ids_only() {
        let ring = RequestStateKeys::new("k2", [0xAB; 40])
            .unwrap()
            .with_previous("k1", K1)
            .unwrap();
        let text = format!("{ring:?} {:?}", sealing(ring.clone()));
        assert!(text.contains("k2") && text.contains("k1"), "{text}");
        for leak in ["171", "1, 1, 1", "key: ["] {
            assert!(!text.contains(leak), "{text}");
        }
    }

    #[test]
    fn random_rings_do_not_open_each_other() {
        let a = sealing(RequestStateKeys::random().unwrap());
        let b = sealing(RequestStateKeys::random().unwrap());
        let binding = bind("t", json!({}), None);
        let token = a.seal(&binding, "st").unwrap();
        assert_eq!(
            reason(&b.open(&binding, &token).unwrap_err()),
            "unknown_key"
        );
        // A sealing with no keys draws one and keeps it.
        let lazy = RequestStateSealing::new();
        let token = lazy.seal(&binding, "st").unwrap();
        assert_eq!(lazy.open(&binding, &token).unwrap(), "st");
    }

    #[test]
    fn disabled_passes_through() {
        let s = RequestStateSealing::new();
        s.disable();
        let b = bind("t", json!({}), None);
        assert_eq!(s.seal(&b, "plain").unwrap(), "plain");
        assert_eq!(s.open(&b, "anything").unwrap(), "anything");
    }
}
