//! A limit on how long a call may run.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use super::describe::{seconds, subject};
use super::{BoxError, Layer, Method, Request, Response, Service};
use crate::future::BoxFuture;

/// Ends `tools/call`, `resources/read` and `prompts/get` requests that run longer than a
/// limit: the handler's future is dropped, its cancellation token fired (so work it spawned
/// stops too), and the request answered with [`Elapsed`], which a tool call's client gets
/// as a tool error naming the limit (other methods: an internal error).
///
/// Lists and completions are not timed. Neither is a call that may become a task (see
/// [`Request::may_become_task`]), unless [`including_tasks`](Self::including_tasks) says so:
/// a tool runs as a task because it takes long, and the client polls for it instead of
/// waiting, so a limit meant for calls answered in place would end it early.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::middleware::TimeoutLayer;
///
/// // Five seconds for everything, a minute for the one slow tool.
/// let layer = TimeoutLayer::new(Duration::from_secs(5)).tool("reindex", Duration::from_secs(60));
/// # drop(layer);
/// ```
#[derive(Debug, Clone)]
pub struct TimeoutLayer {
    limits: Arc<Limits>,
}

#[derive(Debug, Clone)]
struct Limits {
    default: Duration,
    per_tool: HashMap<Arc<str>, Duration>,
    including_tasks: bool,
}

impl TimeoutLayer {
    /// At most `limit` for every timed request.
    pub fn new(limit: Duration) -> Self {
        TimeoutLayer {
            limits: Arc::new(Limits {
                default: limit,
                per_tool: HashMap::new(),
                including_tasks: false,
            }),
        }
    }

    /// At most `limit` for calls of the tool `name`, instead of the default.
    pub fn tool(mut self, name: impl Into<Arc<str>>, limit: Duration) -> Self {
        Arc::make_mut(&mut self.limits)
            .per_tool
            .insert(name.into(), limit);
        self
    }

    /// Time calls that may become tasks too: the limit then bounds the task's whole run.
    pub fn including_tasks(mut self) -> Self {
        Arc::make_mut(&mut self.limits).including_tasks = true;
        self
    }
}

impl Limits {
    /// The request's limit, or `None` when it is not timed.
    fn limit_for(&self, request: &Request) -> Option<Duration> {
        let timed = matches!(
            request.method(),
            Method::CallTool | Method::ReadResource | Method::GetPrompt
        );
        if !timed || (request.may_become_task() && !self.including_tasks) {
            return None;
        }
        let own = request.tool_name().and_then(|name| self.per_tool.get(name));
        Some(*own.unwrap_or(&self.default))
    }
}

impl<S> Layer<S> for TimeoutLayer {
    type Service = Timeout<S>;

    fn layer(&self, inner: S) -> Timeout<S> {
        Timeout {
            inner,
            limits: self.limits.clone(),
        }
    }
}

/// The service [`TimeoutLayer`] wraps around `S`.
#[derive(Debug, Clone)]
pub struct Timeout<S> {
    inner: S,
    limits: Arc<Limits>,
}

impl<S> Service<Request> for Timeout<S>
where
    S: Service<Request, Response = Response>,
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
        let Some(limit) = self.limits.limit_for(&request) else {
            return super::pipeline::boxed(self.inner.call(request));
        };
        let cancellation = request.cancellation().clone();
        let elapsed = Elapsed {
            method: request.method(),
            name: request.name.clone(),
            limit,
        };
        let future = self.inner.call(request);
        Box::pin(async move {
            let mut future = std::pin::pin!(future);
            match tokio::time::timeout(limit, &mut future).await {
                Ok(result) => result.map_err(Into::into),
                // The token fires first, then the handler's future is dropped (at the end of
                // this block): what it leaves running elsewhere stops, and what it drops
                // sees why.
                Err(_) => {
                    cancellation.cancel();
                    Err(elapsed.into())
                }
            }
        })
    }
}

/// A request [`TimeoutLayer`] stopped because it ran past its limit.
///
/// Outer layers can tell it from other failures: `error.downcast_ref::<Elapsed>()`.
///
/// ```
/// use mcp_runtime::middleware::{BoxError, Elapsed};
///
/// fn timed_out(error: &BoxError) -> bool {
///     error.downcast_ref::<Elapsed>().is_some()
/// }
/// # let _ = timed_out;
/// ```
#[derive(Debug, Clone)]
pub struct Elapsed {
    method: Method,
    name: Option<Arc<str>>,
    limit: Duration,
}

impl Elapsed {
    /// The limit the request ran past.
    pub fn limit(&self) -> Duration {
        self.limit
    }

    /// The request's method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// What the request named: the tool, the resource's URI, the prompt.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} did not finish within {}; it was stopped",
            subject(self.method, self.name()),
            seconds(self.limit)
        )
    }
}

impl std::error::Error for Elapsed {}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;
    use crate::middleware::testing::{request, run, tool_call, tool_text};

    /// A handler that never answers, and says when its future is dropped.
    struct DropFlag(Arc<AtomicBool>);

    impl Drop for DropFlag {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    fn hangs(
        dropped: &Arc<AtomicBool>,
    ) -> impl FnOnce(Request) -> BoxFuture<'static, Result<Response, BoxError>> + Send + 'static
    {
        let flag = DropFlag(dropped.clone());
        move |_| {
            Box::pin(async move {
                let _flag = flag;
                std::future::pending().await
            })
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_past_its_limit_is_stopped_and_names_the_limit() {
        let layer = TimeoutLayer::new(Duration::from_secs(5));
        let dropped = Arc::new(AtomicBool::new(false));
        let call = tool_call("crawl").handler(hangs(&dropped));
        let token = call.cancellation();
        let started = tokio::time::Instant::now();

        let error = run(&layer, call).await.unwrap_err();

        assert_eq!(started.elapsed(), Duration::from_secs(5));
        let elapsed = error.downcast_ref::<Elapsed>().expect("an Elapsed");
        assert_eq!(elapsed.limit(), Duration::from_secs(5));
        assert_eq!(
            error.to_string(),
            "the tool `crawl` did not finish within 5 s; it was stopped"
        );
        assert!(token.is_cancelled(), "the handler's token fired");
        assert!(
            dropped.load(Ordering::SeqCst),
            "the handler's future was dropped"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_within_its_limit_is_answered_as_the_handler_answers() {
        let layer = TimeoutLayer::new(Duration::from_secs(5));
        let call = tool_call("quick").handler(|_| async {
            tokio::time::sleep(Duration::from_secs(4)).await;
            Ok(Response::Tool(crate::CallToolResult::success(vec![
                crate::Content::text("done"),
            ])))
        });
        let token = call.cancellation();

        let response = run(&layer, call).await.unwrap();

        assert_eq!(tool_text(&response), "done");
        assert!(!token.is_cancelled());
    }

    #[tokio::test(start_paused = true)]
    async fn a_tool_of_its_own_has_its_own_limit() {
        let layer =
            TimeoutLayer::new(Duration::from_secs(5)).tool("slow", Duration::from_millis(1500));
        let dropped = Arc::new(AtomicBool::new(false));
        let started = tokio::time::Instant::now();

        let error = run(&layer, tool_call("slow").handler(hangs(&dropped)))
            .await
            .unwrap_err();

        assert_eq!(started.elapsed(), Duration::from_millis(1500));
        assert_eq!(
            error.to_string(),
            "the tool `slow` did not finish within 1.5 s; it was stopped"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn reads_are_timed_and_lists_are_not() {
        let layer = TimeoutLayer::new(Duration::from_secs(1));
        let dropped = Arc::new(AtomicBool::new(false));
        let error = run(
            &layer,
            request(Method::ReadResource, Some("file:///big")).handler(hangs(&dropped)),
        )
        .await
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "the resource `file:///big` did not finish within 1 s; it was stopped"
        );

        let list = request(Method::ListTools, None).handler(|_| async {
            tokio::time::sleep(Duration::from_secs(10)).await;
            Ok(Response::Tools(Vec::new()))
        });
        assert!(matches!(run(&layer, list).await, Ok(Response::Tools(_))));
    }

    #[tokio::test(start_paused = true)]
    async fn calls_that_may_become_tasks_are_timed_only_when_asked() {
        let slow = || {
            tool_call("build").may_become_task().handler(|_| async {
                tokio::time::sleep(Duration::from_secs(60)).await;
                Ok(Response::Tool(crate::CallToolResult::default()))
            })
        };

        let untimed = TimeoutLayer::new(Duration::from_secs(5));
        assert!(run(&untimed, slow()).await.is_ok());

        let timed = TimeoutLayer::new(Duration::from_secs(5)).including_tasks();
        let error = run(&timed, slow()).await.unwrap_err();
        assert!(error.is::<Elapsed>());
    }
}
