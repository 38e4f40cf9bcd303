//! JSON written the same way whatever order its objects' members came in, and its digest: a
//! client may send the same arguments in another order (a retried 2026-07-28 call, a cached or
//! audited tool call), and what binds, keys or records them must not care.

use std::io;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// `members` as compact JSON with every object's keys sorted, at every depth.
pub(crate) fn canonical_object(members: &Map<String, Value>) -> String {
    let mut out = Vec::with_capacity(64);
    write_object(members, &mut out);
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// SHA-256 of [`canonical_object`]'s text, as lowercase hex, hashed as it is written.
pub(crate) fn canonical_digest(members: &Map<String, Value>) -> String {
    let mut hasher = Hashing(Sha256::new());
    write_object(members, &mut hasher);
    crate::random::hex(&hasher.0.finalize())
}

/// SHA-256 of `value` written as [`canonical_object`] writes objects, as lowercase hex.
pub(crate) fn digest(value: &Value) -> String {
    let mut hasher = Hashing(Sha256::new());
    write(value, &mut hasher);
    crate::random::hex(&hasher.0.finalize())
}

/// Feeds what is written to the digest.
struct Hashing(Sha256);

impl io::Write for Hashing {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn write(value: &Value, out: &mut impl io::Write) {
    match value {
        Value::Object(members) => write_object(members, out),
        Value::Array(items) => {
            put(out, b"[");
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    put(out, b",");
                }
                write(item, out);
            }
            put(out, b"]");
        }
        // Strings escaped and numbers written as serde_json writes them.
        scalar => write_json(scalar, out),
    }
}

fn write_object(members: &Map<String, Value>, out: &mut impl io::Write) {
    let mut entries: Vec<(&String, &Value)> = members.iter().collect();
    entries.sort_unstable_by_key(|(key, _)| *key);
    put(out, b"{");
    for (index, (key, value)) in entries.into_iter().enumerate() {
        if index > 0 {
            put(out, b",");
        }
        write_json(key, out);
        put(out, b":");
        write(value, out);
    }
    put(out, b"}");
}

fn put(out: &mut impl io::Write, bytes: &[u8]) {
    out.write_all(bytes)
        .expect("memory and digests take every byte");
}

fn write_json<T: serde::Serialize + ?Sized>(value: &T, out: &mut impl io::Write) {
    serde_json::to_writer(out, value).expect("a JSON value always serializes");
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn canonical(value: Value) -> String {
        canonical_object(value.as_object().unwrap())
    }

    #[test]
    fn keys_are_sorted_at_every_depth() {
        let value = json!({"b": [{"z": 1, "y": "\"q\""}], "a": null});
        assert_eq!(canonical(value), r#"{"a":null,"b":[{"y":"\"q\"","z":1}]}"#);
        assert_eq!(
            canonical(json!({"b": [{"y": "\"q\"", "z": 1}], "a": null})),
            canonical(json!({"a": null, "b": [{"z": 1, "y": "\"q\""}]}))
        );
    }

    #[test]
    fn member_order_does_not_matter_but_content_does() {
        let a = json!({"x": 1, "y": {"b": [1, "2"], "a": null}});
        let b = json!({"y": {"a": null, "b": [1, "2"]}, "x": 1});
        assert_eq!(digest(&a), digest(&b));
        assert_ne!(
            digest(&a),
            digest(&json!({"x": 1, "y": {"b": [1, 2], "a": null}}))
        );
        assert_ne!(digest(&json!(["a,b"])), digest(&json!(["a", "b"])));
        assert_eq!(digest(&json!({})).len(), 64);
        assert_eq!(digest(&a), canonical_digest(a.as_object().unwrap()));
    }
}
