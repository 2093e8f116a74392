//! The declaration several backends are served under: the gateway's
//! name, the union of their capabilities, each one's instructions under
//! its name.

use std::sync::Arc;

use mcp_era_server::ServerDeclaration;
use mcp_era_server::mcp_era_types::v2026_07_28::{CacheScope, ServerCapabilities};
use serde_json::{Map, Value};

/// The merge of the backends' `declarations`, named by `names` in the
/// same order (their cache defaults: the shortest, a minute at most).
pub(crate) fn merged<'a>(
    declarations: &[Arc<ServerDeclaration>],
    names: impl Iterator<Item = &'a str>,
) -> ServerDeclaration {
    let mut capabilities = Value::Object(Map::new());
    let mut instructions = Vec::new();
    let mut ttl = u64::MAX;
    for (declaration, name) in declarations.iter().zip(names) {
        if let Ok(theirs) = serde_json::to_value(declaration.capabilities()) {
            union(&mut capabilities, &theirs);
        }
        if let Some(text) = declaration.instructions() {
            let server = &declaration.server_info().name;
            instructions.push(format!("{name} ({server}): {text}"));
        }
        ttl = ttl.min(declaration.cache_ttl_ms());
    }
    let capabilities: ServerCapabilities = serde_json::from_value(capabilities).unwrap_or_default();
    let merged = ServerDeclaration::new(crate::backend::unnamed())
        .with_capabilities(capabilities)
        .with_cache_defaults(ttl.min(60_000), CacheScope::Private);
    if instructions.is_empty() {
        merged
    } else {
        merged.with_instructions(instructions.join("\n\n"))
    }
}

/// Merges `theirs` into `ours`: objects key by key, `true` wins.
fn union(ours: &mut Value, theirs: &Value) {
    match (ours, theirs) {
        (Value::Object(ours), Value::Object(theirs)) => {
            for (key, value) in theirs {
                match ours.get_mut(key) {
                    Some(mine) => union(mine, value),
                    None => {
                        ours.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (ours @ Value::Bool(false), Value::Bool(true)) => *ours = Value::Bool(true),
        _ => {}
    }
}
