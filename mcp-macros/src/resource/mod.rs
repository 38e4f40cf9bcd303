//! `#[mcp_resource("uri", ...)]`: attribute and function -> [`check`] -> [`expand`], or the
//! fallback when `check` reports problems.

mod attr;
mod check;
mod expand;
mod uri_template;

use proc_macro2::TokenStream;
use quote::quote;

pub use attr::{ResourceAttr, resource_attr};
pub use check::{ValidResource, resource as check_resource};
pub use expand::method_resource;

use crate::shared::ctxt::Ctxt;
use crate::shared::expand::{companion_struct, debug_print};
use crate::shared::fallback;
use crate::shared::function::HandlerFn;
use crate::shared::paths;

/// Everything `#[mcp_resource(args)]` on `item` expands to.
pub fn attribute(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new();
    let function = match HandlerFn::from_syn(item.clone(), "#[mcp_resource]", &mut cx) {
        Ok(function) => function,
        Err(error) => return fallback::unparsed(item, &error),
    };
    let attr = attr::resource_attr(args, &mut cx);
    let label = function.ident().to_string();
    let tokens = match check::resource(&function, &attr, cx) {
        Ok(valid) => expand::resource(&valid),
        Err(errors) => fallback_resource(&function, &errors),
    };
    debug_print(&label, &tokens);
    tokens
}

/// The function as written (minus `#[arg]`), the errors, and a companion whose impls never run
/// (the crate does not compile), so `resources![name]` adds no error of its own.
fn fallback_resource(function: &HandlerFn, error: &syn::Error) -> TokenStream {
    let item = &function.item;
    let errors = error.to_compile_error();
    // A function taking `self` sits in an `impl` block, where a struct cannot be declared.
    if function.receiver.is_some() {
        return quote! {
            #item
            #errors
        };
    }
    let p = paths::private();
    let ident = function.ident();
    let companion = companion_struct(&item.vis, ident);
    // Unique, so the duplicate check of `resources![...]` stays quiet.
    let route = format!("invalid:{ident}");
    quote! {
        #item
        #errors
        #companion
        const _: () = {
            impl #p::StaticResource for #ident {
                const ROUTE: &'static str = #route;
                const INSTANCE: Self = #ident {};
            }
            impl #p::ResourceHandler for #ident {
                fn definition(&self) -> #p::ResourceDefinition {
                    ::core::unreachable!()
                }
                fn read(
                    &self,
                    _: #p::ResourceRead,
                ) -> #p::BoxFuture<'static, #p::ReadOutcome> {
                    ::core::unreachable!()
                }
            }
        };
    }
}
