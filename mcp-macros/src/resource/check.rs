//! A resource function and its options -> a validated resource. One function per rule, each
//! saying why the rule exists.

use std::collections::BTreeMap;

use proc_macro2::Span;
use syn::{Ident, ItemFn, LitStr, Path, Type};

use super::attr::ResourceAttr;
use super::uri_template::{self, Part, PartKind};
use crate::shared::attr::Spanned;
use crate::shared::ctxt::Ctxt;
use crate::shared::function::HandlerFn;
use crate::shared::meta::{APP_MIME_TYPE, AppPageAttr, MetaEntry, check_app_uri, check_meta};
use crate::shared::rules::{self, Callee};
use crate::shared::syntax::option_inner;

/// A resource function every rule accepted.
pub struct ValidResource {
    pub item: ItemFn,
    /// How generated code calls it.
    pub callee: Callee,
    pub uri: ValidUri,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    pub size: Option<u64>,
    /// `"User"` / `"Assistant"`: the runtime's `Role` variants.
    pub audience: Vec<&'static str>,
    pub priority: Option<f64>,
    /// The URI of its icon.
    pub icon: Option<String>,
    /// The scopes a caller needs.
    pub scopes: Vec<String>,
    pub params: Vec<ResourceParam>,
    pub list: Option<Path>,
    /// Completers by variable name.
    pub completers: Vec<(String, Path)>,
    /// `meta(...)`, keys checked.
    pub meta: Vec<MetaEntry>,
    /// `app(...)`: an MCP App page at a static `ui://` URI.
    pub app: Option<AppPageAttr>,
    _checked: Checked,
}

/// The URI the resource answers.
pub enum ValidUri {
    Static(String),
    Template { text: String, parts: Vec<Part> },
}

impl ValidUri {
    /// What `resources![...]` compares: the URI, or the template's shape.
    pub fn route(&self) -> String {
        match self {
            ValidUri::Static(uri) => uri.clone(),
            ValidUri::Template { parts, .. } => uri_template::shape(parts),
        }
    }
}

/// One parameter: a template variable (parsed with `FromStr`) or an injected value.
pub enum ResourceParam {
    Variable { name: String, ty: Type },
    Injected { ty: Type },
}

struct Checked;

impl ValidResource {
    pub fn fn_ident(&self) -> &Ident {
        &self.item.sig.ident
    }
}

/// Check every rule; `Err` with all the problems (and those `cx` already holds).
pub fn resource(
    function: &HandlerFn,
    attr: &ResourceAttr,
    mut cx: Ctxt,
) -> syn::Result<ValidResource> {
    let cx = &mut cx;
    let callee = rules::check_function(function, "resource", cx);
    let uri = attr.uri.as_ref().and_then(|literal| check_uri(literal, cx));
    let variables: Vec<(String, std::ops::Range<usize>)> = match &uri {
        Some(ValidUri::Template { parts, .. }) => parts
            .iter()
            .filter_map(|part| match &part.kind {
                PartKind::Variable { name, .. } => Some((name.clone(), part.range.clone())),
                PartKind::Literal(_) => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let params = check_params(function, attr, uri.as_ref(), &variables, cx);
    check_variables_bound(function, attr, &variables, cx);
    let is_template = matches!(uri, Some(ValidUri::Template { .. }));
    check_template_only_options(attr, is_template, cx);
    let completers = check_completers(attr, &variables, is_template, cx);
    check_name(attr, cx);
    check_mime_type(attr, cx);
    check_app_page(attr, is_template, cx);
    let audience = check_audience(&attr.audience, cx);
    check_priority(attr.priority.as_ref(), cx);
    let valid = uri.map(|uri| ValidResource {
        item: function.item.clone(),
        callee,
        uri,
        name: function.name(attr.name.as_ref()),
        title: attr.title.as_ref().map(|title| title.value.clone()),
        description: function.description(attr.description.as_ref()),
        // An app page is served as MCP Apps' HTML (`check_app_page` allows no other).
        mime_type: match &attr.app {
            Some(_) => Some(APP_MIME_TYPE.to_owned()),
            None => attr.mime_type.as_ref().map(|mime| mime.value.clone()),
        },
        size: attr.size.as_ref().map(|size| size.value),
        audience,
        priority: attr.priority.as_ref().map(|priority| priority.value),
        icon: attr.icon.as_ref().map(|icon| icon.value.clone()),
        scopes: attr.scopes.clone(),
        params,
        list: attr.list.clone(),
        completers,
        meta: attr.meta.clone(),
        app: attr.app.clone(),
        _checked: Checked,
    });
    std::mem::take(cx).check()?;
    // Without a URI an error was recorded, so `check` returned it above.
    valid.ok_or_else(|| syn::Error::new(Span::call_site(), "missing URI"))
}

/// Clients validate resource URIs as URIs (`format: uri`), which need a scheme; a template is
/// checked by its literal start. A template's every mistake is reported inside the literal.
fn check_uri(literal: &LitStr, cx: &mut Ctxt) -> Option<ValidUri> {
    let text = literal.value();
    let scheme_end = text.find(':').filter(|&end| {
        let scheme = &text[..end];
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    if scheme_end.is_none() {
        cx.error_at(
            literal.span(),
            format!(
                "`{text}` has no URI scheme: clients reject resource URIs without one; write it \
                 like `config://app` or `file:///{{+path}}`"
            ),
        );
        return None;
    }
    if let Some(space) = text.find(char::is_whitespace) {
        cx.error_at(
            uri_template::span_of(literal, space..space + 1),
            "a URI cannot contain whitespace; percent-encode it (`%20`)",
        );
        return None;
    }
    if !uri_template::is_template(&text) {
        return Some(ValidUri::Static(text));
    }
    match uri_template::parse(&text) {
        Ok(parts) => Some(ValidUri::Template { text, parts }),
        Err(errors) => {
            for error in errors {
                cx.error_at(uri_template::span_of(literal, error.range), error.message);
            }
            None
        }
    }
}

/// Every parameter is a template variable (by name) or an injected value: anything else would
/// have no value to receive.
fn check_params(
    function: &HandlerFn,
    attr: &ResourceAttr,
    uri: Option<&ValidUri>,
    variables: &[(String, std::ops::Range<usize>)],
    cx: &mut Ctxt,
) -> Vec<ResourceParam> {
    let mut params = Vec::new();
    for param in &function.params {
        check_no_arg_options(param, cx);
        let Some(name) = rules::param_name(param, "resource", cx) else {
            continue;
        };
        if !rules::check_owned(param, "resource", cx) {
            continue;
        }
        // A URI that did not parse was reported already; which parameter binds what is
        // unknown, so say nothing more.
        let Some(uri) = uri else { continue };
        if variables.iter().any(|(variable, _)| *variable == name) {
            if option_inner(&param.ty).is_some() {
                cx.error_spanned(
                    &param.ty,
                    format!(
                        "`{name}` cannot be an `Option`: a template variable always has a value \
                         in a URI that matches"
                    ),
                );
                continue;
            }
            params.push(ResourceParam::Variable {
                name,
                ty: param.ty.clone(),
            });
        } else if rules::is_injected(&param.ty) {
            params.push(ResourceParam::Injected {
                ty: param.ty.clone(),
            });
        } else {
            let template = attr.uri.as_ref().map(LitStr::value).unwrap_or_default();
            let message = match uri {
                ValidUri::Static(_) => format!(
                    "the parameter `{name}` has no value: `{template}` is a static URI, with no \
                     variables; make it a template like `{template}/{{{name}}}`, or take \
                     `RequestContext` / `CancellationToken` only"
                ),
                _ => format!(
                    "the parameter `{name}` is not a variable of `{template}` (its variables are {}); \
                     a parameter takes the value of the variable of the same name",
                    variables
                        .iter()
                        .map(|(variable, _)| format!("`{variable}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            cx.error_spanned(&param.pat, message);
        }
    }
    params
}

/// Resource parameters take no options: a variable has no description on the wire, no default
/// (a matching URI always gives it a value), and binds by its own name.
fn check_no_arg_options(param: &crate::shared::function::Param, cx: &mut Ctxt) {
    let options = [
        param.attr.description.as_ref().map(|d| d.span),
        param.attr.rename.as_ref().map(|r| r.span),
        param.attr.default.as_ref().map(|default| match default {
            crate::shared::attr::DefaultAttr::Value(expr) => syn::spanned::Spanned::span(expr),
            crate::shared::attr::DefaultAttr::TypeDefault(span) => *span,
        }),
    ];
    for span in options.into_iter().flatten() {
        cx.error_at(
            span,
            "`#[arg]` has no options on a resource parameter: it takes the template variable of \
             its own name, which always has a value and is not described on the wire",
        );
    }
}

/// A variable nobody reads is a URI the function cannot tell apart from others: say so at the
/// variable.
fn check_variables_bound(
    function: &HandlerFn,
    attr: &ResourceAttr,
    variables: &[(String, std::ops::Range<usize>)],
    cx: &mut Ctxt,
) {
    let Some(literal) = &attr.uri else { return };
    let names: Vec<String> = function
        .params
        .iter()
        .filter_map(|param| match &param.pat {
            syn::Pat::Ident(ident) => Some(crate::shared::syntax::unraw(&ident.ident)),
            _ => None,
        })
        .collect();
    for (variable, range) in variables {
        if !names.contains(variable) {
            cx.error_at(
                uri_template::span_of(literal, range.clone()),
                format!(
                    "the variable `{variable}` has no parameter: add `{variable}: String` (or any \
                     type implementing `FromStr`) to `{}`",
                    function.ident()
                ),
            );
        }
    }
}

/// `list` enumerates a template's instances and `size` describes one resource: neither means
/// anything on the other kind.
fn check_template_only_options(attr: &ResourceAttr, is_template: bool, cx: &mut Ctxt) {
    if let (Some(list), false) = (&attr.list, is_template) {
        if attr.uri.is_some() {
            cx.error_spanned(
                list,
                "`list` enumerates the resources of a URI template; a static resource is listed \
                 as it is",
            );
        }
    }
    if let (Some(size), true) = (&attr.size, is_template) {
        cx.error_at(
            size.span,
            "`size` describes one resource, not a template: give each listed resource its size \
             with `Resource::with_size` in the lister",
        );
    }
}

/// A completer for something that is not a variable would never be asked.
fn check_completers(
    attr: &ResourceAttr,
    variables: &[(String, std::ops::Range<usize>)],
    is_template: bool,
    cx: &mut Ctxt,
) -> Vec<(String, Path)> {
    let mut completers = Vec::new();
    for completer in &attr.complete {
        let name = crate::shared::syntax::unraw(&completer.name);
        if variables.iter().any(|(variable, _)| *variable == name) {
            completers.push((name, completer.path.clone()));
        } else if is_template || attr.uri.is_none() {
            cx.error_spanned(
                &completer.name,
                format!(
                    "`{name}` is not a variable of the URI template, so nothing would complete it"
                ),
            );
        } else {
            cx.error_spanned(
                &completer.name,
                "a static resource has no variables to complete",
            );
        }
    }
    completers
}

/// A resource's name is what clients show for it: it cannot be empty.
fn check_name(attr: &ResourceAttr, cx: &mut Ctxt) {
    if let Some(Spanned { value, span }) = &attr.name {
        if value.trim().is_empty() {
            cx.error_at(*span, "`name` cannot be empty");
        }
    }
}

/// A MIME type is `type/subtype`; anything else misleads clients choosing how to show it.
/// An app page is fetched by the one `ui://` URI a tool names, and hosts render only MCP Apps'
/// HTML; its `_meta.ui` is written by `app(...)`.
fn check_app_page(attr: &ResourceAttr, is_template: bool, cx: &mut Ctxt) {
    check_meta(&attr.meta, attr.app.as_ref().map(|_| "app(...)"), cx);
    if attr.app.is_none() {
        return;
    }
    if let Some(uri) = &attr.uri {
        if is_template {
            cx.error_spanned(
                uri,
                "an MCP App page cannot be a URI template: a tool names its page by one \
                 `ui://` URI",
            );
        } else {
            let uri = Spanned {
                value: uri.value(),
                span: uri.span(),
            };
            check_app_uri(&uri, "the page's URI", cx);
        }
    }
    if let Some(mime) = attr
        .mime_type
        .as_ref()
        .filter(|mime| mime.value != APP_MIME_TYPE)
    {
        cx.error_at(
            mime.span,
            format!(
                "an MCP App page is served as `{APP_MIME_TYPE}`, which `app` sets: remove \
                 `mime_type = \"{}\"`",
                mime.value
            ),
        );
    }
}

fn check_mime_type(attr: &ResourceAttr, cx: &mut Ctxt) {
    if let Some(Spanned { value, span }) = &attr.mime_type {
        let valid = value
            .split_once('/')
            .is_some_and(|(kind, subtype)| !kind.is_empty() && !subtype.is_empty())
            && !value.contains(char::is_whitespace);
        if !valid {
            cx.error_at(
                *span,
                format!("`{value}` is not a MIME type: write `type/subtype`, like `text/markdown`"),
            );
        }
    }
}

/// The audience is a role: `user` or `assistant`.
fn check_audience(audience: &[Spanned<String>], cx: &mut Ctxt) -> Vec<&'static str> {
    let mut roles = BTreeMap::new();
    for role in audience {
        let variant = match role.value.as_str() {
            "user" => "User",
            "assistant" => "Assistant",
            other => {
                cx.error_at(
                    role.span,
                    format!("unknown audience `{other}`; expected `user` or `assistant`"),
                );
                continue;
            }
        };
        if roles.insert(variant, ()).is_some() {
            cx.error_at(role.span, format!("`{}` is listed twice", role.value));
        }
    }
    audience
        .iter()
        .filter_map(|role| match role.value.as_str() {
            "user" => Some("User"),
            "assistant" => Some("Assistant"),
            _ => None,
        })
        .fold(Vec::new(), |mut kept, role| {
            if !kept.contains(&role) {
                kept.push(role);
            }
            kept
        })
}

/// The spec bounds priority to 0..=1; clients would reject anything else.
fn check_priority(priority: Option<&Spanned<f64>>, cx: &mut Ctxt) {
    if let Some(Spanned { value, span }) = priority {
        if !(0.0..=1.0).contains(value) {
            cx.error_at(
                *span,
                format!("`priority` is from 0 (optional) to 1 (required), not {value}"),
            );
        }
    }
}
