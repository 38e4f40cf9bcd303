//! The prompts a server offers, as built by `prompts![...]` or by hand.

use std::fmt;
use std::sync::Arc;

use crate::handler::PromptHandler;

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
