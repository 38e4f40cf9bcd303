//! A validated prompt -> the function as written, its companion struct, and the runtime traits
//! implemented for it.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Type};

use super::check::{PromptArgument, PromptParam, ValidPrompt};
use crate::shared::expand::{
    arg_locals, call_user_fn, companion, completions, default_fn, default_fn_ident, local,
    optional, scopes_fn,
};
use crate::shared::meta::expand_meta;
use crate::shared::paths;
use crate::shared::rules::Presence;

/// Everything `#[mcp_prompt]` expands to for the free function of `prompt`.
pub fn prompt(prompt: &ValidPrompt) -> TokenStream {
    let item = &prompt.item;
    let ident = prompt.fn_ident();
    let defaults = defaults(prompt, ident);
    let impls = companion_impls(ident, &prompt.name, Some(prompt));
    let companion = companion(&item.vis, ident, quote!(#defaults #impls));
    quote! {
        #item

        #companion
    }
}

/// `StaticPrompt` and `PromptHandler` for the companion struct `ident` of the prompt `name`:
/// those of `prompt`, or with `None` the fallback's, whose bodies never run (the crate does not
/// compile).
pub fn companion_impls(ident: &Ident, name: &str, prompt: Option<&ValidPrompt>) -> TokenStream {
    let p = paths::private();
    let handler = handler_impl(ident, None, prompt);
    quote! {
        impl #p::StaticPrompt for #ident {
            const NAME: &'static str = #name;
            const INSTANCE: Self = #ident {};
        }

        #handler
    }
}

/// The prompt of a method of `#[mcp_server] impl Service`: the struct `handler`, holding the
/// `Arc<Service>`, and its impls; `bound` as for a tool.
pub fn method_prompt(
    prompt: &ValidPrompt,
    handler: &Ident,
    self_ty: &Type,
    bound: &TokenStream,
) -> TokenStream {
    let defaults = defaults(prompt, handler);
    let handler_impl = handler_impl(handler, Some(bound), Some(prompt));
    quote! {
        #[allow(non_camel_case_types)]
        struct #handler(::std::sync::Arc<#self_ty>);

        #defaults

        #handler_impl
    }
}

/// `impl #target { fn __mcp_default_N ... }` for the defaulted arguments, if there are any.
fn defaults(prompt: &ValidPrompt, target: &Ident) -> Option<TokenStream> {
    let default_fns: Vec<TokenStream> = prompt
        .params
        .iter()
        .enumerate()
        .filter_map(|(index, param)| match param {
            PromptParam::Argument(PromptArgument {
                presence: Presence::Default(default),
                value_ty,
                ..
            }) => Some(default_fn(index, value_ty, default)),
            PromptParam::Argument(_) | PromptParam::Injected { .. } => None,
        })
        .collect();
    (!default_fns.is_empty()).then(|| quote!(impl #target { #(#default_fns)* }))
}

/// `impl PromptHandler for #target`: that of `prompt`, or with `None` one whose required methods
/// never run and whose others are the trait's.
fn handler_impl(
    target: &Ident,
    bound: Option<&TokenStream>,
    prompt: Option<&ValidPrompt>,
) -> TokenStream {
    let p = paths::private();
    let scopes = prompt.and_then(|prompt| scopes_fn(&prompt.scopes));
    let (definition, get, completions) = match prompt {
        Some(prompt) => (
            definition(prompt),
            get(prompt),
            Some(completions(
                &prompt.completers,
                prompt
                    .arguments()
                    .map(|argument| (argument.wire_name.as_str(), &argument.value_ty)),
            )),
        ),
        None => {
            let unreachable = quote!(::core::unreachable!());
            (unreachable.clone(), unreachable, None)
        }
    };
    let get_param = get_param();
    quote! {
        impl #p::PromptHandler for #target #bound {
            fn definition(&self) -> #p::PromptDefinition {
                #definition
            }

            fn get(
                &self,
                #get_param: #p::PromptRequest,
            ) -> #p::BoxFuture<'static, #p::PromptOutcome> {
                #get
            }

            #completions

            #scopes
        }
    }
}

/// The parameter of `PromptHandler::get`.
fn get_param() -> Ident {
    local("__mcp_request")
}

fn definition(prompt: &ValidPrompt) -> TokenStream {
    let p = paths::private();
    let name = &prompt.name;
    let title = optional(prompt.title.as_deref());
    let description = optional(prompt.description.as_deref());
    let icons = prompt.icon.iter();
    let meta = expand_meta(&prompt.meta);
    let arguments = prompt.arguments().map(|argument| {
        let name = &argument.wire_name;
        let description = optional(argument.description.as_deref());
        let required = matches!(argument.presence, Presence::Required);
        quote! {
            #p::PromptArgumentSpec {
                name: #name,
                description: #description,
                required: #required,
            }
        }
    });
    quote! {
        const __MCP_ARGUMENTS: &[#p::PromptArgumentSpec] = &[#(#arguments),*];
        #p::prompt_definition(#p::PromptSpec {
            name: #name,
            title: #title,
            description: #description,
            arguments: __MCP_ARGUMENTS,
            icons: &[#(#icons),*],
            meta: #meta,
        })
    }
}

/// The body of `PromptHandler::get`: read every argument (gathering every problem), then run
/// the function and convert what it returns.
fn get(prompt: &ValidPrompt) -> TokenStream {
    let p = paths::private();
    let request = get_param();
    let reader = local("__mcp_reader");
    let values = arg_locals(prompt.params.len());
    let reads = prompt
        .params
        .iter()
        .zip(&values)
        .enumerate()
        .map(|(index, (param, value))| match param {
            PromptParam::Argument(argument) => {
                let ty = &argument.value_ty;
                let parser = quote_spanned!(ty.span()=> #p::argument_parser::<#ty>());
                let name = &argument.wire_name;
                let read = match &argument.presence {
                    Presence::Required => quote!(#reader.required(#parser, #name)),
                    Presence::Optional => quote!(#reader.optional(#parser, #name)),
                    Presence::Default(_) => {
                        let default_fn = default_fn_ident(index);
                        quote!(#reader.or_default(#parser, #name, Self::#default_fn))
                    }
                };
                quote!(let #value = #read;)
            }
            PromptParam::Injected { ty } => {
                let inject = quote_spanned!(ty.span()=> #p::inject::<#ty>(#reader.context()));
                quote!(let #value = ::core::option::Option::Some(#inject);)
            }
        });
    let run = call_user_fn(
        &prompt.item,
        &prompt.callee,
        &values,
        |output, output_span| quote_spanned!(output_span=> #p::into_prompt_result(#output)),
    );
    if prompt.params.is_empty() {
        return quote! {
            let _ = #request;
            #run
        };
    }
    let mutable = prompt.arguments().next().is_some().then(|| quote!(mut));
    quote! {
        let #mutable #reader = #p::PromptArgumentReader::new(#request);
        #(#reads)*
        let (#(::core::option::Option::Some(#values),)*) = (#(#values,)*) else {
            return #p::ready_prompt(::core::result::Result::Err(#reader.into_error()));
        };
        #run
    }
}
