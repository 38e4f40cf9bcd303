#![doc = include_str!("../README.md")]
#![warn(missing_docs)]
// docs.rs (`--cfg docsrs`, nightly): each item behind a feature says which one it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use mcp_macros::{mcp_prompt, mcp_resource, mcp_server, mcp_tool, prompts, resources, tools};

pub mod ask;
pub mod auth;
mod cancel;
mod canonical;
mod context;
mod dispatch;
pub mod extensions;
mod fast_hash;
mod future;
pub mod handler;
mod launch;
pub mod middleware;
pub mod protocol;
mod random;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub mod redis;
mod rfc3339;
mod schema;
mod server;
pub mod store;
#[cfg(feature = "tasks")]
mod task;
#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
pub mod telemetry;
mod transport;

#[doc(hidden)]
pub mod __private;

pub use launch::client as testing;

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;

/// The Streamable HTTP transport (the `http` feature): configuration, and the endpoint as a
/// service to mount into another app. Serve with [`Server::serve_http`].
#[cfg(feature = "http")]
pub use transport::http;

pub use ask::{AskError, Elicitation};
pub use cancel::CancellationToken;
pub use context::RequestContext;
pub use context::forward::forward_tracing_event;
pub use context::logging::{LogLevel, UnknownLogLevel};
pub use context::state::State;
pub use dispatch::notify::Notifier;
pub use dispatch::surfaces::{SurfaceError, Surfaces};
pub use handler::{Json, PromptError, Prompts, ResourceError, Resources, Tools};
pub use protocol::{
    CallToolResult, Content, GetPromptResult, PromptMessage, Resource, ResourceContents, Role,
};
pub use server::{Server, ServerInfo};

/// The calling program's identity as a [`ServerInfo`]: the name of the binary or example being
/// built (`CARGO_BIN_NAME`), else the package's name (`CARGO_PKG_NAME`), and the package's
/// version (`CARGO_PKG_VERSION`).
///
/// So each of a package's servers names itself to clients: `cargo run --example calculator`
/// reports `calculator`, and `src/main.rs` reports the package's name (cargo names that binary
/// after the package). Everything else that cargo builds (a library, its tests, benches and
/// doctests) has no binary name, and reports the package: this doctest says `mcp-runtime`.
///
/// ```
/// let info = mcp_runtime::server_info!();
/// assert_eq!(info.name, "mcp-runtime");
/// assert_eq!(info.version, env!("CARGO_PKG_VERSION"));
/// ```
///
/// For another name, build the identity yourself:
/// `ServerInfo::new("weather", env!("CARGO_PKG_VERSION"))`.
#[macro_export]
macro_rules! server_info {
    () => {
        $crate::ServerInfo::new(
            match ::core::option_env!("CARGO_BIN_NAME") {
                ::core::option::Option::Some(name) => name,
                ::core::option::Option::None => ::core::env!("CARGO_PKG_NAME"),
            },
            ::core::env!("CARGO_PKG_VERSION"),
        )
    };
}
