//! The raw baseline: a hand-written stdio JSON-RPC loop with no framework and no async, standing
//! for the physical limit the framework is measured against.
//!
//! It reads a line, parses it with serde_json, answers and writes a line. It speaks just enough
//! MCP for the benchmark: `initialize`, `server/discover`, `tools/list` and `tools/call` of `add`
//! and `echo`. `--tools N` lists N tools shaped like those of `bench-fifty-tools` instead.

use std::io::{self, BufRead, Write};

use serde_json::{Value, json};

/// The revisions negotiated through `initialize`, oldest first.
const LEGACY_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const NEWEST_LEGACY_VERSION: &str = "2025-11-25";
const MODERN_VERSION: &str = "2026-07-28";

fn main() -> io::Result<()> {
    let tools = match tool_count_from_args() {
        Some(count) => many_tools(count),
        None => calculator_tools(),
    };
    // Serialized once: a `tools/list` answer is then a copy of bytes.
    let tools_list = serde_json::to_string(&json!({"tools": tools}))?;
    // Our own buffer, since std's locked stdin does not say whether input is waiting in it.
    let mut input = io::BufReader::with_capacity(1 << 16, io::stdin().lock());
    let mut output = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return output.flush();
        }
        let Ok(mut request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        // Notifications (no id) need no answer.
        let Some(id) = request.get_mut("id").map(Value::take) else {
            continue;
        };
        write_response(&mut output, &id, answer(&mut request, &tools_list))?;
        // Flush only once the requests already read are answered: one write for a burst of
        // pipelined requests, as a careful hand-written loop would do.
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
}

/// A result to send: built for this request, or serialized ahead of time.
enum Outcome<'a> {
    Built(Value),
    Serialized(&'a str),
}

/// Writes the JSON-RPC envelope by hand around the result.
fn write_response(
    output: &mut impl Write,
    id: &Value,
    outcome: Result<Outcome<'_>, (i64, &str)>,
) -> io::Result<()> {
    output.write_all(br#"{"jsonrpc":"2.0","id":"#)?;
    serde_json::to_writer(&mut *output, id)?;
    match outcome {
        Ok(Outcome::Built(result)) => {
            output.write_all(br#","result":"#)?;
            serde_json::to_writer(&mut *output, &result)?;
        }
        Ok(Outcome::Serialized(result)) => {
            output.write_all(br#","result":"#)?;
            output.write_all(result.as_bytes())?;
        }
        Err((code, message)) => {
            output.write_all(br#","error":"#)?;
            serde_json::to_writer(&mut *output, &json!({"code": code, "message": message}))?;
        }
    }
    output.write_all(b"}\n")
}

fn tool_count_from_args() -> Option<usize> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => None,
        [flag, count] if flag == "--tools" => count.parse().ok(),
        _ => {
            eprintln!("usage: raw-baseline [--tools N]");
            std::process::exit(2);
        }
    }
}

/// The result for `request`, whose strings it may take.
fn answer<'a>(
    request: &mut Value,
    tools_list: &'a str,
) -> Result<Outcome<'a>, (i64, &'static str)> {
    let method = request["method"].take();
    let params = &mut request["params"];
    let modern = params["_meta"]["io.modelcontextprotocol/protocolVersion"].is_string();
    let mut result = match method.as_str() {
        Some("initialize") => {
            let requested = params["protocolVersion"].as_str().unwrap_or_default();
            let version = if LEGACY_VERSIONS.contains(&requested) {
                requested
            } else {
                NEWEST_LEGACY_VERSION
            };
            json!({
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw-baseline", "version": "0.0.0"},
            })
        }
        Some("server/discover") => json!({
            "supportedVersions": [MODERN_VERSION],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "public",
        }),
        Some("ping") => json!({}),
        Some("tools/list") if !modern => return Ok(Outcome::Serialized(tools_list)),
        Some("tools/list") => serde_json::from_str(tools_list).expect("serialized by us"),
        Some("tools/call") => call_tool(params)?,
        _ => return Err((-32601, "method not found")),
    };
    if modern {
        result["resultType"] = json!("complete");
    }
    Ok(Outcome::Built(result))
}

fn call_tool(params: &mut Value) -> Result<Value, (i64, &'static str)> {
    let name = params["name"].take();
    let arguments = &mut params["arguments"];
    match name.as_str() {
        Some("add") => match (arguments["a"].as_f64(), arguments["b"].as_f64()) {
            (Some(a), Some(b)) => Ok(number_result(a + b)),
            _ => Ok(error_result("`a` and `b` must be numbers")),
        },
        // The text is moved from the request into the answer, not copied.
        Some("echo") => match arguments["text"].take() {
            text @ Value::String(_) => Ok(json!({"content": [{"type": "text", "text": text}]})),
            _ => Ok(error_result("`text` must be a string")),
        },
        _ => Err((-32602, "unknown tool")),
    }
}

fn number_result(value: f64) -> Value {
    json!({"content": [{"type": "text", "text": value.to_string()}]})
}

fn error_result(message: &str) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}

fn calculator_tools() -> Value {
    let number = |description: &str| json!({"type": "number", "description": description});
    json!([
        {
            "name": "add",
            "description": "Add two numbers.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": number("the first addend"), "b": number("the second addend")},
                "required": ["a", "b"],
            },
        },
        {
            "name": "echo",
            "description": "Repeat the text back, unchanged.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "what to echo"}},
                "required": ["text"],
            },
        },
    ])
}

/// Tools shaped like those of `bench-fifty-tools`, so both `tools/list` answers weigh the same.
fn many_tools(count: usize) -> Value {
    (1..=count)
        .map(|number| {
            json!({
                "name": format!("tool_{number:02}"),
                "description": "Repeat the text, a number of times (a stand-in for a real tool).",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string", "description": "the text to repeat"},
                        "count": {
                            "type": "integer",
                            "format": "uint32",
                            "minimum": 0,
                            "description": "how many times (default 1)",
                        },
                        "upper": {"type": "boolean", "description": "whether to upper-case it"},
                    },
                    "required": ["text", "upper"],
                },
                "annotations": {"readOnlyHint": true},
            })
        })
        .collect()
}
