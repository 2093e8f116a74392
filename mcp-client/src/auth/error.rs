//! [`AuthError`], what every step of the OAuth flow fails with.

use std::fmt;

/// What went wrong while authorizing.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthError(pub String);

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

pub(super) fn fail<T>(message: impl Into<String>) -> Result<T, AuthError> {
    Err(AuthError(message.into()))
}
