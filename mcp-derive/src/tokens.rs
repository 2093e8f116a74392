//! Token builders both macros share: `String` and `Option<String>`
//! values, and an `Icon`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::internals::attr::Icon;

/// An `Icon` value; `None` when `src` is missing (already an error).
pub fn icon_value(p: &TokenStream, icon: &Icon) -> Option<TokenStream> {
    let src = string(icon.src.as_ref()?);
    let mime = some_string(icon.mime_type.as_ref()).map(|m| quote!(icon.mime_type = #m;));
    let sizes = (!icon.sizes.is_empty()).then(|| {
        let sizes = &icon.sizes;
        quote!(icon.sizes = ::core::option::Option::Some(::std::vec![#(::std::string::String::from(#sizes)),*]);)
    });
    let theme = icon.theme.as_ref().map(|t| {
        let variant = if t.value() == "dark" {
            quote!(Dark)
        } else {
            quote!(Light)
        };
        quote!(icon.theme = ::core::option::Option::Some(#p::IconTheme::#variant);)
    });
    Some(quote!({
        let mut icon = #p::Icon::new(#src);
        #mime #sizes #theme
        icon
    }))
}

/// `String::from(lit)`.
pub fn string(lit: &syn::LitStr) -> TokenStream {
    quote!(::std::string::String::from(#lit))
}

/// `Some(String::from(lit))`.
pub fn some_string(lit: Option<&syn::LitStr>) -> Option<TokenStream> {
    lit.map(|lit| {
        let s = string(lit);
        quote!(::core::option::Option::Some(#s))
    })
}
