//! Asking the client from inside a handler: an answer from the user (`elicitation/create`), a
//! completion from the client's model (`sampling/createMessage`), the client's roots
//! (`roots/list`).
//!
//! A handler asks the same way in every revision; the era decides how the question travels:
//!
//! * legacy sessions (2024-11-05 .. 2025-11-25): a real server-to-client request on the
//!   connection, awaited in place (`pending`);
//! * 2026-07-28: the call ends with an `InputRequiredResult` listing the questions and a sealed
//!   `requestState`; the client retries with the answers and the handler is run again from the
//!   top, each question it already asked now answered at once (`round`, `seal`).
//!
//! The design and its trade-offs are in `docs/asking-the-client.md`.

pub(crate) mod error;
mod form;
pub(crate) mod missing;
pub(crate) mod pending;
mod replay;
pub(crate) mod round;
mod sampling;
pub(crate) mod seal;
mod url;

#[cfg(doc)]
use crate::RequestContext;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

pub use error::AskError;
pub(crate) use replay::SharedReplayGuard;
pub use replay::{MemoryReplayGuard, ReplayGuard};
pub use sampling::{Root, SampledMessage, SamplingMessage, SamplingRequest};
pub use url::UrlElicitation;

use crate::cancel::CancellationToken;
use crate::protocol::ProtocolVersion;
use pending::SessionAsker;
use round::InputRound;

/// How a running request reaches the client with a question.
#[derive(Debug, Clone)]
pub(crate) enum Asker {
    /// A legacy session: real requests on the connection.
    Session(SessionAsker),
    /// A 2026-07-28 request: questions collected into an `InputRequiredResult`.
    Round(Arc<InputRound>),
    /// A 2026-07-28 request that can ask nothing: what its handler wanted is noted.
    Unasked(Arc<missing::MissingCapabilities>),
}

/// What the user did with an elicitation form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// The user submitted the form; its content, read as `T`.
    Accepted(T),
    /// The user said no.
    Declined,
    /// The user dismissed the form without choosing.
    Cancelled,
}

/// The client feature a question needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Capability {
    /// Form-mode elicitation.
    Elicitation,
    /// URL-mode elicitation (2025-11-25 on).
    ElicitationUrl,
    Sampling,
    Roots,
}

impl Capability {
    /// The member of `ClientCapabilities` that declares it.
    fn name(self) -> &'static str {
        match self {
            Capability::Elicitation | Capability::ElicitationUrl => "elicitation",
            Capability::Sampling => "sampling",
            Capability::Roots => "roots",
        }
    }

    /// What a client declares to have it (for `-32021`'s `requiredCapabilities`).
    fn declaration(self) -> Value {
        match self {
            Capability::ElicitationUrl => json!({"url": {}}),
            _ => json!({}),
        }
    }
}

/// What asking the client needs of one request: a view of its
/// [`RequestContext`](crate::RequestContext), whose public methods delegate here.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Asking<'a> {
    pub(crate) revision: ProtocolVersion,
    pub(crate) client_capabilities: &'a Value,
    pub(crate) asker: Option<&'a Asker>,
    pub(crate) cancellation: &'a CancellationToken,
}

impl Asking<'_> {
    pub(crate) async fn elicit_url_with(
        &self,
        elicitation: &UrlElicitation,
        message: String,
        url: String,
    ) -> Result<Elicitation<()>, AskError> {
        self.supports(Capability::ElicitationUrl)?;
        let mut params = json!({"mode": "url", "message": message, "url": url});
        // 2026-07-28 ties the answer to the retried request instead of an id.
        if let Some(id) = elicitation.id().filter(|_| !self.revision.is_modern()) {
            params["elicitationId"] = Value::String(id.to_owned());
        }
        let answer = self.ask(None, "elicitation/create", params).await?;
        form::read_action(answer)
    }

    pub(crate) async fn elicit_as<T>(
        &self,
        key: Option<&str>,
        message: String,
    ) -> Result<Elicitation<T>, AskError>
    where
        T: DeserializeOwned + JsonSchema,
    {
        self.supports(Capability::Elicitation)?;
        let schema = form::requested_schema::<T>(self.revision)?;
        let params = json!({"message": message, "requestedSchema": schema});
        let answer = self.ask(key, "elicitation/create", params).await?;
        form::read_answer(answer)
    }

    pub(crate) async fn sample_as(
        &self,
        key: Option<&str>,
        request: SamplingRequest,
    ) -> Result<SampledMessage, AskError> {
        self.supports(Capability::Sampling)?;
        let answer = self
            .ask(key, "sampling/createMessage", request.to_params())
            .await?;
        SampledMessage::from_answer(answer)
    }

    pub(crate) async fn roots_as(&self, key: Option<&str>) -> Result<Vec<Root>, AskError> {
        self.supports(Capability::Roots)?;
        let answer = self.ask(key, "roots/list", json!({})).await?;
        Root::from_answer(answer)
    }

    /// Whether this request's client can answer `capability`'s questions.
    fn supports(&self, capability: Capability) -> Result<(), AskError> {
        let declared = self.client_capabilities.get(capability.name());
        let unsupported = |reason: String| {
            Err(AskError::Unsupported {
                capability: capability.name(),
                reason,
            })
        };
        if capability == Capability::Elicitation && self.revision < ProtocolVersion::V2025_06_18 {
            return unsupported(format!("elicitation does not exist in {}", self.revision));
        }
        if capability == Capability::ElicitationUrl && self.revision < ProtocolVersion::V2025_11_25
        {
            return unsupported(format!(
                "URL-mode elicitation does not exist in {}",
                self.revision
            ));
        }
        let note_missing = || match &self.asker {
            Some(Asker::Round(round)) => {
                round.note_missing(capability.name(), capability.declaration());
            }
            Some(Asker::Unasked(wanted)) => {
                wanted.note(capability.name(), capability.declaration())
            }
            Some(Asker::Session(_)) | None => {}
        };
        let Some(Value::Object(declared)) = declared else {
            note_missing();
            return unsupported(format!(
                "the client did not declare the `{}` capability",
                capability.name()
            ));
        };
        // From 2025-11-25 a client names the elicitation modes it takes; none named means form.
        if capability == Capability::Elicitation
            && self.revision >= ProtocolVersion::V2025_11_25
            && !declared.is_empty()
            && !declared.contains_key("form")
        {
            return unsupported("the client takes no form-mode elicitation".into());
        }
        if capability == Capability::ElicitationUrl && !declared.contains_key("url") {
            note_missing();
            return unsupported("the client takes no URL-mode elicitation".into());
        }
        if self.asker.is_none() {
            return unsupported(
                "only tool calls, prompt gets and resource reads can ask the client".into(),
            );
        }
        Ok(())
    }

    async fn ask(
        &self,
        key: Option<&str>,
        method: &'static str,
        params: Value,
    ) -> Result<Value, AskError> {
        match &self.asker {
            Some(Asker::Session(asker)) => asker.ask(method, params, self.cancellation).await,
            Some(Asker::Round(round)) => round.ask(key, method, params).await,
            Some(Asker::Unasked(_)) | None => Err(AskError::Unsupported {
                capability: "asking",
                reason: "this request cannot ask the client".into(),
            }),
        }
    }
}

/// A question with a name of its own (see [`RequestContext::named`]): the same
/// [`elicit`](RequestContext::elicit), [`sample`](RequestContext::sample) and
/// [`roots`](RequestContext::roots).
#[derive(Debug, Clone, Copy)]
pub struct NamedQuestion<'a> {
    asking: Asking<'a>,
    key: &'a str,
}

impl<'a> NamedQuestion<'a> {
    pub(crate) fn new(asking: Asking<'a>, key: &'a str) -> Self {
        NamedQuestion { asking, key }
    }

    /// [`RequestContext::elicit`], under this name.
    pub async fn elicit<T>(self, message: impl Into<String>) -> Result<Elicitation<T>, AskError>
    where
        T: DeserializeOwned + JsonSchema,
    {
        self.asking.elicit_as(Some(self.key), message.into()).await
    }

    /// [`RequestContext::sample`], under this name.
    pub async fn sample(self, request: SamplingRequest) -> Result<SampledMessage, AskError> {
        self.asking.sample_as(Some(self.key), request).await
    }

    /// [`RequestContext::roots`], under this name.
    pub async fn roots(self) -> Result<Vec<Root>, AskError> {
        self.asking.roots_as(Some(self.key)).await
    }
}
