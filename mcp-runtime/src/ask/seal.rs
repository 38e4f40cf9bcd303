//! `requestState` travels through the client and comes back attacker-controlled, so it is
//! sealed: `base64url(key id || nonce || XChaCha20-Poly1305(payload))`, the key id (4 bytes)
//! authenticated as associated data, the nonce (24 bytes) random per state. The client can
//! neither read nor alter it, and learns nothing but its length; only a holder of the secret
//! (this server, or its replicas given the same one) can make one that opens.
//!
//! One secret yields, through HKDF-SHA-256 under distinct labels, the encryption key, the key
//! that digests principals and the key id: replicas sharing a secret agree on all three, and
//! none of them reveals another.

use std::fmt;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Bytes of the key id that leads a sealed state: enough that the current and the previous
/// key practically never share one (a clash costs a second decryption attempt, no more).
const KEY_ID_LEN: usize = 4;
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;

/// HKDF's salt: what is derived here differs from what any other use of the same secret
/// derives.
const SALT: &[u8] = b"mcp-runtime requestState";

/// The keys that seal and open `requestState`: the current one seals, and a previous one, when
/// set, still opens what it sealed while a new secret is rolled out. Random per process unless
/// set: replicas behind one load balancer must share it (see `Server::request_state_key`).
#[derive(Clone)]
pub(crate) struct SealKey {
    current: Arc<Keys>,
    previous: Option<Arc<Keys>>,
}

/// What one secret derives.
struct Keys {
    id: [u8; KEY_ID_LEN],
    cipher: XChaCha20Poly1305,
    /// The HMAC key of principal digests, so a principal's name cannot be confirmed by hashing
    /// guesses, even by someone who reads an old state's payload.
    principal: [u8; 32],
}

impl Keys {
    fn derive(secret: &[u8]) -> Self {
        let id = hkdf_sha256(SALT, secret, b"key id");
        Keys {
            id: id[..KEY_ID_LEN].try_into().expect("4 of 32 bytes"),
            cipher: XChaCha20Poly1305::new(&hkdf_sha256(SALT, secret, b"encryption").into()),
            principal: hkdf_sha256(SALT, secret, b"principal"),
        }
    }

    fn principal_digest(&self, principal: &str) -> String {
        crate::random::hex(&hmac_sha256(&self.principal, &[principal.as_bytes()]))
    }
}

/// Why a state did not open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Sealed under a key this server does not hold (another deployment's, a retired one, or
    /// no key at all: made up).
    UnknownKey,
    /// Not a sealed state, or one altered since it was sealed.
    Altered,
}

/// An opened state, and the key that opened it: the principal digest inside was made with it.
pub(crate) struct Opened<'k> {
    pub(crate) payload: Value,
    keys: &'k Keys,
}

impl Opened<'_> {
    /// `principal`'s digest as the key that sealed this state made it.
    pub(crate) fn principal_digest(&self, principal: &str) -> String {
        self.keys.principal_digest(principal)
    }
}

impl SealKey {
    /// A fresh random key.
    pub(crate) fn random() -> Self {
        let mut secret = [0; 32];
        crate::random::fill(&mut secret, "the requestState key");
        Self::from_secret(&secret)
    }

    /// A key derived from `secret` (any length).
    pub(crate) fn from_secret(secret: &[u8]) -> Self {
        SealKey {
            current: Arc::new(Keys::derive(secret)),
            previous: None,
        }
    }

    /// This key sealing with `secret` from now on; the previous key stays as it was.
    pub(crate) fn with_current(self, secret: &[u8]) -> Self {
        SealKey {
            current: Arc::new(Keys::derive(secret)),
            previous: self.previous,
        }
    }

    /// This key also opening what `secret` sealed.
    pub(crate) fn with_previous(self, secret: &[u8]) -> Self {
        SealKey {
            current: self.current,
            previous: Some(Arc::new(Keys::derive(secret))),
        }
    }

    /// `principal`'s digest as states sealed now carry it.
    pub(crate) fn principal_digest(&self, principal: &str) -> String {
        self.current.principal_digest(principal)
    }

    /// Seal `payload` under the current key.
    pub(crate) fn seal(&self, payload: &Value) -> String {
        let keys = &self.current;
        let nonce = fresh_nonce();
        let ciphertext = keys
            .cipher
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: payload.to_string().as_bytes(),
                    aad: &keys.id,
                },
            )
            .expect("XChaCha20-Poly1305 seals messages up to 256 GiB");
        let mut sealed = Vec::with_capacity(KEY_ID_LEN + NONCE_LEN + ciphertext.len());
        sealed.extend_from_slice(&keys.id);
        sealed.extend_from_slice(&nonce);
        sealed.extend_from_slice(&ciphertext);
        base64url(&sealed)
    }

    /// The payload of `sealed`, unless it was sealed under neither key or was altered.
    pub(crate) fn open(&self, sealed: &str) -> Result<Opened<'_>, Refusal> {
        let bytes = from_base64url(sealed).ok_or(Refusal::Altered)?;
        if bytes.len() < KEY_ID_LEN + NONCE_LEN + TAG_LEN {
            return Err(Refusal::Altered);
        }
        let (id, rest) = bytes.split_at(KEY_ID_LEN);
        let (nonce, ciphertext) = rest.split_at(NONCE_LEN);
        let mut candidates = std::iter::once(&self.current)
            .chain(&self.previous)
            .filter(|keys| keys.id == id)
            .peekable();
        if candidates.peek().is_none() {
            return Err(Refusal::UnknownKey);
        }
        for keys in candidates {
            let payload = Payload {
                msg: ciphertext,
                aad: id,
            };
            if let Ok(plaintext) = keys.cipher.decrypt(XNonce::from_slice(nonce), payload) {
                let payload = serde_json::from_slice(&plaintext).map_err(|_| Refusal::Altered)?;
                return Ok(Opened { payload, keys });
            }
        }
        Err(Refusal::Altered)
    }
}

impl fmt::Debug for SealKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SealKey(..)")
    }
}

/// A nonce never used before with any key: random, so replicas sealing under one key need not
/// coordinate (192 bits make a collision negligible).
fn fresh_nonce() -> [u8; NONCE_LEN] {
    let mut nonce = [0; NONCE_LEN];
    crate::random::fill(&mut nonce, "a requestState nonce");
    nonce
}

/// HKDF-SHA-256 (RFC 5869) of one 32-byte output, where Expand is its first block alone:
/// HMAC(PRK, info || 0x01). Written over `hmac` rather than taken from the `hkdf` crate, which
/// cost the stripped calculator about 430 bytes more, at the edge of its 1.5 MiB budget.
fn hkdf_sha256(salt: &[u8], secret: &[u8], info: &[u8]) -> [u8; 32] {
    let extracted = hmac_sha256(salt, &[secret]);
    hmac_sha256(&extracted, &[info, &[1]])
}

fn hmac_sha256(key: &[u8], message: &[&[u8]]) -> [u8; 32] {
    let mut mac = <HmacSha256 as Mac>::new_from_slice(key).expect("HMAC takes keys of any length");
    for part in message {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

#[cfg(test)]
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

    fn payload() -> Value {
        json!({"tool": "delete", "answers": {"q0": {"action": "accept"}}})
    }

    fn opened(key: &SealKey, sealed: &str) -> Result<Value, Refusal> {
        key.open(sealed).map(|opened| opened.payload)
    }

    #[test]
    fn only_the_same_key_opens_a_state() {
        let key = SealKey::random();
        let sealed = key.seal(&payload());
        assert_eq!(opened(&key, &sealed), Ok(payload()));
        assert_eq!(
            opened(&SealKey::random(), &sealed),
            Err(Refusal::UnknownKey),
            "another server's key"
        );
        assert_eq!(opened(&key, "not a state"), Err(Refusal::Altered));
        assert_eq!(opened(&key, ""), Err(Refusal::Altered));
        let shared = SealKey::from_secret(b"replicas share this");
        assert_eq!(
            opened(
                &SealKey::from_secret(b"replicas share this"),
                &shared.seal(&payload())
            ),
            Ok(payload())
        );
        assert_ne!(
            key.seal(&payload()),
            key.seal(&payload()),
            "a fresh nonce for every state"
        );
    }

    #[test]
    fn altering_any_byte_is_refused() {
        let key = SealKey::from_secret(b"secret").with_previous(b"old secret");
        let bytes = from_base64url(&key.seal(&payload())).unwrap();
        for at in 0..bytes.len() {
            let mut altered = bytes.clone();
            altered[at] ^= 0x01;
            let refused = opened(&key, &base64url(&altered));
            // A changed key id finds no key (or the wrong one); anything else fails the tag.
            let expected = if at < KEY_ID_LEN {
                Err(Refusal::UnknownKey)
            } else {
                Err(Refusal::Altered)
            };
            assert_eq!(refused, expected, "byte {at}");
        }
        assert_eq!(
            opened(&key, &base64url(&bytes[..bytes.len() - 1])),
            Err(Refusal::Altered),
            "cut short"
        );
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(opened(&key, &base64url(&longer)), Err(Refusal::Altered));
    }

    #[test]
    fn the_sealed_bytes_reveal_neither_the_principal_nor_the_answers() {
        let key = SealKey::random();
        let principal = "alice@example.com";
        let answer = "the launch code is 0000";
        let sealed = key.seal(&json!({
            "p": key.principal_digest(principal),
            "r": {"q0": ["digest", {"action": "accept", "content": {"reason": answer}}]},
        }));
        let bytes = from_base64url(&sealed).unwrap();
        let hash = sha2_of(principal.as_bytes());
        let hex_hash = crate::random::hex(&hash);
        let json_digest = crate::canonical::digest(&json!(principal));
        let needles: [&[u8]; 7] = [
            principal.as_bytes(),
            b"alice",
            &hash,
            hex_hash.as_bytes(),
            json_digest.as_bytes(),
            answer.as_bytes(),
            b"accept",
        ];
        for needle in needles {
            assert!(
                !bytes.windows(needle.len()).any(|window| window == needle),
                "{:?} in the sealed state",
                String::from_utf8_lossy(needle)
            );
            assert!(!sealed.as_bytes().windows(needle.len()).any(|w| w == needle));
        }
    }

    #[test]
    fn the_principal_digest_is_keyed() {
        let key = SealKey::from_secret(b"secret");
        let digest = key.principal_digest("alice");
        assert_eq!(digest.len(), 64);
        assert_eq!(
            digest,
            SealKey::from_secret(b"secret").principal_digest("alice")
        );
        assert_ne!(digest, key.principal_digest("bob"));
        assert_ne!(
            digest,
            SealKey::from_secret(b"another").principal_digest("alice")
        );
        assert_ne!(digest, crate::random::hex(&sha2_of(b"alice")));
        assert_ne!(digest, crate::canonical::digest(&json!("alice")));
    }

    #[test]
    fn a_previous_key_opens_its_states_but_seals_nothing() {
        let old = SealKey::from_secret(b"old secret");
        let sealed_before = old.seal(&payload());
        let rolled = SealKey::from_secret(b"new secret").with_previous(b"old secret");
        let opened_old = rolled.open(&sealed_before).unwrap();
        assert_eq!(opened_old.payload, payload());
        // Its principal digests are the old key's, as the state was sealed.
        assert_eq!(
            opened_old.principal_digest("alice"),
            old.principal_digest("alice")
        );
        assert_ne!(
            rolled.principal_digest("alice"),
            old.principal_digest("alice")
        );
        assert_eq!(
            opened(&SealKey::from_secret(b"new secret"), &sealed_before),
            Err(Refusal::UnknownKey),
            "without the previous key"
        );
        assert_eq!(
            opened(
                &SealKey::from_secret(b"new secret").with_previous(b"another"),
                &sealed_before
            ),
            Err(Refusal::UnknownKey)
        );
        // New states are sealed under the current key: a server with only the old one
        // cannot open them, one with only the new one can.
        let sealed_now = rolled.seal(&payload());
        assert_eq!(opened(&old, &sealed_now), Err(Refusal::UnknownKey));
        assert_eq!(
            opened(&SealKey::from_secret(b"new secret"), &sealed_now),
            Ok(payload())
        );
        // Setting the current key keeps the previous one.
        let again = SealKey::from_secret(b"x")
            .with_previous(b"old secret")
            .with_current(b"new secret");
        assert_eq!(opened(&again, &sealed_before), Ok(payload()));
        assert_eq!(opened(&again, &sealed_now), Ok(payload()));
    }

    #[test]
    fn the_key_derivation_is_hkdf_sha256() {
        // RFC 5869, test case 1: the first 32 bytes of its OKM.
        let salt: Vec<u8> = (0x00..=0x0c).collect();
        let info: Vec<u8> = (0xf0..=0xf9).collect();
        assert_eq!(
            crate::random::hex(&hkdf_sha256(&salt, &[0x0b; 22], &info)),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
        );
    }

    #[test]
    fn the_key_id_depends_on_the_secret_only() {
        let id = |secret: &[u8]| {
            from_base64url(&SealKey::from_secret(secret).seal(&payload())).unwrap()[..KEY_ID_LEN]
                .to_vec()
        };
        assert_eq!(id(b"shared"), id(b"shared"));
        assert_ne!(id(b"shared"), id(b"other"));
    }
}
