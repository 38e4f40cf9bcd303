//! Tools, resources and prompts defined at run time, beside the macros: a definition built
//! step by step and a closure to answer with. Add them to a serving server through
//! [`Surfaces`](crate::Surfaces), or to a builder set with `Tools::with` and the like.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::{
    BoxFuture, IntoPromptResult, IntoReadResult, IntoToolResult, JsonObject,
    PromptArgumentDefinition, PromptDefinition, PromptError, PromptHandler, PromptRequest,
    Resource, ResourceDefinition, ResourceError, ResourceHandler, ResourceRead, ResourceTemplate,
    TaskSupport, ToolAnnotations, ToolCall, ToolDefinition, ToolHandler,
};
use crate::context::RequestContext;
use crate::middleware::{BoxError, Layer, Next, Request, Response, Service, ToolLayers};
use crate::protocol::{CallToolResult, GetPromptResult, Icon, Meta, ResourceContents};

/// A tool defined at run time: a name, what `tools/list` says about it, and an async closure
/// called with the arguments and the request's context.
///
/// The arguments are handed over as the client sent them: the runtime checks only that they
/// are a JSON object (or absent, then empty). Checking them against the input schema is the
/// closure's job, answering with an error result (`Err(message)`) the model can act on.
///
/// ```
/// use mcp_runtime::{handler::ToolBuilder, handler::ToolHandler};
/// use serde_json::json;
///
/// let shout = ToolBuilder::new("shout")
///     .description("Say it louder.")
///     .input_schema(json!({
///         "type": "object",
///         "properties": {"text": {"type": "string"}},
///         "required": ["text"],
///     }))
///     .handler(|arguments, _context| async move {
///         match arguments.get("text").and_then(|text| text.as_str()) {
///             Some(text) => Ok(text.to_uppercase()),
///             None => Err("`text` must be a string"),
///         }
///     });
/// assert_eq!(shout.definition().name, "shout");
/// ```
#[derive(Debug, Clone)]
pub struct ToolBuilder {
    definition: ToolDefinition,
    layers: Option<ToolLayers>,
    scopes: Vec<Cow<'static, str>>,
}

impl ToolBuilder {
    /// A tool called `name` taking any object (`{"type": "object"}`) until
    /// [`input_schema`](Self::input_schema) says more.
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        let mut input_schema = JsonObject::new();
        input_schema.insert("type".into(), "object".into());
        ToolBuilder {
            definition: ToolDefinition {
                name: name.into(),
                title: None,
                description: None,
                input_schema,
                output_schema: None,
                annotations: ToolAnnotations::default(),
                icons: Vec::new(),
                task_support: TaskSupport::Forbidden,
                meta: Meta::new(),
            },
            layers: None,
            scopes: Vec::new(),
        }
    }

    /// A human-readable name (sent from 2025-06-18 on).
    pub fn title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.definition.title = Some(title.into());
        self
    }

    /// What the tool does, for the model.
    pub fn description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.definition.description = Some(description.into());
        self
    }

    /// The JSON Schema of the arguments. It must be an object with `"type": "object"` at its
    /// root: anything else is refused when the tool is added
    /// ([`SurfaceError::InputSchemaNotObject`](crate::SurfaceError::InputSchemaNotObject), or
    /// at serve start for a builder set).
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.definition.input_schema = match schema {
            Value::Object(schema) => schema,
            _ => JsonObject::new(),
        };
        self
    }

    /// The JSON Schema of the results' `structuredContent` (sent from 2025-06-18 on). Not a
    /// JSON object: no output schema.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.definition.output_schema = match schema {
            Value::Object(schema) => Some(schema),
            _ => None,
        };
        self
    }

    /// Behaviour hints.
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.definition.annotations = annotations;
        self
    }

    /// One more icon (sent from 2025-11-25 on).
    pub fn icon(mut self, icon: Icon) -> Self {
        self.definition.icons.push(icon);
        self
    }

    /// One more `_meta` entry (sent from 2025-06-18 on). A key the naming rules reject or the
    /// protocol reserves (`io.modelcontextprotocol/...`) stops the server at start, naming the
    /// tool and the key.
    ///
    /// ```
    /// use mcp_runtime::handler::{ToolBuilder, ToolHandler};
    ///
    /// let tool = ToolBuilder::new("deploy")
    ///     .meta("com.example/owner", "platform-team")
    ///     .handler(|_, _| async { "deployed" });
    /// assert_eq!(tool.definition().meta.get("com.example/owner").unwrap(), "platform-team");
    /// ```
    pub fn meta(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.definition.meta.insert_owned(&key.into(), value.into());
        self
    }

    /// The tool's MCP App: the page rendering its results and who may call it
    /// (`_meta.ui`, see [`crate::extensions::apps`]). The server must offer the page; one it
    /// does not stops the server at start, naming both. It sets the `_meta` key `ui`, as
    /// [`meta`](Self::meta)`("ui", ...)` would: the later of the two wins.
    ///
    /// ```
    /// use mcp_runtime::extensions::apps::{AppTool, Visibility};
    /// use mcp_runtime::handler::{ToolBuilder, ToolHandler};
    ///
    /// let refresh = ToolBuilder::new("refresh")
    ///     .app(AppTool::new("ui://dashboard").visibility(&[Visibility::App]))
    ///     .handler(|_, _| async { "fresh" });
    /// assert_eq!(refresh.definition().meta.get("ui").unwrap()["visibility"][0], "app");
    /// ```
    pub fn app(mut self, app: crate::extensions::apps::AppTool) -> Self {
        self.definition
            .meta
            .insert_owned(crate::extensions::apps::META_KEY, app.to_value());
        self
    }

    /// Whether calls may run as tasks (default [`TaskSupport::Forbidden`]). Needs the `tasks`
    /// feature.
    #[cfg(feature = "tasks")]
    pub fn task_support(mut self, support: TaskSupport) -> Self {
        self.definition.task_support = support;
        self
    }

    /// One more [layer](crate::middleware) around this tool's calls alone, inside those
    /// added before (the first added runs first) and inside the server's.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_runtime::handler::{ToolBuilder, ToolHandler};
    /// use mcp_runtime::middleware::TimeoutLayer;
    ///
    /// let fetch = ToolBuilder::new("fetch")
    ///     .layer(TimeoutLayer::new(Duration::from_secs(10)))
    ///     .handler(|_, _| async { "fetched" });
    /// assert!(fetch.layers().is_some());
    /// ```
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<Next> + Send + Sync + 'static,
        L::Service: Service<Request, Response = Response> + Clone + Send + Sync + 'static,
        <L::Service as Service<Request>>::Error: Into<BoxError>,
        <L::Service as Service<Request>>::Future: Send + 'static,
    {
        self.layers = Some(match self.layers.take() {
            Some(outer) => outer.then(layer),
            None => ToolLayers::new(layer),
        });
        self
    }

    /// Serve it only to callers whose token grants every one of `scopes` (OAuth scope
    /// tokens, like `"notes:write"`), added to those already named. See [`crate::auth`].
    pub fn scopes<I>(mut self, scopes: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<Cow<'static, str>>,
    {
        add_scopes(&mut self.scopes, scopes);
        self
    }

    /// The tool, answering calls with `handler(arguments, context)`: anything a tool function
    /// may return ([`IntoToolResult`]: text, numbers, `Content`, `CallToolResult`,
    /// `Result<T, E: Display>`...).
    pub fn handler<F, Fut, R>(self, handler: F) -> BuiltTool
    where
        F: Fn(JsonObject, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        BuiltTool {
            definition: self.definition,
            layers: self.layers,
            scopes: self.scopes,
            call: Arc::new(move |call: ToolCall| {
                let running = handler(call.arguments, call.context);
                Box::pin(async move { running.await.into_tool_result() })
            }),
        }
    }
}

type CallFn = dyn Fn(ToolCall) -> BoxFuture<'static, CallToolResult> + Send + Sync;

/// A tool made by a [`ToolBuilder`].
#[derive(Clone)]
pub struct BuiltTool {
    definition: ToolDefinition,
    layers: Option<ToolLayers>,
    scopes: Vec<Cow<'static, str>>,
    call: Arc<CallFn>,
}

impl ToolHandler for BuiltTool {
    fn definition(&self) -> ToolDefinition {
        self.definition.clone()
    }

    fn call(&self, call: ToolCall) -> BoxFuture<'static, CallToolResult> {
        (self.call)(call)
    }

    fn layers(&self) -> Option<ToolLayers> {
        self.layers.clone()
    }

    fn scopes(&self) -> &[Cow<'static, str>] {
        &self.scopes
    }
}

impl fmt::Debug for BuiltTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuiltTool")
            .field("name", &self.definition.name)
            .finish_non_exhaustive()
    }
}

/// A resource (or resource template) defined at run time, read by an async closure.
///
/// ```
/// use mcp_runtime::{Resource, handler::ResourceBuilder, handler::ResourceHandler};
///
/// let motd = ResourceBuilder::new(Resource::new("text://motd", "motd").with_mime_type("text/plain"))
///     .reader(|_read| async { "Hello!".to_owned() });
/// assert_eq!(motd.definition().name(), "motd");
/// ```
#[derive(Debug, Clone)]
pub struct ResourceBuilder {
    definition: ResourceDefinition,
    scopes: Vec<Cow<'static, str>>,
}

impl ResourceBuilder {
    /// The resource at `resource.uri`.
    pub fn new(resource: Resource) -> Self {
        ResourceBuilder {
            definition: ResourceDefinition::Static(resource),
            scopes: Vec::new(),
        }
    }

    /// Every resource `template` matches; the reader gets the variables in
    /// [`ResourceRead::variables`]. No lister: `resources/list` shows none of them.
    pub fn template(template: ResourceTemplate) -> Self {
        ResourceBuilder {
            definition: ResourceDefinition::Template(template),
            scopes: Vec::new(),
        }
    }

    /// One more `_meta` entry on its definition (sent from 2025-06-18 on); as
    /// [`ToolBuilder::meta`], a rejected or reserved key stops the server at start.
    pub fn meta(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.definition
            .meta_mut()
            .insert_owned(&key.into(), value.into());
        self
    }

    /// Make it an MCP App page (see [`crate::extensions::apps`]): served as
    /// `text/html;profile=mcp-app`, its security policy and frame preferences in `_meta.ui` of
    /// the listing and of every contents it reads. Its URI must be a `ui://` one, or the
    /// server stops at start.
    ///
    /// ```
    /// use mcp_runtime::Resource;
    /// use mcp_runtime::extensions::apps::{AppPage, Csp, MIME_TYPE};
    /// use mcp_runtime::handler::{ResourceBuilder, ResourceHandler};
    ///
    /// let page = ResourceBuilder::new(Resource::new("ui://clock", "clock"))
    ///     .app(AppPage::new().csp(Csp::new().connect_domain("https://time.example")))
    ///     .reader(|_| async { "<!doctype html><p id=now></p>".to_owned() });
    /// assert_eq!(page.definition().mime_type(), Some(MIME_TYPE));
    /// ```
    pub fn app(mut self, page: crate::extensions::apps::AppPage) -> Self {
        let mime_type = Cow::Borrowed(crate::extensions::apps::MIME_TYPE);
        match &mut self.definition {
            ResourceDefinition::Static(resource) => resource.mime_type = Some(mime_type),
            ResourceDefinition::Template(template) => template.mime_type = Some(mime_type),
        }
        self.definition
            .meta_mut()
            .insert_owned(crate::extensions::apps::META_KEY, page.to_value());
        self
    }

    /// Serve it only to callers whose token grants every one of `scopes` (OAuth scope
    /// tokens, like `"notes:write"`), added to those already named. See [`crate::auth`].
    pub fn scopes<I>(mut self, scopes: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<Cow<'static, str>>,
    {
        add_scopes(&mut self.scopes, scopes);
        self
    }

    /// The resource, read by `reader`: anything a resource function may return
    /// ([`IntoReadResult`]: text, bytes, `ResourceContents`, `Result<T, E>`...), sent with
    /// the declared MIME type.
    pub fn reader<F, Fut, R>(self, reader: F) -> BuiltResource
    where
        F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoReadResult,
    {
        let mime_type = self.definition.mime_type().map(str::to_owned);
        BuiltResource {
            definition: self.definition,
            scopes: self.scopes,
            read: Arc::new(move |read: ResourceRead| {
                let uri = read.uri.clone();
                let mime_type = mime_type.clone();
                let reading = reader(read);
                Box::pin(async move { reading.await.into_read_result(&uri, mime_type.as_deref()) })
            }),
        }
    }
}

type ReadFn = dyn Fn(ResourceRead) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>>
    + Send
    + Sync;

/// A resource made by a [`ResourceBuilder`].
#[derive(Clone)]
pub struct BuiltResource {
    definition: ResourceDefinition,
    scopes: Vec<Cow<'static, str>>,
    read: Arc<ReadFn>,
}

impl ResourceHandler for BuiltResource {
    fn definition(&self) -> ResourceDefinition {
        self.definition.clone()
    }

    fn read(
        &self,
        read: ResourceRead,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        (self.read)(read)
    }

    fn scopes(&self) -> &[Cow<'static, str>] {
        &self.scopes
    }
}

impl fmt::Debug for BuiltResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuiltResource")
            .field("name", &self.definition.name())
            .finish_non_exhaustive()
    }
}

/// A prompt defined at run time, rendered by an async closure.
///
/// Required arguments are checked before the closure runs (a missing one is invalid params,
/// naming it); their values are strings, read with [`PromptRequest::argument`].
///
/// ```
/// use mcp_runtime::{handler::PromptBuilder, handler::PromptHandler};
///
/// let greet = PromptBuilder::new("greet")
///     .description("Greet someone.")
///     .argument("name", "Who to greet.", true)
///     .handler(|request| async move {
///         format!("Say hello to {}.", request.argument("name").unwrap_or_default())
///     });
/// assert_eq!(greet.definition().arguments.len(), 1);
/// ```
#[derive(Debug, Clone)]
pub struct PromptBuilder {
    definition: PromptDefinition,
    scopes: Vec<Cow<'static, str>>,
}

impl PromptBuilder {
    /// A prompt called `name`, with no arguments yet.
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        PromptBuilder {
            definition: PromptDefinition {
                name: name.into(),
                title: None,
                description: None,
                arguments: Vec::new(),
                icons: Vec::new(),
                meta: Meta::new(),
            },
            scopes: Vec::new(),
        }
    }

    /// A human-readable name (sent from 2025-06-18 on).
    pub fn title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.definition.title = Some(title.into());
        self
    }

    /// What the prompt is for.
    pub fn description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.definition.description = Some(description.into());
        self
    }

    /// One more icon (sent from 2025-11-25 on).
    pub fn icon(mut self, icon: Icon) -> Self {
        self.definition.icons.push(icon);
        self
    }

    /// One more `_meta` entry (sent from 2025-06-18 on); as [`ToolBuilder::meta`], a rejected
    /// or reserved key stops the server at start.
    pub fn meta(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.definition.meta.insert_owned(&key.into(), value.into());
        self
    }

    /// One more argument.
    pub fn argument(
        mut self,
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
        required: bool,
    ) -> Self {
        self.definition.arguments.push(PromptArgumentDefinition {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            required,
        });
        self
    }

    /// Serve it only to callers whose token grants every one of `scopes` (OAuth scope
    /// tokens, like `"notes:write"`), added to those already named. See [`crate::auth`].
    pub fn scopes<I>(mut self, scopes: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<Cow<'static, str>>,
    {
        add_scopes(&mut self.scopes, scopes);
        self
    }

    /// The prompt, rendered by `handler`: anything a prompt function may return
    /// ([`IntoPromptResult`]: text, `PromptMessage`s, `GetPromptResult`, `Result<T, E>`...).
    pub fn handler<F, Fut, R>(self, handler: F) -> BuiltPrompt
    where
        F: Fn(PromptRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        BuiltPrompt {
            definition: self.definition,
            scopes: self.scopes,
            get: Arc::new(move |request: PromptRequest| {
                let rendering = handler(request);
                Box::pin(async move { rendering.await.into_prompt_result() })
            }),
        }
    }
}

type GetFn =
    dyn Fn(PromptRequest) -> BoxFuture<'static, Result<GetPromptResult, PromptError>> + Send + Sync;

/// A prompt made by a [`PromptBuilder`].
#[derive(Clone)]
pub struct BuiltPrompt {
    definition: PromptDefinition,
    scopes: Vec<Cow<'static, str>>,
    get: Arc<GetFn>,
}

impl PromptHandler for BuiltPrompt {
    fn definition(&self) -> PromptDefinition {
        self.definition.clone()
    }

    fn get(
        &self,
        request: PromptRequest,
    ) -> BoxFuture<'static, Result<GetPromptResult, PromptError>> {
        let missing = self
            .definition
            .arguments
            .iter()
            .find(|argument| argument.required && request.argument(&argument.name).is_none());
        if let Some(argument) = missing {
            let error = PromptError::invalid_arguments(format!(
                "missing required argument `{}`",
                argument.name
            ));
            return Box::pin(std::future::ready(Err(error)));
        }
        (self.get)(request)
    }

    fn scopes(&self) -> &[Cow<'static, str>] {
        &self.scopes
    }
}

impl fmt::Debug for BuiltPrompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuiltPrompt")
            .field("name", &self.definition.name)
            .finish_non_exhaustive()
    }
}

/// `scopes` added to `to`, each once: what the builders' `scopes` do.
fn add_scopes<I>(to: &mut Vec<Cow<'static, str>>, scopes: I)
where
    I: IntoIterator,
    I::Item: Into<Cow<'static, str>>,
{
    for scope in scopes {
        let scope = scope.into();
        if !to.contains(&scope) {
            to.push(scope);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::ProtocolVersion;

    fn context() -> RequestContext {
        RequestContext::new(ProtocolVersion::V2025_06_18)
    }

    #[tokio::test]
    async fn a_built_tool_gets_its_arguments_and_answers() {
        let tool = ToolBuilder::new("double")
            .description("Twice x.")
            .input_schema(json!({"type": "object", "properties": {"x": {"type": "number"}}}))
            .handler(|arguments, _context| async move {
                let x = arguments.get("x").and_then(Value::as_f64);
                x.map(|x| x * 2.0).ok_or("no x")
            });
        let definition = tool.definition();
        assert_eq!(definition.description.as_deref(), Some("Twice x."));
        assert_eq!(definition.input_schema["properties"]["x"]["type"], "number");
        let arguments = json!({"x": 21}).as_object().unwrap().clone();
        let result = tool
            .call(ToolCall {
                arguments,
                context: context(),
            })
            .await;
        assert!(!result.is_error);
        assert_eq!(result.content, [crate::protocol::Content::text("42")]);
        let failed = tool
            .call(ToolCall {
                arguments: JsonObject::new(),
                context: context(),
            })
            .await;
        assert!(failed.is_error);
    }

    #[test]
    fn a_tool_takes_any_object_unless_told_otherwise() {
        let tool = ToolBuilder::new("t").handler(|_, _| async {});
        assert_eq!(
            Value::Object(tool.definition().input_schema),
            json!({"type": "object"})
        );
        let loose = ToolBuilder::new("t")
            .input_schema(json!(true))
            .handler(|_, _| async {});
        assert!(loose.definition().input_schema.is_empty());
    }

    #[tokio::test]
    async fn a_built_prompt_checks_required_arguments_first() {
        let prompt = PromptBuilder::new("greet")
            .argument("name", "Who.", true)
            .handler(|request| async move {
                format!("hello {}", request.argument("name").unwrap_or_default())
            });
        let missing = prompt
            .get(PromptRequest {
                arguments: Vec::new(),
                context: context(),
            })
            .await
            .unwrap_err();
        assert!(
            missing.message().contains("`name`"),
            "{}",
            missing.message()
        );
        let rendered = prompt
            .get(PromptRequest {
                arguments: vec![("name".into(), "Ada".into())],
                context: context(),
            })
            .await
            .unwrap();
        assert_eq!(rendered.messages.len(), 1);
    }

    #[tokio::test]
    async fn a_built_resource_reads_with_its_mime_type() {
        let resource =
            ResourceBuilder::new(Resource::new("text://motd", "motd").with_mime_type("text/plain"))
                .reader(|_| async { "hi".to_owned() });
        let contents = resource
            .read(ResourceRead {
                uri: "text://motd".into(),
                variables: Vec::new(),
                context: context(),
            })
            .await
            .unwrap();
        assert_eq!(
            contents,
            [ResourceContents::text("text://motd", "hi").with_mime_type("text/plain")]
        );
    }
}
