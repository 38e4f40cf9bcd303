//! Arithmetic with shared state: `add` counts its calls in a [`State`] given to the server once,
//! and the resource `stats://server` reports that count and the server's uptime as JSON.
//!
//! ```text
//! cargo run --example math
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use std::borrow::Cow;

use mcp_runtime::protocol::{Annotations, Content, Icon, ResourceContents, Role};
use mcp_runtime::{
    Json, Resource, Server, State, mcp_resource, mcp_tool, resources, server_info, tools,
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

/// How many additions the server has made, and for how long it has been up.
#[mcp_resource("stats://server", mime_type = "application/json")]
async fn server_stats(stats: State<Stats>) -> String {
    serde_json::json!({
        "additions": stats.additions.load(Ordering::Relaxed),
        "uptimeSeconds": stats.started.elapsed().as_secs_f64(),
    })
    .to_string()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let icon = Icon::new("data:image/svg+xml;base64,PHN2Zy8+").with_mime_type("image/svg+xml");
    Server::new(server_info!().with_title("Math").with_icon(icon))
        .with_state(Stats {
            started: Instant::now(),
            additions: AtomicU64::new(0),
        })
        .tools(tools![add, divide, squares, report])
        .resources(resources![server_stats])
        .serve_stdio()
        .await
}
