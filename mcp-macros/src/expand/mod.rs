//! Validated model -> tokens.

mod call;
mod paths;
mod tool;

use proc_macro2::TokenStream;

pub use call::call_user_fn;
pub use paths::private as private_path;
pub use tool::{companion_struct, method_tool, tool};

/// With `MCP_MACROS_DEBUG` set, print an expansion to stderr at compile time: `1` (or `all`)
/// prints every one, otherwise a comma-separated list of tool function names (and `tools` for
/// `tools![...]`) selects some.
///
/// Cargo does not rebuild when only an environment variable changes: touch the source file (or
/// `cargo clean -p <crate>`) to see an expansion again.
pub fn debug_print(label: &str, tokens: &TokenStream) {
    let Ok(wanted) = std::env::var("MCP_MACROS_DEBUG") else {
        return;
    };
    let selected = match wanted.trim() {
        "" | "0" | "false" => false,
        "1" | "true" | "all" => true,
        names => names.split(',').any(|name| name.trim() == label),
    };
    if selected {
        eprintln!("[mcp_macros] expansion of `{label}`:\n{tokens}\n");
    }
}
