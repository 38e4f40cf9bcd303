//! Content blocks per revision.

use serde::{Serialize, Serializer};

use std::borrow::Cow;

use super::resource::{AnnotationsWire, ResourceContentsWire, ResourceWire};
use crate::protocol::{Content, ProtocolVersion};

/// A slice of content blocks as `revision` can read them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ContentList<'a> {
    blocks: &'a [Content],
    revision: ProtocolVersion,
}

impl<'a> ContentList<'a> {
    pub(crate) fn new(blocks: &'a [Content], revision: ProtocolVersion) -> Self {
        ContentList { blocks, revision }
    }

    /// The blocks, as the handler made them.
    pub(crate) fn blocks(&self) -> &'a [Content] {
        self.blocks
    }
}

impl Serialize for ContentList<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.blocks
                .iter()
                .map(|block| ContentBlock::new(block, self.revision)),
        )
    }
}

/// One content block as a revision reads it, with its annotations.
pub(crate) struct ContentBlock<'a> {
    kind: BlockKind<'a>,
    annotations: Option<AnnotationsWire<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum BlockKind<'a> {
    Text {
        text: Cow<'a, str>,
    },
    Image {
        data: &'a str,
        #[serde(rename = "mimeType")]
        mime_type: &'a str,
    },
    Audio {
        data: &'a str,
        #[serde(rename = "mimeType")]
        mime_type: &'a str,
    },
    Resource {
        resource: ResourceContentsWire<'a>,
    },
    #[serde(rename = "resource_link")]
    ResourceLink(ResourceWire<'a>),
}

impl Serialize for ContentBlock<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Most blocks have no annotations: they skip the flattening.
        let Some(annotations) = &self.annotations else {
            return self.kind.serialize(serializer);
        };
        #[derive(Serialize)]
        struct Annotated<'b, 'a> {
            #[serde(flatten)]
            kind: &'b BlockKind<'a>,
            annotations: &'b AnnotationsWire<'a>,
        }
        Annotated {
            kind: &self.kind,
            annotations,
        }
        .serialize(serializer)
    }
}

/// What a 2024-11-05 client gets instead of audio, which its schema cannot carry: the model
/// then at least knows something was left out.
const AUDIO_UNSUPPORTED: &str =
    "[audio content omitted: the client's protocol revision (2024-11-05) cannot carry audio]";

impl<'a> ContentBlock<'a> {
    pub(crate) fn new(content: &'a Content, revision: ProtocolVersion) -> Self {
        let (content, annotations) = match content {
            Content::Annotated {
                content,
                annotations,
            } => (&**content, AnnotationsWire::new(annotations, revision)),
            content => (content, None),
        };
        let kind = match content {
            Content::Text { text } => BlockKind::Text {
                text: Cow::Borrowed(text),
            },
            Content::Image { data, mime_type } => BlockKind::Image { data, mime_type },
            Content::Audio { .. } if revision < ProtocolVersion::V2025_03_26 => BlockKind::Text {
                text: Cow::Borrowed(AUDIO_UNSUPPORTED),
            },
            Content::Audio { data, mime_type } => BlockKind::Audio { data, mime_type },
            Content::Resource { resource } => BlockKind::Resource {
                resource: ResourceContentsWire(resource, revision),
            },
            // `resource_link` arrived in 2025-06-18: older clients read where to find it.
            Content::ResourceLink(resource) if revision < ProtocolVersion::V2025_06_18 => {
                BlockKind::Text {
                    text: Cow::Owned(format!("[resource: {} <{}>]", resource.name, resource.uri)),
                }
            }
            Content::ResourceLink(resource) => {
                // The link carries its resource's annotations; a second set would clash.
                return ContentBlock {
                    kind: BlockKind::ResourceLink(ResourceWire::new(resource, revision)),
                    annotations: None,
                };
            }
            // Nested annotations: the outer ones were taken.
            Content::Annotated { content, .. } => return ContentBlock::new(content, revision),
        };
        ContentBlock { kind, annotations }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn blocks() -> Vec<Content> {
        vec![
            Content::text("hi"),
            Content::Image {
                data: "aW1n".into(),
                mime_type: "image/png".into(),
            },
            Content::Audio {
                data: "d2F2".into(),
                mime_type: "audio/wav".into(),
            },
        ]
    }

    #[test]
    fn every_block_keeps_its_type_from_2025_03_26() {
        let blocks = blocks();
        let list = ContentList::new(&blocks, ProtocolVersion::V2025_03_26);
        assert_eq!(
            serde_json::to_value(list).unwrap(),
            json!([
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "aW1n", "mimeType": "image/png"},
                {"type": "audio", "data": "d2F2", "mimeType": "audio/wav"}
            ])
        );
    }

    #[test]
    fn links_and_annotations_from_the_revisions_that_have_them() {
        use crate::protocol::Resource;
        use crate::protocol::{Annotations, Role};
        let blocks = vec![
            Content::resource_link(Resource::new("file:///a.txt", "a.txt")),
            Content::text("hi").with_annotations(Annotations {
                audience: std::borrow::Cow::Borrowed(&[Role::User]),
                priority: Some(0.5),
                last_modified: Some("2025-01-01T00:00:00Z".into()),
            }),
        ];
        let modern = serde_json::to_value(ContentList::new(&blocks, ProtocolVersion::V2025_06_18));
        assert_eq!(
            modern.unwrap(),
            json!([
                {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
                {"type": "text", "text": "hi", "annotations":
                    {"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"}}
            ])
        );
        let old = serde_json::to_value(ContentList::new(&blocks, ProtocolVersion::V2025_03_26));
        assert_eq!(
            old.unwrap(),
            json!([
                {"type": "text", "text": "[resource: a.txt <file:///a.txt>]"},
                {"type": "text", "text": "hi", "annotations": {"audience": ["user"], "priority": 0.5}}
            ])
        );
    }

    #[test]
    fn audio_becomes_a_note_for_2024_11_05() {
        let blocks = blocks();
        let list = ContentList::new(&blocks, ProtocolVersion::V2024_11_05);
        let value = serde_json::to_value(list).unwrap();
        assert_eq!(value[2], json!({"type": "text", "text": AUDIO_UNSUPPORTED}));
    }
}
