//! Resource URI templates -> parts with positions, so every mistake is reported inside the
//! string literal (where the compiler allows: see [`span_of`]).
//!
//! The subset is the runtime's: literal text, `{name}` (simple expansion, no `/`) and
//! `{+name}` (reserved expansion, may contain `/`). The runtime matches URIs against the parts
//! generated from this parse, so it never parses a template itself.

use std::ops::Range;

use proc_macro2::Span;
use syn::LitStr;

/// One part of a template, with the byte range of the text it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub kind: PartKind,
    pub range: Range<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartKind {
    Literal(String),
    Variable { name: String, reserved: bool },
}

/// One mistake, at the byte range of the text it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    pub message: String,
    pub range: Range<usize>,
}

/// Whether `text` is meant as a template (it has an expression) rather than a fixed URI.
pub fn is_template(text: &str) -> bool {
    text.contains(['{', '}'])
}

/// Parse `text` into parts, or every mistake in it.
pub fn parse(text: &str) -> Result<Vec<Part>, Vec<TemplateError>> {
    let mut parts: Vec<Part> = Vec::new();
    let mut errors = Vec::new();
    let mut position = 0;
    while position < text.len() {
        let rest = &text[position..];
        let Some(found) = rest.find(['{', '}']) else {
            parts.push(literal(text, position..text.len()));
            break;
        };
        let open = position + found;
        if open > position {
            parts.push(literal(text, position..open));
        }
        if text.as_bytes()[open] == b'}' {
            errors.push(TemplateError {
                message: format!(
                    "the `}}` in `{}` closes no `{{`: a literal brace cannot appear in a URI \
                     template",
                    &text[position..=open]
                ),
                range: open..open + 1,
            });
            position = open + 1;
            continue;
        }
        let Some(close) = text[open + 1..].find(['{', '}']).map(|at| open + 1 + at) else {
            errors.push(TemplateError {
                message: format!("`{}` is never closed: write `{{name}}`", &text[open..]),
                range: open..text.len(),
            });
            break;
        };
        if text.as_bytes()[close] == b'{' {
            errors.push(TemplateError {
                message: format!("`{}` is never closed: write `{{name}}`", &text[open..close]),
                range: open..close,
            });
            position = close;
            continue;
        }
        let range = open..close + 1;
        match variable(&text[open + 1..close]) {
            Ok((name, reserved)) => {
                check_variable(&parts, &name, &range, &mut errors);
                parts.push(Part {
                    kind: PartKind::Variable { name, reserved },
                    range,
                });
            }
            Err(message) => errors.push(TemplateError { message, range }),
        }
        position = close + 1;
    }
    if errors.is_empty() {
        Ok(parts)
    } else {
        Err(errors)
    }
}

fn literal(text: &str, range: Range<usize>) -> Part {
    Part {
        kind: PartKind::Literal(text[range.clone()].to_owned()),
        range,
    }
}

/// `name` or `+name` -> the name and whether it is reserved; what else RFC 6570 allows is
/// refused with the reason.
fn variable(expression: &str) -> Result<(String, bool), String> {
    let (reserved, name) = match expression.strip_prefix('+') {
        Some(name) => (true, name),
        None => (false, expression),
    };
    let written = format!("{{{expression}}}");
    if let Some(operator) = name.chars().next().filter(|c| "#./;?&=,!@|".contains(*c)) {
        return Err(format!(
            "`{written}`: the operator `{operator}` is not supported; resource templates use \
             `{{name}}` (no `/`) and `{{+name}}` (any text)"
        ));
    }
    if name.contains(',') {
        return Err(format!(
            "`{written}` names several variables; write one expression per variable, with \
             literal text between them"
        ));
    }
    if name.contains([':', '*']) {
        return Err(format!(
            "`{written}`: prefixes (`:n`) and explodes (`*`) are not supported"
        ));
    }
    if name.is_empty() {
        return Err(format!("`{written}` names no variable"));
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        || name.starts_with(|c: char| c.is_ascii_digit())
    {
        return Err(format!(
            "`{written}`: a variable binds the parameter of the same name, so it must be a Rust \
             identifier (ASCII letters, digits and `_`)"
        ));
    }
    Ok((name.to_owned(), reserved))
}

/// Rules about a variable and the parts before it.
fn check_variable(
    parts: &[Part],
    name: &str,
    range: &Range<usize>,
    errors: &mut Vec<TemplateError>,
) {
    // `{a}{b}`: no URI can be split between the two unambiguously.
    if let Some(Part {
        kind: PartKind::Variable { name: before, .. },
        ..
    }) = parts.last()
    {
        errors.push(TemplateError {
            message: format!(
                "`{{{name}}}` follows `{{{before}}}` with nothing between them, so no URI can be \
                 split between the two; put literal text between them"
            ),
            range: range.clone(),
        });
    }
    // One parameter per variable: a second `{a}` could only disagree with the first.
    if parts
        .iter()
        .any(|part| matches!(&part.kind, PartKind::Variable { name: seen, .. } if seen == name))
    {
        errors.push(TemplateError {
            message: format!("the variable `{name}` appears twice; each variable is one parameter"),
            range: range.clone(),
        });
    }
}

/// The template with the variable names left out: two templates with the same shape match
/// exactly the same URIs (`doc://{}`, `file:///{+}`). The runtime computes the same.
pub fn shape(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|part| match &part.kind {
            PartKind::Literal(text) => text.clone(),
            PartKind::Variable {
                reserved: false, ..
            } => "{}".to_owned(),
            PartKind::Variable { reserved: true, .. } => "{+}".to_owned(),
        })
        .collect()
}

/// The span of `range` (bytes of the literal's value) inside `literal`: the exact characters
/// where the compiler supports sub-spans (`proc_macro::Literal::subspan` is nightly-only, so
/// `proc_macro2` returns `None` on stable), otherwise the whole literal. A literal with escapes
/// or a raw string has its value at other offsets than its source, so it gets the whole span.
pub fn span_of(literal: &LitStr, range: Range<usize>) -> Span {
    let token = literal.token();
    let source = token.to_string();
    let plain = source.len() == literal.value().len() + 2 && source.starts_with('"');
    plain
        .then(|| token.subspan(range.start + 1..range.end + 1))
        .flatten()
        .unwrap_or_else(|| literal.span())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<PartKind> {
        parse(text)
            .unwrap()
            .into_iter()
            .map(|part| part.kind)
            .collect()
    }

    fn variable(name: &str, reserved: bool) -> PartKind {
        PartKind::Variable {
            name: name.into(),
            reserved,
        }
    }

    #[test]
    fn literals_and_variables_with_their_ranges() {
        let parts = parse("file:///{+path}.md").unwrap();
        assert_eq!(
            parts,
            [
                Part {
                    kind: PartKind::Literal("file:///".into()),
                    range: 0..8
                },
                Part {
                    kind: variable("path", true),
                    range: 8..15
                },
                Part {
                    kind: PartKind::Literal(".md".into()),
                    range: 15..18
                },
            ]
        );
        assert_eq!(
            kinds("repo://{owner}/{name}"),
            [
                PartKind::Literal("repo://".into()),
                variable("owner", false),
                PartKind::Literal("/".into()),
                variable("name", false),
            ]
        );
        assert_eq!(
            shape(&parse("repo://{owner}/{+name}").unwrap()),
            "repo://{}/{+}"
        );
    }

    #[test]
    fn every_mistake_is_reported_at_its_expression() {
        let errors = parse("x://{a,b}/{#c}/{d:3}/}").unwrap_err();
        let ranges: Vec<_> = errors.iter().map(|error| error.range.clone()).collect();
        assert_eq!(ranges, [4..9, 10..14, 15..20, 21..22]);
    }

    #[test]
    fn ambiguous_and_repeated_variables_are_refused() {
        let errors = parse("x://{a}{b}/{a}").unwrap_err();
        assert_eq!(errors.len(), 2);
        assert!(errors[0].message.contains("nothing between"));
        assert!(errors[1].message.contains("appears twice"));
    }

    #[test]
    fn unclosed_braces_are_refused() {
        assert_eq!(parse("x://{a").unwrap_err()[0].range, 4..6);
        assert_eq!(parse("x://{a{b}").unwrap_err()[0].range, 4..6);
        assert!(parse("x://{}").is_err());
        assert!(parse("x://{1a}").is_err());
    }
}
