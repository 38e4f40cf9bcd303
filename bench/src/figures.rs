//! What the harness measures: each figure's name, unit, direction and target.

use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Figure {
    SequentialThroughput,
    SequentialP50,
    SequentialP99,
    ModernSequentialP50,
    PipelinedThroughput,
    SequentialCpuPerCall,
    PipelinedCpuPerCall,
    ToolsListP50,
    ToolsListBytes,
    StartupToInitialize,
    StartupToDiscover,
    PeakRssAfterCalls,
    Echo1MiB,
    Echo8MiB,
    PeakRssAfterEcho,
    StrippedBinarySize,
    DependencyCrates,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    CallsPerSecond,
    Microseconds,
    Milliseconds,
    Bytes,
    Count,
}

impl Figure {
    pub fn label(self) -> &'static str {
        match self {
            Figure::SequentialThroughput => "sequential `tools/call` (add)",
            Figure::SequentialP50 => "sequential `tools/call` latency p50",
            Figure::SequentialP99 => "sequential `tools/call` latency p99",
            Figure::ModernSequentialP50 => "sequential stateless 2026-07-28 `tools/call` p50",
            Figure::PipelinedThroughput => "pipelined `tools/call`, 64 in flight",
            Figure::SequentialCpuPerCall => "server CPU per call, sequential",
            Figure::PipelinedCpuPerCall => "server CPU per call, pipelined",
            Figure::ToolsListP50 => "`tools/list` latency p50, 50 tools",
            Figure::ToolsListBytes => "`tools/list` answer size, 50 tools",
            Figure::StartupToInitialize => "start-up: spawn to `initialize` answer (median)",
            Figure::StartupToDiscover => "start-up: spawn to `server/discover` answer (median)",
            Figure::PeakRssAfterCalls => "peak RSS after the call workloads",
            Figure::Echo1MiB => "1 MiB argument round trip (echo)",
            Figure::Echo8MiB => "8 MiB argument round trip (echo)",
            Figure::PeakRssAfterEcho => "peak RSS after the 8 MiB echo",
            Figure::StrippedBinarySize => "stripped binary size",
            Figure::DependencyCrates => "crates in the dependency tree",
        }
    }

    pub fn unit(self) -> Unit {
        match self {
            Figure::SequentialThroughput | Figure::PipelinedThroughput => Unit::CallsPerSecond,
            Figure::SequentialP50
            | Figure::SequentialP99
            | Figure::ModernSequentialP50
            | Figure::SequentialCpuPerCall
            | Figure::PipelinedCpuPerCall
            | Figure::ToolsListP50 => Unit::Microseconds,
            Figure::StartupToInitialize
            | Figure::StartupToDiscover
            | Figure::Echo1MiB
            | Figure::Echo8MiB => Unit::Milliseconds,
            Figure::ToolsListBytes
            | Figure::PeakRssAfterCalls
            | Figure::PeakRssAfterEcho
            | Figure::StrippedBinarySize => Unit::Bytes,
            Figure::DependencyCrates => Unit::Count,
        }
    }

    /// Whether a larger value is the better one (when keeping the best of several rounds).
    pub fn higher_is_better(self) -> bool {
        self.unit() == Unit::CallsPerSecond
    }

    /// The goal the framework is compared against; reported, never asserted.
    pub fn target(self) -> &'static str {
        match self {
            Figure::PipelinedThroughput => ">= 0.6x raw (aim 0.8x)",
            Figure::SequentialP50 => "<= 1.3x raw",
            Figure::StartupToInitialize | Figure::StartupToDiscover => "<= 2x raw",
            Figure::PeakRssAfterCalls => "< 6 MiB",
            Figure::StrippedBinarySize => "< 1.5 MiB",
            _ => "",
        }
    }
}

/// One server's figures. Values are in the figure's unit: calls/s, microseconds,
/// milliseconds, bytes or a count.
#[derive(Debug, Clone, Default)]
pub struct Figures(pub BTreeMap<Figure, f64>);

impl Figures {
    pub fn set(&mut self, figure: Figure, value: f64) {
        self.0.insert(figure, value);
    }

    pub fn get(&self, figure: Figure) -> Option<f64> {
        self.0.get(&figure).copied()
    }

    /// Keeps, figure by figure, the better of this round and `other`: the least disturbed one,
    /// since other work on the machine only ever makes a figure worse.
    pub fn keep_best(&mut self, other: Figures) {
        for (figure, value) in other.0 {
            let best = match self.get(figure) {
                Some(kept) if figure.higher_is_better() => kept.max(value),
                Some(kept) => kept.min(value),
                None => value,
            };
            self.set(figure, best);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_round_wins_in_each_direction() {
        let mut kept = Figures::default();
        kept.set(Figure::PipelinedThroughput, 100.0);
        kept.set(Figure::SequentialP50, 10.0);
        let mut round = Figures::default();
        round.set(Figure::PipelinedThroughput, 150.0);
        round.set(Figure::SequentialP50, 12.0);
        round.set(Figure::Echo1MiB, 3.0);
        kept.keep_best(round);
        assert_eq!(kept.get(Figure::PipelinedThroughput), Some(150.0));
        assert_eq!(kept.get(Figure::SequentialP50), Some(10.0));
        assert_eq!(kept.get(Figure::Echo1MiB), Some(3.0));
    }
}
