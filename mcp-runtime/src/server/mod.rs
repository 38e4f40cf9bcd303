//! The `Server` value users build; every transport serves it.

use std::borrow::Cow;
use std::time::Duration;

use crate::dispatch::notify::Notifier;
use crate::dispatch::surfaces::Surfaces;
use crate::dispatch::{Dispatcher, Kind, Sets};
use crate::handler::Prompts;
use crate::handler::Resources;
use crate::handler::Tools;
use crate::middleware::{BoxError, Layer, Next, Request, Response, Service};

pub use crate::protocol::ServerInfo;

/// An MCP server: its identity and what it offers. Build it, then serve it on a transport.
///
/// ```no_run
/// use mcp_runtime::{Server, Tools, server_info};
///
/// #[tokio::main]
/// async fn main() -> std::io::Result<()> {
///     Server::new(server_info!())
///         .instructions("Arithmetic tools.")
///         .tools(Tools::new()) // usually `tools![add, divide]`
///         .serve_stdio()
///         .await
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Server {
    /// What the dispatcher is built from.
    pub(crate) config: crate::dispatch::Config,
    /// What the server offers: the one home of its tools, resources and prompts.
    pub(crate) surfaces: Surfaces,
    pub(crate) max_message_size: usize,
    pub(crate) shutdown_timeout: Duration,
    pub(crate) request_state_key_chosen: bool,
    pub(crate) previous_request_state_key_chosen: bool,
    pub(crate) from_args: bool,
    /// Where legacy HTTP sessions are shared with the other instances, if anywhere.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) session_store: Option<std::sync::Arc<dyn crate::store::SessionStore>>,
    /// The flags the program reads itself, for `--help`: usage and meaning.
    pub(crate) own_flags: Vec<(Cow<'static, str>, Cow<'static, str>)>,
}

impl Server {
    /// Tools per `tools/list` page unless [`Server::page_size`] says otherwise.
    pub const DEFAULT_PAGE_SIZE: usize = 100;
    /// The largest incoming message, in bytes, unless [`Server::max_message_size`] says
    /// otherwise: 16 MiB.
    pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 16 * 1024 * 1024;
    /// The most memory one message may take once parsed, in bytes, unless
    /// [`Server::max_parsed_size`] says otherwise: 64 MiB.
    pub const DEFAULT_MAX_PARSED_SIZE: usize =
        crate::protocol::jsonrpc::budget::DEFAULT_MAX_PARSED_SIZE;
    /// How long calls still running at shutdown may take to finish, unless
    /// [`Server::shutdown_timeout`] says otherwise.
    pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(5);
    /// How often a long request with a progress token gets a heartbeat unless
    /// [`Server::progress_heartbeat`] says otherwise.
    pub const DEFAULT_PROGRESS_HEARTBEAT: Duration = Duration::from_secs(10);
    /// How long a legacy session's question waits for the client unless
    /// [`Server::ask_timeout`] says otherwise: a person may be answering.
    pub const DEFAULT_ASK_TIMEOUT: Duration = Duration::from_secs(300);

    /// A server with this identity and nothing to offer yet.
    pub fn new(info: ServerInfo) -> Self {
        Server {
            config: crate::dispatch::Config {
                info,
                instructions: None,
                page_size: Self::DEFAULT_PAGE_SIZE,
                max_parsed_size: Self::DEFAULT_MAX_PARSED_SIZE,
                states: crate::context::state::States::default(),
                progress_heartbeat: Some(Self::DEFAULT_PROGRESS_HEARTBEAT),
                ask_timeout: Self::DEFAULT_ASK_TIMEOUT,
                forward_tracing: false,
                request_state_key: crate::ask::seal::SealKey::random(),
                replay_guard: crate::ask::SharedReplayGuard::in_memory(),
                #[cfg(feature = "tasks")]
                tasks: crate::task::TaskConfig::default(),
                pipeline: None,
                hide_unpermitted: true,
                stdio_principal: None,
                extensions: crate::extensions::Declared::default(),
                #[cfg(feature = "otel")]
                lifecycle: None,
                #[cfg(feature = "otel")]
                telemetry: None,
            },
            surfaces: Surfaces::new(Notifier::new()),
            max_message_size: Self::DEFAULT_MAX_MESSAGE_SIZE,
            shutdown_timeout: Self::DEFAULT_SHUTDOWN_TIMEOUT,
            request_state_key_chosen: false,
            previous_request_state_key_chosen: false,
            from_args: false,
            session_store: None,
            own_flags: Vec::new(),
        }
    }

    /// How long a handler of a legacy session waits for the client to answer a question
    /// ([`RequestContext::elicit`](crate::RequestContext::elicit), `sample`, `roots`) before it
    /// gets [`AskError::TimedOut`](crate::AskError::TimedOut) and the question is withdrawn.
    /// 2026-07-28 requests never wait: their questions end the call.
    pub fn ask_timeout(mut self, timeout: Duration) -> Self {
        self.config.ask_timeout = timeout;
        self
    }

    /// Declare the protocol extension `extension` in `capabilities.extensions` (of
    /// `server/discover`, and of `initialize` for legacy clients); a later declaration of the
    /// same identifier replaces it. The runtime declares the tasks and MCP Apps extensions by
    /// itself when the server uses them; declaring one here sets its settings. An identifier
    /// the naming rules reject stops the server at start. See [`crate::extensions`].
    pub fn extension(mut self, extension: crate::extensions::Extension) -> Self {
        self.config.extensions.declare(extension);
        self
    }

    /// How long a task stays readable with `tasks/get` once it has ended (`ttlMs`; one hour
    /// unless set). Tasks are calls of tools that allow them
    /// ([`TaskSupport`](crate::handler::TaskSupport)), from 2026-07-28 clients that declare the
    /// `io.modelcontextprotocol/tasks` extension.
    #[cfg(feature = "tasks")]
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.config.tasks.ttl = ttl;
        self
    }

    /// How often clients are told to poll a task (`pollIntervalMs`; 500 ms unless set).
    #[cfg(feature = "tasks")]
    pub fn task_poll_interval(mut self, every: Duration) -> Self {
        self.config.tasks.poll_interval = every;
        self
    }

    /// How many tasks the server holds at once, running or ended (4096 unless set). When
    /// full, a call that could become a task is answered in place (a tool that requires tasks
    /// gets an error), and a warning is logged.
    #[cfg(feature = "tasks")]
    pub fn max_tasks(mut self, tasks: usize) -> Self {
        self.config.tasks.max_tasks = tasks;
        self
    }

    /// Keep tasks in `store`, shared with the other instances of this server behind a load
    /// balancer: any instance then answers `tasks/get`, `tasks/update` and `tasks/cancel` for
    /// any task, and a task whose instance died is reported `failed` once its
    /// [lease](Self::task_lease) runs out. In memory by default (a task's `tasks/*` requests
    /// must reach the instance that created it). The `redis` feature's
    /// [`RedisStore`](crate::redis::RedisStore) is one; [`Server::redis`](Self::redis) installs
    /// it with the other shared stores.
    #[cfg(feature = "tasks")]
    pub fn task_store(mut self, store: impl crate::store::TaskStore) -> Self {
        self.config.tasks.shared = Some(std::sync::Arc::new(store));
        self
    }

    /// How long an instance may go without renewing its lease on a task it runs in a shared
    /// [`task_store`](Self::task_store) before the task is reported `failed` (its instance
    /// presumed dead): 30 seconds unless set. The instance renews every third of it.
    #[cfg(feature = "tasks")]
    pub fn task_lease(mut self, lease: Duration) -> Self {
        self.config.tasks.lease = lease.max(Duration::from_millis(3));
        self
    }

    /// Carry the [`Notifier`]'s announcements between the instances of this server on `bus`:
    /// a `resources/updated` or `list_changed` announced on one reaches the clients listening
    /// on any. Without one, an announcement reaches the instance's own clients only.
    pub fn event_bus(self, bus: impl crate::store::EventBus) -> Self {
        self.surfaces.notifier().connect(std::sync::Arc::new(bus));
        self
    }

    /// Keep the legacy HTTP sessions (2025-03-26 to 2025-11-25, `Mcp-Session-Id`) and the
    /// events of their resumable streams in `store`, shared with the other instances of this
    /// server: a request naming a session another instance opened (one that died, say) is
    /// served here, the session taken over from the store when the caller is the principal it
    /// is bound to, and a 2025-11-25 client resumes its streams with `Last-Event-ID` on any
    /// instance. Without one a session lives in the instance that opened it (its requests must
    /// reach that instance, and a request naming a session it does not know is a 404).
    ///
    /// A request that needs the store while it does not answer (naming a session this
    /// instance does not know, resuming another instance's stream, `initialize`) gets
    /// [`STORE_UNAVAILABLE`](crate::store::STORE_UNAVAILABLE); the sessions this instance
    /// serves go on meanwhile. The `redis` feature's [`RedisStore`](crate::redis::RedisStore)
    /// is one; [`Server::redis`](Self::redis) installs it with the other shared stores.
    /// (Only the HTTP transport has such sessions; the others ignore the store.)
    pub fn session_store(mut self, store: impl crate::store::SessionStore) -> Self {
        self.session_store = Some(std::sync::Arc::new(store));
        self
    }

    /// Share every piece of state an instance keeps about its clients through `store`: the
    /// used `requestState`s ([`replay_guard`](Self::replay_guard)), the tasks
    /// ([`task_store`](Self::task_store)), the announcements ([`event_bus`](Self::event_bus))
    /// and the legacy HTTP sessions ([`session_store`](Self::session_store)).
    ///
    /// ```no_run
    /// use mcp_runtime::{redis::RedisStore, Server, server_info};
    ///
    /// #[tokio::main]
    /// async fn main() -> Result<(), Box<dyn std::error::Error>> {
    ///     // Inside the runtime: the store keeps a task there that listens to Redis.
    ///     let store = RedisStore::open("redis://127.0.0.1:6379/")?;
    ///     Server::new(server_info!())
    ///         .redis(&store)
    ///         .serve_from_args() // `--redis URL` does the same from the command line
    ///         .await?;
    ///     Ok(())
    /// }
    /// ```
    #[cfg(feature = "redis")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
    pub fn redis(self, store: &crate::redis::RedisStore) -> Self {
        self.replay_guard(store.clone())
            .task_store(store.clone())
            .event_bus(store.clone())
            .session_store(store.clone())
    }

    /// The secret that seals the `requestState` of 2026-07-28 questions, so that a client
    /// cannot forge or alter one. Random per process by default, which is right for one
    /// process; replicas behind a load balancer must share one (a retry may reach another
    /// replica, which refuses a state sealed under another key with `-32602`). Use at least 32
    /// random bytes, and keep it out of the code and out of logs.
    ///
    /// A server started with [`serve_from_args`](Self::serve_from_args) reads it from the
    /// environment variable `MCP_REQUEST_STATE_KEY` (when set and not empty) unless the program
    /// gave one here, which wins: `MCP_REQUEST_STATE_KEY="$(openssl rand -hex 32)"` on every
    /// replica of one deployment.
    ///
    /// States are encrypted and authenticated (XChaCha20-Poly1305 under a key derived from
    /// `secret`), so a client learns nothing from one but its length, and each names the key
    /// it was sealed under by an id derived from the secret. To change the secret without
    /// failing the retries in flight, keep the old one as
    /// [`previous_request_state_key`](Self::previous_request_state_key) for the lifetime of a
    /// state (10 minutes).
    pub fn request_state_key(mut self, secret: impl AsRef<[u8]>) -> Self {
        self.config.request_state_key = self.config.request_state_key.with_current(secret.as_ref());
        self.request_state_key_chosen = true;
        self
    }

    /// A secret that still opens the `requestState`s it sealed but seals none: the one
    /// [`request_state_key`](Self::request_state_key) replaced. New states are always sealed
    /// with the current key; drop this one once the states it sealed have expired (10 minutes
    /// after the switch).
    ///
    /// To roll a new secret across replicas without a refused retry: first give every replica
    /// the new secret as the previous key (each then opens what the others will seal), then
    /// make it the current key and the old one previous, then, 10 minutes later, drop the
    /// previous key.
    ///
    /// A server started with [`serve_from_args`](Self::serve_from_args) reads it from the
    /// environment variable `MCP_REQUEST_STATE_PREVIOUS_KEY` (when set and not empty) unless
    /// the program gave one here, which wins.
    pub fn previous_request_state_key(mut self, secret: impl AsRef<[u8]>) -> Self {
        self.config.request_state_key =
            self.config.request_state_key.with_previous(secret.as_ref());
        self.previous_request_state_key_chosen = true;
        self
    }

    /// Where the server records which 2026-07-28 `requestState`s a retry already used, so
    /// that each resumes a call once (a copy is refused with `-32602`). In memory by default
    /// ([`MemoryReplayGuard`](crate::ask::MemoryReplayGuard)), which is right for one process;
    /// replicas that share a [`request_state_key`](Self::request_state_key) should share this
    /// record too, or a copy of a state could be used once on each of them.
    pub fn replay_guard(mut self, guard: impl crate::ask::ReplayGuard) -> Self {
        self.config.replay_guard = crate::ask::SharedReplayGuard(std::sync::Arc::new(guard));
        self
    }

    /// Share `value` with every handler that takes a [`State<T>`](crate::State) parameter
    /// (one value per type; giving another of the same type replaces it). The server keeps it
    /// in an `Arc`: each call gets a cheap handle, never a copy.
    ///
    /// A handler asking for a type the server was not given fails at call time with an error
    /// naming the type (see [`State`](crate::State)).
    pub fn with_state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.config.states.insert(value);
        self
    }

    /// While a tool call, `prompts/get` or `resources/read` whose request carried a
    /// `progressToken` runs, send a progress notification every `every` in which the handler
    /// reported none itself, so clients that give up on requests without progress (often after
    /// 60 s) keep waiting for long handlers. `None` switches it off. Default:
    /// [`DEFAULT_PROGRESS_HEARTBEAT`](Self::DEFAULT_PROGRESS_HEARTBEAT).
    ///
    /// A heartbeat repeats the last total and moves the progress by the smallest amount above
    /// the last value (`0` when none was sent), so the handler's own later reports still rise.
    /// Requests without a token get none.
    pub fn progress_heartbeat(mut self, every: Option<Duration>) -> Self {
        self.config.progress_heartbeat = every.filter(|every| !every.is_zero());
        self
    }

    /// One more [layer](crate::middleware) around every request a handler answers (tool calls,
    /// reads, prompts, completions and the lists), in both eras and over every transport.
    /// Each call wraps the layers added before it: the layer added last sees a request first
    /// (as in axum; a `tower::ServiceBuilder` passed as one layer runs top to bottom). A
    /// tool's own layers run inside all of these.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_runtime::middleware::{ConcurrencyLimitLayer, TimeoutLayer};
    /// use mcp_runtime::{Server, server_info};
    ///
    /// // A call waits for one of 8 slots, then has 30 s.
    /// let server = Server::new(server_info!())
    ///     .layer(TimeoutLayer::new(Duration::from_secs(30)))
    ///     .layer(ConcurrencyLimitLayer::new(8));
    /// # drop(server);
    /// ```
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<Next>,
        L::Service: Service<Request, Response = Response> + Clone + Send + Sync + 'static,
        <L::Service as Service<Request>>::Error: Into<BoxError>,
        <L::Service as Service<Request>>::Future: Send + 'static,
    {
        let inner = self.config.pipeline.take().unwrap_or_else(Next::handler);
        self.config.pipeline = Some(inner.wrap(&layer));
        self
    }

    /// Trace everything the server receives with `layer`: it joins the pipeline, as
    /// [`layer`](Self::layer) would add it (at this place among the layers), and spans with
    /// the same tracer the messages that pass no pipeline: `initialize`, `server/discover`,
    /// `ping`, `logging/setLevel`, `resources/subscribe`, the task methods and the client's
    /// notifications (unknown methods are named `_OTHER`, so a client cannot make a series of
    /// every name it invents). Each legacy session (a stdio connection after `initialize`, an
    /// HTTP session) is counted in `mcp.server.active_sessions` while open and its length
    /// recorded in `mcp.server.session.duration`.
    ///
    /// ```
    /// use mcp_runtime::middleware::TraceLayer;
    ///
    /// let server = mcp_runtime::Server::new(mcp_runtime::server_info!()).trace(TraceLayer::new());
    /// # drop(server);
    /// ```
    #[cfg(feature = "otel")]
    #[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
    pub fn trace(mut self, layer: crate::middleware::TraceLayer) -> Self {
        self.config.lifecycle = Some(layer.lifecycle());
        self.layer(layer)
    }

    /// Trace as [`trace`](Self::trace) does, exporting over OTLP as the standard `OTEL_*`
    /// variables say, when they name an endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`, or its
    /// `_TRACES_` or `_METRICS_` form) and `OTEL_SDK_DISABLED` is not `true`; else nothing
    /// changes. One line gives a server (every example here has it) spans and metrics in
    /// Jaeger, Tempo or any OTLP backend, set up by [`telemetry::init`](crate::telemetry::init).
    ///
    /// What is pending is exported when serving ends (stdin closed, SIGTERM or SIGINT, a
    /// command of the command-line tool done), so a short stdio session loses no span. Set up
    /// wrongly (an invalid variable, an unreadable `OTEL_EXPORTER_OTLP_CERTIFICATE`), the
    /// server says why on stderr and serves untraced.
    ///
    /// It exists without the `otel` feature too, so one `main` builds either way: such a
    /// binary says on stderr, when the variables ask for export, that it cannot.
    ///
    /// ```no_run
    /// # async fn run() -> std::io::Result<()> {
    /// // OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 OTEL_SERVICE_NAME=calculator ./server
    /// mcp_runtime::Server::new(mcp_runtime::server_info!())
    ///     .trace_from_env()
    ///     .serve_from_args()
    ///     .await
    /// # }
    /// ```
    pub fn trace_from_env(#[allow(unused_mut)] mut self) -> Self {
        if !export_asked() {
            return self;
        }
        #[cfg(not(feature = "otel"))]
        {
            crate::transport::stderr_log::install_if_absent();
            tracing::warn!(
                "OTEL_EXPORTER_OTLP_* is set, but this server was built without the `otel` \
                 feature of mcp-runtime: serving untraced"
            );
            self
        }
        #[cfg(feature = "otel")]
        match crate::telemetry::init() {
            Ok(telemetry) => {
                self.config.telemetry = Some(std::sync::Arc::new(telemetry));
                self.trace(crate::middleware::TraceLayer::new())
            }
            Err(error) => {
                crate::transport::stderr_log::install_if_absent();
                tracing::error!(%error, "serving without OpenTelemetry");
                self
            }
        }
    }

    /// Whether `tracing` events (`tracing::info!` ...) emitted while a tool call, `prompts/get`
    /// or `resources/read` runs also go to that request's client as `notifications/message`,
    /// like [`RequestContext::log`](crate::RequestContext::log): gated by the level the client
    /// asked for, never after the response. Default: off.
    ///
    /// Off by default because every event on the handler's task is sent, those of the
    /// libraries it calls too (an HTTP client logging URLs and headers, a database driver
    /// logging queries): they may carry secrets or personal data that the server's operator may
    /// see but the client and its model should not. The runtime's own events are never sent.
    ///
    /// Events are forwarded by the runtime's stderr logger (installed when the program has no
    /// `tracing` subscriber), up to its level (`MCP_LOG`, default `info`); a program with its
    /// own subscriber calls [`forward_tracing_event`](crate::forward_tracing_event) from it.
    /// Only the handler's own task forwards: a task it spawns does not (give it the
    /// `RequestContext` and use `ctx.log` there).
    ///
    /// ```no_run
    /// use mcp_runtime::{Server, mcp_tool, server_info, tools};
    ///
    /// /// Look a word up.
    /// #[mcp_tool]
    /// async fn define(word: String) -> String {
    ///     // Reaches the client as {"level": "info", "logger": "<crate>", "data":
    ///     // {"message": "looking up", "word": "..."}} when it asked for `info`.
    ///     tracing::info!(word = %word, "looking up");
    ///     format!("{word}: ...")
    /// }
    ///
    /// # async fn run() -> std::io::Result<()> {
    /// Server::new(server_info!())
    ///     .forward_tracing(true)
    ///     .tools(tools![define])
    ///     .serve_stdio()
    ///     .await
    /// # }
    /// ```
    pub fn forward_tracing(mut self, forward: bool) -> Self {
        self.config.forward_tracing = forward;
        self
    }

    /// Whether `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list`
    /// leave out what the caller's scopes do not allow (`true`, the default), or list
    /// everything and refuse only its use (`false`). Only tools, resources and prompts that
    /// declare scopes (`#[mcp_tool(scopes("..."))]`) are ever left out; see [`crate::auth`].
    ///
    /// A 2026-07-28 list that can differ between callers says `cacheScope: "private"`, so no
    /// shared cache hands one caller's list to another.
    pub fn hide_unpermitted(mut self, hide: bool) -> Self {
        self.config.hide_unpermitted = hide;
        self
    }

    /// Serve stdio (and the in-process [`TestClient`](crate::testing::TestClient)) as
    /// `principal`, whose scopes are then checked like a verified token's. Without it, stdio
    /// has no token to check: whoever started the process is trusted with every scope, as
    /// the spec has stdio servers take their credentials from the environment.
    ///
    /// ```
    /// use mcp_runtime::auth::Principal;
    /// use mcp_runtime::{Server, server_info};
    ///
    /// let read_only = Server::new(server_info!())
    ///     .stdio_principal(Principal::new("operator").with_scopes(["notes:read"]));
    /// # drop(read_only);
    /// ```
    pub fn stdio_principal(mut self, principal: crate::auth::Principal) -> Self {
        self.config.stdio_principal = Some(principal);
        self
    }

    /// Offer these tools (replacing any offered before, also those added through
    /// [`surfaces`](Self::surfaces)).
    pub fn tools(mut self, tools: Tools) -> Self {
        let tools = Sets::of(&tools, &Resources::new(), &Prompts::new());
        self.surfaces.set(Kind::Tools, tools);
        self
    }

    /// Offer these resources (replacing any offered before): usually `resources![...]`.
    pub fn resources(mut self, resources: Resources) -> Self {
        let resources = Sets::of(&Tools::new(), &resources, &Prompts::new());
        self.surfaces.set(Kind::Resources, resources);
        self
    }

    /// Offer these prompts (replacing any offered before): usually `prompts![...]`.
    pub fn prompts(mut self, prompts: Prompts) -> Self {
        let prompts = Sets::of(&Tools::new(), &Resources::new(), &prompts);
        self.surfaces.set(Kind::Prompts, prompts);
        self
    }

    /// A handle to add and remove tools, resources and prompts while the server serves, each
    /// change announced to its clients (see [`Surfaces`]). Every clone of the server shares
    /// it; get it before serving.
    ///
    /// Asking for it makes the server dynamic: it then declares the `tools`, `resources` and
    /// `prompts` capabilities with `listChanged: true`, even with none of a kind yet, and its
    /// lists carry no time to live for 2026-07-28 clients. It starts with what the builder
    /// was given ([`tools`](Self::tools), [`resources`](Self::resources),
    /// [`prompts`](Self::prompts)); giving the builder a set later replaces that kind.
    pub fn surfaces(&self) -> Surfaces {
        self.surfaces.hand_out();
        self.surfaces.clone()
    }

    /// Offer the tools, resources and prompts of `service`, a type whose `impl` block has
    /// `#[mcp_server]` (see [`McpService`](crate::handler::McpService)), after those offered before:
    /// each call borrows the one shared value as `&self`. Give the value, or an `Arc` of it to
    /// keep a handle.
    ///
    /// ```no_run
    /// use mcp_runtime::{Server, mcp_server, mcp_tool, server_info};
    ///
    /// struct Greeter {
    ///     greeting: String,
    /// }
    ///
    /// #[mcp_server]
    /// impl Greeter {
    ///     /// Greet someone.
    ///     #[mcp_tool]
    ///     async fn greet(&self, name: String) -> String {
    ///         format!("{}, {name}!", self.greeting)
    ///     }
    /// }
    ///
    /// #[tokio::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let greeter = Greeter { greeting: "Hello".to_owned() };
    ///     Server::new(server_info!()).service(greeter).serve_stdio().await
    /// }
    /// ```
    ///
    /// A later [`tools`](Self::tools), [`resources`](Self::resources) or
    /// [`prompts`](Self::prompts) replaces that kind, the service's included.
    pub fn service(self, service: impl crate::handler::IntoService) -> Self {
        use crate::handler::McpService as _;
        let service = service.into_service();
        let offered = self.surfaces.sets();
        let tools = service.add_tools(offered.tools_set());
        let resources = service.add_resources(offered.resources_set());
        let prompts = service.add_prompts(offered.prompts_set());
        self.tools(tools).resources(resources).prompts(prompts)
    }

    /// A handle to announce changes (a resource's new contents, a changed list) to the
    /// clients of this server once it serves. Every clone of the server shares it.
    pub fn notifier(&self) -> Notifier {
        self.surfaces.notifier().clone()
    }

    /// Instructions that tell the client's model how to use this server.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.config.instructions = Some(instructions.into());
        self
    }

    /// How many tools one `tools/list` page holds (at least one; default
    /// [`DEFAULT_PAGE_SIZE`](Self::DEFAULT_PAGE_SIZE)). Clients follow `nextCursor` for the rest.
    pub fn page_size(mut self, tools_per_page: usize) -> Self {
        self.config.page_size = tools_per_page.max(1);
        self
    }

    /// The largest message accepted, in bytes (default
    /// [`DEFAULT_MAX_MESSAGE_SIZE`](Self::DEFAULT_MAX_MESSAGE_SIZE)). A longer one is
    /// discarded unread and answered with an error; the server keeps serving.
    ///
    /// What a message costs once parsed is bounded apart, by
    /// [`max_parsed_size`](Self::max_parsed_size).
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// The most memory, in bytes, one message may take once parsed into JSON values (default
    /// [`DEFAULT_MAX_PARSED_SIZE`](Self::DEFAULT_MAX_PARSED_SIZE), 64 MiB). A message that would
    /// take more is refused before it is parsed, with `-32600` and its `id` when that can be
    /// read; the server keeps serving. Applies to stdio and HTTP alike.
    ///
    /// Parsed JSON is far larger than its text: each `0` of `[0,0,...]` is 2 bytes sent and a
    /// 72-byte value kept, so a 16 MiB message of them took 660 MiB before this limit. The
    /// size is estimated from the message's bytes before anything is built, as 72 bytes per
    /// value (each array element and object member, and each member once more for its key and
    /// map slot) plus 288 bytes per non-empty array or object (the first room for its
    /// elements); string contents are not counted, since they take no more parsed than sent
    /// and [`max_message_size`](Self::max_message_size) bounds them. The estimate is within a
    /// few percent of the memory serde_json takes, whatever the message's shape.
    ///
    /// The default lets through a 1 MiB JSON document of any usual shape (a dense `[0,0,...]`
    /// is 36 MiB parsed, records far less), and several MiB of most: tool arguments are rarely
    /// larger. A message
    /// just under it peaks the calculator example at 60 to 85 MiB of memory whatever its shape
    /// (twice that when its numbers are integers written as floats, `1.0`, which tool
    /// arguments read twice), where 16 MiB of nested arrays took 2.4 GiB without it. Raise it
    /// for tools that take large JSON structures, lower it for servers that must stay small.
    /// A message shorter than `max_parsed_size / 180` bytes cannot exceed it, and is not
    /// scanned at all.
    pub fn max_parsed_size(mut self, bytes: usize) -> Self {
        self.config.max_parsed_size = bytes;
        self
    }

    /// How long calls still running at shutdown may take before they are abandoned (default
    /// [`DEFAULT_SHUTDOWN_TIMEOUT`](Self::DEFAULT_SHUTDOWN_TIMEOUT)).
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// Describe a command-line flag the program reads itself before it hands the rest of its
    /// arguments to [`serve_stdio_with_args`](Self::serve_stdio_with_args), so that `--help`
    /// lists it beside the runtime's own commands. Flags are listed in the order described.
    ///
    /// ```
    /// use mcp_runtime::{Server, server_info};
    ///
    /// let server = Server::new(server_info!())
    ///     .flag_usage("--root DIR", "the directory the tools may read (default: .)");
    /// # let _ = server;
    /// ```
    pub fn flag_usage(
        mut self,
        usage: impl Into<Cow<'static, str>>,
        meaning: impl Into<Cow<'static, str>>,
    ) -> Self {
        self.own_flags.push((usage.into(), meaning.into()));
        self
    }

    /// The dispatcher that serves this server, its definitions checked.
    pub(crate) fn dispatcher(&self) -> Result<Dispatcher, crate::dispatch::CatalogError> {
        Dispatcher::new(&self.config, &self.surfaces)
    }
}

// The engine seen through the builder: dispatchers built from servers as users build them.
#[cfg(test)]
mod context_tests;
#[cfg(test)]
mod dispatch_tests;
#[cfg(test)]
mod surfaces_tests;

/// Whether the environment asks for OpenTelemetry export: an OTLP endpoint is named, and
/// `OTEL_SDK_DISABLED` is not `true`.
fn export_asked() -> bool {
    const ENDPOINTS: [&str; 3] = [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    ];
    let set = |name: &str| std::env::var_os(name).is_some_and(|value| !value.is_empty());
    let disabled = std::env::var("OTEL_SDK_DISABLED")
        .is_ok_and(|value| value.trim().eq_ignore_ascii_case("true"));
    !disabled && ENDPOINTS.iter().any(|name| set(name))
}
