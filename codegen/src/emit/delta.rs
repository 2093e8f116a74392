//! A revision as a delta of another: which types differ from the base
//! revision's, and which refer to those. `generate_delta` (in `emit/mod.rs`)
//! generates them and re-exports the rest.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::ir::Ir;

/// The revision a delta module is generated against (see `generate_delta`).
#[derive(Debug, Clone, Copy)]
pub struct DeltaBase<'a> {
    /// The base revision, e.g. `2026-07-28`.
    pub version: &'a str,
    /// The base revision's schema document.
    pub schema: &'a Value,
    /// The Rust path of the base revision's generated module, as the delta
    /// module names it: `super::v2026_07_28`, `::mcp_era_types::v2026_07_28`.
    pub module: &'a str,
}

/// The types whose IR differs from the base's, or that the base lacks.
pub(crate) fn changed_types(ir: &Ir, base: &Ir) -> BTreeSet<String> {
    ir.types
        .iter()
        .filter(|(name, def)| base.types.get(*name) != Some(*def))
        .map(|(name, _)| name.clone())
        .collect()
}

/// `changed` and every type that refers to one of them, directly or not.
pub(crate) fn with_dependents(ir: &Ir, changed: &BTreeSet<String>) -> BTreeSet<String> {
    let mut own = changed.clone();
    loop {
        let before = own.len();
        for def in ir.types.values() {
            if !own.contains(&def.name) && def.references().iter().any(|r| own.contains(r)) {
                own.insert(def.name.clone());
            }
        }
        if own.len() == before {
            return own;
        }
    }
}
