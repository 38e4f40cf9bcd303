//! Resources over stdio, in every revision: `resources/list`, `resources/templates/list`,
//! `resources/read` (routing, contents, errors), template-variable completion, and change
//! notifications (legacy subscriptions, 2026-07-28 listen streams). Every message is checked
//! against the official schema of its revision by the support client.

mod support;

use std::collections::BTreeSet;
use std::path::Path;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::schema::declared_properties;
use support::{Client, ServerProcess, expect_error, per_revision};

/// The offerings fixture (`tests/offerings_server`), opened in `revision`.
fn open(revision: ProtocolVersion) -> Client {
    let server = ServerProcess::spawn(Path::new(env!("CARGO_BIN_EXE_offerings-server")));
    Client::open(server, revision)
}

/// Every page of a list method, following `nextCursor`; the items under `key`.
fn list_all(client: &mut Client, method: &str, key: &str) -> Vec<Value> {
    let mut items = Vec::new();
    let mut params = json!({});
    let mut pages = 0;
    loop {
        let page = client.result(method, params);
        pages += 1;
        assert!(pages < 50, "{method} never ends");
        items.extend(page[key].as_array().cloned().unwrap_or_default());
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(cursor) => params = json!({"cursor": cursor}),
            None => return items,
        }
    }
}

fn texts(values: &[Value], key: &str) -> Vec<String> {
    values
        .iter()
        .map(|value| value[key].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The one text item a read returned.
fn read_text(client: &mut Client, uri: &str) -> String {
    let result = client.result("resources/read", json!({"uri": uri}));
    let contents = result["contents"].as_array().expect("contents");
    assert_eq!(contents.len(), 1, "{result}");
    assert_eq!(contents[0]["uri"], uri, "{result}");
    contents[0]["text"]
        .as_str()
        .expect("a text item")
        .to_owned()
}

/// The error of reading `uri`.
fn read_error(client: &mut Client, uri: &str) -> Value {
    client.error("resources/read", json!({"uri": uri}))
}

/// "Resource not found" as `revision` says it, with the URI in `data`.
fn assert_not_found(error: &Value, uri: &str, revision: ProtocolVersion) {
    let code = if revision.is_modern() { -32602 } else { -32002 };
    assert_eq!(error["code"], code, "{error}");
    assert_eq!(error["data"]["uri"], uri, "{error}");
}

const TEMPLATES: [&str; 10] = [
    "config://{section}",
    "note://{id}",
    "file:///{+path}",
    "file:///src/{name}.rs",
    "multi://{key}",
    "broken://{key}",
    "panics://{key}",
    "empty://{key}",
    "color://{shade}",
    "city://{country}/{name}",
];

fn templates_are_listed_with_what_their_revision_defines(revision: ProtocolVersion) {
    let mut client = open(revision);
    let templates = list_all(&mut client, "resources/templates/list", "resourceTemplates");
    let listed: BTreeSet<String> = texts(&templates, "uriTemplate").into_iter().collect();
    let expected: BTreeSet<String> = TEMPLATES.iter().map(|t| t.to_string()).collect();
    assert_eq!(listed, expected);
    let declared = declared_properties(revision, "ResourceTemplate");
    for template in &templates {
        for field in template.as_object().unwrap().keys() {
            assert!(
                declared.contains(field),
                "{revision}: `{field}` in {template}"
            );
        }
    }
    let note = templates
        .iter()
        .find(|t| t["uriTemplate"] == "note://{id}")
        .unwrap();
    assert_eq!(note["name"], "note");
    assert_eq!(note["description"], "A numbered note; notes 1 to 3 exist.");
    assert_eq!(note["mimeType"], "text/plain");
}

fn resources_list_statics_and_what_listers_enumerate(revision: ProtocolVersion) {
    let mut client = open(revision);
    let resources = list_all(&mut client, "resources/list", "resources");
    assert_eq!(
        texts(&resources, "uri"),
        [
            "config://app",
            "config://logo.png",
            "note://1",
            "note://2",
            "note://3",
            "revision://current"
        ],
        "in registration order, listers' instances in their template's place"
    );
    let app = &resources[0];
    assert_eq!(app["name"], "app_config");
    assert_eq!(app["mimeType"], "application/json");
    assert_eq!(app["size"], 17);
    assert_eq!(app["annotations"]["audience"], json!(["user"]));
    assert_eq!(app["annotations"]["priority"], 1.0);
    if revision >= ProtocolVersion::V2025_06_18 {
        assert_eq!(app["title"], "App settings");
    } else {
        assert!(app.get("title").is_none(), "{app}");
    }
    // A listed instance takes its template's MIME type.
    assert_eq!(resources[2]["mimeType"], "text/plain");
    if revision.is_modern() {
        let page = client.result("resources/list", json!({}));
        assert_eq!(
            page["ttlMs"], 0,
            "listers may change what they list: {page}"
        );
    }
}

/// The `icons` of the item of `items` whose `key` is `value`: `None` when it has none.
fn icons_of(items: &[Value], key: &str, value: &str) -> Option<Value> {
    let item = items
        .iter()
        .find(|item| item[key] == value)
        .unwrap_or_else(|| panic!("no {key} {value}"));
    item.get("icons").cloned()
}

fn icons_are_sent_from_2025_11_25(revision: ProtocolVersion) {
    let mut client = open(revision);
    let resources = list_all(&mut client, "resources/list", "resources");
    let templates = list_all(&mut client, "resources/templates/list", "resourceTemplates");
    let has_icons = revision >= ProtocolVersion::V2025_11_25;
    let expected = |src: &str| has_icons.then(|| json!([{ "src": src }]));
    assert_eq!(
        icons_of(&resources, "uri", "config://app"),
        expected("https://example.com/icons/settings.svg"),
        "{revision}"
    );
    assert_eq!(
        icons_of(&templates, "uriTemplate", "note://{id}"),
        expected("https://example.com/icons/note.svg"),
        "{revision}"
    );
    // A listed instance takes its template's icon, as it takes its MIME type.
    assert_eq!(
        icons_of(&resources, "uri", "note://2"),
        expected("https://example.com/icons/note.svg"),
        "{revision}"
    );
    // Without an `icon`, no `icons` at all.
    assert_eq!(icons_of(&resources, "uri", "config://logo.png"), None);
    assert_eq!(icons_of(&templates, "uriTemplate", "multi://{key}"), None);
}

fn bad_cursors_are_invalid_params(revision: ProtocolVersion) {
    let mut client = open(revision);
    for method in ["resources/list", "resources/templates/list"] {
        let error = client.error(method, json!({"cursor": "not-ours"}));
        assert_eq!(error["code"], -32602, "{method}: {error}");
    }
}

fn static_and_templated_resources_are_read(revision: ProtocolVersion) {
    let mut client = open(revision);
    assert_eq!(
        read_text(&mut client, "config://app"),
        r#"{"theme":"dark"}"#
    );
    assert_eq!(read_text(&mut client, "note://2"), "note 2");
    assert_eq!(
        read_text(&mut client, "color://green"),
        "Green",
        "a plain fn"
    );
    assert_eq!(
        read_text(&mut client, "city://fr/caf%C3%A9%20town"),
        "café town, fr",
        "variables are percent-decoded"
    );
    assert_eq!(
        read_text(&mut client, "revision://current"),
        revision.as_str()
    );
    let result = client.result("resources/read", json!({"uri": "config://app"}));
    assert_eq!(result["contents"][0]["mimeType"], "application/json");
    if revision.is_modern() {
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["ttlMs"], 0, "{result}");
    }
}

fn bytes_are_sent_as_base64_blobs(revision: ProtocolVersion) {
    let mut client = open(revision);
    let result = client.result("resources/read", json!({"uri": "config://logo.png"}));
    let item = &result["contents"][0];
    assert_eq!(item["blob"], "iVBORwD/", "{result}");
    assert_eq!(item["mimeType"], "image/png");
    assert!(item.get("text").is_none());
}

fn a_read_may_return_several_contents(revision: ProtocolVersion) {
    let mut client = open(revision);
    let result = client.result("resources/read", json!({"uri": "multi://k"}));
    assert_eq!(
        result["contents"],
        json!([
            {"uri": "multi://k", "mimeType": "text/plain", "text": "first"},
            {"uri": "multi://k/raw", "blob": "c2Vjb25k"}
        ])
    );
}

fn routing_prefers_static_then_the_most_specific_template(revision: ProtocolVersion) {
    let mut client = open(revision);
    // A static URI beats the template `config://{section}` that also matches it.
    assert_eq!(
        read_text(&mut client, "config://app"),
        r#"{"theme":"dark"}"#
    );
    assert_eq!(read_text(&mut client, "config://db"), "section db");
    // More literal characters win: `file:///src/{name}.rs` over `file:///{+path}`.
    assert_eq!(
        read_text(&mut client, "file:///src/main.rs"),
        "rust source: main"
    );
    assert_eq!(
        read_text(&mut client, "file:///README.md"),
        "any file: README.md"
    );
    // A simple variable takes no `/`, so the general template reads nested sources.
    assert_eq!(
        read_text(&mut client, "file:///src/bin/tool.rs"),
        "any file: src/bin/tool.rs"
    );
}

fn what_matches_nothing_is_not_found(revision: ProtocolVersion) {
    let mut client = open(revision);
    let error = read_error(&mut client, "nothing://here");
    assert_not_found(&error, "nothing://here", revision);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("nothing://here"),
        "{error}"
    );
}

fn a_variable_that_does_not_parse_is_not_found(revision: ProtocolVersion) {
    let mut client = open(revision);
    let error = read_error(&mut client, "note://seven");
    assert_not_found(&error, "note://seven", revision);
    assert!(
        error["message"].as_str().unwrap().contains("`id`"),
        "{error}"
    );
    let error = read_error(&mut client, "color://purple");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("no shade `purple`"),
        "{error}"
    );
}

fn an_err_from_the_function_is_not_found_with_its_text(revision: ProtocolVersion) {
    let mut client = open(revision);
    let error = read_error(&mut client, "note://9");
    assert_not_found(&error, "note://9", revision);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("there is no note 9"),
        "{error}"
    );
    // No contents at all is "not found" too, never an empty `contents`.
    let error = read_error(&mut client, "empty://x");
    assert_not_found(&error, "empty://x", revision);
}

fn server_failures_are_internal_errors(revision: ProtocolVersion) {
    let mut client = open(revision);
    let error = read_error(&mut client, "broken://k");
    assert_eq!(error["code"], -32603, "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("disk"),
        "{error}"
    );
    let error = read_error(&mut client, "panics://k");
    assert_eq!(error["code"], -32603, "{error}");
    // The server is still there.
    assert_eq!(read_text(&mut client, "note://1"), "note 1");
}

/// Send `method` with `params` (which the schema-checked sender would refuse) and return the
/// error it gets.
fn unchecked_error(
    client: &mut Client,
    revision: ProtocolVersion,
    method: &str,
    mut params: Value,
) -> Value {
    if revision.is_modern() {
        params["_meta"] = support::modern_meta(revision.as_str());
    }
    let id = json!(format!("unchecked-{method}"));
    client.send_unchecked(
        &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        revision,
    );
    expect_error(&client.response(&id))
}

fn malformed_reads_are_invalid_params(revision: ProtocolVersion) {
    let mut client = open(revision);
    let error = unchecked_error(&mut client, revision, "resources/read", json!({"uri": 42}));
    assert_eq!(error["code"], -32602, "{error}");
    let error = unchecked_error(&mut client, revision, "resources/read", json!({}));
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("uri"),
        "{error}"
    );
}

fn capabilities_declare_resources_prompts_and_completions(revision: ProtocolVersion) {
    let mut client = Client::new(ServerProcess::spawn(Path::new(env!(
        "CARGO_BIN_EXE_offerings-server"
    ))));
    let capabilities = if revision.is_modern() {
        let id = client.send_modern_request("server/discover", json!({}));
        client.response(&id)["result"]["capabilities"].clone()
    } else {
        client.initialize(revision.as_str())["capabilities"].clone()
    };
    assert_eq!(
        capabilities["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    assert_eq!(capabilities["prompts"], json!({"listChanged": true}));
    if revision >= ProtocolVersion::V2025_03_26 {
        assert_eq!(capabilities["completions"], json!({}));
    } else {
        assert!(
            capabilities.get("completions").is_none(),
            "2024-11-05 has no completions capability: {capabilities}"
        );
    }
}

fn template_variables_are_completed(revision: ProtocolVersion) {
    let mut client = open(revision);
    let complete = |client: &mut Client, uri: &str, name: &str, value: &str, known: Value| {
        let mut params = json!({
            "ref": {"type": "ref/resource", "uri": uri},
            "argument": {"name": name, "value": value},
        });
        if revision >= ProtocolVersion::V2025_06_18 && !known.is_null() {
            params["context"] = json!({"arguments": known});
        }
        client.result("completion/complete", params)["completion"].clone()
    };
    // An enum's variants, filtered by what was typed.
    let shades = complete(&mut client, "color://{shade}", "shade", "", Value::Null);
    assert_eq!(shades["values"], json!(["red", "green", "blue"]));
    let shades = complete(&mut client, "color://{shade}", "shade", "g", Value::Null);
    assert_eq!(shades["values"], json!(["green"]));
    // A completer function, reading the other variables when the client sends them.
    let cities = complete(
        &mut client,
        "city://{country}/{name}",
        "name",
        "",
        json!({"country": "jp"}),
    );
    if revision >= ProtocolVersion::V2025_06_18 {
        assert_eq!(cities["values"], json!(["tokyo", "osaka"]));
    } else {
        assert_eq!(cities["values"], json!(["paris", "lyon", "tokyo", "osaka"]));
    }
    // At most a hundred values, with the total and `hasMore`.
    let many = complete(
        &mut client,
        "city://{country}/{name}",
        "name",
        "many",
        Value::Null,
    );
    assert_eq!(many["values"].as_array().unwrap().len(), 100);
    assert_eq!(many["total"], 150);
    assert_eq!(many["hasMore"], true);
    // A variable without completer (and not an enum) gets no values.
    let none = complete(&mut client, "note://{id}", "id", "1", Value::Null);
    assert_eq!(none["values"], json!([]));
}

fn completion_errors_are_invalid_params(revision: ProtocolVersion) {
    let mut client = open(revision);
    let error = client.error(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "nope://{x}"},
               "argument": {"name": "x", "value": ""}}),
    );
    assert_eq!(error["code"], -32602, "{error}");
    let error = client.error(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "note://{id}"},
               "argument": {"name": "nope", "value": ""}}),
    );
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("nope"),
        "{error}"
    );
}

per_revision!(all:
    templates_are_listed_with_what_their_revision_defines,
    resources_list_statics_and_what_listers_enumerate,
    icons_are_sent_from_2025_11_25,
    bad_cursors_are_invalid_params,
    static_and_templated_resources_are_read,
    bytes_are_sent_as_base64_blobs,
    a_read_may_return_several_contents,
    routing_prefers_static_then_the_most_specific_template,
    what_matches_nothing_is_not_found,
    a_variable_that_does_not_parse_is_not_found,
    an_err_from_the_function_is_not_found_with_its_text,
    server_failures_are_internal_errors,
    malformed_reads_are_invalid_params,
    capabilities_declare_resources_prompts_and_completions,
    template_variables_are_completed,
    completion_errors_are_invalid_params,
);

// ---- change notifications --------------------------------------------------------------------

/// The next message that is a notification, failing on anything else.
fn next_notification(client: &mut Client) -> Value {
    let message = client.next_message();
    assert!(
        message.get("method").is_some() && message.get("id").is_none(),
        "expected a notification, got {message}"
    );
    message
}

fn legacy_subscriptions_bring_updates_for_subscribed_uris_only(revision: ProtocolVersion) {
    let mut client = open(revision);
    client.result("resources/subscribe", json!({"uri": "note://1"}));
    client.call_tool("touch", json!({"uri": "note://2"}));
    client.call_tool("touch", json!({"uri": "note://1"}));
    // Only the subscribed URI is announced (the first touch sent nothing before it).
    let update = next_notification(&mut client);
    assert_eq!(
        update,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "note://1"}})
    );
    client.result("resources/unsubscribe", json!({"uri": "note://1"}));
    client.result("resources/subscribe", json!({"uri": "note://3"}));
    client.call_tool("touch", json!({"uri": "note://1"}));
    client.call_tool("touch", json!({"uri": "note://3"}));
    let update = next_notification(&mut client);
    assert_eq!(
        update["params"]["uri"], "note://3",
        "unsubscribed URIs stay quiet"
    );
}

fn subscribing_to_an_unknown_uri_is_not_found(revision: ProtocolVersion) {
    let mut client = open(revision);
    let error = client.error("resources/subscribe", json!({"uri": "nothing://here"}));
    assert_not_found(&error, "nothing://here", revision);
}

fn legacy_sessions_hear_of_list_changes(revision: ProtocolVersion) {
    let mut client = open(revision);
    client.call_tool("reshuffle", json!({}));
    let methods: BTreeSet<String> = (0..2)
        .map(|_| {
            next_notification(&mut client)["method"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        methods,
        BTreeSet::from([
            "notifications/prompts/list_changed".to_owned(),
            "notifications/resources/list_changed".to_owned()
        ])
    );
}

per_revision!(legacy:
    legacy_subscriptions_bring_updates_for_subscribed_uris_only,
    subscribing_to_an_unknown_uri_is_not_found,
    legacy_sessions_hear_of_list_changes,
);

/// Open a listen stream asking for `notifications`; returns its id after checking that the
/// acknowledgement comes first and says what will be sent.
fn listen(client: &mut Client, notifications: Value, honored: Value) -> Value {
    let id = client.send_request(
        "subscriptions/listen",
        json!({"notifications": notifications}),
    );
    let ack = next_notification(client);
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(ack["params"]["notifications"], honored, "{ack}");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        id
    );
    id
}

#[test]
fn a_listen_stream_carries_only_what_it_opted_into_tagged_with_its_id() {
    let mut client = open(ProtocolVersion::V2026_07_28);
    // Tools never change here, so `toolsListChanged` is not honored.
    let updates = listen(
        &mut client,
        json!({"resourceSubscriptions": ["note://1"], "toolsListChanged": true}),
        json!({"resourceSubscriptions": ["note://1"]}),
    );
    let lists = listen(
        &mut client,
        json!({"resourcesListChanged": true, "promptsListChanged": true}),
        json!({"resourcesListChanged": true, "promptsListChanged": true}),
    );
    client.call_tool("touch", json!({"uri": "note://2"}));
    client.call_tool("touch", json!({"uri": "note://1"}));
    let update = next_notification(&mut client);
    assert_eq!(update["method"], "notifications/resources/updated");
    assert_eq!(update["params"]["uri"], "note://1");
    assert_eq!(
        update["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        updates
    );

    client.call_tool("reshuffle", json!({}));
    for _ in 0..2 {
        let changed = next_notification(&mut client);
        assert_eq!(
            changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], lists,
            "{changed}"
        );
    }

    // Cancelled: nothing more for that stream, not even a response.
    client.notify("notifications/cancelled", json!({"requestId": updates}));
    client.call_tool("touch", json!({"uri": "note://1"}));
    client.call_tool("reshuffle", json!({}));
    for _ in 0..2 {
        let changed = next_notification(&mut client);
        assert_eq!(
            changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], lists,
            "only the open stream hears anything: {changed}"
        );
    }
    client.assert_no_response_to(&updates);

    // At shutdown the open stream ends with its result; the cancelled one stays unanswered.
    let status = client.finish();
    assert!(status.success(), "{status}");
    let closed = client.response(&lists);
    assert_eq!(closed["result"]["resultType"], "complete");
    assert_eq!(
        closed["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        lists
    );
    client.assert_no_response_to(&updates);
}

#[test]
fn listen_streams_are_modern_only() {
    let revision = ProtocolVersion::V2025_11_25;
    let mut client = open(revision);
    let error = unchecked_error(
        &mut client,
        revision,
        "subscriptions/listen",
        json!({"notifications": {}}),
    );
    assert_eq!(error["code"], -32601, "{error}");
}
