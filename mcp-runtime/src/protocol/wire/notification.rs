//! Notifications the server sends: resource changes, list changes, and the 2026-07-28
//! subscription stream's acknowledgement and closing result.

use serde::Serialize;
use serde_json::Value;

use crate::protocol::ServerInfo;
use crate::protocol::jsonrpc::{Outgoing, RequestId};

use super::lifecycle::Implementation;
use crate::protocol::ProtocolVersion;

/// The `_meta` tagging a notification with the 2026-07-28 listen stream it belongs to.
#[derive(Debug, Serialize)]
struct StreamMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/subscriptionId")]
    subscription_id: &'a RequestId,
}

#[derive(Debug, Serialize)]
struct Params<'a, T: Serialize> {
    #[serde(flatten)]
    params: T,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<StreamMeta<'a>>,
}

#[derive(Debug, Serialize)]
struct NoParams {}

#[derive(Debug, Serialize)]
struct UriParams<'a> {
    uri: &'a str,
}

fn notification<T: Serialize>(
    method: &str,
    params: T,
    stream: Option<&RequestId>,
    has_params: bool,
) -> Outgoing {
    let meta = stream.map(|subscription_id| StreamMeta { subscription_id });
    if !has_params && meta.is_none() {
        return Outgoing::notification(method, None::<&()>);
    }
    Outgoing::notification(method, Some(&Params { params, meta }))
}

/// `notifications/resources/updated` for `uri`; tagged with `stream` for 2026-07-28.
pub(crate) fn resource_updated(uri: &str, stream: Option<&RequestId>) -> Outgoing {
    notification(
        "notifications/resources/updated",
        UriParams { uri },
        stream,
        true,
    )
}

/// `notifications/<kind>/list_changed` (`kind` is `resources`, `prompts` or `tools`).
pub(crate) fn list_changed(kind: &str, stream: Option<&RequestId>) -> Outgoing {
    notification(
        &format!("notifications/{kind}/list_changed"),
        NoParams {},
        stream,
        false,
    )
}

/// `notifications/subscriptions/acknowledged`: the first message of a listen stream, saying
/// which of the requested notifications it will carry.
pub(crate) fn subscriptions_acknowledged(honored: &Value, stream: &RequestId) -> Outgoing {
    #[derive(Serialize)]
    struct Acknowledged<'a> {
        notifications: &'a Value,
    }
    notification(
        "notifications/subscriptions/acknowledged",
        Acknowledged {
            notifications: honored,
        },
        Some(stream),
        true,
    )
}

/// The `SubscriptionsListenResult` that closes a listen stream gracefully.
pub(crate) fn subscriptions_closed(stream: &RequestId, info: &ServerInfo) -> Outgoing {
    #[derive(Serialize)]
    struct Meta<'a> {
        #[serde(rename = "io.modelcontextprotocol/subscriptionId")]
        subscription_id: &'a RequestId,
        #[serde(rename = "io.modelcontextprotocol/serverInfo")]
        server_info: Implementation<'a>,
    }
    #[derive(Serialize)]
    struct Closed<'a> {
        #[serde(rename = "resultType")]
        result_type: &'static str,
        #[serde(rename = "_meta")]
        meta: Meta<'a>,
    }
    Outgoing::result(
        stream,
        &Closed {
            result_type: "complete",
            meta: Meta {
                subscription_id: stream,
                server_info: Implementation::new(info, ProtocolVersion::V2026_07_28),
            },
        },
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parsed(message: &Outgoing) -> Value {
        serde_json::from_slice(message.as_bytes()).unwrap()
    }

    #[test]
    fn legacy_notifications_are_untagged() {
        assert_eq!(
            parsed(&resource_updated("doc://a", None)),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                   "params": {"uri": "doc://a"}})
        );
        assert_eq!(
            parsed(&list_changed("prompts", None)),
            json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
        );
    }

    #[test]
    fn stream_notifications_carry_the_subscription_id() {
        let id = RequestId::Number(7.into());
        assert_eq!(
            parsed(&list_changed("resources", Some(&id))),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed",
                   "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 7}}})
        );
        let ack = parsed(&subscriptions_acknowledged(
            &json!({"resourcesListChanged": true}),
            &id,
        ));
        assert_eq!(
            ack["params"]["notifications"],
            json!({"resourcesListChanged": true})
        );
        assert_eq!(
            ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            7
        );
        let closed = parsed(&subscriptions_closed(&id, &ServerInfo::new("s", "1")));
        assert_eq!(closed["id"], 7);
        assert_eq!(closed["result"]["resultType"], "complete");
        assert_eq!(
            closed["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            7
        );
    }
}
