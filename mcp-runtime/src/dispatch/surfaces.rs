//! Tools, resources and prompts added and removed while the server serves.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::value::RawValue;

use crate::dispatch::notify::Notifier;
use crate::dispatch::routing::{ResourceRouter, Route};
use crate::dispatch::{Attachment, CatalogConfig, CatalogError, Catalogs, Kind, Sets};
use crate::handler::sets::route_text;
use crate::handler::{PromptHandler, ResourceHandler, ToolHandler};

/// What a server offers, changeable while it serves: tools, resources and prompts added and
/// removed at run time, each change announced to the connected clients. Get one from
/// [`Server::surfaces`](crate::Server::surfaces) before serving; clones share the same surfaces.
///
/// Each change is announced as `notifications/tools/list_changed` (or `resources/...`,
/// `prompts/...`): to every legacy session once it sent `notifications/initialized`, and on
/// every 2026-07-28 `subscriptions/listen` stream that opted in (`toolsListChanged`,
/// `resourcesListChanged`, `promptsListChanged`). A server that hands out its surfaces
/// declares all three capabilities with `listChanged: true` from the start, even with none of
/// a kind yet, and tells 2026-07-28 clients not to cache its lists (`ttlMs: 0`).
///
/// Functions written with `#[mcp_tool]`, `#[mcp_prompt]` or `#[mcp_resource]` are added as
/// sets ([`add_tools`](Self::add_tools)`(tools![export])`), hand-written handlers and the
/// builders one by one.
///
/// Requests see a change as a whole, never half of it: each works on the catalog current when
/// it arrived, without holding any lock while its handler runs. A call keeps running with the
/// tool it started with even when that tool is removed meanwhile; later calls of the name get
/// the unknown-tool error.
///
/// ```no_run
/// use mcp_runtime::{Server, handler::ToolBuilder, server_info};
/// use serde_json::json;
///
/// # async fn run() -> std::io::Result<()> {
/// let server = Server::new(server_info!());
/// let surfaces = server.surfaces();
/// tokio::spawn(async move {
///     // ... once the tool makes sense:
///     let echo = ToolBuilder::new("echo")
///         .description("Say it back.")
///         .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}}))
///         .handler(|arguments, _context| async move {
///             let text = arguments.get("text").and_then(|text| text.as_str());
///             text.unwrap_or_default().to_owned()
///         });
///     surfaces.add_tool(echo).expect("no other tool is named `echo`");
///     // ... and once it does not any more:
///     surfaces.remove_tool("echo");
/// });
/// server.serve_stdio().await
/// # }
/// ```
#[derive(Clone)]
pub struct Surfaces {
    shared: Arc<Shared>,
}

struct Shared {
    notifier: Notifier,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Everything the server offers: the one home of its tools, resources and prompts, from
    /// the builder's first `tools(...)` to the last change while serving.
    sets: Sets,
    /// Whether the surfaces were handed out ([`Server::surfaces`]): until then the server is
    /// static, its lists may be cached, and a builder's change is its own value's.
    handed_out: bool,
    /// The catalogs of the dispatchers serving these surfaces.
    attached: Vec<Attachment>,
}

/// Why a change to a server's surfaces was refused; nothing changed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SurfaceError {
    /// A tool with this name is already offered.
    DuplicateTool(String),
    /// The tool's input schema lacks `"type": "object"` at its root, which MCP requires.
    InputSchemaNotObject(String),
    /// The resource would answer URIs another one answers (the message names both).
    ResourceConflict(String),
    /// A prompt with this name is already offered.
    DuplicatePrompt(String),
}

impl fmt::Display for SurfaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SurfaceError::DuplicateTool(name) => {
                write!(f, "a tool named `{name}` is already offered")
            }
            SurfaceError::InputSchemaNotObject(name) => write!(
                f,
                "tool `{name}` has an input schema without `\"type\": \"object\"` at its root; \
                 MCP requires tool arguments to be an object"
            ),
            SurfaceError::ResourceConflict(message) => f.write_str(message),
            SurfaceError::DuplicatePrompt(name) => {
                write!(f, "a prompt named `{name}` is already offered")
            }
        }
    }
}

impl std::error::Error for SurfaceError {}

impl Surfaces {
    pub(crate) fn new(notifier: Notifier) -> Self {
        Surfaces {
            shared: Arc::new(Shared {
                notifier,
                state: Mutex::new(State::default()),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Every change is checked before anything is modified: a panic leaves no half state.
        self.shared
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Make the surfaces dynamic: from now on they are shared by every clone, and each change
    /// is announced.
    pub(crate) fn hand_out(&self) {
        self.state().handed_out = true;
    }

    /// The builder's new set of `kind`. Before the surfaces are handed out, a server value's
    /// sets are its own, so this one gets surfaces of its own (a clone of the server made
    /// earlier keeps the old ones); after, it replaces the shared set and is announced.
    pub(crate) fn set(&mut self, kind: Kind, new: Sets) {
        let mut sets = {
            let state = self.state();
            if state.handed_out {
                drop(state);
                let replaced = self.change(kind, |current| {
                    current.take(kind, new);
                    Ok(true)
                });
                debug_assert!(replaced.is_ok());
                return;
            }
            state.sets.clone()
        };
        sets.take(kind, new);
        let fresh = Surfaces::new(self.shared.notifier.clone());
        fresh.state().sets = sets;
        *self = fresh;
    }

    /// What the surfaces offer now.
    pub(crate) fn sets(&self) -> Sets {
        self.state().sets.clone()
    }

    /// The announcements of changes: the server's notifier.
    pub(crate) fn notifier(&self) -> &Notifier {
        &self.shared.notifier
    }

    /// The catalogs a new dispatcher serves: attached, so changes reach it, once the surfaces
    /// were handed out; else fixed, with lists that 2026-07-28 clients may keep for
    /// `static_ttl`.
    pub(crate) fn catalogs(
        &self,
        page_size: usize,
        modern_meta: Arc<RawValue>,
        static_ttl: Duration,
    ) -> Result<Catalogs, CatalogError> {
        let mut state = self.state();
        if !state.handed_out {
            let config = CatalogConfig {
                page_size,
                modern_meta,
                ttl: static_ttl,
            };
            return Catalogs::build(&state.sets, &config, false);
        }
        // Lists that may change at any time must not be reused by 2026-07-28 clients.
        let config = CatalogConfig {
            page_size,
            modern_meta,
            ttl: Duration::ZERO,
        };
        let catalogs = Catalogs::build(&state.sets, &config, true)?;
        state.attached.retain(Attachment::is_alive);
        state.attached.push(catalogs.attachment(config));
        Ok(catalogs)
    }

    /// Check and apply `edit` to the sets of `kind` (it says whether anything changed), then
    /// rebuild that kind's catalogs everywhere and announce the change. Changes are serialized;
    /// requests are not blocked by them.
    fn change(
        &self,
        kind: Kind,
        edit: impl FnOnce(&mut Sets) -> Result<bool, SurfaceError>,
    ) -> Result<bool, SurfaceError> {
        let mut state = self.state();
        let state = &mut *state;
        let sets = &mut state.sets;
        if !edit(sets)? {
            return Ok(false);
        }
        state.attached.retain(Attachment::is_alive);
        for attachment in &state.attached {
            if let Err(error) = attachment.update(sets, kind) {
                // Only sets the builder got wrong (refused at serve start) can fail here.
                tracing::error!(%error, "the server's surfaces could not be updated");
            }
        }
        // Announced once every catalog changed: a client that lists again sees the change.
        match kind {
            Kind::Tools => self.shared.notifier.tool_list_changed(),
            Kind::Resources => self.shared.notifier.resource_list_changed(),
            Kind::Prompts => self.shared.notifier.prompt_list_changed(),
        }
        Ok(true)
    }

    /// Offer one more tool, after the others, and announce it. Its definition is asked for
    /// once, now.
    ///
    /// # Errors
    ///
    /// A tool of the same name is already offered, or its input schema is not an object
    /// schema; nothing changed then.
    pub fn add_tool(&self, handler: impl ToolHandler) -> Result<(), SurfaceError> {
        self.insert_tools(vec![Arc::new(handler)])
    }

    /// Offer several tools at once, with one announcement: `tools![...]` of `#[mcp_tool]`
    /// functions, for instance (`surfaces.add_tools(tools![export, import])`).
    ///
    /// # Errors
    ///
    /// As [`add_tool`](Self::add_tool), for any of them (or two of them share a name); then
    /// none is added.
    pub fn add_tools(&self, tools: crate::Tools) -> Result<(), SurfaceError> {
        self.insert_tools(tools.handlers().to_vec())
    }

    fn insert_tools(&self, handlers: Vec<Arc<dyn ToolHandler>>) -> Result<(), SurfaceError> {
        let added: Vec<_> = handlers
            .into_iter()
            .map(|handler| (handler.definition(), handler))
            .collect();
        self.change(Kind::Tools, |sets| {
            if let Some(name) = first_clash(&sets.tools, &added, |(tool, _)| &tool.name) {
                return Err(SurfaceError::DuplicateTool(name.to_owned()));
            }
            for (definition, _) in &added {
                if definition.input_schema.get("type").and_then(|t| t.as_str()) != Some("object") {
                    return Err(SurfaceError::InputSchemaNotObject(
                        definition.name.to_string(),
                    ));
                }
            }
            sets.tools.extend(added.iter().cloned());
            Ok(!added.is_empty())
        })
        .map(drop)
    }

    /// Stop offering the tool called `name` and announce it; `false` (and no announcement)
    /// when there is none. Calls already running finish.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.change(Kind::Tools, |sets| {
            let before = sets.tools.len();
            sets.tools.retain(|(tool, _)| tool.name != name);
            Ok(sets.tools.len() != before)
        })
        .unwrap_or(false)
    }

    /// The names of the tools offered now, in order.
    pub fn tool_names(&self) -> Vec<String> {
        let state = self.state();
        let names = state
            .sets
            .tools
            .iter()
            .map(|(tool, _)| tool.name.to_string());
        names.collect()
    }

    /// Offer one more resource or resource template, after the others, and announce it.
    ///
    /// # Errors
    ///
    /// It would answer the same URIs as a resource already offered (the same URI, or a
    /// template of the same shape); nothing changed then.
    pub fn add_resource(&self, handler: impl ResourceHandler) -> Result<(), SurfaceError> {
        self.insert_resources(vec![Arc::new(handler)])
    }

    /// Offer several resources at once, with one announcement: `resources![...]` of
    /// `#[mcp_resource]` functions, for instance.
    ///
    /// # Errors
    ///
    /// As [`add_resource`](Self::add_resource), for any of them (or two of them answer the
    /// same URIs); then none is added.
    pub fn add_resources(&self, resources: crate::Resources) -> Result<(), SurfaceError> {
        self.insert_resources(resources.handlers().to_vec())
    }

    fn insert_resources(
        &self,
        handlers: Vec<Arc<dyn ResourceHandler>>,
    ) -> Result<(), SurfaceError> {
        let added: Vec<Route> = handlers
            .into_iter()
            .map(|handler| Route {
                definition: handler.definition(),
                handler,
            })
            .collect();
        self.change(Kind::Resources, |sets| {
            if added.is_empty() {
                return Ok(false);
            }
            let mut routes = sets.resources.clone();
            routes.extend(added.iter().cloned());
            if let Err(conflict) = ResourceRouter::from_routes(routes.clone()) {
                return Err(SurfaceError::ResourceConflict(conflict.to_string()));
            }
            sets.resources = routes;
            Ok(true)
        })
        .map(drop)
    }

    /// Stop offering the resource whose URI (for a template: whose template text, such as
    /// `file:///{path}`) is `uri`, and announce it; `false` when there is none.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.change(Kind::Resources, |sets| {
            let before = sets.resources.len();
            sets.resources
                .retain(|route| route_text(&route.definition) != uri);
            Ok(sets.resources.len() != before)
        })
        .unwrap_or(false)
    }

    /// Offer one more prompt, after the others, and announce it.
    ///
    /// # Errors
    ///
    /// A prompt of the same name is already offered; nothing changed then.
    pub fn add_prompt(&self, handler: impl PromptHandler) -> Result<(), SurfaceError> {
        self.insert_prompts(vec![Arc::new(handler)])
    }

    /// Offer several prompts at once, with one announcement: `prompts![...]` of
    /// `#[mcp_prompt]` functions, for instance.
    ///
    /// # Errors
    ///
    /// As [`add_prompt`](Self::add_prompt), for any of them (or two of them share a name);
    /// then none is added.
    pub fn add_prompts(&self, prompts: crate::Prompts) -> Result<(), SurfaceError> {
        self.insert_prompts(prompts.handlers().to_vec())
    }

    fn insert_prompts(&self, handlers: Vec<Arc<dyn PromptHandler>>) -> Result<(), SurfaceError> {
        let added: Vec<_> = handlers
            .into_iter()
            .map(|handler| (handler.definition(), handler))
            .collect();
        self.change(Kind::Prompts, |sets| {
            if let Some(name) = first_clash(&sets.prompts, &added, |(prompt, _)| &prompt.name) {
                return Err(SurfaceError::DuplicatePrompt(name.to_owned()));
            }
            sets.prompts.extend(added.iter().cloned());
            Ok(!added.is_empty())
        })
        .map(drop)
    }

    /// Stop offering the prompt called `name` and announce it; `false` when there is none.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.change(Kind::Prompts, |sets| {
            let before = sets.prompts.len();
            sets.prompts.retain(|(prompt, _)| prompt.name != name);
            Ok(sets.prompts.len() != before)
        })
        .unwrap_or(false)
    }
}

/// The first name among `added` that `offered` or an earlier one of `added` already has.
fn first_clash<'a, T>(
    offered: &'a [T],
    added: &'a [T],
    name: impl Fn(&'a T) -> &'a str,
) -> Option<&'a str> {
    added.iter().enumerate().find_map(|(index, entry)| {
        let candidate = name(entry);
        let mut earlier = offered.iter().chain(&added[..index]);
        earlier
            .any(|other| name(other) == candidate)
            .then_some(candidate)
    })
}

impl fmt::Debug for Surfaces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state();
        f.debug_struct("Surfaces")
            .field("dynamic", &state.handed_out)
            .field("serving", &state.attached.len())
            .finish_non_exhaustive()
    }
}
