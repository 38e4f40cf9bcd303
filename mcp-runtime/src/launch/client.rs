//! Test a [`Server`] in process: [`TestClient`] calls its tools, reads its resources and gets
//! its prompts through the real dispatcher, so arguments are validated, errors are mapped and
//! results are rendered exactly as a client over stdio would see them, without spawning a
//! process.
//!
//! ```
//! use mcp_runtime::testing::TestClient;
//! use mcp_runtime::{Server, mcp_tool, server_info, tools};
//! use serde_json::json;
//!
//! /// Add two numbers.
//! #[mcp_tool]
//! async fn add(a: f64, b: f64) -> f64 {
//!     a + b
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let client = TestClient::new(Server::new(server_info!()).tools(tools![add]));
//!
//! let sum = client.call_tool("add", json!({"a": 1, "b": 2})).await.unwrap();
//! assert_eq!(sum.text(), "3");
//!
//! // Bad arguments are a tool error (`isError`), as a client would get it...
//! let bad = client.call_tool("add", json!({"a": "one"})).await.unwrap();
//! assert!(bad.is_error());
//! assert!(bad.text().contains("`b`"), "{}", bad.text());
//!
//! // ...and an unknown tool is a JSON-RPC error.
//! let unknown = client.call_tool("sub", json!({})).await.unwrap_err();
//! assert_eq!(unknown.code, -32602);
//! # });
//! ```
//!
//! A client speaks the newest revision unless [`TestClient::at`] picks another; a legacy
//! revision is negotiated with `initialize` first, as a real client would.
//!
//! [`assert_snapshot`] compares a JSON value (usually the server's `manifest`) with a file
//! kept in the repository, so a change to the tool surface shows up as a failing test.

use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};

use crate::context::peer::Outbound;
use crate::dispatch::session::Session;
use crate::dispatch::{Dispatcher, Reply};
use crate::protocol::ProtocolVersion;
use crate::server::Server;

/// Pages a list may have before the client gives up on it: a cursor that never ends is a bug
/// in the server, and a test should say so rather than hang.
const MAX_PAGES: usize = 1_000;

/// An in-process MCP client of one [`Server`], for tests.
///
/// Every request goes through the same decoder, dispatcher, validation and error mapping as a
/// request read from stdin; the answer is the JSON a client would receive. Requests may run
/// concurrently (each method takes `&self`).
pub struct TestClient {
    dispatcher: Dispatcher,
    session: Mutex<Session>,
    revision: ProtocolVersion,
    client_name: &'static str,
    next_id: AtomicI64,
    /// Progress and log notifications received, oldest first.
    notifications: Arc<Mutex<Vec<Value>>>,
}

impl fmt::Debug for TestClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TestClient")
            .field("server", &self.dispatcher.info().name)
            .field("revision", &self.revision)
            .finish_non_exhaustive()
    }
}

impl TestClient {
    /// The revision a [`TestClient::new`] client speaks: the newest.
    pub const DEFAULT_REVISION: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// A client of `server` speaking the newest revision
    /// ([`DEFAULT_REVISION`](Self::DEFAULT_REVISION)).
    ///
    /// # Panics
    ///
    /// When the server could not serve: two tools (or prompts) share a name, a tool's input
    /// schema is not an object schema, or two resources answer the same URIs.
    pub fn new(server: Server) -> Self {
        Self::at(server, Self::DEFAULT_REVISION)
    }

    /// A client of `server` speaking `revision`. A legacy revision is negotiated first
    /// (`initialize`, then `notifications/initialized`).
    ///
    /// ```
    /// use mcp_runtime::protocol::ProtocolVersion;
    /// use mcp_runtime::testing::TestClient;
    /// use mcp_runtime::{Server, server_info};
    ///
    /// let client = TestClient::at(Server::new(server_info!()), ProtocolVersion::V2025_03_26);
    /// assert_eq!(client.revision(), ProtocolVersion::V2025_03_26);
    /// ```
    ///
    /// # Panics
    ///
    /// As [`TestClient::new`]; and when the server does not accept the legacy `revision`.
    pub fn at(server: Server, revision: ProtocolVersion) -> Self {
        Self::connect(&server, revision, "mcp-runtime-testing")
            .unwrap_or_else(|error| panic!("TestClient: {error}"))
    }

    /// A client named `client_name` (its `clientInfo`), or why the server cannot serve.
    pub(crate) fn connect(
        server: &Server,
        revision: ProtocolVersion,
        client_name: &'static str,
    ) -> Result<Self, String> {
        let dispatcher = server
            .dispatcher()
            .map_err(|error| format!("the server cannot serve: {error}"))?;
        let notifications = Arc::new(Mutex::new(Vec::new()));
        let received = notifications.clone();
        let mut session = Session::new();
        if let Some(principal) = dispatcher.stdio_principal() {
            session.set_principal(Some(principal.clone()));
        }
        session.set_outbound(Outbound::new(move |message| {
            if let Ok(message) = serde_json::from_slice(message.as_bytes()) {
                lock(&received).push(message);
            }
        }));
        let client = TestClient {
            dispatcher,
            session: Mutex::new(session),
            revision,
            client_name,
            next_id: AtomicI64::new(1),
            notifications,
        };
        if !revision.is_modern() {
            client.initialize()?;
        }
        Ok(client)
    }

    /// The legacy handshake, which the dispatcher answers at once.
    fn initialize(&self) -> Result<(), String> {
        let params = json!({
            "protocolVersion": self.revision.as_str(),
            "capabilities": {},
            "clientInfo": self.client_info(),
        });
        let answer = match self.send("initialize", params) {
            Reply::Ready(answer) => answer,
            _ => return Err("`initialize` was not answered at once".to_owned()),
        };
        let negotiated =
            response(answer.as_bytes()).map_err(|error| format!("`initialize` failed: {error}"))?;
        if negotiated["protocolVersion"] != self.revision.as_str() {
            return Err(format!(
                "asked for {} but the server negotiated {}",
                self.revision, negotiated["protocolVersion"]
            ));
        }
        let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        self.dispatcher
            .handle_bytes(initialized, &mut lock(&self.session));
        Ok(())
    }

    /// The revision this client speaks.
    pub fn revision(&self) -> ProtocolVersion {
        self.revision
    }

    /// The notifications the server sent about requests since the last take, oldest first:
    /// `notifications/progress` for requests that carried a `progressToken`, and
    /// `notifications/message` for logs the client asked for. Each is the whole JSON-RPC
    /// message.
    ///
    /// ```
    /// use mcp_runtime::testing::TestClient;
    /// use mcp_runtime::{RequestContext, Server, mcp_tool, server_info, tools};
    /// use serde_json::json;
    ///
    /// /// Count to three.
    /// #[mcp_tool]
    /// async fn count(ctx: RequestContext) -> &'static str {
    ///     for done in 1..=3 {
    ///         ctx.progress(f64::from(done), Some(3.0), None);
    ///     }
    ///     "done"
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let client = TestClient::new(Server::new(server_info!()).tools(tools![count]));
    /// let params = json!({"name": "count", "_meta": {"progressToken": "t"}});
    /// client.request("tools/call", params).await.unwrap();
    /// let progress: Vec<_> = client
    ///     .take_notifications()
    ///     .into_iter()
    ///     .map(|n| n["params"]["progress"].clone())
    ///     .collect();
    /// assert_eq!(progress, [json!(1.0), json!(2.0), json!(3.0)]);
    /// # });
    /// ```
    pub fn take_notifications(&self) -> Vec<Value> {
        std::mem::take(&mut *lock(&self.notifications))
    }

    /// Call the tool `name` with `arguments` (a JSON object; `null` for none).
    ///
    /// A tool that fails, or arguments that do not fit its schema, give `Ok` with
    /// [`ToolResult::is_error`] set, as the protocol has it; a request the server refuses (an
    /// unknown tool, arguments that are not an object) gives the JSON-RPC error.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<ToolResult, RpcError> {
        let result = self
            .request("tools/call", json!({"name": name, "arguments": arguments}))
            .await?;
        Ok(ToolResult { json: result })
    }

    /// Read the resource at `uri`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResult, RpcError> {
        let result = self.request("resources/read", json!({"uri": uri})).await?;
        Ok(ReadResult { json: result })
    }

    /// Get the prompt `name` with `arguments` (a JSON object of strings; `null` for none).
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<PromptResult, RpcError> {
        let result = self
            .request("prompts/get", json!({"name": name, "arguments": arguments}))
            .await?;
        Ok(PromptResult { json: result })
    }

    /// Every tool definition, following `nextCursor` through all pages of `tools/list`.
    pub async fn list_tools(&self) -> Result<Vec<Value>, RpcError> {
        self.list_all("tools/list", "tools").await
    }

    /// Every resource of `resources/list`, all pages.
    pub async fn list_resources(&self) -> Result<Vec<Value>, RpcError> {
        self.list_all("resources/list", "resources").await
    }

    /// Every resource template of `resources/templates/list`, all pages.
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>, RpcError> {
        self.list_all("resources/templates/list", "resourceTemplates")
            .await
    }

    /// Every prompt of `prompts/list`, all pages.
    pub async fn list_prompts(&self) -> Result<Vec<Value>, RpcError> {
        self.list_all("prompts/list", "prompts").await
    }

    /// Send any request and return its `result` (or its error). At 2026-07-28 the client's
    /// `_meta` is added to `params` (an object or `null`), keeping any `_meta` keys given.
    ///
    /// ```
    /// use mcp_runtime::testing::TestClient;
    /// use mcp_runtime::{Server, server_info};
    /// use serde_json::json;
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let client = TestClient::new(Server::new(server_info!()));
    /// let discovered = client.request("server/discover", json!({})).await.unwrap();
    /// assert!(discovered["supportedVersions"].as_array().is_some(), "{discovered}");
    /// let missing = client.request("no/such/method", json!({})).await.unwrap_err();
    /// assert_eq!(missing.code, -32601);
    /// # });
    /// ```
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let answer = match self.send(method, params) {
            Reply::Ready(answer) => answer,
            Reply::Pending(running) => running.await.ok_or_else(|| {
                RpcError::local(format!("`{method}` was cancelled before it answered"))
            })?,
            Reply::None => {
                return Err(RpcError::local(format!("`{method}` got no answer")));
            }
        };
        response(answer.as_bytes())
    }

    /// Hand one request to the dispatcher; the session is locked only while it does.
    fn send(&self, method: &str, params: Value) -> Reply {
        let params = if self.revision.is_modern() {
            self.with_modern_meta(params)
        } else {
            params
        };
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let line = serde_json::to_vec(&message).expect("a JSON value always serializes");
        self.dispatcher
            .handle_bytes(&line, &mut lock(&self.session))
    }

    fn with_modern_meta(&self, params: Value) -> Value {
        let mut params = match params {
            Value::Null => json!({}),
            params => params,
        };
        // Anything but an object goes as given, for the dispatcher to refuse.
        if let Some(params) = params.as_object_mut() {
            let meta = params.entry("_meta").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                let defaults = [
                    (
                        "io.modelcontextprotocol/protocolVersion",
                        json!(self.revision.as_str()),
                    ),
                    ("io.modelcontextprotocol/clientCapabilities", json!({})),
                    ("io.modelcontextprotocol/clientInfo", self.client_info()),
                ];
                for (key, value) in defaults {
                    meta.entry(key).or_insert(value);
                }
            }
        }
        params
    }

    fn client_info(&self) -> Value {
        json!({"name": self.client_name, "version": env!("CARGO_PKG_VERSION")})
    }

    async fn list_all(&self, method: &str, key: &str) -> Result<Vec<Value>, RpcError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let mut page = self.request(method, params).await?;
            if let Some(Value::Array(listed)) = page.get_mut(key).map(Value::take) {
                items.extend(listed);
            }
            match page.get("nextCursor") {
                Some(Value::String(next)) => cursor = Some(next.clone()),
                _ => return Ok(items),
            }
        }
        Err(RpcError::local(format!(
            "`{method}` still had a `nextCursor` after {MAX_PAGES} pages"
        )))
    }
}

/// A lock that a panic elsewhere (in a test) does not make unusable.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The `result` of a JSON-RPC response, or its `error`.
fn response(bytes: &[u8]) -> Result<Value, RpcError> {
    let mut message: Value = serde_json::from_slice(bytes)
        .map_err(|error| RpcError::local(format!("the answer is not JSON: {error}")))?;
    if let Some(error) = message.get_mut("error").map(Value::take) {
        return Err(RpcError {
            code: error["code"].as_i64().unwrap_or_default(),
            message: error["message"].as_str().unwrap_or_default().to_owned(),
            data: error.get("data").cloned(),
        });
    }
    message
        .get_mut("result")
        .map(Value::take)
        .ok_or_else(|| RpcError::local("the answer has neither `result` nor `error`"))
}

/// A JSON-RPC error the server answered with (or, with code
/// [`RpcError::LOCAL`], a failure of the test client itself).
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The error code: `-32602` for invalid params (an unknown tool, a missing argument of a
    /// prompt), `-32601` for an unknown method, and so on.
    pub code: i64,
    /// The message.
    pub message: String,
    /// The error's `data`, if any.
    pub data: Option<Value>,
}

impl RpcError {
    /// The code of failures of the test client itself (no answer, an answer that is not
    /// JSON-RPC), which no server sends.
    pub const LOCAL: i64 = 0;

    fn local(message: impl Into<String>) -> Self {
        RpcError {
            code: Self::LOCAL,
            message: message.into(),
            data: None,
        }
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (JSON-RPC error {})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}

/// Every `text` of the blocks (content blocks, resource contents) that have one, in order.
pub(crate) fn texts(blocks: &[Value]) -> impl Iterator<Item = &str> {
    blocks
        .iter()
        .filter_map(|block| block.get("text")?.as_str())
}

fn array<'a>(json: &'a Value, key: &str) -> &'a [Value] {
    json.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A `tools/call` result, as the client received it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    json: Value,
}

impl ToolResult {
    /// Whether the tool failed (`isError`): it returned an error, panicked, or its arguments
    /// did not fit.
    pub fn is_error(&self) -> bool {
        self.json["isError"].as_bool().unwrap_or(false)
    }

    /// The text of the text blocks, joined by newlines.
    pub fn text(&self) -> String {
        texts(self.content()).collect::<Vec<_>>().join("\n")
    }

    /// The content blocks.
    pub fn content(&self) -> &[Value] {
        array(&self.json, "content")
    }

    /// The machine-readable `structuredContent`, if the tool gave one (from 2025-06-18).
    pub fn structured_content(&self) -> Option<&Value> {
        self.json.get("structuredContent")
    }

    /// The whole result as JSON.
    pub fn json(&self) -> &Value {
        &self.json
    }
}

/// A `resources/read` result, as the client received it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadResult {
    json: Value,
}

impl ReadResult {
    /// The `contents`, one per resource read (`uri`, `mimeType`, and `text` or `blob`).
    pub fn contents(&self) -> &[Value] {
        array(&self.json, "contents")
    }

    /// The text of the text contents, joined by newlines.
    pub fn text(&self) -> String {
        texts(self.contents()).collect::<Vec<_>>().join("\n")
    }

    /// The whole result as JSON.
    pub fn json(&self) -> &Value {
        &self.json
    }
}

/// A `prompts/get` result, as the client received it.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptResult {
    json: Value,
}

impl PromptResult {
    /// The messages (`role` and `content`).
    pub fn messages(&self) -> &[Value] {
        array(&self.json, "messages")
    }

    /// The text of every text message, joined by newlines.
    pub fn text(&self) -> String {
        self.messages()
            .iter()
            .filter_map(|message| message["content"]["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The prompt's description, if it has one.
    pub fn description(&self) -> Option<&str> {
        self.json.get("description")?.as_str()
    }

    /// The whole result as JSON.
    pub fn json(&self) -> &Value {
        &self.json
    }
}

/// The environment variable that makes [`assert_snapshot`] write the snapshot instead of
/// comparing with it.
pub const BLESS_VAR: &str = "MCP_BLESS";

/// Compare `actual` with the JSON snapshot at `path`; with `MCP_BLESS=1` in the environment,
/// write `actual` there instead. A missing snapshot is written and the test fails once, so
/// a new snapshot is always looked at before it guards anything.
///
/// Snapshot a server's manifest this way, and a change to its tools' names, descriptions or
/// schemas (what clients and models see) fails the test until it is reviewed and blessed:
///
/// ```no_run
/// // tests/manifest_snapshot.rs of a crate whose binary is `my-server`
/// use std::process::Command;
///
/// #[test]
/// fn tool_surface_is_unchanged() {
///     let output = Command::new(env!("CARGO_BIN_EXE_my-server"))
///         .arg("manifest")
///         .output()
///         .unwrap();
///     assert!(output.status.success());
///     let manifest = serde_json::from_slice(&output.stdout).unwrap();
///     mcp_runtime::testing::assert_snapshot("tests/snapshots/my-server.manifest.json", &manifest);
/// }
/// // After an intended change: MCP_BLESS=1 cargo test --test manifest_snapshot
/// ```
///
/// A relative `path` is taken from the current directory, which `cargo test` sets to the
/// package's root. The file holds pretty-printed JSON with a final newline.
///
/// # Panics
///
/// When `actual` differs from the snapshot (the message shows both and how to bless), when
/// the snapshot was missing, or when the file cannot be read, parsed or written.
#[track_caller]
pub fn assert_snapshot(path: impl AsRef<Path>, actual: &Value) {
    let bless = std::env::var_os(BLESS_VAR).is_some_and(|value| !value.is_empty() && value != "0");
    check_snapshot(path.as_ref(), actual, bless);
}

#[track_caller]
fn check_snapshot(path: &Path, actual: &Value, bless: bool) {
    let pretty = serde_json::to_string_pretty(actual).expect("a JSON value always serializes");
    let missing = !path.exists();
    if bless || missing {
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .unwrap_or_else(|error| panic!("cannot create {}: {error}", dir.display()));
        }
        std::fs::write(path, pretty + "\n")
            .unwrap_or_else(|error| panic!("cannot write {}: {error}", path.display()));
        // A snapshot nobody has looked at proves nothing: the first run fails.
        assert!(
            bless,
            "there was no snapshot at {}: it is written now; review it, commit it and run the \
             test again",
            path.display()
        );
        return;
    }
    let stored = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    let expected: Value = serde_json::from_str(&stored)
        .unwrap_or_else(|error| panic!("{} is not JSON: {error}", path.display()));
    assert!(
        expected == *actual,
        "{path} differs from what the server now has.\n\
         --- snapshot ({path}) ---\n{stored}\n--- now ---\n{pretty}\n\
         If the change is intended, bless it: run the test again with {BLESS_VAR}=1",
        path = path.display(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::test_tools::{self, Behaviour};
    use crate::handler::Tools;

    fn server() -> Server {
        Server::new(crate::ServerInfo::new("t", "1")).tools(
            Tools::new()
                .with(test_tools::named("echo"))
                .with(test_tools::scripted("probe", Behaviour::Probe))
                .with(test_tools::scripted("sleep", Behaviour::Sleep))
                .with(test_tools::scripted("panic", Behaviour::Panic)),
        )
    }

    #[tokio::test]
    async fn every_revision_goes_through_the_dispatcher() {
        for revision in ProtocolVersion::ALL {
            let client = TestClient::at(server(), revision);
            let names: Vec<Value> = client
                .list_tools()
                .await
                .unwrap()
                .into_iter()
                .map(|tool| tool["name"].clone())
                .collect();
            assert_eq!(
                names,
                [
                    json!("echo"),
                    json!("probe"),
                    json!("sleep"),
                    json!("panic")
                ]
            );
            let echoed = client.call_tool("echo", json!({"x": 1})).await.unwrap();
            assert_eq!(echoed.text(), r#"{"x":1}"#, "{revision}");
            let probe = client.call_tool("probe", Value::Null).await.unwrap();
            let seen = probe.json()["structuredContent"]["revision"].clone();
            // Before 2025-06-18 there is no structured content on the wire.
            if revision >= ProtocolVersion::V2025_06_18 {
                assert_eq!(seen, revision.as_str());
            }
            let unknown = client.call_tool("nope", json!({})).await.unwrap_err();
            assert_eq!(unknown.code, -32602, "{revision}: {unknown}");
            assert!(unknown.message.contains("nope"), "{unknown}");
        }
    }

    #[tokio::test]
    async fn a_panicking_tool_is_a_tool_error() {
        let client = TestClient::new(server());
        let result = client.call_tool("panic", json!({})).await.unwrap();
        assert!(result.is_error());
        assert!(result.text().contains("panic"), "{}", result.text());
    }

    #[tokio::test]
    async fn arguments_that_are_not_an_object_are_invalid_params() {
        let client = TestClient::new(server());
        let error = client.call_tool("echo", json!([1])).await.unwrap_err();
        assert_eq!(error.code, -32602, "{error}");
    }

    #[tokio::test(start_paused = true)]
    async fn calls_run_concurrently() {
        let client = TestClient::new(server());
        let started = tokio::time::Instant::now();
        let (a, b) = tokio::join!(
            client.call_tool("sleep", json!({"ms": 1000})),
            client.call_tool("sleep", json!({"ms": 1000})),
        );
        assert_eq!(a.unwrap().text(), "slept");
        assert_eq!(b.unwrap().text(), "slept");
        assert!(started.elapsed() < std::time::Duration::from_millis(1500));
    }

    #[test]
    #[should_panic(expected = "TestClient: the server cannot serve")]
    fn a_server_that_cannot_serve_panics_with_the_reason() {
        let twice = Tools::new()
            .with(test_tools::named("same"))
            .with(test_tools::named("same"));
        TestClient::new(Server::new(crate::ServerInfo::new("t", "1")).tools(twice));
    }

    #[test]
    fn snapshots_compare_and_bless() {
        let dir = std::env::temp_dir().join(format!("mcp-snapshot-{}", std::process::id()));
        let path = dir.join("nested/a.json");
        let _ = std::fs::remove_dir_all(&dir);
        // A missing snapshot is written, and the test fails once...
        let written = std::panic::catch_unwind(|| check_snapshot(&path, &json!({"a": 1}), false));
        let message = *written.unwrap_err().downcast::<String>().unwrap();
        assert!(message.contains("there was no snapshot"), "{message}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\n  \"a\": 1\n}\n"
        );
        // ...then compared...
        check_snapshot(&path, &json!({"a": 1}), false);
        let differs = std::panic::catch_unwind(|| check_snapshot(&path, &json!({"a": 2}), false));
        let message = *differs.unwrap_err().downcast::<String>().unwrap();
        assert!(message.contains("MCP_BLESS=1"), "{message}");
        // ...and blessing overwrites it.
        check_snapshot(&path, &json!({"a": 2}), true);
        check_snapshot(&path, &json!({"a": 2}), false);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
