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

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::wire::errors::{self, ErrorObject};

/// The environment variable [`RequestStateKeys::from_env`] reads.
pub const REQUEST_STATE_KEYS_ENV: &str = "MCP_REQUEST_STATE_KEYS";

/// How long a sealed `requestState` opens by default: 10 minutes, a
/// person's time to answer an elicitation; longer rounds set their own
/// ([`RequestStateSealing::set_ttl`]).
pub const DEFAULT_REQUEST_STATE_TTL: Duration = Duration::from_secs(600);

/// The shortest key accepted, in bytes.
pub const MIN_KEY_LEN: usize = 32;

const VERSION: &str = "v1";
const NONCE_LEN: usize = 24;
/// Separates the derived cipher key from any other use of the same bytes.
const KEY_LABEL: &[u8] = b"mcp-era-server requestState v1\0";

/// A configured key ring was refused: why (never the key itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError(String);

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KeyError {}

/// One key: its id and the cipher key derived from its bytes.
#[derive(Clone)]
struct RingKey {
    kid: String,
    key: [u8; 32],
}

impl RingKey {
    fn new(kid: String, bytes: &[u8]) -> Result<Self, KeyError> {
        if kid.is_empty()
            || kid.len() > 64
            || !kid
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(KeyError(format!(
                "request state key id `{kid}` must be 1 to 64 of A-Z a-z 0-9 _ -"
            )));
        }
        if bytes.len() < MIN_KEY_LEN {
            return Err(KeyError(format!(
                "request state key `{kid}` has {} bytes; at least {MIN_KEY_LEN} are needed",
                bytes.len()
            )));
        }
        let key = Sha256::new()
            .chain_update(KEY_LABEL)
            .chain_update(bytes)
            .finalize()
            .into();
        Ok(Self { kid, key })
    }

    fn cipher(&self) -> XChaCha20Poly1305 {
        XChaCha20Poly1305::new(&Key::from(self.key))
    }
}

/// The keys that seal and open `requestState`: one current key, which
/// seals, and older ones, which still open (rotation). `Debug` shows the
/// key ids only.
#[derive(Clone)]
pub struct RequestStateKeys {
    current: RingKey,
    previous: Vec<RingKey>,
}

impl fmt::Debug for RequestStateKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestStateKeys")
            .field("current", &self.current.kid)
            .field(
                "previous",
                &self.previous.iter().map(|k| &k.kid).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl RequestStateKeys {
    /// A ring with one key, `kid` (1 to 64 of `A-Z a-z 0-9 _ -`), of at
    /// least [`MIN_KEY_LEN`] bytes.
    pub fn new(kid: impl Into<String>, key: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        Ok(Self {
            current: RingKey::new(kid.into(), key.as_ref())?,
            previous: Vec::new(),
        })
    }

    /// Adds an older key, which opens states but seals none.
    pub fn with_previous(
        mut self,
        kid: impl Into<String>,
        key: impl AsRef<[u8]>,
    ) -> Result<Self, KeyError> {
        let key = RingKey::new(kid.into(), key.as_ref())?;
        if self.find(&key.kid).is_some() {
            return Err(KeyError(format!(
                "request state key id `{}` appears twice",
                key.kid
            )));
        }
        self.previous.push(key);
        Ok(self)
    }

    /// A ring of one random key with a random id: what a server without
    /// configured keys uses (one process only).
    pub fn random() -> Result<Self, KeyError> {
        let mut bytes = [0u8; 32];
        let mut id = [0u8; 6];
        getrandom::fill(&mut bytes)
            .and_then(|()| getrandom::fill(&mut id))
            .map_err(|e| KeyError(format!("no randomness for a request state key: {e}")))?;
        let kid: String = id.iter().map(|b| format!("{b:02x}")).collect();
        Self::new(format!("local-{kid}"), bytes)
    }

    /// `kid:BASE64URL[,kid:BASE64URL…]`, the first key current (padding
    /// optional; spaces around entries ignored).
    pub fn parse(text: &str) -> Result<Self, KeyError> {
        let mut ring: Option<Self> = None;
        for (at, entry) in text.split(',').map(str::trim).enumerate() {
            // Not echoed: an entry without its id may be a bare key.
            let Some((kid, encoded)) = entry.split_once(':') else {
                return Err(KeyError(format!(
                    "request state keys are `kid:BASE64URL`, comma-separated; entry {} has no `:`",
                    at + 1
                )));
            };
            let kid = kid.trim();
            let encoded = encoded.trim();
            let bytes = URL_SAFE_NO_PAD
                .decode(encoded)
                .or_else(|_| URL_SAFE.decode(encoded))
                .map_err(|_| {
                    KeyError(format!(
                        "request state key `{kid}` is not base64url (RFC 4648 §5)"
                    ))
                })?;
            ring = Some(match ring {
                None => Self::new(kid, bytes)?,
                Some(ring) => ring.with_previous(kid, bytes)?,
            });
        }
        ring.ok_or_else(|| KeyError("no request state key given".into()))
    }

    /// The ring in `MCP_REQUEST_STATE_KEYS` ([`parse`](Self::parse)'s
    /// format); `None` when it is unset or empty.
    pub fn from_env() -> Result<Option<Self>, KeyError> {
        match std::env::var(REQUEST_STATE_KEYS_ENV) {
            Ok(text) if !text.trim().is_empty() => Self::parse(&text).map(Some),
            Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(KeyError(format!(
                "{REQUEST_STATE_KEYS_ENV} is not valid UTF-8"
            ))),
        }
    }

    /// The id of the key that seals.
    pub fn current_key_id(&self) -> &str {
        &self.current.kid
    }

    /// Every key id, the current one first.
    pub fn key_ids(&self) -> impl Iterator<Item = &str> {
        std::iter::once(&self.current)
            .chain(&self.previous)
            .map(|k| k.kid.as_str())
    }

    fn find(&self, kid: &str) -> Option<&RingKey> {
        std::iter::once(&self.current)
            .chain(&self.previous)
            .find(|k| k.kid == kid)
    }

    fn seal_payload(&self, payload: &Sealed) -> Result<String, ErrorObject> {
        let plain = serde_json::to_vec(payload)
            .map_err(|e| errors::internal_error(format!("requestState: {e}")))?;
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce)
            .map_err(|e| errors::internal_error(format!("requestState: no randomness: {e}")))?;
        let header = format!("{VERSION}.{}", self.current.kid);
        let sealed = self
            .current
            .cipher()
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: &plain,
                    aad: header.as_bytes(),
                },
            )
            .map_err(|_| errors::internal_error("requestState could not be sealed"))?;
        let mut body = nonce.to_vec();
        body.extend_from_slice(&sealed);
        Ok(format!("{header}.{}", URL_SAFE_NO_PAD.encode(body)))
    }

    fn open_payload(&self, token: &str) -> Result<Sealed, Refusal> {
        let mut parts = token.splitn(3, '.');
        let (Some(VERSION), Some(kid), Some(body)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(Refusal::NotAToken);
        };
        let key = self
            .find(kid)
            .ok_or_else(|| Refusal::UnknownKey(kid.chars().take(64).collect()))?;
        let body = URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| Refusal::Integrity)?;
        if body.len() < NONCE_LEN {
            return Err(Refusal::Integrity);
        }
        let (nonce, sealed) = body.split_at(NONCE_LEN);
        let nonce = XNonce::try_from(nonce).map_err(|_| Refusal::Integrity)?;
        let header = format!("{VERSION}.{kid}");
        let plain = key
            .cipher()
            .decrypt(
                &nonce,
                Payload {
                    msg: sealed,
                    aad: header.as_bytes(),
                },
            )
            .map_err(|_| Refusal::Integrity)?;
        serde_json::from_slice(&plain).map_err(|_| Refusal::Integrity)
    }
}

/// What one sealed state is for: the request it may come back on. Build
/// it from the request being answered (first round) or retried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    method: String,
    target: String,
    /// SHA-256 of the canonical arguments.
    arguments: [u8; 32],
    principal: Option<String>,
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
fn hex(bytes: &[u8]) -> String {
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

/// The sealed payload: the binding, the expiry and the handler's state.
#[derive(Serialize, Deserialize)]
struct Sealed {
    m: String,
    t: String,
    a: String,
    p: Option<String>,
    /// Expiry, ms since the Unix epoch.
    x: u64,
    s: String,
}

/// Why a `requestState` was refused. Becomes a `-32602` whose message
/// names the reason and whose `data.reason` is [`code`](Self::code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not a `v1.<kid>.<…>` token at all.
    NotAToken,
    /// Sealed with a key this server does not hold (another instance's
    /// random key, or one rotated out).
    UnknownKey(String),
    /// Changed, or sealed under the same id with other key bytes.
    Integrity,
    /// Past its expiry.
    Expired,
    /// Sealed for another method.
    OtherMethod,
    /// Sealed for another tool, prompt or resource.
    OtherTarget,
    /// Sealed for other arguments.
    OtherArguments,
    /// Sealed for another caller.
    OtherPrincipal,
}

impl Refusal {
    /// The `data.reason` of the error.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotAToken => "not_a_token",
            Self::UnknownKey(_) => "unknown_key",
            Self::Integrity => "integrity",
            Self::Expired => "expired",
            Self::OtherMethod => "other_method",
            Self::OtherTarget => "other_target",
            Self::OtherArguments => "other_arguments",
            Self::OtherPrincipal => "other_principal",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAToken => f.write_str("requestState is not a state this server issued"),
            Self::UnknownKey(kid) => {
                write!(f, "requestState was sealed with an unknown key id `{kid}`")
            }
            Self::Integrity => f.write_str("requestState failed its integrity check"),
            Self::Expired => f.write_str("requestState has expired"),
            Self::OtherMethod => f.write_str("requestState was issued for another method"),
            Self::OtherTarget => {
                f.write_str("requestState was issued for another tool, prompt or resource")
            }
            Self::OtherArguments => f.write_str("requestState was issued for other arguments"),
            Self::OtherPrincipal => f.write_str("requestState was issued to another caller"),
        }
    }
}

impl std::error::Error for Refusal {}

impl From<Refusal> for ErrorObject {
    fn from(refusal: Refusal) -> Self {
        let mut error = errors::invalid_params(refusal.to_string());
        error.data = Some(json!({ "reason": refusal.code() }));
        error
    }
}

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
