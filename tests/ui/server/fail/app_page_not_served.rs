// In an `#[mcp_server]` block that serves app pages, a tool naming a page the block does not
// serve is an error at its `app` URI, naming the pages it does serve.
use mcp_runtime::{mcp_resource, mcp_server, mcp_tool};

struct Weather;

#[mcp_server]
impl Weather {
    /// The forecast.
    #[mcp_tool(app = "ui://weather/forcast")]
    async fn forecast(&self) -> &'static str {
        "sunny"
    }

    /// The page.
    #[mcp_resource("ui://weather/forecast", app)]
    fn page(&self) -> &'static str {
        "<!doctype html>"
    }
}

fn main() {}
