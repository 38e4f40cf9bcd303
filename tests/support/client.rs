//! A minimal MCP client over a [`ServerProcess`]: ids, handshakes, and a schema check of every
//! message in both directions.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};

use super::process::{Next, PATIENCE, ServerProcess, StdoutLine};
use super::schema;

/// How the client currently speaks to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Nothing negotiated yet.
    Fresh,
    /// After `initialize`: every request is in the negotiated legacy revision.
    Legacy(ProtocolVersion),
    /// 2026-07-28: every request carries its revision and capabilities in `_meta`.
    Modern,
}

/// A message the server wrote, numbered in order of arrival.
#[derive(Debug, Clone)]
pub struct Received {
    /// 0 for the first message the server wrote, then 1, 2, ...
    pub order: u64,
    /// The message (an array for a batch response).
    pub message: Value,
}

/// A request the server has not answered yet, and how to check its answer.
struct Outstanding {
    method: Option<String>,
    /// The revision the answer is spoken in; `None` for `initialize`, whose answer names it.
    revision: Option<ProtocolVersion>,
}

/// An MCP client for tests. Every message the server writes is parsed and validated against
/// the official schema of the revision it is spoken in before a test sees it; every message
/// the client sends through the checked methods is validated too.
pub struct Client {
    server: ServerProcess,
    mode: Mode,
    next_id: i64,
    outstanding: HashMap<String, Outstanding>,
    inbox: VecDeque<Received>,
    arrivals: u64,
}

/// The `_meta` a 2026-07-28 request carries, asking for `version`.
pub fn modern_meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-e2e-tests", "version": "0.0.0"},
    })
}

/// The `params` of an `initialize` request asking for `version`.
pub fn initialize_params(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "mcp-e2e-tests", "version": "0.0.0"},
    })
}

/// `params` with the modern `_meta` merged in (keeping any `_meta` keys already present).
fn with_modern_meta(params: Value) -> Value {
    let mut params = match params {
        Value::Null => json!({}),
        params => params,
    };
    let meta = params
        .as_object_mut()
        .expect("request params are an object")
        .entry("_meta")
        .or_insert_with(|| json!({}));
    for (key, value) in modern_meta(ProtocolVersion::V2026_07_28.as_str())
        .as_object()
        .unwrap()
    {
        meta.as_object_mut()
            .expect("`_meta` is an object")
            .entry(key.clone())
            .or_insert_with(|| value.clone());
    }
    params
}

fn id_key(id: &Value) -> String {
    id.to_string()
}

impl Client {
    /// A client of `server` that has said nothing yet.
    pub fn new(server: ServerProcess) -> Self {
        Client {
            server,
            mode: Mode::Fresh,
            next_id: 1,
            outstanding: HashMap::new(),
            inbox: VecDeque::new(),
            arrivals: 0,
        }
    }

    /// A client of `server` ready to speak `revision`: initialized for a legacy revision
    /// (asserting the server accepted it), in modern mode for 2026-07-28.
    pub fn open(server: ServerProcess, revision: ProtocolVersion) -> Self {
        let mut client = Client::new(server);
        if revision.is_modern() {
            client.mode = Mode::Modern;
        } else {
            let result = client.initialize(revision.as_str());
            assert_eq!(
                result["protocolVersion"],
                revision.as_str(),
                "the server must accept a legacy revision it supports"
            );
        }
        client
    }

    /// The fixture server, opened in `revision`.
    pub fn fixture(revision: ProtocolVersion) -> Self {
        Client::open(ServerProcess::fixture(), revision)
    }

    /// Run the legacy handshake asking for `version`: `initialize`, then
    /// `notifications/initialized`. Returns the `InitializeResult`.
    pub fn initialize(&mut self, version: &str) -> Value {
        self.initialize_with(version, json!({}))
    }

    /// [`initialize`](Self::initialize), declaring the client's `capabilities`.
    pub fn initialize_with(&mut self, version: &str, capabilities: Value) -> Value {
        let id = self.next_request_id();
        let mut params = initialize_params(version);
        params["capabilities"] = capabilities;
        let request = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "initialize",
            "params": params,
        });
        let checked_as = version
            .parse()
            .ok()
            .filter(|revision: &ProtocolVersion| !revision.is_modern())
            .unwrap_or(ProtocolVersion::NEWEST_LEGACY);
        self.check_outgoing(checked_as, &request);
        self.send_tracked(&request, None);
        let response = self.response(&id);
        let result = self.expect_result(&response);
        let negotiated: ProtocolVersion = result["protocolVersion"]
            .as_str()
            .and_then(|version| version.parse().ok())
            .expect("a validated InitializeResult names a known revision");
        self.mode = Mode::Legacy(negotiated);
        self.notify("notifications/initialized", Value::Null);
        result
    }

    /// The revision messages not answering a request are checked against.
    pub fn revision(&self) -> ProtocolVersion {
        match self.mode {
            Mode::Fresh => ProtocolVersion::NEWEST_LEGACY,
            Mode::Legacy(revision) => revision,
            Mode::Modern => ProtocolVersion::V2026_07_28,
        }
    }

    /// The server process (to close stdin, signal it, read its stderr).
    pub fn server(&mut self) -> &mut ServerProcess {
        &mut self.server
    }

    fn next_request_id(&mut self) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        json!(id)
    }

    /// Send a request in the client's current mode (adding `_meta` in modern mode) without
    /// waiting for the answer. Returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> Value {
        if self.mode == Mode::Modern {
            self.send_modern_request(method, params)
        } else {
            self.send_request_in(self.revision(), method, params)
        }
    }

    /// Send a 2026-07-28 request whatever the client's mode (eras may be mixed on stdio).
    pub fn send_modern_request(&mut self, method: &str, params: Value) -> Value {
        self.send_request_in(
            ProtocolVersion::V2026_07_28,
            method,
            with_modern_meta(params),
        )
    }

    fn send_request_in(&mut self, revision: ProtocolVersion, method: &str, params: Value) -> Value {
        let id = self.next_request_id();
        let mut request = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            request["params"] = params;
        }
        self.check_outgoing(revision, &request);
        self.send_tracked(&request, Some(revision));
        id
    }

    /// Send a notification in the client's current mode.
    pub fn notify(&mut self, method: &str, params: Value) {
        let mut notification = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_null() {
            notification["params"] = params;
        }
        self.check_outgoing(self.revision(), &notification);
        self.server.write_line(&notification.to_string());
    }

    /// Answer the server's request `id` with `result`, checked as the schema type
    /// `result_type` (`ElicitResult`, `CreateMessageResult`, ...) of `revision`.
    pub fn respond(
        &mut self,
        id: &Value,
        revision: ProtocolVersion,
        result_type: &str,
        result: Value,
    ) {
        let response = json!({"jsonrpc": "2.0", "id": id, "result": result});
        if let Err(violation) = schema::check(revision, result_type, &result) {
            panic!("the test is about to send an invalid client result: {violation}");
        }
        self.server.write_line(&response.to_string());
    }

    /// Answer the server's request `id` with a JSON-RPC error.
    pub fn respond_error(&mut self, id: &Value, code: i64, message: &str) {
        let response =
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
        self.server.write_line(&response.to_string());
    }

    /// Send a message the schema need not accept (a deliberately wrong request, a batch, a
    /// request with a hand-made `_meta`). Answers to any ids in it are checked as `revision`.
    pub fn send_unchecked(&mut self, message: &Value, revision: ProtocolVersion) {
        self.send_tracked(message, Some(revision));
    }

    /// Send `line` exactly as given (malformed JSON, oversize messages).
    pub fn send_line(&mut self, line: &str) {
        self.server.write_line(line);
    }

    fn send_tracked(&mut self, message: &Value, revision: Option<ProtocolVersion>) {
        let requests = match message {
            Value::Array(elements) => elements.iter().collect(),
            single => vec![single],
        };
        for request in requests {
            if let Some(id) = request.get("id").filter(|id| !id.is_null()) {
                let outstanding = Outstanding {
                    method: request["method"].as_str().map(str::to_owned),
                    revision,
                };
                self.outstanding.insert(id_key(id), outstanding);
            }
        }
        self.server.write_line(&message.to_string());
    }

    fn check_outgoing(&self, revision: ProtocolVersion, message: &Value) {
        if let Err(violation) = schema::check_client_message(revision, message) {
            panic!("the test is about to send an invalid client message: {violation}");
        }
    }

    /// Send a request and wait for its response (result or error), which is returned whole.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(&id)
    }

    /// Send a request and return its result, failing the test on an error response.
    pub fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        self.expect_result(&response)
    }

    /// Send a request and return its `error` object, failing the test on a result.
    pub fn error(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        expect_error(&response)
    }

    /// Call a tool and return the `CallToolResult`.
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> Value {
        self.result("tools/call", json!({"name": name, "arguments": arguments}))
    }

    /// Every `tools/list` page, following `nextCursor` until the last. Fails on a cursor
    /// that comes back (a loop).
    pub fn list_tool_pages(&mut self) -> Vec<Value> {
        let mut pages = Vec::new();
        let mut cursors_seen = Vec::new();
        let mut params = json!({});
        loop {
            let page = self.result("tools/list", params);
            let next = page
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            pages.push(page);
            let Some(cursor) = next else {
                return pages;
            };
            assert!(
                !cursors_seen.contains(&cursor),
                "pagination loops: cursor {cursor:?} came back"
            );
            cursors_seen.push(cursor.clone());
            params = json!({"cursor": cursor});
        }
    }

    /// Every tool, from every `tools/list` page in order.
    pub fn list_all_tools(&mut self) -> Vec<Value> {
        self.list_tool_pages()
            .iter()
            .flat_map(|page| page["tools"].as_array().cloned().unwrap_or_default())
            .collect()
    }

    fn expect_result(&self, response: &Value) -> Value {
        match response.get("result") {
            Some(result) => result.clone(),
            None => panic!(
                "expected a result, got {response}\nserver stderr:\n{}",
                self.server.stderr()
            ),
        }
    }

    /// Wait for the response to request `id`.
    pub fn response(&mut self, id: &Value) -> Value {
        self.received_response(id).message
    }

    /// Wait for the response to request `id`, with its place in the order of arrival.
    pub fn received_response(&mut self, id: &Value) -> Received {
        loop {
            let position = self
                .inbox
                .iter()
                .position(|received| received.message.get("id") == Some(id));
            if let Some(position) = position {
                return self.inbox.remove(position).unwrap();
            }
            self.pull_or_fail(&format!("the response to request {id}"));
        }
    }

    /// The next message not yet claimed by a test, in order of arrival.
    pub fn next_message(&mut self) -> Value {
        if self.inbox.is_empty() {
            self.pull_or_fail("the next message");
        }
        self.inbox.pop_front().unwrap().message
    }

    /// Assert the server has written nothing for request `id`, counting what arrived so far.
    /// Pair it with a later round trip (e.g. `ping`) so "so far" means something.
    pub fn assert_no_response_to(&mut self, id: &Value) {
        while self.pull(Duration::ZERO) {}
        let answered = self.inbox.iter().find(|received| {
            received.message.get("id") == Some(id)
                || received.message.as_array().is_some_and(|batch| {
                    batch.iter().any(|response| response.get("id") == Some(id))
                })
        });
        if let Some(received) = answered {
            panic!(
                "request {id} must get no response, yet got {}",
                received.message
            );
        }
    }

    /// Close stdin, as a client going away does, and wait for the server to exit; every line
    /// it wrote until then is checked. Returns the exit status.
    pub fn finish(&mut self) -> std::process::ExitStatus {
        self.server.close_stdin();
        let status = self.server.wait_for_exit();
        self.drain_until_closed();
        status
    }

    /// Check every line the server writes until it closes stdout.
    pub fn drain_until_closed(&mut self) {
        loop {
            match self.server.next_line(PATIENCE) {
                Next::Line(line) => self.accept(line),
                Next::Closed => return,
                Next::Silent => panic!(
                    "{} kept stdout open {PATIENCE:?} after exiting",
                    self.server.program().display()
                ),
            }
        }
    }

    fn pull_or_fail(&mut self, awaited: &str) {
        if !self.pull(PATIENCE) {
            panic!(
                "waited {PATIENCE:?} for {awaited} from {}; nothing came\nserver stderr:\n{}",
                self.server.program().display(),
                self.server.stderr()
            );
        }
    }

    /// Take one stdout line (waiting at most `wait`), check it, and queue it in the inbox.
    /// Returns whether a line arrived.
    fn pull(&mut self, wait: Duration) -> bool {
        let line = if wait.is_zero() {
            match self.server.arrived_line() {
                Some(line) => line,
                None => return false,
            }
        } else {
            match self.server.next_line(wait) {
                Next::Line(line) => line,
                Next::Silent => return false,
                Next::Closed => panic!(
                    "{} closed stdout unexpectedly\nserver stderr:\n{}",
                    self.server.program().display(),
                    self.server.stderr()
                ),
            }
        };
        self.accept(line);
        true
    }

    /// Check one stdout line and queue it in the inbox.
    fn accept(&mut self, line: StdoutLine) {
        let message = match line {
            StdoutLine::Json(message) => message,
            StdoutLine::NotJson(text) => panic!(
                "stdout must carry only JSON-RPC messages, but the server wrote {text:?}\n\
                 server stderr:\n{}",
                self.server.stderr()
            ),
        };
        self.check_incoming(&message);
        self.inbox.push_back(Received {
            order: self.arrivals,
            message,
        });
        self.arrivals += 1;
    }

    fn check_incoming(&mut self, message: &Value) {
        let checked = match message {
            Value::Array(responses) => {
                let revision = self.revision();
                schema::check_batch_envelope(revision, message).and_then(|()| {
                    responses
                        .iter()
                        .try_for_each(|response| self.check_single_incoming(response))
                })
            }
            single => self.check_single_incoming(single),
        };
        if let Err(violation) = checked {
            panic!(
                "the server wrote a message that {violation}\nserver stderr:\n{}",
                self.server.stderr()
            );
        }
    }

    fn check_single_incoming(&mut self, message: &Value) -> Result<(), schema::SchemaViolation> {
        let is_response = message.get("method").is_none();
        let id = message.get("id").filter(|id| !id.is_null());
        let (revision, method) = match id.filter(|_| is_response) {
            Some(id) => {
                let Some(outstanding) = self.outstanding.remove(&id_key(id)) else {
                    return Err(schema::SchemaViolation(format!(
                        "answers id {id}, which is not an outstanding request (a second \
                         answer, or an id never sent): {message}"
                    )));
                };
                let revision = outstanding.revision.unwrap_or_else(|| {
                    message["result"]["protocolVersion"]
                        .as_str()
                        .and_then(|version| version.parse().ok())
                        .unwrap_or(ProtocolVersion::NEWEST_LEGACY)
                });
                (revision, outstanding.method)
            }
            None => (self.revision(), None),
        };
        schema::check_server_message(revision, method.as_deref(), message)
    }
}

/// The `error` object of an error response, failing the test on a result.
pub fn expect_error(response: &Value) -> Value {
    match response.get("error") {
        Some(error) => error.clone(),
        None => panic!("expected an error response, got {response}"),
    }
}

impl Drop for Client {
    /// Whatever the server wrote that no test awaited is still checked against the schema.
    fn drop(&mut self) {
        if !std::thread::panicking() {
            while self.pull(Duration::ZERO) {}
        }
    }
}
