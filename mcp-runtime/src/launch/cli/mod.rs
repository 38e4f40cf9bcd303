//! Every server binary doubles as a command-line tool: given arguments,
//! [`Server::serve_stdio`](crate::Server::serve_stdio) runs the command they name instead of
//! serving, and the process exits with its status.
//!
//! ```text
//! server --help                      what it is, its offerings, a client config snippet
//! server manifest                    tools, resources, templates, prompts as JSON + token estimates
//! server call TOOL key=value ...     call a tool (or: call TOOL --json '{...}')
//! server read URI                    read a resource
//! server prompt NAME key=value ...   get a prompt
//! ```
//!
//! The commands go through the real dispatcher (an in-process [`TestClient`] at the newest
//! revision), so a call is validated and fails exactly as it would for a client.
//!
//! The rule for arguments: every argument handed to the runtime is the CLI's, and one it does
//! not know is a usage error (exit 2). A server with flags of its own takes them off first and
//! passes the rest to [`Server::serve_stdio_with_args`](crate::Server::serve_stdio_with_args).

mod args;
mod help;
mod manifest;
mod progress;
mod run;

use std::ffi::OsString;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use self::args::Command;
use crate::launch::client::TestClient;
use crate::server::Server;

/// Exit status: the command did what was asked.
pub(crate) const SUCCESS: i32 = 0;
/// Exit status: the server answered with an error (a tool error or a JSON-RPC error), or could
/// not serve at all.
pub(crate) const FAILURE: i32 = 1;
/// Exit status: the command line asks for nothing this program does.
pub(crate) const USAGE: i32 = 2;

/// Where a command writes. `Send`, so serving stays a `Send` future.
pub(crate) struct Terminal<'a> {
    /// Results.
    pub(crate) out: &'a mut (dyn Write + Send),
    /// Errors, and the progress line.
    pub(crate) err: &'a mut (dyn Write + Send),
    /// Whether `err` is a terminal, which gets a progress line during slow calls.
    pub(crate) progress: bool,
}

/// Run the command `args` (the arguments after the program's name, not empty) names, on the
/// process's stdout and stderr. Returns the exit status.
pub(crate) async fn run(server: &Server, args: &[OsString]) -> i32 {
    let executable = std::env::current_exe().ok();
    let program = program_name(server, executable.as_deref());
    let (mut out, mut err) = (io::stdout(), io::stderr());
    let progress = err.is_terminal();
    let mut terminal = Terminal {
        out: &mut out,
        err: &mut err,
        progress,
    };
    let status = execute(server, args, &program, executable, &mut terminal).await;
    let _ = out.flush();
    status
}

/// The name usage lines show: the executable's file name, else the server's name.
fn program_name(server: &Server, executable: Option<&Path>) -> String {
    executable.and_then(Path::file_name).map_or_else(
        || server.config.info.name.to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

async fn execute(
    server: &Server,
    args: &[OsString],
    program: &str,
    executable: Option<PathBuf>,
    terminal: &mut Terminal<'_>,
) -> i32 {
    let command = match args::parse(args) {
        Ok(command) => command,
        Err(error) => {
            let _ = write!(terminal.err, "error: {error}\n{}", help::usage(program));
            return USAGE;
        }
    };
    match command {
        Command::Help => {
            let text = help::help(server, program, executable.as_deref());
            let _ = write!(terminal.out, "{text}");
            return SUCCESS;
        }
        Command::Version => {
            let _ = writeln!(
                terminal.out,
                "{} {}",
                server.config.info.name, server.config.info.version
            );
            return SUCCESS;
        }
        _ => {}
    }
    let client = match TestClient::connect(server, TestClient::DEFAULT_REVISION, "mcp-cli") {
        Ok(client) => client,
        Err(error) => {
            let _ = writeln!(terminal.err, "error: {error}");
            return FAILURE;
        }
    };
    match command {
        Command::Help | Command::Version => unreachable!("answered above"),
        Command::Manifest => match manifest::manifest(server, &client).await {
            Ok(manifest) => {
                let pretty = serde_json::to_string_pretty(&manifest)
                    .expect("a JSON value always serializes");
                let _ = writeln!(terminal.out, "{pretty}");
                SUCCESS
            }
            Err(error) => {
                let _ = writeln!(
                    terminal.err,
                    "error: cannot list what the server offers: {error}"
                );
                FAILURE
            }
        },
        Command::Call { tool, arguments } => run::call(&client, &tool, arguments, terminal).await,
        Command::Read { uri } => run::read(&client, &uri, terminal).await,
        Command::Prompt { name, arguments } => {
            run::prompt(&client, &name, arguments, terminal).await
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::dispatch::test_tools::{self, Behaviour};
    use crate::handler::Tools;
    use crate::handler::{BoxFuture, ToolCall, ToolDefinition, ToolHandler};
    use crate::protocol::{CallToolResult, Content};
    use crate::server::ServerInfo;

    /// Answers its progress token as text, and an image.
    struct Picture;

    impl ToolHandler for Picture {
        fn definition(&self) -> ToolDefinition {
            let mut definition = test_tools::named("picture").definition();
            definition.description = Some("an image".into());
            definition
        }

        fn call(&self, call: ToolCall) -> BoxFuture<'static, CallToolResult> {
            let token = call.context.progress_token.unwrap_or_default();
            Box::pin(async move {
                CallToolResult::success(vec![
                    Content::text(token.to_string()),
                    Content::Image {
                        data: "AAAA".into(),
                        mime_type: "image/png".into(),
                    },
                ])
            })
        }
    }

    /// Takes a second, reporting progress on the way.
    struct Steps;

    impl ToolHandler for Steps {
        fn definition(&self) -> ToolDefinition {
            let mut definition = test_tools::named("steps").definition();
            definition.description = Some("slow, with progress".into());
            definition
        }

        fn call(&self, call: ToolCall) -> BoxFuture<'static, CallToolResult> {
            let context = call.context;
            Box::pin(async move {
                // Off the progress line's ticks (every 100 ms from 500 ms), so which of a
                // report and a tick comes first is never left to chance.
                let pause = |ms| tokio::time::sleep(std::time::Duration::from_millis(ms));
                pause(250).await;
                context.progress(1.0, Some(4.0), Some("started"));
                pause(400).await;
                context.progress(3.0, Some(4.0), Some("almost"));
                pause(400).await;
                CallToolResult::success(vec![Content::text("done")])
            })
        }
    }

    fn server() -> Server {
        Server::new(ServerInfo::new("srv", "0.9")).tools(
            Tools::new()
                .with(test_tools::named("echo"))
                .with(test_tools::scripted("sleep", Behaviour::Sleep))
                .with(Picture)
                .with(Steps),
        )
    }

    /// The exit status, stdout and stderr of `args`.
    async fn cli(args: &[&str], progress: bool) -> (i32, String, String) {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut terminal = Terminal {
            out: &mut out,
            err: &mut err,
            progress,
        };
        let status = execute(&server(), &args, "srv", None, &mut terminal).await;
        let text = |bytes| String::from_utf8(bytes).unwrap();
        (status, text(out), text(err))
    }

    #[tokio::test]
    async fn call_prints_the_text_and_succeeds() {
        let (status, out, err) = cli(&["call", "echo", "a=1", "b=x"], false).await;
        assert_eq!((status, err.as_str()), (SUCCESS, ""));
        assert_eq!(out, "{\"a\":1,\"b\":\"x\"}\n");
    }

    #[tokio::test]
    async fn an_unknown_tool_is_the_json_rpc_error() {
        let (status, out, err) = cli(&["call", "nope"], false).await;
        assert_eq!((status, out.as_str()), (FAILURE, ""));
        assert_eq!(err, "error: unknown tool `nope` (JSON-RPC error -32602)\n");
    }

    #[tokio::test]
    async fn a_result_with_more_than_text_is_printed_as_json() {
        let (status, out, _) = cli(&["call", "picture"], false).await;
        assert_eq!(status, SUCCESS);
        let result: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(result["content"][1]["mimeType"], "image/png", "{result}");
        // Not from a terminal: no progress token.
        assert_eq!(result["content"][0]["text"], "null");
    }

    #[tokio::test]
    async fn on_a_terminal_calls_carry_a_progress_token() {
        let (_, out, _) = cli(&["call", "picture"], true).await;
        let result: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            result["content"][0]["text"],
            json!(progress::TOKEN).to_string()
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_call_on_a_terminal_shows_then_erases_a_progress_line() {
        let (status, out, err) = cli(&["call", "sleep", "ms=2000"], true).await;
        assert_eq!((status, out.as_str()), (SUCCESS, "slept\n"));
        assert!(err.contains("sleep … 1.0s"), "{err:?}");
        assert!(err.ends_with("\r\x1b[2K"), "{err:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_tool_reporting_progress_gets_a_bar() {
        let (status, out, err) = cli(&["call", "steps"], true).await;
        assert_eq!((status, out.as_str()), (SUCCESS, "done\n"));
        assert!(err.contains("steps [#######"), "{err:?}");
        assert!(err.contains("]  25% started 0.6s"), "{err:?}");
        assert!(err.contains("]  75% almost 0.7s"), "{err:?}");
        // Off a terminal, nothing is drawn.
        let (_, out, err) = cli(&["call", "steps"], false).await;
        assert_eq!((out.as_str(), err.as_str()), ("done\n", ""));
    }

    #[tokio::test]
    async fn usage_errors_exit_2_with_a_short_usage() {
        for args in [
            &["frobnicate"][..],
            &["--root", "x"],
            &["call"],
            &["call", "echo", "a"],
        ] {
            let (status, out, err) = cli(args, false).await;
            assert_eq!((status, out.as_str()), (USAGE, ""), "{args:?}");
            assert!(err.starts_with("error: "), "{err}");
            assert!(err.contains("Usage: srv ["), "{err}");
            assert!(err.lines().count() <= 3, "{err}");
        }
    }

    #[tokio::test]
    async fn help_version_and_manifest() {
        let (status, out, _) = cli(&["--help"], false).await;
        assert_eq!(status, SUCCESS);
        assert!(out.starts_with("srv 0.9: an MCP"), "{out}");
        let (_, out, _) = cli(&["--version"], false).await;
        assert_eq!(out, "srv 0.9\n");
        let (status, out, _) = cli(&["manifest"], false).await;
        assert_eq!(status, SUCCESS);
        let manifest: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(manifest["tools"][0]["name"], "echo");
        assert_eq!(manifest["server"], json!({"name": "srv", "version": "0.9"}));
    }

    #[tokio::test]
    async fn read_and_prompt_without_resources_or_prompts_are_method_not_found() {
        let (status, _, err) = cli(&["read", "doc://x"], false).await;
        assert_eq!(status, FAILURE);
        assert!(err.contains("-32601"), "{err}");
        let (status, _, err) = cli(&["prompt", "p"], false).await;
        assert_eq!(status, FAILURE);
        assert!(err.contains("-32601"), "{err}");
    }

    #[tokio::test]
    async fn a_server_that_cannot_serve_fails() {
        let args = [OsString::from("manifest")];
        let twice = Server::new(ServerInfo::new("s", "1")).tools(
            Tools::new()
                .with(test_tools::named("x"))
                .with(test_tools::named("x")),
        );
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut terminal = Terminal {
            out: &mut out,
            err: &mut err,
            progress: false,
        };
        assert_eq!(
            execute(&twice, &args, "s", None, &mut terminal).await,
            FAILURE
        );
        let err = String::from_utf8(err).unwrap();
        assert!(err.contains("cannot serve"), "{err}");
    }

    /// Serving must stay spawnable.
    #[test]
    fn the_cli_future_is_send() {
        fn send<T: Send>(_: &T) {}
        let server = server();
        send(&run(&server, &[]));
    }
}
