//! A server behind every shipped layer, for `tests/middleware_process.rs` and the Python
//! client's `tests/interop/python/middleware.py`.
//!
//! ```sh
//! layered-server --audit-log FILE [--http ADDR] [--as NAME=SCOPE,SCOPE]
//! ```
//!
//! `--as` serves stdio as that principal, with those scopes (none after a bare `=`), instead
//! of the trusted operator: `vault` needs the scope `vault:read`.
//! Over HTTP a bearer token names the principal (`Bearer alice` is alice), so per-caller
//! limits can be seen apart. The layers, outermost first: the audit log; a layer that panics
//! for the tool `trap`; a rate limit of 4 calls an hour per caller and tool; timeouts (60 s,
//! 0.5 s for `slow`); a 1000-byte output cap; one call at a time of each tool, none waiting; a
//! cache for read-only, idempotent tools.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::http::{AuthRejection, HttpConfig, Principal};
use mcp_runtime::middleware::{
    self, AuditLogLayer, CacheLayer, ConcurrencyLimitLayer, MaxOutputLayer, Next, RateLimitLayer,
    Request, TimeoutLayer,
};
use mcp_runtime::{RequestContext, Server, mcp_tool, server_info, tools};

/// How many `slow` and `wait` calls were dropped before they finished, and how many of those
/// saw their cancellation token fired when they were.
static DROPPED: AtomicUsize = AtomicUsize::new(0);
static FIRED: AtomicUsize = AtomicUsize::new(0);
/// How many times `lookup` really ran.
static LOOKUPS: AtomicUsize = AtomicUsize::new(0);

/// Notes, when dropped, that the call it lives in was dropped, and whether its token fired.
struct DropNote(RequestContext);

impl Drop for DropNote {
    fn drop(&mut self) {
        DROPPED.fetch_add(1, Ordering::SeqCst);
        if self.0.cancellation.is_cancelled() {
            FIRED.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Say it back.
///
/// # Arguments
/// * `text` - what to say
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

/// Never finishes by itself (its timeout is 0.5 s).
#[mcp_tool]
async fn slow(ctx: RequestContext) -> String {
    let _note = DropNote(ctx);
    std::future::pending::<()>().await;
    unreachable!()
}

/// Reports progress once, then waits until cancelled.
#[mcp_tool]
async fn wait(ctx: RequestContext) -> String {
    ctx.progress(1.0, None, Some("waiting"));
    let _note = DropNote(ctx);
    std::future::pending::<()>().await;
    unreachable!()
}

/// How many calls were dropped unfinished, and how many of those saw their token fired.
#[mcp_tool]
async fn dropped() -> String {
    format!(
        "{} dropped, {} cancelled",
        DROPPED.load(Ordering::SeqCst),
        FIRED.load(Ordering::SeqCst)
    )
}

/// `bytes` bytes of text.
///
/// # Arguments
/// * `bytes` - how many
#[mcp_tool]
async fn big(bytes: usize) -> String {
    "x".repeat(bytes)
}

/// The vault's contents, for callers granted `vault:read`.
#[mcp_tool(scopes("vault:read"), annotations(read_only))]
async fn vault() -> &'static str {
    "gold"
}

/// A tool a layer in front of it panics for.
#[mcp_tool]
async fn trap() -> &'static str {
    "unreachable: the layer panics first"
}

/// Look a key up (read-only and idempotent: its results are cached per caller).
///
/// # Arguments
/// * `key` - what to look up
#[mcp_tool(annotations(read_only, idempotent))]
async fn lookup(key: String) -> String {
    format!("{key}#{}", LOOKUPS.fetch_add(1, Ordering::SeqCst) + 1)
}

fn server(audit_log: &str) -> std::io::Result<Server> {
    let trap = middleware::from_fn(|request: Request, next: Next| async move {
        if request.tool_name() == Some("trap") {
            panic!("the trap layer panics, as a broken layer would");
        }
        next.run(request).await
    });
    Ok(Server::new(server_info!())
        .tools(tools![echo, slow, wait, dropped, big, trap, lookup, vault])
        .layer(CacheLayer::new(Duration::from_secs(3600)))
        .layer(ConcurrencyLimitLayer::new(1).queue(0).per_tool())
        .layer(MaxOutputLayer::new(1000))
        .layer(TimeoutLayer::new(Duration::from_secs(60)).tool("slow", Duration::from_millis(500)))
        .layer(RateLimitLayer::new(governor_quota(4)))
        .layer(trap)
        .layer(AuditLogLayer::to_file(audit_log)?))
}

/// 4 calls an hour, all available at once: a test's fifth call is refused however slowly
/// the machine runs it.
fn governor_quota(calls: u32) -> middleware::Quota {
    middleware::Quota::per_hour(std::num::NonZeroU32::new(calls).expect("not zero"))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let (mut audit_log, mut http, mut principal) = (None, None, None);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--audit-log" => audit_log = args.next(),
            "--http" => http = args.next(),
            "--as" => principal = args.next(),
            other => {
                eprintln!("layered-server: unknown argument `{other}`");
                std::process::exit(2);
            }
        }
    }
    let Some(audit_log) = audit_log else {
        eprintln!("layered-server: --audit-log FILE is required");
        std::process::exit(2);
    };
    let mut server = server(&audit_log)?;
    if let Some(principal) = principal {
        let (name, scopes) = principal.split_once('=').unwrap_or((&principal, ""));
        let scopes = scopes.split(',').filter(|scope| !scope.is_empty());
        server = server.stdio_principal(Principal::new(name).with_scopes(scopes));
    }
    match http {
        None => server.serve_stdio_with_args(Vec::<String>::new()).await,
        Some(address) => {
            let config = HttpConfig::new().authorize(|request| {
                let token = request
                    .bearer_token
                    .ok_or_else(AuthRejection::missing_token)?;
                Ok::<_, AuthRejection>(Principal::new(token))
            });
            server.serve_http_with(address, config).await
        }
    }
}
