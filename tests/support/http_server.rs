//! A `Server` served over Streamable HTTP on a loopback port from inside the test process, on a
//! runtime thread of its own, until dropped.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::process::PATIENCE;

use mcp_runtime::Server;
use mcp_runtime::http::HttpConfig;

/// A running in-process HTTP server.
pub struct InProcessServer {
    /// Where it listens.
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl InProcessServer {
    /// Serve `server` with `config` on a fresh loopback port.
    pub fn start(server: Server, config: HttpConfig) -> Self {
        Self::start_for(server, |_| config)
    }

    /// Serve `server` on a fresh loopback port, with the config made for its address (for
    /// one that names its own URL, as a protected resource does).
    pub fn start_for(server: Server, config: impl FnOnce(SocketAddr) -> HttpConfig) -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let config = config(addr);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)?;
                server
                    .serve_http_on(listener, config, async {
                        let _ = stopped.await;
                    })
                    .await
            })
        });
        InProcessServer {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Tell the server to shut down, without waiting for it: to act while it shuts down.
    pub fn begin_shut_down(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.send(()).unwrap();
        }
    }

    /// Stop the server; `serve_http_on` must return `Ok`. A server that has not returned
    /// within [`PATIENCE`] fails the test as hung: a guard against hangs, not a performance
    /// bound (a loaded machine may take seconds for what normally takes milliseconds).
    pub fn shut_down(mut self) {
        self.begin_shut_down();
        let thread = self.thread.take().unwrap();
        let deadline = Instant::now() + PATIENCE;
        while !thread.is_finished() {
            assert!(
                Instant::now() < deadline,
                "the server did not shut down within {PATIENCE:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        thread.join().unwrap().unwrap();
    }
}

impl Drop for InProcessServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
