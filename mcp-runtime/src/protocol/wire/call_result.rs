//! `CallToolResult` per revision.

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::ModernResult;
use super::content::ContentList;
use crate::protocol::{CallToolResult, Content, ProtocolVersion};

/// A tool's result as the revision of its request reads it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallToolResultWire<'a> {
    content: ContentList<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structured_content: Option<&'a Value>,
    /// Sent only when set: absent means success in every revision.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    is_error: bool,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a crate::protocol::JsonObject>,
    #[serde(flatten)]
    modern: Option<ModernResult<'a>>,
}

impl<'a> CallToolResultWire<'a> {
    /// Render `result` for `revision`; `modern` must be given exactly for 2026-07-28 requests.
    pub(crate) fn new(
        result: &'a CallToolResult,
        revision: ProtocolVersion,
        modern: Option<ModernResult<'a>>,
    ) -> Self {
        debug_assert_eq!(modern.is_some(), revision.is_modern());
        CallToolResultWire {
            content: ContentList::new(&result.content, revision),
            structured_content: result
                .structured_content
                .as_ref()
                .filter(|value| structured_content_allowed(value, revision)),
            is_error: result.is_error,
            meta: super::legacy_meta(&result.meta, modern.is_some()),
            modern: modern.map(|modern| modern.with_meta(&result.meta)),
        }
    }
}

impl CallToolResultWire<'_> {
    /// Write the result as JSON into `out`: the same text `serde_json` writes, but a result of
    /// plain text blocks alone, the usual one, is written straight (its member names are
    /// constants, only its texts need escaping), with none of the map a flattened struct
    /// serializes through.
    pub(crate) fn write(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match self.plain_text() {
            Some((texts, modern_meta)) => {
                let texts = texts.iter().map(|block| match block {
                    Content::Text { text } => text.as_str(),
                    _ => unreachable!("only text blocks are written plain"),
                });
                write_plain(out, texts, self.is_error, modern_meta);
                Ok(())
            }
            None => serde_json::to_writer(out, self),
        }
    }

    /// The texts of a result that is nothing but text blocks (no annotations, structured
    /// content or `_meta` of its own), with the server's `_meta` of a 2026-07-28 one.
    #[allow(clippy::type_complexity)]
    fn plain_text(&self) -> Option<(&[Content], Option<&RawValue>)> {
        if self.structured_content.is_some() || self.meta.is_some() {
            return None;
        }
        let modern_meta = match &self.modern {
            Some(modern) => Some(modern.plain_meta()?),
            None => None,
        };
        let texts = self.content.blocks();
        texts
            .iter()
            .all(|block| matches!(block, Content::Text { .. }))
            .then_some((texts, modern_meta))
    }
}

/// The result of one text block and nothing else, as [`CallToolResultWire::write`] writes it;
/// with `modern`, the server's `_meta` of a 2026-07-28 result.
pub(crate) fn write_text(out: &mut Vec<u8>, text: &str, modern: Option<&RawValue>) {
    write_plain(out, [text], false, modern);
}

/// A result of text blocks, member by member in the order of [`CallToolResultWire`]'s.
fn write_plain<'t>(
    out: &mut Vec<u8>,
    texts: impl IntoIterator<Item = &'t str>,
    is_error: bool,
    modern: Option<&RawValue>,
) {
    out.extend_from_slice(br#"{"content":["#);
    for (index, text) in texts.into_iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"type":"text","text":"#);
        serde_json::to_writer(&mut *out, text).expect("a string always serializes");
        out.push(b'}');
    }
    out.push(b']');
    if is_error {
        out.extend_from_slice(br#","isError":true"#);
    }
    if let Some(meta) = modern {
        out.extend_from_slice(br#","resultType":"complete","_meta":"#);
        out.extend_from_slice(meta.get().as_bytes());
    }
    out.push(b'}');
}

/// `structuredContent` arrived in 2025-06-18 as a JSON object; 2026-07-28 allows any value.
fn structured_content_allowed(value: &Value, revision: ProtocolVersion) -> bool {
    match revision {
        ProtocolVersion::V2024_11_05 | ProtocolVersion::V2025_03_26 => false,
        ProtocolVersion::V2025_06_18 | ProtocolVersion::V2025_11_25 => value.is_object(),
        ProtocolVersion::V2026_07_28 => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::Content;
    use crate::protocol::ServerInfo;
    use crate::protocol::wire::result_meta;

    fn structured(value: Value) -> CallToolResult {
        CallToolResult {
            content: vec![Content::text("3")],
            structured_content: Some(value),
            is_error: false,
            meta: Default::default(),
        }
    }

    fn render(result: &CallToolResult, revision: ProtocolVersion) -> Value {
        serde_json::to_value(CallToolResultWire::new(result, revision, None)).unwrap()
    }

    #[test]
    fn text_written_alone_is_the_result_of_that_text_in_every_revision() {
        let meta = result_meta(&ServerInfo::new("s", "1"));
        for text in ["hello", "", "quote \" back\\slash\nline \u{1} é 🦀"] {
            let result = CallToolResult::success(vec![Content::text(text)]);
            for revision in ProtocolVersion::ALL {
                let modern = revision.is_modern().then(|| ModernResult::complete(&meta));
                let mut whole = Vec::new();
                CallToolResultWire::new(&result, revision, modern)
                    .write(&mut whole)
                    .unwrap();
                let mut alone = Vec::new();
                write_text(&mut alone, text, revision.is_modern().then_some(&*meta));
                assert_eq!(
                    String::from_utf8(alone).unwrap(),
                    String::from_utf8(whole).unwrap(),
                    "{revision}: {text:?}"
                );
            }
        }
    }

    #[test]
    fn no_structured_content_before_2025_06_18() {
        let result = structured(json!({"sum": 3}));
        for revision in [ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_03_26] {
            assert_eq!(
                render(&result, revision),
                json!({"content": [{"type": "text", "text": "3"}]}),
                "{revision}"
            );
        }
    }

    #[test]
    fn object_structured_content_from_2025_06_18() {
        let result = structured(json!({"sum": 3}));
        for revision in [ProtocolVersion::V2025_06_18, ProtocolVersion::V2025_11_25] {
            assert_eq!(
                render(&result, revision)["structuredContent"],
                json!({"sum": 3})
            );
        }
    }

    #[test]
    fn non_object_structured_content_only_in_2026_07_28() {
        let result = structured(json!([1, 2]));
        assert!(
            render(&result, ProtocolVersion::V2025_11_25)
                .get("structuredContent")
                .is_none()
        );
        let meta = result_meta(&ServerInfo::new("s", "1"));
        let modern = CallToolResultWire::new(
            &result,
            ProtocolVersion::V2026_07_28,
            Some(ModernResult::complete(&meta)),
        );
        let value = serde_json::to_value(modern).unwrap();
        assert_eq!(value["structuredContent"], json!([1, 2]));
        assert_eq!(value["resultType"], json!("complete"));
        assert_eq!(
            value["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            json!("s")
        );
        assert!(value.get("ttlMs").is_none());
    }

    #[test]
    fn result_meta_reaches_every_revision_beside_the_server_identity() {
        let meta = crate::protocol::Meta::new()
            .with("com.example/at", 7)
            .unwrap();
        let result = CallToolResult::success(vec![Content::text("x")]).with_meta(meta);
        assert_eq!(
            render(&result, ProtocolVersion::V2024_11_05)["_meta"],
            json!({"com.example/at": 7})
        );
        let server = result_meta(&ServerInfo::new("s", "1"));
        let modern = CallToolResultWire::new(
            &result,
            ProtocolVersion::V2026_07_28,
            Some(ModernResult::complete(&server)),
        );
        let value = serde_json::to_value(modern).unwrap();
        assert_eq!(value["_meta"]["com.example/at"], json!(7));
        assert_eq!(
            value["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            json!("s")
        );
        let text = serde_json::to_string(&CallToolResultWire::new(
            &result,
            ProtocolVersion::V2026_07_28,
            Some(ModernResult::complete(&server)),
        ))
        .unwrap();
        assert_eq!(text.matches("\"_meta\"").count(), 1, "{text}");
    }

    #[test]
    fn results_written_straight_read_as_serde_writes_them() {
        let server = result_meta(&ServerInfo::new("s\"q", "1"));
        let with_meta = crate::protocol::Meta::new().with("k", 1).unwrap();
        let annotated = Content::text("a").with_annotations(crate::protocol::Annotations {
            priority: Some(0.5),
            ..crate::protocol::Annotations::NONE
        });
        let results = [
            CallToolResult::success(vec![Content::text("plain")]),
            CallToolResult::success(vec![Content::text("tab\t \"quote\" \u{7} é 🦀")]),
            CallToolResult::success(vec![Content::text("a"), Content::text("b")]),
            CallToolResult::success(Vec::new()),
            CallToolResult::error("failed"),
            CallToolResult::success(vec![Content::text("x")]).with_meta(with_meta),
            CallToolResult::success(vec![annotated]),
            CallToolResult::success(vec![
                Content::text("x"),
                Content::image(b"img", "image/png"),
            ]),
            structured(json!({"sum": 3})),
        ];
        let mut straight = 0;
        for result in &results {
            for revision in ProtocolVersion::ALL {
                let modern = revision
                    .is_modern()
                    .then(|| ModernResult::complete(&server));
                let wire = CallToolResultWire::new(result, revision, modern);
                straight += usize::from(wire.plain_text().is_some());
                let mut written = Vec::new();
                wire.write(&mut written).unwrap();
                assert_eq!(
                    String::from_utf8(written).unwrap(),
                    serde_json::to_string(&wire).unwrap(),
                    "{revision}"
                );
            }
        }
        // The first five results of every revision, and the structured one before 2025-06-18.
        assert_eq!(straight, 5 * ProtocolVersion::ALL.len() + 2);
        let cached = ModernResult::cacheable(&server, std::time::Duration::from_secs(1));
        let wire = CallToolResultWire::new(&results[0], ProtocolVersion::V2026_07_28, Some(cached));
        assert!(wire.plain_text().is_none());
    }

    #[test]
    fn is_error_is_sent_only_when_true() {
        let failed = CallToolResult::error("no");
        assert_eq!(
            render(&failed, ProtocolVersion::V2024_11_05),
            json!({"content": [{"type": "text", "text": "no"}], "isError": true})
        );
    }
}
