//! Prompts: the trait every prompt implements, how its string arguments are read, and the
//! conversions of what prompt functions return.

use std::borrow::Cow;
use std::fmt::Display;
use std::str::FromStr;

use crate::context::RequestContext;
use crate::handler::BoxFuture;
use crate::handler::completion::CompletionRequest;
use crate::protocol::{Completion, GetPromptResult, PromptDefinition, PromptMessage};

/// One `prompts/get`: the arguments (strings, as on the wire) and the request's context.
#[derive(Debug, Clone)]
pub struct PromptRequest {
    /// The arguments the client passed, by name.
    pub arguments: Vec<(String, String)>,
    /// The request's context.
    pub context: RequestContext,
}

impl PromptRequest {
    /// The argument `name`, if passed.
    pub fn argument(&self, name: &str) -> Option<&str> {
        self.arguments
            .iter()
            .find(|(argument, _)| argument == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Why a prompt could not be rendered.
///
/// Deliberately not `Display`, so that any `E: Display` converts into it: a prompt function
/// returning `Result<_, E>` reports `Err(e)` as invalid params (`-32602`) with `e`'s text,
/// since a prompt's only inputs are its arguments. Return `PromptError::internal` for a failure
/// of the server itself (`-32603`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptError {
    internal: bool,
    message: String,
}

impl PromptError {
    /// The arguments were not acceptable; `message` says why.
    pub fn invalid_arguments(message: impl Into<String>) -> Self {
        PromptError {
            internal: false,
            message: message.into(),
        }
    }

    /// The server failed to render the prompt.
    pub fn internal(message: impl Into<String>) -> Self {
        PromptError {
            internal: true,
            message: message.into(),
        }
    }

    /// Whether the server failed (rather than the arguments).
    pub fn is_internal(&self) -> bool {
        self.internal
    }

    /// What went wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl<E: Display> From<E> for PromptError {
    fn from(error: E) -> Self {
        PromptError::invalid_arguments(error.to_string())
    }
}

/// A prompt: a definition for `prompts/list` and a way to render it for `prompts/get`.
///
/// `#[mcp_prompt]` implements this for a companion struct named like the function.
pub trait PromptHandler: Send + Sync + 'static {
    /// The prompt's definition. Called once when the server is built; the result is kept.
    fn definition(&self) -> PromptDefinition;

    /// Render the prompt with `request`'s arguments. A missing required argument or one that
    /// does not parse is an `Err` (invalid params).
    fn get(
        &self,
        request: PromptRequest,
    ) -> BoxFuture<'static, Result<GetPromptResult, PromptError>>;

    /// Suggestions for an argument; `None` when the argument has no completer.
    fn complete(&self, request: &CompletionRequest) -> Option<Completion> {
        let _ = request;
        None
    }

    /// Whether [`complete`](Self::complete) answers for some argument.
    fn has_completions(&self) -> bool {
        false
    }

    /// The OAuth scopes a caller must hold, every one, to get it or complete its arguments, and to see it in `prompts/list` (unless the server shows every prompt): `#[mcp_prompt(scopes("..."))]`
    /// and the builders' `scopes` answer it. None by default. See [`crate::auth`] for who is
    /// checked (over stdio, nobody unless the server serves stdio as a principal).
    fn scopes(&self) -> &[Cow<'static, str>] {
        &[]
    }
}

/// A value a prompt function may return.
///
/// Text (`String`, `&'static str`) is one user message; a [`PromptMessage`] or
/// `Vec<PromptMessage>` are the messages; a [`GetPromptResult`] adds a description.
/// `Result<T, E>` maps `Err(e)` through [`PromptError`]: any `E: Display` is invalid params.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP prompt",
    label = "this return type does not implement `IntoPromptResult`",
    note = "return `String`, `&'static str`, `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, or `Result<T, E>` of one of these with `E: Display` or `E = PromptError`"
)]
pub trait IntoPromptResult {
    /// Convert into the result sent to the client.
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        Ok(self)
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        Ok(GetPromptResult::new(self))
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        vec![self].into_prompt_result()
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        PromptMessage::user(self).into_prompt_result()
    }
}

impl IntoPromptResult for &'static str {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        PromptMessage::user(self).into_prompt_result()
    }
}

#[diagnostic::do_not_recommend]
impl<T: IntoPromptResult, E: Into<PromptError>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        self.map_err(Into::into)?.into_prompt_result()
    }
}

/// The type of a prompt argument: prompt arguments are strings on the wire, parsed with
/// `FromStr`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a prompt argument",
    label = "prompt arguments are strings: this type must implement `FromStr`",
    note = "use `String`, a number type, or implement `std::str::FromStr` (with an `Err: Display`) for `{Self}`",
    note = "the values a request can inject are `RequestContext`, `CancellationToken` and `State<T>` (for any `T: Send + Sync + 'static`)"
)]
pub trait PromptArgument: Sized + Send + 'static {
    /// Parse the argument's text; the error says what was expected.
    fn parse_argument(text: &str) -> Result<Self, String>;
}

#[diagnostic::do_not_recommend]
impl<T> PromptArgument for T
where
    T: FromStr + Send + 'static,
    T::Err: Display,
{
    fn parse_argument(text: &str) -> Result<Self, String> {
        text.parse().map_err(|error: T::Err| error.to_string())
    }
}

/// The arguments of one `prompts/get` being read parameter by parameter, gathering every
/// problem so the error names all of them at once.
#[derive(Debug)]
pub struct PromptArgumentReader {
    request: PromptRequest,
    problems: Vec<String>,
}

impl PromptArgumentReader {
    /// Start reading `request`.
    pub fn new(request: PromptRequest) -> Self {
        PromptArgumentReader {
            request,
            problems: Vec::new(),
        }
    }

    /// An argument the client must pass; `None` (recorded) when missing or unparsable.
    pub fn required<T>(&mut self, parse: fn(&str) -> Result<T, String>, name: &str) -> Option<T> {
        match self.optional(parse, name)? {
            Some(value) => Some(value),
            None => {
                self.problems
                    .push(format!("`{name}`: missing required argument"));
                None
            }
        }
    }

    /// An argument the client may leave out: `Some(None)` when absent, `None` when invalid.
    pub fn optional<T>(
        &mut self,
        parse: fn(&str) -> Result<T, String>,
        name: &str,
    ) -> Option<Option<T>> {
        let Some(text) = self.request.argument(name) else {
            return Some(None);
        };
        match parse(text) {
            Ok(value) => Some(Some(value)),
            Err(error) => {
                self.problems
                    .push(format!("`{name}`: {text:?} is not valid: {error}"));
                None
            }
        }
    }

    /// An argument that takes `default()` when left out.
    pub fn or_default<T>(
        &mut self,
        parse: fn(&str) -> Result<T, String>,
        name: &str,
        default: fn() -> T,
    ) -> Option<T> {
        self.optional(parse, name)
            .map(|value| value.unwrap_or_else(default))
    }

    /// The request's context.
    pub fn context(&self) -> &RequestContext {
        &self.request.context
    }

    /// Invalid params naming every bad argument.
    pub fn into_error(self) -> PromptError {
        PromptError::invalid_arguments(format!("invalid arguments: {}", self.problems.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Content, ProtocolVersion, Role};

    fn request(arguments: &[(&str, &str)]) -> PromptRequest {
        PromptRequest {
            arguments: arguments
                .iter()
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect(),
            context: RequestContext::new(ProtocolVersion::V2025_06_18),
        }
    }

    #[test]
    fn text_is_one_user_message() {
        let result = "Explain URI templates.".into_prompt_result().unwrap();
        assert_eq!(result.messages.len(), 1);
        assert_eq!(result.messages[0].role, Role::User);
        assert_eq!(
            result.messages[0].content,
            Content::text("Explain URI templates.")
        );
    }

    #[test]
    fn errors_are_invalid_arguments_unless_said_otherwise() {
        let failed: Result<String, String> = Err("unknown language `cobol`".into());
        let error = failed.into_prompt_result().unwrap_err();
        assert!(!error.is_internal());
        assert_eq!(error.message(), "unknown language `cobol`");
    }

    #[test]
    fn arguments_parse_and_every_problem_is_named() {
        let mut reader = PromptArgumentReader::new(request(&[("n", "three"), ("x", "2")]));
        assert_eq!(reader.required(u8::parse_argument, "x"), Some(2));
        assert_eq!(reader.required(u8::parse_argument, "n"), None);
        assert_eq!(reader.required(String::parse_argument, "topic"), None);
        assert_eq!(reader.optional(String::parse_argument, "style"), Some(None));
        assert_eq!(reader.or_default(u8::parse_argument, "d", || 5), Some(5));
        let error = reader.into_error();
        assert!(
            error.message().contains("`n`: \"three\" is not valid"),
            "{}",
            error.message()
        );
        assert!(
            error
                .message()
                .contains("`topic`: missing required argument"),
            "{}",
            error.message()
        );
    }
}
