//! The Markdown report: preamble, the table of figures, how to read it.

use std::fmt::Write as _;

use crate::facts::Machine;
use crate::figures::{Figures, Unit};

/// Everything the report says besides the figures themselves.
pub struct Context {
    pub machine: Machine,
    pub command_line: String,
    pub rounds: usize,
    pub quick: bool,
    pub pinned_cpu: Option<usize>,
    /// Whether the servers are release builds; debug figures say nothing about performance.
    pub release: bool,
    /// What stands in each column, e.g. the binary paths.
    pub raw_servers: String,
    pub framework_servers: String,
    pub framework_column: &'static str,
    /// Markdown from `bench/build-time.sh`, when it was run.
    pub build_times: Option<String>,
}

pub fn render(context: &Context, raw: &Figures, framework: &Figures) -> String {
    let mut out = String::new();
    let machine = &context.machine;
    let pinning = match context.pinned_cpu {
        Some(cpu) => format!("driver and server pinned to CPU {cpu}"),
        None => "not pinned (pass `--pin` to share one CPU)".to_owned(),
    };
    let mode = if context.quick { "quick" } else { "full" };
    let rounds = match context.rounds {
        1 => "one round".to_owned(),
        rounds => format!("best of {rounds} rounds alternating the servers"),
    };
    // `writeln!` into a String cannot fail.
    let _ = writeln!(out, "# Benchmarks\n");
    let _ = writeln!(
        out,
        "Measured with `{}` on {}.\n",
        context.command_line, machine.date
    );
    let _ = writeln!(
        out,
        "- Machine: {}, {} CPUs online, Linux {}",
        machine.cpu_model, machine.online_cpus, machine.kernel
    );
    let _ = writeln!(out, "- Toolchain: {}", machine.rustc);
    if !context.release {
        let _ = writeln!(
            out,
            "- **Debug builds: run with `--release` for meaningful figures**"
        );
    }
    let _ = writeln!(out, "- Run: {mode}, {rounds}, {pinning}");
    let _ = writeln!(out, "- raw: {}", context.raw_servers);
    let _ = writeln!(
        out,
        "- {}: {}\n",
        context.framework_column, context.framework_servers
    );
    let _ = writeln!(
        out,
        "| figure | raw | {} | ratio | target |",
        context.framework_column
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---|");
    for (figure, raw_value) in &raw.0 {
        let Some(framework_value) = framework.get(*figure) else {
            continue;
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.2}x | {} |",
            figure.label(),
            format_value(figure.unit(), *raw_value),
            format_value(figure.unit(), framework_value),
            framework_value / raw_value,
            figure.target(),
        );
    }
    let _ = writeln!(out, "\n{}", legend(context.framework_column));
    if let Some(build_times) = &context.build_times {
        let _ = writeln!(out, "\n{build_times}");
    }
    out
}

/// How to read the table, as a Markdown list.
fn legend(framework_column: &str) -> String {
    [
        &format!(
            "- The ratio is {framework_column} / raw: above 1 is better for calls/s, worse for \
             everything else."
        ),
        "- Each figure is the best of the rounds, since other work on the machine only ever \
         makes a figure worse. Pipelined calls/s is that of the fastest tenth of the stream, \
         for the same reason.",
        "- The `tools/list` rows compare `raw-baseline --tools 50` with `bench-fifty-tools`, \
         whose tools have the same shape.",
        "- Server CPU is the time every server thread spent on a CPU \
         (`/proc/<pid>/task/*/schedstat`: utime + stime, unrounded), divided by the calls. It \
         is the least noisy figure.",
        "- Peak RSS is `VmHWM`, read just before the server exits.",
        "- The raw baseline allocates every large argument afresh, and glibc gives the memory \
         back to the kernel between requests. Its 1 MiB and 8 MiB round trips so pay page \
         faults that a server reusing its buffers avoids: a ratio under 1 there is not noise.",
        "- Crates are counted with `cargo tree -e normal`, of `mcp-bench` (serde_json alone) \
         for the raw baseline and of `mcp-workspace` for the calculator.",
    ]
    .join("\n")
}

fn format_value(unit: Unit, value: f64) -> String {
    match unit {
        Unit::CallsPerSecond => format!("{} calls/s", group_thousands(value.round() as u64)),
        Unit::Microseconds => format!("{value:.1} µs"),
        Unit::Milliseconds => format!("{value:.2} ms"),
        // Three decimals: with two, a binary a few KiB under its 1.5 MiB limit reads "1.50".
        Unit::Bytes if value >= (1 << 20) as f64 => format!("{:.3} MiB", value / (1 << 20) as f64),
        Unit::Bytes if value >= 1024.0 => format!("{:.1} KiB", value / 1024.0),
        Unit::Bytes => format!("{value} B"),
        Unit::Count => format!("{value}"),
    }
}

/// `1234567` as `1 234 567`.
fn group_thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut grouped = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index) % 3 == 0 {
            grouped.push(' ');
        }
        grouped.push(digit);
    }
    grouped
}

/// The line in a written report below which the text is kept: `--write` replaces what is above
/// it and copies the rest (figures measured by hand, with how) from the file it overwrites.
pub const KEPT_BELOW: &str = "<!-- Written by hand from here on: `--write` keeps it. -->";

/// `report` followed by what `previous` (the file about to be overwritten) has from
/// [`KEPT_BELOW`] on, if anything.
pub fn keep_hand_written(report: &str, previous: &str) -> String {
    match previous.find(KEPT_BELOW) {
        Some(start) => format!("{}\n\n{}", report.trim_end(), &previous[start..]),
        None => report.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_written_sections_survive_a_rewrite() {
        let previous = format!("# Benchmarks\n\nold table\n\n{KEPT_BELOW}\n\n## By hand\n\nkept\n");
        assert_eq!(
            keep_hand_written("# Benchmarks\n\nnew table\n", &previous),
            format!("# Benchmarks\n\nnew table\n\n{KEPT_BELOW}\n\n## By hand\n\nkept\n")
        );
        assert_eq!(keep_hand_written("new\n", "old\n"), "new\n");
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(1000), "1 000");
        assert_eq!(group_thousands(1234567), "1 234 567");
    }

    #[test]
    fn sizes_take_the_largest_fitting_unit() {
        assert_eq!(format_value(Unit::Bytes, 512.0), "512 B");
        assert_eq!(format_value(Unit::Bytes, 2048.0), "2.0 KiB");
        assert_eq!(format_value(Unit::Bytes, 3.0 * 1048576.0), "3.000 MiB");
        assert_eq!(format_value(Unit::Bytes, 1_568_272.0), "1.496 MiB");
    }
}
