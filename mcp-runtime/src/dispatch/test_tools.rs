//! Hand-written tools for the dispatcher's tests.

use std::time::Duration;

use serde_json::{Value, json};

use crate::handler::{
    BoxFuture, JsonObject, ToolAnnotations, ToolCall, ToolDefinition, ToolHandler,
};
use crate::protocol::{CallToolResult, Content};

/// What a [`TestTool`] does when called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Behaviour {
    /// Answer the arguments back as JSON text.
    Echo,
    /// Answer what the context says: revision, capabilities, progress token.
    Probe,
    /// Sleep for `arguments.ms` milliseconds, then answer `"slept"`.
    Sleep,
    /// Wait for cancellation, then answer `"cancelled"`.
    AwaitCancel,
    /// Panic inside the future.
    Panic,
    /// Panic in `call`, before any future exists.
    PanicEarly,
}

/// A tool with a fixed definition and a scripted behaviour.
#[derive(Debug, Clone)]
pub(crate) struct TestTool {
    pub(crate) name: String,
    pub(crate) input_schema: JsonObject,
    pub(crate) behaviour: Behaviour,
}

/// An echoing tool called `name`.
pub(crate) fn named(name: &str) -> TestTool {
    scripted(name, Behaviour::Echo)
}

/// A tool called `name` that behaves as told.
pub(crate) fn scripted(name: &str, behaviour: Behaviour) -> TestTool {
    let Value::Object(input_schema) = json!({"type": "object"}) else {
        unreachable!()
    };
    TestTool {
        name: name.to_owned(),
        input_schema,
        behaviour,
    }
}

impl ToolHandler for TestTool {
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name.clone().into(),
            title: None,
            description: Some(format!("test tool {}", self.name).into()),
            input_schema: self.input_schema.clone(),
            output_schema: None,
            annotations: ToolAnnotations::default(),
            icons: Vec::new(),
            task_support: crate::handler::TaskSupport::Forbidden,
            meta: Default::default(),
        }
    }

    fn call(&self, call: ToolCall) -> BoxFuture<'static, CallToolResult> {
        let behaviour = self.behaviour;
        assert!(
            behaviour != Behaviour::PanicEarly,
            "panicked before the future"
        );
        Box::pin(async move {
            match behaviour {
                Behaviour::Echo => CallToolResult::success(vec![Content::text(
                    Value::Object(call.arguments).to_string(),
                )]),
                Behaviour::Probe => {
                    let context = call.context;
                    CallToolResult {
                        content: vec![Content::text("probe")],
                        structured_content: Some(json!({
                            "revision": context.revision.as_str(),
                            "capabilities": context.client_capabilities(),
                            "progressToken": context.progress_token,
                        })),
                        is_error: false,
                        meta: Default::default(),
                    }
                }
                Behaviour::Sleep => {
                    let ms = call
                        .arguments
                        .get("ms")
                        .and_then(Value::as_u64)
                        .unwrap_or(0);
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    CallToolResult::success(vec![Content::text("slept")])
                }
                Behaviour::AwaitCancel => {
                    call.context.cancellation.cancelled().await;
                    CallToolResult::success(vec![Content::text("cancelled")])
                }
                Behaviour::Panic => panic!("the tool broke"),
                Behaviour::PanicEarly => unreachable!(),
            }
        })
    }
}
