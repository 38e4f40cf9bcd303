//! A progress line on stderr while `call` runs a slow tool from a terminal.
//!
//! A call that takes longer than [`QUIET`] gets a line that is redrawn every [`TICK`]: the
//! elapsed time, the tool's last progress message, and a bar once it reports a total
//! (`RequestContext::progress`). The CLI sends [`TOKEN`] as the call's `progressToken`, so the
//! tool's `notifications/progress` come back; the line is erased when the call ends, so only
//! the result remains.

use std::future::Future;
use std::io::Write;
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

/// How far a call is, as its last progress notification said.
#[derive(Debug, Clone, Default, PartialEq)]
struct Progress {
    fraction: Option<f64>,
    message: Option<String>,
}

impl Progress {
    /// Take in one notification the server sent; anything but progress for [`TOKEN`] is
    /// ignored. A report without a total (the server's heartbeats among them) keeps the
    /// last bar and message.
    fn update(&mut self, notification: &Value) {
        let params = &notification["params"];
        if notification["method"] != "notifications/progress" || params["progressToken"] != TOKEN {
            return;
        }
        let Some(progress) = params["progress"].as_f64() else {
            return;
        };
        if let Some(total) = params["total"].as_f64().filter(|total| *total > 0.0) {
            self.fraction = Some((progress / total).clamp(0.0, 1.0));
        }
        if let Some(message) = params["message"].as_str() {
            self.message = Some(message.to_owned());
        }
    }
}

/// Await `running`, drawing the progress line for `label` on `terminal` meanwhile from what
/// `received` yields: the notifications that arrived since it was last called.
pub(crate) async fn show_while<T>(
    label: &str,
    mut received: impl FnMut() -> Vec<Value>,
    terminal: &mut (dyn Write + Send),
    running: impl Future<Output = T>,
) -> T {
    let started = Instant::now();
    let mut ticks = tokio::time::interval_at(started + QUIET, TICK);
    let mut progress = Progress::default();
    let mut drawn = false;
    tokio::pin!(running);
    let output = loop {
        tokio::select! {
            output = &mut running => break output,
            _ = ticks.tick() => {
                received().iter().for_each(|notification| progress.update(notification));
                let line = line(label, started.elapsed(), &progress);
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

/// The line for a call `elapsed` into running: the label, a bar once a total is known, the
/// last message, the elapsed time.
fn line(label: &str, elapsed: Duration, progress: &Progress) -> String {
    let mut line = label.to_owned();
    match progress.fraction {
        Some(fraction) => {
            // Truncation is intended: a cell is full only once its share is done.
            let filled = (fraction * BAR_WIDTH as f64) as usize;
            line += &format!(
                " [{}{}] {:>3.0}%",
                "#".repeat(filled),
                "-".repeat(BAR_WIDTH - filled),
                fraction * 100.0
            );
        }
        None => line.push_str(" …"),
    }
    if let Some(message) = &progress.message {
        line.push(' ');
        line.push_str(message);
    }
    line + &format!(" {:.1}s", elapsed.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn report(params: Value) -> Value {
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
    }

    #[test]
    fn a_bar_once_the_total_is_known() {
        let mut progress = Progress::default();
        progress.update(&report(
            json!({"progressToken": TOKEN, "progress": 5, "total": 10, "message": "half"}),
        ));
        assert_eq!(
            line("add", Duration::from_millis(1500), &progress),
            format!("add [{}{}]  50% half 1.5s", "#".repeat(15), "-".repeat(15))
        );
        // A report without a total (a heartbeat) keeps the bar and the message.
        progress.update(&report(json!({"progressToken": TOKEN, "progress": 5.5})));
        assert_eq!(progress.fraction, Some(0.5));
        assert_eq!(progress.message.as_deref(), Some("half"));
    }

    #[test]
    fn the_time_alone_otherwise() {
        let mut progress = Progress::default();
        assert_eq!(line("t", Duration::from_secs(2), &progress), "t … 2.0s");
        // Another token, another method, and a report without progress change nothing.
        progress.update(&report(
            json!({"progressToken": "other", "progress": 1, "total": 2}),
        ));
        progress.update(
            &json!({"method": "notifications/message", "params": {"progressToken": TOKEN}}),
        );
        progress.update(&report(json!({"progressToken": TOKEN, "total": 2})));
        assert_eq!(progress, Progress::default());
    }

    #[tokio::test(start_paused = true)]
    async fn quick_calls_draw_nothing() {
        let mut terminal = Vec::new();
        let answer = show_while("t", Vec::new, &mut terminal, async { 42 }).await;
        assert_eq!(answer, 42);
        assert!(terminal.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn slow_calls_draw_a_line_then_erase_it() {
        let mut terminal = Vec::new();
        let started = Instant::now();
        let received = || {
            if started.elapsed() >= Duration::from_millis(700) {
                vec![report(
                    json!({"progressToken": TOKEN, "progress": 1, "total": 4}),
                )]
            } else {
                Vec::new()
            }
        };
        let running = async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            "done"
        };
        assert_eq!(
            show_while("slow", received, &mut terminal, running).await,
            "done"
        );
        let drawn = String::from_utf8(terminal).unwrap();
        assert!(drawn.contains("slow … 0.5s"), "{drawn:?}");
        assert!(drawn.contains("]  25% 0.7s"), "{drawn:?}");
        assert!(drawn.ends_with("\r\x1b[2K"), "{drawn:?}");
    }
}
