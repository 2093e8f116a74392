//! The one list of the extensions the runtime implements: each registers
//! its methods and hooks in a declaration's table, built once per
//! declaration and cached there; the gate only looks them up.

use crate::model::declaration::ServerDeclaration;
use crate::model::extensions::ExtensionTable;

/// The table of `declaration`'s extensions, built on first use and kept
/// in the declaration's slot, which only this function fills.
#[inline]
pub(crate) fn of(declaration: &ServerDeclaration) -> &ExtensionTable {
    static EMPTY: ExtensionTable = ExtensionTable::new();
    declaration
        .extension_slot()
        .get_or_init(|| Box::new(build(declaration)))
        .downcast_ref()
        .unwrap_or(&EMPTY)
}

fn build(declaration: &ServerDeclaration) -> ExtensionTable {
    let mut table = ExtensionTable::new();
    crate::features::tasks::register(declaration, &mut table);
    crate::features::skills::register(declaration, &mut table);
    table
}
