//! What a request looks like to the call pipeline, for the dispatcher's methods to send it
//! through the server's layers and its tool's.

use std::sync::Arc;
use std::time::Duration;

use serde_json::value::RawValue;

use super::call::encode_result;
use super::classify::RequestScope;
use super::offerings::{next_cursor, page_index, panicked};
use super::run::{Failure, Piped, Run, Through};
use super::{Dispatcher, InFlight, Reply};
use crate::cancel::CancellationToken;
use crate::middleware::{BoxError, Caller, Handle, Method, Pipeline, Request, Response};
use crate::protocol::jsonrpc::{ErrorObject, Outgoing, RequestId};
use crate::protocol::wire::ModernResult;
use crate::protocol::{
    CallToolResult, Completion, PromptDefinition, ProtocolVersion, ResourceTemplate, ToolDefinition,
};

impl Dispatcher {
    /// The layers request `id` (a `method` in `scope`) passes, if any: the server's, then
    /// `tool_layers` (a tool's own). `None` when there are none: the request is then built
    /// not at all.
    pub(super) fn piped(
        &self,
        id: &RequestId,
        method: Method,
        scope: &RequestScope,
        tool_layers: Option<&Pipeline>,
        cancellation: &CancellationToken,
    ) -> Option<Piped> {
        let (pipeline, tool_layers) = match (&self.pipeline, tool_layers) {
            (None, None) => return None,
            (Some(server), tool) => (server.clone(), tool.cloned()),
            (None, Some(tool)) => (tool.clone(), None),
        };
        let request = Request {
            method,
            name: None,
            arguments: None,
            id: id.clone(),
            caller: Caller {
                principal: scope.principal.clone(),
                client: scope.client.info(),
                revision: scope.revision,
                connection: scope.connection,
            },
            retry: false,
            may_become_task: false,
            annotations: None,
            cancellation: cancellation.clone(),
            handle: Handle {
                tool_layers,
                runner: None,
            },
        };
        Some(Piped {
            pipeline,
            request,
            modern_meta: self.modern_meta.clone(),
        })
    }
}

impl Dispatcher {
    /// What passes the server's layers should request `id` be refused before any handler
    /// runs: a request naming `name`. `None` without layers.
    pub(super) fn refusable(
        &self,
        id: &RequestId,
        method: Method,
        scope: &RequestScope,
        name: Option<&str>,
    ) -> Option<Refusal> {
        let token = CancellationToken::new();
        let mut piped = self.piped(id, method, scope, None, &token)?;
        piped.request.name = name.map(Into::into);
        Some(Refusal {
            piped,
            token,
            revision: scope.revision,
        })
    }
}

/// A request refused before any handler ran (an unknown tool, resource or prompt), on its
/// way through the layers all the same: an audit log records it, a rate limit counts it.
pub(super) struct Refusal {
    piped: Piped,
    token: CancellationToken,
    revision: ProtocolVersion,
}

/// What a refused request comes to: its refusal, or what a layer answered instead.
enum Refused {
    Error(ErrorObject),
    Tool(CallToolResult),
}

impl Through for Refused {
    fn into_response(self, _: &Request) -> Result<Response, BoxError> {
        match self {
            Refused::Error(refused) => Err(crate::middleware::Error(refused).into()),
            Refused::Tool(result) => Ok(Response::Tool(result)),
        }
    }

    fn from_response(response: Response) -> Option<Self> {
        match response {
            Response::Tool(result) => Some(Refused::Tool(result)),
            _ => None,
        }
    }
}

impl Failure for Refused {
    fn failed(&self) -> bool {
        true
    }
}

impl Refusal {
    /// Answer request `id` with `refused`, unless a layer answers otherwise.
    pub(super) fn answer(
        self,
        id: &RequestId,
        refused: ErrorObject,
        in_flight: &InFlight,
    ) -> Result<Reply, ErrorObject> {
        let Refusal {
            piped,
            token,
            revision,
        } = self;
        Run::quiet(id, token, piped.modern_meta.clone())
            .through(Some(piped))
            .start(
                in_flight,
                move |_| Box::pin(std::future::ready(Refused::Error(refused))),
                move |outcome, id, modern_meta| match outcome {
                    Ok(Refused::Error(refused)) => Outgoing::error(Some(id), &refused),
                    Ok(Refused::Tool(result)) => encode_result(id, &result, revision, modern_meta),
                    Err(payload) => Outgoing::error(Some(id), &panicked("a layer", &payload)),
                },
            )
    }
}

/// A list that passed the layers, paged after them: what a layer filtered out is on no
/// page, and cursors count what is left.
pub(super) struct PipedList {
    pub(super) piped: Piped,
    pub(super) token: CancellationToken,
    pub(super) cursor: Option<String>,
    pub(super) page_size: usize,
    pub(super) revision: ProtocolVersion,
    /// How long 2026-07-28 clients may reuse the list.
    pub(super) ttl: Duration,
}

impl PipedList {
    /// Run `items` (the whole list) through the layers; `encode` answers request `id` with a
    /// page of what comes out, given the page's next cursor and the result's `_meta`.
    pub(super) fn answer<T, E>(
        self,
        id: &RequestId,
        in_flight: &InFlight,
        items: Vec<T>,
        encode: E,
    ) -> Result<Reply, ErrorObject>
    where
        T: Send + 'static,
        Vec<T>: Through,
        E: FnOnce(&RequestId, &[T], Option<&str>, Option<ModernResult<'_>>) -> Outgoing
            + Send
            + 'static,
    {
        let PipedList {
            piped,
            token,
            cursor,
            page_size,
            revision,
            ttl,
        } = self;
        let method = piped.request.method().as_str();
        Run::quiet(id, token, piped_meta(&piped))
            .through(Some(piped))
            .start(
                in_flight,
                move |_| Box::pin(std::future::ready(items)),
                move |outcome, id, modern_meta| {
                    let items = match outcome {
                        Ok(items) => items,
                        Err(payload) => {
                            return Outgoing::error(Some(id), &panicked(method, &payload));
                        }
                    };
                    let chunks: Vec<&[T]> = if items.is_empty() {
                        vec![&[]]
                    } else {
                        items.chunks(page_size.max(1)).collect()
                    };
                    let index = match page_index(cursor.as_deref(), chunks.len(), method) {
                        Ok(index) => index,
                        Err(error) => return Outgoing::error(Some(id), &error),
                    };
                    let next = next_cursor(index, chunks.len());
                    let modern = revision
                        .is_modern()
                        .then(|| ModernResult::cacheable(modern_meta, ttl));
                    encode(id, chunks[index], next.as_deref(), modern)
                },
            )
    }
}

/// The `_meta` a piped run's 2026-07-28 results carry: the dispatcher's, which the piped
/// request was made with.
fn piped_meta(piped: &Piped) -> Arc<RawValue> {
    piped.modern_meta.clone()
}

macro_rules! through_list {
    ($item:ty, $variant:ident) => {
        impl Through for Vec<$item> {
            fn into_response(self, _: &Request) -> Result<Response, BoxError> {
                Ok(Response::$variant(self))
            }

            fn from_response(response: Response) -> Option<Self> {
                match response {
                    Response::$variant(items) => Some(items),
                    _ => None,
                }
            }
        }
    };
}

through_list!(ToolDefinition, Tools);
through_list!(PromptDefinition, Prompts);
through_list!(ResourceTemplate, ResourceTemplates);

impl Through for Result<Completion, ErrorObject> {
    fn into_response(self, _: &Request) -> Result<Response, BoxError> {
        match self {
            Ok(completion) => Ok(Response::Completion(completion)),
            Err(refused) => Err(crate::middleware::Error(refused).into()),
        }
    }

    fn from_response(response: Response) -> Option<Self> {
        match response {
            Response::Completion(completion) => Some(Ok(completion)),
            _ => None,
        }
    }
}
