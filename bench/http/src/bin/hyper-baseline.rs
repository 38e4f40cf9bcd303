//! The limit the HTTP benchmark compares against: a minimal JSON-RPC server on hyper, written
//! for the comparison. Each POST body is parsed with serde_json into borrowed fields (the id
//! kept raw) and answered from a `match` on the method, the answer written straight into the
//! response's buffer; `initialize` hands out a session id (kept in a set under a mutex, and
//! checked on every later request that names one), as a stateful server must. No MCP
//! framework, none of the checks a real server makes (Host, Origin, headers against the body,
//! body limits).
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
use hyper::{Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
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

/// The parts of a request the baseline reads.
#[derive(Deserialize)]
struct Request<'a> {
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: &'a str,
    #[serde(borrow, default)]
    params: Option<Params<'a>>,
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(borrow, default)]
    name: Option<&'a str>,
    #[serde(borrow, default)]
    arguments: Option<Arguments<'a>>,
    #[serde(borrow, default, rename = "protocolVersion")]
    protocol_version: Option<&'a str>,
}

#[derive(Deserialize)]
struct Arguments<'a> {
    #[serde(borrow)]
    text: std::borrow::Cow<'a, str>,
}

#[derive(Serialize)]
struct Text<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct EchoResult<'a> {
    content: [Text<'a>; 1],
    #[serde(rename = "isError")]
    is_error: bool,
}

/// `{"jsonrpc":"2.0","id":ID,"result":RESULT}`.
fn answer_with(id: Option<&RawValue>, result: impl Serialize) -> Vec<u8> {
    let mut body = Vec::with_capacity(256);
    body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    body.extend_from_slice(id.map_or("null", RawValue::get).as_bytes());
    body.extend_from_slice(br#","result":"#);
    serde_json::to_writer(&mut body, &result).unwrap();
    body.push(b'}');
    body
}

async fn answer(
    state: Arc<State>,
    request: hyper::Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let session = request
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let Ok(body) = request.into_body().collect().await else {
        return Ok(response(StatusCode::BAD_REQUEST, Vec::new(), None));
    };
    let body = body.to_bytes();
    let Ok(message) = serde_json::from_slice::<Request<'_>>(&body) else {
        return Ok(response(StatusCode::BAD_REQUEST, Vec::new(), None));
    };
    if let Some(session) = &session
        && !state.sessions.lock().unwrap().contains(session)
    {
        return Ok(response(StatusCode::NOT_FOUND, Vec::new(), None));
    }
    let params = message.params.as_ref();
    match message.method {
        "initialize" => {
            let number = state.next.fetch_add(1, Ordering::Relaxed);
            let new = format!("{number:064x}");
            state.sessions.lock().unwrap().insert(new.clone());
            #[derive(Serialize)]
            struct Initialized<'a> {
                #[serde(rename = "protocolVersion")]
                protocol_version: &'a str,
                capabilities: Capabilities,
                #[serde(rename = "serverInfo")]
                server_info: Info,
            }
            #[derive(Serialize)]
            struct Capabilities {
                tools: Empty,
            }
            #[derive(Serialize)]
            struct Empty {}
            #[derive(Serialize)]
            struct Info {
                name: &'static str,
                version: &'static str,
            }
            let result = Initialized {
                protocol_version: params
                    .and_then(|params| params.protocol_version)
                    .unwrap_or("2025-11-25"),
                capabilities: Capabilities { tools: Empty {} },
                server_info: Info {
                    name: "hyper-baseline",
                    version: "0.0.0",
                },
            };
            let body = answer_with(message.id, result);
            Ok(response(StatusCode::OK, body, Some(new)))
        }
        _ if message.id.is_none() => Ok(response(StatusCode::ACCEPTED, Vec::new(), None)),
        "tools/call" if params.and_then(|params| params.name) == Some("echo") => {
            let text = params
                .and_then(|params| params.arguments.as_ref())
                .map_or("", |arguments| &arguments.text);
            let result = EchoResult {
                content: [Text { kind: "text", text }],
                is_error: false,
            };
            Ok(response(
                StatusCode::OK,
                answer_with(message.id, result),
                None,
            ))
        }
        _ => {
            let mut body = Vec::new();
            body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
            body.extend_from_slice(message.id.map_or("null", RawValue::get).as_bytes());
            body.extend_from_slice(br#","error":{"code":-32601,"message":"method not found"}}"#);
            Ok(response(StatusCode::NOT_FOUND, body, None))
        }
    }
}
