//! Emission of unions: an enum with one variant per member, dispatched on the
//! JSON kind and the members' discriminating keys (see the runtime's
//! `select`), never by trying each variant in turn.

use proc_macro2::TokenStream;
use quote::quote;

use super::ctx::{Ctx, const_tokens, doc_attr, ident, type_fallback_doc};
use crate::ir::{Shape, Tag, TypeDef, TypeRef, Union, Variant};
use crate::naming::field_name;

pub(super) fn emit(ctx: &Ctx<'_>, def: &TypeDef, u: &Union) -> TokenStream {
    let rt = &ctx.rt;
    let name = ident(&def.name);
    let type_name = &def.name;
    let doc = doc_attr(def.doc.as_deref(), || type_fallback_doc(&def.name));

    let variants = u.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let ty = ctx.ty(&v.ty);
        let vdoc = format!(" {}", variant_doc(v));
        quote! { #[doc = #vdoc] #vname(#ty), }
    });
    let names = u.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let s = &v.name;
        quote! { Self::#vname(_) => #s, }
    });
    let froms = u.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let ty = ctx.ty(&v.ty);
        quote! {
            impl ::core::convert::From<#ty> for #name {
                fn from(value: #ty) -> Self { Self::#vname(value) }
            }
        }
    });
    let serialize_arms = u.variants.iter().map(|v| {
        let vname = ident(&v.name);
        quote! { Self::#vname(value) => ::serde::Serialize::serialize(value, serializer), }
    });
    let write_arms = u.variants.iter().map(|v| {
        let vname = ident(&v.name);
        quote! { Self::#vname(value) => (&#rt::Probe(value)).emit(out), }
    });
    let walk_arms = u.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let vstr = &v.name;
        let inner = if ctx.may_contain_union(&v.ty) {
            quote! { #rt::Walk::walk(value, path, out); }
        } else {
            quote! { let _ = value; }
        };
        quote! {
            Self::#vname(value) => {
                out.push(#rt::UnionChoice { path: path.clone(), union: #type_name, variant: #vstr });
                #inner
            }
        }
    });
    let (from_json, deserialize) = if is_scalar_only(ctx, u) {
        let from_json = quote! {
            impl #name {
                /// Reads this union from a borrowed JSON value.
                pub fn from_json(value: &::serde_json::Value) -> ::core::result::Result<Self, ::serde_json::Error> {
                    <Self as ::serde::Deserialize>::deserialize(value)
                }
            }
        };
        (from_json, scalar_deserialize(ctx, type_name, u))
    } else {
        dispatch_deserialize(ctx, type_name, u)
    };
    let tag_accessor = tag_accessor(u);
    let derives = &ctx.derives;

    quote! {
        #doc
        // Messages are short-lived values; boxing variants would cost every
        // pattern match for no gain.
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone, Debug, PartialEq, Eq #(, #derives)*)]
        pub enum #name { #(#variants)* }

        impl #name {
            /// The name of the variant this value holds.
            pub fn variant_name(&self) -> &'static str {
                match self { #(#names)* }
            }
            #tag_accessor
        }

        #from_json

        #(#froms)*

        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                match self { #(#serialize_arms)* }
            }
        }

        // `(&Probe(..)).emit`: the borrow picks `WriteJson` before serde.
        #[allow(clippy::needless_borrow)]
        impl #rt::WriteJson for #name {
            fn write_json(&self, out: &mut ::std::vec::Vec<u8>) -> ::core::result::Result<(), ::serde_json::Error> {
                #[allow(unused_imports)]
                use #rt::{ViaSerde as _, ViaWriteJson as _};
                match self { #(#write_arms)* }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name { #deserialize }

        impl #rt::Walk for #name {
            fn walk(&self, path: &mut ::std::string::String, out: &mut ::std::vec::Vec<#rt::UnionChoice>) {
                match self { #(#walk_arms)* }
            }
        }
    }
}

fn variant_doc(v: &Variant) -> String {
    match &v.shape {
        Shape::Object { tags, .. } if !tags.is_empty() => {
            let tags: Vec<String> = tags
                .iter()
                .filter(|t| t.values.len() == 1)
                .map(|t| format!("`{}: {}`", t.key, t.values[0]))
                .collect();
            if tags.is_empty() {
                format!("A `{}`.", v.name)
            } else {
                format!("A `{}` ({}).", v.name, tags.join(", "))
            }
        }
        Shape::Object { .. } => format!("A `{}`.", v.name),
        Shape::Array => "A JSON array.".into(),
        Shape::String => "A JSON string.".into(),
        Shape::Integer => "A JSON integer.".into(),
        Shape::Number => "A JSON number.".into(),
        Shape::Boolean => "A JSON boolean.".into(),
    }
}

/// For unions whose every variant is an object with one fixed value of the
/// same key (`method`, `type`, `resultType`), an accessor for that value.
fn tag_accessor(u: &Union) -> TokenStream {
    let Some(first) = u.variants.first() else {
        return quote!();
    };
    let Shape::Object { tags, .. } = &first.shape else {
        return quote!();
    };
    for tag in tags {
        let mut arms = Vec::new();
        let mut values = Vec::new();
        for v in &u.variants {
            let Shape::Object { tags, .. } = &v.shape else {
                break;
            };
            let Some(value) = tags
                .iter()
                .find(|t| t.key == tag.key && t.values.len() == 1)
                .and_then(|t| t.values[0].as_str())
            else {
                break;
            };
            let vname = ident(&v.name);
            arms.push(quote! { Self::#vname(_) => #value, });
            values.push(value);
        }
        // A key with one value everywhere (`jsonrpc`) discriminates nothing.
        values.sort_unstable();
        values.dedup();
        if arms.len() == u.variants.len() && (values.len() > 1 || arms.len() == 1) {
            let accessor = ident(&field_name(&tag.key));
            let doc = format!(" The `{}` of this value.", tag.key);
            return quote! {
                #[doc = #doc]
                pub fn #accessor(&self) -> &'static str {
                    match self { #(#arms)* }
                }
            };
        }
    }
    quote!()
}

/// Unions of primitives only (request ids, progress tokens) deserialize
/// through one visitor, without buffering.
fn is_scalar_only(ctx: &Ctx<'_>, u: &Union) -> bool {
    u.variants.iter().all(|v| {
        matches!(
            ctx.ir.resolve(&v.ty),
            TypeRef::String | TypeRef::Integer | TypeRef::Number | TypeRef::Boolean
        )
    })
}

fn scalar_deserialize(ctx: &Ctx<'_>, type_name: &str, u: &Union) -> TokenStream {
    let name = ident(type_name);
    let mut methods = Vec::new();
    let mut kinds = Vec::new();
    let has_integer = u
        .variants
        .iter()
        .any(|v| matches!(ctx.ir.resolve(&v.ty), TypeRef::Integer));
    for v in &u.variants {
        let vname = ident(&v.name);
        match ctx.ir.resolve(&v.ty) {
            TypeRef::String => {
                kinds.push("a string");
                methods.push(quote! {
                    fn visit_str<E: ::serde::de::Error>(self, v: &str) -> ::core::result::Result<#name, E> {
                        ::core::result::Result::Ok(#name::#vname(v.to_owned()))
                    }
                    fn visit_string<E: ::serde::de::Error>(self, v: ::std::string::String) -> ::core::result::Result<#name, E> {
                        ::core::result::Result::Ok(#name::#vname(v))
                    }
                });
            }
            TypeRef::Integer => {
                kinds.push("an integer");
                methods.push(quote! {
                    fn visit_i64<E: ::serde::de::Error>(self, v: i64) -> ::core::result::Result<#name, E> {
                        ::core::result::Result::Ok(#name::#vname(v))
                    }
                    fn visit_u64<E: ::serde::de::Error>(self, v: u64) -> ::core::result::Result<#name, E> {
                        match i64::try_from(v) {
                            ::core::result::Result::Ok(v) => ::core::result::Result::Ok(#name::#vname(v)),
                            ::core::result::Result::Err(_) => ::core::result::Result::Err(
                                E::invalid_value(::serde::de::Unexpected::Unsigned(v), &self)),
                        }
                    }
                });
            }
            TypeRef::Number => {
                kinds.push("a number");
                let ints = if has_integer {
                    quote!()
                } else {
                    quote! {
                        fn visit_i64<E: ::serde::de::Error>(self, v: i64) -> ::core::result::Result<#name, E> {
                            ::core::result::Result::Ok(#name::#vname(v.into()))
                        }
                        fn visit_u64<E: ::serde::de::Error>(self, v: u64) -> ::core::result::Result<#name, E> {
                            ::core::result::Result::Ok(#name::#vname(v.into()))
                        }
                    }
                };
                methods.push(quote! {
                    #ints
                    fn visit_f64<E: ::serde::de::Error>(self, v: f64) -> ::core::result::Result<#name, E> {
                        ::serde_json::Number::from_f64(v)
                            .map(#name::#vname)
                            .ok_or_else(|| E::invalid_value(::serde::de::Unexpected::Float(v), &self))
                    }
                });
            }
            _ => {
                kinds.push("a boolean");
                methods.push(quote! {
                    fn visit_bool<E: ::serde::de::Error>(self, v: bool) -> ::core::result::Result<#name, E> {
                        ::core::result::Result::Ok(#name::#vname(v))
                    }
                });
            }
        }
    }
    let expecting = format!("{} ({type_name})", kinds.join(" or "));
    quote! {
        fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
            struct KindVisitor;
            impl<'de> ::serde::de::Visitor<'de> for KindVisitor {
                type Value = #name;
                fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str(#expecting)
                }
                #(#methods)*
            }
            deserializer.deserialize_any(KindVisitor)
        }
    }
}

fn tag_shapes(rt: &TokenStream, tags: &[Tag]) -> Vec<TokenStream> {
    tags.iter()
        .map(|t| {
            let key = &t.key;
            let values = t.values.iter().map(|value| const_tokens(rt, value));
            let required = t.required;
            quote! { #rt::TagShape { key: #key, values: &[#(#values),*], required: #required } }
        })
        .collect()
}

/// The union's `from_json` (in an inherent impl) and its `deserialize`,
/// which buffers the input once and calls `from_json`.
fn dispatch_deserialize(ctx: &Ctx<'_>, type_name: &str, u: &Union) -> (TokenStream, TokenStream) {
    let rt = &ctx.rt;
    let shapes = u.variants.iter().map(|v| {
        let vname = &v.name;
        let kind = match &v.shape {
            Shape::Object {
                tags,
                required,
                known,
                nested,
            } => {
                let tags = tag_shapes(rt, tags);
                let nested = nested.iter().map(|n| {
                    let key = &n.key;
                    let tags = tag_shapes(rt, &n.tags);
                    let required = &n.required;
                    quote! { #rt::NestedShape { key: #key, tags: &[#(#tags),*], required: &[#(#required),*] } }
                });
                quote! {
                    #rt::ShapeKind::Object {
                        tags: &[#(#tags),*],
                        required: &[#(#required),*],
                        known: &[#(#known),*],
                        nested: &[#(#nested),*],
                    }
                }
            }
            Shape::Array => quote!(#rt::ShapeKind::Array),
            Shape::String => quote!(#rt::ShapeKind::String),
            Shape::Integer => quote!(#rt::ShapeKind::Integer),
            Shape::Number => quote!(#rt::ShapeKind::Number),
            Shape::Boolean => quote!(#rt::ShapeKind::Boolean),
        };
        quote! { #rt::VariantShape { name: #vname, kind: #kind } }
    });
    let arms = u.variants.iter().enumerate().map(|(index, v)| {
        let vname = ident(&v.name);
        let label = format!("{type_name}::{}", v.name);
        quote! { #index => #rt::from_value_ref(value, #label).map(Self::#vname), }
    });
    let name = ident(type_name);
    let inherent = quote! {
        impl #name {
            const SHAPE: #rt::UnionShape = #rt::UnionShape {
                name: #type_name,
                variants: &[#(#shapes),*],
            };

            /// Reads this union from a borrowed JSON value: the variant is
            /// chosen from the value's kind and keys, then read in place.
            pub fn from_json(value: &::serde_json::Value) -> ::core::result::Result<Self, ::serde_json::Error> {
                let index = #rt::select(value, &Self::SHAPE)
                    .map_err(<::serde_json::Error as ::serde::de::Error>::custom)?;
                match index {
                    #(#arms)*
                    _ => ::core::result::Result::Err(::std::string::String::from("variant index out of range")),
                }
                .map_err(<::serde_json::Error as ::serde::de::Error>::custom)
            }
        }
    };
    let deserialize = quote! {
        fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
            let value = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
            Self::from_json(&value).map_err(<D::Error as ::serde::de::Error>::custom)
        }
    };
    (inherent, deserialize)
}
