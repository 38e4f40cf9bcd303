//! A framework server offering 50 `#[mcp_tool]` tools, to time `tools/list` on a server of a
//! realistic size. Every tool has the same shape as those `raw-baseline --tools 50` lists.

use mcp_runtime::{Server, Tools, mcp_tool, server_info, tools};

/// Declares one tool per name, all alike, and `all_tools()` offering them in order.
macro_rules! alike_tools {
    ($($name:ident),* $(,)?) => {
        $(
            /// Repeat the text, a number of times (a stand-in for a real tool).
            ///
            /// # Arguments
            /// * `text` - the text to repeat
            /// * `count` - how many times (default 1)
            /// * `upper` - whether to upper-case it
            #[mcp_tool(annotations(read_only))]
            async fn $name(text: String, count: Option<u32>, upper: bool) -> String {
                repeat(&text, count, upper)
            }
        )*

        fn all_tools() -> Tools {
            tools![$($name),*]
        }
    };
}

alike_tools![
    tool_01, tool_02, tool_03, tool_04, tool_05, tool_06, tool_07, tool_08, tool_09, tool_10,
    tool_11, tool_12, tool_13, tool_14, tool_15, tool_16, tool_17, tool_18, tool_19, tool_20,
    tool_21, tool_22, tool_23, tool_24, tool_25, tool_26, tool_27, tool_28, tool_29, tool_30,
    tool_31, tool_32, tool_33, tool_34, tool_35, tool_36, tool_37, tool_38, tool_39, tool_40,
    tool_41, tool_42, tool_43, tool_44, tool_45, tool_46, tool_47, tool_48, tool_49, tool_50,
];

fn repeat(text: &str, count: Option<u32>, upper: bool) -> String {
    let repeated = text.repeat(count.unwrap_or(1) as usize);
    if upper {
        repeated.to_uppercase()
    } else {
        repeated
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new(server_info!())
        .tools(all_tools())
        .serve_stdio()
        .await
}
