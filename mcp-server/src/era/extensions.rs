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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use mcp_era_types::v2026_07_28::{Implementation, ServerCapabilities};

    use super::*;

    fn declaring(extensions: &[&str]) -> ServerDeclaration {
        let mut capabilities = ServerCapabilities::new();
        capabilities.extensions = Some(
            extensions
                .iter()
                .map(|id| ((*id).to_owned(), serde_json::from_str("{}").unwrap()))
                .collect(),
        );
        ServerDeclaration::new(Implementation::builder().name("t").version("1").build())
            .with_capabilities(capabilities)
    }

    #[test]
    fn built_once_per_declaration_and_again_for_new_capabilities() {
        let plain =
            ServerDeclaration::new(Implementation::builder().name("t").version("1").build());
        let empty = of(&plain);
        assert!(empty.method("tasks/get").is_none());
        assert!(empty.tool_call().is_empty() && empty.read_resource().is_empty());
        assert!(std::ptr::eq(empty, of(&plain)), "kept, not rebuilt");

        let tasks = declaring(&[mcp_era_types::ext::tasks::EXTENSION]);
        assert!(of(&tasks).method("tasks/get").is_some());
        assert_eq!(of(&tasks).tool_call().len(), 1);
        assert!(of(&tasks).method("skills/list").is_none());

        let narrowed = tasks.with_capabilities(ServerCapabilities::new());
        assert!(of(&narrowed).method("tasks/get").is_none(), "rebuilt");
        let skills = declaring(&[mcp_era_types::ext::skills::EXTENSION_ID]);
        assert!(of(&skills).method("skills/list").is_some());
        assert!(of(&skills).method("resources/directory/read").is_none());
        assert_eq!(of(&skills).first_list_page().len(), 1);
    }
}
