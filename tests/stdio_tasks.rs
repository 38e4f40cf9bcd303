//! Tool calls that run as tasks (the `io.modelcontextprotocol/tasks` extension of 2026-07-28),
//! over real pipes: a call becomes a task when its handler first waits, `tasks/get` reports it
//! and inlines how it ended, questions wait in the task for `tasks/update`, `tasks/cancel`
//! stops it. Every message is checked against the 2026-07-28 schema as far as it defines it:
//! the extension's own messages are not in the official revision schemas, so their members
//! are checked here one by one, and what they carry (a tool's result, an error, a question) is
//! checked as the core type it is.

// Not every helper is used here (`per_revision!` among them).
#[allow(unused_macros)]
mod support;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::{Client, PATIENCE, ServerProcess, expect_error, schema, text_of};

const TASKS: &str = "io.modelcontextprotocol/tasks";
const MODERN: ProtocolVersion = ProtocolVersion::V2026_07_28;

fn client() -> Client {
    Client::new(ServerProcess::spawn(Path::new(env!(
        "CARGO_BIN_EXE_tasks-server"
    ))))
}

/// Client capabilities declaring the extension, and elicitation.
fn with_tasks() -> Value {
    json!({"elicitation": {}, "extensions": {TASKS: {}}})
}

fn meta(capabilities: &Value) -> Value {
    let mut meta = support::modern_meta("2026-07-28");
    meta["io.modelcontextprotocol/clientCapabilities"] = capabilities.clone();
    meta
}

/// A 2026-07-28 `tools/call` declaring `capabilities`; the whole response.
fn call(client: &mut Client, tool: &str, arguments: Value, capabilities: &Value) -> Value {
    let params = json!({"name": tool, "arguments": arguments, "_meta": meta(capabilities)});
    let id = client.send_modern_request("tools/call", params);
    client.response(&id)
}

/// A `tasks/*` request (outside the core schema, so sent unchecked); the whole response.
fn task_request(client: &mut Client, method: &str, params: Value, capabilities: &Value) -> Value {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let id = json!(format!("{method}-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
    let mut params = params;
    params["_meta"] = meta(capabilities);
    let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    client.send_unchecked(&request, MODERN);
    client.response(&id)
}

fn get(client: &mut Client, task_id: &str) -> Value {
    let response = task_request(
        client,
        "tasks/get",
        json!({"taskId": task_id}),
        &with_tasks(),
    );
    let task = response["result"].clone();
    assert_eq!(task["taskId"], task_id, "{response}");
    assert_eq!(task["resultType"], "complete", "{response}");
    check_task_fields(&task);
    task
}

/// `tasks/get` until the task's status is one of `statuses`.
fn wait_for(client: &mut Client, task_id: &str, statuses: &[&str]) -> Value {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let task = get(client, task_id);
        if statuses.iter().any(|status| task["status"] == *status) {
            return task;
        }
        assert!(
            Instant::now() < deadline,
            "task {task_id} never reached {statuses:?}: {task}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The members every task carries, with their types (SEP-2663: `ttlMs` and `pollIntervalMs`
/// integer milliseconds, timestamps ISO 8601), and never a `requestState`.
fn check_task_fields(task: &Value) {
    assert!(
        task["taskId"].as_str().is_some_and(|id| id.len() >= 16),
        "{task}"
    );
    for stamp in ["createdAt", "lastUpdatedAt"] {
        let stamp = task[stamp]
            .as_str()
            .unwrap_or_else(|| panic!("{stamp}: {task}"));
        // 2026-11-29T19:45:03.120Z
        assert_eq!(stamp.len(), 24, "{stamp}");
        assert!(
            stamp.ends_with('Z') && stamp.as_bytes()[10] == b'T',
            "{stamp}"
        );
    }
    assert!(task["ttlMs"].as_u64().is_some_and(|ttl| ttl > 0), "{task}");
    assert!(
        task["pollIntervalMs"]
            .as_u64()
            .is_some_and(|every| every > 0),
        "{task}"
    );
    assert!(task.get("requestState").is_none(), "{task}");
    assert!(
        task.get("ttl").is_none() && task.get("pollInterval").is_none(),
        "{task}"
    );
    match task["status"].as_str() {
        Some("completed") => {
            schema::check(MODERN, "CallToolResult", &task["result"]).unwrap();
            assert!(task.get("error").is_none(), "{task}");
        }
        Some("failed") => {
            schema::check(MODERN, "Error", &task["error"]).unwrap();
            assert!(task.get("result").is_none(), "{task}");
        }
        Some("input_required") => {
            schema::check(MODERN, "InputRequests", &task["inputRequests"]).unwrap();
        }
        Some("working" | "cancelled") => {
            assert!(
                task.get("result").is_none() && task.get("error").is_none(),
                "{task}"
            );
        }
        other => panic!("unknown status {other:?}: {task}"),
    }
}

/// The `CreateTaskResult` a call that became a task answers with: flat, no result yet.
fn created_task(response: &Value) -> String {
    let created = &response["result"];
    assert_eq!(created["resultType"], "task", "{response}");
    assert_eq!(created["status"], "working", "{response}");
    assert!(
        created.get("task").is_none() && created.get("result").is_none(),
        "{response}"
    );
    assert!(created.get("inputRequests").is_none(), "{response}");
    check_task_fields(created);
    created["taskId"].as_str().unwrap().to_owned()
}

#[test]
fn a_call_that_waits_becomes_a_task_whose_result_tasks_get_inlines() {
    let mut client = client();
    let response = call(
        &mut client,
        "task_work",
        json!({"millis": 200}),
        &with_tasks(),
    );
    let task_id = created_task(&response);
    // Stored before the answer left: found at once.
    let running = get(&mut client, &task_id);
    assert!(
        matches!(running["status"].as_str(), Some("working" | "completed")),
        "{running}"
    );

    let done = wait_for(&mut client, &task_id, &["completed", "failed", "cancelled"]);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        text_of(&done["result"]),
        format!("worked 200 ms as task {task_id}")
    );
    assert!(
        done["result"]["_meta"]
            .get("io.modelcontextprotocol/related-task")
            .is_none(),
        "{done}"
    );
    // Read again: still there, unchanged.
    assert_eq!(get(&mut client, &task_id)["result"], done["result"]);
}

#[test]
fn a_call_that_never_waits_is_answered_in_place() {
    let mut client = client();
    let response = call(
        &mut client,
        "task_work",
        json!({"millis": 0}),
        &with_tasks(),
    );
    assert_eq!(response["result"]["resultType"], "complete", "{response}");
    assert_eq!(text_of(&response["result"]), "worked 0 ms as task none");
}

#[test]
fn without_the_extension_calls_answer_in_place_and_tasks_need_it() {
    let mut client = client();
    let plain = json!({"elicitation": {}});
    let response = call(&mut client, "task_work", json!({"millis": 30}), &plain);
    assert_eq!(response["result"]["resultType"], "complete", "{response}");
    assert_eq!(text_of(&response["result"]), "worked 30 ms as task none");

    // A tool that runs only as a task: -32021 naming the extension, and nothing runs.
    let error = expect_error(&call(&mut client, "task_only", json!({}), &plain));
    assert_eq!(error["code"], -32021, "{error}");
    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({"extensions": {TASKS: {}}})
    );
    for (method, params) in [
        ("tasks/get", json!({"taskId": "x"})),
        ("tasks/update", json!({"taskId": "x", "inputResponses": {}})),
        ("tasks/cancel", json!({"taskId": "x"})),
    ] {
        let error = expect_error(&task_request(&mut client, method, params, &plain));
        assert_eq!(error["code"], -32021, "{method}: {error}");
    }
}

#[test]
fn questions_asked_in_a_task_wait_for_tasks_update() {
    let mut client = client();
    let response = call(
        &mut client,
        "task_confirm",
        json!({"name": "repo"}),
        &with_tasks(),
    );
    let task_id = created_task(&response);
    let waiting = wait_for(&mut client, &task_id, &["input_required"]);
    let questions = waiting["inputRequests"].as_object().unwrap();
    assert_eq!(questions.len(), 1, "{waiting}");
    let (key, question) = questions.iter().next().unwrap();
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "Delete repo?");

    // An answer to a question never asked changes nothing.
    let ack = task_request(
        &mut client,
        "tasks/update",
        json!({"taskId": task_id, "inputResponses": {"nope": {"action": "decline"}}}),
        &with_tasks(),
    );
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert_eq!(get(&mut client, &task_id)["status"], "input_required");

    let answer = json!({"action": "accept", "content": {"confirm": true}});
    schema::check(MODERN, "ElicitResult", &answer).unwrap();
    let ack = task_request(
        &mut client,
        "tasks/update",
        json!({"taskId": task_id, "inputResponses": {key: answer}}),
        &with_tasks(),
    );
    let ack = &ack["result"];
    assert_eq!(ack["resultType"], "complete", "{ack}");
    for member in ["taskId", "status", "result", "error", "inputRequests"] {
        assert!(ack.get(member).is_none(), "the ack is empty: {ack}");
    }
    let done = wait_for(&mut client, &task_id, &["completed", "failed"]);
    assert_eq!(text_of(&done["result"]), "deleted repo (in a task: true)");
}

#[test]
fn tasks_cancel_ends_the_task_and_reaches_its_tool() {
    let mut client = client();
    let response = call(
        &mut client,
        "task_until_cancelled",
        json!({"millis": 60_000}),
        &with_tasks(),
    );
    let task_id = created_task(&response);
    for _ in 0..2 {
        // Cancelling an ended task is acknowledged the same way, and changes nothing.
        let ack = task_request(
            &mut client,
            "tasks/cancel",
            json!({"taskId": task_id}),
            &with_tasks(),
        );
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
        assert!(ack["result"].get("status").is_none(), "{ack}");
        assert_eq!(get(&mut client, &task_id)["status"], "cancelled");
    }
    client
        .server()
        .wait_for_stderr("task_until_cancelled: token fired");
    assert_eq!(get(&mut client, &task_id)["status"], "cancelled");
}

#[test]
fn a_tool_error_completes_its_task_and_a_panic_fails_it() {
    let mut client = client();
    let task_id = created_task(&call(&mut client, "task_only", json!({}), &with_tasks()));
    let done = wait_for(&mut client, &task_id, &["completed", "failed"]);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], true, "{done}");
    assert_eq!(text_of(&done["result"]), "task_only reports a failure");

    let task_id = created_task(&call(&mut client, "task_crash", json!({}), &with_tasks()));
    let failed = wait_for(&mut client, &task_id, &["completed", "failed"]);
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("task_crash"),
        "{failed}"
    );
    // The server serves on.
    let response = call(
        &mut client,
        "task_work",
        json!({"millis": 0}),
        &with_tasks(),
    );
    assert_eq!(text_of(&response["result"]), "worked 0 ms as task none");
}

#[test]
fn unknown_tasks_and_the_removed_methods_are_errors() {
    let mut client = client();
    let error = expect_error(&task_request(
        &mut client,
        "tasks/get",
        json!({"taskId": "no-such-task"}),
        &with_tasks(),
    ));
    assert_eq!(error["code"], -32602, "{error}");
    let error = expect_error(&task_request(
        &mut client,
        "tasks/cancel",
        json!({}),
        &with_tasks(),
    ));
    assert_eq!(error["code"], -32602, "{error}");
    // The extension removed the 2025-11-25 methods.
    for method in ["tasks/result", "tasks/list"] {
        let error = expect_error(&task_request(
            &mut client,
            method,
            json!({"taskId": "x"}),
            &with_tasks(),
        ));
        assert_eq!(error["code"], -32601, "{method}: {error}");
    }
}

#[test]
fn legacy_sessions_know_nothing_of_tasks() {
    let mut client = client();
    let result = client.initialize("2025-11-25");
    let capabilities = &result["capabilities"];
    assert!(
        capabilities.get("tasks").is_none() && capabilities.get("extensions").is_none(),
        "{result}"
    );
    // A tool that requires tasks in 2026-07-28 answers in place here, and a 2025-11-25
    // `task` member is ignored (no `tasks` capability was declared).
    let params = json!({"name": "task_only", "arguments": {}, "task": {"ttl": 60_000}});
    let response = client.request("tools/call", params);
    assert_eq!(response["result"]["isError"], true, "{response}");
    assert_eq!(text_of(&response["result"]), "task_only reports a failure");
    let error = client.error("tasks/get", json!({"taskId": "x"}));
    assert_eq!(error["code"], -32601, "{error}");
}

#[test]
fn server_discover_advertises_the_extension() {
    let mut client = client();
    let response = call_discover(&mut client);
    assert_eq!(
        response["result"]["capabilities"]["extensions"],
        json!({TASKS: {}}),
        "{response}"
    );
}

fn call_discover(client: &mut Client) -> Value {
    let id = client.send_modern_request("server/discover", json!({"_meta": meta(&json!({}))}));
    client.response(&id)
}
