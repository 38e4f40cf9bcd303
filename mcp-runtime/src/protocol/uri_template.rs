//! RFC 6570 URI templates, in the subset resource templates use: literal text, simple string
//! expansion `{name}` and reserved expansion `{+name}`.
//!
//! `#[mcp_resource("doc://{name}")]` parses its template at compile time and hands the parts to
//! [`UriTemplate::from_static`], so nothing is parsed at run time; [`UriTemplate::parse`] serves
//! hand-written handlers.
//!
//! Matching a URI (`resources/read`) is the inverse of expansion:
//!
//! * a literal part matches itself;
//! * `{name}` matches one or more characters other than `/`, `?` and `#` (simple expansion
//!   percent-encodes those, so they cannot come from one variable);
//! * `{+name}` matches one or more of any character, `/` included (reserved expansion keeps
//!   them);
//! * each variable takes the shortest text that lets the rest of the template match, and its
//!   value is percent-decoded (`%20` is a space).

use std::borrow::Cow;
use std::fmt;

/// One part of a URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplatePart {
    /// Text the URI must contain as is.
    Literal(Cow<'static, str>),
    /// An expression naming one variable.
    Variable {
        /// The variable's name.
        name: Cow<'static, str>,
        /// `{+name}` (may contain `/`) rather than `{name}`.
        reserved: bool,
    },
}

impl TemplatePart {
    /// A literal part, in a constant.
    pub const fn literal(text: &'static str) -> Self {
        TemplatePart::Literal(Cow::Borrowed(text))
    }

    /// A variable part, in a constant.
    pub const fn variable(name: &'static str, reserved: bool) -> Self {
        TemplatePart::Variable {
            name: Cow::Borrowed(name),
            reserved,
        }
    }
}

/// The variables a URI gave a template: each name with its percent-decoded value, in template
/// order.
pub type UriVariables = Vec<(Cow<'static, str>, String)>;

/// A parsed URI template: its text as clients see it, and its parts for matching.
///
/// ```
/// use mcp_runtime::protocol::uri_template::UriTemplate;
///
/// let template = UriTemplate::parse("file:///{+path}").unwrap();
/// let values = template.match_uri("file:///src/main%20loop.rs").unwrap();
/// assert_eq!(values, [("path".into(), "src/main loop.rs".to_owned())]);
/// assert!(template.match_uri("http://example.com").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    text: Cow<'static, str>,
    parts: Cow<'static, [TemplatePart]>,
}

/// Why a text is not a URI template this runtime can match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplateError {
    /// What is wrong.
    pub message: String,
    /// The byte range of the text the problem is in.
    pub range: std::ops::Range<usize>,
}

impl fmt::Display for UriTemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for UriTemplateError {}

impl UriTemplate {
    /// A template the macro has already parsed and checked: `text` and its `parts`.
    pub const fn from_static(text: &'static str, parts: &'static [TemplatePart]) -> Self {
        UriTemplate {
            text: Cow::Borrowed(text),
            parts: Cow::Borrowed(parts),
        }
    }

    /// Parse `text`. Errors for what resource templates do not support: operators other than
    /// `+`, several variables in one expression, prefixes and explodes, two variables with no
    /// literal between them (which no URI could be split between unambiguously), a variable
    /// named twice, and unbalanced braces.
    pub fn parse(text: impl Into<Cow<'static, str>>) -> Result<Self, UriTemplateError> {
        let text = text.into();
        let parts = parse_parts(&text)?;
        Ok(UriTemplate {
            text,
            parts: Cow::Owned(parts),
        })
    }

    /// The template as written, for `resources/templates/list`.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The parts, in order.
    pub fn parts(&self) -> &[TemplatePart] {
        &self.parts
    }

    /// The names of the variables, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            TemplatePart::Variable { name, .. } => Some(&**name),
            TemplatePart::Literal(_) => None,
        })
    }

    /// How many characters of literal text the template has: the first measure of how
    /// specific it is.
    pub fn literal_len(&self) -> usize {
        self.parts
            .iter()
            .map(|part| match part {
                TemplatePart::Literal(text) => text.chars().count(),
                TemplatePart::Variable { .. } => 0,
            })
            .sum()
    }

    /// How many `{+name}` variables it has: fewer is more specific.
    pub fn reserved_count(&self) -> usize {
        self.parts
            .iter()
            .filter(|part| matches!(part, TemplatePart::Variable { reserved: true, .. }))
            .count()
    }

    /// The template with its variable names left out (`doc://{}`, `file:///{+}`): two templates
    /// with the same shape match exactly the same URIs.
    pub fn shape(&self) -> String {
        self.parts
            .iter()
            .map(|part| match part {
                TemplatePart::Literal(text) => text.to_string(),
                TemplatePart::Variable {
                    reserved: false, ..
                } => "{}".to_owned(),
                TemplatePart::Variable { reserved: true, .. } => "{+}".to_owned(),
            })
            .collect()
    }

    /// The variables' values if `uri` matches, in template order; `None` if it does not.
    pub fn match_uri(&self, uri: &str) -> Option<UriVariables> {
        let mut raw = Vec::new();
        if !match_parts(&self.parts, uri, &mut raw) {
            return None;
        }
        raw.into_iter()
            .map(|(name, value)| percent_decode(value).map(|value| (name.clone(), value)))
            .collect()
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Match `parts` against all of `uri`, pushing each variable's raw text.
fn match_parts<'p, 'u>(
    parts: &'p [TemplatePart],
    uri: &'u str,
    values: &mut Vec<(&'p Cow<'static, str>, &'u str)>,
) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return uri.is_empty();
    };
    match first {
        TemplatePart::Literal(text) => uri
            .strip_prefix(&**text)
            .is_some_and(|after| match_parts(rest, after, values)),
        TemplatePart::Variable { name, reserved } => {
            let limit = if *reserved {
                uri.len()
            } else {
                uri.find(['/', '?', '#']).unwrap_or(uri.len())
            };
            // Shortest first: each variable takes the least text that lets the rest match.
            let ends = uri[..limit]
                .char_indices()
                .skip(1)
                .map(|(index, _)| index)
                .chain((limit > 0).then_some(limit));
            for end in ends {
                values.push((name, &uri[..end]));
                if match_parts(rest, &uri[end..], values) {
                    return true;
                }
                values.pop();
            }
            false
        }
    }
}

/// `%XX` sequences to bytes; `None` when they do not form UTF-8 text.
fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |at: usize| bytes.get(at).and_then(|b| char::from(*b).to_digit(16));
        match (bytes[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(high), Some(low)) => {
                decoded.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                decoded.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(decoded).ok()
}

fn parse_parts(text: &str) -> Result<Vec<TemplatePart>, UriTemplateError> {
    let error =
        |message: String, range: std::ops::Range<usize>| UriTemplateError { message, range };
    let mut parts = Vec::new();
    let mut rest = text;
    let mut offset = 0;
    while !rest.is_empty() {
        let Some(open) = rest.find(['{', '}']) else {
            parts.push(TemplatePart::Literal(rest.to_owned().into()));
            break;
        };
        if rest.as_bytes()[open] == b'}' {
            return Err(error(
                "`}` without a `{` before it".into(),
                offset + open..offset + open + 1,
            ));
        }
        if open > 0 {
            parts.push(TemplatePart::Literal(rest[..open].to_owned().into()));
        }
        let Some(close) = rest[open..].find('}').map(|close| open + close) else {
            return Err(error(
                "`{` without a closing `}`".into(),
                offset + open..text.len(),
            ));
        };
        let expression = &rest[open + 1..close];
        let range = offset + open..offset + close + 1;
        let (reserved, name) = match expression.strip_prefix('+') {
            Some(name) => (true, name),
            None => (false, expression),
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(error(
                format!(
                    "`{{{expression}}}` is not supported: write `{{name}}` or `{{+name}}` with a \
                     name of ASCII letters, digits and `_`"
                ),
                range,
            ));
        }
        if matches!(parts.last(), Some(TemplatePart::Variable { .. })) {
            return Err(error(
                "two variables with nothing between them: a URI cannot be split between them \
                 unambiguously"
                    .into(),
                range,
            ));
        }
        let seen = parts
            .iter()
            .any(|part| matches!(part, TemplatePart::Variable { name: seen, .. } if seen == name));
        if seen {
            return Err(error(format!("the variable `{name}` appears twice"), range));
        }
        parts.push(TemplatePart::Variable {
            name: name.to_owned().into(),
            reserved,
        });
        offset += close + 1;
        rest = &text[offset..];
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(template.to_owned())
            .unwrap()
            .match_uri(uri)
            .map(|values| {
                values
                    .into_iter()
                    .map(|(name, value)| (name.into_owned(), value))
                    .collect()
            })
    }

    fn pairs(list: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(
            list.iter()
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect(),
        )
    }

    #[test]
    fn simple_variables_stop_at_slashes() {
        assert_eq!(
            values("doc://{name}", "doc://intro"),
            pairs(&[("name", "intro")])
        );
        assert_eq!(values("doc://{name}", "doc://a/b"), None);
        assert_eq!(
            values("doc://{name}", "doc://"),
            None,
            "values are never empty"
        );
        assert_eq!(values("doc://{name}", "docs://intro"), None);
    }

    #[test]
    fn reserved_variables_take_slashes() {
        assert_eq!(
            values("file:///{+path}", "file:///a/b/c.rs"),
            pairs(&[("path", "a/b/c.rs")])
        );
    }

    #[test]
    fn literals_between_variables_split_them() {
        assert_eq!(
            values(
                "repo://{owner}/{name}/issues/{id}",
                "repo://rust-lang/rust/issues/42"
            ),
            pairs(&[("owner", "rust-lang"), ("name", "rust"), ("id", "42")])
        );
        assert_eq!(
            values("file:///{+path}.md", "file:///a.md/b.md"),
            pairs(&[("path", "a.md/b")])
        );
        // Shortest first, as long as the rest still matches.
        assert_eq!(
            values("x://{a}-{b}", "x://1-2-3"),
            pairs(&[("a", "1"), ("b", "2-3")])
        );
    }

    #[test]
    fn values_are_percent_decoded() {
        assert_eq!(
            values("doc://{name}", "doc://caf%C3%A9%20menu"),
            pairs(&[("name", "café menu")])
        );
        assert_eq!(values("doc://{name}", "doc://%FF"), None, "not UTF-8");
        assert_eq!(
            values("doc://{name}", "doc://100%"),
            pairs(&[("name", "100%")])
        );
    }

    #[test]
    fn unsupported_templates_are_errors_at_their_expression() {
        for (template, range) in [
            ("doc://{name", 6..11),
            ("doc://name}", 10..11),
            ("doc://{a,b}", 6..11),
            ("doc://{#a}", 6..10),
            ("doc://{a:3}", 6..11),
            ("doc://{}", 6..8),
            ("doc://{a}{b}", 9..12),
            ("doc://{a}/{a}", 10..13),
        ] {
            let error = UriTemplate::parse(template).unwrap_err();
            assert_eq!(error.range, range, "{template}: {error}");
        }
    }

    #[test]
    fn specificity_measures() {
        let template = UriTemplate::parse("file:///src/{+path}.rs").unwrap();
        assert_eq!(template.literal_len(), "file:///src/".len() + ".rs".len());
        assert_eq!(template.reserved_count(), 1);
        assert_eq!(template.shape(), "file:///src/{+}.rs");
        assert_eq!(template.variables().collect::<Vec<_>>(), ["path"]);
    }

    #[test]
    fn static_templates_match_like_parsed_ones() {
        const PARTS: &[TemplatePart] = &[
            TemplatePart::literal("doc://"),
            TemplatePart::variable("name", false),
        ];
        let template = UriTemplate::from_static("doc://{name}", PARTS);
        assert_eq!(template, UriTemplate::parse("doc://{name}").unwrap());
    }
}
