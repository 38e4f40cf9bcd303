//! `#[mcp_prompt(...)]`: attribute and function -> [`check`] -> [`expand`], or the fallback
//! when `check` reports problems.

mod attr;
mod check;
mod expand;

use proc_macro2::TokenStream;
use quote::quote;

pub use attr::{PromptAttr, prompt_attr};
pub use check::{ValidPrompt, prompt as check_prompt};
pub use expand::method_prompt;

use crate::shared::ctxt::Ctxt;
use crate::shared::expand::{companion_struct, debug_print};
use crate::shared::fallback;
use crate::shared::function::HandlerFn;
use crate::shared::paths;

/// Everything `#[mcp_prompt(args)]` on `item` expands to.
pub fn attribute(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new();
    let function = match HandlerFn::from_syn(item.clone(), "#[mcp_prompt]", &mut cx) {
        Ok(function) => function,
        Err(error) => return fallback::unparsed(item, &error),
    };
    let attr = attr::prompt_attr(args, &mut cx);
    let label = function.ident().to_string();
    let tokens = match check::prompt(&function, &attr, cx) {
        Ok(valid) => expand::prompt(&valid),
        Err(errors) => fallback_prompt(&function, &attr, &errors),
    };
    debug_print(&label, &tokens);
    tokens
}

/// The function as written (minus `#[arg]`), the errors, and a companion whose impls never run
/// (the crate does not compile), so `prompts![name]` adds no error of its own.
fn fallback_prompt(
    function: &HandlerFn,
    attr: &attr::PromptAttr,
    error: &syn::Error,
) -> TokenStream {
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
    let name = attr
        .name
        .as_ref()
        .map_or_else(|| function.default_name(), |name| name.value.clone());
    quote! {
        #item
        #errors
        #companion
        const _: () = {
            impl #p::StaticPrompt for #ident {
                const NAME: &'static str = #name;
                const INSTANCE: Self = #ident {};
            }
            impl #p::PromptHandler for #ident {
                fn definition(&self) -> #p::PromptDefinition {
                    ::core::unreachable!()
                }
                fn get(
                    &self,
                    _: #p::PromptRequest,
                ) -> #p::BoxFuture<'static, #p::PromptOutcome> {
                    ::core::unreachable!()
                }
            }
        };
    }
}
