// A block with no marked method is an empty service, and the attribute can be written by path.
#![deny(warnings)]
#[derive(Clone)]
struct Quiet;

#[mcp_runtime::mcp_server]
impl Quiet {
    #[mcp_runtime::mcp_tool]
    async fn hush(&self) {}

    fn other(&self) {}
}

struct Nothing;

#[mcp_runtime::mcp_server]
impl Nothing {}

fn main() {
    Quiet.other();
    let _server = mcp_runtime::Server::new(mcp_runtime::server_info!())
        .service(Quiet)
        .service(Nothing);
}
