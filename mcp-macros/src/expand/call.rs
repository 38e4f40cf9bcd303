//! The call of the user's function inside a generated handler, shared by resources and prompts.

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, ReturnType};

use super::private_path;

/// A boxed future that calls `item` with `values` and hands its output to `convert`: awaited in
/// place for an `async fn`, on the blocking pool for a plain `fn` (which may block), yielding
/// `on_cancel` when that blocking call is cancelled. `convert` gets the output's local and the
/// return type's span, so a return type without the needed trait is an error at that type.
pub fn call_user_fn(
    item: &ItemFn,
    values: &[Ident],
    convert: impl FnOnce(&Ident, Span) -> TokenStream,
    on_cancel: TokenStream,
) -> TokenStream {
    let p = private_path();
    let ident = &item.sig.ident;
    let output_span = match &item.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => ident.span(),
    };
    let output = Ident::new("__mcp_output", Span::mixed_site().located_at(output_span));
    let convert = convert(&output, output_span);
    if item.sig.asyncness.is_some() {
        quote_spanned! {ident.span()=>
            ::std::boxed::Box::pin(async move {
                let #output = #ident(#(#values),*).await;
                #convert
            })
        }
    } else {
        quote_spanned! {ident.span()=>
            ::std::boxed::Box::pin(#p::run_blocking_value(
                move || {
                    let #output = #ident(#(#values),*);
                    #convert
                },
                #on_cancel,
            ))
        }
    }
}
