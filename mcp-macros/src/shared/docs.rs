//! Doc comments -> the description of a tool, resource or prompt and its parameters'.
//!
//! A function is documented the rustdoc way: what it does, then an `# Arguments` section
//! listing each parameter as `` * `name` - what it is ``. The model sees the first part as the
//! function's description and each bullet as its parameter's description, so the section is
//! not repeated in the description.

use proc_macro2::Span;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

use crate::shared::ctxt::Ctxt;

/// What a function's doc comment says.
#[derive(Debug, Default)]
pub struct Docs {
    /// The doc comment without its `# Arguments` section; `None` when nothing is left.
    pub description: Option<String>,
    /// The bullets of the `# Arguments` section, in order.
    pub arguments: Vec<DocArgument>,
}

/// One `` * `name` - text `` bullet.
#[derive(Debug)]
pub struct DocArgument {
    pub name: String,
    pub text: String,
    /// The doc line it came from, for errors.
    pub span: Span,
}

struct Line {
    text: String,
    span: Span,
}

/// Read the doc comment among `attrs`.
pub fn docs(attrs: &[Attribute], cx: &mut Ctxt) -> Docs {
    let lines = dedent(doc_lines(attrs));
    let mut description = Vec::new();
    let mut arguments: Vec<DocArgument> = Vec::new();
    let mut section_level = None;
    let mut in_fence = false;
    for line in lines {
        let trimmed = line.text.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        }
        let heading = (!in_fence).then(|| heading(trimmed)).flatten();
        match (section_level, heading) {
            (_, Some((level, title))) if is_arguments_heading(title) => {
                section_level = Some(level);
                continue;
            }
            (Some(level), Some((heading_level, _))) if heading_level <= level => {
                section_level = None;
            }
            _ => {}
        }
        if section_level.is_none() {
            description.push(line.text);
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        if let Some(item) = trimmed
            .strip_prefix(['*', '-', '+'])
            .filter(|rest| rest.starts_with(char::is_whitespace))
        {
            match argument_bullet(item.trim()) {
                Some((name, text)) => arguments.push(DocArgument {
                    name,
                    text,
                    span: line.span,
                }),
                None => cx.error_at(
                    line.span,
                    "cannot read this `# Arguments` entry; write it as `* `name` - description`",
                ),
            }
        } else if let Some(last) = arguments.last_mut() {
            if !last.text.is_empty() {
                last.text.push(' ');
            }
            last.text.push_str(trimmed);
        } else {
            cx.error_at(
                line.span,
                "text before the first entry of `# Arguments` belongs to no parameter; \
                 move it above the section",
            );
        }
    }
    Docs {
        description: join_paragraphs(&description),
        arguments,
    }
}

/// The text of every `#[doc = "..."]` (what `///` and `/** */` become), split into lines, each
/// with the span of its attribute.
fn doc_lines(attrs: &[Attribute]) -> Vec<Line> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(pair) => match &pair.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text),
                    ..
                }) => Some((text.value(), attr)),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|(text, attr)| {
            let span = syn::spanned::Spanned::span(attr);
            // `split`, not `lines`: an empty `///` line is a paragraph break, not nothing.
            text.split('\n')
                .map(|line| Line {
                    text: line.trim_end().to_owned(),
                    span,
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Remove the indentation all lines share (the space after `///`), as rustdoc does.
fn dedent(lines: Vec<Line>) -> Vec<Line> {
    let indent = lines
        .iter()
        .filter(|line| !line.text.trim().is_empty())
        .map(|line| line.text.len() - line.text.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .into_iter()
        .map(|line| Line {
            text: line.text.get(indent..).unwrap_or("").to_owned(),
            span: line.span,
        })
        .collect()
}

/// `## Title` -> `(2, "Title")`.
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.chars().take_while(|c| *c == '#').count();
    let rest = &line[level..];
    ((1..=6).contains(&level) && (rest.is_empty() || rest.starts_with(' ')))
        .then(|| (level, rest.trim()))
}

fn is_arguments_heading(title: &str) -> bool {
    ["arguments", "parameters"]
        .iter()
        .any(|name| title.eq_ignore_ascii_case(name))
}

/// `` `name` - text `` (also `name: text`, and `–`/`—`) -> `(name, text)`.
fn argument_bullet(item: &str) -> Option<(String, String)> {
    let (name, rest) = match item.strip_prefix('`') {
        Some(quoted) => quoted.split_once('`')?,
        None => item.split_at(
            item.find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(item.len()),
        ),
    };
    let name = name.trim().trim_start_matches("r#");
    let rest = rest.trim_start();
    let text = rest
        .strip_prefix(['-', '–', '—', ':'])
        .or_else(|| rest.is_empty().then_some(""))?;
    (!name.is_empty()).then(|| (name.to_owned(), text.trim().to_owned()))
}

/// Lines back into text: no blank lines at either end, at most one blank line in a row.
fn join_paragraphs(lines: &[String]) -> Option<String> {
    let mut kept: Vec<&str> = Vec::new();
    for line in lines {
        let blank = line.trim().is_empty();
        if blank && kept.last().is_none_or(|last| last.is_empty()) {
            continue;
        }
        kept.push(if blank { "" } else { line });
    }
    while kept.last().is_some_and(|last| last.is_empty()) {
        kept.pop();
    }
    (!kept.is_empty()).then(|| kept.join("\n"))
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    fn read(attrs: Vec<Attribute>) -> (Docs, bool) {
        let mut cx = Ctxt::new();
        let docs = docs(&attrs, &mut cx);
        (docs, cx.has_errors())
    }

    #[test]
    fn the_arguments_section_becomes_parameter_descriptions() {
        let (docs, errors) = read(parse_quote! {
            /// Add two numbers.
            ///
            /// # Arguments
            /// * `a` - the first addend
            /// * `b` - the second addend,
            ///   which may be negative
            ///
            /// # Examples
            /// Two and two make four.
        });
        assert!(!errors);
        assert_eq!(
            docs.description.as_deref(),
            Some("Add two numbers.\n\n# Examples\nTwo and two make four.")
        );
        let arguments: Vec<_> = docs
            .arguments
            .iter()
            .map(|a| (a.name.as_str(), a.text.as_str()))
            .collect();
        assert_eq!(
            arguments,
            [
                ("a", "the first addend"),
                ("b", "the second addend, which may be negative")
            ]
        );
    }

    #[test]
    fn bullets_may_use_other_markers_and_separators() {
        assert_eq!(
            argument_bullet("`x`: the x"),
            Some(("x".into(), "the x".into()))
        );
        assert_eq!(
            argument_bullet("y — the y"),
            Some(("y".into(), "the y".into()))
        );
        assert_eq!(argument_bullet("`z`"), Some(("z".into(), String::new())));
        assert_eq!(argument_bullet("`w` the w"), None);
    }

    #[test]
    fn headings_inside_code_blocks_are_code() {
        let (docs, errors) = read(parse_quote! {
            /// Run it.
            ///
            /// ```
            /// # Arguments
            /// ```
        });
        assert!(!errors);
        assert!(docs.arguments.is_empty());
        assert_eq!(
            docs.description.as_deref(),
            Some("Run it.\n\n```\n# Arguments\n```")
        );
    }

    #[test]
    fn stray_text_in_the_section_is_an_error() {
        let (_, errors) = read(parse_quote! {
            /// # Arguments
            /// All numbers are floats.
            /// * `a` - a number
        });
        assert!(errors);
    }

    #[test]
    fn no_docs_no_description() {
        let (docs, errors) = read(Vec::new());
        assert!(!errors);
        assert!(docs.description.is_none());
    }
}
