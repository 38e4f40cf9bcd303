//! The server the official MCP conformance suite (`npx @modelcontextprotocol/conformance server
//! --url http://127.0.0.1:8080/mcp`) expects: the tools, resources and prompts its scenarios
//! call, each answering exactly as the scenario checks.
//!
//! Run it with `cargo run --example conformance -- --http 8080`.

use std::sync::OnceLock;
use std::time::Duration;

use mcp_runtime::{
    AskError, CallToolResult, Content, Elicitation, GetPromptResult, LogLevel, Notifier,
    PromptMessage, RequestContext, ResourceContents, Role, Server, ask::SamplingRequest,
    handler::BoxFuture, handler::ToolAnnotations, handler::ToolCall, handler::ToolDefinition,
    handler::ToolHandler, mcp_prompt, mcp_resource, mcp_tool, prompts, resources, server_info,
    tools,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The server's notifier, for the tools that announce changes.
static NOTIFIER: OnceLock<Notifier> = OnceLock::new();

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

/// Lets go of the client's connection, works a little, then answers: the suite (scenario
/// `server-sse-polling`, SEP-1699) expects its POST stream to end after the priming event, and
/// the result on the GET it resumes the stream with (`Last-Event-ID`).
#[mcp_tool]
async fn test_reconnection(context: RequestContext) -> &'static str {
    context.release_connection();
    tokio::time::sleep(Duration::from_millis(500)).await;
    "Reconnection test completed successfully"
}

/// Logs while it runs; the 2026-07-28 suite checks that nothing is logged to a request that set
/// no `logLevel`.
#[mcp_tool]
async fn test_logging_tool(context: RequestContext) -> &'static str {
    context.log(LogLevel::Info, "Logging tool ran");
    "Logging tool executed successfully"
}

/// Announces that the prompt list changed (the suite checks listen streams get told).
#[mcp_tool]
fn test_trigger_prompt_change() -> &'static str {
    if let Some(notifier) = NOTIFIER.get() {
        notifier.prompt_list_changed();
    }
    "Prompt list change announced"
}

// Asking the client. In a legacy session each question is a request to the client (on the
// call's event stream); in 2026-07-28 the call ends with an `InputRequiredResult` and the client
// retries with the answers. The names given with `named` are the keys the prerelease suite
// expects in `inputRequests`.

fn ask_failed(error: AskError) -> String {
    format!("cannot ask the client: {error}")
}

/// How an elicitation ended, with the content when accepted.
fn elicitation_text<T: Serialize>(answer: &Elicitation<T>) -> String {
    match answer {
        Elicitation::Accepted(content) => format!(
            "action=accept, content={}",
            serde_json::to_string(content).unwrap_or_default()
        ),
        Elicitation::Declined => "action=decline".to_owned(),
        Elicitation::Cancelled => "action=cancel".to_owned(),
    }
}

/// Elicits a form of `T` and reports how it ended, as the suite's elicitation scenarios expect.
async fn elicitation_completed<T>(ctx: &RequestContext, message: &str) -> Result<String, String>
where
    T: Serialize + serde::de::DeserializeOwned + JsonSchema,
{
    let answer = ctx.elicit::<T>(message).await.map_err(ask_failed)?;
    Ok(format!(
        "Elicitation completed: {}",
        elicitation_text(&answer)
    ))
}

/// Asks the user the question named `key` with a form of `T`, as the suite expects it named.
async fn elicit_named<T>(
    ctx: &RequestContext,
    key: &str,
    message: &str,
) -> Result<Elicitation<T>, String>
where
    T: serde::de::DeserializeOwned + JsonSchema,
{
    ctx.named(key)
        .elicit::<T>(message)
        .await
        .map_err(ask_failed)
}

/// Asks the client's model to answer `prompt`.
///
/// # Arguments
/// * `prompt` - The prompt to send to the LLM
#[mcp_tool]
async fn test_sampling(prompt: String, ctx: RequestContext) -> Result<String, String> {
    let answer = ctx
        .sample(SamplingRequest::new(100).user(prompt))
        .await
        .map_err(ask_failed)?;
    Ok(format!(
        "LLM response: {}",
        answer.text().unwrap_or_default()
    ))
}

/// The user's details, for `test_elicitation`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct UserDetails {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// Asks the user for their details.
///
/// # Arguments
/// * `message` - The message to show the user
#[mcp_tool]
async fn test_elicitation(message: String, ctx: RequestContext) -> Result<String, String> {
    let answer = ctx
        .elicit::<UserDetails>(message)
        .await
        .map_err(ask_failed)?;
    Ok(format!("User response: {}", elicitation_text(&answer)))
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

fn default_name() -> String {
    "John Doe".to_owned()
}
fn default_age() -> u32 {
    30
}
fn default_score() -> f64 {
    95.5
}
fn default_status() -> Status {
    Status::Active
}
fn default_verified() -> bool {
    true
}

/// A form whose every field has a default (SEP-1034).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct WithDefaults {
    /// User name
    #[serde(default = "default_name")]
    name: String,
    /// User age
    #[serde(default = "default_age")]
    age: u32,
    /// User score
    #[serde(default = "default_score")]
    score: f64,
    /// User status
    #[serde(default = "default_status")]
    status: Status,
    /// Verification status
    #[serde(default = "default_verified")]
    verified: bool,
}

/// Elicits a form whose fields all have defaults (SEP-1034).
#[mcp_tool]
async fn test_elicitation_sep1034_defaults(ctx: RequestContext) -> Result<String, String> {
    elicitation_completed::<WithDefaults>(
        &ctx,
        "Test client default value handling - please accept with defaults",
    )
    .await
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
enum TitledSingle {
    #[schemars(title = "First Option")]
    #[serde(rename = "value1")]
    Value1,
    #[schemars(title = "Second Option")]
    #[serde(rename = "value2")]
    Value2,
    #[schemars(title = "Third Option")]
    #[serde(rename = "value3")]
    Value3,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Legacy {
    Opt1,
    Opt2,
    Opt3,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
enum TitledMulti {
    #[schemars(title = "First Choice")]
    #[serde(rename = "value1")]
    Value1,
    #[schemars(title = "Second Choice")]
    #[serde(rename = "value2")]
    Value2,
    #[schemars(title = "Third Choice")]
    #[serde(rename = "value3")]
    Value3,
}

/// Every enum form of SEP-1330.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Choices {
    /// Untitled single-select
    untitled_single: Untitled,
    /// Titled single-select
    titled_single: TitledSingle,
    /// Legacy titled enum (enumNames)
    #[schemars(extend("enumNames" = ["Option One", "Option Two", "Option Three"]))]
    legacy_enum: Legacy,
    /// Untitled multi-select
    untitled_multi: Vec<Untitled>,
    /// Titled multi-select
    titled_multi: Vec<TitledMulti>,
}

/// Elicits a form with every enum variant of SEP-1330.
#[mcp_tool]
async fn test_elicitation_sep1330_enums(ctx: RequestContext) -> Result<String, String> {
    elicitation_completed::<Choices>(&ctx, "Test every enum form: please choose").await
}

/// A name.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Name {
    name: String,
}

/// A yes or no.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Confirmation {
    ok: bool,
}

/// A color.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Color {
    color: String,
}

/// A context for a prompt.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct PromptContext {
    context: String,
}

/// Asks the user's name (`user_name`), then greets them.
#[mcp_tool]
async fn test_input_required_result_elicitation(ctx: RequestContext) -> Result<String, String> {
    let answer = elicit_named::<Name>(&ctx, "user_name", "What is your name?").await?;
    Ok(match answer {
        Elicitation::Accepted(Name { name }) => format!("Hello, {name}!"),
        other => format!("No name: {}", elicitation_text(&other)),
    })
}

/// Asks the client's model a question (`capital_question`).
#[mcp_tool]
async fn test_input_required_result_sampling(ctx: RequestContext) -> Result<String, String> {
    let answer = ctx
        .named("capital_question")
        .sample(SamplingRequest::new(100).user("What is the capital of France?"))
        .await
        .map_err(ask_failed)?;
    Ok(format!(
        "The model said: {}",
        answer.text().unwrap_or_default()
    ))
}

/// Lists the client's roots (`client_roots`).
#[mcp_tool]
async fn test_input_required_result_list_roots(ctx: RequestContext) -> Result<String, String> {
    let roots = ctx
        .named("client_roots")
        .roots()
        .await
        .map_err(ask_failed)?;
    let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
    Ok(format!("Client roots: {}", uris.join(", ")))
}

/// Asks for a confirmation (`confirm`); answers `state-ok` once the sealed request state came
/// back intact.
#[mcp_tool]
async fn test_input_required_result_request_state(ctx: RequestContext) -> Result<String, String> {
    let answer = elicit_named::<Confirmation>(&ctx, "confirm", "Please confirm").await?;
    Ok(format!("state-ok: {}", elicitation_text(&answer)))
}

/// Asks three questions at once: the user's name, a greeting from the model, the roots.
#[mcp_tool]
async fn test_input_required_result_multiple_inputs(ctx: RequestContext) -> Result<String, String> {
    let (name, greeting, roots) = tokio::join!(
        ctx.named("user_name").elicit::<Name>("What is your name?"),
        ctx.named("greeting")
            .sample(SamplingRequest::new(50).user("Generate a greeting")),
        ctx.named("client_roots").roots(),
    );
    let name = name.map_err(ask_failed)?;
    let greeting = greeting.map_err(ask_failed)?;
    let roots = roots.map_err(ask_failed)?;
    Ok(format!(
        "{}; greeting: {}; {} roots",
        elicitation_text(&name),
        greeting.text().unwrap_or_default(),
        roots.len()
    ))
}

/// Asks two questions, one after the other (`step1`, then `step2`).
#[mcp_tool]
async fn test_input_required_result_multi_round(ctx: RequestContext) -> Result<String, String> {
    let name = elicit_named::<Name>(&ctx, "step1", "Step 1: What is your name?").await?;
    let color =
        elicit_named::<Color>(&ctx, "step2", "Step 2: What is your favorite color?").await?;
    Ok(format!(
        "step 1: {}; step 2: {}",
        elicitation_text(&name),
        elicitation_text(&color)
    ))
}

/// Asks for a confirmation; a tampered request state is refused before it runs again.
#[mcp_tool]
async fn test_input_required_result_tampered_state(ctx: RequestContext) -> Result<String, String> {
    let answer = elicit_named::<Confirmation>(&ctx, "confirm", "Please confirm").await?;
    Ok(format!("confirmed: {}", elicitation_text(&answer)))
}

/// Asks the user and the model at once: a client that declared only one of the capabilities
/// is asked only what it can answer.
#[mcp_tool]
async fn test_input_required_result_capabilities(ctx: RequestContext) -> Result<String, String> {
    let (name, greeting) = tokio::join!(
        ctx.named("user_name").elicit::<Name>("What is your name?"),
        ctx.named("greeting")
            .sample(SamplingRequest::new(50).user("Generate a greeting")),
    );
    let name = name.map_or_else(ask_failed, |answer| elicitation_text(&answer));
    let greeting = greeting.map_or_else(ask_failed, |answer| {
        answer.text().unwrap_or_default().to_owned()
    });
    Ok(format!("name: {name}; greeting: {greeting}"))
}

/// Needs the client's `sampling` capability: without it, the call fails (with -32021 in
/// 2026-07-28, naming the capability).
#[mcp_tool]
async fn test_missing_capability(ctx: RequestContext) -> Result<String, String> {
    let answer = ctx
        .sample(SamplingRequest::new(20).user("Say hello"))
        .await
        .map_err(ask_failed)?;
    Ok(format!(
        "The model said: {}",
        answer.text().unwrap_or_default()
    ))
}

/// Elicits input: in 2026-07-28 the response is an `InputRequiredResult`, never a request on
/// the response stream.
#[mcp_tool]
async fn test_streaming_elicitation(ctx: RequestContext) -> Result<String, String> {
    let answer = elicit_named::<Name>(&ctx, "user_name", "What is your name?").await?;
    Ok(format!("Elicited: {}", elicitation_text(&answer)))
}

/// A prompt that first asks what context to use (`user_context`).
#[mcp_prompt]
async fn test_input_required_result_prompt(ctx: RequestContext) -> Result<String, String> {
    let answer =
        elicit_named::<PromptContext>(&ctx, "user_context", "What context should the prompt use?")
            .await?;
    Ok(match answer {
        Elicitation::Accepted(PromptContext { context }) => {
            format!("Answer with this context in mind: {context}")
        }
        other => format!("Answer without context ({})", elicitation_text(&other)),
    })
}

/// A hand-written tool: `definition`'s input schema is served as written.
struct SchemaTool {
    name: &'static str,
    description: &'static str,
    input_schema: Value,
    answer: &'static str,
}

impl ToolHandler for SchemaTool {
    fn definition(&self) -> ToolDefinition {
        let Value::Object(input_schema) = self.input_schema.clone() else {
            unreachable!("the schemas below are objects");
        };
        ToolDefinition {
            name: self.name.into(),
            title: None,
            description: Some(self.description.into()),
            input_schema,
            output_schema: None,
            annotations: ToolAnnotations::default(),
            icons: Vec::new(),
            task_support: mcp_runtime::handler::TaskSupport::Forbidden,
            meta: Default::default(),
        }
    }

    fn call(&self, _call: ToolCall) -> BoxFuture<'static, CallToolResult> {
        let answer = self.answer;
        Box::pin(async move { CallToolResult::success(vec![Content::text(answer)]) })
    }
}

// The tasks extension's scenarios (`io.modelcontextprotocol/tasks`, SEP-2663).

/// Greets `name` at once: never a task.
#[mcp_tool]
fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Works for `seconds`, then reports `label`; a task for clients that take them (0 seconds
/// answers at once, without waiting).
#[mcp_tool(task)]
async fn slow_compute(seconds: u64, label: Option<String>) -> String {
    if seconds > 0 {
        tokio::time::sleep(Duration::from_secs(seconds)).await;
    }
    format!(
        "computed `{}` in {seconds} s",
        label.as_deref().unwrap_or("unlabelled")
    )
}

/// A job that reports failure after a second; runs only as a task.
#[mcp_tool(task = "required")]
async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("the job failed".to_owned())
}

/// A job that crashes (panics) shortly after it starts.
#[mcp_tool(task)]
async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    panic!("protocol_error_job crashes by design");
}

/// A confirmation.
#[derive(Debug, Deserialize, JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// Deletes `filename` once the user confirms, asking from inside the task.
#[mcp_tool(task)]
async fn confirm_delete(filename: String, ctx: RequestContext) -> Result<String, String> {
    ctx.start_task().await;
    let answer = ctx
        .elicit::<Confirm>(format!("Delete {filename}?"))
        .await
        .map_err(ask_failed)?;
    Ok(match answer {
        Elicitation::Accepted(Confirm { confirm: true }) => format!("deleted {filename}"),
        _ => format!("kept {filename}"),
    })
}

/// Asks two questions at once from inside the task.
#[mcp_tool(task)]
async fn multi_input(ctx: RequestContext) -> Result<String, String> {
    ctx.start_task().await;
    let (first, second) = tokio::join!(
        ctx.named("first")
            .elicit::<Confirm>("Confirm the first step?"),
        ctx.named("second")
            .elicit::<Confirm>("Confirm the second step?"),
    );
    let confirmed = |answer: Result<Elicitation<Confirm>, AskError>| {
        matches!(answer, Ok(Elicitation::Accepted(Confirm { confirm: true })))
    };
    Ok(format!(
        "first confirmed: {}, second confirmed: {}",
        confirmed(first),
        confirmed(second)
    ))
}

/// Asks the user's name in place (`user_name`), then greets them from a task.
#[mcp_tool(task = "required")]
async fn test_tool_with_task(ctx: RequestContext) -> Result<String, String> {
    let answer = elicit_named::<Name>(&ctx, "user_name", "What is your name?").await?;
    ctx.start_task().await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok(match answer {
        Elicitation::Accepted(Name { name }) => format!("Hello, {name}!"),
        other => format!("No name: {}", elicitation_text(&other)),
    })
}

/// A JSON Schema 2020-12 input schema with `$defs`, `$anchor`, composition and conditionals,
/// which the suite checks `tools/list` passes through untouched.
fn json_schema_2020_12_tool() -> SchemaTool {
    SchemaTool {
        name: "json_schema_2020_12_tool",
        description: "A tool whose input schema uses JSON Schema 2020-12 keywords",
        input_schema: json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "address",
                    "type": "object",
                    "properties": {
                        "street": {"type": "string"},
                        "city": {"type": "string"}
                    }
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "kind": {"type": "string", "enum": ["person", "company"]},
                "registration": {"type": "string"}
            },
            "additionalProperties": false,
            "allOf": [{"anyOf": [{"required": ["name"]}, {"required": ["address"]}]}],
            "if": {"properties": {"kind": {"const": "company"}}, "required": ["kind"]},
            "then": {"required": ["registration"]},
            "else": {"not": {"required": ["registration"]}}
        }),
        answer: "ok",
    }
}

/// A tool whose arguments are mirrored in `Mcp-Param-*` headers (`x-mcp-header`), which the
/// server checks against the body.
fn test_custom_headers() -> SchemaTool {
    SchemaTool {
        name: "test_custom_headers",
        description: "A tool with x-mcp-header parameters mirrored in Mcp-Param-* headers",
        input_schema: json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "priority": {"type": "integer", "x-mcp-header": "Priority"},
                "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
                "query": {"type": "string"}
            },
            "required": ["region", "query"]
        }),
        answer: "Custom headers test completed",
    }
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
    let server = Server::new(server_info!());
    let _ = NOTIFIER.set(server.notifier());
    server
        .tools(
            tools![
                test_simple_text,
                test_image_content,
                test_audio_content,
                test_embedded_resource,
                test_multiple_content_types,
                test_tool_with_logging,
                test_error_handling,
                test_tool_with_progress,
                test_logging_tool,
                test_reconnection,
                test_trigger_prompt_change,
                test_sampling,
                test_elicitation,
                test_elicitation_sep1034_defaults,
                test_elicitation_sep1330_enums,
                test_input_required_result_elicitation,
                test_input_required_result_sampling,
                test_input_required_result_list_roots,
                test_input_required_result_request_state,
                test_input_required_result_multiple_inputs,
                test_input_required_result_multi_round,
                test_input_required_result_tampered_state,
                test_input_required_result_capabilities,
                test_missing_capability,
                test_streaming_elicitation,
                greet,
                slow_compute,
                failing_job,
                protocol_error_job,
                confirm_delete,
                multi_input,
                test_tool_with_task,
            ]
            .with(json_schema_2020_12_tool())
            .with(test_custom_headers()),
        )
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
            test_input_required_result_prompt,
        ])
        .serve_from_args()
        .await
}
