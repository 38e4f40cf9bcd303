//! The timed workloads, run by the driver's single-threaded tokio runtime against one server
//! process each.

use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::client::{Connection, Reply, is_result};
use crate::requests::{self, ECHO_TEXT};
use crate::server::{ServerProcess, cpu_time_of};

/// Which revision's calls a workload makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Era {
    /// Stateless 2026-07-28 calls.
    Modern,
    /// Stateless 2026-07-28 calls from a client that declares the capabilities clients
    /// typically do and asks for progress: what interactive clients send.
    ModernDeclaring,
    /// 2025-11-25 calls, each connection in a session of its own.
    Legacy,
}

impl Era {
    pub fn label(self) -> &'static str {
        match self {
            Era::Modern => "2026-07-28 stateless `tools/call` (echo)",
            Era::ModernDeclaring => {
                "2026-07-28 stateless `tools/call` (echo), declaring capabilities and a progress token"
            }
            Era::Legacy => "2025-11-25 `tools/call` (echo) in a session",
        }
    }

    /// The numbers of connections it is measured over: the declaring client's cost shows at
    /// one load, and more would lengthen every run.
    pub fn connections(self) -> &'static [usize] {
        match self {
            Era::ModernDeclaring => &[16],
            Era::Modern | Era::Legacy => &crate::CONNECTIONS,
        }
    }

    /// The era in a table's column.
    pub fn short_label(self) -> &'static str {
        match self {
            Era::Modern => "2026-07-28",
            Era::ModernDeclaring => "2026-07-28, capabilities and progress token",
            Era::Legacy => "2025-11-25 session",
        }
    }
}

/// One closed-loop run's figures.
#[derive(Debug, Clone, Copy)]
pub struct Throughput {
    pub requests_per_second: f64,
    pub p50_micros: f64,
    pub p99_micros: f64,
    pub cpu_micros_per_request: f64,
    /// The driver's own CPU per request: near the inverse of its requests/s, it is the
    /// driver that limits the figures, not the server.
    pub driver_micros_per_request: f64,
    /// How many requests were answered in the measured part.
    pub requests: usize,
}

impl Throughput {
    /// Figure by figure, the better of the two: other work on the machine only ever makes a
    /// figure worse.
    pub fn best(self, other: Throughput) -> Throughput {
        Throughput {
            requests_per_second: self.requests_per_second.max(other.requests_per_second),
            p50_micros: self.p50_micros.min(other.p50_micros),
            p99_micros: self.p99_micros.min(other.p99_micros),
            cpu_micros_per_request: self
                .cpu_micros_per_request
                .min(other.cpu_micros_per_request),
            driver_micros_per_request: self
                .driver_micros_per_request
                .min(other.driver_micros_per_request),
            requests: self.requests.max(other.requests),
        }
    }
}

fn failed(what: impl std::fmt::Display) -> io::Error {
    io::Error::other(what.to_string())
}

/// `reply` is a 200 carrying a JSON-RPC result, or an error naming `what` was answered.
fn a_result(connection: &Connection, reply: &Reply, what: &str) -> io::Result<()> {
    if reply.status == 200 && is_result(connection.body(reply)) {
        return Ok(());
    }
    Err(failed(format!(
        "{what} answered {}: {}",
        reply.status,
        String::from_utf8_lossy(connection.body(reply))
    )))
}

/// Opens a legacy session on `connection`: `initialize`, then `notifications/initialized`.
async fn open_session(connection: &mut Connection, addr: SocketAddr) -> io::Result<String> {
    let reply = connection
        .exchange(&requests::initialize(addr), true)
        .await?;
    a_result(connection, &reply, "initialize")?;
    let session = reply
        .session
        .ok_or_else(|| failed("initialize answered without an Mcp-Session-Id"))?;
    let reply = connection
        .exchange(&requests::initialized(addr, &session), false)
        .await?;
    if reply.status != 202 {
        return Err(failed(format!(
            "notifications/initialized answered {}",
            reply.status
        )));
    }
    Ok(session)
}

/// A connection ready to call `echo` in `era`, and the request it repeats; its first call is
/// checked to echo the text back.
async fn prepare(addr: SocketAddr, era: Era) -> io::Result<(Connection, Vec<u8>)> {
    let mut connection = Connection::open(addr).await?;
    let request = match era {
        Era::Modern => requests::modern_echo(addr),
        Era::ModernDeclaring => requests::modern_echo_declaring(addr),
        Era::Legacy => {
            let session = open_session(&mut connection, addr).await?;
            requests::legacy_echo(addr, &session)
        }
    };
    let reply = connection.exchange(&request, false).await?;
    let body = connection.body(&reply);
    if reply.status != 200 || !is_result(body) || !String::from_utf8_lossy(body).contains(ECHO_TEXT)
    {
        return Err(failed(format!(
            "echo answered {}: {}",
            reply.status,
            String::from_utf8_lossy(body)
        )));
    }
    Ok((connection, request))
}

/// `connections` connections ready to call `echo` in `era` (legacy ones each in a session of
/// their own), with the request each repeats.
pub async fn prepare_all(
    addr: SocketAddr,
    era: Era,
    connections: usize,
) -> io::Result<Vec<(Connection, Vec<u8>)>> {
    let mut prepared = Vec::with_capacity(connections);
    for number in 0..connections {
        let connection = prepare(addr, era).await.map_err(|error| {
            io::Error::new(
                error.kind(),
                format!("preparing connection {number}: {error}"),
            )
        })?;
        prepared.push(connection);
    }
    Ok(prepared)
}

/// Exactly `calls` calls on each of `prepared`'s connections, all at once, each sent as soon
/// as the connection's last is answered; every answer is checked. The connections come back
/// for the next batch, so what a batch costs the server is its calls and nothing else.
pub async fn exact_calls(
    prepared: Vec<(Connection, Vec<u8>)>,
    calls: usize,
) -> io::Result<Vec<(Connection, Vec<u8>)>> {
    let mut tasks = Vec::with_capacity(prepared.len());
    for (mut connection, request) in prepared {
        tasks.push(tokio::spawn(async move {
            for _ in 0..calls {
                let reply = connection.exchange(&request, false).await?;
                a_result(&connection, &reply, "a call")?;
            }
            Ok::<_, io::Error>((connection, request))
        }));
    }
    let mut back = Vec::with_capacity(tasks.len());
    for task in tasks {
        back.push(task.await.map_err(failed)??);
    }
    Ok(back)
}

/// `connections` keep-alive connections, each calling `echo` as soon as its last call is
/// answered, for `warm_up` and then `measure`: requests/s, latency and server CPU per request
/// of the measured part.
pub async fn throughput(
    server: &ServerProcess,
    era: Era,
    connections: usize,
    warm_up: Duration,
    measure: Duration,
) -> io::Result<Throughput> {
    let [figures] = closed_loop(
        [(server.addr, Some(server))],
        era,
        connections,
        warm_up,
        measure,
    )
    .await?;
    Ok(figures)
}

/// [`throughput`] of two servers at once, each over `connections` connections of its own, on
/// the same CPU: whatever else slows the machine slows both alike, so the ratio of their
/// figures stays steady while each figure moves.
pub async fn side_by_side(
    servers: [&ServerProcess; 2],
    era: Era,
    connections: usize,
    warm_up: Duration,
    measure: Duration,
) -> io::Result<[Throughput; 2]> {
    closed_loop(
        servers.map(|server| (server.addr, Some(server))),
        era,
        connections,
        warm_up,
        measure,
    )
    .await
}

/// [`throughput`] against a server this process did not start (no server CPU is read).
pub async fn load(
    addr: SocketAddr,
    era: Era,
    connections: usize,
    measure: Duration,
) -> io::Result<Throughput> {
    let [figures] = closed_loop([(addr, None)], era, connections, Duration::ZERO, measure).await?;
    Ok(figures)
}

/// The calls one connection answered in the measured part, by latency.
type Latencies = Vec<u32>;

/// Loads every target over `connections` connections of its own, all in the same windows
/// of time; the server CPU of each target with a process is read at the same moments.
async fn closed_loop<const N: usize>(
    targets: [(SocketAddr, Option<&ServerProcess>); N],
    era: Era,
    connections: usize,
    warm_up: Duration,
    measure: Duration,
) -> io::Result<[Throughput; N]> {
    let server_cpu =
        |server: Option<&ServerProcess>| server.map_or(Ok(Duration::ZERO), ServerProcess::cpu_time);
    let mut prepared = Vec::with_capacity(N);
    for (addr, _) in targets {
        prepared.push(prepare_all(addr, era, connections).await?.into_iter());
    }
    let measure_from = Instant::now() + warm_up;
    let stop = measure_from + measure;
    // Spawned in turn, one connection of each target after the other: no target's calls
    // start ahead of the other's.
    let mut tasks: Vec<Vec<tokio::task::JoinHandle<io::Result<Latencies>>>> =
        (0..N).map(|_| Vec::with_capacity(connections)).collect();
    for _ in 0..connections {
        for (target, ready) in prepared.iter_mut().enumerate() {
            let Some((connection, request)) = ready.next() else {
                continue;
            };
            tasks[target].push(tokio::spawn(calls_until(
                connection,
                request,
                measure_from,
                stop,
            )));
        }
    }
    tokio::time::sleep_until(measure_from.into()).await;
    let mut cpu_before = [Duration::ZERO; N];
    for (cpu, (_, server)) in cpu_before.iter_mut().zip(&targets) {
        *cpu = server_cpu(*server)?;
    }
    let (started, driver_before) = (Instant::now(), cpu_time_of("self")?);
    tokio::time::sleep_until(stop.into()).await;
    let mut cpu_after = [Duration::ZERO; N];
    for (cpu, (_, server)) in cpu_after.iter_mut().zip(&targets) {
        *cpu = server_cpu(*server)?;
    }
    let (ended, driver_after) = (Instant::now(), cpu_time_of("self")?);
    let mut latencies: Vec<Latencies> = Vec::with_capacity(N);
    for target_tasks in tasks {
        let mut all = Vec::new();
        for task in target_tasks {
            all.extend(task.await.map_err(failed)??);
        }
        if all.is_empty() {
            return Err(failed("no call was answered while measuring"));
        }
        all.sort_unstable();
        latencies.push(all);
    }
    // The driver served every target at once: its CPU is per request of them all.
    let all_requests: usize = latencies.iter().map(Vec::len).sum();
    let driver = micros(driver_after.saturating_sub(driver_before)) / all_requests as f64;
    let seconds = (ended - started).as_secs_f64();
    Ok(std::array::from_fn(|target| {
        let latencies = &latencies[target];
        let cpu = micros(cpu_after[target].saturating_sub(cpu_before[target]));
        let requests = latencies.len() as f64;
        let percentile = |percent: usize| {
            f64::from(latencies[(latencies.len() * percent / 100).min(latencies.len() - 1)])
        };
        Throughput {
            requests_per_second: requests / seconds,
            p50_micros: percentile(50),
            p99_micros: percentile(99),
            cpu_micros_per_request: cpu / requests,
            driver_micros_per_request: driver,
            requests: latencies.len(),
        }
    }))
}

/// One connection's calls: each sent as soon as the last is answered, until `stop`; the
/// latencies of those answered from `measure_from` on.
async fn calls_until(
    mut connection: Connection,
    request: Vec<u8>,
    measure_from: Instant,
    stop: Instant,
) -> io::Result<Latencies> {
    let mut latencies: Latencies = Vec::with_capacity(1 << 16);
    let began = Instant::now();
    loop {
        let sent = Instant::now();
        if sent >= stop {
            return Ok(latencies);
        }
        let reply = connection
            .exchange(&request, false)
            .await
            .map_err(|error| {
                io::Error::new(
                    error.kind(),
                    format!("a call {:?} into the run: {error}", began.elapsed()),
                )
            })?;
        let answered = Instant::now();
        a_result(&connection, &reply, "a call")?;
        if answered >= measure_from && answered < stop {
            let micros = (answered - sent).as_micros();
            latencies.push(u32::try_from(micros).unwrap_or(u32::MAX));
        }
    }
}

/// What opening legacy sessions costs, and what an idle one holds.
#[derive(Debug, Clone, Copy)]
pub struct SessionCosts {
    /// `initialize` latency p50, and server CPU per session opened (`initialize` and
    /// `notifications/initialized`), with few sessions open.
    pub open_p50_few: f64,
    pub open_cpu_few: f64,
    /// The same with `many` more sessions open.
    pub open_p50_many: f64,
    pub open_cpu_many: f64,
    pub many: usize,
    /// Resident memory per idle session, over the `many`.
    pub bytes_per_idle_session: f64,
}

impl SessionCosts {
    pub fn best(self, other: SessionCosts) -> SessionCosts {
        SessionCosts {
            open_p50_few: self.open_p50_few.min(other.open_p50_few),
            open_cpu_few: self.open_cpu_few.min(other.open_cpu_few),
            open_p50_many: self.open_p50_many.min(other.open_p50_many),
            open_cpu_many: self.open_cpu_many.min(other.open_cpu_many),
            many: self.many,
            bytes_per_idle_session: self
                .bytes_per_idle_session
                .min(other.bytes_per_idle_session),
        }
    }
}

/// `initialize` latency p50 (µs) and server CPU per session opened (µs), over `count`
/// sessions opened one after another on `connection`.
async fn open_sessions_timed(
    server: &ServerProcess,
    connection: &mut Connection,
    count: usize,
) -> io::Result<(f64, f64)> {
    let mut latencies = Vec::with_capacity(count);
    let cpu_before = server.cpu_time()?;
    for _ in 0..count {
        let sent = Instant::now();
        open_session(connection, server.addr).await?;
        latencies.push(sent.elapsed());
    }
    let cpu = server.cpu_time()?.saturating_sub(cpu_before);
    latencies.sort_unstable();
    Ok((
        micros(latencies[latencies.len() / 2]),
        micros(cpu) / count as f64,
    ))
}

/// On a fresh server: sessions opened with few open, then `many` more opened (over 16
/// connections), the memory they hold, and sessions opened again.
pub async fn session_costs(
    server: &ServerProcess,
    timed: usize,
    many: usize,
) -> io::Result<SessionCosts> {
    let mut connection = Connection::open(server.addr).await?;
    for _ in 0..timed / 4 {
        open_session(&mut connection, server.addr).await?;
    }
    let (open_p50_few, open_cpu_few) = open_sessions_timed(server, &mut connection, timed).await?;
    let before = server.rss_bytes()?;
    let mut openers = Vec::new();
    const OPENERS: usize = 16;
    for part in 0..OPENERS {
        let addr = server.addr;
        let count = many / OPENERS + usize::from(part < many % OPENERS);
        openers.push(tokio::spawn(async move {
            let mut connection = Connection::open(addr).await?;
            for _ in 0..count {
                open_session(&mut connection, addr).await?;
            }
            Ok::<_, io::Error>(())
        }));
    }
    for opener in openers {
        opener.await.map_err(failed)??;
    }
    let after = server.rss_bytes()?;
    // A new connection: the first one may have sat idle past the server's idle timeout while
    // the others opened sessions.
    let mut connection = Connection::open(server.addr).await?;
    let (open_p50_many, open_cpu_many) =
        open_sessions_timed(server, &mut connection, timed).await?;
    Ok(SessionCosts {
        open_p50_few,
        open_cpu_few,
        open_p50_many,
        open_cpu_many,
        many,
        bytes_per_idle_session: after.saturating_sub(before) as f64 / many as f64,
    })
}

/// Resident memory per idle keep-alive connection (which made one call in a session of its
/// own), then per GET stream open on such a connection (the connection's own memory not
/// counted).
pub async fn stream_costs(server: &ServerProcess, count: usize) -> io::Result<(f64, f64)> {
    let mut sessions = Vec::with_capacity(count);
    let mut opener = Connection::open(server.addr).await?;
    for _ in 0..count {
        sessions.push(open_session(&mut opener, server.addr).await?);
    }
    let before = server.rss_bytes()?;
    let mut connections = Vec::with_capacity(count);
    for session in &sessions {
        let mut connection = Connection::open(server.addr).await?;
        let reply = connection
            .exchange(&requests::legacy_echo(server.addr, session), false)
            .await?;
        if reply.status != 200 {
            return Err(failed(format!("echo answered {}", reply.status)));
        }
        connections.push(connection);
    }
    let idle = server.rss_bytes()?;
    for (connection, session) in connections.iter_mut().zip(&sessions) {
        let status = connection
            .open_stream(&requests::open_stream(server.addr, session))
            .await?;
        if status != 200 {
            return Err(failed(format!(
                "GET (a session's stream) answered {status}"
            )));
        }
    }
    let streaming = server.rss_bytes()?;
    drop(connections);
    Ok((
        idle.saturating_sub(before) as f64 / count as f64,
        streaming.saturating_sub(idle) as f64 / count as f64,
    ))
}

/// Resident memory per running task (a 2026-07-28 `tools/call` of `wait`, which becomes a
/// task and runs until cancelled).
pub async fn task_costs(server: &ServerProcess, count: usize) -> io::Result<f64> {
    let mut connection = Connection::open(server.addr).await?;
    for id in 0..count as u64 / 10 {
        start_task(&mut connection, server.addr, id).await?;
    }
    let before = server.rss_bytes()?;
    for id in 0..count as u64 {
        start_task(&mut connection, server.addr, 1_000_000 + id).await?;
    }
    let after = server.rss_bytes()?;
    Ok(after.saturating_sub(before) as f64 / count as f64)
}

async fn start_task(connection: &mut Connection, addr: SocketAddr, id: u64) -> io::Result<()> {
    let reply = connection
        .exchange(&requests::modern_task(addr, id), false)
        .await?;
    let body = String::from_utf8_lossy(connection.body(&reply));
    if reply.status != 200 || !body.contains("taskId") {
        return Err(failed(format!(
            "a task call answered {}: {body}",
            reply.status
        )));
    }
    Ok(())
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}
