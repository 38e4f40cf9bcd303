//! `#[mcp_server]` on `impl Service { ... }`: the block and its marked methods -> [`model`] ->
//! [`check`] (each method by the rules of its attribute) -> [`expand`], or the fallback when
//! `check` reports problems.

mod check;
mod expand;
mod model;

use proc_macro2::TokenStream;

pub use model::is_method_marker;

use crate::shared::expand::debug_print;
use crate::shared::fallback;

/// Everything `#[mcp_server(args)]` on `item` expands to.
pub fn attribute(args: TokenStream, item: TokenStream) -> TokenStream {
    let server = match model::ServerImpl::from_syn(args, item.clone()) {
        Ok(server) => server,
        Err(error) => return fallback::expand(&item, &error, None),
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
        Err(errors) => fallback::expand(&item, &errors, expand::dummy(&item)),
    };
    debug_print(&label, &tokens);
    tokens
}
