//! The tools a server offers, as built by `tools![...]` or by hand.

use std::sync::Arc;

use crate::handler::ToolHandler;

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
