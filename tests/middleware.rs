//! The call pipeline through the real dispatcher, in process: which requests pass the layers,
//! in what order, what a layer sees and what it may do (answer itself, change arguments and
//! results, filter lists, panic), a tool's own layers, and 2026-07-28 input rounds.

use std::sync::{Arc, Mutex};

use mcp_runtime::handler::{ToolBuilder, layered};
use mcp_runtime::middleware::{self, BoxError, Method, Next, Request, Response};
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{
    CallToolResult, Elicitation, RequestContext, Server, ServerInfo, Tools, mcp_prompt,
    mcp_resource, mcp_tool, prompts, resources, tools,
};
use serde_json::{Value, json};

/// Add two numbers.
///
/// # Arguments
/// * `a` - the first
/// * `b` - the second
#[mcp_tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Fails the way a broken tool does.
#[mcp_tool]
async fn explode() -> String {
    panic!("the tool blew up")
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// Asks before it answers.
#[mcp_tool]
async fn careful(ctx: RequestContext) -> String {
    match ctx.elicit::<Confirm>("Sure?").await {
        Ok(Elicitation::Accepted(Confirm { confirm })) => format!("confirmed: {confirm}"),
        Ok(_) => "not confirmed".to_owned(),
        Err(error) => format!("cannot ask: {error}"),
    }
}

/// A tool with layers of its own.
#[mcp_tool(layer = middleware::from_fn(tag("own-outer")), layer = middleware::from_fn(tag("own-inner")))]
async fn tagged() -> &'static str {
    "tagged"
}

/// A memo.
#[mcp_resource("memo://today", mime_type = "text/plain")]
async fn memo() -> &'static str {
    "buy milk"
}

/// A note by number.
#[mcp_resource("note://{id}", mime_type = "text/plain")]
async fn note(id: u32) -> String {
    format!("note {id}")
}

/// Greet someone.
///
/// # Arguments
/// * `name` - whom to greet
#[mcp_prompt(complete(name = names))]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

fn names(prefix: &str) -> Vec<String> {
    ["ada", "alan"]
        .iter()
        .filter(|name| name.starts_with(prefix))
        .map(|name| (*name).to_owned())
        .collect()
}

/// What layers saw, in order.
type Log = Arc<Mutex<Vec<String>>>;

/// Where [`tag`] layers note what they see. Only one test reads it: tests run in parallel.
static TAGS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// A layer that notes `label` in [`TAGS`] on the way in and out.
fn tag(label: &'static str) -> impl Fn(Request, Next) -> Answer + Clone + Send + Sync + 'static {
    move |request: Request, next: Next| -> Answer {
        Box::pin(async move {
            TAGS.lock().unwrap().push(format!("{label}>"));
            let response = next.run(request).await;
            TAGS.lock().unwrap().push(format!("<{label}"));
            response
        })
    }
}

type Answer = mcp_runtime::handler::BoxFuture<'static, Result<Response, BoxError>>;

/// A layer noting `label`, the method and the name of every request in `log`.
fn recording(
    log: &Log,
    label: &'static str,
) -> middleware::FromFnLayer<impl Fn(Request, Next) -> Answer + Clone + Send + Sync + 'static> {
    let log = log.clone();
    middleware::from_fn(move |request: Request, next: Next| -> Answer {
        let log = log.clone();
        Box::pin(async move {
            let seen = format!(
                "{label} {} {}",
                request.method(),
                request.name().unwrap_or("-")
            );
            log.lock().unwrap().push(format!("{seen} >"));
            let response = next.run(request).await;
            log.lock().unwrap().push(format!("{seen} <"));
            response
        })
    })
}

fn offerings() -> Server {
    Server::new(ServerInfo::new("layered", "1.0"))
        .tools(tools![add, explode, careful, tagged])
        .resources(resources![memo, note])
        .prompts(prompts![greet])
}

fn taken(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap())
}

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::V2025_06_18, ProtocolVersion::V2026_07_28];

#[tokio::test]
async fn every_handled_method_passes_the_layers_in_order_in_both_eras() {
    for revision in ERAS {
        let log = Log::default();
        // Added first, so inside: the layer added last sees a request first.
        let server = offerings()
            .layer(recording(&log, "inner"))
            .layer(recording(&log, "outer"));
        let client = TestClient::at(server, revision);

        let sum = client
            .call_tool("add", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert_eq!(sum.text(), "5");
        assert_eq!(
            taken(&log),
            [
                "outer tools/call add >",
                "inner tools/call add >",
                "inner tools/call add <",
                "outer tools/call add <",
            ],
            "{revision}"
        );

        client.read_resource("memo://today").await.unwrap();
        client
            .get_prompt("greet", json!({"name": "Ada"}))
            .await
            .unwrap();
        client.list_tools().await.unwrap();
        client.list_resources().await.unwrap();
        client.list_resource_templates().await.unwrap();
        client.list_prompts().await.unwrap();
        let completed = client
            .request(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "greet"},
                       "argument": {"name": "name", "value": "a"}}),
            )
            .await
            .unwrap();
        assert_eq!(completed["completion"]["values"], json!(["ada", "alan"]));
        let outer: Vec<String> = taken(&log)
            .into_iter()
            .filter(|line| line.starts_with("outer") && line.ends_with('>'))
            .collect();
        assert_eq!(
            outer,
            [
                "outer resources/read memo://today >",
                "outer prompts/get greet >",
                "outer tools/list - >",
                "outer resources/list - >",
                "outer resources/templates/list - >",
                "outer prompts/list - >",
                "outer completion/complete greet >",
            ],
            "{revision}"
        );
    }
}

#[tokio::test]
async fn a_layer_sees_the_caller_and_the_request() {
    let seen = Arc::new(Mutex::new(Vec::<Value>::new()));
    let notes = seen.clone();
    let server = offerings().layer(middleware::from_fn(move |request: Request, next: Next| {
        let notes = notes.clone();
        async move {
            let caller = request.caller();
            notes.lock().unwrap().push(json!({
                "method": request.method().as_str(),
                "tool": request.tool_name(),
                "arguments": request.arguments(),
                "id": request.id().to_string(),
                "client": caller.client_name(),
                "revision": caller.revision().as_str(),
                "principal": caller.principal().map(|who| who.as_str()),
                "connection": caller.connection().is_some(),
                "key": caller.key().to_string().starts_with("connection"),
                "read_only": request.annotations().map(|hints| hints.read_only),
                "retry": request.is_retry(),
            }));
            next.run(request).await
        }
    }));
    for revision in ERAS {
        let client = TestClient::at(server.clone(), revision);
        client
            .call_tool("add", json!({"a": 1, "b": 1}))
            .await
            .unwrap();
        let seen = std::mem::take(&mut *seen.lock().unwrap());
        assert_eq!(seen.len(), 1);
        let seen = &seen[0];
        assert_eq!(seen["method"], "tools/call");
        assert_eq!(seen["tool"], "add");
        assert_eq!(seen["arguments"], json!({"a": 1, "b": 1}));
        assert_eq!(seen["client"], "mcp-runtime-testing", "{revision}: {seen}");
        assert_eq!(seen["revision"], revision.as_str());
        assert_eq!(seen["principal"], Value::Null);
        assert_eq!(
            seen["connection"], true,
            "an in-process client is one connection"
        );
        assert_eq!(
            seen["key"], true,
            "without a principal, limits count per connection"
        );
        assert_eq!(seen["read_only"], Value::Null, "`add` has no hints");
        assert_eq!(seen["retry"], false);
        assert!(!seen["id"].as_str().unwrap().is_empty());
    }
}

#[tokio::test]
async fn a_layer_answers_itself_with_a_tool_error_or_a_json_rpc_error() {
    let server = offerings().layer(middleware::from_fn(
        |request: Request, next: Next| async move {
            match request.tool_name() {
                Some("add") => Ok(Response::Tool(CallToolResult::error(
                    "adding is switched off",
                ))),
                Some("tagged") => Err(middleware::Error::new(-32001, "tagged is refused").into()),
                _ if request.method() == Method::ReadResource => {
                    Err(BoxError::from("reads are closed for today"))
                }
                _ => next.run(request).await,
            }
        },
    ));
    for revision in ERAS {
        let client = TestClient::at(server.clone(), revision);
        let refused = client
            .call_tool("add", json!({"a": 1, "b": 2}))
            .await
            .unwrap();
        assert!(refused.is_error());
        assert_eq!(refused.text(), "adding is switched off");

        let error = client.call_tool("tagged", json!({})).await.unwrap_err();
        assert_eq!(
            (error.code, error.message.as_str()),
            (-32001, "tagged is refused")
        );

        // Any other error: a tool call would get an error result, a read an internal error.
        let error = client.read_resource("memo://today").await.unwrap_err();
        assert_eq!(error.code, -32603);
        assert_eq!(error.message, "reads are closed for today");
        // The server keeps serving the rest.
        let greeting = client
            .get_prompt("greet", json!({"name": "Ada"}))
            .await
            .unwrap();
        assert_eq!(greeting.text(), "Hello, Ada!");
    }
}

#[tokio::test]
async fn a_layer_changes_the_arguments_and_the_result() {
    let server = offerings().layer(middleware::from_fn(
        |mut request: Request, next: Next| async move {
            if let Some(arguments) = request.arguments_mut() {
                if arguments.contains_key("b") {
                    arguments.insert("b".to_owned(), json!(100));
                }
                if arguments.contains_key("name") {
                    arguments.insert("name".to_owned(), json!("Grace"));
                }
            }
            let mut response = next.run(request).await?;
            if let Response::Tool(result) = &mut response {
                result.content.push(mcp_runtime::Content::text("(checked)"));
            }
            Ok(response)
        },
    ));
    for revision in ERAS {
        let client = TestClient::at(server.clone(), revision);
        let sum = client
            .call_tool("add", json!({"a": 1, "b": 2}))
            .await
            .unwrap();
        let texts: Vec<&Value> = sum.content().iter().map(|block| &block["text"]).collect();
        assert_eq!(texts, [&json!("101"), &json!("(checked)")], "{revision}");
        let greeting = client
            .get_prompt("greet", json!({"name": "Ada"}))
            .await
            .unwrap();
        assert_eq!(greeting.text(), "Hello, Grace!");
    }
}

#[tokio::test]
async fn a_panicking_layer_is_answered_like_a_panicking_tool() {
    let server = offerings().layer(middleware::from_fn(
        |request: Request, next: Next| async move {
            if request.tool_name() == Some("add") {
                panic!("the layer blew up");
            }
            if request.method() == Method::ListPrompts {
                panic!("the list layer blew up");
            }
            next.run(request).await
        },
    ));
    for revision in ERAS {
        let client = TestClient::at(server.clone(), revision);
        let failed = client
            .call_tool("add", json!({"a": 1, "b": 2}))
            .await
            .unwrap();
        assert!(failed.is_error());
        assert!(
            failed.text().contains("failed unexpectedly"),
            "{}",
            failed.text()
        );
        let failed = client.call_tool("explode", json!({})).await.unwrap();
        assert!(
            failed.is_error(),
            "a tool's own panic passes the layer as its result"
        );
        let error = client.list_prompts().await.unwrap_err();
        assert_eq!(error.code, -32603);
        // Each request got its answer; the next ones are served.
        let greeting = client
            .get_prompt("greet", json!({"name": "Ada"}))
            .await
            .unwrap();
        assert_eq!(greeting.text(), "Hello, Ada!");
    }
}

#[tokio::test]
async fn a_list_filtered_by_a_layer_is_paged_after_it() {
    let server = offerings().page_size(2).layer(middleware::from_fn(
        |request: Request, next: Next| async move {
            let mut response = next.run(request).await?;
            if let Response::Tools(tools) = &mut response {
                tools.retain(|tool| tool.name != "explode");
            }
            Ok(response)
        },
    ));
    for revision in ERAS {
        let client = TestClient::at(server.clone(), revision);
        let first = client.request("tools/list", json!({})).await.unwrap();
        let names = |page: &Value| -> Vec<String> {
            page["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|tool| tool["name"].as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(names(&first), ["add", "careful"], "{revision}");
        let cursor = first["nextCursor"]
            .as_str()
            .expect("a second page")
            .to_owned();
        let second = client
            .request("tools/list", json!({"cursor": cursor}))
            .await
            .unwrap();
        assert_eq!(names(&second), ["tagged"]);
        assert!(second.get("nextCursor").is_none());
    }
}

#[tokio::test]
async fn a_tools_own_layers_run_inside_the_servers_first_written_outermost() {
    let server = offerings().layer(middleware::from_fn(tag("server")));
    TAGS.lock().unwrap().clear();
    let client = TestClient::new(server);
    assert_eq!(
        client.call_tool("tagged", json!({})).await.unwrap().text(),
        "tagged"
    );
    assert_eq!(
        std::mem::take(&mut *TAGS.lock().unwrap()),
        [
            "server>",
            "own-outer>",
            "own-inner>",
            "<own-inner",
            "<own-outer",
            "<server"
        ]
    );
    // Other tools pass the server's layer alone.
    client
        .call_tool("add", json!({"a": 1, "b": 1}))
        .await
        .unwrap();
    assert_eq!(
        std::mem::take(&mut *TAGS.lock().unwrap()),
        ["server>", "<server"]
    );
}

#[tokio::test]
async fn builder_tools_and_layered_handlers_have_their_own_layers_without_server_layers() {
    let log = Log::default();
    let built = ToolBuilder::new("built")
        .layer(recording(&log, "first"))
        .layer(recording(&log, "second"))
        .handler(|_, _| async { "built" });
    let wrapped = layered(
        ToolBuilder::new("wrapped").handler(|_, _| async { "wrapped" }),
        recording(&log, "wrapper"),
    );
    let server =
        Server::new(ServerInfo::new("own", "1")).tools(Tools::new().with(built).with(wrapped));
    let client = TestClient::new(server);
    assert_eq!(
        client.call_tool("built", json!({})).await.unwrap().text(),
        "built"
    );
    assert_eq!(
        taken(&log),
        [
            "first tools/call built >",
            "second tools/call built >",
            "second tools/call built <",
            "first tools/call built <",
        ]
    );
    assert_eq!(
        client.call_tool("wrapped", json!({})).await.unwrap().text(),
        "wrapped"
    );
    assert_eq!(
        taken(&log),
        [
            "wrapper tools/call wrapped >",
            "wrapper tools/call wrapped <"
        ]
    );
    // Lists pass no tool's layers.
    client.list_tools().await.unwrap();
    assert!(taken(&log).is_empty());
}

#[tokio::test]
async fn a_layer_tells_a_retry_with_answers_from_the_first_round() {
    let seen = Arc::new(Mutex::new(Vec::<(bool, &'static str)>::new()));
    let notes = seen.clone();
    let server = offerings().layer(middleware::from_fn(move |request: Request, next: Next| {
        let notes = notes.clone();
        async move {
            let retry = request.is_retry();
            let response = next.run(request).await;
            let outcome = match &response {
                Ok(Response::InputRequired) => "input required",
                Ok(Response::Tool(_)) => "result",
                _ => "other",
            };
            notes.lock().unwrap().push((retry, outcome));
            response
        }
    }));
    let client = TestClient::new(server);
    let asks = json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let first = client
        .request(
            "tools/call",
            json!({"name": "careful", "arguments": {}, "_meta": asks}),
        )
        .await
        .unwrap();
    assert_eq!(first["resultType"], "input_required", "{first}");
    let second = client
        .request(
            "tools/call",
            json!({
                "name": "careful",
                "arguments": {},
                "_meta": asks,
                "requestState": first["requestState"],
                "inputResponses": {"q0": {"action": "accept", "content": {"confirm": true}}},
            }),
        )
        .await
        .unwrap();
    assert_eq!(second["content"][0]["text"], "confirmed: true", "{second}");
    assert_eq!(
        *seen.lock().unwrap(),
        [(false, "input required"), (true, "result")]
    );
}

#[tokio::test]
async fn requests_refused_before_a_handler_still_pass_the_layers() {
    let log = Log::default();
    let client = TestClient::new(offerings().layer(recording(&log, "audit")));
    let unknown = client.call_tool("nope", json!({})).await.unwrap_err();
    assert_eq!(unknown.code, -32602);
    assert!(
        unknown.message.contains("unknown tool `nope`"),
        "{}",
        unknown.message
    );
    let missing = client.read_resource("memo://nothing").await.unwrap_err();
    assert_eq!(
        missing.code, -32602,
        "2026-07-28 says resource-not-found as invalid params"
    );
    let prompt = client.get_prompt("nope", json!({})).await.unwrap_err();
    assert_eq!(prompt.code, -32602);
    assert_eq!(
        taken(&log),
        [
            "audit tools/call nope >",
            "audit tools/call nope <",
            "audit resources/read memo://nothing >",
            "audit resources/read memo://nothing <",
            "audit prompts/get nope >",
            "audit prompts/get nope <",
        ]
    );
}

/// Waits until the test lets it go; tells the test it started.
#[mcp_tool]
async fn hold() -> &'static str {
    HOLDING.notify_one();
    RELEASE.notified().await;
    "released"
}

static HOLDING: tokio::sync::Notify = tokio::sync::Notify::const_new();
static RELEASE: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Never finishes by itself; says when its future is dropped, and whether its token had
/// fired by then.
#[mcp_tool]
async fn stall(ctx: RequestContext) -> String {
    struct Dropped(RequestContext);
    impl Drop for Dropped {
        fn drop(&mut self) {
            let fired = self.0.cancellation.is_cancelled();
            STALLS_DROPPED.lock().unwrap().push(fired);
        }
    }
    let _dropped = Dropped(ctx);
    std::future::pending::<()>().await;
    unreachable!()
}

static STALLS_DROPPED: Mutex<Vec<bool>> = Mutex::new(Vec::new());

/// `bytes` bytes of text.
///
/// # Arguments
/// * `bytes` - how many
#[mcp_tool]
async fn text_of_size(bytes: usize) -> String {
    "y".repeat(bytes)
}

/// Counts its runs (read-only and idempotent, so a cache may answer for it).
///
/// # Arguments
/// * `key` - what to look up
#[mcp_tool(annotations(read_only, idempotent))]
async fn counted(key: String) -> String {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    format!(
        "{key}#{}",
        RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1
    )
}

/// Lines an audit log writes, shared with the test.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shipped_layers_through_the_in_process_client_in_both_eras() {
    use std::time::Duration;

    use mcp_runtime::middleware::{
        AuditLogLayer, CacheLayer, ConcurrencyLimitLayer, MaxOutputLayer, Quota, RateLimitLayer,
        TimeoutLayer,
    };

    for (run, revision) in ERAS.into_iter().enumerate() {
        let lines = Lines::default();
        let server = Server::new(ServerInfo::new("shipped", "1"))
            .tools(tools![add, hold, stall, text_of_size, counted])
            .layer(CacheLayer::new(Duration::from_secs(3600)))
            .layer(MaxOutputLayer::new(300))
            .layer(
                TimeoutLayer::new(Duration::from_secs(60)).tool("stall", Duration::from_millis(50)),
            )
            .layer(ConcurrencyLimitLayer::new(1).queue(0).per_tool())
            .layer(RateLimitLayer::new(Quota::per_hour(
                std::num::NonZeroU32::new(3).unwrap(),
            )))
            .layer(AuditLogLayer::to_writer(lines.clone()));
        let client = TestClient::at(server, revision);

        // Rate limit: three calls of `add` an hour for this connection.
        for _ in 0..3 {
            assert!(
                !client
                    .call_tool("add", json!({"a": 1, "b": 1}))
                    .await
                    .unwrap()
                    .is_error()
            );
        }
        let limited = client
            .call_tool("add", json!({"a": 1, "b": 1}))
            .await
            .unwrap();
        assert!(
            limited.is_error() && limited.text().contains("retry in"),
            "{}",
            limited.text()
        );

        // Timeout: the handler is dropped, its token fired first.
        let stopped = client.call_tool("stall", json!({})).await.unwrap();
        assert!(stopped.is_error(), "{revision}");
        assert!(
            stopped.text().contains("did not finish within 0.05 s"),
            "{}",
            stopped.text()
        );
        assert_eq!(*STALLS_DROPPED.lock().unwrap(), vec![true; run + 1]);

        // Output cap: truncated, with a note.
        let cut = client
            .call_tool("text_of_size", json!({"bytes": 500}))
            .await
            .unwrap();
        assert!(!cut.is_error());
        assert!(cut.text().starts_with(&"y".repeat(150)) && cut.text().contains("truncated"));
        let sent: usize = cut
            .content()
            .iter()
            .map(|block| block["text"].as_str().unwrap().len())
            .sum();
        assert!(sent <= 300, "the note counts toward the cap: {sent}");

        // Cache: the second lookup is the first's result.
        let first = client
            .call_tool("counted", json!({"key": "k"}))
            .await
            .unwrap()
            .text();
        let again = client
            .call_tool("counted", json!({"key": "k"}))
            .await
            .unwrap()
            .text();
        assert_eq!(first, again);

        // Concurrency: one `hold` at a time, none waiting.
        let holding = client.call_tool("hold", json!({}));
        let busy = async {
            HOLDING.notified().await;
            let busy = client.call_tool("hold", json!({})).await.unwrap();
            RELEASE.notify_one();
            busy
        };
        let (held, busy) = tokio::join!(holding, busy);
        assert_eq!(held.unwrap().text(), "released");
        assert!(
            busy.is_error() && busy.text().contains("busy"),
            "{}",
            busy.text()
        );

        // Every request has its line once the log is dropped with the server.
        drop(client);
        let text = String::from_utf8(std::mem::take(&mut *lines.0.lock().unwrap())).unwrap();
        let outcomes: Vec<(String, String)> = text
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .filter(|line| line["method"] == "tools/call")
            .map(|line| {
                let name = line["name"].as_str().unwrap().to_owned();
                (name, line["outcome"].as_str().unwrap().to_owned())
            })
            .collect();
        let expected = [
            ("add", "ok"),
            ("add", "ok"),
            ("add", "ok"),
            ("add", "tool_error"),
            ("stall", "timed_out"),
            ("text_of_size", "ok"),
            ("counted", "ok"),
            ("counted", "ok"),
            ("hold", "tool_error"),
            ("hold", "ok"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(name, outcome)| ((*name).to_owned(), (*outcome).to_owned()))
            .collect();
        assert_eq!(outcomes, expected, "{revision}:\n{text}");
    }
}

/// Becomes a task at once, then waits for the test before it answers.
#[mcp_tool(task)]
async fn chore(ctx: RequestContext) -> &'static str {
    ctx.start_task().await;
    CHORE_GO.notified().await;
    "chore done"
}

static CHORE_GO: tokio::sync::Notify = tokio::sync::Notify::const_new();

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_becomes_a_task_runs_on_inside_the_layers() {
    let seen = Arc::new(Mutex::new(Vec::<(bool, String)>::new()));
    let notes = seen.clone();
    let layer = middleware::from_fn(move |request: Request, next: Next| {
        let notes = notes.clone();
        async move {
            let task = request.may_become_task();
            let is_chore = request.tool_name() == Some("chore");
            let response = next.run(request).await;
            if is_chore {
                let text = match &response {
                    Ok(Response::Tool(result)) => format!("{:?}", result.content),
                    other => format!("{other:?}"),
                };
                notes.lock().unwrap().push((task, text));
            }
            response
        }
    });
    let client = TestClient::new(
        Server::new(ServerInfo::new("tasks", "1"))
            .tools(tools![chore])
            .layer(layer),
    );
    let with_tasks = json!({"io.modelcontextprotocol/clientCapabilities":
        {"extensions": {"io.modelcontextprotocol/tasks": {}}}});
    let created = client
        .request(
            "tools/call",
            json!({"name": "chore", "arguments": {}, "_meta": with_tasks}),
        )
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    let task_id = created["taskId"].as_str().unwrap().to_owned();
    // The call is a task now; its layer has seen no outcome yet.
    assert!(seen.lock().unwrap().is_empty());
    CHORE_GO.notify_one();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let task = client
            .request("tasks/get", json!({"taskId": task_id, "_meta": with_tasks}))
            .await
            .unwrap();
        if task["status"] == "completed" {
            assert_eq!(task["result"]["content"][0]["text"], "chore done", "{task}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{task}");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    // The layer saw the task's end, and knew the call might become one.
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen[0].0);
    assert!(seen[0].1.contains("chore done"), "{seen:?}");
}
