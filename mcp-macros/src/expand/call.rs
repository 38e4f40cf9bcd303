//! The call of the user's function inside a generated handler, shared by tools, resources and
//! prompts.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, ReturnType};

use super::private_path;
use crate::rules::Callee;

/// A boxed future that calls `item` with `values` and hands its output to `convert`: awaited in
/// place for an `async fn`, on a thread of the runtime's for a plain `fn` (which may block).
/// `convert` gets the output's local and the return type's span, so a return type without the
/// needed trait is an error at that type.
///
/// A method is called on the `Arc` its handler holds (`self.0`), cloned into the future.
pub fn call_user_fn(
    item: &ItemFn,
    callee: &Callee,
    values: &[Ident],
    convert: impl FnOnce(&Ident, Span) -> TokenStream,
) -> TokenStream {
    let p = private_path();
    let ident = &item.sig.ident;
    let output_span = match &item.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => ident.span(),
    };
    let output = Ident::new("__mcp_output", Span::mixed_site().located_at(output_span));
    let convert = convert(&output, output_span);
    let service = Ident::new("__mcp_service", Span::mixed_site());
    let (setup, function, receiver) = match callee {
        Callee::Free => (None, quote!(#ident), None),
        Callee::Associated(self_ty) => (None, quote!(<#self_ty>::#ident), None),
        Callee::Method(self_ty) => (
            Some(quote!(let #service = ::std::sync::Arc::clone(&self.0);)),
            quote!(<#self_ty>::#ident),
            Some(quote!(&*#service,)),
        ),
    };
    let run = if item.sig.asyncness.is_some() {
        quote_spanned! {ident.span()=>
            ::std::boxed::Box::pin(async move {
                let #output = #function(#receiver #(#values),*).await;
                #convert
            })
        }
    } else {
        quote_spanned! {ident.span()=>
            ::std::boxed::Box::pin(#p::run_blocking(move || {
                let #output = #function(#receiver #(#values),*);
                #convert
            }))
        }
    };
    match setup {
        None => run,
        Some(setup) => quote! {{
            #setup
            #run
        }},
    }
}
