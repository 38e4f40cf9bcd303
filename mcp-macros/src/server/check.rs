//! The parsed `#[mcp_server]` impl -> a validated one: the rules on the impl block itself, each
//! method checked by the rules of its attribute (the same as for a free function), and the
//! names and URIs compared across the block.

use proc_macro2::Span;
use quote::ToTokens;
use syn::{ItemImpl, Type};

use super::model::{MemberKind, ServerImpl};
use crate::prompt::{self, ValidPrompt};
use crate::resource::{self, ValidResource};
use crate::shared::ctxt::Ctxt;
use crate::tool::{self, ValidTool};

/// An `#[mcp_server]` impl every rule accepted.
pub struct ValidServer {
    pub item: ItemImpl,
    pub self_ty: Type,
    pub tools: Vec<ValidTool>,
    pub resources: Vec<ValidResource>,
    pub prompts: Vec<ValidPrompt>,
    _checked: Checked,
}

struct Checked;

/// Check every rule; `Err` with all the problems.
pub fn server(server: ServerImpl) -> syn::Result<ValidServer> {
    let mut cx = Ctxt::new();
    check_no_options(&server, &mut cx);
    check_inherent(&server.item, &mut cx);
    check_not_generic(&server.item, &mut cx);
    let mut errors: Vec<syn::Error> = Vec::new();
    let mut tools = Vec::new();
    let mut resources = Vec::new();
    let mut prompts = Vec::new();
    // (name, where it is written) of each member, for the comparisons.
    let mut tool_names: Vec<(String, Span)> = Vec::new();
    let mut prompt_names: Vec<(String, Span)> = Vec::new();
    let mut routes: Vec<(String, Span)> = Vec::new();
    for member in server.members {
        let result = match &member.kind {
            MemberKind::Tool(function, attr) => {
                tool::check_tool(function, attr, member.cx).map(|valid| {
                    tool_names.push((valid.name.clone(), valid.name_span));
                    tools.push(valid);
                })
            }
            MemberKind::Resource(function, attr) => {
                resource::check_resource(function, attr, member.cx).map(|valid| {
                    let span = attr
                        .uri
                        .as_ref()
                        .map_or_else(Span::call_site, |uri| uri.span());
                    routes.push((valid.uri.route(), span));
                    resources.push(valid);
                })
            }
            MemberKind::Prompt(function, attr) => prompt::check_prompt(function, attr, member.cx)
                .map(|valid| {
                    prompt_names.push((valid.name.clone(), valid.name_span));
                    prompts.push(valid);
                }),
        };
        if let Err(error) = result {
            errors.push(error);
        }
    }
    check_unique(
        &tool_names,
        "tool",
        "`#[mcp_tool(name = \"...\")]`",
        &mut cx,
    );
    check_unique(
        &prompt_names,
        "prompt",
        "`#[mcp_prompt(name = \"...\")]`",
        &mut cx,
    );
    check_routes_unique(&routes, &mut cx);
    check_app_pages_served(&tools, &resources, &mut cx);
    if let Err(error) = cx.check() {
        errors.push(error);
    }
    let mut errors = errors.into_iter();
    if let Some(mut combined) = errors.next() {
        for error in errors {
            combined.combine(error);
        }
        return Err(combined);
    }
    Ok(ValidServer {
        self_ty: (*server.item.self_ty).clone(),
        item: server.item,
        tools,
        resources,
        prompts,
        _checked: Checked,
    })
}

/// There is nothing to set: an option would be silently ignored.
fn check_no_options(server: &ServerImpl, cx: &mut Ctxt) {
    if !server.options.is_empty() {
        cx.error_spanned(
            &server.options,
            "`#[mcp_server]` takes no options: write `#[mcp_server]`; the tools, resources and \
             prompts take theirs in their own attributes",
        );
    }
}

/// A trait's methods are the trait's, reached through it; the server serves the type's own.
fn check_inherent(item: &ItemImpl, cx: &mut Ctxt) {
    if let Some((_, path, _)) = &item.trait_ {
        cx.error_spanned(
            path,
            format!(
                "`#[mcp_server]` goes on the type's own `impl` block (`impl {} {{ ... }}`), not \
                 on an impl of a trait; call the trait's methods from methods there",
                item.self_ty.to_token_stream()
            ),
        );
    }
}

/// The server holds one value of one type, and each parameter needs one concrete type: there is
/// nothing to pick a generic parameter with.
fn check_not_generic(item: &ItemImpl, cx: &mut Ctxt) {
    let generics = &item.generics;
    if !generics.params.is_empty() || generics.where_clause.is_some() {
        cx.error_spanned(
            generics,
            "`#[mcp_server]` cannot be on a generic `impl`: the server holds one value of one \
             concrete type; write the block for that type, like `impl Service<Postgres> { ... }`",
        );
    }
}

/// Two tools (or prompts) of one name: clients could call only one of them.
fn check_unique(names: &[(String, Span)], what: &str, fix: &str, cx: &mut Ctxt) {
    for (index, (name, span)) in names.iter().enumerate() {
        if names[..index].iter().any(|(earlier, _)| earlier == name) {
            cx.error_at(
                *span,
                format!(
                    "this impl block already has a {what} named `{name}`; every {what} needs its \
                     own name: set one with {fix}"
                ),
            );
        }
    }
}

/// A tool's app page is fetched by its URI, so it must be a page the server serves. When the
/// block serves app pages of its own, it is where the tool's page is expected; a block without
/// any may get its pages from `resources![...]`, which the server checks when it starts.
fn check_app_pages_served(tools: &[ValidTool], resources: &[ValidResource], cx: &mut Ctxt) {
    let pages: Vec<&str> = resources
        .iter()
        .filter(|resource| resource.app.is_some())
        .filter_map(|resource| match &resource.uri {
            resource::ValidUri::Static(uri) => Some(uri.as_str()),
            resource::ValidUri::Template { .. } => None,
        })
        .collect();
    if pages.is_empty() {
        return;
    }
    for tool in tools {
        let Some(app) = &tool.app else { continue };
        if !pages.contains(&app.value.as_str()) {
            let served = pages
                .iter()
                .map(|page| format!("`{page}`"))
                .collect::<Vec<_>>()
                .join(", ");
            cx.error_at(
                app.span,
                format!(
                    "the tool `{}` names the app page `{}`, which this impl block does not \
                     serve (its app pages: {served}); add `#[mcp_resource(\"{}\", app)]` to a \
                     method, or fix the URI",
                    tool.name, app.value, app.value
                ),
            );
        }
    }
}

/// Two resources answering the same URIs: which one reads a URI would be arbitrary.
fn check_routes_unique(routes: &[(String, Span)], cx: &mut Ctxt) {
    for (index, (route, span)) in routes.iter().enumerate() {
        if routes[..index].iter().any(|(earlier, _)| earlier == route) {
            cx.error_at(
                *span,
                format!(
                    "this impl block already has a resource answering `{route}`: which one reads \
                     a URI would be arbitrary; change one URI"
                ),
            );
        }
    }
}
