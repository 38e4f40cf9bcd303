//! Requests without a modern `_meta`: the handshake-based revisions 2024-11-05 to 2025-11-25.

use serde_json::Value;

use super::classify::RequestScope;
use super::{Dispatcher, Reply, negotiate};
use crate::dispatch::session::{AlreadyInitialized, Session};
use crate::handler::JsonObject;
use crate::protocol::jsonrpc::{ErrorObject, Outgoing, Params, RequestId};
use crate::protocol::wire::{EmptyObject, InitializeResult};

impl Dispatcher {
    pub(super) fn legacy_request(
        &self,
        id: &RequestId,
        method: &str,
        params: Option<Box<Params>>,
        session: &mut Session,
        in_batch: bool,
    ) -> Result<Reply, ErrorObject> {
        match method {
            "initialize" => self.initialize(
                id,
                params.map(|params| params.into_object()).transpose()?,
                session,
                in_batch,
            ),
            // Legacy clients may ping before `initialize` completes.
            "ping" => Ok(Reply::Ready(Outgoing::result(id, &EmptyObject {}))),
            _ => {
                let Some(legacy) = session.legacy() else {
                    return Err(not_initialized(method));
                };
                let revision = legacy.version;
                match method {
                    "tools/list" => self.list_tools(
                        id,
                        revision,
                        params.as_deref(),
                        || {
                            RequestScope::legacy(
                                id,
                                legacy,
                                params.as_deref(),
                                session,
                                &self.states,
                            )
                        },
                        session.in_flight(),
                    ),
                    "tools/call" => {
                        let mut scope = RequestScope::legacy(
                            id,
                            legacy,
                            params.as_deref(),
                            session,
                            &self.states,
                        );
                        scope.forward_tracing = self.forward_tracing;
                        self.call_tool(id, params, &mut scope, session.in_flight())
                    }
                    "logging/setLevel" => {
                        let params = params.map(|params| params.into_object()).transpose()?;
                        self.set_log_level(id, params.as_ref(), session)
                    }
                    other => {
                        let mut scope = RequestScope::legacy(
                            id,
                            legacy,
                            params.as_deref(),
                            session,
                            &self.states,
                        );
                        scope.forward_tracing = self.forward_tracing;
                        let params = params.map(|params| params.into_object()).transpose()?;
                        self.offering_request(id, other, params, scope, session)
                            .unwrap_or_else(|| Err(ErrorObject::method_not_found(method)))
                    }
                }
            }
        }
    }

    /// Negotiate a legacy revision and open the session on it.
    fn initialize(
        &self,
        id: &RequestId,
        params: Option<JsonObject>,
        session: &mut Session,
        in_batch: bool,
    ) -> Result<Reply, ErrorObject> {
        if in_batch {
            return Err(ErrorObject::invalid_request(
                "`initialize` must not be part of a JSON-RPC batch",
            ));
        }
        let mut params = params.ok_or_else(|| {
            ErrorObject::invalid_params("`initialize` needs params with a `protocolVersion`")
        })?;
        let Some(Value::String(requested)) = params.get("protocolVersion") else {
            return Err(ErrorObject::invalid_params(
                "`protocolVersion` must be a string",
            ));
        };
        let version = negotiate::legacy_version(requested);
        tracing::info!(
            requested = requested.as_str(),
            negotiated = version.as_str(),
            client = %params.get("clientInfo").unwrap_or(&serde_json::Value::Null),
            "initialize"
        );
        let client_capabilities = match params.remove("capabilities") {
            Some(capabilities @ Value::Object(_)) => capabilities,
            _ => Value::Object(JsonObject::new()),
        };
        let client = params
            .get("clientInfo")
            .and_then(crate::middleware::ClientInfo::from_value);
        session
            .begin_legacy(version, client_capabilities, client)
            .map_err(|AlreadyInitialized(current)| {
                ErrorObject::invalid_request(format!(
                    "already initialized (at {current}): `initialize` may be sent only once per \
                     connection"
                ))
            })?;
        let capabilities = self.capabilities.for_revision(version);
        let result = InitializeResult::new(
            version,
            &self.info,
            &capabilities,
            self.instructions.as_deref(),
        );
        Ok(Reply::Ready(Outgoing::result(id, &result)))
    }
}

/// A legacy request before `initialize`. Invalid params rather than a reason to exit: the
/// client may be probing, and the message says how to proceed in either era.
fn not_initialized(method: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!(
        "`{method}` before `initialize`: send `initialize` first, or put \
         `io.modelcontextprotocol/protocolVersion` in `_meta` to speak 2026-07-28"
    ))
}
