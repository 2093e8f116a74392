//! Emission of object types: the struct, its constructor and constants, and
//! its serde impls as a table for the runtime's `struct_serde!` (consts
//! checked, presence kept, unknown keys kept, no buffering of the input).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::ctx::{CACHE_SCOPE, Ctx, const_tokens, doc_attr, ident, shared, type_fallback_doc};
use crate::ir::{Extra, Field, FieldKind, Struct, TypeDef, TypeRef};
use crate::naming::shouty;

/// The struct's items, and the name of its builder type if it has one.
pub(super) fn emit(ctx: &Ctx<'_>, def: &TypeDef, s: &Struct) -> (TokenStream, Option<String>) {
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
                let ty = ctx.field_ty(ty);
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

    let (constructor, builder) = constructor(ctx, type_name, s);
    let builder_name = (!builder.is_empty()).then(|| format!("{type_name}Builder"));
    let serde_impls = serde_impls(ctx, type_name, s);
    let walk = walk(ctx, s);
    let derives = &ctx.derives;

    let tokens = quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, Eq, #default_derive #(#derives,)*)]
        pub struct #name { #(#decls)* }

        impl #name {
            #(#consts)*
            #constructor
        }

        #builder
        #serde_impls
        impl #rt::Walk for #name {
            fn walk(&self, path: &mut ::std::string::String, out: &mut ::std::vec::Vec<#rt::UnionChoice>) {
                let _ = (&path, &out);
                #walk
            }
        }
    };
    (tokens, builder_name)
}

/// One parameter of a constructor or builder: a required value field, or the
/// cache hints standing for a required `cacheScope` + `ttlMs` pair.
enum Param<'a> {
    Field(&'a Field),
    Hints,
}

impl Param<'_> {
    fn name(&self) -> Ident {
        match self {
            Param::Field(f) => ident(&f.rust_name),
            Param::Hints => format_ident!("hints"),
        }
    }
}

/// Whether the struct's required `cacheScope` and `ttlMs` fields are given
/// as one `CacheHints` parameter.
fn uses_hints(ctx: &Ctx<'_>, s: &Struct) -> bool {
    let has = |key: &str, ty: &TypeRef| {
        s.fields.iter().any(|f| {
            f.required && f.json_name == key && matches!(&f.kind, FieldKind::Value(t) if t == ty)
        })
    };
    ctx.cache_hints
        && has("cacheScope", &TypeRef::Named(CACHE_SCOPE.into()))
        && has("ttlMs", &TypeRef::Unsigned)
}

/// The constructor parameters in field order, with the hints (if any) last.
fn params<'a>(ctx: &Ctx<'_>, s: &'a Struct) -> Vec<Param<'a>> {
    let hints = uses_hints(ctx, s);
    let mut params: Vec<Param<'a>> = s
        .fields
        .iter()
        .filter(|f| f.required && matches!(f.kind, FieldKind::Value(_)))
        .filter(|f| !(hints && matches!(f.json_name.as_str(), "cacheScope" | "ttlMs")))
        .map(Param::Field)
        .collect();
    if hints {
        params.push(Param::Hints);
    }
    params
}

/// The parameter type (`impl Into<String>` for strings) and the expression
/// that turns the parameter `value` into the stored value.
fn param_ty(ctx: &Ctx<'_>, p: &Param<'_>, value: &TokenStream) -> (TokenStream, TokenStream) {
    match p {
        Param::Hints => (quote!(CacheHints), quote!(#value)),
        Param::Field(f) => {
            let FieldKind::Value(ty) = &f.kind else {
                unreachable!("parameters are value fields")
            };
            let stored = ctx.field_ty(ty);
            if ctx.resolve(ty) == &TypeRef::String || shared(ty) {
                // A string from any `Into<String>`, a shared value from itself.
                (
                    quote!(impl ::core::convert::Into<#stored>),
                    quote!(::core::convert::Into::into(#value)),
                )
            } else {
                (stored, quote!(#value))
            }
        }
    }
}

/// `Self { .. }` fields: each parameter from `value_of(param)`, every
/// optional field absent, no extra keys.
fn inits(
    s: &Struct,
    hints: Option<TokenStream>,
    value_of: impl Fn(&Field) -> TokenStream,
) -> Vec<TokenStream> {
    let mut inits = Vec::new();
    for field in &s.fields {
        let rust = ident(&field.rust_name);
        match &field.kind {
            FieldKind::Value(_) if field.required => {
                let value = match (&hints, field.json_name.as_str()) {
                    (Some(h), "cacheScope") => quote!(#h.scope),
                    (Some(h), "ttlMs") => quote!(#h.ttl_ms),
                    _ => value_of(field),
                };
                if rust == value.to_string() {
                    inits.push(quote!(#rust));
                } else {
                    inits.push(quote!(#rust: #value));
                }
            }
            FieldKind::Value(_) => inits.push(quote!(#rust: ::core::option::Option::None)),
            FieldKind::Const { .. } if !field.required => inits.push(quote!(#rust: false)),
            FieldKind::Const { .. } => {}
        }
    }
    if matches!(s.extra, Extra::Open(_)) {
        inits.push(quote!(extra: ::core::default::Default::default()));
    }
    inits
}

/// The constructor: a positional `new`, or `builder()` and a typestate
/// builder when two parameters have the same Rust type (so could be swapped
/// silently); plus `with_*` setters for the optional fields.
fn constructor(ctx: &Ctx<'_>, type_name: &str, s: &Struct) -> (TokenStream, TokenStream) {
    let params = params(ctx, s);
    let hints = params.iter().any(|p| matches!(p, Param::Hints));
    let mut seen = Vec::new();
    let ambiguous = params.iter().any(|p| {
        let key = match p {
            Param::Field(Field {
                kind: FieldKind::Value(ty),
                ..
            }) => format!("{:?}", ctx.resolve_deep(ty)),
            _ => "hints".to_owned(),
        };
        let dup = seen.contains(&key);
        seen.push(key);
        dup
    });
    let setters = optional_setters(ctx, s);
    let hints_getter = hints.then(|| {
        quote! {
            /// The `ttlMs` and `cacheScope` of this result.
            pub fn cache_hints(&self) -> CacheHints {
                CacheHints::new(self.ttl_ms, self.cache_scope)
            }
        }
    });
    if !ambiguous {
        let mut decls = Vec::new();
        for p in &params {
            let name = p.name();
            let (ty, _) = param_ty(ctx, p, &quote!(#name));
            decls.push(quote!(#name: #ty));
        }
        let inits = inits(s, hints.then(|| quote!(hints)), |f| {
            let name = ident(&f.rust_name);
            param_ty(ctx, &Param::Field(f), &quote!(#name)).1
        });
        let methods = quote! {
            /// A value with the required properties given (in schema order,
            /// cache hints last), every optional one absent (set them with
            /// the `with_*` methods) and no extra keys. Types with two
            /// required properties of the same Rust type have `builder()`
            /// instead, so that no two arguments can be swapped silently.
            #[allow(clippy::too_many_arguments)]
            pub fn new(#(#decls),*) -> Self {
                Self { #(#inits),* }
            }
            #hints_getter
            #setters
        };
        return (methods, TokenStream::new());
    }

    let name = ident(type_name);
    let builder = format_ident!("{type_name}Builder");
    let generics: Vec<Ident> = (0..params.len()).map(|i| format_ident!("F{i}")).collect();
    let names: Vec<Ident> = params.iter().map(Param::name).collect();
    let types: Vec<TokenStream> = params
        .iter()
        .map(|p| match p {
            Param::Hints => quote!(CacheHints),
            Param::Field(Field {
                kind: FieldKind::Value(ty),
                ..
            }) => ctx.field_ty(ty),
            Param::Field(_) => unreachable!("parameters are value fields"),
        })
        .collect();
    let unset = quote!(__rt::Unset);
    let unsets = vec![unset.clone(); params.len()];
    let setter_impls = params.iter().enumerate().map(|(i, p)| {
        let others: Vec<&Ident> = generics
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, g)| g)
            .collect();
        let before: Vec<TokenStream> = generics
            .iter()
            .enumerate()
            .map(|(j, g)| if j == i { unset.clone() } else { quote!(#g) })
            .collect();
        let after: Vec<TokenStream> = generics
            .iter()
            .enumerate()
            .map(|(j, g)| if j == i { types[i].clone() } else { quote!(#g) })
            .collect();
        let field = &names[i];
        let (ty, value) = param_ty(ctx, p, &quote!(value));
        // A tuple struct: no field shares a name with a setter, so calling a
        // setter twice reports a missing method, not a private field.
        let moves = (0..params.len()).map(|j| {
            let index = syn::Index::from(j);
            if j == i {
                quote!(#value)
            } else {
                quote!(self.#index)
            }
        });
        let doc = match p {
            Param::Hints => " Sets `ttlMs` and `cacheScope` (required).".to_owned(),
            Param::Field(f) => format!(" Sets `{}` (required).", f.json_name),
        };
        quote! {
            impl<#(#others),*> #builder<#(#before),*> {
                #[doc = #doc]
                pub fn #field(self, value: #ty) -> #builder<#(#after),*> {
                    #builder(#(#moves),*)
                }
            }
        }
    });
    let position = |name: &str| {
        let i = params
            .iter()
            .position(|p| matches!(p, Param::Field(f) if f.rust_name == name))
            .unwrap_or_default();
        syn::Index::from(i)
    };
    let hints_index = syn::Index::from(params.len().saturating_sub(1));
    let inits = inits(s, hints.then(|| quote!(self.#hints_index)), |f| {
        let index = position(&f.rust_name);
        quote!(self.#index)
    });
    let builder_doc = [
        format!(" Builder of [`{type_name}`], from [`{type_name}::builder`]: two of its"),
        " required properties have the same Rust type, so they are set by name.".to_owned(),
        "".to_owned(),
        " Each required property's setter (named like the field) can be called".to_owned(),
        " once: that property's type parameter (in schema order) goes from".to_owned(),
        " `mcp_era_types::Unset` to the field's type, and `build()` exists only once".to_owned(),
        " all are set. \"No method named `build`\" means a property is missing: the".to_owned(),
        " one whose parameter is still `Unset` (compiler messages leave out trailing".to_owned(),
        " `Unset` parameters); \"no method named\" a setter means it was already".to_owned(),
        " called. Optional properties are set on the built value with its `with_*`".to_owned(),
        " methods.".to_owned(),
    ];
    let methods = quote! {
        /// A builder: two required properties of this type have the same
        /// Rust type, so there is no positional `new` (arguments could be
        /// swapped silently). Set each required property by name, then
        /// `build()`; set optional ones with the `with_*` methods.
        pub fn builder() -> #builder {
            #builder(#(#unsets),*)
        }
        #hints_getter
        #setters
    };
    let items = quote! {
        #(#[doc = #builder_doc])*
        #[must_use]
        #[derive(Clone, Debug)]
        pub struct #builder<#(#generics = #unset),*>(#(#generics),*);
        #(#setter_impls)*
        impl #builder<#(#types),*> {
            /// The value, every optional property absent and no extra keys.
            pub fn build(self) -> #name {
                #name { #(#inits),* }
            }
        }
    };
    (methods, items)
}

/// `with_*` setters of the optional properties (`extra` is left alone).
fn optional_setters(ctx: &Ctx<'_>, s: &Struct) -> TokenStream {
    let setters = s.fields.iter().filter(|f| !f.required).map(|f| {
        let rust = ident(&f.rust_name);
        let setter = format_ident!("with_{}", f.rust_name.trim_end_matches('_'));
        match &f.kind {
            FieldKind::Value(ty) => {
                let doc = format!(" Sets the optional `{}`.", f.json_name);
                let ty = ctx.field_ty(ty);
                quote! {
                    #[doc = #doc]
                    #[must_use]
                    pub fn #setter(mut self, value: impl ::core::convert::Into<#ty>) -> Self {
                        self.#rust = ::core::option::Option::Some(::core::convert::Into::into(value));
                        self
                    }
                }
            }
            FieldKind::Const { value, .. } => {
                let doc = format!(
                    " Whether the optional constant `\"{}\": {value}` is written.",
                    f.json_name
                );
                quote! {
                    #[doc = #doc]
                    #[must_use]
                    pub fn #setter(mut self, present: bool) -> Self {
                        self.#rust = present;
                        self
                    }
                }
            }
        }
    });
    quote! { #(#setters)* }
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
                let kind = match (field.required, shared(ty)) {
                    (true, false) => quote!(required),
                    (false, false) => quote!(optional),
                    (true, true) => quote!(required_shared),
                    (false, true) => quote!(optional_shared),
                };
                let ty = ctx.field_ty(ty);
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
