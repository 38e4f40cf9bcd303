//! `#[mcp_prompt(...)]` arguments -> raw options with spans.

use proc_macro2::TokenStream;
use syn::parse::Parser;

use crate::shared::attr::{self, CompleterAttr, Seen, Spanned, skip_value, string_value};
use crate::shared::ctxt::Ctxt;
use crate::shared::meta::{MetaEntry, meta_value};

/// The options of `#[mcp_prompt(...)]`.
#[derive(Default)]
pub struct PromptAttr {
    pub name: Option<Spanned<String>>,
    pub title: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    /// `icon = "https://..."`: the URI of the prompt's icon.
    pub icon: Option<Spanned<String>>,
    pub complete: Vec<CompleterAttr>,
    /// `scopes("a", ...)`: the OAuth scopes a caller needs.
    pub scopes: Vec<String>,
    /// `meta("key" = value, ...)`: entries of the prompt's `_meta`.
    pub meta: Vec<MetaEntry>,
}

const PROMPT_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "icon",
    "complete",
    "scopes",
    "meta",
];

/// Read the arguments of `#[mcp_prompt(...)]`.
pub fn prompt_attr(args: TokenStream, cx: &mut Ctxt) -> PromptAttr {
    let mut attr = PromptAttr::default();
    let mut seen = Seen::new("#[mcp_prompt]", PROMPT_KEYS);
    let parser = syn::meta::parser(|meta| {
        let Some(key) = seen.key(&meta, cx) else {
            return skip_value(&meta);
        };
        match key {
            "name" => attr.name = string_value(&meta, cx, "name = \"code_review\"")?,
            "title" => attr.title = string_value(&meta, cx, "title = \"Code review\"")?,
            "description" => {
                attr.description = string_value(&meta, cx, "description = \"...\"")?;
            }
            "icon" => {
                attr.icon = string_value(&meta, cx, "icon = \"https://example.com/icon.svg\"")?;
            }
            "scopes" => attr.scopes = attr::scopes_value(&meta, cx)?,
            "meta" => attr.meta = meta_value(&meta, cx)?,
            _complete => attr::complete_attr(&meta, cx, &mut attr.complete)?,
        }
        Ok(())
    });
    if let Err(error) = parser.parse2(args) {
        cx.syn_error(error);
    }
    attr
}
