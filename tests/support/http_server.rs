//! A `Server` served over Streamable HTTP on a loopback port from inside the test process, on a
//! runtime thread of its own, until dropped.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

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
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
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

    /// Stop the server; `serve_http_on` must return `Ok` (a hang fails the test after 5 s).
    pub fn shut_down(mut self) {
        self.stop.take().unwrap().send(()).unwrap();
        let started = Instant::now();
        self.thread.take().unwrap().join().unwrap().unwrap();
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}

impl Drop for InProcessServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
