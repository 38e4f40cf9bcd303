// Every supported return type compiles, from `async fn` and plain `fn`.
#![deny(warnings)]

use mcp_runtime::{GetPromptResult, PromptError, PromptMessage, mcp_prompt, prompts};

#[mcp_prompt]
async fn text() -> String {
    String::new()
}

#[mcp_prompt]
fn static_str() -> &'static str {
    ""
}

#[mcp_prompt]
async fn message() -> PromptMessage {
    PromptMessage::user("hi")
}

#[mcp_prompt]
async fn messages() -> Vec<PromptMessage> {
    vec![PromptMessage::user("hi"), PromptMessage::assistant("hello")]
}

#[mcp_prompt]
async fn described() -> GetPromptResult {
    GetPromptResult::new(Vec::new()).with_description("nothing")
}

#[mcp_prompt]
async fn fallible() -> Result<String, String> {
    Ok(String::new())
}

#[mcp_prompt]
fn internal() -> Result<Vec<PromptMessage>, PromptError> {
    Err(PromptError::internal("no"))
}

fn main() {
    let prompts = prompts![text, static_str, message, messages, described, fallible, internal];
    assert_eq!(prompts.handlers().len(), 7);
}
