//! Token output: the `McpServer` impl for a valid declaration, or the
//! errors plus a fallback impl (so the user sees no cascade of "trait not
//! implemented" errors after a mistake in `#[mcp(...)]`).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::DeriveInput;

use crate::internals::attr::{Attrs, Entry, Settings};
use crate::internals::check::{Checked, check};
use crate::internals::ctxt::Ctxt;
use crate::tokens::{icon_value, some_string};

/// The whole derive: parse → validate → expand.
pub fn derive(input: &DeriveInput, default_krate: syn::Path) -> TokenStream {
    let mut cx = Ctxt::new();
    let attrs = Attrs::from_ast(&mut cx, &input.attrs);
    let checked = check(&mut cx, &attrs);
    let krate = attrs.krate.clone().unwrap_or(default_krate);
    if cx.has_errors() {
        let errors = cx.into_compile_errors();
        let fallback = fallback(input, &krate);
        return quote! { #errors #fallback };
    }
    expand(input, &attrs, &checked, &krate)
}

fn fallback(input: &DeriveInput, krate: &syn::Path) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::__private::McpServer for #ident #ty_generics #where_clause {
            fn declaration(&self) -> #krate::__private::Arc<#krate::__private::ServerDeclaration> {
                ::core::unreachable!()
            }
        }
        #[automatically_derived]
        impl #impl_generics #krate::__private::Derived for #ident #ty_generics #where_clause {
            const VALID: bool = false;
        }
    }
}

fn settings(p: &TokenStream, entry: &Entry) -> TokenStream {
    let id = &entry.id;
    let value = match &entry.settings {
        Settings::Json(map) => {
            let json = serde_json::Value::Object(map.clone()).to_string();
            quote!(#p::settings(#json))
        }
        Settings::Path(path) => quote!(#p::settings_from(#path)),
    };
    quote!(map.insert(::std::string::String::from(#id), #value);)
}

/// `Type::new()`, with the given field assignments (to `c`) if any.
fn capability_value(ty: TokenStream, sets: Vec<Option<TokenStream>>) -> TokenStream {
    let sets: Vec<TokenStream> = sets.into_iter().flatten().collect();
    if sets.is_empty() {
        quote!(#ty::new())
    } else {
        quote!({
            let mut c = #ty::new();
            #(#sets)*
            c
        })
    }
}

fn expand(input: &DeriveInput, attrs: &Attrs, checked: &Checked, krate: &syn::Path) -> TokenStream {
    let p = quote!(#krate::__private);
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let extension_ids = attrs.extensions.iter().map(|e| &e.id);
    let (name, version, info) = server_info(&p, attrs);
    let caps = capabilities(&p, attrs);
    let options = declaration_options(&p, attrs, checked);
    let modern = &checked.modern;
    let legacy = &checked.legacy;
    let routes = ["tools", "resources", "prompts", "completions"].map(|field| {
        let variant = quote::format_ident!("{}", capitalized(field));
        let dispatch = quote::format_ident!("dispatch_{field}");
        quote!(#p::Capability::#variant => probe.#dispatch(self, request, ctx),)
    });
    let generic = !input.generics.params.is_empty();
    let resources_written = attrs.resources.is_some();
    // The handler traits the server implements, found by autoref (see
    // `__private::probe`).
    let probe = quote! {
        #[allow(unused_imports)]
        use #p::probe::*;
        #[allow(unused_variables)]
        let probe = &#p::probe::Probe::<Self>::NEW;
    };

    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::__private::McpServer for #ident #ty_generics #where_clause {
            fn declaration(&self) -> #p::Arc<#p::ServerDeclaration> {
                // Built once per type, on first use; every instance shares it.
                static DECLARATION: #p::OnceLock<#p::Arc<#p::ServerDeclaration>> = #p::OnceLock::new();
                #p::Arc::clone(DECLARATION.get_or_init(|| {
                    #probe
                    let mut server_info = #p::Implementation::builder()
                        .name(::std::string::String::from(#name))
                        .version(::std::string::String::from(#version))
                        .build();
                    #(#info)*
                    let mut capabilities = #p::ServerCapabilities::new();
                    #(#caps)*
                    #p::Arc::new(#p::checked_declaration(server_info, &[#(#modern),*], &[#(#legacy),*])
                        .with_capabilities(capabilities)
                        #options)
                }))
            }

            fn dispatch_capability<'a>(
                &'a self,
                request: #p::ClientRequest,
                ctx: &'a #p::RequestContext,
            ) -> impl #p::Future<Output = #p::HandlerResult<#p::Reply>> + ::core::marker::Send + 'a {
                #probe
                // The handler's boxed future as is: no future of our own
                // around it, which would hold the request too.
                let routed: #p::BoxFuture<'a> = match #p::capability_of(&request) {
                    #(#routes)*
                    #p::Capability::None => #p::unrouted(&request),
                };
                routed
            }

            fn tool_param_headers(&self, name: &str) -> ::core::option::Option<::std::vec::Vec<#p::ParamHeader>> {
                #probe
                probe.tool_headers(self, name)
            }

            fn tool_task_support(&self, name: &str) -> #p::TaskSupport {
                #probe
                probe.tool_tasks(self, name)
            }

            fn tool_scopes(&self) -> #p::ToolScopes {
                #probe
                probe.tool_scopes_of(self)
            }

            fn catalogue_problems(&self) -> ::std::vec::Vec<::std::string::String> {
                #probe
                let mut problems = probe.tool_problems(self);
                problems.extend(probe.resource_problems(self));
                problems
            }
        }

        #[automatically_derived]
        impl #impl_generics #p::Derived for #ident #ty_generics #where_clause {
            const GENERIC: bool = #generic;
            const RESOURCES: bool = #resources_written;
            const EXTENSIONS: &'static [&'static str] = &[#(#extension_ids),*];
        }
    }
}

/// The server's name and version (else the package's), and what is set on
/// its `Implementation`.
fn server_info(p: &TokenStream, attrs: &Attrs) -> (TokenStream, TokenStream, Vec<TokenStream>) {
    let name = attrs
        .name
        .as_ref()
        .map_or_else(|| quote!(::core::env!("CARGO_PKG_NAME")), |n| quote!(#n));
    let version = attrs
        .version
        .as_ref()
        .map_or_else(|| quote!(::core::env!("CARGO_PKG_VERSION")), |v| quote!(#v));
    let mut info = Vec::new();
    if let Some(t) = some_string(attrs.title.as_ref()) {
        info.push(quote!(server_info.title = #t;));
    }
    if let Some(d) = some_string(attrs.description.as_ref()) {
        info.push(quote!(server_info.description = #d;));
    }
    if let Some(w) = some_string(attrs.website.as_ref()) {
        info.push(quote!(server_info.website_url = #w;));
    }
    if !attrs.icons.is_empty() {
        let icons = attrs.icons.iter().filter_map(|icon| icon_value(p, icon));
        info.push(
            quote!(server_info.icons = ::core::option::Option::Some(::std::vec![#(#icons),*]);),
        );
    }

    (name, version, info)
}

/// The statements that fill `capabilities`.
fn capabilities(p: &TokenStream, attrs: &Attrs) -> Vec<TokenStream> {
    // A capability is declared when `#[mcp(...)]` writes it (with its
    // settings, and the handler trait required) or when the server
    // implements its handler trait (a router's completions: when something
    // completes).
    let mut caps = Vec::new();
    let flag = |on: bool, field: TokenStream| {
        on.then(|| quote!(c.#field = ::core::option::Option::Some(true);))
    };
    let values = [
        (
            &attrs.tools,
            quote!(tools),
            attrs.tools.as_ref().map_or_else(Vec::new, |c| {
                vec![flag(c.list_changed, quote!(list_changed))]
            }),
            quote!(#p::ServerCapabilitiesTools),
        ),
        (
            &attrs.resources,
            quote!(resources),
            attrs.resources.as_ref().map_or_else(Vec::new, |c| {
                vec![
                    flag(c.list_changed, quote!(list_changed)),
                    flag(c.subscribe, quote!(subscribe)),
                ]
            }),
            quote!(#p::ServerCapabilitiesResources),
        ),
        (
            &attrs.prompts,
            quote!(prompts),
            attrs.prompts.as_ref().map_or_else(Vec::new, |c| {
                vec![flag(c.list_changed, quote!(list_changed))]
            }),
            quote!(#p::ServerCapabilitiesPrompts),
        ),
        (
            &attrs.completions,
            quote!(completions),
            Vec::new(),
            quote!(#p::JSONObject),
        ),
    ];
    for (written, field, sets, ty) in values {
        caps.push(match written {
            Some(cap) => {
                let value = capability_value(ty, sets);
                let requires = quote::format_ident!("requires_{}", field.to_string());
                let required = quote_spanned!(cap.ident.span()=> #p::probe::#requires::<Self>());
                quote! {
                    #required;
                    capabilities.#field = ::core::option::Option::Some(#value);
                }
            }
            None => {
                let offers = quote::format_ident!("offers_{}", field.to_string());
                quote! {
                    if probe.#offers(self) {
                        capabilities.#field = ::core::option::Option::Some(#ty::new());
                    }
                }
            }
        });
    }
    if attrs.logging.is_some() {
        caps.push(
            quote!(capabilities.logging = ::core::option::Option::Some(#p::JSONObject::new());),
        );
    }
    for (field, entries) in [
        (quote!(experimental), &attrs.experimental),
        (quote!(extensions), &attrs.extensions),
    ] {
        if !entries.is_empty() {
            let inserts = entries.iter().map(|e| settings(p, e));
            caps.push(quote!(capabilities.#field = ::core::option::Option::Some({
                let mut map = ::std::collections::BTreeMap::new();
                #(#inserts)*
                map
            });));
        }
    }

    caps
}

/// The declaration's builder calls after its capabilities: instructions,
/// caching and scopes.
fn declaration_options(p: &TokenStream, attrs: &Attrs, checked: &Checked) -> TokenStream {
    let instructions = if let Some(text) = &attrs.instructions {
        Some(quote!(.with_instructions(#text)))
    } else {
        attrs.instructions_file.as_ref().map(|file| {
            quote_spanned!(file.span()=> .with_instructions(::core::include_str!(::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), "/", #file))))
        })
    };
    let ttl = checked
        .ttl_ms
        .map_or_else(|| quote!(#p::DEFAULT_DISCOVER_TTL_MS), |t| quote!(#t));
    let scope = match checked.scope_public {
        None => quote!(#p::DEFAULT_DISCOVER_CACHE_SCOPE),
        Some(true) => quote!(#p::CacheScope::Public),
        Some(false) => quote!(#p::CacheScope::Private),
    };
    // Emitted only when `cache(...)` is written, so other expansions stay as they were.
    let cache = (attrs.cache_ttl_ms.is_some() || attrs.cache_scope.is_some()).then(|| {
        let ttl = checked
            .cache_ttl_ms
            .map_or_else(|| quote!(#p::DEFAULT_CACHE_TTL_MS), |t| quote!(#t));
        let scope = match checked.cache_scope_public {
            None => quote!(#p::DEFAULT_CACHE_SCOPE),
            Some(true) => quote!(#p::CacheScope::Public),
            Some(false) => quote!(#p::CacheScope::Private),
        };
        quote!(.with_cache_defaults(#ttl, #scope))
    });
    // Emitted only when written (and not empty: `[]` has no element type
    // to infer), so other expansions stay as they were.
    let required_scopes = attrs
        .scopes
        .as_ref()
        .filter(|scopes| !scopes.list.is_empty())
        .map(|scopes| {
            let list = &scopes.list;
            quote!(.with_required_scopes([#(#list),*]))
        });
    let capability_scopes = [
        ("tools", &attrs.tools),
        ("resources", &attrs.resources),
        ("prompts", &attrs.prompts),
        ("completions", &attrs.completions),
    ]
    .into_iter()
    .filter_map(|(key, cap)| {
        let list = &cap.as_ref()?.scopes.as_ref()?.list;
        (!list.is_empty()).then(|| quote!(.with_capability_scopes(#key, [#(#list),*])))
    });
    quote! {
        #instructions
        .with_discover_cache(#ttl, #scope)
        #cache
        #required_scopes
        #(#capability_scopes)*
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}
