//! The `calculator` example, driven as a client would drive it, in every revision.

mod support;

use std::collections::BTreeSet;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::{Client, ServerProcess, assert_text, assert_tool_error_mentions, per_revision};

fn calculator(revision: ProtocolVersion) -> Client {
    Client::open(ServerProcess::example("calculator"), revision)
}

fn lists_its_five_tools(revision: ProtocolVersion) {
    let mut client = calculator(revision);
    let tools = client.list_all_tools();
    let names: BTreeSet<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        BTreeSet::from(["add", "divide", "echo", "round", "statistic"])
    );
    let divide = tools.iter().find(|t| t["name"] == "divide").unwrap();
    let divisor = &divide["inputSchema"]["properties"]["divisor"];
    assert_eq!(
        divisor["description"], "the number to divide by; must not be zero",
        "{divide}"
    );
}

fn arithmetic_works(revision: ProtocolVersion) {
    let mut client = calculator(revision);
    assert_text(&client.call_tool("add", json!({"a": 2, "b": 3.5})), "5.5");
    assert_text(
        &client.call_tool("divide", json!({"dividend": 7, "divisor": 2})),
        "3.5",
    );
    assert_text(&client.call_tool("echo", json!({"text": "ok"})), "ok");
}

fn dividing_by_zero_is_a_tool_error(revision: ProtocolVersion) {
    let mut client = calculator(revision);
    let result = client.call_tool("divide", json!({"dividend": 1, "divisor": 0}));
    assert_tool_error_mentions(&result, &["divisor"]);
}

fn round_defaults_to_no_decimals(revision: ProtocolVersion) {
    let mut client = calculator(revision);
    assert_text(&client.call_tool("round", json!({"value": 1.23456})), "1");
    assert_text(
        &client.call_tool("round", json!({"value": 1.23456, "digits": 2})),
        "1.23",
    );
}

fn statistic_takes_an_optional_enum(revision: ProtocolVersion) {
    let mut client = calculator(revision);
    let values: Value = json!([4, 1, 3, 2]);
    assert_text(
        &client.call_tool("statistic", json!({"values": values})),
        "2.5",
    );
    assert_text(
        &client.call_tool("statistic", json!({"values": values, "measure": "max"})),
        "4",
    );
    let unknown = client.call_tool("statistic", json!({"values": values, "measure": "mode"}));
    assert_tool_error_mentions(&unknown, &["measure"]);
    let empty = client.call_tool("statistic", json!({"values": []}));
    assert_tool_error_mentions(&empty, &["values"]);
}

per_revision!(all:
    lists_its_five_tools,
    arithmetic_works,
    dividing_by_zero_is_a_tool_error,
    round_defaults_to_no_decimals,
    statistic_takes_an_optional_enum,
);
