#![no_main]
//! See `mcp_fuzz::tool_arguments` for what is fed and checked.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    mcp_fuzz::tool_arguments(data);
});
