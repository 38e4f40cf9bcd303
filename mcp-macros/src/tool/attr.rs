//! `#[mcp_tool(...)]` arguments -> raw options with spans: the option names and the shape of
//! each value; `check` judges what they mean.

use proc_macro2::{TokenStream, TokenTree};
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{Expr, ExprLit, Lit, Token};

use crate::shared::attr::{self, Seen, Spanned, flag_value, skip_value, string_value};
use crate::shared::ctxt::Ctxt;
use crate::shared::meta::{MetaEntry, Visibility, meta_value, visibility_value};

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
    /// `layer = EXPR`, any number of times: layers around this tool's calls, the first
    /// written outermost.
    pub layers: Vec<Expr>,
    /// `scopes("a", ...)`: the OAuth scopes a caller needs.
    pub scopes: Vec<String>,
    /// `meta("key" = value, ...)`: entries of the tool's `_meta`.
    pub meta: Vec<MetaEntry>,
    /// `app = "ui://..."`: the MCP App page rendering its results.
    pub app: Option<Spanned<String>>,
    /// `visibility("model", "app")`: who may call it.
    pub visibility: Option<Spanned<Vec<Visibility>>>,
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

const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "annotations",
    "recursive",
    "icon",
    "task",
    "layer",
    "scopes",
    "meta",
    "app",
    "visibility",
];
const ANNOTATION_KEYS: &[&str] = &["read_only", "destructive", "idempotent", "open_world"];

/// Read the arguments of `#[mcp_tool(...)]`.
pub fn tool_attr(args: TokenStream, cx: &mut Ctxt) -> ToolAttr {
    let mut attr = ToolAttr::default();
    let mut seen = Seen::new("#[mcp_tool]", TOOL_KEYS);
    let parser = syn::meta::parser(|meta| {
        // The one option that may be written again: each adds a layer.
        if meta.path.is_ident("layer") {
            attr.layers.push(meta.value()?.parse()?);
            return Ok(());
        }
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
            "scopes" => attr.scopes = attr::scopes_value(&meta, cx)?,
            "meta" => attr.meta = meta_value(&meta, cx)?,
            "app" => attr.app = string_value(&meta, cx, "app = \"ui://weather/forecast\"")?,
            "visibility" => attr.visibility = visibility_value(&meta, cx)?,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The option a misspelling in `#[mcp_tool(args)]` is said to mean.
    fn suggestion(args: TokenStream) -> Option<String> {
        let mut cx = Ctxt::new();
        tool_attr(args, &mut cx);
        let message = cx.check().err()?.to_string();
        let (_, meant) = message.split_once("(did you mean `")?;
        Some(meant.trim_end_matches("`?)").to_owned())
    }

    #[test]
    fn close_misspellings_are_suggested() {
        assert_eq!(suggestion(quote!(nmae = "x")).as_deref(), Some("name"));
        assert_eq!(
            suggestion(quote!(descripton = "x")).as_deref(),
            Some("description")
        );
        assert_eq!(
            suggestion(quote!(annotations(readonly))).as_deref(),
            Some("read_only")
        );
        assert_eq!(suggestion(quote!(color = "red")), None);
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
