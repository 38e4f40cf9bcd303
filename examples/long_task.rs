//! A long task done right: it works through its steps reporting progress, stops when the client
//! cancels it, and asks the user to confirm (elicitation) before the one step that destroys
//! data.
//!
//! ```text
//! cargo run --example long_task                 # stdio
//! cargo run --example long_task -- --http 127.0.0.1:8080
//! cargo run --example long_task -- --http 127.0.0.1:8080 --redis redis://127.0.0.1:6379/
//! ```
//!
//! `migrate` may run as a task (a 2026-07-28 client that declares the tasks extension gets a
//! task id at once and polls `tasks/get`); with `--redis`, instances behind a load balancer
//! share their tasks, so the task is followed, answered and cancelled through any of them.
//! The resource `migration://progress` tells how far the last migration got; every step
//! announces that it changed, to subscribers on every instance sharing the Redis.
//!
//! Written once, served in both eras: a legacy client (2025-06-18 or 2025-11-25, with the
//! `elicitation` capability) gets an `elicitation/create` request while the call waits; a
//! 2026-07-28 client gets an `InputRequiredResult` and retries the call with the answer, which
//! runs the tool again from the top. That is why the steps before the question only prepare
//! (they are safe to repeat) and the destructive step comes after it.

use std::sync::Mutex;
use std::time::Duration;

use mcp_runtime::{
    AskError, Elicitation, Notifier, RequestContext, Server, State, mcp_resource, mcp_tool,
    resources, server_info, tools,
};

/// Where the last migration stands, for `migration://progress`.
#[derive(Default)]
struct Progress(Mutex<String>);

impl Progress {
    fn set(&self, now: String, notifier: &Notifier) {
        *self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = now;
        notifier.resource_updated(PROGRESS);
    }
}

const PROGRESS: &str = "migration://progress";

/// How far the last migration on this instance got.
#[mcp_resource("migration://progress", mime_type = "text/plain")]
async fn progress(progress: State<Progress>) -> String {
    let now = progress
        .0
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if now.is_empty() {
        "no migration yet".to_owned()
    } else {
        now.clone()
    }
}

/// The user's answer before the destructive step.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirmation {
    /// Drop the old tables now?
    drop_old_tables: bool,
}

/// Migrate the database in `steps` steps: copy the data (reporting progress), then, once the
/// user confirms, drop the old tables.
///
/// # Arguments
///
/// * `steps` - How many copy steps (1 to 1000).
/// * `step_ms` - Milliseconds each step takes.
#[mcp_tool(title = "Migrate", task, annotations(destructive))]
async fn migrate(
    #[arg(default = 5)] steps: u32,
    #[arg(default = 200)] step_ms: u64,
    ctx: RequestContext,
    notifier: State<Notifier>,
    now: State<Progress>,
) -> Result<String, String> {
    // A client that takes tasks gets one at once, however quick the steps: it follows the
    // migration with `tasks/get` (on any instance, with `--redis`).
    ctx.start_task().await;
    let steps = steps.clamp(1, 1000);
    let total = f64::from(steps + 1);
    for step in 1..=steps {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(step_ms)) => {}
            () = ctx.cancellation.cancelled() => {
                // Nothing was dropped yet: stopping here loses nothing.
                let stopped = format!("cancelled after {} of {steps} copy steps", step - 1);
                tracing::info!("migrate: {stopped}");
                now.set(stopped.clone(), &notifier);
                return Err(stopped);
            }
        }
        now.set(format!("copied part {step} of {steps}"), &notifier);
        ctx.progress(
            f64::from(step),
            Some(total),
            Some(&format!("copied part {step} of {steps}")),
        );
    }
    let answer = ctx
        .elicit::<Confirmation>(format!(
            "{steps} parts copied. Drop the old tables? This cannot be undone."
        ))
        .await;
    match answer {
        Ok(Elicitation::Accepted(Confirmation {
            drop_old_tables: true,
        })) => {}
        Ok(Elicitation::Accepted(_) | Elicitation::Declined) => {
            return Ok(format!(
                "copied {steps} parts; the old tables were kept (not confirmed)"
            ));
        }
        Ok(Elicitation::Cancelled) => {
            return Ok(format!(
                "copied {steps} parts; the old tables were kept (question dismissed)"
            ));
        }
        Err(AskError::Unsupported { reason, .. }) => {
            return Err(format!(
                "copied {steps} parts, but dropping the old tables needs the user's \
                 confirmation and the client cannot ask ({reason})"
            ));
        }
        Err(error) => return Err(format!("copied {steps} parts; {error}")),
    }
    ctx.progress(total, Some(total), Some("dropped the old tables"));
    Ok(format!(
        "migrated: copied {steps} parts and dropped the old tables"
    ))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let server = Server::new(server_info!());
    let notifier = server.notifier();
    server
        .trace_from_env()
        .instructions("`migrate` moves the data, then asks before dropping the old tables.")
        .tools(tools![migrate])
        .resources(resources![progress])
        .with_state(notifier)
        .with_state(Progress::default())
        .serve_from_args()
        .await
}
