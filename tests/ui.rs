//! Compile-time behaviour of the macros: every supported shape compiles (and its expansion
//! raises no warning), every mistake gets the one clear error its `.stderr` file pins.
//!
//! After an intended change to a message, run `TRYBUILD=overwrite cargo test --test ui` and
//! read every changed `.stderr` before keeping it.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/tool/pass/*.rs");
    cases.compile_fail("tests/ui/tool/fail/*.rs");
    cases.pass("tests/ui/tools/pass/*.rs");
    cases.compile_fail("tests/ui/tools/fail/*.rs");
    cases.pass("tests/ui/resource/pass/*.rs");
    cases.compile_fail("tests/ui/resource/fail/*.rs");
    cases.compile_fail("tests/ui/resources/fail/*.rs");
    cases.pass("tests/ui/prompt/pass/*.rs");
    cases.compile_fail("tests/ui/prompt/fail/*.rs");
    cases.compile_fail("tests/ui/prompts/fail/*.rs");
    cases.pass("tests/ui/server/pass/*.rs");
    cases.compile_fail("tests/ui/server/fail/*.rs");
}
