// A plain (not async) fn is a tool; it runs on the blocking pool.
#![deny(warnings)]

use mcp_runtime::{mcp_tool, tools};

/// Count the words in a text.
#[mcp_tool]
fn count_words(text: String) -> usize {
    text.split_whitespace().count()
}

fn main() {
    let tools = tools![count_words];
    assert_eq!(tools.handlers()[0].definition().name, "count_words");
    assert_eq!(count_words("a b c".into()), 3);
}
