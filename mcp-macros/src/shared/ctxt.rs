//! The error accumulator every stage reports into, so one run of the macro reports every mistake
//! (each at its own tokens) instead of stopping at the first.

use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Errors gathered while reading and checking one macro input.
#[derive(Default)]
pub struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt::default()
    }

    /// Record `message` at `span`.
    pub fn error_at(&mut self, span: Span, message: impl Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// Record `message` at all of `tokens` (first to last token).
    pub fn error_spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// Record an error syn produced.
    pub fn syn_error(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    #[cfg(test)]
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Every error recorded, combined into one (which expands to one `compile_error!` each);
    /// `Ok` when there were none.
    pub fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}
