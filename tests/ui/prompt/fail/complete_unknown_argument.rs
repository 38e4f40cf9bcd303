// A completer for a name that is no argument would never be asked.
use mcp_runtime::mcp_prompt;

fn complete_lang(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

#[mcp_prompt(complete(lang = complete_lang))]
async fn review(language: String) -> String {
    language
}

fn main() {}
