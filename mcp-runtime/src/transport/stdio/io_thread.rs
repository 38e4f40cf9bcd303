//! The I/O thread: reads each line, hands it to the dispatcher, and writes the answer.
//!
//! A call is polled once right here; only if it has to wait does it become a task. A call
//! that completes at once (most do) is therefore answered with no thread hand-off at all, as
//! fast as a hand-written read-parse-write loop. Answers wait in the output buffer while more
//! input is already buffered and are flushed before the thread blocks on stdin again, so a
//! pipelined burst of requests costs a few large writes.
//!
//! A plain thread rather than tokio's stdin: a blocking read there would keep the runtime
//! from shutting down until the client sent another line, whereas this thread simply ends
//! with the process.

use std::io::{self, BufReader, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::runtime::Handle;

use super::calls::Calls;
use super::lines::{self, Line};
use super::output::Output;
use crate::dispatch::session::Session;
use crate::dispatch::{Dispatcher, Reply};
use crate::protocol::jsonrpc::{ErrorObject, Outgoing};

/// Read buffer: large messages arrive in few reads, bursts of small ones in one.
const READ_BUFFER: usize = 64 * 1024;

/// A first poll longer than this means an async tool blocks instead of awaiting.
const BLOCKING_WARNING: Duration = Duration::from_millis(100);

/// Why the I/O thread stopped.
#[derive(Debug)]
pub(crate) enum End {
    /// Stdin closed: the client is done.
    InputClosed,
    /// Reading stdin failed.
    InputFailed(io::Error),
    /// Writing stdout failed: no one can hear us any more.
    OutputFailed(io::Error),
    /// Shutdown began elsewhere (a signal).
    Stopped,
}

/// Everything the I/O thread works with.
pub(crate) struct IoThread {
    pub(crate) dispatcher: Dispatcher,
    pub(crate) session: Session,
    pub(crate) output: Output,
    pub(crate) calls: Calls,
    pub(crate) runtime: Handle,
    pub(crate) max_message_size: usize,
    pub(crate) stopping: Arc<AtomicBool>,
}

impl IoThread {
    /// Serve stdin until it ends.
    pub(crate) fn run(mut self) -> End {
        // Tools polled here may use the runtime's timers and spawn tasks.
        let _runtime = self.runtime.enter();
        let mut input = BufReader::with_capacity(READ_BUFFER, io::stdin().lock());
        match self.serve(&mut input) {
            Ok(end) => end,
            Err(error) => End::OutputFailed(error),
        }
    }

    /// The loop; `Err` is an output failure.
    fn serve<R: Read>(&mut self, input: &mut BufReader<R>) -> io::Result<End> {
        let mut line = Vec::new();
        loop {
            if self.stopping.load(Ordering::Relaxed) {
                return Ok(End::Stopped);
            }
            if !has_complete_line(input) {
                // About to wait for the client: let it see every answer first.
                self.output.flush()?;
            }
            match lines::read_line(input, &mut line, self.max_message_size) {
                Ok(Line::Complete) if line.iter().all(u8::is_ascii_whitespace) => {}
                Ok(Line::Complete) => self.answer(&line)?,
                Ok(Line::TooLong { len }) => {
                    self.output.write(&too_long(len, self.max_message_size))?;
                }
                Ok(Line::End) => {
                    self.output.flush()?;
                    return Ok(End::InputClosed);
                }
                Err(error) => return Ok(End::InputFailed(error)),
            }
            // Keep a buffer that fits common messages, not the largest one ever seen.
            line.shrink_to(READ_BUFFER);
        }
    }

    fn answer(&mut self, line: &[u8]) -> io::Result<()> {
        // A handler that never waits runs to its end while the line is dispatched; one that
        // waits, up to its first wait here: either way the reader waits for it.
        let started = coarse_clock::now();
        let answer = match self.dispatcher.handle_bytes(line, &mut self.session) {
            Reply::None => None,
            Reply::Ready(answer) => Some(answer),
            // The waker is never used: a call still pending is spawned, and the task's first
            // poll registers the task's own waker.
            Reply::Pending(mut call) => {
                match call.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
                    Poll::Ready(answer) => answer,
                    Poll::Pending => {
                        self.calls.start(call, &self.runtime);
                        None
                    }
                }
            }
        };
        let blocked = coarse_clock::now().saturating_sub(started);
        if blocked > BLOCKING_WARNING {
            tracing::warn!(
                "a tool blocked the server for {blocked:?} before its first await; blocking \
                 work belongs in a plain `fn` tool or `spawn_blocking`"
            );
        }
        match answer {
            Some(answer) => self.output.write(&answer),
            None => Ok(()),
        }
    }
}

/// A monotonic clock for timing first polls against [`BLOCKING_WARNING`], read twice per call.
///
/// On Linux it is `CLOCK_MONOTONIC_COARSE`: the time of the last scheduler tick (a few
/// milliseconds old at most), read from the vDSO without even reading the CPU's counter, so it
/// costs a fraction of `Instant::now()`, which showed up in the profile of pipelined calls. A
/// resolution of a tick is plenty for a warning at 100 ms.
mod coarse_clock {
    use std::time::Duration;

    /// The time since an arbitrary fixed point.
    #[cfg(target_os = "linux")]
    pub(super) fn now() -> Duration {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid, writable `timespec`, and this clock exists on every Linux
        // since 2.6.32; should the call fail anyway, `now` keeps zero and nothing is warned.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut now) };
        Duration::new(
            u64::try_from(now.tv_sec).unwrap_or(0),
            u32::try_from(now.tv_nsec).unwrap_or(0),
        )
    }

    /// The time since the first call.
    #[cfg(not(target_os = "linux"))]
    pub(super) fn now() -> Duration {
        use std::sync::OnceLock;
        use std::time::Instant;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed()
    }
}

/// Whether the next line can be read without waiting for the client.
fn has_complete_line<R: Read>(input: &BufReader<R>) -> bool {
    // From the end: a client writes whole lines, so a newline is usually the last byte, and
    // the next line is not scanned twice (`read_line` scans it for its end).
    memchr::memrchr(b'\n', input.buffer()).is_some()
}

/// The line was discarded unread, so its id is unknown: the error goes to id `null`.
fn too_long(len: usize, max: usize) -> Outgoing {
    tracing::warn!(len, max, "discarded a message over the size limit");
    Outgoing::error(
        None,
        &ErrorObject::invalid_request(format!(
            "message of {len} bytes exceeds the limit of {max} bytes and was discarded"
        )),
    )
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use serde_json::{Value, json};

    use super::super::output::spawn_writer;
    use super::super::output::tests::Recorder;
    use super::*;
    use crate::dispatch::InFlight;
    use crate::dispatch::test_tools::{Behaviour, named, scripted};
    use crate::handler::Tools;
    use crate::server::{Server, ServerInfo};

    /// Run the I/O loop over `input` to its end; every answer, parsed, in the order written,
    /// and the number of flushes.
    async fn serve(input: &str, max_message_size: usize) -> (Vec<Value>, usize) {
        let server = Server::new(ServerInfo::new("s", "1")).tools(
            Tools::new()
                .with(named("echo"))
                .with(scripted("sleep", Behaviour::Sleep)),
        );
        let recorder = Recorder::default();
        let output = Output::new(recorder.clone());
        let (answers, mut writer) = spawn_writer(output.clone()).unwrap();
        let calls = Calls::new(answers);
        let mut io_thread = IoThread {
            dispatcher: server.dispatcher().unwrap(),
            session: Session::new(),
            output,
            calls: calls.clone(),
            runtime: Handle::current(),
            max_message_size,
            stopping: Arc::default(),
        };
        let mut reader = BufReader::with_capacity(READ_BUFFER, Cursor::new(input.to_owned()));
        let end = io_thread.serve(&mut reader).unwrap();
        assert!(matches!(end, End::InputClosed), "{end:?}");
        let flushes = *recorder.flushes.lock().unwrap();
        calls
            .finish(Duration::from_secs(10), &InFlight::default())
            .await;
        writer.stopped().await;
        let answers = recorder
            .lines()
            .iter()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        (answers, flushes)
    }

    fn lines(messages: &[Value]) -> String {
        messages.iter().map(|m| format!("{m}\n")).collect()
    }

    fn initialize() -> Value {
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}}})
    }

    fn call(id: i64, name: &str, arguments: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}})
    }

    #[tokio::test]
    async fn a_burst_of_immediate_calls_is_answered_with_few_flushes() {
        let mut messages = vec![initialize()];
        messages.extend((1..=200).map(|id| call(id, "echo", json!({"n": id}))));
        let (answers, flushes) = serve(&lines(&messages), 1 << 20).await;
        assert_eq!(answers.len(), 201);
        for (id, answer) in answers.iter().enumerate() {
            assert_eq!(answer["id"], json!(id), "answered in order");
        }
        // One before the first read, one once the burst is answered, one at the end.
        assert!(flushes <= 3, "{flushes} flushes for 201 answers");
    }

    #[tokio::test]
    async fn a_call_that_waits_is_answered_later_and_others_meanwhile() {
        let messages = [
            initialize(),
            call(1, "sleep", json!({"ms": 50})),
            call(2, "echo", json!({})),
        ];
        let (answers, _) = serve(&lines(&messages), 1 << 20).await;
        let ids: Vec<&Value> = answers.iter().map(|answer| &answer["id"]).collect();
        assert_eq!(ids, [&json!(0), &json!(2), &json!(1)]);
        assert_eq!(answers[2]["result"]["content"][0]["text"], json!("slept"));
    }

    #[tokio::test]
    async fn blank_lines_are_skipped_and_oversize_lines_answered_with_an_error() {
        let big = format!("{}\n", call(1, "echo", json!({"pad": "x".repeat(500)})));
        let input = format!(
            "\n  \r\n{big}{}\n",
            json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        );
        let (answers, _) = serve(&input, 200).await;
        assert_eq!(answers.len(), 2);
        assert_eq!(answers[0]["id"], Value::Null);
        assert_eq!(answers[0]["error"]["code"], json!(-32600));
        assert!(
            answers[0]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("200 bytes")
        );
        assert_eq!(answers[1], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    }

    #[test]
    fn the_coarse_clock_is_monotonic_and_advances() {
        let before = coarse_clock::now();
        std::thread::sleep(Duration::from_millis(50));
        let after = coarse_clock::now();
        let elapsed = after.saturating_sub(before);
        // Within a scheduler tick (at most 10 ms at 100 Hz) of the time slept.
        assert!(elapsed >= Duration::from_millis(35), "{elapsed:?}");
        assert!(coarse_clock::now() >= after);
    }

    #[tokio::test]
    async fn a_stop_request_ends_the_loop() {
        let server = Server::new(ServerInfo::new("s", "1"));
        let output = Output::new(Recorder::default());
        let (answers, _writer) = spawn_writer(output.clone()).unwrap();
        let mut io_thread = IoThread {
            dispatcher: server.dispatcher().unwrap(),
            session: Session::new(),
            output,
            calls: Calls::new(answers),
            runtime: Handle::current(),
            max_message_size: 1024,
            stopping: Arc::new(AtomicBool::new(true)),
        };
        let mut reader = BufReader::new(Cursor::new(b"{}\n".to_vec()));
        assert!(matches!(
            io_thread.serve(&mut reader).unwrap(),
            End::Stopped
        ));
    }
}
