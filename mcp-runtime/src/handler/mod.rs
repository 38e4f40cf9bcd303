//! Handlers: the traits tools, resources and prompts implement and the conversions of their
//! return values.

pub(crate) mod blocking;
mod builder;
pub(crate) mod completion;
mod injected;
mod into_result;
mod json;
mod params;
mod prompt;
mod resource;
pub mod service;
pub(crate) mod sets;
mod state;
mod tool;

pub use crate::protocol::{
    JsonObject, PromptArgumentDefinition, PromptDefinition, Resource, ResourceDefinition,
    ResourceTemplate, TaskSupport, ToolAnnotations, ToolDefinition,
};
pub use builder::{
    BuiltPrompt, BuiltResource, BuiltTool, PromptBuilder, ResourceBuilder, ToolBuilder,
};
pub use completion::{
    Completer, CompletionContext, CompletionRequest, IntoCompletion, enum_values,
};
pub use injected::Injected;
pub use into_result::IntoToolResult;
pub use json::{Json, OutputProbe, ViaIntoToolResult, ViaNoResult};
pub use params::{ArgumentDefault, ArgumentError, ArgumentReader, ParamFns, ToolParam, param};
pub use prompt::{
    IntoPromptResult, PromptArgument, PromptArgumentReader, PromptError, PromptHandler,
    PromptRequest,
};
pub use resource::{
    IntoReadResult, IntoResourceList, ResourceError, ResourceErrorKind, ResourceHandler,
    ResourceRead, ResourceVariable, VariableReader,
};
pub use sets::{Prompts, Resources, Tools};
pub use tool::{BoxFuture, ToolCall, ToolHandler};
