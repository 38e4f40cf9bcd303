//! A digest of a JSON value that does not depend on how its objects' members were ordered: a
//! client retrying a request may send the same arguments in another order.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// SHA-256 of `value` written with every object's keys sorted, as lowercase hex.
pub(crate) fn digest(value: &Value) -> String {
    let mut hasher = Sha256::new();
    write(value, &mut hasher);
    crate::random::hex(&hasher.finalize())
}

fn write(value: &Value, hasher: &mut Sha256) {
    match value {
        Value::Object(members) => {
            let mut keys: Vec<&String> = members.keys().collect();
            keys.sort();
            hasher.update(b"{");
            for key in keys {
                write_str(key, hasher);
                hasher.update(b":");
                write(&members[key.as_str()], hasher);
                hasher.update(b",");
            }
            hasher.update(b"}");
        }
        Value::Array(items) => {
            hasher.update(b"[");
            for item in items {
                write(item, hasher);
                hasher.update(b",");
            }
            hasher.update(b"]");
        }
        Value::String(text) => write_str(text, hasher),
        other => hasher.update(other.to_string().as_bytes()),
    }
}

fn write_str(text: &str, hasher: &mut Sha256) {
    // JSON-escaped, so no string can imitate the punctuation around it.
    hasher.update(Value::String(text.to_owned()).to_string().as_bytes());
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
    }
}
