//! Emission of the tables derived from the schema: method names, error codes,
//! `_meta` keys, the named-type lookup, and the known protocol versions.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use super::ctx::{Ctx, format_file, ident};
use crate::error::{Error, Result};
use crate::ir::{FieldKind, Kind, Struct, TypeRef};
use crate::manifest::{Era, Manifest};
use crate::naming::shouty;

/// What a module's lookup names as its origin.
#[derive(Clone, Copy)]
pub(super) enum Label<'a> {
    /// A protocol revision: `VERSION`.
    Version(&'a str),
    /// An extension: `EXTENSION` and the `CORE_VERSION` it builds on.
    Extension {
        identifier: &'a str,
        core_version: &'a str,
    },
}

pub(super) fn emit(
    ctx: &Ctx<'_>,
    label: Label<'_>,
    named_feature: Option<&str>,
) -> Result<TokenStream> {
    Ok(tables(ctx, label, named_feature)?.all())
}

/// A module's tables, apart, so that a delta module can generate or
/// re-export each (see `delta`).
pub(super) struct Tables {
    pub methods: TokenStream,
    pub error_codes: TokenStream,
    pub meta_keys: TokenStream,
    /// `VERSION`, or `EXTENSION` and `CORE_VERSION`.
    pub label: TokenStream,
    pub type_names: TokenStream,
    pub with_named_type: TokenStream,
    /// `roundtrip_named` and `union_choices_named`: their errors name the label.
    pub named_fns: TokenStream,
}

impl Tables {
    pub fn all(self) -> TokenStream {
        let Tables {
            methods,
            error_codes,
            meta_keys,
            label,
            type_names,
            with_named_type,
            named_fns,
        } = self;
        quote! { #methods #error_codes #meta_keys #label #type_names #with_named_type #named_fns }
    }
}

pub(super) fn tables(
    ctx: &Ctx<'_>,
    label: Label<'_>,
    named_feature: Option<&str>,
) -> Result<Tables> {
    let (label, type_names, with_named_type, named_fns) = lookup(ctx, label, named_feature);
    Ok(Tables {
        methods: methods(ctx)?,
        error_codes: error_codes(ctx)?,
        meta_keys: meta_keys(ctx)?,
        label,
        type_names,
        with_named_type,
        named_fns,
    })
}

fn structs<'a>(ctx: &'a Ctx<'_>) -> impl Iterator<Item = (&'a str, bool, &'a Struct)> {
    ctx.ir.types.values().filter_map(|t| match &t.kind {
        Kind::Struct(s) if ctx.is_own(&t.name) => Some((t.name.as_str(), t.hoisted, s)),
        _ => None,
    })
}

fn const_of<'a>(s: &'a Struct, key: &str) -> Option<&'a Value> {
    s.fields.iter().find_map(|f| match &f.kind {
        FieldKind::Const { value, .. } if f.json_name == key => Some(value),
        _ => None,
    })
}

/// Inserts `name → value`, refusing one name for two values.
fn insert_unique(
    table: &mut BTreeMap<String, (Value, Vec<String>)>,
    name: String,
    value: &Value,
    source: &str,
) -> Result<()> {
    let entry = table
        .entry(name.clone())
        .or_insert_with(|| (value.clone(), Vec::new()));
    if &entry.0 != value {
        return Err(Error::new(format!(
            "constant {name} would stand for both {} and {value}",
            entry.0
        )));
    }
    entry.1.push(source.to_owned());
    Ok(())
}

fn methods(ctx: &Ctx<'_>) -> Result<TokenStream> {
    let mut table = BTreeMap::new();
    for (name, _, s) in structs(ctx) {
        if let Some(value @ Value::String(method)) = const_of(s, "method") {
            insert_unique(&mut table, shouty(method), value, name)?;
        }
    }
    let items = table.iter().map(|(cname, (value, sources))| {
        let cname = format_ident!("{cname}");
        let value = value.as_str().unwrap_or_default();
        let doc = format!(" `{value}`, the method of {}.", code_list(sources));
        quote! { #[doc = #doc] pub const #cname: &str = #value; }
    });
    Ok(quote! {
        /// Every method name of this revision.
        pub mod methods { #(#items)* }
    })
}

fn error_codes(ctx: &Ctx<'_>) -> Result<TokenStream> {
    let mut table = BTreeMap::new();
    for (name, hoisted, s) in structs(ctx) {
        if hoisted {
            continue;
        }
        // Either the error object itself, or a response whose `error` is one.
        let code = const_of(s, "code").or_else(|| {
            s.fields.iter().find_map(|f| match &f.kind {
                FieldKind::Value(TypeRef::Named(target)) if f.json_name == "error" => {
                    match ctx.ir.types.get(target).map(|t| &t.kind) {
                        Some(Kind::Struct(inner)) => const_of(inner, "code"),
                        _ => None,
                    }
                }
                _ => None,
            })
        });
        if let Some(code) = code {
            insert_unique(&mut table, shouty(name), code, name)?;
        }
    }
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(_, (value, _))| std::cmp::Reverse(value.as_i64()));
    let items = entries.iter().map(|(cname, (value, sources))| {
        let cname = format_ident!("{cname}");
        let value = value.as_i64().unwrap_or_default();
        let doc = format!(" `{value}`: {}.", code_list(sources));
        quote! { #[doc = #doc] pub const #cname: i64 = #value; }
    });
    Ok(quote! {
        /// Every JSON-RPC error code the schema fixes, by error type.
        pub mod error_codes { #(#items)* }
    })
}

fn meta_keys(ctx: &Ctx<'_>) -> Result<TokenStream> {
    let mut table = BTreeMap::new();
    for (name, _, s) in structs(ctx) {
        let is_meta = name.ends_with("MetaObject") || name.ends_with("Meta");
        for field in &s.fields {
            if is_meta || field.json_name.contains('/') {
                let value = Value::String(field.json_name.clone());
                insert_unique(&mut table, shouty(&field.rust_name), &value, name)?;
            }
        }
    }
    let items = table.iter().map(|(cname, (value, sources))| {
        let cname = format_ident!("{cname}");
        let value = value.as_str().unwrap_or_default();
        let doc = format!(" `{value}`, a `_meta` key of {}.", code_list(sources));
        quote! { #[doc = #doc] pub const #cname: &str = #value; }
    });
    Ok(quote! {
        /// Every `_meta` key the schema names.
        pub mod meta_keys { #(#items)* }
    })
}

fn code_list(names: &[String]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    names.join(", ")
}

/// The label constants, `TYPE_NAMES`, `with_named_type` and the two
/// functions built on it.
fn lookup(
    ctx: &Ctx<'_>,
    label: Label<'_>,
    named_feature: Option<&str>,
) -> (TokenStream, TokenStream, TokenStream, TokenStream) {
    let rt = &ctx.rt;
    let gate = match named_feature {
        Some(feature) => quote!(#[cfg(feature = #feature)]),
        None => quote!(),
    };
    let (origin, constants) = match label {
        Label::Version(version) => (
            quote!(VERSION),
            quote! {
                /// The protocol version of this module.
                pub const VERSION: &str = #version;
            },
        ),
        Label::Extension {
            identifier,
            core_version,
        } => (
            quote!(EXTENSION),
            quote! {
                /// The identifier of this module's extension.
                pub const EXTENSION: &str = #identifier;
                /// The protocol version whose core types this module uses.
                pub const CORE_VERSION: &str = #core_version;
            },
        ),
    };
    let names: Vec<&str> = ctx
        .ir
        .types
        .keys()
        .map(String::as_str)
        .filter(|name| ctx.is_own(name))
        .collect();
    let arms = names.iter().map(|name| {
        let ty = ident(name);
        quote! { #name => f.call::<#ty>(#name), }
    });
    let type_names = quote! {
        /// Every type name of this module: the schema's `$defs` and the types
        /// hoisted from inline schemas.
        pub const TYPE_NAMES: &[&str] = &[#(#names),*];
    };
    let with_named_type = quote! {
        /// Calls `f` with the type named `type_name`, or returns `None` when
        /// there is no such type.
        #gate
        pub fn with_named_type<F: #rt::NamedTypeFn>(type_name: &str, f: F) -> ::core::option::Option<F::Output> {
            ::core::option::Option::Some(match type_name {
                #(#arms)*
                _ => return ::core::option::Option::None,
            })
        }
    };
    let named_fns = quote! {
        /// Deserializes `value` into the type named `type_name` (a `$defs` name)
        /// and serializes it back.
        #gate
        pub fn roundtrip_named(type_name: &str, value: ::serde_json::Value) -> ::core::result::Result<::serde_json::Value, ::mcp_era_types::NamedError> {
            with_named_type(type_name, #rt::Roundtrip(value)).unwrap_or_else(|| {
                ::core::result::Result::Err(::mcp_era_types::NamedError::UnknownType { revision: #origin, type_name: type_name.into() })
            })
        }

        /// Deserializes `value` into the type named `type_name` and lists the
        /// variant chosen by every union inside it.
        #gate
        pub fn union_choices_named(type_name: &str, value: ::serde_json::Value) -> ::core::result::Result<::std::vec::Vec<#rt::UnionChoice>, ::mcp_era_types::NamedError> {
            with_named_type(type_name, #rt::UnionChoices(value)).unwrap_or_else(|| {
                ::core::result::Result::Err(::mcp_era_types::NamedError::UnknownType { revision: #origin, type_name: type_name.into() })
            })
        }
    };
    (constants, type_names, with_named_type, named_fns)
}

pub(super) fn versions(manifest: &Manifest, command: &str) -> Result<String> {
    let entries = manifest.revisions.iter().map(|r| {
        let version = &r.version;
        let era = match r.era {
            Era::Modern => quote!(Era::Modern),
            Era::Legacy => quote!(Era::Legacy),
        };
        quote! { KnownVersion { version: #version, era: #era }, }
    });
    let of_era = |era: Era| -> Vec<&str> {
        manifest
            .revisions
            .iter()
            .filter(|r| r.era == era)
            .map(|r| r.version.as_str())
            .collect()
    };
    let modern = of_era(Era::Modern);
    let legacy = of_era(Era::Legacy);
    let generated = manifest.generated().map(|r| {
        let version = &r.version;
        let era = match r.era {
            Era::Modern => quote!(Era::Modern),
            Era::Legacy => quote!(Era::Legacy),
        };
        quote! { KnownVersion { version: #version, era: #era }, }
    });
    let file = quote! {
        //! Every protocol version known to this crate, with its era, newest first
        //! (from `schema/manifest.toml`).

        /// The generation of the protocol a version belongs to.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Era {
            /// 2026-07-28 and later: no handshake; version and client
            /// capabilities travel in every request's `_meta`.
            Modern,
            /// 2025-11-25 and older: negotiated once by `initialize`.
            Legacy,
        }

        /// A protocol version and its era.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct KnownVersion {
            /// The version string, e.g. `2026-07-28`.
            pub version: &'static str,
            /// Its era.
            pub era: Era,
        }

        /// Every known version, newest first: a version string this toolkit
        /// can name and classify, whether or not it has types or is served.
        pub const KNOWN_VERSIONS: &[KnownVersion] = &[#(#entries)*];

        /// The versions with generated types in `mcp-types` (one module
        /// each, e.g. `mcp_era_types::v2026_07_28`), newest first. Having types
        /// is not being served: servers and clients use
        /// [`IMPLEMENTED_VERSIONS`](crate::IMPLEMENTED_VERSIONS).
        pub const GENERATED_VERSIONS: &[KnownVersion] = &[#(#generated)*];

        /// The known modern versions, newest first (not what servers serve:
        /// see [`IMPLEMENTED_MODERN_VERSIONS`](crate::IMPLEMENTED_MODERN_VERSIONS)).
        pub const MODERN_VERSIONS: &[&str] = &[#(#modern),*];

        /// The known legacy versions, newest first (not what servers serve:
        /// see [`IMPLEMENTED_LEGACY_VERSIONS`](crate::IMPLEMENTED_LEGACY_VERSIONS)).
        pub const LEGACY_VERSIONS: &[&str] = &[#(#legacy),*];

        /// The era of `version`, or `None` for a version this crate does not know.
        /// Versions are compared exactly, as opaque strings.
        pub fn era_of(version: &str) -> ::core::option::Option<Era> {
            KNOWN_VERSIONS.iter().find(|k| k.version == version).map(|k| k.era)
        }
    };
    format_file(file, command)
}
