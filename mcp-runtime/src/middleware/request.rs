//! What a layer sees of a request: the method, what it names, its arguments, who calls.

use crate::auth::Principal;
use std::fmt;
use std::sync::Arc;

use super::pipeline::Pipeline;
use super::{BoxError, Response};
use crate::cancel::CancellationToken;
use crate::future::BoxFuture;
use crate::protocol::{JsonObject, ProtocolVersion, RequestId, ToolAnnotations};

/// The methods that pass through the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// `tools/call`
    CallTool,
    /// `resources/read`
    ReadResource,
    /// `prompts/get`
    GetPrompt,
    /// `completion/complete`
    Complete,
    /// `tools/list`
    ListTools,
    /// `resources/list`
    ListResources,
    /// `resources/templates/list`
    ListResourceTemplates,
    /// `prompts/list`
    ListPrompts,
}

impl Method {
    /// Its name on the wire, like `tools/call`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::CallTool => "tools/call",
            Method::ReadResource => "resources/read",
            Method::GetPrompt => "prompts/get",
            Method::Complete => "completion/complete",
            Method::ListTools => "tools/list",
            Method::ListResources => "resources/list",
            Method::ListResourceTemplates => "resources/templates/list",
            Method::ListPrompts => "prompts/list",
        }
    }

    /// The method named `name` on the wire, if it passes the pipeline.
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "tools/call" => Method::CallTool,
            "resources/read" => Method::ReadResource,
            "prompts/get" => Method::GetPrompt,
            "completion/complete" => Method::Complete,
            "tools/list" => Method::ListTools,
            "resources/list" => Method::ListResources,
            "resources/templates/list" => Method::ListResourceTemplates,
            "prompts/list" => Method::ListPrompts,
            _ => return None,
        })
    }

    /// Whether it lists offerings (a layer may filter what it answers).
    pub fn is_list(self) -> bool {
        matches!(
            self,
            Method::ListTools
                | Method::ListResources
                | Method::ListResourceTemplates
                | Method::ListPrompts
        )
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

pub(crate) use crate::context::session::ClientInfo;

/// Who makes a request: the principal HTTP authorization named, the client program, the
/// revision it speaks, the connection it came on.
#[derive(Debug, Clone)]
pub struct Caller {
    pub(crate) principal: Option<Principal>,
    pub(crate) client: Option<ClientInfo>,
    pub(crate) revision: ProtocolVersion,
    pub(crate) connection: Option<u64>,
    /// `network.transport`: `pipe` (stdio), `tcp` (HTTP); `None` in process.
    #[cfg(feature = "otel")]
    pub(crate) network_transport: Option<&'static str>,
    /// `mcp.session.id`: a legacy HTTP session's id.
    #[cfg(feature = "otel")]
    pub(crate) session_id: Option<Arc<str>>,
}

impl Caller {
    /// The principal the transport authenticated (a verified token, HTTP's authorization
    /// hook), with its scopes, if any.
    pub fn principal(&self) -> Option<&Principal> {
        self.principal.as_ref()
    }

    /// The client's name (`clientInfo.name`), if it gave one.
    pub fn client_name(&self) -> Option<&str> {
        self.client.as_ref().map(|client| &*client.name)
    }

    /// The client's version (`clientInfo.version`), if it gave one.
    pub fn client_version(&self) -> Option<&str> {
        self.client.as_ref()?.version.as_deref()
    }

    /// The protocol revision of the request.
    pub fn revision(&self) -> ProtocolVersion {
        self.revision
    }

    /// The connection the request came on, where one outlives a request: a stdio process,
    /// a legacy HTTP session. A stateless 2026-07-28 HTTP request has none.
    pub fn connection(&self) -> Option<u64> {
        self.connection
    }

    /// Whom per-caller limits count for: the principal, else the connection, else the
    /// whole process.
    pub fn key(&self) -> CallerKey {
        match (&self.principal, self.connection) {
            (Some(principal), _) => CallerKey::Principal(principal.shared()),
            (None, Some(connection)) => CallerKey::Connection(connection),
            (None, None) => CallerKey::Process,
        }
    }
}

/// Whom a per-caller limit counts a request for (see [`Caller::key`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CallerKey {
    /// An authenticated principal.
    Principal(Arc<str>),
    /// One connection (no principal named).
    Connection(u64),
    /// Nobody in particular: every such request counts together.
    Process,
}

impl fmt::Display for CallerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallerKey::Principal(principal) => write!(f, "principal {principal}"),
            CallerKey::Connection(connection) => write!(f, "connection {connection}"),
            CallerKey::Process => f.write_str("process"),
        }
    }
}

/// What runs the request's handler once the layers pass it on (never seen by layers).
pub(crate) type Runner =
    Box<dyn FnOnce(Request) -> BoxFuture<'static, Result<Response, BoxError>> + Send>;

/// Where the request goes after the server's layers: its tool's own, then its handler.
#[derive(Default)]
pub(crate) struct Handle {
    pub(crate) tool_layers: Option<Pipeline>,
    pub(crate) runner: Option<Runner>,
}

/// A request on its way through the pipeline.
pub struct Request {
    pub(crate) method: Method,
    pub(crate) name: Option<Arc<str>>,
    pub(crate) arguments: Option<JsonObject>,
    pub(crate) id: RequestId,
    pub(crate) caller: Caller,
    pub(crate) retry: bool,
    pub(crate) may_become_task: bool,
    pub(crate) annotations: Option<ToolAnnotations>,
    pub(crate) cancellation: CancellationToken,
    pub(crate) handle: Handle,
    #[cfg(feature = "otel")]
    pub(crate) trace_context: Option<TraceContext>,
    /// The transport's trace context (HTTP headers) when `_meta` had its own: linked.
    #[cfg(feature = "otel")]
    pub(crate) transport_trace_context: Option<TraceContext>,
    /// The `traceparent` of the first round of a 2026-07-28 call that asks the client: set by
    /// that round's span, carried in `requestState` to each retry, which links to it.
    #[cfg(feature = "otel")]
    pub(crate) first_round: Option<crate::ask::round::FirstRound>,
}

impl Request {
    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// What it names: the tool or prompt, the resource's URI, the prompt or template a
    /// completion is for; `None` for the lists.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The tool's name, for `tools/call`.
    pub fn tool_name(&self) -> Option<&str> {
        self.name().filter(|_| self.method == Method::CallTool)
    }

    /// The arguments: a tool's, or a prompt's (strings); `None` for other methods.
    pub fn arguments(&self) -> Option<&JsonObject> {
        self.arguments.as_ref()
    }

    /// The arguments, to change before the handler sees them.
    pub fn arguments_mut(&mut self) -> Option<&mut JsonObject> {
        self.arguments.as_mut()
    }

    /// The request's JSON-RPC id.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// Who calls.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// Whether this is a 2026-07-28 retry bringing answers (`inputResponses` or
    /// `requestState`) to the questions an earlier round asked.
    pub fn is_retry(&self) -> bool {
        self.retry
    }

    /// Whether the call may become a task (its tool allows one and its client declared the
    /// tasks extension): a layer around it then also runs around the task.
    pub fn may_become_task(&self) -> bool {
        self.may_become_task
    }

    /// The tool's annotations, for `tools/call`.
    pub fn annotations(&self) -> Option<&ToolAnnotations> {
        self.annotations.as_ref()
    }

    /// The handler's cancellation token: it fires when the client cancels the request, and
    /// a layer that gives up on the handler (a timeout) fires it so the handler's detached
    /// work stops too. Firing it does not cancel the request: the layer's answer is sent.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// The W3C trace context the client sent in the request's `_meta` (`traceparent`,
    /// `tracestate`, `baggage`), if it sent a `traceparent`.
    #[cfg(feature = "otel")]
    #[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
    pub fn trace_context(&self) -> Option<&TraceContext> {
        self.trace_context.as_ref()
    }
}

/// The W3C trace context members of a request's `_meta`, as the client wrote them: read, not
/// checked (a propagator parses them, and ignores what is malformed).
///
/// MCP carries them under the keys of the W3C headers, `traceparent`, `tracestate` and
/// `baggage`, in any revision. A request over HTTP whose `_meta` has no `traceparent` takes
/// the HTTP request's headers of those names instead (a gateway's, say).
#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceContext {
    pub(crate) traceparent: String,
    pub(crate) tracestate: Option<String>,
    pub(crate) baggage: Option<String>,
}

#[cfg(feature = "otel")]
impl TraceContext {
    /// The members of `_meta` besides those the runtime reads itself (`rest`), if they hold
    /// a `traceparent` string. Without one there is no parent to continue, so `tracestate`
    /// and `baggage` alone are not kept.
    pub(crate) fn from_meta(rest: Option<&crate::protocol::JsonObject>) -> Option<Self> {
        let rest = rest?;
        let text = |key: &str| {
            rest.get(key)
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        };
        Some(TraceContext {
            traceparent: text("traceparent")?,
            tracestate: text("tracestate"),
            baggage: text("baggage"),
        })
    }

    /// A context from its three values, as a transport read them (HTTP's headers).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn new(
        traceparent: String,
        tracestate: Option<String>,
        baggage: Option<String>,
    ) -> Self {
        TraceContext {
            traceparent,
            tracestate,
            baggage,
        }
    }

    /// The parent of a request whose `_meta` has `own` and whose transport has `ambient`:
    /// `own` if any, else `ambient`; and the transport's to link to when `own` is the parent.
    pub(crate) fn choose(
        own: Option<Self>,
        ambient: Option<&Self>,
    ) -> (Option<Self>, Option<Self>) {
        match own {
            Some(own) => {
                let link = ambient.filter(|ambient| **ambient != own).cloned();
                (Some(own), link)
            }
            None => (ambient.cloned(), None),
        }
    }

    /// `traceparent`: the trace and the client's span the request continues.
    pub fn traceparent(&self) -> &str {
        &self.traceparent
    }

    /// `tracestate`: vendors' own trace data, if sent.
    pub fn tracestate(&self) -> Option<&str> {
        self.tracestate.as_deref()
    }

    /// `baggage`: the W3C baggage (name=value pairs) the caller propagates, if sent.
    pub fn baggage(&self) -> Option<&str> {
        self.baggage.as_deref()
    }
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request")
            .field("method", &self.method)
            .field("name", &self.name)
            .field("id", &self.id)
            .field("caller", &self.caller)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}
