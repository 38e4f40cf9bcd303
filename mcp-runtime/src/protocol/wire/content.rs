//! Content blocks per revision.

use serde::{Serialize, Serializer};

use super::resource::ResourceContentsWire;
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

/// One content block as a revision reads it.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(crate) enum ContentBlock<'a> {
    Text {
        text: &'a str,
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
}

/// What a 2024-11-05 client gets instead of audio, which its schema cannot carry: the model
/// then at least knows something was left out.
const AUDIO_UNSUPPORTED: &str =
    "[audio content omitted: the client's protocol revision (2024-11-05) cannot carry audio]";

impl<'a> ContentBlock<'a> {
    pub(crate) fn new(content: &'a Content, revision: ProtocolVersion) -> Self {
        match content {
            Content::Text { text } => ContentBlock::Text { text },
            Content::Image { data, mime_type } => ContentBlock::Image { data, mime_type },
            Content::Audio { .. } if revision < ProtocolVersion::V2025_03_26 => {
                ContentBlock::Text {
                    text: AUDIO_UNSUPPORTED,
                }
            }
            Content::Audio { data, mime_type } => ContentBlock::Audio { data, mime_type },
            Content::Resource { resource } => ContentBlock::Resource {
                resource: ResourceContentsWire(resource),
            },
        }
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
    fn audio_becomes_a_note_for_2024_11_05() {
        let blocks = blocks();
        let list = ContentList::new(&blocks, ProtocolVersion::V2024_11_05);
        let value = serde_json::to_value(list).unwrap();
        assert_eq!(value[2], json!({"type": "text", "text": AUDIO_UNSUPPORTED}));
    }
}
