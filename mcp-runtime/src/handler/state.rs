//! [`State`] as a handler parameter: `State<T>` arguments are taken from the server's shared
//! values, never from the client's arguments.

use std::any::type_name;

use schemars::{Schema, SchemaGenerator};

use crate::context::RequestContext;
use crate::context::state::State;
use crate::handler::{ArgumentError, Injected, ToolCall, ToolParam};

fn missing<T>() -> String {
    format!(
        "the server has no shared state of type `{}`: give it one with `Server::with_state`",
        type_name::<T>()
    )
}

impl<T: Send + Sync + 'static> ToolParam for State<T> {
    const REACHES_CONTEXT: bool = false;

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

    crate::handler::params::injected_reads_text!();
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
    use crate::context::state::States;
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
