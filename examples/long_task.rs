//! A long task done right: it works through its steps reporting progress, stops when the client
//! cancels it, and asks the user to confirm (elicitation) before the one step that destroys
//! data.
//!
//! ```text
//! cargo run --example long_task                 # stdio
//! cargo run --example long_task -- --http 127.0.0.1:8080
//! ```
//!
//! Written once, served in both eras: a legacy client (2025-06-18 or 2025-11-25, with the
//! `elicitation` capability) gets an `elicitation/create` request while the call waits; a
//! 2026-07-28 client gets an `InputRequiredResult` and retries the call with the answer, which
//! runs the tool again from the top. That is why the steps before the question only prepare
//! (they are safe to repeat) and the destructive step comes after it.

use std::time::Duration;

use mcp_runtime::{AskError, Elicitation, RequestContext, Server, mcp_tool, server_info, tools};

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
#[mcp_tool(title = "Migrate", annotations(destructive))]
async fn migrate(
    #[arg(default = 5)] steps: u32,
    #[arg(default = 200)] step_ms: u64,
    ctx: RequestContext,
) -> Result<String, String> {
    let steps = steps.clamp(1, 1000);
    let total = f64::from(steps + 1);
    for step in 1..=steps {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(step_ms)) => {}
            () = ctx.cancellation.cancelled() => {
                // Nothing was dropped yet: stopping here loses nothing.
                return Err(format!("cancelled after {} of {steps} copy steps", step - 1));
            }
        }
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
    Server::new(server_info!())
        .trace_from_env()
        .instructions("`migrate` moves the data, then asks before dropping the old tables.")
        .tools(tools![migrate])
        .serve_from_args()
        .await
}
