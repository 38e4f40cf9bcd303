//! The sets of tools, resources and prompts a server is given: `tools![...]`, `resources![...]`,
//! `prompts![...]`, or hand-written handlers added one by one.

use std::fmt;
use std::sync::Arc;

use super::{PromptHandler, ResourceDefinition, ResourceHandler, ToolHandler};

/// An ordered set of tools. `tools![a, b]` builds one from `#[mcp_tool]` functions; hand-written
/// [`ToolHandler`]s can be added with [`Tools::with`].
#[derive(Clone, Default)]
pub struct Tools {
    handlers: Vec<Arc<dyn ToolHandler>>,
}

impl Tools {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// This set with `handler` added at the end.
    pub fn with(mut self, handler: impl ToolHandler) -> Self {
        self.handlers.push(Arc::new(handler));
        self
    }

    pub(crate) fn from_handlers(handlers: Vec<Arc<dyn ToolHandler>>) -> Self {
        Self { handlers }
    }

    /// The handlers, in the order they were added.
    pub fn handlers(&self) -> &[Arc<dyn ToolHandler>] {
        &self.handlers
    }
}

impl std::fmt::Debug for Tools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.handlers.iter().map(|h| h.definition().name))
            .finish()
    }
}

/// An ordered set of resources. `resources![a, b]` builds one from `#[mcp_resource]` functions;
/// hand-written [`ResourceHandler`]s can be added with [`Resources::with`].
///
/// # Which resource answers a read
///
/// A `resources/read` goes to exactly one resource, chosen by this rule:
///
/// 1. a static resource whose URI is exactly the one asked for;
/// 2. otherwise, among the templates that match the URI, the most specific:
///    1. the one with the most literal characters (text outside `{...}`);
///    2. on a tie, the one with fewer reserved variables (`{+name}`, which match more);
///    3. on a tie still, the one listed first.
///
/// So with `file:///{+path}` and `file:///src/{name}.rs`, `file:///src/main.rs` is read by the
/// second and `file:///README.md` by the first. Two static resources with one URI, or two
/// templates that match the same URIs (the same text once variable names are left out), are
/// refused when the server starts: which one answers would be arbitrary.
#[derive(Clone, Default)]
pub struct Resources {
    handlers: Vec<Arc<dyn ResourceHandler>>,
}

impl Resources {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// This set with `handler` added at the end.
    pub fn with(mut self, handler: impl ResourceHandler) -> Self {
        self.handlers.push(Arc::new(handler));
        self
    }

    pub(crate) fn from_handlers(handlers: Vec<Arc<dyn ResourceHandler>>) -> Self {
        Self { handlers }
    }

    /// The handlers, in the order they were added.
    pub fn handlers(&self) -> &[Arc<dyn ResourceHandler>] {
        &self.handlers
    }
}

impl fmt::Debug for Resources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.handlers.iter().map(|h| route_text(&h.definition())))
            .finish()
    }
}

/// The URI of a static resource, the template text of a template: what a resource is removed
/// by, and named by in conflicts.
pub(crate) fn route_text(definition: &ResourceDefinition) -> String {
    match definition {
        ResourceDefinition::Static(resource) => resource.uri.to_string(),
        ResourceDefinition::Template(template) => template.uri_template.to_string(),
    }
}

/// An ordered set of prompts. `prompts![a, b]` builds one from `#[mcp_prompt]` functions;
/// hand-written [`PromptHandler`]s can be added with [`Prompts::with`].
#[derive(Clone, Default)]
pub struct Prompts {
    handlers: Vec<Arc<dyn PromptHandler>>,
}

impl Prompts {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// This set with `handler` added at the end.
    pub fn with(mut self, handler: impl PromptHandler) -> Self {
        self.handlers.push(Arc::new(handler));
        self
    }

    pub(crate) fn from_handlers(handlers: Vec<Arc<dyn PromptHandler>>) -> Self {
        Self { handlers }
    }

    /// The handlers, in the order they were added.
    pub fn handlers(&self) -> &[Arc<dyn PromptHandler>] {
        &self.handlers
    }
}

impl fmt::Debug for Prompts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.handlers.iter().map(|h| h.definition().name))
            .finish()
    }
}
