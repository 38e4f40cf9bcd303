//! The check rules the three attributes share: the rule on `self` (and how generated code then
//! calls the function), the rules every resource and prompt function follows (the same as a
//! tool's, for the same reasons), which parameters are injected, the rules on describing
//! arguments, and [`Presence`], whether an argument may be absent.

use quote::ToTokens;
use syn::{Ident, Pat, Type};

use crate::shared::attr::DefaultAttr;
use crate::shared::ctxt::Ctxt;
use crate::shared::docs::Docs;
use crate::shared::function::{HandlerFn, Owner, Param};
use crate::shared::syntax::{peel, unraw};

/// How generated code calls the function, once its receiver is accepted.
#[derive(Clone)]
pub enum Callee {
    /// `name(args)`: a free function.
    Free,
    /// `<Type>::name(args)`: an associated function of an `#[mcp_server]` impl, without `self`.
    Associated(Box<Type>),
    /// `<Type>::name(&service, args)`: a `&self` method of an `#[mcp_server]` impl, called on
    /// the `Arc<Type>` its handler holds.
    Method(Box<Type>),
}

/// The rule on `self`, for every attribute. A free function's companion struct holds no state,
/// so there is no `self` to call a method on: `#[mcp_server]` on the impl block provides one.
/// In an `#[mcp_server]` impl the server holds the value in an `Arc` shared by concurrent
/// calls, so a method can only borrow it: `&self`.
pub fn check_receiver(function: &HandlerFn, cx: &mut Ctxt) -> Callee {
    let attribute = function.attribute;
    let self_ty = match &function.owner {
        Owner::Impl(self_ty) => self_ty,
        Owner::Free => {
            if let Some(receiver) = &function.receiver {
                cx.error_spanned(
                    receiver,
                    format!(
                        "`{attribute}` on a method taking `self` needs `#[mcp_server]` on its `impl` \
                         block, which serves the methods with `&self` as their state; or make it a \
                         free function, without `self`"
                    ),
                );
            }
            return Callee::Free;
        }
    };
    let Some(receiver) = &function.receiver else {
        return Callee::Associated(self_ty.clone());
    };
    let borrows = match &receiver.colon_token {
        // `&self`, `&'a self`.
        None => receiver.reference.is_some() && receiver.mutability.is_none(),
        // `self: &Self`.
        Some(_) => matches!(peel(&receiver.ty), Type::Reference(reference)
            if reference.mutability.is_none() && is_self_type(&reference.elem, self_ty)),
    };
    if borrows {
        return Callee::Method(self_ty.clone());
    }
    let (written, why) = if receiver.colon_token.is_some() {
        (
            format!("self: {}", tidy(&receiver.ty)),
            "the server holds the value in an `Arc` and lends each call `&self`",
        )
    } else if receiver.reference.is_some() {
        (
            "&mut self".to_owned(),
            "calls run concurrently on the one shared value; keep what changes behind a `Mutex` \
             or an atomic",
        )
    } else {
        (
            "self".to_owned(),
            "the server keeps the value for every call, so no call can take it",
        )
    };
    cx.error_spanned(
        receiver,
        format!("an `{attribute}` method takes `&self`, not `{written}`: {why}"),
    );
    Callee::Method(self_ty.clone())
}

/// Whether `ty` is `Self`, or the impl's type written out.
fn is_self_type(ty: &Type, self_ty: &Type) -> bool {
    match peel(ty) {
        Type::Path(path) if path.path.is_ident("Self") => true,
        other => other.to_token_stream().to_string() == self_ty.to_token_stream().to_string(),
    }
}

/// A type as a person writes it: `Box<Self>`, not `Box < Self >`.
fn tidy(ty: &Type) -> String {
    ty.to_token_stream()
        .to_string()
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace("& ", "&")
}

/// The rules every resource and prompt function follows; `what` is `resource` or `prompt`.
pub fn check_function(function: &HandlerFn, what: &str, cx: &mut Ctxt) -> Callee {
    let callee = check_receiver(function, cx);
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
    callee
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

/// A bullet naming no parameter is a description the model never sees, usually left behind by
/// a rename: say so rather than drop it.
pub fn check_documented_arguments_exist(
    docs: &Docs,
    params: &[Param],
    function: &Ident,
    cx: &mut Ctxt,
) {
    let names: Vec<String> = params.iter().filter_map(plain_name).collect();
    for (index, documented) in docs.arguments.iter().enumerate() {
        if !names.contains(&documented.name) {
            cx.error_at(
                documented.span,
                format!(
                    "`# Arguments` documents `{}`, which is not a parameter of `{function}`",
                    documented.name
                ),
            );
        } else if docs.arguments[..index]
            .iter()
            .any(|earlier| earlier.name == documented.name)
        {
            cx.error_at(
                documented.span,
                format!("`# Arguments` documents `{}` twice", documented.name),
            );
        }
    }
}

/// The name of a parameter written as one; the rules on patterns report the others.
fn plain_name(param: &Param) -> Option<String> {
    match &param.pat {
        Pat::Ident(ident) => Some(unraw(&ident.ident)),
        _ => None,
    }
}

/// Whether the client must send a tool's or prompt's argument.
pub enum Presence {
    Required,
    /// Written `Option<T>`: absent means `None`.
    Optional,
    /// `#[arg(default ...)]`: absent means this value.
    Default(DefaultAttr),
}

/// One description per parameter: when both `#[arg(description)]` and `# Arguments` give one,
/// whichever won, the other would be silently lost.
pub fn check_described_once(
    function: &HandlerFn,
    param: &Param,
    name: &str,
    cx: &mut Ctxt,
) -> Option<String> {
    let documented = function.docs.arguments.iter().find(|doc| doc.name == name);
    match (&param.attr.description, documented) {
        (Some(attr), Some(_)) => {
            cx.error_at(
                attr.span,
                format!("`{name}` is described twice, here and in `# Arguments`; keep one"),
            );
            Some(attr.value.clone())
        }
        (Some(attr), None) => Some(attr.value.clone()),
        (None, Some(doc)) => (!doc.text.is_empty()).then(|| doc.text.clone()),
        (None, None) => None,
    }
}
