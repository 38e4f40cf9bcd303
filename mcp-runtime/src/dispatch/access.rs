//! Who may use what: an offering that declares scopes is served to a caller holding every one
//! of them, and listed only to such callers unless the server lists everything.
//!
//! Three kinds of caller: the operator (stdio or the in-process client, with no principal set:
//! whoever started the process is trusted with every scope), a principal (its scopes decide),
//! and an anonymous caller of an authenticated transport (an HTTP request nobody was named
//! for: it holds no scope).

use std::borrow::Cow;

use super::classify::RequestScope;
use crate::auth::Principal;
use crate::protocol::jsonrpc::ErrorObject;

impl RequestScope {
    /// Whether the caller holds every one of `required`.
    #[inline]
    pub(crate) fn may_use(&self, required: &[Cow<'static, str>]) -> bool {
        required.is_empty() || holds(self.principal.as_ref(), self.authenticated, required)
    }

    /// `Ok` when the caller may use an offering needing `required`; the insufficient-scope
    /// refusal, naming them all, otherwise.
    #[inline]
    pub(crate) fn permit(&self, required: &[Cow<'static, str>]) -> Result<(), ErrorObject> {
        permit(self.principal.as_ref(), self.authenticated, required)
    }

    /// Whether the lists this caller gets may differ from another's, given whether some
    /// offering of the list declares scopes (`scoped`) and whether the server hides what a
    /// caller may not use.
    pub(crate) fn lists_privately(&self, scoped: bool, hide: bool) -> bool {
        scoped && hide && self.authenticated
    }
}

/// [`RequestScope::permit`] for a caller known by its principal, and whether its transport
/// authenticates (a legacy session's, for `resources/subscribe`).
#[inline]
pub(crate) fn permit(
    principal: Option<&Principal>,
    authenticated: bool,
    required: &[Cow<'static, str>],
) -> Result<(), ErrorObject> {
    if required.is_empty() || holds(principal, authenticated, required) {
        return Ok(());
    }
    Err(refuse(principal, required))
}

fn holds(
    principal: Option<&Principal>,
    authenticated: bool,
    required: &[Cow<'static, str>],
) -> bool {
    !authenticated
        || principal
            .is_some_and(|principal| required.iter().all(|scope| principal.has_scope(scope)))
}

#[cold]
fn refuse(principal: Option<&Principal>, required: &[Cow<'static, str>]) -> ErrorObject {
    let scope = required.join(" ");
    tracing::info!(
        principal = principal.map(Principal::subject),
        needs = scope,
        "refused a request lacking a scope"
    );
    ErrorObject::insufficient_scope(scope)
}
