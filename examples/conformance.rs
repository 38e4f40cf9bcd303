//! The server the official MCP conformance suite (`npx @modelcontextprotocol/conformance server
//! --url http://127.0.0.1:8080/mcp`) expects: the tools, resources and prompts its scenarios
//! call, each answering exactly as the scenario checks.
//!
//! Run it with `cargo run --example conformance -- --http 8080`.

use std::time::Duration;

use mcp_runtime::{
    CallToolResult, Content, GetPromptResult, LogLevel, PromptMessage, RequestContext,
    ResourceContents, Role, Server, mcp_prompt, mcp_resource, mcp_tool, prompts, resources,
    server_info, tools,
};

/// A 1x1 red pixel.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Four samples of 8-bit mono silence at 8 kHz.
fn wav() -> Vec<u8> {
    let mut wav = Vec::new();
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&40u32.to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&8000u32.to_le_bytes());
    wav.extend_from_slice(&8000u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes());
    wav.extend_from_slice(&8u16.to_le_bytes());
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&4u32.to_le_bytes());
    wav.extend_from_slice(&[0x80; 4]);
    wav
}

/// Simple text.
#[mcp_tool]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// An image.
#[mcp_tool]
fn test_image_content() -> CallToolResult {
    CallToolResult::success(vec![Content::image(PNG, "image/png")])
}

/// A sound.
#[mcp_tool]
fn test_audio_content() -> CallToolResult {
    CallToolResult::success(vec![Content::audio(wav(), "audio/wav")])
}

/// An embedded resource.
#[mcp_tool]
fn test_embedded_resource() -> CallToolResult {
    CallToolResult::success(vec![Content::embedded(
        ResourceContents::text(
            "test://embedded-resource",
            "This is an embedded resource content.",
        )
        .with_mime_type("text/plain"),
    )])
}

/// Text, an image and a resource.
#[mcp_tool]
fn test_multiple_content_types() -> CallToolResult {
    CallToolResult::success(vec![
        Content::text("Multiple content types test:"),
        Content::image(PNG, "image/png"),
        Content::embedded(
            ResourceContents::text(
                "test://mixed-content-resource",
                r#"{"test":"data","value":123}"#,
            )
            .with_mime_type("application/json"),
        ),
    ])
}

/// Logs three messages while it runs.
#[mcp_tool]
async fn test_tool_with_logging(context: RequestContext) -> &'static str {
    context.log(LogLevel::Info, "Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    context.log(LogLevel::Info, "Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    context.log(LogLevel::Info, "Tool execution completed");
    "Tool with logging executed successfully"
}

/// Always fails.
#[mcp_tool]
fn test_error_handling() -> CallToolResult {
    CallToolResult::error("This tool intentionally returns an error for testing")
}

/// Reports progress 0, 50, 100 of 100.
#[mcp_tool]
async fn test_tool_with_progress(context: RequestContext) -> &'static str {
    context.progress(0.0, Some(100.0), None);
    tokio::time::sleep(Duration::from_millis(50)).await;
    context.progress(50.0, Some(100.0), None);
    tokio::time::sleep(Duration::from_millis(50)).await;
    context.progress(100.0, Some(100.0), None);
    "Tool with progress executed successfully"
}

/// Static text.
#[mcp_resource("test://static-text", mime_type = "text/plain")]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// Static bytes.
#[mcp_resource("test://static-binary", mime_type = "image/png")]
fn static_binary() -> Vec<u8> {
    PNG.to_vec()
}

/// Data for an id.
#[mcp_resource("test://template/{id}/data", mime_type = "application/json")]
fn template_data(id: String) -> String {
    format!(r#"{{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}}"#)
}

/// A resource clients subscribe to.
#[mcp_resource("test://watched-resource", mime_type = "text/plain")]
fn watched_resource() -> &'static str {
    "Watched resource content"
}

/// A fixed prompt.
#[mcp_prompt]
fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// Suggestions for `arg1`: the words starting with what was typed.
fn complete_arg1(typed: &str) -> Vec<&'static str> {
    ["paris", "park", "party"]
        .into_iter()
        .filter(|word| word.starts_with(typed))
        .collect()
}

/// A prompt with two arguments.
///
/// # Arguments
/// * `arg1` - First test argument
/// * `arg2` - Second test argument
#[mcp_prompt(complete(arg1 = complete_arg1))]
fn test_prompt_with_arguments(arg1: String, arg2: String) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt embedding a resource.
///
/// # Arguments
/// * `resource_uri` - URI of the resource to embed
#[mcp_prompt]
fn test_prompt_with_embedded_resource(
    #[arg(rename = "resourceUri")] resource_uri: String,
) -> GetPromptResult {
    GetPromptResult::new(vec![
        PromptMessage::new(
            Role::User,
            Content::embedded(
                ResourceContents::text(resource_uri, "Embedded resource content for testing.")
                    .with_mime_type("text/plain"),
            ),
        ),
        PromptMessage::new(
            Role::User,
            Content::text("Please process the embedded resource above."),
        ),
    ])
}

/// A prompt with an image.
#[mcp_prompt]
fn test_prompt_with_image() -> GetPromptResult {
    GetPromptResult::new(vec![
        PromptMessage::new(Role::User, Content::image(PNG, "image/png")),
        PromptMessage::new(Role::User, Content::text("Please analyze the image above.")),
    ])
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new(server_info!())
        .tools(tools![
            test_simple_text,
            test_image_content,
            test_audio_content,
            test_embedded_resource,
            test_multiple_content_types,
            test_tool_with_logging,
            test_error_handling,
            test_tool_with_progress,
        ])
        .resources(resources![
            static_text,
            static_binary,
            template_data,
            watched_resource
        ])
        .prompts(prompts![
            test_simple_prompt,
            test_prompt_with_arguments,
            test_prompt_with_embedded_resource,
            test_prompt_with_image,
        ])
        .serve_from_args()
        .await
}
