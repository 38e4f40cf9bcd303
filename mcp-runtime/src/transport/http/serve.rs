//! Serving the endpoint on a TCP listener: one task per connection, and a graceful shutdown.

use std::future::Future;
use std::io;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::task::JoinSet;

use super::service::HttpService;
use crate::context::CancellationToken;

/// Accept connections until `shutdown` resolves; then stop accepting, end the streams, let
/// requests in progress finish within `grace`, and cancel whatever is still running.
pub(crate) async fn serve(
    service: HttpService,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> io::Result<()> {
    let mut connections = JoinSet::new();
    let max_connections = service.max_connections();
    let closing = CancellationToken::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            // At the limit, new connections wait in the listen backlog until one closes.
            accepted = listener.accept(), if connections.len() < max_connections => match accepted {
                Ok((stream, _peer)) => {
                    let service = service.clone();
                    let closing = closing.clone();
                    connections.spawn(connection(stream, service, closing));
                }
                Err(error) => {
                    // Out of file descriptors, usually: back off rather than spin.
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            () = &mut shutdown => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    tracing::info!(
        connections = connections.len(),
        "shutting down: no new connections; finishing requests in progress"
    );
    service.begin_shutdown();
    closing.cancel();
    let finished = tokio::time::timeout(grace, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if finished.is_err() {
        tracing::warn!(
            abandoned = connections.len(),
            "requests still running after {grace:?}; cancelling them"
        );
        // Dropping a request's future cancels its call.
        connections.shutdown().await;
    }
    Ok(())
}

async fn connection(
    stream: tokio::net::TcpStream,
    service: HttpService,
    closing: CancellationToken,
) {
    let _ = stream.set_nodelay(true);
    let connection = http1::Builder::new()
        .timer(TokioTimer::new())
        // A client must send its headers promptly (slow-loris connections are dropped).
        .header_read_timeout(Duration::from_secs(30))
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    let outcome = tokio::select! {
        outcome = connection.as_mut() => outcome,
        () = closing.cancelled() => {
            // Finish the response in progress, if any, then close.
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(error) = outcome {
        tracing::debug!(%error, "HTTP connection ended with an error");
    }
}
