//! rmcp's Streamable HTTP server with one tool, `echo`, for the HTTP benchmark.
//!
//! `rmcp-echo ADDR stateless`: rmcp's fastest configuration for 2026-07-28 calls (no
//! sessions, `json_response`: a plain JSON answer where nothing precedes it).
//! `rmcp-echo ADDR sessions`: its default, legacy sessions kept in memory
//! (`LocalSessionManager`), for 2025-11-25 calls in a session.

use std::sync::Arc;

use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool, tool_router};
use serde::Deserialize;
use tokio::net::TcpListener;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// what to echo
    text: String,
}

#[derive(Clone)]
struct Echo;

#[tool_router(server_handler)]
impl Echo {
    #[tool(description = "Repeat the text back, unchanged.")]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8080".to_owned());
    let stateless = args.next().as_deref() == Some("stateless");
    let mut config = StreamableHttpServerConfig::default();
    config.legacy_session_mode = !stateless;
    config.json_response = stateless;
    let service = StreamableHttpService::new(
        || Ok(Echo),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let listener = TcpListener::bind(addr).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
