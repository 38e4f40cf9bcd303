//! `#[mcp_tool]` tools called directly through `ToolHandler`, without a transport: definitions,
//! argument reading (and its errors), defaults, injected values, sync functions and results.

use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::{
    CallToolResult, CancellationToken, Content, RequestContext, Tools, handler::ToolAnnotations,
    handler::ToolCall, mcp_tool, tools,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// Add two numbers.
///
/// # Arguments
/// * `a` - the first addend
/// * `b` - the second addend
#[mcp_tool(annotations(read_only, idempotent))]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Divide one number by another.
#[mcp_tool(title = "Divide", annotations(destructive = false))]
async fn divide(dividend: f64, divisor: f64) -> Result<f64, String> {
    if divisor == 0.0 {
        return Err("cannot divide by zero".to_owned());
    }
    Ok(dividend / divisor)
}

/// Round a number; a plain fn, so it runs on the blocking pool.
#[mcp_tool(name = "round")]
fn round_to(value: f64, #[arg(default = 0)] digits: u8) -> f64 {
    let scale = 10f64.powi(i32::from(digits));
    (value * scale).round() / scale
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Greeting {
    name: String,
    times: u32,
}

/// Greet someone.
#[mcp_tool]
async fn greet(
    greeting: Greeting,
    #[arg(rename = "punctuationMark", default = "!".to_owned())] punctuation: String,
    shout: Option<bool>,
) -> String {
    let line = format!("Hello, {}{punctuation}", greeting.name);
    let line = if shout == Some(true) {
        line.to_uppercase()
    } else {
        line
    };
    vec![line; greeting.times as usize].join(" ")
}

/// Every hint at once.
#[mcp_tool(annotations(read_only, destructive, idempotent, open_world = false))]
async fn hinted() {}

/// Which revision is this call in?
#[mcp_tool]
async fn revision(context: RequestContext, cancel: CancellationToken) -> String {
    format!("{} {}", context.revision, cancel.is_cancelled())
}

/// Panic, from the blocking pool.
#[mcp_tool]
fn panics() -> String {
    panic!("on purpose")
}

/// Nothing to return.
#[mcp_tool]
async fn nothing() {}

fn all_tools() -> Tools {
    tools![
        add, divide, round_to, greet, revision, panics, nothing, hinted
    ]
}

async fn call(tools: &Tools, name: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object");
    };
    let handler = tools
        .handlers()
        .iter()
        .find(|handler| handler.definition().name == name)
        .unwrap_or_else(|| panic!("no tool `{name}`"));
    let call = ToolCall {
        arguments,
        context: RequestContext::new(ProtocolVersion::V2025_06_18),
    };
    let result = handler.call(call.clone()).await;
    // What the dispatcher starts for a call with nothing around it comes to the same result
    // (text kept as text until it is written).
    let output = handler.call_output(call).await.into_result();
    assert_eq!(output, result, "`call_output` of `{name}`");
    result
}

fn text(result: &CallToolResult) -> &str {
    match result.content.as_slice() {
        [Content::Text { text }] => text,
        other => panic!("expected one text block, got {other:?}"),
    }
}

#[test]
fn definitions_carry_names_titles_descriptions_and_hints() {
    let tools = all_tools();
    let definitions: Vec<_> = tools.handlers().iter().map(|h| h.definition()).collect();
    let names: Vec<&str> = definitions.iter().map(|d| d.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "add", "divide", "round", "greet", "revision", "panics", "nothing", "hinted"
        ]
    );
    let add = &definitions[0];
    assert_eq!(add.description.as_deref(), Some("Add two numbers."));
    assert_eq!(add.title, None);
    assert_eq!(
        add.annotations,
        ToolAnnotations {
            read_only: Some(true),
            idempotent: Some(true),
            ..ToolAnnotations::default()
        }
    );
    assert_eq!(
        Value::Object(add.input_schema.clone()),
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "the first addend", "format": "double"},
                "b": {"type": "number", "description": "the second addend", "format": "double"},
            },
            "required": ["a", "b"],
        })
    );
    let divide = &definitions[1];
    assert_eq!(divide.title.as_deref(), Some("Divide"));
    assert_eq!(divide.annotations.destructive, Some(false));
    assert_eq!(divide.output_schema, None);
    assert_eq!(
        definitions[7].annotations,
        ToolAnnotations {
            read_only: Some(true),
            destructive: Some(true),
            idempotent: Some(true),
            open_world: Some(false),
        }
    );
}

/// Only a tool given the request's context can reach its client through it; the others tell
/// the dispatcher so, and a call of theirs sets up no way to ask or send.
#[test]
fn only_a_tool_given_the_request_context_reaches_it() {
    let tools = all_tools();
    for handler in tools.handlers() {
        let name = handler.definition().name;
        assert_eq!(handler.reaches_context(), name == "revision", "{name}");
    }
}

#[tokio::test]
async fn a_call_runs_the_function_and_converts_its_result() {
    let tools = all_tools();
    let result = call(&tools, "add", json!({"a": 1.5, "b": 2})).await;
    assert!(!result.is_error);
    assert_eq!(text(&result), "3.5");
    let failed = call(&tools, "divide", json!({"dividend": 1, "divisor": 0})).await;
    assert!(failed.is_error);
    assert_eq!(text(&failed), "cannot divide by zero");
    let empty = call(&tools, "nothing", json!({})).await;
    assert_eq!(empty, CallToolResult::success(Vec::new()));
}

#[tokio::test]
async fn every_bad_argument_is_named_and_the_function_is_not_called() {
    let tools = all_tools();
    let result = call(&tools, "add", json!({"a": "x"})).await;
    assert!(result.is_error);
    assert_eq!(
        text(&result),
        "invalid arguments: `a`: expected a number (f64), got string \"x\"; \
         `b`: missing required argument"
    );
    let nested = call(
        &tools,
        "greet",
        json!({"greeting": {"name": "Ada", "times": -1}}),
    )
    .await;
    assert_eq!(
        text(&nested),
        "invalid arguments: `greeting.times`: expected an integer (u32), got integer `-1`"
    );
}

#[tokio::test]
async fn unknown_arguments_are_ignored() {
    let tools = all_tools();
    let result = call(&tools, "add", json!({"a": 1, "b": 2, "c": 3})).await;
    assert_eq!(text(&result), "3");
}

#[tokio::test]
async fn defaults_options_and_renames_apply() {
    let tools = all_tools();
    let greeting = json!({"name": "Ada", "times": 2});
    let plain = call(&tools, "greet", json!({"greeting": greeting})).await;
    assert_eq!(text(&plain), "Hello, Ada! Hello, Ada!");
    let renamed = call(
        &tools,
        "greet",
        json!({"greeting": greeting, "punctuationMark": "?", "shout": true}),
    )
    .await;
    assert_eq!(text(&renamed), "HELLO, ADA? HELLO, ADA?");
    let null_option = call(
        &tools,
        "greet",
        json!({"greeting": greeting, "shout": null}),
    )
    .await;
    assert_eq!(text(&null_option), "Hello, Ada! Hello, Ada!");
    let rounded = call(&tools, "round", json!({"value": 1.23456})).await;
    assert_eq!(text(&rounded), "1");
    let two_digits = call(&tools, "round", json!({"value": 1.23456, "digits": 2})).await;
    assert_eq!(text(&two_digits), "1.23");
}

#[tokio::test]
async fn injected_values_come_from_the_request() {
    let tools = all_tools();
    let result = call(&tools, "revision", json!({"context": "ignored"})).await;
    assert_eq!(text(&result), "2025-06-18 false");
}

#[tokio::test]
async fn a_panic_in_a_sync_tool_reaches_the_caller() {
    let tools = all_tools();
    let handler = tools.handlers()[5].clone();
    let outcome = tokio::spawn(async move {
        handler
            .call(ToolCall {
                arguments: Default::default(),
                context: RequestContext::new(ProtocolVersion::V2025_06_18),
            })
            .await
    })
    .await;
    let error = outcome.expect_err("the panic propagates");
    assert!(error.is_panic());
}

/// A list of lists.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code, reason = "only its schema matters")]
struct Nested {
    inner: Vec<Nested>,
}

/// Takes a recursive type without `#[mcp_tool(recursive)]`.
#[mcp_tool]
async fn walk(tree: Nested) {
    let _ = tree;
}

#[test]
fn a_recursive_argument_without_opt_in_fails_when_the_tools_are_built() {
    let panic = std::panic::catch_unwind(|| tools![add, walk]).expect_err("tools![] panics");
    let message = panic.downcast_ref::<String>().expect("a formatted message");
    assert!(message.contains("tool `walk`"), "{message}");
    assert!(message.contains("argument `tree`"), "{message}");
    assert!(message.contains("`Nested`"), "{message}");
    assert!(message.contains("#[mcp_tool(recursive)]"), "{message}");
}
