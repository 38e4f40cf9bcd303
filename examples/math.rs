//! Arithmetic with shared state: `add` counts its calls in a [`State`] given to the server once,
//! and the resource `stats://server` reports that count and the server's uptime as JSON.
//!
//! The server's tools change while it serves: 10 seconds after start it adds a `get_stats`
//! tool (made with [`ToolBuilder`], not a macro) answering with the same statistics, and
//! announces it with `notifications/tools/list_changed` (to legacy clients once initialized,
//! and on 2026-07-28 `subscriptions/listen` streams that asked for `toolsListChanged`).
//! `--stats-after SECS` (or `MATH_STATS_AFTER=SECS`; fractions allowed) sets the delay.
//!
//! ```text
//! cargo run --example math
//! cargo run --example math -- --stats-after 1
//! ```

use std::ffi::OsString;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use std::borrow::Cow;

use mcp_runtime::protocol::{Annotations, Content, Icon, ResourceContents, Role};
use mcp_runtime::{
    Json, RequestContext, Resource, Server, State, handler::BuiltTool, handler::ToolAnnotations,
    handler::ToolBuilder, mcp_resource, mcp_tool, resources, server_info, tools,
};

/// What the server counts, shared by every call: no globals.
struct Stats {
    started: Instant,
    additions: AtomicU64,
}

/// Add two numbers.
///
/// # Arguments
///
/// * `a` - The first addend.
/// * `b` - The second addend.
#[mcp_tool(
    title = "Add",
    annotations(read_only),
    icon = "data:image/svg+xml;base64,PHN2Zy8+"
)]
fn add(a: f64, b: f64, stats: State<Stats>) -> f64 {
    stats.additions.fetch_add(1, Ordering::Relaxed);
    a + b
}

/// A division's outcome.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Quotient {
    /// `a / b`.
    quotient: f64,
    /// `a % b`.
    remainder: f64,
}

/// Divide `a` by `b`: the quotient and the remainder, as structured data.
///
/// # Arguments
///
/// * `a` - The dividend.
/// * `b` - The divisor, not zero.
#[mcp_tool(annotations(read_only))]
fn divide(a: f64, b: f64) -> Result<Json<Quotient>, String> {
    if b == 0.0 {
        return Err("cannot divide by zero".into());
    }
    Ok(Json(Quotient {
        quotient: (a / b).trunc(),
        remainder: a % b,
    }))
}

/// The first `n` square numbers: structured data that is not an object, so only 2026-07-28
/// clients get it as such (others read the text).
///
/// # Arguments
///
/// * `n` - How many squares.
#[mcp_tool(annotations(read_only))]
fn squares(n: u32) -> Json<Vec<u64>> {
    Json((1..=u64::from(n.min(1000))).map(|k| k * k).collect())
}

/// A report on the server in several forms: a note for the user, a (tiny) chart image, a beep,
/// the statistics embedded, and a link to read them again later.
#[mcp_tool(annotations(read_only))]
fn report() -> Vec<Content> {
    let stats = Resource {
        mime_type: Some("application/json".into()),
        ..Resource::new("stats://server", "server statistics")
    };
    vec![
        Content::text("Statistics follow.").with_annotations(Annotations {
            audience: Cow::Borrowed(&[Role::User]),
            priority: Some(0.8),
            ..Annotations::NONE
        }),
        Content::image(
            [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a],
            "image/png",
        ),
        Content::audio(b"RIFF\0\0\0\0WAVE", "audio/wav"),
        Content::embedded(
            ResourceContents::text("stats://server", r#"{"additions":0}"#)
                .with_mime_type("application/json"),
        ),
        Content::resource_link(stats),
    ]
}

impl Stats {
    /// The count and the uptime, as JSON text.
    fn to_json(&self) -> String {
        serde_json::json!({
            "additions": self.additions.load(Ordering::Relaxed),
            "uptimeSeconds": self.started.elapsed().as_secs_f64(),
        })
        .to_string()
    }
}

/// How many additions the server has made, and for how long it has been up.
#[mcp_resource(
    "stats://server",
    mime_type = "application/json",
    icon = "data:image/svg+xml;base64,PHN2Zy8+"
)]
async fn server_stats(stats: State<Stats>) -> String {
    stats.to_json()
}

/// The tool added while serving: a run-time definition and a closure, no macro.
fn get_stats() -> BuiltTool {
    ToolBuilder::new("get_stats")
        .title("Statistics")
        .description("How many additions the server has made, and for how long it has been up.")
        .annotations(ToolAnnotations {
            read_only: Some(true),
            ..ToolAnnotations::default()
        })
        .handler(|_arguments, context: RequestContext| async move {
            let stats = context
                .state::<Stats>()
                .ok_or("the server keeps no statistics")?;
            Ok::<_, &str>(stats.to_json())
        })
}

/// Take a leading `--stats-after SECS` (or `--stats-after=SECS`) off `args`; else
/// `MATH_STATS_AFTER`; else 10 seconds.
fn take_stats_after(args: &mut Vec<OsString>) -> Result<Duration, String> {
    let first = args.first().and_then(|arg| arg.to_str()).map(str::to_owned);
    let text = match first.as_deref() {
        Some(flag) if flag.starts_with("--stats-after=") => {
            args.remove(0);
            flag["--stats-after=".len()..].to_owned()
        }
        Some("--stats-after") => {
            let value = args
                .get(1)
                .and_then(|value| value.to_str())
                .map(str::to_owned);
            let value = value.ok_or("`--stats-after` needs a number of seconds")?;
            args.drain(..2);
            value
        }
        _ => match std::env::var("MATH_STATS_AFTER") {
            Ok(value) => value,
            Err(_) => return Ok(Duration::from_secs(10)),
        },
    };
    text.trim()
        .parse::<f64>()
        .ok()
        .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
        .ok_or_else(|| format!("`{text}` is not a number of seconds"))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let stats_after = take_stats_after(&mut args).unwrap_or_else(|error| {
        eprintln!("math: {error}");
        std::process::exit(2);
    });
    let icon = Icon::new("data:image/svg+xml;base64,PHN2Zy8+").with_mime_type("image/svg+xml");
    let server = Server::new(server_info!().with_title("Math").with_icon(icon))
        .trace_from_env()
        .with_state(Stats {
            started: Instant::now(),
            additions: AtomicU64::new(0),
        })
        .tools(tools![add, divide, squares, report])
        .resources(resources![server_stats]);
    let surfaces = server.surfaces();
    tokio::spawn(async move {
        tokio::time::sleep(stats_after).await;
        // Refused only if a tool of that name existed; none does.
        if let Err(error) = surfaces.add_tool(get_stats()) {
            eprintln!("math: {error}");
        }
    });
    server.serve_stdio_with_args(args).await
}
