//! The members every 2026-07-28 result adds to its legacy shape.

use std::time::Duration;

use serde::Serialize;
use serde_json::value::RawValue;

use super::lifecycle::Implementation;
use crate::protocol::ProtocolVersion;
use crate::protocol::ServerInfo;
use crate::protocol::{JsonObject, Meta};

/// `resultType`, the cache hints of cacheable results, and `_meta` with the server's identity.
///
/// Flattened into a result only when the request was made in 2026-07-28.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct ModernResult<'a> {
    #[serde(rename = "resultType")]
    result_type: &'static str,
    #[serde(rename = "ttlMs", skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    #[serde(rename = "cacheScope", skip_serializing_if = "Option::is_none")]
    cache_scope: Option<&'static str>,
    #[serde(rename = "_meta")]
    meta: MergedMeta<'a>,
}

/// A modern result's `_meta`: the server's identity, and the handler's own entries (which
/// hold no reserved key, so they cannot overwrite it).
#[derive(Debug, Clone, Copy)]
struct MergedMeta<'a> {
    server: &'a RawValue,
    own: Option<&'a JsonObject>,
}

impl Serialize for MergedMeta<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(own) = self.own.filter(|own| !own.is_empty()) else {
            return self.server.serialize(serializer);
        };
        let mut merged: JsonObject =
            serde_json::from_str(self.server.get()).map_err(serde::ser::Error::custom)?;
        for (key, value) in own {
            merged.entry(key.clone()).or_insert_with(|| value.clone());
        }
        merged.serialize(serializer)
    }
}

/// A result's `_meta` before 2026-07-28: the handler's entries, when there are some.
pub(crate) fn legacy_meta(meta: &Meta, modern: bool) -> Option<&JsonObject> {
    (!modern && !meta.is_empty()).then(|| meta.as_object())
}

impl<'a> ModernResult<'a> {
    /// With the handler's `_meta` entries beside the server's identity.
    pub(crate) fn with_meta(mut self, meta: &'a Meta) -> Self {
        self.meta.own = Some(meta.as_object());
        self
    }

    /// The `_meta` of a final result that is not cacheable and adds nothing of its own to the
    /// server's identity: the members such a result adds are then `resultType` and this.
    pub(crate) fn plain_meta(&self) -> Option<&'a RawValue> {
        let plain = self.result_type == "complete"
            && self.ttl_ms.is_none()
            && self.cache_scope.is_none()
            && self.meta.own.is_none_or(JsonObject::is_empty);
        plain.then_some(self.meta.server)
    }

    /// A final result (`resultType: "complete"`) that is not cacheable.
    pub(crate) fn complete(meta: &'a RawValue) -> Self {
        ModernResult {
            result_type: "complete",
            ttl_ms: None,
            cache_scope: None,
            meta: MergedMeta {
                server: meta,
                own: None,
            },
        }
    }

    /// A final result clients may cache for `ttl`, across authorization contexts: what this
    /// runtime lists depends on nothing but the binary.
    pub(crate) fn cacheable(meta: &'a RawValue, ttl: Duration) -> Self {
        ModernResult {
            ttl_ms: Some(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX)),
            cache_scope: Some("public"),
            ..Self::complete(meta)
        }
    }

    /// The same, cacheable only by the client it was made for (`cacheScope: "private"`): a
    /// list that depends on who asks.
    pub(crate) fn private(self) -> Self {
        ModernResult {
            cache_scope: Some("private"),
            ..self
        }
    }
}

/// A 2026-07-28 result asking the client for input before the request can complete: the
/// questions (`inputRequests`, keyed) and the sealed `requestState` to send back with the
/// answers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InputRequiredResult<'a> {
    result_type: &'static str,
    input_requests: &'a serde_json::Map<String, serde_json::Value>,
    request_state: &'a str,
    #[serde(rename = "_meta")]
    meta: &'a RawValue,
}

impl<'a> InputRequiredResult<'a> {
    pub(crate) fn new(
        input_requests: &'a serde_json::Map<String, serde_json::Value>,
        request_state: &'a str,
        meta: &'a RawValue,
    ) -> Self {
        InputRequiredResult {
            result_type: "input_required",
            input_requests,
            request_state,
            meta,
        }
    }
}

/// The `_meta` object of every 2026-07-28 result, encoded once per server:
/// `{"io.modelcontextprotocol/serverInfo": {name, version, title?}}`.
pub(crate) fn result_meta(info: &ServerInfo) -> Box<RawValue> {
    #[derive(Serialize)]
    struct Meta<'a> {
        #[serde(rename = "io.modelcontextprotocol/serverInfo")]
        server_info: Implementation<'a>,
    }
    let meta = Meta {
        server_info: Implementation::new(info, ProtocolVersion::V2026_07_28),
    };
    serde_json::value::to_raw_value(&meta).expect("server identity always serializes")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn meta_names_the_server() {
        let meta = result_meta(&ServerInfo::new("calc", "1.2.0").with_title("Calculator"));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(meta.get()).unwrap(),
            json!({"io.modelcontextprotocol/serverInfo":
                {"name": "calc", "version": "1.2.0", "title": "Calculator"}})
        );
    }

    #[test]
    fn cacheable_results_carry_ttl_and_scope() {
        let meta = result_meta(&ServerInfo::new("calc", "1"));
        let fields = ModernResult::cacheable(&meta, Duration::from_secs(2));
        let value = serde_json::to_value(fields).unwrap();
        assert_eq!(value["resultType"], json!("complete"));
        assert_eq!(value["ttlMs"], json!(2000));
        assert_eq!(value["cacheScope"], json!("public"));

        let value = serde_json::to_value(ModernResult::complete(&meta)).unwrap();
        assert!(value.get("ttlMs").is_none() && value.get("cacheScope").is_none());
    }
}
