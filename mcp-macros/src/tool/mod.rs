//! `#[mcp_tool(...)]`: attribute and function -> [`check`] -> [`expand`], or the fallback when
//! `check` reports problems.

mod attr;
mod check;
mod expand;

use proc_macro2::TokenStream;
use quote::quote;

pub use attr::{ToolAttr, tool_attr};
pub use check::{ValidTool, tool as check_tool};
pub use expand::method_tool;

use crate::shared::ctxt::Ctxt;
use crate::shared::expand::{companion_struct, debug_print};
use crate::shared::fallback;
use crate::shared::function::{self, HandlerFn, Owner};
use crate::shared::paths;

/// Everything `#[mcp_tool(args)]` on `item` expands to.
pub fn attribute(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new();
    let item_fn = match function::parse_fn(item.clone(), "#[mcp_tool]") {
        Ok(item_fn) => item_fn,
        Err(error) => return fallback::unparsed(item, &error),
    };
    // The options before the function, as written: their problems are reported first.
    let attr = attr::tool_attr(args, &mut cx);
    let function = HandlerFn::from_fn(item_fn, Owner::Free, "#[mcp_tool]", &mut cx);
    let label = function.ident().to_string();
    let tokens = match check::tool(&function, &attr, cx) {
        Ok(valid) => expand::tool(&valid),
        Err(errors) => fallback_tool(&function, &attr, &errors),
    };
    debug_print(&label, &tokens);
    tokens
}

/// The function as written (minus `#[arg]`), the errors, and a companion whose impls never run
/// (the crate does not compile), so `tools![name]` adds no error of its own.
fn fallback_tool(function: &HandlerFn, attr: &ToolAttr, error: &syn::Error) -> TokenStream {
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
    let ident = &item.sig.ident;
    let companion = companion_struct(&item.vis, ident);
    let name = attr
        .name
        .as_ref()
        .map_or_else(|| ident.to_string(), |name| name.value.clone());
    quote! {
        #item
        #errors
        #companion
        const _: () = {
            impl #p::StaticTool for #ident {
                const NAME: &'static str = #name;
                const INSTANCE: Self = #ident {};
                fn checked_definition(
                ) -> &'static ::core::result::Result<#p::ToolDefinition, #p::SchemaError> {
                    ::core::unreachable!()
                }
            }
            impl #p::ToolHandler for #ident {
                fn definition(&self) -> #p::ToolDefinition {
                    ::core::unreachable!()
                }
                fn call(
                    &self,
                    _: #p::ToolCall,
                ) -> #p::BoxFuture<'static, #p::CallToolResult> {
                    ::core::unreachable!()
                }
            }
        };
    }
}
