//! How much memory a line would take once parsed, estimated from its bytes before any `Value`
//! is built, so that a small message cannot make the server allocate hundreds of times its
//! size (each `0` of `[0,0,...]` is two bytes in, a 72-byte `Value` out).
//!
//! The estimate counts, outside strings, what allocates: every value (`1 +` the commas), every
//! object member once more (its key and its slot in the map: the colons), and every non-empty
//! array or object four values more (Rust's smallest `Vec` holds four). Measured against
//! serde_json with `preserve_order`, it is within a few percent of the real heap for flat
//! arrays, nested arrays, small objects and large objects alike. String contents are not
//! counted: a string takes no more parsed than sent, and the message size bounds it.

/// The parsed size a message may take unless a server chooses another (64 MiB).
pub(crate) const DEFAULT_MAX_PARSED_SIZE: usize = 64 * 1024 * 1024;

use serde_json::Value;

/// The unit of the estimate: one `Value`, wherever it is kept.
const VALUE: usize = size_of::<Value>();

/// What a non-empty array or object costs, in [`VALUE`]s: itself, and the four its first
/// allocation holds whatever it holds.
const OPEN: usize = 5;

/// Whether `line`, parsed, would take more than `limit` bytes by the estimate.
///
/// Exact for valid JSON. On invalid JSON it may say either, which does no harm: the parser
/// refuses that line in any case, and builds at most two bytes' worth of values per value
/// before it does. Stops counting at the limit, so a refused line is read only that far.
#[inline]
pub(crate) fn exceeds(line: &[u8], limit: usize) -> bool {
    let limit = limit / VALUE;
    // Every opening bracket needs a closing one, every comma or colon a value after it: no
    // line counts more than `OPEN / 2` per byte. Lines that cannot reach the limit (every
    // usual message, under the default limit) are not read at all.
    if line.len().saturating_mul(OPEN).div_ceil(2) < limit {
        return false;
    }
    over(line, limit)
}

/// Whether `line` counts more than `limit` values.
#[inline(never)]
fn over(line: &[u8], limit: usize) -> bool {
    let mut count = 1usize;
    let mut at = 0;
    while let Some(&byte) = line.get(at) {
        at += 1;
        // A table rather than a `match`: most bytes weigh nothing, and one load tells so.
        let weight = WEIGHT[usize::from(byte)];
        if weight == 0 {
            continue;
        }
        if weight == QUOTE {
            match string_end(&line[at..]) {
                Some(end) => at += end,
                None => return false,
            }
            continue;
        }
        if weight == OPEN as u8 {
            let next = line[at..]
                .iter()
                .find(|byte| !matches!(byte, b' ' | b'\t' | b'\n' | b'\r'));
            if matches!(next, Some(b']' | b'}')) {
                continue;
            }
        }
        count += usize::from(weight);
        if count > limit {
            return true;
        }
    }
    false
}

/// What each byte outside strings adds to the count; [`QUOTE`] for the one that opens a string.
const WEIGHT: [u8; 256] = {
    let mut weight = [0; 256];
    weight[b',' as usize] = 1;
    weight[b':' as usize] = 1;
    weight[b'[' as usize] = OPEN as u8;
    weight[b'{' as usize] = OPEN as u8;
    weight[b'"' as usize] = QUOTE;
    weight
};

/// The [`WEIGHT`] of `"`: no count, a string to skip.
const QUOTE: u8 = u8::MAX;

/// The length of the rest of a string, closing quote included, from just after its opening
/// quote; `None` when it does not end.
fn string_end(rest: &[u8]) -> Option<usize> {
    let mut at = 0;
    loop {
        at += memchr::memchr2(b'"', b'\\', &rest[at..])?;
        if rest[at] == b'"' {
            return Some(at + 1);
        }
        // An escape: whatever byte follows it (a quote, a backslash) is part of the string.
        at += 2;
        if at > rest.len() {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimate of `text`, in values, counted whatever its length.
    fn values(text: &str) -> usize {
        (1..).find(|&limit| !over(text.as_bytes(), limit)).unwrap()
    }

    #[test]
    fn values_members_and_non_empty_containers_are_counted() {
        assert_eq!(values("0"), 1);
        assert_eq!(values(r#""a,b""#), 1);
        assert_eq!(values("[]"), 1);
        assert_eq!(values("{ }"), 1);
        assert_eq!(values("[ \n]"), 1);
        assert_eq!(values("[0]"), 1 + OPEN);
        assert_eq!(values("[0,0,0]"), 3 + OPEN);
        assert_eq!(values(r#"{"a":0,"b":0}"#), 4 + OPEN);
        assert_eq!(values("[[],[],{}]"), 3 + OPEN);
        assert_eq!(values("[[0],[0]]"), 2 + 3 * OPEN);
        assert_eq!(values(" [ [ 1 ] , { } ] "), 2 + 2 * OPEN);
    }

    #[test]
    fn nothing_inside_strings_counts() {
        assert_eq!(values(r#"[",:[{", "]}"]"#), 2 + OPEN);
        assert_eq!(values(r#"{"[,:{":"}],:"}"#), 2 + OPEN);
        // Escaped quotes do not end a string; an escaped backslash does not escape the quote.
        assert_eq!(values(r#"["a\",[0,0]"]"#), 1 + OPEN);
        assert_eq!(values(r#"["a\\",[0,0]]"#), 3 + 2 * OPEN);
        assert_eq!(values(r#"["\\\",{\"a\":1}"]"#), 1 + OPEN);
        assert_eq!(values(r#"["\\\\",0]"#), 2 + OPEN);
        assert_eq!(values(r#"["\u0022,",0]"#), 2 + OPEN);
        assert_eq!(values("[\"\u{e9},\",0]"), 2 + OPEN);
    }

    #[test]
    fn a_message_over_the_limit_is_refused_and_one_at_it_is_not() {
        let zeros = format!("[{}0]", "0,".repeat(9_999));
        let needed = (10_000 + OPEN) * VALUE;
        assert!(!exceeds(zeros.as_bytes(), needed));
        assert!(exceeds(zeros.as_bytes(), needed - 1));
        let line = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"a":{zeros}}}}}"#);
        assert!(exceeds(line.as_bytes(), needed));
        // The same bytes in a string cost nothing.
        let text = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"a":"{zeros}"}}}}"#);
        assert!(!exceeds(text.as_bytes(), 20 * VALUE));
    }

    #[test]
    fn strings_that_never_end_are_left_to_the_parser() {
        // What follows an opening quote is a string to its end: its commas count for nothing.
        for text in [
            r#"["abc,0,0,0,0,0,0"#,
            r#"["a\",0,0,0,0,0,0"#,
            r#"["a\\\",0,0,0,0,0,0"#,
            r#"["\"#,
        ] {
            assert_eq!(values(text), 1 + OPEN, "{text}");
        }
    }

    #[test]
    fn the_shortcut_never_skips_a_line_that_could_exceed() {
        // The densest lines there are, per byte: deep nesting and single-value arrays.
        for text in [
            "[[[[[[[[[[0]]]]]]]]]]".to_owned(),
            format!("[{}[0]]", "[0],".repeat(500)),
            format!("{{{}\"\":0}}", "\"\":0,".repeat(500)),
        ] {
            // `exceeds` skips the count below this limit.
            let skipped_below = (text.len() * OPEN).div_ceil(2) + 1;
            assert!(values(&text) <= skipped_below, "{text}");
        }
    }
}
