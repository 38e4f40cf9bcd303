//! A server binary running as a child process, spoken to over real pipes.
//!
//! Knows lines and processes only; what the lines mean is `client.rs`'s business.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How long any single wait may take before the test fails instead of hanging. Not a
/// performance bound: every awaited event normally happens within milliseconds.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// One line the server wrote to stdout.
#[derive(Debug)]
pub enum StdoutLine {
    /// A line that parses as JSON.
    Json(serde_json::Value),
    /// A line that does not: stdout must carry nothing but protocol messages.
    NotJson(String),
}

/// What waiting for the next stdout line produced.
#[derive(Debug)]
pub enum Next {
    /// The server wrote a line.
    Line(StdoutLine),
    /// The server closed stdout (usually: it exited).
    Closed,
    /// Nothing arrived within the wait.
    Silent,
}

/// A running server with piped stdin, stdout and stderr. Killed on drop if still running.
pub struct ServerProcess {
    program: PathBuf,
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Receiver<StdoutLine>,
    stderr: Arc<Mutex<String>>,
    /// Disconnects when stderr has been read to its end.
    stderr_ended: Receiver<()>,
}

impl ServerProcess {
    /// The test fixture server (`tests/fixture_server`).
    pub fn fixture() -> Self {
        Self::spawn(Path::new(env!("CARGO_BIN_EXE_fixture-server")))
    }

    /// An example of this workspace, built by `cargo test` next to the test binaries.
    pub fn example(name: &str) -> Self {
        Self::spawn(&example_path(name))
    }

    /// An example started with `args`: its own flags (`--root DIR`).
    pub fn example_with_args<S: AsRef<std::ffi::OsStr>>(name: &str, args: &[S]) -> Self {
        let program = example_path(name);
        let mut command = Command::new(&program);
        command.args(args);
        Self::start(command, &program)
    }

    /// An example started with extra environment variables (a setting made short for a test).
    pub fn example_with_env(name: &str, vars: &[(&str, &str)]) -> Self {
        let program = example_path(name);
        let mut command = Command::new(&program);
        command.envs(vars.iter().copied());
        Self::start(command, &program)
    }

    /// An example started as `configure` sets its command up (arguments, environment).
    pub fn example_with(name: &str, configure: impl FnOnce(&mut Command)) -> Self {
        let program = example_path(name);
        let mut command = Command::new(&program);
        configure(&mut command);
        Self::start(command, &program)
    }

    /// A binary of this workspace started with extra environment variables.
    pub fn spawn_with_env(program: &Path, vars: &[(&str, &str)]) -> Self {
        let mut command = Command::new(program);
        command.envs(vars.iter().copied());
        Self::start(command, program)
    }

    /// `program` started with `args`.
    pub fn spawn_with_args<S: AsRef<std::ffi::OsStr>>(program: &Path, args: &[S]) -> Self {
        let mut command = Command::new(program);
        command.args(args);
        Self::start(command, program)
    }

    /// A `sh` script standing in for a server, to prove the client's checks can fail.
    #[cfg(unix)]
    pub fn shell(script: &str) -> Self {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        Self::start(command, Path::new("sh"))
    }

    /// Start `program` with all three standard streams piped.
    pub fn spawn(program: &Path) -> Self {
        Self::start(Command::new(program), program)
    }

    fn start(mut command: Command, program: &Path) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {}: {error}", program.display()));
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (stderr, stderr_ended) = collect_stderr(stderr);
        ServerProcess {
            program: program.to_owned(),
            stdin: child.stdin.take(),
            stdout: read_stdout_lines(stdout),
            stderr,
            stderr_ended,
            child,
        }
    }

    /// Write one line (a newline is added) and flush it.
    pub fn write_line(&mut self, line: &str) {
        assert!(
            !line.contains('\n'),
            "a stdio message is one line; this one has a newline"
        );
        let stdin = self.stdin.as_mut().expect("stdin was already closed");
        let written = stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush());
        if let Err(error) = written {
            panic!(
                "cannot write to {}: {error}\nits stderr:\n{}",
                self.program.display(),
                self.stderr()
            );
        }
    }

    /// Write `bytes` exactly as given (several lines at once, a line without its newline) and
    /// flush them.
    pub fn write_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin was already closed");
        if let Err(error) = stdin.write_all(bytes).and_then(|()| stdin.flush()) {
            panic!(
                "cannot write to {}: {error}\nits stderr:\n{}",
                self.program.display(),
                self.stderr()
            );
        }
    }

    /// The next stdout line, waiting at most `wait`.
    pub fn next_line(&mut self, wait: Duration) -> Next {
        match self.stdout.recv_timeout(wait) {
            Ok(line) => Next::Line(line),
            Err(RecvTimeoutError::Timeout) => Next::Silent,
            Err(RecvTimeoutError::Disconnected) => Next::Closed,
        }
    }

    /// A stdout line that has already arrived, without waiting.
    pub fn arrived_line(&mut self) -> Option<StdoutLine> {
        self.stdout.try_recv().ok()
    }

    /// Close the server's stdin: the client is going away.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Ask the server to stop with SIGTERM, the way clients shut a stdio server down.
    #[cfg(unix)]
    pub fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("the `kill` command runs");
        assert!(status.success(), "`kill -TERM` failed: {status}");
    }

    /// Wait for the server to exit and for everything it wrote to stderr to be read (the
    /// exit comes before the reader thread has drained the pipe), failing the test if that has
    /// not happened within [`PATIENCE`].
    pub fn wait_for_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("the child can be polled") {
                let left = deadline.saturating_duration_since(Instant::now());
                let ended = self.stderr_ended.recv_timeout(left);
                assert!(
                    matches!(ended, Err(RecvTimeoutError::Disconnected)),
                    "{} exited but its stderr stayed open for {PATIENCE:?}",
                    self.program.display()
                );
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "{} did not exit within {PATIENCE:?}\nits stderr:\n{}",
                self.program.display(),
                self.stderr()
            );
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Wait until the server's stderr contains `needle`, failing the test after [`PATIENCE`].
    pub fn wait_for_stderr(&self, needle: &str) {
        self.wait_for_stderr_any(&[needle]);
    }

    /// Wait until the server's stderr contains one of `needles` and return the first one found,
    /// failing the test after [`PATIENCE`].
    pub fn wait_for_stderr_any<'a>(&self, needles: &[&'a str]) -> &'a str {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let stderr = self.stderr();
            if let Some(found) = needles.iter().find(|needle| stderr.contains(**needle)) {
                return found;
            }
            assert!(
                Instant::now() < deadline,
                "{} never wrote any of {needles:?} to stderr within {PATIENCE:?}; its stderr:\n{stderr}",
                self.program.display(),
            );
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Everything the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The program's path, for messages.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// The server's process id (to read its memory use from `/proc`).
    pub fn id(&self) -> u32 {
        self.child.id()
    }
}

/// Where `cargo test` built the example `name`: `target/<profile>/examples/`, next to the test
/// binaries. Fails the test, saying how to build it, when it is missing.
pub fn example_path(name: &str) -> PathBuf {
    let test_binary = std::env::current_exe().expect("the test binary's path");
    // target/<profile>/deps/<test> -> target/<profile>/examples/<name>
    let profile_dir = test_binary
        .parent()
        .and_then(Path::parent)
        .expect("test binaries live in target/<profile>/deps");
    let program = profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        program.exists(),
        "{} is missing: `cargo test` builds examples, `cargo test --test <name>` alone does \
         not; run `cargo build --examples` first",
        program.display()
    );
    program
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Read stdout on its own thread, so waits can time out and a chatty server never blocks.
fn read_stdout_lines(stdout: impl Read + Send + 'static) -> Receiver<StdoutLine> {
    let (sender, receiver) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            match reader.read_until(b'\n', &mut bytes) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&bytes);
            let text = text.strip_suffix('\n').unwrap_or(&text);
            let line = match serde_json::from_str(text) {
                Ok(value) => StdoutLine::Json(value),
                Err(_) => StdoutLine::NotJson(text.to_owned()),
            };
            if sender.send(line).is_err() {
                return;
            }
        }
    });
    receiver
}

/// Drain stderr on its own thread into a buffer that failure messages quote; the receiver
/// disconnects once the stream has ended and all of it is in the buffer.
fn collect_stderr(stderr: impl Read + Send + 'static) -> (Arc<Mutex<String>>, Receiver<()>) {
    let buffer = Arc::new(Mutex::new(String::new()));
    let sink = buffer.clone();
    let (ended, stderr_ended) = std::sync::mpsc::channel::<()>();
    thread::spawn(move || {
        let _ended = ended;
        let mut reader = BufReader::new(stderr);
        let mut line = Vec::new();
        while let Ok(read) = reader.read_until(b'\n', &mut line) {
            if read == 0 {
                return;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&line));
            line.clear();
        }
    });
    (buffer, stderr_ended)
}
