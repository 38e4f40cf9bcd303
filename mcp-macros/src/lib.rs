//! Procedural macros of `mcp-runtime`. Use them through `mcp_runtime`, which re-exports them.
//!
//! Each macro is a fixed pipeline: attribute and item -> `model` (with `attr` and `docs`) ->
//! `check` -> `expand`, or `fallback` when `check` reports problems. Errors are gathered in a
//! `ctxt::Ctxt` so every problem is reported at once, each at its tokens.

mod attr;
mod check;
mod ctxt;
mod docs;
mod expand;
mod fallback;

mod listing;
mod model;
mod prompt;
mod resource;
mod rules;
mod server;
mod syntax;
mod uri_template;

use proc_macro::TokenStream;

#[doc = include_str!("../docs/mcp_tool.md")]
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    method_or(args, item, tool_attribute)
}

#[doc = include_str!("../docs/tools.md")]
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    listing::list(listing::Kind::Tools, input.into()).into()
}

#[doc = include_str!("../docs/mcp_resource.md")]
#[proc_macro_attribute]
pub fn mcp_resource(args: TokenStream, item: TokenStream) -> TokenStream {
    method_or(args, item, resource::attribute)
}

#[doc = include_str!("../docs/resources.md")]
#[proc_macro]
pub fn resources(input: TokenStream) -> TokenStream {
    listing::list(listing::Kind::Resources, input.into()).into()
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
    listing::list(listing::Kind::Prompts, input.into()).into()
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

fn tool_attribute(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    let mut cx = ctxt::Ctxt::new();
    let tool = match model::ToolFn::from_syn(args, item.clone(), &mut cx) {
        Ok(tool) => tool,
        Err(error) => return fallback::unparsed(item, &error),
    };
    let label = tool.function.ident().to_string();
    let tokens = match check::tool(&tool, cx) {
        Ok(valid) => expand::tool(&valid),
        Err(errors) => fallback::tool(&tool, &errors),
    };
    expand::debug_print(&label, &tokens);
    tokens
}
