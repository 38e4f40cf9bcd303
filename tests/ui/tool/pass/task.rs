// `task` lets calls run as tasks: alone or `= "optional"` for `Optional`, `= "required"`,
// `= "forbidden"` (the default when absent), on free functions and `#[mcp_server]` methods alike.
#![deny(warnings)]

use mcp_runtime::{handler::McpService, handler::TaskSupport, mcp_server, mcp_tool, tools};

/// Index everything.
#[mcp_tool(task)]
async fn index() -> String {
    String::new()
}

/// Export a report.
#[mcp_tool(title = "Export", task = "optional")]
async fn export(format: String) -> String {
    format
}

/// Train a model; a plain fn, run on the blocking pool.
#[mcp_tool(task = "required", annotations(idempotent))]
fn train(epochs: u32) -> u32 {
    epochs
}

/// Answer in place.
#[mcp_tool(task = "forbidden")]
async fn quick() {}

/// No `task`: the default.
#[mcp_tool]
async fn plain() {}

struct Archive;

#[mcp_server]
impl Archive {
    /// Compress the archive.
    #[mcp_tool(task)]
    async fn compress(&self) -> String {
        String::new()
    }

    /// Verify the archive.
    #[mcp_tool(name = "verify", task = "optional")]
    async fn check(&self, deep: bool) -> bool {
        deep
    }

    /// Rebuild the archive.
    #[mcp_tool(task = "required")]
    fn rebuild(&self) {}

    /// List the archive.
    #[mcp_tool]
    async fn list(&self) {}
}

fn main() {
    let modes = |tools: &mcp_runtime::Tools| -> Vec<(String, TaskSupport)> {
        tools
            .handlers()
            .iter()
            .map(|handler| {
                let definition = handler.definition();
                (definition.name.to_string(), definition.task_support)
            })
            .collect()
    };
    let free = tools![index, export, train, quick, plain];
    let expected = [
        ("index", TaskSupport::Optional),
        ("export", TaskSupport::Optional),
        ("train", TaskSupport::Required),
        ("quick", TaskSupport::Forbidden),
        ("plain", TaskSupport::Forbidden),
    ];
    assert_eq!(
        modes(&free),
        expected.map(|(name, mode)| (name.to_owned(), mode))
    );
    let methods = std::sync::Arc::new(Archive).tools();
    let mut found = modes(&methods);
    found.sort_by(|a, b| a.0.cmp(&b.0));
    let expected = [
        ("compress", TaskSupport::Optional),
        ("list", TaskSupport::Forbidden),
        ("rebuild", TaskSupport::Required),
        ("verify", TaskSupport::Optional),
    ];
    assert_eq!(found, expected.map(|(name, mode)| (name.to_owned(), mode)));
}
