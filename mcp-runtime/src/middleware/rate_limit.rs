//! A limit on how often each caller may call each tool (the `rate-limit` feature).

use std::fmt;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use governor::clock::Clock;
use governor::middleware::NoOpMiddleware;
use governor::nanos::Nanos;
use governor::state::keyed::HashMapStateStore;
use governor::{NotUntil, RateLimiter};

use super::describe::{seconds, subject};
use super::{BoxError, CallerKey, Layer, Method, Request, Response, Service};
use crate::future::BoxFuture;

/// How many calls a [`RateLimitLayer`] lets through and how fast they replenish: governor's
/// `Quota`, re-exported so a server need not depend on governor itself.
pub use governor::Quota;

/// Lets each caller ([`Caller::key`](super::Caller::key): its principal, else its
/// connection) call each tool, read each resource and get each prompt at most so often: a
/// budget per (caller, method, name), refilled steadily (GCRA, from governor). A request over
/// its budget is refused with [`RateLimited`], which says when to retry; a tool call's client
/// gets it as a tool error (other methods: an internal error).
///
/// Lists and completions are not limited, and neither are 2026-07-28 retries bringing input
/// responses: they continue a call that was already let through. The budgets are the layer's:
/// every pipeline the layer value is added to shares them. Budgets of callers that have been
/// quiet long enough to be full again are forgotten now and then, so the store holds about as
/// many keys as there are active callers.
///
/// ```
/// use mcp_runtime::middleware::RateLimitLayer;
///
/// // Each caller: 5 calls of each tool per second, 20 at once after a quiet spell.
/// let layer = RateLimitLayer::per_second(5).burst(20);
/// # drop(layer);
/// ```
#[derive(Debug, Clone)]
pub struct RateLimitLayer {
    budgets: Arc<Budgets>,
}

impl RateLimitLayer {
    /// At most `calls` per second (and as many at once).
    ///
    /// # Panics
    ///
    /// If `calls` is 0.
    pub fn per_second(calls: u32) -> Self {
        Self::new(Quota::per_second(nonzero(calls)))
    }

    /// At most `calls` per minute (and as many at once).
    ///
    /// # Panics
    ///
    /// If `calls` is 0.
    pub fn per_minute(calls: u32) -> Self {
        Self::new(Quota::per_minute(nonzero(calls)))
    }

    /// The budget `quota` for each caller and name.
    ///
    /// ```
    /// use std::num::NonZeroU32;
    /// use mcp_runtime::middleware::{Quota, RateLimitLayer};
    ///
    /// let hundred_an_hour = Quota::per_hour(NonZeroU32::new(100).unwrap());
    /// let layer = RateLimitLayer::new(hundred_an_hour);
    /// # drop(layer);
    /// ```
    pub fn new(quota: Quota) -> Self {
        RateLimitLayer {
            budgets: Arc::new(Budgets::new(quota)),
        }
    }

    /// At most `calls` at once after a quiet spell (by default, the calls per period), at the
    /// same steady rate.
    ///
    /// # Panics
    ///
    /// If `calls` is 0.
    pub fn burst(self, calls: u32) -> Self {
        Self::new(self.budgets.quota.allow_burst(nonzero(calls)))
    }
}

fn nonzero(calls: u32) -> NonZeroU32 {
    NonZeroU32::new(calls).expect("a rate limit of 0 calls would refuse everything")
}

impl<S> Layer<S> for RateLimitLayer {
    type Service = RateLimit<S>;

    fn layer(&self, inner: S) -> RateLimit<S> {
        RateLimit {
            inner,
            budgets: self.budgets.clone(),
        }
    }
}

/// Whose budget a request spends.
type Key = (CallerKey, Method, Option<Arc<str>>);

/// How often the store is swept of budgets that are full again.
const CHECKS_PER_SWEEP: u64 = 1024;

/// The budgets every service of one [`RateLimitLayer`] shares.
struct Budgets {
    quota: Quota,
    /// "5 calls per second", for refusals.
    rate: Arc<str>,
    limiter: RateLimiter<Key, HashMapStateStore<Key>, TokioClock, NoOpMiddleware<Nanos>>,
    checks: AtomicU64,
}

impl fmt::Debug for Budgets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Budgets")
            .field("quota", &self.quota)
            .finish_non_exhaustive()
    }
}

impl Budgets {
    fn new(quota: Quota) -> Self {
        Budgets {
            quota,
            rate: describe_rate(quota).into(),
            limiter: RateLimiter::hashmap_with_clock(quota, TokioClock::new()),
            checks: AtomicU64::new(0),
        }
    }

    /// Spend one call of `request`'s budget, or say when the budget has one again.
    fn spend(&self, request: &Request) -> Result<(), RateLimited> {
        if (self.checks.fetch_add(1, Ordering::Relaxed) + 1) % CHECKS_PER_SWEEP == 0 {
            self.limiter.retain_recent();
        }
        let key = (
            request.caller().key(),
            request.method(),
            request.name.clone(),
        );
        self.limiter
            .check_key(&key)
            .map_err(|not_until: NotUntil<Nanos>| RateLimited {
                method: request.method(),
                name: request.name.clone(),
                rate: self.rate.clone(),
                retry_after: not_until.wait_time_from(self.limiter.clock().now()),
            })
    }
}

/// "5 calls per second", "2 calls per hour (100 at once)", "1 call every 7 s".
fn describe_rate(quota: Quota) -> String {
    let interval = quota.replenish_interval().as_nanos();
    let burst = u128::from(quota.burst_size().get());
    let units = [
        (1_000_000_000, "second"),
        (60_000_000_000, "minute"),
        (3_600_000_000_000, "hour"),
    ];
    for (unit, name) in units {
        // The quota's constructors divide the period in whole nanoseconds: each interval
        // may be short by less than one.
        let calls = (unit + interval / 2) / interval.max(1);
        if calls >= 1 && (calls * interval).abs_diff(unit) < calls {
            let calls_word = if calls == 1 { "call" } else { "calls" };
            let at_once = if burst == calls {
                String::new()
            } else {
                format!(" ({burst} at once)")
            };
            return format!("{calls} {calls_word} per {name}{at_once}");
        }
    }
    let at_once = if burst == 1 {
        String::new()
    } else {
        format!(" ({burst} at once)")
    };
    format!(
        "1 call every {}{at_once}",
        seconds(quota.replenish_interval())
    )
}

/// Governor's clock on tokio's: the budgets follow a paused test clock like every timer in
/// the runtime does, and need no clock crate of their own.
#[derive(Debug, Clone)]
struct TokioClock {
    start: tokio::time::Instant,
}

impl TokioClock {
    fn new() -> Self {
        TokioClock {
            start: tokio::time::Instant::now(),
        }
    }
}

impl Clock for TokioClock {
    type Instant = Nanos;

    fn now(&self) -> Nanos {
        Nanos::from(self.start.elapsed())
    }
}

/// The service [`RateLimitLayer`] wraps around `S`.
#[derive(Debug, Clone)]
pub struct RateLimit<S> {
    inner: S,
    budgets: Arc<Budgets>,
}

impl<S> Service<Request> for RateLimit<S>
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
        let limited = matches!(
            request.method(),
            Method::CallTool | Method::ReadResource | Method::GetPrompt
        ) && !request.is_retry();
        if limited && let Err(refused) = self.budgets.spend(&request) {
            return Box::pin(async move { Err(refused.into()) });
        }
        super::pipeline::boxed(self.inner.call(request))
    }
}

/// A request [`RateLimitLayer`] refused: its caller spent its budget for what it names.
///
/// ```
/// use mcp_runtime::middleware::{BoxError, RateLimited};
///
/// fn wait_before_retrying(error: &BoxError) -> Option<std::time::Duration> {
///     error.downcast_ref::<RateLimited>().map(RateLimited::retry_after)
/// }
/// # let _ = wait_before_retrying;
/// ```
#[derive(Debug, Clone)]
pub struct RateLimited {
    method: Method,
    name: Option<Arc<str>>,
    rate: Arc<str>,
    retry_after: Duration,
}

impl RateLimited {
    /// How long until the budget has a call again.
    pub fn retry_after(&self) -> Duration {
        self.retry_after
    }

    /// The refused request's method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// What the refused request named: the tool, the resource's URI, the prompt.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

impl fmt::Display for RateLimited {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "rate limit: at most {} of {} per caller; retry in {}",
            self.rate,
            subject(self.method, self.name()),
            seconds(self.retry_after)
        )
    }
}

impl std::error::Error for RateLimited {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::middleware::testing::{call, pipeline, request, tool_call};

    #[tokio::test(start_paused = true)]
    async fn one_callers_spent_budget_does_not_limit_another() {
        let pipeline = pipeline(&RateLimitLayer::per_second(2));
        for _ in 0..2 {
            call(&pipeline, tool_call("search").principal("a"))
                .await
                .unwrap();
        }

        let error = call(&pipeline, tool_call("search").principal("a"))
            .await
            .unwrap_err();
        let limited = error.downcast_ref::<RateLimited>().expect("a RateLimited");
        assert_eq!(limited.retry_after(), Duration::from_millis(500));
        assert_eq!(
            error.to_string(),
            "rate limit: at most 2 calls per second of the tool `search` per caller; retry in \
             0.5 s"
        );

        call(&pipeline, tool_call("search").principal("b"))
            .await
            .unwrap();
        call(&pipeline, tool_call("fetch").principal("a"))
            .await
            .unwrap();
        let by_connection = || tool_call("search").connection(7);
        call(&pipeline, by_connection()).await.unwrap();
        call(&pipeline, by_connection()).await.unwrap();
        assert!(call(&pipeline, by_connection()).await.is_err());

        tokio::time::advance(Duration::from_millis(500)).await;
        call(&pipeline, tool_call("search").principal("a"))
            .await
            .unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn lists_and_retries_are_not_counted() {
        let pipeline = pipeline(&RateLimitLayer::per_minute(1));
        call(&pipeline, tool_call("ask")).await.unwrap();
        call(&pipeline, tool_call("ask").retry()).await.unwrap();
        for _ in 0..3 {
            let list = request(Method::ListTools, None).answer(Response::Tools(Vec::new()));
            call(&pipeline, list).await.unwrap();
        }
        let error = call(&pipeline, tool_call("ask")).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "rate limit: at most 1 call per minute of the tool `ask` per caller; retry in 60 s"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_lets_more_through_at_once() {
        let pipeline = pipeline(&RateLimitLayer::per_second(1).burst(3));
        for _ in 0..3 {
            call(&pipeline, tool_call("t")).await.unwrap();
        }
        let error = call(&pipeline, tool_call("t")).await.unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("rate limit: at most 1 call per second (3 at once)")
        );
    }

    #[test]
    fn rates_read_as_people_say_them() {
        let calls = |n| NonZeroU32::new(n).unwrap();
        assert_eq!(
            describe_rate(Quota::per_second(calls(5))),
            "5 calls per second"
        );
        assert_eq!(
            describe_rate(Quota::per_minute(calls(90))),
            "90 calls per minute"
        );
        assert_eq!(describe_rate(Quota::per_hour(calls(2))), "2 calls per hour");
        assert_eq!(
            describe_rate(Quota::per_hour(calls(2)).allow_burst(calls(100))),
            "2 calls per hour (100 at once)"
        );
        let weekly = Quota::with_period(Duration::from_secs(7)).unwrap();
        assert_eq!(describe_rate(weekly), "1 call every 7 s");
    }

    #[tokio::test(start_paused = true)]
    async fn quiet_callers_are_swept_from_the_store() {
        let layer = RateLimitLayer::per_second(1);
        let pipeline = pipeline(&layer);
        for caller in 0..CHECKS_PER_SWEEP - 1 {
            call(&pipeline, tool_call("t").connection(caller))
                .await
                .unwrap();
        }
        assert_eq!(layer.budgets.limiter.len(), CHECKS_PER_SWEEP as usize - 1);
        // Governor forgets a budget one interval after it is full again.
        tokio::time::advance(Duration::from_secs(2)).await;
        call(&pipeline, tool_call("t").connection(0)).await.unwrap();
        assert_eq!(
            layer.budgets.limiter.len(),
            1,
            "only the caller just seen is kept"
        );
    }
}
