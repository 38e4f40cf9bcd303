//! What `#[mcp_resource]` and `#[mcp_prompt]` share: reading the function they are on, the rules
//! every such function follows (the same as a tool's, for the same reasons), which parameters
//! are injected, and `complete(name = path)`.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, Item, ItemFn, Pat, Path, Type};

use crate::attr;
use crate::check::{peel, unraw};
use crate::ctxt::Ctxt;
use crate::docs::{self, Docs};
use crate::model::{Param, item_keyword_span};

/// A function under `#[mcp_resource]` or `#[mcp_prompt]`.
pub struct HandlerFn {
    /// The function as written, minus the `#[arg]` attributes of its parameters.
    pub item: ItemFn,
    pub docs: Docs,
    /// The `self` parameter, if there is one.
    pub receiver: Option<Span>,
    pub params: Vec<Param>,
}

impl HandlerFn {
    /// Read `item`; `Err` when it is not a function. `attribute` names the attribute in
    /// messages (`#[mcp_resource]`).
    pub fn from_syn(item: TokenStream, attribute: &str, cx: &mut Ctxt) -> syn::Result<Self> {
        let mut item = match syn::parse2::<Item>(item)? {
            Item::Fn(item) => item,
            other => {
                return Err(syn::Error::new(
                    item_keyword_span(&other),
                    format!(
                        "`{attribute}` goes on a function: `async fn name(...) -> ... {{ ... }}`"
                    ),
                ));
            }
        };
        let docs = docs::docs(&item.attrs, cx);
        let mut receiver = None;
        let mut params = Vec::new();
        for input in &mut item.sig.inputs {
            match input {
                FnArg::Receiver(receiver_arg) => receiver = Some(receiver_arg.span()),
                FnArg::Typed(typed) => {
                    let attr = attr::arg_attr(&typed.attrs, cx);
                    typed.attrs.retain(|attr| !attr::is_arg_attr(attr));
                    params.push(Param {
                        pat: (*typed.pat).clone(),
                        ty: (*typed.ty).clone(),
                        attr,
                    });
                }
            }
        }
        Ok(HandlerFn {
            item,
            docs,
            receiver,
            params,
        })
    }

    pub fn ident(&self) -> &Ident {
        &self.item.sig.ident
    }

    /// The name the function gives by default: its own, without `r#`.
    pub fn default_name(&self) -> String {
        unraw(self.ident())
    }
}

/// The rules every resource and prompt function follows; `what` is `resource` or `prompt`.
pub fn check_function(function: &HandlerFn, what: &str, cx: &mut Ctxt) {
    // The companion struct holds no state: there is no `self` to call a method on.
    if let Some(span) = function.receiver {
        cx.error_at(
            span,
            format!(
                "an MCP {what} function cannot take `self`: it is a free function, called with \
                 its arguments only; move it out of the `impl` block"
            ),
        );
    }
    // Each parameter is parsed as one concrete type: nothing could pick a generic one.
    let generics = &function.item.sig.generics;
    if !generics.params.is_empty() || generics.where_clause.is_some() {
        cx.error_spanned(
            generics,
            format!(
                "an MCP {what} function cannot be generic: each parameter needs one concrete type"
            ),
        );
    }
    // Clients call it with whatever they like: it cannot have safety preconditions.
    if let Some(unsafety) = &function.item.sig.unsafety {
        cx.error_spanned(
            unsafety,
            format!(
                "an MCP {what} function cannot be `unsafe`: clients call it with any arguments, so \
                 it cannot have safety preconditions"
            ),
        );
    }
    if let Some(variadic) = &function.item.sig.variadic {
        cx.error_spanned(
            variadic,
            format!("an MCP {what} function cannot be variadic"),
        );
    }
}

/// The parameter's name: clients send values by name, so it must be a plain identifier.
pub fn param_name(param: &Param, what: &str, cx: &mut Ctxt) -> Option<String> {
    match &param.pat {
        Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
            Some(unraw(&ident.ident))
        }
        other => {
            cx.error_spanned(
                other,
                format!(
                    "a {what} parameter must be a plain name, like `name: String`: its value is \
                     found by that name; destructure it in the body"
                ),
            );
            None
        }
    }
}

/// A value is parsed from text the request owns and drops, so nothing can be borrowed from it.
pub fn check_owned(param: &Param, what: &str, cx: &mut Ctxt) -> bool {
    if let Type::Reference(reference) = peel(&param.ty) {
        let owned = match peel(&reference.elem) {
            Type::Path(path) if path.path.is_ident("str") => "String".to_owned(),
            other => other.to_token_stream().to_string(),
        };
        cx.error_spanned(
            &param.ty,
            format!(
                "a {what} parameter cannot be borrowed: its text is dropped when the request \
                 ends; take an owned `{owned}`"
            ),
        );
        return false;
    }
    true
}

/// Whether `ty` names one of the values a request injects (`RequestContext`,
/// `CancellationToken`, `State<T>`). Decided by the last path segment, as the macro cannot
/// resolve types; a different type of that name fails the `Injected` bound at its own tokens.
pub fn is_injected(ty: &Type) -> bool {
    match peel(ty) {
        Type::Path(path) if path.qself.is_none() => {
            path.path
                .segments
                .last()
                .is_some_and(|segment| match &segment.arguments {
                    syn::PathArguments::None => {
                        segment.ident == "RequestContext" || segment.ident == "CancellationToken"
                    }
                    syn::PathArguments::AngleBracketed(_) => segment.ident == "State",
                    syn::PathArguments::Parenthesized(_) => false,
                })
        }
        _ => false,
    }
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
        return attr::skip_value(meta);
    }
    meta.parse_nested_meta(|entry| {
        let Some(name) = entry.path.get_ident().cloned() else {
            cx.error_spanned(
                &entry.path,
                "expected the name of an argument, like `language`",
            );
            return attr::skip_value(&entry);
        };
        if !entry.input.peek(syn::Token![=]) {
            cx.error_spanned(
                &entry.path,
                format!("`{name}` needs a completer function, like `{name} = complete_{name}`"),
            );
            return attr::skip_value(&entry);
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
