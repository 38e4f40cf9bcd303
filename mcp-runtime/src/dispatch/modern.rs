//! Requests with `_meta["io.modelcontextprotocol/protocolVersion"]`: the stateless 2026-07-28
//! era. Nothing here reads or changes the session's era.

use super::classify::RequestScope;
use super::{Dispatcher, LIST_TTL, Reply};
use crate::dispatch::session::Session;
use crate::protocol::jsonrpc::{ErrorObject, Outgoing, Params, RequestId};
use crate::protocol::wire::{DiscoverResult, ModernResult};

/// Methods 2026-07-28 removed; named in the error so a confused client's log says why.
const REMOVED: [&str; 5] = [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

impl Dispatcher {
    pub(super) fn modern_request(
        &self,
        id: &RequestId,
        method: &str,
        mut params: Box<Params>,
        session: &Session,
    ) -> Result<Reply, ErrorObject> {
        let mut scope = RequestScope::take(&mut params, &self.supported_versions)?;
        scope.outbound = session.outbound().cloned();
        scope.request = Some(id.clone());
        scope.forward_tracing = self.forward_tracing;
        scope.states = self.states.clone();
        scope.principal = session.principal().cloned();
        scope.authenticated = session.authenticated();
        scope.connection = session.connection();
        #[cfg(feature = "otel")]
        {
            scope.network_transport = session.network_transport();
            (scope.trace_context, scope.transport_trace_context) =
                crate::middleware::TraceContext::choose(
                    scope.trace_context.take(),
                    session.header_trace_context(),
                );
        }
        let revision = scope.revision;
        match method {
            "server/discover" => {
                let result = DiscoverResult::new(
                    &self.supported_versions,
                    &self.capabilities,
                    self.instructions.as_deref(),
                    ModernResult::cacheable(&self.modern_meta, LIST_TTL),
                );
                Ok(Reply::Ready(Outgoing::result(id, &result)))
            }
            "tools/list" => {
                self.list_tools(id, revision, Some(&*params), || scope, session.in_flight())
            }
            "tools/call" => self.call_tool(id, Some(params), &mut scope, session.in_flight()),
            removed if REMOVED.contains(&removed) => Err(ErrorObject::new(
                ErrorObject::METHOD_NOT_FOUND,
                format!(
                    "method not found: `{removed}` does not exist in {revision} (send it without \
                     `_meta[\"io.modelcontextprotocol/protocolVersion\"]` to use a legacy session)"
                ),
            )),
            other => {
                let params = params.into_object()?;
                #[cfg(feature = "tasks")]
                if let Some(answer) = self.task_request(id, other, &params, &scope) {
                    return answer;
                }
                self.offering_request(id, other, Some(params), scope, session)
                    .unwrap_or_else(|| Err(ErrorObject::method_not_found(method)))
            }
        }
    }
}
