//! Facts that need no server running: the machine, the binaries and their dependency trees.

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The workspace root, where `cargo` commands run.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("bench/ sits in the workspace")
        .to_path_buf()
}

/// The cargo that runs us (`cargo run` says which), or the one on the PATH.
fn cargo_program() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// Runs `cargo` with `args` in the workspace, its output going to our stderr.
pub fn cargo(args: &[&str]) -> io::Result<()> {
    let status = Command::new(cargo_program())
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

/// Runs a command and returns its trimmed stdout.
pub fn output_of(program: &str, args: &[&str]) -> io::Result<String> {
    let output = Command::new(program)
        .args(args)
        .current_dir(workspace_root())
        .stderr(Stdio::inherit())
        .output()?;
    if !output.status.success() {
        return Err(io::Error::other(format!(
            "{program} {} failed",
            args.join(" ")
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// The size of `binary` stripped of symbols: a stripped copy is measured, the original is left
/// alone (the release profile may strip it already; stripping twice changes nothing).
pub fn stripped_size(binary: &Path) -> io::Result<u64> {
    let copy = std::env::temp_dir().join(format!("mcp-bench-strip-{}", std::process::id()));
    std::fs::copy(binary, &copy)?;
    let stripped = Command::new("strip").arg(&copy).status();
    let size = std::fs::metadata(&copy)?.len();
    std::fs::remove_file(&copy)?;
    match stripped {
        Ok(status) if status.success() => Ok(size),
        _ => Err(io::Error::other("`strip` failed or is missing")),
    }
}

/// How many distinct crates (the root included) `package` pulls in through normal
/// dependencies, as `cargo tree -e normal` shows them, without default features (the
/// stdio-only build the benchmark measures).
pub fn dependency_crates(package: &str) -> io::Result<usize> {
    let tree = output_of(
        &cargo_program(),
        &[
            "tree",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
            "--no-default-features",
            "-p",
            package,
        ],
    )?;
    // A line reads `name vX.Y.Z`, maybe followed by a path, `(proc-macro)` or `(*)`.
    let crates: BTreeSet<String> = tree
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            Some(format!("{} {}", words.next()?, words.next()?))
        })
        .collect();
    Ok(crates.len())
}

/// The machine, toolchain and date, as the report's preamble lists them.
pub struct Machine {
    pub cpu_model: String,
    pub online_cpus: usize,
    pub kernel: String,
    pub rustc: String,
    pub date: String,
}

impl Machine {
    pub fn describe() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu_model = cpuinfo
            .lines()
            .find_map(|line| line.strip_prefix("model name"))
            .and_then(|rest| rest.split_once(':'))
            .map_or_else(
                || "unknown".to_owned(),
                |(_, model)| model.trim().to_owned(),
            );
        let online_cpus = cpuinfo
            .lines()
            .filter(|line| line.starts_with("processor"))
            .count();
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").map_or_else(
            |_| "unknown".to_owned(),
            |release| release.trim().to_owned(),
        );
        let rustc = output_of("rustc", &["--version"]).unwrap_or_else(|_| "unknown".to_owned());
        let date = output_of("date", &["-u", "+%Y-%m-%d %H:%M UTC"]).unwrap_or_default();
        Machine {
            cpu_model,
            online_cpus,
            kernel,
            rustc,
            date,
        }
    }
}

/// Pins this process, and so every server it spawns afterwards, to one CPU: on a small machine
/// a wake-up across cores costs tens of microseconds, which would swamp the figures.
pub fn pin_to_cpu(cpu: usize) -> io::Result<()> {
    let pid = std::process::id().to_string();
    let cpu = cpu.to_string();
    output_of(
        "taskset",
        &["--all-tasks", "--pid", "--cpu-list", &cpu, &pid],
    )
    .map(drop)
}
