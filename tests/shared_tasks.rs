//! What the dispatcher does with a shared [`TaskStore`], in process: two servers ("A" and "B")
//! share one store written here against the public trait, as a user would write one for
//! another database (`tests/shared_state/` does the same with Redis and real processes). The
//! store can be made to fail for one instance, which shows what each side does when the store
//! does not answer or when an instance loses its lease.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_runtime::handler::BoxFuture;
use mcp_runtime::store::{
    LoadedTask, STORE_UNAVAILABLE, SignalHandler, StoreError, StoredTask, TaskSignal, TaskStore,
};
use mcp_runtime::testing::TestClient;
use mcp_runtime::{RequestContext, Server, State, mcp_tool, server_info, tools};
use serde_json::{Value, json};
use tokio::sync::Notify;

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A task and its lease: the instance holding it, until when.
type Entry = (StoredTask, Option<(String, Instant)>);

#[derive(Default)]
struct Shared {
    tasks: Mutex<HashMap<String, Entry>>,
    listeners: Mutex<HashMap<String, SignalHandler>>,
}

/// One instance's handle on the shared store; `failing` makes its every operation fail.
#[derive(Clone)]
struct Store {
    shared: Arc<Shared>,
    instance: String,
    failing: Arc<AtomicBool>,
}

impl Store {
    fn pair() -> (Store, Store) {
        let shared = Arc::new(Shared::default());
        let of = |instance: &str| Store {
            shared: shared.clone(),
            instance: instance.to_owned(),
            failing: Arc::default(),
        };
        (of("A"), of("B"))
    }

    fn check(&self) -> Result<(), StoreError> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(StoreError::new("the test's store is down"));
        }
        Ok(())
    }

    fn write(&self, task: &StoredTask, lease: Duration) -> Result<bool, StoreError> {
        self.check()?;
        let mut tasks = self.shared.tasks.lock().unwrap();
        if tasks
            .get(task.id())
            .is_some_and(|(stored, _)| stored.has_ended())
        {
            return Ok(false);
        }
        let holder = (!task.has_ended()).then(|| (self.instance.clone(), Instant::now() + lease));
        tasks.insert(task.id().to_owned(), (task.clone(), holder));
        Ok(true)
    }
}

impl TaskStore for Store {
    fn create<'a>(
        &'a self,
        task: &'a StoredTask,
        lease: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move { self.write(task, lease).map(drop) })
    }

    fn update<'a>(
        &'a self,
        task: &'a StoredTask,
        lease: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move { self.write(task, lease) })
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<LoadedTask>, StoreError>> {
        Box::pin(async move {
            self.check()?;
            let tasks = self.shared.tasks.lock().unwrap();
            Ok(tasks.get(id).map(|(task, holder)| LoadedTask {
                task: task.clone(),
                holder: holder
                    .as_ref()
                    .filter(|(_, until)| *until > Instant::now())
                    .map(|(holder, _)| holder.clone()),
            }))
        })
    }

    fn signal<'a>(
        &'a self,
        holder: &'a str,
        id: &'a str,
        signal: TaskSignal,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            self.check()?;
            let listeners = self.shared.listeners.lock().unwrap();
            let Some(deliver) = listeners.get(holder) else {
                return Ok(false);
            };
            deliver(id, signal);
            Ok(true)
        })
    }

    fn on_signal(&self, deliver: SignalHandler) {
        self.shared
            .listeners
            .lock()
            .unwrap()
            .insert(self.instance.clone(), deliver);
    }
}

/// Lets a test end its server's `wait` calls when it chooses, and tells when one of them saw
/// its cancellation.
#[derive(Default)]
struct Gate(Notify, Notify);

/// Waits until the test opens the gate, or the call is cancelled.
#[mcp_tool(task)]
async fn wait(ctx: RequestContext, gate: State<Arc<Gate>>) -> String {
    tokio::select! {
        () = gate.0.notified() => "opened".to_owned(),
        () = ctx.cancellation.cancelled() => {
            gate.1.notify_one();
            "cancelled".to_owned()
        }
    }
}

fn server(store: &Store, gate: &Arc<Gate>) -> Server {
    Server::new(server_info!())
        .tools(tools![wait])
        .with_state(gate.clone())
        .task_store(store.clone())
        .task_lease(Duration::from_millis(60))
}

fn with_tasks(params: Value) -> Value {
    let mut params = params;
    params["_meta"] =
        json!({"io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}}});
    params
}

async fn start(client: &TestClient) -> String {
    let created = client
        .request(
            "tools/call",
            with_tasks(json!({"name": "wait", "arguments": {}})),
        )
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    created["taskId"].as_str().unwrap().to_owned()
}

async fn get(client: &TestClient, task_id: &str) -> Result<Value, mcp_runtime::testing::RpcError> {
    client
        .request("tasks/get", with_tasks(json!({"taskId": task_id})))
        .await
}

/// Reads the task on `client` until `status` (as a client polls), returning it.
async fn until(client: &TestClient, task_id: &str, status: &str) -> Value {
    loop {
        let task = get(client, task_id).await.unwrap();
        if task["status"] == status {
            return task;
        }
        assert!(task["status"] == "working", "expected {status}, got {task}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_instance_reads_cancels_and_sees_the_end_of_a_task() {
    let (store_a, store_b) = Store::pair();
    let gate = Arc::new(Gate::default());
    let (a, b) = (
        TestClient::new(server(&store_a, &gate)),
        TestClient::new(server(&store_b, &gate)),
    );
    let task_id = start(&a).await;
    let seen = get(&b, &task_id).await.unwrap();
    assert_eq!(seen["status"], "working", "{seen}");
    assert_eq!(seen["taskId"], task_id.as_str());
    assert_eq!(seen["resultType"], "complete");

    // Cancelled through B: recorded at once, and A's handler is told.
    b.request("tasks/cancel", with_tasks(json!({"taskId": task_id})))
        .await
        .unwrap();
    assert_eq!(get(&b, &task_id).await.unwrap()["status"], "cancelled");
    assert_eq!(
        until(&a, &task_id, "cancelled").await["status"],
        "cancelled"
    );

    // Another task, opened: its result is read on B once A wrote it.
    let task_id = start(&a).await;
    gate.0.notify_waiters();
    let done = until(&b, &task_id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "opened", "{done}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_instance_stops_renewing_fails_and_its_handler_stops() {
    let (store_a, store_b) = Store::pair();
    let gate = Arc::new(Gate::default());
    let (a, b) = (
        TestClient::new(server(&store_a, &gate)),
        TestClient::new(server(&store_b, &gate)),
    );
    let task_id = start(&a).await;
    // A can no longer reach the store: its lease runs out, and B reports the task lost.
    store_a.failing.store(true, Ordering::SeqCst);
    let failed = until(&b, &task_id, "failed").await;
    assert!(
        failed["statusMessage"].as_str().unwrap().contains("lease"),
        "{failed}"
    );
    assert_eq!(failed["error"]["code"], -32603);
    // A reaches the store again, finds the task ended there, stops its handler, and from then
    // on answers for the task from the store, as B does.
    store_a.failing.store(false, Ordering::SeqCst);
    tokio::time::timeout(Duration::from_secs(60), gate.1.notified())
        .await
        .expect("the handler on A never saw its task end");
    until(&a, &task_id, "failed").await;
    assert_eq!(get(&b, &task_id).await.unwrap()["status"], "failed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_store_requests_that_need_it_get_its_error_and_calls_run_in_place() {
    let (store_a, store_b) = Store::pair();
    let gate = Arc::new(Gate::default());
    let (a, b) = (
        TestClient::new(server(&store_a, &gate)),
        TestClient::new(server(&store_b, &gate)),
    );
    let task_id = start(&a).await;
    store_b.failing.store(true, Ordering::SeqCst);
    let error = get(&b, &task_id).await.unwrap_err();
    assert_eq!(error.code, i64::from(STORE_UNAVAILABLE), "{error:?}");
    assert!(error.message.contains("store is down"), "{error:?}");
    // A answers for the task it runs from memory.
    assert_eq!(get(&a, &task_id).await.unwrap()["status"], "working");

    // B cannot store a new task: the call runs in place and answers when it ends.
    let in_place = tokio::spawn(async move {
        b.request(
            "tools/call",
            with_tasks(json!({"name": "wait", "arguments": {}})),
        )
        .await
        .unwrap()
    });
    // Opened until the call in place has its answer (the gate wakes whoever waits now).
    while !in_place.is_finished() {
        gate.0.notify_waiters();
        tokio::task::yield_now().await;
    }
    let answered = in_place.await.unwrap();
    assert_eq!(answered["content"][0]["text"], "opened", "{answered}");
    assert_ne!(answered["resultType"], "task");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_for_an_instance_that_does_not_listen_are_refused() {
    let (store_a, store_b) = Store::pair();
    let gate = Arc::new(Gate::default());
    let (a, b) = (
        TestClient::new(server(&store_a, &gate)),
        TestClient::new(server(&store_b, &gate)),
    );
    let task_id = start(&a).await;
    // A stops listening (its subscription is down) while it still holds the lease.
    store_a.shared.listeners.lock().unwrap().remove("A");
    let error = b
        .request(
            "tasks/update",
            with_tasks(json!({"taskId": task_id, "inputResponses": {"q": {}}})),
        )
        .await
        .unwrap_err();
    assert_eq!(error.code, i64::from(STORE_UNAVAILABLE), "{error:?}");
    assert!(error.message.contains("does not listen"), "{error:?}");
    // Another principal's task, or one that never was, is unknown as ever.
    let unknown = get(&b, "no-such-task").await.unwrap_err();
    assert_eq!(unknown.code, -32602);
}
