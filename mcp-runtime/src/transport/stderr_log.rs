//! A minimal `tracing` subscriber writing one line per event to stderr, installed only when
//! the program has none of its own.
//!
//! A stdio server's stdout is the protocol, so logs must go to stderr, and MCP clients keep
//! that in their logs. This does just that, without a dependency: no spans, no timestamps
//! (clients stamp lines themselves), one level filter. When the server forwards `tracing`
//! events to clients, every event written is also offered to
//! [`forward_tracing_event`](crate::forward_tracing_event).

use std::fmt::{self, Write as _};
use std::io::Write as _;

use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Install the stderr logger as the global default, unless the program installed a subscriber.
/// The level comes from `MCP_LOG`, else from `RUST_LOG` when it is a bare level, else `info`.
pub(crate) fn install_if_absent() {
    if tracing::dispatcher::has_been_set() {
        return;
    }
    let level = level_from(
        std::env::var("MCP_LOG").ok().as_deref(),
        std::env::var("RUST_LOG").ok().as_deref(),
    );
    // Losing a race with another installer is fine: that one logs instead.
    let _ = tracing::subscriber::set_global_default(StderrLogger { level });
}

fn level_from(mcp_log: Option<&str>, rust_log: Option<&str>) -> LevelFilter {
    mcp_log
        .and_then(|value| value.trim().parse().ok())
        .or_else(|| rust_log.and_then(|value| value.trim().parse().ok()))
        .unwrap_or(LevelFilter::INFO)
}

struct StderrLogger {
    level: LevelFilter,
}

impl Subscriber for StderrLogger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        self.level >= *metadata.level()
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(self.level)
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        // Spans are not shown; every span shares one id.
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let line = format_event(event);
        // One write per line, so lines from different threads never interleave.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
        crate::context::forward::forward_tracing_event(event);
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

/// `LEVEL target: message key=value ...\n`
fn format_event(event: &Event<'_>) -> String {
    let metadata = event.metadata();
    let mut fields = Fields::default();
    event.record(&mut fields);
    format!(
        "{:>5} {}: {}{}\n",
        metadata.level(),
        metadata.target(),
        fields.message,
        fields.others
    )
}

/// The message apart, so it leads whatever order the fields were recorded in.
#[derive(Default)]
struct Fields {
    message: String,
    others: String,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.others, " {}={value}", field.name());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.others, " {}={value:?}", field.name());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[test]
    fn mcp_log_wins_then_a_bare_rust_log_then_info() {
        assert_eq!(level_from(Some("debug"), Some("error")), LevelFilter::DEBUG);
        assert_eq!(level_from(None, Some("warn")), LevelFilter::WARN);
        assert_eq!(level_from(Some("off"), None), LevelFilter::OFF);
        assert_eq!(level_from(None, Some("my_crate=debug")), LevelFilter::INFO);
        assert_eq!(level_from(Some("nonsense"), None), LevelFilter::INFO);
        assert_eq!(level_from(None, None), LevelFilter::INFO);
    }

    /// Formats like `StderrLogger` but keeps the lines.
    struct Capture(Arc<Mutex<Vec<String>>>);

    impl Subscriber for Capture {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, event: &Event<'_>) {
            self.0.lock().unwrap().push(format_event(event));
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }

    #[test]
    fn an_event_is_one_line_with_message_first() {
        let lines = Arc::new(Mutex::new(Vec::new()));
        tracing::subscriber::with_default(Capture(lines.clone()), || {
            tracing::warn!(target: "demo::x", tool = "add", count = 3, "tool {} panicked", "add");
        });
        assert_eq!(
            lines.lock().unwrap().as_slice(),
            [" WARN demo::x: tool add panicked tool=add count=3\n"]
        );
    }
}
