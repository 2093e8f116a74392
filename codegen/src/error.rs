//! The crate's `Error` and `Result`: the lowest layer, so every module can
//! name them without importing the crate root that re-exports it.

use std::fmt;

/// Every failure of the generator, with a message that names the schema
/// location or file concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Error(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
