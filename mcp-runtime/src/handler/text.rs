//! A call's `arguments` as the client wrote them, read member by member without building the
//! object: what a generated tool reads each argument from, straight into its type.

use serde_json::value::RawValue;

/// A call's `arguments`, as the client wrote them.
#[derive(Debug)]
pub(crate) struct ArgumentsText(Box<RawValue>);

impl ArgumentsText {
    pub(crate) fn new(text: Box<RawValue>) -> Self {
        ArgumentsText(text)
    }

    /// The whole text.
    pub(crate) fn get(&self) -> &str {
        self.0.get()
    }

    /// The text of the member `name`: the last one when it was given more than once, as a
    /// map keeps it. `None` when there is none (or the text is no object).
    ///
    /// A walk over the whole text per member asked: a tool's few arguments cost less so than
    /// an index would to build.
    pub(crate) fn member(&self, name: &str) -> Option<&str> {
        let mut found = None;
        let whole = walk_members(self.get(), |written, escaped, value| {
            if names(written, escaped, name) {
                found = Some(value);
            }
        });
        found.filter(|_| whole)
    }
}

/// Whether the JSON object `text` (well-formed) has a member named one of `names`: its own
/// members only, compared where they lie in the text.
pub(crate) fn has_member(text: &str, names: &[&str]) -> bool {
    let mut found = false;
    let whole = walk_members(text, |written, escaped, _| {
        found |= names.iter().any(|name| self::names(written, escaped, name));
    });
    found && whole
}

/// Each member of the JSON object `text` in order: its name as written (between its quotes,
/// and whether that holds escapes) and its value's text. `false` when `text` is no object or
/// the walk could not finish it (never for well-formed JSON).
///
/// A walk over the whole text: strings (where a large value's bytes are) are skipped eight
/// bytes at a time.
fn walk_members<'t>(text: &'t str, mut each: impl FnMut(&'t str, bool, &'t str)) -> bool {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'{') {
        return false;
    }
    let mut at = skip_whitespace(bytes, 1);
    if bytes.get(at) == Some(&b'}') {
        return true;
    }
    loop {
        // `"name"`, then `:`.
        if bytes.get(at) != Some(&b'"') {
            return false;
        }
        let Some((key_end, escaped)) = string_at(bytes, at) else {
            return false;
        };
        let written = &text[at + 1..key_end - 1];
        at = skip_whitespace(bytes, key_end);
        at = skip_whitespace(bytes, at + 1);
        let Some(value_end) = value_end(bytes, at) else {
            return false;
        };
        each(written, escaped, &text[at..value_end]);
        at = skip_whitespace(bytes, value_end);
        match bytes.get(at) {
            Some(b',') => at = skip_whitespace(bytes, at + 1),
            _ => return true,
        }
    }
}

/// Whether a member name as written (between its quotes, `escaped` or not) is `name`.
fn names(written: &str, escaped: bool, name: &str) -> bool {
    if !escaped {
        return written == name;
    }
    // Escapes, so it must be read; rare enough to allocate for.
    serde_json::from_str::<String>(&format!("\"{written}\"")).is_ok_and(|read| read == name)
}

/// Where the string whose opening quote is at `at` ends (just past its closing quote), and
/// whether it holds escapes.
fn string_at(bytes: &[u8], at: usize) -> Option<(usize, bool)> {
    let mut escaped = false;
    let mut end = at + 1;
    loop {
        // Eight bytes a step while none of them ends the string or starts an escape, then
        // straight to the first that does.
        while let Some(chunk) = bytes.get(end..end + 8) {
            let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            let found = holds(word, b'"') | holds(word, b'\\');
            if found != 0 {
                // The lowest flag is exact (only bytes after a match can be flagged wrongly).
                end += found.trailing_zeros() as usize / 8;
                break;
            }
            end += 8;
        }
        match *bytes.get(end)? {
            b'"' => return Some((end + 1, escaped)),
            b'\\' => {
                escaped = true;
                end += 2;
            }
            _ => end += 1,
        }
    }
}

/// Not zero when one of the eight bytes of `word` is `byte`.
const fn holds(word: u64, byte: u8) -> u64 {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let differences = word ^ (ONES * byte as u64);
    differences.wrapping_sub(ONES) & !differences & HIGHS
}

fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// Where the value starting at `at` ends (just past it).
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        b'"' => string_at(bytes, at).map(|(end, _)| end),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut at = at;
            loop {
                match *bytes.get(at)? {
                    // To its closing quote, which the step below passes.
                    b'"' => at = string_at(bytes, at)?.0 - 1,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
        }
        // A number, `true`, `false` or `null`.
        _ => Some(
            at + bytes[at..]
                .iter()
                .position(|byte| matches!(byte, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(bytes.len() - at),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(json: &str) -> ArgumentsText {
        ArgumentsText::new(RawValue::from_string(json.to_owned()).unwrap())
    }

    #[test]
    fn finds_each_member_whatever_it_holds() {
        let arguments = text(
            r#" {"s": "a \"b\" \\", "n": -1.5e3, "o": {"x": [1, {"y": "}]"}], "s": 2},
                "a": [ ], "t" : true, "z":null}"#
                .trim_start(),
        );
        assert_eq!(arguments.member("s"), Some(r#""a \"b\" \\""#));
        assert_eq!(arguments.member("n"), Some("-1.5e3"));
        assert_eq!(
            arguments.member("o"),
            Some(r#"{"x": [1, {"y": "}]"}], "s": 2}"#)
        );
        assert_eq!(arguments.member("x"), None, "only the top level counts");
        assert_eq!(arguments.member("a"), Some("[ ]"));
        assert_eq!(arguments.member("t"), Some("true"));
        assert_eq!(arguments.member("z"), Some("null"));
        assert_eq!(arguments.member("missing"), None);
    }

    #[test]
    fn the_last_of_a_repeated_member_counts_and_escaped_names_are_read() {
        let arguments = text(r#"{"a":1,"\u0061":2,"b\"":3,"a" :4 ,"é":5}"#);
        assert_eq!(arguments.member("a"), Some("4"));
        assert_eq!(arguments.member("b\""), Some("3"));
        assert_eq!(arguments.member("é"), Some("5"));
        let arguments = text(r#"{"a":1,"\u0061":2}"#);
        assert_eq!(arguments.member("a"), Some("2"));
    }

    #[test]
    fn long_names_and_strings_are_skipped_whole() {
        let long = "x\\\"".repeat(40);
        let name = "n".repeat(100);
        let json =
            format!(r#"{{"{name}": "{long}", "s": ["{long}", {{"{long}": 1}}], "{name}\\": 2}}"#);
        let arguments = text(&json);
        assert_eq!(arguments.member(&name), Some(&*format!("\"{long}\"")));
        assert_eq!(arguments.member(&format!("{name}\\")), Some("2"));
        assert_eq!(
            arguments.member("s"),
            Some(&*format!(r#"["{long}", {{"{long}": 1}}]"#))
        );
    }

    #[test]
    fn agrees_with_serde_json_wherever_quotes_and_escapes_fall() {
        for length in 0..40 {
            for at in 0..=length {
                let mut string: String = "a".repeat(length);
                string.insert_str(at, "\\\"");
                let json = format!(r#"{{"k{string}": "{string}", "v": ["{string}"], "w": 1}}"#);
                let arguments = text(&json);
                let map: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(&json).unwrap();
                for (name, value) in &map {
                    let found = arguments.member(name).unwrap();
                    assert_eq!(
                        &serde_json::from_str::<serde_json::Value>(found).unwrap(),
                        value,
                        "{json}"
                    );
                }
            }
        }
    }

    #[test]
    fn an_empty_object_or_no_object_has_no_members() {
        for json in ["{}", "{ \n }", "[1]", "\"a\"", "null", "3"] {
            assert_eq!(text(json).member("a"), None, "{json}");
        }
    }
}
