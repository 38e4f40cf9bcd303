//! `tools/list` and `tools/call` over stdio, in every revision.

mod support;

use std::collections::BTreeSet;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::schema::declared_properties;
use support::{Client, assert_text, assert_tool_error_mentions, expect_error, per_revision};

/// Every tool the fixture server registers.
const FIXTURE_TOOLS: [&str; 13] = [
    "add",
    "divide",
    "echo",
    "greet",
    "mixed",
    "multiply",
    "noisy",
    "panics",
    "revision",
    "slow",
    "step",
    "stuck",
    "wait_for_cancellation",
];

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("no tool `{name}` listed"))
}

/// The fixture's `page_size`.
const PAGE_SIZE: usize = 4;

fn pagination_lists_every_tool_once(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let pages = client.list_tool_pages();
    assert_eq!(
        pages.len(),
        FIXTURE_TOOLS.len().div_ceil(PAGE_SIZE),
        "{} tools in pages of {PAGE_SIZE}",
        FIXTURE_TOOLS.len()
    );
    for page in &pages {
        let on_page = page["tools"].as_array().map_or(0, Vec::len);
        assert!(on_page <= PAGE_SIZE, "{on_page} tools on one page: {page}");
    }
    if revision.is_modern() {
        // Each page is cached on its own, but one list must not mix scopes.
        let scopes: BTreeSet<String> = pages.iter().map(|p| p["cacheScope"].to_string()).collect();
        assert_eq!(
            scopes.len(),
            1,
            "pages of one list share cacheScope: {scopes:?}"
        );
    }
    let tools: Vec<&Value> = pages
        .iter()
        .flat_map(|page| page["tools"].as_array().into_iter().flatten())
        .collect();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    let unique: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(
        names.len(),
        unique.len(),
        "a tool is listed twice: {names:?}"
    );
    assert_eq!(unique, BTreeSet::from(FIXTURE_TOOLS));
}

fn a_bad_cursor_is_invalid_params(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let error = client.error("tools/list", json!({"cursor": "not-a-cursor-we-gave"}));
    assert_eq!(error["code"], -32602, "{error}");
}

fn tools_carry_only_fields_their_revision_defines(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let declared = declared_properties(revision, "Tool");
    for tool in client.list_all_tools() {
        for field in tool.as_object().unwrap().keys() {
            assert!(
                declared.contains(field),
                "{revision} defines no Tool field `{field}`: {tool}"
            );
        }
    }
}

fn input_schemas_are_self_contained_objects(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    for tool in client.list_all_tools() {
        let schema = &tool["inputSchema"];
        assert_eq!(schema["type"], "object", "{tool}");
        // Many clients cannot follow references, so schemas are inlined.
        let text = schema.to_string();
        for reference in ["$ref", "$defs", "\"definitions\""] {
            assert!(!text.contains(reference), "`{reference}` in {schema}");
        }
    }
}

fn definitions_come_from_the_functions(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let tools = client.list_all_tools();

    let echo = tool(&tools, "echo");
    assert_eq!(echo["description"], "Repeat the text back.", "{echo}");
    let text = &echo["inputSchema"]["properties"]["text"];
    assert_eq!(text["type"], "string", "{echo}");
    assert_eq!(text["description"], "what to echo", "{echo}");

    let greet = tool(&tools, "greet");
    assert_eq!(
        greet["inputSchema"]["required"],
        json!(["name"]),
        "defaulted and optional parameters are not required: {greet}"
    );
    let times = &greet["inputSchema"]["properties"]["times"];
    assert_eq!(times["description"], "how many greetings", "{greet}");

    let step = tool(&tools, "step");
    let heading = &step["inputSchema"]["properties"]["heading"];
    assert_eq!(
        heading["enum"],
        json!(["north", "east", "south", "west"]),
        "{step}"
    );

    let add = tool(&tools, "add");
    if revision >= ProtocolVersion::V2025_06_18 {
        assert_eq!(add["title"], "Add", "{add}");
    }
    if revision >= ProtocolVersion::V2025_03_26 {
        assert_eq!(add["annotations"]["readOnlyHint"], true, "{add}");
        assert_eq!(add["annotations"]["idempotentHint"], true, "{add}");
    }
}

fn calls_return_the_functions_results(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    assert_text(&client.call_tool("echo", json!({"text": "héllo"})), "héllo");
    assert_text(
        &client.call_tool("add", json!({"augend": 2, "addend": 40})),
        "42",
    );
    assert_text(
        &client.call_tool("multiply", json!({"multiplicand": 6, "multiplier": 7})),
        "42",
    );
    assert_text(
        &client.call_tool("divide", json!({"dividend": 84, "divisor": 2})),
        "42",
    );
    assert_text(
        &client.call_tool("step", json!({"from": {"x": 1, "y": 1}, "heading": "west"})),
        "(0, 1)",
    );
}

fn defaults_and_options_fill_missing_arguments(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    assert_text(
        &client.call_tool("greet", json!({"name": "Ada"})),
        "Hello, Ada!",
    );
    assert_text(
        &client.call_tool(
            "greet",
            json!({"name": "Ada", "times": 2, "punctuation": "."}),
        ),
        "Hello, Ada. Hello, Ada.",
    );
}

fn handlers_see_the_revision_of_their_request(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    // No `arguments` at all: a tool without parameters needs none.
    let result = client.result("tools/call", json!({"name": "revision"}));
    assert_text(&result, revision.as_str());
}

fn wrong_arguments_are_tool_errors_naming_the_parameter(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let wrong_type = client.call_tool("add", json!({"augend": 1, "addend": "two"}));
    assert_tool_error_mentions(&wrong_type, &["addend"]);
    let missing = client.call_tool("add", json!({"addend": 2}));
    assert_tool_error_mentions(&missing, &["augend"]);
    let bad_variant = client.call_tool("step", json!({"from": {"x": 0, "y": 0}, "heading": "up"}));
    assert_tool_error_mentions(&bad_variant, &["heading"]);
}

fn a_failing_tool_is_a_tool_error(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let result = client.call_tool("divide", json!({"dividend": 1, "divisor": 0}));
    assert_tool_error_mentions(&result, &["cannot divide by zero"]);
}

fn an_unknown_tool_is_invalid_params(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let response = client.request(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    let error = expect_error(&response);
    assert_eq!(error["code"], -32602, "{error}");
}

per_revision!(all:
    pagination_lists_every_tool_once,
    a_bad_cursor_is_invalid_params,
    tools_carry_only_fields_their_revision_defines,
    input_schemas_are_self_contained_objects,
    definitions_come_from_the_functions,
    calls_return_the_functions_results,
    defaults_and_options_fill_missing_arguments,
    handlers_see_the_revision_of_their_request,
    wrong_arguments_are_tool_errors_naming_the_parameter,
    a_failing_tool_is_a_tool_error,
    an_unknown_tool_is_invalid_params,
);
