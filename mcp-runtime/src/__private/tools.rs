//! Re-exports for generated code, and the glue `#[mcp_tool]` and `tools![...]` expand to: the
//! per-tool trait [`StaticTool`], the checks `tools![...]` runs at compile time (duplicate
//! names) and when it is evaluated (schemas), and small spanned helpers whose trait bounds
//! report errors at the user's tokens.

use std::borrow::Cow;

pub use schemars;
pub use serde;
pub use serde_json;
pub use std::sync::OnceLock;

pub use crate::handler::Tools;
pub use crate::handler::json::{OutputProbe, ViaIntoToolResult, ViaNoResult};
pub use crate::handler::params::{ArgumentReader, ParamFns, param};
pub use crate::handler::{
    ArgumentDefault, BoxFuture, IntoToolResult, JsonObject, TaskSupport, ToolAnnotations, ToolCall,
    ToolDefinition, ToolHandler, ToolOutput, ToolRun,
};
pub use crate::middleware::ToolLayers;
pub use crate::protocol::CallToolResult;
pub use crate::schema::{ArgumentSpec, InputSchema, Requirement, SchemaError};

// What `#[mcp_server]` implements.
pub use crate::handler::service::McpService;

/// What `#[mcp_tool]` adds to a function's companion struct besides [`ToolHandler`]: what
/// `tools![...]` needs to know at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an `#[mcp_tool]` function",
    label = "`tools![...]` lists functions marked `#[mcp_tool]`",
    note = "add `#[mcp_tool]` to the function, or add a hand-written `ToolHandler` with `Tools::with`"
)]
pub trait StaticTool: ToolHandler + Sized {
    /// The tool's name, as checked by the macro.
    const NAME: &'static str;
    /// The companion struct's only value.
    const INSTANCE: Self;

    /// The tool's definition, built once; an error when its schema cannot be sent.
    fn checked_definition() -> &'static Result<ToolDefinition, SchemaError>;

    /// This tool as an entry of `tools![...]`, which names it as `<path as StaticTool>::ENTRY`
    /// so that a path that is not a tool is one error, at the path.
    const ENTRY: ToolEntry = ToolEntry {
        name: Self::NAME,
        check: check_definition::<Self>,
        add: add_tool::<Self>,
    };
}

/// The hints of `#[mcp_tool(annotations(...))]`, in a call rather than a struct literal, so
/// generated code is the same whichever hints are set (and whatever hints are added later).
pub const fn annotations(
    read_only: Option<bool>,
    destructive: Option<bool>,
    idempotent: Option<bool>,
    open_world: Option<bool>,
) -> ToolAnnotations {
    ToolAnnotations {
        read_only,
        destructive,
        idempotent,
        open_world,
    }
}

/// Everything about a tool that the macro knows as literals.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: &'static str,
    /// `#[mcp_tool(title = "...")]`.
    pub title: Option<&'static str>,
    /// `#[mcp_tool(description = "...")]`, or the doc comment without its `# Arguments`.
    pub description: Option<&'static str>,
    /// `#[mcp_tool(annotations(...))]`.
    pub annotations: ToolAnnotations,
    /// `#[mcp_tool(recursive)]`: keep `$defs` rather than fail on a recursive argument type.
    pub recursive: bool,
    /// The return type's [`IntoToolResult::output_schema`].
    pub output_schema: Option<JsonObject>,
    /// `#[mcp_tool(icon = "...")]`.
    pub icons: &'static [&'static str],
    /// `#[mcp_tool(task = "...")]`.
    pub task_support: TaskSupport,
    /// `#[mcp_tool(meta(...), app = "...", visibility(...))]`.
    pub meta: crate::protocol::Meta,
}

/// Implemented only with mcp-runtime's `tasks` feature: without it, `#[mcp_tool(task)]` would
/// compile to a tool that never runs as a task, so it does not compile.
#[diagnostic::on_unimplemented(
    message = "`#[mcp_tool(task)]` needs the `tasks` feature of mcp-runtime",
    label = "calls of this tool could never run as tasks",
    note = "add `features = [\"tasks\"]` to the `mcp-runtime` dependency in Cargo.toml"
)]
pub trait TasksFeature {}

#[cfg(feature = "tasks")]
impl TasksFeature for TaskSupport {}

/// `support`, for a tool that may run as a task: compiles only with the `tasks` feature.
pub const fn with_tasks<T: TasksFeature>(support: T) -> T {
    support
}

/// The definition of the tool `spec` describes, with the parameters `schema` has gathered.
pub fn definition(spec: ToolSpec, schema: InputSchema) -> Result<ToolDefinition, SchemaError> {
    Ok(ToolDefinition {
        name: Cow::Borrowed(spec.name),
        title: spec.title.map(Cow::Borrowed),
        description: spec.description.map(Cow::Borrowed),
        input_schema: schema.finish(spec.name, spec.recursive)?,
        output_schema: spec.output_schema,
        annotations: spec.annotations,
        icons: spec
            .icons
            .iter()
            .map(|src| crate::protocol::Icon::new(*src))
            .collect(),
        task_support: spec.task_support,
        meta: spec.meta,
    })
}

/// `T`'s definition, for [`ToolHandler::definition`].
///
/// # Panics
///
/// When the definition has an error: [`tools_from`] reports those first, as the tool list is
/// built, so this is reached only by tools registered another way.
pub fn definition_or_panic<T: StaticTool>() -> ToolDefinition {
    match T::checked_definition() {
        Ok(definition) => definition.clone(),
        Err(error) => panic!("{error}"),
    }
}

/// `T` as `#[mcp_server]` asks of the type it serves: [`assert_service`] requires
/// `ServiceProbe<T>: SharedService<T>`, which holds exactly when `T: Send + Sync + 'static`, and
/// otherwise reports this trait's message (a bound on `T` itself would report only the first
/// field that is not `Send`).
#[derive(Debug)]
pub struct ServiceProbe<T: ?Sized>(std::marker::PhantomData<T>);

/// See [`ServiceProbe`].
#[diagnostic::on_unimplemented(
    message = "`{T}` must be `Send + Sync + 'static` to be an MCP service",
    label = "the server shares this value between concurrent calls, on any thread, for as long as it serves",
    note = "put what is not thread-safe behind a `Mutex`, an `RwLock` or an atomic (an `Arc` for an `Rc`); the other errors name the fields"
)]
pub trait SharedService<T: ?Sized> {}

impl<T: Send + Sync + 'static> SharedService<T> for ServiceProbe<T> {}

// Never applies to a probe; it makes the probe's impl one of two candidates, so that a failing
// type is reported with the message above.
#[diagnostic::do_not_recommend]
impl<P: std::fmt::Display, T: ?Sized> SharedService<T> for P {}

/// Compiles when `T` can be served; generated with the type's span.
pub const fn assert_service<T: ?Sized>()
where
    ServiceProbe<T>: SharedService<T>,
{
}

/// A method tool's definition, for [`ToolHandler::definition`].
///
/// # Panics
///
/// When the definition has an error: [`ServiceTools::finish`] reports those first.
pub fn unwrap_definition(
    definition: &'static Result<ToolDefinition, SchemaError>,
) -> ToolDefinition {
    match definition {
        Ok(definition) => definition.clone(),
        Err(error) => panic!("{error}"),
    }
}

/// The tools of an `#[mcp_server]` impl being added to a set, their schemas checked as for
/// `tools![...]` ([`tools_from`]).
#[derive(Debug)]
pub struct ServiceTools {
    tools: Tools,
    problems: Vec<String>,
}

impl ServiceTools {
    /// Start adding to `tools`.
    pub fn new(tools: Tools) -> Self {
        ServiceTools {
            tools,
            problems: Vec::new(),
        }
    }

    /// Add `handler`, whose definition is `definition`.
    #[must_use]
    pub fn with(
        mut self,
        handler: impl ToolHandler,
        definition: &'static Result<ToolDefinition, SchemaError>,
    ) -> Self {
        match definition {
            Ok(_) => self.tools = self.tools.with(handler),
            Err(error) => self.problems.push(error.to_string()),
        }
        self
    }

    /// The tools.
    ///
    /// # Panics
    ///
    /// When a tool's schema cannot be sent, naming every such tool, as [`tools_from`] does.
    #[track_caller]
    pub fn finish(self) -> Tools {
        if !self.problems.is_empty() {
            panic!("invalid MCP tools:\n{}", self.problems.join("\n"));
        }
        self.tools
    }
}

/// One entry of `tools![...]`: [`StaticTool::ENTRY`].
#[derive(Debug, Clone, Copy)]
pub struct ToolEntry {
    /// [`StaticTool::NAME`].
    pub name: &'static str,
    check: fn() -> Result<(), &'static SchemaError>,
    add: fn(Tools) -> Tools,
}

fn check_definition<T: StaticTool>() -> Result<(), &'static SchemaError> {
    T::checked_definition().as_ref().map(drop)
}

fn add_tool<T: StaticTool>(tools: Tools) -> Tools {
    tools.with(T::INSTANCE)
}

/// The [`Tools`] of `tools![...]`, in order.
///
/// # Panics
///
/// When a tool's schema cannot be sent (a recursive argument type without
/// `#[mcp_tool(recursive)]`): a proc macro cannot see that, so it fails here, as the server is
/// built, naming every such tool, rather than when a client first lists the tools.
#[track_caller]
pub fn tools_from(entries: &[ToolEntry]) -> Tools {
    let problems: Vec<String> = entries
        .iter()
        .filter_map(|entry| (entry.check)().err())
        .map(ToString::to_string)
        .collect();
    if !problems.is_empty() {
        panic!("invalid MCP tools:\n{}", problems.join("\n"));
    }
    entries
        .iter()
        .fold(Tools::new(), |tools, entry| (entry.add)(tools))
}

/// Whether two tool names are equal, at compile time.
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// When the tool at `index` of a `tools![...]` has the name of one listed before it, the compile
/// error naming both; `listed` holds the paths as written.
pub const fn duplicate_name_message(
    entries: &[ToolEntry],
    listed: &[&str],
    index: usize,
) -> Option<ConstMessage> {
    let mut earlier = 0;
    while earlier < index {
        if same_name(entries[earlier].name, entries[index].name) {
            let message = ConstMessage::new()
                .push("tools `")
                .push(listed[earlier])
                .push("` and `")
                .push(listed[index])
                .push("` are both named `")
                .push(entries[index].name)
                .push(
                    "`; every tool needs its own name: set one with `#[mcp_tool(name = \"...\")]`",
                );
            return Some(message);
        }
        earlier += 1;
    }
    None
}

/// A message assembled at compile time, for a `panic!` in a constant: `tools![...]` names the
/// duplicate tool name, which only the compiler knows.
#[derive(Debug, Clone, Copy)]
pub struct ConstMessage {
    bytes: [u8; ConstMessage::CAPACITY],
    len: usize,
}

impl ConstMessage {
    const CAPACITY: usize = 512;

    /// An empty message.
    pub const fn new() -> Self {
        ConstMessage {
            bytes: [0; Self::CAPACITY],
            len: 0,
        }
    }

    /// This message followed by `text`; whole characters only, up to the capacity.
    pub const fn push(mut self, text: &str) -> Self {
        let bytes = text.as_bytes();
        if self.len + bytes.len() > Self::CAPACITY {
            return self;
        }
        let mut i = 0;
        while i < bytes.len() {
            self.bytes[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// The message so far.
    pub const fn as_str(&self) -> &str {
        let (text, _) = self.bytes.split_at(self.len);
        match std::str::from_utf8(text) {
            Ok(text) => text,
            // Unreachable: only whole `&str`s are pushed.
            Err(_) => "",
        }
    }
}

impl Default for ConstMessage {
    fn default() -> Self {
        Self::new()
    }
}

/// How an argument with `#[arg(default = ...)]` shows in the schema; generated with the default
/// expression's span, so a type that is not `Serialize` is reported there.
pub fn default_requirement<T: ArgumentDefault>(value: &T) -> Requirement {
    match value.default_json() {
        Some(json) => Requirement::Default(json),
        None => Requirement::Optional,
    }
}

/// How the generic method behind a generated tool's `call` and `call_output` ends the
/// function's output: as its result, or as what the dispatcher answers with. One method for
/// both, so that each error in the function (a return type that is no tool result, a future
/// that is not `Send`) is reported once.
pub trait Ending: 'static {
    /// What the run comes to.
    type Output: Send + 'static;

    /// `value` as that.
    fn end<R: IntoToolResult>(value: R) -> Self::Output;

    /// A result made without running the function (its arguments did not fit).
    fn from_result(result: CallToolResult) -> Self::Output;
}

/// [`Ending`] as the tool's result (`ToolHandler::call`).
#[derive(Debug)]
pub enum AsResult {}

impl Ending for AsResult {
    type Output = CallToolResult;

    fn end<R: IntoToolResult>(value: R) -> CallToolResult {
        value.into_tool_result()
    }

    fn from_result(result: CallToolResult) -> CallToolResult {
        result
    }
}

/// [`Ending`] as what the dispatcher answers with (`ToolHandler::call_output`): text stays text.
#[derive(Debug)]
pub enum AsOutput {}

impl Ending for AsOutput {
    type Output = ToolOutput;

    fn end<R: IntoToolResult>(value: R) -> ToolOutput {
        value.into_tool_output()
    }

    fn from_result(result: CallToolResult) -> ToolOutput {
        ToolOutput::Result(result)
    }
}

/// `value` ended as `E` says; generated with the return type's span, so a type that is not
/// [`IntoToolResult`] is reported there.
pub fn into_tool_result<E: Ending, R: IntoToolResult>(value: R) -> E::Output {
    E::end(value)
}

/// A future that is ready with `result`, ended as `E` says.
pub fn ready_as<E: Ending>(result: CallToolResult) -> BoxFuture<'static, E::Output> {
    Box::pin(std::future::ready(E::from_result(result)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn const_messages_concatenate() {
        const MESSAGE: ConstMessage = ConstMessage::new().push("tool `").push("añadir").push("`");
        assert_eq!(MESSAGE.as_str(), "tool `añadir`");
        assert!(same_name("add", "add"));
        assert!(!same_name("add", "adds"));
        assert!(!same_name("add", "sub"));
    }

    #[test]
    fn over_long_messages_keep_what_fits() {
        let long = "x".repeat(ConstMessage::CAPACITY);
        let message = ConstMessage::new().push("ab").push(&long);
        assert_eq!(message.as_str(), "ab");
    }
}
