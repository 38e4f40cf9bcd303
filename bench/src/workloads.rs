//! The timed workloads. Each spawns its own server processes and returns figures.

use std::io;
use std::time::{Duration, Instant};

use crate::figures::{Figure, Figures};
use crate::messages::{self, expect_result, first_text};
use crate::server::{ServerCommand, ServerProcess};

/// How much work one round does.
#[derive(Debug, Clone)]
pub struct Settings {
    pub warm_up_calls: u64,
    pub sequential_calls: u64,
    pub pipelined_calls: u64,
    pub in_flight: u64,
    pub list_calls: u64,
    pub startup_runs: usize,
    /// (argument size in bytes, runs) for the echo round trips, 1 MiB then 8 MiB.
    pub echo_runs: [(usize, usize); 2],
}

/// How long a server gets to exit after its stdin closes.
const EXIT_PATIENCE: Duration = Duration::from_secs(5);

/// Every runtime figure of one server: `calls` is the calculator (or its stand-in), `fifty`
/// the 50-tool server.
pub fn measure(
    calls: &ServerCommand,
    fifty: &ServerCommand,
    settings: &Settings,
) -> io::Result<Figures> {
    let mut figures = Figures::default();
    let startup_initialize = startup(calls, settings.startup_runs, &messages::initialize(1))?;
    figures.set(Figure::StartupToInitialize, millis(startup_initialize));
    let startup_discover = startup(calls, settings.startup_runs, &messages::discover(1))?;
    figures.set(Figure::StartupToDiscover, millis(startup_discover));
    call_session(calls, settings, &mut figures)?;
    modern_session(calls, settings, &mut figures)?;
    list_session(fifty, settings, &mut figures)?;
    Ok(figures)
}

/// The median time from spawning the server to reading its answer to `first_request`.
fn startup(command: &ServerCommand, runs: usize, first_request: &str) -> io::Result<Duration> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let mut server = ServerProcess::spawn(command)?;
        let answer = server.round_trip(first_request)?;
        times.push(started.elapsed());
        expect_result(answer, 1)?;
        server.finish(EXIT_PATIENCE)?;
    }
    times.sort();
    Ok(times[times.len() / 2])
}

/// One initialized session: sequential and pipelined `add`, then the large echoes.
fn call_session(
    command: &ServerCommand,
    settings: &Settings,
    figures: &mut Figures,
) -> io::Result<()> {
    let mut server = ServerProcess::spawn(command)?;
    let mut ids = 1..;
    let mut next_id = move || ids.next().expect("ids never run out");
    initialize(&mut server, next_id())?;
    let first = next_id();
    let five = expect_result(server.round_trip(&messages::add(first))?, first)?;
    if first_text(&five) != Some("5") {
        return Err(io::Error::other(format!("add(2, 3) answered {five}")));
    }
    for _ in 0..settings.warm_up_calls {
        server.round_trip(&messages::add(next_id()))?;
    }

    sequential(&mut server, settings, &mut next_id, figures)?;
    let calls = settings.pipelined_calls;
    let before = server.cpu_time()?;
    let calls_per_second = pipelined(&mut server, settings, &mut next_id)?;
    let cpu = cpu_per_call(&server, before, calls)?;
    figures.set(Figure::PipelinedThroughput, calls_per_second);
    figures.set(Figure::PipelinedCpuPerCall, cpu);
    figures.set(Figure::PeakRssAfterCalls, server.peak_rss_bytes()? as f64);

    for ((size, runs), figure) in settings
        .echo_runs
        .into_iter()
        .zip([Figure::Echo1MiB, Figure::Echo8MiB])
    {
        let median = echo_round_trips(&mut server, size, runs, &mut next_id)?;
        figures.set(figure, millis(median));
    }
    figures.set(Figure::PeakRssAfterEcho, server.peak_rss_bytes()? as f64);
    server.finish(EXIT_PATIENCE)
}

/// One `add` at a time: its latency, throughput and server CPU.
fn sequential(
    server: &mut ServerProcess,
    settings: &Settings,
    next_id: &mut impl FnMut() -> u64,
    figures: &mut Figures,
) -> io::Result<()> {
    let calls = settings.sequential_calls;
    let mut latencies = Vec::with_capacity(calls as usize);
    let before = server.cpu_time()?;
    let started = Instant::now();
    for _ in 0..calls {
        let sent = Instant::now();
        server.round_trip(&messages::add(next_id()))?;
        latencies.push(sent.elapsed());
    }
    let elapsed = started.elapsed();
    figures.set(
        Figure::SequentialCpuPerCall,
        cpu_per_call(server, before, calls)?,
    );
    figures.set(Figure::SequentialThroughput, per_second(calls, elapsed));
    latencies.sort();
    figures.set(Figure::SequentialP50, micros(percentile(&latencies, 50)));
    figures.set(Figure::SequentialP99, micros(percentile(&latencies, 99)));
    Ok(())
}

/// Keeps `in_flight` requests outstanding until `pipelined_calls` are answered; answers may
/// come in any order, so they are only counted. Returns the calls/s of the fastest tenth of the
/// stream: a neighbour taking the CPU for a while slows some tenths, not all of them.
fn pipelined(
    server: &mut ServerProcess,
    settings: &Settings,
    next_id: &mut impl FnMut() -> u64,
) -> io::Result<f64> {
    const SLICES: u64 = 10;
    let total = settings.pipelined_calls;
    let slice = (total / SLICES).max(1);
    let mut best_slice = Duration::MAX;
    let mut slice_started = Instant::now();
    let mut sent = 0;
    while sent < settings.in_flight.min(total) {
        server.send(&messages::add(next_id()))?;
        sent += 1;
    }
    server.flush()?;
    for received in 1..=total {
        let answer = server.receive()?;
        if !answer.contains("\"result\"") {
            return Err(io::Error::other(format!("not a result: {answer}")));
        }
        if sent < total {
            server.send(&messages::add(next_id()))?;
            sent += 1;
        }
        // One write per burst of answers already read, as a careful client would.
        if !server.has_buffered_output() {
            server.flush()?;
        }
        if received % slice == 0 {
            best_slice = best_slice.min(slice_started.elapsed());
            slice_started = Instant::now();
        }
    }
    Ok(per_second(slice, best_slice))
}

/// The median round trip of `echo` with a `size`-byte text, checked to come back whole.
fn echo_round_trips(
    server: &mut ServerProcess,
    size: usize,
    runs: usize,
    next_id: &mut impl FnMut() -> u64,
) -> io::Result<Duration> {
    let text = "x".repeat(size);
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let id = next_id();
        let request = messages::echo(id, &text);
        let sent = Instant::now();
        let answer = server.round_trip(&request)?;
        times.push(sent.elapsed());
        let result = expect_result(answer, id)?;
        if first_text(&result).map(str::len) != Some(size) {
            return Err(io::Error::other(format!(
                "echo of {size} bytes came back altered"
            )));
        }
    }
    times.sort();
    Ok(times[times.len() / 2])
}

/// Stateless 2026-07-28 calls on a fresh server: no `initialize`, `_meta` on every request.
fn modern_session(
    command: &ServerCommand,
    settings: &Settings,
    figures: &mut Figures,
) -> io::Result<()> {
    let mut server = ServerProcess::spawn(command)?;
    let five = expect_result(server.round_trip(&messages::modern_add(1))?, 1)?;
    if first_text(&five) != Some("5") {
        return Err(io::Error::other(format!(
            "stateless add(2, 3) answered {five}"
        )));
    }
    let calls = settings.sequential_calls / 2;
    let mut latencies = Vec::with_capacity(calls as usize);
    for id in 2..2 + settings.warm_up_calls + calls {
        let sent = Instant::now();
        server.round_trip(&messages::modern_add(id))?;
        if id >= 2 + settings.warm_up_calls {
            latencies.push(sent.elapsed());
        }
    }
    latencies.sort();
    figures.set(
        Figure::ModernSequentialP50,
        micros(percentile(&latencies, 50)),
    );
    server.finish(EXIT_PATIENCE)
}

/// Sequential `tools/list` on the 50-tool server.
fn list_session(
    command: &ServerCommand,
    settings: &Settings,
    figures: &mut Figures,
) -> io::Result<()> {
    let mut server = ServerProcess::spawn(command)?;
    initialize(&mut server, 1)?;
    let answer = server.round_trip(&messages::tools_list(2))?;
    figures.set(Figure::ToolsListBytes, answer.len() as f64);
    let listed = expect_result(answer, 2)?["tools"]
        .as_array()
        .map_or(0, Vec::len);
    if listed != 50 {
        return Err(io::Error::other(format!(
            "expected 50 tools, {listed} listed"
        )));
    }
    let mut latencies = Vec::with_capacity(settings.list_calls as usize);
    for id in 3..3 + settings.warm_up_calls / 10 + settings.list_calls {
        let sent = Instant::now();
        server.round_trip(&messages::tools_list(id))?;
        if id >= 3 + settings.warm_up_calls / 10 {
            latencies.push(sent.elapsed());
        }
    }
    latencies.sort();
    figures.set(Figure::ToolsListP50, micros(percentile(&latencies, 50)));
    server.finish(EXIT_PATIENCE)
}

fn initialize(server: &mut ServerProcess, id: u64) -> io::Result<()> {
    let result = expect_result(server.round_trip(&messages::initialize(id))?, id)?;
    if result["protocolVersion"] != messages::LEGACY_VERSION {
        return Err(io::Error::other(format!("initialize answered {result}")));
    }
    server.send(messages::INITIALIZED)
}

/// Server CPU time since `before`, per call, in microseconds.
fn cpu_per_call(server: &ServerProcess, before: Duration, calls: u64) -> io::Result<f64> {
    let spent = server.cpu_time()?.saturating_sub(before);
    Ok(micros(spent) / calls as f64)
}

/// The `percent`th percentile of sorted, non-empty `values`.
fn percentile(sorted: &[Duration], percent: usize) -> Duration {
    sorted[(sorted.len() * percent / 100).min(sorted.len() - 1)]
}

fn per_second(calls: u64, elapsed: Duration) -> f64 {
    calls as f64 / elapsed.as_secs_f64()
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
