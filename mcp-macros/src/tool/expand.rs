//! A validated tool function -> the function as written, its companion struct, and the
//! runtime traits implemented for that struct.
//!
//! The generated code only lists facts (names, descriptions, which parameter is optional) and
//! calls the runtime: reading arguments, building schemas and converting results are runtime
//! functions. Each use of a parameter's or the return type's trait is spanned at that type, so a
//! type error is reported on the user's tokens.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ReturnType, Type};

use super::attr::AnnotationsAttr;
use super::check::{TaskSupport, ValidParam, ValidTool};
use crate::shared::attr::DefaultAttr;
use crate::shared::expand::{
    arg_locals, call_user_fn, companion, default_fn, default_fn_ident, local, optional, scopes_fn,
};
use crate::shared::meta::{expand_app_tool, expand_meta};
use crate::shared::paths;
use crate::shared::rules::Presence;

/// Everything `#[mcp_tool]` expands to for the free function of `tool`.
pub fn tool(tool: &ValidTool) -> TokenStream {
    let item = &tool.item;
    let ident = tool.fn_ident();
    let default_fns = default_fns(tool);
    let defaults = (!default_fns.is_empty()).then(|| quote!(impl #ident { #(#default_fns)* }));
    let impls = companion_impls(ident, &tool.name, Some(tool));
    let companion = companion(&item.vis, ident, quote!(#defaults #impls));
    quote! {
        #item

        #companion
    }
}

/// `StaticTool` and `ToolHandler` for the companion struct `ident` of the tool `name`: those of
/// `tool`, or with `None` the fallback's, whose bodies never run (the crate does not compile).
pub fn companion_impls(ident: &Ident, name: &str, tool: Option<&ValidTool>) -> TokenStream {
    let p = paths::private();
    let (definition, handler) = match tool {
        Some(tool) => (
            definition(tool),
            handler_impl(
                ident,
                None,
                &quote!(#p::definition_or_panic::<Self>()),
                &call_pattern(tool),
                &call(tool),
                Some(extras(tool)),
            ),
        ),
        None => {
            let unreachable = quote!(::core::unreachable!());
            let call = call_param_ident();
            let handler = handler_impl(
                ident,
                None,
                &unreachable,
                &quote!(#call),
                &unreachable,
                None,
            );
            (unreachable, handler)
        }
    };
    let checked_definition = checked_definition(&definition);
    quote! {
        impl #p::StaticTool for #ident {
            const NAME: &'static str = #name;
            const INSTANCE: Self = #ident {};

            #checked_definition
        }

        #handler
    }
}

/// The tool of a method of `#[mcp_server] impl Service`: the struct `handler`, holding the
/// `Arc<Service>` each call borrows `&self` from, and its impls; `bound` is the where clause
/// that keeps a service that cannot be shared one error, at its type.
pub fn method_tool(
    tool: &ValidTool,
    handler: &Ident,
    self_ty: &Type,
    bound: &TokenStream,
) -> TokenStream {
    let p = paths::private();
    let default_fns = default_fns(tool);
    let checked_definition = checked_definition(&definition(tool));
    let handler_impl = handler_impl(
        handler,
        Some(bound),
        &quote!(#p::unwrap_definition(Self::checked_definition())),
        &call_pattern(tool),
        &call(tool),
        Some(extras(tool)),
    );
    quote! {
        #[allow(non_camel_case_types)]
        struct #handler(::std::sync::Arc<#self_ty>);

        impl #handler {
            #(#default_fns)*

            #checked_definition
        }

        #handler_impl
    }
}

/// `fn checked_definition()`, of `StaticTool` or of a method's handler, returning `definition`.
fn checked_definition(definition: &TokenStream) -> TokenStream {
    let p = paths::private();
    quote! {
        fn checked_definition(
        ) -> &'static ::core::result::Result<#p::ToolDefinition, #p::SchemaError> {
            #definition
        }
    }
}

/// The methods of a tool's handler past `definition` and `call`: `layers` and `scopes` when
/// it has them, and `reaches_context`.
fn extras(tool: &ValidTool) -> TokenStream {
    let (layers, scopes, reaches_context) =
        (layers(tool), scopes_fn(&tool.scopes), reaches_context(tool));
    quote!(#layers #scopes #reaches_context)
}

/// `fn reaches_context`: whether any parameter's type can reach the request's context (a
/// `RequestContext` can).
/// Known from the types alone, so it folds to a constant.
fn reaches_context(tool: &ValidTool) -> TokenStream {
    let params = tool.params.iter().map(param_fns);
    quote! {
        fn reaches_context(&self) -> bool {
            false #(|| #params.reaches_context)*
        }
    }
}

/// `fn layers` of a tool with `layer = ...` options: each expression is spanned where it is
/// written, so one that is no layer is reported there.
fn layers(tool: &ValidTool) -> Option<TokenStream> {
    let p = paths::private();
    let (first, rest) = tool.layers.split_first()?;
    let first = quote_spanned!(first.span()=> #p::ToolLayers::new(#first));
    let rest = rest
        .iter()
        .map(|layer| quote_spanned!(layer.span()=> .then(#layer)));
    Some(quote! {
        fn layers(&self) -> ::core::option::Option<#p::ToolLayers> {
            ::core::option::Option::Some(#first #(#rest)*)
        }
    })
}

/// `impl ToolHandler for #target`, with the body of `definition`, `call` and `call_output`
/// (both through one generic method whose body is `call`, its parameter bound by
/// `call_param`: each of the function's errors is then reported once), and the [`extras`]
/// (`None` for the fallback, whose bodies never run).
fn handler_impl(
    target: &Ident,
    bound: Option<&TokenStream>,
    definition: &TokenStream,
    call_param: &TokenStream,
    call: &TokenStream,
    extras: Option<TokenStream>,
) -> TokenStream {
    let p = paths::private();
    let ending = ending_param();
    let call_with = local("__mcp_call_with");
    let call_value = call_param_ident();
    quote! {
        impl #target #bound {
            fn #call_with<#ending: #p::Ending>(
                &self,
                #call_param: #p::ToolCall,
            ) -> #p::BoxFuture<'static, <#ending as #p::Ending>::Output> {
                #call
            }
        }

        impl #p::ToolHandler for #target #bound {
            fn definition(&self) -> #p::ToolDefinition {
                #definition
            }

            fn call(
                &self,
                #call_value: #p::ToolCall,
            ) -> #p::BoxFuture<'static, #p::CallToolResult> {
                self.#call_with::<#p::AsResult>(#call_value)
            }

            fn call_output(&self, #call_value: #p::ToolCall) -> #p::ToolRun {
                #p::ToolRun::Output(self.#call_with::<#p::AsOutput>(#call_value))
            }

            fn reads_arguments_text(&self) -> bool {
                true
            }

            #extras
        }
    }
}

/// The type parameter of the generic method that `call` and `call_output` go through: how the
/// function's output ends (the runtime's `__private::Ending`).
fn ending_param() -> Ident {
    local("__McpEnding")
}

/// The `fn __mcp_default_N` of every defaulted parameter.
fn default_fns(tool: &ValidTool) -> Vec<TokenStream> {
    tool.params
        .iter()
        .enumerate()
        .filter_map(|(index, param)| match &param.presence {
            Presence::Default(default) => Some(default_fn(index, &param.value_ty, default)),
            Presence::Required | Presence::Optional => None,
        })
        .collect()
}

/// `::mcp_runtime::__private::param::<T>()`, spanned at `T`: the one place the parameter's type
/// meets `ToolParam` (rustc reports the identical uses in `definition` and `call` once).
fn param_fns(param: &ValidParam) -> TokenStream {
    let p = paths::private();
    let ty = &param.value_ty;
    quote_spanned!(ty.span()=> #p::param::<#ty>())
}

/// The body of `StaticTool::checked_definition`: build once, keep forever.
fn definition(tool: &ValidTool) -> TokenStream {
    let p = paths::private();
    let name = &tool.name;
    let title = optional(tool.title.as_deref());
    let description = optional(tool.description.as_deref());
    let annotations = annotations(&tool.annotations);
    let recursive = tool.recursive;
    let output_schema = output_schema(tool);
    let icons = tool.icon.iter();
    let task_support = task_support(tool.task_support);
    let meta = expand_app_tool(
        expand_meta(&tool.meta),
        tool.app.as_ref().map(|app| app.value.as_str()),
        tool.visibility.as_deref(),
    );
    let schema = local("__mcp_schema");
    let params = tool.params.iter().enumerate().map(|(index, param)| {
        let fns = param_fns(param);
        let wire_name = &param.wire_name;
        let description = optional(param.description.as_deref());
        let requirement = match &param.presence {
            Presence::Required => quote!(#p::Requirement::Required),
            Presence::Optional => quote!(#p::Requirement::Optional),
            Presence::Default(default) => {
                let span = match default {
                    DefaultAttr::Value(expr) => expr.span(),
                    DefaultAttr::TypeDefault(span) => *span,
                };
                // Located at the default, so a type that is not `Serialize` is reported there.
                let mut default_fn = default_fn_ident(index);
                default_fn.set_span(default_fn.span().located_at(span));
                quote_spanned!(span=> #p::default_requirement(&Self::#default_fn()))
            }
        };
        quote! {
            #schema.param(#fns, #p::ArgumentSpec {
                name: #wire_name,
                description: #description,
                requirement: #requirement,
            });
        }
    });
    quote! {
        static __MCP_DEFINITION: #p::OnceLock<
            ::core::result::Result<#p::ToolDefinition, #p::SchemaError>,
        > = #p::OnceLock::new();
        __MCP_DEFINITION.get_or_init(|| {
            let mut #schema = #p::InputSchema::new();
            #(#params)*
            #p::definition(
                #p::ToolSpec {
                    name: #name,
                    title: #title,
                    description: #description,
                    annotations: #annotations,
                    recursive: #recursive,
                    output_schema: #output_schema,
                    icons: &[#(#icons),*],
                    task_support: #task_support,
                    meta: #meta,
                },
                #schema,
            )
        })
    }
}

/// The return type's output schema (`Json<T>` has one), asked without requiring the type to be
/// a tool result: a type that is not is reported once, where the result is converted.
fn output_schema(tool: &ValidTool) -> TokenStream {
    let p = paths::private();
    let ty = match &tool.item.sig.output {
        ReturnType::Type(_, ty) => ty,
        ReturnType::Default => return quote!(::core::option::Option::None),
    };
    // `impl Trait` cannot name a type argument; such a return has no schema.
    if quote!(#ty)
        .to_string()
        .split_whitespace()
        .any(|word| word == "impl")
    {
        return quote!(::core::option::Option::None);
    }
    let schema = local("__mcp_output_schema");
    quote! {{
        #[allow(unused_imports)]
        use #p::{ViaIntoToolResult as _, ViaNoResult as _};
        // The borrow picks `ViaNoResult` when `ViaIntoToolResult` does not apply.
        #[allow(clippy::needless_borrow)]
        let #schema = (&#p::OutputProbe::<#ty>::NEW).output_schema();
        #schema
    }}
}

/// How `ToolHandler::call` binds the call: mutable when arguments are read from it in place
/// (a `ToolCall` is large, and moving it into the reader would copy it).
fn call_pattern(tool: &ValidTool) -> TokenStream {
    let call = call_param_ident();
    let mutable = (!tool.params.is_empty()).then(|| quote!(mut));
    quote!(#mutable #call)
}

/// The body of the generic method behind `ToolHandler::call` and `call_output`: read every
/// argument (gathering every problem), then run the function and end what it returns as the
/// method's type parameter says.
fn call(tool: &ValidTool) -> TokenStream {
    let p = paths::private();
    let call = call_param_ident();
    let reader = local("__mcp_reader");
    let ending = ending_param();
    let values = arg_locals(tool.params.len());
    let run = run(tool, &values);
    if tool.params.is_empty() {
        return quote! {
            let _ = #call;
            #run
        };
    }
    let reads = tool
        .params
        .iter()
        .zip(&values)
        .enumerate()
        .map(|(index, (param, value))| {
            let fns = param_fns(param);
            let wire_name = &param.wire_name;
            let read = match &param.presence {
                Presence::Required => quote!(#reader.required(#fns, #wire_name)),
                Presence::Optional => quote!(#reader.optional(#fns, #wire_name)),
                Presence::Default(_) => {
                    let default_fn = default_fn_ident(index);
                    quote!(#reader.or_default(#fns, #wire_name, Self::#default_fn))
                }
            };
            quote!(let #value = #read;)
        });
    quote! {
        let mut #reader = #p::ArgumentReader::new(&mut #call);
        #(#reads)*
        let (#(::core::option::Option::Some(#values),)*) = (#(#values,)*) else {
            return #p::ready_as::<#ending>(#reader.into_error_result());
        };
        #run
    }
}

fn call_param_ident() -> Ident {
    local("__mcp_call")
}

/// Call the function with the values read, on the blocking pool when it is not `async`.
fn run(tool: &ValidTool, values: &[Ident]) -> TokenStream {
    let p = paths::private();
    let ending = ending_param();
    call_user_fn(
        &tool.item,
        &tool.callee,
        values,
        |output, output_span| quote_spanned!(output_span=> #p::into_tool_result::<#ending, _>(#output)),
    )
}

fn annotations(hints: &AnnotationsAttr) -> TokenStream {
    let p = paths::private();
    let hints = [
        hints.read_only,
        hints.destructive,
        hints.idempotent,
        hints.open_world,
    ]
    .map(optional);
    quote!(#p::annotations(#(#hints),*))
}

fn task_support(support: TaskSupport) -> TokenStream {
    let p = paths::private();
    match support {
        TaskSupport::Forbidden => quote!(#p::TaskSupport::Forbidden),
        // Through `with_tasks`: a runtime built without its `tasks` feature refuses these.
        TaskSupport::Optional => quote!(#p::with_tasks(#p::TaskSupport::Optional)),
        TaskSupport::Required => quote!(#p::with_tasks(#p::TaskSupport::Required)),
    }
}
