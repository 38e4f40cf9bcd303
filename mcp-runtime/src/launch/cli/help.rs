//! `--help`: what this server is, how to connect a client to it, and what else it can do.

use std::fmt::Write as _;
use std::path::Path;

use crate::handler::ResourceDefinition;
use crate::server::Server;
use crate::transport::stdio::banner;

/// The commands, one a line, for `--help` (`http`: the program also takes `--http ADDR`).
fn commands(program: &str, http: bool) -> String {
    let mut lines = vec![
        ("", "serve MCP on stdin/stdout (what MCP clients run)"),
        (
            "manifest",
            "print tools, resources, prompts as JSON, with token estimates",
        ),
        (
            "call TOOL [key=value ...]",
            "call a tool and print its result",
        ),
        (
            "call TOOL --json '{...}'",
            "the same, with every argument in one JSON object",
        ),
        ("read URI", "read a resource and print its contents"),
        (
            "prompt NAME [key=value ...]",
            "get a prompt and print its messages",
        ),
        ("--help", "this help"),
        ("--version", "the server's name and version"),
    ];
    if http {
        lines.insert(
            1,
            (
                "--http ADDR",
                "serve MCP over Streamable HTTP at ADDR (127.0.0.1:8080, or a port)",
            ),
        );
    }
    let width = lines
        .iter()
        .map(|(command, _)| command.len())
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for (command, what) in &lines {
        let _ = writeln!(text, "  {program} {command:<width$}  {what}");
    }
    text
}

/// The one-line synopsis and pointer to `--help` that follow a usage error.
pub(crate) fn usage(program: &str) -> String {
    format!(
        "Usage: {program} [manifest | call TOOL [key=value ...] | read URI | \
         prompt NAME [key=value ...] | --help | --version]\n\
         Run `{program} --help` for more.\n"
    )
}

/// The `--help` text.
pub(crate) fn help(server: &Server, program: &str, executable: Option<&Path>) -> String {
    let info = &server.config.info;
    let mut text = format!("{} {}", info.name, info.version);
    if let Some(title) = &info.title {
        let _ = write!(text, " ({title})");
    }
    text.push_str(": an MCP (Model Context Protocol) server.\n");
    if let Some(instructions) = &server.config.instructions {
        let _ = write!(text, "\n{}\n", instructions.trim_end());
    }

    let offered = server.surfaces.sets();
    let tools: Vec<String> = (offered.tools.iter())
        .map(|(tool, _)| tool.name.to_string())
        .collect();
    let (mut resources, mut templates) = (Vec::new(), Vec::new());
    for route in &offered.resources {
        match &route.definition {
            ResourceDefinition::Static(resource) => resources.push(resource.uri.to_string()),
            ResourceDefinition::Template(template) => {
                templates.push(template.uri_template.to_string())
            }
        }
    }
    let prompts: Vec<String> = (offered.prompts.iter())
        .map(|(prompt, _)| prompt.name.to_string())
        .collect();
    let _ = writeln!(
        text,
        "\nIt offers {}, {}, {} and {}.",
        count(tools.len(), "tool"),
        count(resources.len(), "resource"),
        count(templates.len(), "resource template"),
        count(prompts.len(), "prompt"),
    );
    for (what, names) in [
        ("Tools", &tools),
        ("Resources", &resources),
        ("Resource templates", &templates),
        ("Prompts", &prompts),
    ] {
        if !names.is_empty() {
            let _ = writeln!(text, "{what}: {}.", names.join(", "));
        }
    }

    let _ = write!(
        text,
        "\nConnecting a client: MCP clients start this program themselves and speak JSON-RPC on \
         its\nstdin and stdout. For Claude Desktop (claude_desktop_config.json) or Cursor \
         (.cursor/mcp.json):\n\n{}\n",
        banner::client_config(info, executable)
    );

    let _ = write!(
        text,
        "\nUsage:\n{commands}\n\
         In key=value, a value that parses as JSON is taken as JSON (n=2, ok=true, ids=[1,2]),\n\
         any other as a string (city=Paris); quote to force a string: code='\"42\"'. Prompt\n\
         arguments are always strings. The token estimate of `manifest` is the bytes of each\n\
         tool's compact JSON definition, as `tools/list` sends it, divided by 4.\n\
         \n\
         Exit status: 0 on success, 1 when the server answers with an error (a tool error or a\n\
         JSON-RPC error), 2 on a usage error.\n",
        commands = commands(program, server.from_args && cfg!(feature = "http")),
    );
    if !server.own_flags.is_empty() {
        let _ = writeln!(text, "\nOptions of this server (before the command):");
        for (usage, meaning) in &server.own_flags {
            match usage.len() {
                ..24 => {
                    let _ = writeln!(text, "  {usage:<24}{meaning}");
                }
                _ => {
                    let _ = writeln!(text, "  {usage}\n  {:<24}{meaning}", "");
                }
            }
        }
    }
    let _ = write!(
        text,
        "\nEnvironment:\n  MCP_LOG                 the level of the log on stderr (error, warn, info, \
         debug, trace;\n                          default info)\n"
    );
    if server.from_args {
        let _ = write!(
            text,
            "  MCP_REQUEST_STATE_KEY   the secret sealing 2026-07-28 requestStates; the same on \
             every\n                          replica behind one load balancer (default: \
             random per process)\n  MCP_REQUEST_STATE_PREVIOUS_KEY\n                          the \
             secret that key replaced, while a new one is rolled out: it\n                          \
             still opens the requestStates it sealed, and seals none\n"
        );
        #[cfg(feature = "redis")]
        let _ = write!(
            text,
            "  MCP_REDIS_URL           share tasks, used requestStates and announcements with \
             the\n                          other instances through this Redis (as --redis URL, \
             which\n                          any command takes)\n  MCP_TASK_LEASE_MS       \
             how long a task's instance may go silent in Redis before\n                          \
             the task is reported failed (default 30000)\n"
        );
        #[cfg(feature = "redis-tls")]
        text.push_str(
            "  MCP_REDIS_CA_CERT       the CA file a rediss:// Redis's certificate must chain \
             to\n                          (default: the system's roots, or SSL_CERT_FILE's)\n  \
             MCP_REDIS_CLIENT_CERT   the certificate file to present to a Redis that asks \
             its\n                          clients for one (tls-auth-clients yes)\n  \
             MCP_REDIS_CLIENT_KEY    that certificate's private key file\n  SSL_CERT_FILE           a CA file read as the system's \
             roots, for rediss://\n",
        );
    }
    text
}

fn count(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::test_tools;
    use crate::handler::Tools;
    use crate::server::ServerInfo;

    #[test]
    fn says_what_the_server_is_and_how_to_connect_it() {
        let server = Server::new(ServerInfo::new("calc", "1.2.3").with_title("Calculator"))
            .instructions("Arithmetic.")
            .tools(
                Tools::new()
                    .with(test_tools::named("add"))
                    .with(test_tools::named("divide")),
            );
        let text = help(&server, "calc", Some(Path::new("/opt/calc")));
        assert!(
            text.starts_with("calc 1.2.3 (Calculator): an MCP (Model Context Protocol) server."),
            "{text}"
        );
        assert!(text.contains("\nArithmetic.\n"), "{text}");
        assert!(
            text.contains("2 tools, 0 resources, 0 resource templates and 0 prompts"),
            "{text}"
        );
        assert!(text.contains("Tools: add, divide."), "{text}");
        assert!(text.contains(r#""command": "/opt/calc""#), "{text}");
        assert!(text.contains("  calc call TOOL [key=value ...]"), "{text}");
        assert!(text.contains("Exit status"), "{text}");
        assert!(text.contains("  MCP_LOG "), "{text}");
        assert!(
            !text.contains("--http ADDR"),
            "not served from args: {text}"
        );
        assert!(!text.contains("MCP_REQUEST_STATE_KEY"), "{text}");
    }

    #[test]
    fn a_server_run_from_args_names_its_http_flag_and_key_variable() {
        let mut server = Server::new(ServerInfo::new("calc", "1.2.3"));
        server.from_args = true;
        let text = help(&server, "calc", None);
        assert_eq!(
            text.contains("  calc --http ADDR "),
            cfg!(feature = "http"),
            "{text}"
        );
        assert!(text.contains("  MCP_REQUEST_STATE_KEY "), "{text}");
        assert_eq!(
            text.contains("  MCP_REDIS_URL "),
            cfg!(feature = "redis"),
            "{text}"
        );
        assert!(
            text.contains("  MCP_REQUEST_STATE_PREVIOUS_KEY\n"),
            "{text}"
        );
    }

    #[test]
    fn usage_is_short_and_names_every_command() {
        let text = usage("srv");
        assert_eq!(text.lines().count(), 2, "{text}");
        for command in ["manifest", "call TOOL", "read URI", "prompt NAME", "--help"] {
            assert!(text.contains(command), "{command}: {text}");
        }
        assert!(text.ends_with("Run `srv --help` for more.\n"));
    }
}
