//! Helpers shared by the end-to-end tests: a server process over real pipes, a client that
//! checks every message against the official schema of its revision, and result readers.
// Each `tests/*.rs` file is its own crate using a different subset of these helpers.
#![allow(dead_code, unused_imports)]

pub mod client;
pub mod http;
#[cfg(feature = "http")]
pub mod http_server;
pub mod otlp;
pub mod process;
pub mod results;
mod revisions;
pub mod schema;

pub use client::{Client, expect_error, initialize_params, modern_meta};
pub use process::{PATIENCE, ServerProcess, example_path};
pub use results::{assert_text, assert_tool_error_mentions, is_error, text_of};
pub(crate) use revisions::per_revision;
