//! Launching a server: the command line every server binary answers, serving as its arguments
//! say (`serve_stdio`, `serve_from_args`), and the in-process client that the command-line
//! tool and [`testing`](crate::testing) drive it through.

pub(crate) mod cli;
pub mod client;
mod from_args;

use crate::server::Server;
use crate::transport::stderr_log;
use crate::transport::stdio::{self, StdioOptions};

impl Server {
    /// Serve MCP over stdin and stdout, the way MCP clients launch local servers, until stdin
    /// closes or the process gets SIGTERM or SIGINT. Calls still running then get
    /// [`shutdown_timeout`](Self::shutdown_timeout) to finish, their answers are flushed, and
    /// this returns `Ok(())`.
    ///
    /// One JSON-RPC message per line each way. Clients of every revision are served from one
    /// binary: a client that opens with `initialize` gets a legacy session (2024-11-05 to
    /// 2025-11-25), requests carrying `_meta["io.modelcontextprotocol/protocolVersion"]` are
    /// served statelessly in 2026-07-28. Tool calls run concurrently.
    ///
    /// Stdout belongs to the protocol: on Unix, anything else the process writes to it (a
    /// stray `println!`, a child process) is sent to stderr instead. Logs go to stderr through
    /// `tracing`; when no subscriber is installed, a minimal one is, at the level named by
    /// `MCP_LOG` (or a bare level in `RUST_LOG`; default `info`). Started from a terminal,
    /// the server says on stderr what it is and how to connect a client.
    ///
    /// Started with arguments, the binary is a command-line tool instead: `--help`,
    /// `manifest`, `call TOOL key=value ...`, `read URI`, `prompt NAME key=value ...` run
    /// through the real dispatcher, print their answer, and the process exits with their
    /// status (0, 1 when the server answered with an error, 2 for a command line it does not
    /// understand); see [`serve_stdio_with_args`](Self::serve_stdio_with_args) for servers with
    /// arguments of their own.
    ///
    /// # Errors
    ///
    /// Fails before serving when two tools (or two prompts) share a name, a tool's input schema
    /// is not an object schema, or two resources answer the same URIs; and when stdout cannot
    /// be set up.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        self.serve_stdio_with_args(std::env::args_os().skip(1))
            .await
    }

    /// [`serve_stdio`](Self::serve_stdio) with `args` instead of the process's arguments (after
    /// its name): serve when `args` is empty, else run the command-line tool on them and exit.
    ///
    /// Every argument given is the command-line tool's, and one it does not know is a usage
    /// error. A server that takes arguments of its own reads them first and passes the rest:
    ///
    /// ```no_run
    /// use mcp_runtime::{Server, server_info};
    ///
    /// #[tokio::main]
    /// async fn main() -> std::io::Result<()> {
    ///     // `my-server --root DIR [manifest | call ... | --help ...]`
    ///     let mut args: Vec<_> = std::env::args_os().skip(1).collect();
    ///     let root = match args.first().and_then(|arg| arg.to_str()) {
    ///         Some("--root") if args.len() >= 2 => args.drain(..2).nth(1),
    ///         _ => None,
    ///     };
    ///     # let _ = root;
    ///     Server::new(server_info!()).serve_stdio_with_args(args).await
    /// }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`serve_stdio`](Self::serve_stdio). In command-line mode this does not return: the
    /// process exits with the command's status.
    pub async fn serve_stdio_with_args<I>(self, args: I) -> std::io::Result<()>
    where
        I: IntoIterator,
        I::Item: Into<std::ffi::OsString>,
    {
        stderr_log::install_if_absent();
        let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
        if !args.is_empty() {
            let status = cli::run(&self, &args).await;
            #[cfg(feature = "otel")]
            crate::telemetry::flush_at_end(self.config.telemetry.clone());
            std::process::exit(status);
        }
        let dispatcher = self
            .dispatcher()
            .map_err(|error| std::io::Error::new(std::io::ErrorKind::InvalidInput, error))?;
        let options = StdioOptions {
            max_message_size: self.max_message_size,
            shutdown_timeout: self.shutdown_timeout,
        };
        stdio::serve(dispatcher, options).await
    }
}
