//! The per-request protocol context: an input of every handler, never global session state.
//!
//! Every public method of [`RequestContext`] is here; each delegates to the module that does
//! the work (`ask`, `task`, [`peer`], [`state`]), which sit below this file and never name it.

pub(crate) mod forward;
pub(crate) mod logging;
pub(crate) mod peer;
pub(crate) mod session;
pub(crate) mod state;

use crate::auth::Principal;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde_json::Value;
use serde_json::value::RawValue;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::ask::{
    AskError, Asker, Asking, Elicitation, NamedQuestion, Root, SampledMessage, SamplingRequest,
    UrlElicitation,
};
pub use crate::cancel::CancellationToken;
use crate::protocol::ProtocolVersion;
use logging::LogLevel;
use peer::RequestPeer;
use session::SessionShared;
use state::{State, States};

/// The client's capabilities as a request holds them. A legacy session's are shared by every
/// request made in it: a deep copy of them on every call cost some 1.6 k instructions and as
/// many allocations as the object has members and levels, and as much again to drop.
#[derive(Debug, Clone)]
pub(crate) enum Capabilities {
    /// Declared by the request itself (2026-07-28 `_meta`), or set by hand.
    Own(Value),
    /// Declared by the request itself as the client wrote them (an object), built when first
    /// read: most requests read a key or two, if anything.
    Text(Box<RawValue>, OnceLock<Value>),
    /// The session's, from its `initialize`.
    Session(Arc<SessionShared>),
}

impl Default for Capabilities {
    fn default() -> Self {
        Capabilities::Own(Value::Object(Default::default()))
    }
}

impl Deref for Capabilities {
    type Target = Value;

    fn deref(&self) -> &Value {
        match self {
            Capabilities::Own(capabilities) => capabilities,
            Capabilities::Text(text, built) => built.get_or_init(|| {
                serde_json::from_str(text.get()).unwrap_or_else(|error| {
                    // Well-formed, but beyond what serde_json holds (a number out of `f64`'s
                    // range, nesting deeper than 128): read as declaring nothing.
                    tracing::debug!(%error, "client capabilities that cannot be read");
                    Value::Object(Default::default())
                })
            }),
            Capabilities::Session(session) => &session.client_capabilities,
        }
    }
}

impl Capabilities {
    /// Whether any of `names` is a capability declared (a member of the object), without
    /// building capabilities kept as text.
    pub(crate) fn declares_any(&self, names: &[&str]) -> bool {
        match self {
            Capabilities::Text(text, built) if built.get().is_none() => {
                crate::handler::text::has_member(text.get(), names)
            }
            built => built
                .as_object()
                .is_some_and(|declared| declared.keys().any(|name| names.contains(&name.as_str()))),
        }
    }
}

/// What one request carries besides its arguments: the revision it is spoken in, the client's
/// capabilities as they apply to it, its progress token and its cancellation.
///
/// For a legacy client these come from the session's `initialize`; for a 2026-07-28 client from
/// the request's own `_meta`. Handlers see the same shape either way.
///
/// It is also the way back to the client while the request runs ([`progress`](Self::progress),
/// [`log`](Self::log)) and to the server's shared values ([`state`](Self::state)).
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The revision this request is answered in.
    pub revision: ProtocolVersion,
    /// The client's capabilities (see [`RequestContext::client_capabilities`]).
    pub(crate) client_capabilities: Capabilities,
    /// The `progressToken` the request carried, if any.
    pub progress_token: Option<Value>,
    /// Fires when the client cancels the request (`notifications/cancelled`, or a dropped
    /// 2026-07-28 HTTP connection), or when shutdown stops waiting for the call (stdin EOF and
    /// SIGTERM first let running calls finish, up to `Server::shutdown_timeout`).
    pub cancellation: CancellationToken,
    /// The way back to the client for progress and logs; `None` when the request can send
    /// neither (see [`RequestContext::progress`], [`RequestContext::log`]).
    pub(crate) peer: Option<Arc<RequestPeer>>,
    /// The server's shared values (see [`RequestContext::state`]).
    pub(crate) states: States,
    /// How this request asks the client questions; `None` when it cannot (see
    /// [`RequestContext::elicit`]).
    pub(crate) asker: Option<Asker>,
    /// Whether `tracing` events the handler emits go to the client through `peer`
    /// ([`Server::forward_tracing`](crate::Server::forward_tracing)).
    pub(crate) forward_tracing: bool,
    /// Who the transport authenticated as the client (see [`RequestContext::principal`]).
    pub(crate) principal: Option<Principal>,
    /// Set when the call may become a task (see [`RequestContext::start_task`]).
    #[cfg(feature = "tasks")]
    pub(crate) task: Option<Arc<crate::task::slot::TaskSlot>>,
    /// A `tools/call`'s `arguments` as the client wrote them, for a tool that reads them so
    /// (`ToolHandler::reads_arguments_text`); taken by the tool's `ArgumentReader` before
    /// anything could clone it.
    pub(crate) arguments_text: Option<Box<serde_json::value::RawValue>>,
}

impl RequestContext {
    /// The peer that `tracing` events of this request's handler are forwarded through, if the
    /// server forwards them and the request can send logs.
    pub(crate) fn tracing_peer(&self) -> Option<Arc<RequestPeer>> {
        if self.forward_tracing {
            self.peer.clone()
        } else {
            None
        }
    }

    /// A context for `revision` with no capabilities, no progress token and a fresh token.
    pub fn new(revision: ProtocolVersion) -> Self {
        RequestContext {
            revision,
            client_capabilities: Capabilities::default(),
            progress_token: None,
            cancellation: CancellationToken::new(),
            peer: None,
            states: States::default(),
            asker: None,
            forward_tracing: false,
            principal: None,
            #[cfg(feature = "tasks")]
            task: None,
            arguments_text: None,
        }
    }

    /// Who the client was authenticated as, with the scopes its token grants and its
    /// claims: what a token verifier or the HTTP authorization hook named (see
    /// `mcp_runtime::http::Authorized`), or the [`Principal`] an enclosing app's middleware put
    /// in the request's extensions. Over stdio, the principal the server was told to serve
    /// stdio as ([`Server::stdio_principal`](crate::Server::stdio_principal)), else `None`
    /// (whose credentials come from the environment); `None` too when a hook names nobody.
    ///
    /// Answers a handler asked for over several 2026-07-28 rounds are bound to it: a
    /// `requestState` issued to one principal resumes nothing for another.
    pub fn principal(&self) -> Option<&Principal> {
        self.principal.as_ref()
    }
}

impl RequestContext {
    /// The client's capabilities (a `ClientCapabilities` object; `{}` when none were declared):
    /// this request's own in 2026-07-28, the session's `initialize` for a legacy client.
    ///
    /// ```
    /// use mcp_runtime::RequestContext;
    /// use mcp_runtime::protocol::ProtocolVersion;
    /// use serde_json::json;
    ///
    /// let mut context = RequestContext::new(ProtocolVersion::V2025_11_25);
    /// assert_eq!(context.client_capabilities(), &json!({}));
    /// context.set_client_capabilities(json!({"sampling": {}}));
    /// assert!(context.client_capabilities().get("sampling").is_some());
    /// ```
    pub fn client_capabilities(&self) -> &Value {
        &self.client_capabilities
    }

    /// Replace the client's capabilities: for a context made with [`RequestContext::new`],
    /// in tests.
    pub fn set_client_capabilities(&mut self, capabilities: Value) {
        self.client_capabilities = Capabilities::Own(capabilities);
    }

    /// The settings the client declared for the extension `id` (`capabilities.extensions`),
    /// `None` when it did not declare it: from this request's own capabilities in 2026-07-28,
    /// from the session's `initialize` for a legacy client.
    ///
    /// ```
    /// use mcp_runtime::RequestContext;
    /// use mcp_runtime::extensions::apps;
    /// use mcp_runtime::protocol::ProtocolVersion;
    /// use serde_json::json;
    ///
    /// let mut context = RequestContext::new(ProtocolVersion::V2026_07_28);
    /// assert!(!context.client_declares(apps::EXTENSION));
    /// context.set_client_capabilities(json!({"extensions": {apps::EXTENSION:
    ///     {"mimeTypes": [apps::MIME_TYPE]}}}));
    /// assert_eq!(context.client_extension(apps::EXTENSION).unwrap()["mimeTypes"][0], apps::MIME_TYPE);
    /// ```
    pub fn client_extension(&self, id: &str) -> Option<&crate::protocol::JsonObject> {
        crate::extensions::declared_in(&self.client_capabilities, id)
    }

    /// Whether the client declared the extension `id` (see
    /// [`client_extension`](Self::client_extension)).
    pub fn client_declares(&self, id: &str) -> bool {
        self.client_extension(id).is_some()
    }
}

impl RequestContext {
    /// Let the client hang up while this request keeps running, and collect what it sends from
    /// now on (notifications, questions, the result) when it comes back: for a long call, so
    /// that no connection is held open all along. Nothing is lost and nothing is cancelled;
    /// where the client could not come back for the rest, this does nothing. Returns whether
    /// the connection is being released.
    ///
    /// What each transport does:
    ///
    /// * Streamable HTTP, a 2025-11-25 session whose POST is answered with events: the
    ///   response stream ends after what was sent before this call (at least its priming
    ///   event, whose id the client resumes from); the rest is kept, and a `GET` with that
    ///   `Last-Event-ID` receives it (the result last, which ends that stream). The client
    ///   reconnects after the stream's `retry` interval (SEP-1699 "polling"). Calling it again
    ///   ends the resumed connection in turn.
    /// * Everywhere else (stdio, earlier revisions' sessions, a POST answered with plain JSON,
    ///   2026-07-28 requests, where a closed stream cancels the call): nothing; returns `false`.
    ///
    /// Nothing happens either once the request is answered or cancelled.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use mcp_runtime::{RequestContext, mcp_tool};
    ///
    /// /// Rebuild the index (takes minutes).
    /// #[mcp_tool]
    /// async fn rebuild(ctx: RequestContext) -> String {
    ///     ctx.release_connection();
    ///     tokio::time::sleep(Duration::from_millis(10)).await; // ... the long work ...
    ///     "rebuilt".to_owned()
    /// }
    /// ```
    pub fn release_connection(&self) -> bool {
        self.peer
            .as_ref()
            .is_some_and(|peer| peer.release_connection())
    }

    /// Make this call a task now, if it may become one, and return whether it runs as one.
    ///
    /// A call may become a task when its tool allows it (`#[mcp_tool(task)]`,
    /// [`TaskSupport`](crate::handler::TaskSupport)) and its request, a 2026-07-28 one, declared the
    /// `io.modelcontextprotocol/tasks` extension. Such a call becomes a task by itself the
    /// first time its handler waits on anything; until then it is an ordinary call, which
    /// may finish at once or ask the client (an `InputRequiredResult`) in place. Call this to
    /// make it a task before asking, so that the questions wait in the task
    /// (`input_required`, answered with `tasks/update`) instead. Elsewhere it does nothing and
    /// returns `false`.
    ///
    /// With the `tasks` feature:
    ///
    #[cfg_attr(feature = "tasks", doc = "```")]
    #[cfg_attr(not(feature = "tasks"), doc = "```ignore")]
    /// use mcp_runtime::{Elicitation, RequestContext, mcp_tool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Confirm {
    ///     confirm: bool,
    /// }
    ///
    /// /// Delete the archive, once the user confirms (in a task, where the client takes them).
    /// #[mcp_tool(task)]
    /// async fn purge_archive(ctx: RequestContext) -> String {
    ///     ctx.start_task().await;
    ///     match ctx.elicit::<Confirm>("Delete the whole archive?").await {
    ///         Ok(Elicitation::Accepted(Confirm { confirm: true })) => "deleted".into(),
    ///         _ => "kept".into(),
    ///     }
    /// }
    /// ```
    ///
    /// Without mcp-runtime's `tasks` feature no call becomes a task: this returns `false`.
    pub async fn start_task(&self) -> bool {
        #[cfg(feature = "tasks")]
        return crate::task::slot::start(self.task.as_deref()).await;
        #[cfg(not(feature = "tasks"))]
        false
    }

    /// The id of the task this call runs as, once it is one.
    pub fn task_id(&self) -> Option<&str> {
        #[cfg(feature = "tasks")]
        return Some(&self.task.as_deref()?.task()?.id);
        #[cfg(not(feature = "tasks"))]
        None
    }
}

/// Asking the client (elicitation, sampling, roots): see the `ask` module for how each
/// transport and revision carries the questions.
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
        self.asking().elicit_as(None, message.into()).await
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
        self.asking()
            .elicit_url_with(elicitation, message.into(), url.into())
            .await
    }

    /// Ask the client's model for a completion (`sampling/createMessage`); the client's user
    /// may review both the request and the answer.
    ///
    /// Needs the client's `sampling` capability, else [`AskError::Unsupported`]. Sampling is
    /// deprecated in 2026-07-28 but still served to clients that declare it.
    ///
    /// ```
    /// use mcp_runtime::{RequestContext, ask::SamplingRequest, mcp_tool};
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
        self.asking().sample_as(None, request).await
    }

    /// The client's roots (`roots/list`): the directories or files it lets the server work on.
    ///
    /// Needs the client's `roots` capability, else [`AskError::Unsupported`].
    pub async fn roots(&self) -> Result<Vec<Root>, AskError> {
        self.asking().roots_as(None).await
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
        NamedQuestion::new(self.asking(), key)
    }

    fn asking(&self) -> Asking<'_> {
        Asking {
            revision: self.revision,
            client_capabilities: &self.client_capabilities,
            asker: self.asker.as_ref(),
            cancellation: &self.cancellation,
        }
    }
}

impl RequestContext {
    /// A URL-mode elicitation to ask with [`elicit_url_with`](Self::elicit_url_with): its
    /// [`id`](UrlElicitation::id) can go into the URL first, so that the page's callback knows
    /// which elicitation to [`complete`](UrlElicitation::complete).
    ///
    /// ```
    /// use mcp_runtime::{Elicitation, RequestContext, mcp_tool};
    ///
    /// /// Connect the user's calendar.
    /// #[mcp_tool]
    /// async fn connect_calendar(ctx: RequestContext) -> Result<String, String> {
    ///     let sign_in = ctx.url_elicitation();
    ///     let url = format!(
    ///         "https://calendar.example.com/oauth/authorize?state={}",
    ///         sign_in.id().unwrap_or_default()
    ///     );
    ///     match ctx.elicit_url_with(&sign_in, "Sign in to your calendar", url).await {
    ///         // Keep `sign_in` for the OAuth callback, which calls `sign_in.complete()`.
    ///         Ok(Elicitation::Accepted(())) => Ok("waiting for the sign-in to finish".into()),
    ///         Ok(_) => Ok("not connected".into()),
    ///         Err(error) => Err(error.to_string()),
    ///     }
    /// }
    /// ```
    pub fn url_elicitation(&self) -> UrlElicitation {
        self.asking().url_elicitation()
    }
}

/// Reporting to the client from inside a handler.
/// Reporting to the client from inside a handler.
impl RequestContext {
    /// Report progress: `done` out of `total` (if known), with a human-readable `message`.
    ///
    /// Sends `notifications/progress` only when the request carried a `progressToken`;
    /// otherwise this does nothing (the command-line mode's `call` sends one from a terminal,
    /// and draws a progress bar on stderr). Values must rise:
    /// one not above the last value sent (or not finite) is dropped, so a report
    /// that arrives out of order never moves the client's progress bar back. A non-finite
    /// `total` is left out. `message` reaches clients from 2025-03-26 on and is left out for
    /// 2024-11-05. Nothing is sent once the request has been answered.
    ///
    /// Returns whether a notification was sent.
    ///
    /// While a tool call, `prompts/get` or `resources/read` that carries a token runs, the
    /// server also sends a heartbeat progress by itself (see
    /// [`Server::progress_heartbeat`](crate::Server::progress_heartbeat)), so clients that time
    /// out requests without progress do not give up on long handlers.
    ///
    /// ```
    /// use mcp_runtime::{RequestContext, mcp_tool};
    ///
    /// /// Index every file.
    /// #[mcp_tool]
    /// async fn index(files: Vec<String>, ctx: RequestContext) -> String {
    ///     let total = files.len() as f64;
    ///     for (done, file) in files.iter().enumerate() {
    ///         // ... index `file` ...
    ///         ctx.progress(done as f64 + 1.0, Some(total), Some(file));
    ///     }
    ///     format!("indexed {total} files")
    /// }
    /// ```
    pub fn progress(&self, done: f64, total: Option<f64>, message: Option<&str>) -> bool {
        self.peer
            .as_ref()
            .is_some_and(|peer| peer.progress(done, total, message))
    }

    /// Send `data` (any JSON: a string, an object...) to the client as a log message at `level`
    /// (`notifications/message`).
    ///
    /// Sent only when the client asked for logs at that level: for a legacy client, the level
    /// it set with `logging/setLevel` (every level until it sets one); for a 2026-07-28 request,
    /// the `_meta["io.modelcontextprotocol/logLevel"]` of this very request (nothing when it
    /// has none). `data` is serialized only when the message is sent. Messages leave before the
    /// request's response and never after it. Returns whether the message was sent.
    ///
    /// Logs reach the model's host, not just a terminal: keep secrets and personal data out.
    /// Diagnostics for the server's operator belong in `tracing` (stderr).
    ///
    /// ```
    /// use mcp_runtime::{LogLevel, RequestContext, mcp_tool};
    ///
    /// /// Fetch a page.
    /// #[mcp_tool]
    /// async fn fetch(url: String, ctx: RequestContext) -> String {
    ///     ctx.log(LogLevel::Info, format!("fetching {url}"));
    ///     url
    /// }
    /// ```
    pub fn log(&self, level: LogLevel, data: impl Serialize) -> bool {
        self.log_from(level, None, data)
    }

    /// [`log`](Self::log), naming the component that logs (`logger`).
    pub fn log_from(&self, level: LogLevel, logger: Option<&str>, data: impl Serialize) -> bool {
        let Some(peer) = self.peer.as_ref().filter(|peer| peer.log_enabled(level)) else {
            return false;
        };
        match serde_json::to_value(data) {
            Ok(data) => peer.log(level, logger, data),
            Err(error) => {
                tracing::warn!(%error, "a log message could not be serialized; not sent");
                false
            }
        }
    }

    /// Whether a log message at `level` would reach the client: to skip building costly
    /// messages nobody reads.
    pub fn log_enabled(&self, level: LogLevel) -> bool {
        self.peer
            .as_ref()
            .is_some_and(|peer| peer.log_enabled(level))
    }
}

impl RequestContext {
    /// The server's shared value of type `T` (see [`State`]), if it was given one.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.states.get()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn text(capabilities: &str) -> Capabilities {
        let text = RawValue::from_string(capabilities.to_owned()).unwrap();
        Capabilities::Text(text, OnceLock::new())
    }

    #[test]
    fn capabilities_kept_as_text_answer_as_built_ones_do() {
        let asks = ["elicitation", "sampling", "roots"];
        for (declared, expected) in [
            (r#"{}"#, false),
            (r#"{"roots":{"listChanged":true}}"#, true),
            (r#"{"experimental":{},"sampling":{}}"#, true),
            // Only the object's own members: nested names declare nothing.
            (r#"{"extensions":{"roots":{},"elicitation":{}}}"#, false),
            (r#"{"r\u006fots":{}}"#, true),
            (r#"{"tools":"sampling"}"#, false),
        ] {
            let kept = text(declared);
            assert_eq!(kept.declares_any(&asks), expected, "{declared}");
            let built = Capabilities::Own(serde_json::from_str(declared).unwrap());
            assert_eq!(built.declares_any(&asks), expected, "{declared}");
            // Built on first read, once, and read the same afterwards.
            assert_eq!(*kept, *built);
            assert!(matches!(&kept, Capabilities::Text(_, built) if built.get().is_some()));
            assert_eq!(kept.declares_any(&asks), expected, "{declared}");
        }
        // Beyond what serde_json holds: read as declaring nothing once built.
        let unreadable = text(r#"{"roots":{"size":1e400}}"#);
        assert_eq!(*unreadable, json!({}));
        assert!(!unreadable.declares_any(&asks));
    }
}
