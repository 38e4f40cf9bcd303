//! The Markdown report, and its place in BENCHMARKS.md.

use std::fmt::Write as _;
use std::time::Duration;

use crate::server::Subject;
use crate::side_by_side::{self, Ratios, Spread, Windows};
use crate::workloads::Era;
use crate::{CONNECTIONS, Measured, REDIS_SUBJECT};

pub struct Context {
    pub command_line: String,
    pub rounds: usize,
    pub quick: bool,
    pub pinned: Option<usize>,
    pub measure: Duration,
    pub many_sessions: usize,
    pub streams: usize,
    pub tasks: usize,
    /// Calls counted per case under callgrind, when instructions were counted.
    pub counted_calls: Option<usize>,
    /// The windows of the side-by-side measurement, when it was made.
    pub side_by_side: Option<Windows>,
}

/// Where the report goes in BENCHMARKS.md: between these lines, in the part the stdio
/// benchmark's `--write` keeps.
pub const START: &str = "<!-- HTTP benchmark: written by `mcp-bench-http --write` from here -->";
pub const END: &str = "<!-- HTTP benchmark: to here -->";

/// `previous` with the report between the markers, or appended when it has none.
pub fn splice(previous: &str, report: &str) -> String {
    let section = format!("{START}\n\n{}\n\n{END}", report.trim_end());
    match (previous.find(START), previous.find(END)) {
        (Some(start), Some(end)) if end > start => format!(
            "{}{section}{}",
            &previous[..start],
            &previous[end + END.len()..]
        ),
        _ if previous.is_empty() => format!("{section}\n"),
        _ => format!("{}\n\n{section}\n", previous.trim_end()),
    }
}

fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name"))
        .and_then(|rest| rest.split_once(':'))
        .map_or("unknown CPU", |(_, model)| model.trim())
        .to_owned();
    let cpus = cpuinfo
        .lines()
        .filter(|line| line.starts_with("processor"))
        .count();
    format!("{model}, {cpus} CPUs online")
}

fn output(program: &str, args: &[&str]) -> String {
    std::process::Command::new(program)
        .args(args)
        .output()
        .ok()
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
        .unwrap_or_default()
}

fn group_thousands(value: f64) -> String {
    let digits = (value.round() as u64).to_string();
    let mut grouped = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            grouped.push(' ');
        }
        grouped.push(digit);
    }
    grouped
}

fn bytes(value: f64) -> String {
    if value >= 1024.0 * 1024.0 {
        format!("{:.2} MiB", value / (1024.0 * 1024.0))
    } else if value >= 1024.0 {
        format!("{:.2} KiB", value / 1024.0)
    } else {
        format!("{value:.0} B")
    }
}

fn ratio(value: f64, base: f64) -> String {
    if base > 0.0 {
        format!("{:.2}x", value / base)
    } else {
        "-".to_owned()
    }
}

pub fn render(context: &Context, subjects: &[Subject], measured: &[Measured]) -> String {
    let mut out = String::new();
    let date = output("date", &["-u", "+%Y-%m-%d %H:%M UTC"]);
    let rustc = output("rustc", &["--version"]);
    let pinning = match context.pinned {
        Some(cpu) => format!("every server pinned to CPU {cpu}, the driver to the others"),
        None => "not pinned".to_owned(),
    };
    let rounds = match context.rounds {
        0 => "instruction counts only".to_owned(),
        1 => "one round".to_owned(),
        rounds => format!("best of {rounds} rounds alternating the servers' order"),
    };
    let mode = if context.quick { "quick" } else { "full" };
    let _ = writeln!(out, "## Streamable HTTP (issue 15)\n");
    let _ = writeln!(
        out,
        "Measured with `{}` on {date}: {}, {rustc}; {mode} run, {rounds}, {pinning}.\n",
        context.command_line,
        machine()
    );
    let _ = writeln!(
        out,
        "The servers, each a child process on a loopback port, all built with the workspace's \
         release profile:\n\n\
         - **hyper baseline** (`bench/http/src/bin/hyper-baseline.rs`): a minimal JSON-RPC \
         server on hyper written for the comparison, the limit: serde_json into a `Value`, a \
         `match` on the method, session ids in a set under a mutex. No MCP checks.\n\
         - **mcp-runtime** (`bench/http/src/bin/runtime-echo.rs`): this runtime's \
         `serve_http_with`, an `echo` tool, the default `HttpConfig` but for higher \
         session and connection limits.\n\
         - **rmcp** (`bench/http/rmcp-echo`, rmcp =3.11.0, its own lockfile): \
         `StreamableHttpService` on hyper; 2026-07-28 calls with `legacy_session_mode: false, \
         json_response: true` (its fastest configuration), legacy calls with its default \
         sessions (`LocalSessionManager`), whose answers are event streams.\n\
         - **mcp-runtime, cargo's default profile**: the same server built with \
         `--profile user-default` (opt-level 3 everywhere, no LTO, 16 codegen units), as a \
         user's crate without a `[profile]` section builds it.\n"
    );
    if subjects.iter().any(|subject| subject.name == REDIS_SUBJECT) {
        let _ = writeln!(
            out,
            "- **{REDIS_SUBJECT}**: the same server started with `--redis URL`, so \
             `Server::redis` puts its shared stores (tasks, `requestState` replay guard, \
             announcements, legacy sessions) on a `redis-server` the benchmark starts on a \
             loopback port, on the driver's CPUs, keeping nothing on disk.\n"
        );
    }
    let base = &measured[0];
    if base.throughput.is_empty() {
        instructions(&mut out, context, subjects, measured);
        side_by_side(&mut out, context, subjects, measured);
        goals(&mut out, subjects, measured);
        return out;
    }
    let _ = writeln!(
        out,
        "The load: the driver's own HTTP/1.1 client (`bench/http/src/client.rs`) on one \
         thread, keep-alive connections each sending its next `tools/call` as soon as the last \
         is answered, {:.1} s measured after a warm-up. Legacy connections each open a \
         session of their own first. Every answer is checked to be a JSON-RPC result. Server \
         CPU is the time all its threads spent on a CPU (`/proc/<pid>/task/*/schedstat`) \
         over the measured part, divided by the requests answered in it. Each server is \
         measured alone, one after the other: on a machine shared with other work a figure \
         moves by a fifth from one minute to the next, and so do the ratios of these tables, \
         whose figures were taken minutes apart. The goals' ratios are measured side by side \
         instead (below).\n",
        context.measure.as_secs_f64()
    );
    for era in crate::ERAS {
        let _ = writeln!(out, "### {}\n", era.label());
        let _ = writeln!(
            out,
            "| connections | server | requests/s | vs baseline | p50 | p99 | server CPU / request | vs baseline | driver CPU / request |"
        );
        let _ = writeln!(out, "|---:|---|---:|---:|---:|---:|---:|---:|---:|");
        for connections in CONNECTIONS {
            let Some(baseline) = base.throughput.get(&(era, connections)) else {
                continue;
            };
            for (subject, figures) in subjects.iter().zip(measured) {
                let Some(figures) = figures.throughput.get(&(era, connections)) else {
                    continue;
                };
                let _ = writeln!(
                    out,
                    "| {connections} | {} | {} | {} | {:.0} µs | {:.0} µs | {:.2} µs | {} | {:.2} µs |",
                    subject.name,
                    group_thousands(figures.requests_per_second),
                    ratio(figures.requests_per_second, baseline.requests_per_second),
                    figures.p50_micros,
                    figures.p99_micros,
                    figures.cpu_micros_per_request,
                    ratio(
                        figures.cpu_micros_per_request,
                        baseline.cpu_micros_per_request
                    ),
                    figures.driver_micros_per_request,
                );
            }
        }
        let _ = writeln!(out);
    }
    instructions(&mut out, context, subjects, measured);
    side_by_side(&mut out, context, subjects, measured);
    goals(&mut out, subjects, measured);
    redis_cost(&mut out, subjects, measured);
    memory(&mut out, context, subjects, measured);
    out
}

/// Instructions per request under callgrind: the figure that moves with the code, not with
/// the machine.
fn instructions(out: &mut String, context: &Context, subjects: &[Subject], measured: &[Measured]) {
    let Some(calls) = context.counted_calls else {
        return;
    };
    let base = &measured[0];
    let _ = writeln!(out, "### Instructions per request (callgrind)\n");
    let _ = writeln!(
        out,
        "Each server under `valgrind --tool=callgrind` (`bench/http/src/instructions.rs`): \
         its connections opened and warmed up, the counters zeroed, {calls} calls made over \
         the connections, the counters dumped; the instructions of every server thread over \
         those calls, divided by them. The same binary and calls count the same within about \
         one per cent from run to run, whatever else the machine does (how many requests one \
         wake-up finds ready varies), so a change shows here that the timed figures above \
         cannot tell from noise; what the cache, the kernel and the scheduling add shows only \
         above.\n"
    );
    let mut header = "| calls | connections |".to_owned();
    let mut rule = "|---|---:|".to_owned();
    for subject in subjects {
        let _ = write!(header, " {} |", subject.name);
        rule.push_str("---:|");
    }
    let _ = writeln!(out, "{header}\n{rule}");
    for (era, connections) in crate::instructions::CASES {
        let Some(&limit) = base.instructions.get(&(era, connections)) else {
            continue;
        };
        let mut row = format!("| {} | {connections} |", era.short_label());
        for figures in measured {
            match figures.instructions.get(&(era, connections)) {
                Some(&count) => {
                    let _ = write!(row, " {:.1} k ({}) |", count / 1000.0, ratio(count, limit));
                }
                None => row.push_str(" - |"),
            }
        }
        let _ = writeln!(out, "{row}");
    }
    let _ = writeln!(out);
}

/// `spread` as `median (min-max)`.
fn spread(spread: Spread) -> String {
    format!(
        "{:.2}x ({:.2}-{:.2})",
        spread.median, spread.min, spread.max
    )
}

/// The ratios of each server to the baseline loaded at the same time.
fn side_by_side(out: &mut String, context: &Context, subjects: &[Subject], measured: &[Measured]) {
    let Some(windows) = context.side_by_side else {
        return;
    };
    let _ = writeln!(out, "### Side by side with the baseline\n");
    let _ = writeln!(
        out,
        "Each server and a baseline process both on the server CPU, loaded at the same time \
         by the driver over as many connections each: {} windows of {:.1} s after {:.1} s of \
         warm-up, spread over {} pairs of processes started fresh (the medians move with a \
         process's memory layout, by about 2%), the two swapping places in the driver's order \
         from one window to the next (`bench/http/src/side_by_side.rs`). Whatever else slows \
         the machine slows both alike, and each gets half the CPU, so the ratios hold steady \
         while the figures move. Each cell is the median of the windows' ratios, with their \
         range. The baseline's row is a second baseline process against the first: what the \
         method itself adds. The last column is the share of the server CPU the two used \
         together, the least of the windows: near 1, the servers limited the calls, as the \
         method needs; well under it, the driver did, and the ratios lean towards 1.\n",
        windows.count,
        windows.measure.as_secs_f64(),
        windows.warm_up.as_secs_f64(),
        windows.processes,
    );
    let _ = writeln!(
        out,
        "| calls | connections | server | requests/s vs baseline | server CPU / request vs baseline | server CPU busy |"
    );
    let _ = writeln!(out, "|---|---:|---|---:|---:|---:|");
    for case in side_by_side::CASES {
        for (subject, figures) in subjects.iter().zip(measured) {
            let Some(ratios) = figures.side_by_side.get(&case) else {
                continue;
            };
            let (Some(requests), Some(cpu)) = (
                Spread::of(&ratios.requests_per_second),
                Spread::of(&ratios.cpu_per_request),
            ) else {
                continue;
            };
            let busy = ratios.busy.iter().copied().fold(f64::INFINITY, f64::min);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {busy:.2} |",
                case.0.short_label(),
                case.1,
                subject.name,
                spread(requests),
                spread(cpu),
            );
        }
    }
    let _ = writeln!(out);
}

/// The goals, met or not, from this run's side-by-side figures.
fn goals(out: &mut String, subjects: &[Subject], measured: &[Measured]) {
    let find = |name: &str| {
        subjects
            .iter()
            .position(|subject| subject.name == name)
            .map(|index| &measured[index])
    };
    let Some(runtime) = find("mcp-runtime") else {
        return;
    };
    if runtime.side_by_side.is_empty() {
        return;
    }
    let rmcp = find("rmcp");
    let base = &measured[0];
    let median = |ratios: Option<&Ratios>, of: fn(&Ratios) -> &[f64]| {
        ratios
            .and_then(|ratios| Spread::of(of(ratios)))
            .map(|spread| spread.median)
    };
    let _ = writeln!(out, "### Goals (this run)\n");
    let _ = writeln!(
        out,
        "From the side-by-side medians above, to three places (a median of 0.849x is not \
         0.85x); against rmcp, the ratio of the two servers' medians against the baseline.\n"
    );
    let _ = writeln!(
        out,
        "| calls | connections | requests/s vs baseline (>= 0.85x) | CPU / request vs baseline (<= 1.25x) | requests/s vs rmcp (>= 4x) | instructions / request vs baseline (no goal) |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
    let mark = |ok: bool| if ok { "met" } else { "**not met**" };
    for case in side_by_side::CASES {
        let ours = runtime.side_by_side.get(&case);
        let (Some(speed), Some(cpu)) = (
            median(ours, |ratios| &ratios.requests_per_second),
            median(ours, |ratios| &ratios.cpu_per_request),
        ) else {
            continue;
        };
        let versus = match median(
            rmcp.and_then(|rmcp| rmcp.side_by_side.get(&case)),
            |ratios| &ratios.requests_per_second,
        ) {
            Some(theirs) => {
                let versus = speed / theirs;
                format!("{versus:.1}x {}", mark(versus >= 4.0))
            }
            None => "-".to_owned(),
        };
        let instructions = match (
            runtime.instructions.get(&case),
            base.instructions.get(&case),
        ) {
            (Some(&ours), Some(&limit)) => ratio(ours, limit),
            _ => "-".to_owned(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {speed:.3}x {} | {cpu:.3}x {} | {versus} | {instructions} |",
            case.0.short_label(),
            case.1,
            mark(speed >= 0.85),
            mark(cpu <= 1.25),
        );
    }
    let _ = writeln!(out);
}

/// What the Redis stores add to a call, against the same server in memory.
fn redis_cost(out: &mut String, subjects: &[Subject], measured: &[Measured]) {
    let find = |name: &str| {
        subjects
            .iter()
            .position(|subject| subject.name == name)
            .map(|index| &measured[index])
    };
    let (Some(memory), Some(redis)) = (find("mcp-runtime"), find(REDIS_SUBJECT)) else {
        return;
    };
    let _ = writeln!(out, "### The Redis stores against in memory (this run)\n");
    let _ = writeln!(
        out,
        "| calls | connections | requests/s | p50 | server CPU / request |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|");
    for era in [Era::Modern, Era::Legacy] {
        for connections in CONNECTIONS {
            let key = (era, connections);
            let (Some(ours), Some(stored)) =
                (memory.throughput.get(&key), redis.throughput.get(&key))
            else {
                continue;
            };
            let _ = writeln!(
                out,
                "| {} | {connections} | {} | {:+.0} µs | {:+.2} µs |",
                era.short_label(),
                ratio(stored.requests_per_second, ours.requests_per_second),
                stored.p50_micros - ours.p50_micros,
                stored.cpu_micros_per_request - ours.cpu_micros_per_request,
            );
        }
    }
    let _ = writeln!(out);
}

fn memory(out: &mut String, context: &Context, subjects: &[Subject], measured: &[Measured]) {
    let _ = writeln!(out, "### Sessions and memory\n");
    let _ = writeln!(
        out,
        "Each on a fresh server process. Opening a session is `initialize` then \
         `notifications/initialized` on one connection: the `initialize` latency p50 and the \
         server CPU of both, with few sessions open, then with {} more open (opened over 16 \
         connections). Memory is the growth of the resident set (`VmRSS`) divided by what was \
         opened: {} idle sessions; {} keep-alive connections that made one call each in a \
         session of their own; a GET stream on each of those connections (the connection \
         not counted); {} running tasks (a 2026-07-28 call that becomes a task and waits to \
         be cancelled).\n",
        group_thousands(context.many_sessions as f64),
        group_thousands(context.many_sessions as f64),
        context.streams,
        context.tasks,
    );
    let names: Vec<&str> = subjects
        .iter()
        .map(|subject| subject.name.as_str())
        .collect();
    let _ = writeln!(out, "| figure | {} |", names.join(" | "));
    let _ = writeln!(out, "|---|{}", "---:|".repeat(names.len()));
    let row = |out: &mut String, label: &str, cell: &dyn Fn(&Measured) -> Option<String>| {
        let cells: Vec<String> = measured
            .iter()
            .map(|figures| cell(figures).unwrap_or_else(|| "-".to_owned()))
            .collect();
        let _ = writeln!(out, "| {label} | {} |", cells.join(" | "));
    };
    row(out, "`initialize` p50, few sessions open", &|m| {
        m.sessions.map(|s| format!("{:.0} µs", s.open_p50_few))
    });
    row(
        out,
        &format!(
            "`initialize` p50, {} open",
            group_thousands(context.many_sessions as f64)
        ),
        &|m| {
            m.sessions.map(|s| {
                format!(
                    "{:.0} µs ({:.2}x)",
                    s.open_p50_many,
                    s.open_p50_many / s.open_p50_few
                )
            })
        },
    );
    row(out, "server CPU per session opened, few open", &|m| {
        m.sessions.map(|s| format!("{:.1} µs", s.open_cpu_few))
    });
    row(
        out,
        &format!(
            "server CPU per session opened, {} open",
            group_thousands(context.many_sessions as f64)
        ),
        &|m| {
            m.sessions.map(|s| {
                format!(
                    "{:.1} µs ({:.2}x)",
                    s.open_cpu_many,
                    s.open_cpu_many / s.open_cpu_few
                )
            })
        },
    );
    row(out, "memory per idle legacy session (goal < 2 KiB)", &|m| {
        m.sessions.map(|s| bytes(s.bytes_per_idle_session))
    });
    row(out, "memory per idle keep-alive connection", &|m| {
        m.connection_bytes.map(bytes)
    });
    row(out, "memory per open GET stream", &|m| {
        m.stream_bytes.map(bytes)
    });
    row(out, "memory per running task", &|m| m.task_bytes.map(bytes));
    let _ = writeln!(
        out,
        "\n`-`: not measured (the baseline has no streams or tasks; rmcp's tasks are not \
         measured; the default-profile build is measured for speed only)."
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_replaces_its_section_and_keeps_the_rest() {
        let previous = format!("# B\n\nstdio\n\n{START}\n\nold\n\n{END}\n\n## After\n");
        assert_eq!(
            splice(&previous, "new\n"),
            format!("# B\n\nstdio\n\n{START}\n\nnew\n\n{END}\n\n## After\n")
        );
        assert_eq!(
            splice("# B\n", "new\n"),
            format!("# B\n\n{START}\n\nnew\n\n{END}\n")
        );
    }

    fn subject(name: &str) -> Subject {
        Subject {
            name: name.to_owned(),
            program: "/nonexistent".into(),
            modern_args: Vec::new(),
            legacy_args: Vec::new(),
            streams: false,
            tasks: false,
            side_by_side: true,
        }
    }

    fn side_by_side_at(requests: &[f64], cpu: &[f64]) -> Measured {
        let mut measured = Measured::default();
        measured.side_by_side.insert(
            (Era::Modern, 16),
            Ratios {
                requests_per_second: requests.to_vec(),
                cpu_per_request: cpu.to_vec(),
                busy: vec![0.99, 0.97, 0.98],
            },
        );
        measured
    }

    #[test]
    fn the_goals_are_judged_by_the_medians_measured_side_by_side() {
        let subjects = [
            subject("hyper baseline"),
            subject("mcp-runtime"),
            subject("rmcp"),
        ];
        let measured = [
            side_by_side_at(&[1.0, 1.01, 0.99], &[1.0, 0.99, 1.01]),
            // One window above 0.85x and one CPU ratio under 1.25x do not make the medians.
            side_by_side_at(&[0.80, 0.90, 0.84, 0.83], &[1.20, 1.26, 1.30, 1.27]),
            side_by_side_at(&[0.2, 0.21, 0.19], &[5.0, 5.1, 4.9]),
        ];
        let mut out = String::new();
        goals(&mut out, &subjects, &measured);
        let row = out
            .lines()
            .find(|line| line.starts_with("| 2026-07-28 | 16 |"))
            .expect("a row for the case measured");
        assert_eq!(
            row,
            "| 2026-07-28 | 16 | 0.835x **not met** | 1.265x **not met** | 4.2x met | - |"
        );
        assert_eq!(
            out.lines().filter(|line| line.starts_with("| 20")).count(),
            1,
            "no row for cases not measured: {out}"
        );
        let mut table = String::new();
        let context = Context {
            command_line: String::new(),
            rounds: 0,
            quick: false,
            pinned: None,
            measure: Duration::ZERO,
            many_sessions: 0,
            streams: 0,
            tasks: 0,
            counted_calls: None,
            side_by_side: Some(Windows {
                count: 4,
                processes: 2,
                warm_up: Duration::ZERO,
                measure: Duration::from_secs(2),
            }),
        };
        side_by_side(&mut table, &context, &subjects, &measured);
        assert!(
            table.contains(
                "| 2026-07-28 | 16 | mcp-runtime | 0.83x (0.80-0.90) | 1.27x (1.20-1.30) | 0.97 |"
            ),
            "{table}"
        );
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group_thousands(1234567.0), "1 234 567");
        assert_eq!(group_thousands(999.0), "999");
    }
}
