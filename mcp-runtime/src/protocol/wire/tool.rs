//! `Tool` and `ListToolsResult` per revision.

use serde::Serialize;
use serde_json::value::RawValue;

use super::ModernResult;
use crate::protocol::ProtocolVersion;
use crate::protocol::{JsonObject, ToolAnnotations, ToolDefinition};

/// A tool definition as `revision` reads it.
///
/// | member | from |
/// |---|---|
/// | `name`, `description`, `inputSchema` | 2024-11-05 |
/// | `annotations` (with `title` standing in for the tool's own) | 2025-03-26 |
/// | `title`, `outputSchema` (object schemas only until 2026-07-28) | 2025-06-18 |
/// | `icons` | 2025-11-25 |
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolWire<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    input_schema: &'a JsonObject,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_schema: Option<&'a JsonObject>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<AnnotationsWire<'a>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    icons: &'a [crate::protocol::Icon],
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a JsonObject>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct AnnotationsWire<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    read_only_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    destructive_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    idempotent_hint: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    open_world_hint: Option<bool>,
}

impl<'a> ToolWire<'a> {
    pub(crate) fn new(definition: &'a ToolDefinition, revision: ProtocolVersion) -> Self {
        let has_title = revision >= ProtocolVersion::V2025_06_18;
        let title = definition.title.as_deref();
        ToolWire {
            name: &definition.name,
            title: title.filter(|_| has_title),
            description: definition.description.as_deref(),
            input_schema: &definition.input_schema,
            output_schema: definition
                .output_schema
                .as_ref()
                .filter(|schema| output_schema_allowed(schema, revision)),
            annotations: annotations(
                &definition.annotations,
                // 2025-03-26 has no `Tool.title`, but `annotations.title` carries the same.
                title.filter(|_| !has_title),
                revision,
            ),
            // Icons arrived in 2025-11-25.
            icons: if revision >= ProtocolVersion::V2025_11_25 {
                &definition.icons
            } else {
                &[]
            },
            meta: super::definition_meta(&definition.meta, revision),
        }
    }
}

fn annotations<'a>(
    hints: &ToolAnnotations,
    title: Option<&'a str>,
    revision: ProtocolVersion,
) -> Option<AnnotationsWire<'a>> {
    if revision < ProtocolVersion::V2025_03_26 || (hints.is_empty() && title.is_none()) {
        return None;
    }
    Some(AnnotationsWire {
        title,
        read_only_hint: hints.read_only,
        destructive_hint: hints.destructive,
        idempotent_hint: hints.idempotent,
        open_world_hint: hints.open_world,
    })
}

/// `outputSchema` arrived in 2025-06-18 and had to describe an object until 2026-07-28.
fn output_schema_allowed(schema: &JsonObject, revision: ProtocolVersion) -> bool {
    match revision {
        ProtocolVersion::V2024_11_05 | ProtocolVersion::V2025_03_26 => false,
        ProtocolVersion::V2025_06_18 | ProtocolVersion::V2025_11_25 => {
            schema.get("type").and_then(|t| t.as_str()) == Some("object")
        }
        ProtocolVersion::V2026_07_28 => true,
    }
}

/// One page of `tools/list`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListToolsResult<'a> {
    tools: Vec<ToolWire<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<&'a str>,
    #[serde(flatten)]
    modern: Option<ModernResult<'a>>,
}

impl<'a> ListToolsResult<'a> {
    /// The page holding `definitions`, rendered for `revision`; `modern` must be given exactly
    /// for 2026-07-28.
    pub(crate) fn new(
        definitions: &'a [ToolDefinition],
        revision: ProtocolVersion,
        next_cursor: Option<&'a str>,
        modern: Option<ModernResult<'a>>,
    ) -> Self {
        debug_assert_eq!(modern.is_some(), revision.is_modern());
        ListToolsResult {
            tools: definitions
                .iter()
                .map(|definition| ToolWire::new(definition, revision))
                .collect(),
            next_cursor,
            modern,
        }
    }

    /// The page encoded once, to be spliced into every response that asks for it.
    pub(crate) fn encode(&self) -> Box<RawValue> {
        serde_json::value::to_raw_value(self).expect("a tool list always serializes")
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{Value, json};

    use super::*;
    use crate::protocol::ServerInfo;
    use crate::protocol::wire::result_meta;

    fn schema(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    fn divide() -> ToolDefinition {
        ToolDefinition {
            name: "divide".into(),
            title: Some("Divide".into()),
            description: Some("Divide two numbers.".into()),
            input_schema: schema(json!({"type": "object"})),
            output_schema: Some(schema(json!({"type": "object", "properties": {}}))),
            annotations: ToolAnnotations {
                read_only: Some(true),
                ..ToolAnnotations::default()
            },
            icons: Vec::new(),
            task_support: crate::protocol::TaskSupport::Forbidden,
            meta: crate::protocol::Meta::new(),
        }
    }

    #[test]
    fn meta_reaches_only_2025_06_18_on() {
        let mut definition = divide();
        definition.meta = crate::protocol::Meta::new()
            .with("com.example/owner", "maths")
            .unwrap();
        for revision in [ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_03_26] {
            assert!(
                render(&definition, revision).get("_meta").is_none(),
                "{revision}"
            );
        }
        for revision in [
            ProtocolVersion::V2025_06_18,
            ProtocolVersion::V2025_11_25,
            ProtocolVersion::V2026_07_28,
        ] {
            assert_eq!(
                render(&definition, revision)["_meta"],
                json!({"com.example/owner": "maths"}),
                "{revision}"
            );
        }
        // Empty: no member at all.
        assert!(
            render(&divide(), ProtocolVersion::V2026_07_28)
                .get("_meta")
                .is_none()
        );
    }

    fn render(definition: &ToolDefinition, revision: ProtocolVersion) -> Value {
        serde_json::to_value(ToolWire::new(definition, revision)).unwrap()
    }

    #[test]
    fn revision_2024_11_05_has_name_description_and_input_schema_only() {
        assert_eq!(
            render(&divide(), ProtocolVersion::V2024_11_05),
            json!({
                "name": "divide",
                "description": "Divide two numbers.",
                "inputSchema": {"type": "object"}
            })
        );
    }

    #[test]
    fn revision_2025_03_26_puts_the_title_in_annotations() {
        assert_eq!(
            render(&divide(), ProtocolVersion::V2025_03_26),
            json!({
                "name": "divide",
                "description": "Divide two numbers.",
                "inputSchema": {"type": "object"},
                "annotations": {"title": "Divide", "readOnlyHint": true}
            })
        );
    }

    #[test]
    fn revisions_from_2025_06_18_have_title_and_output_schema() {
        for revision in [
            ProtocolVersion::V2025_06_18,
            ProtocolVersion::V2025_11_25,
            ProtocolVersion::V2026_07_28,
        ] {
            assert_eq!(
                render(&divide(), revision),
                json!({
                    "name": "divide",
                    "title": "Divide",
                    "description": "Divide two numbers.",
                    "inputSchema": {"type": "object"},
                    "outputSchema": {"type": "object", "properties": {}},
                    "annotations": {"readOnlyHint": true}
                }),
                "{revision}"
            );
        }
    }

    #[test]
    fn a_non_object_output_schema_reaches_only_2026_07_28() {
        let mut definition = divide();
        definition.output_schema = Some(schema(json!({"type": "array"})));
        assert!(
            render(&definition, ProtocolVersion::V2025_11_25)
                .get("outputSchema")
                .is_none()
        );
        assert_eq!(
            render(&definition, ProtocolVersion::V2026_07_28)["outputSchema"],
            json!({"type": "array"})
        );
    }

    #[test]
    fn no_annotations_object_without_hints_or_title() {
        let mut definition = divide();
        definition.title = None;
        definition.annotations = ToolAnnotations::default();
        assert!(
            render(&definition, ProtocolVersion::V2025_03_26)
                .get("annotations")
                .is_none()
        );
    }

    #[test]
    fn a_modern_page_carries_cursor_and_cache_hints() {
        let definitions = [divide()];
        let meta = result_meta(&ServerInfo::new("s", "1"));
        let page = ListToolsResult::new(
            &definitions,
            ProtocolVersion::V2026_07_28,
            Some("2"),
            Some(ModernResult::cacheable(&meta, Duration::from_millis(5))),
        );
        let value: Value = serde_json::from_str(page.encode().get()).unwrap();
        assert_eq!(value["tools"][0]["name"], json!("divide"));
        assert_eq!(value["nextCursor"], json!("2"));
        assert_eq!(value["resultType"], json!("complete"));
        assert_eq!(value["ttlMs"], json!(5));
        assert_eq!(value["cacheScope"], json!("public"));
    }

    #[test]
    fn a_legacy_page_has_no_modern_members() {
        let definitions = [divide()];
        let page = ListToolsResult::new(&definitions, ProtocolVersion::V2025_06_18, None, None);
        let value: Value = serde_json::from_str(page.encode().get()).unwrap();
        assert_eq!(
            value.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["tools"]
        );
    }
}
