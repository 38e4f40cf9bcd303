//! Procedural macros of `mcp-runtime`. Use them through `mcp_runtime`, which re-exports them.

use proc_macro::TokenStream;

/// Turn an `async fn` into an MCP tool. See `mcp_runtime` for the options.
#[proc_macro_attribute]
pub fn mcp_tool(_args: TokenStream, item: TokenStream) -> TokenStream {
    item
}

/// Build a `Tools` set from `#[mcp_tool]` functions: `tools![add, echo]`.
#[proc_macro]
pub fn tools(_input: TokenStream) -> TokenStream {
    "::mcp_runtime::Tools::new()".parse().unwrap()
}
