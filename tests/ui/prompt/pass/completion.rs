// Completers by function (either signature) and by enum variants; `has_completions` says so.
#![deny(warnings)]

use std::str::FromStr;

use mcp_runtime::{handler::CompletionContext, mcp_prompt, prompts};

#[derive(Debug, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Tone {
    Formal,
    Casual,
}

impl FromStr for Tone {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "formal" => Ok(Tone::Formal),
            "casual" => Ok(Tone::Casual),
            other => Err(format!("unknown tone {other}")),
        }
    }
}

fn complete_topic(typed: &str, context: &CompletionContext) -> Vec<String> {
    vec![format!("{typed} ({})", context.arguments.len())]
}

/// Write in a tone.
#[mcp_prompt(complete(topic = complete_topic))]
async fn write(topic: String, tone: Tone) -> String {
    format!("{topic} {tone:?}")
}

/// Write about anything.
#[mcp_prompt]
async fn toned(tone: Option<Tone>) -> String {
    format!("{tone:?}")
}

/// No completion here.
#[mcp_prompt]
async fn plain(topic: String) -> String {
    topic
}

fn main() {
    let prompts = prompts![write, toned, plain];
    let completes: Vec<bool> = prompts
        .handlers()
        .iter()
        .map(|handler| handler.has_completions())
        .collect();
    assert_eq!(completes, [true, true, false]);
}
