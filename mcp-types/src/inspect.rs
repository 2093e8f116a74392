//! Inspection of deserialized messages: which variant each union chose.
//!
//! Proxies and inspectors use this to show how a message was understood; the
//! round-trip tests use it to assert the choice for every official example.

use std::collections::BTreeMap;

/// One union inside a message and the variant it resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnionChoice {
    /// JSON pointer of the union value inside the message.
    pub path: String,
    /// The union's type name.
    pub union: &'static str,
    /// The chosen variant.
    pub variant: &'static str,
}

/// Implemented by every generated type: reports the union choices inside.
pub trait Walk {
    /// Appends the choices found below `path` (a JSON pointer) to `out`.
    fn walk(&self, path: &mut String, out: &mut Vec<UnionChoice>);
}

/// Walks `value` as the member `segment` of the value at `path`.
pub fn walk_member<T: Walk + ?Sized>(
    value: &T,
    path: &mut String,
    segment: &str,
    out: &mut Vec<UnionChoice>,
) {
    let len = path.len();
    path.push('/');
    for c in segment.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
    value.walk(path, out);
    path.truncate(len);
}

macro_rules! leaf {
    ($($t:ty),*) => {$(
        impl Walk for $t {
            fn walk(&self, _: &mut String, _: &mut Vec<UnionChoice>) {}
        }
    )*};
}

leaf!(
    String,
    bool,
    i64,
    u64,
    serde_json::Number,
    serde_json::Value,
    serde_json::Map<String, serde_json::Value>
);

impl<T: Walk> Walk for Vec<T> {
    fn walk(&self, path: &mut String, out: &mut Vec<UnionChoice>) {
        for (i, item) in self.iter().enumerate() {
            walk_member(item, path, &i.to_string(), out);
        }
    }
}

impl<T: Walk + ?Sized> Walk for Box<T> {
    fn walk(&self, path: &mut String, out: &mut Vec<UnionChoice>) {
        (**self).walk(path, out);
    }
}

impl<T: Walk> Walk for Option<T> {
    fn walk(&self, path: &mut String, out: &mut Vec<UnionChoice>) {
        if let Some(value) = self {
            value.walk(path, out);
        }
    }
}

impl<T: Walk> Walk for BTreeMap<String, T> {
    fn walk(&self, path: &mut String, out: &mut Vec<UnionChoice>) {
        for (key, value) in self {
            walk_member(value, path, key, out);
        }
    }
}
