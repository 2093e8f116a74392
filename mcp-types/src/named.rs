//! The lookup of generated types by their `$defs` name (feature `named`):
//! the callbacks behind each revision's `roundtrip_named`,
//! `union_choices_named` and `with_named_type`.
//!
//! A feature because it instantiates every type's serde impls inside this
//! crate, which is most of its compile time; crates that only use the types
//! turn it off.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::NamedError;
use crate::inspect::{UnionChoice, Walk};
use crate::json::WriteJson;

/// A callback over a generated type chosen by its `$defs` name; see the
/// generated `with_named_type` of each revision module.
pub trait NamedTypeFn {
    /// What the callback returns.
    type Output;
    /// Called with the type named by the caller.
    fn call<T>(self, type_name: &'static str) -> Self::Output
    where
        T: Serialize + DeserializeOwned + Walk + WriteJson;
}

/// Deserializes `value` as `T` and serializes it back, by serde and by
/// [`WriteJson`]: the two must write the same bytes.
pub struct Roundtrip(pub Value);

impl NamedTypeFn for Roundtrip {
    type Output = Result<Value, NamedError>;
    fn call<T>(self, type_name: &'static str) -> Self::Output
    where
        T: Serialize + DeserializeOwned + Walk + WriteJson,
    {
        let typed: T = deserialize_named(type_name, self.0)?;
        let failed = |message: String| NamedError::Serialize { type_name, message };
        let by_serde = serde_json::to_vec(&typed).map_err(|e| failed(e.to_string()))?;
        let written = crate::json::to_vec(&typed).map_err(|e| failed(e.to_string()))?;
        if written != by_serde {
            return Err(failed(format!(
                "WriteJson wrote {}, serde {}",
                String::from_utf8_lossy(&written),
                String::from_utf8_lossy(&by_serde)
            )));
        }
        serde_json::from_slice(&by_serde).map_err(|e| failed(e.to_string()))
    }
}

/// Deserializes `value` as `T` and lists the union variants it chose.
pub struct UnionChoices(pub Value);

impl NamedTypeFn for UnionChoices {
    type Output = Result<Vec<UnionChoice>, NamedError>;
    fn call<T>(self, type_name: &'static str) -> Self::Output
    where
        T: Serialize + DeserializeOwned + Walk + WriteJson,
    {
        let typed: T = deserialize_named(type_name, self.0)?;
        let mut choices = Vec::new();
        typed.walk(&mut String::new(), &mut choices);
        Ok(choices)
    }
}

fn deserialize_named<T: DeserializeOwned>(
    type_name: &'static str,
    value: Value,
) -> Result<T, NamedError> {
    serde_path_to_error::deserialize(value).map_err(|e| NamedError::Deserialize {
        type_name,
        path: e.path().to_string(),
        message: e.into_inner().to_string(),
    })
}
