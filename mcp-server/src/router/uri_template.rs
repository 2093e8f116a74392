//! URI templates (RFC 6570) for `resources/templates/list` and
//! `resources/read`: level 1 `{var}` and level 2 `{+var}`, matched against a
//! requested URI to recover the variables.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    /// A variable; `reserved` for `{+var}`, whose value may hold `/`, `?`…
    Var {
        name: String,
        reserved: bool,
    },
}

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

/// Why a template could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError(pub String);

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn valid_var_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

impl UriTemplate {
    /// Parses `template`. Operators other than `+`, several variables in
    /// one expression and modifiers (`:3`, `*`) are not supported.
    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        let mut parts = Vec::new();
        let mut rest = template;
        while !rest.is_empty() {
            match rest.find('{') {
                Some(0) => {
                    let end = rest.find('}').ok_or_else(|| {
                        TemplateError(format!("unclosed `{{` in URI template `{template}`"))
                    })?;
                    let expression = &rest[1..end];
                    let (name, reserved) = match expression.strip_prefix('+') {
                        Some(name) => (name, true),
                        None => (expression, false),
                    };
                    if !valid_var_name(name) {
                        return Err(TemplateError(format!(
                            "unsupported expression `{{{expression}}}` in URI template `{template}`: use `{{name}}` or `{{+name}}`"
                        )));
                    }
                    if matches!(parts.last(), Some(Part::Var { .. })) {
                        return Err(TemplateError(format!(
                            "two variables without text between them in URI template `{template}` cannot be told apart"
                        )));
                    }
                    parts.push(Part::Var {
                        name: name.to_owned(),
                        reserved,
                    });
                    rest = &rest[end + 1..];
                }
                found => {
                    let end = found.unwrap_or(rest.len());
                    if rest[..end].contains('}') {
                        return Err(TemplateError(format!(
                            "stray `}}` in URI template `{template}`"
                        )));
                    }
                    parts.push(Part::Literal(rest[..end].to_owned()));
                    rest = &rest[end..];
                }
            }
        }
        Ok(Self {
            source: template.to_owned(),
            parts,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables of `uri` if it matches, `{var}` values percent-decoded.
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        match_parts(&self.parts, uri, &mut out).then_some(out)
    }
}

/// What a `{var}` value may hold: RFC 3986 unreserved characters,
/// percent-encoded triplets (level 1 expansion encodes everything else)
/// and, as in IRIs (RFC 3987), non-ASCII characters written as they are.
fn simple_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'%') || !b.is_ascii()
}

fn match_parts(parts: &[Part], uri: &str, out: &mut Vec<(String, String)>) -> bool {
    match parts.split_first() {
        None => uri.is_empty(),
        Some((Part::Literal(literal), rest)) => uri
            .strip_prefix(literal.as_str())
            .is_some_and(|tail| match_parts(rest, tail, out)),
        Some((Part::Var { name, reserved }, rest)) => {
            let limit = if *reserved {
                uri.len()
            } else {
                uri.bytes()
                    .position(|b| !simple_char(b))
                    .unwrap_or(uri.len())
            };
            // Longest value first, so `{+path}` takes as much as it can.
            for end in (1..=limit).rev() {
                if !uri.is_char_boundary(end) {
                    continue;
                }
                let mark = out.len();
                let raw = &uri[..end];
                let value = if *reserved {
                    Some(raw.to_owned())
                } else {
                    percent_decode(raw)
                };
                let Some(value) = value else { continue };
                out.push((name.clone(), value));
                if match_parts(rest, &uri[end..], out) {
                    return true;
                }
                out.truncate(mark);
            }
            false
        }
    }
}

fn percent_decode(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = raw.get(i + 1..i + 3)?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(template).expect("template").matches(uri)
    }

    #[test]
    fn level_one_and_two() {
        let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        assert_eq!(
            vars("note://{id}", "note://42"),
            Some(vec![pair("id", "42")])
        );
        assert_eq!(
            vars("note://{id}", "note://a%20b"),
            Some(vec![pair("id", "a b")])
        );
        assert_eq!(vars("note://{id}", "note://a/b"), None);
        assert_eq!(vars("note://{id}", "note://"), None);
        assert_eq!(vars("note://{id}", "notes://1"), None);
        assert_eq!(
            vars("test://template/{id}/data", "test://template/7/data"),
            Some(vec![pair("id", "7")])
        );
        assert_eq!(
            vars("file:///{+path}.md", "file:///a/b/c.md"),
            Some(vec![pair("path", "a/b/c")])
        );
        assert_eq!(
            vars("db://{table}/{row}", "db://users/9"),
            Some(vec![pair("table", "users"), pair("row", "9")])
        );
    }

    #[test]
    fn bad_templates() {
        for bad in ["a{", "a{b-c}", "a{?q}", "{a}{b}", "a}b", "x{}"] {
            assert!(UriTemplate::parse(bad).is_err(), "{bad}");
        }
    }
}
