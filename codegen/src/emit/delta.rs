//! A revision generated as a delta of another: the types of the base
//! revision it shares are re-exported, only what differs is generated.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;

use super::{
    CACHE_SCOPE, Ctx, EmitOptions, era_name, finish, has_cache_scope, ident, prelude, tables,
    type_items,
};
use crate::ir::{Extra, FieldKind, Ir, Kind, TypeDef, TypeRef};
use crate::manifest::Era;
use crate::normalise::normalise;
use crate::{Error, Result};

/// The revision a delta module is generated against (see [`generate_delta`]).
#[derive(Debug, Clone, Copy)]
pub struct DeltaBase<'a> {
    /// The base revision, e.g. `2026-07-28`.
    pub version: &'a str,
    /// The base revision's schema document.
    pub schema: &'a Value,
    /// The Rust path of the base revision's generated module, as the delta
    /// module names it: `super::v2026_07_28`, `::mcp_era_types::v2026_07_28`.
    pub module: &'a str,
}

/// Generates the module source for a schema revision as a delta of
/// `base` (a generated revision of the same era), with the same public
/// names as [`generate_revision`](crate::generate_revision) would give it.
///
/// Both schemas go through the same normalisation and IR. A type is
/// generated in the delta module when its definition differs from the
/// base's (or the base lacks it), or when it refers, through fields,
/// union variants or aliases, to a type that is generated: `Bar` holding a
/// changed `Foo` must hold this module's `Foo`. Every other type is the
/// base's, re-exported, with its impls. Of the tables, `VERSION` and the
/// two lookups whose errors name it are always generated; `methods`,
/// `error_codes`, `meta_keys`, `TYPE_NAMES`, `with_named_type` and the
/// prelude only when they differ. The re-export is `pub use base::*` (local
/// items shadow glob imports), or a list of names when the base has names
/// this revision lacks, which a glob would leak.
///
/// When the definitions are all equal, the module is the re-export,
/// `VERSION` and the two lookups.
pub fn generate_delta(
    schema: &Value,
    era: Era,
    version: &str,
    base: &DeltaBase<'_>,
    options: &EmitOptions,
) -> Result<String> {
    if super::detect_era(base.schema) != Some(era) {
        return Err(Error::new(format!(
            "delta of {}: the base is not of the {} era",
            base.version,
            era_name(era)
        )));
    }
    let ir = Ir::build(&normalise(schema, era)?)?;
    let base_ir = Ir::build(&normalise(base.schema, era)?)?;
    let changed = changed_types(&ir, &base_ir);
    let gone: Vec<&String> = base_ir
        .types
        .keys()
        .filter(|n| !ir.types.contains_key(*n))
        .collect();
    let own = with_dependents(&ir, &changed);

    let derives = options.derive_tokens()?;
    let (this_full, base_full) = (full_ctx(&ir, &derives), full_ctx(&base_ir, &derives));
    let named = options.named_feature.as_deref();
    let this_module = module_parts(&this_full, tables::Label::Version(version), named, options)?;
    let base_module = module_parts(
        &base_full,
        tables::Label::Version(base.version),
        named,
        options,
    )?;

    // `CacheHints` comes along with `CacheScope`: generated or re-exported.
    let ctx = Ctx {
        imported: ir
            .types
            .keys()
            .filter(|n| !own.contains(*n))
            .cloned()
            .collect(),
        ..full_ctx(&ir, &derives)
    };
    let cache_items = ctx.cache_hints && own.contains(CACHE_SCOPE);
    let (mut items, _) = type_items(&ctx, cache_items, options)?;
    let this_tables = this_module.tables;
    let base_tables = base_module.tables;
    let differs = |a: &TokenStream, b: &TokenStream| a.to_string() != b.to_string();
    for (this, base) in [
        (this_tables.methods, base_tables.methods),
        (this_tables.error_codes, base_tables.error_codes),
        (this_tables.meta_keys, base_tables.meta_keys),
        (this_tables.type_names, base_tables.type_names),
    ] {
        if differs(&this, &base) {
            items.extend(this);
        }
    }
    items.extend(this_tables.label);
    // Its arms name types: the base's arms would name the base's.
    if !own.is_empty() || differs(&this_tables.with_named_type, &base_tables.with_named_type) {
        items.extend(this_tables.with_named_type);
    }
    items.extend(this_tables.named_fns);
    if !own.is_empty() || differs(&this_module.prelude, &base_module.prelude) {
        items.extend(this_module.prelude);
    }

    let local = names_of(&items)?;
    let missing: Vec<&String> = this_module
        .names
        .iter()
        .filter(|n| !local.contains(*n) && !base_module.names.contains(*n))
        .collect();
    if !missing.is_empty() {
        return Err(Error::new(format!(
            "delta of {}: {missing:?} neither generated nor in the base",
            base.version
        )));
    }
    let base_path: syn::Path = syn::parse_str(base.module)
        .map_err(|e| Error::new(format!("base module {:?}: {e}", base.module)))?;
    let leaks = base_module
        .names
        .iter()
        .any(|n| !this_module.names.contains(n));
    let (reexport, in_scope) = if leaks {
        let names = this_module
            .names
            .iter()
            .filter(|n| !local.contains(*n) && base_module.names.contains(*n))
            .map(|n| ident(n));
        (
            quote! { pub use #base_path::{#(#names),*}; },
            BTreeSet::new(),
        )
    } else {
        let in_scope = base_module
            .names
            .iter()
            .filter(|n| !local.contains(*n))
            .cloned()
            .collect();
        (quote! { pub use #base_path::*; }, in_scope)
    };

    let quoted = |names: &mut dyn Iterator<Item = &String>| {
        names
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let module_doc = if changed.is_empty() && gone.is_empty() {
        format!(
            " MCP {version} ({} era): its schema's definitions equal those of MCP {}, \
             so its types are {}'s, re-exported from `{}`.",
            era_name(era),
            base.version,
            base.version,
            base.module
        )
    } else {
        let gone = if gone.is_empty() {
            String::new()
        } else {
            format!("; gone: {}", quoted(&mut gone.into_iter()))
        };
        format!(
            " MCP {version} ({} era), generated from the official schema as a delta of \
             MCP {}: the definitions that differ from it ({}{gone}) and the types that refer \
             to them are generated here; every other item is re-exported from `{}`.",
            era_name(era),
            base.version,
            quoted(&mut changed.iter()),
            base.module
        )
    };
    // The lookups may be the only users of the imports, and a cfg
    // (`named_feature`) removes them.
    let allow = [quote!(allow(unused_imports))];
    finish(
        &module_doc,
        quote! { #reexport #items },
        &in_scope,
        &allow,
        options,
    )
}

/// The context of a module that generates every type of `ir`.
fn full_ctx<'a>(ir: &'a Ir, derives: &[TokenStream]) -> Ctx<'a> {
    Ctx {
        ir,
        rt: quote!(__rt),
        derives: derives.to_vec(),
        cache_hints: has_cache_scope(ir),
        imported: BTreeSet::new(),
    }
}

/// The parts of a full module that a delta compares.
struct ModuleParts {
    tables: tables::Tables,
    prelude: TokenStream,
    /// Every public name of the module.
    names: BTreeSet<String>,
}

fn module_parts(
    ctx: &Ctx<'_>,
    label: tables::Label<'_>,
    named_feature: Option<&str>,
    options: &EmitOptions,
) -> Result<ModuleParts> {
    let (mut items, extra_names) = type_items(ctx, ctx.cache_hints, options)?;
    let prelude = prelude(ctx, &extra_names)?;
    let tables = tables::tables(ctx, label, named_feature)?;
    items.extend(tables.methods.clone());
    items.extend(tables.error_codes.clone());
    items.extend(tables.meta_keys.clone());
    items.extend(tables.label.clone());
    items.extend(tables.type_names.clone());
    items.extend(tables.with_named_type.clone());
    items.extend(tables.named_fns.clone());
    items.extend(prelude.clone());
    Ok(ModuleParts {
        tables,
        prelude,
        names: names_of(&items)?,
    })
}

/// The names that module items define.
fn names_of(items: &TokenStream) -> Result<BTreeSet<String>> {
    let file: syn::File = syn::parse2(items.clone())
        .map_err(|e| Error::new(format!("generated code does not parse: {e}")))?;
    Ok(super::tidy::defined_names(&file.items))
}

/// The types whose IR differs from the base's, or that the base lacks.
pub(crate) fn changed_types(ir: &Ir, base: &Ir) -> BTreeSet<String> {
    ir.types
        .iter()
        .filter(|(name, def)| base.types.get(*name) != Some(*def))
        .map(|(name, _)| name.clone())
        .collect()
}

/// `changed` and every type that refers to one of them, directly or not.
pub(crate) fn with_dependents(ir: &Ir, changed: &BTreeSet<String>) -> BTreeSet<String> {
    let mut own = changed.clone();
    loop {
        let before = own.len();
        for def in ir.types.values() {
            if !own.contains(&def.name) && references(def).iter().any(|r| own.contains(r)) {
                own.insert(def.name.clone());
            }
        }
        if own.len() == before {
            return own;
        }
    }
}

/// The named types a definition's fields, variants or alias target name.
fn references(def: &TypeDef) -> BTreeSet<String> {
    fn collect(ty: &TypeRef, out: &mut BTreeSet<String>) {
        match ty {
            TypeRef::Named(name) => {
                out.insert(name.clone());
            }
            TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::Nullable(inner) => {
                collect(inner, out)
            }
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    match &def.kind {
        Kind::Struct(s) => {
            for field in &s.fields {
                if let FieldKind::Value(ty) = &field.kind {
                    collect(ty, &mut out);
                }
            }
            if let Extra::Open(ty) = &s.extra {
                collect(ty, &mut out);
            }
        }
        Kind::Union(u) => u.variants.iter().for_each(|v| collect(&v.ty, &mut out)),
        Kind::Alias(ty) => collect(ty, &mut out),
        Kind::StringEnum(_) => {}
    }
    out
}
