//! The signals that ask a server to stop: SIGTERM (how clients end servers that outlive a
//! closed stdin) and SIGINT (Ctrl-C in a terminal).

use std::future::Future;

/// Installs the handlers now and returns a future that resolves when the process is asked to
/// stop. Installing before the first poll matters: a client may send SIGTERM as soon as it
/// has its first answer, which can come before the serving task first awaits this future,
/// and an unhandled SIGTERM kills the process instead of stopping it cleanly. A handler that
/// cannot be installed is logged and never fires: stdin's end then remains the way to stop.
pub(crate) fn stop_requested() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let listen = |kind: SignalKind, name: &'static str| {
            signal(kind)
                .inspect_err(|error| tracing::warn!(%error, "cannot listen for {name}"))
                .ok()
        };
        let terminate = listen(SignalKind::terminate(), "SIGTERM");
        let interrupt = listen(SignalKind::interrupt(), "SIGINT");
        async move {
            tokio::select! {
                () = received(terminate) => tracing::info!("SIGTERM received; shutting down"),
                () = received(interrupt) => tracing::info!("interrupted; shutting down"),
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            match tokio::signal::ctrl_c().await {
                Ok(()) => tracing::info!("interrupted; shutting down"),
                Err(error) => {
                    tracing::warn!(%error, "cannot listen for Ctrl-C");
                    std::future::pending::<()>().await;
                }
            }
        }
    }
}

#[cfg(unix)]
async fn received(signal: Option<tokio::signal::unix::Signal>) {
    if let Some(mut signal) = signal
        && signal.recv().await.is_some()
    {
        return;
    }
    std::future::pending().await
}
