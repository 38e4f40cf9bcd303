//! `#[mcp_resource("uri", ...)]` arguments -> raw options with spans.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::{ParseStream, Parser};
use syn::{Expr, ExprLit, Lit, LitStr, Path, Token};

use crate::shared::attr::{self, CompleterAttr, Seen, Spanned, skip_value, string_value};
use crate::shared::ctxt::Ctxt;
use crate::shared::meta::{AppPageAttr, MetaEntry, app_page_value, meta_value};

/// The options of `#[mcp_resource(...)]`.
#[derive(Default)]
pub struct ResourceAttr {
    /// The URI or URI template, the first argument.
    pub uri: Option<LitStr>,
    pub name: Option<Spanned<String>>,
    pub title: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    pub mime_type: Option<Spanned<String>>,
    pub size: Option<Spanned<u64>>,
    pub audience: Vec<Spanned<String>>,
    pub priority: Option<Spanned<f64>>,
    /// `icon = "https://..."`: the URI of the resource's (or template's) icon.
    pub icon: Option<Spanned<String>>,
    pub list: Option<Path>,
    pub complete: Vec<CompleterAttr>,
    /// `scopes("a", ...)`: the OAuth scopes a caller needs.
    pub scopes: Vec<String>,
    /// `meta("key" = value, ...)`: entries of the definition's `_meta`.
    pub meta: Vec<MetaEntry>,
    /// `app` / `app(...)`: the resource is an MCP App page.
    pub app: Option<AppPageAttr>,
}

const RESOURCE_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "mime_type",
    "size",
    "annotations",
    "icon",
    "list",
    "complete",
    "scopes",
    "meta",
    "app",
];
const ANNOTATION_KEYS: &[&str] = &["audience", "priority"];

/// Read the arguments of `#[mcp_resource(...)]`.
pub fn resource_attr(args: TokenStream, cx: &mut Ctxt) -> ResourceAttr {
    let mut attr = ResourceAttr::default();
    let parser = |input: ParseStream<'_>| -> syn::Result<()> {
        if input.peek(LitStr) {
            attr.uri = Some(input.parse()?);
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        } else {
            cx.error_at(
                if input.is_empty() {
                    Span::call_site()
                } else {
                    input.span()
                },
                "`#[mcp_resource]` needs the resource's URI first, as a string: \
                 `#[mcp_resource(\"config://app\")]` or a template `#[mcp_resource(\"doc://{name}\")]`",
            );
        }
        let options: TokenStream = input.parse()?;
        let mut seen = Seen::new("#[mcp_resource]", RESOURCE_KEYS);
        syn::meta::parser(|meta| {
            let Some(key) = seen.key(&meta, cx) else {
                return skip_value(&meta);
            };
            match key {
                "name" => attr.name = string_value(&meta, cx, "name = \"docs\"")?,
                "title" => attr.title = string_value(&meta, cx, "title = \"Documentation\"")?,
                "description" => {
                    attr.description = string_value(&meta, cx, "description = \"...\"")?;
                }
                "mime_type" => {
                    attr.mime_type = string_value(&meta, cx, "mime_type = \"text/markdown\"")?;
                }
                "size" => attr.size = size(&meta, cx)?,
                "annotations" => annotations(&meta, cx, &mut attr)?,
                "icon" => {
                    attr.icon = string_value(&meta, cx, "icon = \"https://example.com/icon.svg\"")?;
                }
                "list" => attr.list = path_value(&meta, cx, "list = list_docs")?,
                "scopes" => attr.scopes = attr::scopes_value(&meta, cx)?,
                "meta" => attr.meta = meta_value(&meta, cx)?,
                "app" => attr.app = Some(app_page_value(&meta, cx)?),
                _complete => attr::complete_attr(&meta, cx, &mut attr.complete)?,
            }
            Ok(())
        })
        .parse2(options)
    };
    if let Err(error) = parser.parse2(args) {
        cx.syn_error(error);
    }
    attr
}

/// `size = 1024`.
fn size(meta: &ParseNestedMeta<'_>, cx: &mut Ctxt) -> syn::Result<Option<Spanned<u64>>> {
    let value: Expr = meta.value()?.parse()?;
    match &value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => match int.base10_parse::<u64>() {
            Ok(size) => Ok(Some(Spanned {
                value: size,
                span: int.span(),
            })),
            Err(error) => {
                cx.syn_error(error);
                Ok(None)
            }
        },
        other => {
            cx.error_spanned(
                other,
                "`size` is the size in bytes, an integer: `size = 1024`",
            );
            Ok(None)
        }
    }
}

/// `list = path`.
fn path_value(
    meta: &ParseNestedMeta<'_>,
    cx: &mut Ctxt,
    example: &str,
) -> syn::Result<Option<Path>> {
    if !meta.input.peek(Token![=]) {
        cx.error_spanned(&meta.path, format!("write `{example}`"));
        skip_value(meta)?;
        return Ok(None);
    }
    let value: Expr = meta.value()?.parse()?;
    match value {
        Expr::Path(path) if path.qself.is_none() => Ok(Some(path.path)),
        other => {
            cx.error_spanned(
                other,
                format!("expected a function's path, like `{example}`"),
            );
            Ok(None)
        }
    }
}

/// `annotations(audience(user, assistant), priority = 0.8)`.
fn annotations(
    meta: &ParseNestedMeta<'_>,
    cx: &mut Ctxt,
    attr: &mut ResourceAttr,
) -> syn::Result<()> {
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned(
            &meta.path,
            "`annotations` takes a list, like `annotations(audience(user), priority = 0.8)`",
        );
        return skip_value(meta);
    }
    let mut seen = Seen::new("annotations(...)", ANNOTATION_KEYS);
    meta.parse_nested_meta(|hint| {
        let Some(key) = seen.key(&hint, cx) else {
            return skip_value(&hint);
        };
        if key == "audience" {
            if !hint.input.peek(syn::token::Paren) {
                cx.error_spanned(
                    &hint.path,
                    "`audience` lists who the resource is for: `audience(user)`, `audience(assistant)` or both",
                );
                return skip_value(&hint);
            }
            return hint.parse_nested_meta(|role| {
                let written = role
                    .path
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                attr.audience.push(Spanned {
                    value: written,
                    span: syn::spanned::Spanned::span(&role.path),
                });
                Ok(())
            });
        }
        let value: Expr = hint.value()?.parse()?;
        let priority = match &value {
            Expr::Lit(ExprLit {
                lit: Lit::Float(float),
                ..
            }) => float.base10_parse::<f64>().ok(),
            Expr::Lit(ExprLit {
                lit: Lit::Int(int), ..
            }) => int.base10_parse::<f64>().ok(),
            _ => None,
        };
        match priority {
            Some(priority) => {
                attr.priority = Some(Spanned {
                    value: priority,
                    span: syn::spanned::Spanned::span(&value),
                });
            }
            None => cx.error_spanned(
                &value,
                "`priority` is a number from 0 (optional) to 1 (required), like `priority = 0.8`",
            ),
        }
        Ok(())
    })
}
