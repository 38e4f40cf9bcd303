//! Scopes over a real stdio pipe: without a configured principal the operator who started the
//! server is trusted with every scope; started `--as` a principal, the server lists and serves
//! only what that principal's scopes allow, and the refusal passes the server's layers (the
//! audit log records it). Both eras.

#[allow(unused_macros)]
mod support;

use std::path::{Path, PathBuf};

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::client::Client;
use support::process::ServerProcess;

fn audit_log(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("stdio_scopes");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{test}.jsonl"));
    let _ = std::fs::remove_file(&path);
    path
}

fn layered(audit: &Path, principal: Option<&str>, revision: ProtocolVersion) -> Client {
    let mut args = vec!["--audit-log".to_owned(), audit.display().to_string()];
    if let Some(principal) = principal {
        args.extend(["--as".to_owned(), principal.to_owned()]);
    }
    let program = Path::new(env!("CARGO_BIN_EXE_layered-server"));
    Client::open(ServerProcess::spawn_with_args(program, &args), revision)
}

fn tool_names(client: &mut Client) -> Vec<String> {
    client
        .list_all_tools()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_operator_is_trusted_with_every_scope() {
    for revision in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let audit = audit_log(&format!("operator-{revision}"));
        let mut client = layered(&audit, None, revision);
        assert!(tool_names(&mut client).contains(&"vault".to_owned()));
        let result = client.call_tool("vault", json!({}));
        assert_eq!(result["content"][0]["text"], "gold", "{result}");
        client.finish();
    }
}

#[test]
fn a_configured_principal_gets_only_what_its_scopes_allow() {
    for revision in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let audit = audit_log(&format!("principal-{revision}"));
        let mut client = layered(&audit, Some("ops="), revision);
        let names = tool_names(&mut client);
        assert!(!names.contains(&"vault".to_owned()), "{names:?}");
        assert!(names.contains(&"echo".to_owned()));
        let refused = client.error("tools/call", json!({"name": "vault", "arguments": {}}));
        assert_eq!(refused["code"], -32003, "{refused}");
        assert_eq!(refused["data"]["scope"], "vault:read");
        client.finish();
        let lines: Vec<Value> = std::fs::read_to_string(&audit)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let refusal = lines
            .iter()
            .find(|line| line["name"] == "vault")
            .unwrap_or_else(|| panic!("no audit line for the refused call: {lines:?}"));
        assert_eq!(refusal["caller"], "ops", "{refusal}");
        assert_eq!(refusal["code"], -32003, "{refusal}");

        let mut granted = layered(&audit, Some("ops=vault:read"), revision);
        let result = granted.call_tool("vault", json!({}));
        assert_eq!(result["content"][0]["text"], "gold", "{result}");
        granted.finish();
    }
}
