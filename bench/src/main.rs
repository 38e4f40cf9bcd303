//! The benchmark driver: measures the example calculator server, and a 50-tool framework
//! server, against a hand-written stdio JSON-RPC loop over real pipes. See bench/README.md.

mod facts;
mod figures;
mod messages;
mod options;
mod report;
mod server;
mod workloads;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use facts::Machine;
use figures::{Figure, Figures};
use options::Options;
use server::ServerCommand;

fn main() {
    if std::env::args().any(|argument| argument == "--help" || argument == "-h") {
        eprintln!("{}", options::USAGE);
        return;
    }
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}\n\n{}", options::USAGE);
            std::process::exit(2);
        }
    };
    if let Err(error) = run(&options) {
        eprintln!("mcp-bench: {error}");
        std::process::exit(1);
    }
}

/// The servers of one column of the table.
struct Subject {
    column: &'static str,
    /// Offers `add` and `echo`.
    calls: ServerCommand,
    /// Offers 50 tools.
    fifty: ServerCommand,
    /// The workspace package whose dependency tree the binary has, when known.
    package: Option<&'static str>,
}

impl Subject {
    fn describe(&self) -> String {
        format!("`{}`, `{}`", self.calls.display(), self.fifty.display())
    }
}

fn run(options: &Options) -> io::Result<()> {
    let binaries = binaries_dir()?;
    let release = binaries.ends_with("release");
    if options.build {
        build(options, release)?;
    }
    let raw = raw_subject(&raw_binaries_dir(&binaries, release), "raw");
    let framework = framework_subject(options, &binaries);

    let mut raw_figures = static_figures(&raw)?;
    let mut framework_figures = static_figures(&framework)?;
    let build_times = options.build_time.then(build_times).transpose()?;

    if let Some(cpu) = options.pin_cpu {
        facts::pin_to_cpu(cpu)?;
    }
    let settings = options.settings();
    for round in 0..options.rounds {
        eprintln!("mcp-bench: round {} of {}", round + 1, options.rounds);
        let measure =
            |subject: &Subject| workloads::measure(&subject.calls, &subject.fifty, &settings);
        // Alternate which server goes first, so neither always gets the warmer machine.
        if round % 2 == 0 {
            raw_figures.keep_best(measure(&raw)?);
            framework_figures.keep_best(measure(&framework)?);
        } else {
            framework_figures.keep_best(measure(&framework)?);
            raw_figures.keep_best(measure(&raw)?);
        }
    }

    let context = report::Context {
        machine: Machine::describe(),
        command_line: options.command_line(),
        rounds: options.rounds,
        quick: options.quick,
        pinned_cpu: options.pin_cpu,
        release,
        raw_servers: raw.describe(),
        framework_servers: framework.describe(),
        framework_column: framework.column,
        build_times,
    };
    let markdown = report::render(&context, &raw_figures, &framework_figures);
    io::stdout().lock().write_all(markdown.as_bytes())?;
    if let Some(path) = &options.write {
        let previous = std::fs::read_to_string(path).unwrap_or_default();
        std::fs::write(path, report::keep_hand_written(&markdown, &previous))?;
        eprintln!("mcp-bench: wrote {}", path.display());
    }
    let log = server::stderr_log();
    eprintln!("mcp-bench: the servers' stderr is in {}", log.display());
    Ok(())
}

/// Builds the servers this run measures, in the driver's own profile.
fn build(options: &Options, release: bool) -> io::Result<()> {
    eprintln!("mcp-bench: building the servers");
    let profile = if release {
        "--release"
    } else {
        "--profile=dev"
    };
    // The baseline stands for the physical limit, so it is built for speed (the `raw-baseline`
    // profile, opt-level 3) whatever the shipped release profile trades for size.
    let raw_profile = if release {
        "--profile=raw-baseline"
    } else {
        profile
    };
    facts::cargo(&[
        "build",
        raw_profile,
        "-p",
        "mcp-bench",
        "--bin",
        "raw-baseline",
    ])?;
    let mut targets: Vec<Vec<&str>> = Vec::new();
    if !options.noise_floor && options.fifty_server.is_none() {
        targets.push(vec!["mcp-bench", "--example", "bench-fifty-tools"]);
    }
    if !options.noise_floor && options.server.is_none() {
        // The stdio-only build: HTTP is a feature that stdio users do not pay for.
        targets.push(vec![
            "mcp-workspace",
            "--example",
            "calculator",
            "--no-default-features",
        ]);
    }
    for target in targets {
        let mut args = vec!["build", profile, "-p"];
        args.extend(target);
        facts::cargo(&args)?;
    }
    Ok(())
}

fn raw_subject(binaries: &Path, column: &'static str) -> Subject {
    Subject {
        column,
        calls: ServerCommand::new(binaries.join("raw-baseline"), &[]),
        fifty: ServerCommand::new(binaries.join("raw-baseline"), &["--tools", "50"]),
        // The raw baseline's only normal dependency is serde_json: the framework is a
        // dev-dependency of `mcp-bench`, for its examples.
        package: Some("mcp-bench"),
    }
}

/// The calculator and `bench-fifty-tools`, unless the options name other servers.
fn framework_subject(options: &Options, binaries: &Path) -> Subject {
    if options.noise_floor {
        return raw_subject(binaries, "raw again");
    }
    let examples = binaries.join("examples");
    Subject {
        column: if options.server.is_some() {
            "server"
        } else {
            "calculator"
        },
        calls: options
            .server
            .clone()
            .unwrap_or_else(|| ServerCommand::new(examples.join("calculator"), &[])),
        fifty: options
            .fifty_server
            .clone()
            .unwrap_or_else(|| ServerCommand::new(examples.join("bench-fifty-tools"), &[])),
        package: options.server.is_none().then_some("mcp-workspace"),
    }
}

/// Where the raw baseline is: `target/raw-baseline` beside a release driver (see `build`),
/// else beside the driver.
fn raw_binaries_dir(binaries: &Path, release: bool) -> PathBuf {
    match binaries.parent() {
        Some(target) if release => target.join("raw-baseline"),
        _ => binaries.to_path_buf(),
    }
}

/// Where cargo put this driver, and so the servers built in the same profile: `target/release`
/// for `cargo run --release`.
fn binaries_dir() -> io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    exe.parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| io::Error::other("cannot find the target directory"))
}

/// The stripped size of the binary serving calls, and the crates its package pulls in.
fn static_figures(subject: &Subject) -> io::Result<Figures> {
    let mut figures = Figures::default();
    let size = facts::stripped_size(&subject.calls.program)?;
    figures.set(Figure::StrippedBinarySize, size as f64);
    if let Some(package) = subject.package {
        let crates = facts::dependency_crates(package)?;
        figures.set(Figure::DependencyCrates, crates as f64);
    }
    Ok(figures)
}

/// Runs bench/build-time.sh, which prints its findings as Markdown.
fn build_times() -> io::Result<String> {
    eprintln!("mcp-bench: timing clean and incremental builds (takes minutes)");
    let script = facts::workspace_root().join("bench").join("build-time.sh");
    facts::output_of("bash", &[&script.to_string_lossy()])
}
