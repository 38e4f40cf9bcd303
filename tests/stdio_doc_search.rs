//! `examples/doc_search.rs` over stdio, in every revision: its tools, its `doc://{name}`
//! resources, its prompts and completions, a documents folder given on the command line or in
//! the environment, and the announcements of edits to that folder.

mod support;

use std::path::{Path, PathBuf};

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::{Client, ServerProcess, per_revision, text_of};

/// The documents the example serves by default.
fn docs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/docs")
}

const DOCS: [&str; 6] = [
    "errors",
    "getting-started",
    "prompts",
    "resources",
    "tools",
    "transports",
];

fn open(revision: ProtocolVersion) -> Client {
    Client::open(ServerProcess::example("doc_search"), revision)
}

fn every_doc_is_a_markdown_resource(revision: ProtocolVersion) {
    let mut client = open(revision);
    let listed = client.result("resources/list", json!({}));
    let resources = listed["resources"].as_array().unwrap();
    let uris: Vec<&str> = resources.iter().filter_map(|r| r["uri"].as_str()).collect();
    let expected: Vec<String> = DOCS.iter().map(|doc| format!("doc://{doc}")).collect();
    assert_eq!(uris, expected);
    for resource in resources {
        let name = resource["name"].as_str().unwrap();
        let text = std::fs::read_to_string(docs_dir().join(format!("{name}.md"))).unwrap();
        assert_eq!(resource["mimeType"], "text/markdown", "{resource}");
        assert_eq!(resource["size"], text.len(), "{resource}");
    }
    let templates = client.result("resources/templates/list", json!({}));
    assert_eq!(
        templates["resourceTemplates"][0]["uriTemplate"],
        "doc://{name}"
    );

    let read = client.result("resources/read", json!({"uri": "doc://tools"}));
    let expected = std::fs::read_to_string(docs_dir().join("tools.md")).unwrap();
    assert_eq!(read["contents"][0]["text"], expected.as_str());
    assert_eq!(read["contents"][0]["mimeType"], "text/markdown");
}

fn an_unknown_doc_is_not_found_and_names_the_docs(revision: ProtocolVersion) {
    let mut client = open(revision);
    let error = client.error("resources/read", json!({"uri": "doc://nope"}));
    let code = if revision.is_modern() { -32602 } else { -32002 };
    assert_eq!(error["code"], code, "{error}");
    assert_eq!(error["data"]["uri"], "doc://nope");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("unknown document `nope`") && message.contains("getting-started"));

    let summary = client.call_tool("summarize_doc", json!({"doc_name": "nope"}));
    assert_eq!(summary["isError"], true, "{summary}");
    assert!(text_of(&summary).contains("unknown document `nope`"));
}

fn the_tools_search_list_and_summarize(revision: ProtocolVersion) {
    let mut client = open(revision);
    let found = text_of(&client.call_tool("search_docs", json!({"query": "resource templates"})));
    assert!(
        found.starts_with("Resources (doc://resources, 2 matching words):"),
        "{found}"
    );
    // Up to three matching lines, numbered, each with the (non-blank) lines around it.
    assert!(
        found.contains("  8 | A static resource has a fixed URI"),
        "{found}"
    );
    assert!(found.contains(" 10 | ## Resource templates"), "{found}");
    assert!(
        found.contains(" 18 | When a static URI and a template both match"),
        "{found}"
    );
    assert!(
        found.contains(" 19 | specific one wins"),
        "the line after: {found}"
    );
    assert_eq!(
        found
            .split("\n\n")
            .next()
            .unwrap()
            .matches("    ...")
            .count(),
        2
    );

    let limited = text_of(&client.call_tool("search_docs", json!({"query": "the", "limit": 2})));
    assert_eq!(limited.matches("(doc://").count(), 2, "{limited}");

    let listed = text_of(&client.call_tool("list_all_docs", json!({})));
    assert_eq!(listed.lines().count(), DOCS.len(), "{listed}");
    assert!(
        listed.contains("getting-started: Getting started (16 lines)"),
        "{listed}"
    );

    let summary = text_of(&client.call_tool("summarize_doc", json!({"doc_name": "errors"})));
    assert!(summary.starts_with("Errors (14 lines)"), "{summary}");
    assert!(
        summary.contains("Headings:\nErrors\n  Tool errors\n  Protocol errors"),
        "{summary}"
    );
    assert!(
        summary.ends_with(
            "The runtime maps every failure to the answer the protocol expects, and keeps serving."
        ),
        "{summary}"
    );
}

fn the_prompts_ground_themselves_in_the_docs(revision: ProtocolVersion) {
    let mut client = open(revision);
    let explained = client.result(
        "prompts/get",
        json!({"name": "explain_concept", "arguments": {"concept": "tool errors"}}),
    );
    let text = explained["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    let excerpts: Vec<&str> = text.split("\n--- doc://").skip(1).collect();
    assert!(!excerpts.is_empty() && excerpts.len() <= 3, "{text}");
    for excerpt in &excerpts {
        let body = excerpt.split_once(" ---\n").unwrap().1;
        assert!(
            body.chars().count() <= 1001,
            "at most 1000 characters a doc"
        );
    }

    let review = client.result(
        "prompts/get",
        json!({"name": "code_review", "arguments": {"language": "Go", "code": "x := 1"}}),
    );
    let messages = review["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert!(
        messages[0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("```\nx := 1\n```")
    );
    assert_eq!(messages[1]["role"], "assistant");

    let error = client.error(
        "prompts/get",
        json!({"name": "code_review", "arguments": {"language": "cobol", "code": "x"}}),
    );
    assert_eq!(error["code"], -32602);
    assert!(
        error["message"].as_str().unwrap().contains("`language`"),
        "{error}"
    );
}

fn documents_and_languages_are_completed(revision: ProtocolVersion) {
    let mut client = open(revision);
    let mut complete = |reference: Value, name: &str, value: &str| {
        client.result(
            "completion/complete",
            json!({"ref": reference, "argument": {"name": name, "value": value}}),
        )["completion"]["values"]
            .clone()
    };
    assert_eq!(
        complete(
            json!({"type": "ref/resource", "uri": "doc://{name}"}),
            "name",
            "t"
        ),
        json!(["tools", "transports"])
    );
    assert_eq!(
        complete(
            json!({"type": "ref/prompt", "name": "code_review"}),
            "language",
            ""
        ),
        json!(["rust", "python", "typescript", "go"])
    );
    assert_eq!(
        complete(
            json!({"type": "ref/prompt", "name": "explain_concept"}),
            "concept",
            "resource t"
        ),
        json!(["resource templates"])
    );
}

per_revision!(all:
    every_doc_is_a_markdown_resource,
    an_unknown_doc_is_not_found_and_names_the_docs,
    the_tools_search_list_and_summarize,
    the_prompts_ground_themselves_in_the_docs,
    documents_and_languages_are_completed,
);

/// A fresh folder of documents for one test, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(test: &str, docs: &[(&str, &str)]) -> Self {
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("doc_search-{test}"));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        for (name, text) in docs {
            std::fs::write(path.join(format!("{name}.md")), text).unwrap();
        }
        Folder(path)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn listed_uris(client: &mut Client) -> Vec<String> {
    client.result("resources/list", json!({}))["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_folder_comes_from_the_command_line_or_the_environment() {
    let folder = Folder::new("override", &[("alpha", "# Alpha\n\nFirst.\n")]);
    let by_argument = ServerProcess::example_with_args("doc_search", &[&folder.0]);
    let mut client = Client::open(by_argument, ProtocolVersion::V2025_06_18);
    assert_eq!(listed_uris(&mut client), ["doc://alpha"]);

    let path = folder.0.to_str().unwrap();
    let by_environment = ServerProcess::example_with_env("doc_search", &[("DOC_SEARCH_DIR", path)]);
    let mut client = Client::open(by_environment, ProtocolVersion::V2026_07_28);
    assert_eq!(listed_uris(&mut client), ["doc://alpha"]);
}

#[test]
fn edits_to_the_folder_are_announced_to_subscribers() {
    let folder = Folder::new("edits", &[("alpha", "# Alpha\n")]);
    let server = ServerProcess::example_with_args("doc_search", &[&folder.0]);
    let mut client = Client::open(server, ProtocolVersion::V2025_11_25);
    client.result("resources/subscribe", json!({"uri": "doc://alpha"}));

    // The folder is polled every two seconds; a file's modification time must change.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(folder.0.join("alpha.md"), "# Alpha\n\nEdited.\n").unwrap();
    let updated = client.next_message();
    assert_eq!(
        updated["method"], "notifications/resources/updated",
        "{updated}"
    );
    assert_eq!(updated["params"]["uri"], "doc://alpha");

    std::fs::write(folder.0.join("beta.md"), "# Beta\n").unwrap();
    let changed = client.next_message();
    assert_eq!(
        changed["method"], "notifications/resources/list_changed",
        "{changed}"
    );
    assert_eq!(listed_uris(&mut client), ["doc://alpha", "doc://beta"]);
}
