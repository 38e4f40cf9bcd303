//! JSON written the same way whatever order its objects' members came in: a client may send
//! the same arguments in another order, and the audit digest and the cache key must not care.

use serde_json::{Map, Value};

/// `members` as compact JSON with every object's keys sorted, at every depth.
pub(super) fn canonical_object(members: &Map<String, Value>) -> String {
    let mut out = String::new();
    write_object(members, &mut out);
    out
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Object(members) => write_object(members, out),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        // Strings escaped and numbers written as serde_json writes them.
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn write_object(members: &Map<String, Value>, out: &mut String) {
    let mut keys: Vec<&String> = members.keys().collect();
    keys.sort();
    out.push('{');
    for (index, key) in keys.into_iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&Value::String(key.clone()).to_string());
        out.push(':');
        write(&members[key.as_str()], out);
    }
    out.push('}');
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
}
