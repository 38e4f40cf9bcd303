//! Answers about tokens, remembered until they expire: keyed by a digest of the token (so the
//! cache holds no token), bounded in size.

use std::collections::HashMap;
use std::sync::Mutex;

use sha2::{Digest, Sha256};

/// The cache key of `token` as checked for `resource`: one verifier may serve two
/// resources, whose audiences differ.
pub(crate) fn key(token: &str, resource: Option<&str>) -> [u8; 32] {
    let mut digest = Sha256::new();
    let resource = resource.unwrap_or("");
    // The length first, so that no (resource, token) pair hashes as another.
    digest.update((resource.len() as u64).to_le_bytes());
    digest.update(resource.as_bytes());
    digest.update(token.as_bytes());
    digest.finalize().into()
}

/// At most `capacity` answers, each until its expiry (unix seconds).
pub(crate) struct TokenCache<V> {
    capacity: usize,
    entries: Mutex<Entries<V>>,
}

struct Entries<V> {
    map: HashMap<[u8; 32], Entry<V>>,
    /// Insertion counter: the oldest entries go first when nothing has expired.
    next: u64,
}

struct Entry<V> {
    expires: u64,
    inserted: u64,
    value: V,
}

impl<V: Clone> TokenCache<V> {
    pub(crate) fn new(capacity: usize) -> Self {
        TokenCache {
            capacity: capacity.max(1),
            entries: Mutex::new(Entries {
                map: HashMap::new(),
                next: 0,
            }),
        }
    }

    /// The answer for `key`, unless it has expired by `now`.
    pub(crate) fn get(&self, key: &[u8; 32], now: u64) -> Option<V> {
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match entries.map.get(key) {
            Some(entry) if entry.expires > now => Some(entry.value.clone()),
            Some(_) => {
                entries.map.remove(key);
                None
            }
            None => None,
        }
    }

    /// Remember `value` for `key` until `expires`. When full, expired answers go; when none
    /// has, the oldest tenth, so that a stream of new tokens costs a scan per tenth of the
    /// capacity rather than one per token.
    pub(crate) fn insert(&self, key: [u8; 32], value: V, expires: u64, now: u64) {
        if expires <= now {
            return;
        }
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if entries.map.len() >= self.capacity && !entries.map.contains_key(&key) {
            entries.map.retain(|_, entry| entry.expires > now);
            if entries.map.len() >= self.capacity {
                let evict = (self.capacity / 10).max(1);
                let mut ages: Vec<u64> = entries.map.values().map(|entry| entry.inserted).collect();
                let (_, &mut newest_evicted, _) = ages.select_nth_unstable(evict - 1);
                entries
                    .map
                    .retain(|_, entry| entry.inserted > newest_evicted);
            }
        }
        let inserted = entries.next;
        entries.next += 1;
        entries.map.insert(
            key,
            Entry {
                expires,
                inserted,
                value,
            },
        );
    }

    /// Forget every answer.
    pub(crate) fn clear(&self) {
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        entries.map.clear();
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.lock().unwrap().map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(n: u8) -> [u8; 32] {
        [n; 32]
    }

    #[test]
    fn an_answer_is_kept_until_its_expiry() {
        let cache = TokenCache::new(10);
        cache.insert(k(1), "a", 100, 50);
        assert_eq!(cache.get(&k(1), 99), Some("a"));
        assert_eq!(cache.get(&k(1), 100), None);
        assert_eq!(
            cache.len(),
            0,
            "an expired answer is dropped when looked up"
        );
        cache.insert(k(2), "b", 10, 10);
        assert_eq!(cache.len(), 0, "an answer expired already is not kept");
    }

    #[test]
    fn a_full_cache_drops_expired_answers_first_then_the_oldest() {
        let cache = TokenCache::new(10);
        for n in 0..10 {
            // Two of them expire at 20, the rest at 1000.
            let expires = if n == 3 || n == 7 { 20 } else { 1000 };
            cache.insert(k(n), n, expires, 0);
        }
        cache.insert(k(10), 10, 1000, 30);
        assert_eq!(cache.len(), 9);
        assert_eq!(cache.get(&k(0), 30), Some(0), "nothing live was evicted");
        assert_eq!(cache.get(&k(3), 30), None);
        cache.insert(k(11), 11, 1000, 30);
        cache.insert(k(12), 12, 1000, 30);
        assert_eq!(cache.len(), 10, "at capacity, never above");
        assert_eq!(cache.get(&k(0), 30), None, "the oldest went");
        assert_eq!(cache.get(&k(1), 30), Some(1));
        assert_eq!(cache.get(&k(12), 30), Some(12));
    }

    #[test]
    fn the_key_separates_resources() {
        assert_ne!(key("t", Some("a")), key("t", Some("b")));
        assert_eq!(key("t", Some("a")), key("t", Some("a")));
        assert_ne!(key("ab", Some("c")), key("b", Some("ca")));
    }
}
