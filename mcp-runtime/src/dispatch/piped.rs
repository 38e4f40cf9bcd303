//! What a request looks like to the call pipeline, for the dispatcher's methods to send it
//! through the server's layers and its tool's.

use std::sync::Arc;
use std::time::Duration;

use serde_json::value::RawValue;

use super::call::encode_result;
use super::classify::RequestScope;
use super::offerings::{next_cursor, page_index, panicked};
use super::run::{Piped, Run, Through};
use super::{Dispatcher, InFlight, Reply};
use crate::cancel::CancellationToken;
use crate::middleware::{BoxError, Caller, Handle, Method, Pipeline, Request, Response};
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::{ErrorObject, Outgoing, RequestId};
use crate::protocol::wire::ModernResult;

impl Dispatcher {
    /// The layers request `id` (a `method` in `scope`, cancelled by `cancellation`) passes, if
    /// any: the server's, then
    /// `tool_layers` (a tool's own). `None` when there are none: the request is then built
    /// not at all.
    #[inline]
    pub(super) fn piped(
        &self,
        id: &RequestId,
        method: Method,
        scope: &RequestScope,
        tool_layers: Option<&Pipeline>,
        cancellation: &CancellationToken,
    ) -> Option<Piped> {
        if self.pipeline.is_none() && tool_layers.is_none() {
            return None;
        }
        #[allow(unused_mut)]
        let mut piped =
            self.request_for_layers(id, method, caller_of(scope), tool_layers, cancellation);
        #[cfg(feature = "otel")]
        {
            piped.request.trace_context = scope.trace_context.clone();
            piped.request.transport_trace_context = scope.transport_trace_context.clone();
        }
        Some(piped)
    }

    /// What [`piped`](Self::piped) builds when there are layers: kept out of line, so the
    /// calls of a server without layers carry only the check.
    #[inline(never)]
    fn request_for_layers(
        &self,
        id: &RequestId,
        method: Method,
        caller: Caller,
        tool_layers: Option<&Pipeline>,
        cancellation: &CancellationToken,
    ) -> Piped {
        let (pipeline, tool_layers) = match (&self.pipeline, tool_layers) {
            (Some(server), tool) => (server.clone(), tool.cloned()),
            (None, Some(tool)) => (tool.clone(), None),
            (None, None) => unreachable!("`piped` checked that there are layers"),
        };
        let request = Request {
            method,
            name: None,
            arguments: None,
            id: id.clone(),
            caller,
            retry: false,
            may_become_task: false,
            annotations: None,
            // The handler's token fires with the request's, and alone when a layer gives up
            // on it (a timeout); only the request's ends the request unanswered.
            cancellation: cancellation.child(),
            handle: Handle {
                tool_layers,
                runner: None,
            },
            #[cfg(feature = "otel")]
            trace_context: None,
            #[cfg(feature = "otel")]
            transport_trace_context: None,
            #[cfg(feature = "otel")]
            first_round: None,
        };
        Piped {
            pipeline,
            request,
            modern_meta: self.modern_meta.clone(),
        }
    }
}

impl Dispatcher {
    /// What passes the server's layers should request `id` be refused before any handler
    /// runs: a request naming `name`. `None` without layers. Only the caller is taken now;
    /// the request is built if it is refused.
    #[inline]
    pub(super) fn refusable(
        &self,
        method: Method,
        scope: &RequestScope,
        name: Option<&str>,
    ) -> Option<Refusal> {
        // Checked here, inline: without layers, a request pays for nothing more.
        self.pipeline.as_ref()?;
        Some(Refusal {
            method,
            name: name.map(Arc::from),
            caller: caller_of(scope),
            #[cfg(feature = "otel")]
            trace_context: scope.trace_context.clone(),
            #[cfg(feature = "otel")]
            transport_trace_context: scope.transport_trace_context.clone(),
        })
    }
}

/// Who makes a request, as layers see it.
fn caller_of(scope: &RequestScope) -> Caller {
    Caller {
        principal: scope.principal.clone(),
        client: scope.client.info(),
        revision: scope.revision,
        connection: scope.connection,
        #[cfg(feature = "otel")]
        network_transport: scope.network_transport,
        #[cfg(feature = "otel")]
        session_id: scope.session_id.clone(),
    }
}

/// A request refused before any handler ran (an unknown tool, resource or prompt), on its
/// way through the layers all the same: an audit log records it, a rate limit counts it.
pub(super) struct Refusal {
    method: Method,
    name: Option<Arc<str>>,
    caller: Caller,
    #[cfg(feature = "otel")]
    trace_context: Option<crate::middleware::TraceContext>,
    #[cfg(feature = "otel")]
    transport_trace_context: Option<crate::middleware::TraceContext>,
}

impl Dispatcher {
    /// `started`, unless it is a refusal and there are layers (`refusal`): the refusal then
    /// passes them all the same.
    #[inline]
    pub(super) fn unless_refused(
        &self,
        refusal: Option<Refusal>,
        started: Result<Reply, ErrorObject>,
        id: &RequestId,
        in_flight: &InFlight,
    ) -> Result<Reply, ErrorObject> {
        match (started, refusal) {
            (Err(refused), Some(refusal)) => refusal.answer(self, id, refused, in_flight),
            (started, _) => started,
        }
    }
}

impl Refusal {
    /// Answer request `id` with `refused`, unless a layer answers otherwise.
    fn answer(
        self,
        dispatcher: &Dispatcher,
        id: &RequestId,
        refused: ErrorObject,
        in_flight: &InFlight,
    ) -> Result<Reply, ErrorObject> {
        let Refusal {
            method,
            name,
            caller,
            #[cfg(feature = "otel")]
            trace_context,
            #[cfg(feature = "otel")]
            transport_trace_context,
        } = self;
        let revision = caller.revision;
        let token = CancellationToken::new();
        let mut piped = dispatcher.request_for_layers(id, method, caller, None, &token);
        piped.request.name = name;
        #[cfg(feature = "otel")]
        {
            piped.request.trace_context = trace_context;
            piped.request.transport_trace_context = transport_trace_context;
        }
        answer_now(
            id,
            piped,
            token,
            in_flight,
            Err(refused),
            Box::new(move |response, id, modern_meta| match response {
                Response::Tool(result) => encode_result(id, &result, revision, modern_meta),
                _ => Outgoing::error(Some(id), &another_kind(method)),
            }),
        )
    }
}

/// How a response that passed the layers is answered.
pub(super) type Encode = Box<dyn FnOnce(Response, &RequestId, &Arc<RawValue>) -> Outgoing + Send>;

/// Answer request `id`, whose answer is ready before the layers run (a list, a completion, a
/// refusal), with what comes out of them: `encode` answers a response, an error is answered
/// as it is. Every such request shares this one run, so each kind adds no copy of it.
pub(super) fn answer_now(
    id: &RequestId,
    piped: Piped,
    token: CancellationToken,
    in_flight: &InFlight,
    ready: Result<Response, ErrorObject>,
    encode: Encode,
) -> Result<Reply, ErrorObject> {
    let method = piped.request.method().as_str();
    Run::quiet(id, token, piped.modern_meta.clone())
        .through(Some(piped))
        .start(
            in_flight,
            move |_| Box::pin(std::future::ready(ready)),
            move |outcome, id, modern_meta| match outcome {
                Ok(Ok(response)) => encode(response, id, modern_meta),
                Ok(Err(refused)) => Outgoing::error(Some(id), &refused),
                Err(payload) => Outgoing::error(Some(id), &panicked(method, &payload)),
            },
        )
}

/// A layer answered with the response of another method.
pub(super) fn another_kind(method: Method) -> ErrorObject {
    ErrorObject::internal_error(format!(
        "internal error: a layer answered `{method}` with the response of another method"
    ))
}

impl Through for Result<Response, ErrorObject> {
    fn into_response(self, _: &Request) -> Result<Response, BoxError> {
        self.map_err(|refused| crate::middleware::Error(refused).into())
    }

    fn from_response(response: Response) -> Option<Self> {
        Some(Ok(response))
    }
}

/// A list made for one caller: what its scopes allow, through the layers if there are any,
/// paged after them: what was filtered out is on no page, and cursors count what is left.
pub(super) struct CallersList {
    /// The list method asked.
    pub(super) method: Method,
    /// The layers it passes, with the request's token; `None` without layers.
    pub(super) piped: Option<(Piped, CancellationToken)>,
    pub(super) cursor: Option<String>,
    pub(super) page_size: usize,
    pub(super) revision: ProtocolVersion,
    /// How long 2026-07-28 clients may reuse the list.
    pub(super) ttl: Duration,
    /// `_meta` of 2026-07-28 results.
    pub(super) modern_meta: Arc<RawValue>,
}

impl CallersList {
    /// Run `items` (the whole list, as its response) through the layers; `take` finds the
    /// list in what comes out, and `encode` answers request `id` with a page of it, given the
    /// page's next cursor and the result's `_meta`.
    pub(super) fn answer<T, E>(
        self,
        id: &RequestId,
        in_flight: &InFlight,
        items: Response,
        take: fn(Response) -> Option<Vec<T>>,
        encode: E,
    ) -> Result<Reply, ErrorObject>
    where
        T: Send + 'static,
        E: FnOnce(&RequestId, &[T], Option<&str>, Option<ModernResult<'_>>) -> Outgoing
            + Send
            + 'static,
    {
        let CallersList {
            method,
            piped,
            cursor,
            page_size,
            revision,
            ttl,
            modern_meta,
        } = self;
        let page = move |response: Response, id: &RequestId, modern_meta: &Arc<RawValue>| {
            let Some(items) = take(response) else {
                return Outgoing::error(Some(id), &another_kind(method));
            };
            let chunks: Vec<&[T]> = if items.is_empty() {
                vec![&[]]
            } else {
                items.chunks(page_size.max(1)).collect()
            };
            let index = match page_index(cursor.as_deref(), chunks.len(), method.as_str()) {
                Ok(index) => index,
                Err(error) => return Outgoing::error(Some(id), &error),
            };
            let next = next_cursor(index, chunks.len());
            // Made for this caller (or through layers, which may tell callers apart): no
            // shared cache may hand it to another.
            let modern = revision
                .is_modern()
                .then(|| ModernResult::cacheable(modern_meta, ttl).private());
            encode(id, chunks[index], next.as_deref(), modern)
        };
        match piped {
            Some((piped, token)) => {
                answer_now(id, piped, token, in_flight, Ok(items), Box::new(page))
            }
            None => Ok(Reply::Ready(page(items, id, &modern_meta))),
        }
    }
}

impl Dispatcher {
    /// How request `id` (`method`, in `scope`) is answered with a list made for its caller:
    /// through the server's layers, if it has any.
    pub(super) fn callers_list(
        &self,
        id: &RequestId,
        method: Method,
        scope: &RequestScope,
        cursor: Option<String>,
        (page_size, ttl): (usize, Duration),
    ) -> CallersList {
        let token = CancellationToken::new();
        let piped = self
            .piped(id, method, scope, None, &token)
            .map(|piped| (piped, token));
        CallersList {
            method,
            piped,
            cursor,
            page_size,
            revision: scope.revision,
            ttl,
            modern_meta: self.modern_meta.clone(),
        }
    }

    /// Whether a list of offerings (`scoped`: some declare scopes) is made for the caller of
    /// `scope` rather than served from the encoded pages every caller shares: when it passes
    /// layers, or leaves out what the caller may not use.
    pub(super) fn list_for_caller(&self, scoped: bool, scope: &RequestScope) -> (bool, bool) {
        let filtered = scope.lists_privately(scoped, self.hide_unpermitted);
        (filtered || self.pipeline.is_some(), filtered)
    }
}
