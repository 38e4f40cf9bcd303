//! Pins the `inputSchema` `#[mcp_tool]` produces for every kind of parameter type, against the
//! files in `tests/golden/` (compared as text, so key order is pinned too).
//!
//! After an intended change, regenerate with `GOLDEN_BLESS=1 cargo test --test schema_golden`
//! and read the diff before committing it.
#![allow(
    dead_code,
    reason = "the argument types exist for their schemas; the tools never read their fields"
)]

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use mcp_runtime::{CancellationToken, RequestContext, mcp_tool, tools};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Integers, floats, a boolean and a string.
#[mcp_tool]
async fn primitives(count: u32, delta: i64, ratio: f64, enabled: bool, label: String) -> String {
    format!("{count} {delta} {ratio} {enabled} {label}")
}

/// `Option`s: not required, and described by the inner type alone (no `null`).
#[mcp_tool]
async fn optional(nickname: Option<String>, age: Option<u8>, tags: Option<Vec<String>>) {
    let _ = (nickname, age, tags);
}

/// Lists and fixed-size arrays.
#[mcp_tool]
async fn sequences(values: Vec<f64>, words: Vec<String>, rgb: [u8; 3]) {
    let _ = (values, words, rgb);
}

/// String-keyed maps.
#[mcp_tool]
async fn maps(prices: HashMap<String, f64>, groups: BTreeMap<String, Vec<u32>>) {
    let _ = (prices, groups);
}

/// Which statistic to compute.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Measure {
    /// The arithmetic mean.
    Mean,
    /// The middle value.
    Median,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Direction {
    North,
    South,
}

/// Unit enums, with and without variant docs, and one given a parameter description.
///
/// # Arguments
/// * `heading` - where to go
#[mcp_tool]
async fn unit_enums(measure: Measure, direction: Direction, heading: Option<Direction>) {
    let _ = (measure, direction, heading);
}

/// A point on the map.
#[derive(Debug, Deserialize, JsonSchema)]
struct Point {
    /// Degrees east.
    x: f64,
    /// Degrees north.
    y: f64,
}

/// A stop on a route.
#[derive(Debug, Deserialize, JsonSchema)]
struct Stop {
    /// Where the stop is.
    at: Point,
    /// What the stop is called, if anything.
    name: Option<String>,
}

/// A route.
#[derive(Debug, Deserialize, JsonSchema)]
struct Route {
    /// The stops, in order.
    stops: Vec<Stop>,
    /// Where the route starts.
    start: Point,
}

/// Nested structs: inlined, with their field docs.
#[mcp_tool]
async fn nested(route: Route) {
    let _ = route;
}

/// Any JSON at all.
#[mcp_tool]
async fn json_value(payload: serde_json::Value, extra: Option<Value>) {
    let _ = (payload, extra);
}

/// A person, spelled the JavaScript way.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Person {
    first_name: String,
    #[serde(rename = "surname")]
    last_name: String,
}

/// serde renames inside the argument, `#[arg(rename)]` for the argument itself.
#[mcp_tool]
async fn renames(person: Person, #[arg(rename = "pageSize")] page_size: u32) {
    let _ = (person, page_size);
}

fn default_limit() -> u32 {
    20
}

/// Search settings with defaults of their own.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Settings {
    #[serde(default)]
    fuzzy: bool,
    #[serde(default = "default_limit")]
    limit: u32,
}

/// `#[arg(default)]` on parameters, `#[serde(default)]` on fields.
///
/// # Arguments
/// * `digits` - decimal places to keep
#[mcp_tool]
async fn defaults(
    #[arg(default = 2)] digits: u8,
    #[arg(default)] verbose: bool,
    #[arg(default = "mean".to_owned())] label: String,
    settings: Settings,
) {
    let _ = (digits, verbose, label, settings);
}

/// No arguments at all.
#[mcp_tool]
async fn no_arguments() {}

/// Injected values are not arguments: only `query` is in the schema.
#[mcp_tool]
async fn injected(context: RequestContext, query: String, cancel: CancellationToken) {
    let _ = (context, query, cancel);
}

/// Something to draw.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    /// A circle around the origin.
    Circle { radius: f64 },
    /// A rectangle with a corner at the origin.
    Rectangle { width: f64, height: f64 },
}

/// Enums with data keep their `oneOf`.
#[mcp_tool]
async fn tagged_enum(shape: Shape) {
    let _ = shape;
}

/// A tree of names.
#[derive(Debug, Deserialize, JsonSchema)]
struct Tree {
    name: String,
    children: Vec<Tree>,
}

/// A recursive type, allowed: sent with `$defs`.
#[mcp_tool(recursive)]
async fn recursive(tree: Tree) {
    let _ = tree;
}

fn golden_path(case: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{case}.json"))
}

#[test]
fn input_schemas_match_the_golden_files() {
    let tools = tools![
        primitives,
        optional,
        sequences,
        maps,
        unit_enums,
        nested,
        json_value,
        renames,
        defaults,
        no_arguments,
        injected,
        tagged_enum,
        recursive,
    ];
    let bless = std::env::var_os("GOLDEN_BLESS").is_some();
    let mut mismatches = Vec::new();
    for handler in tools.handlers() {
        let definition = handler.definition();
        let actual = serde_json::to_string_pretty(&Value::Object(definition.input_schema))
            .expect("a schema serializes")
            + "\n";
        let path = golden_path(&definition.name);
        if bless {
            std::fs::write(&path, &actual).expect("write the golden file");
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => mismatches.push(format!(
                "{}:\n--- expected\n{expected}+++ actual\n{actual}",
                path.display()
            )),
            Err(error) => mismatches.push(format!("{}: {error}", path.display())),
        }
    }
    assert!(
        mismatches.is_empty(),
        "schemas differ from the golden files (rerun with GOLDEN_BLESS=1 to accept):\n{}",
        mismatches.join("\n")
    );
}
