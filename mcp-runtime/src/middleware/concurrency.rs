//! A limit on how many calls run at once, with a bounded queue before refusal.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::describe::subject;
use super::{BoxError, Layer, Method, Request, Response, Service};
use crate::future::BoxFuture;

/// Runs at most `max_running` `tools/call`, `resources/read` and `prompts/get` requests at
/// once. A request that finds every slot taken waits for one, first come first served, if
/// fewer than the queue's length already wait; otherwise it is refused at once with [`Busy`],
/// which a tool call's client gets as a tool error asking it to retry later (other methods:
/// an internal error). Lists and completions are not limited.
///
/// The queue is as long as `max_running` unless [`queue`](Self::queue) says otherwise; a
/// request that leaves while it waits (its client cancelled it, an outer timeout gave up)
/// frees its place in the queue. By default one limit counts every request together;
/// [`per_tool`](Self::per_tool) gives each tool (and each resource, each prompt) a limit of
/// its own. The limit is the layer's: every pipeline the layer value is added to shares it.
///
/// ```
/// use mcp_runtime::middleware::ConcurrencyLimitLayer;
///
/// // Each tool: 4 calls at once, 16 more waiting.
/// let layer = ConcurrencyLimitLayer::new(4).queue(16).per_tool();
/// # drop(layer);
/// ```
#[derive(Debug, Clone)]
pub struct ConcurrencyLimitLayer {
    limits: Arc<Limits>,
}

impl ConcurrencyLimitLayer {
    /// At most `max_running` requests at once (and as many waiting).
    ///
    /// # Panics
    ///
    /// If `max_running` is 0, or more than tokio's semaphore holds
    /// ([`Semaphore::MAX_PERMITS`]).
    pub fn new(max_running: usize) -> Self {
        assert!(
            max_running > 0,
            "a concurrency limit of 0 would refuse everything"
        );
        assert!(
            max_running <= Semaphore::MAX_PERMITS,
            "concurrency limit too large"
        );
        ConcurrencyLimitLayer {
            limits: Arc::new(Limits {
                max_running,
                max_waiting: max_running,
                per_tool: false,
                shared: Arc::new(Slots::new(max_running)),
                own: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// At most `max_waiting` requests waiting for a slot; 0 refuses whatever finds none free.
    pub fn queue(self, max_waiting: usize) -> Self {
        self.configure(|limits| limits.max_waiting = max_waiting)
    }

    /// A limit for each tool, resource and prompt, instead of one for all of them.
    pub fn per_tool(self) -> Self {
        self.configure(|limits| limits.per_tool = true)
    }

    fn configure(self, change: impl FnOnce(&mut Limits)) -> Self {
        let mut limits = Limits {
            max_running: self.limits.max_running,
            max_waiting: self.limits.max_waiting,
            per_tool: self.limits.per_tool,
            // Fresh slots: requests already running under the old value keep theirs.
            shared: Arc::new(Slots::new(self.limits.max_running)),
            own: Mutex::new(HashMap::new()),
        };
        change(&mut limits);
        ConcurrencyLimitLayer {
            limits: Arc::new(limits),
        }
    }
}

impl<S> Layer<S> for ConcurrencyLimitLayer {
    type Service = ConcurrencyLimit<S>;

    fn layer(&self, inner: S) -> ConcurrencyLimit<S> {
        ConcurrencyLimit {
            inner,
            limits: self.limits.clone(),
        }
    }
}

/// What every service of one [`ConcurrencyLimitLayer`] shares.
#[derive(Debug)]
struct Limits {
    max_running: usize,
    max_waiting: usize,
    per_tool: bool,
    shared: Arc<Slots>,
    /// With `per_tool`: the slots of each (method, name) in use or recently used.
    own: Mutex<PerName>,
}

/// The slots of each (method, name).
type PerName = HashMap<(Method, Arc<str>), Arc<Slots>>;

/// Past this many names in `Limits::own`, those nobody holds are forgotten: the names come
/// from clients (a resource's URI), so the map must not grow with every one ever asked for.
const NAMES_KEPT_IDLE: usize = 256;

impl Limits {
    /// The slots `request` counts against, or `None` when it is not limited.
    fn slots_for(&self, request: &Request) -> Option<Arc<Slots>> {
        let limited = matches!(
            request.method(),
            Method::CallTool | Method::ReadResource | Method::GetPrompt
        );
        if !limited {
            return None;
        }
        let Some(name) = request.name.clone().filter(|_| self.per_tool) else {
            return Some(self.shared.clone());
        };
        let mut own = self
            .own
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if own.len() >= NAMES_KEPT_IDLE {
            // Held by a request (running or waiting) means a clone outside the map.
            own.retain(|_, slots| Arc::strong_count(slots) > 1);
        }
        let slots = own
            .entry((request.method(), name))
            .or_insert_with(|| Arc::new(Slots::new(self.max_running)));
        Some(slots.clone())
    }

    fn busy(&self, request: &Request) -> Busy {
        Busy {
            method: request.method(),
            name: request.name.clone().filter(|_| self.per_tool),
            max_running: self.max_running,
            max_waiting: self.max_waiting,
        }
    }
}

/// One limit: its running slots and how many wait for one.
#[derive(Debug)]
struct Slots {
    running: Arc<Semaphore>,
    waiting: AtomicUsize,
}

impl Slots {
    fn new(max_running: usize) -> Self {
        Slots {
            running: Arc::new(Semaphore::new(max_running)),
            waiting: AtomicUsize::new(0),
        }
    }

    /// A slot now, or after waiting in the queue if it has room; `None` if it has none.
    async fn acquire(self: Arc<Self>, max_waiting: usize) -> Option<Slot> {
        if let Ok(permit) = self.running.clone().try_acquire_owned() {
            return Some(Slot {
                _permit: permit,
                _slots: self,
            });
        }
        let joined = self
            .waiting
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |waiting| {
                (waiting < max_waiting).then_some(waiting + 1)
            });
        if joined.is_err() {
            return None;
        }
        // Leaves the queue however the wait ends, dropped included.
        let place = PlaceInQueue(&self.waiting);
        let permit = self.running.clone().acquire_owned().await;
        drop(place);
        Some(Slot {
            _permit: permit.expect("the semaphore is never closed"),
            _slots: self,
        })
    }
}

/// A running request's slot, given back when the request's future ends or is dropped. It
/// holds its `Slots` too, which keeps a per-tool limit in the map while anyone runs under it.
struct Slot {
    _permit: OwnedSemaphorePermit,
    _slots: Arc<Slots>,
}

struct PlaceInQueue<'a>(&'a AtomicUsize);

impl Drop for PlaceInQueue<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The service [`ConcurrencyLimitLayer`] wraps around `S`.
#[derive(Debug, Clone)]
pub struct ConcurrencyLimit<S> {
    inner: S,
    limits: Arc<Limits>,
}

impl<S> Service<Request> for ConcurrencyLimit<S>
where
    S: Service<Request, Response = Response> + Clone + Send + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Response, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let Some(slots) = self.limits.slots_for(&request) else {
            return super::pipeline::boxed(self.inner.call(request));
        };
        // The inner service is called only once a slot is ours, so its future (which may
        // start work when made) is not built for a request that is refused; the clone that
        // was made ready goes with the request, as tower's own layers do.
        let ready = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, ready);
        let limits = self.limits.clone();
        Box::pin(async move {
            let Some(_slot) = slots.acquire(limits.max_waiting).await else {
                return Err(limits.busy(&request).into());
            };
            inner.call(request).await.map_err(Into::into)
        })
    }
}

/// A request [`ConcurrencyLimitLayer`] refused: every slot was taken and the queue full.
///
/// ```
/// use mcp_runtime::middleware::{BoxError, Busy};
///
/// fn refused_as_busy(error: &BoxError) -> bool {
///     error.downcast_ref::<Busy>().is_some()
/// }
/// # let _ = refused_as_busy;
/// ```
#[derive(Debug, Clone)]
pub struct Busy {
    method: Method,
    /// The tool (resource, prompt) whose own limit it was; `None` for the shared limit.
    name: Option<Arc<str>>,
    max_running: usize,
    max_waiting: usize,
}

impl Busy {
    /// How many requests may run at once.
    pub fn max_running(&self) -> usize {
        self.max_running
    }

    /// How many may wait for a slot.
    pub fn max_waiting(&self) -> usize {
        self.max_waiting
    }

    /// The refused request's method.
    pub fn method(&self) -> Method {
        self.method
    }
}

impl fmt::Display for Busy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let running = match self.max_running {
            1 => "1 call".to_owned(),
            running => format!("{running} calls"),
        };
        let (running_verb, waiting) = match (self.max_running, self.max_waiting) {
            (1, 0) => ("is", "none may wait".to_owned()),
            (_, 0) => ("are", "none may wait".to_owned()),
            (1, waiting) => ("is", format!("{waiting} waiting")),
            (_, waiting) => ("are", format!("{waiting} waiting")),
        };
        match &self.name {
            Some(name) => write!(
                f,
                "{} is busy: {running} of it {running_verb} running",
                subject(self.method, Some(name))
            )?,
            None => write!(f, "the server is busy: {running} {running_verb} running")?,
        }
        write!(f, " and {waiting}, the most it takes; retry later")
    }
}

impl std::error::Error for Busy {}

#[cfg(test)]
mod tests {
    use tokio::sync::oneshot;

    use super::*;
    use crate::middleware::Next;
    use crate::middleware::testing::{RequestBuilder, call, pipeline, request, tool_call};

    /// A call of `tool` that starts, says so, and finishes when told.
    fn held(tool: &str) -> (RequestBuilder, oneshot::Receiver<()>, oneshot::Sender<()>) {
        let (started, has_started) = oneshot::channel();
        let (finish, finished) = oneshot::channel::<()>();
        let request = tool_call(tool).handler(|_| async move {
            started.send(()).ok();
            finished.await.ok();
            Ok(Response::Tool(crate::CallToolResult::default()))
        });
        (request, has_started, finish)
    }

    /// Starts `request` on `pipeline` and waits until its handler runs.
    async fn start(
        pipeline: &Next,
        tool: &str,
    ) -> (
        tokio::task::JoinHandle<Result<Response, BoxError>>,
        oneshot::Sender<()>,
    ) {
        let (request, has_started, finish) = held(tool);
        let running = tokio::spawn(call(pipeline, request));
        has_started.await.expect("the handler started");
        (running, finish)
    }

    /// Yields to the spawned tasks until `condition` holds (the tests' runtime has one
    /// thread, so they run exactly when this yields).
    async fn until(condition: impl Fn() -> bool) {
        while !condition() {
            tokio::task::yield_now().await;
        }
    }

    fn waiting(layer: &ConcurrencyLimitLayer) -> usize {
        layer.limits.shared.waiting.load(Ordering::SeqCst)
    }

    #[tokio::test]
    async fn past_the_slots_and_the_queue_requests_are_refused() {
        let layer = ConcurrencyLimitLayer::new(2).queue(1);
        let pipeline = pipeline(&layer);
        let (first, finish_first) = start(&pipeline, "a").await;
        let (second, finish_second) = start(&pipeline, "b").await;

        let (third, third_started, finish_third) = held("c");
        let third = tokio::spawn(call(&pipeline, third));
        until(|| waiting(&layer) == 1).await;

        let error = call(&pipeline, tool_call("d")).await.unwrap_err();
        let busy = error.downcast_ref::<Busy>().expect("a Busy");
        assert_eq!((busy.max_running(), busy.max_waiting()), (2, 1));
        assert_eq!(
            error.to_string(),
            "the server is busy: 2 calls are running and 1 waiting, the most it takes; retry later"
        );

        // A slot frees up: the waiting call runs.
        finish_first.send(()).unwrap();
        first.await.unwrap().unwrap();
        third_started.await.expect("the queued call ran");
        finish_second.send(()).unwrap();
        finish_third.send(()).unwrap();
        second.await.unwrap().unwrap();
        third.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn a_waiter_that_is_dropped_leaves_the_queue() {
        let layer = ConcurrencyLimitLayer::new(1).queue(1);
        let pipeline = pipeline(&layer);
        let (running, finish) = start(&pipeline, "a").await;

        let waiter = tokio::spawn(call(&pipeline, tool_call("b")));
        until(|| waiting(&layer) == 1).await;
        assert!(
            call(&pipeline, tool_call("c")).await.is_err(),
            "the queue is full"
        );

        waiter.abort();
        assert!(waiter.await.unwrap_err().is_cancelled());
        assert_eq!(waiting(&layer), 0, "the dropped waiter left the queue");
        let (queued, queued_started, finish_queued) = held("d");
        let queued = tokio::spawn(call(&pipeline, queued));
        until(|| waiting(&layer) == 1).await;

        finish.send(()).unwrap();
        running.await.unwrap().unwrap();
        queued_started.await.unwrap();
        finish_queued.send(()).unwrap();
        queued.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn without_a_queue_a_full_limit_refuses_at_once() {
        let pipeline = pipeline(&ConcurrencyLimitLayer::new(1).queue(0));
        let (running, finish) = start(&pipeline, "a").await;

        let error = call(&pipeline, tool_call("b")).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "the server is busy: 1 call is running and none may wait, the most it takes; retry \
             later"
        );

        finish.send(()).unwrap();
        running.await.unwrap().unwrap();
        assert!(
            call(&pipeline, tool_call("b")).await.is_ok(),
            "the slot is free again"
        );
    }

    #[tokio::test]
    async fn per_tool_each_tool_has_its_own_slots() {
        let pipeline = pipeline(&ConcurrencyLimitLayer::new(1).queue(0).per_tool());
        let (running, finish) = start(&pipeline, "a").await;

        assert!(
            call(&pipeline, tool_call("b")).await.is_ok(),
            "`b` has its own slot"
        );
        let error = call(&pipeline, tool_call("a")).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "the tool `a` is busy: 1 call of it is running and none may wait, the most it takes; \
             retry later"
        );

        finish.send(()).unwrap();
        running.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn every_pipeline_of_one_layer_shares_its_slots_and_lists_pass() {
        let layer = ConcurrencyLimitLayer::new(1).queue(0);
        let (one, other) = (pipeline(&layer), pipeline(&layer));
        let (running, finish) = start(&one, "a").await;

        assert!(call(&other, tool_call("b")).await.unwrap_err().is::<Busy>());
        let list = request(Method::ListTools, None).answer(Response::Tools(Vec::new()));
        assert!(call(&other, list).await.is_ok(), "lists are not limited");

        finish.send(()).unwrap();
        running.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn idle_names_are_forgotten_and_busy_ones_kept() {
        let layer = ConcurrencyLimitLayer::new(1).queue(0).per_tool();
        let pipeline = pipeline(&layer);
        let (running, finish) = start(&pipeline, "held").await;
        for index in 0..NAMES_KEPT_IDLE * 2 {
            let read = request(Method::ReadResource, Some(&format!("file:///{index}")));
            call(&pipeline, read).await.unwrap();
        }
        let kept = layer.limits.own.lock().unwrap().len();
        assert!(kept <= NAMES_KEPT_IDLE + 1, "{kept} names kept");
        let held_key = (Method::CallTool, Arc::from("held"));
        assert!(layer.limits.own.lock().unwrap().contains_key(&held_key));
        let error = call(&pipeline, tool_call("held")).await.unwrap_err();
        assert!(error.is::<Busy>(), "the running call still counts");

        finish.send(()).unwrap();
        running.await.unwrap().unwrap();
    }
}
