//! `#[mcp_server]` on an existing type's `impl` block: its marked methods served with `&self`
//! as their state, driven in process through the real dispatcher.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use mcp_runtime::testing::TestClient;
use mcp_runtime::{
    RequestContext, Server, ServerInfo, State, handler::McpService, mcp_prompt, mcp_resource,
    mcp_server, mcp_tool, tools,
};
use serde_json::json;

/// A notebook service as a user might already have it.
struct Notebook {
    notes: Mutex<Vec<String>>,
    searches: AtomicU64,
}

/// Settings given with `Server::with_state`, to show `State<T>` still works in methods.
struct Prefix(&'static str);

#[mcp_server]
impl Notebook {
    fn new(notes: &[&str]) -> Self {
        Notebook {
            notes: Mutex::new(notes.iter().map(|note| (*note).to_owned()).collect()),
            searches: AtomicU64::new(0),
        }
    }

    /// Not served: a plain helper the methods share.
    fn matching(&self, query: &str) -> Vec<String> {
        let notes = self.notes.lock().unwrap();
        notes
            .iter()
            .filter(|note| note.contains(query))
            .cloned()
            .collect()
    }

    /// Find the notes containing some text.
    ///
    /// # Arguments
    /// * `query` - the text to look for
    /// * `limit` - at most this many notes
    #[mcp_tool(annotations(read_only))]
    async fn search(
        &self,
        query: String,
        #[arg(default = 10)] limit: usize,
        ctx: RequestContext,
    ) -> String {
        let _ = ctx;
        self.searches.fetch_add(1, Ordering::Relaxed);
        let found: Vec<String> = self.matching(&query).into_iter().take(limit).collect();
        found.join("\n")
    }

    /// Add a note; runs on the blocking pool, being a plain fn.
    #[mcp_tool(name = "add_note")]
    fn add(&self, text: String, prefix: State<Prefix>) -> usize {
        let mut notes = self.notes.lock().unwrap();
        notes.push(format!("{}{text}", prefix.0));
        notes.len()
    }

    /// How many searches ran.
    #[mcp_tool]
    async fn searches(&self) -> u64 {
        self.searches.load(Ordering::Relaxed)
    }

    /// The server's version: an associated function, no state needed.
    #[mcp_tool]
    fn version() -> &'static str {
        "1.0"
    }

    /// A note by its number.
    #[mcp_resource("notes://{id}", mime_type = "text/plain")]
    async fn note(&self, id: usize) -> Result<String, String> {
        let notes = self.notes.lock().unwrap();
        notes
            .get(id)
            .cloned()
            .ok_or_else(|| format!("there is no note {id}"))
    }

    /// Review a note.
    ///
    /// # Arguments
    /// * `id` - the note's number
    #[mcp_prompt]
    fn review(&self, id: usize) -> Result<String, String> {
        let notes = self.notes.lock().unwrap();
        let note = notes
            .get(id)
            .ok_or_else(|| format!("there is no note {id}"))?;
        Ok(format!("Review this note: {note}"))
    }
}

/// A free tool beside the service's.
#[mcp_tool]
async fn ping() -> &'static str {
    "pong"
}

fn notebook() -> Arc<Notebook> {
    Arc::new(Notebook::new(&["buy milk", "call mum", "milk the cow"]))
}

fn server(notebook: Arc<Notebook>) -> Server {
    Server::new(ServerInfo::new("notebook", "1.0"))
        .with_state(Prefix("- "))
        .tools(tools![ping])
        .service(notebook)
}

#[tokio::test]
async fn tools_use_the_service_value() {
    let notebook = notebook();
    let client = TestClient::new(server(notebook.clone()));

    let found = client
        .call_tool("search", json!({"query": "milk"}))
        .await
        .unwrap();
    assert!(!found.is_error(), "{}", found.text());
    assert_eq!(found.text(), "buy milk\nmilk the cow");
    let limited = client
        .call_tool("search", json!({"query": "milk", "limit": 1}))
        .await
        .unwrap();
    assert_eq!(limited.text(), "buy milk");

    // The state is the value given: the test's handle sees the calls, and a tool sees it too.
    assert_eq!(notebook.searches.load(Ordering::Relaxed), 2);
    let searches = client.call_tool("searches", json!({})).await.unwrap();
    assert_eq!(searches.text(), "2");

    let added = client
        .call_tool("add_note", json!({"text": "water plants"}))
        .await
        .unwrap();
    assert!(!added.is_error(), "{}", added.text());
    assert_eq!(added.text(), "4");
    assert_eq!(notebook.notes.lock().unwrap()[3], "- water plants");

    assert_eq!(
        client.call_tool("version", json!({})).await.unwrap().text(),
        "1.0"
    );
    assert_eq!(
        client.call_tool("ping", json!({})).await.unwrap().text(),
        "pong"
    );

    let missing = client.call_tool("search", json!({})).await.unwrap();
    assert!(missing.is_error());
    assert!(missing.text().contains("`query`"), "{}", missing.text());
}

#[tokio::test]
async fn resources_and_prompts_use_the_service_value() {
    let notebook = notebook();
    let client = TestClient::new(server(notebook.clone()));
    let read = client.read_resource("notes://1").await.unwrap();
    assert_eq!(read.text(), "call mum");
    assert_eq!(read.contents()[0]["mimeType"], "text/plain");

    notebook.notes.lock().unwrap()[1] = "call dad".to_owned();
    assert_eq!(
        client.read_resource("notes://1").await.unwrap().text(),
        "call dad"
    );
    let absent = client.read_resource("notes://9").await.unwrap_err();
    assert_eq!(absent.data.unwrap()["uri"], "notes://9");

    let prompt = client
        .get_prompt("review", json!({"id": "0"}))
        .await
        .unwrap();
    assert_eq!(prompt.text(), "Review this note: buy milk");
    let absent = client
        .get_prompt("review", json!({"id": "9"}))
        .await
        .unwrap_err();
    assert!(absent.message.contains("there is no note 9"), "{absent}");
}

#[tokio::test]
async fn lists_show_the_methods_with_their_schemas() {
    let client = TestClient::new(server(notebook()));
    let tools = client.list_tools().await.unwrap();
    let names: Vec<&str> = tools
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ping", "search", "add_note", "searches", "version"]);

    let search = &tools[1];
    assert_eq!(
        search["description"],
        "Find the notes containing some text."
    );
    assert_eq!(search["annotations"]["readOnlyHint"], true);
    let schema = &search["inputSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["query"]));
    assert_eq!(schema["properties"]["query"]["type"], "string");
    assert_eq!(
        schema["properties"]["query"]["description"],
        "the text to look for"
    );
    assert_eq!(schema["properties"]["limit"]["default"], 10);
    // Injected values are not arguments.
    let properties: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(properties, ["query", "limit"]);
    assert_eq!(
        tools[2]["inputSchema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["text"]
    );

    let templates = client.list_resource_templates().await.unwrap();
    assert_eq!(templates.len(), 1);
    assert_eq!(templates[0]["uriTemplate"], "notes://{id}");
    assert_eq!(templates[0]["name"], "note");

    let prompts = client.list_prompts().await.unwrap();
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0]["description"], "Review a note.");
    assert_eq!(
        prompts[0]["arguments"],
        json!([{"name": "id", "description": "the note's number", "required": true}])
    );
}

#[test]
fn the_trait_gives_each_set_alone() {
    let notebook = notebook();
    let names = |tools: mcp_runtime::Tools| -> Vec<String> {
        tools
            .handlers()
            .iter()
            .map(|handler| handler.definition().name.into_owned())
            .collect()
    };
    assert_eq!(
        names(notebook.tools()),
        ["search", "add_note", "searches", "version"]
    );
    assert_eq!(notebook.resources().handlers().len(), 1);
    assert_eq!(notebook.prompts().handlers().len(), 1);
    // Each handler of a `&self` method holds a clone of the `Arc` (`version` takes none, but
    // its handler holds one all the same).
    let tools = notebook.tools();
    assert_eq!(Arc::strong_count(&notebook), 1 + tools.handlers().len());
    drop(tools);
    assert_eq!(Arc::strong_count(&notebook), 1);
}
