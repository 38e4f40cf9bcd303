//! The one boxed future type of the crate: what handlers, replay guards and the dispatcher's
//! pending answers return.

use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future, as tool calls return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
