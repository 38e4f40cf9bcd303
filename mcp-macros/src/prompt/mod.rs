//! `#[mcp_prompt(...)]`: attribute and function -> [`check`] -> [`expand`], or the fallback
//! when `check` reports problems.

mod attr;
mod check;
mod expand;

use proc_macro2::TokenStream;

pub use attr::{PromptAttr, prompt_attr};
pub use check::{ValidPrompt, prompt as check_prompt};
pub use expand::method_prompt;

use crate::shared::ctxt::Ctxt;
use crate::shared::expand::debug_print;
use crate::shared::fallback;
use crate::shared::function::HandlerFn;

/// Everything `#[mcp_prompt(args)]` on `item` expands to.
pub fn attribute(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new();
    let function = match HandlerFn::from_syn(item.clone(), "#[mcp_prompt]", &mut cx) {
        Ok(function) => function,
        Err(error) => return fallback::expand(&item, &error, None),
    };
    let attr = attr::prompt_attr(args, &mut cx);
    let label = function.ident().to_string();
    let tokens = match check::prompt(&function, &attr, cx) {
        Ok(valid) => expand::prompt(&valid),
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
