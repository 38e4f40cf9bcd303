//! `#[mcp_server]` on `impl Service { ... }` -> the impl block to emit and, for each method
//! marked `#[mcp_tool]`, `#[mcp_resource]` or `#[mcp_prompt]`, the same model a free function
//! gets. Records and judges nothing.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::{Attribute, FnArg, ImplItem, ImplItemFn, Item, ItemFn, ItemImpl, Meta, Signature, Type};

use crate::prompt::{self, PromptAttr};
use crate::resource::{self, ResourceAttr};
use crate::shared::attr;
use crate::shared::ctxt::Ctxt;
use crate::shared::function::{HandlerFn, Owner, item_keyword_span};
use crate::tool::{self, ToolAttr};

/// The arguments an inner attribute is rewritten to once `#[mcp_server]` has read it: the
/// attribute still expands (so its import is used), and with these it emits the method as is.
pub const METHOD_MARKER: &str = "__mcp_server_method";

/// `#[mcp_server(options)] impl ... { ... }`.
pub struct ServerImpl {
    /// The block to emit: the inner attributes rewritten to [`METHOD_MARKER`] and the `#[arg]`
    /// attributes of their parameters removed; otherwise as written.
    pub item: ItemImpl,
    /// Whatever was written between the parentheses of `#[mcp_server(...)]`.
    pub options: TokenStream,
    pub members: Vec<Member>,
}

/// A method with one of the inner attributes (a method with several is one member each).
pub struct Member {
    pub kind: MemberKind,
    /// The problems found reading it.
    pub cx: Ctxt,
}

pub enum MemberKind {
    Tool(HandlerFn, ToolAttr),
    Resource(HandlerFn, ResourceAttr),
    Prompt(HandlerFn, PromptAttr),
}

/// Which inner attribute.
#[derive(Clone, Copy)]
enum Inner {
    Tool,
    Resource,
    Prompt,
}

impl ServerImpl {
    /// Read `item`; `Err` (at its keyword) when it is not an `impl` block.
    pub fn from_syn(options: TokenStream, item: TokenStream) -> syn::Result<Self> {
        let mut item = match syn::parse2::<Item>(item)? {
            Item::Impl(item) => item,
            other => {
                return Err(syn::Error::new(
                    item_keyword_span(&other),
                    "`#[mcp_server]` goes on an `impl` block: `#[mcp_server] impl Service { ... }`, \
                     whose `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]` methods it serves",
                ));
            }
        };
        let self_ty = item.self_ty.clone();
        let mut members = Vec::new();
        for impl_item in &mut item.items {
            if let ImplItem::Fn(method) = impl_item {
                read_method(method, &self_ty, &mut members);
            }
        }
        Ok(ServerImpl {
            item,
            options,
            members,
        })
    }
}

/// Read the inner attributes of `method` into `members`, then leave it as it is to be emitted.
fn read_method(method: &mut ImplItemFn, self_ty: &Type, members: &mut Vec<Member>) {
    let inner: Vec<(usize, Inner)> = method
        .attrs
        .iter()
        .enumerate()
        .filter_map(|(index, attr)| inner_attribute(attr).map(|inner| (index, inner)))
        .collect();
    if inner.is_empty() {
        return;
    }
    let others: Vec<Attribute> = method
        .attrs
        .iter()
        .filter(|attr| inner_attribute(attr).is_none())
        .cloned()
        .collect();
    // Generated impls are for types of their own: `Self` in the signature means the service.
    let sig: Signature = syn::parse2(replace_self(method.sig.to_token_stream(), self_ty))
        .unwrap_or_else(|_| method.sig.clone());
    let receiver = method.sig.receiver().cloned();
    for &(index, kind) in &inner {
        let mut cx = Ctxt::new();
        let args = match &method.attrs[index].meta {
            Meta::Path(_) => TokenStream::new(),
            Meta::List(list) => replace_self(list.tokens.clone(), self_ty),
            Meta::NameValue(name_value) => {
                cx.error_spanned(
                    name_value,
                    "write the options in parentheses: `#[mcp_tool(...)]`",
                );
                TokenStream::new()
            }
        };
        let item = ItemFn {
            attrs: others.clone(),
            vis: method.vis.clone(),
            sig: sig.clone(),
            block: Box::new(method.block.clone()),
        };
        let owner = Owner::Impl(Box::new(self_ty.clone()));
        let attribute = match kind {
            Inner::Tool => "#[mcp_tool]",
            Inner::Resource => "#[mcp_resource]",
            Inner::Prompt => "#[mcp_prompt]",
        };
        let kind = match kind {
            Inner::Tool => {
                let attr = tool::tool_attr(args, &mut cx);
                let function = HandlerFn::from_fn(item, owner, attribute, &mut cx);
                MemberKind::Tool(function, attr)
            }
            Inner::Resource => {
                let function = HandlerFn::from_fn(item, owner, attribute, &mut cx);
                let attr = resource::resource_attr(args, &mut cx);
                MemberKind::Resource(function, attr)
            }
            Inner::Prompt => {
                let function = HandlerFn::from_fn(item, owner, attribute, &mut cx);
                let attr = prompt::prompt_attr(args, &mut cx);
                MemberKind::Prompt(function, attr)
            }
        };
        let mut member = Member { kind, cx };
        // Messages about the receiver quote it as written.
        match &mut member.kind {
            MemberKind::Tool(function, _)
            | MemberKind::Resource(function, _)
            | MemberKind::Prompt(function, _) => function.receiver = receiver.clone(),
        }
        members.push(member);
    }
    for input in &mut method.sig.inputs {
        if let FnArg::Typed(typed) = input {
            typed.attrs.retain(|attr| !attr::is_arg_attr(attr));
        }
    }
    for &(index, _) in &inner {
        let path = method.attrs[index].path().clone();
        let marker = syn::Ident::new(METHOD_MARKER, Span::call_site());
        method.attrs[index].meta = Meta::List(syn::MetaList {
            path,
            delimiter: syn::MacroDelimiter::Paren(Default::default()),
            tokens: quote!(#marker),
        });
    }
}

/// Which inner attribute `attr` is, by its last path segment (`mcp_tool`,
/// `mcp_runtime::mcp_tool`).
fn inner_attribute(attr: &Attribute) -> Option<Inner> {
    let segment = attr.path().segments.last()?;
    match segment.ident.to_string().as_str() {
        "mcp_tool" => Some(Inner::Tool),
        "mcp_resource" => Some(Inner::Resource),
        "mcp_prompt" => Some(Inner::Prompt),
        _ => None,
    }
}

/// `tokens` with every `Self` spelled as `self_ty` (`<self_ty>` before `::`), located at the
/// `Self` it replaces.
fn replace_self(tokens: TokenStream, self_ty: &Type) -> TokenStream {
    let mut out = TokenStream::new();
    let mut tokens = tokens.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Ident(ident) if ident == "Self" => {
                let span = ident.span();
                let ty = respan(self_ty.to_token_stream(), span);
                let before_path = matches!(tokens.peek(), Some(TokenTree::Punct(punct)) if punct.as_char() == ':');
                // A plain path (`Service`) goes as it is, so `Self::f` stays a path (options take
                // paths); one with arguments needs the qualified form before `::`.
                let plain = matches!(self_ty, Type::Path(path) if path.qself.is_none()
                    && path.path.segments.iter().all(|segment| segment.arguments.is_none()));
                if before_path && !plain {
                    out.extend(quote_spanned!(span=> <#ty>));
                } else {
                    out.extend(ty);
                }
            }
            TokenTree::Group(group) => {
                let mut replaced =
                    Group::new(group.delimiter(), replace_self(group.stream(), self_ty));
                replaced.set_span(group.span());
                out.extend([TokenTree::Group(replaced)]);
            }
            other => out.extend([other]),
        }
    }
    out
}

/// `tokens` located at `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(group) => {
                let mut respanned = Group::new(group.delimiter(), respan(group.stream(), span));
                respanned.set_span(span);
                TokenTree::Group(respanned)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

/// Whether `args` is [`METHOD_MARKER`]: the inner attribute was read by `#[mcp_server]`.
pub fn is_method_marker(args: &TokenStream) -> bool {
    let mut tokens = args.clone().into_iter();
    matches!(
        (tokens.next(), tokens.next()),
        (Some(TokenTree::Ident(ident)), None) if ident == METHOD_MARKER
    )
}
