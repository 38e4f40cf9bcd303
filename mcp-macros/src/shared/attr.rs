//! The shared attribute parsing: a value with its span, the unknown and repeated option
//! checks (with a suggestion for a misspelling), the value shapes every attribute uses, the
//! `#[arg(...)]` of parameters and `complete(...)`. Each attribute's own options are read in its
//! folder (`tool/attr.rs`, ...); what the values mean together is for the checks.

use proc_macro2::{Span, TokenTree};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Expr, ExprLit, Ident, Lit, LitBool, Path, Token};

use crate::shared::ctxt::Ctxt;

/// A value with the span of the tokens that gave it.
#[derive(Debug, Clone)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
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

const ARG_KEYS: &[&str] = &["description", "default", "rename"];

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

/// `scopes("notes:read", "notes:write")`: the OAuth scopes a caller needs, each a string
/// literal holding one RFC 6749 scope token (printable ASCII other than space, `"` and `\`).
/// A wrong one is reported at its literal; the rest are kept.
pub fn scopes_value(meta: &ParseNestedMeta<'_>, cx: &mut Ctxt) -> syn::Result<Vec<String>> {
    const EXAMPLE: &str = "scopes(\"notes:read\", \"notes:write\")";
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned(
            &meta.path,
            format!("`scopes` takes a list of strings, like `{EXAMPLE}`"),
        );
        skip_value(meta)?;
        return Ok(Vec::new());
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let literals = content.parse_terminated(<Expr as syn::parse::Parse>::parse, Token![,])?;
    let mut scopes: Vec<String> = Vec::new();
    let written = literals.len();
    for literal in literals {
        let Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) = &literal
        else {
            cx.error_spanned(
                &literal,
                format!("each scope must be a string literal, like `{EXAMPLE}`"),
            );
            continue;
        };
        let scope = text.value();
        if scope.is_empty() {
            cx.error_spanned(
                text,
                "an empty string is no scope; name one, like `\"notes:read\"`",
            );
        } else if !scope
            .bytes()
            .all(|byte| matches!(byte, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
        {
            cx.error_spanned(
                text,
                format!(
                    "`{scope}` is not one OAuth scope: a scope is printable ASCII without spaces, \
                     `\"` or `\\` (RFC 6749, section 3.3); list several as separate strings"
                ),
            );
        } else if scopes.contains(&scope) {
            cx.error_spanned(text, format!("the scope `{scope}` is listed twice"));
        } else {
            scopes.push(scope);
        }
    }
    if written == 0 {
        cx.error_spanned(
            &meta.path,
            format!("`scopes(...)` lists no scope; name at least one, like `{EXAMPLE}`"),
        );
    }
    Ok(scopes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_misspellings_are_suggested() {
        assert_eq!(closest("desc", ARG_KEYS), Some("description"));
        assert_eq!(closest("defualt", ARG_KEYS), Some("default"));
        assert_eq!(closest("color", ARG_KEYS), None);
    }
}
