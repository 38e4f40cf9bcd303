// A method gets the checks of its attribute, as a free function does: here an unknown option,
// a parameter that is not an argument type, and a documented argument that does not exist.
use mcp_runtime::{mcp_server, mcp_tool};

struct Service;

struct Opaque;

#[mcp_server]
impl Service {
    /// Run.
    ///
    /// # Arguments
    /// * `missing` - not a parameter
    #[mcp_tool(nmae = "run")]
    async fn run(&self, value: Opaque) -> String {
        let _ = value;
        String::new()
    }
}

fn main() {}
