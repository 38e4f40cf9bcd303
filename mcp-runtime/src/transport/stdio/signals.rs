//! The signals that ask a stdio server to stop: SIGTERM (how clients end servers that outlive
//! a closed stdin) and SIGINT (Ctrl-C in a terminal).

/// Resolves when the process is asked to stop. Pends forever if the handlers cannot be
/// installed: stdin's end then remains the way to stop.
pub(crate) async fn stop_requested() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = terminate.recv() => tracing::info!("SIGTERM received; shutting down"),
                    _ = interrupted() => {}
                }
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM");
                interrupted().await;
            }
        }
    }
    #[cfg(not(unix))]
    interrupted().await;
}

async fn interrupted() {
    match tokio::signal::ctrl_c().await {
        Ok(()) => tracing::info!("interrupted; shutting down"),
        Err(error) => {
            tracing::warn!(%error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    }
}
