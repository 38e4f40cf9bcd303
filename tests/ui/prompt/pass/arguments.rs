// Required, optional, defaulted, renamed and injected parameters, described either way; an icon.
#![deny(warnings)]

use mcp_runtime::{CancellationToken, RequestContext, mcp_prompt, prompts};

/// Review code.
///
/// # Arguments
/// * `language` - the language
/// * `code` - what to review
#[mcp_prompt(title = "Code review", icon = "https://example.com/review.svg")]
async fn review(
    language: String,
    code: String,
    strict: Option<bool>,
    #[arg(default = 3, description = "how many remarks")] remarks: u8,
    #[arg(rename = "focusArea")] focus_area: Option<String>,
    context: RequestContext,
    cancel: CancellationToken,
) -> String {
    let _ = (context.revision, cancel.is_cancelled());
    format!("{language} {code} {strict:?} {remarks} {focus_area:?}")
}

fn main() {
    let prompts = prompts![review];
    let definition = prompts.handlers()[0].definition();
    assert_eq!(definition.name, "review");
    assert_eq!(definition.title.as_deref(), Some("Code review"));
    assert_eq!(definition.description.as_deref(), Some("Review code."));
    assert_eq!(definition.icons.len(), 1);
    assert_eq!(definition.icons[0].src, "https://example.com/review.svg");
    let arguments: Vec<(&str, bool)> = definition
        .arguments
        .iter()
        .map(|argument| (&*argument.name, argument.required))
        .collect();
    assert_eq!(
        arguments,
        [
            ("language", true),
            ("code", true),
            ("strict", false),
            ("remarks", false),
            ("focusArea", false)
        ]
    );
    assert_eq!(definition.arguments[0].description.as_deref(), Some("the language"));
    assert_eq!(definition.arguments[3].description.as_deref(), Some("how many remarks"));
}
