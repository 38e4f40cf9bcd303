//! A type users already have becomes a server: `#[mcp_server]` on its `impl` block serves the
//! methods marked `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]`, with `&self` as their
//! state. Nothing moves out of the block; the other methods stay as they were.
//!
//! Run it with `cargo run --example service` (stdio), `-- --http 127.0.0.1:8080`, or as a
//! command-line tool: `cargo run -q --example service -- call add_task title="buy milk"`,
//! `-- call search query=milk`, `-- read tasks://1`, `-- prompt plan_day`.

use std::sync::RwLock;

use mcp_runtime::{Json, Server, mcp_prompt, mcp_resource, mcp_server, mcp_tool, server_info};
use schemars::JsonSchema;
use serde::Serialize;

/// One task of the list.
#[derive(Debug, Clone, Serialize, JsonSchema)]
struct Task {
    /// Its number, from 1.
    id: usize,
    title: String,
    done: bool,
}

/// The task list the application already had: its own API, used elsewhere too.
struct TaskList {
    tasks: RwLock<Vec<Task>>,
}

#[mcp_server]
impl TaskList {
    fn new(titles: &[&str]) -> Self {
        let tasks = titles
            .iter()
            .enumerate()
            .map(|(index, title)| Task {
                id: index + 1,
                title: (*title).to_owned(),
                done: false,
            })
            .collect();
        TaskList {
            tasks: RwLock::new(tasks),
        }
    }

    /// Not served: the methods below share it.
    fn find(&self, id: usize) -> Option<Task> {
        let tasks = self
            .tasks
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        tasks.iter().find(|task| task.id == id).cloned()
    }

    /// Add a task to the list and give its number.
    ///
    /// # Arguments
    /// * `title` - what is to be done
    #[mcp_tool(annotations(destructive = false))]
    async fn add_task(&self, title: String) -> usize {
        let mut tasks = self
            .tasks
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let id = tasks.len() + 1;
        tasks.push(Task {
            id,
            title,
            done: false,
        });
        id
    }

    /// Mark a task as done.
    ///
    /// # Arguments
    /// * `id` - the task's number
    #[mcp_tool(annotations(idempotent))]
    async fn complete(&self, id: usize) -> Result<Json<Task>, String> {
        let mut tasks = self
            .tasks
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let task = tasks
            .iter_mut()
            .find(|task| task.id == id)
            .ok_or_else(|| format!("there is no task {id}"))?;
        task.done = true;
        Ok(Json(task.clone()))
    }

    /// The tasks whose title contains some text, one per line.
    ///
    /// # Arguments
    /// * `query` - the text to look for (case-insensitive)
    /// * `include_done` - also list tasks already done
    #[mcp_tool(annotations(read_only))]
    async fn search(&self, query: String, #[arg(default)] include_done: bool) -> String {
        let query = query.to_lowercase();
        let tasks = self
            .tasks
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        tasks
            .iter()
            .filter(|task| include_done || !task.done)
            .filter(|task| task.title.to_lowercase().contains(&query))
            .map(|task| format!("{}. {}", task.id, task.title))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A task, as JSON.
    #[mcp_resource("tasks://{id}", mime_type = "application/json")]
    async fn task(&self, id: usize) -> Result<String, String> {
        let task = self
            .find(id)
            .ok_or_else(|| format!("there is no task {id}"))?;
        serde_json::to_string_pretty(&task).map_err(|error| error.to_string())
    }

    /// Plan the day from the open tasks.
    #[mcp_prompt(title = "Plan the day")]
    fn plan_day(&self) -> String {
        let tasks = self
            .tasks
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let open: Vec<&str> = tasks
            .iter()
            .filter(|task| !task.done)
            .map(|task| task.title.as_str())
            .collect();
        format!(
            "Here are my open tasks: {}. Suggest an order to do them in today.",
            open.join("; ")
        )
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let tasks = TaskList::new(&["buy milk", "write the report", "call the plumber"]);
    Server::new(server_info!())
        .trace_from_env()
        .instructions("A task list: add, complete and search tasks; read one as tasks://ID.")
        .service(tasks)
        .serve_from_args()
        .await
}
