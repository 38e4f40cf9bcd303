//! Procedural macros of `mcp-runtime`. Use them through `mcp_runtime`, which re-exports them.
//!
//! Each attribute is a fixed pipeline, serde_derive-style: its options (`attr`) and the item
//! (the model) -> `check` -> `expand`, or the fallback when `check` reports problems. Errors are
//! gathered in a `Ctxt` so every problem is reported at once, each at its tokens.
//!
//! - `tool/`, `resource/`, `prompt/`: `#[mcp_tool]`, `#[mcp_resource]`, `#[mcp_prompt]`, each as
//!   `attr`, `check` and `expand` of its own;
//! - `server/`: `#[mcp_server]`, whose methods go through those three;
//! - `list`: `tools![...]`, `resources![...]` and `prompts![...]`;
//! - `shared/`: what they all use (the error accumulator, the shared attribute parsing, the
//!   model of a function, the shared rules, pieces of expansion, the path to `__private` and the
//!   fallback).

mod list;
mod prompt;
mod resource;
mod server;
mod shared;
mod tool;

use proc_macro::TokenStream;

#[doc = include_str!("../docs/mcp_tool.md")]
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    method_or(args, item, tool::attribute)
}

#[doc = include_str!("../docs/tools.md")]
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    list::list(list::Kind::Tools, input.into()).into()
}

#[doc = include_str!("../docs/mcp_resource.md")]
#[proc_macro_attribute]
pub fn mcp_resource(args: TokenStream, item: TokenStream) -> TokenStream {
    method_or(args, item, resource::attribute)
}

#[doc = include_str!("../docs/resources.md")]
#[proc_macro]
pub fn resources(input: TokenStream) -> TokenStream {
    list::list(list::Kind::Resources, input.into()).into()
}

#[doc = include_str!("../docs/mcp_prompt.md")]
#[proc_macro_attribute]
pub fn mcp_prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    method_or(args, item, prompt::attribute)
}

#[doc = include_str!("../docs/mcp_server.md")]
#[proc_macro_attribute]
pub fn mcp_server(args: TokenStream, item: TokenStream) -> TokenStream {
    server::attribute(args.into(), item.into()).into()
}

#[doc = include_str!("../docs/prompts.md")]
#[proc_macro]
pub fn prompts(input: TokenStream) -> TokenStream {
    list::list(list::Kind::Prompts, input.into()).into()
}

/// A method `#[mcp_server]` has read (its attribute rewritten to the marker) goes out as it is;
/// anything else through `expand`.
fn method_or(
    args: TokenStream,
    item: TokenStream,
    expand: fn(proc_macro2::TokenStream, proc_macro2::TokenStream) -> proc_macro2::TokenStream,
) -> TokenStream {
    let args = proc_macro2::TokenStream::from(args);
    if server::is_method_marker(&args) {
        return item;
    }
    expand(args, item.into()).into()
}
