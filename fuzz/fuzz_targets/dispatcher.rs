#![no_main]
//! See `mcp_fuzz::dispatcher` for what is fed and checked.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    mcp_fuzz::dispatcher(data);
});
