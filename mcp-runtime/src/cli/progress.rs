//! A progress line on stderr while `call` runs a slow tool from a terminal.
//!
//! A call that takes longer than [`QUIET`] gets a line that is redrawn every [`TICK`]: the
//! elapsed time, and a bar once the tool reports how far it is. The line is erased when the
//! call ends, so only the result remains.
//!
//! The hook: the CLI sends [`TOKEN`] as the call's `progressToken`, and [`Feed::report`] takes
//! the `params` of each `notifications/progress` carrying it. The runtime has no way yet for a
//! tool to report progress (nothing sends `notifications/progress`), so nothing feeds it and
//! the line shows the elapsed time only. Once tools can report progress, the in-process
//! client should hand the notifications for [`TOKEN`] to the call's [`Feed`].

use std::future::Future;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

/// The `progressToken` of calls made from the CLI.
pub(crate) const TOKEN: &str = "mcp-cli";

/// Calls quicker than this show no progress line at all.
const QUIET: Duration = Duration::from_millis(500);
/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(100);
/// Characters of the bar between its brackets.
const BAR_WIDTH: usize = 30;

/// How far a call is, as its last `notifications/progress` said.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Update {
    progress: f64,
    total: Option<f64>,
    message: Option<String>,
}

/// Where progress reports for one call arrive. Cheap to clone; clones share the latest report.
#[derive(Debug, Clone, Default)]
pub(crate) struct Feed {
    latest: Arc<Mutex<Option<Update>>>,
}

impl Feed {
    /// Take the `params` of a `notifications/progress`; those for another token, or without a
    /// numeric `progress`, are ignored.
    #[cfg_attr(
        not(test),
        expect(
            dead_code,
            reason = "the hook for tools' progress, which nothing sends yet"
        )
    )]
    pub(crate) fn report(&self, params: &Value) {
        if params["progressToken"] != TOKEN {
            return;
        }
        let Some(progress) = params["progress"].as_f64() else {
            return;
        };
        let update = Update {
            progress,
            total: params["total"].as_f64().filter(|total| *total > 0.0),
            message: params["message"].as_str().map(str::to_owned),
        };
        *self.latest.lock().unwrap_or_else(PoisonError::into_inner) = Some(update);
    }

    fn latest(&self) -> Option<Update> {
        self.latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Await `running`, drawing the progress line for `label` on `terminal` meanwhile.
pub(crate) async fn show_while<T>(
    label: &str,
    feed: &Feed,
    terminal: &mut (dyn Write + Send),
    running: impl Future<Output = T>,
) -> T {
    let started = Instant::now();
    let mut ticks = tokio::time::interval_at(started + QUIET, TICK);
    let mut drawn = false;
    tokio::pin!(running);
    let output = loop {
        tokio::select! {
            output = &mut running => break output,
            _ = ticks.tick() => {
                let line = line(label, started.elapsed(), feed.latest().as_ref());
                // `\r` and erase-line redraw in place; a failed draw only loses the line.
                let _ = write!(terminal, "\r\x1b[2K{line}");
                let _ = terminal.flush();
                drawn = true;
            }
        }
    };
    if drawn {
        let _ = write!(terminal, "\r\x1b[2K");
        let _ = terminal.flush();
    }
    output
}

/// The line for a call `elapsed` into running: a bar when the total is known, the count
/// otherwise, the elapsed time always.
fn line(label: &str, elapsed: Duration, update: Option<&Update>) -> String {
    let seconds = elapsed.as_secs_f64();
    let Some(update) = update else {
        return format!("{label} … {seconds:.1}s");
    };
    let message = update
        .message
        .as_deref()
        .map_or_else(String::new, |message| format!(" {message}"));
    match update.total {
        Some(total) => {
            let fraction = (update.progress / total).clamp(0.0, 1.0);
            // Truncation is intended: a cell is full only once its share is done.
            let filled = (fraction * BAR_WIDTH as f64) as usize;
            format!(
                "{label} [{}{}] {:>3.0}%{message} {seconds:.1}s",
                "#".repeat(filled),
                "-".repeat(BAR_WIDTH - filled),
                fraction * 100.0,
            )
        }
        None => format!("{label} … {}{message} {seconds:.1}s", update.progress),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_bar_when_the_total_is_known() {
        let feed = Feed::default();
        feed.report(
            &json!({"progressToken": TOKEN, "progress": 5, "total": 10, "message": "half"}),
        );
        let text = line("add", Duration::from_millis(1500), feed.latest().as_ref());
        assert_eq!(
            text,
            format!("add [{}{}]  50% half 1.5s", "#".repeat(15), "-".repeat(15))
        );
    }

    #[test]
    fn a_count_or_the_time_otherwise() {
        let feed = Feed::default();
        assert_eq!(line("t", Duration::from_secs(2), None), "t … 2.0s");
        feed.report(&json!({"progressToken": TOKEN, "progress": 7}));
        assert_eq!(
            line("t", Duration::from_secs(2), feed.latest().as_ref()),
            "t … 7 2.0s"
        );
        // Another call's token, and a report without progress, change nothing.
        feed.report(&json!({"progressToken": "other", "progress": 9}));
        feed.report(&json!({"progressToken": TOKEN}));
        assert_eq!(feed.latest().unwrap().progress, 7.0);
    }

    #[tokio::test(start_paused = true)]
    async fn quick_calls_draw_nothing() {
        let mut terminal = Vec::new();
        let answer = show_while("t", &Feed::default(), &mut terminal, async { 42 }).await;
        assert_eq!(answer, 42);
        assert!(terminal.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn slow_calls_draw_a_line_then_erase_it() {
        let mut terminal = Vec::new();
        let feed = Feed::default();
        let reporter = feed.clone();
        let running = async move {
            tokio::time::sleep(Duration::from_millis(700)).await;
            reporter.report(&json!({"progressToken": TOKEN, "progress": 1, "total": 4}));
            tokio::time::sleep(Duration::from_millis(300)).await;
            "done"
        };
        assert_eq!(
            show_while("slow", &feed, &mut terminal, running).await,
            "done"
        );
        let drawn = String::from_utf8(terminal).unwrap();
        assert!(drawn.contains("slow … 0.5s"), "{drawn:?}");
        assert!(drawn.contains("]  25%"), "{drawn:?}");
        assert!(drawn.ends_with("\r\x1b[2K"), "{drawn:?}");
    }
}
