//! Attribute arguments -> raw option structs, each value with the span of its tokens.
//!
//! Reads `#[mcp_tool(...)]` and the `#[arg(...)]` of parameters. Knows the option names and the
//! shape of each value, nothing about what the values mean together (that is `check`). Every
//! unknown option lists the valid ones; every repeated option is an error at the repetition.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{Attribute, Expr, ExprLit, Ident, Lit, LitBool, Path, Token};

use crate::ctxt::Ctxt;

/// A value with the span of the tokens that gave it.
#[derive(Debug, Clone)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// The options of `#[mcp_tool(...)]`.
#[derive(Default)]
pub struct ToolAttr {
    pub name: Option<Spanned<String>>,
    pub title: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    pub annotations: AnnotationsAttr,
    pub recursive: bool,
    /// `icon = "https://..."`: the URI of the tool's icon.
    pub icon: Option<Spanned<String>>,
    /// `task` or `task = "..."`: whether calls may run as tasks.
    pub task: Option<TaskAttr>,
}

/// `task` alone, or `task = "text"` with the text as written (`check` knows which are valid).
pub enum TaskAttr {
    Bare,
    Value(Spanned<String>),
}

/// `annotations(...)`: each hint `None` when not written.
#[derive(Default, Clone, Copy)]
pub struct AnnotationsAttr {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

/// The options of one parameter's `#[arg(...)]` attributes.
#[derive(Default)]
pub struct ArgAttr {
    pub description: Option<Spanned<String>>,
    pub default: Option<DefaultAttr>,
    pub rename: Option<Spanned<String>>,
}

/// `default = expr`, or a bare `default` (the type's `Default`).
pub enum DefaultAttr {
    Value(Expr),
    TypeDefault(Span),
}

const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "annotations",
    "recursive",
    "icon",
    "task",
];
const ANNOTATION_KEYS: &[&str] = &["read_only", "destructive", "idempotent", "open_world"];
const ARG_KEYS: &[&str] = &["description", "default", "rename"];

/// Read the arguments of `#[mcp_tool(...)]`.
pub fn tool_attr(args: TokenStream, cx: &mut Ctxt) -> ToolAttr {
    let mut attr = ToolAttr::default();
    let mut seen = Seen::new("#[mcp_tool]", TOOL_KEYS);
    let parser = syn::meta::parser(|meta| {
        let Some(key) = seen.key(&meta, cx) else {
            return skip_value(&meta);
        };
        match key {
            "name" => attr.name = string_value(&meta, cx, "name = \"get_weather\"")?,
            "title" => attr.title = string_value(&meta, cx, "title = \"Get the weather\"")?,
            "description" => {
                attr.description = string_value(&meta, cx, "description = \"...\"")?;
            }
            "annotations" => attr.annotations = annotations(&meta, cx)?,
            "icon" => {
                attr.icon = string_value(&meta, cx, "icon = \"https://example.com/icon.svg\"")?
            }
            "task" => attr.task = task_value(&meta, cx)?,
            _recursive => attr.recursive = flag_value(&meta, cx)?,
        }
        Ok(())
    });
    if let Err(error) = parser.parse2(args) {
        cx.syn_error(error);
    }
    attr
}

fn annotations(meta: &ParseNestedMeta<'_>, cx: &mut Ctxt) -> syn::Result<AnnotationsAttr> {
    let mut hints = AnnotationsAttr::default();
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned(
            &meta.path,
            "`annotations` takes a list of hints, like `annotations(read_only, idempotent)`",
        );
        return skip_value(meta).map(|()| hints);
    }
    let mut seen = Seen::new("annotations(...)", ANNOTATION_KEYS);
    meta.parse_nested_meta(|hint| {
        let Some(key) = seen.key(&hint, cx) else {
            return skip_value(&hint);
        };
        let value = Some(flag_value(&hint, cx)?);
        match key {
            "read_only" => hints.read_only = value,
            "destructive" => hints.destructive = value,
            "idempotent" => hints.idempotent = value,
            _open_world => hints.open_world = value,
        }
        Ok(())
    })?;
    Ok(hints)
}

/// `task` or `task = "..."`; `None` (with an error) for any other shape.
fn task_value(meta: &ParseNestedMeta<'_>, cx: &mut Ctxt) -> syn::Result<Option<TaskAttr>> {
    const FORMS: &str = "write `task`, or `task = \"optional\"`, `\"required\"` or `\"forbidden\"`";
    if meta.input.peek(syn::token::Paren) {
        let path = &meta.path;
        let list: TokenTree = meta.input.parse()?;
        cx.error_spanned(
            quote!(#path #list),
            format!("`task` takes no list; {FORMS}"),
        );
        return Ok(None);
    }
    if !meta.input.peek(Token![=]) {
        return Ok(Some(TaskAttr::Bare));
    }
    let value: Expr = meta.value()?.parse()?;
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => Ok(Some(TaskAttr::Value(Spanned {
            value: text.value(),
            span: text.span(),
        }))),
        other => {
            cx.error_spanned(other, format!("`task` must be a string literal; {FORMS}"));
            Ok(None)
        }
    }
}

/// Read every `#[arg(...)]` among `attrs` (a parameter's attributes) into one set of options.
pub fn arg_attr(attrs: &[Attribute], cx: &mut Ctxt) -> ArgAttr {
    let mut arg = ArgAttr::default();
    let mut seen = Seen::new("#[arg]", ARG_KEYS);
    for attr in attrs.iter().filter(|attr| is_arg_attr(attr)) {
        if !matches!(attr.meta, syn::Meta::List(_)) {
            cx.error_spanned(
                attr,
                "`#[arg]` takes a list of options, like `#[arg(description = \"...\")]`",
            );
            continue;
        }
        let result = attr.parse_nested_meta(|meta| {
            let Some(key) = seen.key(&meta, cx) else {
                return skip_value(&meta);
            };
            match key {
                "description" => {
                    arg.description = string_value(&meta, cx, "description = \"...\"")?;
                }
                "rename" => arg.rename = string_value(&meta, cx, "rename = \"wireName\"")?,
                _default => {
                    arg.default = Some(if meta.input.peek(Token![=]) {
                        DefaultAttr::Value(meta.value()?.parse()?)
                    } else {
                        DefaultAttr::TypeDefault(meta.path.require_ident()?.span())
                    });
                }
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    arg
}

/// Whether `attr` is one of ours, to be read here and removed from the emitted function.
pub fn is_arg_attr(attr: &Attribute) -> bool {
    attr.path().is_ident("arg")
}

/// The option names seen so far in one attribute, to report unknown and repeated ones.
pub struct Seen {
    attribute: &'static str,
    valid: &'static [&'static str],
    seen: Vec<String>,
}

impl Seen {
    pub fn new(attribute: &'static str, valid: &'static [&'static str]) -> Self {
        Seen {
            attribute,
            valid,
            seen: Vec::new(),
        }
    }

    /// The option `meta` names, if it is a valid one not seen before; otherwise records why not.
    pub fn key(&mut self, meta: &ParseNestedMeta<'_>, cx: &mut Ctxt) -> Option<&'static str> {
        let written = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_else(|| meta.path.to_token_stream().to_string());
        let Some(key) = self.valid.iter().copied().find(|key| *key == written) else {
            cx.error_spanned(&meta.path, self.unknown_key_message(&written));
            return None;
        };
        if self.seen.iter().any(|seen| seen == key) {
            cx.error_spanned(
                &meta.path,
                format!(
                    "duplicate `{key}` in `{}`: it is already set",
                    self.attribute
                ),
            );
            return None;
        }
        self.seen.push(key.to_owned());
        Some(key)
    }

    fn unknown_key_message(&self, written: &str) -> String {
        let valid: Vec<String> = self.valid.iter().map(|key| format!("`{key}`")).collect();
        let mut message = format!(
            "unknown option `{written}` in `{}`; expected one of: {}",
            self.attribute,
            valid.join(", ")
        );
        if let Some(close) = closest(written, self.valid) {
            message.push_str(&format!(" (did you mean `{close}`?)"));
        }
        message
    }
}

/// The valid key a misspelling most likely meant: within a third of its length in edits, or
/// abbreviated (`desc` for `description`).
fn closest<'a>(written: &str, valid: &[&'a str]) -> Option<&'a str> {
    let abbreviated = valid
        .iter()
        .find(|key| written.len() >= 3 && key.starts_with(written));
    abbreviated.copied().or_else(|| {
        valid
            .iter()
            .map(|key| (edit_distance(written, key), *key))
            .filter(|(distance, key)| *distance <= key.len().max(3) / 3)
            .min()
            .map(|(_, key)| key)
    })
}

/// Edits (insert, delete, substitute, swap two neighbours) turning `a` into `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut table = vec![vec![0; b.len() + 1]; a.len() + 1];
    for (i, row) in table.iter_mut().enumerate() {
        row[0] = i;
    }
    table[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let substitution = table[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let mut best = substitution
                .min(table[i - 1][j] + 1)
                .min(table[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(table[i - 2][j - 2] + 1);
            }
            table[i][j] = best;
        }
    }
    table[a.len()][b.len()]
}

/// `key = "text"`: the text and the literal's span; `None` (with an error) for anything else.
pub fn string_value(
    meta: &ParseNestedMeta<'_>,
    cx: &mut Ctxt,
    example: &str,
) -> syn::Result<Option<Spanned<String>>> {
    let key = meta
        .path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default();
    if !meta.input.peek(Token![=]) {
        cx.error_spanned(
            &meta.path,
            format!("`{key}` needs a value, like `{example}`"),
        );
        skip_value(meta)?;
        return Ok(None);
    }
    let value: Expr = meta.value()?.parse()?;
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => Ok(Some(Spanned {
            value: text.value(),
            span: text.span(),
        })),
        other => {
            cx.error_spanned(
                other,
                format!("`{key}` must be a string literal, like `{example}`"),
            );
            Ok(None)
        }
    }
}

/// A bare `key` (true) or `key = true|false`.
pub fn flag_value(meta: &ParseNestedMeta<'_>, cx: &mut Ctxt) -> syn::Result<bool> {
    if !meta.input.peek(Token![=]) {
        if meta.input.peek(syn::token::Paren) {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            cx.error_spanned(
                &meta.path,
                format!("`{key}` takes no list; write `{key}` or `{key} = false`"),
            );
            skip_value(meta)?;
        }
        return Ok(true);
    }
    let value: Expr = meta.value()?.parse()?;
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(LitBool { value, .. }),
            ..
        }) => Ok(value),
        other => {
            cx.error_spanned(other, "expected `true` or `false`");
            Ok(true)
        }
    }
}

/// Consume whatever value follows an option we will not read, so parsing goes on to the next.
pub fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.input.parse::<Token![=]>()?;
        meta.input.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<TokenTree>()?;
    }
    Ok(())
}

/// One `name = path` of `complete(...)`.
pub struct CompleterAttr {
    /// The argument (or template variable) it completes.
    pub name: Ident,
    /// The completer function.
    pub path: Path,
}

/// `complete(language = complete_language, ...)`: a completer per argument.
pub fn complete_attr(
    meta: &ParseNestedMeta<'_>,
    cx: &mut Ctxt,
    completers: &mut Vec<CompleterAttr>,
) -> syn::Result<()> {
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned(
            &meta.path,
            "`complete` takes a list of `argument = completer`, like `complete(language = complete_language)`",
        );
        return skip_value(meta);
    }
    meta.parse_nested_meta(|entry| {
        let Some(name) = entry.path.get_ident().cloned() else {
            cx.error_spanned(
                &entry.path,
                "expected the name of an argument, like `language`",
            );
            return skip_value(&entry);
        };
        if !entry.input.peek(syn::Token![=]) {
            cx.error_spanned(
                &entry.path,
                format!("`{name}` needs a completer function, like `{name} = complete_{name}`"),
            );
            return skip_value(&entry);
        }
        let path: Path = entry.value()?.parse()?;
        if completers.iter().any(|seen| seen.name == name) {
            cx.error_spanned(&name, format!("`{name}` already has a completer"));
        } else {
            completers.push(CompleterAttr { name, path });
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_misspellings_are_suggested() {
        assert_eq!(closest("nmae", TOOL_KEYS), Some("name"));
        assert_eq!(closest("readonly", ANNOTATION_KEYS), Some("read_only"));
        assert_eq!(closest("descripton", TOOL_KEYS), Some("description"));
        assert_eq!(closest("desc", ARG_KEYS), Some("description"));
        assert_eq!(closest("color", TOOL_KEYS), None);
    }

    fn task(args: TokenStream) -> (Option<TaskAttr>, bool) {
        let mut cx = Ctxt::new();
        let attr = tool_attr(args, &mut cx);
        (attr.task, cx.has_errors())
    }

    #[test]
    fn task_is_bare_or_a_string() {
        assert!(matches!(task(quote!(name = "run")), (None, false)));
        assert!(matches!(task(quote!(task)), (Some(TaskAttr::Bare), false)));
        let (value, errors) = task(quote!(title = "Run", task = "required"));
        assert!(!errors);
        assert!(matches!(value, Some(TaskAttr::Value(text)) if text.value == "required"));
        // Any string is read; `check` judges the value.
        let (value, errors) = task(quote!(task = "sometimes"));
        assert!(!errors);
        assert!(matches!(value, Some(TaskAttr::Value(text)) if text.value == "sometimes"));
    }

    #[test]
    fn task_of_another_shape_is_an_error() {
        assert!(matches!(task(quote!(task = 3)), (None, true)));
        assert!(matches!(task(quote!(task = optional)), (None, true)));
        assert!(matches!(task(quote!(task(optional))), (None, true)));
        // The first is kept, the repetition reported.
        let (value, errors) = task(quote!(task, task = "required"));
        assert!(errors);
        assert!(matches!(value, Some(TaskAttr::Bare)));
    }
}
