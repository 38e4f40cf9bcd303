//! A server under test: a child process listening on a loopback port, and what /proc says
//! about it (CPU time of all its threads, resident memory).

use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One server the benchmark measures: how to start it for each era.
#[derive(Debug, Clone)]
pub struct Subject {
    /// Its column in the report.
    pub name: String,
    pub program: PathBuf,
    /// The arguments after the address, for 2026-07-28 calls and for legacy sessions.
    pub modern_args: Vec<String>,
    pub legacy_args: Vec<String>,
    /// Whether it serves GET streams and tasks (the memory figures that need them).
    pub streams: bool,
    pub tasks: bool,
    /// Whether it is also measured side by side with the baseline (the goals' figures).
    pub side_by_side: bool,
}

impl Subject {
    /// The arguments after the address for `era`'s calls.
    pub fn args_for(&self, era: crate::workloads::Era) -> &[String] {
        use crate::workloads::Era;
        match era {
            Era::Modern | Era::ModernDeclaring => &self.modern_args,
            Era::Legacy => &self.legacy_args,
        }
    }
}

/// Where the servers' stderr goes.
pub fn stderr_log() -> PathBuf {
    std::env::temp_dir().join(format!("mcp-bench-http-{}-servers.log", std::process::id()))
}

/// A running server.
pub struct ServerProcess {
    child: Child,
    pub addr: SocketAddr,
}

/// A free loopback port, as the kernel picks one.
fn free_port() -> io::Result<SocketAddr> {
    TcpListener::bind("127.0.0.1:0")?.local_addr()
}

impl ServerProcess {
    /// Starts `program ADDR args...` (on CPU `pin`, when given) and waits until it accepts
    /// connections.
    pub fn spawn(
        program: &PathBuf,
        args: &[String],
        pin: Option<usize>,
    ) -> io::Result<ServerProcess> {
        Self::spawn_under(&[], program, args, pin)
    }

    /// [`spawn`](Self::spawn), the program run by `wrapper` (`valgrind --tool=callgrind`,
    /// say): `wrapper... program ADDR args...`.
    pub fn spawn_under(
        wrapper: &[String],
        program: &PathBuf,
        args: &[String],
        pin: Option<usize>,
    ) -> io::Result<ServerProcess> {
        let addr = free_port()?;
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(stderr_log())?;
        let mut line: Vec<std::ffi::OsString> = Vec::new();
        if let Some(cpu) = pin {
            line.extend([
                "taskset".into(),
                "--cpu-list".into(),
                cpu.to_string().into(),
            ]);
        }
        line.extend(wrapper.iter().map(Into::into));
        line.push(program.into());
        let mut command = Command::new(&line[0]);
        command.args(&line[1..]);
        let child = command
            .arg(addr.to_string())
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .env(
                "MCP_LOG",
                std::env::var("MCP_BENCH_SERVER_LOG").unwrap_or_else(|_| "warn".to_owned()),
            )
            .spawn()
            .map_err(|error| {
                io::Error::new(error.kind(), format!("{}: {error}", program.display()))
            })?;
        let mut server = ServerProcess { child, addr };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if TcpStream::connect(addr).is_ok() {
                return Ok(server);
            }
            if let Some(status) = server.child.try_wait()? {
                return Err(io::Error::other(format!(
                    "{} exited ({status}) before listening; its stderr is in {}",
                    program.display(),
                    stderr_log().display()
                )));
            }
            if Instant::now() > deadline {
                return Err(io::Error::other(format!(
                    "{} did not listen within 30 s",
                    program.display()
                )));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// CPU time charged to every thread of the server so far.
    pub fn cpu_time(&self) -> io::Result<Duration> {
        cpu_time_of(&self.pid().to_string())
    }

    /// The resident set size now (VmRSS), in bytes.
    pub fn rss_bytes(&self) -> io::Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))?;
        let kib = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| {
                value
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
            .ok_or_else(|| io::Error::other("no VmRSS in /proc/<pid>/status"))?;
        Ok(kib * 1024)
    }
}

/// CPU time charged to every thread of process `pid` (or `self`) so far: the sum of
/// `/proc/<pid>/task/<tid>/schedstat`'s time on a CPU (nanoseconds).
pub fn cpu_time_of(pid: &str) -> io::Result<Duration> {
    let mut nanos = 0;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        // A thread may end between the listing and the read.
        let Ok(schedstat) = std::fs::read_to_string(task?.path().join("schedstat")) else {
            continue;
        };
        nanos += schedstat
            .split_whitespace()
            .next()
            .and_then(|on_cpu| on_cpu.parse::<u64>().ok())
            .ok_or_else(|| io::Error::other("malformed schedstat"))?;
    }
    Ok(Duration::from_nanos(nanos))
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `redis-server` of the benchmark's own, for the "Redis stores" column: on a free loopback
/// port, keeping nothing on disk, on the driver's CPUs (not the servers').
pub struct RedisProcess {
    child: Child,
    pub url: String,
}

impl RedisProcess {
    /// Starts one and waits until it answers `PING`; `None` when `redis-server` is not
    /// installed (`tests/shared_state/install-redis.sh` installs it).
    pub fn spawn() -> io::Result<Option<RedisProcess>> {
        let addr = free_port()?;
        let spawned = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &addr.port().to_string()])
            .args(["--save", "", "--appendonly", "no", "--protected-mode", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let child = match spawned {
            Ok(child) => child,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(error),
        };
        let mut redis = RedisProcess {
            child,
            url: format!("redis://{addr}/"),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if ping(addr).is_ok() {
                return Ok(Some(redis));
            }
            if let Some(status) = redis.child.try_wait()? {
                return Err(io::Error::other(format!(
                    "redis-server exited ({status}) before answering"
                )));
            }
            if Instant::now() > deadline {
                return Err(io::Error::other("redis-server did not answer within 30 s"));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// `PING` in RESP, answered `+PONG`.
fn ping(addr: SocketAddr) -> io::Result<()> {
    use std::io::{Read, Write};
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(1)))?;
    stream.write_all(b"*1\r\n$4\r\nPING\r\n")?;
    let mut answer = [0; 7];
    stream.read_exact(&mut answer)?;
    if &answer == b"+PONG\r\n" {
        Ok(())
    } else {
        Err(io::Error::other(
            "redis-server answered PING with something else",
        ))
    }
}

impl Drop for RedisProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
