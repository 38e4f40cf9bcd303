//! The fuzz harness: what each target feeds the runtime, and what it checks of every answer.
//!
//! Shared, as source, by the fuzz targets (`fuzz_targets/*.rs`) and by the normal test suite
//! (`tests/fuzz_regressions.rs` includes this file), which replays the curated corpus in
//! `tests/fuzz_corpus/<target>/` through exactly these functions. Each function panics when a
//! check fails, and returns how many answers it checked.
//!
//! The tools here never panic unless told to (`panics`), with a marker that
//! [`quiet_intentional_panics`] recognises: libFuzzer aborts on any other panic, even one the
//! dispatcher catches, so a panic the tools did not ask for is always a finding.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Once, OnceLock};
use std::time::Duration;

use mcp_runtime::fuzzing::{self, Answer, Connection, Decoded};
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::{
    CallToolResult, CancellationToken, Content, RequestContext, Resource, Server, ServerInfo,
    handler::ToolCall, handler::ToolHandler, mcp_prompt, mcp_resource, mcp_tool, prompts,
    resources, tools,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value};

/// What the `panics` tool's panic says; only panics carrying it are expected.
pub const INTENTIONAL_PANIC: &str = "fuzz harness: intentional panic";

/// Silence the panics the `panics` tool raises on purpose (the dispatcher catches them); any
/// other panic still reaches the previous hook, which under libFuzzer aborts.
pub fn quiet_intentional_panics() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| info.payload().downcast_ref::<String>().map(String::as_str));
            if message != Some(INTENTIONAL_PANIC) {
                previous(info);
            }
        }));
    });
}

/// A current-thread runtime on a paused clock: sleeping tools finish at once in virtual time.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a tokio runtime")
}

// ---------------------------------------------------------------------------------------------
// Target `jsonrpc_decode`: the JSON-RPC decoder, one line at a time.
// ---------------------------------------------------------------------------------------------

/// Decode every line of `input` (split on `\n`, as the transport splits stdin) and check the
/// verdict against an independent reading of the same bytes.
pub fn jsonrpc_decode(input: &[u8]) -> usize {
    input.split(|&byte| byte == b'\n').map(check_decode).sum()
}

fn check_decode(line: &[u8]) -> usize {
    let json = serde_json::from_slice::<Value>(line).ok();
    // The decoder reads only the members it knows; an unknown one is skipped unparsed, so it
    // may nest deeper or hold a larger number than a `Value` takes: still JSON.
    let is_json = json.is_some() || serde_json::from_slice::<IgnoredAny>(line).is_ok();
    match fuzzing::decode(line) {
        Decoded::Request => {
            assert!(is_json, "a request decoded from bytes that are not JSON");
            if let Some(message) = json {
                assert_envelope(&message);
                assert!(is_request_id(&message["id"]), "request id: {message}");
            }
            0
        }
        Decoded::Notification => {
            assert!(
                is_json,
                "a notification decoded from bytes that are not JSON"
            );
            if let Some(message) = json {
                assert_envelope(&message);
                assert!(
                    message.get("id").is_none(),
                    "a notification has an id: {message}"
                );
            }
            0
        }
        Decoded::Response => {
            assert!(is_json, "a response decoded from bytes that are not JSON");
            if let Some(message) = json {
                assert!(
                    message.get("result").is_some() || message.get("error").is_some(),
                    "a response without result or error: {message}"
                );
            }
            0
        }
        Decoded::Batch(elements) => {
            let Some(Value::Array(array)) = json else {
                // Only an array whose elements hold what a `Value` refuses in members the
                // decoder skips (a lone surrogate, a number out of range).
                let opens_array = line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
                assert!(
                    is_json && opens_array,
                    "a batch decoded from something that is not a JSON array"
                );
                assert!(!elements.is_empty(), "an empty array decoded as a batch");
                let mut checked = 0;
                for answer in elements.into_iter().flatten().flatten() {
                    assert_error_response(&answer);
                    checked += 1;
                }
                return checked;
            };
            assert!(!array.is_empty(), "an empty array decoded as a batch");
            assert_eq!(array.len(), elements.len(), "every element is decoded");
            let mut checked = 0;
            for (element, verdict) in array.iter().zip(elements) {
                match verdict {
                    None => assert_envelope_or_response(element),
                    Some(Some(answer)) => {
                        let error = assert_error_response(&answer);
                        assert_ne!(error, -32700, "a batch element cannot be unparsable");
                        checked += 1;
                    }
                    Some(None) => assert!(element.get("id").is_none()),
                }
            }
            checked
        }
        Decoded::Invalid(None) => {
            assert!(is_json, "only a readable notification goes unanswered");
            if let Some(message) = json {
                assert!(message.get("id").is_none() && message.get("method").is_some());
            }
            0
        }
        Decoded::Invalid(Some(answer)) => {
            let code = assert_error_response(&answer);
            if json.is_some() {
                assert_ne!(code, -32700, "valid JSON answered with a parse error");
            }
            1
        }
    }
}

fn assert_envelope(message: &Value) {
    assert_eq!(message["jsonrpc"], "2.0", "{message}");
    assert!(message["method"].is_string(), "method: {message}");
    let params = message.get("params").unwrap_or(&Value::Null);
    assert!(params.is_null() || params.is_object(), "params: {message}");
}

fn assert_envelope_or_response(message: &Value) {
    if message.get("method").is_some() {
        assert_envelope(message);
    } else {
        assert!(message.get("result").is_some() || message.get("error").is_some());
    }
}

fn is_request_id(id: &Value) -> bool {
    id.is_string() || id.is_i64() || id.is_u64()
}

/// Check one encoded error response; its code.
fn assert_error_response(bytes: &[u8]) -> i64 {
    let message = assert_response(bytes);
    let code = message["error"]["code"].as_i64().expect("an error code");
    assert!(
        [-32700, -32600, -32601, -32602, -32603, -32022].contains(&code),
        "unexpected code in {message}"
    );
    code
}

/// Check one encoded response: a single line of JSON, a JSON-RPC 2.0 response with an id of
/// the right kind and exactly one of `result` and `error`.
fn assert_response(bytes: &[u8]) -> Value {
    assert!(!bytes.contains(&b'\n'), "an answer must be one line");
    let message: Value = serde_json::from_slice(bytes).unwrap_or_else(|error| {
        panic!(
            "an answer is not JSON ({error}): {}",
            String::from_utf8_lossy(bytes)
        )
    });
    assert_eq!(message["jsonrpc"], "2.0", "{message}");
    let id = message.get("id").expect("a response has an id");
    assert!(id.is_null() || is_request_id(id), "id kind: {message}");
    match (message.get("result"), message.get("error")) {
        (Some(result), None) => assert!(result.is_object(), "result: {message}"),
        (None, Some(error)) => {
            assert!(error["code"].is_i64(), "error code: {message}");
            let text = error["message"].as_str().expect("an error message");
            assert!(!text.is_empty(), "an empty error message: {message}");
        }
        _ => panic!("exactly one of result and error: {message}"),
    }
    message
}

// ---------------------------------------------------------------------------------------------
// Target `dispatcher`: a whole connection, line after line, calls running concurrently.
// ---------------------------------------------------------------------------------------------

/// Repeat the text back.
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

/// Add two integers (wrapping: overflow is not what is being tested).
#[mcp_tool]
async fn add(augend: i64, addend: i64) -> i64 {
    augend.wrapping_add(addend)
}

/// Divide, failing as a tool error on a zero divisor.
#[mcp_tool]
async fn divide(dividend: i64, divisor: i64) -> Result<i64, String> {
    dividend
        .checked_div(divisor)
        .ok_or_else(|| "cannot divide by zero".to_owned())
}

/// Sleep (in virtual time), then answer.
#[mcp_tool]
async fn sleep(millis: u16) -> String {
    tokio::time::sleep(Duration::from_millis(millis.into())).await;
    format!("slept {millis} ms")
}

/// Wait for cancellation, or give up after `millis` (virtual time).
#[mcp_tool]
async fn wait_for_cancellation(millis: u16, cancellation: CancellationToken) -> String {
    tokio::select! {
        () = cancellation.cancelled() => "cancelled".to_owned(),
        () = tokio::time::sleep(Duration::from_millis(millis.into())) => "not cancelled".to_owned(),
    }
}

/// Panic on purpose.
#[mcp_tool]
async fn panics() -> String {
    std::panic::panic_any(INTENTIONAL_PANIC)
}

/// The revision the request is answered in.
#[mcp_tool]
async fn revision(context: RequestContext) -> String {
    context.revision.to_string()
}

/// A point on a grid.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub struct GridPoint {
    pub x: i32,
    pub y: i32,
}

/// A compass direction.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Heading {
    North,
    East,
    South,
    West,
}

/// Step from a point; optional punctuation in the answer.
#[mcp_tool]
async fn step(from: GridPoint, heading: Heading, suffix: Option<String>) -> String {
    let GridPoint { x, y } = from;
    let (x, y) = match heading {
        Heading::North => (x, y.wrapping_add(1)),
        Heading::East => (x.wrapping_add(1), y),
        Heading::South => (x, y.wrapping_sub(1)),
        Heading::West => (x.wrapping_sub(1), y),
    };
    format!("({x}, {y}){}", suffix.unwrap_or_default())
}

/// Rich content: text, image and structured output.
#[mcp_tool]
async fn rich(text: String) -> CallToolResult {
    let mut result = CallToolResult::success(vec![
        Content::text(text.clone()),
        Content::Image {
            data: "aGk=".to_owned(),
            mime_type: "image/png".to_owned(),
        },
    ]);
    result.structured_content = Some(serde_json::json!({ "text": text }));
    result
}

/// A fixed text resource.
#[mcp_resource("fixed://note", mime_type = "text/plain")]
async fn fixed_note() -> String {
    "a fixed note".to_owned()
}

/// A note by name: a resource template with a listing and completions.
#[mcp_resource("note://{name}", list = list_notes, complete(name = complete_name))]
async fn named_note(name: String) -> Result<String, String> {
    if name.starts_with('x') {
        return Err(format!("no note `{name}`"));
    }
    Ok(format!("the note {name}"))
}

/// Every note.
fn list_notes() -> Result<Vec<Resource>, String> {
    Ok(vec![
        Resource::new("note://alpha", "alpha"),
        Resource::new("note://beta", "beta"),
    ])
}

/// The names starting with what was typed.
fn complete_name(typed: &str) -> Vec<String> {
    ["alpha", "beta", "gamma"]
        .into_iter()
        .filter(|name| name.starts_with(typed))
        .map(str::to_owned)
        .collect()
}

/// Greet someone, in a style.
#[mcp_prompt(complete(name = complete_name))]
async fn greeting(name: String, style: Option<String>) -> String {
    format!(
        "Greet {name} in a {} style.",
        style.as_deref().unwrap_or("plain")
    )
}

/// The server every dispatcher input talks to: small pages so cursors matter.
pub fn dispatcher_server() -> Server {
    Server::new(ServerInfo::new("fuzz-server", "0.0.0"))
        .instructions("Fuzzing.")
        .page_size(3)
        .resources(resources![fixed_note, named_note])
        .prompts(prompts![greeting])
        .tools(tools![
            echo,
            add,
            divide,
            sleep,
            wait_for_cancellation,
            panics,
            revision,
            step,
            rich,
        ])
}

/// Feed every line of `input` to one connection, as the stdio transport would: lines in order,
/// calls that must wait running concurrently with the lines after them. Then check every
/// answer, and that each request got as many answers as expected.
pub fn dispatcher(input: &[u8]) -> usize {
    quiet_intentional_panics();
    static SERVER: OnceLock<Server> = OnceLock::new();
    let server = SERVER.get_or_init(dispatcher_server);
    let mut connection = Connection::new(server).expect("the harness server is valid");
    let lines: Vec<&[u8]> = input
        .split(|&byte| byte == b'\n')
        // The transport skips blank lines.
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .collect();

    let answers = runtime().block_on(async {
        let mut answers = Vec::new();
        let mut calls = tokio::task::JoinSet::new();
        for line in &lines {
            match connection.handle(line) {
                Answer::None => {}
                Answer::Ready(answer) => answers.push(answer),
                Answer::Pending(call) => {
                    calls.spawn(call);
                }
            }
            // Let running calls make progress between lines, as they would on a real server.
            tokio::task::yield_now().await;
        }
        let finished = tokio::time::timeout(Duration::from_secs(3600), async {
            while let Some(answer) = calls.join_next().await {
                if let Some(answer) = answer.expect("a call's task never panics") {
                    answers.push(answer);
                }
            }
        })
        .await;
        assert!(finished.is_ok(), "calls still running after an hour");
        answers
    });

    if show_answers() {
        for answer in &answers {
            eprintln!("{}", String::from_utf8_lossy(answer));
        }
    }
    let mut answered: HashMap<String, usize> = HashMap::new();
    for answer in &answers {
        let message = if answer.first() == Some(&b'[') {
            let batch: Value = serde_json::from_slice(answer).expect("a batch answer is JSON");
            let responses = batch.as_array().expect("an array").clone();
            assert!(!responses.is_empty(), "an empty batch answer");
            for response in responses {
                let bytes = serde_json::to_vec(&response).expect("serializes");
                count_answer(&mut answered, &assert_response(&bytes));
            }
            continue;
        } else {
            assert_response(answer)
        };
        count_answer(&mut answered, &message);
    }
    check_answer_counts(&lines, &answered);
    answers.len()
}

/// Whether `MCP_FUZZ_SHOW` is set: then every answer goes to stderr, to see what an input does.
fn show_answers() -> bool {
    static SHOW: OnceLock<bool> = OnceLock::new();
    *SHOW.get_or_init(|| std::env::var_os("MCP_FUZZ_SHOW").is_some())
}

fn count_answer(answered: &mut HashMap<String, usize>, message: &Value) {
    if !message["id"].is_null() {
        *answered.entry(message["id"].to_string()).or_default() += 1;
    }
}

/// Each id is answered at most as often as requests carried it; a line that decodes as one
/// request, whose id no other message mentions, is answered exactly once.
fn check_answer_counts(lines: &[&[u8]], answered: &HashMap<String, usize>) {
    let mut sent: HashMap<String, usize> = HashMap::new();
    let mut single_requests = Vec::new();
    let mut mentioned: HashMap<String, usize> = HashMap::new();
    for line in lines {
        // Lossily: the decoder does not look into members it skips, so bytes that are not
        // UTF-8 there do not stop a request from being read and answered.
        let Ok(value) = serde_json::from_str::<Value>(&String::from_utf8_lossy(line)) else {
            continue;
        };
        mention_ids(&value, &mut mentioned);
        let elements = match &value {
            Value::Array(elements) => elements.iter().collect(),
            single => vec![single],
        };
        for element in elements {
            if let Some(id) = element.get("id").filter(|id| is_request_id(id)) {
                *sent.entry(id.to_string()).or_default() += 1;
                // The decoder says what is a request (its own target checks that); the
                // dispatcher must then answer it.
                if matches!(fuzzing::decode(line), Decoded::Request) {
                    single_requests.push(id.to_string());
                }
            }
        }
    }
    for (id, count) in answered {
        let requests = sent.get(id).copied().unwrap_or(0);
        assert!(
            *count <= requests,
            "id {id} answered {count} times for {requests} requests"
        );
    }
    for id in single_requests {
        // Mentioned once: by the request itself, so no cancellation names it.
        if mentioned.get(&id) == Some(&1) {
            assert_eq!(answered.get(&id), Some(&1), "request {id} answered once");
        }
    }
}

/// Count every string or integer anywhere in `value` (ids, and ids named by cancellations).
fn mention_ids(value: &Value, mentioned: &mut HashMap<String, usize>) {
    match value {
        Value::Array(elements) => elements.iter().for_each(|v| mention_ids(v, mentioned)),
        Value::Object(members) => members.values().for_each(|v| mention_ids(v, mentioned)),
        id if is_request_id(id) => *mentioned.entry(id.to_string()).or_default() += 1,
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Target `tool_arguments`: arguments of generated tools against their own input schemas.
// ---------------------------------------------------------------------------------------------

/// A point with an optional label.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub label: Option<String>,
}

/// How to go about it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Quickly.
    Fast,
    /// Carefully.
    Careful,
}

/// A shape, internally tagged by `kind`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// A circle.
    Circle {
        /// Its radius.
        radius: f64,
    },
    /// A rectangle.
    Rect {
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
    },
}

/// A value or a list of them, externally tagged.
#[derive(Debug, Deserialize, JsonSchema)]
pub enum Amount {
    /// One value.
    One(i64),
    /// Several.
    Many(Vec<i64>),
}

/// Options with camelCase names, a defaulted field and no unknown fields.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Options {
    pub max_depth: u8,
    #[serde(default)]
    pub follow_links: bool,
}

/// Scalars of every kind.
#[mcp_tool]
#[allow(clippy::too_many_arguments)]
async fn scalars(
    flag: bool,
    small: u8,
    signed: i32,
    big: u64,
    real: f64,
    letter: char,
    text: String,
) -> String {
    format!("{flag} {small} {signed} {big} {real} {letter} {text}")
}

/// Collections.
#[mcp_tool]
async fn collections(
    list: Vec<i16>,
    map: BTreeMap<String, u32>,
    pair: (u8, String),
    tags: Option<Vec<String>>,
) -> String {
    format!("{list:?} {map:?} {pair:?} {tags:?}")
}

/// Structs and enums.
#[mcp_tool]
async fn structured(
    point: Point,
    mode: Mode,
    shape: Shape,
    amount: Amount,
    options: Options,
) -> String {
    format!("{point:?} {mode:?} {shape:?} {amount:?} {options:?}")
}

/// Optional, defaulted and renamed parameters, and one that takes any JSON.
#[mcp_tool]
async fn defaults(
    count: Option<u32>,
    #[arg(default = 3)] retries: u8,
    #[arg(rename = "displayName")] display_name: Option<String>,
    extra: Option<Value>,
) -> String {
    format!("{count:?} {retries} {display_name:?} {extra:?}")
}

/// A synchronous tool (run on the blocking pool).
#[mcp_tool]
fn blocking(values: Vec<f32>, scale: Option<f32>) -> String {
    let scale = scale.unwrap_or(1.0);
    format!("{:?}", values.iter().map(|v| v * scale).collect::<Vec<_>>())
}

/// The tools `tool_arguments` calls, with their compiled input schemas.
pub struct ArgumentTools {
    tools: Vec<(Box<dyn ToolHandler>, jsonschema::Validator)>,
}

impl ArgumentTools {
    fn new() -> Self {
        let handlers: Vec<Box<dyn ToolHandler>> = vec![
            Box::new(scalars {}),
            Box::new(collections {}),
            Box::new(structured {}),
            Box::new(defaults {}),
            Box::new(blocking {}),
        ];
        let tools = handlers
            .into_iter()
            .map(|handler| {
                let mut schema = Value::Object(handler.definition().input_schema);
                bound_integer_formats(&mut schema);
                let validator = jsonschema::validator_for(&schema).unwrap_or_else(|error| {
                    panic!("the input schema {schema} does not compile: {error}")
                });
                (handler, validator)
            })
            .collect();
        ArgumentTools { tools }
    }

    /// The tools, built once.
    pub fn get() -> &'static ArgumentTools {
        static TOOLS: OnceLock<ArgumentTools> = OnceLock::new();
        TOOLS.get_or_init(ArgumentTools::new)
    }
}

/// Give every integer schema the bounds its `format` names (`uint64`: `0` to `u64::MAX`).
///
/// schemars states the bounds of the narrower types itself, but not those of 64-bit ones; a
/// `format` is only an annotation to a validator, yet it does tell the client which values the
/// server can hold, and the runtime refuses a larger one (`1e20` for a `u64`).
pub fn bound_integer_formats(schema: &mut Value) {
    match schema {
        Value::Object(members) => {
            let bounds: Option<(Value, Value)> = match members.get("format").and_then(Value::as_str)
            {
                Some("int64") => Some((i64::MIN.into(), i64::MAX.into())),
                Some("uint64") => Some((0.into(), u64::MAX.into())),
                Some("int32") => Some((i32::MIN.into(), i32::MAX.into())),
                Some("uint32") => Some((0.into(), u32::MAX.into())),
                _ => None,
            };
            if let Some((minimum, maximum)) = bounds {
                members.entry("minimum").or_insert(minimum);
                members.entry("maximum").or_insert(maximum);
            }
            members.values_mut().for_each(bound_integer_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(bound_integer_formats),
        _ => {}
    }
}

/// The first byte of `input` picks a tool; the rest is its `arguments` as JSON text (a value
/// that is not an object becomes the tool's first property). The call must come back as a
/// result; an argument error exactly when the arguments do not fit the tool's input schema.
pub fn tool_arguments(input: &[u8]) -> usize {
    let Some((&selector, json)) = input.split_first() else {
        return 0;
    };
    let Ok(value) = serde_json::from_slice::<Value>(json) else {
        return 0;
    };
    let tools = &ArgumentTools::get().tools;
    let (handler, validator) = &tools[usize::from(selector) % tools.len()];
    let arguments = match value {
        Value::Object(arguments) => {
            // As the dispatcher hands them to a generated tool: the text as sent, each
            // argument read from it. Whatever it comes to must be what the built object does.
            let text = std::str::from_utf8(json).expect("JSON is UTF-8");
            let call = fuzzing::call_with_arguments_text(
                text,
                RequestContext::new(ProtocolVersion::V2025_06_18),
            )
            .expect("the text is JSON");
            let from_text = outcome(handler.as_ref(), call);
            let built = check_tool_call(handler.as_ref(), validator, arguments.clone());
            assert_eq!(
                from_text, built,
                "arguments {text} read from the text and built disagree"
            );
            return 1;
        }
        other => {
            let definition = handler.definition();
            let Some(first) = definition.input_schema["properties"]
                .as_object()
                .and_then(|properties| properties.keys().next().cloned())
            else {
                return 0;
            };
            Map::from_iter([(first, other)])
        }
    };
    check_tool_call(handler.as_ref(), validator, arguments);
    1
}

/// Call `handler` with `arguments` and compare the outcome with the schema's verdict; the
/// outcome (see [`outcome`]).
pub fn check_tool_call(
    handler: &dyn ToolHandler,
    validator: &jsonschema::Validator,
    arguments: Map<String, Value>,
) -> (bool, String) {
    let instance = Value::Object(arguments.clone());
    let verdict = Verdict::of(validator, &instance);
    let call = ToolCall {
        arguments,
        context: RequestContext::new(ProtocolVersion::V2025_06_18),
    };
    let (is_error, text) = outcome(handler, call);
    let argument_error = is_error && text.starts_with("invalid arguments");
    let name = handler.definition().name;
    assert!(
        !is_error || argument_error,
        "tool `{name}` failed other than on its arguments: {text}"
    );
    match verdict {
        Verdict::Fits => assert!(
            !argument_error,
            "tool `{name}`: arguments {instance} fit the input schema, yet: {text}"
        ),
        Verdict::DoesNotFit => assert!(
            argument_error,
            "tool `{name}`: arguments {instance} do not fit the input schema, yet the call \
             succeeded: {text}"
        ),
        Verdict::FitsWithoutNulls => {}
    }
    (is_error, text)
}

/// What `call` of `handler` comes to: whether it is an error, and its text.
fn outcome(handler: &dyn ToolHandler, call: ToolCall) -> (bool, String) {
    let result = runtime().block_on(handler.call(call));
    let text = result
        .content
        .iter()
        .filter_map(|content| match content {
            Content::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    (result.is_error, text)
}

/// What the input schema says of some arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// They fit: the call must not fail on its arguments.
    Fits,
    /// They fit once `null` members are left out. The schema of an `Option<T>` describes only
    /// `T` (absence already says "none"), yet the runtime reads `null` as "none" too; but a
    /// `null` for a field the type does not know may still be refused. Either outcome is right.
    FitsWithoutNulls,
    /// They do not fit, even without their `null`s: the call must fail on its arguments.
    DoesNotFit,
}

impl Verdict {
    /// The schema's verdict on `instance`.
    pub fn of(validator: &jsonschema::Validator, instance: &Value) -> Self {
        if validator.is_valid(instance) {
            Verdict::Fits
        } else if validator.is_valid(&without_null_members(instance)) {
            Verdict::FitsWithoutNulls
        } else {
            Verdict::DoesNotFit
        }
    }
}

fn without_null_members(value: &Value) -> Value {
    match value {
        Value::Object(members) => Value::Object(
            members
                .iter()
                .filter(|(_, member)| !member.is_null())
                .map(|(key, member)| (key.clone(), without_null_members(member)))
                .collect(),
        ),
        Value::Array(elements) => Value::Array(elements.iter().map(without_null_members).collect()),
        other => other.clone(),
    }
}
