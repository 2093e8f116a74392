//! Emission: IR → Rust tokens → one formatted source file per revision.

mod ctx;
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
use crate::ir::{Extra, FieldKind, Ir, Kind, TypeRef};
use crate::manifest::{Era, Manifest};
use crate::normalise::{Normalised, normalise};

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
    let mut named = BTreeSet::new();
    for def in ctx.ir.types.values().filter(|d| ctx.is_own(&d.name)) {
        match &def.kind {
            Kind::Struct(s) => {
                for field in &s.fields {
                    if let FieldKind::Value(ty) = &field.kind {
                        collect(ty, &mut named);
                    }
                }
                if let Extra::Open(ty) = &s.extra {
                    collect(ty, &mut named);
                }
            }
            Kind::Union(u) => u.variants.iter().for_each(|v| collect(&v.ty, &mut named)),
            Kind::Alias(ty) => collect(ty, &mut named),
            Kind::StringEnum(_) => {}
        }
    }
    named.into_iter().filter(|n| !ctx.is_own(n)).collect()
}

fn generate(schema: &Value, era: Era, target: Target<'_>, options: &EmitOptions) -> Result<String> {
    let normalised = normalise(schema, era)?;
    let ir = Ir::build(&normalised)?;
    let runtime: TokenStream = options
        .runtime
        .parse()
        .map_err(|e| Error::new(format!("runtime path {:?}: {e}", options.runtime)))?;
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

    let mut items = TokenStream::new();
    items.extend(enums::emit(&ctx, &options.derives)?);
    let mut extra_names = Vec::new();
    if ctx.cache_hints {
        items.extend(cache_hints_items());
        extra_names.push("CacheHints".to_owned());
    }
    for def in ir.types.values().filter(|d| ctx.is_own(&d.name)) {
        items.extend(match &def.kind {
            Kind::Struct(s) => {
                let (tokens, builder) = structs::emit(&ctx, def, s);
                extra_names.extend(builder);
                tokens
            }
            Kind::Union(u) => unions::emit(&ctx, def, u),
            Kind::Alias(target) => {
                let name = ident(&def.name);
                let doc = doc_attr(def.doc.as_deref(), || type_fallback_doc(&def.name));
                let target = ctx.ty(target);
                quote! { #doc pub type #name = #target; }
            }
            Kind::StringEnum(_) => TokenStream::new(),
        });
    }
    let label = match target {
        Target::Revision(version) => tables::Label::Version(version),
        Target::Extension(extension) => tables::Label::Extension {
            identifier: extension.identifier,
            core_version: extension.core_version,
        },
    };
    items.extend(tables::emit(&ctx, label, options.named_feature.as_deref())?);
    for name in &extra_names {
        if ir.types.contains_key(name) {
            return Err(Error::new(format!(
                "generated name {name} is also a schema type name"
            )));
        }
    }
    items.extend(prelude(&ctx, &extra_names)?);

    let era_name = match era {
        Era::Modern => "modern",
        Era::Legacy => "legacy",
    };
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
    let (uses, items) = tidy::shorten_paths(
        quote! { #imports #items },
        &options.serde,
        &options.serde_json,
    )?;
    let file = match &options.module {
        None => quote! {
            #![doc = #module_doc]
            #uses
            use #runtime as __rt;
            #items
        },
        Some(name) => {
            let name: Ident = syn::parse_str(name)
                .map_err(|e| Error::new(format!("module name {name:?}: {e}")))?;
            quote! {
                #[doc = #module_doc]
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
