//! `requestState` travels through the client and comes back attacker-controlled, so it is
//! sealed: `base64url(payload) "." base64url(HMAC-SHA-256(key, payload))`. Only a holder of the
//! key (this server, or its replicas given the same key) can make one that opens.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The key that seals and opens `requestState`. Random per process unless set: replicas behind
/// one load balancer must share it (see `Server::request_state_key`).
#[derive(Clone)]
pub(crate) struct SealKey([u8; 32]);

impl SealKey {
    /// A fresh random key.
    pub(crate) fn random() -> Self {
        let mut key = [0; 32];
        if let Err(error) = getrandom::fill(&mut key) {
            // Without randomness no state can be trusted: a key nobody can guess is still
            // better than none, so mix the clock and the address space in.
            tracing::error!(%error, "no randomness for the requestState key; using a weaker one");
            let fallback = format!("{:?}{:p}", std::time::SystemTime::now(), &key);
            key = sha2_of(fallback.as_bytes());
        }
        SealKey(key)
    }

    /// A key derived from `secret` (any length; hashed to 32 bytes).
    pub(crate) fn from_secret(secret: &[u8]) -> Self {
        SealKey(sha2_of(secret))
    }

    fn mac(&self) -> HmacSha256 {
        HmacSha256::new_from_slice(&self.0).expect("HMAC takes keys of any length")
    }

    /// Seal `payload`.
    pub(crate) fn seal(&self, payload: &Value) -> String {
        let payload = payload.to_string();
        let mut mac = self.mac();
        mac.update(payload.as_bytes());
        let tag = mac.finalize().into_bytes();
        format!("{}.{}", base64url(payload.as_bytes()), base64url(&tag))
    }

    /// The payload of `sealed`, or `None` if it was not sealed with this key or was altered.
    pub(crate) fn open(&self, sealed: &str) -> Option<Value> {
        let (payload, tag) = sealed.split_once('.')?;
        let payload = from_base64url(payload)?;
        let tag = from_base64url(tag)?;
        let mut mac = self.mac();
        mac.update(&payload);
        // Constant-time comparison.
        mac.verify_slice(&tag).ok()?;
        serde_json::from_slice(&payload).ok()
    }
}

impl fmt::Debug for SealKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SealKey(..)")
    }
}

/// A fresh random identifier (128 bits, hex), unique for all practical purposes.
pub(crate) fn random_id() -> String {
    let mut bytes = [0; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // Unique still, if guessable: a counter mixed with the clock.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let seed = format!(
            "{:?}{}",
            std::time::SystemTime::now(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        bytes.copy_from_slice(&sha2_of(seed.as_bytes())[..16]);
    }
    super::canonical::hex(&bytes)
}

fn sha2_of(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    Sha256::digest(bytes).into()
}

/// Base64url without padding (RFC 4648 §5): safe in JSON, URLs and headers as it is.
fn base64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn from_base64url(text: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_the_same_key_opens_an_unaltered_state() {
        let key = SealKey::random();
        let payload = json!({"tool": "delete", "answers": {"q0": {"action": "accept"}}});
        let sealed = key.seal(&payload);
        assert_eq!(key.open(&sealed), Some(payload.clone()));
        assert_eq!(
            SealKey::random().open(&sealed),
            None,
            "another server's key"
        );
        let (body, tag) = sealed.split_once('.').unwrap();
        let forged = base64url(br#"{"tool":"delete","answers":{}}"#);
        assert_eq!(
            key.open(&format!("{forged}.{tag}")),
            None,
            "altered payload"
        );
        assert_eq!(key.open(body), None, "no tag");
        assert_eq!(key.open("not a state"), None);
        let shared = SealKey::from_secret(b"replicas share this");
        assert_eq!(
            SealKey::from_secret(b"replicas share this").open(&shared.seal(&payload)),
            Some(payload)
        );
    }
}
