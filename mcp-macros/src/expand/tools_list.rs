//! A validated `tools![...]` -> the `Tools` value, with every pair of names compared at compile
//! time.
//!
//! The macro sees only the listed paths; the names are constants the compiler knows. So each
//! entry is named once, spanned at its path (`<path as StaticTool>::ENTRY`, where the compiler
//! checks that it is an `#[mcp_tool]`), and for each entry a constant compares its name with
//! those before it, panicking (a compile error, spanned at the entry) on a repeat.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use super::paths;
use crate::check::ValidToolList;

pub fn tool_list(list: &ValidToolList) -> TokenStream {
    let p = paths::private();
    if list.paths.is_empty() {
        return quote!(#p::Tools::new());
    }
    let tools = Ident::new("__MCP_TOOLS", Span::mixed_site());
    let listed = Ident::new("__MCP_LISTED", Span::mixed_site());
    let entries = list
        .paths
        .iter()
        .map(|path| quote_spanned!(path.span()=> <#path as #p::StaticTool>::ENTRY));
    let written = list
        .paths
        .iter()
        .map(|path| path.to_token_stream().to_string().replace(' ', ""));
    let checks = list.paths.iter().enumerate().skip(1).map(|(index, path)| {
        let message = Ident::new("__mcp_message", Span::mixed_site());
        quote_spanned! {path.span()=>
            const _: () = if let ::core::option::Option::Some(#message) =
                #p::duplicate_name_message(#tools, #listed, #index)
            {
                ::core::panic!("{}", #message.as_str())
            };
        }
    });
    quote! {{
        const #tools: &[#p::ToolEntry] = &[#(#entries),*];
        const #listed: &[&str] = &[#(#written),*];
        #(#checks)*
        #p::tools_from(#tools)
    }}
}
