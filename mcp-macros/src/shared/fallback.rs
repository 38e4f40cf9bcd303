//! What an attribute expands to when its input has errors, thiserror-style: the input as
//! written (so the rest of the crate and the IDE still see it), a `compile_error!` per problem,
//! and a dummy standing in for the expansion, so that where the item is used (`tools![name]`,
//! `Server::service(value)`) no error piles onto the same mistake. The dummy never runs: the
//! crate does not compile.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::Ident;

use crate::shared::expand::companion;
use crate::shared::function::HandlerFn;

/// `item` as written, the errors, and `dummy`.
pub fn expand(item: &impl ToTokens, error: &syn::Error, dummy: Option<TokenStream>) -> TokenStream {
    let errors = error.to_compile_error();
    quote! {
        #item
        #errors
        #dummy
    }
}

/// The fallback of `#[mcp_tool]`, `#[mcp_resource]` or `#[mcp_prompt]` on `function`: the dummy
/// is its companion struct, carrying the traits `impls` writes for it. A function taking `self`
/// gets none: it sits in an `impl` block, where a struct cannot be declared.
pub fn function(
    function: &HandlerFn,
    error: &syn::Error,
    impls: impl FnOnce(&Ident) -> TokenStream,
) -> TokenStream {
    let ident = function.ident();
    let dummy = function
        .receiver
        .is_none()
        .then(|| companion(&function.item.vis, ident, impls(ident)));
    expand(&function.item, error, dummy)
}
