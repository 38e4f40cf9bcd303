//! The pieces of generated code that tools, resources and prompts share: hygienic locals, the
//! companion of a free function, the call of the user's function inside a handler,
//! completions, optional facts, default parameters' functions, and the debug print of an
//! expansion.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident, ItemFn, ReturnType, Type, Visibility};

use crate::shared::attr::DefaultAttr;
use crate::shared::paths;
use crate::shared::rules::Callee;
use crate::shared::syntax::option_inner;

/// A local of generated code, at `Span::mixed_site()`: the user's tokens spliced beside it (a
/// function's name, a completer, a type) cannot see it, so no name of the user's clashes with it.
pub fn local(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// The locals that hold the values of `count` parameters between reading and the call.
pub fn arg_locals(count: usize) -> Vec<Ident> {
    (0..count)
        .map(|index| local(&format!("__mcp_arg_{index}")))
        .collect()
}

/// The companion of a free function: a braced struct named like it, which carries the runtime's
/// traits (`impls`). The struct lives in the type namespace, so it coexists with the function,
/// and `tools![name]` finds it by the function's name; the impls sit in an unnamed `const`, so
/// their imports and helper items stay out of the user's module.
pub fn companion(vis: &Visibility, ident: &Ident, impls: TokenStream) -> TokenStream {
    quote! {
        #[allow(non_camel_case_types)]
        #[doc(hidden)]
        #vis struct #ident {}

        const _: () = {
            #impls
        };
    }
}

/// A boxed future that calls `item` with `values` and hands its output to `convert`: awaited in
/// place for an `async fn`, on a thread of the runtime's for a plain `fn` (which may block).
/// `convert` gets the output's local and the return type's span, so a return type without the
/// needed trait is an error at that type.
///
/// A method is called on the `Arc` its handler holds (`self.0`), cloned into the future.
pub fn call_user_fn(
    item: &ItemFn,
    callee: &Callee,
    values: &[Ident],
    convert: impl FnOnce(&Ident, Span) -> TokenStream,
) -> TokenStream {
    let p = paths::private();
    let ident = &item.sig.ident;
    let output_span = match &item.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => ident.span(),
    };
    let output = Ident::new("__mcp_output", Span::mixed_site().located_at(output_span));
    let convert = convert(&output, output_span);
    let service = local("__mcp_service");
    let (setup, function, receiver) = match callee {
        Callee::Free => (None, quote!(#ident), None),
        Callee::Associated(self_ty) => (None, quote!(<#self_ty>::#ident), None),
        Callee::Method(self_ty) => (
            Some(quote!(let #service = ::std::sync::Arc::clone(&self.0);)),
            quote!(<#self_ty>::#ident),
            Some(quote!(&*#service,)),
        ),
    };
    let run = if item.sig.asyncness.is_some() {
        quote_spanned! {ident.span()=>
            ::std::boxed::Box::pin(async move {
                let #output = #function(#receiver #(#values),*).await;
                #convert
            })
        }
    } else {
        quote_spanned! {ident.span()=>
            ::std::boxed::Box::pin(#p::run_blocking(move || {
                let #output = #function(#receiver #(#values),*);
                #convert
            }))
        }
    };
    match setup {
        None => run,
        Some(setup) => quote! {{
            #setup
            #run
        }},
    }
}

/// `complete` and `has_completions`: explicit completers by name, then every other value whose
/// type is an enum of unit variants (decided by the runtime's probe).
pub fn completions<'a>(
    completers: &[(String, syn::Path)],
    values: impl Iterator<Item = (&'a str, &'a syn::Type)>,
) -> TokenStream {
    let p = paths::private();
    let request = local("__mcp_request");
    let probed = local("__mcp_values");
    let explicit = completers.iter().map(|(name, path)| {
        let run = quote_spanned!(path.span()=> #p::complete_with(#path, #request));
        quote!(#name => ::core::option::Option::Some(#run),)
    });
    let probes: Vec<(&str, TokenStream)> = values
        .filter(|(name, _)| !completers.iter().any(|(completed, _)| completed == name))
        .map(|(name, ty)| {
            let ty = option_inner(ty).unwrap_or(ty);
            (
                name,
                quote! {{
                    #[allow(unused_imports)]
                    use #p::{ViaJsonSchema as _, ViaNothing as _};
                    // The borrow picks `ViaNothing` when `ViaJsonSchema` does not apply.
                    #[allow(clippy::needless_borrow)]
                    let #probed = (&#p::EnumProbe::<#ty>::NEW).enum_values();
                    #probed
                }},
            )
        })
        .collect();
    let automatic = probes
        .iter()
        .map(|(name, probe)| quote!(#name => #p::complete_enum(#probe, #request),));
    let complete = quote! {
        match #request.argument.as_str() {
            #(#explicit)*
            #(#automatic)*
            _ => ::core::option::Option::None,
        }
    };
    let has_completions = if completers.is_empty() {
        let checks = probes
            .iter()
            .map(|(_, probe)| quote!(::core::option::Option::is_some(&#probe)));
        quote!(false #(|| #checks)*)
    } else {
        quote!(true)
    };
    quote! {
        fn complete(
            &self,
            #request: &#p::CompletionRequest,
        ) -> ::core::option::Option<#p::Completion> {
            #complete
        }

        fn has_completions(&self) -> bool {
            #has_completions
        }
    }
}

/// `Some(value)` or `None`, for a fact the runtime takes as an `Option` (a title, a size, a
/// hint).
pub fn optional(value: Option<impl ToTokens>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}

/// `fn __mcp_default_N() -> T { expr }` for the parameter at `index`, of type `ty`: an
/// associated function of the handler (so the handlers of one `#[mcp_server]` impl do not
/// collide), the one place the default expression is type-checked against the parameter, for
/// both the definition and the call.
pub fn default_fn(index: usize, ty: &Type, default: &DefaultAttr) -> TokenStream {
    let ident = default_fn_ident(index);
    let expr: Expr = match default {
        DefaultAttr::Value(expr) => expr.clone(),
        DefaultAttr::TypeDefault(span) => {
            syn::parse_quote_spanned!(*span=> ::core::default::Default::default())
        }
    };
    quote! {
        fn #ident() -> #ty {
            #expr
        }
    }
}

/// The name of the [`default_fn`] of the parameter at `index`.
pub fn default_fn_ident(index: usize) -> Ident {
    format_ident!("__mcp_default_{}", index, span = Span::mixed_site())
}

/// With `MCP_MACROS_DEBUG` set, print an expansion to stderr at compile time: `1` (or `all`)
/// prints every one, otherwise a comma-separated list of tool function names (and `tools` for
/// `tools![...]`) selects some.
///
/// Cargo does not rebuild when only an environment variable changes: touch the source file (or
/// `cargo clean -p <crate>`) to see an expansion again.
pub fn debug_print(label: &str, tokens: &TokenStream) {
    let Ok(wanted) = std::env::var("MCP_MACROS_DEBUG") else {
        return;
    };
    let selected = match wanted.trim() {
        "" | "0" | "false" => false,
        "1" | "true" | "all" => true,
        names => names.split(',').any(|name| name.trim() == label),
    };
    if selected {
        eprintln!("[mcp_macros] expansion of `{label}`:\n{tokens}\n");
    }
}

/// `fn scopes` of a handler that declares `scopes(...)`; nothing without any (the trait's
/// default declares none).
pub fn scopes_fn(scopes: &[String]) -> Option<TokenStream> {
    if scopes.is_empty() {
        return None;
    }
    let p = paths::private();
    Some(quote! {
        fn scopes(&self) -> &[#p::Cow<'static, str>] {
            const SCOPES: &[#p::Cow<'static, str>] = &[#(#p::Cow::Borrowed(#scopes)),*];
            SCOPES
        }
    })
}
