//! Serving the endpoint on a TCP listener: one task per connection, and a graceful shutdown.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::task::JoinSet;

use super::idle::{self, Activity, Watched};
use super::service::HttpService;
use crate::cancel::CancellationToken;

/// Accept connections until `shutdown` resolves; then stop accepting, end the streams, let
/// requests in progress finish within `grace`, and cancel whatever is still running.
pub(crate) async fn serve(
    service: HttpService,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> io::Result<()> {
    let mut connections = JoinSet::new();
    let (max_connections, per_address) = service.max_connections();
    let addresses = Addresses::default();
    let closing = CancellationToken::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            // At the limit, new connections wait in the listen backlog until one closes.
            accepted = listener.accept(), if connections.len() < max_connections => match accepted {
                Ok((stream, peer)) => {
                    let Some(slot) = addresses.take(peer.ip(), per_address) else {
                        tracing::warn!(
                            peer = %peer.ip(),
                            "too many connections from one address; refusing one"
                        );
                        connections.spawn(refuse(stream));
                        continue;
                    };
                    let service = service.clone().for_address(peer.ip());
                    let idle_timeout = service.idle_timeout();
                    let activity = Arc::new(Activity::default());
                    let watched = Arc::downgrade(&activity);
                    let service = Watched::new(service, activity);
                    let closing = closing.clone();
                    let connection = connections.spawn(async move {
                        let _slot = slot;
                        connection(stream, service, closing).await;
                    });
                    tokio::spawn(idle::close_when_idle(watched, idle_timeout, connection));
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
    #[cfg(feature = "otel")]
    crate::telemetry::flush_at_end(service.telemetry());
    Ok(())
}

async fn connection(stream: tokio::net::TcpStream, service: Watched, closing: CancellationToken) {
    let _ = stream.set_nodelay(true);
    // Connections that send nothing, or send their headers a byte at a time, are closed by
    // their watchdog (`idle`), not by hyper's timer for every request.
    let connection = http1::Builder::new()
        .header_read_timeout(None)
        .serve_connection(
            TokioIo::new(stream),
            hyper::service::service_fn(move |request| service.answer(request)),
        );
    tokio::pin!(connection);
    let outcome = match closing.unless_cancelled(connection.as_mut()).await {
        Some(outcome) => outcome,
        None => {
            // Finish the response in progress, if any, then close.
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(error) = outcome {
        tracing::debug!(%error, "HTTP connection ended with an error");
    }
}

/// How many connections each address has open.
#[derive(Default, Clone)]
struct Addresses(Arc<Mutex<HashMap<IpAddr, usize>>>);

/// One connection of an address, given back on drop.
struct Slot {
    addresses: Addresses,
    address: IpAddr,
}

impl Addresses {
    fn lock(&self) -> MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A connection for `address`, unless it has `max` open already.
    fn take(&self, address: IpAddr, max: usize) -> Option<Slot> {
        let mut open = self.lock();
        let count = open.entry(address).or_default();
        if *count >= max {
            return None;
        }
        *count += 1;
        Some(Slot {
            addresses: self.clone(),
            address,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.addresses.lock();
        if let Some(count) = open.get_mut(&self.address) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.address);
            }
        }
    }
}

/// Answer a connection over its address's limit with 503, without reading from it.
async fn refuse(mut stream: tokio::net::TcpStream) {
    use tokio::io::AsyncWriteExt;
    const BODY: &str = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\
        \"message\":\"too many connections from this address; try again later\"}}";
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{BODY}",
        BODY.len()
    );
    // A client that does not read its answer gets no more than a second of our time.
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await
    })
    .await;
}
