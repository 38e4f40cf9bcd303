//! A server under test: a child process spoken to over real pipes, and what /proc says about it.

use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// How to start one server: a binary and its arguments.
#[derive(Debug, Clone)]
pub struct ServerCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
}

impl ServerCommand {
    pub fn new(program: PathBuf, args: &[&str]) -> Self {
        ServerCommand {
            program,
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
        }
    }

    pub fn display(&self) -> String {
        let mut shown = self.program.display().to_string();
        for arg in &self.args {
            shown.push(' ');
            shown.push_str(arg);
        }
        shown
    }
}

/// Where the servers' stderr goes, one file per harness run.
pub fn stderr_log() -> PathBuf {
    std::env::temp_dir().join(format!("mcp-bench-{}-servers.log", std::process::id()))
}

/// A running server. Requests are written without flushing, so that a burst goes out in one
/// write; `flush` (or `round_trip`) sends them.
pub struct ServerProcess {
    child: Child,
    /// `None` once closed, which asks the server to exit.
    stdin: Option<BufWriter<ChildStdin>>,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl ServerProcess {
    /// Spawns the server. Its stderr is appended to [`stderr_log`], as MCP clients keep it in a
    /// log file: logging to a terminal would both clutter the report and slow the server.
    pub fn spawn(command: &ServerCommand) -> io::Result<Self> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(stderr_log())?;
        let mut child = Command::new(&command.program)
            .args(&command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(|error| {
                io::Error::new(error.kind(), format!("{}: {error}", command.display()))
            })?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        Ok(ServerProcess {
            child,
            // Large buffers: an 8 MiB argument goes out and comes back in few system calls.
            stdin: Some(BufWriter::with_capacity(1 << 16, stdin)),
            stdout: BufReader::with_capacity(1 << 16, stdout),
            line: String::new(),
        })
    }

    /// Queues one message (a newline is added).
    pub fn send(&mut self, message: &str) -> io::Result<()> {
        let stdin = self.stdin()?;
        stdin.write_all(message.as_bytes())?;
        stdin.write_all(b"\n")
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.stdin()?.flush()
    }

    fn stdin(&mut self) -> io::Result<&mut BufWriter<ChildStdin>> {
        self.stdin
            .as_mut()
            .ok_or_else(|| io::Error::new(io::ErrorKind::BrokenPipe, "stdin is closed"))
    }

    /// Reads the next line the server writes, without its newline.
    pub fn receive(&mut self) -> io::Result<&str> {
        self.line.clear();
        if self.stdout.read_line(&mut self.line)? == 0 {
            let log = stderr_log();
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the server closed stdout; its stderr is in {}",
                    log.display()
                ),
            ));
        }
        Ok(self.line.trim_end_matches('\n'))
    }

    /// Whether a whole or partial message is already read and waiting in our buffer.
    pub fn has_buffered_output(&self) -> bool {
        !self.stdout.buffer().is_empty()
    }

    /// Sends one request and waits for the next line, which must be its answer.
    pub fn round_trip(&mut self, request: &str) -> io::Result<&str> {
        self.send(request)?;
        self.flush()?;
        self.receive()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The peak resident set size so far (VmHWM), in bytes.
    pub fn peak_rss_bytes(&self) -> io::Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))?;
        let kib = status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|value| {
                value
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
            .ok_or_else(|| io::Error::other("no VmHWM in /proc/<pid>/status"))?;
        Ok(kib * 1024)
    }

    /// CPU time charged to the server so far, every thread included: the sum of the threads'
    /// `/proc/<pid>/task/<tid>/schedstat` (nanoseconds), or else utime + stime of
    /// `/proc/<pid>/stat` (10 ms ticks, too coarse for short runs).
    pub fn cpu_time(&self) -> io::Result<Duration> {
        self.scheduled_time().or_else(|_| self.utime_plus_stime())
    }

    fn scheduled_time(&self) -> io::Result<Duration> {
        let mut nanos = 0;
        for task in std::fs::read_dir(format!("/proc/{}/task", self.pid()))? {
            let schedstat = std::fs::read_to_string(task?.path().join("schedstat"))?;
            nanos += schedstat
                .split_whitespace()
                .next()
                .and_then(|on_cpu| on_cpu.parse::<u64>().ok())
                .ok_or_else(|| io::Error::other("malformed schedstat"))?;
        }
        Ok(Duration::from_nanos(nanos))
    }

    fn utime_plus_stime(&self) -> io::Result<Duration> {
        /// The unit of `/proc/<pid>/stat` times (USER_HZ), 100 Hz on every common Linux.
        const TICK: Duration = Duration::from_millis(10);
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid()))?;
        // The command name in parentheses may hold spaces; the fields after it are positional.
        let after_name = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest)
            .ok_or_else(|| io::Error::other("malformed /proc/<pid>/stat"))?;
        let fields: Vec<&str> = after_name.split_whitespace().collect();
        // utime and stime are fields 14 and 15 of the line; 3 is the first after the name.
        let field = |number: usize| fields.get(number - 3).and_then(|f| f.parse::<u32>().ok());
        match (field(14), field(15)) {
            (Some(utime), Some(stime)) => Ok(TICK * (utime + stime)),
            _ => Err(io::Error::other("no utime/stime in /proc/<pid>/stat")),
        }
    }

    /// Closes stdin, which asks the server to exit, and waits for it (killing it after `patience`).
    pub fn finish(mut self, patience: Duration) -> io::Result<()> {
        if let Some(mut stdin) = self.stdin.take() {
            stdin.flush()?;
        }
        let deadline = Instant::now() + patience;
        while Instant::now() < deadline {
            if self.child.try_wait()?.is_some() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        self.child.kill()?;
        self.child.wait().map(drop)
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // After `finish` the server is gone already; on an error path it may not be, and no
        // server may outlive the harness.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
