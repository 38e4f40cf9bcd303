//! What the pipeline answers a request with.

use crate::protocol::{
    CallToolResult, Completion, Content, GetPromptResult, PromptDefinition, Resource, ResourceBody,
    ResourceContents, ResourceTemplate, ToolDefinition,
};

/// A request's answer on its way back through the layers: one variant per method, each
/// holding what the handler produced. A layer may change it (truncate a result, filter a
/// list) or make one itself; it must be the variant of the request's method (another is
/// answered as an internal error).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Response {
    /// The result of `tools/call`.
    Tool(CallToolResult),
    /// The contents `resources/read` returns.
    Resource(Vec<ResourceContents>),
    /// The result of `prompts/get`.
    Prompt(GetPromptResult),
    /// The values `completion/complete` suggests.
    Completion(Completion),
    /// Every tool `tools/list` shows (paged after the layers).
    Tools(Vec<ToolDefinition>),
    /// Every resource `resources/list` shows.
    Resources(Vec<Resource>),
    /// Every template `resources/templates/list` shows.
    ResourceTemplates(Vec<ResourceTemplate>),
    /// Every prompt `prompts/list` shows.
    Prompts(Vec<PromptDefinition>),
    /// A 2026-07-28 round ended with questions for the client: the request is answered with
    /// an `InputRequiredResult`, and a retry brings the answers.
    InputRequired,
}

impl Response {
    /// The bytes of a tool result's content and structured content, or of a read's
    /// contents, as sent (binary data counted as its base64); 0 for other responses.
    pub fn content_bytes(&self) -> usize {
        match self {
            Response::Tool(result) => {
                result.content.iter().map(content_bytes).sum::<usize>()
                    + result.structured_content.as_ref().map_or(0, json_bytes)
            }
            Response::Resource(contents) => contents.iter().map(contents_bytes).sum(),
            _ => 0,
        }
    }
}

/// How many bytes `value` takes as compact JSON, counted as it is written rather than built.
pub(super) fn json_bytes(value: &serde_json::Value) -> usize {
    struct Counting(usize);
    impl std::io::Write for Counting {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counting = Counting(0);
    serde_json::to_writer(&mut counting, value).expect("a JSON value always serializes");
    counting.0
}

pub(super) fn content_bytes(content: &Content) -> usize {
    match content {
        Content::Text { text } => text.len(),
        Content::Image { data, .. } | Content::Audio { data, .. } => data.len(),
        Content::Resource { resource } => contents_bytes(resource),
        Content::ResourceLink(_) => 0,
        Content::Annotated { content, .. } => content_bytes(content),
    }
}

pub(super) fn contents_bytes(contents: &ResourceContents) -> usize {
    match &contents.body {
        ResourceBody::Text(text) => text.len(),
        ResourceBody::Blob(bytes) => bytes.len().div_ceil(3) * 4,
    }
}
