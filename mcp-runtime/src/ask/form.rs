//! Elicitation forms: the `requestedSchema` a type stands for, and the user's answer read back
//! as that type.
//!
//! Every revision with elicitation allows only a flat object of primitive fields (strings,
//! numbers, integers, booleans, string enums; from 2025-11-25 also lists of enum values), each
//! described by a handful of keywords; a type's full schema is cut down to those, and anything
//! else is refused rather than sent to a client that would reject it.
//!
//! Enums (SEP-1330): unit variants without titles are an untitled `enum`; variants with a
//! `#[schemars(title = "..")]` (or a doc comment) are titled options: `oneOf` of `const` and
//! `title` from 2025-11-25, `enum` with the titles in `enumNames` before. A `Vec` of an enum
//! is a multi-select (`items.enum`, or `items.anyOf` when titled), from 2025-11-25 only.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{AskError, Elicitation};
use crate::protocol::ProtocolVersion;
use crate::schema::inline_schema_of;

/// Keywords every field may keep.
const COMMON: [&str; 3] = ["type", "title", "description"];
/// String formats forms allow.
const STRING_FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];

/// The `requestedSchema` of a form for `T`, as `revision` allows it.
pub(super) fn requested_schema<T: JsonSchema>(
    revision: ProtocolVersion,
) -> Result<Value, AskError> {
    flatten(inline_schema_of::<T>(), revision)
}

fn flatten(schema: Value, revision: ProtocolVersion) -> Result<Value, AskError> {
    let invalid = |detail: String| Err(AskError::InvalidForm(detail));
    let Value::Object(root) = schema else {
        return invalid("the form's type has no schema".into());
    };
    if root.get("type") != Some(&Value::String("object".into())) {
        return invalid("a form is a struct with named fields".into());
    }
    let mut properties = Map::new();
    if let Some(Value::Object(fields)) = root.get("properties") {
        for (name, field) in fields {
            let field = flat_field(field, revision).ok_or_else(|| {
                AskError::InvalidForm(format!(
                    "field `{name}` is not a string, number, integer, boolean or string enum"
                ))
            })?;
            properties.insert(name.clone(), Value::Object(field));
        }
    }
    let mut form = Map::new();
    form.insert("type".into(), "object".into());
    form.insert("properties".into(), Value::Object(properties));
    if let Some(required @ Value::Array(_)) = root.get("required") {
        form.insert("required".into(), required.clone());
    }
    Ok(Value::Object(form))
}

/// The keywords of `field` a form may carry, or `None` when it is not a primitive.
fn flat_field(field: &Value, revision: ProtocolVersion) -> Option<Map<String, Value>> {
    let field = field.as_object()?;
    if let Some(options) = field.get("oneOf").and_then(titled_options) {
        return Some(titled_enum(field, &options, revision));
    }
    let kind = field.get("type")?.as_str()?;
    if kind == "array" {
        return multi_select(field, revision);
    }
    let extra: &[&str] = match kind {
        "string" if field.contains_key("enum") => &["enum", "enumNames"],
        "string" => &["minLength", "maxLength", "format"],
        "number" | "integer" => &["minimum", "maximum"],
        "boolean" => &[],
        _ => return None,
    };
    if field
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|values| !values.iter().all(Value::is_string))
    {
        return None;
    }
    let mut flat = Map::new();
    for (key, value) in field {
        if key == "enumNames" && !names_match(value, field.get("enum")) {
            continue;
        }
        let keep = COMMON.contains(&key.as_str())
            || extra.contains(&key.as_str())
            // Defaults on every kind arrived in 2025-11-25 (booleans had one before).
            || (key == "default" && (revision >= ProtocolVersion::V2025_11_25 || kind == "boolean"));
        if !keep {
            continue;
        }
        if key == "format" && !value.as_str().is_some_and(|f| STRING_FORMATS.contains(&f)) {
            continue;
        }
        flat.insert(key.clone(), value.clone());
    }
    Some(flat)
}

/// Whether `names` (legacy `enumNames`) has one string per value of `values`.
fn names_match(names: &Value, values: Option<&Value>) -> bool {
    match (names.as_array(), values.and_then(Value::as_array)) {
        (Some(names), Some(values)) => {
            names.len() == values.len() && names.iter().all(Value::is_string)
        }
        _ => false,
    }
}

/// Whether defaults of every kind may be sent (booleans always could).
fn defaults_allowed(revision: ProtocolVersion) -> bool {
    revision >= ProtocolVersion::V2025_11_25
}

/// The value and title of each option of a `oneOf` (or `anyOf`) whose options are all string
/// constants (an enum's variants); an option without a title is shown by its description, or
/// else its value.
fn titled_options(options: &Value) -> Option<Vec<(String, String)>> {
    options
        .as_array()?
        .iter()
        .map(|option| {
            let option = option.as_object()?;
            let value = option.get("const")?.as_str()?;
            if option.get("type").is_some_and(|kind| kind != "string") {
                return None;
            }
            let title = ["title", "description"]
                .iter()
                .find_map(|key| option.get(*key).and_then(Value::as_str))
                .unwrap_or(value);
            Some((value.to_owned(), title.to_owned()))
        })
        .collect()
}

/// Copy the keywords every field may carry: title, description, and the default when allowed.
fn common_keywords(
    field: &Map<String, Value>,
    revision: ProtocolVersion,
    flat: &mut Map<String, Value>,
) {
    for key in ["title", "description"] {
        if let Some(value) = field.get(key) {
            flat.insert(key.into(), value.clone());
        }
    }
    if defaults_allowed(revision)
        && let Some(default) = field.get("default")
    {
        flat.insert("default".into(), default.clone());
    }
}

/// A single choice among titled options, as `revision` allows it.
fn titled_enum(
    field: &Map<String, Value>,
    options: &[(String, String)],
    revision: ProtocolVersion,
) -> Map<String, Value> {
    let mut flat = Map::new();
    flat.insert("type".into(), "string".into());
    common_keywords(field, revision, &mut flat);
    if revision >= ProtocolVersion::V2025_11_25 {
        let options = options
            .iter()
            .map(|(value, title)| serde_json::json!({"const": value, "title": title}))
            .collect();
        flat.insert("oneOf".into(), Value::Array(options));
    } else {
        let (values, titles): (Vec<Value>, Vec<Value>) = options
            .iter()
            .map(|(value, title)| (value.as_str().into(), title.as_str().into()))
            .unzip();
        flat.insert("enum".into(), Value::Array(values));
        flat.insert("enumNames".into(), Value::Array(titles));
    }
    flat
}

/// A list of enum values (a multi-select), from 2025-11-25 on; `None` for any other list.
fn multi_select(
    field: &Map<String, Value>,
    revision: ProtocolVersion,
) -> Option<Map<String, Value>> {
    if revision < ProtocolVersion::V2025_11_25 {
        return None;
    }
    let items = field.get("items")?.as_object()?;
    let items = if let Some(options) = items
        .get("anyOf")
        .or_else(|| items.get("oneOf"))
        .and_then(titled_options)
    {
        let options: Vec<Value> = options
            .iter()
            .map(|(value, title)| serde_json::json!({"const": value, "title": title}))
            .collect();
        serde_json::json!({"anyOf": options})
    } else {
        let values = items.get("enum")?.as_array()?;
        if items.get("type")? != "string" || !values.iter().all(Value::is_string) {
            return None;
        }
        serde_json::json!({"type": "string", "enum": values})
    };
    let mut flat = Map::new();
    flat.insert("type".into(), "array".into());
    common_keywords(field, revision, &mut flat);
    for key in ["minItems", "maxItems"] {
        if let Some(value) = field.get(key) {
            flat.insert(key.into(), value.clone());
        }
    }
    flat.insert("items".into(), items);
    Some(flat)
}

/// The client's `ElicitResult` of a URL-mode elicitation: only the action counts.
pub(super) fn read_action(answer: Value) -> Result<Elicitation<()>, AskError> {
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") => Ok(Elicitation::Accepted(())),
        Some("decline") => Ok(Elicitation::Declined),
        Some("cancel") => Ok(Elicitation::Cancelled),
        _ => Err(AskError::InvalidAnswer(
            "`action` must be accept, decline or cancel".into(),
        )),
    }
}

/// The client's `ElicitResult`, read as `T` when the user accepted.
pub(super) fn read_answer<T: DeserializeOwned>(answer: Value) -> Result<Elicitation<T>, AskError> {
    let invalid = |detail: String| Err(AskError::InvalidAnswer(detail));
    let Value::Object(mut answer) = answer else {
        return invalid("an elicitation result must be an object".into());
    };
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") => {
            let content = answer
                .remove("content")
                .unwrap_or_else(|| Value::Object(Map::new()));
            serde_json::from_value(content)
                .map(Elicitation::Accepted)
                .map_err(|error| AskError::InvalidAnswer(format!("the form's content: {error}")))
        }
        Some("decline") => Ok(Elicitation::Declined),
        Some("cancel") => Ok(Elicitation::Cancelled),
        _ => invalid("`action` must be accept, decline or cancel".into()),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    #[allow(dead_code)]
    enum Color {
        Red,
        Green,
    }

    /// A flat form.
    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    struct Flat {
        /// Your name.
        name: String,
        age: Option<u8>,
        #[serde(default)]
        subscribe: bool,
        color: Color,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        inner: Flat,
    }

    #[test]
    fn a_flat_struct_becomes_a_form_of_primitive_fields() {
        let form = requested_schema::<Flat>(ProtocolVersion::V2025_06_18).unwrap();
        assert_eq!(
            form,
            json!({"type": "object", "properties": {
                "name": {"type": "string", "description": "Your name."},
                "age": {"type": "integer", "minimum": 0, "maximum": 255},
                "subscribe": {"type": "boolean", "default": false},
                "color": {"type": "string", "enum": ["Red", "Green"]},
            }, "required": ["name", "color"]})
        );
    }

    #[test]
    fn nested_fields_and_non_structs_are_refused() {
        let error = requested_schema::<Nested>(ProtocolVersion::V2025_06_18).unwrap_err();
        assert!(matches!(&error, AskError::InvalidForm(detail) if detail.contains("`inner`")));
        assert!(requested_schema::<Vec<String>>(ProtocolVersion::V2025_06_18).is_err());
        assert!(requested_schema::<String>(ProtocolVersion::V2025_06_18).is_err());
    }

    #[test]
    fn answers_are_read_by_action() {
        let accepted: Elicitation<Flat> = read_answer(json!({"action": "accept",
            "content": {"name": "Ada", "color": "Red"}}))
        .unwrap();
        assert_eq!(
            accepted,
            Elicitation::Accepted(Flat {
                name: "Ada".into(),
                age: None,
                subscribe: false,
                color: Color::Red
            })
        );
        assert_eq!(
            read_answer::<Flat>(json!({"action": "decline"})).unwrap(),
            Elicitation::Declined
        );
        assert_eq!(
            read_answer::<Flat>(json!({"action": "cancel"})).unwrap(),
            Elicitation::Cancelled
        );
        assert!(matches!(
            read_answer::<Flat>(json!({"action": "accept", "content": {"name": 3}})),
            Err(AskError::InvalidAnswer(_))
        ));
        assert!(read_answer::<Flat>(json!({"action": "maybe"})).is_err());
    }
}

#[cfg(test)]
mod enum_form_tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
    #[serde(rename_all = "lowercase")]
    enum Plain {
        Option1,
        Option2,
    }

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    enum Titled {
        #[schemars(title = "First Option")]
        #[serde(rename = "value1")]
        Value1,
        /// The second one.
        #[serde(rename = "value2")]
        Value2,
    }

    fn default_name() -> String {
        "John Doe".into()
    }

    /// Every enum shape of SEP-1330, and a default (SEP-1034).
    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    #[allow(dead_code)]
    #[serde(rename_all = "camelCase")]
    struct Choices {
        untitled_single: Plain,
        titled_single: Titled,
        #[schemars(extend("enumNames" = ["Option One", "Option Two"]))]
        legacy_enum: Plain,
        #[schemars(length(min = 1, max = 2))]
        untitled_multi: Vec<Plain>,
        titled_multi: Vec<Titled>,
        #[serde(default = "default_name")]
        #[schemars(default = "default_name")]
        name: String,
    }

    #[test]
    fn enums_take_every_sep_1330_shape_from_2025_11_25() {
        let form = requested_schema::<Choices>(ProtocolVersion::V2025_11_25).unwrap();
        let titled = json!([{"const": "value1", "title": "First Option"},
            {"const": "value2", "title": "The second one."}]);
        assert_eq!(
            form["properties"],
            json!({
                "untitledSingle": {"type": "string", "enum": ["option1", "option2"]},
                "titledSingle": {"type": "string", "oneOf": titled},
                "legacyEnum": {"type": "string", "enum": ["option1", "option2"],
                    "enumNames": ["Option One", "Option Two"]},
                "untitledMulti": {"type": "array", "minItems": 1, "maxItems": 2,
                    "items": {"type": "string", "enum": ["option1", "option2"]}},
                "titledMulti": {"type": "array", "items": {"anyOf": titled}},
                "name": {"type": "string", "default": "John Doe"},
            })
        );
        let answer: Elicitation<Choices> = read_answer(json!({"action": "accept", "content": {
            "untitledSingle": "option1", "titledSingle": "value2", "legacyEnum": "option2",
            "untitledMulti": ["option1", "option2"], "titledMulti": ["value1"]}}))
        .unwrap();
        let Elicitation::Accepted(choices) = answer else {
            unreachable!("accepted")
        };
        assert_eq!(choices.titled_multi, vec![Titled::Value1]);
        assert_eq!(choices.name, "John Doe");
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Single {
        titled: Titled,
        #[serde(default = "default_name")]
        #[schemars(default = "default_name")]
        name: String,
    }

    #[test]
    fn before_2025_11_25_titles_become_enum_names_and_lists_are_refused() {
        let form = requested_schema::<Single>(ProtocolVersion::V2025_06_18).unwrap();
        assert_eq!(
            form["properties"],
            json!({
                "titled": {"type": "string", "enum": ["value1", "value2"],
                    "enumNames": ["First Option", "The second one."]},
                "name": {"type": "string"},
            })
        );
        let error = requested_schema::<Choices>(ProtocolVersion::V2025_06_18).unwrap_err();
        assert!(
            matches!(&error, AskError::InvalidForm(detail) if detail.contains("untitledMulti"))
        );
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Numbers {
        list: Vec<u32>,
    }

    #[test]
    fn lists_of_anything_but_enum_values_are_refused() {
        assert!(requested_schema::<Numbers>(ProtocolVersion::V2025_11_25).is_err());
    }
}
