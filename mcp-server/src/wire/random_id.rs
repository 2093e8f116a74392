//! Unguessable ids (legacy session ids, task ids, elicitation ids): 128
//! bits from the operating system's CSPRNG as 32 lower-case hex digits.

/// A new id, or the OS's error when it has no randomness to give.
pub(crate) fn random_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `id` has the shape [`random_id`] gives (so it may name a
/// stored session; anything else is unknown without asking a store).
pub(crate) fn is_random_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
