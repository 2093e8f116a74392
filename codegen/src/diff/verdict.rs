//! The semver verdict of each change, matched to how this generator emits:
//! structs have public fields, no `#[non_exhaustive]`, optional fields as
//! `Option<T>` (absent when `None`), required ones as `T`, a positional
//! `new(..)` of the required fields (or a builder) and `with_*` setters;
//! string enums and unions are exhaustive enums with no catch-all variant,
//! so an unknown value or shape is a deserialisation error.

use super::model::ChangeKind;

/// Whether a change is breaking for Rust users, why, and its wire effect
/// when that differs. `old_open`: the old struct kept unknown keys in `extra`.
pub(crate) fn verdict(kind: &ChangeKind, old_open: bool) -> (bool, String, Option<String>) {
    let (breaking, rust, wire): (bool, &str, Option<&str>) = match kind {
        ChangeKind::TypeAdded { .. } => (false, "A new name; existing code is unaffected.", None),
        ChangeKind::TypeRemoved { .. } => (
            true,
            "Code naming the type stops compiling.",
            Some("peers of the old revision may still send it; the new types cannot read it."),
        ),
        ChangeKind::ShapeChanged { .. } => (
            true,
            "Constructors, field access and matches on the type all change.",
            None,
        ),
        ChangeKind::FieldAdded(f) if f.is_const && f.required => (
            false,
            "A new associated constant only: a required constant is not stored.",
            Some("the new types reject messages without the key (old peers do not send it)."),
        ),
        ChangeKind::FieldAdded(f) if f.required => (
            true,
            "Struct literals and `new(..)` need the new value (a second parameter of the same \
             type turns `new` into `builder()`); the type loses `Default` if it had it.",
            Some("the new types reject messages without the key, which old peers do not send."),
        ),
        ChangeKind::FieldAdded(_) if old_open => (
            true,
            "Struct literals and exhaustive patterns miss the field (structs are not \
             `#[non_exhaustive]`); `new(..)` + `with_*` code is unaffected. The key is no \
             longer kept in `extra`.",
            Some("compatible: optional, and old peers keep it as an unknown key."),
        ),
        ChangeKind::FieldAdded(_) => (
            true,
            "Struct literals and exhaustive patterns miss the field (structs are not \
             `#[non_exhaustive]`); `new(..)` + `with_*` code is unaffected.",
            Some("old peers reject it: the old struct rejects unknown keys."),
        ),
        ChangeKind::FieldRemoved(f) if f.required && !f.is_const => (
            true,
            "Code reading, setting or matching the field stops compiling; `new(..)` loses a \
             parameter.",
            Some("old peers reject messages from new ones, which no longer send the key."),
        ),
        ChangeKind::FieldRemoved(f) if f.required => (
            false,
            "An associated constant is gone; nothing was stored.",
            Some("old peers reject messages from new ones, which no longer send the key."),
        ),
        ChangeKind::FieldRemoved(_) => (
            true,
            "Code reading, setting or matching the field stops compiling (and its `with_*` \
             setter is gone).",
            Some("compatible: it was optional."),
        ),
        ChangeKind::FieldTypeChanged { from, to }
            if from.is_const && to.is_const && from.required != to.required =>
        {
            (
                true,
                "An optional constant is a `bool` presence field, a required one is not stored: \
             the field appears or goes.",
                Some("a peer that requires the key rejects messages without it."),
            )
        }
        ChangeKind::FieldTypeChanged { from, to } if from.is_const && to.is_const => (
            true,
            "The constant (e.g. `METHOD`) has another value: the type now stands for another \
             message.",
            Some("peers of the two revisions disagree on the value."),
        ),
        ChangeKind::FieldTypeChanged { .. } => (
            true,
            "The field's Rust type changed: reads, writes and `new(..)` calls need updating.",
            Some("a value valid for one revision may be rejected by the other."),
        ),
        ChangeKind::RequiredToOptional { .. } => (
            true,
            "The field becomes `Option<T>` (and leaves `new(..)`): every read and struct \
             literal changes, although the JSON stays compatible.",
            Some("new peers accept what old ones send; old peers reject a message that omits it."),
        ),
        ChangeKind::OptionalToRequired { .. } => (
            true,
            "The field becomes `T` instead of `Option<T>` and a `new(..)` parameter.",
            Some("new peers reject messages without it, which old peers may send."),
        ),
        ChangeKind::ExtraChanged { from: None, .. } => (
            true,
            "The struct gains an `extra` field: struct literals and patterns miss it.",
            Some("compatible for new readers; old readers reject the unknown keys."),
        ),
        ChangeKind::ExtraChanged { to: None, .. } => (
            true,
            "The struct loses its `extra` field.",
            Some("new readers reject unknown keys that old peers accepted."),
        ),
        ChangeKind::ExtraChanged { .. } => (
            true,
            "The type of the struct's `extra` map changed.",
            Some("unknown keys valid for one revision may be rejected by the other."),
        ),
        ChangeKind::EnumValueAdded(_) => (
            true,
            "A new variant: exhaustive `match`es stop compiling (the enum is not \
             `#[non_exhaustive]`).",
            Some("old peers fail to read the new value; they have no catch-all variant."),
        ),
        ChangeKind::EnumValueRemoved(_) => (
            true,
            "Code naming the variant stops compiling.",
            Some("new peers fail to read the value from old ones."),
        ),
        ChangeKind::VariantAdded { .. } => (
            true,
            "A new variant: exhaustive `match`es stop compiling (unions are not \
             `#[non_exhaustive]`).",
            Some("old peers fail to read the new shape; unions have no catch-all variant."),
        ),
        ChangeKind::VariantRemoved { .. } => (
            true,
            "Code naming the variant stops compiling.",
            Some("new peers fail to read that shape from old ones."),
        ),
        ChangeKind::VariantTypeChanged { .. } => (
            true,
            "The variant's payload type changed.",
            Some("a value valid for one revision may be rejected by the other."),
        ),
        ChangeKind::AliasChanged { .. } => (
            true,
            "The alias names another type: code using it sees another type.",
            Some("a value valid for one revision may be rejected by the other."),
        ),
    };
    (breaking, rust.to_owned(), wire.map(str::to_owned))
}
