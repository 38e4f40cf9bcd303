//! The HTTP benchmark driver: this runtime's Streamable HTTP against a minimal hyper JSON-RPC
//! server and rmcp's streamable HTTP server, in one run. See bench/README.md.

mod client;
mod instructions;
mod report;
mod requests;
mod server;
mod side_by_side;
mod workloads;

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use server::{ServerProcess, Subject};
use workloads::{Era, SessionCosts, Throughput};

const USAGE: &str = "\
usage: cargo run --release -p mcp-bench-http -- [options]

  --quick         shorter runs and one round: about a minute
  --smoke         a few hundred calls: checks the harness end to end, measures nothing
  --rounds N      measure N rounds, alternating the servers, and keep each figure's best
                  (default 3, or 1 with --quick and --smoke)
  --pin [CPU]     run every server on one CPU (default 0) and the driver on the others
  --write FILE    also write the report into FILE (BENCHMARKS.md), between its
                  `<!-- HTTP benchmark -->` markers (appended when it has none)
  --no-build      use the binaries already built
  --no-user-profile
                  skip this runtime built with cargo's default release profile
  --no-instructions
                  skip counting each server's instructions per request under callgrind
                  (skipped anyway when valgrind is not installed)
  --instructions-only
                  only count instructions per request (a few minutes; the steady figure to
                  compare builds with `--also`); not with --write
  --goals-only    only measure the goals' ratios, each server side by side with the baseline
                  (a few minutes); not with --write
  --only NAME     measure only the servers whose name contains NAME (the baseline always)
  --load ADDR ERA CONNECTIONS SECONDS
                  only load a server already running at ADDR (e.g. under perf) with ERA
                  (`modern`, `declaring` or `legacy`) calls over CONNECTIONS for SECONDS, and print what
                  the client saw
  --also NAME=BINARY
                  also measure BINARY (a build of bench/http/src/bin/runtime-echo.rs, e.g.
                  from another commit) as the column NAME";

#[derive(Debug, Clone)]
pub struct Options {
    quick: bool,
    smoke: bool,
    rounds: usize,
    pin: Option<usize>,
    write: Option<PathBuf>,
    build: bool,
    user_profile: bool,
    instructions: bool,
    instructions_only: bool,
    goals_only: bool,
    only: Option<String>,
    also: Vec<(String, PathBuf)>,
    arguments: Vec<String>,
}

impl Options {
    fn parse(arguments: Vec<String>) -> Result<Options, String> {
        let mut options = Options {
            quick: false,
            smoke: false,
            rounds: 0,
            pin: None,
            write: None,
            build: true,
            user_profile: true,
            instructions: true,
            instructions_only: false,
            goals_only: false,
            only: None,
            also: Vec::new(),
            arguments: arguments.clone(),
        };
        let mut rest = arguments.into_iter().peekable();
        while let Some(argument) = rest.next() {
            match argument.as_str() {
                "--quick" => options.quick = true,
                "--smoke" => options.smoke = true,
                "--rounds" => {
                    options.rounds = rest
                        .next()
                        .and_then(|rounds| rounds.parse().ok())
                        .filter(|rounds| *rounds > 0)
                        .ok_or("--rounds needs a positive number")?;
                }
                "--pin" => {
                    let cpu = rest.next_if(|cpu| cpu.parse::<usize>().is_ok());
                    options.pin = Some(cpu.map_or(0, |cpu| cpu.parse().unwrap_or(0)));
                }
                "--write" => {
                    options.write = Some(rest.next().ok_or("--write needs a file")?.into());
                }
                "--no-build" => options.build = false,
                "--no-user-profile" => options.user_profile = false,
                "--no-instructions" => options.instructions = false,
                "--instructions-only" => options.instructions_only = true,
                "--goals-only" => options.goals_only = true,
                "--only" => options.only = Some(rest.next().ok_or("--only needs a name")?),
                "--also" => {
                    let also = rest.next().unwrap_or_default();
                    let (name, binary) = also.split_once('=').ok_or("--also needs NAME=BINARY")?;
                    options.also.push((name.to_owned(), binary.into()));
                }
                unknown => return Err(format!("unknown option `{unknown}`")),
            }
        }
        if options.instructions_only && (options.write.is_some() || !options.instructions) {
            return Err(
                "--instructions-only counts instructions and nothing else: it takes neither \
                 --write (which would replace the timed tables) nor --no-instructions"
                    .to_owned(),
            );
        }
        if options.goals_only && (options.write.is_some() || options.instructions_only) {
            return Err(
                "--goals-only measures the goals' ratios and nothing else: it takes neither \
                 --write (which would replace the other tables) nor --instructions-only"
                    .to_owned(),
            );
        }
        if options.rounds == 0 {
            options.rounds = if options.quick || options.smoke { 1 } else { 3 };
        }
        Ok(options)
    }

    pub fn command_line(&self) -> String {
        let mut line = "cargo run --release -p mcp-bench-http --".to_owned();
        for argument in &self.arguments {
            line.push(' ');
            line.push_str(argument);
        }
        line
    }
}

/// How much work one round does.
#[derive(Debug, Clone, Copy)]
struct Settings {
    warm_up: Duration,
    measure: Duration,
    /// Sessions opened one by one to time `initialize`, and how many are open meanwhile.
    timed_sessions: usize,
    many_sessions: usize,
    streams: usize,
    tasks: usize,
    /// Calls counted under callgrind per case.
    counted_calls: usize,
    /// The windows of each goal case measured side by side with the baseline.
    side_by_side: side_by_side::Windows,
}

impl Settings {
    fn of(options: &Options) -> Settings {
        if options.smoke {
            Settings {
                warm_up: Duration::from_millis(50),
                measure: Duration::from_millis(100),
                timed_sessions: 8,
                many_sessions: 40,
                streams: 4,
                tasks: 10,
                counted_calls: 64,
                side_by_side: side_by_side::Windows {
                    count: 2,
                    processes: 1,
                    warm_up: Duration::from_millis(50),
                    measure: Duration::from_millis(100),
                },
            }
        } else if options.quick {
            Settings {
                warm_up: Duration::from_millis(300),
                measure: Duration::from_secs(1),
                timed_sessions: 200,
                many_sessions: 10_000,
                streams: 200,
                tasks: 1000,
                counted_calls: 1024,
                side_by_side: side_by_side::Windows {
                    count: 2,
                    processes: 2,
                    warm_up: Duration::from_millis(300),
                    measure: Duration::from_secs(1),
                },
            }
        } else {
            Settings {
                warm_up: Duration::from_millis(500),
                measure: Duration::from_secs(3),
                timed_sessions: 400,
                many_sessions: 10_000,
                streams: 256,
                tasks: 2000,
                counted_calls: 4096,
                side_by_side: side_by_side::Windows {
                    count: 6,
                    processes: 3,
                    warm_up: Duration::from_millis(500),
                    measure: Duration::from_secs(2),
                },
            }
        }
    }
}

pub const CONNECTIONS: [usize; 3] = [1, 16, 256];

/// The calls measured, in the report's order.
pub const ERAS: [Era; 3] = [Era::Modern, Era::ModernDeclaring, Era::Legacy];

/// This runtime with its shared stores on a Redis of the benchmark's own.
pub const REDIS_SUBJECT: &str = "mcp-runtime, Redis stores";

/// Every figure of one server, best of the rounds.
#[derive(Debug, Default, Clone)]
pub struct Measured {
    pub throughput: BTreeMap<(Era, usize), Throughput>,
    pub sessions: Option<SessionCosts>,
    /// Bytes per idle keep-alive connection, per open GET stream, per running task.
    pub connection_bytes: Option<f64>,
    pub stream_bytes: Option<f64>,
    pub task_bytes: Option<f64>,
    /// Instructions per request under callgrind, by era and connections.
    pub instructions: BTreeMap<(Era, usize), f64>,
    /// Ratios to the baseline loaded at the same time, by era and connections; the
    /// baseline's own are against a second baseline process.
    pub side_by_side: BTreeMap<(Era, usize), side_by_side::Ratios>,
}

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    if arguments.iter().any(|a| a == "--help" || a == "-h") {
        eprintln!("{USAGE}");
        return;
    }
    if arguments.first().is_some_and(|first| first == "--load") {
        if let Err(error) = load_only(&arguments[1..]) {
            eprintln!("mcp-bench-http: {error}");
            std::process::exit(1);
        }
        return;
    }
    let options = match Options::parse(arguments) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    if let Err(error) = run(&options) {
        eprintln!("mcp-bench-http: {error}");
        eprintln!(
            "mcp-bench-http: the servers' stderr is in {}",
            server::stderr_log().display()
        );
        std::process::exit(1);
    }
}

/// `--load ADDR ERA CONNECTIONS SECONDS`: load a running server, for profiling it.
fn load_only(arguments: &[String]) -> io::Result<()> {
    let usage =
        || io::Error::other("usage: --load ADDR modern|declaring|legacy CONNECTIONS SECONDS");
    let [addr, era, connections, seconds] = arguments else {
        return Err(usage());
    };
    let addr: std::net::SocketAddr = addr.parse().map_err(|_| usage())?;
    let era = match era.as_str() {
        "modern" => Era::Modern,
        "declaring" => Era::ModernDeclaring,
        "legacy" => Era::Legacy,
        _ => return Err(usage()),
    };
    let connections: usize = connections.parse().map_err(|_| usage())?;
    let seconds: f64 = seconds.parse().map_err(|_| usage())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let figures = runtime.block_on(workloads::load(
        addr,
        era,
        connections,
        Duration::from_secs_f64(seconds),
    ))?;
    eprintln!(
        "{} requests, {:.0} requests/s, p50 {:.0} µs, p99 {:.0} µs, driver CPU {:.2} µs per request",
        figures.requests,
        figures.requests_per_second,
        figures.p50_micros,
        figures.p99_micros,
        figures.driver_micros_per_request
    );
    Ok(())
}

fn run(options: &Options) -> io::Result<()> {
    let release_dir = binaries_dir()?;
    let target = release_dir
        .parent()
        .ok_or_else(|| io::Error::other("cannot find the target directory"))?
        .to_path_buf();
    if options.build {
        build(options, &target)?;
    }
    if let Some(cpu) = options.pin {
        pin_driver_off(cpu)?;
    }
    let mut subjects = subjects(&release_dir, &target, options.user_profile);
    // Started after the driver pinned itself, so Redis runs on the driver's CPUs, not the
    // servers'.
    let redis = server::RedisProcess::spawn()?;
    match &redis {
        Some(redis) => subjects.insert(
            2,
            Subject {
                name: REDIS_SUBJECT.to_owned(),
                program: release_dir.join("runtime-echo"),
                modern_args: vec!["--redis".to_owned(), redis.url.clone()],
                legacy_args: vec!["--redis".to_owned(), redis.url.clone()],
                streams: false,
                tasks: true,
                side_by_side: false,
            },
        ),
        None => eprintln!(
            "mcp-bench-http: redis-server is not installed (tests/shared_state/install-redis.sh \
             installs it): no \"{REDIS_SUBJECT}\" column"
        ),
    }
    for (name, binary) in &options.also {
        subjects.push(Subject {
            name: name.clone(),
            program: binary.clone(),
            modern_args: Vec::new(),
            legacy_args: Vec::new(),
            streams: true,
            tasks: true,
            side_by_side: true,
        });
    }
    if let Some(only) = &options.only {
        let mut index = 0;
        subjects.retain(|subject| {
            index += 1;
            index == 1 || subject.name.contains(only.as_str())
        });
    }
    let settings = Settings::of(options);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut measured: Vec<Measured> = vec![Measured::default(); subjects.len()];
    let rounds = if options.instructions_only || options.goals_only {
        0
    } else {
        options.rounds
    };
    for round in 0..rounds {
        eprintln!("mcp-bench-http: round {} of {}", round + 1, options.rounds);
        // Alternate the order, so no server always gets the warmer (or busier) machine.
        let mut order: Vec<usize> = (0..subjects.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        for &index in &order {
            let figures = runtime.block_on(measure(&subjects[index], &settings, options.pin))?;
            keep_best(&mut measured[index], figures);
        }
    }
    if !options.instructions_only {
        for (subject, kept) in subjects.iter().zip(&mut measured) {
            if !subject.side_by_side {
                continue;
            }
            let ratios = runtime
                .block_on(side_by_side::against(
                    subject,
                    &subjects[0],
                    settings.side_by_side,
                    options.pin,
                ))
                .map_err(|error| context(subject, error))?;
            kept.side_by_side.extend(ratios);
        }
    }
    let counting = options.instructions && !options.goals_only && instructions::available();
    if options.instructions_only && !counting {
        return Err(io::Error::other(
            "--instructions-only needs valgrind and callgrind_control",
        ));
    }
    if options.instructions && !options.goals_only && !counting {
        eprintln!(
            "mcp-bench-http: valgrind (with callgrind_control) is not installed: no instruction \
             counts"
        );
    }
    if counting {
        for (subject, kept) in subjects.iter().zip(&mut measured) {
            for (era, connections) in instructions::CASES {
                eprintln!(
                    "mcp-bench-http: {} {era:?} over {connections} connection(s), under callgrind",
                    subject.name
                );
                let per_request = runtime
                    .block_on(instructions::per_request(
                        subject,
                        era,
                        connections,
                        settings.counted_calls,
                        options.pin,
                    ))
                    .map_err(|error| context(subject, error))?;
                kept.instructions.insert((era, connections), per_request);
            }
        }
    }
    let context = report::Context {
        command_line: options.command_line(),
        rounds,
        quick: options.quick || options.smoke,
        pinned: options.pin,
        measure: settings.measure,
        many_sessions: settings.many_sessions,
        streams: settings.streams,
        tasks: settings.tasks,
        counted_calls: counting.then_some(settings.counted_calls),
        side_by_side: (!options.instructions_only).then_some(settings.side_by_side),
    };
    let markdown = report::render(&context, &subjects, &measured);
    io::stdout().lock().write_all(markdown.as_bytes())?;
    if let Some(path) = &options.write {
        let previous = std::fs::read_to_string(path).unwrap_or_default();
        std::fs::write(path, report::splice(&previous, &markdown))?;
        eprintln!("mcp-bench-http: wrote {}", path.display());
    }
    Ok(())
}

fn keep_best(kept: &mut Measured, round: Measured) {
    for (key, figures) in round.throughput {
        let best = match kept.throughput.get(&key) {
            Some(previous) => previous.best(figures),
            None => figures,
        };
        kept.throughput.insert(key, best);
    }
    kept.sessions = match (kept.sessions, round.sessions) {
        (Some(kept), Some(round)) => Some(kept.best(round)),
        (kept, round) => round.or(kept),
    };
    let min = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    kept.connection_bytes = min(kept.connection_bytes, round.connection_bytes);
    kept.stream_bytes = min(kept.stream_bytes, round.stream_bytes);
    kept.task_bytes = min(kept.task_bytes, round.task_bytes);
}

/// Every figure of `subject` in one round; each workload on a fresh server process.
async fn measure(
    subject: &Subject,
    settings: &Settings,
    pin: Option<usize>,
) -> io::Result<Measured> {
    let mut measured = Measured::default();
    for era in ERAS {
        let server = ServerProcess::spawn(&subject.program, subject.args_for(era), pin)?;
        for &connections in era.connections() {
            eprintln!(
                "mcp-bench-http: {} {era:?} over {connections} connection(s)",
                subject.name
            );
            let figures = workloads::throughput(
                &server,
                era,
                connections,
                settings.warm_up,
                settings.measure,
            )
            .await
            .map_err(|error| context(subject, error))?;
            measured.throughput.insert((era, connections), figures);
        }
    }
    let server = ServerProcess::spawn(&subject.program, &subject.legacy_args, pin)?;
    measured.sessions = Some(
        workloads::session_costs(&server, settings.timed_sessions, settings.many_sessions)
            .await
            .map_err(|error| context(subject, error))?,
    );
    drop(server);
    if subject.streams {
        let server = ServerProcess::spawn(&subject.program, &subject.legacy_args, pin)?;
        let (connection, stream) = workloads::stream_costs(&server, settings.streams)
            .await
            .map_err(|error| context(subject, error))?;
        measured.connection_bytes = Some(connection);
        measured.stream_bytes = Some(stream);
    }
    if subject.tasks {
        let server = ServerProcess::spawn(&subject.program, &subject.modern_args, pin)?;
        measured.task_bytes = Some(
            workloads::task_costs(&server, settings.tasks)
                .await
                .map_err(|error| context(subject, error))?,
        );
    }
    Ok(measured)
}

fn context(subject: &Subject, error: io::Error) -> io::Error {
    io::Error::new(error.kind(), format!("{}: {error}", subject.name))
}

/// The servers, in the report's column order: the limit first.
fn subjects(release: &Path, target: &Path, user_profile: bool) -> Vec<Subject> {
    let mut subjects = vec![
        Subject {
            name: "hyper baseline".to_owned(),
            program: release.join("hyper-baseline"),
            modern_args: Vec::new(),
            legacy_args: Vec::new(),
            streams: false,
            tasks: false,
            side_by_side: true,
        },
        Subject {
            name: "mcp-runtime".to_owned(),
            program: release.join("runtime-echo"),
            modern_args: Vec::new(),
            legacy_args: Vec::new(),
            streams: true,
            tasks: true,
            side_by_side: true,
        },
        Subject {
            name: "rmcp".to_owned(),
            program: release.join("rmcp-echo"),
            modern_args: vec!["stateless".to_owned()],
            legacy_args: vec!["sessions".to_owned()],
            streams: true,
            tasks: false,
            side_by_side: true,
        },
    ];
    if user_profile {
        subjects.push(Subject {
            name: "mcp-runtime, cargo's default profile".to_owned(),
            program: target.join("user-default").join("runtime-echo"),
            modern_args: Vec::new(),
            legacy_args: Vec::new(),
            streams: false,
            tasks: false,
            side_by_side: false,
        });
    }
    subjects
}

/// Where cargo put this driver, and so the servers built in the same profile.
fn binaries_dir() -> io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    exe.parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| io::Error::other("cannot find the target directory"))
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("bench/http sits two levels down the workspace")
        .to_path_buf()
}

fn cargo(args: &[&str]) -> io::Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .args(args)
        .current_dir(workspace_root())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!("cargo {} failed", args.join(" "))))
    }
}

/// Builds the servers: the workspace's two with its release profile (and this runtime's again
/// with cargo's default one), rmcp's in its own workspace with a copy of that profile, all
/// into the same target directory.
fn build(options: &Options, target: &Path) -> io::Result<()> {
    eprintln!("mcp-bench-http: building the servers");
    cargo(&[
        "build",
        "--release",
        "-p",
        "mcp-bench-http",
        "--bin",
        "runtime-echo",
        "--bin",
        "hyper-baseline",
    ])?;
    if options.user_profile {
        cargo(&[
            "build",
            "--profile",
            "user-default",
            "-p",
            "mcp-bench-http",
            "--bin",
            "runtime-echo",
        ])?;
    }
    let manifest = workspace_root().join("bench/http/rmcp-echo/Cargo.toml");
    cargo(&[
        "build",
        "--release",
        "--locked",
        "--manifest-path",
        &manifest.to_string_lossy(),
        "--target-dir",
        &target.to_string_lossy(),
    ])
}

/// Moves the driver off the servers' CPU, onto the others (when there are others).
fn pin_driver_off(cpu: usize) -> io::Result<()> {
    let online = std::thread::available_parallelism().map_or(1, usize::from);
    let others: Vec<String> = (0..online)
        .filter(|&other| other != cpu)
        .map(|other| other.to_string())
        .collect();
    if others.is_empty() {
        return Ok(());
    }
    let status = Command::new("taskset")
        .args(["--all-tasks", "--pid", "--cpu-list", &others.join(",")])
        .arg(std::process::id().to_string())
        .stdout(Stdio::null())
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(io::Error::other("taskset failed"))
    }
}
