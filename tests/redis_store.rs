//! `RedisStore` against a real `redis-server` (Debian's; `tests/shared_state/install-redis.sh`
//! installs it, and `.ci/run` runs that first): each test starts its own server on a free
//! loopback port and stops it by PID. Two stores on one server stand for two instances.

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
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Self::start_on(port)
    }

    /// Starts on `port`, returning once the server says it accepts connections.
    fn start_on(port: u16) -> Self {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
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
