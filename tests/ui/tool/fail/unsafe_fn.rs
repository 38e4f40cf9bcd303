// An `unsafe fn` is an error at `unsafe`: clients call tools with any arguments.
use mcp_runtime::mcp_tool;

/// Read memory.
#[mcp_tool]
async unsafe fn peek(address: usize) -> u8 {
    unsafe { *(address as *const u8) }
}

fn main() {}
