//! The error of the named-type lookups (`roundtrip_named` and friends).

use std::fmt;

/// Why a value could not be handled as the named type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NamedError {
    /// No type of that `$defs` name exists in the revision.
    UnknownType {
        /// The revision searched.
        revision: &'static str,
        /// The name asked for.
        type_name: String,
    },
    /// The value does not match the type.
    Deserialize {
        /// The type.
        type_name: &'static str,
        /// Where in the value the problem is (`.`-separated; `.` alone is the root).
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The value could not be written back.
    Serialize {
        /// The type.
        type_name: &'static str,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for NamedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NamedError::UnknownType {
                revision,
                type_name,
            } => {
                write!(f, "{revision} has no type named `{type_name}`")
            }
            NamedError::Deserialize {
                type_name,
                path,
                message,
            } => {
                write!(f, "{type_name}: at `{path}`: {message}")
            }
            NamedError::Serialize { type_name, message } => {
                write!(f, "{type_name}: cannot serialize: {message}")
            }
        }
    }
}

impl std::error::Error for NamedError {}
