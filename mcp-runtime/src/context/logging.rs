//! Log levels of `notifications/message` and the minimum level a request's logs must reach.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// The severity of a log message sent to the client: the eight levels of RFC 5424 (syslog),
/// from the least to the most severe.
///
/// ```
/// use mcp_runtime::LogLevel;
///
/// assert!(LogLevel::Warning > LogLevel::Info);
/// assert_eq!("error".parse::<LogLevel>(), Ok(LogLevel::Error));
/// assert_eq!(LogLevel::Emergency.as_str(), "emergency");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// General information.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, from the least to the most severe.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level as it travels on the wire (`"debug"` … `"emergency"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `tracing`'s five levels on the client's eight: `TRACE` and `DEBUG` are both `debug`,
/// `WARN` is `warning`.
///
/// ```
/// use mcp_runtime::LogLevel;
///
/// assert_eq!(LogLevel::from(tracing::Level::WARN), LogLevel::Warning);
/// assert_eq!(LogLevel::from(tracing::Level::TRACE), LogLevel::Debug);
/// ```
impl From<tracing::Level> for LogLevel {
    fn from(level: tracing::Level) -> Self {
        match level {
            tracing::Level::ERROR => LogLevel::Error,
            tracing::Level::WARN => LogLevel::Warning,
            tracing::Level::INFO => LogLevel::Info,
            tracing::Level::DEBUG | tracing::Level::TRACE => LogLevel::Debug,
        }
    }
}

/// A string that names no log level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownLogLevel(pub String);

impl fmt::Display for UnknownLogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown log level {:?}: expected one of debug, info, notice, warning, error, \
             critical, alert, emergency",
            self.0
        )
    }
}

impl std::error::Error for UnknownLogLevel {}

impl FromStr for LogLevel {
    type Err = UnknownLogLevel;

    fn from_str(level: &str) -> Result<Self, Self::Err> {
        LogLevel::ALL
            .into_iter()
            .find(|known| known.as_str() == level)
            .ok_or_else(|| UnknownLogLevel(level.to_owned()))
    }
}

/// A legacy session's minimum level, as its requests read it while they run (a change
/// reaches calls already running). The session keeps it with the rest of what its requests
/// share (`context::session`), behind the one pointer each request holds.
pub(crate) trait SessionLevel: fmt::Debug + Send + Sync {
    /// Whether a message at `level` reaches the client.
    fn allows(&self, level: LogLevel) -> bool;
}

/// Which logs of one request reach the client.
#[derive(Debug, Clone)]
pub(crate) enum LogGate {
    /// Legacy: the session's level, as `logging/setLevel` last set it.
    Session(Arc<dyn SessionLevel>),
    /// 2026-07-28: the request's own `_meta["io.modelcontextprotocol/logLevel"]`; nothing at
    /// all when the request named none.
    Request(Option<LogLevel>),
}

impl LogGate {
    pub(crate) fn allows(&self, level: LogLevel) -> bool {
        match self {
            LogGate::Session(session) => session.allows(level),
            LogGate::Request(minimum) => minimum.is_some_and(|minimum| level >= minimum),
        }
    }

    /// Whether some message could pass (so a request needs a way to send them).
    pub(crate) fn may_allow_any(&self) -> bool {
        match self {
            LogGate::Session(_) => true,
            LogGate::Request(minimum) => minimum.is_some(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_round_trip_and_order_by_severity() {
        for (index, level) in LogLevel::ALL.into_iter().enumerate() {
            assert_eq!(level.as_str().parse::<LogLevel>(), Ok(level));
            assert_eq!(level as usize, index);
        }
        assert!("verbose".parse::<LogLevel>().is_err());
        assert!("Error".parse::<LogLevel>().is_err(), "levels are lowercase");
    }

    #[test]
    fn a_modern_request_without_a_level_gets_no_logs() {
        assert!(!LogGate::Request(None).allows(LogLevel::Emergency));
        assert!(!LogGate::Request(None).may_allow_any());
        let error = LogGate::Request(Some(LogLevel::Error));
        assert!(error.allows(LogLevel::Critical));
        assert!(!error.allows(LogLevel::Warning));
    }
}
