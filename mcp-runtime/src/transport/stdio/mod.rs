//! MCP over stdin and stdout: one JSON-RPC message per line each way.
//!
//! The I/O thread reads, dispatches and answers whatever completes at once; calls that have
//! to wait become tokio tasks whose answers a writer thread sends. This async side only
//! starts the threads and waits for the end: stdin closing, a stop signal, or stdout
//! breaking.

pub(crate) mod banner;
mod calls;
mod io_thread;
mod lines;
mod output;
mod stdout;

use std::io::{self, IsTerminal};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use tokio::runtime::Handle;
use tokio::sync::oneshot;

use self::calls::Calls;
use self::io_thread::{End, IoThread};
use self::output::Output;
use crate::context::peer::Outbound;
use crate::dispatch::Dispatcher;
use crate::dispatch::session::Session;

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
    // Handlers first: a client may signal as soon as it has its first answer.
    let stop = crate::transport::signals::stop_requested();
    let output = Output::new(stdout::take_protocol_output()?);
    let (answers, mut writer) = output::spawn_writer(output.clone())?;
    let calls = Calls::new(answers.clone());

    let names = dispatcher.tool_names();
    let tools: Vec<&str> = names.iter().map(|name| &**name).collect();
    if io::stdin().is_terminal() {
        banner::print(dispatcher.info(), &tools);
    }
    tracing::info!(
        server = %dispatcher.info().name,
        version = %dispatcher.info().version,
        tools = tools.len(),
        "serving MCP on stdio"
    );
    drop(tools);

    let mut session = Session::new();
    #[cfg(feature = "otel")]
    session.set_network_transport("pipe");
    if let Some(principal) = dispatcher.stdio_principal() {
        session.set_principal(Some(principal.clone()));
    }
    // Progress and logs of a request go straight into the output and leave at once: the
    // request's response is written after them (by this thread, or queued to the writer once
    // the call ends), so they always precede it.
    let notifications_output = output.clone();
    session.set_outbound(Outbound::new(move |message| {
        let written = notifications_output
            .write(&message)
            .and_then(|()| notifications_output.flush());
        if let Err(error) = written {
            tracing::debug!(%error, "a request's notification could not be written");
        }
    }));
    let in_flight = session.in_flight().clone();
    // Change notifications leave through the writer thread, as late answers do.
    let subscriptions = session.subscriptions().clone();
    let mut forwarder = dispatcher.notification_forwarder(&session);
    let notifications = tokio::spawn(async move {
        while let Some(messages) = forwarder.next().await {
            messages
                .into_iter()
                .for_each(|message| answers.send(message));
        }
    });
    #[cfg(feature = "otel")]
    let telemetry = dispatcher.telemetry();
    let stopping = Arc::new(AtomicBool::new(false));
    let (ended, end) = oneshot::channel();
    let io_thread = IoThread {
        dispatcher,
        session,
        output,
        calls: calls.clone(),
        runtime: Handle::current(),
        max_message_size: options.max_message_size,
        stopping: stopping.clone(),
    };
    thread::Builder::new()
        .name("mcp-stdio".into())
        .spawn(move || {
            let _ = ended.send(io_thread.run());
        })?;

    tokio::select! {
        end = end => log_end(end.unwrap_or(End::Stopped)),
        () = stop => {}
        () = writer.stopped() => tracing::warn!("stdout is gone; shutting down"),
    }
    stopping.store(true, Ordering::Relaxed);
    // Listen streams end with their result; nothing else is announced.
    subscriptions.close_streams();
    notifications.abort();
    calls.finish(options.shutdown_timeout, &in_flight).await;
    // The writer ends once the calls' answers are written, flushing everything.
    if tokio::time::timeout(options.shutdown_timeout, writer.stopped())
        .await
        .is_err()
    {
        tracing::warn!("stdout did not drain; giving up on it");
    }
    #[cfg(feature = "otel")]
    crate::telemetry::flush_at_end(telemetry);
    Ok(())
}

fn log_end(end: End) {
    match end {
        End::InputClosed => tracing::info!("stdin closed; shutting down"),
        End::InputFailed(error) => tracing::error!(%error, "cannot read stdin; shutting down"),
        End::OutputFailed(error) => tracing::warn!(%error, "cannot write stdout; shutting down"),
        End::Stopped => {}
    }
}
