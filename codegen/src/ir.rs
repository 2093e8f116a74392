//! The intermediate representation: one ordered map of named types built from
//! the normalised `$defs`, with every union's dispatch shape precomputed.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::error::{Error, Result};
use crate::naming::field_name;
use crate::normalise::{ABSENT_ALLOWED_KEY, BUILTIN_KEY, NULLABLE_KEY, Normalised, ref_name};

/// All types of one revision, by Rust name (which is the `$defs` name).
#[derive(Debug, Clone, PartialEq)]
pub struct Ir {
    /// Ordered, so that output is deterministic.
    pub types: BTreeMap<String, TypeDef>,
}

/// One named type.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeDef {
    /// Rust and `$defs` name.
    pub name: String,
    /// The schema description, if any.
    pub doc: Option<String>,
    /// Whether the type was hoisted from an inline schema.
    pub hoisted: bool,
    /// What the type is.
    pub kind: Kind,
}

/// The shapes a named type can take.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// An object with named properties.
    Struct(Struct),
    /// An `anyOf`, dispatched on discriminators.
    Union(Union),
    /// A closed set of strings (emitted by typify), with the original schema.
    StringEnum(Value),
    /// Another name for a type expression.
    Alias(TypeRef),
}

/// A type expression used by fields, aliases and variants.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeRef {
    /// A named type of this revision.
    Named(String),
    /// `String`.
    String,
    /// `i64`.
    Integer,
    /// `u64` (integer with `minimum >= 0`).
    Unsigned,
    /// `serde_json::Number`, which keeps the JSON form of the number.
    Number,
    /// `bool`.
    Boolean,
    /// `serde_json::Value`.
    Value,
    /// `Vec<T>`.
    Array(Box<TypeRef>),
    /// A JSON object of `T` values (`serde_json::Map` when `T` is `Value`).
    Map(Box<TypeRef>),
    /// `T` or `null`: `Option<T>`.
    Nullable(Box<TypeRef>),
}

/// An object type.
#[derive(Debug, Clone, PartialEq)]
pub struct Struct {
    /// Properties in schema (alphabetical) order.
    pub fields: Vec<Field>,
    /// What happens to keys the schema does not name.
    pub extra: Extra,
}

/// Keys not named by the schema.
#[derive(Debug, Clone, PartialEq)]
pub enum Extra {
    /// `additionalProperties: false`: rejected.
    Closed,
    /// Kept in `extra`, with values of this type.
    Open(TypeRef),
}

/// One property.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The JSON key.
    pub json_name: String,
    /// The Rust field name.
    pub rust_name: String,
    /// The schema description, if any.
    pub doc: Option<String>,
    /// Whether the schema requires the key.
    pub required: bool,
    /// Value field or const.
    pub kind: FieldKind,
}

/// A value property or a fixed one.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// A stored value.
    Value(TypeRef),
    /// A `const`: not stored, checked on input and written on output.
    Const {
        /// The fixed value (a string or an integer).
        value: Value,
        /// Input may omit it even though output always carries it.
        absent_allowed: bool,
    },
}

/// A union and the data its runtime dispatch needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Union {
    /// Variants in schema order (ties in dispatch go to the earlier one).
    pub variants: Vec<Variant>,
}

/// One member of a union.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// Variant name: the member's type name, or the JSON kind for primitives.
    pub name: String,
    /// The payload type.
    pub ty: TypeRef,
    /// How a JSON value is recognised as this variant.
    pub shape: Shape,
}

/// The JSON kind a variant accepts, and for objects its discriminators.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A JSON object.
    Object {
        /// Keys with a fixed set of values: (key, values, required).
        tags: Vec<Tag>,
        /// Required keys.
        required: Vec<String>,
        /// Every key the schema names.
        known: Vec<String>,
        /// Object-typed properties whose own required keys and consts help
        /// tell variants apart (`items` of the multi-select enum schemas).
        nested: Vec<Nested>,
    },
    /// A JSON array.
    Array,
    /// A JSON string.
    String,
    /// A JSON integer.
    Integer,
    /// Any JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
}

/// An object-typed property of a variant and the keys its value must have.
#[derive(Debug, Clone, PartialEq)]
pub struct Nested {
    /// The JSON key of the property.
    pub key: String,
    /// Consts of the nested object.
    pub tags: Vec<Tag>,
    /// Required keys of the nested object.
    pub required: Vec<String>,
}

/// A discriminating key of an object variant.
#[derive(Debug, Clone, PartialEq)]
pub struct Tag {
    /// The JSON key.
    pub key: String,
    /// The values that select this variant.
    pub values: Vec<Value>,
    /// Whether the variant is ruled out when the key is absent.
    pub required: bool,
}

impl TypeDef {
    /// The named types its fields, extra values, variants or alias target
    /// refer to.
    pub fn references(&self) -> BTreeSet<String> {
        fn collect(ty: &TypeRef, out: &mut BTreeSet<String>) {
            match ty {
                TypeRef::Named(name) => {
                    out.insert(name.clone());
                }
                TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::Nullable(inner) => {
                    collect(inner, out)
                }
                _ => {}
            }
        }
        let mut out = BTreeSet::new();
        match &self.kind {
            Kind::Struct(s) => {
                for field in &s.fields {
                    if let FieldKind::Value(ty) = &field.kind {
                        collect(ty, &mut out);
                    }
                }
                if let Extra::Open(ty) = &s.extra {
                    collect(ty, &mut out);
                }
            }
            Kind::Union(u) => u.variants.iter().for_each(|v| collect(&v.ty, &mut out)),
            Kind::Alias(ty) => collect(ty, &mut out),
            Kind::StringEnum(_) => {}
        }
        out
    }
}

impl Ir {
    /// Builds the IR from normalised definitions.
    pub fn build(normalised: &Normalised) -> Result<Self> {
        let mut types = BTreeMap::new();
        for (name, schema) in &normalised.defs {
            let kind = kind_of(schema).map_err(|e| Error::new(format!("{name}: {e}")))?;
            types.insert(
                name.clone(),
                TypeDef {
                    name: name.clone(),
                    doc: doc_of(schema),
                    hoisted: normalised.hoisted.contains(name),
                    kind,
                },
            );
        }
        let mut ir = Ir { types };
        ir.compute_union_shapes()?;
        Ok(ir)
    }

    /// Follows aliases to the type expression they stand for.
    pub fn resolve<'a>(&'a self, ty: &'a TypeRef) -> &'a TypeRef {
        let mut current = ty;
        for _ in 0..16 {
            match current {
                TypeRef::Named(name) => match self.types.get(name).map(|t| &t.kind) {
                    Some(Kind::Alias(target)) => current = target,
                    _ => return current,
                },
                _ => return current,
            }
        }
        current
    }

    fn compute_union_shapes(&mut self) -> Result<()> {
        let snapshot = self.clone();
        for def in self.types.values_mut() {
            if let Kind::Union(union) = &mut def.kind {
                for variant in &mut union.variants {
                    variant.shape = snapshot
                        .shape_of(&variant.ty)
                        .map_err(|e| Error::new(format!("{}: {e}", def.name)))?;
                }
            }
        }
        Ok(())
    }

    fn shape_of(&self, ty: &TypeRef) -> Result<Shape> {
        Ok(match self.resolve(ty) {
            TypeRef::String => Shape::String,
            TypeRef::Integer | TypeRef::Unsigned => Shape::Integer,
            TypeRef::Number => Shape::Number,
            TypeRef::Boolean => Shape::Boolean,
            TypeRef::Array(_) => Shape::Array,
            TypeRef::Map(_) => Shape::Object {
                tags: Vec::new(),
                required: Vec::new(),
                known: Vec::new(),
                nested: Vec::new(),
            },
            TypeRef::Value | TypeRef::Nullable(_) => {
                return Err(Error::new("a union member accepts any JSON value or null"));
            }
            TypeRef::Named(name) => match self.types.get(name).map(|t| &t.kind) {
                Some(Kind::Struct(s)) => self.struct_shape(s),
                Some(Kind::StringEnum(_)) => Shape::String,
                Some(Kind::Union(_)) => {
                    return Err(Error::new(format!("union member {name} is itself a union")));
                }
                _ => return Err(Error::new(format!("unknown type {name}"))),
            },
        })
    }

    fn struct_shape(&self, s: &Struct) -> Shape {
        let mut nested = Vec::new();
        for field in &s.fields {
            let FieldKind::Value(ty) = &field.kind else {
                continue;
            };
            let TypeRef::Named(name) = self.resolve(ty) else {
                continue;
            };
            let Some(Kind::Struct(inner)) = self.types.get(name).map(|t| &t.kind) else {
                continue;
            };
            let tags = const_tags(inner);
            let required = required_keys(inner);
            if !tags.is_empty() || !required.is_empty() {
                nested.push(Nested {
                    key: field.json_name.clone(),
                    tags,
                    required,
                });
            }
        }
        let mut tags = Vec::new();
        for field in &s.fields {
            let values = match &field.kind {
                FieldKind::Const { value, .. } => vec![value.clone()],
                FieldKind::Value(ty) => match self.resolve(ty) {
                    TypeRef::Named(name) => match self.types.get(name).map(|t| &t.kind) {
                        Some(Kind::StringEnum(schema)) => schema
                            .get("enum")
                            .and_then(Value::as_array)
                            .cloned()
                            .unwrap_or_default(),
                        _ => continue,
                    },
                    _ => continue,
                },
            };
            // Only a const rules a variant out by its absence: a missing enum
            // property is reported by the variant's own deserializer.
            let is_const = matches!(
                field.kind,
                FieldKind::Const {
                    absent_allowed: false,
                    ..
                }
            );
            tags.push(Tag {
                key: field.json_name.clone(),
                values,
                required: field.required && is_const,
            });
        }
        Shape::Object {
            tags,
            required: required_keys(s),
            known: s.fields.iter().map(|f| f.json_name.clone()).collect(),
            nested,
        }
    }
}

fn required_keys(s: &Struct) -> Vec<String> {
    s.fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.json_name.clone())
        .collect()
}

/// The consts of a struct as tags (for nested shapes).
fn const_tags(s: &Struct) -> Vec<Tag> {
    s.fields
        .iter()
        .filter_map(|f| match &f.kind {
            FieldKind::Const {
                value,
                absent_allowed,
            } => Some(Tag {
                key: f.json_name.clone(),
                values: vec![value.clone()],
                required: f.required && !absent_allowed,
            }),
            FieldKind::Value(_) => None,
        })
        .collect()
}

fn doc_of(schema: &Value) -> Option<String> {
    schema
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

fn kind_of(schema: &Value) -> Result<Kind> {
    if let Some(members) = schema.get("anyOf").and_then(Value::as_array) {
        let variants = members
            .iter()
            .map(|member| {
                let ty = type_ref(member)?;
                Ok(Variant {
                    name: variant_name(&ty),
                    ty,
                    shape: Shape::Array, // replaced by compute_union_shapes
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut seen = std::collections::BTreeSet::new();
        for v in &variants {
            if !seen.insert(&v.name) {
                return Err(Error::new(format!("two union members named {}", v.name)));
            }
        }
        return Ok(Kind::Union(Union { variants }));
    }
    if schema.get("enum").is_some() {
        if schema.get("type").and_then(Value::as_str) != Some("string") {
            return Err(Error::new("only string enums are supported"));
        }
        return Ok(Kind::StringEnum(schema.clone()));
    }
    let is_object = schema.get("type").and_then(Value::as_str) == Some("object");
    let properties = schema.get("properties").and_then(Value::as_object);
    if is_object && properties.is_some_and(|p| !p.is_empty()) {
        return struct_of(schema).map(Kind::Struct);
    }
    type_ref(schema).map(Kind::Alias)
}

fn struct_of(schema: &Value) -> Result<Struct> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut fields = Vec::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten();
    for (key, prop) in properties {
        let kind = match prop.get("const") {
            Some(value) if value.is_string() || value.is_i64() => FieldKind::Const {
                value: value.clone(),
                absent_allowed: prop.get(ABSENT_ALLOWED_KEY) == Some(&Value::Bool(true)),
            },
            Some(other) => return Err(Error::new(format!("{key}: unsupported const {other}"))),
            None => {
                FieldKind::Value(type_ref(prop).map_err(|e| Error::new(format!("{key}: {e}")))?)
            }
        };
        fields.push(Field {
            json_name: key.clone(),
            rust_name: field_name(key),
            doc: doc_of(prop),
            required: required.contains(&key.as_str()),
            kind,
        });
    }
    for (i, field) in fields.iter().enumerate() {
        if fields[..i].iter().any(|f| f.rust_name == field.rust_name) {
            return Err(Error::new(format!(
                "two properties map to the Rust field `{}`",
                field.rust_name
            )));
        }
    }
    let extra = match schema.get("additionalProperties") {
        Some(Value::Bool(false)) => Extra::Closed,
        None | Some(Value::Bool(true)) => Extra::Open(TypeRef::Value),
        Some(values) => Extra::Open(type_ref(values)?),
    };
    Ok(Struct { fields, extra })
}

/// The type expression of a normalised property, item or member schema.
fn type_ref(schema: &Value) -> Result<TypeRef> {
    if schema.get(NULLABLE_KEY) == Some(&Value::Bool(true)) {
        let mut inner = schema.clone();
        if let Some(obj) = inner.as_object_mut() {
            obj.remove(NULLABLE_KEY);
        }
        return Ok(TypeRef::Nullable(Box::new(type_ref(&inner)?)));
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return Ok(TypeRef::Named(ref_name(reference)?.to_owned()));
    }
    if let Some(builtin) = schema.get(BUILTIN_KEY).and_then(Value::as_str) {
        return Ok(match builtin {
            "value" => TypeRef::Value,
            "object" => TypeRef::Map(Box::new(TypeRef::Value)),
            _ => TypeRef::Array(Box::new(TypeRef::Value)),
        });
    }
    let ty = match schema.get("type") {
        None => {
            let annotations_only = schema
                .as_object()
                .is_some_and(|o| o.keys().all(|k| k == "description"));
            if annotations_only {
                return Ok(TypeRef::Value);
            }
            return Err(Error::new(format!("unsupported schema {schema}")));
        }
        Some(ty) => ty
            .as_str()
            .ok_or_else(|| Error::new("type list left after normalisation"))?,
    };
    Ok(match ty {
        "string" => TypeRef::String,
        "boolean" => TypeRef::Boolean,
        "number" => TypeRef::Number,
        "integer" => {
            let non_negative = schema
                .get("minimum")
                .and_then(Value::as_f64)
                .is_some_and(|m| m >= 0.0);
            if non_negative {
                TypeRef::Unsigned
            } else {
                TypeRef::Integer
            }
        }
        "array" => TypeRef::Array(Box::new(match schema.get("items") {
            Some(items) => type_ref(items)?,
            None => TypeRef::Value,
        })),
        "object" => {
            let has_properties = schema
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| !p.is_empty());
            if has_properties {
                return Err(Error::new("inline object left after normalisation"));
            }
            TypeRef::Map(Box::new(match schema.get("additionalProperties") {
                None | Some(Value::Bool(_)) => TypeRef::Value,
                Some(values) => type_ref(values)?,
            }))
        }
        other => return Err(Error::new(format!("unsupported type {other}"))),
    })
}

fn variant_name(ty: &TypeRef) -> String {
    match ty {
        TypeRef::Named(name) => name.clone(),
        TypeRef::String => "String".into(),
        TypeRef::Integer | TypeRef::Unsigned => "Integer".into(),
        TypeRef::Number => "Number".into(),
        TypeRef::Boolean => "Boolean".into(),
        TypeRef::Value => "Value".into(),
        TypeRef::Array(_) => "Array".into(),
        TypeRef::Map(_) => "Object".into(),
        TypeRef::Nullable(inner) => variant_name(inner),
    }
}
