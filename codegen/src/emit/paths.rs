//! The serde and serde_json paths of [`EmitOptions`](super::EmitOptions):
//! one pass over the finished tokens, so every emitter (typify's enums
//! included) writes plain `::serde` / `::serde_json` and none has to know.

use proc_macro2::{Delimiter, Group, Spacing, TokenStream, TokenTree};
use quote::quote;

use crate::error::{Error, Result};

const SERDE: &str = "::serde";
const SERDE_JSON: &str = "::serde_json";

/// Replaces the crate roots `::serde` and `::serde_json` with `serde` and
/// `serde_json`, and gives every serde derive a `#[serde(crate = ...)]`
/// so its expansion uses the same path. The default paths leave the tokens
/// untouched.
pub(super) fn rewrite(tokens: TokenStream, serde: &str, serde_json: &str) -> Result<TokenStream> {
    if serde == SERDE && serde_json == SERDE_JSON {
        return Ok(tokens);
    }
    let parse = |path: &str| -> Result<TokenStream> {
        syn::parse_str::<syn::Path>(path)
            .map(|p| quote!(#p))
            .map_err(|e| Error::new(format!("crate path {path:?}: {e}")))
    };
    let paths = Paths {
        serde: parse(serde)?,
        serde_json: parse(serde_json)?,
        serde_literal: serde.to_owned(),
    };
    Ok(paths.walk(tokens))
}

struct Paths {
    serde: TokenStream,
    serde_json: TokenStream,
    serde_literal: String,
}

impl Paths {
    fn walk(&self, tokens: TokenStream) -> TokenStream {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out = TokenStream::new();
        let mut i = 0;
        while i < trees.len() {
            // A path root `::name`: `::` not following a path segment.
            if let Some(replacement) = self.root_at(&trees, i) {
                out.extend(replacement.clone());
                i += 3;
                continue;
            }
            match &trees[i] {
                TokenTree::Group(group) => {
                    let mut inner = Group::new(group.delimiter(), self.walk(group.stream()));
                    inner.set_span(group.span());
                    out.extend([TokenTree::Group(inner)]);
                    if self.is_serde_derive(&trees, i) {
                        let krate = &self.serde_literal;
                        out.extend(quote!(#[serde(crate = #krate)]));
                    }
                }
                other => out.extend([other.clone()]),
            }
            i += 1;
        }
        out
    }

    fn root_at(&self, trees: &[TokenTree], i: usize) -> Option<&TokenStream> {
        let (TokenTree::Punct(a), TokenTree::Punct(b), TokenTree::Ident(name)) =
            (trees.get(i)?, trees.get(i + 1)?, trees.get(i + 2)?)
        else {
            return None;
        };
        if a.as_char() != ':' || a.spacing() != Spacing::Joint || b.as_char() != ':' {
            return None;
        }
        let follows_segment = match i.checked_sub(1).map(|p| &trees[p]) {
            // `Type::serde` continues a path; `impl ::serde` (a keyword) does not.
            Some(TokenTree::Ident(id)) => {
                syn::parse_str::<proc_macro2::Ident>(&id.to_string()).is_ok()
            }
            // `impl<'de> ::serde`, `=> ::serde`: a new path (`<T as X>::serde`
            // would be misread, but no emitter writes it).
            _ => false,
        };
        if follows_segment {
            return None;
        }
        match name.to_string().as_str() {
            "serde" => Some(&self.serde),
            "serde_json" => Some(&self.serde_json),
            _ => None,
        }
    }

    /// Whether `trees[i]` is the bracket group of `#[derive(...)]` naming
    /// `Serialize` or `Deserialize`.
    fn is_serde_derive(&self, trees: &[TokenTree], i: usize) -> bool {
        let TokenTree::Group(group) = &trees[i] else {
            return false;
        };
        let after_hash =
            i > 0 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '#');
        if group.delimiter() != Delimiter::Bracket || !after_hash {
            return false;
        }
        let mut inner = group.stream().into_iter();
        let is_derive = matches!(inner.next(), Some(TokenTree::Ident(id)) if id == "derive");
        let Some(TokenTree::Group(list)) = inner.next() else {
            return false;
        };
        is_derive
            && list.stream().into_iter().any(
                |t| matches!(&t, TokenTree::Ident(id) if id == "Serialize" || id == "Deserialize"),
            )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]

    use super::*;

    fn rewritten(tokens: TokenStream) -> String {
        rewrite(tokens, "::my::serde", "my::json")
            .unwrap()
            .to_string()
    }

    #[test]
    fn roots_are_replaced_segments_are_not() {
        let out = rewritten(quote! {
            impl ::serde::Serialize for X {}
            fn g<S: ::serde::Serializer>() { match x { _ => ::serde::f() } }
            impl<'de> ::serde::Deserialize<'de> for X {}
            fn f(v: &::serde_json::Value) -> __rt::serde::Y {}
            type T = Vec<::serde_json::Value>;
        });
        assert_eq!(
            out,
            quote! {
                impl ::my::serde::Serialize for X {}
                fn g<S: ::my::serde::Serializer>() { match x { _ => ::my::serde::f() } }
                impl<'de> ::my::serde::Deserialize<'de> for X {}
                fn f(v: &my::json::Value) -> __rt::serde::Y {}
                type T = Vec<my::json::Value>;
            }
            .to_string()
        );
    }

    #[test]
    fn serde_derives_get_the_crate_attribute() {
        let out = rewritten(quote! {
            #[derive(Clone, ::serde::Deserialize)]
            #[serde(rename_all = "camelCase")]
            pub enum Role { User }
            #[derive(Clone)]
            pub struct Plain;
        });
        assert_eq!(
            out,
            quote! {
                #[derive(Clone, ::my::serde::Deserialize)]
                #[serde(crate = "::my::serde")]
                #[serde(rename_all = "camelCase")]
                pub enum Role { User }
                #[derive(Clone)]
                pub struct Plain;
            }
            .to_string()
        );
    }

    #[test]
    fn default_paths_change_nothing() {
        let tokens = quote!(impl ::serde::Serialize for X {});
        let out = rewrite(tokens.clone(), SERDE, SERDE_JSON).unwrap();
        assert_eq!(out.to_string(), tokens.to_string());
    }
}
