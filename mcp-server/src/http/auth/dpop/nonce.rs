//! Resource-server DPoP nonces (RFC 9449 §9): an HMAC-SHA256 of the current
//! time bucket, so nothing is stored; the current and the previous bucket
//! are accepted, so a nonce lives between one and two lifetimes.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

/// The nonce key and bucket length.
pub(crate) struct Nonces {
    key: [u8; 32],
    lifetime_secs: u64,
}

impl Nonces {
    /// Nonces from `key` (any length; hashed to 32 bytes), rotating every
    /// `lifetime_secs` (at least one second).
    pub(crate) fn new(key: &[u8], lifetime_secs: u64) -> Self {
        Self {
            key: Sha256::digest(key).into(),
            lifetime_secs: lifetime_secs.max(1),
        }
    }

    /// The nonce to hand out at `now` (Unix seconds).
    pub(crate) fn current(&self, now: u64) -> String {
        self.for_bucket(now / self.lifetime_secs)
    }

    /// Whether `nonce` is this bucket's or the previous one's.
    pub(crate) fn accepts(&self, nonce: &str, now: u64) -> bool {
        let bucket = now / self.lifetime_secs;
        [bucket, bucket.saturating_sub(1)]
            .iter()
            .any(|b| constant_time_eq(self.for_bucket(*b).as_bytes(), nonce.as_bytes()))
    }

    fn for_bucket(&self, bucket: u64) -> String {
        URL_SAFE_NO_PAD.encode(hmac_sha256(&self.key, &bucket.to_be_bytes()))
    }
}

/// HMAC (RFC 2104) with SHA-256 and a 32-byte key.
fn hmac_sha256(key: &[u8; 32], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(key);
    let mut inner = Sha256::new();
    inner.update(block.map(|b| b ^ 0x36));
    inner.update(message);
    let mut outer = Sha256::new();
    outer.update(block.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// Equality whose time does not depend on where the inputs differ.
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_a_reference_implementation() {
        // The value of Python's `hmac.new(b"\x0b" * 32, b"Hi There", sha256)`.
        let key = [0x0b; 32];
        let mac = hmac_sha256(&key, b"Hi There");
        assert_eq!(
            mac.iter().map(|b| format!("{b:02x}")).collect::<String>(),
            "198a607eb44bfbc69903a0f1cf2bbdc5ba0aa3f3d9ae3c1c7a3b1696a0b68cf7"
        );
    }

    #[test]
    fn nonces_rotate_and_the_previous_one_is_kept() {
        let nonces = Nonces::new(b"k", 100);
        let first = nonces.current(1_000);
        assert!(nonces.accepts(&first, 1_050));
        assert!(nonces.accepts(&first, 1_150));
        assert!(!nonces.accepts(&first, 1_250));
        assert_ne!(first, nonces.current(1_100));
        assert!(!nonces.accepts("garbage", 1_000));
    }
}
