//! From a decoded message to its answer: era classification, negotiation, routing of methods
//! to handlers, concurrency and cancellation of tool calls.
//!
//! The dispatcher knows nothing of stdio or HTTP. A transport hands it each message with the
//! connection's [`Session`]; the answer comes back as a [`Reply`]: nothing, a response ready
//! now, or a future for a call still running, which the transport runs concurrently with
//! everything else. State changes (`initialize`) happen inside [`Dispatcher::handle`], so they
//! take effect in the order messages arrive even though calls finish in any order.

mod access;
mod apps;
mod asking;
mod batch;
mod call;
mod catalog;
mod catch_unwind;
mod classify;
mod completion;
mod in_flight;
mod legacy;
mod logging;
mod modern;
mod negotiate;
pub(crate) mod notify;
mod offerings;
mod piped;
mod prompts;
mod resources;
pub(crate) mod routing;
mod run;
pub(crate) mod session;
mod sets;
pub(crate) mod subscriptions;
pub(crate) mod surfaces;
#[cfg(feature = "tasks")]
mod tasks;
#[cfg(test)]
pub(crate) mod test_tools;
#[cfg(feature = "otel")]
mod traced;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use serde_json::value::RawValue;

pub(crate) use catalog::{CatalogConfig, CatalogError};
use catalog::{Live, ToolCatalog};
pub(crate) use in_flight::InFlight;
use prompts::PromptCatalog;
use resources::ResourceCatalog;
pub(crate) use sets::{Attachment, Catalogs, Kind, Sets};
pub(crate) use subscriptions::Subscriptions;

use crate::dispatch::notify::Notifier;
use crate::handler::BoxFuture;
use crate::middleware;
use crate::protocol::ProtocolVersion;
use crate::protocol::ServerInfo;
use crate::protocol::jsonrpc::{
    self, ErrorObject, Incoming, InvalidMessage, Message, Notification, Outgoing, Params, Request,
    RequestId,
};
use crate::protocol::wire::{
    EmptyObject, ListChangedCapability, ListToolsResult, ResourcesCapability, ServerCapabilities,
    result_meta,
};
use session::Session;
use surfaces::Surfaces;

/// How long 2026-07-28 clients may cache `tools/list` and `server/discover` (and the other
/// lists of a server whose surfaces are fixed): fixed for the life of the process, so the hint
/// only bounds how long a restarted, changed server could go unnoticed. Lists that may change
/// while serving ([`Surfaces`](crate::Surfaces)) are sent with no time to live.
const LIST_TTL: Duration = Duration::from_secs(300);

/// The answer to one incoming line.
pub(crate) enum Reply {
    /// Nothing to send: a notification, a response from the client, a cancelled batch.
    None,
    /// The response, ready now.
    Ready(Outgoing),
    /// The response once the future resolves; `None` if the client cancelled the call.
    Pending(BoxFuture<'static, Option<Outgoing>>),
}

impl Reply {
    fn error(id: Option<&RequestId>, error: &ErrorObject) -> Self {
        Reply::Ready(Outgoing::error(id, error))
    }

    fn invalid(invalid: InvalidMessage) -> Self {
        if invalid.is_notification {
            tracing::debug!(error = %invalid.error.message, "dropping an invalid notification");
            return Reply::None;
        }
        Self::error(invalid.id.as_ref(), &invalid.error)
    }

    fn into_ready(self) -> Option<Outgoing> {
        match self {
            Reply::Ready(answer) => Some(answer),
            Reply::None | Reply::Pending(_) => None,
        }
    }
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reply::None => f.write_str("None"),
            Reply::Ready(answer) => f.debug_tuple("Ready").field(answer).finish(),
            Reply::Pending(_) => f.write_str("Pending(..)"),
        }
    }
}

/// What a dispatcher is built from besides the sets: the server's configuration, a plain value
/// the builder fills ([`Server`](crate::Server) documents each setting).
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) info: ServerInfo,
    pub(crate) instructions: Option<String>,
    pub(crate) page_size: usize,
    pub(crate) max_parsed_size: usize,
    pub(crate) states: crate::context::state::States,
    pub(crate) progress_heartbeat: Option<Duration>,
    pub(crate) ask_timeout: Duration,
    pub(crate) forward_tracing: bool,
    pub(crate) request_state_key: crate::ask::seal::SealKey,
    pub(crate) replay_guard: crate::ask::SharedReplayGuard,
    #[cfg(feature = "tasks")]
    pub(crate) tasks: crate::task::TaskConfig,
    /// The server's layers around every request (`Server::layer`), if any.
    pub(crate) pipeline: Option<crate::middleware::Pipeline>,
    /// Whether lists leave out what the caller's scopes do not allow.
    pub(crate) hide_unpermitted: bool,
    /// Whom stdio (and the in-process client) serve as, if not the trusted operator.
    pub(crate) stdio_principal: Option<crate::auth::Principal>,
    /// The extensions the server declares itself (`Server::extension`).
    pub(crate) extensions: crate::extensions::Declared,
    /// Spans for what passes no pipeline (`Server::trace`).
    #[cfg(feature = "otel")]
    pub(crate) lifecycle: Option<crate::middleware::trace::Lifecycle>,
    /// The exporters `Server::trace_from_env` set up: they live while anything serves.
    #[cfg(feature = "otel")]
    pub(crate) telemetry: Option<Arc<crate::telemetry::Telemetry>>,
}

/// Everything a server answers with, shared by all its connections: fixed at serve start but
/// for the catalogs, which a change to the server's [`Surfaces`](crate::Surfaces) replaces.
pub(crate) struct Dispatcher {
    info: ServerInfo,
    instructions: Option<String>,
    pub(crate) capabilities: ServerCapabilities,
    catalog: Arc<Live<ToolCatalog>>,
    pub(crate) resources: Arc<Live<ResourceCatalog>>,
    prompts: Arc<Live<PromptCatalog>>,
    /// Where the server's announcements of changes come from.
    notifier: Notifier,
    supported_versions: Vec<&'static str>,
    /// `_meta` of every 2026-07-28 result, encoded once.
    modern_meta: Arc<RawValue>,
    /// The server's shared values, handed to every request.
    states: crate::context::state::States,
    /// How often a tool call with a progress token sends a heartbeat; `None`: never.
    progress_heartbeat: Option<Duration>,
    /// How long a legacy session's question waits for the client.
    ask_timeout: Duration,
    /// Whether handlers' `tracing` events reach their clients.
    forward_tracing: bool,
    /// Seals the `requestState` of 2026-07-28 questions.
    request_state_key: crate::ask::seal::SealKey,
    /// Refuses a `requestState` used before.
    replay_guard: crate::ask::SharedReplayGuard,
    /// The most a message may take once parsed ([`Server::max_parsed_size`]).
    max_parsed_size: usize,
    /// The tool calls running (or run) as tasks.
    #[cfg(feature = "tasks")]
    tasks: Arc<crate::task::store::Tasks>,
    /// The server's layers around every request, if any.
    pipeline: Option<crate::middleware::Pipeline>,
    /// Whether lists leave out what the caller's scopes do not allow.
    hide_unpermitted: bool,
    /// Whom stdio serves as, if not the trusted operator.
    stdio_principal: Option<crate::auth::Principal>,
    /// Spans for what passes no pipeline.
    #[cfg(feature = "otel")]
    lifecycle: Option<crate::middleware::trace::Lifecycle>,
    /// Kept alive while the dispatcher serves; dropping the last flushes them.
    #[cfg(feature = "otel")]
    telemetry: Option<Arc<crate::telemetry::Telemetry>>,
}

impl Dispatcher {
    /// A dispatcher of `surfaces` under `config`, their definitions checked.
    pub(crate) fn new(config: &Config, surfaces: &Surfaces) -> Result<Self, CatalogError> {
        let server = config;
        let modern_meta: Arc<RawValue> = result_meta(&server.info).into();
        let Catalogs {
            tools: catalog,
            resources,
            prompts,
            has_app,
        } = surfaces.catalogs(server.page_size, modern_meta.clone(), LIST_TTL)?;
        // Tools change only through the server's surfaces: `listChanged` when it handed them
        // out, and the capability even without tools yet, since some may come.
        let tools_change = catalog.is_dynamic();
        let mut dispatcher = Dispatcher {
            info: server.info.clone(),
            instructions: server.instructions.clone(),
            capabilities: ServerCapabilities {
                tools: (tools_change || !catalog.get().is_empty()).then_some(
                    ListChangedCapability {
                        list_changed: tools_change,
                    },
                ),
                // Subscriptions and change announcements work for any resource (through the
                // server's `Notifier`), so both are declared whenever there are resources (or
                // may be: `is_empty` is false for dynamic surfaces).
                resources: (!resources.is_empty()).then_some(ResourcesCapability {
                    subscribe: true,
                    list_changed: true,
                }),
                prompts: (!prompts.is_empty())
                    .then_some(ListChangedCapability { list_changed: true }),
                completions: None,
                // `logging/setLevel` and per-request levels work for every handler.
                logging: Some(EmptyObject {}),
                extensions: None,
                legacy_extensions: None,
            },
            catalog,
            resources,
            prompts,
            notifier: surfaces.notifier().clone(),
            supported_versions: negotiate::supported_versions(),
            modern_meta,
            states: server.states.clone(),
            progress_heartbeat: server.progress_heartbeat,
            ask_timeout: server.ask_timeout,
            forward_tracing: server.forward_tracing,
            request_state_key: server.request_state_key.clone(),
            replay_guard: server.replay_guard.clone(),
            max_parsed_size: server.max_parsed_size,
            #[cfg(feature = "tasks")]
            tasks: crate::task::store::Tasks::new(server.tasks.clone()),
            pipeline: server.pipeline.clone(),
            hide_unpermitted: server.hide_unpermitted,
            stdio_principal: server.stdio_principal.clone(),
            #[cfg(feature = "otel")]
            lifecycle: server.lifecycle.clone(),
            #[cfg(feature = "otel")]
            telemetry: server.telemetry.clone(),
        };
        // Prompts and templates added while serving may bring completers, and clients read the
        // capabilities once: a server whose surfaces can change declares it from the start.
        dispatcher.capabilities.completions = (dispatcher.has_completions()
            || dispatcher.catalog.is_dynamic())
        .then_some(EmptyObject {});
        let mut extensions = server.extensions.clone();
        if let Some(problem) = extensions.problem() {
            return Err(CatalogError::Offering(problem));
        }
        // Clients read the extensions once too: tools added later may take tasks.
        #[cfg(feature = "tasks")]
        if dispatcher.catalog.is_dynamic() || dispatcher.catalog.get().allows_tasks() {
            extensions.declare_default(crate::extensions::Extension::tasks());
        }
        if has_app {
            extensions.declare_default(crate::extensions::Extension::new(
                crate::extensions::apps::EXTENSION,
            ));
        }
        dispatcher.capabilities.extensions = extensions.capability(false);
        dispatcher.capabilities.legacy_extensions = extensions.capability(true);
        Ok(dispatcher)
    }

    /// Every scope the server's tools, resources and prompts declare now, each once, in the
    /// order first declared.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn declared_scopes(&self) -> Vec<String> {
        let (tools, resources, prompts) =
            (self.catalog.get(), self.resources.get(), self.prompts.get());
        let mut scopes: Vec<String> = Vec::new();
        for scope in tools
            .declared_scopes()
            .chain(resources.declared_scopes())
            .chain(prompts.declared_scopes())
        {
            if !scopes.iter().any(|had| had == scope) {
                scopes.push(scope.to_owned());
            }
        }
        scopes
    }

    /// Its spans and instruments outside the pipeline (`Server::trace`), if any.
    #[cfg(feature = "otel")]
    pub(crate) fn lifecycle(&self) -> Option<&crate::middleware::trace::Lifecycle> {
        self.lifecycle.as_ref()
    }

    /// What exports this dispatcher's spans, for the transport to flush when serving ends
    /// (the process may exit before the dispatcher is dropped).
    #[cfg(feature = "otel")]
    pub(crate) fn telemetry(&self) -> Option<Arc<crate::telemetry::Telemetry>> {
        self.telemetry.clone()
    }

    /// Whom stdio and the in-process client serve as: `None` for the trusted operator.
    pub(crate) fn stdio_principal(&self) -> Option<&crate::auth::Principal> {
        self.stdio_principal.as_ref()
    }

    /// The server's identity.
    pub(crate) fn info(&self) -> &ServerInfo {
        &self.info
    }

    /// The names of the server's tools now, in order.
    pub(crate) fn tool_names(&self) -> Vec<Arc<str>> {
        self.catalog.get().names().map(Arc::from).collect()
    }

    /// Decode one line (or HTTP body) under the server's limits.
    pub(crate) fn decode(&self, line: &[u8]) -> Result<Incoming, InvalidMessage> {
        jsonrpc::decode_within(line, self.max_parsed_size)
    }

    /// Decode one line and answer it.
    pub(crate) fn handle_bytes(&self, line: &[u8], session: &mut Session) -> Reply {
        match self.decode(line) {
            Ok(incoming) => self.handle(incoming, session),
            Err(invalid) => Reply::invalid(invalid),
        }
    }

    /// Answer one decoded line.
    pub(crate) fn handle(&self, incoming: Incoming, session: &mut Session) -> Reply {
        match incoming {
            Incoming::Single(message) => self.handle_message(message, session, false),
            Incoming::Batch(_) if !session.accepts_batches() => Reply::error(
                None,
                &ErrorObject::invalid_request(
                    "JSON-RPC batches are accepted only in a session initialized at 2025-03-26",
                ),
            ),
            Incoming::Batch(messages) => {
                let replies = messages
                    .into_iter()
                    .map(|message| match message {
                        Ok(message) => self.handle_message(message, session, true),
                        Err(invalid) => Reply::invalid(invalid),
                    })
                    .collect();
                batch::join(replies)
            }
        }
    }

    fn handle_message(&self, message: Message, session: &mut Session, in_batch: bool) -> Reply {
        match message {
            Message::Request(request) => self.handle_request(request, session, in_batch),
            Message::Notification(notification) => {
                self.handle_notification(notification, session);
                Reply::None
            }
            Message::Response(response) => {
                let response = *response;
                let answered = session.outgoing().is_some_and(|questions| {
                    questions.answer(response.id.as_ref(), response.result, response.error)
                });
                if !answered {
                    tracing::debug!(id = ?response.id, "a response nobody waits for; ignored");
                }
                Reply::None
            }
        }
    }

    fn handle_request(&self, request: Request, session: &mut Session, in_batch: bool) -> Reply {
        #[cfg(feature = "otel")]
        if let Some(lifecycle) = &self.lifecycle {
            return self.traced_request(lifecycle, request, session, in_batch);
        }
        self.untraced_request(request, session, in_batch)
    }

    fn untraced_request(&self, request: Request, session: &mut Session, in_batch: bool) -> Reply {
        let Request { id, method, params } = request;
        let routed = match params {
            Some(params) if classify::is_modern(Some(&params)) => {
                self.modern_request(&id, &method, params, session)
            }
            params => self.legacy_request(&id, &method, params, session, in_batch),
        };
        routed.unwrap_or_else(|error| Reply::error(Some(&id), &error))
    }

    fn handle_notification(&self, notification: Notification, session: &mut Session) {
        #[cfg(feature = "otel")]
        if let Some(lifecycle) = &self.lifecycle {
            return self.traced_notification(lifecycle, notification, session);
        }
        self.untraced_notification(notification, session);
    }

    fn untraced_notification(&self, notification: Notification, session: &mut Session) {
        let Notification { method, params } = notification;
        match &*method {
            "notifications/cancelled" => cancel(params.as_deref(), session.in_flight()),
            "notifications/initialized" if !classify::is_modern(params.as_deref()) => {
                if !session.mark_initialized() {
                    tracing::debug!("`notifications/initialized` before `initialize`; ignored");
                }
            }
            _ => tracing::debug!(method = &*method, "ignoring a notification"),
        }
    }

    /// `tools/list` in any era: a page of the catalog, encoded once per revision; through the
    /// layers (`scope` makes their request) when the server has any.
    fn list_tools(
        &self,
        id: &RequestId,
        revision: ProtocolVersion,
        params: Option<&Params>,
        scope: impl FnOnce() -> classify::RequestScope,
        in_flight: &InFlight,
    ) -> Result<Reply, ErrorObject> {
        let cursor = match params.and_then(|params| params.get("cursor")) {
            None | Some(Value::Null) => None,
            Some(Value::String(cursor)) => Some(cursor.as_str()),
            Some(_) => return Err(ErrorObject::invalid_params("`cursor` must be a string")),
        };
        let catalog = self.catalog.get();
        // The scope is built only where the list may be the caller's own.
        let scope = (self.pipeline.is_some() || catalog.scoped()).then(scope);
        if let Some(scope) = scope
            && let (true, filtered) = self.list_for_caller(catalog.scoped(), &scope)
        {
            let (mut definitions, page_size, ttl) = catalog.listing();
            if filtered {
                definitions = catalog.definitions_for(|scopes| scope.may_use(scopes));
            }
            let list = self.callers_list(
                id,
                middleware::Method::ListTools,
                &scope,
                cursor.map(str::to_owned),
                (page_size, ttl),
            );
            return list.answer(
                id,
                in_flight,
                middleware::Response::Tools(definitions),
                |response| match response {
                    middleware::Response::Tools(items) => Some(items),
                    _ => None,
                },
                move |id, page, next, modern| {
                    let result = ListToolsResult::new(page, revision, next, modern);
                    Outgoing::raw_result(id, &result.encode())
                },
            );
        }
        let page = catalog.page(revision, cursor)?;
        Ok(Reply::Ready(Outgoing::raw_result(id, page)))
    }
}

/// `notifications/cancelled`: stop waiting for the call and drop its answer. Unknown and
/// finished ids are expected (cancellation races completion), and a missing `requestId`
/// (allowed from 2025-11-25 for tasks, which we do not offer) cancels nothing.
fn cancel(params: Option<&Params>, in_flight: &InFlight) {
    let Some(id) = params
        .and_then(|params| params.get("requestId"))
        .cloned()
        .and_then(RequestId::from_value)
    else {
        tracing::debug!("`notifications/cancelled` without a usable `requestId`; ignored");
        return;
    };
    if !in_flight.cancel(&id) {
        tracing::debug!(%id, "cancellation for no running call; ignored");
    }
}
