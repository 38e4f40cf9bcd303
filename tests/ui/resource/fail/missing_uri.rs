// Without its URI the attribute says what to write, and the function stays usable.
use mcp_runtime::mcp_resource;

/// The settings.
#[mcp_resource(name = "settings")]
async fn settings() -> String {
    String::new()
}

fn main() {
    let _ = settings();
}
