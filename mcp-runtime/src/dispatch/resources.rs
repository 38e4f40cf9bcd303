//! `resources/list`, `resources/templates/list`, `resources/read` and the legacy
//! `resources/subscribe` / `resources/unsubscribe`.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::asking::BoundArguments;
use super::catalog::{CatalogConfig, Live};
use super::catch_unwind::PanicPayload;
use super::classify::RequestScope;
use super::offerings::{
    context, cursor, is_retry, next_cursor, page_index, panicked, required_str,
};
use super::run::{Run, Through};
use super::{Dispatcher, InFlight, Reply};
use crate::dispatch::routing::{ResourceRouter, Route, RouteConflict};
use crate::dispatch::session::Session;
use crate::handler::{
    BoxFuture, JsonObject, Resource, ResourceDefinition, ResourceError, ResourceErrorKind,
    ResourceHandler, ResourceRead, ResourceTemplate,
};
use crate::middleware::{BoxError, Method, Request, Response};
use crate::protocol::ProtocolVersion;
use crate::protocol::ResourceContents;
use crate::protocol::jsonrpc::{ErrorObject, Outgoing, RequestId};
use crate::protocol::wire::{
    EmptyObject, ListResourceTemplatesResult, ListResourcesResult, ModernResult, ReadResourceResult,
};

/// Legacy "resource not found" (2026-07-28 uses invalid params instead).
const RESOURCE_NOT_FOUND: i32 = -32002;

/// The server's resources at one moment.
pub(crate) struct ResourceCatalog {
    router: ResourceRouter,
    page_size: usize,
    /// Per revision, every page of `resources/templates/list`, encoded once.
    template_pages: [OnceLock<Vec<Box<RawValue>>>; ProtocolVersion::ALL.len()],
    modern_meta: Arc<RawValue>,
    /// How long 2026-07-28 clients may reuse a list.
    ttl: Duration,
    /// Whether some resource declares scopes, so that callers' lists may differ.
    scoped: bool,
}

impl Live<ResourceCatalog> {
    /// Whether the server offers no resources at all: none now and none can come (it is not
    /// dynamic). Its `resources/*` methods then do not exist and no capability is declared.
    pub(crate) fn is_empty(&self) -> bool {
        !self.is_dynamic() && self.get().is_empty()
    }

    /// Whether some template variable has a completer now.
    pub(crate) fn has_completions(&self) -> bool {
        self.get().has_completions()
    }
}

impl ResourceCatalog {
    /// The catalog of `routes` (definitions already computed), checked for conflicts.
    pub(crate) fn from_routes(
        routes: Vec<Route>,
        config: &CatalogConfig,
    ) -> Result<Self, RouteConflict> {
        let scoped = routes
            .iter()
            .any(|route| !route.handler.scopes().is_empty());
        Ok(ResourceCatalog {
            scoped,
            router: ResourceRouter::from_routes(routes)?,
            page_size: config.page_size.max(1),
            template_pages: Default::default(),
            modern_meta: config.modern_meta.clone(),
            ttl: config.ttl,
        })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.router.is_empty()
    }

    pub(crate) fn router(&self) -> &ResourceRouter {
        &self.router
    }

    /// Whether some template variable has a completer.
    pub(crate) fn has_completions(&self) -> bool {
        self.router
            .routes()
            .iter()
            .any(|route| route.handler.has_completions())
    }

    /// Every scope some resource declares.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn declared_scopes(&self) -> impl Iterator<Item = &str> {
        self.router
            .routes()
            .iter()
            .flat_map(|route| route.handler.scopes().iter().map(|scope| &**scope))
    }

    fn templates(&self) -> Vec<&ResourceTemplate> {
        self.templates_for(|_| true)
    }

    /// The templates whose scopes `may_use` allows, in order.
    fn templates_for(
        &self,
        may_use: impl Fn(&[std::borrow::Cow<'static, str>]) -> bool,
    ) -> Vec<&ResourceTemplate> {
        self.router
            .routes()
            .iter()
            .filter(|route| may_use(route.handler.scopes()))
            .filter_map(|route| match &route.definition {
                ResourceDefinition::Template(template) => Some(template),
                ResourceDefinition::Static(_) => None,
            })
            .collect()
    }

    fn template_pages(&self, revision: ProtocolVersion) -> &[Box<RawValue>] {
        self.template_pages[revision as usize].get_or_init(|| {
            let templates = self.templates();
            let chunks: Vec<&[&ResourceTemplate]> = if templates.is_empty() {
                vec![&[]]
            } else {
                templates.chunks(self.page_size).collect()
            };
            let modern = revision
                .is_modern()
                .then(|| ModernResult::cacheable(&self.modern_meta, self.ttl));
            (0..chunks.len())
                .map(|index| {
                    let next = next_cursor(index, chunks.len());
                    ListResourceTemplatesResult::new(
                        chunks[index],
                        revision,
                        next.as_deref(),
                        modern,
                    )
                    .encode()
                })
                .collect()
        })
    }
}

/// "Resource not found" as the revision says it: `-32002` for legacy clients, `-32602` for
/// 2026-07-28 ones (which must never see `-32002`); the URI is in `data` either way.
pub(super) fn not_found(uri: &str, message: &str, revision: ProtocolVersion) -> ErrorObject {
    let code = if revision.is_modern() {
        ErrorObject::INVALID_PARAMS
    } else {
        RESOURCE_NOT_FOUND
    };
    ErrorObject::new(code, format!("resource not found: {message}")).with_data(json!({"uri": uri}))
}

fn read_error(uri: &str, error: &ResourceError, revision: ProtocolVersion) -> ErrorObject {
    match error.kind() {
        ResourceErrorKind::Internal => {
            tracing::error!(uri, error = error.message(), "a resource read failed");
            ErrorObject::internal_error(format!("cannot read `{uri}`: {}", error.message()))
                .with_data(json!({"uri": uri}))
        }
        _ => not_found(uri, error.message(), revision),
    }
}

impl Dispatcher {
    /// `resources/list`: the static resources, then what each template's lister enumerates,
    /// in the order the resources were registered. Listers run on every request (what they
    /// list may change), so the reply waits for them.
    pub(super) fn list_resources(
        &self,
        id: &RequestId,
        params: Option<&JsonObject>,
        mut scope: RequestScope,
        session: &Session,
    ) -> Result<Reply, ErrorObject> {
        let cursor = cursor(params)?.map(str::to_owned);
        let revision = scope.revision;
        let token = session.in_flight().token();
        let piped = self.piped(id, Method::ListResources, &scope, None, &token);
        let catalog = self.resources.get();
        let (for_caller, filtered) = self.list_for_caller(catalog.scoped, &scope);
        let routes: Vec<(ResourceDefinition, Arc<dyn ResourceHandler>)> = catalog
            .router()
            .routes()
            .iter()
            .filter(|route| !filtered || scope.may_use(route.handler.scopes()))
            .map(|route| (route.definition.clone(), route.handler.clone()))
            .collect();
        let request_context = context(&mut scope, token.clone(), true);
        let page_size = catalog.page_size;
        let list_ttl = catalog.ttl;
        drop(catalog);
        let start = move |_: Option<&mut Request>| -> BoxFuture<'static, ListOutcome> {
            // Every lister starts here (inside the panic guard), then they are awaited in order.
            let started: Vec<_> = routes
                .into_iter()
                .map(|(definition, handler)| match definition {
                    ResourceDefinition::Static(resource) => Listed::Static(resource),
                    ResourceDefinition::Template(template) => {
                        Listed::Template(handler.list(request_context.clone()), template)
                    }
                })
                .collect();
            Box::pin(async move {
                let mut resources = Vec::new();
                let mut dynamic = false;
                for listed in started {
                    match listed {
                        Listed::Static(resource) => resources.push(resource),
                        Listed::Template(None, _) => {}
                        Listed::Template(Some(list), template) => {
                            dynamic = true;
                            let listed = list
                                .await
                                .map_err(|error| (template.uri_template.to_string(), error))?;
                            resources.extend(
                                listed
                                    .into_iter()
                                    .map(|resource| inherit(resource, &template)),
                            );
                        }
                    }
                }
                Ok((resources, dynamic))
            })
        };
        Run::quiet(id, token, self.modern_meta.clone())
            .through(piped)
            .start(
                session.in_flight(),
                start,
                move |outcome, id, modern_meta| {
                    let (resources, dynamic) = match outcome {
                        Ok(Ok(listed)) => listed,
                        Ok(Err((template, error))) => {
                            return Outgoing::error(Some(id), &lister_failure(&template, &error));
                        }
                        Err(payload) => {
                            return Outgoing::error(
                                Some(id),
                                &panicked("a resource lister", &payload),
                            );
                        }
                    };
                    let chunks: Vec<&[Resource]> = if resources.is_empty() {
                        vec![&[]]
                    } else {
                        resources.chunks(page_size).collect()
                    };
                    let index = match page_index(cursor.as_deref(), chunks.len(), "resources/list")
                    {
                        Ok(index) => index,
                        Err(error) => return Outgoing::error(Some(id), &error),
                    };
                    // What listers return may change at any time: 2026-07-28 clients must not reuse it.
                    let ttl = if dynamic { Duration::ZERO } else { list_ttl };
                    let modern = revision.is_modern().then(|| {
                        let modern = ModernResult::cacheable(modern_meta, ttl);
                        if for_caller { modern.private() } else { modern }
                    });
                    let next = next_cursor(index, chunks.len());
                    Outgoing::result(
                        id,
                        &ListResourcesResult::new(chunks[index], revision, next.as_deref(), modern),
                    )
                },
            )
    }

    /// `resources/templates/list`: a page of the templates, encoded once per revision.
    pub(super) fn list_resource_templates(
        &self,
        id: &RequestId,
        params: Option<&JsonObject>,
        scope: RequestScope,
        in_flight: &InFlight,
    ) -> Result<Reply, ErrorObject> {
        let revision = scope.revision;
        let catalog = self.resources.get();
        if let (true, filtered) = self.list_for_caller(catalog.scoped, &scope) {
            let templates = catalog
                .templates_for(|scopes| !filtered || scope.may_use(scopes))
                .into_iter()
                .cloned()
                .collect();
            let list = self.callers_list(
                id,
                Method::ListResourceTemplates,
                &scope,
                cursor(params)?.map(str::to_owned),
                (catalog.page_size, catalog.ttl),
            );
            return list.answer(
                id,
                in_flight,
                Response::ResourceTemplates(templates),
                |response| match response {
                    Response::ResourceTemplates(items) => Some(items),
                    _ => None,
                },
                move |id, page, next, modern| {
                    let page: Vec<&ResourceTemplate> = page.iter().collect();
                    let result = ListResourceTemplatesResult::new(&page, revision, next, modern);
                    Outgoing::raw_result(id, &result.encode())
                },
            );
        }
        let pages = catalog.template_pages(revision);
        let index = page_index(cursor(params)?, pages.len(), "resources/templates/list")?;
        Ok(Reply::Ready(Outgoing::raw_result(id, &pages[index])))
    }

    /// `resources/read`: route the URI (a static URI first, then the most specific template)
    /// and read it. A URI no resource answers, and a read that reports "not found", are
    /// resource-not-found errors, never an empty `contents`.
    pub(super) fn read_resource(
        &self,
        id: &RequestId,
        params: Option<JsonObject>,
        scope: RequestScope,
        in_flight: &InFlight,
    ) -> Result<Reply, ErrorObject> {
        let uri = params.as_ref().and_then(|params| params.get("uri"));
        let refusal = self.refusable(Method::ReadResource, &scope, uri.and_then(Value::as_str));
        let started = self.start_read(id, params, scope, in_flight);
        self.unless_refused(refusal, started, id, in_flight)
    }

    fn start_read(
        &self,
        id: &RequestId,
        params: Option<JsonObject>,
        mut scope: RequestScope,
        in_flight: &InFlight,
    ) -> Result<Reply, ErrorObject> {
        let uri = required_str(params.as_ref(), "uri", "resources/read")?.to_owned();
        let revision = scope.revision;
        let catalog = self.resources.get();
        let Some((route, variables)) = catalog.router().route(&uri) else {
            return Err(not_found(
                &uri,
                &format!("no resource or resource template matches `{uri}`"),
                revision,
            ));
        };
        scope.permit(route.handler.scopes())?;
        tracing::debug!(%id, uri, resource = route.definition.name(), "resources/read");
        let mut asking = self.asking(
            id,
            &scope,
            "resources/read",
            &uri,
            BoundArguments::Built(&Value::Null),
            params.as_ref(),
        )?;
        let token = in_flight.token();
        let piped = self
            .piped(id, Method::ReadResource, &scope, None, &token)
            .map(|mut piped| {
                piped.request.name = Some(uri.as_str().into());
                piped.request.retry = is_retry(params.as_ref());
                piped
            });
        let mut request_context = context(&mut scope, token, true);
        request_context.asker = asking.asker.take();
        let run = Run::of(
            id,
            &request_context,
            self.progress_heartbeat,
            &asking,
            self.modern_meta.clone(),
        );
        if let Some(piped) = &piped {
            request_context.cancellation = piped.request.cancellation.clone();
        }
        let run = run.through(piped);
        let read = ResourceRead {
            uri: uri.clone(),
            variables,
            context: request_context,
        };
        let handler = route.handler.clone();
        let name = route.definition.name().to_owned();
        let page_meta = crate::extensions::apps::page_meta(&route.definition);
        let answer =
            move |outcome: Result<Result<Vec<ResourceContents>, ResourceError>, PanicPayload>,
                  id: &RequestId,
                  modern_meta: &Arc<RawValue>| {
                let mut contents = match outcome {
                    Ok(Ok(contents)) if !contents.is_empty() => contents,
                    Ok(Ok(_)) => {
                        let error = ResourceError::not_found(format!("`{uri}` has no contents"));
                        return Outgoing::error(Some(id), &read_error(&uri, &error, revision));
                    }
                    Ok(Err(error)) => {
                        return Outgoing::error(Some(id), &read_error(&uri, &error, revision));
                    }
                    Err(payload) => {
                        let what = format!("the resource `{name}`");
                        return Outgoing::error(Some(id), &panicked(&what, &payload));
                    }
                };
                // An app page's policy travels with its HTML, where hosts read it.
                if let Some(ui) = &page_meta {
                    for item in &mut contents {
                        if item.meta.get(crate::extensions::apps::META_KEY).is_none() {
                            item.meta
                                .insert_owned(crate::extensions::apps::META_KEY, ui.clone());
                        }
                    }
                }
                // Contents may change at any time (subscribers are told): never to be reused.
                let modern = revision
                    .is_modern()
                    .then(|| ModernResult::cacheable(modern_meta, Duration::ZERO));
                Outgoing::result(id, &ReadResourceResult::new(&contents, revision, modern))
            };
        run.start(in_flight, move |_| handler.read(read), answer)
    }

    /// Legacy `resources/subscribe` (`subscribe`) and `resources/unsubscribe`: remember (or
    /// forget) that the client wants `notifications/resources/updated` for a URI. Only URIs a
    /// resource answers can be subscribed to.
    pub(super) fn subscribe(
        &self,
        id: &RequestId,
        params: Option<&JsonObject>,
        session: &Session,
        subscribe: bool,
    ) -> Result<Reply, ErrorObject> {
        let method = if subscribe {
            "resources/subscribe"
        } else {
            "resources/unsubscribe"
        };
        let uri = required_str(params, "uri", method)?;
        let revision = session
            .legacy()
            .map_or(ProtocolVersion::NEWEST_LEGACY, |legacy| legacy.version);
        if subscribe {
            let resources = self.resources.get();
            let Some((route, _)) = resources.router().route(uri) else {
                return Err(not_found(
                    uri,
                    &format!("no resource or resource template matches `{uri}`"),
                    revision,
                ));
            };
            super::access::permit(
                session.principal(),
                session.authenticated(),
                route.handler.scopes(),
            )?;
            session.subscriptions().subscribe(uri);
        } else {
            session.subscriptions().unsubscribe(uri);
        }
        Ok(Reply::Ready(Outgoing::result(id, &EmptyObject {})))
    }
}

impl Through for Result<Vec<ResourceContents>, ResourceError> {
    fn into_response(self, request: &Request) -> Result<Response, BoxError> {
        match self {
            Ok(contents) => Ok(Response::Resource(contents)),
            Err(error) => {
                let uri = request.name().unwrap_or_default();
                let refused = read_error(uri, &error, request.caller().revision());
                Err(crate::middleware::Error(refused).into())
            }
        }
    }

    fn from_response(response: Response) -> Option<Self> {
        match response {
            Response::Resource(contents) => Some(Ok(contents)),
            _ => None,
        }
    }
}

/// The error answering a `resources/list` whose lister of `template` failed.
fn lister_failure(template: &str, error: &ResourceError) -> ErrorObject {
    tracing::error!(
        template,
        error = error.message(),
        "a resource lister failed"
    );
    ErrorObject::internal_error(format!(
        "cannot list the resources of `{template}`: {}",
        error.message()
    ))
}

impl Through for ListOutcome {
    fn into_response(self, _: &Request) -> Result<Response, BoxError> {
        match self {
            Ok((resources, _)) => Ok(Response::Resources(resources)),
            Err((template, error)) => {
                Err(crate::middleware::Error(lister_failure(&template, &error)).into())
            }
        }
    }

    /// A list that passed layers may differ per caller or per moment: never to be reused
    /// (it counts as listed by a lister).
    fn from_response(response: Response) -> Option<Self> {
        match response {
            Response::Resources(resources) => Some(Ok((resources, true))),
            _ => None,
        }
    }
}

/// Every resource listed and whether some came from a lister, or the template whose lister
/// failed.
type ListOutcome = Result<(Vec<Resource>, bool), (String, ResourceError)>;

/// What one resource contributes to `resources/list`.
enum Listed {
    Static(Resource),
    Template(
        Option<BoxFuture<'static, Result<Vec<Resource>, ResourceError>>>,
        ResourceTemplate,
    ),
}

/// A listed instance of `template` takes the template's MIME type, annotations and icons unless
/// it says otherwise.
fn inherit(mut resource: Resource, template: &ResourceTemplate) -> Resource {
    if resource.mime_type.is_none() {
        resource.mime_type = template.mime_type.clone();
    }
    if resource.annotations.is_empty() {
        resource.annotations = template.annotations.clone();
    }
    if resource.icons.is_empty() {
        resource.icons = template.icons.clone();
    }
    resource
}
