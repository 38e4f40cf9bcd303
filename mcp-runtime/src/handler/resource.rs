//! Resources: the trait every resource implements, what it lists, how it is read, and the
//! conversions of what resource functions return.

use std::borrow::Cow;
use std::fmt::{self, Display};
use std::str::FromStr;

use crate::context::RequestContext;
use crate::handler::BoxFuture;
use crate::handler::completion::CompletionRequest;
use crate::protocol::uri_template::UriVariables;
use crate::protocol::{Completion, Resource, ResourceContents, ResourceDefinition};

/// One read of a resource: the URI asked for, the template's variables taken from it, and the
/// request's context.
#[derive(Debug, Clone)]
pub struct ResourceRead {
    /// The URI the client asked for.
    pub uri: String,
    /// Each template variable's value, percent-decoded, in template order (empty for a static
    /// resource).
    pub variables: UriVariables,
    /// The request's context.
    pub context: RequestContext,
}

impl ResourceRead {
    /// The value of the variable `name`.
    pub fn variable(&self, name: &str) -> Option<&str> {
        self.variables
            .iter()
            .find(|(variable, _)| variable == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Why a resource could not be read.
///
/// Deliberately not `Display`, so that any `E: Display` converts into it: a resource function
/// returning `Result<_, E>` reports `Err(e)` as "resource not found" with `e`'s text, the
/// common case (an unknown name in the URI). Return a `ResourceError::internal` for a failure
/// of the server itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceError {
    kind: ResourceErrorKind,
    message: String,
}

/// The two ways a read fails, which clients are told apart by error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceErrorKind {
    /// Nothing is at that URI: `-32002` for legacy clients, `-32602` for 2026-07-28 ones.
    NotFound,
    /// The server failed to read what is there: `-32603`.
    Internal,
}

impl ResourceError {
    /// Nothing is at the URI; `message` says why (what the client could ask for instead).
    pub fn not_found(message: impl Into<String>) -> Self {
        ResourceError {
            kind: ResourceErrorKind::NotFound,
            message: message.into(),
        }
    }

    /// The resource exists but could not be read.
    pub fn internal(message: impl Into<String>) -> Self {
        ResourceError {
            kind: ResourceErrorKind::Internal,
            message: message.into(),
        }
    }

    /// Which kind of failure.
    pub fn kind(&self) -> ResourceErrorKind {
        self.kind
    }

    /// What went wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl<E: Display> From<E> for ResourceError {
    fn from(error: E) -> Self {
        ResourceError::not_found(error.to_string())
    }
}

/// A resource: a definition for the lists, and a way to read it.
///
/// `#[mcp_resource]` implements this for a companion struct named like the function; implement
/// it by hand for resources known only at run time.
pub trait ResourceHandler: Send + Sync + 'static {
    /// What the handler serves. Called once when the server is built; the result is kept.
    fn definition(&self) -> ResourceDefinition;

    /// Read the resource `read.uri`, which matches this handler's URI or template.
    fn read(
        &self,
        read: ResourceRead,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>>;

    /// For a template: the concrete resources it currently stands for, shown by
    /// `resources/list`. `None` (the default) lists none.
    fn list(
        &self,
        context: RequestContext,
    ) -> Option<BoxFuture<'static, Result<Vec<Resource>, ResourceError>>> {
        let _ = context;
        None
    }

    /// Suggestions for a template variable; `None` when the variable has no completer.
    fn complete(&self, request: &CompletionRequest) -> Option<Completion> {
        let _ = request;
        None
    }

    /// Whether [`complete`](Self::complete) answers for some variable (the server declares the
    /// `completions` capability when some handler does).
    fn has_completions(&self) -> bool {
        false
    }

    /// The OAuth scopes a caller must hold, every one, to read it, subscribe to it or complete its variables, and to see it listed (unless the server shows every resource): `#[mcp_resource(scopes("..."))]`
    /// and the builders' `scopes` answer it. None by default. See [`crate::auth`] for who is
    /// checked (over stdio, nobody unless the server serves stdio as a principal).
    fn scopes(&self) -> &[Cow<'static, str>] {
        &[]
    }
}

/// A value a resource function may return.
///
/// Text (`String`, `&'static str`) is one text item and bytes (`Vec<u8>`) one binary item,
/// both at the URI read, with the resource's `mime_type`; a [`ResourceContents`] or a
/// `Vec<ResourceContents>` are sent as they are (an empty list is "not found": a read never
/// answers with no contents). `Result<T, E>` maps `Err(e)` through [`ResourceError`]: any
/// `E: Display` is "resource not found" with its text.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP resource",
    label = "this return type does not implement `IntoReadResult`",
    note = "return `String`, `&'static str`, `Vec<u8>`, `ResourceContents`, `Vec<ResourceContents>`, or `Result<T, E>` of one of these with `E: Display` (an `Err` is \"resource not found\") or `E = ResourceError`"
)]
pub trait IntoReadResult {
    /// Convert into the contents sent for a read of `uri`, a resource declared with
    /// `mime_type`.
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError>;
}

fn with_declared_mime_type(
    contents: ResourceContents,
    mime_type: Option<&str>,
) -> ResourceContents {
    match mime_type {
        Some(mime_type) if contents.mime_type.is_none() => contents.with_mime_type(mime_type),
        _ => contents,
    }
}

impl IntoReadResult for String {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![with_declared_mime_type(
            ResourceContents::text(uri, self),
            mime_type,
        )])
    }
}

impl IntoReadResult for &'static str {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        self.to_owned().into_read_result(uri, mime_type)
    }
}

impl IntoReadResult for Cow<'static, str> {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        self.into_owned().into_read_result(uri, mime_type)
    }
}

impl IntoReadResult for Vec<u8> {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![with_declared_mime_type(
            ResourceContents::blob(uri, self),
            mime_type,
        )])
    }
}

impl IntoReadResult for ResourceContents {
    fn into_read_result(
        self,
        _: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(vec![with_declared_mime_type(self, mime_type)])
    }
}

impl IntoReadResult for Vec<ResourceContents> {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        if self.is_empty() {
            return Err(ResourceError::not_found(format!("`{uri}` has no contents")));
        }
        Ok(self
            .into_iter()
            .map(|contents| with_declared_mime_type(contents, mime_type))
            .collect())
    }
}

#[diagnostic::do_not_recommend]
impl<T: IntoReadResult, E: Into<ResourceError>> IntoReadResult for Result<T, E> {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, ResourceError> {
        self.map_err(Into::into)?.into_read_result(uri, mime_type)
    }
}

/// A value a resource's lister (`#[mcp_resource(list = ...)]`) may return: the concrete
/// resources a template stands for.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a resource lister",
    label = "this is not a list of resources",
    note = "a lister returns `Vec<Resource>` or `Result<Vec<Resource>, E>` with `E: Display`, directly or from an `async fn`"
)]
pub trait IntoResourceList {
    /// Convert into the resources listed.
    fn into_resource_list(self) -> Result<Vec<Resource>, ResourceError>;
}

impl IntoResourceList for Vec<Resource> {
    fn into_resource_list(self) -> Result<Vec<Resource>, ResourceError> {
        Ok(self)
    }
}

#[diagnostic::do_not_recommend]
impl<T: IntoResourceList, E: Into<ResourceError>> IntoResourceList for Result<T, E> {
    fn into_resource_list(self) -> Result<Vec<Resource>, ResourceError> {
        self.map_err(Into::into)?.into_resource_list()
    }
}

/// The type of a parameter bound to a URI template variable: parsed from the variable's
/// (percent-decoded) text with `FromStr`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a URI template variable",
    label = "a template variable is text: its parameter's type must implement `FromStr`",
    note = "use `String`, a number type, or implement `std::str::FromStr` (with an `Err: Display`) for `{Self}`"
)]
pub trait ResourceVariable: Sized + Send + 'static {
    /// Parse the variable's text; the error says what was expected.
    fn parse_variable(text: &str) -> Result<Self, String>;
}

#[diagnostic::do_not_recommend]
impl<T> ResourceVariable for T
where
    T: FromStr + Send + 'static,
    T::Err: Display,
{
    fn parse_variable(text: &str) -> Result<Self, String> {
        text.parse().map_err(|error: T::Err| error.to_string())
    }
}

/// The variables of one read being turned into parameters, gathering every problem so the
/// "not found" answer names all of them at once.
#[derive(Debug)]
pub struct VariableReader {
    read: ResourceRead,
    problems: Vec<String>,
}

impl VariableReader {
    /// Start reading `read`'s variables.
    pub fn new(read: ResourceRead) -> Self {
        VariableReader {
            read,
            problems: Vec::new(),
        }
    }

    /// The variable `name` parsed as `T`; `None` (recorded) when it does not parse.
    pub fn variable<T>(&mut self, parse: fn(&str) -> Result<T, String>, name: &str) -> Option<T> {
        let Some(text) = self.read.variable(name) else {
            self.problems
                .push(format!("the URI has no value for the variable `{name}`"));
            return None;
        };
        parse(text)
            .map_err(|error| {
                self.problems
                    .push(format!("`{name}` = {text:?} is not valid: {error}"))
            })
            .ok()
    }

    /// The request's context.
    pub fn context(&self) -> &RequestContext {
        &self.read.context
    }

    /// The URI read.
    pub fn uri(&self) -> &str {
        &self.read.uri
    }

    /// "Not found", naming every variable that did not parse.
    pub fn into_error(self) -> ResourceError {
        ResourceError::not_found(format!(
            "no resource at `{}`: {}",
            self.read.uri,
            self.problems.join("; ")
        ))
    }
}

impl fmt::Display for ResourceErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ResourceErrorKind::NotFound => "resource not found",
            ResourceErrorKind::Internal => "internal error",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ProtocolVersion, ResourceBody};

    fn read(result: impl IntoReadResult) -> Result<Vec<ResourceContents>, ResourceError> {
        result.into_read_result("doc://a", Some("text/markdown"))
    }

    #[test]
    fn text_and_bytes_are_one_item_at_the_uri_read() {
        let contents = read("# A").unwrap();
        assert_eq!(
            contents,
            [ResourceContents::text("doc://a", "# A").with_mime_type("text/markdown")]
        );
        let contents = read(vec![1u8, 2]).unwrap();
        assert_eq!(contents[0].body, ResourceBody::Blob(vec![1, 2]));
    }

    #[test]
    fn errors_are_not_found_unless_said_otherwise() {
        let missing: Result<String, String> = Err("no doc `b`".into());
        let error = read(missing).unwrap_err();
        assert_eq!(error.kind(), ResourceErrorKind::NotFound);
        assert_eq!(error.message(), "no doc `b`");
        let broken: Result<String, ResourceError> = Err(ResourceError::internal("disk on fire"));
        assert_eq!(
            read(broken).unwrap_err().kind(),
            ResourceErrorKind::Internal
        );
    }

    #[test]
    fn no_contents_is_not_found() {
        let error = read(Vec::<ResourceContents>::new()).unwrap_err();
        assert_eq!(error.kind(), ResourceErrorKind::NotFound);
    }

    #[test]
    fn explicit_mime_types_are_kept() {
        let json = ResourceContents::text("doc://a", "{}").with_mime_type("application/json");
        assert_eq!(
            read(json).unwrap()[0].mime_type.as_deref(),
            Some("application/json")
        );
    }

    #[test]
    fn variables_parse_with_from_str_and_every_failure_is_named() {
        let mut reader = VariableReader::new(ResourceRead {
            uri: "item://x/7".into(),
            variables: vec![("a".into(), "x".into()), ("b".into(), "7".into())],
            context: RequestContext::new(ProtocolVersion::V2025_06_18),
        });
        assert_eq!(reader.variable(u64::parse_variable, "b"), Some(7));
        assert_eq!(reader.variable(u64::parse_variable, "a"), None);
        assert_eq!(reader.variable(String::parse_variable, "c"), None);
        let error = reader.into_error();
        assert_eq!(error.kind(), ResourceErrorKind::NotFound);
        assert!(
            error.message().contains("`a` = \"x\""),
            "{}",
            error.message()
        );
        assert!(error.message().contains("`c`"), "{}", error.message());
    }
}
