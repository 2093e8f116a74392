//! Emission of string enums through typify: the one shape of the schema that
//! typify renders exactly (closed set of strings, serde renames, `Display`,
//! `FromStr`). Structs and unions are ours: typify would drop unknown keys,
//! drop empty objects that were present, turn `50` into `50.0` and try
//! untagged variants in turn.

use proc_macro2::TokenStream;
use quote::quote;

use serde_json::Value;

use super::ctx::{Ctx, ident, sanitize_doc};
use crate::error::{Error, Result};
use crate::ir::Kind;

pub(super) fn emit(ctx: &Ctx<'_>, derives: &[String]) -> Result<TokenStream> {
    let rt = &ctx.rt;
    let mut schemas = Vec::new();
    for def in ctx.ir.types.values().filter(|d| ctx.is_own(&d.name)) {
        if let Kind::StringEnum(schema) = &def.kind {
            // typify writes the description as the doc; it gets our clean-up.
            let mut schema = schema.clone();
            if let Some(Value::String(doc)) = schema.get_mut("description") {
                *doc = sanitize_doc(doc).trim_end().to_owned();
            }
            let schema: schemars::schema::Schema = serde_json::from_value(schema)
                .map_err(|e| Error::new(format!("{}: {e}", def.name)))?;
            schemas.push((def.name.clone(), schema));
        }
    }
    if schemas.is_empty() {
        return Ok(TokenStream::new());
    }
    let mut settings = typify::TypeSpaceSettings::default();
    settings.with_struct_builder(false);
    for derive in derives {
        settings.with_derive(derive.clone());
    }
    let mut space = typify::TypeSpace::new(&settings);
    space
        .add_ref_types(
            schemas
                .iter()
                .map(|(name, schema)| (name.as_str(), schema.clone())),
        )
        .map_err(|e| Error::new(format!("typify: {e}")))?;
    let enums = space.to_stream();
    let walks = schemas.iter().map(|(name, _)| {
        let name = ident(name);
        quote! {
            impl #rt::Walk for #name {
                fn walk(&self, _: &mut ::std::string::String, _: &mut ::std::vec::Vec<#rt::UnionChoice>) {}
            }
            impl #rt::WriteJson for #name {
                fn write_json(&self, out: &mut ::std::vec::Vec<u8>) -> ::core::result::Result<(), ::serde_json::Error> {
                    #rt::write_serde(out, self)
                }
            }
        }
    });
    Ok(quote! { #enums #(#walks)* })
}
