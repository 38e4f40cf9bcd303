//! MCP over stdin and stdout: one JSON-RPC message per line each way.
//!
//! Four parts run side by side: a reader thread (lines in), the serve loop (each line to the
//! dispatcher, in order), one task per tool call, and a writer thread (lines out, flushed
//! when the queue runs dry).

mod banner;
mod lines;
mod reader;
mod signals;
mod stdout;
mod writer;

use std::io::{self, IsTerminal};
use std::time::Duration;

use tokio::task::JoinSet;

use self::reader::Input;
use self::writer::OutputSender;
use crate::dispatch::{Dispatcher, Reply};
use crate::protocol::jsonrpc::{ErrorObject, Outgoing};
use crate::session::Session;

/// How the stdio transport behaves.
#[derive(Debug, Clone)]
pub(crate) struct StdioOptions {
    /// The largest line read, in bytes.
    pub(crate) max_message_size: usize,
    /// How long running calls may take to finish at shutdown.
    pub(crate) shutdown_timeout: Duration,
}

/// Serve `dispatcher` on stdin/stdout until stdin ends, a stop signal arrives or stdout
/// breaks; then let running calls finish (within the timeout) and flush.
pub(crate) async fn serve(dispatcher: Dispatcher, options: StdioOptions) -> io::Result<()> {
    let (output, output_done) = writer::spawn(stdout::take_protocol_output()?)?;
    let mut input = reader::spawn(options.max_message_size)?;
    let tools: Vec<&str> = dispatcher.tool_names().collect();
    if io::stdin().is_terminal() {
        banner::print(dispatcher.info(), &tools);
    }
    tracing::info!(
        server = %dispatcher.info().name,
        version = %dispatcher.info().version,
        tools = tools.len(),
        "serving MCP on stdio"
    );

    let mut session = Session::new();
    let mut calls = JoinSet::new();
    let stop = signals::stop_requested();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            next = input.recv() => match next {
                Some(Input::Line(line)) => {
                    match dispatcher.handle_bytes(&line, &mut session) {
                        Reply::None => {}
                        Reply::Ready(answer) => output.send(answer),
                        Reply::Pending(call) => {
                            let output = output.clone();
                            calls.spawn(async move {
                                if let Some(answer) = call.await {
                                    output.send(answer);
                                }
                            });
                        }
                    }
                }
                Some(Input::TooLong { len }) => output.send(too_long(len, options.max_message_size)),
                Some(Input::Failed(error)) => {
                    tracing::error!(%error, "cannot read stdin; shutting down");
                    break;
                }
                None => {
                    tracing::info!("stdin closed; shutting down");
                    break;
                }
            },
            Some(_) = calls.join_next(), if !calls.is_empty() => {}
            () = &mut stop => break,
            () = output.closed() => break,
        }
    }

    finish_calls(&mut calls, &session, options.shutdown_timeout).await;
    flush(output, output_done, options.shutdown_timeout).await;
    Ok(())
}

/// The line was discarded unread, so its id is unknown: the error goes to id `null`.
fn too_long(len: usize, max: usize) -> Outgoing {
    tracing::warn!(len, max, "discarded a message over the size limit");
    Outgoing::error(
        None,
        &ErrorObject::invalid_request(format!(
            "message of {len} bytes exceeds the limit of {max} bytes and was discarded"
        )),
    )
}

/// Give running calls `timeout` to finish (their answers are still sent), then abandon them.
async fn finish_calls(calls: &mut JoinSet<()>, session: &Session, timeout: Duration) {
    if calls.is_empty() {
        return;
    }
    tracing::info!(running = calls.len(), "waiting for running calls to finish");
    let all_finished = tokio::time::timeout(timeout, async {
        while calls.join_next().await.is_some() {}
    })
    .await;
    if all_finished.is_err() {
        tracing::warn!(
            abandoned = calls.len(),
            "calls still running after {timeout:?}; abandoning them"
        );
        session.in_flight().cancel_all();
        calls.shutdown().await;
    }
}

/// Let the writer write what is queued, unless the client stopped reading.
async fn flush(output: OutputSender, done: writer::OutputDone, timeout: Duration) {
    drop(output);
    if tokio::time::timeout(timeout, done.wait()).await.is_err() {
        tracing::warn!("stdout did not drain within {timeout:?}; giving up on it");
    }
}
