//! The raw baseline speaks enough MCP for the benchmark, and the driver runs end to end.
//! Nothing here looks at a timing.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// Sends `requests` to a fresh raw baseline (with `args`) and returns its answers.
fn raw_baseline_answers(args: &[&str], requests: &[Value]) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_raw-baseline"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for request in requests {
        writeln!(stdin, "{request}").unwrap();
    }
    drop(stdin);
    let answers = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        .collect();
    assert!(child.wait().unwrap().success());
    answers
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[test]
fn raw_baseline_answers_a_legacy_session() {
    let answers = raw_baseline_answers(
        &[],
        &[
            request(1, "initialize", json!({"protocolVersion": "2025-06-18"})),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            request(
                2,
                "tools/call",
                json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
            ),
            request(
                3,
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "hi"}}),
            ),
            request(4, "tools/list", json!({})),
            request(5, "no/such/method", json!({})),
        ],
    );
    assert_eq!(answers.len(), 5, "the notification gets no answer");
    assert_eq!(answers[0]["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(answers[1]["result"]["content"][0]["text"], "5");
    assert_eq!(answers[2]["result"]["content"][0]["text"], "hi");
    assert_eq!(answers[3]["result"]["tools"].as_array().unwrap().len(), 2);
    assert_eq!(answers[4]["error"]["code"], -32601);
    for (answer, id) in answers.iter().zip(1..) {
        assert_eq!(answer["jsonrpc"], "2.0");
        assert_eq!(answer["id"], id);
    }
}

#[test]
fn raw_baseline_answers_stateless_requests() {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let answers = raw_baseline_answers(
        &["--tools", "50"],
        &[
            request(1, "server/discover", json!({"_meta": meta})),
            request(2, "tools/list", json!({"_meta": meta})),
        ],
    );
    let discovered = &answers[0]["result"];
    assert_eq!(discovered["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(discovered["resultType"], "complete");
    assert_eq!(answers[1]["result"]["tools"].as_array().unwrap().len(), 50);
    assert_eq!(answers[1]["result"]["resultType"], "complete");
}

#[test]
fn the_driver_reports_every_figure_of_the_raw_baseline_against_itself() {
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-bench"))
        .args(["--noise-floor", "--smoke", "--no-build"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "mcp-bench failed: {stderr}");
    let report = String::from_utf8(output.stdout).unwrap();
    for figure in [
        "sequential `tools/call` latency p50",
        "pipelined `tools/call`, 64 in flight",
        "server CPU per call, sequential",
        "`tools/list` latency p50, 50 tools",
        "start-up: spawn to `server/discover` answer",
        "peak RSS after the 8 MiB echo",
        "stripped binary size",
        "crates in the dependency tree",
    ] {
        assert!(
            report.contains(&format!("| {figure}")),
            "no `{figure}` row in:\n{report}"
        );
    }
}
