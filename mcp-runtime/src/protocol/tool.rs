//! What `tools/list` says about a tool, independent of any revision.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// A JSON object: tool arguments, schemas.
pub type JsonObject = Map<String, Value>;

/// Behaviour hints about a tool (2025-03-26 on). `None` leaves the spec's default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    /// The tool does not modify its environment.
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates.
    pub destructive: Option<bool>,
    /// Calling it again with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// The tool interacts with an open world of external entities.
    pub open_world: Option<bool>,
}

impl ToolAnnotations {
    /// Whether no hint is set (then no `annotations` object is sent).
    pub fn is_empty(&self) -> bool {
        *self == ToolAnnotations::default()
    }
}

/// Whether a tool's calls may run as tasks (the `io.modelcontextprotocol/tasks` extension of
/// 2026-07-28): the client then gets a task id at once and polls `tasks/get` for the result.
///
/// Tasks need mcp-runtime's `tasks` feature (off by default); without it, `#[mcp_tool(task)]`
/// does not compile and every call answers in place.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum TaskSupport {
    /// Every call answers in place (the default).
    #[default]
    Forbidden,
    /// A call from a client that takes tasks becomes one once it waits on anything; other
    /// clients get the answer in place.
    Optional,
    /// As `Optional`, and a client that takes no tasks gets `-32021` naming the extension
    /// instead of a call.
    Required,
}

impl TaskSupport {
    /// Whether calls may become tasks.
    pub fn allows_tasks(self) -> bool {
        self != TaskSupport::Forbidden
    }
}

/// Everything `tools/list` says about one tool, before it is rendered for a revision.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    /// The unique name clients call the tool by.
    pub name: Cow<'static, str>,
    /// A human-readable name (2025-06-18 on).
    pub title: Option<Cow<'static, str>>,
    /// What the tool does, for the model.
    pub description: Option<Cow<'static, str>>,
    /// A JSON Schema object whose root has `"type": "object"`.
    pub input_schema: JsonObject,
    /// The schema of `structuredContent`, if the tool declares one (2025-06-18 on).
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints.
    pub annotations: ToolAnnotations,
    /// Icons a client may show for the tool (2025-11-25 on).
    pub icons: Vec<super::Icon>,
    /// Whether its calls may run as tasks.
    pub task_support: TaskSupport,
    /// The tool's `_meta` (2025-06-18 on): an MCP App's `ui` entry, or keys of your own.
    pub meta: super::Meta,
}
