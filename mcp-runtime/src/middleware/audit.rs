//! One JSON line per request, written by a thread of its own so that no call waits for a disk.

use crate::auth::Principal;
use std::fmt;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::thread::JoinHandle;

use serde::Serialize;
use serde_json::{Value, json};

use super::{BoxError, Caller, Elapsed, Error, Layer, Method, Request, Response, Service};
use crate::canonical::canonical_digest;
use crate::future::BoxFuture;
use crate::protocol::RequestId;
use crate::rfc3339;

/// Writes one JSON line for every request the pipeline answers, lists included: who called,
/// what, and how it ended.
///
/// ```text
/// {"time":"2026-12-02T01:02:03.456Z","caller":"alice","connection":null,
///  "client":{"name":"claude-code","version":"2.1.0"},"revision":"2026-07-28",
///  "method":"tools/call","name":"search","id":7,"arguments_sha256":"9f86d0…",
///  "outcome":"ok","duration_ms":12.5}
/// ```
///
/// (one line in the file; broken here to fit). The fields, in this order:
///
/// - `time`: when the request reached the layer, RFC 3339 in UTC to the millisecond.
/// - `caller`: the principal HTTP authorization named, or `null`; `connection`: the
///   connection's number, or `null`; `client`: `{"name", "version"}` from `clientInfo`, or
///   `null`; `revision`: the protocol revision.
/// - `method`; `name`: the tool, prompt, resource URI, or `null` for the lists; `id`: the
///   JSON-RPC id.
/// - `arguments_sha256`: SHA-256 (hex) of the arguments written as compact JSON with every
///   object's keys sorted, so the same arguments give the same digest in any order; `null`
///   without arguments. `arguments`, the arguments themselves, only with
///   [`with_arguments(true)`](Self::with_arguments): they may hold what a log should not.
/// - `outcome`: `"ok"`; `"tool_error"` (a tool result with `isError`, or a failure the
///   client gets as one); `"error"` with `"code"`, the JSON-RPC error code it was answered
///   with; `"timed_out"` ([`TimeoutLayer`](super::TimeoutLayer) inside this layer stopped it);
///   `"input_required"` (a 2026-07-28 round that asked the client questions); or
///   `"cancelled"`, when the request's future was dropped before it ended (the client
///   cancelled it, or the connection went away).
/// - `duration_ms`: how long it took, in milliseconds.
///
/// Add it outermost (last), so it sees what the other layers refused.
///
/// # Off the call's path
///
/// The layer formats a request's line when the request ends, and hands it to a writer thread
/// through a queue of [`buffer`](Self::buffer) lines (1024 unless set). The thread writes what
/// is queued in one go and flushes it, then lets lines gather for 2 ms, so a busy server wakes
/// it a few hundred times a second rather than once per request, and a reader of the file sees
/// whole lines within milliseconds. A call
/// never waits for it: when the queue is full the line is dropped and counted, a `warn` event
/// says so once for each spell of overflow, and once the writer has room again a line
/// `{"time": ..., "dropped": N}` records how many lines were lost, where they were lost.
///
/// When the layer and every pipeline it was added to are dropped, the thread writes what is
/// still queued (and a last `dropped` line if some were) and is joined, so a server that
/// exits loses no line; that drop waits for the disk.
///
/// ```no_run
/// use mcp_runtime::middleware::AuditLogLayer;
///
/// let layer = AuditLogLayer::to_file("/var/log/mcp/audit.jsonl")?.buffer(4096);
/// # drop(layer);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct AuditLogLayer {
    with_arguments: bool,
    buffer: usize,
    log: Arc<Log>,
}

impl AuditLogLayer {
    /// Lines appended to the file at `path`, created if need be.
    pub fn to_file(path: impl AsRef<Path>) -> io::Result<Self> {
        let file = OpenOptions::new().append(true).create(true).open(path)?;
        Ok(Self::to_writer(file))
    }

    /// Lines written to `writer` (buffered; flushed after each batch the thread writes).
    ///
    /// ```
    /// use mcp_runtime::middleware::AuditLogLayer;
    ///
    /// let layer = AuditLogLayer::to_writer(std::io::stderr()).with_arguments(true);
    /// # drop(layer);
    /// ```
    pub fn to_writer(writer: impl Write + Send + 'static) -> Self {
        AuditLogLayer {
            with_arguments: false,
            buffer: 1024,
            log: Arc::new(Log {
                unstarted: Mutex::new(Some(Box::new(writer))),
                started: OnceLock::new(),
            }),
        }
    }

    /// Whether lines carry the raw arguments as well as their digest (by default they do
    /// not).
    pub fn with_arguments(mut self, with_arguments: bool) -> Self {
        self.with_arguments = with_arguments;
        self
    }

    /// Queue at most `lines` (at least 1) for the writer; further lines are dropped and
    /// counted until it catches up. It sizes the queue when the layer is first added to a
    /// pipeline.
    pub fn buffer(mut self, lines: usize) -> Self {
        self.buffer = lines.max(1);
        self
    }
}

impl<S> Layer<S> for AuditLogLayer {
    type Service = AuditLog<S>;

    fn layer(&self, inner: S) -> AuditLog<S> {
        self.log.start(self.buffer);
        AuditLog {
            inner,
            with_arguments: self.with_arguments,
            log: self.log.clone(),
        }
    }
}

/// The log every service of one [`AuditLogLayer`] writes to.
struct Log {
    /// The writer, until the first pipeline starts its thread.
    unstarted: Mutex<Option<Box<dyn Write + Send>>>,
    started: OnceLock<Writing>,
}

/// The writer thread and what feeds it.
struct Writing {
    lines: SyncSender<String>,
    lost: Arc<Lost>,
    thread: JoinHandle<()>,
}

/// Lines dropped since the log last said how many.
#[derive(Default)]
struct Lost {
    lines: AtomicU64,
    /// Whether this spell of overflow was already warned about.
    warned: AtomicBool,
}

impl fmt::Debug for Log {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Log(..)")
    }
}

impl Log {
    fn start(&self, buffer: usize) {
        self.started.get_or_init(|| {
            let writer = self
                .unstarted
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .take()
                .expect("the writer is taken once");
            let (lines, queued) = std::sync::mpsc::sync_channel(buffer);
            let lost = Arc::new(Lost::default());
            let thread = std::thread::Builder::new()
                .name("mcp-audit-log".into())
                .spawn({
                    let lost = lost.clone();
                    move || write_lines(writer, queued, &lost)
                })
                .expect("spawn the audit log's writer thread");
            Writing {
                lines,
                lost,
                thread,
            }
        });
    }

    /// Queue `line` if there is room, after saying how many lines were lost before it.
    fn send(&self, line: String) {
        let Some(writing) = self.started.get() else {
            return;
        };
        let lost = &writing.lost;
        // Taken whole, so of two requests racing here only one reports the loss.
        let missed = lost.lines.swap(0, Ordering::SeqCst);
        if missed > 0 {
            if writing.lines.try_send(dropped_line(missed)).is_err() {
                lost.lines.fetch_add(missed + 1, Ordering::SeqCst);
                return;
            }
            lost.warned.store(false, Ordering::SeqCst);
        }
        match writing.lines.try_send(line) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                lost.lines.fetch_add(1, Ordering::SeqCst);
                if !lost.warned.swap(true, Ordering::SeqCst) {
                    tracing::warn!(
                        "audit log: the writer is behind and its queue full; lines are dropped \
                         until it catches up, then a `dropped` line counts them"
                    );
                }
            }
            // The writer thread is gone (its writer panicked): nothing can be written.
            Err(TrySendError::Disconnected(_)) => {}
        }
    }
}

impl Drop for Log {
    fn drop(&mut self) {
        if let Some(writing) = self.started.take() {
            // Closing the queue ends the thread once it has written what is in it.
            drop(writing.lines);
            let _ = writing.thread.join();
        }
    }
}

fn dropped_line(lines: u64) -> String {
    let mut line = json!({"time": rfc3339::now(), "dropped": lines}).to_string();
    line.push('\n');
    line
}

/// `value` as JSON at the end of `line`.
fn json_into<T: Serialize + ?Sized>(line: &mut Vec<u8>, value: &T) {
    serde_json::to_writer(line, value).expect("an audit field always serializes");
}

/// How long the writer lets lines gather after writing some: a request whose line finds the
/// writer idle pays for waking it, so it wakes at most this often, however many lines come.
const GATHER: std::time::Duration = std::time::Duration::from_millis(2);

/// The writer thread: what is queued written in one go and flushed, then a pause for more.
fn write_lines(writer: Box<dyn Write + Send>, queued: Receiver<String>, lost: &Lost) {
    let mut writer = io::BufWriter::with_capacity(64 * 1024, writer);
    let mut failing = false;
    let mut check = |written: io::Result<()>| match written {
        Ok(()) => failing = false,
        Err(error) => {
            // Once per spell of failures: a full disk would otherwise log every request.
            if !failing {
                tracing::error!(%error, "audit log: lines could not be written");
            }
            failing = true;
        }
    };
    while let Ok(first) = queued.recv() {
        let mut written = writer.write_all(first.as_bytes());
        while let Ok(line) = queued.try_recv() {
            written = written.and_then(|()| writer.write_all(line.as_bytes()));
        }
        check(written.and_then(|()| writer.flush()));
        std::thread::sleep(GATHER);
    }
    let missed = lost.lines.swap(0, Ordering::SeqCst);
    if missed > 0 {
        let written = writer.write_all(dropped_line(missed).as_bytes());
        check(written.and_then(|()| writer.flush()));
    }
}

/// The service [`AuditLogLayer`] wraps around `S`.
#[derive(Debug, Clone)]
pub struct AuditLog<S> {
    inner: S,
    with_arguments: bool,
    log: Arc<Log>,
}

impl<S> Service<Request> for AuditLog<S>
where
    S: Service<Request, Response = Response>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Response, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let entry = Entry::begin(self.log.clone(), &request, self.with_arguments);
        let future = self.inner.call(request);
        Box::pin(async move {
            let result = future.await.map_err(Into::into);
            let outcome = Outcome::of(&result, entry.method);
            entry.end(outcome);
            result
        })
    }
}

/// A request's line, from its start: written when it ends, or when it is dropped unfinished.
struct Entry {
    log: Arc<Log>,
    method: Method,
    time: String,
    caller: Caller,
    name: Option<Arc<str>>,
    id: RequestId,
    arguments_sha256: Option<String>,
    /// The raw arguments, when the log has them (`null` for a request without).
    arguments: Option<Value>,
    started: tokio::time::Instant,
    written: bool,
}

impl Entry {
    fn begin(log: Arc<Log>, request: &Request, with_arguments: bool) -> Self {
        let arguments = request.arguments();
        let arguments_sha256 = arguments.map(canonical_digest);
        Entry {
            log,
            method: request.method(),
            time: rfc3339::now(),
            caller: request.caller().clone(),
            name: request.name.clone(),
            id: request.id().clone(),
            arguments_sha256,
            arguments: with_arguments
                .then(|| arguments.map_or(Value::Null, |arguments| arguments.clone().into())),
            started: tokio::time::Instant::now(),
            written: false,
        }
    }

    fn end(mut self, outcome: Outcome) {
        self.write(outcome);
    }

    fn write(&mut self, outcome: Outcome) {
        self.written = true;
        let duration = self.started.elapsed();
        let (outcome, code) = outcome.name_and_code();
        let caller = &self.caller;
        // Written by hand, in the order the log documents: most fields are ASCII this code
        // makes (a time, a digest, names of methods and outcomes) and need no escaping, which
        // would cost more than the rest of the line.
        let mut line = Vec::with_capacity(320);
        line.extend_from_slice(b"{\"time\":\"");
        line.extend_from_slice(self.time.as_bytes());
        line.extend_from_slice(b"\",\"caller\":");
        json_into(&mut line, &caller.principal().map(Principal::as_str));
        line.extend_from_slice(b",\"connection\":");
        json_into(&mut line, &caller.connection());
        line.extend_from_slice(b",\"client\":");
        match caller.client_name() {
            Some(name) => {
                line.extend_from_slice(b"{\"name\":");
                json_into(&mut line, name);
                line.extend_from_slice(b",\"version\":");
                json_into(&mut line, &caller.client_version());
                line.push(b'}');
            }
            None => line.extend_from_slice(b"null"),
        }
        line.extend_from_slice(b",\"revision\":\"");
        line.extend_from_slice(caller.revision().as_str().as_bytes());
        line.extend_from_slice(b"\",\"method\":\"");
        line.extend_from_slice(self.method.as_str().as_bytes());
        line.extend_from_slice(b"\",\"name\":");
        json_into(&mut line, &self.name.as_deref());
        line.extend_from_slice(b",\"id\":");
        json_into(&mut line, &self.id);
        line.extend_from_slice(b",\"arguments_sha256\":");
        match &self.arguments_sha256 {
            Some(digest) => {
                line.push(b'"');
                line.extend_from_slice(digest.as_bytes());
                line.push(b'"');
            }
            None => line.extend_from_slice(b"null"),
        }
        if let Some(arguments) = &self.arguments {
            line.extend_from_slice(b",\"arguments\":");
            json_into(&mut line, arguments);
        }
        line.extend_from_slice(b",\"outcome\":\"");
        line.extend_from_slice(outcome.as_bytes());
        line.push(b'"');
        if let Some(code) = code {
            line.extend_from_slice(b",\"code\":");
            json_into(&mut line, &code);
        }
        // To the microsecond: finer digits are noise.
        line.extend_from_slice(b",\"duration_ms\":");
        json_into(&mut line, &((duration.as_secs_f64() * 1e6).round() / 1e3));
        line.extend_from_slice(b"}\n");
        let bytes = line;
        self.log
            .send(String::from_utf8(bytes).expect("serde_json writes UTF-8"));
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        if self.written {
            return;
        }
        // Unwinding: the handler (or a layer inside) panicked, and the dispatcher answers it
        // as it answers any failure.
        let outcome = if std::thread::panicking() {
            Outcome::failure(self.method)
        } else {
            Outcome::Cancelled
        };
        self.write(outcome);
    }
}

/// How a request ended, as the `outcome` field says it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Outcome {
    Ok,
    ToolError,
    Error(i32),
    TimedOut,
    InputRequired,
    Cancelled,
}

impl Outcome {
    fn of(result: &Result<Response, BoxError>, method: Method) -> Self {
        match result {
            Ok(Response::Tool(result)) if result.is_error => Outcome::ToolError,
            Ok(Response::InputRequired) => Outcome::InputRequired,
            Ok(_) => Outcome::Ok,
            Err(error) if error.is::<Elapsed>() => Outcome::TimedOut,
            Err(error) => match error.downcast_ref::<Error>() {
                Some(error) => Outcome::Error(error.code()),
                None => Outcome::failure(method),
            },
        }
    }

    /// What the dispatcher makes of an error that is not a JSON-RPC [`Error`].
    fn failure(method: Method) -> Self {
        match method {
            Method::CallTool => Outcome::ToolError,
            _ => Outcome::Error(Error::INTERNAL_ERROR),
        }
    }

    fn name_and_code(self) -> (&'static str, Option<i32>) {
        match self {
            Outcome::Ok => ("ok", None),
            Outcome::ToolError => ("tool_error", None),
            Outcome::Error(code) => ("error", Some(code)),
            Outcome::TimedOut => ("timed_out", None),
            Outcome::InputRequired => ("input_required", None),
            Outcome::Cancelled => ("cancelled", None),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use sha2::{Digest, Sha256};
    use tokio::sync::oneshot;

    use super::*;
    use crate::CallToolResult;
    use crate::middleware::testing::{call, pipeline, request, tool_call};
    use crate::middleware::{Next, TimeoutLayer};

    /// What the writer thread wrote, readable from the test.
    #[derive(Clone, Default)]
    struct Written(Arc<Mutex<Vec<u8>>>);

    impl Write for Written {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Written {
        fn lines(&self) -> Vec<Value> {
            let bytes = self.0.lock().unwrap();
            let text = std::str::from_utf8(&bytes).unwrap();
            assert!(text.is_empty() || text.ends_with('\n'), "whole lines only");
            text.lines()
                .map(|line| serde_json::from_str(line).expect("a JSON line"))
                .collect()
        }
    }

    /// Runs each request through `layer` to its end, then drops the layer so the writer
    /// thread is joined, and returns the lines.
    async fn logged(
        layer: AuditLogLayer,
        written: &Written,
        requests: Vec<crate::middleware::testing::RequestBuilder>,
    ) -> Vec<Value> {
        let pipeline = pipeline(&layer);
        for request in requests {
            let _ = call(&pipeline, request).await;
        }
        drop((pipeline, layer));
        written.lines()
    }

    #[tokio::test(start_paused = true)]
    async fn a_line_says_who_called_what_and_how_it_ended() {
        let written = Written::default();
        let slow = tool_call("search")
            .id(RequestId::String("r-1".into()))
            .principal("alice")
            .connection(3)
            .client("cli", Some("1.2"))
            .arguments(json!({"query": "rust", "limit": 5}))
            .handler(|_| async {
                tokio::time::sleep(Duration::from_millis(1500)).await;
                Ok(Response::Tool(CallToolResult::default()))
            });

        let lines = logged(
            AuditLogLayer::to_writer(written.clone()),
            &written,
            vec![slow],
        )
        .await;

        let [line] = &lines[..] else {
            panic!("{lines:?}")
        };
        let keys: Vec<&str> = line
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "time",
                "caller",
                "connection",
                "client",
                "revision",
                "method",
                "name",
                "id",
                "arguments_sha256",
                "outcome",
                "duration_ms"
            ]
        );
        assert_eq!(
            line["time"].as_str().unwrap().len(),
            "2026-12-02T01:02:03.456Z".len()
        );
        assert_eq!(line["caller"], "alice");
        assert_eq!(line["connection"], 3);
        assert_eq!(line["client"], json!({"name": "cli", "version": "1.2"}));
        assert_eq!(line["revision"], "2025-11-25");
        assert_eq!(line["method"], "tools/call");
        assert_eq!(line["name"], "search");
        assert_eq!(line["id"], "r-1");
        let expected = Sha256::digest(br#"{"limit":5,"query":"rust"}"#);
        assert_eq!(line["arguments_sha256"], crate::random::hex(&expected));
        assert_eq!(line["outcome"], "ok");
        assert_eq!(line["duration_ms"], 1500.0);
    }

    #[tokio::test]
    async fn arguments_are_written_only_when_asked_and_their_digest_ignores_key_order() {
        let written = Written::default();
        let layer = AuditLogLayer::to_writer(written.clone()).with_arguments(true);
        let requests = vec![
            tool_call("t").arguments(json!({"x": 1, "y": {"b": [2], "a": null}})),
            tool_call("t").arguments(json!({"y": {"a": null, "b": [2]}, "x": 1})),
            tool_call("t").arguments(json!({"x": 2, "y": {"a": null, "b": [2]}})),
        ];

        let lines = logged(layer, &written, requests).await;

        assert_eq!(
            lines[0]["arguments"],
            json!({"x": 1, "y": {"b": [2], "a": null}})
        );
        assert_eq!(lines[0]["arguments_sha256"], lines[1]["arguments_sha256"]);
        assert_ne!(lines[0]["arguments_sha256"], lines[2]["arguments_sha256"]);

        let written = Written::default();
        let lines = logged(
            AuditLogLayer::to_writer(written.clone()),
            &written,
            vec![tool_call("t").arguments(json!({"secret": "hunter2"}))],
        )
        .await;
        assert!(lines[0].get("arguments").is_none());
        assert!(!lines[0].to_string().contains("hunter2"));
    }

    #[tokio::test(start_paused = true)]
    async fn every_outcome_is_told_apart() {
        let written = Written::default();
        let layer = AuditLogLayer::to_writer(written.clone());
        // The audit log outside a timeout, as a server would stack them.
        let pipeline = Next::handler()
            .wrap(&TimeoutLayer::new(Duration::from_secs(1)))
            .wrap(&layer);
        let requests = vec![
            tool_call("fine"),
            tool_call("failing").answer(Response::Tool(CallToolResult::error("no"))),
            tool_call("refused").fail(Error::new(-32001, "maintenance")),
            tool_call("broken").fail(io::Error::other("disk on fire")),
            request(Method::ReadResource, Some("file:///x")).fail(io::Error::other("gone")),
            tool_call("asking").answer(Response::InputRequired),
            tool_call("stuck").handler(|_| std::future::pending()),
            request(Method::ListTools, None).answer(Response::Tools(Vec::new())),
        ];
        for request in requests {
            let _ = call(&pipeline, request).await;
        }
        drop((pipeline, layer));

        let outcomes: Vec<(Value, Value, Option<Value>)> = written
            .lines()
            .into_iter()
            .map(|line| {
                (
                    line["name"].clone(),
                    line["outcome"].clone(),
                    line.get("code").cloned(),
                )
            })
            .collect();
        let expected = [
            (json!("fine"), json!("ok"), None),
            (json!("failing"), json!("tool_error"), None),
            (json!("refused"), json!("error"), Some(json!(-32001))),
            (json!("broken"), json!("tool_error"), None),
            (json!("file:///x"), json!("error"), Some(json!(-32603))),
            (json!("asking"), json!("input_required"), None),
            (json!("stuck"), json!("timed_out"), None),
            (Value::Null, json!("ok"), None),
        ];
        assert_eq!(outcomes, expected);
    }

    #[tokio::test]
    async fn a_request_dropped_unfinished_is_logged_as_cancelled() {
        let written = Written::default();
        let layer = AuditLogLayer::to_writer(written.clone());
        let pipeline = pipeline(&layer);
        let (started, has_started) = oneshot::channel();
        let hanging = tool_call("slow").handler(|_| async move {
            started.send(()).ok();
            std::future::pending().await
        });

        let running = tokio::spawn(call(&pipeline, hanging));
        has_started.await.unwrap();
        running.abort();
        assert!(running.await.unwrap_err().is_cancelled());
        drop((pipeline, layer));

        let lines = written.lines();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0]["outcome"], "cancelled");
    }

    #[tokio::test]
    async fn a_handler_that_panics_is_logged_as_it_is_answered() {
        let written = Written::default();
        let layer = AuditLogLayer::to_writer(written.clone());
        let pipeline = pipeline(&layer);
        let panicking = tool_call("buggy").handler(|_| async { panic!("bug") });

        let joined = tokio::spawn(call(&pipeline, panicking)).await;
        assert!(joined.unwrap_err().is_panic());
        drop((pipeline, layer));

        assert_eq!(written.lines()[0]["outcome"], "tool_error");
    }

    /// A writer that blocks on its first line until the test opens the gate, and reports
    /// every line it writes.
    struct Gated {
        entered: mpsc::Sender<()>,
        gate: Option<mpsc::Receiver<()>>,
        wrote: mpsc::Sender<()>,
        out: Written,
    }

    impl Write for Gated {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            if let Some(gate) = self.gate.take() {
                self.entered.send(()).unwrap();
                gate.recv().unwrap();
            }
            let written = self.out.write(bytes)?;
            self.wrote.send(()).unwrap();
            Ok(written)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn a_full_queue_drops_lines_and_then_says_how_many() {
        let (entered, has_entered) = mpsc::channel();
        let (open, gate) = mpsc::channel();
        let (wrote, has_written) = mpsc::channel();
        let written = Written::default();
        let writer = Gated {
            entered,
            gate: Some(gate),
            wrote,
            out: written.clone(),
        };
        let layer = AuditLogLayer::to_writer(writer).buffer(2);
        let pipeline = pipeline(&layer);

        // The writer takes the first line and blocks writing it: the queue is empty.
        call(&pipeline, tool_call("t1")).await.unwrap();
        has_entered.recv().unwrap();
        // Two lines fill the queue; two more are lost.
        for name in ["t2", "t3", "t4", "t5"] {
            call(&pipeline, tool_call(name)).await.unwrap();
        }
        open.send(()).unwrap();
        // The writer writes what it gathered in as few writes as it can: wait for the lines.
        while written.lines().len() < 3 {
            has_written.recv().unwrap();
        }
        // The writer has caught up: the next line comes after a count of the lost ones.
        call(&pipeline, tool_call("t6")).await.unwrap();
        drop((pipeline, layer));

        let lines = written.lines();
        let names: Vec<&Value> = lines.iter().map(|line| &line["name"]).collect();
        assert_eq!(
            names,
            [
                &json!("t1"),
                &json!("t2"),
                &json!("t3"),
                &Value::Null,
                &json!("t6")
            ]
        );
        assert_eq!(lines[3]["dropped"], 2);
        assert_eq!(
            lines[3].as_object().unwrap().len(),
            2,
            "time and dropped: {}",
            lines[3]
        );
    }

    #[tokio::test]
    async fn lines_still_lost_at_shutdown_are_counted_last() {
        let (entered, has_entered) = mpsc::channel();
        let (open, gate) = mpsc::channel();
        let (wrote, _has_written) = mpsc::channel();
        let written = Written::default();
        let writer = Gated {
            entered,
            gate: Some(gate),
            wrote,
            out: written.clone(),
        };
        let layer = AuditLogLayer::to_writer(writer).buffer(1);
        let pipeline = pipeline(&layer);

        call(&pipeline, tool_call("t1")).await.unwrap();
        has_entered.recv().unwrap();
        for name in ["t2", "t3", "t4"] {
            call(&pipeline, tool_call(name)).await.unwrap();
        }
        open.send(()).unwrap();
        drop((pipeline, layer));

        let lines = written.lines();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(
            (&lines[0]["name"], &lines[1]["name"]),
            (&json!("t1"), &json!("t2"))
        );
        assert_eq!(lines[2]["dropped"], 2);
    }

    #[tokio::test]
    async fn a_file_is_appended_to() {
        let path = std::env::temp_dir().join(format!(
            "mcp-audit-{}-{:?}.jsonl",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&path, "{\"earlier\":true}\n").unwrap();

        let layer = AuditLogLayer::to_file(&path).unwrap();
        let pipeline = pipeline(&layer);
        call(&pipeline, tool_call("t")).await.unwrap();
        drop((pipeline, layer));

        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines[0], json!({"earlier": true}));
        assert_eq!(lines[1]["name"], "t");
        assert_eq!(lines.len(), 2);
    }
}
