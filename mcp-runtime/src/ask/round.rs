//! 2026-07-28: a question ends the call with an `InputRequiredResult`; the client retries the
//! same request with the answers, and the handler runs again from the top.
//!
//! Questions are keyed by the order they are asked in (`q0`, `q1`, ...). On a retry, a
//! question whose key has an answer, and which is the same question (same method and params,
//! compared by digest), gets that answer at once; the first one without stops the run. Every
//! question pending when the handler can make no more progress goes into one result, so
//! questions asked together (`join!`) are answered in one round trip.
//!
//! Between rounds the server keeps nothing: the answers so far, the questions just asked and
//! what request they belong to travel in the sealed `requestState`.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::AskError;
use super::replay::SharedReplayGuard;
use super::seal::{Refusal, SealKey};
use crate::canonical::digest;
use crate::future::BoxFuture;
use crate::protocol::JsonObject;
use crate::protocol::jsonrpc::ErrorObject;
use crate::random;
use crate::store::StoreError;
#[cfg(feature = "tasks")]
use crate::task::record::TaskRecord;

/// How long a `requestState` stays valid: the user answering a form may take a while.
const STATE_LIFETIME: Duration = Duration::from_secs(600);

/// The layout of `requestState`s this server writes; others (an older replica's) are refused.
/// 2 added the id the replay guard records and the principal; 3 keyed the principal's digest.
/// (`o`, the first round's `traceparent`, is optional: readers that know it not ignore it.)
const STATE_VERSION: u64 = 3;

/// The `traceparent` of the first round of a call that asks: set by that round's span
/// (`middleware::TraceLayer`), carried in `requestState`, so each retry's span links to it.
#[cfg(feature = "otel")]
pub(crate) type FirstRound = Arc<OnceLock<String>>;

/// Which request a round belongs to: a state issued for one cannot resume another.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    /// `tools/call`, `prompts/get` or `resources/read`.
    pub(crate) method: &'static str,
    /// The tool's or prompt's name, or the resource's URI.
    pub(crate) target: String,
    /// Digest of the arguments, made when first needed: most rounds issue no state.
    subject: OnceLock<String>,
    /// The arguments as the client wrote them, when they were not built: what `subject` is
    /// made from.
    unbuilt: Option<Box<RawValue>>,
    /// Whom the transport authenticated (see `RequestContext::principal`), if anyone: the
    /// client of one user cannot resume another's call. The state carries a keyed digest of
    /// it, never the name, so not even a reader of a state's payload can confirm a guess.
    pub(crate) principal: Option<String>,
}

impl Binding {
    pub(crate) fn new(
        method: &'static str,
        target: &str,
        arguments: &Value,
        principal: Option<&str>,
    ) -> Self {
        Binding {
            method,
            target: target.to_owned(),
            subject: OnceLock::from(digest(arguments)),
            unbuilt: None,
            principal: principal.map(str::to_owned),
        }
    }

    /// The binding of a call whose `arguments` were kept as the client wrote them: digested
    /// only if a state is issued, as the value a retry builds from them.
    pub(crate) fn of_text(
        method: &'static str,
        target: &str,
        arguments: &RawValue,
        principal: Option<&str>,
    ) -> Self {
        Binding {
            method,
            target: target.to_owned(),
            subject: OnceLock::new(),
            unbuilt: Some(arguments.to_owned()),
            principal: principal.map(str::to_owned),
        }
    }

    /// The binding of a request that cannot be asked anything (its client declared no
    /// capability to answer with): no state is ever issued for it.
    pub(crate) fn unasked(method: &'static str) -> Self {
        Binding {
            method,
            target: String::new(),
            subject: OnceLock::from(String::new()),
            unbuilt: None,
            principal: None,
        }
    }

    /// Digest of the arguments.
    fn subject(&self) -> &str {
        self.subject.get_or_init(|| {
            let text = self.unbuilt.as_deref().map_or("{}", RawValue::get);
            match serde_json::from_str(text) {
                Ok(arguments) => digest(&arguments),
                // Text serde_json cannot build (a number beyond `f64`): a retry carrying it
                // is refused before its state is read, so any digest no object has will do.
                Err(_) => digest(&Value::String(text.to_owned())),
            }
        })
    }
}

/// One run of a 2026-07-28 handler: the answers it may use and the questions it asked.
#[derive(Debug)]
pub(crate) struct InputRound {
    binding: Binding,
    key: SealKey,
    /// The state this run resumes from, to be recorded as used before the handler runs.
    resumed: Mutex<Option<(String, SystemTime)>>,
    replay_guard: SharedReplayGuard,
    /// Answers by key, each with the digest of the question it answers.
    answers: HashMap<String, (String, Value)>,
    run: Mutex<Run>,
    /// Once the call has become a task, questions not answered here wait in it instead.
    #[cfg(feature = "tasks")]
    task: OnceLock<Arc<TaskRecord>>,
    #[cfg(feature = "otel")]
    first_round: FirstRound,
}

#[derive(Debug, Default)]
struct Run {
    next: usize,
    /// Questions without an answer, in the order asked.
    questions: Vec<(String, String, Value)>,
    /// Answers this run used (they must travel on with the next state).
    used: Map<String, Value>,
    /// Capabilities the handler needed and the request did not declare.
    missing: Vec<(&'static str, Value)>,
}

impl InputRound {
    /// The round of a request whose params may carry `inputResponses` and `requestState`; a
    /// state that is forged, altered, expired or made for another request is invalid params.
    pub(crate) fn begin(
        key: &SealKey,
        replay_guard: &SharedReplayGuard,
        binding: Binding,
        params: &JsonObject,
    ) -> Result<Self, ErrorObject> {
        let mut answers = HashMap::new();
        let mut resumed = None;
        #[cfg(feature = "otel")]
        let first_round = FirstRound::default();
        let responses = match params.get("inputResponses") {
            None | Some(Value::Null) => None,
            Some(Value::Object(responses)) => Some(responses),
            Some(_) => {
                return Err(ErrorObject::invalid_params(
                    "`inputResponses` must be an object",
                ));
            }
        };
        match params.get("requestState") {
            None | Some(Value::Null) => {
                if responses.is_some_and(|responses| !responses.is_empty()) {
                    tracing::debug!("`inputResponses` without `requestState`; ignored");
                }
            }
            Some(Value::String(state)) => {
                let state = open_state(key, &binding, state)?;
                resumed = state_id(&state);
                #[cfg(feature = "otel")]
                if let Some(Value::String(traceparent)) = state.get("o") {
                    let _ = first_round.set(traceparent.clone());
                }
                if let Some(Value::Object(carried)) = state.get("r") {
                    for (question, answer) in carried {
                        if let Some([Value::String(asked), answer]) =
                            answer.as_array().map(Vec::as_slice)
                        {
                            answers.insert(question.clone(), (asked.clone(), answer.clone()));
                        }
                    }
                }
                if let (Some(Value::Object(asked)), Some(responses)) = (state.get("q"), responses) {
                    // Answers to questions this state did not ask are ignored.
                    for (question, response) in responses {
                        if let Some(Value::String(asked)) = asked.get(question) {
                            answers.insert(question.clone(), (asked.clone(), response.clone()));
                        }
                    }
                }
            }
            Some(_) => {
                return Err(ErrorObject::invalid_params(
                    "`requestState` must be a string",
                ));
            }
        }
        Ok(InputRound {
            binding,
            key: key.clone(),
            resumed: Mutex::new(resumed),
            replay_guard: replay_guard.clone(),
            answers,
            run: Mutex::default(),
            #[cfg(feature = "tasks")]
            task: OnceLock::new(),
            #[cfg(feature = "otel")]
            first_round,
        })
    }

    /// Where the first round's `traceparent` is, or goes.
    #[cfg(feature = "otel")]
    pub(crate) fn first_round(&self) -> FirstRound {
        self.first_round.clone()
    }

    fn run(&self) -> MutexGuard<'_, Run> {
        self.run
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The answer to the next question, or a future that never resolves while the question
    /// is sent to the client.
    pub(super) async fn ask(
        &self,
        key: Option<&str>,
        method: &'static str,
        params: Value,
    ) -> Result<Value, AskError> {
        match self.note_question(key, json!({"method": method, "params": params})) {
            Asked::Answered(answer) => Ok(answer),
            Asked::ForTheClient => std::future::pending().await,
            #[cfg(feature = "tasks")]
            Asked::InTask(task, key, request) => task.ask(key, request).await,
        }
    }

    fn note_question(&self, key: Option<&str>, request: Value) -> Asked {
        let asked = digest(&request);
        let mut run = self.run();
        // Unnamed questions are numbered in the order asked.
        let key = match key {
            Some(key) => key.to_owned(),
            None => {
                run.next += 1;
                format!("q{}", run.next - 1)
            }
        };
        if let Some((digest, answer)) = self
            .answers
            .get(&key)
            .filter(|(digest, _)| *digest == asked)
        {
            run.used.insert(key, json!([digest, answer]));
            return Asked::Answered(answer.clone());
        }
        #[cfg(feature = "tasks")]
        if let Some(task) = self.task.get() {
            return Asked::InTask(task.clone(), key, request);
        }
        run.questions.push((key, asked, request));
        Asked::ForTheClient
    }

    /// The call became `task`: questions asked from now on wait in it.
    #[cfg(feature = "tasks")]
    pub(crate) fn continue_in(&self, task: Arc<TaskRecord>) {
        let _ = self.task.set(task);
    }

    /// The handler wanted to ask something the request's client capabilities rule out.
    pub(super) fn note_missing(&self, capability: &'static str, declaration: Value) {
        super::missing::note(&mut self.run().missing, capability, declaration);
    }

    /// The `-32021` error for a handler that failed after wanting a capability the client did
    /// not declare: the client then knows what to declare to succeed. `None` otherwise.
    pub(crate) fn missing_capability_error(&self) -> Option<ErrorObject> {
        super::missing::error(&self.run().missing)
    }

    /// Recording the state this run resumes from as used (once; `None` for a first run).
    fn claim(&self) -> Option<BoxFuture<'static, Result<bool, StoreError>>> {
        let (id, expires) = self
            .resumed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take()?;
        let guard = self.replay_guard.0.clone();
        Some(Box::pin(async move { guard.claim(&id, expires).await }))
    }

    /// Whether the run is waiting for answers.
    pub(crate) fn has_questions(&self) -> bool {
        !self.run().questions.is_empty()
    }

    /// `inputRequests` and `requestState` of the `InputRequiredResult` ending this run.
    pub(crate) fn input_required(&self) -> (Map<String, Value>, String) {
        let run = self.run();
        let mut requests = Map::new();
        let mut asked = Map::new();
        for (key, digest, request) in &run.questions {
            requests.insert(key.clone(), request.clone());
            asked.insert(key.clone(), digest.clone().into());
        }
        let expires = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .saturating_add(STATE_LIFETIME)
            .as_secs();
        #[allow(unused_mut)]
        let mut state = json!({
            "v": STATE_VERSION,
            "n": random::id(),
            "m": self.binding.method,
            "t": self.binding.target,
            "d": self.binding.subject(),
            "p": self
                .binding
                .principal
                .as_deref()
                .map(|principal| self.key.principal_digest(principal)),
            "exp": expires,
            "q": asked,
            "r": run.used,
        });
        #[cfg(feature = "otel")]
        if let Some(traceparent) = self.first_round.get() {
            state["o"] = Value::String(traceparent.clone());
        }
        (requests, self.key.seal(&state))
    }
}

fn open_state(key: &SealKey, binding: &Binding, state: &str) -> Result<Value, ErrorObject> {
    let invalid = |why: &str| {
        ErrorObject::invalid_params(format!(
            "invalid `requestState`: {why}; retry the request without `requestState` and \
             `inputResponses` to start over"
        ))
    };
    let opened = key.open(state).map_err(|refusal| match refusal {
        // Worth telling apart: during a key rollout it points at a replica's configuration.
        Refusal::UnknownKey => invalid(
            "not issued by this server (sealed under a key it does not hold: another \
             deployment's, or one retired)",
        ),
        Refusal::Altered => invalid("not issued by this server, or altered"),
    })?;
    let expected_principal = binding
        .principal
        .as_deref()
        .map(|principal| opened.principal_digest(principal));
    let state = opened.payload;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    if state.get("v") != Some(&json!(STATE_VERSION)) {
        return Err(invalid("unknown version"));
    }
    if state
        .get("exp")
        .and_then(Value::as_u64)
        .is_none_or(|exp| exp < now)
    {
        return Err(invalid("expired"));
    }
    let same =
        |member: &str, expected: &str| state.get(member).and_then(Value::as_str) == Some(expected);
    if !same("m", binding.method) || !same("t", &binding.target) || !same("d", binding.subject()) {
        return Err(invalid("issued for another request"));
    }
    if state.get("p").and_then(Value::as_str) != expected_principal.as_deref() {
        return Err(invalid("issued to another principal"));
    }
    Ok(state)
}

/// The id and expiry of an opened state, which the replay guard records.
fn state_id(state: &Value) -> Option<(String, SystemTime)> {
    let id = state.get("n")?.as_str()?.to_owned();
    let expires = UNIX_EPOCH + Duration::from_secs(state.get("exp")?.as_u64()?);
    Some((id, expires))
}

/// Where a question stands once asked.
enum Asked {
    /// The request brought its answer.
    Answered(Value),
    /// It goes to the client in this run's `InputRequiredResult`.
    ForTheClient,
    /// The call became a task: the question waits there, under its key.
    #[cfg(feature = "tasks")]
    InTask(Arc<TaskRecord>, String, Value),
}

/// What a handler's run came to.
pub(crate) enum RunOutcome<T> {
    /// It finished.
    Done(T),
    /// It waits for answers: end the request with an `InputRequiredResult`.
    NeedsInput,
    /// It never started: the request resumed from a `requestState` already used.
    Replayed,
    /// A layer of the call pipeline answered with this error (or the handler failed with it).
    Refused(ErrorObject),
}

/// The answer to a retry whose `requestState` was used before.
pub(crate) fn replayed_state() -> ErrorObject {
    ErrorObject::invalid_params(
        "invalid `requestState`: already used by an earlier retry (each resumes one call); \
         retry the request without `requestState` and `inputResponses` to start over",
    )
}

/// Runs a handler until it finishes or can make no progress but for answers from the client.
pub(crate) struct UntilInput<F> {
    handler: F,
    round: Option<Arc<InputRound>>,
    /// Recording the resumed state as used; the handler starts once that succeeded.
    claim: Option<BoxFuture<'static, Result<bool, StoreError>>>,
}

impl<F> UntilInput<F> {
    // Always inlined: a call's future is built and polled around it, once per call.
    #[inline(always)]
    pub(crate) fn new(handler: F, round: Option<Arc<InputRound>>) -> Self {
        let claim = round.as_deref().and_then(InputRound::claim);
        UntilInput {
            handler,
            round,
            claim,
        }
    }
}

impl<F: Future + Unpin> Future for UntilInput<F> {
    type Output = RunOutcome<F::Output>;

    #[inline(always)]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Some(claim) = &mut self.claim {
            match claim.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok(false)) => return Poll::Ready(RunOutcome::Replayed),
                Poll::Ready(Ok(true)) => self.claim = None,
                Poll::Ready(Err(error)) => {
                    tracing::warn!(%error, "the replay guard could not record a requestState");
                    return Poll::Ready(RunOutcome::Refused(error.to_error_object()));
                }
            }
        }
        match Pin::new(&mut self.handler).poll(cx) {
            Poll::Ready(output) => Poll::Ready(RunOutcome::Done(output)),
            // Everything the handler could ask in this poll is asked: questions raised together
            // leave together.
            Poll::Pending
                if self
                    .round
                    .as_ref()
                    .is_some_and(|round| round.has_questions()) =>
            {
                Poll::Ready(RunOutcome::NeedsInput)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(value: Value) -> JsonObject {
        match value {
            Value::Object(params) => params,
            _ => unreachable!(),
        }
    }

    fn guard() -> SharedReplayGuard {
        SharedReplayGuard::in_memory()
    }

    fn binding() -> Binding {
        Binding::new("tools/call", "delete", &json!({"name": "repo"}), None)
    }

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    /// A state issued to `binding` with one question asked.
    fn issued(key: &SealKey, binding: Binding) -> String {
        let round = InputRound::begin(key, &guard(), binding, &JsonObject::new()).unwrap();
        round
            .run()
            .questions
            .push(("q0".into(), "d".into(), json!({})));
        round.input_required().1
    }

    #[test]
    fn arguments_kept_as_text_bind_as_the_value_a_retry_builds() {
        let key = SealKey::random();
        let text =
            |arguments: &str| Binding::of_text("tools/call", "delete", &raw(arguments), None);
        let resumes = |binding: Binding, state: &str| {
            InputRound::begin(
                &key,
                &guard(),
                binding,
                &params(json!({"requestState": state})),
            )
        };
        // Issued from the text, resumed by a retry whose arguments were built, or written
        // otherwise (spacing, escapes, order): the same request.
        let state = issued(&key, text(r#"{ "name" : "r\u0065po" }"#));
        assert!(resumes(binding(), &state).is_ok());
        let state = issued(&key, binding());
        assert!(resumes(text(r#"{"name":"repo"}"#), &state).is_ok());
        let refused = resumes(text(r#"{"name":"other"}"#), &state).unwrap_err();
        assert!(refused.message.contains("another request"), "{refused:?}");
        // Text serde_json cannot build binds all the same, to itself alone.
        let unbuildable = r#"{"name":"repo","size":1e400}"#;
        let state = issued(&key, text(unbuildable));
        assert!(resumes(text(unbuildable), &state).is_ok());
        assert!(resumes(binding(), &state).is_err());
        assert!(resumes(text(r#"{"name":"repo","size":2e400}"#), &state).is_err());
        // Nothing is digested for a round that issues no state.
        let quiet = text(r#"{"name":"repo"}"#);
        let round = InputRound::begin(&key, &guard(), quiet, &JsonObject::new()).unwrap();
        assert!(round.binding.subject.get().is_none());
    }

    #[tokio::test]
    async fn questions_then_answers_across_two_rounds() {
        let key = SealKey::random();
        let first =
            Arc::new(InputRound::begin(&key, &guard(), binding(), &JsonObject::new()).unwrap());
        let asking = {
            let first = first.clone();
            async move { first.ask(None, "roots/list", json!({})).await }
        };
        let outcome = UntilInput::new(Box::pin(asking), Some(first.clone())).await;
        assert!(matches!(outcome, RunOutcome::NeedsInput));
        let (requests, state) = first.input_required();
        assert_eq!(
            Value::Object(requests),
            json!({"q0": {"method": "roots/list", "params": {}}})
        );

        let retry = params(json!({"requestState": state,
            "inputResponses": {"q0": {"roots": []}, "q7": {"ignored": true}}}));
        let second = Arc::new(InputRound::begin(&key, &guard(), binding(), &retry).unwrap());
        assert_eq!(
            second.ask(None, "roots/list", json!({})).await,
            Ok(json!({"roots": []}))
        );
        // A second question: the first answer travels on in the next state.
        let asking = {
            let second = second.clone();
            async move {
                second
                    .ask(None, "elicitation/create", json!({"message": "sure?"}))
                    .await
            }
        };
        assert!(matches!(
            UntilInput::new(Box::pin(asking), Some(second.clone())).await,
            RunOutcome::NeedsInput
        ));
        let (requests, state) = second.input_required();
        assert!(requests.contains_key("q1"));
        let third = InputRound::begin(
            &key,
            &guard(),
            binding(),
            &params(
                json!({"requestState": state, "inputResponses": {"q1": {"action": "decline"}}}),
            ),
        )
        .unwrap();
        assert_eq!(
            third.ask(None, "roots/list", json!({})).await,
            Ok(json!({"roots": []}))
        );
        assert_eq!(
            third
                .ask(None, "elicitation/create", json!({"message": "sure?"}))
                .await,
            Ok(json!({"action": "decline"}))
        );
    }

    #[tokio::test]
    async fn a_different_question_at_the_same_place_is_asked_again() {
        let key = SealKey::random();
        let first = InputRound::begin(&key, &guard(), binding(), &JsonObject::new()).unwrap();
        let ask = first.ask(None, "roots/list", json!({}));
        let _ = futures_poll_once(ask).await;
        let (_, state) = first.input_required();
        let retry = params(json!({"requestState": state, "inputResponses": {"q0": {"roots": []}}}));
        let second = Arc::new(InputRound::begin(&key, &guard(), binding(), &retry).unwrap());
        let asking = {
            let second = second.clone();
            async move { second.ask(None, "sampling/createMessage", json!({})).await }
        };
        assert!(matches!(
            UntilInput::new(Box::pin(asking), Some(second.clone())).await,
            RunOutcome::NeedsInput
        ));
    }

    #[tokio::test]
    async fn named_questions_keep_their_name_and_numbering_skips_them() {
        let key = SealKey::random();
        let first =
            Arc::new(InputRound::begin(&key, &guard(), binding(), &JsonObject::new()).unwrap());
        let asking = {
            let first = first.clone();
            async move {
                let _ = tokio::join!(
                    first.ask(
                        Some("user_name"),
                        "elicitation/create",
                        json!({"message": "name?"})
                    ),
                    first.ask(None, "roots/list", json!({}))
                );
            }
        };
        let outcome = UntilInput::new(Box::pin(asking), Some(first.clone())).await;
        assert!(matches!(outcome, RunOutcome::NeedsInput));
        let (requests, state) = first.input_required();
        let keys: Vec<&str> = requests.keys().map(String::as_str).collect();
        assert_eq!(keys, ["user_name", "q0"]);
        let retry = params(json!({"requestState": state,
            "inputResponses": {"user_name": {"action": "cancel"}, "q0": {"roots": []}}}));
        let second = InputRound::begin(&key, &guard(), binding(), &retry).unwrap();
        assert_eq!(
            second
                .ask(
                    Some("user_name"),
                    "elicitation/create",
                    json!({"message": "name?"})
                )
                .await,
            Ok(json!({"action": "cancel"}))
        );
        assert_eq!(
            second.ask(None, "roots/list", json!({})).await,
            Ok(json!({"roots": []}))
        );
    }

    #[test]
    fn forged_altered_or_foreign_states_are_refused() {
        let key = SealKey::random();
        let round = InputRound::begin(&key, &guard(), binding(), &JsonObject::new()).unwrap();
        round
            .run()
            .questions
            .push(("q0".into(), "d".into(), json!({})));
        let (_, state) = round.input_required();
        let refused = |key: &SealKey, binding: Binding, state: Value| {
            InputRound::begin(
                key,
                &guard(),
                binding,
                &params(json!({"requestState": state})),
            )
            .unwrap_err()
        };
        let other_key = refused(&SealKey::random(), binding(), json!(state.clone()));
        assert_eq!(other_key.code, ErrorObject::INVALID_PARAMS);
        assert!(other_key.message.contains("not issued by this server"));
        let other_args = Binding::new("tools/call", "delete", &json!({"name": "other"}), None);
        assert!(
            refused(&key, other_args, json!(state.clone()))
                .message
                .contains("another request")
        );
        let other_tool = Binding::new("tools/call", "create", &json!({"name": "repo"}), None);
        assert!(
            refused(&key, other_tool, json!(state.clone()))
                .message
                .contains("another request")
        );
        // A character past the key id: the key is found, the tag fails.
        let mut tampered = state.clone().into_bytes();
        let middle = tampered.len() / 2;
        tampered[middle] = if tampered[middle] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert!(
            refused(&key, binding(), json!(tampered))
                .message
                .contains("altered")
        );
        let expired = key.seal(
            &json!({"v": STATE_VERSION, "n": "x", "m": "tools/call", "t": "delete",
            "d": binding().subject(), "exp": 1, "q": {}, "r": {}}),
        );
        assert!(
            refused(&key, binding(), json!(expired))
                .message
                .contains("expired")
        );
        assert!(
            refused(&key, binding(), json!(5))
                .message
                .contains("must be a string")
        );
        // Same arguments in another order: the same request.
        let reordered = Binding::new("tools/call", "delete", &json!({"name": "repo"}), None);
        assert!(
            InputRound::begin(
                &key,
                &guard(),
                reordered,
                &params(json!({"requestState": state}))
            )
            .is_ok()
        );
    }

    #[tokio::test]
    async fn a_state_resumes_one_retry_only() {
        let key = SealKey::random();
        let guard = guard();
        let first = InputRound::begin(&key, &guard, binding(), &JsonObject::new()).unwrap();
        let _ = futures_poll_once(first.ask(None, "roots/list", json!({}))).await;
        let (_, state) = first.input_required();
        let retry = params(json!({"requestState": state, "inputResponses": {"q0": {"roots": []}}}));
        let run = |round: InputRound| {
            let round = Arc::new(round);
            let asking = {
                let round = round.clone();
                async move { round.ask(None, "roots/list", json!({})).await }
            };
            UntilInput::new(Box::pin(asking), Some(round))
        };
        let second = InputRound::begin(&key, &guard, binding(), &retry).unwrap();
        assert!(matches!(
            run(second).await,
            RunOutcome::Done(Ok(answer)) if answer == json!({"roots": []})
        ));
        // The same state again (a copy, a second retry): opens, but resumes nothing.
        let copy = InputRound::begin(&key, &guard, binding(), &retry).unwrap();
        assert!(matches!(run(copy).await, RunOutcome::Replayed));
        // A first run has no state to record.
        let fresh = InputRound::begin(&key, &guard, binding(), &JsonObject::new()).unwrap();
        assert!(matches!(run(fresh).await, RunOutcome::NeedsInput));
    }

    #[test]
    fn a_state_resumes_only_for_its_principal() {
        let key = SealKey::random();
        let of =
            |principal| Binding::new("tools/call", "delete", &json!({"name": "repo"}), principal);
        let round =
            InputRound::begin(&key, &guard(), of(Some("alice")), &JsonObject::new()).unwrap();
        round
            .run()
            .questions
            .push(("q0".into(), "d".into(), json!({})));
        let (_, state) = round.input_required();
        let payload = key.open(&state).unwrap().payload.to_string();
        assert!(payload.contains(&key.principal_digest("alice")));
        assert!(
            !payload.contains("alice") && !payload.contains(&digest(&json!("alice"))),
            "only a keyed digest of the principal travels, even inside"
        );
        let retry = params(json!({"requestState": state}));
        for other in [Some("bob"), None] {
            let refused = InputRound::begin(&key, &guard(), of(other), &retry).unwrap_err();
            assert!(refused.message.contains("another principal"), "{other:?}");
        }
        assert!(InputRound::begin(&key, &guard(), of(Some("alice")), &retry).is_ok());
    }

    #[test]
    fn a_state_sealed_before_a_key_rollout_resumes_where_the_old_key_is_previous() {
        let of =
            |principal| Binding::new("tools/call", "delete", &json!({"name": "repo"}), principal);
        let old = SealKey::from_secret(b"old secret");
        let round =
            InputRound::begin(&old, &guard(), of(Some("alice")), &JsonObject::new()).unwrap();
        round
            .run()
            .questions
            .push(("q0".into(), "d".into(), json!({})));
        let (_, state) = round.input_required();
        let retry = params(json!({"requestState": state}));

        let rolled = SealKey::from_secret(b"new secret").with_previous(b"old secret");
        assert!(InputRound::begin(&rolled, &guard(), of(Some("alice")), &retry).is_ok());
        let refused = InputRound::begin(&rolled, &guard(), of(Some("bob")), &retry).unwrap_err();
        assert!(refused.message.contains("another principal"), "{refused:?}");

        let retired = SealKey::from_secret(b"new secret");
        let refused = InputRound::begin(&retired, &guard(), of(Some("alice")), &retry).unwrap_err();
        assert_eq!(refused.code, ErrorObject::INVALID_PARAMS);
        assert_eq!(
            refused.message,
            "invalid `requestState`: not issued by this server (sealed under a key it does not \
             hold: another deployment's, or one retired); retry the request without \
             `requestState` and `inputResponses` to start over"
        );
    }

    /// Poll a future once (the question is recorded on the first poll).
    async fn futures_poll_once<F: Future>(future: F) -> Option<F::Output> {
        let mut future = Box::pin(future);
        std::future::poll_fn(|cx| {
            Poll::Ready(match future.as_mut().poll(cx) {
                Poll::Ready(output) => Some(output),
                Poll::Pending => None,
            })
        })
        .await
    }
}
