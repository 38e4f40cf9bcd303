//! The limit the HTTP benchmark compares against: a minimal JSON-RPC server on hyper, written
//! for the comparison. Each POST body is parsed with serde_json and answered from a `match` on
//! the method; `initialize` hands out a session id (kept in a set under a mutex, and checked on
//! every later request that names one), as a stateful server must. No MCP framework, none of
//! the checks a real server makes (Host, Origin, headers against the body, body limits).
//!
//! `hyper-baseline ADDR`.

use std::collections::HashSet;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;

#[derive(Default)]
struct State {
    sessions: Mutex<HashSet<String>>,
    next: AtomicU64,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".to_owned());
    let listener = TcpListener::bind(addr).await?;
    let state = Arc::new(State::default());
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let state = state.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| answer(state.clone(), request));
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn response(status: StatusCode, body: Vec<u8>, session: Option<String>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert("content-type", "application/json".parse().unwrap());
    if let Some(session) = session {
        headers.insert("mcp-session-id", session.parse().unwrap());
    }
    response
}

async fn answer(
    state: Arc<State>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let session = request
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let Ok(body) = request.into_body().collect().await else {
        return Ok(response(StatusCode::BAD_REQUEST, Vec::new(), None));
    };
    let Ok(message) = serde_json::from_slice::<Value>(&body.to_bytes()) else {
        return Ok(response(StatusCode::BAD_REQUEST, Vec::new(), None));
    };
    if let Some(session) = &session
        && !state.sessions.lock().unwrap().contains(session)
    {
        return Ok(response(StatusCode::NOT_FOUND, Vec::new(), None));
    }
    let id = message["id"].clone();
    let result = match message["method"].as_str() {
        Some("initialize") => {
            let number = state.next.fetch_add(1, Ordering::Relaxed);
            let new = format!("{number:064x}");
            state.sessions.lock().unwrap().insert(new.clone());
            let result = json!({
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hyper-baseline", "version": "0.0.0"},
            });
            let body = json!({"jsonrpc": "2.0", "id": id, "result": result});
            return Ok(response(
                StatusCode::OK,
                serde_json::to_vec(&body).unwrap(),
                Some(new),
            ));
        }
        _ if id.is_null() => return Ok(response(StatusCode::ACCEPTED, Vec::new(), None)),
        Some("tools/call") if message["params"]["name"] == "echo" => {
            let text = &message["params"]["arguments"]["text"];
            json!({"content": [{"type": "text", "text": text}], "isError": false})
        }
        _ => {
            let body = json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "method not found"}});
            return Ok(response(
                StatusCode::NOT_FOUND,
                serde_json::to_vec(&body).unwrap(),
                None,
            ));
        }
    };
    let body = json!({"jsonrpc": "2.0", "id": id, "result": result});
    Ok(response(
        StatusCode::OK,
        serde_json::to_vec(&body).unwrap(),
        None,
    ))
}
