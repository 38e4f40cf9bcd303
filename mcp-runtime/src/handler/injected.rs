//! Values a resource or prompt function can take from the request rather than from the client's
//! arguments.

use crate::context::{CancellationToken, RequestContext};

/// A parameter filled from the request itself: [`RequestContext`], [`CancellationToken`] or
/// the server's shared [`State<T>`](crate::State).
///
/// `#[mcp_resource]` and `#[mcp_prompt]` treat a parameter of these types (by name) as
/// injected; every other parameter is a template variable or a prompt argument.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a value a request can inject",
    label = "only `RequestContext`, `CancellationToken` and `State<T>` are injected",
    note = "the types `mcp_runtime::RequestContext` and `mcp_runtime::CancellationToken` are injected; another type named like them is not"
)]
pub trait Injected: Sized + Send + 'static {
    /// Take the value from the request's context.
    fn inject(context: &RequestContext) -> Self;
}

impl Injected for RequestContext {
    fn inject(context: &RequestContext) -> Self {
        context.clone()
    }
}

impl Injected for CancellationToken {
    fn inject(context: &RequestContext) -> Self {
        context.cancellation.clone()
    }
}
