//! What `#[mcp_resource]`, `#[mcp_prompt]`, `resources![...]` and `prompts![...]` expand to
//! call, re-exported from `__private` (not an API). As for tools: the per-item traits
//! `resources![...]` and `prompts![...]` need at compile time, the duplicate checks they run,
//! and small spanned helpers whose trait bounds report errors at the user's tokens.

use std::borrow::Cow;
use std::future::Future;
use std::marker::PhantomData;

use schemars::JsonSchema;

pub use crate::handler::prompt::PromptArgumentReader;
pub use crate::handler::resource::VariableReader;
pub use crate::handler::{
    CompletionRequest, PromptDefinition, PromptError, PromptHandler, PromptRequest, Resource,
    ResourceDefinition, ResourceError, ResourceHandler, ResourceRead,
};
pub use crate::protocol::uri_template::{TemplatePart, UriTemplate};
pub use crate::protocol::{Completion, GetPromptResult, ResourceContents, Role};
pub use crate::{Prompts, RequestContext, Resources};

use super::tools::{ConstMessage, same_name};
use crate::handler::completion::enum_values;
use crate::handler::{
    BoxFuture, Completer, Injected, IntoPromptResult, IntoReadResult, IntoResourceList,
    PromptArgument, PromptArgumentDefinition, ResourceTemplate, ResourceVariable,
};
use crate::protocol::{Annotations, Icon};

/// What a resource read resolves to.
pub type ReadOutcome = Result<Vec<ResourceContents>, ResourceError>;
/// What a prompt resolves to.
pub type PromptOutcome = Result<GetPromptResult, PromptError>;

// ---------------------------------------------------------------------------------------------
// Resources

/// What `#[mcp_resource]` adds to a function's companion struct besides [`ResourceHandler`]:
/// what `resources![...]` needs to know at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an `#[mcp_resource]` function",
    label = "`resources![...]` lists functions marked `#[mcp_resource]`",
    note = "add `#[mcp_resource(\"uri\")]` to the function, or add a hand-written `ResourceHandler` with `Resources::with`"
)]
pub trait StaticResource: ResourceHandler + Sized {
    /// The URI of a static resource, or the template's shape (`doc://{}`): two resources with
    /// the same route answer the same URIs.
    const ROUTE: &'static str;
    /// The companion struct's only value.
    const INSTANCE: Self;

    /// This resource as an entry of `resources![...]`.
    const ENTRY: ResourceEntry = ResourceEntry {
        route: Self::ROUTE,
        add: add_resource::<Self>,
    };
}

/// One entry of `resources![...]`: [`StaticResource::ENTRY`].
#[derive(Debug, Clone, Copy)]
pub struct ResourceEntry {
    /// [`StaticResource::ROUTE`].
    pub route: &'static str,
    add: fn(Resources) -> Resources,
}

fn add_resource<T: StaticResource>(resources: Resources) -> Resources {
    resources.with(T::INSTANCE)
}

/// The [`Resources`] of `resources![...]`, in order.
pub fn resources_from(entries: &[ResourceEntry]) -> Resources {
    entries
        .iter()
        .fold(Resources::new(), |resources, entry| (entry.add)(resources))
}

/// When the resource at `index` of a `resources![...]` answers the URIs of one listed before
/// it, the compile error naming both; `listed` holds the paths as written.
pub const fn duplicate_route_message(
    entries: &[ResourceEntry],
    listed: &[&str],
    index: usize,
) -> Option<ConstMessage> {
    let mut earlier = 0;
    while earlier < index {
        if same_name(entries[earlier].route, entries[index].route) {
            return Some(
                ConstMessage::new()
                    .push("resources `")
                    .push(listed[earlier])
                    .push("` and `")
                    .push(listed[index])
                    .push("` both answer `")
                    .push(entries[index].route)
                    .push("`: which one reads a URI would be arbitrary; change one URI"),
            );
        }
        earlier += 1;
    }
    None
}

/// `annotations(audience(...), priority = ...)` as the runtime's [`Annotations`].
pub const fn resource_annotations(audience: &'static [Role], priority: Option<f64>) -> Annotations {
    Annotations {
        audience: Cow::Borrowed(audience),
        priority,
        last_modified: None,
    }
}

/// Everything about a resource that the macro knows as literals.
#[derive(Debug, Clone)]
pub struct ResourceSpec {
    /// The resource's name.
    pub name: &'static str,
    /// `title = "..."`.
    pub title: Option<&'static str>,
    /// `description = "..."`, or the doc comment.
    pub description: Option<&'static str>,
    /// `mime_type = "..."`.
    pub mime_type: Option<&'static str>,
    /// `size = N` (static resources only).
    pub size: Option<u64>,
    /// `annotations(...)`.
    pub annotations: Annotations,
    /// `icon = "..."`.
    pub icons: &'static [&'static str],
    /// `meta(...)` and `app(...)`.
    pub meta: crate::protocol::Meta,
}

/// The definition of a static resource at `uri`.
pub fn static_definition(uri: &'static str, spec: ResourceSpec) -> ResourceDefinition {
    ResourceDefinition::Static(Resource {
        uri: Cow::Borrowed(uri),
        name: Cow::Borrowed(spec.name),
        title: spec.title.map(Cow::Borrowed),
        description: spec.description.map(Cow::Borrowed),
        mime_type: spec.mime_type.map(Cow::Borrowed),
        size: spec.size,
        annotations: spec.annotations,
        icons: icons(spec.icons),
        meta: spec.meta,
    })
}

/// The definition of a templated resource.
pub fn template_definition(uri_template: UriTemplate, spec: ResourceSpec) -> ResourceDefinition {
    ResourceDefinition::Template(ResourceTemplate {
        uri_template,
        name: Cow::Borrowed(spec.name),
        title: spec.title.map(Cow::Borrowed),
        description: spec.description.map(Cow::Borrowed),
        mime_type: spec.mime_type.map(Cow::Borrowed),
        annotations: spec.annotations,
        icons: icons(spec.icons),
        meta: spec.meta,
    })
}

/// The icons at `sources` (`icon = "..."`), nothing else said about them.
fn icons(sources: &'static [&'static str]) -> Vec<Icon> {
    sources.iter().map(|src| Icon::new(*src)).collect()
}

/// The parser of a template variable of type `T`; generated with the parameter type's span, so
/// a type that is not [`ResourceVariable`] is reported there.
pub fn variable_parser<T: ResourceVariable>() -> fn(&str) -> Result<T, String> {
    T::parse_variable
}

/// `value` as the resource's contents; generated with the return type's span, so a type that
/// is not [`IntoReadResult`] is reported there.
pub fn into_read_result<R: IntoReadResult>(
    value: R,
    uri: &str,
    mime_type: Option<&str>,
) -> ReadOutcome {
    value.into_read_result(uri, mime_type)
}

/// A read that is already decided (a variable did not parse).
pub fn ready_read(outcome: ReadOutcome) -> BoxFuture<'static, ReadOutcome> {
    Box::pin(std::future::ready(outcome))
}

/// Marks a lister returning its list directly.
#[derive(Debug)]
pub enum Plain {}
/// Marks a lister returning a future of its list.
#[derive(Debug)]
pub enum Async {}

/// A resource's lister: a function without parameters returning the resources a template
/// stands for, plain or `async`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot list resources",
    label = "not a resource lister",
    note = "a lister is a function without parameters returning `Vec<Resource>` or `Result<Vec<Resource>, E>` (with `E: Display`), plain or `async`"
)]
pub trait Lister<Marker>: Send + Sync + 'static {
    /// Start listing.
    fn list(&self) -> BoxFuture<'static, Result<Vec<Resource>, ResourceError>>;
}

impl<F, R> Lister<(Plain, R)> for F
where
    F: Fn() -> R + Send + Sync + 'static,
    R: IntoResourceList,
{
    fn list(&self) -> BoxFuture<'static, Result<Vec<Resource>, ResourceError>> {
        Box::pin(std::future::ready(self().into_resource_list()))
    }
}

impl<F, Fut> Lister<(Async, Fut)> for F
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoResourceList,
{
    fn list(&self) -> BoxFuture<'static, Result<Vec<Resource>, ResourceError>> {
        let listing = self();
        Box::pin(async move { listing.await.into_resource_list() })
    }
}

/// Start `lister`; generated with the lister path's span, so a function that is not a
/// [`Lister`] is reported there.
pub fn list_with<M, L: Lister<M>>(
    lister: L,
) -> BoxFuture<'static, Result<Vec<Resource>, ResourceError>> {
    lister.list()
}

// ---------------------------------------------------------------------------------------------
// Prompts

/// What `#[mcp_prompt]` adds to a function's companion struct besides [`PromptHandler`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an `#[mcp_prompt]` function",
    label = "`prompts![...]` lists functions marked `#[mcp_prompt]`",
    note = "add `#[mcp_prompt]` to the function, or add a hand-written `PromptHandler` with `Prompts::with`"
)]
pub trait StaticPrompt: PromptHandler + Sized {
    /// The prompt's name, as checked by the macro.
    const NAME: &'static str;
    /// The companion struct's only value.
    const INSTANCE: Self;

    /// This prompt as an entry of `prompts![...]`.
    const ENTRY: PromptEntry = PromptEntry {
        name: Self::NAME,
        add: add_prompt::<Self>,
    };
}

/// One entry of `prompts![...]`: [`StaticPrompt::ENTRY`].
#[derive(Debug, Clone, Copy)]
pub struct PromptEntry {
    /// [`StaticPrompt::NAME`].
    pub name: &'static str,
    add: fn(Prompts) -> Prompts,
}

fn add_prompt<T: StaticPrompt>(prompts: Prompts) -> Prompts {
    prompts.with(T::INSTANCE)
}

/// The [`Prompts`] of `prompts![...]`, in order.
pub fn prompts_from(entries: &[PromptEntry]) -> Prompts {
    entries
        .iter()
        .fold(Prompts::new(), |prompts, entry| (entry.add)(prompts))
}

/// When the prompt at `index` of a `prompts![...]` has the name of one listed before it, the
/// compile error naming both.
pub const fn duplicate_prompt_message(
    entries: &[PromptEntry],
    listed: &[&str],
    index: usize,
) -> Option<ConstMessage> {
    let mut earlier = 0;
    while earlier < index {
        if same_name(entries[earlier].name, entries[index].name) {
            return Some(
                ConstMessage::new()
                    .push("prompts `")
                    .push(listed[earlier])
                    .push("` and `")
                    .push(listed[index])
                    .push("` are both named `")
                    .push(entries[index].name)
                    .push(
                        "`; every prompt needs its own name: set one with `#[mcp_prompt(name = \"...\")]`",
                    ),
            );
        }
        earlier += 1;
    }
    None
}

/// One argument of a prompt, as the macro knows it.
#[derive(Debug, Clone, Copy)]
pub struct PromptArgumentSpec {
    /// Its name on the wire.
    pub name: &'static str,
    /// Its description.
    pub description: Option<&'static str>,
    /// Whether the client must pass it.
    pub required: bool,
}

/// Everything about a prompt that the macro knows as literals.
#[derive(Debug, Clone)]
pub struct PromptSpec {
    /// The prompt's name.
    pub name: &'static str,
    /// `title = "..."`.
    pub title: Option<&'static str>,
    /// `description = "..."`, or the doc comment.
    pub description: Option<&'static str>,
    /// The arguments, in order.
    pub arguments: &'static [PromptArgumentSpec],
    /// `icon = "..."`.
    pub icons: &'static [&'static str],
    /// `meta(...)`.
    pub meta: crate::protocol::Meta,
}

/// The prompt's definition.
pub fn prompt_definition(spec: PromptSpec) -> PromptDefinition {
    PromptDefinition {
        name: Cow::Borrowed(spec.name),
        title: spec.title.map(Cow::Borrowed),
        description: spec.description.map(Cow::Borrowed),
        arguments: spec
            .arguments
            .iter()
            .map(|argument| PromptArgumentDefinition {
                name: Cow::Borrowed(argument.name),
                title: None,
                description: argument.description.map(Cow::Borrowed),
                required: argument.required,
            })
            .collect(),
        icons: icons(spec.icons),
        meta: spec.meta,
    }
}

/// The parser of a prompt argument of type `T`; generated with the parameter type's span.
pub fn argument_parser<T: PromptArgument>() -> fn(&str) -> Result<T, String> {
    T::parse_argument
}

/// `value` as the prompt's result; generated with the return type's span.
pub fn into_prompt_result<R: IntoPromptResult>(value: R) -> PromptOutcome {
    value.into_prompt_result()
}

/// A prompt that is already decided (an argument was missing or did not parse).
pub fn ready_prompt(outcome: PromptOutcome) -> BoxFuture<'static, PromptOutcome> {
    Box::pin(std::future::ready(outcome))
}

// ---------------------------------------------------------------------------------------------
// Shared

/// An injected parameter's value; generated with the parameter type's span, so a type named
/// like an injected one but not one is reported there.
pub fn inject<T: Injected>(context: &RequestContext) -> T {
    T::inject(context)
}

/// Run a plain (not `async`) tool, resource or prompt function on a thread of the runtime's
/// (`handler::blocking`), so it cannot stall the server nor, stuck, keep the process from
/// exiting; a panic in it is resumed here, where the dispatcher catches it.
pub async fn run_blocking<T, F>(function: F) -> T
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    match crate::handler::blocking::run(function).await {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// Run `completer` for `request`; generated with the completer path's span, so a function
/// that is not a [`Completer`] is reported there.
pub fn complete_with<M, C: Completer<M>>(completer: C, request: &CompletionRequest) -> Completion {
    completer.complete(&request.value, &request.context)
}

/// The variants of `T` as completions of the typed text (a case-insensitive prefix), when
/// `T` is an enum of unit variants; `None` otherwise.
pub fn complete_enum(
    values: Option<Vec<String>>,
    request: &CompletionRequest,
) -> Option<Completion> {
    let prefix = request.value.to_lowercase();
    values.map(|values| {
        Completion::new(
            values
                .into_iter()
                .filter(|value| value.to_lowercase().starts_with(&prefix)),
        )
    })
}

/// Asks whether a parameter type `T` is an enum of unit variants, without requiring
/// `T: JsonSchema`: `(&EnumProbe::<T>::NEW).enum_values()` resolves to [`ViaJsonSchema`] when
/// `T: JsonSchema` and falls back to [`ViaNothing`] otherwise (method resolution tries the
/// receiver as written before borrowing it again).
#[derive(Debug)]
pub struct EnumProbe<T>(PhantomData<fn() -> T>);

impl<T> EnumProbe<T> {
    /// The probe of `T`.
    pub const NEW: Self = EnumProbe(PhantomData);
}

/// The probe's answer for `T: JsonSchema`: its unit variants, if it is such an enum.
pub trait ViaJsonSchema {
    /// `T`'s unit variants as serde names them.
    fn enum_values(&self) -> Option<Vec<String>>;
}

impl<T: JsonSchema> ViaJsonSchema for EnumProbe<T> {
    fn enum_values(&self) -> Option<Vec<String>> {
        enum_values::<T>()
    }
}

/// The probe's answer for any other type: nothing.
pub trait ViaNothing {
    /// Nothing.
    fn enum_values(&self) -> Option<Vec<String>>;
}

impl<T> ViaNothing for &EnumProbe<T> {
    fn enum_values(&self) -> Option<Vec<String>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Language {
        Rust,
        Python,
    }

    struct Opaque;

    // The borrow is what picks `ViaNothing` when `ViaJsonSchema` does not apply.
    #[allow(clippy::needless_borrow)]
    #[test]
    fn the_probe_finds_unit_enums_and_ignores_other_types() {
        let language = (&EnumProbe::<Language>::NEW).enum_values();
        assert_eq!(language.unwrap(), ["rust", "python"]);
        assert_eq!((&EnumProbe::<Opaque>::NEW).enum_values(), None);
        assert_eq!((&EnumProbe::<u8>::NEW).enum_values(), None);
    }

    #[test]
    fn duplicate_routes_are_named() {
        const ENTRIES: &[ResourceEntry] = &[
            ResourceEntry {
                route: "doc://{}",
                add: |r| r,
            },
            ResourceEntry {
                route: "doc://{}",
                add: |r| r,
            },
        ];
        let message = duplicate_route_message(ENTRIES, &["a", "b"], 1).unwrap();
        assert!(
            message
                .as_str()
                .contains("`a` and `b` both answer `doc://{}`")
        );
        assert!(duplicate_route_message(ENTRIES, &["a", "b"], 0).is_none());
    }
}
