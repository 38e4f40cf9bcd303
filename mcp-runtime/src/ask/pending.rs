//! Legacy sessions: a question is a real request to the client, and its response is routed
//! back to the handler that waits for it.
//!
//! Server request ids are strings `"s-<n>-<128 random bits>"`: unique per connection, and
//! unguessable, so that only the peer that received a question can answer it (an HTTP+SSE or
//! legacy session's id may leak; its questions' ids still cannot be forged). A question no longer
//! awaited (answered, timed out, or its call cancelled or dropped) is forgotten, and the
//! client is told with `notifications/cancelled` unless it already answered.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::AskError;
use crate::cancel::CancellationToken;
use crate::context::peer::Outbound;
use crate::protocol::jsonrpc::{Outgoing, RequestId};

type Answer = Result<Value, AskError>;

/// The questions a legacy session has sent and not yet seen answered. Cheap to clone.
#[derive(Clone)]
pub(crate) struct OutgoingRequests {
    session: Arc<dyn HoldsQuestions>,
}

impl Default for OutgoingRequests {
    fn default() -> Self {
        OutgoingRequests::new(Arc::new(Mutex::new(Questions::default())))
    }
}

/// Where a session keeps its questions: with the rest of what its requests share
/// (`context::session`), behind the one pointer each request holds.
pub(crate) trait HoldsQuestions: Send + Sync {
    fn questions(&self) -> &Mutex<Questions>;
}

impl HoldsQuestions for Mutex<Questions> {
    fn questions(&self) -> &Mutex<Questions> {
        self
    }
}

/// The table of a session's questions, kept with the rest of what its requests share.
#[derive(Debug, Default)]
pub(crate) struct Questions {
    next: u64,
    waiting: HashMap<String, oneshot::Sender<Answer>>,
}

impl fmt::Debug for OutgoingRequests {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutgoingRequests")
            .field("waiting", &self.table().waiting.len())
            .finish()
    }
}

impl OutgoingRequests {
    /// The questions `session` holds.
    pub(crate) fn new(session: Arc<dyn HoldsQuestions>) -> Self {
        OutgoingRequests { session }
    }

    fn table(&self) -> MutexGuard<'_, Questions> {
        self.session
            .questions()
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn register(&self) -> (String, oneshot::Receiver<Answer>) {
        let (sender, receiver) = oneshot::channel();
        let mut table = self.table();
        table.next += 1;
        let id = format!("s-{}-{}", table.next, crate::random::id());
        table.waiting.insert(id.clone(), sender);
        (id, receiver)
    }

    /// Stop waiting for `id`; whether it was still waited for.
    fn forget(&self, id: &str) -> bool {
        self.table().waiting.remove(id).is_some()
    }

    /// A response from the client: hand it to whoever waits for it. `false` when nobody does
    /// (an id we never sent, or a question already withdrawn).
    pub(crate) fn answer(
        &self,
        id: Option<&RequestId>,
        result: Option<Value>,
        error: Option<Value>,
    ) -> bool {
        let Some(RequestId::String(id)) = id else {
            return false;
        };
        let Some(waiting) = self.table().waiting.remove(id) else {
            return false;
        };
        let answer = match (result, error) {
            (_, Some(error)) => Err(AskError::Rejected {
                code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("(no message)")
                    .to_owned(),
            }),
            (Some(result), None) => Ok(result),
            (None, None) => Err(AskError::InvalidAnswer("a response with no result".into())),
        };
        // The asker may have given up a moment ago; then nobody reads it.
        let _ = waiting.send(answer);
        true
    }
}

/// How a request of a legacy session asks the client.
#[derive(Clone)]
pub(crate) struct SessionAsker {
    pub(crate) outbound: Outbound,
    pub(crate) requests: OutgoingRequests,
    pub(crate) timeout: Duration,
    /// The request the questions are about (an HTTP transport sends them on its stream).
    pub(crate) related: RequestId,
}

impl fmt::Debug for SessionAsker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionAsker")
            .field("timeout", &self.timeout)
            .field("related", &self.related)
            .finish_non_exhaustive()
    }
}

impl SessionAsker {
    pub(super) async fn ask(
        &self,
        method: &'static str,
        params: Value,
        cancellation: &CancellationToken,
    ) -> Result<Value, AskError> {
        if cancellation.is_cancelled() {
            return Err(AskError::Cancelled);
        }
        let (id, answer) = self.requests.register();
        // Dropped with this future, however it ends: a call dropped mid-question withdraws it.
        let _withdraw = Withdraw {
            asker: self,
            id: id.clone(),
        };
        let request_id = RequestId::String(id);
        tracing::debug!(id = %request_id, method, "asking the client");
        self.outbound.send_for(
            &self.related,
            Outgoing::request(&request_id, method, &params),
        );
        tokio::select! {
            answer = answer => answer.unwrap_or(Err(AskError::Cancelled)),
            () = tokio::time::sleep(self.timeout) => Err(AskError::TimedOut),
            () = cancellation.cancelled() => Err(AskError::Cancelled),
        }
    }
}

/// Withdraws a question on drop, telling the client if it had not answered.
struct Withdraw<'a> {
    asker: &'a SessionAsker,
    id: String,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        if self.asker.requests.forget(&self.id) {
            let params = json!({"requestId": self.id, "reason": "the server stopped waiting"});
            self.asker.outbound.send_for(
                &self.asker.related,
                Outgoing::notification("notifications/cancelled", Some(&params)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorder() -> (Outbound, Arc<Mutex<Vec<Value>>>) {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let sink = sent.clone();
        let outbound = Outbound::new(move |message: Outgoing| {
            sink.lock()
                .unwrap()
                .push(serde_json::from_slice(message.as_bytes()).unwrap());
        });
        (outbound, sent)
    }

    fn asker(outbound: Outbound, timeout: Duration) -> SessionAsker {
        SessionAsker {
            outbound,
            requests: OutgoingRequests::default(),
            timeout,
            related: RequestId::Number(1.into()),
        }
    }

    #[tokio::test]
    async fn an_answer_reaches_the_asker_and_only_once() {
        let (outbound, sent) = recorder();
        let asker = asker(outbound, Duration::from_secs(60));
        let requests = asker.requests.clone();
        let token = CancellationToken::new();
        let asking = tokio::spawn({
            let asker = asker.clone();
            async move { asker.ask("roots/list", json!({}), &token).await }
        });
        while sent.lock().unwrap().is_empty() {
            tokio::task::yield_now().await;
        }
        let question = sent.lock().unwrap()[0].clone();
        let sent_id = question["id"].as_str().unwrap().to_owned();
        assert_eq!(
            question,
            json!({"jsonrpc": "2.0", "id": sent_id, "method": "roots/list", "params": {}})
        );
        // The counter alone does not answer it: the id's random part must be known.
        let suffix = sent_id.strip_prefix("s-1-").expect("a counted id");
        assert_eq!(suffix.len(), 32, "{sent_id}");
        assert!(suffix.bytes().all(|byte| byte.is_ascii_hexdigit()));
        for guess in ["s-1", "s-1-0", "s-1-00000000000000000000000000000000"] {
            assert!(!requests.answer(
                Some(&RequestId::String(guess.into())),
                Some(json!({})),
                None
            ));
        }
        let id = RequestId::String(sent_id);
        assert!(requests.answer(Some(&id), Some(json!({"roots": []})), None));
        assert!(
            !requests.answer(Some(&id), Some(json!({})), None),
            "answered already"
        );
        assert_eq!(asking.await.unwrap(), Ok(json!({"roots": []})));
        assert_eq!(
            sent.lock().unwrap().len(),
            1,
            "no cancellation after an answer"
        );
    }

    #[tokio::test]
    async fn errors_from_the_client_are_rejections() {
        let (outbound, _) = recorder();
        let asker = asker(outbound, Duration::from_secs(60));
        let requests = asker.requests.clone();
        let token = CancellationToken::new();
        let asking = tokio::spawn({
            let asker = asker.clone();
            async move { asker.ask("sampling/createMessage", json!({}), &token).await }
        });
        let id = loop {
            if let Some(id) = requests.table().waiting.keys().next().cloned() {
                break id;
            }
            tokio::task::yield_now().await;
        };
        assert!(requests.answer(
            Some(&RequestId::String(id)),
            None,
            Some(json!({"code": -1, "message": "user rejected sampling"})),
        ));
        assert_eq!(
            asking.await.unwrap(),
            Err(AskError::Rejected {
                code: -1,
                message: "user rejected sampling".into()
            })
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_timeout_or_a_cancel_withdraws_the_question() {
        let (outbound, sent) = recorder();
        let asker = asker(outbound, Duration::from_secs(30));
        let token = CancellationToken::new();
        assert_eq!(
            asker.ask("roots/list", json!({}), &token).await,
            Err(AskError::TimedOut)
        );
        let cancel = token.clone();
        tokio::spawn(async move { cancel.cancel() });
        assert_eq!(
            asker.ask("roots/list", json!({}), &token).await,
            Err(AskError::Cancelled)
        );
        let sent = sent.lock().unwrap();
        let methods: Vec<&str> = sent.iter().map(|m| m["method"].as_str().unwrap()).collect();
        assert_eq!(
            methods,
            [
                "roots/list",
                "notifications/cancelled",
                "roots/list",
                "notifications/cancelled"
            ]
        );
        assert_eq!(sent[1]["params"]["requestId"], sent[0]["id"]);
        assert!(asker.requests.table().waiting.is_empty());
    }
}
