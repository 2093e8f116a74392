//! Emission of object types: the struct, its constructor and constants, and
//! hand-rolled serde impls that check consts, keep presence and keep unknown
//! keys without buffering the input.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Ctx, const_tokens, doc_attr, ident, type_fallback_doc};
use crate::ir::{Extra, Field, FieldKind, Struct, TypeDef, TypeRef};
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
    let serialize = serialize(ctx, type_name, s);
    let deserialize = deserialize(ctx, type_name, s);
    let walk = walk(ctx, s);

    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, Eq, #default_derive)]
        pub struct #name { #(#decls)* }

        impl #name {
            #(#consts)*
            #constructor
        }

        impl ::serde::Serialize for #name { #serialize }
        impl<'de> ::serde::Deserialize<'de> for #name { #deserialize }
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

fn known_keys(s: &Struct) -> Vec<&str> {
    s.fields.iter().map(|f| f.json_name.as_str()).collect()
}

fn serialize(ctx: &Ctx<'_>, type_name: &str, s: &Struct) -> TokenStream {
    let rt = &ctx.rt;
    let entries = s.fields.iter().map(|field| {
        let key = &field.json_name;
        let rust = ident(&field.rust_name);
        match &field.kind {
            FieldKind::Value(_) if field.required => {
                quote! { map.serialize_entry(#key, &self.#rust)?; }
            }
            FieldKind::Value(_) => quote! {
                if let ::core::option::Option::Some(value) = &self.#rust {
                    map.serialize_entry(#key, value)?;
                }
            },
            FieldKind::Const { value, .. } => {
                let value = const_tokens(rt, value);
                if field.required {
                    quote! { map.serialize_entry(#key, &#value)?; }
                } else {
                    quote! { if self.#rust { map.serialize_entry(#key, &#value)?; } }
                }
            }
        }
    });
    let known = known_keys(s);
    let extra = match s.extra {
        Extra::Open(_) => quote! {
            #rt::serialize_extra(&mut map, &self.extra, #type_name, &[#(#known),*])?;
        },
        Extra::Closed => quote!(),
    };
    quote! {
        fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
            use ::serde::ser::SerializeMap as _;
            let mut map = serializer.serialize_map(::core::option::Option::None)?;
            #(#entries)*
            #extra
            map.end()
        }
    }
}

fn slot(field: &Field) -> proc_macro2::Ident {
    format_ident!("field_{}", field.rust_name)
}

fn deserialize(ctx: &Ctx<'_>, type_name: &str, s: &Struct) -> TokenStream {
    let rt = &ctx.rt;
    let mut slots = Vec::new();
    let mut arms = Vec::new();
    let mut checks = Vec::new();
    let mut inits = Vec::new();
    for field in &s.fields {
        let key = &field.json_name;
        let slot = slot(field);
        let rust = ident(&field.rust_name);
        match &field.kind {
            FieldKind::Value(ty) => {
                let ty = ctx.ty(ty);
                slots.push(quote! { let mut #slot: ::core::option::Option<#ty> = ::core::option::Option::None; });
                arms.push(quote! { #key => #rt::next_field(&mut map, &mut #slot, #key)?, });
                inits.push(if field.required {
                    quote! { #rust: #rt::required(#slot, #key)? }
                } else {
                    quote! { #rust: #slot }
                });
            }
            FieldKind::Const {
                value,
                absent_allowed,
            } => {
                let value = const_tokens(rt, value);
                slots.push(quote! { let mut #slot = false; });
                arms.push(quote! { #key => #rt::next_const(&mut map, &mut #slot, #key, #value)?, });
                if field.required {
                    if !absent_allowed {
                        checks.push(quote! { #rt::required_const(#slot, false, #key)?; });
                    }
                } else {
                    inits.push(quote! { #rust: #slot });
                }
            }
        }
    }
    let known = known_keys(s);
    let (extra_slot, fallback) = match &s.extra {
        Extra::Open(_) => {
            inits.push(quote!(extra));
            (
                quote! { let mut extra = ::core::default::Default::default(); },
                quote! { _ => #rt::next_extra(&mut map, &mut extra, key)?, },
            )
        }
        Extra::Closed => (
            quote!(),
            quote! { _ => return ::core::result::Result::Err(#rt::unknown_key(key, &[#(#known),*])), },
        ),
    };
    let expecting = format!("a {type_name} object");
    let name = ident(type_name);
    quote! {
        fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
            struct FieldsVisitor;
            impl<'de> ::serde::de::Visitor<'de> for FieldsVisitor {
                type Value = #name;
                fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str(#expecting)
                }
                fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::core::result::Result<#name, A::Error> {
                    #(#slots)*
                    #extra_slot
                    while let ::core::option::Option::Some(key) = map.next_key::<#rt::Key<'de>>()? {
                        match key.as_str() {
                            #(#arms)*
                            #fallback
                        }
                    }
                    #(#checks)*
                    ::core::result::Result::Ok(#name { #(#inits),* })
                }
            }
            deserializer.deserialize_map(FieldsVisitor)
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
