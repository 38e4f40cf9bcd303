//! Asking the client from inside a handler: an answer from the user (`elicitation/create`), a
//! completion from the client's model (`sampling/createMessage`), the client's roots
//! (`roots/list`).
//!
//! A handler asks the same way in every revision; the era decides how the question travels:
//!
//! * legacy sessions (2024-11-05 .. 2025-11-25): a real server-to-client request on the
//!   connection, awaited in place ([`pending`]);
//! * 2026-07-28: the call ends with an `InputRequiredResult` listing the questions and a sealed
//!   `requestState`; the client retries with the answers and the handler is run again from the
//!   top, each question it already asked now answered at once ([`round`], [`seal`]).
//!
//! The design and its trade-offs are in `docs/asking-the-client.md`.

mod canonical;
mod error;
mod form;
pub(crate) mod missing;
pub(crate) mod pending;
mod replay;
pub(crate) mod round;
mod sampling;
pub(crate) mod seal;
mod url;

use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

pub use error::AskError;
pub(crate) use replay::SharedReplayGuard;
pub use replay::{MemoryReplayGuard, ReplayGuard};
pub use sampling::{Root, SampledMessage, SamplingMessage, SamplingRequest};
pub use url::UrlElicitation;

use crate::context::RequestContext;
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

impl RequestContext {
    /// Ask the user to fill in a form whose fields are `T`'s (an `elicitation/create` request,
    /// form mode), and wait for the answer.
    ///
    /// `T` must be a struct of flat fields: strings (with `format` email, uri, date or
    /// date-time), numbers, integers, booleans, unit-variant enums, each optional or not; its
    /// doc comments become the fields' descriptions. Anything else (a nested struct, a list)
    /// is [`AskError::InvalidForm`], since no revision lets a form hold it.
    ///
    /// Works for tools, prompts and resource reads, for clients that declared the
    /// `elicitation` capability (revisions from 2025-06-18 on); others get
    /// [`AskError::Unsupported`] at once, never a hang. A 2026-07-28 request is answered by
    /// re-running the handler (see the module docs and the README): keep side effects after
    /// the questions.
    ///
    /// ```
    /// use mcp_runtime::{Elicitation, RequestContext, mcp_tool};
    ///
    /// /// What the user confirms.
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Confirm {
    ///     /// Type the repository's name to confirm.
    ///     name: String,
    /// }
    ///
    /// /// Delete a repository, once the user confirms.
    /// #[mcp_tool(annotations(destructive))]
    /// async fn delete_repository(name: String, ctx: RequestContext) -> Result<String, String> {
    ///     match ctx.elicit::<Confirm>(format!("Delete {name}?")).await {
    ///         Ok(Elicitation::Accepted(confirm)) if confirm.name == name => {
    ///             Ok(format!("deleted {name}"))
    ///         }
    ///         Ok(_) => Ok("nothing deleted".to_owned()),
    ///         Err(error) => Err(format!("cannot confirm: {error}")),
    ///     }
    /// }
    /// ```
    pub async fn elicit<T>(&self, message: impl Into<String>) -> Result<Elicitation<T>, AskError>
    where
        T: DeserializeOwned + JsonSchema,
    {
        self.elicit_as(None, message.into()).await
    }

    /// Ask the user to visit `url` (an `elicitation/create` request in URL mode, 2025-11-25
    /// on): for what must not pass through the client, such as signing in to a third party
    /// or entering a payment. `Accepted(())` means the user agreed to open it; what happens
    /// there reaches the server out of band (its own callback), not through this answer.
    ///
    /// Needs the `url` member of the client's `elicitation` capability, else
    /// [`AskError::Unsupported`]. In 2025-11-25 each request carries a fresh `elicitationId`;
    /// to put it into the URL, or to tell the client when the user is done there, make the
    /// elicitation first and ask with [`elicit_url_with`](Self::elicit_url_with).
    ///
    /// ```
    /// use mcp_runtime::{Elicitation, RequestContext, mcp_tool};
    ///
    /// /// Connect the user's calendar.
    /// #[mcp_tool]
    /// async fn connect_calendar(ctx: RequestContext) -> Result<String, String> {
    ///     let url = "https://calendar.example.com/oauth/authorize?client_id=mcp";
    ///     match ctx.elicit_url("Sign in to your calendar", url).await {
    ///         Ok(Elicitation::Accepted(())) => Ok("waiting for the sign-in to finish".into()),
    ///         Ok(_) => Ok("not connected".into()),
    ///         Err(error) => Err(error.to_string()),
    ///     }
    /// }
    /// ```
    pub async fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<Elicitation<()>, AskError> {
        self.elicit_url_with(&self.url_elicitation(), message, url)
            .await
    }

    /// [`elicit_url`](Self::elicit_url) for an `elicitation` made beforehand with
    /// [`url_elicitation`](Self::url_elicitation) (the example there shows why).
    pub async fn elicit_url_with(
        &self,
        elicitation: &UrlElicitation,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<Elicitation<()>, AskError> {
        self.supports(Capability::ElicitationUrl)?;
        let mut params = json!({"mode": "url", "message": message.into(), "url": url.into()});
        // 2026-07-28 ties the answer to the retried request instead of an id.
        if let Some(id) = elicitation.id().filter(|_| !self.revision.is_modern()) {
            params["elicitationId"] = Value::String(id.to_owned());
        }
        let answer = self.ask(None, "elicitation/create", params).await?;
        form::read_action(answer)
    }

    /// Ask the client's model for a completion (`sampling/createMessage`); the client's user
    /// may review both the request and the answer.
    ///
    /// Needs the client's `sampling` capability, else [`AskError::Unsupported`]. Sampling is
    /// deprecated in 2026-07-28 but still served to clients that declare it.
    ///
    /// ```
    /// use mcp_runtime::{RequestContext, SamplingRequest, mcp_tool};
    ///
    /// /// Summarize a text with the client's model.
    /// #[mcp_tool]
    /// async fn summarize(text: String, ctx: RequestContext) -> Result<String, String> {
    ///     let request = SamplingRequest::new(200).user(format!("Summarize:\n{text}"));
    ///     let answer = ctx.sample(request).await.map_err(|error| error.to_string())?;
    ///     Ok(answer.text().unwrap_or_default().to_owned())
    /// }
    /// ```
    pub async fn sample(&self, request: SamplingRequest) -> Result<SampledMessage, AskError> {
        self.sample_as(None, request).await
    }

    /// The client's roots (`roots/list`): the directories or files it lets the server work on.
    ///
    /// Needs the client's `roots` capability, else [`AskError::Unsupported`].
    pub async fn roots(&self) -> Result<Vec<Root>, AskError> {
        self.roots_as(None).await
    }

    /// Ask a question under `key`: the name it has among a 2026-07-28 result's
    /// `inputRequests` (and in the client's `inputResponses`), instead of the default `q0`,
    /// `q1`, ... in the order of asking. For clients that expect a given name; legacy sessions
    /// ignore it. A handler must not use one key for two questions of one run.
    ///
    /// ```
    /// use mcp_runtime::{Elicitation, RequestContext, mcp_tool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Name {
    ///     name: String,
    /// }
    ///
    /// /// Greet the user by name.
    /// #[mcp_tool]
    /// async fn greet(ctx: RequestContext) -> Result<String, String> {
    ///     match ctx.named("user_name").elicit::<Name>("What is your name?").await {
    ///         Ok(Elicitation::Accepted(Name { name })) => Ok(format!("Hello, {name}!")),
    ///         Ok(_) => Ok("Hello!".to_owned()),
    ///         Err(error) => Err(error.to_string()),
    ///     }
    /// }
    /// ```
    pub fn named<'a>(&'a self, key: &'a str) -> NamedQuestion<'a> {
        NamedQuestion { context: self, key }
    }

    async fn elicit_as<T>(
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

    async fn sample_as(
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

    async fn roots_as(&self, key: Option<&str>) -> Result<Vec<Root>, AskError> {
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
            Some(Asker::Session(asker)) => asker.ask(method, params, &self.cancellation).await,
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
    context: &'a RequestContext,
    key: &'a str,
}

impl NamedQuestion<'_> {
    /// [`RequestContext::elicit`], under this name.
    pub async fn elicit<T>(self, message: impl Into<String>) -> Result<Elicitation<T>, AskError>
    where
        T: DeserializeOwned + JsonSchema,
    {
        self.context.elicit_as(Some(self.key), message.into()).await
    }

    /// [`RequestContext::sample`], under this name.
    pub async fn sample(self, request: SamplingRequest) -> Result<SampledMessage, AskError> {
        self.context.sample_as(Some(self.key), request).await
    }

    /// [`RequestContext::roots`], under this name.
    pub async fn roots(self) -> Result<Vec<Root>, AskError> {
        self.context.roots_as(Some(self.key)).await
    }
}
