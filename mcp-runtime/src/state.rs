//! Shared state: values given to the server once ([`Server::with_state`]) and handed to every
//! handler that takes a [`State<T>`] parameter.
//!
//! [`Server::with_state`]: crate::Server::with_state

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use schemars::{Schema, SchemaGenerator};

use crate::context::RequestContext;
use crate::handler::{ArgumentError, Injected, ToolCall, ToolParam};

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

fn missing<T>() -> String {
    format!(
        "the server has no shared state of type `{}`: give it one with `Server::with_state`",
        type_name::<T>()
    )
}

impl RequestContext {
    /// The server's shared value of type `T` (see [`State`]), if it was given one.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.states.get()
    }
}

impl<T: Send + Sync + 'static> ToolParam for State<T> {
    fn argument_schema(_: &mut SchemaGenerator) -> Option<Schema> {
        None
    }

    fn extract(call: &mut ToolCall, _: &str) -> Result<Self, ArgumentError> {
        call.context.state().ok_or_else(|| {
            let message = missing::<T>();
            tracing::error!("{message}");
            ArgumentError::invalid(message)
        })
    }

    fn extract_optional(call: &mut ToolCall, _: &str) -> Result<Option<Self>, ArgumentError> {
        // `Option<State<T>>`: the handler copes without it.
        Ok(call.context.state())
    }
}

impl<T: Send + Sync + 'static> Injected for State<T> {
    fn inject(context: &RequestContext) -> Self {
        // Caught by the dispatcher and answered with an internal error; the message is logged.
        context
            .state()
            .unwrap_or_else(|| panic!("{}", missing::<T>()))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use serde_json::Map;

    use super::*;
    use crate::protocol::ProtocolVersion;

    fn call(states: States) -> ToolCall {
        let mut context = RequestContext::new(ProtocolVersion::V2025_06_18);
        context.states = states;
        ToolCall {
            arguments: Map::new(),
            context,
        }
    }

    #[test]
    fn every_call_shares_the_one_value() {
        let mut states = States::default();
        states.insert(AtomicU32::new(0));
        states.insert("name");
        let mut first = call(states.clone());
        let mut second = call(states);
        let a = State::<AtomicU32>::extract(&mut first, "n").unwrap();
        let b = State::<AtomicU32>::extract(&mut second, "n").unwrap();
        a.fetch_add(1, Ordering::Relaxed);
        b.fetch_add(1, Ordering::Relaxed);
        assert_eq!(a.load(Ordering::Relaxed), 2);
        assert_eq!(*first.context.state::<&str>().unwrap(), "name");
        assert!(State::<AtomicU32>::argument_schema(&mut SchemaGenerator::default()).is_none());
    }

    #[test]
    fn a_missing_state_names_its_type_and_the_fix() {
        let mut without = call(States::default());
        let Err(ArgumentError::Invalid { message, .. }) = State::<u8>::extract(&mut without, "n")
        else {
            panic!("a missing state must be an error");
        };
        assert!(message.contains("`u8`") && message.contains("Server::with_state"));
        assert!(matches!(
            State::<u8>::extract_optional(&mut without, "n"),
            Ok(None)
        ));
    }
}
