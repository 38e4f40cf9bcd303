//! `Prompt`, `ListPromptsResult` and `GetPromptResult`, per revision.

use serde::Serialize;
use serde_json::value::RawValue;

use super::ModernResult;
use super::content::ContentBlock;
use super::resource::icons;
use crate::protocol::{GetPromptResult, Icon, PromptMessage, ProtocolVersion};
use crate::protocol::{PromptArgumentDefinition, PromptDefinition};

/// A prompt as `revision` reads it (`title`s from 2025-06-18, `icons` from 2025-11-25).
#[derive(Debug, Serialize)]
pub(crate) struct PromptWire<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    arguments: Vec<PromptArgumentWire<'a>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    icons: &'a [Icon],
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a crate::protocol::JsonObject>,
}

#[derive(Debug, Serialize)]
struct PromptArgumentWire<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    /// Sent only when true: absent means optional in every revision.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    required: bool,
}

fn titled(revision: ProtocolVersion) -> bool {
    revision >= ProtocolVersion::V2025_06_18
}

impl<'a> PromptWire<'a> {
    pub(crate) fn new(definition: &'a PromptDefinition, revision: ProtocolVersion) -> Self {
        PromptWire {
            name: &definition.name,
            title: definition.title.as_deref().filter(|_| titled(revision)),
            description: definition.description.as_deref(),
            arguments: definition
                .arguments
                .iter()
                .map(|argument| PromptArgumentWire::new(argument, revision))
                .collect(),
            icons: icons(&definition.icons, revision),
            meta: super::definition_meta(&definition.meta, revision),
        }
    }
}

impl<'a> PromptArgumentWire<'a> {
    fn new(argument: &'a PromptArgumentDefinition, revision: ProtocolVersion) -> Self {
        PromptArgumentWire {
            name: &argument.name,
            title: argument.title.as_deref().filter(|_| titled(revision)),
            description: argument.description.as_deref(),
            required: argument.required,
        }
    }
}

/// One page of `prompts/list`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListPromptsResult<'a> {
    prompts: Vec<PromptWire<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<&'a str>,
    #[serde(flatten)]
    modern: Option<ModernResult<'a>>,
}

impl<'a> ListPromptsResult<'a> {
    /// `modern` must be given exactly for 2026-07-28.
    pub(crate) fn new(
        definitions: &'a [PromptDefinition],
        revision: ProtocolVersion,
        next_cursor: Option<&'a str>,
        modern: Option<ModernResult<'a>>,
    ) -> Self {
        debug_assert_eq!(modern.is_some(), revision.is_modern());
        ListPromptsResult {
            prompts: definitions
                .iter()
                .map(|definition| PromptWire::new(definition, revision))
                .collect(),
            next_cursor,
            modern,
        }
    }

    /// The page encoded once, to be spliced into every response that asks for it.
    pub(crate) fn encode(&self) -> Box<RawValue> {
        serde_json::value::to_raw_value(self).expect("a prompt list always serializes")
    }
}

#[derive(Serialize)]
struct PromptMessageWire<'a> {
    role: &'static str,
    content: ContentBlock<'a>,
}

impl<'a> PromptMessageWire<'a> {
    fn new(message: &'a PromptMessage, revision: ProtocolVersion) -> Self {
        PromptMessageWire {
            role: message.role.as_str(),
            content: ContentBlock::new(&message.content, revision),
        }
    }
}

/// The result of `prompts/get`.
#[derive(Serialize)]
pub(crate) struct GetPromptResultWire<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    messages: Vec<PromptMessageWire<'a>>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a crate::protocol::JsonObject>,
    #[serde(flatten)]
    modern: Option<ModernResult<'a>>,
}

impl<'a> GetPromptResultWire<'a> {
    /// `modern` must be given exactly for 2026-07-28.
    pub(crate) fn new(
        result: &'a GetPromptResult,
        revision: ProtocolVersion,
        modern: Option<ModernResult<'a>>,
    ) -> Self {
        debug_assert_eq!(modern.is_some(), revision.is_modern());
        GetPromptResultWire {
            description: result.description.as_deref(),
            messages: result
                .messages
                .iter()
                .map(|message| PromptMessageWire::new(message, revision))
                .collect(),
            meta: super::legacy_meta(&result.meta, modern.is_some()),
            modern: modern.map(|modern| modern.with_meta(&result.meta)),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::{Content, ResourceContents};

    fn definition() -> PromptDefinition {
        PromptDefinition {
            name: "review".into(),
            title: Some("Code review".into()),
            description: Some("Review code.".into()),
            arguments: vec![
                PromptArgumentDefinition {
                    name: "code".into(),
                    title: Some("Code".into()),
                    description: Some("what to review".into()),
                    required: true,
                },
                PromptArgumentDefinition {
                    name: "style".into(),
                    title: None,
                    description: None,
                    required: false,
                },
            ],
            icons: Vec::new(),
            meta: Default::default(),
        }
    }

    #[test]
    fn icons_reach_only_2025_11_25_on() {
        let iconic = definition().with_icon(
            Icon::new("https://example.com/review.svg")
                .with_sizes(["any"])
                .with_theme(crate::protocol::IconTheme::Dark),
        );
        for revision in ProtocolVersion::ALL {
            let value = serde_json::to_value(PromptWire::new(&iconic, revision)).unwrap();
            if revision >= ProtocolVersion::V2025_11_25 {
                assert_eq!(
                    value["icons"],
                    json!([{"src": "https://example.com/review.svg", "sizes": ["any"],
                        "theme": "dark"}]),
                    "{revision:?}"
                );
            } else {
                assert!(value.get("icons").is_none(), "{revision:?}: {value}");
            }
        }
        let plain =
            serde_json::to_value(PromptWire::new(&definition(), ProtocolVersion::V2026_07_28))
                .unwrap();
        assert!(plain.get("icons").is_none(), "{plain}");
    }

    #[test]
    fn titles_reach_only_2025_06_18_on() {
        let definition = definition();
        assert_eq!(
            serde_json::to_value(PromptWire::new(&definition, ProtocolVersion::V2025_03_26))
                .unwrap(),
            json!({
                "name": "review",
                "description": "Review code.",
                "arguments": [
                    {"name": "code", "description": "what to review", "required": true},
                    {"name": "style"}
                ]
            })
        );
        let value =
            serde_json::to_value(PromptWire::new(&definition, ProtocolVersion::V2025_06_18))
                .unwrap();
        assert_eq!(value["title"], "Code review");
        assert_eq!(value["arguments"][0]["title"], "Code");
    }

    #[test]
    fn messages_carry_a_role_and_one_block() {
        let result = GetPromptResult::new(vec![
            PromptMessage::user("Explain this."),
            PromptMessage::user_resource(ResourceContents::text("doc://a", "# A")),
            PromptMessage::new(
                crate::protocol::Role::Assistant,
                Content::Image {
                    data: "aW1n".into(),
                    mime_type: "image/png".into(),
                },
            ),
        ])
        .with_description("for doc a");
        let value = serde_json::to_value(GetPromptResultWire::new(
            &result,
            ProtocolVersion::V2024_11_05,
            None,
        ))
        .unwrap();
        assert_eq!(
            value,
            json!({
                "description": "for doc a",
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "Explain this."}},
                    {"role": "user", "content": {"type": "resource",
                        "resource": {"uri": "doc://a", "text": "# A"}}},
                    {"role": "assistant", "content": {"type": "image", "data": "aW1n",
                        "mimeType": "image/png"}}
                ]
            })
        );
    }
}
