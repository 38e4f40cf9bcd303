//! `resources![a, b]` and `prompts![a, b]`: the paths of annotated functions -> the runtime's
//! set, with every pair compared at compile time (URIs for resources, names for prompts).
//!
//! As for `tools![...]`, each entry is named once at its path (`<path as StaticResource>::ENTRY`,
//! where the compiler checks that it is an annotated function), and a constant per entry
//! panics (a compile error, spanned at the entry) when it repeats an earlier one.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use crate::check::{self, ValidToolList};
use crate::expand::{debug_print, private_path};
use crate::model::ToolList;

/// Which list macro.
#[derive(Clone, Copy)]
pub enum Kind {
    Resources,
    Prompts,
}

/// Everything `resources![...]` or `prompts![...]` expands to.
pub fn list(kind: Kind, input: TokenStream) -> TokenStream {
    let tokens = ToolList::from_syn(input)
        .and_then(check::tool_list)
        .map_or_else(|error| error.to_compile_error(), |list| expand(kind, &list));
    let label = match kind {
        Kind::Resources => "resources",
        Kind::Prompts => "prompts",
    };
    debug_print(label, &tokens);
    tokens
}

fn expand(kind: Kind, list: &ValidToolList) -> TokenStream {
    let p = private_path();
    let (set, trait_name, entry, from, duplicate) = match kind {
        Kind::Resources => (
            quote!(#p::Resources),
            quote!(#p::StaticResource),
            quote!(#p::ResourceEntry),
            quote!(#p::resources_from),
            quote!(#p::duplicate_route_message),
        ),
        Kind::Prompts => (
            quote!(#p::Prompts),
            quote!(#p::StaticPrompt),
            quote!(#p::PromptEntry),
            quote!(#p::prompts_from),
            quote!(#p::duplicate_prompt_message),
        ),
    };
    if list.paths.is_empty() {
        return quote!(#set::new());
    }
    let entries_ident = Ident::new("__MCP_ENTRIES", Span::mixed_site());
    let listed_ident = Ident::new("__MCP_LISTED", Span::mixed_site());
    let entries = list
        .paths
        .iter()
        .map(|path| quote_spanned!(path.span()=> <#path as #trait_name>::ENTRY));
    let written = list
        .paths
        .iter()
        .map(|path| path.to_token_stream().to_string().replace(' ', ""));
    let checks = list.paths.iter().enumerate().skip(1).map(|(index, path)| {
        let message = Ident::new("__mcp_message", Span::mixed_site());
        quote_spanned! {path.span()=>
            const _: () = if let ::core::option::Option::Some(#message) =
                #duplicate(#entries_ident, #listed_ident, #index)
            {
                ::core::panic!("{}", #message.as_str())
            };
        }
    });
    quote! {{
        const #entries_ident: &[#entry] = &[#(#entries),*];
        const #listed_ident: &[&str] = &[#(#written),*];
        #(#checks)*
        #from(#entries_ident)
    }}
}
