//! The identity a request was authenticated as.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde_json::{Map, Value};

/// The identity a request was authenticated as: a user or client id (a token's subject), the
/// scopes it was granted, and the token's other claims for handlers that want more.
///
/// A token verifier makes one from a verified token; an
/// [authorization hook](crate::http::HttpConfig::authorize) names one by answering
/// `Ok(Principal::new(subject))`. An app that mounts the endpoint behind its own
/// authentication middleware may instead insert one into the request's extensions; a hook's
/// principal replaces it.
///
/// The subject should be stable for one user (not the token itself, which changes on
/// refresh): a legacy session opened under one principal answers 404 to any other, a task is
/// found only by the principal that started it, and a `requestState` issued to one is refused
/// for another.
///
/// ```
/// use mcp_runtime::auth::Principal;
///
/// let alice = Principal::new("alice").with_scopes(["notes:read", "notes:write"]);
/// assert_eq!(alice.subject(), "alice");
/// assert!(alice.has_scope("notes:write"));
/// assert!(!alice.has_scope("admin"));
/// ```
#[derive(Clone)]
pub struct Principal(Arc<Identity>);

struct Identity {
    subject: Arc<str>,
    scopes: Box<[Box<str>]>,
    claims: Map<String, Value>,
}

impl Principal {
    /// The principal `subject`, granted no scope.
    pub fn new(subject: impl Into<String>) -> Self {
        Principal(Arc::new(Identity {
            subject: subject.into().into(),
            scopes: Box::new([]),
            claims: Map::new(),
        }))
    }

    /// The same principal, granted `scopes` (instead of those it had). Repeats count once.
    pub fn with_scopes<I>(self, scopes: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let mut granted: Vec<Box<str>> = Vec::new();
        for scope in scopes {
            let scope: String = scope.into();
            if !scope.is_empty() && !granted.iter().any(|had| **had == *scope) {
                granted.push(scope.into());
            }
        }
        self.edit(|identity| identity.scopes = granted.into())
    }

    /// The same principal, carrying `claims` (a verified token's payload).
    pub fn with_claims(self, claims: Map<String, Value>) -> Self {
        self.edit(|identity| identity.claims = claims)
    }

    fn edit(self, change: impl FnOnce(&mut Identity)) -> Self {
        let mut identity = Arc::try_unwrap(self.0).unwrap_or_else(|shared| Identity {
            subject: shared.subject.clone(),
            scopes: shared.scopes.clone(),
            claims: shared.claims.clone(),
        });
        change(&mut identity);
        Principal(Arc::new(identity))
    }

    /// Who it is: a token's `sub`, or the name a hook gave.
    pub fn subject(&self) -> &str {
        &self.0.subject
    }

    /// [`subject`](Self::subject).
    pub fn as_str(&self) -> &str {
        &self.0.subject
    }

    /// The scopes it was granted, in the order the token listed them.
    pub fn scopes(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.0.scopes.iter().map(|scope| &**scope)
    }

    /// Whether it was granted `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.0.scopes.iter().any(|granted| **granted == *scope)
    }

    /// The token's claims (empty when a hook named the principal without them).
    pub fn claims(&self) -> &Map<String, Value> {
        &self.0.claims
    }

    /// The claim `name`, if the token had it.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.0.claims.get(name)
    }

    /// The subject, shared: what sessions, tasks and request states are bound to.
    pub(crate) fn shared(&self) -> Arc<str> {
        self.0.subject.clone()
    }
}

impl PartialEq for Principal {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || (self.0.subject == other.0.subject
                && self.0.scopes == other.0.scopes
                && self.0.claims == other.0.claims)
    }
}

impl Eq for Principal {}

impl Hash for Principal {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.subject.hash(state);
    }
}

impl fmt::Display for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.subject)
    }
}

impl fmt::Debug for Principal {
    // Claims may hold personal data (an email, a name): only their count is shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Principal")
            .field("subject", &&*self.0.subject)
            .field("scopes", &self.0.scopes)
            .field("claims", &self.0.claims.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_count_once_and_keep_their_order() {
        let principal = Principal::new("a").with_scopes(["b", "a", "b", ""]);
        assert_eq!(principal.scopes().collect::<Vec<_>>(), ["b", "a"]);
        let shared = principal.clone();
        let regranted = principal.with_scopes(["c"]);
        assert_eq!(regranted.scopes().collect::<Vec<_>>(), ["c"]);
        assert_eq!(shared.scopes().len(), 2, "a clone keeps what it had");
    }

    #[test]
    fn debug_shows_no_claim() {
        let mut claims = Map::new();
        claims.insert("email".into(), "a@example.com".into());
        let principal = Principal::new("a").with_claims(claims);
        assert!(!format!("{principal:?}").contains("example.com"));
        assert_eq!(principal.claim("email").unwrap(), "a@example.com");
    }
}
