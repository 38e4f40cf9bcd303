//! Random ids and bytes: request-state nonces and keys, task ids, server-to-client request ids,
//! the ids of resumable event streams.

use sha2::{Digest, Sha256};

/// A fresh random identifier (128 bits, hex), unique for all practical purposes.
pub(crate) fn id() -> String {
    let mut bytes = [0; 16];
    fill(&mut bytes, "an id");
    hex(&bytes)
}

/// `bytes` (at most 32) filled from the OS's randomness, or, should it fail, with bytes unique
/// in this process (a counter) and unlikely elsewhere (the clock, the process, the address
/// space): guessable, but a repeated nonce or id would be worse, and so would failing.
pub(crate) fn fill(bytes: &mut [u8], what: &str) {
    if let Err(error) = getrandom::fill(bytes) {
        tracing::error!(%error, "no randomness for {what}; using a weaker substitute");
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let seed = format!(
            "{:?}{}{}{:p}",
            std::time::SystemTime::now(),
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            bytes
        );
        let digest: [u8; 32] = Sha256::digest(seed.as_bytes()).into();
        bytes.copy_from_slice(&digest[..bytes.len()]);
    }
}

/// `bytes` in lowercase hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    // By table: formatting each byte costs some twenty times as much (an audit log hexes a
    // digest per request).
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = Vec::with_capacity(bytes.len() * 2);
    for &byte in bytes {
        out.push(DIGITS[usize::from(byte >> 4)]);
        out.push(DIGITS[usize::from(byte & 0x0f)]);
    }
    String::from_utf8(out).expect("hex digits are ASCII")
}
