//! What a person sees who starts the server from a terminal instead of from an MCP client.

use std::path::Path;

use crate::server::ServerInfo;

/// Explain on stderr what this program is and how to connect a client to it.
pub(crate) fn print(info: &ServerInfo, tools: &[&str]) {
    let executable = std::env::current_exe().ok();
    eprint!("{}", text(info, tools, executable.as_deref()));
}

/// The `mcpServers` entry that starts this server, as Claude Desktop and Cursor take it
/// (pretty JSON, the path escaped so the snippet can be pasted as is).
pub(crate) fn client_config(info: &ServerInfo, executable: Option<&Path>) -> String {
    let command = executable.map_or_else(
        || "/path/to/this/binary".to_owned(),
        |path| path.display().to_string(),
    );
    let config = serde_json::json!({
        "mcpServers": { info.name.as_ref(): { "command": command } }
    });
    serde_json::to_string_pretty(&config).expect("a JSON value always serializes")
}

fn text(info: &ServerInfo, tools: &[&str], executable: Option<&Path>) -> String {
    let config = client_config(info, executable);
    let offers = match tools.len() {
        0 => "no tools".to_owned(),
        1 => format!("1 tool: {}", tools[0]),
        n => format!("{n} tools: {}", tools.join(", ")),
    };
    format!(
        "{name} {version}: an MCP server with {offers}.\n\
         \n\
         It speaks the Model Context Protocol (JSON-RPC, one message per line) on stdin and\n\
         stdout, so an MCP client should start it rather than a person. To use it from Claude\n\
         Desktop, add this to claude_desktop_config.json:\n\
         \n\
         {config}\n\
         \n\
         Waiting for messages on stdin; Ctrl-D or Ctrl-C ends it. Run it with --help to see\n\
         what else it does (list its tools, call one).\n",
        name = info.name,
        version = info.version,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_server_its_tools_and_a_client_config() {
        let info = ServerInfo::new("calculator", "0.1.0");
        let text = text(
            &info,
            &["add", "divide"],
            Some(Path::new("/opt/bin/calc \"x\"")),
        );
        assert!(text.starts_with("calculator 0.1.0: an MCP server with 2 tools: add, divide."));
        assert!(text.contains("stdin"));
        // The path is JSON-escaped, so the snippet can be pasted as is.
        assert!(
            text.contains(r#""command": "/opt/bin/calc \"x\"""#),
            "{text}"
        );
        assert!(text.contains(r#""calculator": {"#));
    }

    #[test]
    fn works_without_a_known_executable() {
        let text = text(&ServerInfo::new("s", "1"), &[], None);
        assert!(text.contains("no tools"));
        assert!(text.contains("/path/to/this/binary"));
    }
}
