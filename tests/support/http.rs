//! A tiny HTTP/1.1 client over `std::net::TcpStream` for the Streamable HTTP tests: enough to
//! send one request (`Connection: close`) and read the whole response, de-chunked.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::Value;

use super::schema::check_server_message;

/// An HTTP response, its body de-chunked.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|error| panic!("{error}: {:?}", String::from_utf8_lossy(&self.body)))
    }

    /// The JSON-RPC message of the body, checked against `revision`'s schema.
    pub fn message(&self, revision: ProtocolVersion, method: Option<&str>) -> Value {
        let message = self.json();
        check_server_message(revision, method, &message)
            .unwrap_or_else(|violation| panic!("{violation:?}"));
        message
    }

    pub fn error_code(&self) -> i64 {
        self.json()["error"]["code"].as_i64().unwrap()
    }
}

pub fn request_bytes(method: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    request_bytes_to("/mcp", method, headers, body, true)
}

/// A request for `path`; `close` adds `Connection: close` (else the connection is kept alive).
pub fn request_bytes_to(
    path: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    close: bool,
) -> Vec<u8> {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    if close {
        head.push_str("Connection: close\r\n");
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !body.is_empty() || method == "POST" {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

pub fn send(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(&request_bytes(method, headers, body))
        .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    parse(&raw)
}

pub fn parse(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .expect("a complete head");
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .map(|line| {
            let (name, value) = line.split_once(':').unwrap();
            (name.trim().to_owned(), value.trim().to_owned())
        })
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(name, value)| name.eq_ignore_ascii_case("transfer-encoding") && value == "chunked");
    if chunked {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

pub fn dechunk(mut bytes: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let line_end = bytes.windows(2).position(|w| w == b"\r\n").unwrap();
        let size =
            usize::from_str_radix(std::str::from_utf8(&bytes[..line_end]).unwrap(), 16).unwrap();
        if size == 0 {
            return body;
        }
        body.extend_from_slice(&bytes[line_end + 2..line_end + 2 + size]);
        bytes = &bytes[line_end + 4 + size..];
    }
}

/// The JSON of each `data:` line of an event stream (empty ones, as in priming events, are
/// skipped).
pub fn events(body: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(body)
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .filter(|data| !data.is_empty())
        .map(|data| serde_json::from_str(data).unwrap())
        .collect()
}

/// One server-sent event, its fields as sent.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SseEvent {
    pub id: Option<String>,
    pub event: Option<String>,
    pub retry: Option<u64>,
    pub data: String,
}

/// The events of an event stream, in order (comments skipped).
pub fn sse_events(body: &[u8]) -> Vec<SseEvent> {
    let text = String::from_utf8_lossy(body);
    let mut all = Vec::new();
    let mut current: Option<SseEvent> = None;
    for line in text.lines() {
        if line.is_empty() {
            all.extend(current.take());
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        let event = current.get_or_insert_with(SseEvent::default);
        match field {
            "id" => event.id = Some(value.to_owned()),
            "event" => event.event = Some(value.to_owned()),
            "retry" => event.retry = Some(value.parse().unwrap()),
            "data" => event.data.push_str(value),
            other => panic!("unknown event field {other:?}"),
        }
    }
    all.extend(current);
    all
}

/// A response read as it arrives: its head at once, then its events one by one (for event
/// streams that stay open, which [`send`] would wait on forever).
pub struct EventStream {
    reader: std::io::BufReader<TcpStream>,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    chunked: bool,
    /// Body text read but not yet split into events.
    pending: String,
}

impl EventStream {
    /// Send `method path` and read the head of the response (the connection stays open).
    pub fn open(
        addr: SocketAddr,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Self {
        use std::io::BufRead;
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream
            .write_all(&request_bytes_to(path, method, headers, body, false))
            .unwrap();
        let mut reader = std::io::BufReader::new(stream);
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let status = line.split(' ').nth(1).unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').unwrap();
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
        let chunked = headers.iter().any(|(name, value)| {
            name.eq_ignore_ascii_case("transfer-encoding") && value == "chunked"
        });
        EventStream {
            reader,
            status,
            headers,
            chunked,
            pending: String::new(),
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// Read one more piece of the body; `false` at its end.
    fn read_more(&mut self) -> bool {
        use std::io::BufRead;
        if !self.chunked {
            let mut buffer = [0; 4096];
            let read = self.reader.read(&mut buffer).unwrap();
            self.pending
                .push_str(std::str::from_utf8(&buffer[..read]).unwrap());
            return read > 0;
        }
        let mut size = String::new();
        self.reader.read_line(&mut size).unwrap();
        if size.is_empty() {
            return false;
        }
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        let mut chunk = vec![0; size + 2];
        self.reader.read_exact(&mut chunk).unwrap();
        self.pending
            .push_str(std::str::from_utf8(&chunk[..size]).unwrap());
        size > 0
    }

    /// The next event (comments skipped); `None` when the stream ends first.
    pub fn next_event(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(end) = self.pending.find("\n\n") {
                let block: String = self.pending.drain(..end + 2).collect();
                if let Some(event) = sse_events(block.as_bytes()).pop() {
                    return Some(event);
                }
                continue;
            }
            if !self.read_more() {
                return None;
            }
        }
    }

    /// The next event, which must be a `message` event: its data as JSON.
    pub fn next_message(&mut self) -> Value {
        let event = self
            .next_event()
            .expect("the stream ended before the next message");
        assert_eq!(event.event.as_deref(), Some("message"), "{event:?}");
        serde_json::from_str(&event.data)
            .unwrap_or_else(|error| panic!("{error}: {:?}", event.data))
    }
}

/// A legacy (2025-11-25) Streamable HTTP POST of `message` with `Authorization: Bearer
/// {token}`, in `session` when given.
pub fn post_legacy_as(
    addr: SocketAddr,
    token: &str,
    session: Option<&str>,
    message: &Value,
) -> Reply {
    let authorization = format!("Bearer {token}");
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Authorization", authorization.as_str()),
    ];
    if let Some(session) = session {
        headers.push(("Mcp-Session-Id", session));
    }
    send(addr, "POST", &headers, message.to_string().as_bytes())
}

/// The one JSON-RPC message of a legacy reply, as plain JSON or as the last event of a
/// stream, checked against the 2025-11-25 schema.
pub fn legacy_answer(reply: &Reply) -> Value {
    let message = if reply
        .header("content-type")
        .is_some_and(|kind| kind.starts_with("text/event-stream"))
    {
        events(&reply.body).pop().expect("an event")
    } else {
        reply.json()
    };
    check_server_message(ProtocolVersion::V2025_11_25, None, &message).unwrap();
    message
}

/// A 2025-11-25 session opened (and initialized) by the holder of `token`: its id.
pub fn open_legacy_session_as(addr: SocketAddr, token: &str) -> String {
    let initialize = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "mcp-http-tests", "version": "0"}}});
    let reply = post_legacy_as(addr, token, None, &initialize);
    assert_eq!(
        reply.status,
        200,
        "{:?}",
        String::from_utf8_lossy(&reply.body)
    );
    let session = reply
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let initialized = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        post_legacy_as(addr, token, Some(&session), &initialized).status,
        202
    );
    session
}
