//! `call`, `read` and `prompt`: one request through the real dispatcher, its answer printed.
//!
//! Text is printed plainly (text content, text resource contents, text prompt messages);
//! anything else (images, blobs, resource links) as the whole result in pretty JSON. A tool
//! error (`isError`) goes to stderr and a JSON-RPC error is reported there; both exit 1.

use std::io::Write;

use serde_json::{Value, json};

use super::progress;
use super::{FAILURE, SUCCESS, Terminal};
use crate::handler::JsonObject;
use crate::launch::client::{RpcError, TestClient, texts};

/// `call TOOL ...`: the tool's result, with a progress line on a terminal's stderr.
pub(crate) async fn call(
    client: &TestClient,
    tool: &str,
    arguments: JsonObject,
    terminal: &mut Terminal<'_>,
) -> i32 {
    let mut params = json!({"name": tool, "arguments": arguments});
    let answer = if terminal.progress {
        params["_meta"] = json!({"progressToken": progress::TOKEN});
        let running = client.request("tools/call", params);
        let received = || client.take_notifications();
        progress::show_while(tool, received, &mut *terminal.err, running).await
    } else {
        client.request("tools/call", params).await
    };
    let result = match answer {
        Ok(result) => result,
        Err(error) => return rpc_error(terminal, &error),
    };
    let content = blocks(&result, "content");
    if result["isError"].as_bool().unwrap_or(false) {
        print_text_or_json(&mut *terminal.err, content, &result);
        return FAILURE;
    }
    print_text_or_json(&mut *terminal.out, content, &result);
    SUCCESS
}

/// `read URI`: the resource's contents.
pub(crate) async fn read(client: &TestClient, uri: &str, terminal: &mut Terminal<'_>) -> i32 {
    match client.request("resources/read", json!({"uri": uri})).await {
        Ok(result) => {
            print_text_or_json(&mut *terminal.out, blocks(&result, "contents"), &result);
            SUCCESS
        }
        Err(error) => rpc_error(terminal, &error),
    }
}

/// `prompt NAME ...`: the prompt's messages, each under its role.
pub(crate) async fn prompt(
    client: &TestClient,
    name: &str,
    arguments: JsonObject,
    terminal: &mut Terminal<'_>,
) -> i32 {
    let params = json!({"name": name, "arguments": arguments});
    let result = match client.request("prompts/get", params).await {
        Ok(result) => result,
        Err(error) => return rpc_error(terminal, &error),
    };
    let messages = blocks(&result, "messages");
    let text: Option<Vec<String>> = messages
        .iter()
        .map(|message| {
            let role = message["role"].as_str()?;
            let text = message["content"]["text"].as_str()?;
            Some(format!("[{role}]\n{text}\n"))
        })
        .collect();
    let out = &mut *terminal.out;
    let _ = match text {
        Some(text) => write!(out, "{}", text.join("\n")),
        None => writeln!(out, "{}", pretty(&result)),
    };
    SUCCESS
}

fn blocks<'a>(result: &'a Value, key: &str) -> &'a [Value] {
    result[key].as_array().map_or(&[], Vec::as_slice)
}

/// The blocks' text when every block is text, else the whole result as JSON.
fn print_text_or_json(sink: &mut (dyn Write + Send), blocks: &[Value], result: &Value) {
    let text: Vec<&str> = texts(blocks).collect();
    let _ = if text.len() == blocks.len() {
        print_text(sink, &text.join("\n"))
    } else {
        writeln!(sink, "{}", pretty(result))
    };
}

/// `text` as it is, ended by a newline unless it is empty or already ends with one.
fn print_text(sink: &mut (dyn Write + Send), text: &str) -> std::io::Result<()> {
    sink.write_all(text.as_bytes())?;
    if text.is_empty() || text.ends_with('\n') {
        return Ok(());
    }
    sink.write_all(b"\n")
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("a JSON value always serializes")
}

fn rpc_error(terminal: &mut Terminal<'_>, error: &RpcError) -> i32 {
    let err = &mut *terminal.err;
    let _ = writeln!(err, "error: {error}");
    if let Some(data) = &error.data {
        let _ = writeln!(err, "  data: {data}");
    }
    FAILURE
}
