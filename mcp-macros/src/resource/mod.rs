//! `#[mcp_resource("uri", ...)]`: attribute and function -> [`check`] -> [`expand`], or the
//! fallback when `check` reports problems.

mod attr;
mod check;
mod expand;
mod uri_template;

use proc_macro2::TokenStream;

pub use attr::{ResourceAttr, resource_attr};
pub use check::{ValidResource, ValidUri, resource as check_resource};
pub use expand::method_resource;

use crate::shared::ctxt::Ctxt;
use crate::shared::expand::debug_print;
use crate::shared::fallback;
use crate::shared::function::HandlerFn;

/// Everything `#[mcp_resource(args)]` on `item` expands to.
pub fn attribute(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new();
    let function = match HandlerFn::from_syn(item.clone(), "#[mcp_resource]", &mut cx) {
        Ok(function) => function,
        Err(error) => return fallback::expand(&item, &error, None),
    };
    let attr = attr::resource_attr(args, &mut cx);
    let label = function.ident().to_string();
    let tokens = match check::resource(&function, &attr, cx) {
        Ok(valid) => expand::resource(&valid),
        Err(errors) => {
            // Unique, so the duplicate check of `resources![...]` stays quiet.
            let route = format!("invalid:{}", function.ident());
            fallback::function(&function, &errors, |ident| {
                expand::companion_impls(ident, &route, None)
            })
        }
    };
    debug_print(&label, &tokens);
    tokens
}
