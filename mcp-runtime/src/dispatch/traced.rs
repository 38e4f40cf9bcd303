//! Spans for what the server receives outside the call pipeline (`Server::trace`): the
//! handshake, `server/discover`, `ping`, `logging/setLevel`, subscriptions, the task methods
//! and notifications; and each legacy session's length. Requests that pass the pipeline get
//! theirs from its `TraceLayer`.

use opentelemetry::KeyValue;
use opentelemetry::trace::FutureExt;

use super::classify;
use super::session::Session;
use super::{Dispatcher, Reply};
use crate::middleware::trace::{Lifecycle, Received};
use crate::middleware::{Method, TraceContext};
use crate::protocol::jsonrpc::{Notification, Params, Request};

/// Whether requests of `method` pass the pipeline (where `TraceLayer` spans them).
fn piped(method: &str) -> bool {
    Method::from_name(method).is_some()
}

/// What `params` say of a message: its `_meta` trace context, and the revision a 2026-07-28
/// message names.
fn of_params(params: Option<&Params>) -> (Option<TraceContext>, Option<&'static str>) {
    let meta = params.and_then(Params::meta);
    let trace_context = TraceContext::from_meta(meta.and_then(|meta| meta.rest.as_ref()));
    let revision = classify::is_modern(params)
        .then(|| {
            meta.and_then(|meta| meta.protocol_version.as_ref())
                .and_then(|version| version.as_str())
                .and_then(super::negotiate::modern_version)
                .map(|version| version.as_str())
        })
        .flatten();
    (trace_context, revision)
}

impl Dispatcher {
    /// Answer `request`, in a span of its own unless the pipeline gives it one.
    pub(super) fn traced_request(
        &self,
        lifecycle: &Lifecycle,
        request: Request,
        session: &mut Session,
        in_batch: bool,
    ) -> Reply {
        if self.pipeline.is_some() && piped(&request.method) {
            return self.untraced_request(request, session, in_batch);
        }
        let (trace_context, revision) = of_params(request.params.as_deref());
        let legacy_revision = session.legacy().map(|legacy| legacy.version.as_str());
        let mut operation = lifecycle.start(Received {
            method: &request.method,
            id: Some(&request.id),
            revision: revision.or(legacy_revision),
            session_id: session.session_id().map(|id| &**id),
            transport: session.network_transport(),
            trace_context,
            ambient: session.header_trace_context(),
        });
        let opened = request.method == "initialize" && session.legacy().is_none();
        let reply = {
            let _entered = operation.context().clone().attach();
            self.untraced_request(request, session, in_batch)
        };
        if opened && let Some(legacy) = session.legacy() {
            let version = legacy.version.as_str();
            operation.add_attribute(KeyValue::new("mcp.protocol.version", version));
            session.set_session_span(lifecycle.session(version, session.network_transport()));
        }
        match reply {
            Reply::Ready(answer) => {
                operation.finish_answered(Some(&answer));
                Reply::Ready(answer)
            }
            Reply::None => {
                operation.finish_answered(None);
                Reply::None
            }
            Reply::Pending(answer) => {
                let context = operation.context().clone();
                Reply::Pending(Box::pin(
                    async move {
                        let answer = answer.await;
                        operation.finish_answered(answer.as_ref());
                        answer
                    }
                    .with_context(context),
                ))
            }
        }
    }

    /// Act on `notification` in a span of its own.
    pub(super) fn traced_notification(
        &self,
        lifecycle: &Lifecycle,
        notification: Notification,
        session: &mut Session,
    ) {
        let (trace_context, revision) = of_params(notification.params.as_deref());
        let operation = lifecycle.start(Received {
            method: &notification.method,
            id: None,
            revision: revision.or(session.legacy().map(|legacy| legacy.version.as_str())),
            session_id: session.session_id().map(|id| &**id),
            transport: session.network_transport(),
            trace_context,
            ambient: session.header_trace_context(),
        });
        {
            let _entered = operation.context().clone().attach();
            self.untraced_notification(notification, session);
        }
        operation.finish_answered(None);
    }
}
