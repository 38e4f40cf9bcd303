//! `#[mcp_tool(...)]`: attribute and function -> [`check`] -> [`expand`], or the fallback when
//! `check` reports problems.

mod attr;
mod check;
mod expand;

use proc_macro2::TokenStream;

pub use attr::{ToolAttr, tool_attr};
pub use check::{ValidTool, tool as check_tool};
pub use expand::method_tool;

use crate::shared::ctxt::Ctxt;
use crate::shared::expand::debug_print;
use crate::shared::fallback;
use crate::shared::function::{self, HandlerFn, Owner};

/// Everything `#[mcp_tool(args)]` on `item` expands to.
pub fn attribute(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new();
    let item_fn = match function::parse_fn(item.clone(), "#[mcp_tool]") {
        Ok(item_fn) => item_fn,
        Err(error) => return fallback::expand(&item, &error, None),
    };
    // Read before the function, so its errors come first, as the options do in the source.
    let attr = attr::tool_attr(args, &mut cx);
    let function = HandlerFn::from_fn(item_fn, Owner::Free, "#[mcp_tool]", &mut cx);
    let label = function.ident().to_string();
    let tokens = match check::tool(&function, &attr, cx) {
        Ok(valid) => expand::tool(&valid),
        Err(errors) => {
            let name = function.name(attr.name.as_ref());
            fallback::function(&function, &errors, |ident| {
                expand::companion_impls(ident, &name, None)
            })
        }
    };
    debug_print(&label, &tokens);
    tokens
}
