//! `meta("key" = value, ...)` on the three attributes, and the MCP Apps options (`app` and
//! `visibility` on tools, `app(...)` on resources): reading, judging and expanding them.
//!
//! The runtime repeats the key rule (`protocol::meta`) for builders at start-up; here it is
//! applied where the keys are written, so a wrong one is a compile error at its literal.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Expr, ExprLit, Lit, LitStr, Token};

use crate::shared::attr::{Seen, Spanned, flag_value, skip_value, string_value};
use crate::shared::ctxt::Ctxt;
use crate::shared::paths;

/// One `"key" = value` of `meta(...)`.
#[derive(Clone)]
pub struct MetaEntry {
    pub key: LitStr,
    pub value: Expr,
}

/// The `_meta` key MCP Apps owns on tools and pages.
pub const APP_KEY: &str = "ui";
/// The scheme of app pages.
pub const APP_SCHEME: &str = "ui://";
/// The MIME type of app pages.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

const META_EXAMPLE: &str = "meta(\"com.example/owner\" = \"platform\")";

/// `meta("com.example/a" = 1, ...)`, the entries as written (judged by [`check_meta`]).
pub fn meta_value(meta: &ParseNestedMeta<'_>, cx: &mut Ctxt) -> syn::Result<Vec<MetaEntry>> {
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned(
            &meta.path,
            format!("`meta` takes a list of `\"key\" = value`, like `{META_EXAMPLE}`"),
        );
        skip_value(meta)?;
        return Ok(Vec::new());
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let mut entries = Vec::new();
    while !content.is_empty() {
        if !content.peek(LitStr) {
            let wrong: TokenStream = content.parse()?;
            cx.error_spanned(
                wrong,
                format!("each `meta` key is a string literal, like `{META_EXAMPLE}`"),
            );
            break;
        }
        let key: LitStr = content.parse()?;
        if !content.peek(Token![=]) {
            cx.error_spanned(
                &key,
                format!(
                    "`{}` needs a value: `\"{}\" = ...`",
                    key.value(),
                    key.value()
                ),
            );
            let _: TokenStream = content.parse()?;
            break;
        }
        content.parse::<Token![=]>()?;
        let value: Expr = content.parse()?;
        entries.push(MetaEntry { key, value });
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    Ok(entries)
}

/// Every `meta` key must be one clients accept and the runtime does not own: a reserved prefix
/// (`io.modelcontextprotocol/`, `dev.mcp/`: second label `modelcontextprotocol` or `mcp`) is
/// where the runtime writes the server's identity and task links, and `ui` is MCP Apps' when
/// the attribute has an app option (`app_option`), which writes it.
pub fn check_meta(entries: &[MetaEntry], app_option: Option<&str>, cx: &mut Ctxt) {
    for (index, entry) in entries.iter().enumerate() {
        let key = entry.key.value();
        if let Some(problem) = key_problem(&key) {
            cx.error_spanned(&entry.key, format!("the `_meta` key `{key}` {problem}"));
        } else if let Some(option) = app_option.filter(|_| key == APP_KEY) {
            cx.error_spanned(
                &entry.key,
                format!(
                    "the `_meta` key `ui` is written by `{option}` (MCP Apps); set the app's \
                     fields through `{option}` instead"
                ),
            );
        }
        if entries[..index]
            .iter()
            .any(|earlier| earlier.key.value() == key)
        {
            cx.error_spanned(&entry.key, format!("the `_meta` key `{key}` is set twice"));
        }
    }
}

/// Why `key` cannot be set, if it cannot (the protocol's `MetaObject` naming rules).
pub fn key_problem(key: &str) -> Option<&'static str> {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        let labels: Vec<&str> = prefix.split('.').collect();
        let label_ok = |label: &&str| {
            let bytes = label.as_bytes();
            bytes.first().is_some_and(u8::is_ascii_alphabetic)
                && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        };
        if !labels.iter().all(label_ok) {
            return Some(
                "has a prefix that is not dot-separated labels (each a letter first, then \
                 letters, digits or `-`, ending in a letter or digit)",
            );
        }
        if matches!(labels.get(1), Some(&"modelcontextprotocol" | &"mcp")) {
            return Some(
                "is reserved for the protocol: the runtime sets the keys of that prefix; use a \
                 prefix of your own, like `com.example/`",
            );
        }
    }
    let bytes = name.as_bytes();
    let name_ok = (name.is_empty() && prefix.is_some())
        || (bytes.first().is_some_and(u8::is_ascii_alphanumeric)
            && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
            && bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')));
    if !name_ok {
        return Some(
            "is not a valid name (alphanumeric first and last, then letters, digits, `-`, `_` \
             or `.`)",
        );
    }
    None
}

/// `Meta` holding `entries`, each value's `Serialize` bound spanned at the value.
pub fn expand_meta(entries: &[MetaEntry]) -> TokenStream {
    let p = paths::private();
    entries.iter().fold(quote!(#p::Meta::new()), |meta, entry| {
        let key = &entry.key;
        let value = &entry.value;
        quote_spanned!(value.span()=> #p::meta_entry(#meta, #key, &(#value)))
    })
}

/// Who may call a tool (`visibility("model", "app")`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    Model,
    App,
}

/// `visibility("model", "app")`: each value checked where it is written.
pub fn visibility_value(
    meta: &ParseNestedMeta<'_>,
    cx: &mut Ctxt,
) -> syn::Result<Option<Spanned<Vec<Visibility>>>> {
    const EXAMPLE: &str = "visibility(\"app\")";
    let span = meta.path.span();
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned(
            &meta.path,
            format!(
                "`visibility` takes a list of who may call the tool, `\"model\"` and/or \
                 `\"app\"`, like `{EXAMPLE}`"
            ),
        );
        skip_value(meta)?;
        return Ok(None);
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let values = content.parse_terminated(<Expr as syn::parse::Parse>::parse, Token![,])?;
    let mut audience = Vec::new();
    for value in &values {
        let parsed = match value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) => match text.value().as_str() {
                "model" => Some(Visibility::Model),
                "app" => Some(Visibility::App),
                _ => None,
            },
            _ => None,
        };
        match parsed {
            Some(who) if audience.contains(&who) => {
                cx.error_spanned(value, "listed twice");
            }
            Some(who) => audience.push(who),
            None => cx.error_spanned(
                value,
                "expected `\"model\"` (the model sees and calls the tool) or `\"app\"` (its page \
                 calls it through the host)",
            ),
        }
    }
    if values.is_empty() {
        cx.error_spanned(
            &meta.path,
            "`visibility()` lists nobody: the tool could not be called; write `\"model\"`, \
             `\"app\"` or both",
        );
    }
    Ok(Some(Spanned {
        value: audience,
        span,
    }))
}

/// An app page URI must be `ui://` and name something: hosts tell pages apart by the scheme.
pub fn check_app_uri(uri: &Spanned<String>, what: &str, cx: &mut Ctxt) {
    let rest = uri.value.strip_prefix(APP_SCHEME);
    if rest.is_none_or(str::is_empty) {
        cx.error_at(
            uri.span,
            format!(
                "{what} `{}` is not an MCP App page: app pages are `ui://` resources, like \
                 `\"ui://weather/forecast\"`",
                uri.value
            ),
        );
    }
}

/// The expression adding a tool's `ui` entry to `meta`.
pub fn expand_app_tool(
    meta: TokenStream,
    app: Option<&str>,
    visibility: Option<&[Visibility]>,
) -> TokenStream {
    let p = paths::private();
    if app.is_none() && visibility.is_none() {
        return meta;
    }
    let uri = match app {
        Some(uri) => quote!(::core::option::Option::Some(#uri)),
        None => quote!(::core::option::Option::None),
    };
    let audience = visibility.unwrap_or(&[]).iter().map(|who| match who {
        Visibility::Model => quote!(#p::Visibility::Model),
        Visibility::App => quote!(#p::Visibility::App),
    });
    quote!(#p::app_tool_meta(#meta, #uri, &[#(#audience),*]))
}

/// `app` or `app(csp(...), permissions(...), domain = "...", prefers_border = ...)` of a
/// resource.
#[derive(Default, Clone)]
pub struct AppPageAttr {
    pub connect_domains: Vec<String>,
    pub resource_domains: Vec<String>,
    pub frame_domains: Vec<String>,
    pub base_uri_domains: Vec<String>,
    pub camera: bool,
    pub microphone: bool,
    pub geolocation: bool,
    pub clipboard_write: bool,
    pub domain: Option<String>,
    pub prefers_border: Option<bool>,
}

const PAGE_KEYS: &[&str] = &["csp", "permissions", "domain", "prefers_border"];
const CSP_KEYS: &[&str] = &[
    "connect_domains",
    "resource_domains",
    "frame_domains",
    "base_uri_domains",
];
const PERMISSION_KEYS: &[&str] = &["camera", "microphone", "geolocation", "clipboard_write"];

/// Read `app` / `app(...)`.
pub fn app_page_value(meta: &ParseNestedMeta<'_>, cx: &mut Ctxt) -> syn::Result<AppPageAttr> {
    let mut page = AppPageAttr::default();
    if meta.input.peek(Token![=]) {
        cx.error_spanned(
            &meta.path,
            "`app` takes no value: write `app`, or `app(csp(...), permissions(...), \
             prefers_border = true)`",
        );
        skip_value(meta)?;
        return Ok(page);
    }
    if !meta.input.peek(syn::token::Paren) {
        return Ok(page);
    }
    let mut seen = Seen::new("app(...)", PAGE_KEYS);
    meta.parse_nested_meta(|option| {
        let Some(key) = seen.key(&option, cx) else {
            return skip_value(&option);
        };
        match key {
            "csp" => {
                let mut seen = Seen::new("csp(...)", CSP_KEYS);
                option.parse_nested_meta(|list| {
                    let Some(key) = seen.key(&list, cx) else {
                        return skip_value(&list);
                    };
                    let origins = origins_value(&list, key, cx)?;
                    match key {
                        "connect_domains" => page.connect_domains = origins,
                        "resource_domains" => page.resource_domains = origins,
                        "frame_domains" => page.frame_domains = origins,
                        _base_uri => page.base_uri_domains = origins,
                    }
                    Ok(())
                })?;
            }
            "permissions" => {
                let mut seen = Seen::new("permissions(...)", PERMISSION_KEYS);
                option.parse_nested_meta(|feature| {
                    let Some(key) = seen.key(&feature, cx) else {
                        return skip_value(&feature);
                    };
                    let asked = flag_value(&feature, cx)?;
                    match key {
                        "camera" => page.camera = asked,
                        "microphone" => page.microphone = asked,
                        "geolocation" => page.geolocation = asked,
                        _clipboard => page.clipboard_write = asked,
                    }
                    Ok(())
                })?;
            }
            "domain" => {
                page.domain = string_value(&option, cx, "domain = \"abc.example-host.com\"")?
                    .map(|domain| domain.value);
            }
            _prefers_border => {
                page.prefers_border = Some(flag_value(&option, cx)?);
            }
        }
        Ok(())
    })?;
    Ok(page)
}

/// `connect_domains("https://api.example.com", ...)`: origins, each a string literal with a
/// scheme (the host copies them into a Content-Security-Policy).
fn origins_value(meta: &ParseNestedMeta<'_>, key: &str, cx: &mut Ctxt) -> syn::Result<Vec<String>> {
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned(
            &meta.path,
            format!("`{key}` takes a list of origins, like `{key}(\"https://api.example.com\")`"),
        );
        skip_value(meta)?;
        return Ok(Vec::new());
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let values = content.parse_terminated(<Expr as syn::parse::Parse>::parse, Token![,])?;
    let mut origins = Vec::new();
    for value in values {
        match &value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) if text.value().contains("://") && !text.value().contains(char::is_whitespace) => {
                origins.push(text.value());
            }
            _ => cx.error_spanned(
                &value,
                "each origin is a string with its scheme and no spaces, like \
                 `\"https://api.example.com\"` or `\"https://*.example.com\"`",
            ),
        }
    }
    Ok(origins)
}

/// The expression adding a page's `ui` entry to `meta`.
pub fn expand_app_page(meta: TokenStream, page: &AppPageAttr) -> TokenStream {
    let p = paths::private();
    let AppPageAttr {
        connect_domains,
        resource_domains,
        frame_domains,
        base_uri_domains,
        camera,
        microphone,
        geolocation,
        clipboard_write,
        ..
    } = page;
    let domain = match &page.domain {
        Some(domain) => quote!(::core::option::Option::Some(#domain)),
        None => quote!(::core::option::Option::None),
    };
    let prefers_border = match page.prefers_border {
        Some(prefers) => quote!(::core::option::Option::Some(#prefers)),
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #p::app_page_meta(#meta, #p::AppPageSpec {
            connect_domains: &[#(#connect_domains),*],
            resource_domains: &[#(#resource_domains),*],
            frame_domains: &[#(#frame_domains),*],
            base_uri_domains: &[#(#base_uri_domains),*],
            permissions: #p::app_permissions(#camera, #microphone, #geolocation, #clipboard_write),
            domain: #domain,
            prefers_border: #prefers_border,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_protocol_s_rules() {
        for good in [
            "ui",
            "com.example/x",
            "com.example.mcp/x",
            "a/",
            "x-1/y_2.z",
        ] {
            assert_eq!(key_problem(good), None, "{good}");
        }
        for bad in [
            "",
            "-x",
            "com..a/x",
            "1a/x",
            "a b",
            "io.modelcontextprotocol/x",
            "dev.mcp/x",
        ] {
            assert!(key_problem(bad).is_some(), "{bad}");
        }
    }
}
