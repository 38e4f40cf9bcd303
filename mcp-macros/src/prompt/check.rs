//! A prompt function and its options -> a validated prompt. One function per rule, each saying
//! why the rule exists.

use proc_macro2::Span;
use syn::{Ident, ItemFn, Path, Type};

use super::attr::PromptAttr;
use crate::shared::attr::{DefaultAttr, Spanned};
use crate::shared::ctxt::Ctxt;
use crate::shared::function::{HandlerFn, Param};
use crate::shared::meta::{MetaEntry, check_meta};
use crate::shared::rules::{
    self, Callee, Presence, check_described_once, check_documented_arguments_exist,
};
use crate::shared::syntax::{option_inner, unraw};

/// A prompt function every rule accepted.
pub struct ValidPrompt {
    pub item: ItemFn,
    /// How generated code calls it.
    pub callee: Callee,
    pub name: String,
    /// Where the name is written (the option, or the function's name), for errors.
    pub name_span: Span,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The URI of its icon.
    pub icon: Option<String>,
    /// The scopes a caller needs.
    pub scopes: Vec<String>,
    pub params: Vec<PromptParam>,
    /// Completers by argument name.
    pub completers: Vec<(String, Path)>,
    /// `meta(...)`, keys checked.
    pub meta: Vec<MetaEntry>,
    _checked: Checked,
}

/// One parameter: an argument the client passes as a string, or an injected value.
// A handful live for one expansion: their size does not matter.
#[allow(clippy::large_enum_variant)]
pub enum PromptParam {
    Argument(PromptArgument),
    Injected { ty: Type },
}

/// An argument of the prompt.
pub struct PromptArgument {
    /// Its name on the wire: the parameter's, or its `#[arg(rename)]`.
    pub wire_name: String,
    /// The type parsed from the text: `T` for a parameter written `Option<T>`.
    pub value_ty: Type,
    pub presence: Presence,
    pub description: Option<String>,
}

struct Checked;

impl ValidPrompt {
    pub fn fn_ident(&self) -> &Ident {
        &self.item.sig.ident
    }

    pub fn arguments(&self) -> impl Iterator<Item = &PromptArgument> {
        self.params.iter().filter_map(|param| match param {
            PromptParam::Argument(argument) => Some(argument),
            PromptParam::Injected { .. } => None,
        })
    }
}

/// Check every rule; `Err` with all the problems (and those `cx` already holds).
pub fn prompt(function: &HandlerFn, attr: &PromptAttr, mut cx: Ctxt) -> syn::Result<ValidPrompt> {
    let cx = &mut cx;
    let callee = rules::check_function(function, "prompt", cx);
    let (name, name_span) = check_prompt_name(function, attr, cx);
    check_documented_arguments_exist(&function.docs, &function.params, function.ident(), cx);
    let params: Vec<PromptParam> = function
        .params
        .iter()
        .filter_map(|param| check_param(function, param, cx))
        .collect();
    check_wire_names_unique(&params, function, cx);
    let completers = check_completers(attr, &params, cx);
    let valid = ValidPrompt {
        item: function.item.clone(),
        callee,
        name,
        name_span,
        title: attr.title.as_ref().map(|title| title.value.clone()),
        icon: attr.icon.as_ref().map(|icon| icon.value.clone()),
        scopes: attr.scopes.clone(),
        description: function.description(attr.description.as_ref()),
        params,
        completers,
        meta: attr.meta.clone(),
        _checked: Checked,
    };
    check_meta(&attr.meta, None, cx);
    std::mem::take(cx).check().map(|()| valid)
}

/// Clients show prompt names as commands (`/code_review`) and send them back verbatim: an empty
/// name, or one with spaces or control characters, cannot be typed or round-tripped reliably.
fn check_prompt_name(function: &HandlerFn, attr: &PromptAttr, cx: &mut Ctxt) -> (String, Span) {
    let (name, span, from_fn) = match &attr.name {
        Some(Spanned { value, span }) => (value.clone(), *span, false),
        None => (function.default_name(), function.ident().span(), true),
    };
    let problem = if name.is_empty() {
        Some("is empty".to_owned())
    } else {
        name.chars()
            .find(|c| c.is_whitespace() || c.is_control())
            .map(|c| format!("contains {c:?}"))
    };
    if let Some(problem) = problem {
        let fix = if from_fn {
            "; set one with `#[mcp_prompt(name = \"...\")]`"
        } else {
            ""
        };
        cx.error_at(
            span,
            format!("the prompt name `{name}` {problem}: clients use it as a command{fix}"),
        );
    }
    (name, span)
}

/// Every rule about one parameter; `None` when it cannot be turned into an argument.
fn check_param(function: &HandlerFn, param: &Param, cx: &mut Ctxt) -> Option<PromptParam> {
    let name = rules::param_name(param, "prompt", cx)?;
    if !rules::check_owned(param, "prompt", cx) {
        return None;
    }
    if rules::is_injected(&param.ty) {
        return Some(PromptParam::Injected {
            ty: param.ty.clone(),
        });
    }
    let option = option_inner(&param.ty);
    let presence = match (&param.attr.default, option) {
        (Some(default), Some(_)) => {
            // An absent `Option` argument is already `None`: a default would say two things.
            let span = match default {
                DefaultAttr::Value(expr) => syn::spanned::Spanned::span(expr),
                DefaultAttr::TypeDefault(span) => *span,
            };
            cx.error_at(
                span,
                "an `Option` parameter cannot have a default: an absent argument is already \
                 `None`; drop the `Option` to take the default instead",
            );
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
    let wire_name = match &param.attr.rename {
        Some(rename) if rename.value.is_empty() => {
            cx.error_at(rename.span, "`rename` cannot be empty");
            name.clone()
        }
        Some(rename) => rename.value.clone(),
        None => name.clone(),
    };
    Some(PromptParam::Argument(PromptArgument {
        wire_name,
        value_ty: option.unwrap_or(&param.ty).clone(),
        presence,
        description: check_described_once(function, param, &name, cx),
    }))
}

/// Two parameters with the same wire name would read the same argument.
fn check_wire_names_unique(params: &[PromptParam], function: &HandlerFn, cx: &mut Ctxt) {
    let arguments: Vec<&PromptArgument> = params
        .iter()
        .filter_map(|param| match param {
            PromptParam::Argument(argument) => Some(argument),
            PromptParam::Injected { .. } => None,
        })
        .collect();
    for (index, argument) in arguments.iter().enumerate() {
        if arguments[..index]
            .iter()
            .any(|earlier| earlier.wire_name == argument.wire_name)
        {
            cx.error_spanned(
                &function.item.sig.inputs,
                format!(
                    "two parameters are both passed as `{}`; rename one with `#[arg(rename = \"...\")]`",
                    argument.wire_name
                ),
            );
        }
    }
}

/// A completer for something that is not an argument would never be asked.
fn check_completers(
    attr: &PromptAttr,
    params: &[PromptParam],
    cx: &mut Ctxt,
) -> Vec<(String, Path)> {
    let mut completers = Vec::new();
    for completer in &attr.complete {
        let name = unraw(&completer.name);
        let is_argument = params.iter().any(
            |param| matches!(param, PromptParam::Argument(argument) if argument.wire_name == name),
        );
        if is_argument {
            completers.push((name, completer.path.clone()));
        } else {
            cx.error_spanned(
                &completer.name,
                format!("`{name}` is not an argument of this prompt, so nothing would complete it"),
            );
        }
    }
    completers
}
