//! Everything the code `#[mcp_tool]`, `#[mcp_resource]`, `#[mcp_prompt]`, `#[mcp_server]` and the
//! list macros generate names, and nothing else: not an API. Generated code names only
//! `::mcp_runtime::__private`, so the runtime can rearrange itself without breaking it.

mod meta;
mod resources_prompts;
mod tools;

pub use meta::*;
pub use resources_prompts::*;
pub use tools::*;

pub use std::borrow::Cow;
