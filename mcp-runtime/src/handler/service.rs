//! A type users already have as a server: `#[mcp_server]` on its `impl` block implements
//! [`McpService`], and [`Server::service`](crate::Server::service) offers what it serves.

use std::sync::Arc;

use crate::{Prompts, Resources, Tools};

/// A type whose methods are tools, resources and prompts, each call borrowing one shared value
/// as `&self`. `#[mcp_server]` on the type's `impl` block implements it; give a value to
/// [`Server::service`](crate::Server::service).
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// use mcp_runtime::{handler::McpService, Server, mcp_server, mcp_tool, server_info};
///
/// #[derive(Default)]
/// struct Counter {
///     count: AtomicU64,
/// }
///
/// #[mcp_server]
/// impl Counter {
///     /// Count one more and say how many so far.
///     #[mcp_tool]
///     async fn bump(&self) -> u64 {
///         self.count.fetch_add(1, Ordering::Relaxed) + 1
///     }
/// }
///
/// let counter = Arc::new(Counter::default());
/// assert_eq!(counter.tools().handlers().len(), 1);
/// let server = Server::new(server_info!()).service(counter);
/// # drop(server);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an MCP service",
    label = "its `impl` block has no `#[mcp_server]`",
    note = "put `#[mcp_server]` on the `impl` block whose methods are marked `#[mcp_tool]`, `#[mcp_resource]` or `#[mcp_prompt]`"
)]
pub trait McpService: Send + Sync + 'static {
    /// `tools` with this service's tools added at the end, each holding a clone of `self`.
    fn add_tools(self: &Arc<Self>, tools: Tools) -> Tools;

    /// `resources` with this service's resources added at the end.
    fn add_resources(self: &Arc<Self>, resources: Resources) -> Resources;

    /// `prompts` with this service's prompts added at the end.
    fn add_prompts(self: &Arc<Self>, prompts: Prompts) -> Prompts;

    /// This service's tools.
    fn tools(self: &Arc<Self>) -> Tools {
        self.add_tools(Tools::new())
    }

    /// This service's resources.
    fn resources(self: &Arc<Self>) -> Resources {
        self.add_resources(Resources::new())
    }

    /// This service's prompts.
    fn prompts(self: &Arc<Self>) -> Prompts {
        self.add_prompts(Prompts::new())
    }
}

/// A service as [`Server::service`](crate::Server::service) takes it: the value, or an `Arc` of
/// it (to keep a handle on the state the calls share).
pub trait IntoService {
    /// The service type.
    type Service: McpService;

    /// The value in an `Arc`.
    fn into_service(self) -> Arc<Self::Service>;
}

impl<S: McpService> IntoService for S {
    type Service = S;

    fn into_service(self) -> Arc<S> {
        Arc::new(self)
    }
}

impl<S: McpService> IntoService for Arc<S> {
    type Service = S;

    fn into_service(self) -> Arc<S> {
        self
    }
}
