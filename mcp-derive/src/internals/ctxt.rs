//! Collects every error of one derive, so the user sees all mistakes at once.

use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// The error collector of one derive invocation.
#[derive(Default)]
pub struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// An empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records an error spanned at `tokens`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&mut self, tokens: T, message: M) {
        self.errors
            .push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records a `syn` error as is.
    pub fn syn_error(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// Whether any error was recorded.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Every recorded error as `compile_error!` invocations.
    pub fn into_compile_errors(self) -> TokenStream {
        self.errors
            .iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }
}
