//! Tools whose calls may run as tasks (the `io.modelcontextprotocol/tasks` extension), for
//! `tests/stdio_tasks.rs`.

use std::time::Duration;

use mcp_runtime::{AskError, Elicitation, RequestContext, Server, mcp_tool, server_info, tools};
use serde::Deserialize;

/// What the user answers before a deletion.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Whether to go ahead.
    confirm: bool,
}

fn failed(error: AskError) -> String {
    format!("cannot ask: {error}")
}

/// Work for `millis` (a task where the client takes them; 0 answers at once).
#[mcp_tool(task)]
async fn task_work(millis: u64, ctx: RequestContext) -> String {
    if millis > 0 {
        tokio::time::sleep(Duration::from_millis(millis)).await;
    }
    format!(
        "worked {millis} ms as task {}",
        ctx.task_id().unwrap_or("none")
    )
}

/// Become a task, then ask the user to confirm `name`.
#[mcp_tool(task)]
async fn task_confirm(name: String, ctx: RequestContext) -> Result<String, String> {
    let in_task = ctx.start_task().await;
    let answer = ctx
        .elicit::<Confirm>(format!("Delete {name}?"))
        .await
        .map_err(failed)?;
    Ok(match answer {
        Elicitation::Accepted(Confirm { confirm: true }) => {
            format!("deleted {name} (in a task: {in_task})")
        }
        _ => format!("kept {name}"),
    })
}

/// Runs only as a task.
#[mcp_tool(task = "required")]
async fn task_only() -> Result<String, String> {
    tokio::time::sleep(Duration::from_millis(20)).await;
    Err("task_only reports a failure".into())
}

/// Crash once running as a task.
#[mcp_tool(task)]
async fn task_crash() -> String {
    tokio::time::sleep(Duration::from_millis(10)).await;
    panic!("task_crash crashes by design");
}

/// Wait until cancelled (saying so on stderr), or `millis` at most.
#[mcp_tool(task)]
async fn task_until_cancelled(millis: u64, ctx: RequestContext) -> String {
    tokio::select! {
        () = ctx.cancellation.cancelled() => {
            eprintln!("task_until_cancelled: token fired");
            "cancelled".into()
        }
        () = tokio::time::sleep(Duration::from_millis(millis)) => "not cancelled".into(),
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new(server_info!())
        .tools(tools![
            task_work,
            task_confirm,
            task_only,
            task_crash,
            task_until_cancelled
        ])
        .serve_stdio()
        .await
}
