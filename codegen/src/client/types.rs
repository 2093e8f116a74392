//! One schema (a tool's `inputSchema` or `outputSchema`) through typify,
//! isolated in its own `TypeSpace` (so two tools' `$defs` never clash) and
//! behind `catch_unwind` (silently: see `quiet`): any failure falls back to
//! a `serde_json` type.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use super::quiet::catch_silently;
use super::schema::sanitise;
use crate::emit::tidy::split_docs;

/// The tokens of one schema's types.
pub struct Types {
    /// Items defining `name` (and whatever typify needs beside it).
    pub tokens: TokenStream,
    /// (JSON pointer below the schema, message) for each fallback.
    pub warnings: Vec<(String, String)>,
}

/// Types for `schema` with the root named `name`. `fallback` is the type
/// `name` aliases when typify cannot be used at all.
pub fn generate(schema: &Value, name: &str, fallback: TokenStream) -> Types {
    let sanitised = sanitise(schema);
    let mut warnings = sanitised.replaced;
    let ident = format_ident!("{name}");
    let alias = |why: String, warnings: &mut Vec<(String, String)>| {
        warnings.push((String::new(), why));
        quote! {
            #[doc = " Any JSON value: the schema could not be typed (see the warnings in the header)."]
            pub type #ident = #fallback;
        }
    };
    if sanitised.root_replaced {
        let tokens = alias("the whole schema is any value".into(), &mut warnings);
        return Types { tokens, warnings };
    }
    let mut root = sanitised.schema;
    if let Value::Object(map) = &mut root {
        // typify names the root type after its title.
        map.insert("title".into(), Value::String(name.to_owned()));
    }
    let root: schemars::schema::RootSchema = match serde_json::from_value(root) {
        Ok(root) => root,
        Err(e) => {
            let tokens = alias(
                format!("not a JSON schema typify reads: {e}"),
                &mut warnings,
            );
            return Types { tokens, warnings };
        }
    };
    let outcome = catch_silently(move || {
        let mut settings = typify::TypeSpaceSettings::default();
        settings.with_struct_builder(false);
        let mut space = typify::TypeSpace::new(&settings);
        match space.add_root_schema(root) {
            Ok(Some(_)) => Ok(space.to_stream()),
            Ok(None) => Err("typify made no root type".to_owned()),
            Err(e) => Err(format!("typify: {e}")),
        }
    });
    let tokens = match outcome {
        Ok(Ok(tokens)) if syn::parse2::<syn::File>(tokens.clone()).is_ok() => split_docs(tokens),
        Ok(Ok(_)) => alias("typify's output does not parse".into(), &mut warnings),
        Ok(Err(e)) => alias(e, &mut warnings),
        Err(_) => alias("typify panicked on this schema".into(), &mut warnings),
    };
    Types { tokens, warnings }
}

/// One `#[doc = " line"]`.
pub fn doc_attr(line: &str) -> TokenStream {
    quote!(#[doc = #line])
}
