//! From a decoded message to its answer: era classification, negotiation, routing of methods
//! to handlers, concurrency and cancellation of tool calls.
//!
//! The dispatcher knows nothing of stdio or HTTP. A transport hands it each message with the
//! connection's [`Session`]; the answer comes back as a [`Reply`]: nothing, a response ready
//! now, or a future for a call still running, which the transport runs concurrently with
//! everything else. State changes (`initialize`) happen inside [`Dispatcher::handle`], so they
//! take effect in the order messages arrive even though calls finish in any order.

mod batch;
mod call;
mod catalog;
mod catch_unwind;
mod classify;
mod completion;
#[cfg(test)]
mod context_tests;
mod in_flight;
mod legacy;
mod logging;
mod modern;
mod negotiate;
mod offerings;
mod prompts;
mod resources;
mod subscriptions;
#[cfg(test)]
pub(crate) mod test_tools;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use serde_json::value::RawValue;

pub(crate) use catalog::CatalogError;
use catalog::ToolCatalog;
pub(crate) use in_flight::InFlight;
use prompts::PromptCatalog;
use resources::ResourceCatalog;
pub(crate) use subscriptions::Subscriptions;

use crate::handler::{BoxFuture, JsonObject};
use crate::notify::Notifier;
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::{
    self, ErrorObject, Incoming, InvalidMessage, Message, Notification, Outgoing, Request,
    RequestId,
};
use crate::protocol::wire::{
    EmptyObject, ListChangedCapability, ResourcesCapability, ServerCapabilities, result_meta,
};
use crate::server::{Server, ServerInfo};
use crate::session::Session;

/// How long 2026-07-28 clients may cache `tools/list` and `server/discover`: both are fixed
/// for the life of the process, so the hint only bounds how long a restarted, changed server
/// could go unnoticed.
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

/// Everything a server answers with, fixed at serve start and shared by all its connections.
pub(crate) struct Dispatcher {
    info: ServerInfo,
    instructions: Option<String>,
    capabilities: ServerCapabilities,
    catalog: ToolCatalog,
    resources: ResourceCatalog,
    prompts: PromptCatalog,
    /// Where the server's announcements of changes come from.
    notifier: Notifier,
    supported_versions: Vec<&'static str>,
    /// `_meta` of every 2026-07-28 result, encoded once.
    modern_meta: Arc<RawValue>,
    /// The server's shared values, handed to every request.
    states: crate::state::States,
    /// How often a tool call with a progress token sends a heartbeat; `None`: never.
    progress_heartbeat: Option<Duration>,
}

impl Dispatcher {
    /// Take `server`'s definitions and check them.
    pub(crate) fn new(server: &Server) -> Result<Self, CatalogError> {
        let modern_meta: Arc<RawValue> = result_meta(&server.info).into();
        let catalog = ToolCatalog::build(
            &server.tools,
            server.page_size,
            modern_meta.clone(),
            LIST_TTL,
        )?;
        let resources =
            ResourceCatalog::build(&server.resources, server.page_size, modern_meta.clone())
                .map_err(|conflict| CatalogError::ResourceConflict(conflict.to_string()))?;
        let prompts = PromptCatalog::build(&server.prompts, server.page_size, modern_meta.clone())
            .map_err(|duplicate| CatalogError::DuplicatePrompt(duplicate.0))?;
        let mut dispatcher = Dispatcher {
            info: server.info.clone(),
            instructions: server.instructions.clone(),
            capabilities: ServerCapabilities {
                tools: (!catalog.is_empty()).then_some(EmptyObject {}),
                // Subscriptions and change announcements work for any resource (through the
                // server's `Notifier`), so both are declared whenever there are resources.
                resources: (!resources.is_empty()).then_some(ResourcesCapability {
                    subscribe: true,
                    list_changed: true,
                }),
                prompts: (!prompts.is_empty())
                    .then_some(ListChangedCapability { list_changed: true }),
                completions: None,
                // `logging/setLevel` and per-request levels work for every handler.
                logging: Some(EmptyObject {}),
            },
            catalog,
            resources,
            prompts,
            notifier: server.notifier.clone(),
            supported_versions: negotiate::supported_versions(),
            modern_meta,
            states: server.states.clone(),
            progress_heartbeat: server.progress_heartbeat,
        };
        dispatcher.capabilities.completions =
            dispatcher.has_completions().then_some(EmptyObject {});
        Ok(dispatcher)
    }

    /// The server's identity.
    pub(crate) fn info(&self) -> &ServerInfo {
        &self.info
    }

    /// The names of the server's tools, in order.
    pub(crate) fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.catalog.names()
    }

    /// Decode one line and answer it.
    pub(crate) fn handle_bytes(&self, line: &[u8], session: &mut Session) -> Reply {
        match jsonrpc::decode(line) {
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
                // We send no requests yet, so nothing waits for these.
                tracing::debug!(id = ?response.id, "ignoring a response from the client");
                Reply::None
            }
        }
    }

    fn handle_request(&self, request: Request, session: &mut Session, in_batch: bool) -> Reply {
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
        let Notification { method, params } = notification;
        match method.as_str() {
            "notifications/cancelled" => cancel(params.as_ref(), session.in_flight()),
            "notifications/initialized" if !classify::is_modern(params.as_ref()) => {
                if !session.mark_initialized() {
                    tracing::debug!("`notifications/initialized` before `initialize`; ignored");
                }
            }
            _ => tracing::debug!(method, "ignoring a notification"),
        }
    }

    /// `tools/list` in any era: a page of the catalog, encoded once per revision.
    fn list_tools(
        &self,
        id: &RequestId,
        revision: ProtocolVersion,
        params: Option<&JsonObject>,
    ) -> Result<Reply, ErrorObject> {
        let cursor = match params.and_then(|params| params.get("cursor")) {
            None | Some(Value::Null) => None,
            Some(Value::String(cursor)) => Some(cursor.as_str()),
            Some(_) => return Err(ErrorObject::invalid_params("`cursor` must be a string")),
        };
        let page = self.catalog.page(revision, cursor)?;
        Ok(Reply::Ready(Outgoing::raw_result(id, page)))
    }
}

/// `notifications/cancelled`: stop waiting for the call and drop its answer. Unknown and
/// finished ids are expected (cancellation races completion), and a missing `requestId`
/// (allowed from 2025-11-25 for tasks, which we do not offer) cancels nothing.
fn cancel(params: Option<&JsonObject>, in_flight: &InFlight) {
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
