//! A validated resource -> the function as written, its companion struct, and the runtime
//! traits implemented for it. The generated code lists facts (the URI's parts, names, which
//! parameter is which variable) and calls the runtime; each use of a user's type or path is
//! spanned there, so a type error is reported on the user's tokens.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Type};

use super::check::{ResourceParam, ValidResource, ValidUri};
use super::uri_template::PartKind;
use crate::shared::expand::{
    arg_locals, call_user_fn, companion, completions, local, optional, scopes_fn,
};
use crate::shared::meta::{expand_app_page, expand_meta};
use crate::shared::paths;

/// Everything `#[mcp_resource]` expands to for the free function of `resource`.
pub fn resource(resource: &ValidResource) -> TokenStream {
    let item = &resource.item;
    let ident = resource.fn_ident();
    let impls = companion_impls(ident, &resource.uri.route(), Some(resource));
    let companion = companion(&item.vis, ident, impls);
    quote! {
        #item

        #companion
    }
}

/// `StaticResource` and `ResourceHandler` for the companion struct `ident` of the resource
/// answering `route`: those of `resource`, or with `None` the fallback's, whose bodies never run
/// (the crate does not compile).
pub fn companion_impls(
    ident: &Ident,
    route: &str,
    resource: Option<&ValidResource>,
) -> TokenStream {
    let p = paths::private();
    let handler = handler_impl(ident, None, resource);
    quote! {
        impl #p::StaticResource for #ident {
            const ROUTE: &'static str = #route;
            const INSTANCE: Self = #ident {};
        }

        #handler
    }
}

/// The resource of a method of `#[mcp_server] impl Service`: the struct `handler`, holding the
/// `Arc<Service>`, and its impl; `bound` as for a tool.
pub fn method_resource(
    resource: &ValidResource,
    handler: &Ident,
    self_ty: &Type,
    bound: &TokenStream,
) -> TokenStream {
    let handler_impl = handler_impl(handler, Some(bound), Some(resource));
    quote! {
        #[allow(non_camel_case_types)]
        struct #handler(::std::sync::Arc<#self_ty>);

        #handler_impl
    }
}

/// `impl ResourceHandler for #target`: that of `resource`, or with `None` one whose required
/// methods never run and whose others are the trait's.
fn handler_impl(
    target: &Ident,
    bound: Option<&TokenStream>,
    resource: Option<&ValidResource>,
) -> TokenStream {
    let p = paths::private();
    let scopes = resource.and_then(|resource| scopes_fn(&resource.scopes));
    let (definition, read, list, completions) = match resource {
        Some(resource) => (
            definition(resource),
            read(resource),
            list(resource),
            Some(completions(
                &resource.completers,
                resource.params.iter().filter_map(|param| match param {
                    ResourceParam::Variable { name, ty } => Some((name.as_str(), ty)),
                    ResourceParam::Injected { .. } => None,
                }),
            )),
        ),
        None => {
            let unreachable = quote!(::core::unreachable!());
            (unreachable.clone(), unreachable, None, None)
        }
    };
    let read_param = read_param();
    quote! {
        impl #p::ResourceHandler for #target #bound {
            fn definition(&self) -> #p::ResourceDefinition {
                #definition
            }

            fn read(
                &self,
                #read_param: #p::ResourceRead,
            ) -> #p::BoxFuture<'static, #p::ReadOutcome> {
                #read
            }

            #list

            #completions

            #scopes
        }
    }
}

/// The parameter of `ResourceHandler::read`.
fn read_param() -> Ident {
    local("__mcp_read")
}

fn definition(resource: &ValidResource) -> TokenStream {
    let p = paths::private();
    let name = &resource.name;
    let title = optional(resource.title.as_deref());
    let description = optional(resource.description.as_deref());
    let mime_type = optional(resource.mime_type.as_deref());
    let size = optional(resource.size);
    let audience = resource.audience.iter().map(|role| {
        let role = Ident::new(role, Span::call_site());
        quote!(#p::Role::#role)
    });
    let priority = optional(resource.priority);
    let icons = resource.icon.iter();
    let meta = expand_meta(&resource.meta);
    let meta = match &resource.app {
        Some(page) => expand_app_page(meta, page),
        None => meta,
    };
    let spec = quote! {
        #p::ResourceSpec {
            name: #name,
            title: #title,
            description: #description,
            mime_type: #mime_type,
            size: #size,
            annotations: #p::resource_annotations(&[#(#audience),*], #priority),
            icons: &[#(#icons),*],
            meta: #meta,
        }
    };
    match &resource.uri {
        ValidUri::Static(uri) => quote!(#p::static_definition(#uri, #spec)),
        ValidUri::Template { text, parts } => {
            let parts = parts.iter().map(|part| match &part.kind {
                PartKind::Literal(text) => quote!(#p::TemplatePart::literal(#text)),
                PartKind::Variable { name, reserved } => {
                    quote!(#p::TemplatePart::variable(#name, #reserved))
                }
            });
            quote! {
                const __MCP_PARTS: &[#p::TemplatePart] = &[#(#parts),*];
                #p::template_definition(#p::UriTemplate::from_static(#text, __MCP_PARTS), #spec)
            }
        }
    }
}

/// The body of `ResourceHandler::read`: parse every variable (gathering every problem), then
/// run the function and convert what it returns.
fn read(resource: &ValidResource) -> TokenStream {
    let p = paths::private();
    let read = read_param();
    let reader = local("__mcp_reader");
    let uri = local("__mcp_uri");
    let values = arg_locals(resource.params.len());
    let reads = resource
        .params
        .iter()
        .zip(&values)
        .map(|(param, value)| match param {
            ResourceParam::Variable { name, ty } => {
                let parser = quote_spanned!(ty.span()=> #p::variable_parser::<#ty>());
                quote!(let #value = #reader.variable(#parser, #name);)
            }
            ResourceParam::Injected { ty } => {
                let inject = quote_spanned!(ty.span()=> #p::inject::<#ty>(#reader.context()));
                quote!(let #value = ::core::option::Option::Some(#inject);)
            }
        });
    let mime_type = optional(resource.mime_type.as_deref());
    let run = call_user_fn(
        &resource.item,
        &resource.callee,
        &values,
        |output, output_span| quote_spanned!(output_span=> #p::into_read_result(#output, &#uri, #mime_type)),
    );
    if resource.params.is_empty() {
        return quote! {
            let #reader = #p::VariableReader::new(#read);
            let #uri = ::std::string::ToString::to_string(#reader.uri());
            #run
        };
    }
    let mutable = resource
        .params
        .iter()
        .any(|param| matches!(param, ResourceParam::Variable { .. }))
        .then(|| quote!(mut));
    quote! {
        let #mutable #reader = #p::VariableReader::new(#read);
        #(#reads)*
        let (#(::core::option::Option::Some(#values),)*) = (#(#values,)*) else {
            return #p::ready_read(::core::result::Result::Err(#reader.into_error()));
        };
        let #uri = ::std::string::ToString::to_string(#reader.uri());
        #run
    }
}

/// `ResourceHandler::list`, when the resource has a lister.
fn list(resource: &ValidResource) -> Option<TokenStream> {
    let p = paths::private();
    let lister = resource.list.as_ref()?;
    let start = quote_spanned!(lister.span()=> #p::list_with(#lister));
    Some(quote! {
        fn list(
            &self,
            _: #p::RequestContext,
        ) -> ::core::option::Option<
            #p::BoxFuture<
                'static,
                ::core::result::Result<::std::vec::Vec<#p::Resource>, #p::ResourceError>,
            >,
        > {
            ::core::option::Option::Some(#start)
        }
    })
}
