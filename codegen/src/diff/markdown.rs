//! Markdown rendering of a [`SchemaDiff`]: a summary table, then methods,
//! removed and added types, and the changes of each type.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::model::{Change, ChangeKind, FieldInfo, MethodKind, SchemaDiff};

/// Whether a change belongs to a summary row.
type Belongs = fn(&ChangeKind) -> bool;

/// Summary rows: label and whether a change belongs to it.
const ROWS: &[(&str, Belongs)] = &[
    ("Types removed", |k| {
        matches!(k, ChangeKind::TypeRemoved { .. })
    }),
    ("Types added", |k| matches!(k, ChangeKind::TypeAdded { .. })),
    ("Types changing shape", |k| {
        matches!(k, ChangeKind::ShapeChanged { .. })
    }),
    (
        "Fields added (required)",
        |k| matches!(k, ChangeKind::FieldAdded(f) if f.required),
    ),
    (
        "Fields added (optional)",
        |k| matches!(k, ChangeKind::FieldAdded(f) if !f.required),
    ),
    ("Fields removed", |k| {
        matches!(k, ChangeKind::FieldRemoved(_))
    }),
    ("Field types changed", |k| {
        matches!(k, ChangeKind::FieldTypeChanged { .. })
    }),
    ("Fields required → optional", |k| {
        matches!(k, ChangeKind::RequiredToOptional { .. })
    }),
    ("Fields optional → required", |k| {
        matches!(k, ChangeKind::OptionalToRequired { .. })
    }),
    ("Unknown-key handling (`extra`) changed", |k| {
        matches!(k, ChangeKind::ExtraChanged { .. })
    }),
    ("Enum values added", |k| {
        matches!(k, ChangeKind::EnumValueAdded(_))
    }),
    ("Enum values removed", |k| {
        matches!(k, ChangeKind::EnumValueRemoved(_))
    }),
    ("Union variants added", |k| {
        matches!(k, ChangeKind::VariantAdded { .. })
    }),
    ("Union variants removed", |k| {
        matches!(k, ChangeKind::VariantRemoved { .. })
    }),
    ("Union variant types changed", |k| {
        matches!(k, ChangeKind::VariantTypeChanged { .. })
    }),
    ("Aliases changed", |k| {
        matches!(k, ChangeKind::AliasChanged { .. })
    }),
];

const HOW: &str = "Verdicts are for Rust code using the generated types \
(`mcp_era_types::v…`), as this generator emits them: structs have public fields and \
are not `#[non_exhaustive]` (so any new field breaks struct literals and exhaustive \
patterns; code using `new(..)` / `builder()` and the `with_*` setters is unaffected \
by new optional fields), optional fields are `Option<T>`, string enums and unions \
are exhaustive enums without a catch-all variant (an unknown value fails to \
deserialise). **breaking** means semver-major for such code. The wire effect between \
peers of the two revisions is given separately where it differs.";

impl SchemaDiff {
    /// The changelog as Markdown: a summary with counts (and the breaking
    /// count), then methods, removed types, added types and the changes of
    /// each type, every change tagged **breaking** or non-breaking with
    /// its reason. Deterministic for the same input.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# Schema changes: {} → {}\n", self.old, self.new);
        if self.is_empty() {
            let _ = writeln!(
                out,
                "No change of the generated Rust API: the same types, fields, enum values, \
                 union variants and methods ({} description texts differ).",
                self.doc_changes
            );
            return out;
        }
        self.summary(&mut out);
        self.methods_section(&mut out);
        self.types_section(&mut out, true);
        self.types_section(&mut out, false);
        self.changed_section(&mut out);
        out
    }

    fn summary(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "**{} changes, {} breaking** for Rust users; {} description texts changed \
             (not listed).\n\n{HOW}\n\n## Summary\n\n| Change | Count | Breaking |\n|---|---:|---:|",
            self.methods.len() + self.changes.len(),
            self.breaking_count(),
            self.doc_changes
        );
        for added in [false, true] {
            let methods: Vec<_> = self.methods.iter().filter(|m| m.added == added).collect();
            if !methods.is_empty() {
                let breaking = methods.iter().filter(|m| m.breaking()).count();
                let label = if added {
                    "Methods added"
                } else {
                    "Methods removed"
                };
                let _ = writeln!(out, "| {label} | {} | {breaking} |", methods.len());
            }
        }
        for (label, belongs) in ROWS {
            let rows: Vec<&Change> = self.changes.iter().filter(|c| belongs(&c.kind)).collect();
            if !rows.is_empty() {
                let breaking = rows.iter().filter(|c| c.breaking).count();
                let _ = writeln!(out, "| {label} | {} | {breaking} |", rows.len());
            }
        }
        let _ = writeln!(
            out,
            "| **Total** | **{}** | **{}** |\n",
            self.methods.len() + self.changes.len(),
            self.breaking_count()
        );
    }

    fn methods_section(&self, out: &mut String) {
        if self.methods.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "## Methods\n\nFrom the `method` constant of the request and notification types. \
             A removed method is **breaking** (its types are gone or changed; peers of the \
             new revision no longer answer it); an added one is not (peers of the old \
             revision answer \"method not found\").\n"
        );
        for m in &self.methods {
            let kind = match m.kind {
                MethodKind::Request => "request",
                MethodKind::Notification => "notification",
            };
            let types = code_list(&m.types);
            let (tag, verb) = if m.added {
                ("non-breaking", "added")
            } else {
                ("**breaking**", "removed")
            };
            let renamed = match (&m.renamed, m.added) {
                (Some(other), true) => format!("; looks renamed from `{other}`"),
                (Some(other), false) => format!("; looks renamed to `{other}`"),
                (None, _) => String::new(),
            };
            let _ = writeln!(
                out,
                "- {tag}: {kind} `{}` {verb} ({types}{renamed})",
                m.method
            );
        }
        out.push('\n');
    }

    fn types_section(&self, out: &mut String, removed: bool) {
        let items: Vec<&Change> = self
            .changes
            .iter()
            .filter(|c| match c.kind {
                ChangeKind::TypeRemoved { .. } => removed,
                ChangeKind::TypeAdded { .. } => !removed,
                _ => false,
            })
            .collect();
        let Some(first) = items.first() else {
            return;
        };
        let title = if removed {
            "Types removed"
        } else {
            "Types added"
        };
        let tag = if first.breaking {
            "**breaking**"
        } else {
            "non-breaking"
        };
        let _ = writeln!(out, "## {title}\n\n{tag}: {}", first.rust);
        if let Some(wire) = &first.wire {
            let _ = writeln!(out, "Wire: {wire}");
        }
        let _ = writeln!(
            out,
            "Inline types generated from a listed type (named after it) are listed with it.\n"
        );
        for c in items {
            let (shape, inline, renamed) = match &c.kind {
                ChangeKind::TypeRemoved { shape, inline } => (shape, inline, &None),
                ChangeKind::TypeAdded {
                    shape,
                    inline,
                    looks_renamed_from,
                } => (shape, inline, looks_renamed_from),
                _ => continue,
            };
            let mut line = format!("- `{}` ({}", c.ty, shape.word());
            if !inline.is_empty() {
                let _ = write!(line, "; with {}", code_list(inline));
            }
            if let Some(from) = renamed {
                let _ = write!(line, "; same fields as the removed `{from}`");
            }
            line.push(')');
            let _ = writeln!(out, "{line}");
        }
        out.push('\n');
    }

    fn changed_section(&self, out: &mut String) {
        let changed: Vec<&Change> = self
            .changes
            .iter()
            .filter(|c| {
                !matches!(
                    c.kind,
                    ChangeKind::TypeAdded { .. } | ChangeKind::TypeRemoved { .. }
                )
            })
            .collect();
        // The same change in many types (a new `_meta` type everywhere) is
        // one line naming the types, not one line per type.
        let mut groups: BTreeMap<String, Vec<&Change>> = BTreeMap::new();
        for c in &changed {
            groups.entry(line_of(c)).or_default().push(c);
        }
        groups.retain(|_, changes| changes.len() >= REPEATED);
        if !groups.is_empty() {
            let _ = writeln!(
                out,
                "## Changes repeated across types

The same change in {REPEATED} or more \
                 types, listed once with the types it concerns.\n"
            );
            // Most widespread first, then by text.
            let mut ordered: Vec<(&String, &Vec<&Change>)> = groups.iter().collect();
            ordered.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
            for (line, changes) in ordered {
                let types: Vec<String> = changes.iter().map(|c| c.ty.clone()).collect();
                let _ = writeln!(
                    out,
                    "{line}\n  In {} types: {}.",
                    types.len(),
                    code_list(&types)
                );
            }
            out.push('\n');
        }
        let single: Vec<&Change> = changed
            .into_iter()
            .filter(|c| !groups.contains_key(&line_of(c)))
            .collect();
        if single.is_empty() {
            return;
        }
        let _ = writeln!(out, "## Types changed");
        let mut current = "";
        for c in single {
            if c.ty != current {
                current = &c.ty;
                let _ = writeln!(out, "\n### `{current}`\n");
            }
            let _ = writeln!(out, "{}", line_of(c));
        }
    }
}

/// A change in this many types is listed once (see `changed_section`).
const REPEATED: usize = 3;

/// The list item of a change of a type (without the type's name).
fn line_of(c: &Change) -> String {
    let tag = if c.breaking {
        "**breaking**"
    } else {
        "non-breaking"
    };
    let mut line = format!("- {tag}: {}. {}", describe(&c.kind), c.rust);
    if let Some(wire) = &c.wire {
        let _ = write!(line, " Wire: {wire}");
    }
    line
}

fn code_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn field(f: &FieldInfo) -> String {
    if f.rust_name == f.json_name {
        format!("field `{}`", f.rust_name)
    } else {
        format!("field `{}` (`\"{}\"`)", f.rust_name, f.json_name)
    }
}

/// What changed, in a few words.
fn describe(kind: &ChangeKind) -> String {
    match kind {
        ChangeKind::TypeAdded { shape, .. } => format!("added ({})", shape.word()),
        ChangeKind::TypeRemoved { shape, .. } => format!("removed ({})", shape.word()),
        ChangeKind::ShapeChanged { from, to } => {
            format!("{} → {}", from.word(), to.word())
        }
        ChangeKind::FieldAdded(f) => {
            let req = if f.required { "required" } else { "optional" };
            format!("{} added, {req}: `{}`", field(f), f.rust_type)
        }
        ChangeKind::FieldRemoved(f) => format!("{} removed (was `{}`)", field(f), f.rust_type),
        ChangeKind::FieldTypeChanged { from, to } => format!(
            "{} changed type: `{}` → `{}`",
            field(to),
            from.rust_type,
            to.rust_type
        ),
        ChangeKind::RequiredToOptional { from, to } => format!(
            "{} required → optional: `{}` → `{}`",
            field(to),
            from.rust_type,
            to.rust_type
        ),
        ChangeKind::OptionalToRequired { from, to } => format!(
            "{} optional → required: `{}` → `{}`",
            field(to),
            from.rust_type,
            to.rust_type
        ),
        ChangeKind::ExtraChanged { from, to } => {
            let side = |e: &Option<String>| match e {
                Some(ty) => format!("kept in `extra: {ty}`"),
                None => "rejected".to_owned(),
            };
            format!("unknown keys: {} → {}", side(from), side(to))
        }
        ChangeKind::EnumValueAdded(v) => format!("value `\"{v}\"` added"),
        ChangeKind::EnumValueRemoved(v) => format!("value `\"{v}\"` removed"),
        ChangeKind::VariantAdded { name, rust_type } => {
            format!("variant `{name}({rust_type})` added")
        }
        ChangeKind::VariantRemoved { name, rust_type } => {
            format!("variant `{name}({rust_type})` removed")
        }
        ChangeKind::VariantTypeChanged { name, from, to } => {
            format!("variant `{name}` payload: `{from}` → `{to}`")
        }
        ChangeKind::AliasChanged { from, to } => format!("alias target: `{from}` → `{to}`"),
    }
}
