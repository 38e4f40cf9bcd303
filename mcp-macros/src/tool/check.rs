//! A tool function and its options -> a validated tool. One function per rule, each saying why
//! the rule exists. Code generation accepts only a [`ValidTool`], which only this module can
//! make, so nothing reaches it unchecked.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned as _;
use syn::{Ident, ItemFn, Pat, Type};

use super::attr::{AnnotationsAttr, TaskAttr, ToolAttr};
use crate::shared::attr::{DefaultAttr, Spanned};
use crate::shared::ctxt::Ctxt;
use crate::shared::function::{HandlerFn, Param};
use crate::shared::meta::{MetaEntry, Visibility, check_app_uri, check_meta};
use crate::shared::rules::{
    self, Callee, Presence, check_described_once, check_documented_arguments_exist,
};
use crate::shared::syntax::{option_inner, peel, unraw};

/// A tool function every rule accepted.
pub struct ValidTool {
    /// The function to emit, as written (minus `#[arg]`).
    pub item: ItemFn,
    /// How generated code calls it.
    pub callee: Callee,
    pub name: String,
    /// Where the name is written (the option, or the function's name), for errors.
    pub name_span: Span,
    pub title: Option<String>,
    pub description: Option<String>,
    pub annotations: AnnotationsAttr,
    pub recursive: bool,
    /// The URI of the tool's icon.
    pub icon: Option<String>,
    /// `task` / `task = "..."`, or the default.
    pub task_support: TaskSupport,
    /// The `layer = ...` expressions, in order.
    pub layers: Vec<syn::Expr>,
    /// The scopes a caller needs.
    pub scopes: Vec<String>,
    /// `meta(...)`, keys checked.
    pub meta: Vec<MetaEntry>,
    /// `app = "ui://..."`, a `ui://` URI.
    pub app: Option<Spanned<String>>,
    /// `visibility(...)`.
    pub visibility: Option<Vec<Visibility>>,
    pub params: Vec<ValidParam>,
    _checked: Checked,
}

/// Whether a tool's calls may run as tasks (the runtime's `TaskSupport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    /// No `task` option (the default): every call answers in place.
    Forbidden,
    /// `task` or `task = "optional"`.
    Optional,
    /// `task = "required"`.
    Required,
}

/// A parameter every rule accepted.
pub struct ValidParam {
    /// The argument's name on the wire: the parameter's name, or its `#[arg(rename)]`.
    pub wire_name: String,
    /// Where the wire name is written, for errors.
    pub wire_name_span: Span,
    /// The type of the value read from the call: `T` for a parameter written `Option<T>`.
    pub value_ty: Type,
    pub presence: Presence,
    pub description: Option<String>,
}

/// Only this module can make one, so only it can make the validated models.
struct Checked;

impl ValidTool {
    pub fn fn_ident(&self) -> &Ident {
        &self.item.sig.ident
    }
}

/// Check every rule on `function` under `attr`; `Err` with all the problems (and those `cx`
/// already holds).
pub fn tool(function: &HandlerFn, attr: &ToolAttr, mut cx: Ctxt) -> syn::Result<ValidTool> {
    let callee = rules::check_receiver(function, &mut cx);
    check_no_generics(function, &mut cx);
    check_safe_and_not_variadic(function, &mut cx);
    let (name, name_span) = check_tool_name(function, attr, &mut cx);
    let task_support = check_task_support(attr.task.as_ref(), &mut cx);
    check_documented_arguments_exist(&function.docs, &function.params, function.ident(), &mut cx);
    let params: Vec<ValidParam> = function
        .params
        .iter()
        .filter_map(|param| check_param(function, param, &mut cx))
        .collect();
    check_wire_names_unique(&params, &mut cx);
    check_app(attr, &mut cx);
    let valid = ValidTool {
        item: function.item.clone(),
        callee,
        name,
        name_span,
        title: attr.title.as_ref().map(|title| title.value.clone()),
        description: function.description(attr.description.as_ref()),
        annotations: attr.annotations,
        recursive: attr.recursive,
        icon: attr.icon.as_ref().map(|icon| icon.value.clone()),
        layers: attr.layers.clone(),
        scopes: attr.scopes.clone(),
        meta: attr.meta.clone(),
        app: attr.app.clone(),
        visibility: attr.visibility.as_ref().map(|v| v.value.clone()),
        task_support,
        params,
        _checked: Checked,
    };
    cx.check().map(|()| valid)
}

/// The `_meta` keys must be ones the runtime does not own, and `app` must name an MCP App page
/// (`ui://`): hosts fetch it by that URI with `resources/read`.
fn check_app(attr: &ToolAttr, cx: &mut Ctxt) {
    let app_option = if attr.app.is_some() {
        Some("app")
    } else if attr.visibility.is_some() {
        Some("visibility")
    } else {
        None
    };
    check_meta(&attr.meta, app_option, cx);
    if let Some(app) = &attr.app {
        check_app_uri(app, "the tool's `app`", cx);
    }
}

/// Each parameter needs one concrete type: its schema is generated once and its value
/// deserialized as that type, so there is nothing to pick a generic parameter with.
fn check_no_generics(function: &HandlerFn, cx: &mut Ctxt) {
    let generics = &function.item.sig.generics;
    if !generics.params.is_empty() || generics.where_clause.is_some() {
        cx.error_spanned(
            generics,
            "an `#[mcp_tool]` function cannot be generic: each parameter needs one concrete type \
             for its schema",
        );
    }
    for param in &function.params {
        if matches!(peel(&param.ty), Type::ImplTrait(_)) {
            cx.error_spanned(
                &param.ty,
                "a tool parameter cannot be `impl Trait`: its schema needs one concrete type",
            );
        }
    }
}

/// An argument is deserialized from a JSON value the call owns and drops, so nothing can be
/// borrowed from it (and injected values are owned too). The trait error for `&str` would be a
/// lifetime puzzle; this says what to write instead.
fn check_owned_param(param: &Param, cx: &mut Ctxt) {
    if let Type::Reference(reference) = peel(&param.ty) {
        let owned = match peel(&reference.elem) {
            Type::Path(path) if path.path.is_ident("str") => "String".to_owned(),
            Type::Slice(slice) => format!("Vec<{}>", slice.elem.to_token_stream()),
            other => other.to_token_stream().to_string(),
        };
        cx.error_spanned(
            &param.ty,
            format!(
                "a tool parameter cannot be borrowed: the arguments are dropped when the call \
                 returns; take an owned `{owned}`"
            ),
        );
    }
}

/// Clients call a tool with whatever arguments they like, so it cannot have preconditions the
/// caller must uphold (`unsafe`), nor take a C variadic list.
fn check_safe_and_not_variadic(function: &HandlerFn, cx: &mut Ctxt) {
    let sig = &function.item.sig;
    if let Some(unsafety) = &sig.unsafety {
        cx.error_spanned(
            unsafety,
            "an `#[mcp_tool]` function cannot be `unsafe`: clients call it with any arguments, \
             so it cannot have safety preconditions",
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned(variadic, "an `#[mcp_tool]` function cannot be variadic");
    }
}

/// Clients reject a whole tool list when one name has characters outside `[A-Za-z0-9_-]` or is
/// longer than 64 (stricter than the spec's 128 and `.`, but what real clients enforce).
fn check_tool_name(function: &HandlerFn, attr: &ToolAttr, cx: &mut Ctxt) -> (String, Span) {
    let (name, span, from_fn) = match &attr.name {
        Some(Spanned { value, span }) => (value.clone(), *span, false),
        None => {
            let ident = function.ident();
            (unraw(ident), ident.span(), true)
        }
    };
    let problem = if name.is_empty() {
        Some("is empty".to_owned())
    } else if name.len() > 64 {
        Some(format!("is {} bytes long, over 64", name.len()))
    } else {
        name.chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
            .map(|c| format!("contains {c:?}, not an ASCII letter, digit, `_` or `-`"))
    };
    if let Some(problem) = problem {
        let fix = if from_fn {
            "; set a valid one with `#[mcp_tool(name = \"...\")]`"
        } else {
            ""
        };
        cx.error_at(
            span,
            format!(
                "the tool name `{name}` {problem}: clients reject a tool list with such a name{fix}"
            ),
        );
    }
    (name, span)
}

/// The runtime knows three task modes; a misspelled one silently falling back to the default
/// would leave a tool the author meant as a task answering in place (or the opposite).
fn check_task_support(task: Option<&TaskAttr>, cx: &mut Ctxt) -> TaskSupport {
    let Some(task) = task else {
        return TaskSupport::Forbidden;
    };
    let Spanned { value, span } = match task {
        TaskAttr::Bare => return TaskSupport::Optional,
        TaskAttr::Value(value) => value,
    };
    match value.as_str() {
        "optional" => TaskSupport::Optional,
        "required" => TaskSupport::Required,
        "forbidden" => TaskSupport::Forbidden,
        other => {
            cx.error_at(
                *span,
                format!(
                    "unknown `task` value `{other}`; expected \"optional\", \"required\" or \
                     \"forbidden\""
                ),
            );
            TaskSupport::Forbidden
        }
    }
}

/// Every rule about one parameter; `None` when it cannot be turned into an argument.
fn check_param(function: &HandlerFn, param: &Param, cx: &mut Ctxt) -> Option<ValidParam> {
    check_owned_param(param, cx);
    let name = check_param_pattern(param, cx)?;
    let option_inner = option_inner(&param.ty);
    let presence = match (&param.attr.default, option_inner) {
        (Some(_), Some(_)) => {
            check_default_with_option(param, cx);
            Presence::Optional
        }
        (Some(DefaultAttr::Value(expr)), None) => {
            Presence::Default(DefaultAttr::Value(expr.clone()))
        }
        (Some(DefaultAttr::TypeDefault(span)), None) => {
            Presence::Default(DefaultAttr::TypeDefault(*span))
        }
        (None, Some(_)) => Presence::Optional,
        (None, None) => Presence::Required,
    };
    let (wire_name, wire_name_span) = match &param.attr.rename {
        Some(rename) => {
            check_rename_not_empty(rename, cx);
            (rename.value.clone(), rename.span)
        }
        None => (name.clone(), param.pat.span()),
    };
    Some(ValidParam {
        wire_name,
        wire_name_span,
        value_ty: option_inner.unwrap_or(&param.ty).clone(),
        presence,
        description: check_described_once(function, param, &name, cx),
    })
}

/// The parameter's name is the argument's name on the wire, so it must be a plain identifier;
/// destructure inside the body instead.
fn check_param_pattern(param: &Param, cx: &mut Ctxt) -> Option<String> {
    match &param.pat {
        Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
            Some(unraw(&ident.ident))
        }
        Pat::Wild(_) => {
            cx.error_spanned(
                &param.pat,
                "a tool parameter needs a name: clients send each argument by its name",
            );
            None
        }
        other => {
            cx.error_spanned(
                other,
                "a tool parameter must be a plain name, like `point: Point`: clients send each \
                 argument by its name; destructure it in the body",
            );
            None
        }
    }
}

/// An `Option` parameter is already `None` when absent; a default on it would say two things.
fn check_default_with_option(param: &Param, cx: &mut Ctxt) {
    let span = match &param.attr.default {
        Some(DefaultAttr::Value(expr)) => expr.to_token_stream(),
        Some(DefaultAttr::TypeDefault(span)) => Ident::new("default", *span).to_token_stream(),
        None => return,
    };
    cx.error_spanned(
        span,
        "an `Option` parameter cannot have a default: an absent argument is already `None`; \
         drop the `Option` to take the default instead",
    );
}

/// An empty property name is one no model can be asked to send.
fn check_rename_not_empty(rename: &Spanned<String>, cx: &mut Ctxt) {
    if rename.value.is_empty() {
        cx.error_at(rename.span, "`rename` cannot be empty");
    }
}

/// Two parameters with the same wire name would read the same argument.
fn check_wire_names_unique(params: &[ValidParam], cx: &mut Ctxt) {
    for (index, param) in params.iter().enumerate() {
        if params[..index]
            .iter()
            .any(|earlier| earlier.wire_name == param.wire_name)
        {
            cx.error_at(
                param.wire_name_span,
                format!(
                    "two parameters are both sent as `{}`; rename one with \
                     `#[arg(rename = \"...\")]`",
                    param.wire_name
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_values_are_the_runtime_modes() {
        let check = |task: Option<TaskAttr>| {
            let mut cx = Ctxt::new();
            let support = check_task_support(task.as_ref(), &mut cx);
            (support, cx.has_errors())
        };
        let value = |text: &str| {
            Some(TaskAttr::Value(Spanned {
                value: text.to_owned(),
                span: Span::call_site(),
            }))
        };
        assert_eq!(check(None), (TaskSupport::Forbidden, false));
        assert_eq!(check(Some(TaskAttr::Bare)), (TaskSupport::Optional, false));
        assert_eq!(check(value("optional")), (TaskSupport::Optional, false));
        assert_eq!(check(value("required")), (TaskSupport::Required, false));
        assert_eq!(check(value("forbidden")), (TaskSupport::Forbidden, false));
        assert_eq!(check(value("Required")), (TaskSupport::Forbidden, true));
        assert_eq!(check(value("sometimes")), (TaskSupport::Forbidden, true));
    }
}
