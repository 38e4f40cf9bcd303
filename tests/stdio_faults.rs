//! Faults over a real pipe: a client that stops reading, a client that vanishes mid-call,
//! cancellation storms and oversize messages. The server must stay bounded, keep serving, and
//! end cleanly.

#[allow(unused_macros)]
mod support;

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::process::{Next, StdoutLine};
use support::{PATIENCE, ServerProcess};

/// The fixture's `max_message_size`.
const MAX_MESSAGE_SIZE: usize = 64 * 1024;

/// Resident memory of process `pid` in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .expect("/proc/<pid>/status is readable while the server runs");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line")
}

fn initialize_line() -> String {
    json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "faults", "version": "0"}}})
    .to_string()
}

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn call_line(id: impl Into<Value>, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
    .to_string()
}

fn cancel_line(id: impl Into<Value>) -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
           "params": {"requestId": id.into(), "reason": "storm"}})
    .to_string()
}

fn next_json(server: &mut ServerProcess) -> Value {
    match server.next_line(PATIENCE) {
        Next::Line(StdoutLine::Json(message)) => message,
        Next::Line(StdoutLine::NotJson(text)) => panic!("not JSON on stdout: {text:?}"),
        other => panic!(
            "expected a message, got {other:?}\nserver stderr:\n{}",
            server.stderr()
        ),
    }
}

fn open_fixture() -> ServerProcess {
    let mut server = ServerProcess::fixture();
    server.write_line(&initialize_line());
    let answer = next_json(&mut server);
    assert!(answer.get("result").is_some(), "{answer}");
    server.write_line(INITIALIZED);
    server
}

/// Every message the server writes until it closes stdout.
fn drain(server: &mut ServerProcess) -> Vec<Value> {
    let mut messages = Vec::new();
    loop {
        match server.next_line(PATIENCE) {
            Next::Line(StdoutLine::Json(message)) => messages.push(message),
            Next::Line(StdoutLine::NotJson(text)) => panic!("not JSON on stdout: {text:?}"),
            Next::Closed => return messages,
            Next::Silent => panic!("the server kept stdout open after exiting"),
        }
    }
}

fn assert_echo(server: &mut ServerProcess, text: &str) {
    server.write_line(&call_line("echo-check", "echo", json!({"text": text})));
    let answer = next_json(server);
    assert_eq!(answer["id"], "echo-check", "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], text, "{answer}");
}

/// The fixture as a bare child process, for tests that must control stdout themselves.
struct RawServer {
    child: Child,
    stderr: Arc<Mutex<String>>,
    /// Ends when stderr has been read to its end.
    stderr_reader: thread::JoinHandle<()>,
}

impl RawServer {
    fn spawn() -> (RawServer, std::process::ChildStdin, ChildStdout) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fixture-server"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the fixture starts");
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let mut stderr = child.stderr.take().expect("piped");
        let collected = Arc::new(Mutex::new(String::new()));
        let sink = collected.clone();
        let stderr_reader = thread::spawn(move || {
            let mut buffer = [0; 8192];
            while let Ok(read @ 1..) = stderr.read(&mut buffer) {
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buffer[..read]));
            }
        });
        let server = RawServer {
            child,
            stderr: collected,
            stderr_reader,
        };
        (server, stdin, stdout)
    }

    /// [`spawn`](Self::spawn), with a session initialized; stdout read past the answer.
    fn initialized() -> (RawServer, std::process::ChildStdin, BufReader<ChildStdout>) {
        let (server, mut stdin, stdout) = RawServer::spawn();
        let mut stdout = BufReader::new(stdout);
        writeln!(stdin, "{}\n{INITIALIZED}", initialize_line()).expect("writable");
        let mut answer = String::new();
        stdout
            .read_line(&mut answer)
            .expect("the initialize answer");
        (server, stdin, stdout)
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Wait (at most `patience`) for the exit and for everything written to stderr to be
    /// read (the exit comes before the reader thread has drained the pipe); the exit status.
    fn wait(&mut self, patience: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + patience;
        loop {
            if let Some(status) = self.child.try_wait().expect("pollable") {
                while !self.stderr_reader.is_finished() {
                    assert!(
                        Instant::now() < deadline,
                        "the server exited but its stderr stayed open"
                    );
                    thread::sleep(Duration::from_millis(10));
                }
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit within {patience:?}; stderr:\n{}",
                self.stderr()
            );
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Reads stdout only as far as the test allows: `allow(n)` lets `n` more lines through,
/// `allow(usize::MAX)` all of them.
struct GatedReader {
    permits: Sender<usize>,
    lines: Receiver<Value>,
}

impl GatedReader {
    fn new(stdout: ChildStdout) -> Self {
        let (permits, granted) = mpsc::channel::<usize>();
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            while let Ok(mut allowed) = granted.recv() {
                while allowed > 0 {
                    line.clear();
                    match reader.read_line(&mut line) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                    let message = serde_json::from_str(&line)
                        .unwrap_or_else(|_| json!({"not json": line.clone()}));
                    if sender.send(message).is_err() {
                        return;
                    }
                    allowed -= 1;
                }
            }
        });
        GatedReader { permits, lines }
    }

    fn allow(&self, lines: usize) {
        self.permits.send(lines).expect("the reader runs");
    }

    fn next(&self) -> Option<Value> {
        self.lines.recv_timeout(PATIENCE).ok()
    }
}

#[test]
fn a_client_that_stops_reading_meets_back_pressure_not_unbounded_memory() {
    let (mut server, mut stdin, stdout) = RawServer::spawn();
    let pid = server.child.id();
    let reader = GatedReader::new(stdout);
    writeln!(stdin, "{}\n{INITIALIZED}", initialize_line()).expect("writable");
    reader.allow(1);
    let answer = reader.next().expect("the initialize answer");
    assert!(answer.get("result").is_some(), "{answer}");
    let rss_before = rss_kib(pid);

    // A writer that sends calls (answers of 1 KiB, half of them after a short sleep) until
    // told to stop, while nobody reads the answers.
    let sent = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (sent, stop) = (sent.clone(), stop.clone());
        thread::spawn(move || {
            let padding = "x".repeat(1024);
            let mut call = 0;
            while !stop.load(Ordering::Relaxed) {
                let line = call_line(
                    call,
                    "mixed",
                    json!({"token": format!("{call}:{padding}"), "outcome": "answer",
                           "millis": call % 2}),
                );
                if writeln!(stdin, "{line}").is_err() {
                    return sent.load(Ordering::Relaxed);
                }
                call += 1;
                sent.store(call, Ordering::Relaxed);
            }
            drop(stdin);
            call
        })
    };

    // How soon the pipes fill and the writer blocks depends on the machine's load: wait for
    // the writer to stall (within PATIENCE), then check that it stays stalled and the server's
    // memory with it.
    let stalled =
        |(before, _): (usize, u64), (after, _): (usize, u64)| after <= before + before / 100 + 64;
    let sample = || {
        thread::sleep(Duration::from_millis(750));
        (sent.load(Ordering::Relaxed), rss_kib(pid))
    };
    let deadline = Instant::now() + PATIENCE;
    let mut samples = vec![sample()];
    loop {
        samples.push(sample());
        if stalled(samples[samples.len() - 2], samples[samples.len() - 1]) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the server kept taking requests it could not answer: {samples:?}"
        );
    }
    let (sent_early, rss_early) = samples[samples.len() - 1];
    samples.push(sample());
    samples.push(sample());
    eprintln!(
        "not reading: server RSS {rss_before} KiB before; (calls sent, RSS KiB): {samples:?}"
    );
    let (sent_late, rss_late) = samples[samples.len() - 1];
    assert!(
        stalled((sent_early, rss_early), (sent_late, rss_late)),
        "the server kept taking requests it could not answer: {samples:?}"
    );
    assert!(
        rss_late <= rss_early + 8 * 1024 && rss_late <= rss_before + 64 * 1024,
        "the server's memory grew while nobody read: {rss_before} KiB, then {samples:?}"
    );

    // Reading again: every call sent is answered, and the server ends cleanly.
    stop.store(true, Ordering::Relaxed);
    reader.allow(usize::MAX);
    let mut answered = HashSet::new();
    loop {
        let Some(message) = reader.next() else {
            break;
        };
        let id = message["id"].as_u64().expect("an answer to a call");
        assert!(answered.insert(id), "call {id} answered twice");
        if writer.is_finished() && answered.len() == sent.load(Ordering::Relaxed) {
            break;
        }
    }
    let total = writer.join().expect("the writer ends");
    assert_eq!(answered.len(), total, "every call sent is answered");
    let status = server.wait(PATIENCE);
    assert!(status.success(), "exit status {status}");
}

/// The client goes away (both pipes closed) with calls still running: the server finishes,
/// fails to write to nobody, and exits with status 0 and no panic.
#[test]
fn a_client_that_vanishes_mid_call_leaves_a_clean_exit() {
    let (mut server, mut stdin, stdout) = RawServer::initialized();
    let mut lines = String::new();
    for id in 0..50 {
        let millis = if id % 2 == 0 { 0 } else { 300 };
        let arguments = json!({"token": format!("t{id}"), "outcome": "answer", "millis": millis});
        lines.push_str(&call_line(id, "mixed", arguments));
        lines.push('\n');
    }
    // Gone in the middle of writing a line.
    lines.push_str(r#"{"jsonrpc":"2.0","id":99,"method":"tools/ca"#);
    stdin.write_all(lines.as_bytes()).expect("writable");
    drop(stdin);
    drop(stdout);
    let status = server.wait(PATIENCE);
    let stderr = server.stderr();
    assert!(status.success(), "exit status {status}; stderr:\n{stderr}");
    assert!(
        !stderr.contains("panicked"),
        "a panic on the way out:\n{stderr}"
    );
}

/// The same with a call that would never end on its own: it is abandoned after the shutdown
/// timeout, and the exit is still clean.
#[test]
fn a_client_that_vanishes_during_an_endless_call_leaves_a_clean_exit() {
    let (mut server, mut stdin, stdout) = RawServer::initialized();
    let call = call_line(1, "wait_for_cancellation", json!({"millis": 600_000}));
    writeln!(stdin, "{call}").expect("writable");
    drop(stdin);
    drop(stdout);
    // The fixture's shutdown timeout is the default 5 s.
    let status = server.wait(PATIENCE + Duration::from_secs(5));
    let stderr = server.stderr();
    assert!(status.success(), "exit status {status}; stderr:\n{stderr}");
    assert!(
        !stderr.contains("panicked"),
        "a panic on the way out:\n{stderr}"
    );
}

/// The same with a plain `fn` stuck for ever (no cancellation reaches it): the process still
/// exits once the shutdown timeout has given up on it. (A runtime that waited for its
/// blocking pool kept it alive for ever.)
#[test]
fn a_client_that_vanishes_during_a_stuck_plain_fn_leaves_a_clean_exit() {
    let (mut server, mut stdin, mut stdout) = RawServer::initialized();
    writeln!(stdin, "{}", call_line(1, "stuck", json!({}))).expect("writable");
    drop(stdin);
    // The fixture's shutdown timeout is the default 5 s.
    let status = server.wait(PATIENCE + Duration::from_secs(5));
    let stderr = server.stderr();
    assert!(status.success(), "exit status {status}; stderr:\n{stderr}");
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("stdout readable");
    assert!(
        rest.is_empty(),
        "nothing answers the abandoned call: {rest}"
    );
}

/// Thousands of calls cancelled at once, half of them finished already: the unfinished ones
/// are never answered, the finished ones exactly once, and the server keeps serving.
#[test]
fn a_cancellation_storm_silences_exactly_the_unfinished_calls() {
    const CALLS: usize = 2_000;
    let mut server = open_fixture();
    let mut lines = String::new();
    for call in 0..CALLS {
        let line = if call % 2 == 0 {
            call_line(
                call,
                "mixed",
                json!({"token": format!("done-{call}"),
                                            "outcome": "answer", "millis": 0}),
            )
        } else {
            call_line(call, "wait_for_cancellation", json!({"millis": 600_000}))
        };
        lines.push_str(&line);
        lines.push('\n');
    }
    server.write_raw(lines.as_bytes());
    // The finished half has answered before the storm.
    let mut answers: HashMap<u64, usize> = HashMap::new();
    for _ in 0..CALLS / 2 {
        let answer = next_json(&mut server);
        let id = answer["id"].as_u64().expect("a call's id");
        assert_eq!(
            id % 2,
            0,
            "a waiting call answered before it was cancelled: {answer}"
        );
        *answers.entry(id).or_default() += 1;
    }
    let storm: String = (0..CALLS).map(|call| cancel_line(call) + "\n").collect();
    server.write_raw(storm.as_bytes());

    // Racing ones: calls of a few ms, cancelled as they run or after they finished.
    let racing = CALLS..CALLS + 500;
    let mut lines = String::new();
    for call in racing.clone() {
        let arguments = json!({"token": format!("race-{call}"), "outcome": "answer",
                               "millis": call % 5});
        lines.push_str(&call_line(call, "mixed", arguments));
        lines.push('\n');
        if call % 3 == 0 {
            thread::sleep(Duration::from_micros(200));
        }
        lines.push_str(&cancel_line(call));
        lines.push('\n');
    }
    server.write_raw(lines.as_bytes());
    // Still serving: an echo is answered (racing calls may answer before it).
    server.write_line(&call_line(
        "after",
        "echo",
        json!({"text": "after the storm"}),
    ));
    loop {
        let answer = next_json(&mut server);
        if answer["id"] == "after" {
            assert_eq!(answer["result"]["content"][0]["text"], "after the storm");
            break;
        }
        let id = answer["id"].as_u64().expect("a call's id");
        *answers.entry(id).or_default() += 1;
    }

    server.close_stdin();
    let status = server.wait_for_exit();
    assert!(status.success(), "exit status {status}");
    for answer in drain(&mut server) {
        let id = answer["id"].as_u64().expect("a call's id");
        *answers.entry(id).or_default() += 1;
    }
    for call in 0..CALLS as u64 {
        let count = answers.get(&call).copied().unwrap_or(0);
        if call % 2 == 0 {
            assert_eq!(count, 1, "finished call {call} answered {count} times");
        } else {
            assert_eq!(count, 0, "cancelled call {call} answered {count} times");
        }
    }
    for call in racing {
        let count = answers.get(&(call as u64)).copied().unwrap_or(0);
        assert!(count <= 1, "racing call {call} answered {count} times");
    }
    // Stderr is read on its own thread: give it until every line is in.
    let fired = || {
        server
            .stderr()
            .matches("wait_for_cancellation: token fired")
            .count()
    };
    let deadline = Instant::now() + PATIENCE;
    while fired() < CALLS / 2 && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        fired(),
        CALLS / 2,
        "every waiting call saw its cancellation"
    );
}

/// Over the size limit: an error naming both sizes, id `null` (the line is not read), and the
/// next message is served, even in the same write. A huge line does not grow the server.
#[test]
fn an_oversize_message_gets_a_clear_error_and_serving_goes_on() {
    let mut server = open_fixture();
    let refused = |len: usize| {
        format!(
            "message of {len} bytes exceeds the limit of {MAX_MESSAGE_SIZE} bytes and was \
             discarded"
        )
    };

    // An echo request of exactly `len` bytes.
    let sized = |id: &str, len: usize| {
        let padding = len - call_line(id, "echo", json!({"text": ""})).len();
        let line = call_line(id, "echo", json!({"text": "y".repeat(padding)}));
        assert_eq!(line.len(), len);
        line
    };
    // One byte over, as a well-formed request; then one of exactly the limit.
    let over = sized("big", MAX_MESSAGE_SIZE + 1);
    let exact = sized("exact", MAX_MESSAGE_SIZE);
    server.write_raw(format!("{over}\n{exact}\n").as_bytes());
    let answer = next_json(&mut server);
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": null,
               "error": {"code": -32600, "message": refused(MAX_MESSAGE_SIZE + 1)}})
    );
    let answer = next_json(&mut server);
    assert_eq!(
        answer["id"], "exact",
        "a message of exactly the limit is served: {answer}"
    );
    assert!(answer.get("result").is_some(), "{answer}");

    // 16 MiB of garbage without a newline until the end, then a request in the same write.
    let rss_before = rss_kib(server.id());
    let huge = 16 * 1024 * 1024;
    let mut bytes = vec![b'['; huge];
    bytes.push(b'\n');
    bytes.extend_from_slice(call_line("after", "echo", json!({"text": "after"})).as_bytes());
    bytes.push(b'\n');
    server.write_raw(&bytes);
    let answer = next_json(&mut server);
    assert_eq!(answer["error"]["message"], refused(huge), "{answer}");
    let rss_after = rss_kib(server.id());
    eprintln!("a 16 MiB line: server RSS {rss_before} KiB before, {rss_after} KiB after");
    assert!(
        rss_after < rss_before + 8 * 1024,
        "a discarded line was buffered: {rss_before} KiB, then {rss_after} KiB"
    );
    let answer = next_json(&mut server);
    assert_eq!(answer["id"], "after", "{answer}");
    assert_echo(&mut server, "still serving");
}
