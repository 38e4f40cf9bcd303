//! Request ids: what ties a response (or a cancellation) to its request.

use std::fmt;

use serde::Serialize;
use serde_json::{Number, Value};

/// A JSON-RPC request id. MCP allows strings and integers, never `null` or fractions.
///
/// Integers keep their exact `Number` so they are echoed back byte for byte, whatever their
/// size.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RequestId {
    /// An integer id.
    Number(Number),
    /// A string id.
    String(String),
}

impl RequestId {
    /// The id `value` holds, or `None` if MCP does not allow it as an id.
    pub(crate) fn from_value(value: Value) -> Option<RequestId> {
        match value {
            Value::String(s) => Some(RequestId::String(s)),
            Value::Number(n) if n.is_i64() || n.is_u64() => Some(RequestId::Number(n)),
            _ => None,
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => n.serialize(serializer),
            RequestId::String(s) => serializer.serialize_str(s),
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// The ids of the requests in one message: none (a notification, a response), one (nearly
/// every message, kept without a vector: a POST would allocate one for it twice), or a batch's.
#[cfg(feature = "http")]
#[derive(Debug, Clone)]
pub(crate) enum RequestIds {
    None,
    One(RequestId),
    Many(Vec<RequestId>),
}

#[cfg(feature = "http")]
impl std::ops::Deref for RequestIds {
    type Target = [RequestId];

    fn deref(&self) -> &[RequestId] {
        match self {
            RequestIds::None => &[],
            RequestIds::One(id) => std::slice::from_ref(id),
            RequestIds::Many(ids) => ids,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn strings_and_integers_are_ids() {
        assert_eq!(
            RequestId::from_value(json!("a")),
            Some(RequestId::String("a".into()))
        );
        assert_eq!(
            RequestId::from_value(json!(7)),
            Some(RequestId::Number(7.into()))
        );
        assert_eq!(
            RequestId::from_value(json!(u64::MAX)),
            Some(RequestId::Number(u64::MAX.into()))
        );
    }

    #[test]
    fn null_fractions_and_structures_are_not_ids() {
        for value in [json!(null), json!(1.5), json!(true), json!([1]), json!({})] {
            assert_eq!(RequestId::from_value(value.clone()), None, "{value}");
        }
    }

    #[test]
    fn ids_serialize_as_they_came() {
        let ids = [
            RequestId::Number((-3).into()),
            RequestId::String("x".into()),
        ];
        assert_eq!(serde_json::to_string(&ids).unwrap(), r#"[-3,"x"]"#);
    }
}
