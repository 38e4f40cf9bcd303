//! `completion/complete`: suggestions for a prompt argument (`ref/prompt`) or a resource
//! template variable (`ref/resource`).

use std::borrow::Cow;

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

use super::classify::RequestScope;
use super::offerings::{context, panicked, required_str};
use super::piped::{another_kind, answer_now};
use super::prompts::string_arguments;
use super::{Dispatcher, InFlight, Reply};
use crate::handler::{CompletionContext, CompletionRequest, JsonObject, ResourceDefinition};
use crate::middleware::{Method, Response};
use crate::protocol::Completion;
use crate::protocol::jsonrpc::{ErrorObject, Outgoing, RequestId};
use crate::protocol::wire::{CompleteResult, ModernResult};

impl Dispatcher {
    /// Whether some prompt argument or template variable has a completer: the server then
    /// declares `completions` and answers `completion/complete`.
    pub(crate) fn has_completions(&self) -> bool {
        self.prompts.has_completions() || self.resources.has_completions()
    }

    /// `completion/complete`. Where `completions` is not declared (no completer, surfaces that
    /// cannot change) the method does not exist (`-32601`); an unknown prompt or template, or
    /// a name that is not one of its arguments, is invalid params; an argument without a
    /// completer gets no values.
    pub(super) fn complete(
        &self,
        id: &RequestId,
        params: Option<&JsonObject>,
        mut scope: RequestScope,
        in_flight: &InFlight,
    ) -> Result<Reply, ErrorObject> {
        if self.capabilities.completions.is_none() {
            return Err(ErrorObject::method_not_found("completion/complete"));
        }
        let reference = params
            .and_then(|params| params.get("ref"))
            .and_then(Value::as_object);
        let argument = params
            .and_then(|params| params.get("argument"))
            .and_then(Value::as_object);
        let (Some(reference), Some(argument)) = (reference, argument) else {
            return Err(ErrorObject::invalid_params(
                "`completion/complete` needs a `ref` and an `argument` object",
            ));
        };
        let name = required_str(Some(argument), "name", "completion/complete")?.to_owned();
        let value = required_str(Some(argument), "value", "completion/complete")?.to_owned();
        let known = params
            .and_then(|params| params.get("context"))
            .and_then(Value::as_object);
        scope.permit(&self.reference_scopes(reference))?;
        let revision = scope.revision;
        let token = in_flight.token();
        let piped = self.piped(id, Method::Complete, &scope, None, &token);
        let request = CompletionRequest {
            argument: name,
            value,
            context: CompletionContext {
                arguments: string_arguments(known, "arguments")?.into_iter().collect(),
                request: context(&mut scope, token.clone(), true),
            },
        };
        let completion = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => self.complete_prompt(reference, &request),
            Some("ref/resource") => self.complete_resource(reference, &request),
            _ => {
                return Err(ErrorObject::invalid_params(
                    "`ref.type` must be `ref/prompt` or `ref/resource`",
                ));
            }
        };
        let Some(mut piped) = piped else {
            let modern = revision
                .is_modern()
                .then(|| ModernResult::complete(&self.modern_meta));
            return Ok(Reply::Ready(Outgoing::result(
                id,
                &CompleteResult::new(&completion?, modern),
            )));
        };
        // What is completed: the prompt's name or the template's URI.
        piped.request.name = ["name", "uri"]
            .iter()
            .find_map(|key| reference.get(*key).and_then(Value::as_str))
            .map(Into::into);
        answer_now(
            id,
            piped,
            token,
            in_flight,
            completion.map(Response::Completion),
            Box::new(move |response, id, modern_meta| {
                let Response::Completion(completion) = response else {
                    return Outgoing::error(Some(id), &another_kind(Method::Complete));
                };
                let modern = revision
                    .is_modern()
                    .then(|| ModernResult::complete(modern_meta));
                Outgoing::result(id, &CompleteResult::new(&completion, modern))
            }),
        )
    }

    /// The scopes the prompt or resource template `reference` names needs to be completed:
    /// those it needs to be used. None for an unknown one (refused as unknown afterwards).
    fn reference_scopes(&self, reference: &JsonObject) -> Vec<Cow<'static, str>> {
        let named = |key: &str| reference.get(key).and_then(Value::as_str);
        match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => named("name")
                .and_then(|name| self.prompts.find(name))
                .map(|(_, handler)| handler.scopes().to_vec()),
            Some("ref/resource") => named("uri").and_then(|uri| {
                let resources = self.resources.get();
                let route = resources.router().by_reference(uri)?;
                Some(route.handler.scopes().to_vec())
            }),
            _ => None,
        }
        .unwrap_or_default()
    }

    fn complete_prompt(
        &self,
        reference: &JsonObject,
        request: &CompletionRequest,
    ) -> Result<Completion, ErrorObject> {
        let name = required_str(Some(reference), "name", "completion/complete")?;
        let Some((definition, handler)) = self.prompts.find(name) else {
            return Err(ErrorObject::invalid_params(format!(
                "unknown prompt `{name}`"
            )));
        };
        if !definition
            .arguments
            .iter()
            .any(|argument| argument.name == request.argument)
        {
            return Err(ErrorObject::invalid_params(format!(
                "the prompt `{name}` has no argument `{}`",
                request.argument
            )));
        }
        let what = format!(
            "the completer of `{}` in the prompt `{name}`",
            request.argument
        );
        guarded(&what, || handler.complete(request))
    }

    fn complete_resource(
        &self,
        reference: &JsonObject,
        request: &CompletionRequest,
    ) -> Result<Completion, ErrorObject> {
        let uri = required_str(Some(reference), "uri", "completion/complete")?;
        let resources = self.resources.get();
        let Some(route) = resources.router().by_reference(uri) else {
            return Err(ErrorObject::invalid_params(format!(
                "no resource template `{uri}`"
            )));
        };
        let has_variable = match &route.definition {
            ResourceDefinition::Template(template) => template
                .uri_template
                .variables()
                .any(|variable| variable == request.argument),
            ResourceDefinition::Static(_) => false,
        };
        if !has_variable {
            return Err(ErrorObject::invalid_params(format!(
                "`{uri}` has no variable `{}`",
                request.argument
            )));
        }
        let what = format!("the completer of `{}` in `{uri}`", request.argument);
        guarded(&what, || route.handler.complete(request))
    }
}

/// Run a completer, turning a panic into an internal error and "no completer" into no values.
fn guarded(
    what: &str,
    complete: impl FnOnce() -> Option<Completion>,
) -> Result<Completion, ErrorObject> {
    match catch_unwind(AssertUnwindSafe(complete)) {
        Ok(completion) => Ok(completion.unwrap_or_else(Completion::empty)),
        Err(payload) => Err(panicked(what, &payload)),
    }
}
