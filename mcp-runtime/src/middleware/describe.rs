//! Words the shipped layers' errors share: what a request names, and how long something is.

use std::time::Duration;

use super::Method;

/// What a request is about, for a sentence: "the tool `x`", "the resource `file:///a`".
pub(super) fn subject(method: Method, name: Option<&str>) -> String {
    let Some(name) = name else {
        return format!("`{method}`");
    };
    match method {
        Method::CallTool => format!("the tool `{name}`"),
        Method::ReadResource => format!("the resource `{name}`"),
        Method::GetPrompt => format!("the prompt `{name}`"),
        Method::Complete => format!("the completion for `{name}`"),
        _ => format!("`{method}` of `{name}`"),
    }
}

/// A duration in seconds with at most millisecond precision, rounded up so that "retry in"
/// is never too early: `5 s`, `0.2 s`, `0.001 s`.
pub(super) fn seconds(duration: Duration) -> String {
    let millis = duration.as_nanos().div_ceil(1_000_000);
    let (whole, fraction) = (millis / 1000, millis % 1000);
    if fraction == 0 {
        return format!("{whole} s");
    }
    let fraction = format!("{fraction:03}");
    format!("{whole}.{} s", fraction.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_short_and_round_up() {
        assert_eq!(seconds(Duration::from_secs(5)), "5 s");
        assert_eq!(seconds(Duration::from_millis(200)), "0.2 s");
        assert_eq!(seconds(Duration::from_millis(1250)), "1.25 s");
        assert_eq!(seconds(Duration::from_nanos(1)), "0.001 s");
        assert_eq!(seconds(Duration::from_micros(199_001)), "0.2 s");
        assert_eq!(seconds(Duration::ZERO), "0 s");
    }

    #[test]
    fn subjects_name_the_kind_of_thing() {
        assert_eq!(subject(Method::CallTool, Some("x")), "the tool `x`");
        assert_eq!(
            subject(Method::ReadResource, Some("file:///a")),
            "the resource `file:///a`"
        );
        assert_eq!(subject(Method::ListTools, None), "`tools/list`");
    }
}
