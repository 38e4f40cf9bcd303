//! Instructions per request, counted by callgrind: the steady figure. Requests/s and CPU time
//! move by a fifth between runs on a shared machine, for the same binary; the instructions a
//! server executes for the same calls move by about one per cent (how many requests one wake-up
//! finds ready varies with timing), so their ratio to the baseline's tells a change from the
//! noise. They do not see what the cache and the kernel add, which the timed tables do.
//!
//! Each server runs under `valgrind --tool=callgrind`; its connections are opened and warmed
//! up, the counters zeroed (`callgrind_control -z`), an exact number of calls made, and the
//! counters dumped (`callgrind_control -d`): the dump's total over those calls is the figure,
//! every thread of the server counted.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::server::{ServerProcess, Subject};
use crate::workloads::{self, Era};

/// The calls counted: the eras and numbers of connections of the goals, and the declaring
/// client.
pub const CASES: [(Era, usize); 5] = [
    (Era::Modern, 16),
    (Era::Modern, 256),
    (Era::ModernDeclaring, 16),
    (Era::Legacy, 16),
    (Era::Legacy, 256),
];

/// Whether callgrind and its control script are installed.
pub fn available() -> bool {
    let runs = |program: &str, arg: &str| {
        Command::new(program)
            .arg(arg)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    };
    runs("valgrind", "--version") && runs("callgrind_control", "--version")
}

/// The instructions `subject` executes per call of `era` over `connections` connections,
/// counted over `counts` calls split over the connections, after a quarter as many (at least
/// two per connection) to warm up: the connections', the allocator's and valgrind's own
/// first-time costs are not a call's.
pub async fn per_request(
    subject: &Subject,
    era: Era,
    connections: usize,
    counts: usize,
    pin: Option<usize>,
) -> io::Result<f64> {
    let directory =
        std::env::temp_dir().join(format!("mcp-bench-http-{}-callgrind", std::process::id()));
    std::fs::create_dir_all(&directory)?;
    let wrapper = vec![
        "valgrind".to_owned(),
        "--tool=callgrind".to_owned(),
        format!(
            "--callgrind-out-file={}",
            directory.join("callgrind.%p").display()
        ),
    ];
    let args = subject.args_for(era);
    let server = ServerProcess::spawn_under(&wrapper, &subject.program, args, pin)?;
    let pid = server.pid().to_string();
    let prepared = workloads::prepare_all(server.addr, era, connections).await?;
    let each = counts.div_ceil(connections);
    let prepared = workloads::exact_calls(prepared, (each / 4).max(2)).await?;
    control(&pid, "-z")?;
    let prepared = workloads::exact_calls(prepared, each).await?;
    control(&pid, "-d")?;
    drop(prepared);
    drop(server);
    let total = dumped_total(&directory, &pid);
    let _ = std::fs::remove_dir_all(&directory);
    Ok(total? as f64 / (each * connections) as f64)
}

/// `callgrind_control FLAG PID`, which returns once callgrind has done it.
fn control(pid: &str, flag: &str) -> io::Result<()> {
    let output = Command::new("callgrind_control")
        .args([flag, pid])
        .stdin(Stdio::null())
        .output()?;
    if output.status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "callgrind_control {flag} {pid} failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )))
    }
}

/// The `totals:` of the one dump callgrind wrote for `pid` (`callgrind.PID.1`; the file
/// without a number is written at exit, which a killed server never reaches).
fn dumped_total(directory: &Path, pid: &str) -> io::Result<u64> {
    let dump: PathBuf = directory.join(format!("callgrind.{pid}.1"));
    let text = std::fs::read_to_string(&dump)
        .map_err(|error| io::Error::new(error.kind(), format!("{}: {error}", dump.display())))?;
    text.lines()
        .find_map(|line| line.strip_prefix("totals:"))
        .and_then(|totals| totals.split_whitespace().next())
        .and_then(|first| first.parse().ok())
        .ok_or_else(|| io::Error::other(format!("{}: no totals line", dump.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dump_total_is_read_and_a_missing_dump_is_an_error() {
        let directory =
            std::env::temp_dir().join(format!("mcp-bench-http-test-{}-dump", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        std::fs::write(
            directory.join("callgrind.4242.1"),
            "# callgrind format\nevents: Ir\nfl=(1) a.rs\nfn=(1) f\n3 17\ntotals: 1234567\n",
        )
        .unwrap();
        assert_eq!(dumped_total(&directory, "4242").unwrap(), 1_234_567);
        assert!(dumped_total(&directory, "4243").is_err());
        std::fs::write(directory.join("callgrind.4244.1"), "events: Ir\n").unwrap();
        assert!(dumped_total(&directory, "4244").is_err());
        std::fs::remove_dir_all(&directory).unwrap();
    }
}
