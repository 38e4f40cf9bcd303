//! The server `tests/stdio_dynamic.rs` talks to: its tools, resources and prompts change while
//! it serves, on the client's request, through `Server::surfaces` and the run-time builders.
//! Written only against `mcp_runtime`, the way a user would.

use mcp_runtime::{
    CancellationToken, Resource, Server, State, Surfaces, handler::CompletionContext,
    handler::PromptBuilder, handler::ResourceBuilder, handler::ToolBuilder, mcp_prompt, mcp_tool,
    prompts, server_info, tools,
};

/// Holds calls of the `gate` tool until `open_gate` opens it (for good).
struct Gate(CancellationToken);

/// Offer a tool called `name` that answers with its own name. Answers `added`, or why not.
#[mcp_tool]
fn add_tool(name: String, surfaces: State<Surfaces>) -> Result<&'static str, String> {
    let tool_name = name.clone();
    let tool = ToolBuilder::new(name)
        .description("Answers with its name.")
        .handler(move |_arguments, _context| {
            let tool_name = tool_name.clone();
            async move { tool_name }
        });
    surfaces.add_tool(tool).map_err(|error| error.to_string())?;
    Ok("added")
}

/// Offer `gate`, a tool that answers `passed` once `open_gate` was called.
#[mcp_tool]
fn add_gate(surfaces: State<Surfaces>, gate: State<Gate>) -> Result<&'static str, String> {
    let opened = gate.0.clone();
    let tool = ToolBuilder::new("gate").handler(move |_arguments, _context| {
        let opened = opened.clone();
        async move {
            opened.cancelled().await;
            "passed"
        }
    });
    surfaces.add_tool(tool).map_err(|error| error.to_string())?;
    Ok("added")
}

/// Let every `gate` call through, now and later.
#[mcp_tool]
fn open_gate(gate: State<Gate>) -> &'static str {
    gate.0.cancel();
    "opened"
}

/// Stop offering the tool called `name`. Answers whether there was one.
#[mcp_tool]
fn remove_tool(name: String, surfaces: State<Surfaces>) -> bool {
    surfaces.remove_tool(&name)
}

/// Offer a resource at `uri` whose text is its URI.
#[mcp_tool]
fn add_resource(uri: String, surfaces: State<Surfaces>) -> Result<&'static str, String> {
    let resource =
        ResourceBuilder::new(Resource::new(uri.clone(), uri).with_mime_type("text/plain"))
            .reader(|read| async move { read.uri });
    surfaces
        .add_resource(resource)
        .map_err(|error| error.to_string())?;
    Ok("added")
}

/// Stop offering the resource at `uri`. Answers whether there was one.
#[mcp_tool]
fn remove_resource(uri: String, surfaces: State<Surfaces>) -> bool {
    surfaces.remove_resource(&uri)
}

/// Offer a prompt called `name` with one required argument, `topic`.
#[mcp_tool]
fn add_prompt(name: String, surfaces: State<Surfaces>) -> Result<&'static str, String> {
    let prompt = PromptBuilder::new(name)
        .description("Talk about a topic.")
        .argument("topic", "What to talk about.", true)
        .handler(|request| async move {
            format!(
                "Talk about {}.",
                request.argument("topic").unwrap_or_default()
            )
        });
    surfaces
        .add_prompt(prompt)
        .map_err(|error| error.to_string())?;
    Ok("added")
}

/// Paint with a color; the color is completed.
#[mcp_prompt(complete(color = complete_color))]
async fn paint(#[arg(description = "a color")] color: String) -> String {
    format!("Paint it {color}.")
}

/// The colors starting with what was typed.
fn complete_color(typed: &str, _context: &CompletionContext) -> Vec<String> {
    ["red", "green", "blue"]
        .into_iter()
        .filter(|color| color.starts_with(typed))
        .map(str::to_owned)
        .collect()
}

/// Offer `paint`, a prompt whose argument is completed.
#[mcp_tool]
fn add_paint(surfaces: State<Surfaces>) -> Result<&'static str, String> {
    surfaces
        .add_prompts(prompts![paint])
        .map_err(|error| error.to_string())?;
    Ok("added")
}

/// Stop offering the prompt called `name`. Answers whether there was one.
#[mcp_tool]
fn remove_prompt(name: String, surfaces: State<Surfaces>) -> bool {
    surfaces.remove_prompt(&name)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let server = Server::new(server_info!()).tools(tools![
        add_tool,
        add_gate,
        open_gate,
        remove_tool,
        add_resource,
        remove_resource,
        add_prompt,
        add_paint,
        remove_prompt,
    ]);
    let surfaces = server.surfaces();
    server
        .with_state(surfaces)
        .with_state(Gate(CancellationToken::new()))
        .serve_stdio()
        .await
}
