//! The methods of resources, prompts, completions and subscriptions, in either era, and what
//! they share: running a handler's future as a pending reply, and paging a list.

use serde_json::Value;

use super::catch_unwind::PanicPayload;
use super::classify::RequestScope;
use super::{Dispatcher, Reply};
use crate::context::peer::{RequestPeer, Senders};
use crate::dispatch::session::Session;
use crate::handler::JsonObject;
use crate::protocol::jsonrpc::{ErrorObject, RequestId};
use {crate::cancel::CancellationToken, crate::context::RequestContext};

impl Dispatcher {
    /// Answer `method` if it is one of resources, prompts, completion or subscriptions and the
    /// server offers it; `None` otherwise (the caller then answers "method not found").
    pub(super) fn offering_request(
        &self,
        id: &RequestId,
        method: &str,
        params: Option<JsonObject>,
        scope: RequestScope,
        session: &Session,
    ) -> Option<Result<Reply, ErrorObject>> {
        let modern = scope.revision.is_modern();
        // A capability not offered is a method that does not exist.
        let offered = match method.split_once('/').map_or(method, |(family, _)| family) {
            "resources" => !self.resources.is_empty(),
            "prompts" => !self.prompts.is_empty(),
            "subscriptions" => !self.resources.is_empty() || !self.prompts.is_empty(),
            _ => true,
        };
        if !offered {
            return None;
        }
        Some(match method {
            "resources/list" => self.list_resources(id, params.as_ref(), scope, session),
            "resources/templates/list" => {
                self.list_resource_templates(id, params.as_ref(), scope, session.in_flight())
            }
            "resources/read" => self.read_resource(id, params, scope, session.in_flight()),
            "resources/subscribe" if !modern => self.subscribe(id, params.as_ref(), session, true),
            "resources/unsubscribe" if !modern => {
                self.subscribe(id, params.as_ref(), session, false)
            }
            "prompts/list" => self.list_prompts(id, params.as_ref(), scope, session.in_flight()),
            "prompts/get" => self.get_prompt(id, params, scope, session.in_flight()),
            "completion/complete" => self.complete(id, params.as_ref(), scope, session.in_flight()),
            "subscriptions/listen" if modern => self.listen(id, params.as_ref(), session),
            _ => return None,
        })
    }
}

/// The context a handler sees for a request made in `scope`, cancelled through `token`.
///
/// Built whole: `RequestContext::new` would make a token and an empty capabilities object
/// only to drop them, on every call.
///
/// `scope` is taken by reference, its fields moved out: a scope is some 500 bytes, and moved
/// by value it would be copied whole into each function it passes through.
///
/// A handler that cannot reach the context (`reached` false) sends nothing through its peer:
/// it has one only for what its run sends (progress heartbeats, forwarded `tracing` events).
///
/// Inlined: built in its caller's place, a context is not copied there once made.
#[inline(always)]
pub(super) fn context(
    scope: &mut RequestScope,
    token: CancellationToken,
    reached: bool,
) -> RequestContext {
    let peer = RequestPeer::for_call(
        scope.outbound.as_ref(),
        scope.revision,
        &scope.log,
        scope.progress_token.as_ref(),
        &token,
        scope.request.as_ref(),
        Senders {
            handler: reached,
            tracing: scope.forward_tracing,
        },
    );
    RequestContext {
        revision: scope.revision,
        client_capabilities: std::mem::take(&mut scope.client_capabilities),
        progress_token: scope.progress_token.take(),
        cancellation: token,
        peer,
        states: std::mem::take(&mut scope.states),
        asker: None,
        forward_tracing: scope.forward_tracing,
        principal: scope.principal.take(),
        #[cfg(feature = "tasks")]
        task: None,
        arguments_text: None,
    }
}

/// Whether a 2026-07-28 request retries an earlier round, bringing answers.
pub(super) fn is_retry(params: Option<&JsonObject>) -> bool {
    params.is_some_and(|params| {
        params.contains_key("inputResponses") || params.contains_key("requestState")
    })
}

/// The request's `cursor`: `None` for the first page.
pub(super) fn cursor(params: Option<&JsonObject>) -> Result<Option<&str>, ErrorObject> {
    match params.and_then(|params| params.get("cursor")) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(cursor)) => Ok(Some(cursor)),
        Some(_) => Err(ErrorObject::invalid_params("`cursor` must be a string")),
    }
}

/// Which page `cursor` asks for among `pages`: cursors name the page they lead to
/// (`page-N`), the first page has none; anything else is invalid params naming `method`.
pub(super) fn page_index(
    cursor: Option<&str>,
    pages: usize,
    method: &str,
) -> Result<usize, ErrorObject> {
    let Some(cursor) = cursor else {
        return Ok(0);
    };
    cursor
        .strip_prefix("page-")
        .and_then(|page| page.parse::<usize>().ok())
        .filter(|&page| page > 0 && page < pages)
        .ok_or_else(|| {
            ErrorObject::invalid_params(format!(
                "invalid cursor {cursor:?}: pass back a `nextCursor` from `{method}`"
            ))
        })
}

/// The cursor leading to page `index` of `pages`, if there is such a page.
pub(super) fn next_cursor(index: usize, pages: usize) -> Option<String> {
    (index + 1 < pages).then(|| format!("page-{}", index + 1))
}

/// The string member `name` of `params`, or invalid params saying what is needed.
pub(super) fn required_str<'a>(
    params: Option<&'a JsonObject>,
    name: &str,
    method: &str,
) -> Result<&'a str, ErrorObject> {
    match params.and_then(|params| params.get(name)) {
        Some(Value::String(value)) => Ok(value),
        Some(_) => Err(ErrorObject::invalid_params(format!(
            "`{name}` of `{method}` must be a string"
        ))),
        None => Err(ErrorObject::invalid_params(format!(
            "`{method}` needs a `{name}`"
        ))),
    }
}

/// The panic's details go to the log; the client learns only that the handler failed.
pub(super) fn panicked(what: &str, payload: &PanicPayload) -> ErrorObject {
    tracing::error!(
        handler = what,
        panic = super::catch_unwind::panic_message(payload),
        "handler panicked; answering with an internal error"
    );
    ErrorObject::internal_error(format!(
        "internal error: {what} failed unexpectedly (details are in the server's log)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_name_the_page_they_lead_to() {
        assert_eq!(page_index(None, 3, "x"), Ok(0));
        assert_eq!(page_index(Some("page-2"), 3, "x"), Ok(2));
        for bad in ["page-0", "page-3", "2", "page-x"] {
            assert!(page_index(Some(bad), 3, "x").is_err(), "{bad}");
        }
        assert_eq!(next_cursor(0, 3).as_deref(), Some("page-1"));
        assert_eq!(next_cursor(2, 3), None);
    }

    #[test]
    fn a_legacy_request_shares_its_session_capabilities() {
        use crate::protocol::ProtocolVersion;
        use crate::protocol::jsonrpc::RequestId;
        use serde_json::json;

        let mut session = crate::dispatch::session::Session::new();
        session
            .begin_legacy(ProtocolVersion::V2025_11_25, json!({"roots": {}}), None)
            .unwrap();
        let shared = &session.legacy().unwrap().shared.client_capabilities;
        let mut scope = RequestScope::legacy(
            &RequestId::Number(1.into()),
            session.legacy().unwrap(),
            None,
            &session,
            &Default::default(),
        );
        // The request's scope, then its context: the session's object itself, not a copy.
        assert_eq!(*scope.client_capabilities, json!({"roots": {}}));
        assert!(std::ptr::eq(&*scope.client_capabilities, shared));
        let context = context(&mut scope, CancellationToken::new(), true);
        assert_eq!(context.client_capabilities(), &json!({"roots": {}}));
        assert!(std::ptr::eq(context.client_capabilities(), shared));
    }
}
