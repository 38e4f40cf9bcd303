//! `logging/setLevel` (legacy): the session's minimum level of log messages.

use serde_json::Value;

use super::{Dispatcher, Reply};
use crate::context::logging::LogLevel;
use crate::dispatch::session::Session;
use crate::handler::JsonObject;
use crate::protocol::jsonrpc::{ErrorObject, Outgoing, RequestId};
use crate::protocol::wire::EmptyObject;

impl Dispatcher {
    /// Set the level from now on, for calls already running too. An unknown level is invalid
    /// params (`-32602`) and changes nothing.
    pub(super) fn set_log_level(
        &self,
        id: &RequestId,
        params: Option<&JsonObject>,
        session: &Session,
    ) -> Result<Reply, ErrorObject> {
        let level = match params.and_then(|params| params.get("level")) {
            Some(Value::String(level)) => level
                .parse::<LogLevel>()
                .map_err(|unknown| ErrorObject::invalid_params(unknown.to_string()))?,
            _ => {
                return Err(ErrorObject::invalid_params(
                    "`logging/setLevel` needs a `level` (debug, info, notice, warning, error, \
                     critical, alert or emergency)",
                ));
            }
        };
        session.set_log_level(level);
        Ok(Reply::Ready(Outgoing::result(id, &EmptyObject {})))
    }
}
