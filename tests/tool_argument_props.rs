//! Property tests: a generated tool's `inputSchema` and its argument reading agree.
//!
//! For tools built with `#[mcp_tool]` here, values are generated from each tool's own
//! `inputSchema`, then called through the dispatcher in process (`mcp_runtime::fuzzing`):
//!
//! * arguments that validate against the schema (checked with `jsonschema`) never come back
//!   as an argument error;
//! * arguments that do not validate (valid ones with one part broken) come back as a tool
//!   result with `isError: true` naming the problem: never a panic, never a JSON-RPC error.
//!
//! The one leniency allowed: `null` for an optional argument or field reads as "none", though
//! the schema (which describes `Option<T>` as `T`) does not list `null`.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};

use mcp_runtime::fuzzing::{Answer, Connection};
use mcp_runtime::{Server, ServerInfo, handler::ToolHandler, mcp_tool, tools};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

// --- The tools under test: parameters of every common shape. --------------------------------

/// Integers and floats of every width.
#[mcp_tool]
async fn numbers(
    count: u8,
    offset: i16,
    total: u32,
    delta: i64,
    ratio: f64,
    weight: f32,
) -> String {
    format!("{count} {offset} {total} {delta} {ratio} {weight}")
}

/// Strings, chars and lists of strings.
#[mcp_tool]
async fn texts(
    name: String,
    initial: char,
    tags: Vec<String>,
    aliases: Option<Vec<String>>,
) -> String {
    format!("{name} {initial} {tags:?} {aliases:?}")
}

/// A postal address.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // read through `Debug`
struct Address {
    street: String,
    number: u16,
    unit: Option<String>,
}

/// A temperature unit.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// A query, internally tagged by `type`.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // read through `Debug`
#[serde(tag = "type", rename_all = "snake_case")]
enum Query {
    ById { id: u32 },
    ByName { name: String, exact: bool },
}

/// A time window; no other fields allowed.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // read through `Debug`
#[serde(deny_unknown_fields)]
struct Window {
    start: i64,
    end: i64,
}

/// A payload, externally tagged, with a unit variant.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // read through `Debug`
enum Payload {
    Text(String),
    Numbers(Vec<f64>),
    Empty,
}

/// Structs and enums of the common serde shapes.
#[mcp_tool]
async fn records(
    address: Address,
    unit: Unit,
    query: Query,
    window: Option<Window>,
    payload: Payload,
) -> String {
    format!("{address:?} {unit:?} {query:?} {window:?} {payload:?}")
}

/// Nested lists, maps and tuples.
#[mcp_tool]
async fn containers(
    matrix: Vec<Vec<u8>>,
    scores: HashMap<String, i32>,
    pair: (bool, String),
    triple: Option<(u8, u8, u8)>,
) -> String {
    let scores: BTreeMap<_, _> = scores.into_iter().collect();
    format!("{matrix:?} {scores:?} {pair:?} {triple:?}")
}

/// Defaults and renames; a plain `fn`, run on the blocking pool.
#[mcp_tool]
fn defaults(
    #[arg(default = 10)] limit: u32,
    #[arg(rename = "sortBy", default = "name".to_owned())] sort_by: String,
    verbose: Option<bool>,
) -> String {
    format!("{limit} {sort_by} {verbose:?}")
}

fn server() -> Server {
    Server::new(ServerInfo::new("props", "0.0.0"))
        .tools(tools![numbers, texts, records, containers, defaults])
}

// --- Values from a schema. -------------------------------------------------------------------

/// Values meant to fit `schema` (the inlined subset schemars produces: types, properties,
/// required, items, prefixItems, enum, const, oneOf/anyOf, numeric and length bounds).
fn fitting(schema: &Value, depth: u32) -> BoxedStrategy<Value> {
    let Some(schema) = schema.as_object() else {
        return leaf().boxed();
    };
    if let Some(constant) = schema.get("const") {
        return Just(constant.clone()).boxed();
    }
    if let Some(Value::Array(choices)) = schema.get("enum") {
        return proptest::sample::select(choices.clone()).boxed();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            let branches: Vec<_> = branches.iter().map(|b| fitting(b, depth)).collect();
            return proptest::strategy::Union::new(branches).boxed();
        }
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|kind| *kind != "null")
            .unwrap_or("null"),
        _ if schema.contains_key("properties") => "object",
        _ => return leaf().boxed(),
    };
    match kind {
        "boolean" => any::<bool>().prop_map(Value::from).boxed(),
        "integer" => integer(schema),
        "number" => prop_oneof![
            (-1e6f64..1e6).prop_map(Value::from),
            any::<i32>().prop_map(Value::from),
            Just(json!(0.0)),
            Just(json!(1e300)),
        ]
        .boxed(),
        "string" => {
            let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
            let max = schema
                .get("maxLength")
                .and_then(Value::as_u64)
                .unwrap_or(min + 8);
            proptest::string::string_regex(&format!(".{{{min},{max}}}"))
                .expect("a valid regex")
                .prop_map(Value::from)
                .boxed()
        }
        "array" => array(schema, depth),
        "object" => object(schema, depth),
        _ => Just(Value::Null).boxed(),
    }
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z]{0,4}".prop_map(Value::from),
    ]
}

fn integer(schema: &Map<String, Value>) -> BoxedStrategy<Value> {
    let bound = |key: &str| {
        schema.get(key).and_then(|value| {
            value
                .as_i64()
                .map(i128::from)
                .or_else(|| value.as_u64().map(i128::from))
                .or_else(|| value.as_f64().map(|f| f as i128))
        })
    };
    // Unbounded sides take the range of the Rust type the format names.
    let (type_min, type_max) = match schema.get("format").and_then(Value::as_str) {
        Some("uint64" | "uint") => (0, i128::from(u64::MAX)),
        _ => (i128::from(i64::MIN), i128::from(i64::MAX)),
    };
    let min = bound("minimum").unwrap_or(type_min).max(type_min);
    let max = bound("maximum").unwrap_or(type_max).min(type_max);
    let edges = vec![min, max, min.saturating_add(1).min(max), 0.clamp(min, max)];
    prop_oneof![
        proptest::sample::select(edges),
        (min..=max),
        (min.max(-1000)..=max.min(1000)),
    ]
    .prop_flat_map(|n| {
        let integer = match u64::try_from(n) {
            Ok(n) => Value::from(n),
            Err(_) => Value::from(i64::try_from(n).expect("within i64")),
        };
        // JSON Schema's `integer` also takes `3.0`: write small ones that way at times.
        let float = (n.unsigned_abs() < 1 << 53).then(|| json!(n as f64));
        prop_oneof![3 => Just(integer.clone()), 1 => Just(float.unwrap_or(integer))]
    })
    .boxed()
}

fn array(schema: &Map<String, Value>, depth: u32) -> BoxedStrategy<Value> {
    if let Some(Value::Array(prefix)) = schema.get("prefixItems") {
        let items: Vec<_> = prefix.iter().map(|item| fitting(item, depth + 1)).collect();
        return items.prop_map(Value::Array).boxed();
    }
    let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = schema
        .get("maxItems")
        .and_then(Value::as_u64)
        .map_or(min + if depth > 2 { 1 } else { 3 }, |max| max as usize);
    let item = schema.get("items").cloned().unwrap_or(Value::Bool(true));
    proptest::collection::vec(fitting(&item, depth + 1), min..=max)
        .prop_map(Value::Array)
        .boxed()
}

fn object(schema: &Map<String, Value>, depth: u32) -> BoxedStrategy<Value> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let members: Vec<BoxedStrategy<Option<(String, Value)>>> = properties
        .iter()
        .map(|(name, property)| {
            let name = name.clone();
            let value = fitting(property, depth + 1);
            if required.contains(&name.as_str()) {
                value.prop_map(move |v| Some((name.clone(), v))).boxed()
            } else {
                proptest::option::of(value.prop_map(move |v| (name.clone(), v))).boxed()
            }
        })
        .collect();
    let extra = match schema.get("additionalProperties") {
        Some(value @ Value::Object(_)) => {
            proptest::collection::btree_map("[a-z]{1,6}", fitting(value, depth + 1), 0..3).boxed()
        }
        _ => Just(BTreeMap::new()).boxed(),
    };
    (members, extra)
        .prop_map(|(members, extra)| {
            let mut object: Map<String, Value> = extra.into_iter().collect();
            object.extend(members.into_iter().flatten());
            Value::Object(object)
        })
        .boxed()
}

/// What may replace part of a valid value to break it.
fn wrong_values() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(-1),
        json!(1.5),
        json!(256),
        json!(70000),
        json!(5_000_000_000_i64),
        json!(-9_223_372_036_854_775_808_i64),
        json!(""),
        json!("word"),
        json!("ab"),
        json!([]),
        json!([1, "x"]),
        json!({}),
        json!({"unknown": 1}),
    ]
}

/// One way of breaking a value, applied at the node `at` (in pre-order, the root excluded:
/// `arguments` that are not an object are a malformed request, not a question for the schema).
#[derive(Debug, Clone)]
enum Break {
    Replace(Value),
    RemoveMember(Index),
    AddMember,
}

fn breaks() -> impl Strategy<Value = Break> {
    prop_oneof![
        3 => proptest::sample::select(wrong_values()).prop_map(Break::Replace),
        1 => any::<Index>().prop_map(Break::RemoveMember),
        1 => Just(Break::AddMember),
    ]
}

fn node_count(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(node_count).sum(),
        Value::Object(members) => members.values().map(node_count).sum(),
        _ => 0,
    }
}

/// Apply `change` to the `target`-th node of `value` in pre-order; `target` counts down.
fn apply(value: &mut Value, target: &mut usize, change: &Break) -> bool {
    if *target == 0 {
        match (change, &mut *value) {
            (Break::Replace(wrong), _) => *value = wrong.clone(),
            (Break::RemoveMember(index), Value::Object(members)) if !members.is_empty() => {
                let key = members.keys().nth(index.index(members.len())).cloned();
                members.remove(&key.expect("in range"));
            }
            (Break::AddMember, Value::Object(members)) => {
                members.insert("unexpectedMember".into(), json!(1));
            }
            _ => return false,
        }
        return true;
    }
    *target -= 1;
    let children: Vec<&mut Value> = match value {
        Value::Array(items) => items.iter_mut().collect(),
        Value::Object(members) => members.values_mut().collect(),
        _ => return false,
    };
    for child in children {
        if *target == 0 || *target < node_count(child) {
            return apply(child, target, change);
        }
        *target -= node_count(child);
    }
    false
}

// --- Calling through the dispatcher. ---------------------------------------------------------

/// A legacy session with the tools, its runtime, and the next request id.
struct Session {
    connection: Connection,
    runtime: tokio::runtime::Runtime,
    next_id: u64,
}

impl Session {
    fn new() -> Self {
        let mut session = Session {
            connection: Connection::new(&server()).expect("valid tools"),
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .expect("a runtime"),
            next_id: 1,
        };
        let initialized = session.send(&json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "props", "version": "0"}}
        }));
        assert!(initialized.get("result").is_some(), "{initialized}");
        session
    }

    fn send(&mut self, message: &Value) -> Value {
        let answer = match self.connection.handle(message.to_string().as_bytes()) {
            Answer::Ready(bytes) => bytes,
            Answer::Pending(call) => self.runtime.block_on(call).expect("not cancelled"),
            Answer::None => panic!("no answer to {message}"),
        };
        serde_json::from_slice(&answer).expect("an answer is JSON")
    }

    /// Call `tool`; the `CallToolResult`, failing the case on a JSON-RPC error.
    fn call(&mut self, tool: &str, arguments: &Value) -> Result<Value, TestCaseError> {
        let id = self.next_id;
        self.next_id += 1;
        let response = self.send(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}
        }));
        prop_assert_eq!(&response["id"], &json!(id));
        match response.get("result") {
            Some(result) => Ok(result.clone()),
            None => Err(TestCaseError::fail(format!(
                "a JSON-RPC error instead of a tool result for {arguments}: {response}"
            ))),
        }
    }
}

/// The tool's `inputSchema`, and a validator for it that also holds 64-bit integers to the
/// range their `format` names (schemars states the bounds of narrower types itself).
fn schema_of(tool: &dyn ToolHandler) -> (Value, jsonschema::Validator) {
    let schema = Value::Object(tool.definition().input_schema);
    let mut bounded = schema.clone();
    bound_integer_formats(&mut bounded);
    let validator = jsonschema::validator_for(&bounded).expect("the input schema compiles");
    (schema, validator)
}

fn bound_integer_formats(schema: &mut Value) {
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

fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"].as_str())
        .collect()
}

fn is_argument_error(result: &Value) -> bool {
    result["isError"] == json!(true) && text(result).starts_with("invalid arguments")
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
        Value::Array(items) => Value::Array(items.iter().map(without_null_members).collect()),
        other => other.clone(),
    }
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: 192,
        failure_persistence: None,
        ..Config::default()
    })
}

/// Every value generated from the tool's schema that the validator accepts is read.
fn fitting_arguments_are_read(tool: &dyn ToolHandler) {
    let name = tool.definition().name;
    let (schema, validator) = schema_of(tool);
    let session = RefCell::new(Session::new());
    let fitted = Cell::new(0);
    runner()
        .run(&fitting(&schema, 0), |arguments| {
            prop_assume!(validator.is_valid(&arguments));
            fitted.set(fitted.get() + 1);
            let result = session.borrow_mut().call(&name, &arguments)?;
            prop_assert!(
                !is_argument_error(&result),
                "`{}`: {} fits {}, yet: {}",
                name,
                arguments,
                schema,
                text(&result)
            );
            prop_assert!(result["isError"] != json!(true), "{result}");
            Ok(())
        })
        .unwrap_or_else(|failure| panic!("{failure}"));
    assert!(
        fitted.get() > 0,
        "`{name}`: no generated value fitted {schema}"
    );
}

/// A valid value with one part broken is refused as an `isError` result unless it still fits
/// (or fits once its `null`s are read as absent).
fn broken_arguments_are_tool_errors(tool: &dyn ToolHandler) {
    let name = tool.definition().name;
    let (schema, validator) = schema_of(tool);
    let session = RefCell::new(Session::new());
    let refused = Cell::new(0);
    let strategy = (fitting(&schema, 0), any::<Index>(), breaks());
    runner()
        .run(&strategy, |(mut arguments, at, change)| {
            let nodes = node_count(&arguments);
            prop_assume!(nodes > 1);
            let mut target = 1 + at.index(nodes - 1);
            prop_assume!(apply(&mut arguments, &mut target, &change));
            let result = session.borrow_mut().call(&name, &arguments)?;
            if validator.is_valid(&arguments) {
                prop_assert!(!is_argument_error(&result), "{arguments}: {result}");
            } else if !validator.is_valid(&without_null_members(&arguments)) {
                refused.set(refused.get() + 1);
                prop_assert!(
                    is_argument_error(&result),
                    "`{}`: {} does not fit {}, yet the call answered {}",
                    name,
                    arguments,
                    schema,
                    result
                );
            }
            Ok(())
        })
        .unwrap_or_else(|failure| panic!("{failure}"));
    assert!(refused.get() > 0, "`{name}`: no broken value was refused");
}

macro_rules! property_tests {
    ($($tool:ident),+) => {
        mod fitting_arguments_are_read {
            $(#[test] fn $tool() { super::fitting_arguments_are_read(&super::$tool {}); })+
        }
        mod broken_arguments_are_tool_errors {
            $(#[test] fn $tool() { super::broken_arguments_are_tool_errors(&super::$tool {}); })+
        }
    };
}

property_tests!(numbers, texts, records, containers, defaults);
