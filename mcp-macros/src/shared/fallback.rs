//! What the attribute expands to when the input has errors: the user's item as written (so the
//! rest of the crate and the IDE still see it), a `compile_error!` per problem, and a dummy
//! companion so `tools![name]` does not pile more errors on the same mistake.

use proc_macro2::TokenStream;
use quote::quote;

/// The item could not be read as a function at all: it goes out untouched.
pub fn unparsed(item: TokenStream, error: &syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    quote! {
        #item
        #errors
    }
}
