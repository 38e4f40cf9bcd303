#![no_main]
//! See `mcp_fuzz::jsonrpc_decode` for what is fed and checked.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    mcp_fuzz::jsonrpc_decode(data);
});
