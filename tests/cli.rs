//! Every server binary is also a command-line tool: the `calculator` example run with
//! arguments, as a person (or a script) would run it.

#[allow(unused_macros)]
mod support;

use std::process::{Command, Output, Stdio};

use serde_json::Value;
use support::example_path;

fn calculator(args: &[&str]) -> Output {
    Command::new(example_path("calculator"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the calculator runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn help_lists_the_flags_a_server_reads_itself() {
    let output = Command::new(example_path("file_search"))
        .arg("--help")
        .stdin(Stdio::null())
        .output()
        .expect("file_search runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let options = text
        .split("Options of this server (before the command):\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no options section: {text}"));
    assert!(
        options.starts_with("  --root DIR              the directory"),
        "{text}"
    );
}

#[test]
fn help_says_what_the_server_is_and_how_to_connect_it() {
    let help = calculator(&["--help"]);
    assert_eq!(help.status.code(), Some(0), "{help:?}");
    let text = stdout(&help);
    assert!(text.starts_with("calculator 0.1.0: an MCP"), "{text}");
    assert!(text.contains("Arithmetic tools"), "{text}");
    assert!(
        text.contains("5 tools, 0 resources, 0 resource templates and 0 prompts"),
        "{text}"
    );
    // The client config names this very binary.
    let path = example_path("calculator").canonicalize().unwrap();
    let command = serde_json::to_string(&path.to_str().unwrap()).unwrap();
    assert!(text.contains(&format!("\"command\": {command}")), "{text}");
    assert_eq!(stdout(&calculator(&["-h"])), text);
    assert_eq!(stdout(&calculator(&["--version"])), "calculator 0.1.0\n");
}

#[test]
fn call_prints_the_text_and_exits_0() {
    let sum = calculator(&["call", "add", "a=2", "b=3.5"]);
    assert_eq!(
        (sum.status.code(), stdout(&sum).as_str()),
        (Some(0), "5.5\n")
    );
    let json = calculator(&[
        "call",
        "statistic",
        "--json",
        r#"{"values": [4, 1, 3, 2], "measure": "median"}"#,
    ]);
    assert_eq!(
        (json.status.code(), stdout(&json).as_str()),
        (Some(0), "2.5\n")
    );
    // A value that is not JSON is a string; quoted JSON is a string too.
    let echo = calculator(&["call", "echo", "text=hello world"]);
    assert_eq!(stdout(&echo), "hello world\n");
    let echo = calculator(&["call", "echo", r#"text="42""#]);
    assert_eq!(stdout(&echo), "42\n");
}

#[test]
fn a_tool_error_goes_to_stderr_and_exits_1() {
    let divide = calculator(&["call", "divide", "dividend=1", "divisor=0"]);
    assert_eq!(divide.status.code(), Some(1));
    assert_eq!(stdout(&divide), "");
    assert!(
        stderr(&divide).contains("cannot divide by zero"),
        "{divide:?}"
    );
    // Arguments are validated as for any client: `42` is a number, `text` wants a string.
    let echo = calculator(&["call", "echo", "text=42"]);
    assert_eq!(echo.status.code(), Some(1));
    assert!(stderr(&echo).contains("`text`"), "{echo:?}");
}

#[test]
fn a_json_rpc_error_is_reported_and_exits_1() {
    let unknown = calculator(&["call", "subtract", "a=1"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert_eq!(
        stderr(&unknown),
        "error: unknown tool `subtract` (JSON-RPC error -32602)\n"
    );
    let read = calculator(&["read", "file:///x"]);
    assert_eq!(read.status.code(), Some(1));
    assert!(stderr(&read).contains("-32601"), "{read:?}");
}

#[test]
fn an_unknown_command_is_a_short_usage_error_exiting_2() {
    for args in [
        &["frobnicate"][..],
        &["--verbose"],
        &["call"],
        &["call", "add", "a"],
    ] {
        let wrong = calculator(args);
        assert_eq!(wrong.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&wrong), "", "{args:?}");
        let text = stderr(&wrong);
        assert!(text.starts_with("error: "), "{text}");
        assert!(text.contains("Usage: calculator ["), "{text}");
        assert!(text.lines().count() <= 3, "{text}");
    }
}

#[test]
fn manifest_lists_the_tools_with_token_estimates() {
    let output = calculator(&["manifest"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let manifest: Value = serde_json::from_slice(&output.stdout).unwrap();
    let tools = manifest["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 5);
    let estimates = &manifest["tokenEstimate"];
    let mut total = 0;
    for tool in tools {
        let compact = serde_json::to_string(tool).unwrap();
        let tokens = estimates["tools"][tool["name"].as_str().unwrap()]
            .as_u64()
            .unwrap();
        assert_eq!(tokens, compact.len().div_ceil(4) as u64, "{tool}");
        total += tokens;
    }
    assert_eq!(estimates["total"], total);
    assert_eq!(
        serde_json::from_slice::<Value>(&calculator(&["--manifest"]).stdout).unwrap(),
        manifest
    );
}

/// `read` and `prompt` reach the resources and prompts of the `doc_search` example; a leading
/// directory is that example's own argument.
#[test]
fn read_and_prompt_print_resources_and_prompt_messages() {
    let doc_search = |args: &[&str]| {
        Command::new(example_path("doc_search"))
            .args(args)
            .env_remove("DOC_SEARCH_DIR")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let help = stdout(&doc_search(&["--help"]));
    assert!(help.contains("Resource templates: doc://{name}."), "{help}");

    let read = doc_search(&["read", "doc://tools"]);
    assert_eq!(read.status.code(), Some(0), "{read:?}");
    assert!(stdout(&read).starts_with("# "), "{read:?}");
    let missing = doc_search(&["read", "doc://no-such-page"]);
    assert_eq!(missing.status.code(), Some(1), "{missing:?}");
    assert!(
        stderr(&missing).contains("resource not found"),
        "{missing:?}"
    );

    let prompt = doc_search(&["prompt", "explain_concept", "concept=tools"]);
    assert_eq!(prompt.status.code(), Some(0), "{prompt:?}");
    assert!(stdout(&prompt).starts_with("[user]\n"), "{prompt:?}");

    let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/docs");
    let manifest = doc_search(&[docs, "manifest"]);
    assert_eq!(manifest.status.code(), Some(0), "{manifest:?}");
    let manifest: Value = serde_json::from_slice(&manifest.stdout).unwrap();
    assert!(!manifest["resources"].as_array().unwrap().is_empty());
    assert_eq!(
        manifest["resourceTemplates"][0]["uriTemplate"],
        "doc://{name}"
    );
}
