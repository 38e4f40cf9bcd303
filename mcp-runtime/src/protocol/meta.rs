//! `_meta`: the open metadata object a definition or a result may carry.

use std::fmt;

use serde_json::Value;

use super::JsonObject;

/// The `_meta` object of a tool, resource, template, prompt, resource contents or result.
///
/// Keys follow the protocol's naming rules: an optional prefix of dot-separated labels ending
/// in `/`, then a name (`com.example/priority`, `ui`). Prefixes whose second label is
/// `modelcontextprotocol` or `mcp` (`io.modelcontextprotocol/`, `dev.mcp/`) are reserved for
/// the protocol and the runtime fills them (the server's identity, related tasks); a `Meta`
/// never holds one, so nothing a handler writes can overwrite them.
///
/// ```
/// use mcp_runtime::protocol::Meta;
/// use serde_json::json;
///
/// let meta = Meta::new().with("com.example/priority", 3).unwrap();
/// assert_eq!(meta.get("com.example/priority"), Some(&json!(3)));
/// assert!(Meta::new().with("io.modelcontextprotocol/serverInfo", 1).is_err());
/// assert!(Meta::new().with("no spaces/allowed", 1).is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta(JsonObject);

impl Meta {
    /// An empty `_meta` (sent as nothing at all).
    pub fn new() -> Self {
        Meta(JsonObject::new())
    }

    /// Set `key` to `value`, returning the value it had; an error (and no change) for a key
    /// the naming rules reject or the protocol reserves.
    pub fn insert(
        &mut self,
        key: impl Into<String>,
        value: impl Into<Value>,
    ) -> Result<Option<Value>, MetaKeyError> {
        let key = key.into();
        check_key(&key)?;
        Ok(self.0.insert(key, value.into()))
    }

    /// `self` with `key` set to `value` (see [`Meta::insert`]).
    pub fn with(
        mut self,
        key: impl Into<String>,
        value: impl Into<Value>,
    ) -> Result<Self, MetaKeyError> {
        self.insert(key, value)?;
        Ok(self)
    }

    /// Every entry of `object` (see [`Meta::insert`]); an error names the first key refused.
    pub fn from_object(object: JsonObject) -> Result<Self, MetaKeyError> {
        for key in object.keys() {
            check_key(key)?;
        }
        Ok(Meta(object))
    }

    /// The value at `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    /// Remove `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.0.remove(key)
    }

    /// Whether there is no entry (then no `_meta` member is sent).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries, as the JSON object sent.
    pub fn as_object(&self) -> &JsonObject {
        &self.0
    }

    /// Set a key the runtime owns, unchecked: only the runtime writes reserved keys.
    pub(crate) fn insert_owned(&mut self, key: &str, value: Value) {
        self.0.insert(key.to_owned(), value);
    }
}

/// A `_meta` key refused by [`Meta::insert`]: the key and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaKeyError {
    key: String,
    reason: &'static str,
}

impl MetaKeyError {
    /// The key refused.
    pub fn key(&self) -> &str {
        &self.key
    }
}

impl fmt::Display for MetaKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the `_meta` key `{}` {}", self.key, self.reason)
    }
}

impl std::error::Error for MetaKeyError {}

/// Why `key` cannot be a `_meta` key a handler or definition sets, if it cannot.
pub(crate) fn key_problem(key: &str) -> Option<&'static str> {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        let labels: Vec<&str> = prefix.split('.').collect();
        if !labels.iter().all(|label| valid_label(label)) {
            return Some(
                "has a prefix that is not dot-separated labels (each a letter first, then \
                 letters, digits or `-`, ending in a letter or digit)",
            );
        }
        // The spec reserves every prefix whose second label is `modelcontextprotocol` or `mcp`.
        if matches!(labels.get(1), Some(&"modelcontextprotocol" | &"mcp")) {
            return Some("is reserved for the protocol: the runtime sets its keys");
        }
    }
    // The spec allows an empty name after a prefix (`com.example/`).
    let empty_after_prefix = name.is_empty() && prefix.is_some();
    if !empty_after_prefix && !valid_name(name) {
        return Some(
            "is not a valid name (alphanumeric first and last, then letters, digits, `-`, `_` \
             or `.`)",
        );
    }
    None
}

fn check_key(key: &str) -> Result<(), MetaKeyError> {
    match key_problem(key) {
        None => Ok(()),
        Some(reason) => Err(MetaKeyError {
            key: key.to_owned(),
            reason,
        }),
    }
}

fn valid_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphabetic()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        }
        _ => false,
    }
}

fn valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        // The spec allows an empty name only after a prefix.
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_naming_rules() {
        for good in [
            "ui",
            "com.example/priority",
            "a/b",
            "x-1/y_2.z",
            "com.example.mcp/x",
            "com.example/",
        ] {
            assert_eq!(key_problem(good), None, "{good}");
        }
        for bad in ["", "-x", "x-", "com..example/x", "1com/x", "/x", "a b"] {
            assert!(key_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn protocol_prefixes_are_reserved() {
        for reserved in [
            "io.modelcontextprotocol/serverInfo",
            "dev.mcp/x",
            "org.modelcontextprotocol.api/x",
            "com.mcp.tools/x",
        ] {
            let error = Meta::new().with(reserved, 1).unwrap_err();
            assert_eq!(error.key(), reserved);
            assert!(error.to_string().contains("reserved"), "{error}");
        }
    }

    #[test]
    fn a_refused_key_changes_nothing() {
        let mut meta = Meta::new().with("com.example/a", 1).unwrap();
        assert!(meta.insert("io.modelcontextprotocol/a", 2).is_err());
        assert_eq!(meta.as_object().len(), 1);
        let object = serde_json::json!({"ok": 1, "dev.mcp/no": 2});
        let serde_json::Value::Object(object) = object else {
            unreachable!()
        };
        assert_eq!(Meta::from_object(object).unwrap_err().key(), "dev.mcp/no");
    }
}
