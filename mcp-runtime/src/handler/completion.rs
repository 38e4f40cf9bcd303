//! Completions (`completion/complete`): suggested values for a prompt argument or a resource
//! template variable, from a completer function or from an enum's variants.

use std::collections::HashMap;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

use crate::context::RequestContext;
use crate::protocol::Completion;

/// One request for suggestions: which argument (or template variable), what the user has typed
/// so far, and what else is known.
#[derive(Debug, Clone)]
pub struct CompletionRequest {
    /// The argument's (or variable's) name.
    pub argument: String,
    /// The text typed so far.
    pub value: String,
    /// The rest of what is known.
    pub context: CompletionContext,
}

/// What a completer may consult besides the typed text.
#[derive(Debug, Clone)]
pub struct CompletionContext {
    /// The values of the prompt's other arguments (or the template's other variables) already
    /// chosen, when the client sends them (2025-06-18 on).
    pub arguments: HashMap<String, String>,
    /// The request's context.
    pub request: RequestContext,
}

impl CompletionContext {
    /// The value already chosen for the argument `name`.
    pub fn argument(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).map(String::as_str)
    }
}

/// A function that suggests values for one argument: `fn(&str) -> R` (given the typed text) or
/// `fn(&str, &CompletionContext) -> R`, where `R` is `Vec<String>`, `Vec<&'static str>` or a
/// [`Completion`]. Values beyond the spec's hundred are cut, with `total` and `hasMore` set.
///
/// ```
/// use mcp_runtime::handler::CompletionContext;
///
/// fn complete_language(typed: &str) -> Vec<String> {
///     ["rust", "python", "typescript"]
///         .into_iter()
///         .filter(|language| language.starts_with(typed))
///         .map(String::from)
///         .collect()
/// }
///
/// fn complete_branch(typed: &str, context: &CompletionContext) -> Vec<String> {
///     let repo = context.argument("repo").unwrap_or("main-repo");
///     vec![format!("{repo}/{typed}")]
/// }
/// # let _ = (complete_language, complete_branch);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot complete an argument",
    label = "not a completer",
    note = "a completer is a plain function `fn(&str) -> R` or `fn(&str, &CompletionContext) -> R`, where `R` is `Vec<String>`, `Vec<&'static str>` or `Completion`"
)]
pub trait Completer<Marker>: Send + Sync + 'static {
    /// Suggest values for the typed text `value`.
    fn complete(&self, value: &str, context: &CompletionContext) -> Completion;
}

impl<F, R> Completer<(R,)> for F
where
    F: Fn(&str) -> R + Send + Sync + 'static,
    R: IntoCompletion,
{
    fn complete(&self, value: &str, _: &CompletionContext) -> Completion {
        self(value).into_completion()
    }
}

impl<F, R> Completer<(R, CompletionContext)> for F
where
    F: Fn(&str, &CompletionContext) -> R + Send + Sync + 'static,
    R: IntoCompletion,
{
    fn complete(&self, value: &str, context: &CompletionContext) -> Completion {
        self(value, context).into_completion()
    }
}

/// A value a completer may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a completer",
    label = "not a list of suggestions",
    note = "return `Vec<String>`, `Vec<&'static str>` or `Completion`"
)]
pub trait IntoCompletion {
    /// Convert into the suggestions sent (at most 100).
    fn into_completion(self) -> Completion;
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Completion {
        if self.values.len() <= Completion::MAX_VALUES {
            return self;
        }
        let total = self.total.unwrap_or(self.values.len() as u64);
        let mut capped = Completion::new(self.values);
        capped.total = Some(total);
        capped
    }
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Completion {
        Completion::new(self)
    }
}

impl IntoCompletion for Vec<&'static str> {
    fn into_completion(self) -> Completion {
        Completion::new(self)
    }
}

/// The string values of `T`'s JSON Schema when it is an enum of unit variants (`["rust",
/// "python"]`), as serde names them; `None` for any other type.
pub fn enum_values<T: JsonSchema>() -> Option<Vec<String>> {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    let schema = generator.root_schema_for::<T>().to_value();
    string_values(&schema)
}

/// `{"enum": [...]}`, or a `oneOf`/`anyOf` of `{"const": ...}` / `{"enum": [...]}` branches
/// (what schemars writes when the variants have doc comments).
fn string_values(schema: &Value) -> Option<Vec<String>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(|value| value.as_str().map(str::to_owned))
            .collect();
    }
    if let Some(value) = schema.get("const") {
        return value.as_str().map(|value| vec![value.to_owned()]);
    }
    let branches = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    let mut values = Vec::new();
    for branch in branches {
        values.extend(string_values(branch)?);
    }
    (!values.is_empty()).then_some(values)
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;

    use super::*;
    use crate::protocol::ProtocolVersion;

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Plain {
        Rust,
        Python,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    enum Documented {
        /// The first.
        First,
        /// The second.
        Second,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    enum Mixed {
        Unit,
        Data(u8),
    }

    #[test]
    fn unit_enums_give_their_serde_names() {
        assert_eq!(enum_values::<Plain>().unwrap(), ["rust", "python"]);
        assert_eq!(enum_values::<Documented>().unwrap(), ["First", "Second"]);
    }

    #[test]
    fn other_types_give_nothing() {
        assert_eq!(enum_values::<Mixed>(), None);
        assert_eq!(enum_values::<u32>(), None);
        assert_eq!(enum_values::<String>(), None);
    }

    fn context() -> CompletionContext {
        CompletionContext {
            arguments: HashMap::from([("repo".to_owned(), "mcp".to_owned())]),
            request: RequestContext::new(ProtocolVersion::V2025_06_18),
        }
    }

    fn run<M>(completer: impl Completer<M>, value: &str) -> Completion {
        completer.complete(value, &context())
    }

    #[test]
    fn completers_take_the_text_and_maybe_the_context() {
        fn starts(typed: &str) -> Vec<&'static str> {
            ["alpha", "beta"]
                .into_iter()
                .filter(|v| v.starts_with(typed))
                .collect()
        }
        fn scoped(typed: &str, context: &CompletionContext) -> Vec<String> {
            vec![format!("{}/{typed}", context.argument("repo").unwrap())]
        }
        assert_eq!(run(starts, "b").values, ["beta"]);
        assert_eq!(run(scoped, "x").values, ["mcp/x"]);
    }

    #[test]
    fn more_than_a_hundred_values_are_capped_and_counted() {
        let completion = Completion {
            values: (0..150).map(|n| n.to_string()).collect(),
            total: None,
            has_more: false,
        }
        .into_completion();
        assert_eq!(completion.values.len(), 100);
        assert_eq!(completion.total, Some(150));
        assert!(completion.has_more);
    }
}
