//! Comparison of two IRs: methods, types, fields, enum values and variants,
//! in deterministic (name) order.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::model::{Change, ChangeKind, FieldInfo, MethodChange, MethodKind, TypeShape};
use super::verdict::verdict;
use crate::ir::{Extra, Field, FieldKind, Ir, Kind, Struct, TypeDef, TypeRef};

/// Methods (with their kind and types) and type changes between two IRs,
/// and the number of changed descriptions.
pub(crate) fn compare(old: &Ir, new: &Ir) -> (Vec<MethodChange>, Vec<Change>, usize) {
    let mut changes = Vec::new();
    let mut docs = 0;
    let removed: Vec<&TypeDef> = old
        .types
        .values()
        .filter(|t| !new.types.contains_key(&t.name))
        .collect();
    let added: Vec<&TypeDef> = new
        .types
        .values()
        .filter(|t| !old.types.contains_key(&t.name))
        .collect();
    let removed_names = folded_inline(&removed);
    let added_names = folded_inline(&added);

    for def in &removed {
        let Some(inline) = removed_names.get(&def.name) else {
            continue;
        };
        let kind = ChangeKind::TypeRemoved {
            shape: shape(&def.kind),
            inline: inline.clone(),
        };
        changes.push(change(&def.name, kind, false));
    }
    for def in &added {
        let Some(inline) = added_names.get(&def.name) else {
            continue;
        };
        let looks_renamed_from = removed
            .iter()
            .find(|r| same_fields(&r.kind, &def.kind))
            .map(|r| r.name.clone());
        let kind = ChangeKind::TypeAdded {
            shape: shape(&def.kind),
            inline: inline.clone(),
            looks_renamed_from,
        };
        changes.push(change(&def.name, kind, false));
    }
    let sides = Sides { old, new };
    for (name, before) in &old.types {
        let Some(after) = new.types.get(name) else {
            continue;
        };
        if before.doc != after.doc {
            docs += 1;
        }
        docs += sides.type_changes(name, &before.kind, &after.kind, &mut changes);
    }
    // Added and removed types first by name, then each type's own changes.
    changes.sort_by(|a, b| a.ty.cmp(&b.ty));
    (methods(old, new), changes, docs)
}

fn change(ty: &str, kind: ChangeKind, old_open: bool) -> Change {
    let (breaking, rust, wire) = verdict(&kind, old_open);
    Change {
        ty: ty.to_owned(),
        kind,
        breaking,
        rust,
        wire,
    }
}

/// The listed names among added (or removed) types, each with the hoisted
/// types folded into it: a hoisted type whose name extends a listed type's
/// name came with that type and is not listed on its own.
fn folded_inline(defs: &[&TypeDef]) -> BTreeMap<String, Vec<String>> {
    let mut listed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for def in defs {
        // The shortest such name: a chain of inline types goes to its root.
        let parent = defs
            .iter()
            .filter(|p| p.name != def.name && def.name.starts_with(&p.name))
            .min_by_key(|p| p.name.len());
        match parent {
            Some(parent) if def.hoisted => {
                listed
                    .entry(parent.name.clone())
                    .or_default()
                    .push(def.name.clone());
            }
            _ => {
                listed.entry(def.name.clone()).or_default();
            }
        }
    }
    listed
}

fn shape(kind: &Kind) -> TypeShape {
    match kind {
        Kind::Struct(_) => TypeShape::Struct,
        Kind::Union(_) => TypeShape::Union,
        Kind::StringEnum(_) => TypeShape::StringEnum,
        Kind::Alias(_) => TypeShape::Alias,
    }
}

/// Two structs with the same non-empty fields (a rename candidate).
fn same_fields(a: &Kind, b: &Kind) -> bool {
    let (Kind::Struct(a), Kind::Struct(b)) = (a, b) else {
        return false;
    };
    !a.fields.is_empty()
        && a.fields.len() == b.fields.len()
        && a.fields
            .iter()
            .zip(&b.fields)
            .all(|(x, y)| field_info(x) == field_info(y))
}

/// The two IRs, to compare type expressions by what they stand for: an
/// alias is the very type it names, so `MetaObject` for
/// `serde_json::Map<…>` changes nothing in Rust.
struct Sides<'a> {
    old: &'a Ir,
    new: &'a Ir,
}

/// A type expression with every alias inside it resolved.
fn resolve_deep(ir: &Ir, ty: &TypeRef) -> TypeRef {
    match ir.resolve(ty) {
        TypeRef::Array(t) => TypeRef::Array(Box::new(resolve_deep(ir, t))),
        TypeRef::Map(t) => TypeRef::Map(Box::new(resolve_deep(ir, t))),
        TypeRef::Nullable(t) => TypeRef::Nullable(Box::new(resolve_deep(ir, t))),
        other => other.clone(),
    }
}

impl Sides<'_> {
    fn same_type(&self, a: &TypeRef, b: &TypeRef) -> bool {
        resolve_deep(self.old, a) == resolve_deep(self.new, b)
    }

    /// Same required-ness, and the same constant or Rust type.
    fn same_field(&self, a: &Field, b: &Field) -> bool {
        a.required == b.required && self.same_kind(a, b)
    }

    fn same_kind(&self, a: &Field, b: &Field) -> bool {
        match (&a.kind, &b.kind) {
            (FieldKind::Value(x), FieldKind::Value(y)) => self.same_type(x, y),
            (FieldKind::Const { value: x, .. }, FieldKind::Const { value: y, .. }) => x == y,
            _ => false,
        }
    }

    /// Appends the changes of one type present on both sides; returns the
    /// number of field descriptions that changed.
    fn type_changes(
        &self,
        name: &str,
        before: &Kind,
        after: &Kind,
        out: &mut Vec<Change>,
    ) -> usize {
        match (before, after) {
            (Kind::Struct(a), Kind::Struct(b)) => self.struct_changes(name, a, b, out),
            (Kind::StringEnum(a), Kind::StringEnum(b)) => {
                let (a, b) = (enum_values(a), enum_values(b));
                for value in a.difference(&b) {
                    out.push(change(
                        name,
                        ChangeKind::EnumValueRemoved(value.clone()),
                        false,
                    ));
                }
                for value in b.difference(&a) {
                    out.push(change(
                        name,
                        ChangeKind::EnumValueAdded(value.clone()),
                        false,
                    ));
                }
                0
            }
            (Kind::Union(a), Kind::Union(b)) => {
                let a: BTreeMap<&str, &TypeRef> = a
                    .variants
                    .iter()
                    .map(|v| (v.name.as_str(), &v.ty))
                    .collect();
                let b: BTreeMap<&str, &TypeRef> = b
                    .variants
                    .iter()
                    .map(|v| (v.name.as_str(), &v.ty))
                    .collect();
                for (variant, ty) in &a {
                    let kind = match b.get(variant) {
                        None => ChangeKind::VariantRemoved {
                            name: (*variant).to_owned(),
                            rust_type: rust_type(ty),
                        },
                        Some(new_ty) if !self.same_type(ty, new_ty) => {
                            ChangeKind::VariantTypeChanged {
                                name: (*variant).to_owned(),
                                from: rust_type(ty),
                                to: rust_type(new_ty),
                            }
                        }
                        Some(_) => continue,
                    };
                    out.push(change(name, kind, false));
                }
                for (variant, ty) in b.iter().filter(|(v, _)| !a.contains_key(*v)) {
                    let kind = ChangeKind::VariantAdded {
                        name: (*variant).to_owned(),
                        rust_type: rust_type(ty),
                    };
                    out.push(change(name, kind, false));
                }
                0
            }
            (Kind::Alias(a), Kind::Alias(b)) => {
                if !self.same_type(a, b) {
                    let kind = ChangeKind::AliasChanged {
                        from: rust_type(a),
                        to: rust_type(b),
                    };
                    out.push(change(name, kind, false));
                }
                0
            }
            _ => {
                let kind = ChangeKind::ShapeChanged {
                    from: shape(before),
                    to: shape(after),
                };
                out.push(change(name, kind, false));
                0
            }
        }
    }

    fn struct_changes(&self, name: &str, a: &Struct, b: &Struct, out: &mut Vec<Change>) -> usize {
        let old_open = matches!(a.extra, Extra::Open(_));
        let mut docs = 0;
        for before in &a.fields {
            let Some(after) = b.fields.iter().find(|f| f.json_name == before.json_name) else {
                out.push(change(
                    name,
                    ChangeKind::FieldRemoved(field_info(before)),
                    old_open,
                ));
                continue;
            };
            if before.doc != after.doc {
                docs += 1;
            }
            if self.same_field(before, after) {
                continue;
            }
            let (from, to) = (field_info(before), field_info(after));
            // A constant's required-ness is no `T` / `Option<T>` change.
            let same_inner = self.same_kind(before, after) && !from.is_const && !to.is_const;
            let kind = match (from.required, to.required) {
                (true, false) if same_inner => ChangeKind::RequiredToOptional { from, to },
                (false, true) if same_inner => ChangeKind::OptionalToRequired { from, to },
                _ => ChangeKind::FieldTypeChanged { from, to },
            };
            out.push(change(name, kind, old_open));
        }
        for after in &b.fields {
            if !a.fields.iter().any(|f| f.json_name == after.json_name) {
                out.push(change(
                    name,
                    ChangeKind::FieldAdded(field_info(after)),
                    old_open,
                ));
            }
        }
        let same_extra = match (&a.extra, &b.extra) {
            (Extra::Open(x), Extra::Open(y)) => self.same_type(x, y),
            (x, y) => x == y,
        };
        if !same_extra {
            let extra = |e: &Extra| match e {
                Extra::Open(ty) => Some(rust_type(&TypeRef::Map(Box::new(ty.clone())))),
                Extra::Closed => None,
            };
            let kind = ChangeKind::ExtraChanged {
                from: extra(&a.extra),
                to: extra(&b.extra),
            };
            out.push(change(name, kind, old_open));
        }
        docs
    }
}

fn field_info(field: &Field) -> FieldInfo {
    let (rust_type, is_const) = match &field.kind {
        FieldKind::Value(ty) if field.required => (rust_type(ty), false),
        FieldKind::Value(ty) => (format!("Option<{}>", rust_type(ty)), false),
        FieldKind::Const { value, .. } if field.required => (format!("const {value}"), true),
        // An optional constant is stored as its presence flag.
        FieldKind::Const { value, .. } => (format!("bool (const {value} present)"), true),
    };
    FieldInfo {
        json_name: field.json_name.clone(),
        rust_name: field.rust_name.clone(),
        rust_type,
        required: field.required,
        is_const,
    }
}

fn enum_values(schema: &Value) -> BTreeSet<String> {
    schema
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// The Rust type as a user reads it in the generated code (short paths).
pub(crate) fn rust_type(ty: &TypeRef) -> String {
    match ty {
        TypeRef::Named(name) => name.clone(),
        TypeRef::String => "String".into(),
        TypeRef::Integer => "i64".into(),
        TypeRef::Unsigned => "u64".into(),
        TypeRef::Number => "serde_json::Number".into(),
        TypeRef::Boolean => "bool".into(),
        TypeRef::Value => "serde_json::Value".into(),
        TypeRef::Array(item) => format!("Vec<{}>", rust_type(item)),
        TypeRef::Map(value) if **value == TypeRef::Value => {
            "serde_json::Map<String, serde_json::Value>".into()
        }
        TypeRef::Map(value) => format!("BTreeMap<String, {}>", rust_type(value)),
        TypeRef::Nullable(inner) => format!("Option<{}>", rust_type(inner)),
    }
}

/// Every method constant: method name → (kind, carrying types).
fn method_table(ir: &Ir) -> BTreeMap<String, (MethodKind, Vec<String>)> {
    let mut table: BTreeMap<String, (MethodKind, Vec<String>)> = BTreeMap::new();
    for def in ir.types.values() {
        let Kind::Struct(s) = &def.kind else {
            continue;
        };
        let method = s.fields.iter().find_map(|f| match &f.kind {
            FieldKind::Const {
                value: Value::String(method),
                ..
            } if f.json_name == "method" => Some(method.clone()),
            _ => None,
        });
        let Some(method) = method else {
            continue;
        };
        let kind = if def.name.ends_with("Notification") {
            MethodKind::Notification
        } else {
            MethodKind::Request
        };
        let entry = table.entry(method).or_insert((kind, Vec::new()));
        entry.1.push(def.name.clone());
    }
    table
}

fn methods(old: &Ir, new: &Ir) -> Vec<MethodChange> {
    let (old, new) = (method_table(old), method_table(new));
    let side = |from: &BTreeMap<String, (MethodKind, Vec<String>)>,
                other: &BTreeMap<String, (MethodKind, Vec<String>)>,
                added: bool| {
        from.iter()
            .filter(|(m, _)| !other.contains_key(*m))
            .map(|(method, (kind, types))| {
                // The same type name carrying another method: a rename.
                let renamed = other
                    .iter()
                    .find(|(m, (_, t))| {
                        !from.contains_key(*m) && t.iter().any(|t| types.contains(t))
                    })
                    .map(|(m, _)| m.clone());
                MethodChange {
                    method: method.clone(),
                    kind: *kind,
                    added,
                    types: types.clone(),
                    renamed,
                }
            })
            .collect::<Vec<_>>()
    };
    let mut changes = side(&old, &new, false);
    changes.extend(side(&new, &old, true));
    changes.sort_by(|a, b| a.method.cmp(&b.method).then(a.added.cmp(&b.added)));
    changes
}
