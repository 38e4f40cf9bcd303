//! Asking the client from a handler, over real pipes, in both eras: legacy sessions get real
//! `elicitation/create`, `sampling/createMessage` and `roots/list` requests answered in place;
//! 2026-07-28 requests end with an `InputRequiredResult` and are retried with the answers and
//! the sealed `requestState`. Every message both ways is checked against the revision's schema.

mod support;

use std::path::Path;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::{Client, ServerProcess, expect_error, is_error, per_revision, text_of};

const ALL_LEGACY_CAPABILITIES: &str = r#"{"elicitation": {}, "sampling": {}, "roots": {}}"#;

fn server(vars: &[(&str, &str)]) -> ServerProcess {
    ServerProcess::spawn_with_env(Path::new(env!("CARGO_BIN_EXE_asking-server")), vars)
}

/// A legacy client of `revision` declaring `capabilities` (elicitation only where the
/// revision has it).
fn legacy(revision: ProtocolVersion, capabilities: Value, vars: &[(&str, &str)]) -> Client {
    let mut capabilities = capabilities;
    if revision < ProtocolVersion::V2025_06_18 {
        capabilities.as_object_mut().unwrap().remove("elicitation");
    }
    let mut client = Client::new(server(vars));
    let result = client.initialize_with(revision.as_str(), capabilities);
    assert_eq!(result["protocolVersion"], revision.as_str());
    client
}

fn all_capabilities() -> Value {
    serde_json::from_str(ALL_LEGACY_CAPABILITIES).unwrap()
}

/// The next message, which must be a request from the server: its id and the message.
fn server_request(client: &mut Client, method: &str) -> (Value, Value) {
    let message = client.next_message();
    assert_eq!(
        message["method"], method,
        "expected a {method} request: {message}"
    );
    let id = message["id"].clone();
    assert!(id.is_string(), "server ids are strings: {message}");
    (id, message)
}

/// The result of the call `id`, skipping nothing: it must be the next message.
fn call_result(client: &mut Client, id: &Value) -> Value {
    let response = client.next_message();
    assert_eq!(
        &response["id"], id,
        "expected the call's response: {response}"
    );
    response["result"].clone()
}

fn elicitation_round_trip(revision: ProtocolVersion) {
    for (answer, expected) in [
        (
            json!({"action": "accept", "content": {"confirm": true, "reason": "old"}}),
            "deleted repo (old)",
        ),
        (
            json!({"action": "accept", "content": {"confirm": false}}),
            "kept repo: not confirmed",
        ),
        (json!({"action": "decline"}), "kept repo: declined"),
        (json!({"action": "cancel"}), "kept repo: cancelled"),
    ] {
        let mut client = legacy(revision, all_capabilities(), &[]);
        let call = client.send_request(
            "tools/call",
            json!({"name": "confirm_delete", "arguments": {"name": "repo"}}),
        );
        let (id, request) = server_request(&mut client, "elicitation/create");
        assert_eq!(request["params"]["message"], "Delete repo?");
        assert_eq!(
            request["params"]["requestedSchema"],
            json!({"type": "object", "properties": {
                "confirm": {"type": "boolean", "description": "Whether to go ahead."},
                "reason": {"type": "string", "description": "Why, if the user wants to say."},
            }, "required": ["confirm"]})
        );
        client.respond(&id, revision, "ElicitResult", answer);
        let result = call_result(&mut client, &call);
        assert_eq!(text_of(&result), expected, "{result}");
    }
}

fn legacy_questions_need_the_capability(revision: ProtocolVersion) {
    let mut client = legacy(revision, json!({}), &[]);
    for (tool, words) in [
        ("confirm_delete", "elicitation"),
        ("ask_model", "sampling"),
        ("list_roots", "roots"),
    ] {
        let result = client.call_tool(tool, json!({"name": "x", "question": "q"}));
        assert!(is_error(&result), "{tool}: {result}");
        let text = text_of(&result);
        assert!(
            text.contains("cannot ask the client") && text.contains(words),
            "{text}"
        );
    }
}

fn sampling_and_roots(revision: ProtocolVersion) {
    let mut client = legacy(revision, all_capabilities(), &[]);
    let call = client.send_request(
        "tools/call",
        json!({"name": "ask_model", "arguments": {"question": "Sky colour?"}}),
    );
    let (id, request) = server_request(&mut client, "sampling/createMessage");
    assert_eq!(request["params"]["maxTokens"], 50);
    assert_eq!(request["params"]["systemPrompt"], "Answer briefly.");
    assert_eq!(
        request["params"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Sky colour?"}}])
    );
    client.respond(
        &id,
        revision,
        "CreateMessageResult",
        json!({"role": "assistant", "content": {"type": "text", "text": "Blue."},
            "model": "test-model", "stopReason": "endTurn"}),
    );
    assert_eq!(
        text_of(&call_result(&mut client, &call)),
        "test-model said: Blue."
    );

    let call = client.send_request("tools/call", json!({"name": "list_roots"}));
    let (id, _) = server_request(&mut client, "roots/list");
    client.respond(
        &id,
        revision,
        "ListRootsResult",
        json!({"roots": [{"uri": "file:///a", "name": "A"}, {"uri": "file:///b"}]}),
    );
    assert_eq!(
        text_of(&call_result(&mut client, &call)),
        "file:///a,file:///b"
    );

    // A client that refuses gets its error reported inside the tool.
    let call = client.send_request("tools/call", json!({"name": "list_roots"}));
    let (id, _) = server_request(&mut client, "roots/list");
    client.respond_error(&id, -1, "the user said no");
    let result = call_result(&mut client, &call);
    assert!(is_error(&result));
    assert!(text_of(&result).contains("the user said no"), "{result}");
}

fn elicitation_is_unknown_before_2025_06_18(revision: ProtocolVersion) {
    let mut client = legacy(revision, all_capabilities(), &[]);
    let result = client.call_tool("confirm_delete", json!({"name": "x"}));
    assert!(is_error(&result));
    assert!(text_of(&result).contains("does not exist in"), "{result}");
}

per_revision!(legacy: legacy_questions_need_the_capability, sampling_and_roots);

mod elicitation_round_trip {
    use super::*;

    #[test]
    fn v2025_06_18() {
        elicitation_round_trip(ProtocolVersion::V2025_06_18);
    }

    #[test]
    fn v2025_11_25() {
        elicitation_round_trip(ProtocolVersion::V2025_11_25);
    }
}

mod elicitation_is_unknown_before_2025_06_18 {
    use super::*;

    #[test]
    fn v2024_11_05() {
        elicitation_is_unknown_before_2025_06_18(ProtocolVersion::V2024_11_05);
    }

    #[test]
    fn v2025_03_26() {
        elicitation_is_unknown_before_2025_06_18(ProtocolVersion::V2025_03_26);
    }
}

#[test]
fn questions_asked_together_are_sent_together_and_answered_in_any_order() {
    let revision = ProtocolVersion::V2025_11_25;
    let mut client = legacy(revision, all_capabilities(), &[]);
    let call = client.send_request("tools/call", json!({"name": "two_questions"}));
    let (first, _) = server_request(&mut client, "elicitation/create");
    let (second, _) = server_request(&mut client, "elicitation/create");
    assert_ne!(first, second);
    client.respond(
        &second,
        revision,
        "ElicitResult",
        json!({"action": "accept", "content": {"confirm": false}}),
    );
    client.respond(
        &first,
        revision,
        "ElicitResult",
        json!({"action": "accept", "content": {"confirm": true}}),
    );
    assert_eq!(text_of(&call_result(&mut client, &call)), "true false");
}

#[test]
fn an_unanswered_question_times_out_and_is_withdrawn() {
    let revision = ProtocolVersion::V2025_06_18;
    let mut client = legacy(revision, all_capabilities(), &[("ASK_TIMEOUT_MS", "200")]);
    let call = client.send_request(
        "tools/call",
        json!({"name": "confirm_delete", "arguments": {"name": "x"}}),
    );
    let (id, _) = server_request(&mut client, "elicitation/create");
    let withdrawn = client.next_message();
    assert_eq!(
        withdrawn["method"], "notifications/cancelled",
        "{withdrawn}"
    );
    assert_eq!(withdrawn["params"]["requestId"], id);
    let result = call_result(&mut client, &call);
    assert!(is_error(&result));
    assert!(
        text_of(&result).contains("did not answer in time"),
        "{result}"
    );
    // A late answer is ignored, and the session goes on.
    client.respond(&id, revision, "ElicitResult", json!({"action": "decline"}));
    assert_eq!(client.result("ping", json!({})), json!({}));
}

#[test]
fn cancelling_the_call_withdraws_its_question() {
    let revision = ProtocolVersion::V2025_11_25;
    let mut client = legacy(revision, all_capabilities(), &[]);
    let call = client.send_request(
        "tools/call",
        json!({"name": "confirm_delete", "arguments": {"name": "x"}}),
    );
    let (id, _) = server_request(&mut client, "elicitation/create");
    client.notify(
        "notifications/cancelled",
        json!({"requestId": call, "reason": "changed my mind"}),
    );
    let withdrawn = client.next_message();
    assert_eq!(
        withdrawn["method"], "notifications/cancelled",
        "{withdrawn}"
    );
    assert_eq!(withdrawn["params"]["requestId"], id);
    client.assert_no_response_to(&call);
}

#[test]
fn a_form_that_is_not_flat_is_a_clear_error() {
    let mut client = legacy(ProtocolVersion::V2025_06_18, all_capabilities(), &[]);
    let result = client.call_tool("bad_form", json!({}));
    assert!(is_error(&result));
    assert!(text_of(&result).contains("field `inner`"), "{result}");
}

#[test]
fn a_prompt_can_ask_too() {
    let revision = ProtocolVersion::V2025_06_18;
    let mut client = legacy(revision, all_capabilities(), &[]);
    let get = client.send_request(
        "prompts/get",
        json!({"name": "review", "arguments": {"code": "x"}}),
    );
    let (id, _) = server_request(&mut client, "elicitation/create");
    client.respond(
        &id,
        revision,
        "ElicitResult",
        json!({"action": "accept", "content": {"confirm": true}}),
    );
    let result = call_result(&mut client, &get);
    assert_eq!(
        result["messages"][0]["content"]["text"],
        "Review this code for security:\nx"
    );
}

fn legacy_prompts_and_reads_without_the_capability_fail_as_their_handler_says(
    revision: ProtocolVersion,
) {
    let mut client = legacy(revision, json!({}), &[]);
    let id = client.send_request(
        "prompts/get",
        json!({"name": "review", "arguments": {"code": "x"}}),
    );
    let response = client.response(&id);
    let error = expect_error(&response);
    assert_eq!(error["code"], -32602, "{response}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("cannot ask the client"),
        "{response}"
    );
    let id = client.send_request("resources/read", json!({"uri": "secret://k"}));
    let response = client.response(&id);
    let error = expect_error(&response);
    assert_eq!(error["code"], -32002, "{response}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("cannot ask the client"),
        "{response}"
    );
}

per_revision!(legacy: legacy_prompts_and_reads_without_the_capability_fail_as_their_handler_says);

#[test]
fn a_resource_can_ask_too() {
    let revision = ProtocolVersion::V2025_11_25;
    let mut client = legacy(revision, all_capabilities(), &[]);
    let read = client.send_request("resources/read", json!({"uri": "secret://k"}));
    let (id, question) = server_request(&mut client, "elicitation/create");
    assert_eq!(question["params"]["message"], "Show the secret k?");
    client.respond(
        &id,
        revision,
        "ElicitResult",
        json!({"action": "accept", "content": {"confirm": true}}),
    );
    let result = call_result(&mut client, &read);
    assert_eq!(result["contents"][0]["text"], "the secret k", "{result}");
}

// 2026-07-28 -------------------------------------------------------------------------------

/// `_meta` of a 2026-07-28 request declaring `capabilities`.
fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-e2e-tests", "version": "0.0.0"},
    })
}

fn modern_call(
    client: &mut Client,
    method: &str,
    mut params: Value,
    capabilities: &Value,
) -> Value {
    params["_meta"] = meta(capabilities.clone());
    let id = client.send_modern_request(method, params);
    client.response(&id)
}

#[test]
fn modern_questions_end_the_call_and_the_retry_completes_it() {
    let mut client = Client::new(server(&[]));
    let capabilities = json!({"elicitation": {}});
    let call = json!({"name": "confirm_delete", "arguments": {"name": "repo"}});
    let first = modern_call(&mut client, "tools/call", call.clone(), &capabilities);
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let question = &result["inputRequests"]["q0"];
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "Delete repo?");
    let state = result["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned();

    let mut retry = call.clone();
    retry["requestState"] = json!(state);
    retry["inputResponses"] =
        json!({"q0": {"action": "accept", "content": {"confirm": true, "reason": "done"}}});
    let second = modern_call(&mut client, "tools/call", retry.clone(), &capabilities);
    assert_eq!(second["result"]["resultType"], "complete", "{second}");
    assert_eq!(text_of(&second["result"]), "deleted repo (done)");

    // The same state with other arguments, or altered, is refused and runs nothing.
    let mut other = retry.clone();
    other["arguments"]["name"] = json!("other");
    let refused = expect_error(&modern_call(
        &mut client,
        "tools/call",
        other,
        &capabilities,
    ));
    assert_eq!(refused["code"], -32602);
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("another request"),
        "{refused}"
    );
    let mut tampered = retry.clone();
    tampered["requestState"] = json!(format!("x{state}"));
    let refused = expect_error(&modern_call(
        &mut client,
        "tools/call",
        tampered,
        &capabilities,
    ));
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("requestState"),
        "{refused}"
    );

    // The very retry that succeeded, again: a state resumes one call only.
    let replayed = expect_error(&modern_call(
        &mut client,
        "tools/call",
        retry,
        &capabilities,
    ));
    assert_eq!(replayed["code"], -32602, "{replayed}");
    assert!(
        replayed["message"]
            .as_str()
            .unwrap()
            .contains("already used"),
        "{replayed}"
    );
}

#[test]
fn modern_questions_asked_together_come_in_one_result() {
    let mut client = Client::new(server(&[]));
    let capabilities = json!({"elicitation": {}});
    let call = json!({"name": "two_questions"});
    let first = modern_call(&mut client, "tools/call", call.clone(), &capabilities);
    let requests = first["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .clone();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["q0", "q1"]);
    let mut retry = call;
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({
        "q0": {"action": "accept", "content": {"confirm": true}},
        "q1": {"action": "decline"},
    });
    let second = modern_call(&mut client, "tools/call", retry, &capabilities);
    assert_eq!(text_of(&second["result"]), "true Declined");
}

#[test]
fn modern_sequential_questions_take_two_rounds() {
    let mut client = Client::new(server(&[]));
    let capabilities = json!({"elicitation": {}, "roots": {}});
    let call = json!({"name": "sequential"});
    let first = modern_call(&mut client, "tools/call", call.clone(), &capabilities);
    assert_eq!(
        first["result"]["inputRequests"]["q0"]["method"],
        "roots/list"
    );
    let mut retry = call.clone();
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({"q0": {"roots": [{"uri": "file:///r"}]}});
    let second = modern_call(&mut client, "tools/call", retry, &capabilities);
    let question = &second["result"]["inputRequests"]["q1"];
    assert_eq!(question["params"]["message"], "Use 1 roots?", "{second}");
    // Only the new answer is sent; the first travels in the state.
    let mut last = call;
    last["requestState"] = second["result"]["requestState"].clone();
    last["inputResponses"] = json!({"q1": {"action": "cancel"}});
    let third = modern_call(&mut client, "tools/call", last, &capabilities);
    assert_eq!(text_of(&third["result"]), "1 roots, Cancelled");
}

#[test]
fn modern_requests_without_the_capability_never_see_the_question() {
    let mut client = Client::new(server(&[]));
    // The tool fails without its answer: the client learns which capability it lacks.
    for capabilities in [json!({}), json!({"sampling": {}})] {
        let response = modern_call(
            &mut client,
            "tools/call",
            json!({"name": "confirm_delete", "arguments": {"name": "x"}}),
            &capabilities,
        );
        let error = expect_error(&response);
        assert_eq!(error["code"], -32021, "{response}");
        assert_eq!(
            error["data"]["requiredCapabilities"],
            json!({"elicitation": {}})
        );
    }
    // A form that cannot be one is the tool's own failure, not a missing capability.
    let response = modern_call(
        &mut client,
        "tools/call",
        json!({"name": "bad_form"}),
        &json!({"elicitation": {}}),
    );
    assert!(is_error(&response["result"]), "{response}");
}

#[test]
fn a_modern_prompt_asks_through_its_result() {
    let mut client = Client::new(server(&[]));
    let capabilities = json!({"elicitation": {}});
    let get = json!({"name": "review", "arguments": {"code": "y"}});
    let first = modern_call(&mut client, "prompts/get", get.clone(), &capabilities);
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let mut retry = get;
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({"q0": {"action": "decline"}});
    let second = modern_call(&mut client, "prompts/get", retry, &capabilities);
    assert_eq!(
        second["result"]["messages"][0]["content"]["text"],
        "Review this code for style:\ny"
    );
}

#[test]
fn a_modern_read_asks_through_its_result() {
    let mut client = Client::new(server(&[]));
    let capabilities = json!({"elicitation": {}});
    let read = json!({"uri": "secret://k"});
    let first = modern_call(&mut client, "resources/read", read.clone(), &capabilities);
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let mut retry = read;
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({"q0": {"action": "accept", "content": {"confirm": true}}});
    let second = modern_call(&mut client, "resources/read", retry, &capabilities);
    assert_eq!(
        second["result"]["contents"][0]["text"], "the secret k",
        "{second}"
    );
}

#[test]
fn modern_prompts_and_reads_without_the_capability_say_which_they_lack() {
    let mut client = Client::new(server(&[]));
    let requests = [
        (
            "prompts/get",
            json!({"name": "review", "arguments": {"code": "x"}}),
        ),
        ("resources/read", json!({"uri": "secret://k"})),
    ];
    for (method, params) in requests {
        for capabilities in [json!({}), json!({"sampling": {}, "roots": {}})] {
            let response = modern_call(&mut client, method, params.clone(), &capabilities);
            let error = expect_error(&response);
            assert_eq!(error["code"], -32021, "{method}: {response}");
            assert_eq!(
                error["data"]["requiredCapabilities"],
                json!({"elicitation": {}}),
                "{method}: {response}"
            );
        }
    }
    // A failure that is the handler's own (the user declined) stays what the handler said.
    let read = json!({"uri": "secret://k"});
    let capabilities = json!({"elicitation": {}});
    let first = modern_call(&mut client, "resources/read", read.clone(), &capabilities);
    let mut retry = read;
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({"q0": {"action": "decline"}});
    let declined = modern_call(&mut client, "resources/read", retry, &capabilities);
    let error = expect_error(&declined);
    assert_eq!(
        error["code"], -32602,
        "not found, in 2026-07-28: {declined}"
    );
    assert!(
        error["message"].as_str().unwrap().contains("stays hidden"),
        "{declined}"
    );
}

// examples/long_task.rs ---------------------------------------------------------------------

#[test]
fn long_task_reports_progress_then_asks_before_its_destructive_step() {
    let revision = ProtocolVersion::V2025_11_25;
    let mut client = Client::new(ServerProcess::example("long_task"));
    client.initialize_with(revision.as_str(), json!({"elicitation": {}}));
    let call = client.send_request(
        "tools/call",
        json!({"name": "migrate", "arguments": {"steps": 3, "step_ms": 1},
            "_meta": {"progressToken": "m"}}),
    );
    let mut progress = Vec::new();
    let question = loop {
        let message = client.next_message();
        match message["method"].as_str() {
            Some("notifications/progress") => progress.push(message["params"]["progress"].clone()),
            Some("elicitation/create") => break message,
            _ => panic!("unexpected before the question: {message}"),
        }
    };
    assert_eq!(progress, [json!(1.0), json!(2.0), json!(3.0)]);
    assert_eq!(
        question["params"]["requestedSchema"]["properties"]["drop_old_tables"]["type"],
        "boolean"
    );
    client.respond(
        &question["id"],
        revision,
        "ElicitResult",
        json!({"action": "accept", "content": {"drop_old_tables": true}}),
    );
    let last = client.next_message();
    assert_eq!(last["params"]["progress"], json!(4.0), "{last}");
    assert_eq!(
        text_of(&call_result(&mut client, &call)),
        "migrated: copied 3 parts and dropped the old tables"
    );
}

#[test]
fn long_task_stops_when_cancelled_and_keeps_serving() {
    let mut client = Client::new(ServerProcess::example("long_task"));
    client.initialize_with("2025-06-18", json!({"elicitation": {}}));
    let call = client.send_request(
        "tools/call",
        json!({"name": "migrate", "arguments": {"steps": 1000, "step_ms": 20},
            "_meta": {"progressToken": 7}}),
    );
    let first = client.next_message();
    assert_eq!(first["method"], "notifications/progress", "{first}");
    client.notify("notifications/cancelled", json!({"requestId": call}));
    client.assert_no_response_to(&call);
    let declined = client.send_request(
        "tools/call",
        json!({"name": "migrate", "arguments": {"steps": 1, "step_ms": 1}}),
    );
    // Progress the cancelled call sent before the cancellation reached it may still arrive.
    let question = loop {
        let message = client.next_message();
        if message["method"] != "notifications/progress" {
            break message;
        }
        assert_eq!(message["params"]["progressToken"], 7, "{message}");
    };
    assert_eq!(question["method"], "elicitation/create", "{question}");
    let id = question["id"].clone();
    client.respond(
        &id,
        ProtocolVersion::V2025_06_18,
        "ElicitResult",
        json!({"action": "decline"}),
    );
    assert_eq!(
        text_of(&call_result(&mut client, &declined)),
        "copied 1 parts; the old tables were kept (not confirmed)"
    );
}

#[test]
fn long_task_in_2026_07_28_asks_through_its_result() {
    let mut client = Client::new(ServerProcess::example("long_task"));
    let call = json!({"name": "migrate", "arguments": {"steps": 2, "step_ms": 1}});
    let refused = modern_call(&mut client, "tools/call", call.clone(), &json!({}));
    assert_eq!(expect_error(&refused)["code"], -32021);
    let capabilities = json!({"elicitation": {}});
    let first = modern_call(&mut client, "tools/call", call.clone(), &capabilities);
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let mut retry = call;
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] =
        json!({"q0": {"action": "accept", "content": {"drop_old_tables": false}}});
    let second = modern_call(&mut client, "tools/call", retry, &capabilities);
    assert_eq!(
        text_of(&second["result"]),
        "copied 2 parts; the old tables were kept (not confirmed)"
    );
}

/// A key rollout through the environment `serve_from_args` reads: a state sealed before the
/// switch resumes on a server holding the old secret as the previous key, and is refused by
/// one that no longer holds it.
#[test]
fn long_task_resumes_a_state_sealed_under_the_previous_key() {
    let (old, new) = (
        "old secret of at least 32 bytes..",
        "new secret of at least 32 bytes..",
    );
    let call = json!({"name": "migrate", "arguments": {"steps": 1, "step_ms": 1}});
    let capabilities = json!({"elicitation": {}});
    let mut before = Client::new(ServerProcess::example_with_env(
        "long_task",
        &[("MCP_REQUEST_STATE_KEY", old)],
    ));
    let first = modern_call(&mut before, "tools/call", call.clone(), &capabilities);
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let mut retry = call;
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] =
        json!({"q0": {"action": "accept", "content": {"drop_old_tables": true}}});

    let mut retired = Client::new(ServerProcess::example_with_env(
        "long_task",
        &[("MCP_REQUEST_STATE_KEY", new)],
    ));
    let refused = expect_error(&modern_call(
        &mut retired,
        "tools/call",
        retry.clone(),
        &capabilities,
    ));
    assert_eq!(refused["code"], -32602, "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("sealed under a key it does not hold"),
        "{refused}"
    );

    let mut rolled = Client::new(ServerProcess::example_with_env(
        "long_task",
        &[
            ("MCP_REQUEST_STATE_KEY", new),
            ("MCP_REQUEST_STATE_PREVIOUS_KEY", old),
        ],
    ));
    let resumed = modern_call(&mut rolled, "tools/call", retry, &capabilities);
    assert_eq!(
        text_of(&resumed["result"]),
        "migrated: copied 1 parts and dropped the old tables"
    );
}

// URL-mode elicitation ---------------------------------------------------------------------

#[test]
fn url_mode_elicitation_in_2025_11_25() {
    let revision = ProtocolVersion::V2025_11_25;
    let mut client = legacy(revision, json!({"elicitation": {"url": {}}}), &[]);
    let call = client.send_request(
        "tools/call",
        json!({"name": "open_url", "arguments": {"url": "https://auth.example/sign-in"}}),
    );
    let (id, request) = server_request(&mut client, "elicitation/create");
    let params = &request["params"];
    assert_eq!(params["mode"], "url");
    assert_eq!(params["url"], "https://auth.example/sign-in");
    assert_eq!(params["message"], "Sign in, please");
    let elicitation_id = params["elicitationId"].as_str().expect("an elicitationId");
    assert_eq!(elicitation_id.len(), 32, "{elicitation_id}");
    client.respond(&id, revision, "ElicitResult", json!({"action": "accept"}));
    assert_eq!(
        text_of(&call_result(&mut client, &call)),
        "the user went to sign in"
    );
    // Each request gets its own id.
    let again = client.send_request(
        "tools/call",
        json!({"name": "open_url", "arguments": {"url": "https://auth.example/sign-in"}}),
    );
    let (id, request) = server_request(&mut client, "elicitation/create");
    assert_ne!(request["params"]["elicitationId"], elicitation_id);
    client.respond(&id, revision, "ElicitResult", json!({"action": "decline"}));
    assert_eq!(
        text_of(&call_result(&mut client, &again)),
        "no sign-in: Declined"
    );
}

#[test]
fn a_url_elicitation_made_first_carries_its_id_and_completes() {
    let revision = ProtocolVersion::V2025_11_25;
    let mut client = legacy(revision, json!({"elicitation": {"url": {}}}), &[]);
    let call = client.send_request("tools/call", json!({"name": "sign_in", "arguments": {}}));
    let (id, request) = server_request(&mut client, "elicitation/create");
    let elicitation_id = request["params"]["elicitationId"]
        .as_str()
        .expect("an elicitationId")
        .to_owned();
    assert_eq!(
        request["params"]["url"],
        format!("https://auth.example/sign-in?state={elicitation_id}")
    );
    client.respond(&id, revision, "ElicitResult", json!({"action": "accept"}));
    assert_eq!(text_of(&call_result(&mut client, &call)), "signing in");
    // After the response, what the page's callback says (checked against the schema as every
    // message is).
    let completed = client.next_message();
    assert_eq!(
        completed,
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
            "params": {"elicitationId": elicitation_id}})
    );
}

#[test]
fn a_url_elicitation_in_2026_07_28_has_no_id_to_complete() {
    let mut client = Client::new(server(&[]));
    let capabilities = json!({"elicitation": {"url": {}}});
    let call = json!({"name": "sign_in", "arguments": {}});
    let first = modern_call(&mut client, "tools/call", call.clone(), &capabilities);
    let question = &first["result"]["inputRequests"]["q0"];
    assert_eq!(question["params"]["mode"], "url", "{first}");
    assert!(question["params"].get("elicitationId").is_none(), "{first}");
    assert_eq!(
        question["params"]["url"],
        "https://auth.example/sign-in?state=none"
    );
}

#[test]
fn url_mode_needs_its_capability_and_revision() {
    for (revision, capabilities, words) in [
        (
            ProtocolVersion::V2025_06_18,
            json!({"elicitation": {}}),
            "does not exist in 2025-06-18",
        ),
        (
            ProtocolVersion::V2025_11_25,
            json!({"elicitation": {}}),
            "no URL-mode elicitation",
        ),
        (
            ProtocolVersion::V2025_11_25,
            json!({"elicitation": {"form": {}}}),
            "no URL-mode elicitation",
        ),
    ] {
        let mut client = legacy(revision, capabilities, &[]);
        let result = client.call_tool("open_url", json!({"url": "https://auth.example"}));
        assert!(is_error(&result), "{result}");
        assert!(text_of(&result).contains(words), "{revision}: {result}");
    }
}

#[test]
fn url_mode_elicitation_in_2026_07_28() {
    let mut client = Client::new(server(&[]));
    let call = json!({"name": "open_url", "arguments": {"url": "https://auth.example/x"}});
    let refused = modern_call(
        &mut client,
        "tools/call",
        call.clone(),
        &json!({"elicitation": {}}),
    );
    let error = expect_error(&refused);
    assert_eq!(error["code"], -32021, "{refused}");
    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({"elicitation": {"url": {}}})
    );
    let capabilities = json!({"elicitation": {"url": {}}});
    let first = modern_call(&mut client, "tools/call", call.clone(), &capabilities);
    let question = &first["result"]["inputRequests"]["q0"];
    assert_eq!(
        question["params"],
        json!({"mode": "url", "message": "Sign in, please", "url": "https://auth.example/x"}),
        "{first}"
    );
    let mut retry = call;
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({"q0": {"action": "cancel"}});
    let second = modern_call(&mut client, "tools/call", retry, &capabilities);
    assert_eq!(text_of(&second["result"]), "no sign-in: Cancelled");
}
