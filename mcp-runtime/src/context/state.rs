//! Shared state: values given to the server once ([`Server::with_state`]) and handed to every
//! handler that takes a [`State<T>`] parameter.
//!
//! [`Server::with_state`]: crate::Server::with_state

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A value shared by every call, injected into a handler parameter of type `State<T>`; the
/// server holds it in an [`Arc`], so this is a cheap handle that dereferences to `T`.
///
/// Give the server one value per type with [`Server::with_state`](crate::Server::with_state);
/// mutate through types that allow it (`AtomicU64`, `Mutex<T>`, a connection pool...). No
/// globals needed.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// use mcp_runtime::{Server, State, mcp_tool, server_info, tools};
///
/// #[derive(Default)]
/// struct Calls(AtomicU64);
///
/// /// Add two numbers.
/// #[mcp_tool]
/// fn add(a: f64, b: f64, calls: State<Calls>) -> f64 {
///     calls.0.fetch_add(1, Ordering::Relaxed);
///     a + b
/// }
///
/// let server = Server::new(server_info!())
///     .with_state(Calls::default())
///     .tools(tools![add]);
/// # drop(server);
/// ```
///
/// A handler asking for a state the server was not given is a mistake in the server, not the
/// client's: the call fails (a tool answers with an error result naming the missing type and
/// the fix; a resource or prompt with an internal error) and the server logs it. It is not
/// part of the tool's `inputSchema`.
pub struct State<T: ?Sized>(Arc<T>);

impl<T: ?Sized> State<T> {
    /// The shared value's `Arc`.
    pub fn arc(this: &Self) -> &Arc<T> {
        &this.0
    }
}

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        State(self.0.clone())
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

/// The server's shared values by type. Cheap to clone; empty costs nothing.
#[derive(Clone, Default)]
pub(crate) struct States {
    values: Option<Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>>,
}

impl States {
    /// Hold `value` as the state of type `T` (replacing any before).
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        Arc::make_mut(self.values.get_or_insert_with(Default::default))
            .insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The state of type `T`, if the server has one.
    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        let value = self.values.as_ref()?.get(&TypeId::of::<T>())?.clone();
        value.downcast::<T>().ok().map(State)
    }

    fn len(&self) -> usize {
        self.values.as_ref().map_or(0, |values| values.len())
    }
}

impl fmt::Debug for States {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "States({} values)", self.len())
    }
}
