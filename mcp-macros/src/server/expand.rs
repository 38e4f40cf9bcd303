//! A validated `#[mcp_server]` impl -> the block as written (inner attributes rewritten to
//! their marker), a handler struct per tool, resource and prompt holding the `Arc<Service>`,
//! and `McpService` for the type.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemImpl, Type};

use super::check::ValidServer;
use crate::prompt::method_prompt;
use crate::resource::method_resource;
use crate::shared::expand::local;
use crate::shared::paths;
use crate::shared::syntax::unraw;
use crate::tool::method_tool;

/// Everything `#[mcp_server]` expands to for `server`.
pub fn server(server: &ValidServer) -> TokenStream {
    let item = &server.item;
    let self_ty = &server.self_ty;
    let bound = shared_bound(self_ty);
    let mut names = Vec::new();
    let mut handler_ident = |kind: &str, function: &Ident| {
        let base = format!("__mcp_{kind}_{}", unraw(function));
        let mut name = base.clone();
        let mut n = 1;
        while names.contains(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        names.push(name.clone());
        Ident::new(&name, Span::mixed_site())
    };
    let tools: Vec<Ident> = server
        .tools
        .iter()
        .map(|tool| handler_ident("tool", tool.fn_ident()))
        .collect();
    let resources: Vec<Ident> = server
        .resources
        .iter()
        .map(|resource| handler_ident("resource", resource.fn_ident()))
        .collect();
    let prompts: Vec<Ident> = server
        .prompts
        .iter()
        .map(|prompt| handler_ident("prompt", prompt.fn_ident()))
        .collect();
    let handlers = server
        .tools
        .iter()
        .zip(&tools)
        .map(|(tool, handler)| method_tool(tool, handler, self_ty, &bound))
        .chain(
            server
                .resources
                .iter()
                .zip(&resources)
                .map(|(resource, handler)| method_resource(resource, handler, self_ty, &bound)),
        )
        .chain(
            server
                .prompts
                .iter()
                .zip(&prompts)
                .map(|(prompt, handler)| method_prompt(prompt, handler, self_ty, &bound)),
        );
    let service = service_impl(self_ty, &bound, &tools, &resources, &prompts);
    let assert = assert_shared(self_ty);
    quote! {
        #item

        const _: () = {
            #assert

            #(#handlers)*

            #service
        };
    }
}

/// The fallback's dummy for the block `item` (its inner attributes rewritten to their marker, so
/// they emit the methods untouched): an `McpService` impl serving nothing, so
/// `Server::service(value)` adds no error of its own. A generic block or a trait's impl gets
/// none: its type cannot be named alone.
pub fn dummy(item: &ItemImpl) -> Option<TokenStream> {
    if item.trait_.is_some() || !item.generics.params.is_empty() {
        return None;
    }
    let self_ty = &item.self_ty;
    let bound = shared_bound(self_ty);
    let service = service_impl(self_ty, &bound, &[], &[], &[]);
    let assert = assert_shared(self_ty);
    Some(quote! {
        const _: () = {
            #assert
            #service
        };
    })
}

/// `impl McpService for Service`: each set gets a handler per method, holding a clone of the
/// `Arc`.
fn service_impl(
    self_ty: &Type,
    bound: &TokenStream,
    tools: &[Ident],
    resources: &[Ident],
    prompts: &[Ident],
) -> TokenStream {
    let p = paths::private();
    let set = local("__mcp_set");
    quote! {
        impl #p::McpService for #self_ty #bound {
            fn add_tools(self: &::std::sync::Arc<Self>, #set: #p::Tools) -> #p::Tools {
                #p::ServiceTools::new(#set)
                    #(.with(#tools(::std::sync::Arc::clone(self)), #tools::checked_definition()))*
                    .finish()
            }

            fn add_resources(
                self: &::std::sync::Arc<Self>,
                #set: #p::Resources,
            ) -> #p::Resources {
                #set #(.with(#resources(::std::sync::Arc::clone(self))))*
            }

            fn add_prompts(self: &::std::sync::Arc<Self>, #set: #p::Prompts) -> #p::Prompts {
                #set #(.with(#prompts(::std::sync::Arc::clone(self))))*
            }
        }
    }
}

/// The check that the type can be served, at the type: its error says what is required; the
/// errors of [`shared_bound`] then name the fields that are not.
fn assert_shared(self_ty: &Type) -> TokenStream {
    let p = paths::private();
    quote_spanned! {self_ty.span()=>
        const _: () = #p::assert_service::<#self_ty>();
    }
}

/// `where Service: Send + Sync + 'static`, at the type: every generated impl that needs the
/// service shared across threads says so the same way at the same tokens, so a type that is
/// not is reported once (rustc merges identical errors), at the type, rather than at every
/// impl and every `async` method.
fn shared_bound(self_ty: &Type) -> TokenStream {
    quote_spanned! {self_ty.span()=>
        where #self_ty: ::core::marker::Send + ::core::marker::Sync + 'static
    }
}
