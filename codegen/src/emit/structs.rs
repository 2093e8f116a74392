//! Emission of object types: the struct, its constructor and constants, and
//! its serde impls as a table for the runtime's `struct_serde!` (consts
//! checked, presence kept, unknown keys kept, no buffering of the input).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Ctx, const_tokens, doc_attr, ident, type_fallback_doc};
use crate::ir::{Extra, FieldKind, Struct, TypeDef, TypeRef};
use crate::naming::shouty;

pub(super) fn emit(ctx: &Ctx<'_>, def: &TypeDef, s: &Struct) -> TokenStream {
    let rt = &ctx.rt;
    let name = ident(&def.name);
    let type_name = &def.name;
    let doc = doc_attr(def.doc.as_deref(), || type_fallback_doc(&def.name));

    // Stored fields: values, and optional consts as presence flags.
    let mut decls = Vec::new();
    for field in &s.fields {
        let rust = ident(&field.rust_name);
        let fdoc = doc_attr(field.doc.as_deref(), || {
            format!("The `{}` property.", field.json_name)
        });
        match &field.kind {
            FieldKind::Value(ty) => {
                let ty = ctx.ty(ty);
                let ty = if field.required {
                    ty
                } else {
                    quote!(::core::option::Option<#ty>)
                };
                decls.push(quote! { #fdoc pub #rust: #ty, });
            }
            FieldKind::Const { value, .. } if !field.required => {
                let note = format!(
                    " Whether the optional constant `\"{}\": {value}` is present.",
                    field.json_name
                );
                decls.push(quote! { #[doc = #note] pub #rust: bool, });
            }
            FieldKind::Const { .. } => {}
        }
    }
    let extra_ty = match &s.extra {
        Extra::Open(ty) => Some(ctx.ty(&TypeRef::Map(Box::new(ty.clone())))),
        Extra::Closed => None,
    };
    if let Some(extra_ty) = &extra_ty {
        decls.push(quote! {
            /// Keys the schema does not name, kept so that nothing is lost on a round-trip.
            pub extra: #extra_ty,
        });
    }

    let needs_args = s
        .fields
        .iter()
        .any(|f| f.required && matches!(f.kind, FieldKind::Value(_)));
    let default_derive = if needs_args {
        quote!()
    } else {
        quote!(Default,)
    };

    let consts = s.fields.iter().filter_map(|f| match &f.kind {
        FieldKind::Const { value, .. } => {
            let cname = format_ident!("{}", shouty(&f.json_name));
            let cdoc = format!(" The constant value of `{}`.", f.json_name);
            Some(match value {
                serde_json::Value::String(v) => {
                    quote! { #[doc = #cdoc] pub const #cname: &'static str = #v; }
                }
                other => {
                    let v = other.as_i64().unwrap_or_default();
                    quote! { #[doc = #cdoc] pub const #cname: i64 = #v; }
                }
            })
        }
        FieldKind::Value(_) => None,
    });

    let constructor = constructor(ctx, s);
    let serde_impls = serde_impls(ctx, type_name, s);
    let walk = walk(ctx, s);

    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, Eq, #default_derive)]
        pub struct #name { #(#decls)* }

        impl #name {
            #(#consts)*
            #constructor
        }

        #serde_impls
        impl #rt::Walk for #name {
            fn walk(&self, path: &mut ::std::string::String, out: &mut ::std::vec::Vec<#rt::UnionChoice>) {
                let _ = (&path, &out);
                #walk
            }
        }
    }
}

fn constructor(ctx: &Ctx<'_>, s: &Struct) -> TokenStream {
    let mut params = Vec::new();
    let mut inits = Vec::new();
    for field in &s.fields {
        let rust = ident(&field.rust_name);
        match &field.kind {
            FieldKind::Value(ty) if field.required => {
                let ty = ctx.ty(ty);
                params.push(quote!(#rust: #ty));
                inits.push(quote!(#rust));
            }
            FieldKind::Value(_) => inits.push(quote!(#rust: ::core::option::Option::None)),
            FieldKind::Const { .. } if !field.required => inits.push(quote!(#rust: false)),
            FieldKind::Const { .. } => {}
        }
    }
    if matches!(s.extra, Extra::Open(_)) {
        inits.push(quote!(extra: ::core::default::Default::default()));
    }
    quote! {
        /// A value with the required properties given, every optional one
        /// absent and no extra keys.
        #[allow(clippy::too_many_arguments)]
        pub fn new(#(#params),*) -> Self {
            Self { #(#inits),* }
        }
    }
}

/// The serde impls: one invocation of the runtime's `struct_serde!`, a
/// table of the consts and properties (see `mcp-types/src/struct_macro.rs`).
fn serde_impls(ctx: &Ctx<'_>, type_name: &str, s: &Struct) -> TokenStream {
    let rt = &ctx.rt;
    let name = ident(type_name);
    let mut consts = Vec::new();
    let mut fields = Vec::new();
    for field in &s.fields {
        let key = &field.json_name;
        let rust = ident(&field.rust_name);
        match &field.kind {
            FieldKind::Const {
                value,
                absent_allowed,
            } if field.required => {
                let seen = format_ident!("seen_{}", field.rust_name);
                let value = const_tokens(rt, value);
                consts.push(quote! { #seen = #key => #value, absent_ok = #absent_allowed; });
            }
            FieldKind::Const { value, .. } => {
                let value = const_tokens(rt, value);
                fields.push(quote! { #rust: bool = #key, flag(#value); });
            }
            FieldKind::Value(ty) => {
                let ty = ctx.ty(ty);
                let kind = if field.required {
                    quote!(required)
                } else {
                    quote!(optional)
                };
                fields.push(quote! { #rust: #ty = #key, #kind; });
            }
        }
    }
    let extra = match s.extra {
        Extra::Open(_) => quote!(open),
        Extra::Closed => quote!(closed),
    };
    quote! {
        #rt::struct_serde! {
            #name, #type_name,
            consts { #(#consts)* }
            fields { #(#fields)* }
            extra #extra
        }
    }
}

fn walk(ctx: &Ctx<'_>, s: &Struct) -> TokenStream {
    let rt = &ctx.rt;
    let mut steps = Vec::new();
    for field in &s.fields {
        if let FieldKind::Value(ty) = &field.kind
            && ctx.may_contain_union(ty)
        {
            let rust = ident(&field.rust_name);
            let key = &field.json_name;
            steps.push(quote! { #rt::walk_member(&self.#rust, path, #key, out); });
        }
    }
    if let Extra::Open(ty) = &s.extra
        && ctx.may_contain_union(ty)
    {
        steps.push(quote! { #rt::Walk::walk(&self.extra, path, out); });
    }
    quote! { #(#steps)* }
}
