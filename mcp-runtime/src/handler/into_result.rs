//! Conversions from what a tool function returns into a tool result.

use std::fmt::Display;

use crate::protocol::{CallToolResult, Content};

/// A value a tool function may return.
///
/// Text-like values and numbers become one text block; `()` becomes an empty result;
/// `Result<T, E>` maps `Err(e)` to a result with `isError: true` and `e`'s `Display` text.
///
/// ```
/// use mcp_runtime::handler::IntoToolResult;
///
/// let ok: Result<f64, String> = Ok(3.5);
/// assert!(!ok.into_tool_result().is_error);
/// let failed: Result<f64, String> = Err("division by zero".into());
/// assert!(failed.into_tool_result().is_error);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP tool",
    label = "this return type does not implement `IntoToolResult`",
    note = "return `String`, `&str`, a number, `bool`, `()`, `Content`, `Vec<Content>`, `Json<T>`, `CallToolResult`, or `Result<T, E>` of one of these with `E: Display`"
)]
pub trait IntoToolResult {
    /// Convert into the result sent to the client.
    fn into_tool_result(self) -> CallToolResult;

    /// The JSON Schema of the results' `structuredContent` (the tool's `outputSchema`), when
    /// this type has one: [`Json<T>`](crate::Json) does, through `Result` too. `#[mcp_tool]`
    /// asks the function's return type.
    fn output_schema() -> Option<crate::handler::JsonObject>
    where
        Self: Sized,
    {
        None
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> CallToolResult {
        self
    }
}

impl IntoToolResult for Content {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![self])
    }
}

impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(self)
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(Vec::new())
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> CallToolResult {
        Content::text(self).into_tool_result()
    }
}

impl IntoToolResult for &str {
    fn into_tool_result(self) -> CallToolResult {
        Content::text(self).into_tool_result()
    }
}

impl IntoToolResult for std::borrow::Cow<'_, str> {
    fn into_tool_result(self) -> CallToolResult {
        Content::text(self).into_tool_result()
    }
}

macro_rules! display_as_text {
    ($($t:ty),*) => {$(
        impl IntoToolResult for $t {
            fn into_tool_result(self) -> CallToolResult {
                Content::text(self.to_string()).into_tool_result()
            }
        }
    )*};
}

display_as_text!(
    bool, char, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
);

#[diagnostic::do_not_recommend]
impl<T: IntoToolResult, E: Display> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> CallToolResult {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(error) => CallToolResult::error(error.to_string()),
        }
    }

    fn output_schema() -> Option<crate::handler::JsonObject> {
        T::output_schema()
    }
}
