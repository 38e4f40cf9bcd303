//! `Json<T>`: a tool result that is data, sent as `structuredContent` with an `outputSchema`
//! derived from `T`, and as JSON text for clients that read only text.

use std::marker::PhantomData;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde_json::Value;

use super::{IntoToolResult, JsonObject};
use crate::protocol::{CallToolResult, Content};

/// Return `Json(value)` from a tool to send `value` as structured data.
///
/// The tool's `outputSchema` is `T`'s JSON Schema (inlined, as input schemas are), and each
/// result carries `value` as `structuredContent` plus the same JSON as a text block, which
/// clients without structured output read instead. Per revision:
///
/// | client revision | `outputSchema` / `structuredContent` |
/// |---|---|
/// | 2024-11-05, 2025-03-26 | not sent (the text block only) |
/// | 2025-06-18, 2025-11-25 | sent when `T` is an object (a struct, a map); otherwise not sent |
/// | 2026-07-28 | always sent, whatever JSON `T` is |
///
/// A value that fails to serialize becomes an error result (the failure is logged).
///
/// ```
/// use mcp_runtime::{Json, mcp_tool};
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Sum {
///     total: f64,
/// }
///
/// /// Add two numbers.
/// #[mcp_tool]
/// fn add(a: f64, b: f64) -> Json<Sum> {
///     Json(Sum { total: a + b })
/// }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> CallToolResult {
        match serde_json::to_value(&self.0) {
            Ok(value) => {
                let text = value.to_string();
                CallToolResult {
                    content: vec![Content::text(text)],
                    structured_content: Some(value),
                    is_error: false,
                    meta: crate::protocol::Meta::new(),
                }
            }
            Err(error) => {
                tracing::error!(%error, "a tool's structured result could not be serialized");
                CallToolResult::error(format!(
                    "the tool's result could not be serialized: {error}"
                ))
            }
        }
    }

    fn output_schema() -> Option<JsonObject> {
        Some(output_schema_of::<T>())
    }
}

/// `T`'s schema as an `outputSchema`: inlined, without `$schema`.
fn output_schema_of<T: JsonSchema>() -> JsonObject {
    let settings = SchemaSettings::draft2020_12().with(|settings| {
        settings.inline_subschemas = true;
        settings.meta_schema = None;
    });
    let schema = settings.into_generator().into_root_schema_for::<T>();
    match schema.to_value() {
        Value::Object(mut object) => {
            // The type's name is no help to a client.
            object.remove("title");
            object
        }
        // `true`: any value.
        _ => JsonObject::new(),
    }
}

/// Asks a return type for its output schema without requiring `T: IntoToolResult` (which is
/// reported once, where the result is converted): `(&OutputProbe::<T>::NEW).output_schema()`
/// resolves to [`ViaIntoToolResult`] when the bound holds and to [`ViaNoResult`] otherwise.
#[derive(Debug)]
pub struct OutputProbe<T>(PhantomData<fn() -> T>);

impl<T> OutputProbe<T> {
    /// The probe of `T`.
    pub const NEW: Self = OutputProbe(PhantomData);
}

/// The probe's answer for a return type that is a tool result.
pub trait ViaIntoToolResult {
    /// [`IntoToolResult::output_schema`].
    fn output_schema(&self) -> Option<JsonObject>;
}

impl<T: IntoToolResult> ViaIntoToolResult for OutputProbe<T> {
    fn output_schema(&self) -> Option<JsonObject> {
        T::output_schema()
    }
}

/// The probe's answer for any other type: none (its error is reported elsewhere).
pub trait ViaNoResult {
    /// Nothing.
    fn output_schema(&self) -> Option<JsonObject>;
}

impl<T> ViaNoResult for &OutputProbe<T> {
    fn output_schema(&self) -> Option<JsonObject> {
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(Serialize, JsonSchema)]
    struct Sum {
        /// The total.
        total: f64,
    }

    #[test]
    fn structured_content_with_a_text_fallback() {
        let result = Json(Sum { total: 3.0 }).into_tool_result();
        assert_eq!(result.structured_content, Some(json!({"total": 3.0})));
        assert_eq!(result.content, [Content::text(r#"{"total":3.0}"#)]);
        assert!(!result.is_error);
    }

    #[test]
    fn the_schema_comes_from_the_type_through_results() {
        let schema = <Result<Json<Sum>, String>>::output_schema().unwrap();
        assert_eq!(schema["type"], json!("object"));
        assert_eq!(schema["properties"]["total"]["type"], json!("number"));
        assert!(schema.get("title").is_none() && schema.get("$schema").is_none());
        assert_eq!(
            Json(vec![1, 2]).into_tool_result().structured_content,
            Some(json!([1, 2]))
        );
        assert_eq!(
            <Json<Vec<u8>>>::output_schema().unwrap()["type"],
            json!("array")
        );
        assert!(String::output_schema().is_none());
    }

    struct NotAResult;

    // The borrow is what picks `ViaNoResult` when `ViaIntoToolResult` does not apply.
    #[allow(clippy::needless_borrow)]
    #[test]
    fn the_probe_asks_results_and_ignores_other_types() {
        assert!((&OutputProbe::<Json<Sum>>::NEW).output_schema().is_some());
        assert!((&OutputProbe::<String>::NEW).output_schema().is_none());
        assert!((&OutputProbe::<NotAResult>::NEW).output_schema().is_none());
    }
}
