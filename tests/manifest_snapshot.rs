//! The calculator's tool surface, snapshotted: a change to a tool's name, description or
//! schema (what clients and models see) fails here until it is reviewed and blessed with
//! `MCP_BLESS=1 cargo test --test manifest_snapshot`. The recipe for any server is in
//! `mcp_runtime::testing::assert_snapshot`.

#[allow(unused_macros)]
mod support;

use std::process::Command;

use serde_json::Value;

#[test]
fn the_calculator_manifest_is_unchanged() {
    let output = Command::new(support::example_path("calculator"))
        .arg("manifest")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let manifest: Value = serde_json::from_slice(&output.stdout).unwrap();
    mcp_runtime::testing::assert_snapshot(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/snapshots/calculator.manifest.json"
        ),
        &manifest,
    );
}
