//! Rust names for tool names: `files.read` → method `files_read`, types
//! `FilesReadArgs` / `FilesReadOutput`; keywords get a trailing `_`.

use heck::{ToSnakeCase, ToUpperCamelCase};

use crate::naming::is_keyword;

/// Names the wrapper itself uses: a tool may not take them as methods.
const WRAPPER_METHODS: &[&str] = &[
    "new",
    "client",
    "into_client",
    "call",
    "arguments",
    "output",
];

/// The method (and module) name of a tool, before collisions are settled.
/// Every character that is not ASCII alphanumeric splits words; a leading
/// digit or an empty result gets a `tool_` prefix; a keyword or a name of
/// the wrapper's own gets a trailing `_` (`type` → `type_`, not `r#type`:
/// one rule for every position, raw identifiers cannot spell `self`).
pub fn method_name(tool: &str) -> String {
    let spaced: String = tool
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect();
    let mut snake = spaced.to_snake_case();
    if snake.is_empty() || snake.starts_with(|c: char| c.is_ascii_digit()) {
        snake = format!("tool_{snake}");
    }
    if is_keyword(&snake) || WRAPPER_METHODS.contains(&snake.as_str()) {
        snake.push('_');
    }
    snake
}

/// `files_read` → `FilesRead`.
pub fn type_stem(method: &str) -> String {
    let camel = method.to_upper_camel_case();
    if camel.is_empty() {
        "Tool".to_owned()
    } else {
        camel
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_become_identifiers() {
        assert_eq!(method_name("files.read"), "files_read");
        assert_eq!(method_name("get-weather"), "get_weather");
        assert_eq!(method_name("getWeather"), "get_weather");
        assert_eq!(method_name("type"), "type_");
        assert_eq!(method_name("self"), "self_");
        assert_eq!(method_name("new"), "new_");
        assert_eq!(method_name("3d/render"), "tool_3d_render");
        assert_eq!(method_name("☃"), "tool_");
        assert_eq!(type_stem("files_read"), "FilesRead");
        assert_eq!(type_stem("type_"), "Type");
    }
}
