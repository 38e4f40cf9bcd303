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
mod tool;

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
    IntoPromptResult, PromptArgument, PromptArgumentDefinition, PromptArgumentReader,
    PromptDefinition, PromptError, PromptHandler, PromptRequest,
};
pub use resource::{
    IntoReadResult, IntoResourceList, Resource, ResourceDefinition, ResourceError,
    ResourceErrorKind, ResourceHandler, ResourceRead, ResourceTemplate, ResourceVariable,
    VariableReader,
};
pub use tool::{
    BoxFuture, JsonObject, TaskSupport, ToolAnnotations, ToolCall, ToolDefinition, ToolHandler,
};
