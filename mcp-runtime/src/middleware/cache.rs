//! Remembered results of tools that say calling them again changes nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::Instant;

use super::{BoxError, CallerKey, Layer, Method, Request, Response, Service};
use crate::canonical::canonical_object;
use crate::future::BoxFuture;
use crate::protocol::CallToolResult;

/// Answers a `tools/call` from a result remembered for `ttl`, without running the tool,
/// when the same caller calls the same tool with the same arguments again.
///
/// Only tools annotated both read-only and idempotent (`readOnlyHint` and `idempotentHint`)
/// are cached: for them an earlier result is as good as a new one. A result is remembered
/// for the caller that got it alone ([`Caller::key`](super::Caller::key)), so no caller sees
/// another's, and for the arguments as given, in any member order. Error results, rounds
/// that ask the client for input, 2026-07-28 retries bringing answers, and calls that may
/// become tasks are never cached. At most [`max_entries`](Self::max_entries) results (1024
/// unless set) are kept: past that, the expired go first, then the oldest.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::middleware::CacheLayer;
///
/// let layer = CacheLayer::new(Duration::from_secs(30)).max_entries(10_000);
/// # drop(layer);
/// ```
#[derive(Debug, Clone)]
pub struct CacheLayer {
    store: Arc<Store>,
}

impl CacheLayer {
    /// Results remembered for `ttl` after the tool answered.
    pub fn new(ttl: Duration) -> Self {
        CacheLayer {
            store: Arc::new(Store::new(ttl, 1024)),
        }
    }

    /// At most `entries` results remembered (0 remembers none).
    pub fn max_entries(self, entries: usize) -> Self {
        CacheLayer {
            store: Arc::new(Store::new(self.store.ttl, entries)),
        }
    }
}

impl<S> Layer<S> for CacheLayer {
    type Service = Cache<S>;

    fn layer(&self, inner: S) -> Cache<S> {
        Cache {
            inner,
            store: self.store.clone(),
        }
    }
}

/// Which result a call may reuse: the tool, its arguments as canonical JSON, the caller.
type Key = (Arc<str>, String, CallerKey);

/// The results every service of one [`CacheLayer`] shares.
#[derive(Debug)]
struct Store {
    ttl: Duration,
    max_entries: usize,
    entries: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    by_key: HashMap<Key, Entry>,
    /// The order of insertion, to find the oldest.
    next_seq: u64,
}

#[derive(Debug)]
struct Entry {
    result: CallToolResult,
    expires: Instant,
    seq: u64,
}

impl Store {
    fn new(ttl: Duration, max_entries: usize) -> Self {
        Store {
            ttl,
            max_entries,
            entries: Mutex::new(Entries::default()),
        }
    }

    /// The key of a call whose result may be cached, or `None`.
    fn key(request: &Request) -> Option<Key> {
        let hints = request.annotations()?;
        let cacheable = request.method() == Method::CallTool
            && hints.read_only == Some(true)
            && hints.idempotent == Some(true)
            && !request.is_retry()
            && !request.may_become_task();
        if !cacheable {
            return None;
        }
        let arguments = request
            .arguments()
            .map_or_else(|| "{}".to_owned(), canonical_object);
        Some((request.name.clone()?, arguments, request.caller().key()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn get(&self, key: &Key) -> Option<CallToolResult> {
        let mut entries = self.lock();
        let entry = entries.by_key.get(key)?;
        if entry.expires > Instant::now() {
            return Some(entry.result.clone());
        }
        entries.by_key.remove(key);
        None
    }

    fn put(&self, key: Key, result: CallToolResult) {
        if self.max_entries == 0 {
            return;
        }
        let now = Instant::now();
        let mut entries = self.lock();
        if entries.by_key.len() >= self.max_entries && !entries.by_key.contains_key(&key) {
            entries.by_key.retain(|_, entry| entry.expires > now);
        }
        if entries.by_key.len() >= self.max_entries && !entries.by_key.contains_key(&key) {
            // A scan, but only of a full cache, and no more than `max_entries` long.
            let oldest = entries
                .by_key
                .iter()
                .min_by_key(|(_, entry)| entry.seq)
                .map(|(key, _)| key.clone());
            if let Some(oldest) = oldest {
                entries.by_key.remove(&oldest);
            }
        }
        let seq = entries.next_seq;
        entries.next_seq += 1;
        let expires = now + self.ttl;
        entries.by_key.insert(
            key,
            Entry {
                result,
                expires,
                seq,
            },
        );
    }
}

/// The service [`CacheLayer`] wraps around `S`.
#[derive(Debug, Clone)]
pub struct Cache<S> {
    inner: S,
    store: Arc<Store>,
}

impl<S> Service<Request> for Cache<S>
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
        let Some(key) = Store::key(&request) else {
            return super::pipeline::boxed(self.inner.call(request));
        };
        if let Some(result) = self.store.get(&key) {
            return Box::pin(async move { Ok(Response::Tool(result)) });
        }
        let store = self.store.clone();
        let future = self.inner.call(request);
        Box::pin(async move {
            let response = future.await.map_err(Into::into)?;
            if let Response::Tool(result) = &response
                && !result.is_error
            {
                store.put(key, result.clone());
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde_json::json;

    use super::*;
    use crate::Content;
    use crate::middleware::Next;
    use crate::middleware::testing::{RequestBuilder, call, pipeline, tool_call, tool_text};
    use crate::protocol::ToolAnnotations;

    /// Counts the handler's runs; each answers `run N`.
    #[derive(Clone, Default)]
    struct Runs(Arc<AtomicUsize>);

    impl Runs {
        fn counted(&self, request: RequestBuilder) -> RequestBuilder {
            let runs = self.0.clone();
            request.handler(move |_| async move {
                let run = runs.fetch_add(1, Ordering::SeqCst) + 1;
                Ok(Response::Tool(CallToolResult::success(vec![
                    Content::text(format!("run {run}")),
                ])))
            })
        }

        fn count(&self) -> usize {
            self.0.load(Ordering::SeqCst)
        }
    }

    async fn answer(pipeline: &Next, runs: &Runs, request: RequestBuilder) -> String {
        tool_text(&call(pipeline, runs.counted(request)).await.unwrap())
    }

    fn weather(arguments: serde_json::Value) -> RequestBuilder {
        tool_call("weather")
            .read_only_idempotent()
            .arguments(arguments)
    }

    #[tokio::test(start_paused = true)]
    async fn the_same_call_again_is_answered_from_the_cache_until_it_expires() {
        let pipeline = pipeline(&CacheLayer::new(Duration::from_secs(30)));
        let runs = Runs::default();
        let first = weather(json!({"city": "Oslo", "units": "metric"}));
        assert_eq!(answer(&pipeline, &runs, first).await, "run 1");

        let reordered = weather(json!({"units": "metric", "city": "Oslo"}));
        assert_eq!(answer(&pipeline, &runs, reordered).await, "run 1");
        let other = weather(json!({"city": "Bergen", "units": "metric"}));
        assert_eq!(answer(&pipeline, &runs, other).await, "run 2");

        tokio::time::advance(Duration::from_secs(30)).await;
        let again = weather(json!({"city": "Oslo", "units": "metric"}));
        assert_eq!(answer(&pipeline, &runs, again).await, "run 3");
        assert_eq!(runs.count(), 3);
    }

    #[tokio::test]
    async fn callers_never_see_each_others_results() {
        let pipeline = pipeline(&CacheLayer::new(Duration::from_secs(30)));
        let runs = Runs::default();
        let by = |principal| weather(json!({"city": "Oslo"})).principal(principal);

        assert_eq!(answer(&pipeline, &runs, by("alice")).await, "run 1");
        assert_eq!(answer(&pipeline, &runs, by("bob")).await, "run 2");
        assert_eq!(answer(&pipeline, &runs, by("alice")).await, "run 1");
        let on_a_connection = weather(json!({"city": "Oslo"})).connection(4);
        assert_eq!(answer(&pipeline, &runs, on_a_connection).await, "run 3");
    }

    #[tokio::test]
    async fn calls_that_are_not_safe_to_reuse_always_run() {
        let pipeline = pipeline(&CacheLayer::new(Duration::from_secs(30)));
        let runs = Runs::default();
        let only_read_only = || {
            tool_call("write").annotations(ToolAnnotations {
                read_only: Some(true),
                ..ToolAnnotations::default()
            })
        };
        let kinds: [fn() -> RequestBuilder; 4] = [
            || tool_call("plain"),
            only_read_only,
            || tool_call("weather").read_only_idempotent().retry(),
            || {
                tool_call("weather")
                    .read_only_idempotent()
                    .may_become_task()
            },
        ];
        for (index, kind) in kinds.iter().enumerate() {
            for round in 0..2 {
                let expected = format!("run {}", index * 2 + round + 1);
                assert_eq!(answer(&pipeline, &runs, kind()).await, expected);
            }
        }
    }

    #[tokio::test]
    async fn error_results_are_not_remembered() {
        let pipeline = pipeline(&CacheLayer::new(Duration::from_secs(30)));
        let failing = || {
            tool_call("weather")
                .read_only_idempotent()
                .answer(Response::Tool(CallToolResult::error("upstream down")))
        };
        call(&pipeline, failing()).await.unwrap();
        let runs = Runs::default();
        let retried = tool_call("weather").read_only_idempotent();
        assert_eq!(answer(&pipeline, &runs, retried).await, "run 1");
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_cache_drops_the_expired_then_the_oldest() {
        let layer = CacheLayer::new(Duration::from_secs(30)).max_entries(2);
        let pipeline = pipeline(&layer);
        let runs = Runs::default();
        let city = |name: &str| weather(json!({ "city": name }));

        assert_eq!(answer(&pipeline, &runs, city("a")).await, "run 1");
        assert_eq!(answer(&pipeline, &runs, city("b")).await, "run 2");
        assert_eq!(answer(&pipeline, &runs, city("c")).await, "run 3");
        // `a`, the oldest, made room for `c`.
        assert_eq!(answer(&pipeline, &runs, city("b")).await, "run 2");
        assert_eq!(answer(&pipeline, &runs, city("c")).await, "run 3");
        assert_eq!(answer(&pipeline, &runs, city("a")).await, "run 4");
        assert_eq!(answer(&pipeline, &runs, city("c")).await, "run 3");

        // Every entry has expired: all of them make room, not just the oldest.
        tokio::time::advance(Duration::from_secs(30)).await;
        assert_eq!(answer(&pipeline, &runs, city("d")).await, "run 5");
        assert_eq!(layer.store.lock().by_key.len(), 1);
    }
}
