//! A fast hasher for tables whose keys a client cannot use against the server: FxHash, as
//! rustc uses it (a rotate, a xor and a multiply per word), in place of SipHash.
//!
//! Not resistant to chosen collisions. Use it where keys are made by the server (session ids)
//! or where a client choosing colliding keys slows only itself (a table of its own requests).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map hashed with [`FastHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// FxHash over 8-byte words.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

impl FastHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::hash::BuildHasher;

    use super::*;
    use crate::protocol::jsonrpc::RequestId;

    fn top_bits(key: impl std::hash::Hash) -> u64 {
        BuildHasherDefault::<FastHasher>::default().hash_one(key) >> 57
    }

    #[test]
    fn small_integers_and_similar_ids_spread_over_the_top_bits() {
        // hashbrown groups by the top 7 bits: neighbouring keys must not share them all.
        let ids: HashSet<u64> = (0..1000)
            .map(|n| top_bits(RequestId::Number(n.into())))
            .collect();
        assert!(ids.len() > 64, "{}", ids.len());
        let sessions: HashSet<u64> = (0..1000)
            .map(|n| top_bits(format!("east-2.{n:064x}")))
            .collect();
        assert!(sessions.len() > 64, "{}", sessions.len());
    }
}
