//! What the attribute expands to when the input has errors: the user's item as written (so the
//! rest of the crate and the IDE still see it), a `compile_error!` per problem, and a dummy
//! companion so `tools![name]` does not pile more errors on the same mistake.

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand;
use crate::model::ToolFn;

/// The item could not be read as a function at all: it goes out untouched.
pub fn unparsed(item: TokenStream, error: &syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    quote! {
        #item
        #errors
    }
}

/// The function was read but breaks rules: emit it (minus `#[arg]`), the errors, and a companion
/// whose trait impls are never run (the crate does not compile).
pub fn tool(tool: &ToolFn, error: &syn::Error) -> TokenStream {
    let item = &tool.function.item;
    let errors = error.to_compile_error();
    // A function taking `self` sits in an `impl` block, where a struct cannot be declared.
    if tool.function.receiver.is_some() {
        return quote! {
            #item
            #errors
        };
    }
    let p = expand::private_path();
    let ident = &item.sig.ident;
    let companion = expand::companion_struct(&item.vis, ident);
    let name = tool
        .attr
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
