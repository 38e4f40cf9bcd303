//! `#[mcp_server]` on `impl Service { ... }`: the block and its marked methods -> [`model`] ->
//! [`check`] (each method by the rules of its attribute) -> [`expand`], or the fallback when
//! `check` reports problems.

mod check;
mod expand;
mod model;

use proc_macro2::TokenStream;
use quote::quote;

pub use model::is_method_marker;

use crate::shared::expand::debug_print;
use crate::shared::fallback;

/// Everything `#[mcp_server(args)]` on `item` expands to.
pub fn attribute(args: TokenStream, item: TokenStream) -> TokenStream {
    let server = match model::ServerImpl::from_syn(args, item.clone()) {
        Ok(server) => server,
        Err(error) => return fallback::unparsed(item, &error),
    };
    let label = match &*server.item.self_ty {
        syn::Type::Path(path) => path
            .path
            .segments
            .last()
            .map_or_else(String::new, |segment| segment.ident.to_string()),
        _ => String::new(),
    };
    let item = server.item.clone();
    let tokens = match check::server(server) {
        Ok(valid) => expand::server(&valid),
        Err(errors) => fallback_server(&item, &errors),
    };
    debug_print(&label, &tokens);
    tokens
}

/// The block as written (inner attributes rewritten to their marker, so they emit the methods
/// untouched), the errors, and an `McpService` impl that never runs (the crate does not
/// compile), so `Server::service(value)` adds no error of its own. A generic block or a trait's
/// impl gets none: its type cannot be named alone.
fn fallback_server(item: &syn::ItemImpl, error: &syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    if item.trait_.is_some() || !item.generics.params.is_empty() {
        return quote! {
            #item
            #errors
        };
    }
    let self_ty = &item.self_ty;
    let bound = expand::shared_bound(self_ty);
    let service = expand::service_impl(self_ty, &bound, &[], &[], &[]);
    let assert = expand::assert_shared(self_ty);
    quote! {
        #item
        #errors
        const _: () = {
            #assert
            #service
        };
    }
}
