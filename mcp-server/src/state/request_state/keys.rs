//! The key ring and the token: the keys that seal and open `requestState`
//! (one current, older ones for rotation), the sealed payload, and why a
//! token is refused.

use std::fmt;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::wire::errors::{self, ErrorObject};

/// The environment variable [`RequestStateKeys::from_env`] reads.
pub const REQUEST_STATE_KEYS_ENV: &str = "MCP_REQUEST_STATE_KEYS";

/// How long a sealed `requestState` opens by default: 10 minutes, a
/// person's time to answer an elicitation; longer rounds set their own
/// ([`RequestStateSealing::set_ttl`](crate::RequestStateSealing::set_ttl)).
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

    pub(super) fn seal_payload(&self, payload: &Sealed) -> Result<String, ErrorObject> {
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

    pub(super) fn open_payload(&self, token: &str) -> Result<Sealed, Refusal> {
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

/// The sealed payload: the binding, the expiry and the handler's state.
#[derive(Serialize, Deserialize)]
pub(super) struct Sealed {
    pub(super) m: String,
    pub(super) t: String,
    pub(super) a: String,
    pub(super) p: Option<String>,
    /// Expiry, ms since the Unix epoch.
    pub(super) x: u64,
    pub(super) s: String,
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
