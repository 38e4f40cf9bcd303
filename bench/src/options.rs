//! The command line.

use std::path::PathBuf;

use crate::server::ServerCommand;
use crate::workloads::Settings;

pub const USAGE: &str = "\
usage: cargo run --release -p mcp-bench -- [options]

  --quick           fewer calls and one round: seconds instead of about a minute
  --smoke           a handful of calls: checks the harness end to end, measures nothing
  --rounds N        measure N rounds, alternating the servers, and keep each figure's best
                    (default 5, or 1 with --quick)
  --pin [CPU]       run the driver and the servers on one CPU (default CPU 0)
  --write FILE      also write the Markdown report to FILE (e.g. BENCHMARKS.md), keeping
                    what FILE has from a `<!-- Written by hand from here on` line on
  --build-time      also time clean and incremental builds (bench/build-time.sh; minutes)
  --noise-floor     measure the raw baseline in both columns: checks the harness and shows
                    how far apart two identical servers measure
  --no-build        use the binaries already built (in target/release)
  --server CMD      measure this server (a command line; it must offer `add` and `echo`)
                    instead of the calculator
  --fifty-server CMD
                    for `tools/list`, this server offering 50 tools instead of
                    bench-fifty-tools";

#[derive(Debug, Clone)]
pub struct Options {
    pub quick: bool,
    pub smoke: bool,
    pub rounds: usize,
    pub pin_cpu: Option<usize>,
    pub write: Option<PathBuf>,
    pub build_time: bool,
    pub noise_floor: bool,
    pub build: bool,
    pub server: Option<ServerCommand>,
    pub fifty_server: Option<ServerCommand>,
    arguments: Vec<String>,
}

impl Options {
    pub fn parse(arguments: impl Iterator<Item = String>) -> Result<Options, String> {
        let arguments: Vec<String> = arguments.collect();
        let mut options = Options {
            quick: false,
            smoke: false,
            rounds: 0,
            pin_cpu: None,
            write: None,
            build_time: false,
            noise_floor: false,
            build: true,
            server: None,
            fifty_server: None,
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
                    options.pin_cpu = Some(cpu.map_or(0, |cpu| cpu.parse().unwrap_or(0)));
                }
                "--write" => {
                    options.write = Some(rest.next().ok_or("--write needs a file")?.into())
                }
                "--build-time" => options.build_time = true,
                "--noise-floor" => options.noise_floor = true,
                "--no-build" => options.build = false,
                "--server" => options.server = Some(command(rest.next())?),
                "--fifty-server" => options.fifty_server = Some(command(rest.next())?),
                unknown => return Err(format!("unknown option `{unknown}`")),
            }
        }
        if options.rounds == 0 {
            options.rounds = if options.quick || options.smoke { 1 } else { 5 };
        }
        Ok(options)
    }

    /// How to reproduce this run, for the report.
    pub fn command_line(&self) -> String {
        let mut line = "cargo run --release -p mcp-bench --".to_owned();
        for argument in &self.arguments {
            line.push(' ');
            line.push_str(argument);
        }
        line
    }

    pub fn settings(&self) -> Settings {
        const MIB: usize = 1 << 20;
        if self.smoke {
            Settings {
                warm_up_calls: 10,
                sequential_calls: 50,
                pipelined_calls: 200,
                in_flight: 64,
                list_calls: 5,
                startup_runs: 1,
                echo_runs: [(MIB, 1), (8 * MIB, 1)],
            }
        } else if self.quick {
            Settings {
                warm_up_calls: 1_000,
                sequential_calls: 10_000,
                pipelined_calls: 100_000,
                in_flight: 64,
                list_calls: 500,
                startup_runs: 5,
                echo_runs: [(MIB, 5), (8 * MIB, 2)],
            }
        } else {
            Settings {
                warm_up_calls: 2_000,
                sequential_calls: 50_000,
                pipelined_calls: 500_000,
                in_flight: 64,
                list_calls: 3_000,
                startup_runs: 20,
                echo_runs: [(MIB, 20), (8 * MIB, 5)],
            }
        }
    }
}

/// A command line, split on whitespace: the program, then its arguments.
fn command(line: Option<String>) -> Result<ServerCommand, String> {
    let line = line.unwrap_or_default();
    let mut words = line.split_whitespace();
    let program = words
        .next()
        .ok_or("--server and --fifty-server need a command")?;
    Ok(ServerCommand::new(
        program.into(),
        &words.collect::<Vec<_>>(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Options, String> {
        Options::parse(line.split_whitespace().map(str::to_owned))
    }

    #[test]
    fn pin_takes_an_optional_cpu() {
        assert_eq!(parse("--pin").unwrap().pin_cpu, Some(0));
        assert_eq!(parse("--pin 1 --quick").unwrap().pin_cpu, Some(1));
        assert!(parse("--pin --quick").unwrap().quick);
    }

    #[test]
    fn quick_runs_one_round_unless_told_otherwise() {
        assert_eq!(parse("").unwrap().rounds, 5);
        assert_eq!(parse("--quick").unwrap().rounds, 1);
        assert_eq!(parse("--quick --rounds 3").unwrap().rounds, 3);
        assert!(parse("--rounds 0").is_err());
    }

    #[test]
    fn a_server_command_keeps_its_arguments() {
        let options = parse("--server ./srv").unwrap();
        assert_eq!(options.server.unwrap().display(), "./srv");
        assert!(parse("--server").is_err());
        assert!(parse("--frobnicate").is_err());
    }
}
