//! Support code called by the generated types: field and const handling for
//! structs and discriminator-based variant selection for unions. Reached by
//! generated code as `::mcp_era_types::__private`.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::ser::{self, SerializeMap};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// A fixed value of a `const` property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Const {
    /// A string constant such as `"2.0"` or `"tools/call"`.
    Str(&'static str),
    /// An integer constant such as an error code.
    Int(i64),
}

impl Const {
    fn matches(self, value: &Value) -> bool {
        match self {
            Const::Str(s) => value.as_str() == Some(s),
            Const::Int(i) => value.as_i64() == Some(i),
        }
    }
}

impl fmt::Display for Const {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Const::Str(s) => write!(f, "{s:?}"),
            Const::Int(i) => write!(f, "{i}"),
        }
    }
}

impl Serialize for Const {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Const::Str(s) => serializer.serialize_str(s),
            Const::Int(i) => serializer.serialize_i64(*i),
        }
    }
}

/// A map key, borrowed from the input when the input allows it.
pub struct Key<'de>(std::borrow::Cow<'de, str>);

impl Key<'_> {
    /// The key text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key as an owned string.
    pub fn into_string(self) -> String {
        self.0.into_owned()
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(v.to_owned().into()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// Reads the value of a schema property into its slot, rejecting a repeated key.
pub fn next_field<'de, A, T>(
    map: &mut A,
    slot: &mut Option<T>,
    key: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    next_field_as(map, slot, key, |value: T| value)
}

/// As [`next_field`], for a property held in an `Arc`: the value is read,
/// then moved into its `Arc` (serde's impl reads a `Box`, then copies it
/// into a new allocation).
pub fn next_shared_field<'de, A, T>(
    map: &mut A,
    slot: &mut Option<std::sync::Arc<T>>,
    key: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    next_field_as(map, slot, key, std::sync::Arc::new)
}

/// Reads a `T` into a slot that stores it as `stored(T)`.
fn next_field_as<'de, A, T, U>(
    map: &mut A,
    slot: &mut Option<U>,
    key: &'static str,
    stored: impl FnOnce(T) -> U,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    if slot.is_some() {
        return Err(de::Error::duplicate_field(key));
    }
    *slot = Some(stored(map.next_value()?));
    Ok(())
}

/// Takes a required property out of its slot.
pub fn required<T, E: de::Error>(slot: Option<T>, key: &'static str) -> Result<T, E> {
    slot.ok_or_else(|| E::missing_field(key))
}

/// Reads a `const` property and checks its value.
pub fn next_const<'de, A: MapAccess<'de>>(
    map: &mut A,
    seen: &mut bool,
    key: &'static str,
    expected: Const,
) -> Result<(), A::Error> {
    if *seen {
        return Err(de::Error::duplicate_field(key));
    }
    map.next_value_seed(ConstSeed { key, expected })?;
    *seen = true;
    Ok(())
}

/// Checks that a required `const` was present (unless input may omit it).
pub fn required_const<E: de::Error>(
    seen: bool,
    absent_allowed: bool,
    key: &'static str,
) -> Result<(), E> {
    if seen || absent_allowed {
        Ok(())
    } else {
        Err(E::missing_field(key))
    }
}

struct ConstSeed {
    key: &'static str,
    expected: Const,
}

impl<'de> DeserializeSeed<'de> for ConstSeed {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match self.expected {
            Const::Str(_) => deserializer.deserialize_str(self),
            Const::Int(_) => deserializer.deserialize_i64(self),
        }
    }
}

impl<'de> Visitor<'de> for ConstSeed {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` to be {}", self.key, self.expected)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        match self.expected {
            Const::Str(s) if s == v => Ok(()),
            _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
        }
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        if self.expected == Const::Int(v) {
            Ok(())
        } else {
            Err(E::invalid_value(de::Unexpected::Signed(v), &self))
        }
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        match i64::try_from(v) {
            Ok(v) => self.visit_i64(v),
            Err(_) => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
        }
    }
}

/// The map types that hold keys a schema does not name.
pub trait ExtraMap {
    /// The value type.
    type Value;
    /// Whether the key is present.
    fn has(&self, key: &str) -> bool;
    /// Inserts a new entry.
    fn put(&mut self, key: String, value: Self::Value);
}

impl ExtraMap for serde_json::Map<String, Value> {
    type Value = Value;
    fn has(&self, key: &str) -> bool {
        self.contains_key(key)
    }
    fn put(&mut self, key: String, value: Value) {
        self.insert(key, value);
    }
}

impl<V> ExtraMap for BTreeMap<String, V> {
    type Value = V;
    fn has(&self, key: &str) -> bool {
        self.contains_key(key)
    }
    fn put(&mut self, key: String, value: V) {
        self.insert(key, value);
    }
}

/// Reads the value of a key the schema does not name into `extra`.
pub fn next_extra<'de, A, M>(map: &mut A, extra: &mut M, key: Key<'de>) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    M: ExtraMap,
    M::Value: Deserialize<'de>,
{
    if extra.has(key.as_str()) {
        return Err(de::Error::custom(format_args!(
            "duplicate field `{}`",
            key.as_str()
        )));
    }
    let value = map.next_value()?;
    extra.put(key.into_string(), value);
    Ok(())
}

/// Rejects a key on a closed object (`additionalProperties: false`).
pub fn unknown_key<E: de::Error>(key: Key<'_>, known: &'static [&'static str]) -> E {
    E::unknown_field(key.as_str(), known)
}

/// Writes the `extra` entries, refusing keys that would duplicate a property.
pub fn serialize_extra<'a, M, V>(
    map: &mut M,
    extra: impl IntoIterator<Item = (&'a String, &'a V)>,
    type_name: &str,
    known: &[&str],
) -> Result<(), M::Error>
where
    M: SerializeMap,
    V: Serialize + 'a,
{
    for (key, value) in extra {
        if known.contains(&key.as_str()) {
            return Err(ser::Error::custom(format_args!(
                "{type_name}: key `{key}` in `extra` duplicates a schema property"
            )));
        }
        map.serialize_entry(key, value)?;
    }
    Ok(())
}

/// How a union recognises its variants.
#[derive(Debug)]
pub struct UnionShape {
    /// The union's type name, for messages.
    pub name: &'static str,
    /// Variants in schema order.
    pub variants: &'static [VariantShape],
}

/// How one variant is recognised.
#[derive(Debug)]
pub struct VariantShape {
    /// Variant name, for messages.
    pub name: &'static str,
    /// The JSON kind and, for objects, the keys.
    pub kind: ShapeKind,
}

/// The JSON kind a variant accepts.
#[derive(Debug)]
pub enum ShapeKind {
    /// An object with these discriminating, required and known keys.
    Object {
        /// Keys with a fixed set of values.
        tags: &'static [TagShape],
        /// Required keys.
        required: &'static [&'static str],
        /// Every key the schema names.
        known: &'static [&'static str],
        /// Object-typed properties and the keys their values must have.
        nested: &'static [NestedShape],
    },
    /// An array.
    Array,
    /// A string.
    String,
    /// An integer.
    Integer,
    /// Any number.
    Number,
    /// A boolean.
    Boolean,
}

/// An object-typed property of a variant and what its value must hold.
#[derive(Debug)]
pub struct NestedShape {
    /// The property's key.
    pub key: &'static str,
    /// Consts of the nested object.
    pub tags: &'static [TagShape],
    /// Required keys of the nested object.
    pub required: &'static [&'static str],
}

impl NestedShape {
    fn accepts(&self, map: &serde_json::Map<String, Value>) -> bool {
        match map.get(self.key) {
            Some(Value::Object(inner)) => {
                tags_accept(self.tags, inner)
                    && self.required.iter().all(|k| inner.contains_key(*k))
            }
            _ => false,
        }
    }
}

fn tags_accept(tags: &[TagShape], map: &serde_json::Map<String, Value>) -> bool {
    tags.iter().all(|tag| match map.get(tag.key) {
        Some(v) => tag.values.iter().any(|c| c.matches(v)),
        None => !tag.required,
    })
}

/// A discriminating key of an object variant.
#[derive(Debug)]
pub struct TagShape {
    /// The JSON key.
    pub key: &'static str,
    /// The values that select the variant.
    pub values: &'static [Const],
    /// Whether the variant is ruled out when the key is absent.
    pub required: bool,
}

/// Picks the variant of `shape` that `value` belongs to, from its JSON kind
/// and, for objects, its discriminating keys: the variants whose tags accept
/// the object; among several, the one whose required keys are all present,
/// then the one whose object-typed properties hold their own required keys
/// and consts, then the one with more required keys, then the one that names
/// more of the present keys, then the earlier one. No variant is tried and
/// backtracked.
pub fn select(value: &Value, shape: &UnionShape) -> Result<usize, String> {
    let wanted = |f: fn(&ShapeKind) -> bool| shape.variants.iter().position(|v| f(&v.kind));
    let found = match value {
        Value::Object(map) => return select_object(map, shape),
        Value::Array(_) => wanted(|k| matches!(k, ShapeKind::Array)),
        Value::String(_) => wanted(|k| matches!(k, ShapeKind::String)),
        Value::Bool(_) => wanted(|k| matches!(k, ShapeKind::Boolean)),
        Value::Number(n) if n.is_i64() || n.is_u64() => wanted(|k| matches!(k, ShapeKind::Integer))
            .or_else(|| wanted(|k| matches!(k, ShapeKind::Number))),
        Value::Number(_) => wanted(|k| matches!(k, ShapeKind::Number)),
        Value::Null => None,
    };
    found.ok_or_else(|| {
        format!(
            "{}: a JSON {} is not allowed here; expected {}",
            shape.name,
            kind_name(value),
            expected_kinds(shape)
        )
    })
}

fn select_object(
    map: &serde_json::Map<String, Value>,
    shape: &UnionShape,
) -> Result<usize, String> {
    let mut best: Option<(usize, (bool, usize, usize, usize))> = None;
    let mut candidates = 0;
    for (index, variant) in shape.variants.iter().enumerate() {
        let ShapeKind::Object {
            tags,
            required,
            known,
            nested,
        } = &variant.kind
        else {
            continue;
        };
        if !tags_accept(tags, map) {
            continue;
        }
        candidates += 1;
        let rank = (
            required.iter().all(|k| map.contains_key(*k)),
            nested.iter().filter(|n| n.accepts(map)).count(),
            required.len(),
            map.keys().filter(|k| known.contains(&k.as_str())).count(),
        );
        if best.as_ref().is_none_or(|(_, b)| rank > *b) {
            best = Some((index, rank));
        }
    }
    match best {
        Some((index, _)) if candidates >= 1 => Ok(index),
        _ => Err(no_object_variant(map, shape)),
    }
}

fn no_object_variant(map: &serde_json::Map<String, Value>, shape: &UnionShape) -> String {
    let objects: Vec<&VariantShape> = shape
        .variants
        .iter()
        .filter(|v| matches!(v.kind, ShapeKind::Object { .. }))
        .collect();
    if objects.is_empty() {
        return format!(
            "{}: a JSON object is not allowed here; expected {}",
            shape.name,
            expected_kinds(shape)
        );
    }
    // The key that discriminates every object variant, with the most distinct
    // values (`method` rather than `jsonrpc`), names the error.
    let values_of = |key: &str| -> Vec<String> {
        let mut values: Vec<String> = Vec::new();
        for v in &objects {
            if let ShapeKind::Object { tags, .. } = &v.kind {
                for tag in tags.iter().filter(|t| t.key == key) {
                    for value in tag.values.iter().map(|c| c.to_string()) {
                        if !values.contains(&value) {
                            values.push(value);
                        }
                    }
                }
            }
        }
        values
    };
    let in_every_variant = |key: &&'static str| {
        objects.iter().all(|v| match &v.kind {
            ShapeKind::Object { tags, .. } => tags.iter().any(|t| t.key == *key),
            _ => false,
        })
    };
    let primary = match &objects[0].kind {
        ShapeKind::Object { tags, .. } => tags
            .iter()
            .map(|t| t.key)
            .filter(in_every_variant)
            .max_by_key(|key| values_of(key).len()),
        _ => None,
    };
    let Some(key) = primary else {
        let names: Vec<&str> = objects.iter().map(|v| v.name).collect();
        return format!(
            "{}: the object matches none of the variants {}",
            shape.name,
            names.join(", ")
        );
    };
    let expected = values_of(key);
    match map.get(key) {
        Some(found) if expected.contains(&found.to_string()) => format!(
            "{}: no variant with `{key}` {found} accepts the keys {:?}",
            shape.name,
            map.keys().collect::<Vec<_>>()
        ),
        Some(found) => format!(
            "{}: unknown `{key}` value {found}; expected one of {}",
            shape.name,
            expected.join(", ")
        ),
        None => format!(
            "{}: missing `{key}`; expected one of {}",
            shape.name,
            expected.join(", ")
        ),
    }
}

fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn expected_kinds(shape: &UnionShape) -> String {
    let mut kinds: Vec<&str> = shape
        .variants
        .iter()
        .map(|v| match v.kind {
            ShapeKind::Object { .. } => "object",
            ShapeKind::Array => "array",
            ShapeKind::String => "string",
            ShapeKind::Integer => "integer",
            ShapeKind::Number => "number",
            ShapeKind::Boolean => "boolean",
        })
        .collect();
    kinds.dedup();
    kinds.join(" or ")
}

/// Reads a union's chosen variant from the buffered value in place, naming
/// the variant in the error.
pub fn from_value_ref<'a, T: Deserialize<'a>>(
    value: &'a Value,
    variant: &str,
) -> Result<T, String> {
    T::deserialize(value).map_err(|e| format!("{variant}: {e}"))
}
