//! `tools![a, b]`, `resources![a, b]` and `prompts![a, b]`: the paths of annotated functions ->
//! the runtime's set, with every pair compared at compile time (names for tools and prompts,
//! URIs for resources). One pipeline for the three: they differ only in the runtime's names.
//!
//! The macro sees only the listed paths; the names are constants the compiler knows. So each
//! entry is named once, spanned at its path (`<path as StaticTool>::ENTRY`, where the compiler
//! checks that it is an annotated function), and for each entry a constant compares it with
//! those before it, panicking (a compile error, spanned at the entry) on a repeat.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::Parser as _;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Ident, Path, Token};

use crate::shared::ctxt::Ctxt;
use crate::shared::expand::{debug_print, local};
use crate::shared::paths;

/// Which list macro.
#[derive(Clone, Copy)]
pub enum Kind {
    Tools,
    Resources,
    Prompts,
}

/// The paths of a list every rule accepted.
struct ValidList {
    paths: Vec<Path>,
}

/// Everything `tools![...]`, `resources![...]` or `prompts![...]` expands to.
pub fn list(kind: Kind, input: TokenStream) -> TokenStream {
    let tokens = Punctuated::<Path, Token![,]>::parse_terminated
        .parse2(input)
        .and_then(|paths| check(paths.into_iter().collect()))
        .map_or_else(|error| error.to_compile_error(), |list| expand(kind, &list));
    let label = match kind {
        Kind::Tools => "tools",
        Kind::Resources => "resources",
        Kind::Prompts => "prompts",
    };
    debug_print(label, &tokens);
    tokens
}

/// An entry listed twice would be offered twice under one name (or URI), which clients reject.
fn check(paths: Vec<Path>) -> syn::Result<ValidList> {
    let mut cx = Ctxt::new();
    let written: Vec<String> = paths
        .iter()
        .map(|path| path.to_token_stream().to_string())
        .collect();
    for (index, path) in paths.iter().enumerate() {
        if written[..index].contains(&written[index]) {
            cx.error_spanned(path, format!("`{}` is listed twice", written[index]));
        }
    }
    cx.check().map(|()| ValidList { paths })
}

fn expand(kind: Kind, list: &ValidList) -> TokenStream {
    let p = paths::private();
    let (set, trait_name, entry, from, duplicate) = match kind {
        Kind::Tools => (
            quote!(#p::Tools),
            quote!(#p::StaticTool),
            quote!(#p::ToolEntry),
            quote!(#p::tools_from),
            quote!(#p::duplicate_name_message),
        ),
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
        let message = local("__mcp_message");
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
