//! A semantic diff between two schemas: both go through the generator's own
//! normalisation and IR, so the diff speaks of the Rust types, fields, enum
//! values and union variants the generated code has, and judges each change
//! by how that code is emitted (see [`SchemaDiff::to_markdown`]).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let old: serde_json::Value = serde_json::from_str(&std::fs::read_to_string("old.json")?)?;
//! let new: serde_json::Value = serde_json::from_str(&std::fs::read_to_string("new.json")?)?;
//! let diff = mcp_era_codegen::diff::diff_schemas(&old, "2025-11-25", &new, "2026-07-28")?;
//! println!("{} breaking changes", diff.breaking_count());
//! std::fs::write("CHANGES.md", diff.to_markdown())?;
//! # Ok(()) }
//! ```

mod compare;
mod markdown;
mod model;
mod verdict;

pub use model::{Change, ChangeKind, FieldInfo, MethodChange, MethodKind, SchemaDiff, TypeShape};

use serde_json::Value;

use crate::emit::detect_era;
use crate::error::{Error, Result};
use crate::ir::Ir;
use crate::manifest::Era;
use crate::normalise::normalise;

/// Compares two schema documents. Each is normalised for its own era
/// ([`detect_era`]; a schema of neither era gets the legacy fix-ups, which
/// are the era-independent ones) and built into the IR, exactly as the
/// generator does before emitting. Labels name the two sides in the output.
pub fn diff_schemas(
    old: &Value,
    old_label: &str,
    new: &Value,
    new_label: &str,
) -> Result<SchemaDiff> {
    let old_ir = ir_of(old).map_err(|e| Error::new(format!("{old_label}: {e}")))?;
    let new_ir = ir_of(new).map_err(|e| Error::new(format!("{new_label}: {e}")))?;
    Ok(diff_irs(&old_ir, old_label, &new_ir, new_label))
}

/// Compares two IRs (for callers that already built them).
pub fn diff_irs(old: &Ir, old_label: &str, new: &Ir, new_label: &str) -> SchemaDiff {
    let (methods, changes, doc_changes) = compare::compare(old, new);
    SchemaDiff {
        old: old_label.to_owned(),
        new: new_label.to_owned(),
        methods,
        changes,
        doc_changes,
    }
}

fn ir_of(schema: &Value) -> Result<Ir> {
    let era = detect_era(schema).unwrap_or(Era::Legacy);
    Ir::build(&normalise(schema, era)?)
}
