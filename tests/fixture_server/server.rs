//! The server the end-to-end tests talk to: written only against `mcp_runtime`, `serde` and
//! `schemars`, the way a user would, with one tool per behaviour the tests need.

use std::time::Duration;

use mcp_runtime::{CancellationToken, RequestContext, Server, mcp_tool, server_info, tools};
use schemars::JsonSchema;
use serde::Deserialize;

/// Small, so a dozen tools already span several `tools/list` pages.
const PAGE_SIZE: usize = 4;

/// Repeat the text back.
///
/// # Arguments
/// * `text` - what to echo
#[mcp_tool(annotations(read_only))]
async fn echo(text: String) -> String {
    text
}

/// Add two integers.
///
/// # Arguments
/// * `augend` - the first term
/// * `addend` - the second term
#[mcp_tool(title = "Add", annotations(read_only, idempotent))]
async fn add(augend: i64, addend: i64) -> i64 {
    augend + addend
}

/// Multiply two integers; a plain `fn`, so it runs off the async workers.
///
/// # Arguments
/// * `multiplicand` - the first factor
/// * `multiplier` - the second factor
#[mcp_tool]
fn multiply(multiplicand: i64, multiplier: i64) -> i64 {
    multiplicand * multiplier
}

/// Block for ever: a plain `fn` stuck in the kernel, as a read from a FIFO nobody writes.
#[mcp_tool]
fn stuck() -> String {
    loop {
        std::thread::park();
    }
}

/// Divide integers, failing (as a tool error the model can read) on a zero divisor.
///
/// # Arguments
/// * `dividend` - the number to divide
/// * `divisor` - the number to divide by
#[mcp_tool]
async fn divide(dividend: i64, divisor: i64) -> Result<i64, String> {
    if divisor == 0 {
        return Err("cannot divide by zero: `divisor` must not be 0".to_owned());
    }
    Ok(dividend / divisor)
}

/// A compass direction.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Heading {
    North,
    East,
    South,
    West,
}

/// A point on a grid.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
struct Point {
    x: i64,
    y: i64,
}

/// Move one step from a point in a direction.
///
/// # Arguments
/// * `from` - where to start
/// * `heading` - which way to step
#[mcp_tool]
async fn step(from: Point, heading: Heading) -> String {
    let Point { x, y } = from;
    let (x, y) = match heading {
        Heading::North => (x, y + 1),
        Heading::East => (x + 1, y),
        Heading::South => (x, y - 1),
        Heading::West => (x - 1, y),
    };
    format!("({x}, {y})")
}

/// Greet someone, possibly several times.
///
/// # Arguments
/// * `name` - who to greet
/// * `punctuation` - what ends the greeting (default: `!`)
#[mcp_tool]
async fn greet(
    name: String,
    #[arg(default = 1, description = "how many greetings")] times: u32,
    punctuation: Option<String>,
) -> String {
    let punctuation = punctuation.unwrap_or_else(|| "!".to_owned());
    vec![format!("Hello, {name}{punctuation}"); times as usize].join(" ")
}

/// Sleep, then answer: a slow call that must not hold up others.
///
/// # Arguments
/// * `millis` - how long to sleep
#[mcp_tool]
async fn slow(millis: u64) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    format!("slept {millis} ms")
}

/// What a `mixed` call ends with.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Outcome {
    /// Answer the token.
    Answer,
    /// Fail with a tool error naming the token.
    Fail,
    /// Panic.
    Panic,
}

/// Sleep `millis` (0: not at all), then answer, fail or panic: one tool for the load tests,
/// whose every answer names its `token`, so no answer can pass for another's.
///
/// # Arguments
/// * `token` - what the answer (or the failure) names
/// * `outcome` - how the call ends
/// * `millis` - how long to sleep first
#[mcp_tool]
async fn mixed(token: String, outcome: Outcome, millis: u64) -> Result<String, String> {
    if millis > 0 {
        tokio::time::sleep(Duration::from_millis(millis)).await;
    }
    match outcome {
        Outcome::Answer => Ok(token),
        Outcome::Fail => Err(format!("failed on purpose: {token}")),
        Outcome::Panic => panic!("`mixed` panicked on purpose: {token}"),
    }
}

/// Panic: the server must survive it.
#[mcp_tool]
async fn panics() -> String {
    panic!("the `panics` tool panicked on purpose")
}

/// Print to stdout, which belongs to the protocol: the runtime must keep it clean.
///
/// # Arguments
/// * `text` - what to print and return
#[mcp_tool]
#[allow(clippy::print_stdout)] // deliberately, as careless user code would
async fn noisy(text: String) -> String {
    println!("noise from a tool: {text}");
    text
}

/// What `wait_for_cancellation` writes to stderr when its `CancellationToken` fires.
const TOKEN_FIRED: &str = "wait_for_cancellation: token fired";
/// What it writes when its future is dropped unfinished, the token never having fired.
const DROPPED_UNFINISHED: &str = "wait_for_cancellation: dropped unfinished";

/// Wait until the request is cancelled, or give up after `millis`. Says on stderr how the
/// wait ended, so tests can see whether the cancellation reached the tool.
///
/// # Arguments
/// * `millis` - how long to wait for the cancellation
#[mcp_tool]
async fn wait_for_cancellation(millis: u64, cancellation: CancellationToken) -> String {
    // A runtime may also stop a call by dropping it: that is reported too.
    struct ReportIfDropped {
        finished: bool,
    }
    impl Drop for ReportIfDropped {
        fn drop(&mut self) {
            if !self.finished {
                eprintln!("{DROPPED_UNFINISHED}");
            }
        }
    }
    let mut report = ReportIfDropped { finished: false };
    let outcome = tokio::select! {
        () = cancellation.cancelled() => {
            eprintln!("{TOKEN_FIRED}");
            "cancelled".to_owned()
        }
        () = tokio::time::sleep(Duration::from_millis(millis)) => {
            format!("not cancelled within {millis} ms")
        }
    };
    report.finished = true;
    outcome
}

/// Tell which protocol revision the request was answered in, as the handler sees it.
#[mcp_tool]
async fn revision(context: RequestContext) -> String {
    context.revision.to_string()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new(server_info!().with_title("MCP end-to-end test fixture"))
        .instructions("Tools for the end-to-end tests of mcp-runtime.")
        .page_size(PAGE_SIZE)
        .max_message_size(64 * 1024)
        .max_parsed_size(1024 * 1024)
        .tools(tools![
            echo,
            add,
            multiply,
            stuck,
            divide,
            step,
            greet,
            slow,
            panics,
            noisy,
            wait_for_cancellation,
            revision,
            mixed,
        ])
        .serve_stdio()
        .await
}
