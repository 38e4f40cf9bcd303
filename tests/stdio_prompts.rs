//! Prompts over stdio, in every revision: `prompts/list`, `prompts/get` (arguments parsed from
//! strings, results, errors) and argument completion. Every message is checked against the
//! official schema of its revision by the support client.

mod support;

use std::path::Path;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::schema::declared_properties;
use support::{Client, ServerProcess, per_revision};

/// The offerings fixture (`tests/offerings_server`), opened in `revision`.
fn open(revision: ProtocolVersion) -> Client {
    let server = ServerProcess::spawn(Path::new(env!("CARGO_BIN_EXE_offerings-server")));
    Client::open(server, revision)
}

const PROMPTS: [&str; 9] = [
    "greeting",
    "count",
    "conversation",
    "refuse",
    "crash",
    "explode",
    "paint",
    "travel",
    "which_revision",
];

/// Every prompt, following `nextCursor` (the fixture pages by three).
fn list_prompts(client: &mut Client) -> Vec<Value> {
    let mut prompts = Vec::new();
    let mut params = json!({});
    loop {
        let page = client.result("prompts/list", params);
        let on_page = page["prompts"].as_array().cloned().unwrap_or_default();
        assert!(on_page.len() <= 3, "{page}");
        prompts.extend(on_page);
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(cursor) => params = json!({"cursor": cursor}),
            None => return prompts,
        }
    }
}

fn get(client: &mut Client, name: &str, arguments: Value) -> Value {
    client.result("prompts/get", json!({"name": name, "arguments": arguments}))
}

fn get_error(client: &mut Client, name: &str, arguments: Value) -> Value {
    client.error("prompts/get", json!({"name": name, "arguments": arguments}))
}

/// The text of the only message, a user's.
fn only_user_text(result: &Value) -> &str {
    let messages = result["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 1, "{result}");
    assert_eq!(messages[0]["role"], "user", "{result}");
    assert_eq!(messages[0]["content"]["type"], "text", "{result}");
    messages[0]["content"]["text"].as_str().unwrap()
}

fn every_prompt_is_listed_with_its_arguments(revision: ProtocolVersion) {
    let mut client = open(revision);
    let prompts = list_prompts(&mut client);
    let names: Vec<&str> = prompts.iter().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(names, PROMPTS);
    let declared = declared_properties(revision, "Prompt");
    for prompt in &prompts {
        for field in prompt.as_object().unwrap().keys() {
            assert!(
                declared.contains(field),
                "{revision}: `{field}` in {prompt}"
            );
        }
    }
    let greeting = &prompts[0];
    assert_eq!(greeting["description"], "Greet someone.");
    assert_eq!(
        greeting["arguments"],
        json!([
            {"name": "name", "description": "who to greet", "required": true},
            {"name": "excited", "description": "whether to shout"}
        ])
    );
    if revision >= ProtocolVersion::V2025_06_18 {
        assert_eq!(greeting["title"], "Greeting");
    }
    let count = &prompts[1];
    assert_eq!(
        count["arguments"][1],
        json!({"name": "times", "description": "how many times to count"}),
        "a defaulted argument is optional"
    );
    // Injected values are not arguments; renamed ones go by their wire name.
    let travel = &prompts[7];
    assert_eq!(travel["arguments"][1]["name"], "city");
    assert!(prompts[8].get("arguments").is_none(), "{}", prompts[8]);
    if revision.is_modern() {
        let page = client.result("prompts/list", json!({}));
        assert_eq!(page["cacheScope"], "public");
    }
}

fn icons_are_sent_from_2025_11_25(revision: ProtocolVersion) {
    let mut client = open(revision);
    let prompts = list_prompts(&mut client);
    let greeting = prompts.iter().find(|p| p["name"] == "greeting").unwrap();
    if revision >= ProtocolVersion::V2025_11_25 {
        assert_eq!(
            greeting["icons"],
            json!([{"src": "https://example.com/icons/wave.svg"}]),
            "{revision}: {greeting}"
        );
    } else {
        assert!(greeting.get("icons").is_none(), "{revision}: {greeting}");
    }
    // Without an `icon`, no `icons` at all.
    let count = prompts.iter().find(|p| p["name"] == "count").unwrap();
    assert!(count.get("icons").is_none(), "{revision}: {count}");
}

fn a_string_is_one_user_message(revision: ProtocolVersion) {
    let mut client = open(revision);
    let result = get(&mut client, "greeting", json!({"name": "Ada"}));
    assert_eq!(only_user_text(&result), "Hello, Ada.");
    let result = get(
        &mut client,
        "greeting",
        json!({"name": "Ada", "excited": "true"}),
    );
    assert_eq!(only_user_text(&result), "HELLO, ADA!");
    if revision.is_modern() {
        assert_eq!(result["resultType"], "complete");
    }
}

fn arguments_are_parsed_from_strings_with_defaults(revision: ProtocolVersion) {
    let mut client = open(revision);
    let result = get(&mut client, "count", json!({"to": "3"}));
    assert_eq!(
        only_user_text(&result),
        "1 2 3 / 1 2 3",
        "a plain fn, default times"
    );
    let result = get(&mut client, "count", json!({"to": "2", "times": "3"}));
    assert_eq!(only_user_text(&result), "1 2 / 1 2 / 1 2");
    let result = get(&mut client, "paint", json!({"shade": "blue"}));
    assert_eq!(only_user_text(&result), "Paint it Blue.");
    let result = get(&mut client, "which_revision", json!({}));
    assert_eq!(only_user_text(&result), format!("revision {revision}"));
    // No `arguments` member at all is no arguments.
    let result = client.result("prompts/get", json!({"name": "which_revision"}));
    assert_eq!(only_user_text(&result), format!("revision {revision}"));
}

fn messages_carry_roles_and_every_kind_of_content(revision: ProtocolVersion) {
    let mut client = open(revision);
    let result = get(&mut client, "conversation", json!({}));
    assert_eq!(result["description"], "every kind of content");
    let messages = result["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages.iter().filter_map(|m| m["role"].as_str()).collect();
    assert_eq!(roles, ["user", "user", "user", "user", "assistant"]);
    assert_eq!(messages[1]["content"]["type"], "image");
    // Audio exists from 2025-03-26; older clients get a note in its place.
    let audio = &messages[2]["content"];
    if revision >= ProtocolVersion::V2025_03_26 {
        assert_eq!(audio["type"], "audio", "{audio}");
    } else {
        assert_eq!(audio["type"], "text", "{audio}");
    }
    assert_eq!(
        messages[3]["content"],
        json!({"type": "resource", "resource":
            {"uri": "note://1", "mimeType": "text/plain", "text": "note 1"}})
    );
}

fn missing_and_unparsable_arguments_are_invalid_params_naming_them(revision: ProtocolVersion) {
    let mut client = open(revision);
    let error = get_error(&mut client, "greeting", json!({}));
    assert_eq!(error["code"], -32602, "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("`name`") && message.contains("missing"),
        "{message}"
    );

    let error = get_error(&mut client, "count", json!({"to": "many", "times": "-1"}));
    assert_eq!(error["code"], -32602, "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("`to`") && message.contains("`times`"),
        "both named: {message}"
    );

    let error = get_error(&mut client, "paint", json!({"shade": "purple"}));
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("no shade `purple`"),
        "{error}"
    );
}

fn an_unknown_prompt_is_invalid_params(revision: ProtocolVersion) {
    let mut client = open(revision);
    let error = get_error(&mut client, "no_such_prompt", json!({}));
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("no_such_prompt"),
        "{error}"
    );
}

fn failures_are_errors_of_the_right_kind(revision: ProtocolVersion) {
    let mut client = open(revision);
    let error = get_error(&mut client, "refuse", json!({"topic": "taxes"}));
    assert_eq!(error["code"], -32602, "an `Err` from the function: {error}");
    assert!(
        error["message"].as_str().unwrap().contains("taxes"),
        "{error}"
    );
    let error = get_error(&mut client, "crash", json!({}));
    assert_eq!(error["code"], -32603, "{error}");
    let error = get_error(&mut client, "explode", json!({}));
    assert_eq!(error["code"], -32603, "{error}");
    // Still serving.
    let result = get(&mut client, "greeting", json!({"name": "Ada"}));
    assert_eq!(only_user_text(&result), "Hello, Ada.");
}

fn complete(client: &mut Client, prompt: &str, argument: &str, value: &str, known: Value) -> Value {
    let mut params = json!({
        "ref": {"type": "ref/prompt", "name": prompt},
        "argument": {"name": argument, "value": value},
    });
    if client.revision() >= ProtocolVersion::V2025_06_18 && !known.is_null() {
        params["context"] = json!({"arguments": known});
    }
    client.result("completion/complete", params)["completion"].clone()
}

fn prompt_arguments_are_completed(revision: ProtocolVersion) {
    let mut client = open(revision);
    let shades = complete(&mut client, "paint", "shade", "R", Value::Null);
    assert_eq!(shades["values"], json!(["red"]), "case-insensitive prefix");
    let cities = complete(&mut client, "travel", "city", "", json!({"country": "fr"}));
    if revision >= ProtocolVersion::V2025_06_18 {
        assert_eq!(cities["values"], json!(["paris", "lyon"]));
    } else {
        assert_eq!(cities["values"].as_array().unwrap().len(), 4);
    }
    let none = complete(&mut client, "greeting", "name", "A", Value::Null);
    assert_eq!(none["values"], json!([]));
}

fn completing_what_does_not_exist_is_invalid_params(revision: ProtocolVersion) {
    let mut client = open(revision);
    for (prompt, argument) in [("no_such_prompt", "x"), ("greeting", "no_such_argument")] {
        let error = client.error(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": prompt},
                   "argument": {"name": argument, "value": ""}}),
        );
        assert_eq!(error["code"], -32602, "{error}");
    }
}

per_revision!(all:
    every_prompt_is_listed_with_its_arguments,
    icons_are_sent_from_2025_11_25,
    a_string_is_one_user_message,
    arguments_are_parsed_from_strings_with_defaults,
    messages_carry_roles_and_every_kind_of_content,
    missing_and_unparsable_arguments_are_invalid_params_naming_them,
    an_unknown_prompt_is_invalid_params,
    failures_are_errors_of_the_right_kind,
    prompt_arguments_are_completed,
    completing_what_does_not_exist_is_invalid_params,
);

#[test]
fn a_server_without_prompts_or_resources_has_no_such_methods() {
    // The tools fixture offers neither: the methods do not exist there.
    let mut client = Client::fixture(ProtocolVersion::V2025_06_18);
    for method in ["prompts/list", "resources/list", "resources/templates/list"] {
        let error = client.error(method, json!({}));
        assert_eq!(error["code"], -32601, "{method}: {error}");
    }
    let error = client.error(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": ""}}),
    );
    assert_eq!(
        error["code"], -32601,
        "no completer, no completion: {error}"
    );
}
