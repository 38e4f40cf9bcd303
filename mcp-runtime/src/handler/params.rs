//! The parameters of a tool function: which are arguments the client sends and which are injected
//! from the request, and how each is read from a call.
//!
//! `#[mcp_tool]` makes no decision about a parameter's role: it asks [`ToolParam`], so the role of
//! a type is a fact of the runtime, readable and testable here. The one syntactic decision the
//! macro makes is optionality (a parameter written `Option<T>`, or one with `#[arg(default)]`, may
//! be left out by the client).

use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::{CancellationToken, RequestContext};
use crate::handler::ToolCall;
use crate::handler::text::ArgumentsText;
use crate::protocol::CallToolResult;

/// A type an `#[mcp_tool]` function can take as a parameter.
///
/// Two kinds of types are parameters:
///
/// * **arguments**: any `T: serde::de::DeserializeOwned + schemars::JsonSchema + Send`. Each one
///   is a property of the tool's `inputSchema` and is read from the call's `arguments` under the
///   parameter's name (or its `#[arg(rename = "...")]`).
/// * **injected values**: [`RequestContext`], [`CancellationToken`] and the server's shared
///   [`State<T>`](crate::State). They are not in the schema; each call hands the function the
///   request's own (and the server's state).
///
/// ```
/// use mcp_runtime::{CancellationToken, mcp_tool};
///
/// /// Count down from `from`, stopping early if the client cancels.
/// #[mcp_tool]
/// async fn countdown(from: u32, cancel: CancellationToken) -> String {
///     let mut left = from;
///     while left > 0 && !cancel.is_cancelled() {
///         left -= 1;
///     }
///     format!("stopped at {left}")
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of an MCP tool",
    label = "not an argument type, nor a value the request can inject",
    note = "an argument's type must implement `serde::Deserialize` and `schemars::JsonSchema`: \
            add `#[derive(serde::Deserialize, schemars::JsonSchema)]` to it",
    note = "the values a request can inject are `RequestContext`, `CancellationToken` and `State<T>` (for any `T: Send + Sync + 'static`)"
)]
pub trait ToolParam: Sized + Send + 'static {
    /// The JSON Schema of this parameter as an argument, or `None` when it is injected (and so is
    /// not part of the tool's `inputSchema`).
    fn argument_schema(generator: &mut SchemaGenerator) -> Option<Schema>;

    /// Take this parameter's value from `call`. `name` is the argument's name on the wire; an
    /// argument is removed from `call.arguments` when taken.
    fn extract(call: &mut ToolCall, name: &str) -> Result<Self, ArgumentError>;

    /// Like [`extract`](Self::extract), for a parameter the client may leave out: an absent (or
    /// `null`) argument gives `None` instead of an error.
    fn extract_optional(call: &mut ToolCall, name: &str) -> Result<Option<Self>, ArgumentError>;

    /// Whether the value can reach the request's context, and through it the client (to ask,
    /// log, report progress): a [`RequestContext`] can, an argument cannot. A call to a tool
    /// none of whose parameters can is given no way to ask and no way to send, which costs
    /// nothing to set up. `true` unless a type says otherwise. Not an API.
    #[doc(hidden)]
    const REACHES_CONTEXT: bool = true;

    /// Like [`extract`](Self::extract), with the argument given as the client's JSON text
    /// (`None` when absent) while `call.arguments` is empty. `None` when this way cannot read
    /// it: the reader then builds `call.arguments` and asks [`extract`](Self::extract), which
    /// has the final word (and the error messages). Not an API.
    #[doc(hidden)]
    fn extract_text(
        call: &mut ToolCall,
        name: &str,
        argument: Option<&str>,
    ) -> Option<Result<Self, ArgumentError>> {
        let _ = (call, name, argument);
        None
    }

    /// [`extract_optional`](Self::extract_optional) as [`extract_text`](Self::extract_text)
    /// is to [`extract`](Self::extract). Not an API.
    #[doc(hidden)]
    fn extract_optional_text(
        call: &mut ToolCall,
        name: &str,
        argument: Option<&str>,
    ) -> Option<Result<Option<Self>, ArgumentError>> {
        let _ = (call, name, argument);
        None
    }
}

#[diagnostic::do_not_recommend]
impl<T> ToolParam for T
where
    T: DeserializeOwned + JsonSchema + Send + 'static,
{
    const REACHES_CONTEXT: bool = false;

    fn argument_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
        Some(generator.subschema_for::<T>())
    }

    fn extract(call: &mut ToolCall, name: &str) -> Result<Self, ArgumentError> {
        match call.arguments.remove(name) {
            Some(value) => deserialize_argument(value),
            None => Err(ArgumentError::Missing),
        }
    }

    fn extract_optional(call: &mut ToolCall, name: &str) -> Result<Option<Self>, ArgumentError> {
        match call.arguments.remove(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => deserialize_argument(value).map(Some),
        }
    }

    // Straight from the text into `T`, with no `Value` in between. Anything it refuses goes
    // the way above, which retries integers written as floats and words the error.
    fn extract_text(
        _: &mut ToolCall,
        _: &str,
        argument: Option<&str>,
    ) -> Option<Result<Self, ArgumentError>> {
        serde_json::from_str(argument?).ok().map(Ok)
    }

    fn extract_optional_text(
        _: &mut ToolCall,
        _: &str,
        argument: Option<&str>,
    ) -> Option<Result<Option<Self>, ArgumentError>> {
        match argument {
            None | Some("null") => Some(Ok(None)),
            Some(text) => serde_json::from_str(text).ok().map(|value| Ok(Some(value))),
        }
    }
}

/// The text-reading methods of a [`ToolParam`] that never reads the arguments: its
/// `extract` and `extract_optional` as they are.
macro_rules! injected_reads_text {
    () => {
        fn extract_text(
            call: &mut ToolCall,
            name: &str,
            _: Option<&str>,
        ) -> Option<Result<Self, ArgumentError>> {
            Some(Self::extract(call, name))
        }

        fn extract_optional_text(
            call: &mut ToolCall,
            name: &str,
            _: Option<&str>,
        ) -> Option<Result<Option<Self>, ArgumentError>> {
            Some(Self::extract_optional(call, name))
        }
    };
}
pub(crate) use injected_reads_text;

impl ToolParam for RequestContext {
    fn argument_schema(_: &mut SchemaGenerator) -> Option<Schema> {
        None
    }

    fn extract(call: &mut ToolCall, _: &str) -> Result<Self, ArgumentError> {
        Ok(call.context.clone())
    }

    fn extract_optional(call: &mut ToolCall, name: &str) -> Result<Option<Self>, ArgumentError> {
        Self::extract(call, name).map(Some)
    }

    injected_reads_text!();
}

impl ToolParam for CancellationToken {
    const REACHES_CONTEXT: bool = false;

    fn argument_schema(_: &mut SchemaGenerator) -> Option<Schema> {
        None
    }

    fn extract(call: &mut ToolCall, _: &str) -> Result<Self, ArgumentError> {
        Ok(call.context.cancellation.clone())
    }

    fn extract_optional(call: &mut ToolCall, name: &str) -> Result<Option<Self>, ArgumentError> {
        Self::extract(call, name).map(Some)
    }

    injected_reads_text!();
}

fn deserialize_argument<T: DeserializeOwned>(value: Value) -> Result<T, ArgumentError> {
    // JSON Schema counts `3.0` (and `-0`, which JSON parsers read as a float) as an `integer`,
    // so arguments the schema accepts may hold integers written as floats, which serde's
    // integer types refuse. Those are read again with such floats as integers; only when the
    // first reading failed, so a type that tells `3.0` from `3` still sees what was sent.
    let retry = has_integral_float(&value).then(|| value.clone());
    serde_path_to_error::deserialize(value).or_else(|error| {
        let retried = retry.map(|mut value| {
            integral_floats_as_integers(&mut value);
            serde_path_to_error::deserialize(value)
        });
        match retried {
            Some(Ok(read)) => Ok(read),
            // The first error speaks of the value as the client wrote it.
            Some(Err(_)) | None => {
                let path = error.path().to_string();
                Err(ArgumentError::Invalid {
                    // `.` is how the crate spells the empty path: the argument itself is wrong.
                    path: (path != ".").then_some(path),
                    message: readable_serde_message(&error.into_inner().to_string()),
                })
            }
        }
    })
}

/// A float with no fractional part that an integer type could hold, as that integer.
fn as_integer(number: &serde_json::Number) -> Option<serde_json::Number> {
    let float = number.as_f64().filter(|_| number.is_f64())?;
    // 2^64 and -2^63 are exact as floats; the bounds keep the casts below lossless.
    if float.fract() != 0.0
        || !(-9_223_372_036_854_775_808.0..18_446_744_073_709_551_616.0).contains(&float)
    {
        return None;
    }
    Some(if float >= 0.0 {
        (float as u64).into()
    } else {
        (float as i64).into()
    })
}

fn has_integral_float(value: &Value) -> bool {
    match value {
        Value::Number(number) => as_integer(number).is_some(),
        Value::Array(items) => items.iter().any(has_integral_float),
        Value::Object(members) => members.values().any(has_integral_float),
        _ => false,
    }
}

fn integral_floats_as_integers(value: &mut Value) {
    match value {
        Value::Number(number) => {
            if let Some(integer) = as_integer(number) {
                *number = integer;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_floats_as_integers),
        Value::Object(members) => members.values_mut().for_each(integral_floats_as_integers),
        _ => {}
    }
}

/// The type of a parameter with `#[arg(default = ...)]`: its default is shown in the schema
/// (`"default": ...`), so it must serialize to JSON.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot have an `#[arg(default)]`: it does not implement `serde::Serialize`",
    label = "the default is shown in the tool's schema, which needs `serde::Serialize`",
    note = "add `#[derive(serde::Serialize)]` to the type, or take an `Option<_>` and fill in \
            the default in the function"
)]
pub trait ArgumentDefault {
    /// The JSON shown as the property's `default`; `None` when the value does not serialize.
    fn default_json(&self) -> Option<Value>;
}

#[diagnostic::do_not_recommend]
impl<T: Serialize> ArgumentDefault for T {
    fn default_json(&self) -> Option<Value> {
        serde_json::to_value(self).ok()
    }
}

/// Why one argument could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArgumentError {
    /// The client did not send a required argument.
    Missing,
    /// The client sent a value of the wrong shape.
    Invalid {
        /// Where inside the argument the problem is, like `point.x` or `[2]`; `None` when it is
        /// the argument itself.
        path: Option<String>,
        /// What was expected and what came, like ``expected a number (f64), got string "x"``.
        message: String,
    },
}

impl ArgumentError {
    /// An invalid argument, with `message` saying what was expected.
    pub fn invalid(message: impl Into<String>) -> Self {
        ArgumentError::Invalid {
            path: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgumentError::Missing => f.write_str("missing required argument"),
            ArgumentError::Invalid { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for ArgumentError {}

/// serde says `invalid type: string "x", expected f64`; a model corrects itself faster from
/// `expected a number (f64), got string "x"`, which leads with what to send.
fn readable_serde_message(message: &str) -> String {
    let rest = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "));
    let Some((got, expected)) = rest.and_then(|rest| rest.rsplit_once(", expected ")) else {
        return message.to_owned();
    };
    format!("expected {}, got {got}", describe_expected(expected))
}

/// Primitive types' names become what a JSON value of them looks like.
fn describe_expected(expected: &str) -> String {
    match expected {
        "f32" | "f64" => format!("a number ({expected})"),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => format!("an integer ({expected})"),
        other => other.to_owned(),
    }
}

/// The arguments of one call being read parameter by parameter, gathering every problem so the
/// error result names all of them at once.
#[derive(Debug)]
pub struct ArgumentReader<'a> {
    call: &'a mut ToolCall,
    arguments: Arguments,
    problems: Vec<(&'static str, ArgumentError)>,
}

/// Where an [`ArgumentReader`] reads the arguments from.
#[derive(Debug)]
enum Arguments {
    /// The client's text, while every parameter so far could be read from it.
    Text(ArgumentsText),
    /// `call.arguments`: the call came with them built, or a parameter needed them so.
    Built,
    /// Nowhere: serde_json cannot hold them as a value (recorded as the one problem).
    Unreadable,
}

/// What the one problem is recorded under when the arguments cannot be read at all.
const UNREADABLE: &str = "arguments";

impl<'a> ArgumentReader<'a> {
    /// Start reading `call`, in place.
    pub fn new(call: &'a mut ToolCall) -> Self {
        let arguments = match call.context.arguments_text.take() {
            Some(text) => Arguments::Text(ArgumentsText::new(text)),
            None => Arguments::Built,
        };
        ArgumentReader {
            call,
            arguments,
            problems: Vec::new(),
        }
    }

    /// Read a parameter the client must send; `None` when it is missing or invalid (recorded).
    pub fn required<T>(&mut self, param: ParamFns<T>, name: &'static str) -> Option<T> {
        self.read(name, param.extract_text, param.extract)
    }

    /// Read a parameter the client may leave out: `Some(None)` when absent, `None` when invalid.
    pub fn optional<T>(&mut self, param: ParamFns<T>, name: &'static str) -> Option<Option<T>> {
        self.read(name, param.extract_optional_text, param.extract_optional)
    }

    /// Read the parameter `name` with `from_text` while the arguments are text and it can,
    /// else with `from_built` from `call.arguments`.
    fn read<V>(
        &mut self,
        name: &'static str,
        from_text: TextRead<V>,
        from_built: fn(&mut ToolCall, &str) -> Result<V, ArgumentError>,
    ) -> Option<V> {
        match &self.arguments {
            Arguments::Text(text) => {
                let argument = text.member(name);
                if let Some(value) = from_text(self.call, name, argument) {
                    return self.record(name, value);
                }
                self.build_arguments()?;
            }
            Arguments::Built => {}
            Arguments::Unreadable => return None,
        }
        let value = from_built(self.call, name);
        self.record(name, value)
    }

    /// Stop reading from the text: build `call.arguments` from it, for this parameter and
    /// every later one. `None` when serde_json cannot hold the arguments as a value (a number
    /// out of `f64`'s range, nesting deeper than 128): that is then the only problem named.
    fn build_arguments(&mut self) -> Option<()> {
        let Arguments::Text(text) = std::mem::replace(&mut self.arguments, Arguments::Built) else {
            return Some(());
        };
        match serde_json::from_str(text.get()) {
            Ok(arguments) => {
                self.call.arguments = arguments;
                Some(())
            }
            Err(error) => {
                self.arguments = Arguments::Unreadable;
                self.problems.push((
                    UNREADABLE,
                    ArgumentError::invalid(format!("cannot be read: {error}")),
                ));
                None
            }
        }
    }

    /// Read a parameter that takes `default()` when the client leaves it out.
    pub fn or_default<T>(
        &mut self,
        param: ParamFns<T>,
        name: &'static str,
        default: fn() -> T,
    ) -> Option<T> {
        self.optional(param, name)
            .map(|value| value.unwrap_or_else(default))
    }

    fn record<T>(&mut self, name: &'static str, value: Result<T, ArgumentError>) -> Option<T> {
        value
            .map_err(|problem| self.problems.push((name, problem)))
            .ok()
    }

    /// The error result for the problems recorded so far (see
    /// [`problems_message`](Self::problems_message)).
    pub fn into_error_result(self) -> CallToolResult {
        CallToolResult::error(self.problems_message())
    }

    /// The message of the error result for the problems recorded so far, one clause a parameter:
    /// ``invalid arguments: `a`: expected a number (f64), got string "x"; `b`: missing required
    /// argument``.
    pub fn problems_message(&self) -> String {
        let clauses: Vec<String> = self
            .problems
            .iter()
            .map(|(name, problem)| match problem {
                ArgumentError::Invalid {
                    path: Some(path), ..
                } => {
                    let separator = if path.starts_with('[') { "" } else { "." };
                    format!("`{name}{separator}{path}`: {problem}")
                }
                _ => format!("`{name}`: {problem}"),
            })
            .collect();
        format!("invalid arguments: {}", clauses.join("; "))
    }
}

/// A parameter type's [`ToolParam`] functions, taken once at a place where the compiler checks
/// the bound, then called through plain function pointers.
///
/// Generated code names `ToolParam` for a parameter's type exactly once (spanned at the type), so
/// a type that is not a parameter is one error at the user's type, not one per use.
pub struct ParamFns<T> {
    /// [`ToolParam::argument_schema`].
    pub argument_schema: fn(&mut SchemaGenerator) -> Option<Schema>,
    /// [`ToolParam::extract`].
    pub extract: fn(&mut ToolCall, &str) -> Result<T, ArgumentError>,
    /// [`ToolParam::extract_optional`].
    pub extract_optional: fn(&mut ToolCall, &str) -> Result<Option<T>, ArgumentError>,
    /// [`ToolParam::extract_text`].
    #[doc(hidden)]
    pub extract_text: TextRead<T>,
    /// [`ToolParam::extract_optional_text`].
    #[doc(hidden)]
    pub extract_optional_text: TextRead<Option<T>>,
    /// [`ToolParam::REACHES_CONTEXT`].
    #[doc(hidden)]
    pub reaches_context: bool,
}

/// The type of [`ToolParam::extract_text`] for a `T`.
type TextRead<T> = fn(&mut ToolCall, &str, Option<&str>) -> Option<Result<T, ArgumentError>>;

impl<T> Clone for ParamFns<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ParamFns<T> {}

impl<T> fmt::Debug for ParamFns<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ParamFns")
    }
}

impl crate::schema::InputSchema {
    /// Add the parameter `param` describes, if it is an argument (injected values have no
    /// schema).
    pub fn param<T>(&mut self, param: ParamFns<T>, spec: crate::schema::ArgumentSpec) {
        self.param_schema(param.argument_schema, spec);
    }
}

/// The [`ParamFns`] of `T`.
pub const fn param<T: ToolParam>() -> ParamFns<T> {
    ParamFns {
        argument_schema: T::argument_schema,
        extract: T::extract,
        extract_optional: T::extract_optional,
        extract_text: T::extract_text,
        extract_optional_text: T::extract_optional_text,
        reaches_context: T::REACHES_CONTEXT,
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use serde_json::value::RawValue;

    use super::*;
    use crate::protocol::{JsonObject, ProtocolVersion};

    fn call(arguments: Value) -> ToolCall {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object");
        };
        ToolCall {
            arguments,
            context: RequestContext::new(ProtocolVersion::V2025_06_18),
        }
    }

    /// A call whose arguments come as the client's `text`, as the dispatcher gives a
    /// generated tool.
    fn text_call(text: &str) -> ToolCall {
        let mut context = RequestContext::new(ProtocolVersion::V2025_06_18);
        context.arguments_text = Some(RawValue::from_string(text.to_owned()).unwrap());
        ToolCall {
            arguments: JsonObject::new(),
            context,
        }
    }

    /// `arguments` both ways: built, and as text (every reading must come out the same).
    fn calls(arguments: Value) -> [ToolCall; 2] {
        let text = arguments.to_string();
        [call(arguments), text_call(&text)]
    }

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    struct Point {
        x: f64,
        y: f64,
    }

    #[test]
    fn reads_present_arguments_and_removes_them() {
        for mut call in calls(json!({"a": 1.5, "p": {"x": 1, "y": 2}})) {
            let mut reader = ArgumentReader::new(&mut call);
            assert_eq!(reader.required(param::<f64>(), "a"), Some(1.5));
            assert_eq!(
                reader.required(param::<Point>(), "p"),
                Some(Point { x: 1.0, y: 2.0 })
            );
            assert!(reader.call.arguments.is_empty());
            assert!(reader.problems.is_empty());
        }
    }

    #[test]
    fn names_every_bad_parameter_with_what_was_expected() {
        for mut call in calls(json!({"a": "x", "p": {"x": 1, "y": "up"}})) {
            let mut reader = ArgumentReader::new(&mut call);
            assert_eq!(reader.required(param::<f64>(), "a"), None);
            assert_eq!(reader.required(param::<f64>(), "b"), None);
            assert_eq!(reader.required(param::<Point>(), "p"), None);
            assert_eq!(reader.required(param::<Vec<u8>>(), "v"), None);
            assert_eq!(
                reader.problems_message(),
                "invalid arguments: `a`: expected a number (f64), got string \"x\"; \
                 `b`: missing required argument; \
                 `p.y`: expected a number (f64), got string \"up\"; \
                 `v`: missing required argument"
            );
        }
    }

    #[test]
    fn points_into_sequences_and_out_of_range_integers() {
        for mut call in calls(json!({"v": [1, 2, 300]})) {
            let mut reader = ArgumentReader::new(&mut call);
            assert_eq!(reader.required(param::<Vec<u8>>(), "v"), None);
            assert_eq!(
                reader.problems_message(),
                "invalid arguments: `v[2]`: expected an integer (u8), got integer `300`"
            );
        }
    }

    #[test]
    fn integers_written_as_floats_are_integers() {
        // JSON Schema's `integer` accepts them, so the tool must too.
        for mut call in calls(json!({
            "n": 3.0, "zero": -0.0, "list": [1.0, 2], "p": {"x": 1.0, "y": 2.5}, "big": 1e19
        })) {
            let mut reader = ArgumentReader::new(&mut call);
            assert_eq!(reader.required(param::<u8>(), "n"), Some(3));
            assert_eq!(reader.required(param::<i32>(), "zero"), Some(0));
            assert_eq!(
                reader.required(param::<Vec<i64>>(), "list"),
                Some(vec![1, 2])
            );
            assert_eq!(
                reader.required(param::<Point>(), "p"),
                Some(Point { x: 1.0, y: 2.5 })
            );
            assert_eq!(
                reader.required(param::<u64>(), "big"),
                Some(10_000_000_000_000_000_000)
            );
            assert!(reader.problems.is_empty(), "{}", reader.problems_message());
        }
    }

    #[test]
    fn a_float_that_is_no_integer_is_still_refused_as_sent() {
        for mut call in calls(json!({"n": 2.5, "m": 300.0})) {
            let mut reader = ArgumentReader::new(&mut call);
            assert_eq!(reader.required(param::<u8>(), "n"), None);
            assert_eq!(reader.required(param::<u8>(), "m"), None);
            assert_eq!(
                reader.problems_message(),
                "invalid arguments: `n`: expected an integer (u8), got floating point `2.5`; \
                 `m`: expected an integer (u8), got floating point `300.0`"
            );
        }
    }

    #[test]
    fn optional_arguments_accept_absence_and_null() {
        for mut call in calls(json!({"n": null, "m": 3})) {
            let mut reader = ArgumentReader::new(&mut call);
            assert_eq!(reader.optional(param::<u8>(), "n"), Some(None));
            assert_eq!(reader.optional(param::<u8>(), "m"), Some(Some(3)));
            assert_eq!(reader.optional(param::<u8>(), "absent"), Some(None));
            assert_eq!(reader.or_default(param::<u8>(), "d", || 7), Some(7));
            assert!(reader.problems.is_empty());
        }
    }

    #[test]
    fn an_optional_argument_of_the_wrong_type_is_still_an_error() {
        for mut call in calls(json!({"m": "three"})) {
            let mut reader = ArgumentReader::new(&mut call);
            assert_eq!(reader.optional(param::<u8>(), "m"), None);
            assert_eq!(
                reader.problems_message(),
                "invalid arguments: `m`: expected an integer (u8), got string \"three\""
            );
        }
    }

    #[test]
    fn injected_values_come_from_the_request_not_the_arguments() {
        for mut tool_call in [
            call(json!({"ctx": "ignored"})),
            text_call(r#"{"ctx": "ignored"}"#),
        ] {
            tool_call.context.cancellation.cancel();
            let mut reader = ArgumentReader::new(&mut tool_call);
            let context = reader.required(param::<RequestContext>(), "ctx").unwrap();
            let token = reader.required(param::<CancellationToken>(), "cancel");
            assert_eq!(context.revision, ProtocolVersion::V2025_06_18);
            // Taken by the reader before the context could be cloned with it.
            assert!(context.arguments_text.is_none());
            assert!(token.is_some_and(|t| t.is_cancelled()));
            assert!(reader.problems.is_empty());
        }
        assert!(
            (param::<RequestContext>().argument_schema)(&mut SchemaGenerator::default()).is_none()
        );
    }

    #[test]
    fn the_text_is_read_like_a_map_would_keep_it() {
        // The last of a repeated member, and a name written with escapes.
        let mut call = text_call(r#"{"a": 1, "\u0062": [2], "a": 3}"#);
        let mut reader = ArgumentReader::new(&mut call);
        assert_eq!(reader.required(param::<u8>(), "a"), Some(3));
        assert_eq!(reader.required(param::<Vec<u8>>(), "b"), Some(vec![2]));
        assert!(matches!(reader.arguments, Arguments::Text(_)));
        assert!(reader.problems.is_empty());
    }

    #[test]
    fn a_parameter_the_text_cannot_give_reads_the_built_arguments_from_then_on() {
        /// A parameter written by a user, reading `call.arguments` itself.
        struct Doubled(u64);
        impl ToolParam for Doubled {
            fn argument_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
                u64::argument_schema(generator)
            }
            fn extract(call: &mut ToolCall, name: &str) -> Result<Self, ArgumentError> {
                u64::extract(call, name).map(|n| Doubled(n * 2))
            }
            fn extract_optional(
                call: &mut ToolCall,
                name: &str,
            ) -> Result<Option<Self>, ArgumentError> {
                u64::extract_optional(call, name).map(|n| n.map(|n| Doubled(n * 2)))
            }
        }
        let mut call = text_call(r#"{"a": 1, "d": 4, "b": 5}"#);
        let mut reader = ArgumentReader::new(&mut call);
        assert_eq!(reader.required(param::<u8>(), "a"), Some(1));
        assert!(matches!(reader.arguments, Arguments::Text(_)));
        assert_eq!(
            reader.required(param::<Doubled>(), "d").map(|d| d.0),
            Some(8)
        );
        assert!(matches!(reader.arguments, Arguments::Built));
        assert_eq!(reader.optional(param::<u8>(), "b"), Some(Some(5)));
        assert!(reader.problems.is_empty());
    }

    #[test]
    fn arguments_serde_json_cannot_hold_are_one_problem() {
        let mut call = text_call(r#"{"n": 1, "x": 1e400, "m": 2}"#);
        let mut reader = ArgumentReader::new(&mut call);
        // Read from the text until a parameter needs more.
        assert_eq!(reader.required(param::<u8>(), "n"), Some(1));
        assert_eq!(reader.required(param::<f64>(), "x"), None);
        assert_eq!(reader.required(param::<u8>(), "m"), None);
        assert_eq!(reader.optional(param::<u8>(), "o"), None);
        assert_eq!(
            reader.problems_message(),
            "invalid arguments: `arguments`: cannot be read: number out of range at line 1 \
             column 19"
        );
    }

    #[test]
    fn serde_messages_lead_with_what_to_send() {
        assert_eq!(
            readable_serde_message("invalid type: map, expected a string"),
            "expected a string, got map"
        );
        assert_eq!(
            readable_serde_message("unknown variant `avg`, expected `mean` or `max`"),
            "unknown variant `avg`, expected `mean` or `max`"
        );
    }
}
