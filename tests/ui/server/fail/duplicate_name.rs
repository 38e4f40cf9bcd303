// Two tools of one name in the block are an error at the second name; likewise two prompts, and
// two resources answering the same URIs at the second URI.
use mcp_runtime::{mcp_prompt, mcp_resource, mcp_server, mcp_tool};

struct Service;

#[mcp_server]
impl Service {
    /// Find.
    #[mcp_tool]
    async fn find(&self) -> String {
        String::new()
    }

    /// Find again.
    #[mcp_tool(name = "find")]
    async fn find_again(&self) -> String {
        String::new()
    }

    /// A page.
    #[mcp_resource("doc://{name}")]
    async fn page(&self, name: String) -> String {
        name
    }

    /// The same pages.
    #[mcp_resource("doc://{title}")]
    async fn other_page(&self, title: String) -> String {
        title
    }

    /// Ask.
    #[mcp_prompt]
    fn ask(&self) -> String {
        String::new()
    }

    /// Ask too.
    #[mcp_prompt(name = "ask")]
    fn ask_too(&self) -> String {
        String::new()
    }
}

fn main() {}
