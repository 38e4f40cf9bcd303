//! `Resource`, `ResourceTemplate`, resource contents and the resource results, per revision.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

use super::ModernResult;
use crate::protocol::{Annotations, Icon, ProtocolVersion, ResourceBody, ResourceContents};
use crate::protocol::{Resource, ResourceTemplate};

/// `Annotations` as `revision` reads them: `audience` and `priority` from 2024-11-05,
/// `lastModified` from 2025-06-18.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AnnotationsWire<'a> {
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    audience: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    priority: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_modified: Option<&'a str>,
}

impl<'a> AnnotationsWire<'a> {
    /// `None` when nothing the revision can carry is set.
    pub(crate) fn new(annotations: &'a Annotations, revision: ProtocolVersion) -> Option<Self> {
        let wire = AnnotationsWire {
            audience: annotations
                .audience
                .iter()
                .map(|role| role.as_str())
                .collect(),
            // The schema bounds it to 0..=1; a value outside is clamped rather than rejected.
            priority: annotations
                .priority
                .map(|priority| priority.clamp(0.0, 1.0)),
            last_modified: annotations
                .last_modified
                .as_deref()
                .filter(|_| revision >= ProtocolVersion::V2025_06_18),
        };
        (!wire.audience.is_empty() || wire.priority.is_some() || wire.last_modified.is_some())
            .then_some(wire)
    }
}

/// The icons of a resource, template or prompt, for `revision`: none before 2025-11-25, where
/// `icons` arrived on all three.
pub(crate) fn icons(icons: &[Icon], revision: ProtocolVersion) -> &[Icon] {
    if revision >= ProtocolVersion::V2025_11_25 {
        icons
    } else {
        &[]
    }
}

/// A concrete resource as `revision` reads it (`title` from 2025-06-18, `icons` from
/// 2025-11-25).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResourceWire<'a> {
    uri: &'a str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<AnnotationsWire<'a>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    icons: &'a [Icon],
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a crate::protocol::JsonObject>,
}

impl<'a> ResourceWire<'a> {
    pub(crate) fn new(resource: &'a Resource, revision: ProtocolVersion) -> Self {
        ResourceWire {
            uri: &resource.uri,
            name: &resource.name,
            title: resource
                .title
                .as_deref()
                .filter(|_| revision >= ProtocolVersion::V2025_06_18),
            description: resource.description.as_deref(),
            mime_type: resource.mime_type.as_deref(),
            size: resource.size,
            annotations: AnnotationsWire::new(&resource.annotations, revision),
            icons: icons(&resource.icons, revision),
            meta: super::definition_meta(&resource.meta, revision),
        }
    }
}

/// A resource template as `revision` reads it (`title` from 2025-06-18, `icons` from
/// 2025-11-25).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResourceTemplateWire<'a> {
    uri_template: &'a str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<AnnotationsWire<'a>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    icons: &'a [Icon],
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a crate::protocol::JsonObject>,
}

impl<'a> ResourceTemplateWire<'a> {
    pub(crate) fn new(template: &'a ResourceTemplate, revision: ProtocolVersion) -> Self {
        ResourceTemplateWire {
            uri_template: template.uri_template.as_str(),
            name: &template.name,
            title: template
                .title
                .as_deref()
                .filter(|_| revision >= ProtocolVersion::V2025_06_18),
            description: template.description.as_deref(),
            mime_type: template.mime_type.as_deref(),
            annotations: AnnotationsWire::new(&template.annotations, revision),
            icons: icons(&template.icons, revision),
            meta: super::definition_meta(&template.meta, revision),
        }
    }
}

/// One page of `resources/list`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListResourcesResult<'a> {
    resources: Vec<ResourceWire<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<&'a str>,
    #[serde(flatten)]
    modern: Option<ModernResult<'a>>,
}

impl<'a> ListResourcesResult<'a> {
    /// `modern` must be given exactly for 2026-07-28.
    pub(crate) fn new(
        resources: &'a [Resource],
        revision: ProtocolVersion,
        next_cursor: Option<&'a str>,
        modern: Option<ModernResult<'a>>,
    ) -> Self {
        debug_assert_eq!(modern.is_some(), revision.is_modern());
        ListResourcesResult {
            resources: resources
                .iter()
                .map(|resource| ResourceWire::new(resource, revision))
                .collect(),
            next_cursor,
            modern,
        }
    }
}

/// One page of `resources/templates/list`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListResourceTemplatesResult<'a> {
    resource_templates: Vec<ResourceTemplateWire<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<&'a str>,
    #[serde(flatten)]
    modern: Option<ModernResult<'a>>,
}

impl<'a> ListResourceTemplatesResult<'a> {
    /// `modern` must be given exactly for 2026-07-28.
    pub(crate) fn new(
        templates: &[&'a ResourceTemplate],
        revision: ProtocolVersion,
        next_cursor: Option<&'a str>,
        modern: Option<ModernResult<'a>>,
    ) -> Self {
        debug_assert_eq!(modern.is_some(), revision.is_modern());
        ListResourceTemplatesResult {
            resource_templates: templates
                .iter()
                .map(|template| ResourceTemplateWire::new(template, revision))
                .collect(),
            next_cursor,
            modern,
        }
    }

    /// The page encoded once, to be spliced into every response that asks for it.
    pub(crate) fn encode(&self) -> Box<RawValue> {
        serde_json::value::to_raw_value(self).expect("a template list always serializes")
    }
}

/// `TextResourceContents` or `BlobResourceContents`: the same in every revision.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ResourceContentsWire<'a>(
    pub(crate) &'a ResourceContents,
    pub(crate) ProtocolVersion,
);

impl Serialize for ResourceContentsWire<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let contents = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("uri", &contents.uri)?;
        if let Some(mime_type) = &contents.mime_type {
            map.serialize_entry("mimeType", mime_type)?;
        }
        match &contents.body {
            ResourceBody::Text(text) => map.serialize_entry("text", text)?,
            ResourceBody::Blob(bytes) => map.serialize_entry("blob", &base64(bytes))?,
        }
        if let Some(meta) = super::definition_meta(&contents.meta, self.1) {
            map.serialize_entry("_meta", meta)?;
        }
        map.end()
    }
}

/// The result of `resources/read`.
#[derive(Debug, Serialize)]
pub(crate) struct ReadResourceResult<'a> {
    contents: Vec<ResourceContentsWire<'a>>,
    #[serde(flatten)]
    modern: Option<ModernResult<'a>>,
}

impl<'a> ReadResourceResult<'a> {
    /// `modern` must be given exactly for 2026-07-28 (where the result needs cache hints).
    pub(crate) fn new(
        contents: &'a [ResourceContents],
        revision: ProtocolVersion,
        modern: Option<ModernResult<'a>>,
    ) -> Self {
        debug_assert_eq!(modern.is_some(), revision.is_modern());
        ReadResourceResult {
            contents: contents
                .iter()
                .map(|contents| ResourceContentsWire(contents, revision))
                .collect(),
            modern,
        }
    }
}

/// Standard base64 (RFC 4648, with padding), as `blob` and image `data` carry bytes.
pub(crate) fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use serde_json::{Value, json};

    use super::*;
    use crate::protocol::Role;

    #[test]
    fn base64_pads_to_whole_quanta() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
    }

    #[test]
    fn contents_are_text_or_blob() {
        let text = ResourceContents::text("doc://a", "hi").with_mime_type("text/plain");
        assert_eq!(
            serde_json::to_value(ResourceContentsWire(&text, ProtocolVersion::V2025_06_18))
                .unwrap(),
            json!({"uri": "doc://a", "mimeType": "text/plain", "text": "hi"})
        );
        let blob = ResourceContents::blob("file:///x", vec![1, 2, 3]);
        assert_eq!(
            serde_json::to_value(ResourceContentsWire(&blob, ProtocolVersion::V2025_06_18))
                .unwrap(),
            json!({"uri": "file:///x", "blob": "AQID"})
        );
    }

    fn annotated() -> Annotations {
        Annotations {
            audience: Cow::Borrowed(&[Role::User, Role::Assistant]),
            priority: Some(1.5),
            last_modified: Some("2025-01-12T15:00:58Z".into()),
        }
    }

    #[test]
    fn last_modified_reaches_only_2025_06_18_on() {
        let annotations = annotated();
        let old = AnnotationsWire::new(&annotations, ProtocolVersion::V2025_03_26);
        assert_eq!(
            serde_json::to_value(old).unwrap(),
            json!({"audience": ["user", "assistant"], "priority": 1.0})
        );
        let new = AnnotationsWire::new(&annotations, ProtocolVersion::V2025_06_18);
        assert_eq!(
            serde_json::to_value(new).unwrap()["lastModified"],
            json!("2025-01-12T15:00:58Z")
        );
        let only_date = Annotations {
            last_modified: Some("2025-01-12T15:00:58Z".into()),
            ..Annotations::NONE
        };
        assert!(AnnotationsWire::new(&only_date, ProtocolVersion::V2024_11_05).is_none());
    }

    #[test]
    fn a_resource_has_its_title_from_2025_06_18() {
        let resource = Resource::new("config://app", "app")
            .with_title("App settings")
            .with_mime_type("application/json")
            .with_size(12);
        let value = |revision| -> Value {
            serde_json::to_value(ResourceWire::new(&resource, revision)).unwrap()
        };
        assert_eq!(
            value(ProtocolVersion::V2024_11_05),
            json!({"uri": "config://app", "name": "app", "mimeType": "application/json", "size": 12})
        );
        assert_eq!(value(ProtocolVersion::V2025_06_18)["title"], "App settings");
    }

    #[test]
    fn a_resource_has_its_icons_from_2025_11_25() {
        let resource = Resource::new("config://app", "app")
            .with_icon(Icon::new("https://example.com/app.svg").with_mime_type("image/svg+xml"));
        for revision in ProtocolVersion::ALL {
            let value = serde_json::to_value(ResourceWire::new(&resource, revision)).unwrap();
            if revision >= ProtocolVersion::V2025_11_25 {
                assert_eq!(
                    value["icons"],
                    json!([{"src": "https://example.com/app.svg", "mimeType": "image/svg+xml"}]),
                    "{revision:?}"
                );
            } else {
                assert_eq!(
                    value,
                    json!({"uri": "config://app", "name": "app"}),
                    "{revision:?}"
                );
            }
        }
    }

    #[test]
    fn a_template_has_its_icons_from_2025_11_25() {
        let template = ResourceTemplate {
            uri_template: crate::protocol::uri_template::UriTemplate::parse("doc://{name}")
                .unwrap(),
            name: "doc".into(),
            title: None,
            description: None,
            mime_type: None,
            annotations: Annotations::NONE,
            icons: Vec::new(),
            meta: Default::default(),
        }
        .with_icon(Icon::new("https://example.com/doc.png"))
        .with_icon(Icon::new("https://example.com/doc-dark.png"));
        for revision in ProtocolVersion::ALL {
            let value =
                serde_json::to_value(ResourceTemplateWire::new(&template, revision)).unwrap();
            if revision >= ProtocolVersion::V2025_11_25 {
                assert_eq!(
                    value["icons"],
                    json!([
                        {"src": "https://example.com/doc.png"},
                        {"src": "https://example.com/doc-dark.png"}
                    ]),
                    "{revision:?}"
                );
            } else {
                assert_eq!(
                    value,
                    json!({"uriTemplate": "doc://{name}", "name": "doc"}),
                    "{revision:?}"
                );
            }
        }
    }

    #[test]
    fn no_icons_means_no_icons_member() {
        let resource = Resource::new("config://app", "app");
        let value =
            serde_json::to_value(ResourceWire::new(&resource, ProtocolVersion::V2026_07_28))
                .unwrap();
        assert_eq!(value, json!({"uri": "config://app", "name": "app"}));
    }
}
