//! URL-mode elicitation from end to end: the elicitation exists before it is asked, so that
//! its id can travel in the URL to the page the user visits, and the app's own callback can
//! later say that it finished (`notifications/elicitation/complete`, 2025-11-25).

#[cfg(doc)]
use crate::RequestContext;
use std::fmt;
use std::sync::Arc;

use serde_json::json;

use super::Asker;
use crate::context::peer::Outbound;
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::Outgoing;
use crate::random;

/// One URL-mode elicitation: made with [`RequestContext::url_elicitation`](crate::RequestContext::url_elicitation), asked with
/// [`RequestContext::elicit_url_with`], and completed by the application once the user is
/// done at the URL (a sign-in, a payment), which is out of the client's sight.
///
/// It may outlive its request: keep it (a clone is cheap) where the page's callback finds it,
/// by [`id`](Self::id), and call [`complete`](Self::complete) there.
#[derive(Clone)]
pub struct UrlElicitation {
    id: Option<Arc<str>>,
    /// The session's way to the client, when it can be told of the completion.
    outbound: Option<Outbound>,
}

impl UrlElicitation {
    /// The `elicitationId` the client sees: in 2025-11-25 sessions a fresh random id, fit for
    /// a URL's query as it is; `None` in other revisions (a 2026-07-28 answer is tied to the
    /// retried request instead; earlier ones have no URL mode).
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// Tell the client that the interaction at the URL finished
    /// (`notifications/elicitation/complete` with this [`id`](Self::id)), so that it can go on
    /// with, or retry, what waited for it. Answers whether the client could be told: `false`
    /// where there is no id (2026-07-28, whose clients retry on their own) or no session to
    /// tell; over HTTP it goes on the session's stream, and is lost if the session has ended.
    pub fn complete(&self) -> bool {
        let (Some(id), Some(outbound)) = (&self.id, &self.outbound) else {
            return false;
        };
        outbound.send(Outgoing::notification(
            "notifications/elicitation/complete",
            Some(&json!({"elicitationId": &**id})),
        ));
        true
    }
}

impl fmt::Debug for UrlElicitation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UrlElicitation")
            .field("id", &self.id)
            .field("can_complete", &self.outbound.is_some())
            .finish()
    }
}

impl super::Asking<'_> {
    pub(crate) fn url_elicitation(&self) -> UrlElicitation {
        // Only 2025-11-25 has ids and the notification: earlier revisions have no URL mode,
        // 2026-07-28 dropped both.
        if self.revision != ProtocolVersion::V2025_11_25 {
            return UrlElicitation {
                id: None,
                outbound: None,
            };
        }
        let outbound = match self.asker {
            Some(Asker::Session(session)) => Some(session.outbound.clone()),
            _ => None,
        };
        UrlElicitation {
            id: Some(random::id().into()),
            outbound,
        }
    }
}
