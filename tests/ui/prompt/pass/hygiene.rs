// Names never clash with generated code: prompts, parameters and a completer named like the
// handler's parameters and locals.
#![deny(warnings)]

use mcp_runtime::{mcp_prompt, prompts};

#[mcp_prompt(complete(__mcp_arg_0 = __mcp_request))]
async fn clash(__mcp_arg_0: String, __mcp_reader: String, __mcp_values: u8) -> String {
    format!("{__mcp_arg_0}{__mcp_reader}{__mcp_values}")
}

fn __mcp_request(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

mod named {
    use mcp_runtime::mcp_prompt;

    #[mcp_prompt]
    pub async fn __mcp_request(__mcp_output: String) -> String {
        __mcp_output
    }
}

fn main() {
    let prompts = prompts![clash, named::__mcp_request];
    assert_eq!(prompts.handlers().len(), 2);
}
