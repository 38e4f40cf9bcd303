// An MCP App page is one `ui://` URI served as `text/html;profile=mcp-app`: a template, another
// scheme or another MIME type is refused where it is written.
use mcp_runtime::mcp_resource;

#[mcp_resource("ui://pages/{name}", app)]
fn templated(name: String) -> String {
    name
}

#[mcp_resource("https://example.com/page", app)]
fn web() -> &'static str {
    ""
}

#[mcp_resource("ui://page", app, mime_type = "text/html")]
fn plain_html() -> &'static str {
    ""
}

#[mcp_resource("ui://page2", app(csp(connect_domains("api.example.com")), permissions(webcam)))]
fn bad_options() -> &'static str {
    ""
}

fn main() {}
