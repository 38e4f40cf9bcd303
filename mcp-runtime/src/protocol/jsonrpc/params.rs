//! The `params` object of a request or notification, read in one pass with the members a
//! `tools/call` needs already taken out.
//!
//! The envelope is read before its method is known (members come in any order), so every
//! `params` object takes this one shape. `name`, `arguments`, `_meta`, `requestState` and
//! `inputResponses` land in fields of their own; any other member goes, in order, into a map
//! made only when there is one. A `tools/call` then builds no map for `params` itself (with
//! serde_json's `preserve_order`, an `IndexMap` hashing every key with SipHash): only its
//! arguments and `_meta` are objects. Methods that want the whole object get it back through
//! [`Params::into_object`].

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use crate::handler::JsonObject;

/// A `params` object.
///
/// As with a map, a member given twice keeps its last value; `null` members are kept as
/// `null` (what they mean is each method's business).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Params {
    /// `name`.
    pub(crate) name: Option<Value>,
    /// `arguments`.
    pub(crate) arguments: Option<Value>,
    /// `_meta`.
    pub(crate) meta: Option<Value>,
    /// `requestState` (2026-07-28 retries).
    pub(crate) request_state: Option<Value>,
    /// `inputResponses` (2026-07-28 retries).
    pub(crate) input_responses: Option<Value>,
    /// Every other member, in order; `None` when there is none.
    pub(crate) rest: Option<JsonObject>,
}

/// The members with a field of their own, in the order [`Params::into_object`] puts them.
const FIELDS: [&str; 5] = [
    "name",
    "arguments",
    "_meta",
    "requestState",
    "inputResponses",
];

impl Params {
    /// The member `key`, as a map would give it.
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        match Key::known(key) {
            Some(Key::Name) => self.name.as_ref(),
            Some(Key::Arguments) => self.arguments.as_ref(),
            Some(Key::Meta) => self.meta.as_ref(),
            Some(Key::RequestState) => self.request_state.as_ref(),
            Some(Key::InputResponses) => self.input_responses.as_ref(),
            _ => self.rest.as_ref()?.get(key),
        }
    }

    /// Read the members of a `params` object from `map`, boxed (a message is moved a few
    /// times on its way, and the members are written where they stay).
    pub(crate) fn from_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<Box<Self>, A::Error> {
        let mut params = Box::<Params>::default();
        while let Some(key) = map.next_key::<Key>()? {
            let value = map.next_value::<Value>()?;
            params.set(key, value);
        }
        Ok(params)
    }

    /// `_meta`, when it is an object.
    pub(crate) fn meta(&self) -> Option<&JsonObject> {
        self.meta.as_ref()?.as_object()
    }

    /// The whole object: the members with fields of their own first, then the others in
    /// order.
    pub(crate) fn into_object(self) -> JsonObject {
        let mut object = JsonObject::new();
        let own = [
            self.name,
            self.arguments,
            self.meta,
            self.request_state,
            self.input_responses,
        ];
        for (key, value) in FIELDS.iter().zip(own) {
            if let Some(value) = value {
                object.insert((*key).to_owned(), value);
            }
        }
        if let Some(rest) = self.rest {
            object.extend(rest);
        }
        object
    }

    /// Keep `value` as member `key`, in place of any value before it.
    fn set(&mut self, key: Key, value: Value) {
        let slot = match key {
            Key::Name => &mut self.name,
            Key::Arguments => &mut self.arguments,
            Key::Meta => &mut self.meta,
            Key::RequestState => &mut self.request_state,
            Key::InputResponses => &mut self.input_responses,
            Key::Other(key) => {
                self.rest
                    .get_or_insert_with(JsonObject::new)
                    .insert(key, value);
                return;
            }
        };
        *slot = Some(value);
    }
}

impl From<JsonObject> for Params {
    fn from(object: JsonObject) -> Self {
        let mut params = Params::default();
        for (key, value) in object {
            params.set(Key::of(key), value);
        }
        params
    }
}

/// A member's name: one of [`FIELDS`] (read without allocating), or any other.
enum Key {
    Name,
    Arguments,
    Meta,
    RequestState,
    InputResponses,
    Other(String),
}

impl Key {
    fn known(key: &str) -> Option<Self> {
        Some(match key {
            "name" => Key::Name,
            "arguments" => Key::Arguments,
            "_meta" => Key::Meta,
            "requestState" => Key::RequestState,
            "inputResponses" => Key::InputResponses,
            _ => return None,
        })
    }

    fn of(key: String) -> Self {
        Key::known(&key).unwrap_or(Key::Other(key))
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl Visitor<'_> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(Key::known(key).unwrap_or_else(|| Key::Other(key.to_owned())))
    }

    fn visit_string<E: de::Error>(self, key: String) -> Result<Key, E> {
        Ok(Key::of(key))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(text: &str) -> Params {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = Params;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Params, A::Error> {
                Params::from_map(map).map(|params| *params)
            }
        }
        let mut deserializer = serde_json::Deserializer::from_str(text);
        deserializer.deserialize_map(Object).unwrap()
    }

    #[test]
    fn the_call_members_get_fields_and_the_others_keep_their_order() {
        let params = read(
            r#"{"z":1,"name":"add","arguments":{"a":2},"_meta":{"k":true},"a":null,
                "requestState":"s","inputResponses":{}}"#,
        );
        assert_eq!(params.name, Some(json!("add")));
        assert_eq!(params.arguments, Some(json!({"a": 2})));
        assert_eq!(params.meta(), json!({"k": true}).as_object());
        assert_eq!(params.request_state, Some(json!("s")));
        assert_eq!(params.input_responses, Some(json!({})));
        let rest = params.rest.as_ref().unwrap();
        assert_eq!(rest.keys().collect::<Vec<_>>(), ["z", "a"]);
        assert_eq!(params.get("a"), Some(&Value::Null));
        assert_eq!(params.get("name"), Some(&json!("add")));
        assert_eq!(params.get("missing"), None);
        assert_eq!(
            Value::Object(params.clone().into_object()),
            json!({"z": 1, "name": "add", "arguments": {"a": 2}, "_meta": {"k": true},
                   "a": null, "requestState": "s", "inputResponses": {}})
        );
        assert_eq!(Params::from(params.clone().into_object()), params);
    }

    #[test]
    fn a_repeated_member_keeps_its_last_value_like_a_map() {
        let params = read(r#"{"name":"a","x":1,"name":"b","x":2,"_me\u0074a":3}"#);
        assert_eq!(params.name, Some(json!("b")));
        assert_eq!(params.get("x"), Some(&json!(2)));
        assert_eq!(params.meta, Some(json!(3)));
        assert_eq!(params.meta(), None);
    }

    #[test]
    fn an_object_of_other_members_only_makes_no_fields() {
        let params = read(r#"{"protocolVersion":"2025-11-25"}"#);
        assert_eq!(params.name, None);
        assert_eq!(params.get("protocolVersion"), Some(&json!("2025-11-25")));
        assert_eq!(read("{}"), Params::default());
        assert!(read("{}").into_object().is_empty());
    }
}
