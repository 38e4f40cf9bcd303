//! The model of a function under `#[mcp_tool]`, `#[mcp_resource]` or `#[mcp_prompt]`: what was
//! written, with spans, its docs and the `#[arg]` of its parameters read. Records and judges
//! nothing; the checks decide what is acceptable.

use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned as _;
use syn::{FnArg, Ident, Item, ItemFn, Pat, Receiver, Type};

use crate::shared::attr::{self, ArgAttr, Spanned};
use crate::shared::ctxt::Ctxt;
use crate::shared::docs::{self, Docs};
use crate::shared::syntax::unraw;

/// A function under `#[mcp_tool]`, `#[mcp_resource]` or `#[mcp_prompt]`: free, or a method of
/// an `#[mcp_server]` impl block.
pub struct HandlerFn {
    /// The function as written, minus the `#[arg]` attributes of its parameters (ours, unknown
    /// to the compiler). For a method, `Self` in its signature is spelled as the impl's type,
    /// since generated code implements traits for types of its own.
    pub item: ItemFn,
    pub docs: Docs,
    /// The `self` parameter, if there is one, as written.
    pub receiver: Option<Receiver>,
    pub params: Vec<Param>,
    /// Where the function is written.
    pub owner: Owner,
    /// The attribute, for messages: `#[mcp_tool]`.
    pub attribute: &'static str,
}

/// Where an annotated function is written, which decides how generated code calls it.
#[derive(Clone)]
pub enum Owner {
    /// A free function, called by its name; a companion struct of that name carries its traits.
    Free,
    /// A method or associated function in `#[mcp_server] impl Type`.
    Impl(Box<Type>),
}

/// One typed parameter of the function.
pub struct Param {
    pub pat: Pat,
    pub ty: Type,
    pub attr: ArgAttr,
}

impl HandlerFn {
    /// Read the free function `item` under `attribute` (`#[mcp_resource]`); `Err` when it is not
    /// a function.
    pub fn from_syn(
        item: TokenStream,
        attribute: &'static str,
        cx: &mut Ctxt,
    ) -> syn::Result<Self> {
        let item = parse_fn(item, attribute)?;
        Ok(HandlerFn::from_fn(item, Owner::Free, attribute, cx))
    }

    /// Read `item`, written where `owner` says; the `#[arg]` attributes of its parameters are
    /// read and removed.
    pub fn from_fn(mut item: ItemFn, owner: Owner, attribute: &'static str, cx: &mut Ctxt) -> Self {
        let docs = docs::docs(&item.attrs, cx);
        let mut receiver = None;
        let mut params = Vec::new();
        for input in &mut item.sig.inputs {
            match input {
                FnArg::Receiver(receiver_arg) => receiver = Some(receiver_arg.clone()),
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
        HandlerFn {
            item,
            docs,
            receiver,
            params,
            owner,
            attribute,
        }
    }

    pub fn ident(&self) -> &Ident {
        &self.item.sig.ident
    }

    /// The name the function gives by default: its own, without `r#`.
    pub fn default_name(&self) -> String {
        unraw(self.ident())
    }

    /// The name set by `name = "..."`, or else the default one.
    pub fn name(&self, option: Option<&Spanned<String>>) -> String {
        option.map_or_else(|| self.default_name(), |name| name.value.clone())
    }

    /// The description set by `description = "..."`, or else the doc comment's.
    pub fn description(&self, option: Option<&Spanned<String>>) -> Option<String> {
        option.map_or_else(
            || self.docs.description.clone(),
            |description| Some(description.value.clone()),
        )
    }
}

/// `item` as a function; `Err` at its keyword when it is something else.
pub fn parse_fn(item: TokenStream, attribute: &str) -> syn::Result<ItemFn> {
    match syn::parse2::<Item>(item)? {
        Item::Fn(item) => Ok(item),
        other => Err(syn::Error::new(
            item_keyword_span(&other),
            format!("`{attribute}` goes on a function: `async fn name(...) -> ... {{ ... }}`"),
        )),
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
