//! `prompts/list` and `prompts/get`.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::Value;
use serde_json::value::RawValue;

use super::asking::BoundArguments;
use super::catalog::{CatalogConfig, Live};
use super::catch_unwind::PanicPayload;
use super::classify::RequestScope;
use super::offerings::{
    context, cursor, is_retry, next_cursor, page_index, panicked, required_str,
};
use super::run::{Run, Through};
use super::{Dispatcher, InFlight, Reply};
use crate::handler::PromptError;
use crate::handler::Prompts;
use crate::handler::{JsonObject, PromptDefinition, PromptHandler, PromptRequest};
use crate::middleware::{BoxError, Method, Request, Response};
use crate::protocol::GetPromptResult;
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::{ErrorObject, Outgoing, RequestId};
use crate::protocol::wire::{GetPromptResultWire, ListPromptsResult, ModernResult};

/// Two prompts share a name, so `prompts/get` for it would be ambiguous.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DuplicatePrompt(pub(crate) String);

/// A prompt's definition, computed once, with its handler.
pub(crate) type PromptEntry = (PromptDefinition, Arc<dyn PromptHandler>);

/// The server's prompts at one moment.
pub(crate) struct PromptCatalog {
    definitions: Vec<PromptDefinition>,
    handlers: Vec<Arc<dyn PromptHandler>>,
    by_name: HashMap<String, usize>,
    page_size: usize,
    pages: [OnceLock<Vec<Box<RawValue>>>; ProtocolVersion::ALL.len()],
    modern_meta: Arc<RawValue>,
    /// How long 2026-07-28 clients may reuse a list.
    ttl: Duration,
    /// Whether some prompt declares scopes, so that callers' lists may differ.
    scoped: bool,
}

impl Live<PromptCatalog> {
    /// Whether the server offers no prompts at all: none now and none can come (it is not
    /// dynamic). Its `prompts/*` methods then do not exist and no capability is declared.
    pub(crate) fn is_empty(&self) -> bool {
        !self.is_dynamic() && self.get().is_empty()
    }

    /// The prompt called `name` now, with its definition.
    pub(crate) fn find(&self, name: &str) -> Option<PromptEntry> {
        let catalog = self.get();
        catalog
            .find(name)
            .map(|(definition, handler)| (definition.clone(), handler.clone()))
    }

    /// Whether some argument has a completer now.
    pub(crate) fn has_completions(&self) -> bool {
        self.get().has_completions()
    }
}

/// Every prompt's definition, asked of its handler once.
pub(crate) fn entries(prompts: &Prompts) -> Vec<PromptEntry> {
    prompts
        .handlers()
        .iter()
        .map(|handler| (handler.definition(), handler.clone()))
        .collect()
}

impl PromptCatalog {
    /// The catalog of `entries`, checked for duplicate names.
    pub(crate) fn from_entries(
        entries: &[PromptEntry],
        config: &CatalogConfig,
    ) -> Result<Self, DuplicatePrompt> {
        let mut definitions = Vec::new();
        let mut by_name = HashMap::new();
        for (definition, _) in entries {
            let definition = definition.clone();
            if by_name
                .insert(definition.name.to_string(), definitions.len())
                .is_some()
            {
                return Err(DuplicatePrompt(definition.name.into_owned()));
            }
            definitions.push(definition);
        }
        Ok(PromptCatalog {
            definitions,
            handlers: entries.iter().map(|(_, handler)| handler.clone()).collect(),
            by_name,
            page_size: config.page_size.max(1),
            pages: Default::default(),
            modern_meta: config.modern_meta.clone(),
            ttl: config.ttl,
            scoped: entries
                .iter()
                .any(|(_, handler)| !handler.scopes().is_empty()),
        })
    }

    /// The definitions of the prompts whose scopes `may_use` allows, in order.
    fn definitions_for(
        &self,
        may_use: impl Fn(&[std::borrow::Cow<'static, str>]) -> bool,
    ) -> Vec<PromptDefinition> {
        self.handlers
            .iter()
            .zip(&self.definitions)
            .filter(|(handler, _)| may_use(handler.scopes()))
            .map(|(_, definition)| definition.clone())
            .collect()
    }

    /// Every scope some prompt declares.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn declared_scopes(&self) -> impl Iterator<Item = &str> {
        self.handlers
            .iter()
            .flat_map(|handler| handler.scopes().iter().map(|scope| &**scope))
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.definitions.is_empty()
    }

    /// The prompt called `name`, with its definition.
    pub(crate) fn find(&self, name: &str) -> Option<(&PromptDefinition, &Arc<dyn PromptHandler>)> {
        self.by_name
            .get(name)
            .map(|&index| (&self.definitions[index], &self.handlers[index]))
    }

    /// Whether some argument has a completer.
    pub(crate) fn has_completions(&self) -> bool {
        self.handlers
            .iter()
            .any(|handler| handler.has_completions())
    }

    fn pages(&self, revision: ProtocolVersion) -> &[Box<RawValue>] {
        self.pages[revision as usize].get_or_init(|| {
            let chunks: Vec<&[PromptDefinition]> = if self.definitions.is_empty() {
                vec![&[]]
            } else {
                self.definitions.chunks(self.page_size).collect()
            };
            let modern = revision
                .is_modern()
                .then(|| ModernResult::cacheable(&self.modern_meta, self.ttl));
            (0..chunks.len())
                .map(|index| {
                    let next = next_cursor(index, chunks.len());
                    ListPromptsResult::new(chunks[index], revision, next.as_deref(), modern)
                        .encode()
                })
                .collect()
        })
    }
}

impl Dispatcher {
    /// `prompts/list`: a page of the definitions, encoded once per revision.
    pub(super) fn list_prompts(
        &self,
        id: &RequestId,
        params: Option<&JsonObject>,
        scope: RequestScope,
        in_flight: &InFlight,
    ) -> Result<Reply, ErrorObject> {
        let revision = scope.revision;
        let catalog = self.prompts.get();
        if let (true, filtered) = self.list_for_caller(catalog.scoped, &scope) {
            let definitions = if filtered {
                catalog.definitions_for(|scopes| scope.may_use(scopes))
            } else {
                catalog.definitions.clone()
            };
            let list = self.callers_list(
                id,
                Method::ListPrompts,
                &scope,
                cursor(params)?.map(str::to_owned),
                (catalog.page_size, catalog.ttl),
            );
            return list.answer(
                id,
                in_flight,
                Response::Prompts(definitions),
                |response| match response {
                    Response::Prompts(items) => Some(items),
                    _ => None,
                },
                move |id, page, next, modern| {
                    let result = ListPromptsResult::new(page, revision, next, modern);
                    Outgoing::raw_result(id, &result.encode())
                },
            );
        }
        let pages = catalog.pages(revision);
        let index = page_index(cursor(params)?, pages.len(), "prompts/list")?;
        Ok(Reply::Ready(Outgoing::raw_result(id, &pages[index])))
    }

    /// `prompts/get`: an unknown prompt, a missing required argument or one that does not
    /// parse is invalid params (`-32602`) naming it.
    pub(super) fn get_prompt(
        &self,
        id: &RequestId,
        params: Option<JsonObject>,
        scope: RequestScope,
        in_flight: &InFlight,
    ) -> Result<Reply, ErrorObject> {
        let name = params.as_ref().and_then(|params| params.get("name"));
        let refusal = self.refusable(Method::GetPrompt, &scope, name.and_then(Value::as_str));
        let started = self.start_prompt(id, params, scope, in_flight);
        self.unless_refused(refusal, started, id, in_flight)
    }

    fn start_prompt(
        &self,
        id: &RequestId,
        params: Option<JsonObject>,
        mut scope: RequestScope,
        in_flight: &InFlight,
    ) -> Result<Reply, ErrorObject> {
        let name = required_str(params.as_ref(), "name", "prompts/get")?;
        let catalog = self.prompts.get();
        let Some((definition, handler)) = catalog.find(name) else {
            return Err(ErrorObject::invalid_params(format!(
                "unknown prompt `{name}`"
            )));
        };
        scope.permit(handler.scopes())?;
        let arguments = string_arguments(params.as_ref(), "arguments")?;
        tracing::debug!(%id, prompt = name, "prompts/get");
        let mut asking = self.asking(
            id,
            &scope,
            "prompts/get",
            name,
            BoundArguments::Built(
                params
                    .as_ref()
                    .and_then(|params| params.get("arguments"))
                    .unwrap_or(&Value::Null),
            ),
            params.as_ref(),
        )?;
        let revision = scope.revision;
        let token = in_flight.token();
        let piped = self
            .piped(id, Method::GetPrompt, &scope, None, &token)
            .map(|mut piped| {
                piped.request.name = Some(definition.name.as_ref().into());
                piped.request.arguments = Some(
                    arguments
                        .iter()
                        .map(|(name, value)| (name.clone(), Value::String(value.clone())))
                        .collect(),
                );
                piped.request.retry = is_retry(params.as_ref());
                piped
            });
        let mut prompt_context = context(&mut scope, token, true);
        prompt_context.asker = asking.asker.take();
        let run = Run::of(
            id,
            &prompt_context,
            self.progress_heartbeat,
            &asking,
            self.modern_meta.clone(),
        );
        if let Some(piped) = &piped {
            prompt_context.cancellation = piped.request.cancellation.clone();
        }
        let run = run.through(piped);
        let mut request = PromptRequest {
            arguments,
            context: prompt_context,
        };
        let handler = handler.clone();
        let name = definition.name.clone();
        let answer = move |outcome: Result<Result<GetPromptResult, PromptError>, PanicPayload>,
                           id: &RequestId,
                           modern_meta: &Arc<RawValue>| {
            let error = match outcome {
                Ok(Ok(result)) => {
                    let modern = revision
                        .is_modern()
                        .then(|| ModernResult::complete(modern_meta));
                    return Outgoing::result(
                        id,
                        &GetPromptResultWire::new(&result, revision, modern),
                    );
                }
                Ok(Err(error)) => prompt_failure(&name, &error),
                Err(payload) => panicked(&format!("the prompt `{name}`"), &payload),
            };
            Outgoing::error(Some(id), &error)
        };
        run.start(
            in_flight,
            move |piped| {
                // Layers see (and may change) the arguments as an object of strings.
                if let Some(arguments) = piped.and_then(|piped| piped.arguments.take()) {
                    request.arguments = arguments
                        .into_iter()
                        .map(|(name, value)| match value {
                            Value::String(text) => (name, text),
                            other => (name, other.to_string()),
                        })
                        .collect();
                }
                handler.get(request)
            },
            answer,
        )
    }
}

/// The error answering a prompt that failed with `error`.
fn prompt_failure(name: &str, error: &PromptError) -> ErrorObject {
    if error.is_internal() {
        tracing::error!(prompt = name, error = error.message(), "a prompt failed");
        ErrorObject::internal_error(format!("the prompt `{name}` failed: {}", error.message()))
    } else {
        ErrorObject::invalid_params(format!("prompt `{name}`: {}", error.message()))
    }
}

impl Through for Result<GetPromptResult, PromptError> {
    fn into_response(self, request: &Request) -> Result<Response, BoxError> {
        match self {
            Ok(result) => Ok(Response::Prompt(result)),
            Err(error) => {
                let refused = prompt_failure(request.name().unwrap_or_default(), &error);
                Err(crate::middleware::Error(refused).into())
            }
        }
    }

    fn from_response(response: Response) -> Option<Self> {
        match response {
            Response::Prompt(result) => Some(Ok(result)),
            _ => None,
        }
    }
}

/// The string map `member` of `params` (prompt arguments, completion context): absent or
/// `null` is empty. Values are strings on the wire; numbers and booleans, which some clients
/// send, are taken as their JSON text rather than refused.
pub(super) fn string_arguments(
    params: Option<&JsonObject>,
    member: &str,
) -> Result<Vec<(String, String)>, ErrorObject> {
    let arguments = match params.and_then(|params| params.get(member)) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(arguments)) => arguments,
        Some(_) => {
            return Err(ErrorObject::invalid_params(format!(
                "`{member}` must be an object of strings"
            )));
        }
    };
    arguments
        .iter()
        .map(|(name, value)| match value {
            Value::String(text) => Ok((name.clone(), text.clone())),
            Value::Number(_) | Value::Bool(_) => Ok((name.clone(), value.to_string())),
            _ => Err(ErrorObject::invalid_params(format!(
                "argument `{name}` must be a string"
            ))),
        })
        .collect()
}
