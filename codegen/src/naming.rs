//! Rust names for schema names: types keep their `$defs` spelling, fields
//! become snake_case, `_meta` keys lose their prefix.

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};

/// The part of a property name that carries meaning: `_meta` keys such as
/// `io.modelcontextprotocol/protocolVersion` drop their prefix, and leading
/// `$` or `_` go.
fn meaningful(property: &str) -> &str {
    let name = property.rsplit('/').next().unwrap_or(property);
    name.trim_start_matches(['$', '_'])
}

/// `cacheScope` → `CacheScope`, `_meta` → `Meta`.
pub fn upper_camel(property: &str) -> String {
    meaningful(property).to_upper_camel_case()
}

/// `ttlMs` → `ttl_ms`, `io.modelcontextprotocol/protocolVersion` →
/// `protocol_version`, `type` → `type_`.
pub fn field_name(property: &str) -> String {
    let snake = meaningful(property).to_snake_case();
    if is_reserved(&snake) || snake.is_empty() {
        format!("{snake}_")
    } else {
        snake
    }
}

/// `server/discover` → `SERVER_DISCOVER`, `resultType` → `RESULT_TYPE`.
pub fn shouty(name: &str) -> String {
    name.replace(['/', '.', '-'], "_").to_shouty_snake_case()
}

/// Rust keywords, plus `extra`, the generated field for unnamed keys.
fn is_reserved(word: &str) -> bool {
    is_keyword(word) || word == "extra"
}

/// Strict and reserved Rust keywords (2024 edition).
pub(crate) fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "as" | "async"
            | "await"
            | "break"
            | "const"
            | "continue"
            | "crate"
            | "dyn"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "gen"
            | "macro"
            | "override"
            | "priv"
            | "try"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            field_name("io.modelcontextprotocol/protocolVersion"),
            "protocol_version"
        );
        assert_eq!(field_name("_meta"), "meta");
        assert_eq!(field_name("$schema"), "schema");
        assert_eq!(field_name("type"), "type_");
        assert_eq!(field_name("extra"), "extra_");
        assert_eq!(field_name("ttlMs"), "ttl_ms");
        assert_eq!(upper_camel("cacheScope"), "CacheScope");
        assert_eq!(upper_camel("_meta"), "Meta");
        assert_eq!(shouty("server/discover"), "SERVER_DISCOVER");
        assert_eq!(
            shouty("notifications/resources/list_changed"),
            "NOTIFICATIONS_RESOURCES_LIST_CHANGED"
        );
    }
}
