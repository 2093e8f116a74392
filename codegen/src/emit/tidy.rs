//! Token passes that make the output read like hand-written code: one
//! `#[doc]` per line (printed as `///`, never `/** */`), and short names
//! with `use` lines instead of fully qualified std / serde paths.

use std::collections::BTreeSet;

use proc_macro2::{Delimiter, Group, Ident, Spacing, Span, TokenStream, TokenTree};
use quote::quote;

use crate::error::{Error, Result};

/// Splits every `#[doc = "a\nb"]` (typify writes whole descriptions as one)
/// into one attribute per line, and gives lines a leading space when the
/// doc has none (`/// text`, as written by hand; rustdoc strips the common
/// indent, so the rendered text is the same).
pub(crate) fn split_docs(tokens: TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    let mut i = 0;
    while i < trees.len() {
        let inner = matches!(&trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
        let group_at = if inner { i + 2 } else { i + 1 };
        if let (TokenTree::Punct(hash), Some(TokenTree::Group(group))) =
            (&trees[i], trees.get(group_at))
            && hash.as_char() == '#'
            && group.delimiter() == Delimiter::Bracket
            && let Some(text) = doc_text(group)
        {
            let pad = !text.starts_with(' ') && !text.is_empty();
            for line in text.split('\n') {
                let line = if pad && !line.is_empty() {
                    format!(" {line}")
                } else {
                    line.to_owned()
                };
                if inner {
                    out.extend(quote!(#![doc = #line]));
                } else {
                    out.extend(quote!(#[doc = #line]));
                }
            }
            i = group_at + 1;
            continue;
        }
        match &trees[i] {
            TokenTree::Group(group) => {
                let mut inner = Group::new(group.delimiter(), split_docs(group.stream()));
                inner.set_span(group.span());
                out.extend([TokenTree::Group(inner)]);
            }
            other => out.extend([other.clone()]),
        }
        i += 1;
    }
    out
}

/// The text of a `doc = "..."` attribute body.
fn doc_text(group: &Group) -> Option<String> {
    let mut inner = group.stream().into_iter();
    let (Some(TokenTree::Ident(doc)), Some(TokenTree::Punct(eq)), Some(TokenTree::Literal(lit))) =
        (inner.next(), inner.next(), inner.next())
    else {
        return None;
    };
    if doc != "doc" || eq.as_char() != '=' || inner.next().is_some() {
        return None;
    }
    let lit: syn::LitStr = syn::parse2(TokenTree::Literal(lit).into()).ok()?;
    Some(lit.value())
}

/// Where a short name comes from: the prelude of every edition, or a `use`.
#[derive(Clone, Copy)]
enum Source {
    Prelude,
    Std,
    Serde,
    SerdeJson,
}

/// Fully qualified paths (segments after the leading `::`) and the short
/// name that replaces them. Longest first, so `Option::Some` beats `Option`.
const SHORT: &[(&[&str], &str, Source)] = &[
    (
        &["core", "option", "Option", "Some"],
        "Some",
        Source::Prelude,
    ),
    (
        &["core", "option", "Option", "None"],
        "None",
        Source::Prelude,
    ),
    (&["core", "result", "Result", "Ok"], "Ok", Source::Prelude),
    (&["core", "result", "Result", "Err"], "Err", Source::Prelude),
    (&["std", "collections", "BTreeMap"], "BTreeMap", Source::Std),
    (&["std", "sync", "Arc"], "Arc", Source::Std),
    (&["std", "convert", "TryFrom"], "TryFrom", Source::Std),
    (&["std", "str", "FromStr"], "FromStr", Source::Std),
    (&["core", "option", "Option"], "Option", Source::Prelude),
    (&["core", "result", "Result"], "Result", Source::Prelude),
    (&["std", "result", "Result"], "Result", Source::Prelude),
    (&["std", "string", "String"], "String", Source::Prelude),
    (&["std", "vec", "Vec"], "Vec", Source::Prelude),
    (&["std", "boxed", "Box"], "Box", Source::Prelude),
    (&["core", "convert", "Into"], "Into", Source::Prelude),
    (&["core", "convert", "From"], "From", Source::Prelude),
    (&["core", "default", "Default"], "Default", Source::Prelude),
    (&["core", "fmt"], "fmt", Source::Std),
    (&["std", "fmt"], "fmt", Source::Std),
    (&["serde", "Serialize"], "Serialize", Source::Serde),
    (&["serde", "Deserialize"], "Deserialize", Source::Serde),
    (&["serde", "Serializer"], "Serializer", Source::Serde),
    (&["serde", "Deserializer"], "Deserializer", Source::Serde),
    (&["serde", "de"], "de", Source::Serde),
    (&["serde_json", "Map"], "Map", Source::SerdeJson),
    (&["serde_json", "Number"], "Number", Source::SerdeJson),
    (&["serde_json", "Value"], "Value", Source::SerdeJson),
];

/// Rewrites the fully qualified paths of [`SHORT`] in the module's items to
/// short names, and returns the `use` lines they need. A name the module
/// defines itself (a schema type called `Result`, `Value`, …) keeps its
/// qualified path. Nested modules (typify's `error`) are left alone: the
/// `use` lines do not reach into them.
pub(crate) fn shorten_paths(
    items: TokenStream,
    serde: &str,
    serde_json: &str,
) -> Result<(TokenStream, TokenStream)> {
    shorten_paths_in(items, &BTreeSet::new(), serde, serde_json)
}

/// [`shorten_paths`], where the names of `in_scope` (what a glob import
/// brings in) keep their qualified paths too.
pub(crate) fn shorten_paths_in(
    items: TokenStream,
    in_scope: &BTreeSet<String>,
    serde: &str,
    serde_json: &str,
) -> Result<(TokenStream, TokenStream)> {
    let file: syn::File = syn::parse2(items.clone())
        .map_err(|e| Error::new(format!("generated code does not parse: {e}")))?;
    let mut defined = defined_names(&file.items);
    defined.extend(in_scope.iter().cloned());
    let mut state = Shorten {
        defined,
        used: BTreeSet::new(),
    };
    let items = state.walk(items);
    let mut uses = TokenStream::new();
    let mut std_uses = BTreeSet::new();
    let mut serde_names = Vec::new();
    let mut json_names = Vec::new();
    for index in &state.used {
        let (path, name, source) = SHORT[*index];
        let name = Ident::new(name, Span::call_site());
        match source {
            Source::Prelude => {}
            // `::core::fmt` and `::std::fmt` are one module: `use std::fmt`.
            Source::Std => {
                std_uses.insert(format!("std::{}", path[1..].join("::")));
            }
            Source::Serde => serde_names.push(name),
            Source::SerdeJson => json_names.push(name),
        }
    }
    for (root, mut names) in [(serde, serde_names), (serde_json, json_names)] {
        if names.is_empty() {
            continue;
        }
        // rustfmt's order: `Deserialize, Serialize, de`.
        names.sort_by_key(Ident::to_string);
        let root = use_root(root)?;
        uses.extend(match names.as_slice() {
            [name] => quote!(use #root::#name;),
            _ => quote!(use #root::{#(#names),*};),
        });
    }
    for path in std_uses {
        let path: syn::Path =
            syn::parse_str(&path).map_err(|e| Error::new(format!("use path {path:?}: {e}")))?;
        uses.extend(quote!(use #path;));
    }
    Ok((uses, items))
}

/// The crate path as written in a `use` line: `::serde` reads as `serde`.
fn use_root(path: &str) -> Result<TokenStream> {
    let plain = path.strip_prefix("::").filter(|rest| !rest.contains("::"));
    let path: syn::Path = syn::parse_str(plain.unwrap_or(path))
        .map_err(|e| Error::new(format!("crate path {path:?}: {e}")))?;
    Ok(quote!(#path))
}

/// Every name the module's items define or import.
pub(crate) fn defined_names(items: &[syn::Item]) -> BTreeSet<String> {
    fn use_names(tree: &syn::UseTree, out: &mut BTreeSet<String>) {
        match tree {
            syn::UseTree::Path(p) => use_names(&p.tree, out),
            syn::UseTree::Name(n) => {
                out.insert(n.ident.to_string());
            }
            syn::UseTree::Rename(r) => {
                out.insert(r.rename.to_string());
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_names(t, out)),
            syn::UseTree::Glob(_) => {}
        }
    }
    let mut out = BTreeSet::new();
    for item in items {
        let ident = match item {
            syn::Item::Const(i) => Some(&i.ident),
            syn::Item::Enum(i) => Some(&i.ident),
            syn::Item::Fn(i) => Some(&i.sig.ident),
            syn::Item::Mod(i) => Some(&i.ident),
            syn::Item::Static(i) => Some(&i.ident),
            syn::Item::Struct(i) => Some(&i.ident),
            syn::Item::Trait(i) => Some(&i.ident),
            syn::Item::Type(i) => Some(&i.ident),
            syn::Item::Union(i) => Some(&i.ident),
            syn::Item::Use(u) => {
                use_names(&u.tree, &mut out);
                None
            }
            _ => None,
        };
        if let Some(ident) = ident {
            out.insert(ident.to_string());
        }
    }
    out
}

struct Shorten {
    defined: BTreeSet<String>,
    /// Indices into [`SHORT`] of the rewrites made.
    used: BTreeSet<usize>,
}

impl Shorten {
    fn walk(&mut self, tokens: TokenStream) -> TokenStream {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out = TokenStream::new();
        let mut i = 0;
        while i < trees.len() {
            // `mod name { .. }`: its own scope, copied as it is.
            if let (TokenTree::Ident(kw), Some(TokenTree::Ident(_)), Some(TokenTree::Group(g))) =
                (&trees[i], trees.get(i + 1), trees.get(i + 2))
                && kw == "mod"
                && g.delimiter() == Delimiter::Brace
            {
                out.extend(trees[i..i + 3].iter().cloned());
                i += 3;
                continue;
            }
            if let Some((consumed, short)) = self.short_at(&trees, i) {
                out.extend(short);
                i += consumed;
                continue;
            }
            match &trees[i] {
                TokenTree::Group(group) => {
                    let mut inner = Group::new(group.delimiter(), self.walk(group.stream()));
                    inner.set_span(group.span());
                    out.extend([TokenTree::Group(inner)]);
                }
                other => out.extend([other.clone()]),
            }
            i += 1;
        }
        out
    }

    /// A root path `::a::b::…` at `trees[i]` that [`SHORT`] shortens: the
    /// number of tokens it replaces and the short name.
    fn short_at(&mut self, trees: &[TokenTree], i: usize) -> Option<(usize, TokenStream)> {
        if !is_root(trees, i) {
            return None;
        }
        let mut segments = Vec::new();
        let mut j = i;
        while let (
            Some(TokenTree::Punct(a)),
            Some(TokenTree::Punct(b)),
            Some(TokenTree::Ident(s)),
        ) = (trees.get(j), trees.get(j + 1), trees.get(j + 2))
        {
            if a.as_char() != ':' || a.spacing() != Spacing::Joint || b.as_char() != ':' {
                break;
            }
            segments.push(s.to_string());
            j += 3;
        }
        let (index, (path, name, _)) = SHORT.iter().enumerate().find(|(_, (path, _, _))| {
            path.len() <= segments.len() && path.iter().zip(&segments).all(|(p, s)| p == s)
        })?;
        if self.defined.contains(*name) {
            return None;
        }
        self.used.insert(index);
        let ident = Ident::new(name, Span::call_site());
        Some((path.len() * 3, quote!(#ident)))
    }
}

/// Whether `trees[i]` starts a path root `::name` (not `Type::name`).
fn is_root(trees: &[TokenTree], i: usize) -> bool {
    let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) = (trees.get(i), trees.get(i + 1))
    else {
        return false;
    };
    if a.as_char() != ':' || a.spacing() != Spacing::Joint || b.as_char() != ':' {
        return false;
    }
    // `Type::name` continues a path; `impl ::serde`, `x: ::std` do not (a
    // path after `>` may be `<T as X>::name`, which no entry matches).
    match i.checked_sub(1).map(|p| &trees[p]) {
        Some(TokenTree::Ident(id)) => syn::parse_str::<Ident>(&id.to_string()).is_err(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]

    use super::*;

    #[test]
    fn a_name_the_module_defines_keeps_its_path() {
        let items = quote! {
            pub struct Value { pub a: ::serde_json::Value, pub b: ::serde_json::Map<::std::string::String, ::serde_json::Value> }
            pub struct Result(::core::option::Option<::core::result::Result<i64, ()>>);
            pub mod error { pub type E = ::std::string::String; }
        };
        let (uses, items) = shorten_paths(items, "::serde", "::my::json").unwrap();
        assert_eq!(
            uses.to_string(),
            quote!(
                use ::my::json::Map;
            )
            .to_string()
        );
        assert_eq!(
            items.to_string(),
            quote! {
                pub struct Value { pub a: ::serde_json::Value, pub b: Map<String, ::serde_json::Value> }
                pub struct Result(Option<::core::result::Result<i64, ()>>);
                pub mod error { pub type E = ::std::string::String; }
            }
            .to_string()
        );
    }

    #[test]
    fn docs_get_one_attribute_per_line() {
        let out = split_docs(quote! { #[doc = "a\n\n  b"] struct S; });
        assert_eq!(
            out.to_string(),
            quote! { #[doc = " a"] #[doc = ""] #[doc = "   b"] struct S; }.to_string()
        );
    }
}
