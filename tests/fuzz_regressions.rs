//! The fuzzers' curated corpus, replayed in the normal test suite: every file in
//! `tests/fuzz_corpus/<target>/` goes through the same harness function the fuzz target
//! `<target>` runs (`fuzz/src/lib.rs`, included below), which panics on any answer that is not
//! well-formed and on any verdict the runtime should not give. Inputs that once crashed a
//! target are kept here under a name saying what they found.

use std::path::{Path, PathBuf};

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod harness;

/// Every input of the target's corpus through `check`; fails naming each input that panicked.
fn replay(target: &str, check: fn(&[u8]) -> usize) -> usize {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_corpus")
        .join(target);
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", folder.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "{} holds no inputs", folder.display());
    let mut failures = Vec::new();
    let mut checked = 0;
    for input in &inputs {
        let bytes = std::fs::read(input).expect("a readable corpus file");
        match std::panic::catch_unwind(|| check(&bytes)) {
            Ok(answers) => checked += answers,
            Err(payload) => {
                let message = payload
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| payload.downcast_ref::<&str>().copied())
                    .unwrap_or("(no message)");
                failures.push(format!("{}: {message}", input.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} inputs failed:\n{}",
        failures.len(),
        inputs.len(),
        failures.join("\n")
    );
    checked
}

#[test]
fn jsonrpc_decode_corpus() {
    let error_answers = replay("jsonrpc_decode", harness::jsonrpc_decode);
    assert!(error_answers > 0, "the corpus includes bad messages");
}

#[test]
fn dispatcher_corpus() {
    let answers = replay("dispatcher", harness::dispatcher);
    assert!(answers > 0, "the corpus includes requests");
}

#[test]
fn tool_arguments_corpus() {
    let calls = replay("tool_arguments", harness::tool_arguments);
    assert!(calls > 0, "the corpus includes calls");
}
