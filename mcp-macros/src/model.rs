//! The parsed model of each macro's input: what was written, with spans. Records and judges
//! nothing; `check` decides what is acceptable.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser as _;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{FnArg, Item, ItemFn, Pat, Path, Token, Type};

use crate::attr::{self, ArgAttr, ToolAttr};
use crate::ctxt::Ctxt;
use crate::docs::{self, Docs};

/// A function under `#[mcp_tool(...)]`.
pub struct ToolFn {
    /// The function as written, minus the `#[arg]` attributes of its parameters (ours, unknown
    /// to the compiler).
    pub item: ItemFn,
    pub attr: ToolAttr,
    pub docs: Docs,
    /// The `self` parameter, if there is one.
    pub receiver: Option<Span>,
    pub params: Vec<Param>,
}

/// One typed parameter of the function.
pub struct Param {
    pub pat: Pat,
    pub ty: Type,
    pub attr: ArgAttr,
}

impl ToolFn {
    /// Read `#[mcp_tool(args)]` on `item`. `Err` when `item` is not a function; problems with
    /// the options and docs go to `cx`.
    pub fn from_syn(args: TokenStream, item: TokenStream, cx: &mut Ctxt) -> syn::Result<Self> {
        let mut item = match syn::parse2::<Item>(item)? {
            Item::Fn(item) => item,
            other => {
                return Err(syn::Error::new(
                    item_keyword_span(&other),
                    "`#[mcp_tool]` goes on a function: `async fn name(...) -> ... { ... }`",
                ));
            }
        };
        let attr = attr::tool_attr(args, cx);
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
        Ok(ToolFn {
            item,
            attr,
            docs,
            receiver,
            params,
        })
    }
}

/// Where to point "this is not a function": the item's keyword, not its whole body.
pub fn item_keyword_span(item: &Item) -> Span {
    match item {
        Item::Struct(item) => item.struct_token.span,
        Item::Enum(item) => item.enum_token.span,
        Item::Const(item) => item.const_token.span,
        Item::Static(item) => item.static_token.span,
        Item::Mod(item) => item.mod_token.span,
        Item::Impl(item) => item.impl_token.span,
        Item::Trait(item) => item.trait_token.span,
        Item::Type(item) => item.type_token.span,
        Item::Use(item) => item.use_token.span,
        other => other.span(),
    }
}

/// The input of `tools![a, b, module::c]`.
pub struct ToolList {
    pub paths: Vec<Path>,
}

impl ToolList {
    pub fn from_syn(input: TokenStream) -> syn::Result<Self> {
        let paths = Punctuated::<Path, Token![,]>::parse_terminated.parse2(input)?;
        Ok(ToolList {
            paths: paths.into_iter().collect(),
        })
    }
}
