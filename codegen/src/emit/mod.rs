//! Emission: IR → Rust tokens → one formatted source file per revision.

mod ctx;
mod delta;
mod enums;
mod layout;
mod paths;
mod structs;
mod tables;
pub(crate) mod tidy;
mod unions;

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use serde_json::Value;

use std::collections::BTreeSet;

use ctx::{CACHE_SCOPE, Ctx, doc_attr, format_file, ident, type_fallback_doc};

use crate::error::{Error, Result};
use crate::ir::{Ir, Kind};
use crate::manifest::{Era, Manifest};
use crate::normalise::{Normalised, normalise};

pub use delta::DeltaBase;

/// Settings of one emission. Start from [`EmitOptions::default`] (what
/// this repository's `cargo xtask regen` uses) and change what you need:
///
/// ```
/// let options = mcp_era_codegen::EmitOptions::default()
///     .command("my-sdk/build.sh")
///     .module("mcp")
///     .derive("Hash")
///     .serde_path("::my_sdk::serde")
///     .named_feature(None);
/// assert_eq!(options.derives, ["Hash"]);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EmitOptions {
    /// Path of the runtime support module, e.g. `::mcp_era_types::__private`.
    /// Generated code needs it (serde tables, unions, builders): depend on
    /// the `mcp-types` crate, like progenitor output on `progenitor-client`.
    pub runtime: String,
    /// The command named in the `@generated` header.
    pub command: String,
    /// The cargo feature that gates the named-type lookup, if any. The
    /// lookup names `::mcp_era_types::NamedError`; `None` leaves it out.
    pub named_feature: Option<String>,
    /// `Some(name)`: wrap the output in `pub mod name { ... }` (for
    /// `include!` or a single file holding several revisions). `None`: the
    /// file is itself a module (`#![doc]` at the top).
    pub module: Option<String>,
    /// Extra derives for every generated struct, union and string enum
    /// (e.g. `Hash`, `::my_crate::MyTrait`), after the built-in ones
    /// (`Clone, Debug, PartialEq, Eq`, `Default` where possible).
    pub derives: Vec<String>,
    /// Path of the serde crate in generated code.
    pub serde: String,
    /// Path of the serde_json crate in generated code.
    pub serde_json: String,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            runtime: "::mcp_era_types::__private".into(),
            command: "cargo xtask regen".into(),
            named_feature: Some("named".into()),
            module: None,
            derives: Vec::new(),
            serde: "::serde".into(),
            serde_json: "::serde_json".into(),
        }
    }
}

impl EmitOptions {
    /// Sets [`runtime`](Self::runtime).
    pub fn runtime(mut self, path: impl Into<String>) -> Self {
        self.runtime = path.into();
        self
    }

    /// Sets [`command`](Self::command).
    pub fn command(mut self, command: impl Into<String>) -> Self {
        self.command = command.into();
        self
    }

    /// Sets [`named_feature`](Self::named_feature).
    pub fn named_feature(mut self, feature: Option<&str>) -> Self {
        self.named_feature = feature.map(str::to_owned);
        self
    }

    /// Sets [`module`](Self::module).
    pub fn module(mut self, name: impl Into<String>) -> Self {
        self.module = Some(name.into());
        self
    }

    /// Adds one of [`derives`](Self::derives).
    pub fn derive(mut self, path: impl Into<String>) -> Self {
        self.derives.push(path.into());
        self
    }

    /// Sets [`serde`](Self::serde).
    pub fn serde_path(mut self, path: impl Into<String>) -> Self {
        self.serde = path.into();
        self
    }

    /// Sets [`serde_json`](Self::serde_json).
    pub fn serde_json_path(mut self, path: impl Into<String>) -> Self {
        self.serde_json = path.into();
        self
    }

    fn derive_tokens(&self) -> Result<Vec<TokenStream>> {
        self.derives
            .iter()
            .map(|d| {
                syn::parse_str::<syn::Path>(d)
                    .map(|p| quote!(#p))
                    .map_err(|e| Error::new(format!("derive {d:?} is not a path: {e}")))
            })
            .collect()
    }
}

fn has_cache_scope(ir: &Ir) -> bool {
    let Some(Kind::StringEnum(schema)) = ir.types.get(CACHE_SCOPE).map(|t| &t.kind) else {
        return false;
    };
    let mut values: Vec<&str> = schema
        .get("enum")
        .and_then(Value::as_array)
        .map(|v| v.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    values.sort_unstable();
    values == ["private", "public"]
}

/// The revision's `CacheHints` alias and the scope values it needs.
fn cache_hints_items() -> TokenStream {
    let scope = ident(CACHE_SCOPE);
    quote! {
        impl __rt::CacheScopeValues for #scope {
            const PUBLIC: Self = #scope::Public;
            const PRIVATE: Self = #scope::Private;
        }
        /// How long and by whom a result may be cached: the one argument that
        /// constructors of cacheable results take for `ttlMs` and `cacheScope`
        /// (`CacheHints::public(ttl_ms)`, `CacheHints::private(ttl_ms)`,
        /// `CacheHints::new(ttl_ms, scope)`, `CacheHints::NONE`).
        pub type CacheHints = __rt::CacheHints<#scope>;
    }
}

/// Schema type names that would shadow a name of Rust's prelude or a common
/// `Error` type on a glob import; the prelude exports them as `{name}Object`.
const SHADOWING: &[&str] = &["Result", "Error", "Option", "Box", "String", "Vec"];

/// `pub mod prelude`: every generated type for a glob import, with the
/// shadowing names renamed.
fn prelude(ctx: &Ctx<'_>, extra: &[String]) -> Result<TokenStream> {
    let ir = ctx.ir;
    let mut plain = Vec::new();
    let mut renamed = Vec::new();
    let names: BTreeSet<&String> = ir
        .types
        .keys()
        .filter(|name| ctx.is_own(name))
        .chain(extra)
        .collect();
    for name in names {
        if SHADOWING.contains(&name.as_str()) {
            let alias = format!("{name}Object");
            if ir.types.contains_key(&alias) || extra.contains(&alias) {
                return Err(Error::new(format!(
                    "prelude: {name} would be exported as {alias}, which the schema names too"
                )));
            }
            let (name, alias) = (ident(name), ident(&alias));
            renamed.push(quote!(pub use super::#name as #alias;));
        } else {
            plain.push(ident(name));
        }
    }
    Ok(quote! {
        pub mod prelude {
            //! Every type of this module, for `use …::prelude::*`: schema types
            //! whose names would shadow Rust's (`Result`, `Error`) are exported
            //! as `ResultObject` and `ErrorObject`.
            pub use super::{#(#plain),*};
            #(#renamed)*
        }
    })
}

/// What an extension module is generated against: the core revision whose
/// definitions the extension schema repeats.
#[derive(Debug, Clone, Copy)]
pub struct ExtensionTarget<'a> {
    /// The extension identifier, e.g. `io.modelcontextprotocol/tasks`.
    pub identifier: &'a str,
    /// The core revision, e.g. `2026-07-28`.
    pub core_version: &'a str,
    /// The core revision's schema document.
    pub core_schema: &'a Value,
    /// The Rust path of the core revision's generated module, e.g.
    /// `::mcp_era_types::v2026_07_28`.
    pub core_module: &'a str,
}

/// Which kind of module is generated.
#[derive(Clone, Copy)]
enum Target<'a> {
    Revision(&'a str),
    Extension(&'a ExtensionTarget<'a>),
}

/// Generates the module source for one schema revision.
pub fn generate_revision(
    schema: &Value,
    era: Era,
    version: &str,
    options: &EmitOptions,
) -> Result<String> {
    generate(schema, era, Target::Revision(version), options)
}

/// Generates the module source for an extension schema. Its `$defs`
/// repeat the core definitions it refers to (`Error`, `Result`,
/// `InputRequests`, …): every type the core revision also has (after the
/// same normalisation) must be identical to the core one, and is imported
/// from `core_module` rather than generated again, so that an extension
/// value holds the very core types the rest of a program uses. A copy that
/// differs from the core is an error: the extension was written against
/// another core revision.
pub fn generate_extension(
    schema: &Value,
    era: Era,
    extension: &ExtensionTarget<'_>,
    options: &EmitOptions,
) -> Result<String> {
    generate(schema, era, Target::Extension(extension), options)
}

/// The names an extension shares with its core revision, checked equal.
fn shared_with_core(
    normalised: &Normalised,
    era: Era,
    extension: &ExtensionTarget<'_>,
) -> Result<BTreeSet<String>> {
    let core = normalise(extension.core_schema, era)?;
    let mut shared = BTreeSet::new();
    for (name, schema) in &normalised.defs {
        let Some(core_schema) = core.defs.get(name) else {
            continue;
        };
        if core_schema != schema {
            return Err(Error::new(format!(
                "{}: {name} differs from {name} of {}; an extension's copy of a core \
                 definition must equal the core one",
                extension.identifier, extension.core_version
            )));
        }
        shared.insert(name.clone());
    }
    Ok(shared)
}

/// The imported names that the module's own types refer to.
fn used_imports(ctx: &Ctx<'_>) -> Vec<String> {
    let named: BTreeSet<String> = ctx
        .ir
        .types
        .values()
        .filter(|d| ctx.is_own(&d.name))
        .flat_map(|d| d.references())
        .collect();
    named.into_iter().filter(|n| !ctx.is_own(n)).collect()
}

fn generate(schema: &Value, era: Era, target: Target<'_>, options: &EmitOptions) -> Result<String> {
    let normalised = normalise(schema, era)?;
    let ir = Ir::build(&normalised)?;
    let imported = match target {
        Target::Revision(_) => BTreeSet::new(),
        Target::Extension(extension) => shared_with_core(&normalised, era, extension)?,
    };
    // One alias keeps the many runtime calls short.
    let ctx = Ctx {
        ir: &ir,
        rt: quote!(__rt),
        derives: options.derive_tokens()?,
        cache_hints: has_cache_scope(&ir) && !imported.contains(CACHE_SCOPE),
        imported,
    };

    let (mut items, extra_names) = type_items(&ctx, ctx.cache_hints, options)?;
    let label = match target {
        Target::Revision(version) => tables::Label::Version(version),
        Target::Extension(extension) => tables::Label::Extension {
            identifier: extension.identifier,
            core_version: extension.core_version,
        },
    };
    items.extend(tables::emit(&ctx, label, options.named_feature.as_deref())?);
    items.extend(prelude(&ctx, &extra_names)?);

    let era_name = era_name(era);
    let (module_doc, imports) = match target {
        Target::Revision(version) => (
            format!(" MCP {version} ({era_name} era), generated from the official schema."),
            TokenStream::new(),
        ),
        Target::Extension(extension) => {
            let core: syn::Path = syn::parse_str(extension.core_module)
                .map_err(|e| Error::new(format!("core module {:?}: {e}", extension.core_module)))?;
            let names: Vec<_> = used_imports(&ctx).into_iter().map(|n| ident(&n)).collect();
            let generated = format!(
                " The `{}` extension, generated from its official schema.",
                extension.identifier
            );
            if names.is_empty() {
                // Apps copies core types inline, each a little different.
                (
                    format!("{generated} It names no core definition."),
                    TokenStream::new(),
                )
            } else {
                (
                    format!(
                        "{generated} The core definitions it names are the MCP {} types, \
                         imported from `{}`.",
                        extension.core_version, extension.core_module
                    ),
                    quote! { use #core::{#(#names),*}; },
                )
            }
        }
    };
    finish(
        &module_doc,
        quote! { #imports #items },
        &BTreeSet::new(),
        &[],
        options,
    )
}

fn era_name(era: Era) -> &'static str {
    match era {
        Era::Modern => "modern",
        Era::Legacy => "legacy",
    }
}

/// The type items of a module: its own string enums, the `CacheHints` items
/// if `cache_items`, and its own structs, unions and aliases; with the names
/// of the builders the structs got.
fn type_items(
    ctx: &Ctx<'_>,
    cache_items: bool,
    options: &EmitOptions,
) -> Result<(TokenStream, Vec<String>)> {
    let ir = ctx.ir;
    let mut items = TokenStream::new();
    items.extend(enums::emit(ctx, &options.derives)?);
    let mut extra_names = Vec::new();
    if cache_items {
        items.extend(cache_hints_items());
        extra_names.push("CacheHints".to_owned());
    }
    for def in ir.types.values().filter(|d| ctx.is_own(&d.name)) {
        items.extend(match &def.kind {
            Kind::Struct(s) => {
                let (tokens, builder) = structs::emit(ctx, def, s);
                extra_names.extend(builder);
                tokens
            }
            Kind::Union(u) => unions::emit(ctx, def, u),
            Kind::Alias(target) => {
                let name = ident(&def.name);
                let doc = doc_attr(def.doc.as_deref(), || type_fallback_doc(&def.name));
                let target = ctx.ty(target);
                quote! { #doc pub type #name = #target; }
            }
            Kind::StringEnum(_) => TokenStream::new(),
        });
    }
    for name in &extra_names {
        if ir.types.contains_key(name) {
            return Err(Error::new(format!(
                "generated name {name} is also a schema type name"
            )));
        }
    }
    Ok((items, extra_names))
}

/// The formatted file of a module's items. `in_scope`: names a glob import
/// brings in, which short paths must not take; `inner_attrs`: attributes of
/// the module besides its doc.
fn finish(
    module_doc: &str,
    items: TokenStream,
    in_scope: &BTreeSet<String>,
    inner_attrs: &[TokenStream],
    options: &EmitOptions,
) -> Result<String> {
    let runtime: TokenStream = options
        .runtime
        .parse()
        .map_err(|e| Error::new(format!("runtime path {:?}: {e}", options.runtime)))?;
    let (uses, items) =
        tidy::shorten_paths_in(items, in_scope, &options.serde, &options.serde_json)?;
    let file = match &options.module {
        None => quote! {
            #![doc = #module_doc]
            #(#![#inner_attrs])*
            #uses
            use #runtime as __rt;
            #items
        },
        Some(name) => {
            let name: Ident = syn::parse_str(name)
                .map_err(|e| Error::new(format!("module name {name:?}: {e}")))?;
            quote! {
                #[doc = #module_doc]
                #(#[#inner_attrs])*
                pub mod #name {
                    #uses
                    use #runtime as __rt;
                    #items
                }
            }
        }
    };
    let file = paths::rewrite(file, &options.serde, &options.serde_json)?;
    let text = format_file(tidy::split_docs(file), &options.command)?;
    Ok(layout::tables(&text))
}

/// Generates the module source for a schema revision as a delta of
/// `base` (a generated revision of the same era), with the same public
/// names as [`generate_revision`] would give it.
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
    if detect_era(base.schema) != Some(era) {
        return Err(Error::new(format!(
            "delta of {}: the base is not of the {} era",
            base.version,
            era_name(era)
        )));
    }
    let ir = Ir::build(&normalise(schema, era)?)?;
    let base_ir = Ir::build(&normalise(base.schema, era)?)?;
    let changed = delta::changed_types(&ir, &base_ir);
    let gone: Vec<&String> = base_ir
        .types
        .keys()
        .filter(|n| !ir.types.contains_key(*n))
        .collect();
    let own = delta::with_dependents(&ir, &changed);

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
    Ok(tidy::defined_names(&file.items))
}

/// Generates Rust for one schema file: reads it, detects its era (see
/// [`detect_era`]) and calls [`generate_revision`] with `version` (the
/// `VERSION` constant and the module doc).
pub fn generate_file(
    path: &std::path::Path,
    version: &str,
    options: &EmitOptions,
) -> Result<String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", path.display())))?;
    let schema: Value = serde_json::from_str(&text)
        .map_err(|e| Error::new(format!("{} is not valid JSON: {e}", path.display())))?;
    let era = detect_era(&schema).ok_or_else(|| {
        Error::new(format!(
            "{}: cannot tell the era (no DiscoverRequest or InitializeRequest in $defs)",
            path.display()
        ))
    })?;
    generate_revision(&schema, era, version, options)
}

/// The era of an MCP schema: modern if `$defs` has `DiscoverRequest`
/// (2026-07-28 and later), legacy if it has `InitializeRequest`.
pub fn detect_era(schema: &Value) -> Option<Era> {
    let defs = schema.get("$defs")?.as_object()?;
    if defs.contains_key("DiscoverRequest") {
        Some(Era::Modern)
    } else if defs.contains_key("InitializeRequest") {
        Some(Era::Legacy)
    } else {
        None
    }
}

/// Generates `versions.rs`: every known protocol version with its era.
pub fn generate_versions(manifest: &Manifest, options: &EmitOptions) -> Result<String> {
    tables::versions(manifest, &options.command)
}
