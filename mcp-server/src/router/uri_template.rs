//! URI templates (RFC 6570) for `resources/templates/list`,
//! `resources/read` and live `resources/list` entries: level 1 `{var}` and
//! level 2 `{+var}`, expanded from values and matched against a requested
//! URI to recover them.

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

    /// The variable names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables of `uri` if it matches, percent-decoded. A `{+var}`
    /// value keeps a `%` that starts no `%XX` triplet, and its raw text when
    /// the decoded bytes are not UTF-8, so every URI it matched before
    /// decoding still matches.
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        match_parts(&self.parts, uri, &mut out).then_some(out)
    }

    /// The URI for `values`, one per variable in template order, encoded
    /// by RFC 6570's rules: a `{var}` value keeps only unreserved characters
    /// (`A-Z a-z 0-9 - . _ ~`), a `{+var}` value reserved ones (`/`, `?`,
    /// `#`, ...) and `%XX` triplets too (taken as encoded already); every
    /// other byte of the UTF-8 text becomes `%XX`.
    pub fn expand<V: AsRef<str>>(&self, values: &[V]) -> Result<String, TemplateError> {
        let wanted = self.variables().count();
        if values.len() != wanted {
            return Err(TemplateError(format!(
                "URI template `{}` has {wanted} variable(s), {} value(s) given",
                self.source,
                values.len()
            )));
        }
        let mut uri = String::with_capacity(self.source.len());
        let mut values = values.iter();
        for part in &self.parts {
            match part {
                Part::Literal(literal) => uri.push_str(literal),
                Part::Var { reserved, .. } => {
                    let value = values.next().map_or("", AsRef::as_ref);
                    encode_into(&mut uri, value, *reserved);
                }
            }
        }
        Ok(uri)
    }
}

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// RFC 3986 `reserved`: `gen-delims` and `sub-delims`.
fn reserved(b: u8) -> bool {
    b":/?#[]@!$&'()*+,;=".contains(&b)
}

fn is_triplet(bytes: &[u8]) -> bool {
    matches!(bytes, [b'%', a, b, ..] if a.is_ascii_hexdigit() && b.is_ascii_hexdigit())
}

fn encode_into(out: &mut String, value: &str, allow_reserved: bool) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let bytes = value.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let keep = unreserved(b)
            || (allow_reserved && (reserved(b) || (b == b'%' && is_triplet(&bytes[i..]))));
        if keep {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xF)]));
        }
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
                    Some(decode_reserved(raw))
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

/// A `{+var}` value: `%XX` triplets decoded, anything else kept as written.
fn decode_reserved(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = is_triplet(&bytes[i..])
            .then(|| raw.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match hex {
            Some(byte) => {
                decoded.push(byte);
                i += 3;
            }
            None => {
                decoded.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(decoded).unwrap_or_else(|_| raw.to_owned())
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
    fn expansion_encodes_by_operator_and_reads_back() {
        let simple = UriTemplate::parse("note://{id}").expect("template");
        let reserved = UriTemplate::parse("file:///{+path}.md").expect("template");
        let cases = [
            ("a/b c", "note://a%2Fb%20c", "file:///a/b%20c.md"),
            ("été", "note://%C3%A9t%C3%A9", "file:///%C3%A9t%C3%A9.md"),
            ("x?y#z", "note://x%3Fy%23z", "file:///x?y#z.md"),
            ("100%", "note://100%25", "file:///100%25.md"),
            ("~a-b_c.d", "note://~a-b_c.d", "file:///~a-b_c.d.md"),
        ];
        for (value, simple_uri, reserved_uri) in cases {
            assert_eq!(simple.expand(&[value]).expect("expands"), simple_uri);
            assert_eq!(reserved.expand(&[value]).expect("expands"), reserved_uri);
            assert_eq!(
                simple.matches(simple_uri),
                Some(vec![("id".to_owned(), value.to_owned())])
            );
            assert_eq!(
                reserved.matches(reserved_uri),
                Some(vec![("path".to_owned(), value.to_owned())])
            );
        }
        // A `{+var}` triplet is taken as encoded already (RFC 6570 §3.2.3).
        assert_eq!(
            reserved.expand(&["a%2Fb"]).expect("expands"),
            "file:///a%2Fb.md"
        );
        // What matched before decoding still matches.
        assert_eq!(
            reserved.matches("file:///50%.md"),
            Some(vec![("path".to_owned(), "50%".to_owned())])
        );
        assert!(simple.expand::<&str>(&[]).is_err());
        assert!(simple.expand(&["a", "b"]).is_err());
    }

    #[test]
    fn bad_templates() {
        for bad in ["a{", "a{b-c}", "a{?q}", "{a}{b}", "a}b", "x{}"] {
            assert!(UriTemplate::parse(bad).is_err(), "{bad}");
        }
    }
}
