//! `RedisStore` against a real `redis-server` (Debian's; `tests/shared_state/install-redis.sh`
//! installs it, and `.ci/run` runs that first): each test starts its own server on a free
//! loopback port and stops it by PID. Two stores on one server stand for two instances. With
//! the `redis-tls` feature, a server that speaks only TLS, with the certificates of
//! `tests/fixtures/tls/`, and one that also asks its clients for a certificate.

// Not every helper is used here (`per_revision!` among them).
#[allow(unused_macros)]
mod support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime};

use mcp_runtime::ask::ReplayGuard;
use mcp_runtime::redis::{RedisOptions, RedisStore};
use mcp_runtime::store::{Change, EventBus, LoadedTask, StoredTask, TaskSignal, TaskStore};
use tokio::sync::mpsc;

/// A `redis-server` of this test's own, without persistence.
struct RedisServer {
    port: u16,
    child: Child,
}

impl RedisServer {
    fn start() -> Self {
        Self::start_on(free_port())
    }

    /// Starts on `port`, returning once the server says it accepts connections.
    fn start_on(port: u16) -> Self {
        Self::start_with(port, &["--port", &port.to_string()])
    }

    /// Starts on `port` with `args`, which say how it listens there.
    fn start_with(port: u16, args: &[&str]) -> Self {
        let child = Command::new("redis-server")
            .args(args)
            .args(["--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect(
                "redis-server is not installed: run `bash tests/shared_state/install-redis.sh`",
            );
        // Stopped by `Drop` from here on, whatever happens.
        let mut server = RedisServer { port, child };
        let out = BufReader::new(server.child.stdout.take().unwrap());
        for line in out.lines() {
            let line = line.unwrap();
            if line.contains("Ready to accept connections") {
                return server;
            }
            assert!(
                !line.contains("Could not create server"),
                "redis-server did not start: {line}"
            );
        }
        panic!("redis-server exited before it was ready");
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The test CA and the certificate it signed for 127.0.0.1; a client CA and the client
/// certificate it signed; a self-signed client certificate nobody trusts
/// (`tests/fixtures/tls/`).
#[cfg(feature = "redis-tls")]
fn tls_fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tls")
        .join(name)
}

/// A server that speaks only TLS, with the fixture's certificate for 127.0.0.1.
#[cfg(feature = "redis-tls")]
fn start_tls() -> RedisServer {
    start_tls_with("ca.pem", false)
}

/// A server that speaks only TLS, asking its clients for a certificate `client_ca` (a fixture)
/// signed when `ask_clients`, as redis-server does by default on a TLS port.
#[cfg(feature = "redis-tls")]
fn start_tls_with(client_ca: &str, ask_clients: bool) -> RedisServer {
    let port = free_port();
    let file = |name: &str| tls_fixture(name).to_str().unwrap().to_owned();
    let (cert, key, ca) = (file("server.pem"), file("server.key"), file(client_ca));
    RedisServer::start_with(
        port,
        &[
            "--port",
            "0",
            "--tls-port",
            &port.to_string(),
            "--tls-cert-file",
            &cert,
            "--tls-key-file",
            &key,
            "--tls-ca-cert-file",
            &ca,
            "--tls-auth-clients",
            if ask_clients { "yes" } else { "no" },
        ],
    )
}

/// A loopback port nothing listens on right now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn store(redis: &RedisServer, prefix: &str) -> RedisStore {
    let mut options = RedisOptions::default();
    options.prefix = prefix.to_owned();
    options.timeout = Duration::from_secs(1);
    RedisStore::open_with(&redis.url(), options).unwrap()
}

fn running_task(id: &str, owner: Option<&str>) -> StoredTask {
    let document = serde_json::json!({
        "owner": owner,
        "ended": false,
        "ttlMs": 60_000,
        "task": {"taskId": id, "status": "working"},
    });
    StoredTask::decode(id, document.to_string()).unwrap()
}

fn ended_task(id: &str) -> StoredTask {
    let document = serde_json::json!({
        "owner": null,
        "ended": true,
        "ttlMs": 60_000,
        "task": {"taskId": id, "status": "completed"},
    });
    StoredTask::decode(id, document.to_string()).unwrap()
}

fn in_ten_minutes() -> SystemTime {
    SystemTime::now() + Duration::from_secs(600)
}

#[tokio::test]
async fn a_request_state_is_claimed_once_across_instances() {
    let redis = RedisServer::start();
    let (a, b) = (store(&redis, "replay:"), store(&redis, "replay:"));
    assert!(a.claim("state-1", in_ten_minutes()).await.unwrap());
    assert!(!b.claim("state-1", in_ten_minutes()).await.unwrap());
    assert!(!a.claim("state-1", in_ten_minutes()).await.unwrap());
    assert!(b.claim("state-2", in_ten_minutes()).await.unwrap());
    // Another deployment sharing the Redis under another prefix is apart.
    assert!(
        store(&redis, "other:")
            .claim("state-1", in_ten_minutes())
            .await
            .unwrap()
    );
}

/// The error `store` (`which` one, for the failure's message) gets recording a used
/// `requestState` on a server that refuses it: within 30 s, never a hang.
#[cfg(feature = "redis-tls")]
async fn refused_claim(store: &RedisStore, which: &str) -> String {
    tokio::time::timeout(
        Duration::from_secs(30),
        store.claim("state-2", in_ten_minutes()),
    )
    .await
    .unwrap_or_else(|_| panic!("{which}: no answer"))
    .map(|claimed| panic!("{which}: served ({claimed})"))
    .unwrap_err()
    .to_string()
}

#[cfg(feature = "redis-tls")]
#[tokio::test]
async fn instances_share_a_redis_over_tls_that_trusts_only_its_ca() {
    let redis = start_tls();
    let ca = std::fs::read(tls_fixture("ca.pem")).unwrap();
    let url = format!("rediss://127.0.0.1:{}/", redis.port);
    let over_tls = |ca: Option<Vec<u8>>| {
        let mut options = RedisOptions::default();
        options.prefix = "tls:".to_owned();
        options.timeout = Duration::from_secs(1);
        options.ca_certificate = ca;
        RedisStore::open_with(&url, options).unwrap()
    };
    let (a, b) = (over_tls(Some(ca.clone())), over_tls(Some(ca.clone())));
    assert!(a.claim("state-1", in_ten_minutes()).await.unwrap());
    assert!(!b.claim("state-1", in_ten_minutes()).await.unwrap());

    // A store that trusts another certificate (the server's own, which is not its issuer), or
    // the system's roots, is refused: an error within the timeout, never a connection to a
    // server it cannot verify.
    for (stranger, trusting) in [
        (
            over_tls(Some(std::fs::read(tls_fixture("server.pem")).unwrap())),
            "another certificate",
        ),
        (over_tls(None), "the system's roots"),
    ] {
        let error = refused_claim(&stranger, &format!("trusting {trusting}")).await;
        assert!(error.contains("certificate"), "{error}");
    }
    // Nothing of theirs reached the server.
    assert!(a.claim("state-2", in_ten_minutes()).await.unwrap());

    // A CA that is not a certificate is refused when the store is opened.
    let mut options = RedisOptions::default();
    options.ca_certificate = Some(b"not a certificate".to_vec());
    let error = RedisStore::open_with(&url, options).unwrap_err();
    assert!(error.to_string().contains("CA certificate"), "{error}");

    // A plain connection to the TLS port gets no further.
    let mut options = RedisOptions::default();
    options.timeout = Duration::from_secs(1);
    let plain =
        RedisStore::open_with(&format!("redis://127.0.0.1:{}/", redis.port), options).unwrap();
    assert!(plain.claim("state-3", in_ten_minutes()).await.is_err());
}

#[cfg(feature = "redis-tls")]
fn identity(chain: &str, key: &str) -> mcp_runtime::redis::ClientCertificate {
    mcp_runtime::redis::ClientCertificate::from_files(tls_fixture(chain), tls_fixture(key)).unwrap()
}

/// A Redis that asks its clients for a certificate (redis-server's default on a TLS port)
/// serves the stores presenting one its client CA signed, and no other.
#[cfg(feature = "redis-tls")]
#[tokio::test]
async fn a_redis_asking_for_client_certificates_serves_only_stores_presenting_one() {
    use mcp_runtime::redis::ClientCertificate;

    let redis = start_tls_with("client-ca.pem", true);
    let url = format!("rediss://127.0.0.1:{}/", redis.port);
    let options = |client: Option<ClientCertificate>| {
        let mut options = RedisOptions::default();
        options.prefix = "mtls:".to_owned();
        options.timeout = Duration::from_secs(1);
        options.ca_certificate = Some(std::fs::read(tls_fixture("ca.pem")).unwrap());
        options.client_certificate = client;
        options
    };
    let over_mtls = |client| RedisStore::open_with(&url, options(client)).unwrap();
    let (a, b) = (
        over_mtls(Some(identity("client.pem", "client.key"))),
        over_mtls(Some(identity("client.pem", "client.key"))),
    );
    assert!(a.claim("state-1", in_ten_minutes()).await.unwrap());
    assert!(!b.claim("state-1", in_ten_minutes()).await.unwrap());

    // Without a certificate, or with one the server's client CA did not sign: an error within
    // the timeout, and nothing done.
    // The server's TLS alert says why.
    for (stranger, presenting, alert) in [
        (over_mtls(None), "no certificate", "CertificateRequired"),
        (
            over_mtls(Some(identity("stranger.pem", "stranger.key"))),
            "a certificate nobody signed",
            "UnknownCA",
        ),
    ] {
        let error = refused_claim(&stranger, &format!("presenting {presenting}")).await;
        assert!(error.contains(alert), "{error}");
    }
    assert!(a.claim("state-2", in_ten_minutes()).await.unwrap());

    // A key that is not the certificate's, or is no key, is refused when the store opens.
    let error = RedisStore::open_with(&url, options(Some(identity("client.pem", "stranger.key"))))
        .unwrap_err();
    assert!(error.to_string().contains("do not go together"), "{error}");
    let error = RedisStore::open_with(
        &url,
        options(Some(ClientCertificate::new(
            std::fs::read(tls_fixture("client.pem")).unwrap(),
            b"not a key".to_vec(),
        ))),
    )
    .unwrap_err();
    assert!(error.to_string().contains("client key"), "{error}");
    // Certificates with a plain `redis://` URL are a mistake, said so.
    let plain = format!("redis://127.0.0.1:{}/", redis.port);
    let error = RedisStore::open_with(&plain, options(Some(identity("client.pem", "client.key"))))
        .unwrap_err();
    assert!(error.to_string().contains("use rediss://"), "{error}");
    // The key never reaches a log through `Debug`.
    let printed = format!("{:?}", identity("client.pem", "client.key"));
    assert!(
        !printed.contains("PRIVATE KEY") && printed.contains("redacted"),
        "{printed}"
    );
}

/// The `long_task` example started with `--redis url` and the environment `vars` (the TLS
/// variables of the test's process removed).
#[cfg(feature = "redis-tls")]
fn long_task(url: &str, vars: &[(&str, std::path::PathBuf)]) -> support::ServerProcess {
    support::ServerProcess::example_with("long_task", |command| {
        command.args(["--redis", url]);
        for var in [
            "SSL_CERT_FILE",
            "SSL_CERT_DIR",
            "MCP_REDIS_CA_CERT",
            "MCP_REDIS_CLIENT_CERT",
            "MCP_REDIS_CLIENT_KEY",
        ] {
            command.env_remove(var);
        }
        command.envs(vars.iter().map(|(name, value)| (name, value)));
    })
}

/// What the `long_task` example started as [`long_task`] says answers a task-capable
/// `tools/call migrate` over stdio.
#[cfg(feature = "redis-tls")]
fn long_task_answer(url: &str, vars: &[(&str, std::path::PathBuf)]) -> serde_json::Value {
    let call = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": "migrate", "arguments": {"steps": 1, "step_ms": 1},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities":
                    {"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}},
            },
        },
    });
    let mut server = long_task(url, vars);
    server.write_line(&call.to_string());
    // Long enough for a store that cannot connect to give up first (its timeout, then one
    // retry): this wait only stops a hang.
    match server.next_line(Duration::from_secs(60)) {
        support::process::Next::Line(support::process::StdoutLine::Json(answer)) => answer,
        other => panic!("no answer: {other:?}\nits stderr:\n{}", server.stderr()),
    }
}

/// The task `answer` created is in the Redis at `url`, read by a store `options` open.
#[cfg(feature = "redis-tls")]
fn assert_task_stored(answer: &serde_json::Value, url: &str, options: RedisOptions) {
    assert_eq!(answer["result"]["resultType"], "task", "{answer}");
    let task = answer["result"]["taskId"].as_str().unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let stored = runtime.block_on(async {
        let store = RedisStore::open_with(url, options).unwrap();
        store.load(task).await.unwrap()
    });
    assert!(stored.is_some(), "task {task} is in the Redis");
}

/// `--redis rediss://...` from the command line to a Redis asking for client certificates:
/// the example presents the one `MCP_REDIS_CLIENT_CERT` and `MCP_REDIS_CLIENT_KEY` name,
/// trusting the CA of `MCP_REDIS_CA_CERT`. Without the certificate the call runs in place;
/// with half of it the server refuses to start.
#[cfg(feature = "redis-tls")]
#[test]
fn an_example_presents_the_client_certificate_its_variables_name() {
    let redis = start_tls_with("client-ca.pem", true);
    let url = format!("rediss://127.0.0.1:{}/", redis.port);
    let ca = ("MCP_REDIS_CA_CERT", tls_fixture("ca.pem"));
    let chain = ("MCP_REDIS_CLIENT_CERT", tls_fixture("client.pem"));
    let key = ("MCP_REDIS_CLIENT_KEY", tls_fixture("client.key"));

    let answer = long_task_answer(&url, &[ca.clone(), chain.clone(), key.clone()]);
    let mut options = RedisOptions::default();
    options.ca_certificate = Some(std::fs::read(tls_fixture("ca.pem")).unwrap());
    options.client_certificate = Some(identity("client.pem", "client.key"));
    assert_task_stored(&answer, &url, options);

    let without = long_task_answer(&url, std::slice::from_ref(&ca));
    assert_eq!(
        without["result"]["resultType"], "input_required",
        "{without}"
    );

    let mut half = long_task(&url, &[ca, chain]);
    assert!(!half.wait_for_exit().success());
    assert!(half.stderr().contains("set both"), "{}", half.stderr());
}

/// `--redis rediss://...` from the command line: the example trusts the CA that
/// `SSL_CERT_FILE` names (as rustls-native-certs reads the system's roots), and a task
/// created over stdio lives in the Redis; without that CA the call is answered in place.
#[cfg(feature = "redis-tls")]
#[test]
fn an_example_shares_its_tasks_over_tls_with_the_ca_ssl_cert_file_names() {
    let redis = start_tls();
    let url = format!("rediss://127.0.0.1:{}/", redis.port);
    let trusted = long_task_answer(&url, &[("SSL_CERT_FILE", tls_fixture("ca.pem"))]);
    let mut options = RedisOptions::default();
    options.ca_certificate = Some(std::fs::read(tls_fixture("ca.pem")).unwrap());
    assert_task_stored(&trusted, &url, options);

    // Not trusted: no task (its store cannot be reached); the call runs in place, up to the
    // question it asks before its last step.
    let untrusted = long_task_answer(&url, &[]);
    assert_eq!(
        untrusted["result"]["resultType"], "input_required",
        "{untrusted}"
    );
}

#[tokio::test]
async fn a_task_is_read_by_another_instance_and_ends_once() {
    let redis = RedisServer::start();
    let (a, b) = (store(&redis, "tasks:"), store(&redis, "tasks:"));
    let lease = Duration::from_secs(60);
    a.create(&running_task("t1", Some("alice")), lease)
        .await
        .unwrap();

    let LoadedTask { task, holder } = b.load("t1").await.unwrap().expect("B reads A's task");
    assert_eq!(task.id(), "t1");
    assert!(!task.has_ended());
    assert_eq!(holder.as_deref(), Some(a.instance()));
    assert!(task.encoded().contains("alice"));
    assert!(b.load("no-such-task").await.unwrap().is_none());

    // B ends it (a cancel); A's later write of its own end is refused, and so is B's again.
    assert!(b.update(&ended_task("t1"), Duration::ZERO).await.unwrap());
    assert!(
        !a.update(&running_task("t1", Some("alice")), lease)
            .await
            .unwrap()
    );
    assert!(!a.update(&ended_task("t1"), lease).await.unwrap());
    let LoadedTask { task, holder } = a.load("t1").await.unwrap().unwrap();
    assert!(task.has_ended());
    assert_eq!(holder, None, "an ended task's lease is given up");
}

#[tokio::test]
async fn a_lease_not_renewed_runs_out() {
    let redis = RedisServer::start();
    let (a, b) = (store(&redis, "lease:"), store(&redis, "lease:"));
    a.create(&running_task("t2", None), Duration::from_millis(50))
        .await
        .unwrap();
    // Wait for the event (the lease gone), reading as a client polls.
    loop {
        let LoadedTask { task, holder } = b.load("t2").await.unwrap().unwrap();
        assert!(!task.has_ended());
        if holder.is_none() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Renewing (any write of the running task) takes the lease again.
    assert!(
        a.update(&running_task("t2", None), Duration::from_secs(60))
            .await
            .unwrap()
    );
    let holder = b.load("t2").await.unwrap().unwrap().holder;
    assert_eq!(holder.as_deref(), Some(a.instance()));
}

#[tokio::test]
async fn signals_reach_the_instance_holding_the_task() {
    let redis = RedisServer::start();
    let (a, b) = (store(&redis, "signals:"), store(&redis, "signals:"));
    let (to_a, mut at_a) = mpsc::unbounded_channel();
    a.on_signal(Box::new(move |id, signal| {
        let _ = to_a.send((id.to_owned(), signal));
    }));
    // `false` until A's subscription is up: the signal is heard by no one.
    while !b
        .signal(a.instance(), "t3", TaskSignal::Cancel)
        .await
        .unwrap()
    {
        tokio::task::yield_now().await;
    }
    assert_eq!(
        at_a.recv().await.unwrap(),
        ("t3".into(), TaskSignal::Cancel)
    );
    let answers = serde_json::json!({"q0": {"action": "accept"}});
    let answer = TaskSignal::Answer(answers.as_object().cloned().unwrap());
    assert!(b.signal(a.instance(), "t3", answer.clone()).await.unwrap());
    assert_eq!(at_a.recv().await.unwrap(), ("t3".into(), answer));
    // An instance that does not exist hears nothing.
    assert!(!b.signal("gone", "t3", TaskSignal::Cancel).await.unwrap());
}

#[tokio::test]
async fn changes_reach_the_other_instances_only() {
    let redis = RedisServer::start();
    let (a, b) = (store(&redis, "changes:"), store(&redis, "changes:"));
    let (to_a, mut at_a) = mpsc::unbounded_channel();
    a.on_change(Box::new(move |change| {
        let _ = to_a.send(change);
    }));
    let (to_b, mut at_b) = mpsc::unbounded_channel();
    b.on_change(Box::new(move |change| {
        let _ = to_b.send(change);
    }));
    // Both subscriptions are up once each hears a signal (one connection carries both).
    for (from, to) in [(&a, &b), (&b, &a)] {
        while !from
            .signal(to.instance(), "-", TaskSignal::Cancel)
            .await
            .unwrap()
        {
            tokio::task::yield_now().await;
        }
    }
    b.publish(Change::ResourceUpdated("file:///x".into()));
    b.publish(Change::PromptListChanged);
    assert_eq!(
        at_a.recv().await.unwrap(),
        Change::ResourceUpdated("file:///x".into())
    );
    assert_eq!(at_a.recv().await.unwrap(), Change::PromptListChanged);
    // B never hears its own: the next thing it hears is A's.
    a.publish(Change::ToolListChanged);
    assert_eq!(at_b.recv().await.unwrap(), Change::ToolListChanged);
}

#[tokio::test]
async fn with_redis_down_operations_fail_and_then_recover() {
    let mut redis = RedisServer::start();
    let port = redis.port;
    let a = store(&redis, "down:");
    assert!(a.claim("before", in_ten_minutes()).await.unwrap());
    redis.stop();

    let error = a.claim("during", in_ten_minutes()).await.unwrap_err();
    assert!(!error.to_string().is_empty());
    assert!(a.load("t").await.is_err());
    assert!(
        a.create(&running_task("t", None), Duration::from_secs(1))
            .await
            .is_err()
    );
    assert!(a.signal("x", "t", TaskSignal::Cancel).await.is_err());

    let _redis = RedisServer::start_on(port);
    // The connection comes back by itself: the first operations after the restart may still
    // meet the old one's failure.
    let mut tries = 0;
    let claimed = loop {
        match a.claim("after", in_ten_minutes()).await {
            Ok(claimed) => break claimed,
            Err(error) => {
                tries += 1;
                assert!(tries < 100, "the store never recovered: {error}");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    };
    assert!(claimed);
}

#[tokio::test]
async fn a_redis_that_stops_answering_is_an_error_after_the_timeout_not_a_hang() {
    let redis = RedisServer::start();
    let a = store(&redis, "stopped:");
    assert!(a.claim("before", in_ten_minutes()).await.unwrap());
    let pid = libc::pid_t::try_from(redis.child.id()).unwrap();
    // Stopped, not gone: connections stay open and nothing answers on them.
    // SAFETY: `kill` with a PID this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0);
    let error = a.claim("during", in_ten_minutes()).await.unwrap_err();
    assert!(error.to_string().contains("requestState"), "{error}");
    assert!(a.load("t").await.is_err());
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGCONT) }, 0);
    let mut tries = 0;
    while a.claim("after", in_ten_minutes()).await.is_err() {
        tries += 1;
        assert!(tries < 100, "the store never recovered");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A claim that timed out may still have been carried out (the stopped server runs what it
    // had read once continued): `during` is then refused, as for any copy; never twice taken.
    let during = a.claim("during", in_ten_minutes()).await.unwrap();
    let again = a.claim("during", in_ten_minutes()).await.unwrap();
    assert!(
        !again,
        "a state is claimed once at most (first retry: {during})"
    );
}

// Legacy sessions shared through a store: two in-process servers, "A" and "B", each its own
// `HttpService`, sharing one store (Redis here, and the in-memory store to compare). The
// client speaks to A, then, as if A had died, to B only.

mod sessions {
    use std::time::{Duration, Instant};

    use http_body_util::{BodyExt, Full};
    use hyper::body::Bytes;
    use mcp_runtime::http::{HttpConfig, HttpService, Principal, ResponseBody};
    use mcp_runtime::store::{MemorySessionStore, Replay, SessionStore};
    use mcp_runtime::{
        Notifier, RequestContext, Server, mcp_resource, mcp_tool, resources, server_info, tools,
    };
    use serde_json::{Value, json};

    use super::{RedisServer, store};

    const WATCHED: &str = "watch://thing";
    const REVISION: &str = "2025-11-25";
    /// The longest any wait for an event may take (never reached when all works).
    const PATIENCE: Duration = Duration::from_secs(30);

    /// What `watch://thing` holds.
    #[mcp_resource("watch://thing", mime_type = "text/plain")]
    async fn thing() -> String {
        "a thing".to_owned()
    }

    /// Reports progress `steps` times, then works forever (until its instance dies).
    #[mcp_tool]
    async fn endless(steps: u32, ctx: RequestContext) -> String {
        for step in 1..=steps {
            ctx.progress(f64::from(step), None, None);
        }
        std::future::pending::<()>().await;
        unreachable!()
    }

    /// One instance: its endpoint, and its notifier. Callers are named by their bearer token.
    fn instance(shared: impl SessionStore) -> (HttpService, Notifier) {
        let server = Server::new(server_info!())
            .tools(tools![endless])
            .resources(resources![thing])
            .session_store(shared);
        let notifier = server.notifier();
        let config = HttpConfig::new().authorize(|request| {
            Ok::<_, mcp_runtime::http::AuthRejection>(request.bearer_token.map(Principal::new))
        });
        (server.http_service(config).unwrap(), notifier)
    }

    fn request(
        method: &str,
        session: Option<&str>,
        who: &str,
        extra: &[(&str, &str)],
        body: Option<&Value>,
    ) -> hyper::Request<Full<Bytes>> {
        let mut builder = hyper::Request::builder()
            .method(method)
            .uri("/mcp")
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", REVISION)
            .header("authorization", format!("Bearer {who}"));
        if let Some(session) = session {
            builder = builder.header("mcp-session-id", session);
        }
        for (name, value) in extra {
            builder = builder.header(*name, *value);
        }
        let body = body.map_or_else(Vec::new, |body| serde_json::to_vec(body).unwrap());
        builder.body(Full::new(Bytes::from(body))).unwrap()
    }

    fn rpc(id: u64, method: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    }

    /// The next event of a stream (keep-alive comments skipped); `None` once it ended.
    async fn next_event(body: &mut ResponseBody) -> Option<String> {
        loop {
            let frame = tokio::time::timeout(PATIENCE, body.frame())
                .await
                .expect("no event within the patience")?
                .unwrap();
            let Ok(data) = frame.into_data() else {
                continue;
            };
            let text = String::from_utf8(data.to_vec()).unwrap();
            if !text.starts_with(':') {
                return Some(text);
            }
        }
    }

    fn id_of(event: &str) -> &str {
        event
            .lines()
            .find_map(|line| line.strip_prefix("id: "))
            .unwrap_or_else(|| panic!("an event without an id: {event:?}"))
    }

    fn message_of(event: &str) -> Value {
        let data = event
            .lines()
            .find_map(|line| line.strip_prefix("data: "))
            .unwrap_or_else(|| panic!("an event without data: {event:?}"));
        serde_json::from_str(data).unwrap()
    }

    async fn json_of(service: &HttpService, request: hyper::Request<Full<Bytes>>) -> (u16, Value) {
        let response = service.handle(request).await;
        let status = response.status().as_u16();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let value = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).unwrap()
        };
        (status, value)
    }

    /// Waits until the store holds `count` events of the stream of `last` after it.
    async fn stored_after(shared: &impl SessionStore, session: &str, last: &str, count: usize) {
        let (stream, after) = last.rsplit_once('-').unwrap();
        let after: u64 = after.parse().unwrap();
        let deadline = Instant::now() + PATIENCE;
        loop {
            let replay = SessionStore::replay(shared, session, stream, after)
                .await
                .unwrap();
            if let Replay::Events { frames, .. } = &replay
                && frames.len() >= count
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the store never got the events: {replay:?}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The client opens its session on A, reads part of its GET stream and of a call's POST
    /// stream there, then goes on on B only: B adopts the session (its subscriptions too),
    /// replays each stream after the last event the client had, no event lost or repeated,
    /// ends the call's stream with the error saying the call is lost, and serves the session
    /// from then on. Another principal never gets the session.
    async fn a_session_moves_to_another_instance(shared: impl SessionStore + Clone) {
        let (a, notify_a) = instance(shared.clone());
        let (b, notify_b) = instance(shared.clone());

        let init = rpc(
            1,
            "initialize",
            json!({"protocolVersion": REVISION, "capabilities": {},
            "clientInfo": {"name": "mover", "version": "1"}}),
        );
        let response = a
            .handle(request("POST", None, "alice", &[], Some(&init)))
            .await;
        assert_eq!(response.status(), 200);
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let session = session.as_str();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let (status, _) = json_of(
            &a,
            request("POST", Some(session), "alice", &[], Some(&initialized)),
        )
        .await;
        assert_eq!(status, 202);
        let subscribe = rpc(2, "resources/subscribe", json!({"uri": WATCHED}));
        let (_, subscribed) = json_of(
            &a,
            request("POST", Some(session), "alice", &[], Some(&subscribe)),
        )
        .await;
        assert_eq!(subscribed["result"], json!({}), "{subscribed}");

        // The GET stream on A: the client reads its priming event and one update, then is cut
        // off; two more updates are sent on A meanwhile (and written through to the store).
        let mut get = a
            .handle(request("GET", Some(session), "alice", &[], None))
            .await
            .into_body();
        let priming = next_event(&mut get).await.unwrap();
        notify_a.resource_updated(WATCHED);
        let first = next_event(&mut get).await.unwrap();
        assert_eq!(
            message_of(&first)["method"],
            "notifications/resources/updated"
        );
        drop(get);
        notify_a.resource_updated(WATCHED);
        notify_a.resource_updated(WATCHED);
        stored_after(&shared, session, id_of(&first), 2).await;

        // A call on A reports progress on its POST's stream; the client reads the first.
        let call = rpc(
            3,
            "tools/call",
            json!({"name": "endless", "arguments": {"steps": 3},
            "_meta": {"progressToken": "p"}}),
        );
        let mut post = a
            .handle(request("POST", Some(session), "alice", &[], Some(&call)))
            .await
            .into_body();
        let post_priming = next_event(&mut post).await.unwrap();
        let progress_1 = next_event(&mut post).await.unwrap();
        assert_eq!(message_of(&progress_1)["params"]["progress"], 1.0);
        drop(post);
        stored_after(&shared, session, id_of(&progress_1), 2).await;
        drop(a);

        // Another principal naming the session gets a 404 from B, and does not adopt it.
        let (status, _) = json_of(&b, request("GET", Some(session), "mallory", &[], None)).await;
        assert_eq!(status, 404, "another principal's session is unknown to it");

        // B: the GET stream resumed after the update the client had.
        let resumed = b
            .handle(request(
                "GET",
                Some(session),
                "alice",
                &[("last-event-id", id_of(&first))],
                None,
            ))
            .await;
        assert_eq!(resumed.status(), 200);
        let mut resumed = resumed.into_body();
        let mut replayed = Vec::new();
        for _ in 0..2 {
            replayed.push(next_event(&mut resumed).await.unwrap());
        }
        let ids: Vec<&str> = replayed.iter().map(|event| id_of(event)).collect();
        let (stream, _) = id_of(&first).rsplit_once('-').unwrap();
        let number = |id: &str| id.rsplit_once('-').unwrap().1.parse::<u64>().unwrap();
        assert!(
            ids.iter()
                .all(|id| id.rsplit_once('-').unwrap().0 == stream),
            "{ids:?}"
        );
        assert!(
            number(id_of(&first)) < number(ids[0]) && number(ids[0]) < number(ids[1]),
            "{ids:?}"
        );
        for event in &replayed {
            assert_eq!(
                message_of(event)["method"],
                "notifications/resources/updated"
            );
        }
        // Then the GET stream goes on on B, primed with an id of B's own, and B's updates
        // reach the session: its subscription came with it.
        let b_priming = next_event(&mut resumed).await.unwrap();
        let b_tag = id_of(&b_priming).split('-').next().unwrap();
        assert_ne!(
            b_tag,
            id_of(&priming).split('-').next().unwrap(),
            "B's ids are its own"
        );
        notify_b.resource_updated(WATCHED);
        let on_b = next_event(&mut resumed).await.unwrap();
        assert_eq!(message_of(&on_b)["params"]["uri"], WATCHED);
        assert!(id_of(&on_b).starts_with(b_tag));

        // The call's stream, resumed on B: the progress the client missed, once each, then
        // the error that says the call is lost, and the stream ends.
        let resumed = b
            .handle(request(
                "GET",
                Some(session),
                "alice",
                &[("last-event-id", id_of(&progress_1))],
                None,
            ))
            .await;
        assert_eq!(resumed.status(), 200);
        let mut resumed = resumed.into_body();
        let mut progress = Vec::new();
        let lost = loop {
            let event = next_event(&mut resumed)
                .await
                .expect("the stream ended without an answer");
            let message = message_of(&event);
            if message.get("id").is_some() {
                break message;
            }
            progress.push(message["params"]["progress"].as_f64().unwrap());
        };
        assert_eq!(progress, [2.0, 3.0], "no progress lost or repeated");
        assert_eq!(lost["id"], 3);
        assert_eq!(lost["error"]["code"], -32603);
        assert!(
            lost["error"]["message"].as_str().unwrap().contains("lost"),
            "{lost}"
        );
        assert!(next_event(&mut resumed).await.is_none(), "the stream ends");
        assert!(id_of(&post_priming).starts_with(id_of(&priming).split('-').next().unwrap()));

        // Later requests of the session are served by B.
        let read = rpc(4, "resources/read", json!({"uri": WATCHED}));
        let (status, answer) = json_of(
            &b,
            request("POST", Some(session), "alice", &[], Some(&read)),
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(
            answer["result"]["contents"][0]["text"], "a thing",
            "{answer}"
        );

        // DELETE on B ends it everywhere: a third instance no longer finds it.
        let (status, _) = json_of(&b, request("DELETE", Some(session), "alice", &[], None)).await;
        assert_eq!(status, 200);
        let deadline = Instant::now() + PATIENCE;
        while SessionStore::load(&shared, session)
            .await
            .unwrap()
            .is_some()
        {
            assert!(
                Instant::now() < deadline,
                "the ended session stayed in the store"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let (c, _) = instance(shared.clone());
        let (status, _) = json_of(
            &c,
            request("POST", Some(session), "alice", &[], Some(&read)),
        )
        .await;
        assert_eq!(status, 404);
    }

    /// RedisStore's streams: replayed after an event, bounded (the oldest dropped first, and a
    /// replay from before a dropped one refused), apart per session and stream.
    #[tokio::test]
    async fn a_stored_stream_replays_within_its_bounds() {
        use mcp_runtime::store::{StoredEvent, StreamBounds};
        let redis = RedisServer::start();
        let shared = store(&redis, "streams:");
        let bounds = StreamBounds {
            events: 3,
            ttl: Duration::from_secs(60),
        };
        let event = |number: u64, response: bool| StoredEvent {
            stream: "tag-1".into(),
            number,
            frame: format!("id: tag-1-{number}\ndata: {{}}\n\n"),
            request: Some("\"call\"".into()),
            response,
            missed_through: None,
        };
        for number in [1, 4, 6, 9] {
            SessionStore::append(&shared, "s", &event(number, number == 9), bounds)
                .await
                .unwrap();
        }
        let replay = SessionStore::replay(&shared, "s", "tag-1", 4)
            .await
            .unwrap();
        assert_eq!(
            replay,
            Replay::Events {
                frames: vec![
                    "id: tag-1-6\ndata: {}\n\n".into(),
                    "id: tag-1-9\ndata: {}\n\n".into()
                ],
                request: Some("\"call\"".into()),
                answered: true,
            }
        );
        let expired = SessionStore::replay(&shared, "s", "tag-1", 0)
            .await
            .unwrap();
        assert_eq!(
            expired,
            Replay::Expired,
            "event 1 was dropped for the bound"
        );
        let late = StoredEvent {
            missed_through: Some(11),
            ..event(12, false)
        };
        SessionStore::append(&shared, "s", &late, bounds)
            .await
            .unwrap();
        let expired = SessionStore::replay(&shared, "s", "tag-1", 9)
            .await
            .unwrap();
        assert_eq!(expired, Replay::Expired, "event 11 never reached the store");
        let after_11 = SessionStore::replay(&shared, "s", "tag-1", 11)
            .await
            .unwrap();
        assert!(matches!(after_11, Replay::Events { frames, .. } if frames.len() == 1));
        // Dropping an older event for the bound later does not forget the missed one.
        SessionStore::append(&shared, "s", &event(13, false), bounds)
            .await
            .unwrap();
        let expired = SessionStore::replay(&shared, "s", "tag-1", 9)
            .await
            .unwrap();
        assert_eq!(expired, Replay::Expired, "event 11 is still missing");
        for (session, stream) in [("s", "tag-2"), ("t", "tag-1")] {
            let unknown = SessionStore::replay(&shared, session, stream, 0)
                .await
                .unwrap();
            assert_eq!(unknown, Replay::Unknown, "{session} {stream}");
        }
    }

    #[tokio::test]
    async fn a_session_moves_to_another_instance_through_redis() {
        let redis = RedisServer::start();
        a_session_moves_to_another_instance(store(&redis, "sessions:")).await;
    }

    #[tokio::test]
    async fn a_session_moves_to_another_instance_through_the_memory_store() {
        a_session_moves_to_another_instance(MemorySessionStore::new()).await;
    }

    /// Redis down: a session B does not know gets -32031 (not a 404 that would tell the client
    /// its session is gone), `initialize` too; the session A serves goes on. This Redis keeps
    /// nothing across a restart: once it is back, A's next change of the session writes it
    /// again (retried until it lands), and B adopts it.
    #[tokio::test]
    async fn with_redis_down_only_what_needs_the_store_fails() {
        let mut redis = RedisServer::start();
        let port = redis.port;
        let (a, _) = instance(store(&redis, "down-sessions:"));
        let (b, _) = instance(store(&redis, "down-sessions:"));
        let init = rpc(
            1,
            "initialize",
            json!({"protocolVersion": REVISION, "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}}),
        );
        let response = a
            .handle(request("POST", None, "alice", &[], Some(&init)))
            .await;
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let session = session.as_str();
        redis.stop();

        let ping = rpc(2, "ping", json!({}));
        let (status, answer) = json_of(
            &b,
            request("POST", Some(session), "alice", &[], Some(&ping)),
        )
        .await;
        assert_eq!(
            (status, answer["error"]["code"].as_i64()),
            (503, Some(-32031)),
            "{answer}"
        );
        let (status, answer) = json_of(
            &a,
            request("POST", Some(session), "alice", &[], Some(&ping)),
        )
        .await;
        assert_eq!(
            (status, &answer["result"]),
            (200, &json!({})),
            "A serves its own session: {answer}"
        );
        let (status, answer) = json_of(&a, request("POST", None, "alice", &[], Some(&init))).await;
        assert_eq!(
            (status, answer["error"]["code"].as_i64()),
            (503, Some(-32031)),
            "{answer}"
        );

        let _redis = RedisServer::start_on(port);
        let subscribe = rpc(3, "resources/subscribe", json!({"uri": WATCHED}));
        let deadline = Instant::now() + PATIENCE;
        loop {
            let (status, _) = json_of(
                &a,
                request("POST", Some(session), "alice", &[], Some(&subscribe)),
            )
            .await;
            assert_eq!(
                status, 200,
                "A serves its session whether the write lands or not"
            );
            let (status, answer) = json_of(
                &b,
                request("POST", Some(session), "alice", &[], Some(&ping)),
            )
            .await;
            if status == 200 {
                assert_eq!(answer["result"], json!({}));
                break;
            }
            let code = answer["error"]["code"].as_i64();
            assert!(matches!(code, Some(-32031 | -32600)), "{answer}");
            assert!(
                Instant::now() < deadline,
                "B never adopted the session after Redis came back"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
