//! The goals' ratios: each server loaded at the same time as a baseline process on the same
//! CPU, window after window.
//!
//! Measured one after the other, a server and the baseline meet different machines: on a
//! shared host the same binary's requests/s move by a fifth from one minute to the next, which
//! is more than the goals' margins. Loaded together on one CPU, both are slowed alike by
//! whatever else runs, and each gets half the CPU, so the ratio of their requests/s is the
//! inverse of the ratio of their CPU per request, and it holds steady while each figure moves.
//! The baseline measured against a second baseline process shows what the method itself
//! adds.

use std::io;
use std::time::Duration;

use crate::server::{ServerProcess, Subject};
use crate::workloads::{self, Era};

/// The calls and connections the issue sets goals for.
pub const CASES: [(Era, usize); 4] = [
    (Era::Modern, 16),
    (Era::Modern, 256),
    (Era::Legacy, 16),
    (Era::Legacy, 256),
];

/// How long each window is, how many there are per case, and over how many pairs of server
/// processes they are spread (each pair started fresh, with its own memory layout).
#[derive(Debug, Clone, Copy)]
pub struct Windows {
    pub count: usize,
    pub processes: usize,
    pub warm_up: Duration,
    pub measure: Duration,
}

/// One case's ratios to the baseline, one per window.
#[derive(Debug, Clone, Default)]
pub struct Ratios {
    pub requests_per_second: Vec<f64>,
    pub cpu_per_request: Vec<f64>,
    /// The share of the server CPU the two servers used together. Near 1, they were what
    /// limited the calls; well under it, the driver was, and the ratios lean towards 1.
    pub busy: Vec<f64>,
}

/// The middle of `values` (the mean of the two middle ones when their number is even), and
/// their least and greatest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    pub fn of(values: &[f64]) -> Option<Spread> {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let middle = sorted.len() / 2;
        let median = match sorted.len() {
            0 => return None,
            length if length % 2 == 1 => sorted[middle],
            _ => (sorted[middle - 1] + sorted[middle]) / 2.0,
        };
        Some(Spread {
            median,
            min: sorted[0],
            max: sorted[sorted.len() - 1],
        })
    }
}

/// `subject` against `baseline`, case by case: for each era, `windows.processes` fresh pairs
/// of processes on CPU `pin`, each measuring its share of `windows.count` windows of every
/// case in which both are loaded at once over as many connections each. The two swap places
/// in the driver's order from one window to the next.
pub async fn against(
    subject: &Subject,
    baseline: &Subject,
    windows: Windows,
    pin: Option<usize>,
) -> io::Result<Vec<((Era, usize), Ratios)>> {
    let mut measured: Vec<((Era, usize), Ratios)> = CASES
        .iter()
        .map(|&case| (case, Ratios::default()))
        .collect();
    let processes = windows.processes.max(1);
    for era in [Era::Modern, Era::Legacy] {
        for process in 0..processes {
            let ours = ServerProcess::spawn(&subject.program, subject.args_for(era), pin)?;
            let limit = ServerProcess::spawn(&baseline.program, baseline.args_for(era), pin)?;
            // This pair's share of the windows: the first pairs take one more when they do
            // not divide evenly.
            let share =
                windows.count / processes + usize::from(process < windows.count % processes);
            for (case, ratios) in measured.iter_mut().filter(|((of, _), _)| *of == era) {
                let connections = case.1;
                eprintln!(
                    "mcp-bench-http: {} side by side with the baseline, {era:?} over \
                     {connections} connection(s) each (processes {} of {processes})",
                    subject.name,
                    process + 1
                );
                for _ in 0..share {
                    let swapped = ratios.requests_per_second.len() % 2 == 1;
                    let (ours, limit) =
                        window([&ours, &limit], swapped, era, connections, windows).await?;
                    ratios.record(&ours, &limit, windows.measure);
                }
            }
        }
    }
    Ok(measured)
}

/// One window of `ours` and the baseline loaded together, the baseline first in the
/// driver's order when `swapped`: their figures, ours first.
async fn window(
    [ours, limit]: [&ServerProcess; 2],
    swapped: bool,
    era: Era,
    connections: usize,
    windows: Windows,
) -> io::Result<(workloads::Throughput, workloads::Throughput)> {
    let order = if swapped {
        [limit, ours]
    } else {
        [ours, limit]
    };
    let [first, second] =
        workloads::side_by_side(order, era, connections, windows.warm_up, windows.measure).await?;
    Ok(if swapped {
        (second, first)
    } else {
        (first, second)
    })
}

impl Ratios {
    /// One window's figures of the server and of the baseline.
    fn record(
        &mut self,
        ours: &workloads::Throughput,
        limit: &workloads::Throughput,
        measured: Duration,
    ) {
        self.requests_per_second
            .push(ours.requests_per_second / limit.requests_per_second);
        self.cpu_per_request
            .push(ours.cpu_micros_per_request / limit.cpu_micros_per_request);
        let cpu_micros = |figures: &workloads::Throughput| {
            figures.cpu_micros_per_request * figures.requests as f64
        };
        self.busy
            .push((cpu_micros(ours) + cpu_micros(limit)) / (measured.as_secs_f64() * 1e6));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spread_has_the_middle_value_and_the_extremes() {
        assert_eq!(Spread::of(&[]), None);
        assert_eq!(
            Spread::of(&[0.9, 0.7, 0.8]),
            Some(Spread {
                median: 0.8,
                min: 0.7,
                max: 0.9
            })
        );
        let even = Spread::of(&[1.0, 0.6, 0.8, 0.9]).unwrap();
        assert!((even.median - 0.85).abs() < 1e-12, "{even:?}");
        assert_eq!((even.min, even.max), (0.6, 1.0));
    }
}
