// A type's own impl block becomes a server: `&self` methods, an associated fn, every kind of
// attribute with its options and injected values, `Self` in signatures and options, one method
// both a tool and a resource, plain helpers left alone; the service given by value or in an
// `Arc`, and the methods still callable as written.
#![deny(warnings)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use mcp_runtime::{CancellationToken, handler::McpService, RequestContext, Server, State, mcp_prompt, mcp_resource, mcp_server, mcp_tool, server_info};

#[derive(Default)]
pub struct Library {
    loans: AtomicU64,
}

pub struct Settings;

#[derive(Debug, Clone, Copy, serde::Deserialize, schemars::JsonSchema)]
pub enum Shelf {
    Fiction,
    Science,
}

#[mcp_server]
impl Library {
    const DEFAULT_DAYS: u32 = 14;

    pub fn new() -> Self {
        Self::default()
    }

    fn helper(&self) -> u64 {
        self.loans.load(Ordering::Relaxed)
    }

    /// Lend a book.
    ///
    /// # Arguments
    /// * `title` - the book
    #[mcp_tool(title = "Lend", annotations(destructive = false))]
    pub async fn lend(
        &self,
        title: String,
        #[arg(default = Self::DEFAULT_DAYS)] days: u32,
        shelf: Option<Shelf>,
        ctx: RequestContext,
        cancel: CancellationToken,
        settings: State<Settings>,
    ) -> Result<String, String> {
        let _ = (ctx, cancel, settings, shelf);
        self.loans.fetch_add(1, Ordering::Relaxed);
        Ok(format!("{title} for {days} days ({} loans)", self.helper()))
    }

    /// How many loans; a plain fn, run on the blocking pool.
    #[mcp_tool]
    #[mcp_resource("library://loans")]
    fn loans(self: &Self) -> String {
        self.helper().to_string()
    }

    /// The opening hours: no state needed.
    #[mcp_tool(name = "hours")]
    fn opening_hours() -> &'static str {
        "9-17"
    }

    /// A book's record.
    #[mcp_resource("library://books/{isbn}", list = Self::list_books, complete(isbn = Self::complete_isbn))]
    async fn book(&self, isbn: String) -> String {
        isbn
    }

    fn list_books() -> Vec<mcp_runtime::Resource> {
        Vec::new()
    }

    fn complete_isbn(prefix: &str) -> Vec<String> {
        vec![format!("{prefix}0")]
    }

    /// Recommend a book.
    #[mcp_prompt(name = "recommend")]
    async fn recommend(&self, shelf: String, #[arg(default)] count: u8) -> String {
        format!("{count} from {shelf}")
    }
}

fn main() {
    let library = Arc::new(Library::new());
    let _ = library.helper();
    let _ = Library::opening_hours();
    let _ = library.loans();
    assert_eq!(library.tools().handlers().len(), 3);
    let _by_arc = Server::new(server_info!()).service(library.clone());
    let _by_value = Server::new(server_info!())
        .with_state(Settings)
        .service(Library::new());
}
