//! The shared stores on Redis (or Valkey): every piece of state an instance keeps about its
//! clients, shared by the instances of one server behind a load balancer. See
//! [`RedisStore`].

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::mpsc;

use crate::ask::ReplayGuard;
use crate::future::BoxFuture;
use crate::store::{
    Change, ChangeHandler, EventBus, LoadedTask, Replay, SessionStore, SignalHandler, StoreError,
    StoredEvent, StoredSession, StoredTask, StreamBounds, TaskSignal, TaskStore,
};

/// The state of a server's instances in one Redis: used `requestState`s
/// ([`ReplayGuard`]), tasks ([`TaskStore`]), announcements ([`EventBus`]), and legacy HTTP
/// sessions with their event streams ([`SessionStore`]). Cheap to clone; clones share one
/// connection. Install it with [`Server::redis`](crate::Server::redis), or part of it with
/// `replay_guard`, `task_store`, `event_bus` and `session_store`.
///
/// What it keeps, under the [prefix](RedisOptions::prefix) (`mcp:` by default):
///
/// * `replay:ID`: a used `requestState` (`SET NX` with the state's expiry);
/// * `task:ID` (a hash: the task as `tasks/get` shows it, and whether it ended) and
///   `task:ID:lease` (the instance running it, expiring with its lease). A running task's
///   instance rewrites both on every change and every third of the lease; an ended task stays
///   for its time to live;
/// * the channels `changes` (announcements, each tagged with the instance that made it) and
///   `instance:NAME` (answers and cancellations for the tasks `NAME` runs);
/// * `session:ID`: a legacy session's record, expiring after its idle timeout unless written
///   again; `session:ID:stream:STREAM` (a list of its events, each `NUMBER FRAME`, the oldest
///   dropped beyond the bound) and `session:ID:stream:STREAM:meta` (a hash: the request the
///   stream answers, whether its response is in, the newest event dropped), both expiring
///   some time after the stream's last event.
///
/// Every operation gives up after the [timeout](RedisOptions::timeout) (2 s unless set): a
/// request that needed Redis then gets [`STORE_UNAVAILABLE`](crate::store::STORE_UNAVAILABLE)
/// (`-32031`), the server goes on serving what needs no store, and it uses Redis again as soon
/// as Redis answers (the connection and the subscription come back by themselves).
///
/// Open it inside a Tokio runtime (it keeps a task there that listens to the channels).
///
/// With the `redis-tls` feature, `rediss://` URLs connect over TLS (rustls), trusting the
/// system's roots (or the file `SSL_CERT_FILE` names), or only the CA of
/// [`RedisOptions::ca_certificate`]; to a Redis that asks its clients for a certificate, it
/// presents [`RedisOptions::client_certificate`]. Without the feature, `open` refuses a
/// `rediss://` URL.
#[derive(Clone)]
pub struct RedisStore {
    inner: Arc<Inner>,
}

/// How a [`RedisStore`] uses its Redis.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RedisOptions {
    /// Put before every key and channel, so that servers share one Redis apart (`mcp:`).
    pub prefix: String,
    /// The longest one operation may take before it counts as failed (2 s).
    pub timeout: Duration,
    /// For `rediss://` URLs: the PEM certificate of the CA to trust instead of the system's
    /// roots (a Redis whose certificate a private CA signed). `None`: the system's roots.
    #[cfg(feature = "redis-tls")]
    pub ca_certificate: Option<Vec<u8>>,
    /// For `rediss://` URLs: the certificate this store presents to a Redis that asks clients
    /// for one (`tls-auth-clients yes`, redis-server's default on a TLS port). `None`: none.
    #[cfg(feature = "redis-tls")]
    pub client_certificate: Option<ClientCertificate>,
}

/// A certificate, with its private key, that a [`RedisStore`] presents to a Redis asking its
/// clients for one (mutual TLS). Both are PEM.
///
/// ```no_run
/// # async fn open() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_runtime::redis::{ClientCertificate, RedisOptions, RedisStore};
///
/// let mut options = RedisOptions::default();
/// options.ca_certificate = Some(std::fs::read("redis-ca.pem")?);
/// options.client_certificate = Some(ClientCertificate::from_files("client.pem", "client.key")?);
/// let store = RedisStore::open_with("rediss://redis:6380/", options)?;
/// # Ok(()) }
/// ```
#[cfg(feature = "redis-tls")]
#[derive(Clone)]
pub struct ClientCertificate {
    /// The certificate, then any intermediate certificates its CA needs to reach it.
    pub chain: Vec<u8>,
    /// Its private key: PKCS#8, PKCS#1 (RSA) or SEC1 (EC).
    pub key: Vec<u8>,
}

#[cfg(feature = "redis-tls")]
impl ClientCertificate {
    /// The certificate chain `chain` with its private key `key`, both PEM.
    pub fn new(chain: impl Into<Vec<u8>>, key: impl Into<Vec<u8>>) -> Self {
        ClientCertificate {
            chain: chain.into(),
            key: key.into(),
        }
    }

    /// Read from the PEM files `chain` and `key`.
    ///
    /// # Errors
    ///
    /// When a file cannot be read; the error names it. (What they hold is checked when the
    /// store opens.)
    pub fn from_files(
        chain: impl AsRef<std::path::Path>,
        key: impl AsRef<std::path::Path>,
    ) -> std::io::Result<Self> {
        let read = |path: &std::path::Path| {
            std::fs::read(path).map_err(|error| {
                std::io::Error::new(error.kind(), format!("{}: {error}", path.display()))
            })
        };
        Ok(ClientCertificate::new(
            read(chain.as_ref())?,
            read(key.as_ref())?,
        ))
    }
}

/// The key stays out of logs.
#[cfg(feature = "redis-tls")]
impl std::fmt::Debug for ClientCertificate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCertificate")
            .field("chain", &format_args!("{} bytes", self.chain.len()))
            .field("key", &format_args!("<redacted>"))
            .finish()
    }
}

impl Default for RedisOptions {
    fn default() -> Self {
        RedisOptions {
            prefix: "mcp:".to_owned(),
            timeout: Duration::from_secs(2),
            #[cfg(feature = "redis-tls")]
            ca_certificate: None,
            #[cfg(feature = "redis-tls")]
            client_certificate: None,
        }
    }
}

struct Inner {
    connection: ConnectionManager,
    prefix: String,
    /// This instance's name: whom the leases it holds name, where its signals go.
    instance: String,
    timeout: Duration,
    /// Where announcements go, and where this instance's signals come.
    changes_channel: String,
    own_channel: String,
    update: redis::Script,
    append: redis::Script,
    changes: Mutex<Vec<ChangeHandler>>,
    signals: Mutex<Vec<SignalHandler>>,
    /// Announcements waiting to be published, in order.
    outbox: mpsc::Sender<Change>,
    /// Whether the outbox was full since the publisher last took from it (warned once).
    dropping: AtomicBool,
}

/// Replaces a task unless it ended; renews (running) or gives up (ended) the lease.
/// KEYS: task, lease. ARGV: encoded task, ended (0/1), lease ms, instance, ttl ms.
const UPDATE: &str = r"
if redis.call('HGET', KEYS[1], 'ended') == '1' then return 0 end
redis.call('HSET', KEYS[1], 'doc', ARGV[1], 'ended', ARGV[2])
if ARGV[2] == '1' then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('DEL', KEYS[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[5] + ARGV[3])
  redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[3])
end
return 1
";

/// Adds an event to a session's stream, dropping the oldest beyond the bound.
/// KEYS: events, meta. ARGV: `NUMBER FRAME`, most events, ttl ms, request ('' for none),
/// response (0/1), the newest earlier event that never arrived ('' for none).
const APPEND: &str = r"
local function evicted_through(number)
  local evicted = redis.call('HGET', KEYS[2], 'evicted')
  if not evicted or tonumber(evicted) < tonumber(number) then
    redis.call('HSET', KEYS[2], 'evicted', number)
  end
end
redis.call('RPUSH', KEYS[1], ARGV[1])
while redis.call('LLEN', KEYS[1]) > tonumber(ARGV[2]) do
  evicted_through(string.match(redis.call('LPOP', KEYS[1]), '^(%d+) '))
end
redis.call('HSET', KEYS[2], 'open', '1')
if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], 'request', ARGV[4]) end
if ARGV[5] == '1' then redis.call('HSET', KEYS[2], 'answered', '1') end
if ARGV[6] ~= '' then evicted_through(ARGV[6]) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
";

/// How often the subscription's connection is checked.
const HEALTH_CHECK: Duration = Duration::from_secs(5);

/// Announcements a Redis that does not answer may fall behind by before new ones are dropped.
const OUTBOX: usize = 1024;

impl RedisStore {
    /// A store on the Redis at `url` (`redis://host:port/db`, `redis://:password@host/`),
    /// with the default [`RedisOptions`]. It connects when first used, so a Redis that is not
    /// up yet is no error here.
    ///
    /// # Errors
    ///
    /// When `url` is not a Redis URL.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime.
    pub fn open(url: &str) -> Result<Self, StoreError> {
        Self::open_with(url, RedisOptions::default())
    }

    /// A store on the Redis at `url`, used as `options` say.
    ///
    /// # Errors
    ///
    /// When `url` is not a Redis URL (`rediss://` too, without the `redis-tls` feature),
    /// [`ca_certificate`](RedisOptions::ca_certificate) is not a PEM certificate, or
    /// [`client_certificate`](RedisOptions::client_certificate) is not a PEM certificate chain
    /// with the private key of its first certificate.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime.
    pub fn open_with(url: &str, options: RedisOptions) -> Result<Self, StoreError> {
        let client = client(url, &options)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(options.timeout))
            .set_response_timeout(Some(options.timeout))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_secs(1));
        let connection = ConnectionManager::new_lazy_with_config(client.clone(), config)
            .map_err(|error| StoreError::new(format!("Redis: {error}")))?;
        let (outbox, pending) = mpsc::channel(OUTBOX);
        let instance = crate::random::id();
        let inner = Arc::new(Inner {
            connection,
            changes_channel: format!("{}changes", options.prefix),
            own_channel: format!("{}instance:{instance}", options.prefix),
            prefix: options.prefix,
            instance,
            timeout: options.timeout,
            update: redis::Script::new(UPDATE),
            append: redis::Script::new(APPEND),
            changes: Mutex::default(),
            signals: Mutex::default(),
            outbox,
            dropping: AtomicBool::new(false),
        });
        tokio::spawn(listen(Arc::downgrade(&inner), client));
        tokio::spawn(publish(Arc::downgrade(&inner), pending));
        Ok(RedisStore { inner })
    }

    /// This instance's name in the store (random per store opened).
    pub fn instance(&self) -> &str {
        &self.inner.instance
    }
}

/// The client of `url`, with the CA `options` name for TLS.
#[cfg_attr(not(feature = "redis-tls"), allow(unused_variables))]
fn client(url: &str, options: &RedisOptions) -> Result<redis::Client, StoreError> {
    #[cfg(feature = "redis-tls")]
    {
        // redis-rs takes rustls's process-wide provider. With two in a user's tree (ring and
        // aws-lc-rs) there is none until one is installed; ring is the one this crate builds.
        // A provider installed already (the user's) stays.
        if is_tls(url) {
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
        if let Some(ca) = &options.ca_certificate {
            certificates_in(ca, "the Redis CA certificate")?;
        }
        if let Some(identity) = &options.client_certificate {
            check_identity(identity)?;
        }
        if options.ca_certificate.is_some() || options.client_certificate.is_some() {
            if !is_tls(url) {
                return Err(StoreError::new(
                    "a CA or client certificate for Redis is set, but the URL is not TLS: \
                     use rediss://",
                ));
            }
            let client_tls =
                options
                    .client_certificate
                    .as_ref()
                    .map(|identity| redis::ClientTlsConfig {
                        client_cert: identity.chain.clone(),
                        client_key: identity.key.clone(),
                    });
            return redis::Client::build_with_tls(
                url,
                redis::TlsCertificates {
                    client_tls,
                    root_cert: options.ca_certificate.clone(),
                },
            )
            .map_err(|error| StoreError::new(format!("not a Redis URL: {error}")));
        }
    }
    redis::Client::open(url).map_err(|error| StoreError::new(format!("not a Redis URL: {error}")))
}

/// Whether `url` names a Redis over TLS (schemes are case-insensitive).
#[cfg(feature = "redis-tls")]
fn is_tls(url: &str) -> bool {
    url.get(.."rediss:".len())
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("rediss:"))
}

/// The PEM certificates in `pem` (`what` they are, for the error), when it holds some and
/// nothing else: redis-rs would take anything else as trusting nothing (or presenting
/// nothing), and every connection would fail later, less clearly.
#[cfg(feature = "redis-tls")]
fn certificates_in(
    pem: &[u8],
    what: &str,
) -> Result<Vec<rustls_pki_types::CertificateDer<'static>>, StoreError> {
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;

    let certificates = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| StoreError::new(format!("{what}: {error}")))?;
    if certificates.is_empty() {
        return Err(StoreError::new(format!("{what}: no PEM certificate in it")));
    }
    Ok(certificates)
}

/// Whether `identity` is a certificate chain with the private key of its first certificate:
/// checked when the store opens, where redis-rs would find out at every connection.
#[cfg(feature = "redis-tls")]
fn check_identity(identity: &ClientCertificate) -> Result<(), StoreError> {
    use rustls_pki_types::PrivateKeyDer;
    use rustls_pki_types::pem::PemObject;

    let chain = certificates_in(&identity.chain, "the Redis client certificate")?;
    let key = PrivateKeyDer::from_pem_slice(&identity.key)
        .map_err(|error| StoreError::new(format!("the Redis client key: {error}")))?;
    rustls::sign::CertifiedKey::from_der(chain, key, &rustls::crypto::ring::default_provider())
        .map_err(|error| {
            StoreError::new(format!(
                "the Redis client certificate and key do not go together: {error}"
            ))
        })?;
    Ok(())
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.inner.prefix)
            .field("instance", &self.inner.instance)
            .finish_non_exhaustive()
    }
}

impl Inner {
    fn key(&self, parts: &[&str]) -> String {
        let mut key = self.prefix.clone();
        key.push_str(&parts.concat());
        key
    }

    fn instance_channel(&self, instance: &str) -> String {
        self.key(&["instance:", instance])
    }

    /// `operation` on the shared connection, failed after the timeout.
    async fn run<T, F>(&self, what: &str, operation: F) -> Result<T, StoreError>
    where
        F: AsyncFnOnce(&mut ConnectionManager) -> redis::RedisResult<T>,
    {
        let mut connection = self.connection.clone();
        match tokio::time::timeout(self.timeout, operation(&mut connection)).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(StoreError::new(format!("Redis failed to {what}: {error}"))),
            Err(_) => Err(StoreError::new(format!(
                "Redis did not {what} within {:?}",
                self.timeout
            ))),
        }
    }

    fn deliver(&self, channel: &str, payload: &str) {
        if channel == self.changes_channel {
            let Some((origin, change)) = payload.split_once(' ') else {
                return;
            };
            if origin == self.instance {
                return;
            }
            if let Some(change) = Change::decode(change) {
                for deliver in self
                    .changes
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .iter()
                {
                    deliver(change.clone());
                }
            }
        } else if let Some((task, signal)) = TaskSignal::decode(payload) {
            for deliver in self
                .signals
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .iter()
            {
                deliver(&task, signal.clone());
            }
        }
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Listens to the channels of this instance for as long as the store lives, subscribing
/// again whenever the connection is lost.
async fn listen(inner: Weak<Inner>, client: redis::Client) {
    const MOST: Duration = Duration::from_secs(2);
    let mut backoff = Duration::from_millis(50);
    let mut failing = false;
    loop {
        let Some((channels, timeout)) = inner.upgrade().map(|inner| {
            let channels = [inner.changes_channel.clone(), inner.own_channel.clone()];
            (channels, inner.timeout)
        }) else {
            return;
        };
        let subscribed = tokio::time::timeout(timeout, async {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe(&channels).await?;
            redis::RedisResult::Ok(pubsub)
        })
        .await;
        match subscribed {
            Ok(Ok(pubsub)) => {
                tracing::info!(
                    channels = ?channels,
                    "listening on Redis for announcements and task signals"
                );
                failing = false;
                backoff = Duration::from_millis(50);
                let (mut sink, mut messages) = pubsub.split();
                // A connection that went silent (no reset from a vanished peer) ends no
                // stream: a ping unanswered within the timeout counts as lost.
                let mut health = tokio::time::interval(HEALTH_CHECK);
                health.tick().await;
                loop {
                    tokio::select! {
                        message = messages.next() => {
                            let (Some(message), Some(inner)) = (message, inner.upgrade()) else {
                                break;
                            };
                            if let Ok(payload) = message.get_payload::<String>() {
                                inner.deliver(message.get_channel_name(), &payload);
                            }
                        }
                        _ = health.tick() => {
                            let pinged = tokio::time::timeout(timeout, sink.ping::<redis::Value>());
                            if !matches!(pinged.await, Ok(Ok(_))) {
                                break;
                            }
                        }
                    }
                }
                if inner.strong_count() == 0 {
                    return;
                }
                tracing::warn!("lost the Redis subscription; subscribing again");
            }
            failed => {
                if !failing {
                    let error = match failed {
                        Ok(Err(error)) => error.to_string(),
                        _ => format!("no answer within {timeout:?}"),
                    };
                    tracing::warn!(%error, "cannot subscribe to Redis; trying again");
                    failing = true;
                }
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MOST);
    }
}

/// Publishes announcements in the order made, for as long as the store lives: whatever
/// waits when Redis answers goes out in one pipelined round trip, so a busy instance does not
/// fall behind by a round trip per announcement (its clients on other instances would hear
/// of changes late, stale ones after new ones ended).
async fn publish(inner: Weak<Inner>, mut pending: mpsc::Receiver<Change>) {
    let mut batch = Vec::new();
    while pending.recv_many(&mut batch, OUTBOX).await > 0 {
        let Some(inner) = inner.upgrade() else {
            return;
        };
        if inner.dropping.swap(false, Ordering::Relaxed) {
            tracing::info!("announcements reach the other instances again");
        }
        let channel = &inner.changes_channel;
        let mut pipe = redis::pipe();
        for change in distinct(&mut batch) {
            pipe.cmd("PUBLISH")
                .arg(channel)
                .arg(format!("{} {}", inner.instance, change.encode()))
                .ignore();
        }
        let published = inner
            .run("publish announcements", async |connection| {
                pipe.query_async::<()>(connection).await
            })
            .await;
        if let Err(error) = published {
            tracing::warn!(%error, "announcements did not reach the other instances");
        }
        batch.clear();
    }
}

/// The changes of `batch` in order, each once: a client told twice that the same thing
/// changed, with nothing read between, learns nothing from the second.
fn distinct(batch: &mut Vec<Change>) -> &[Change] {
    let mut seen = HashSet::with_capacity(batch.len());
    batch.retain(|change| seen.insert(change.clone()));
    batch
}

impl ReplayGuard for RedisStore {
    fn claim<'a>(
        &'a self,
        id: &'a str,
        expires: SystemTime,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let inner = &self.inner;
            let key = inner.key(&["replay:", id]);
            let at = expires
                .duration_since(UNIX_EPOCH)
                .map_or(1, |since| millis(since).max(1));
            let set: Option<String> = inner
                .run("record a used requestState", async |connection| {
                    redis::cmd("SET")
                        .arg(&key)
                        .arg(1)
                        .arg("NX")
                        .arg("PXAT")
                        .arg(at)
                        .query_async(connection)
                        .await
                })
                .await?;
            Ok(set.is_some())
        })
    }
}

impl TaskStore for RedisStore {
    fn create<'a>(
        &'a self,
        task: &'a StoredTask,
        lease: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            if self.update(task, lease).await? {
                Ok(())
            } else {
                Err(StoreError::new("a task with this id ended already"))
            }
        })
    }

    fn update<'a>(
        &'a self,
        task: &'a StoredTask,
        lease: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let inner = &self.inner;
            let (key, lease_key) = (
                inner.key(&["task:", task.id()]),
                inner.key(&["task:", task.id(), ":lease"]),
            );
            let written: i64 = inner
                .run("write a task", async |connection| {
                    inner
                        .update
                        .key(&key)
                        .key(&lease_key)
                        .arg(task.encoded())
                        .arg(if task.has_ended() { "1" } else { "0" })
                        .arg(millis(lease).max(1))
                        .arg(&inner.instance)
                        .arg(millis(task.ttl()).max(1))
                        .invoke_async(connection)
                        .await
                })
                .await?;
            Ok(written == 1)
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<LoadedTask>, StoreError>> {
        Box::pin(async move {
            let inner = &self.inner;
            let (key, lease_key) = (
                inner.key(&["task:", id]),
                inner.key(&["task:", id, ":lease"]),
            );
            let (encoded, holder): (Option<String>, Option<String>) = inner
                .run("read a task", async |connection| {
                    redis::pipe()
                        .cmd("HGET")
                        .arg(&key)
                        .arg("doc")
                        .cmd("GET")
                        .arg(&lease_key)
                        .query_async(connection)
                        .await
                })
                .await?;
            match encoded {
                Some(encoded) => Ok(Some(LoadedTask {
                    task: StoredTask::decode(id, encoded)?,
                    holder,
                })),
                None => Ok(None),
            }
        })
    }

    fn signal<'a>(
        &'a self,
        holder: &'a str,
        id: &'a str,
        signal: TaskSignal,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let inner = &self.inner;
            let channel = inner.instance_channel(holder);
            let message = signal.encode(id);
            let heard: i64 = inner
                .run("signal a task's instance", async |connection| {
                    redis::cmd("PUBLISH")
                        .arg(&channel)
                        .arg(&message)
                        .query_async(connection)
                        .await
                })
                .await?;
            Ok(heard > 0)
        })
    }

    fn on_signal(&self, deliver: SignalHandler) {
        self.inner
            .signals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(deliver);
    }
}

impl EventBus for RedisStore {
    fn publish(&self, change: Change) {
        if self.inner.outbox.try_send(change).is_err()
            && !self.inner.dropping.swap(true, Ordering::Relaxed)
        {
            tracing::warn!(
                "Redis is behind by {OUTBOX} announcements; new ones do not reach the other \
                 instances until it catches up"
            );
        }
    }

    fn on_change(&self, deliver: ChangeHandler) {
        self.inner
            .changes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(deliver);
    }
}

impl SessionStore for RedisStore {
    fn save<'a>(
        &'a self,
        session: &'a StoredSession,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let inner = &self.inner;
            let key = inner.key(&["session:", session.id()]);
            inner
                .run("write a session", async |connection| {
                    redis::cmd("SET")
                        .arg(&key)
                        .arg(session.encoded())
                        .arg("PX")
                        .arg(millis(ttl).max(1))
                        .query_async::<()>(connection)
                        .await
                })
                .await
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredSession>, StoreError>> {
        Box::pin(async move {
            let inner = &self.inner;
            let key = inner.key(&["session:", id]);
            let encoded: Option<String> = inner
                .run("read a session", async |connection| {
                    redis::cmd("GET").arg(&key).query_async(connection).await
                })
                .await?;
            encoded
                .map(|encoded| StoredSession::decode(id, encoded))
                .transpose()
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let inner = &self.inner;
            let key = inner.key(&["session:", id]);
            inner
                .run("remove a session", async |connection| {
                    redis::cmd("DEL")
                        .arg(&key)
                        .query_async::<()>(connection)
                        .await
                })
                .await
        })
    }

    fn append<'a>(
        &'a self,
        session: &'a str,
        event: &'a StoredEvent,
        bounds: StreamBounds,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let inner = &self.inner;
            let events = inner.key(&["session:", session, ":stream:", &event.stream]);
            let meta = format!("{events}:meta");
            let entry = format!("{} {}", event.number, event.frame);
            inner
                .run("write a session's event", async |connection| {
                    inner
                        .append
                        .key(&events)
                        .key(&meta)
                        .arg(&entry)
                        .arg(bounds.events.max(1))
                        .arg(millis(bounds.ttl).max(1))
                        .arg(event.request.as_deref().unwrap_or(""))
                        .arg(if event.response { "1" } else { "0" })
                        .arg(
                            event
                                .missed_through
                                .map_or_else(String::new, |n| n.to_string()),
                        )
                        .invoke_async::<i64>(connection)
                        .await
                })
                .await
                .map(drop)
        })
    }

    fn replay<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        after: u64,
    ) -> BoxFuture<'a, Result<Replay, StoreError>> {
        Box::pin(async move {
            let inner = &self.inner;
            let events = inner.key(&["session:", session, ":stream:", stream]);
            let meta = format!("{events}:meta");
            let (entries, fields): (Vec<String>, std::collections::HashMap<String, String>) = inner
                .run("read a session's events", async |connection| {
                    redis::pipe()
                        .cmd("LRANGE")
                        .arg(&events)
                        .arg(0)
                        .arg(-1)
                        .cmd("HGETALL")
                        .arg(&meta)
                        .query_async(connection)
                        .await
                })
                .await?;
            if fields.is_empty() {
                return Ok(Replay::Unknown);
            }
            let evicted = fields.get("evicted").and_then(|n| n.parse::<u64>().ok());
            if evicted.is_some_and(|through| through > after) {
                return Ok(Replay::Expired);
            }
            let mut frames = Vec::new();
            for entry in entries {
                let Some((number, frame)) = entry.split_once(' ') else {
                    return Err(StoreError::new("a stored event is unreadable"));
                };
                let number: u64 = number
                    .parse()
                    .map_err(|_| StoreError::new("a stored event is unreadable"))?;
                if number > after {
                    frames.push(frame.to_owned());
                }
            }
            Ok(Replay::Events {
                frames,
                request: fields.get("request").cloned(),
                answered: fields
                    .get("answered")
                    .is_some_and(|answered| answered == "1"),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "redis-tls")]
    #[test]
    fn a_tls_url_is_told_by_its_scheme_in_any_case() {
        assert!(is_tls("rediss://redis:6380/"));
        assert!(is_tls("REDISS://redis:6380/"));
        assert!(!is_tls("redis://redis:6379/"));
        assert!(!is_tls("redis"));
    }

    #[test]
    fn a_batch_publishes_each_change_once_in_the_order_first_made() {
        let updated = |uri: &str| Change::ResourceUpdated(uri.to_owned());
        let mut batch = vec![
            updated("a://1"),
            Change::ToolListChanged,
            updated("a://1"),
            updated("a://2"),
            Change::ToolListChanged,
            updated("a://1"),
        ];
        assert_eq!(
            distinct(&mut batch),
            [updated("a://1"), Change::ToolListChanged, updated("a://2")]
        );
    }
}
