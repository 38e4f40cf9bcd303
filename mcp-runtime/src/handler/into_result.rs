//! Conversions from what a tool function returns into a tool result.

use std::fmt::Display;

use crate::handler::ToolOutput;
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

    /// As what the dispatcher answers a call with: by default the result; text, written
    /// straight into the response, where no result need be built. Not an API.
    #[doc(hidden)]
    fn into_tool_output(self) -> ToolOutput
    where
        Self: Sized,
    {
        ToolOutput::Result(self.into_tool_result())
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

    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::Text(self)
    }
}

impl IntoToolResult for &str {
    fn into_tool_result(self) -> CallToolResult {
        Content::text(self).into_tool_result()
    }

    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::Text(self.to_owned())
    }
}

impl IntoToolResult for std::borrow::Cow<'_, str> {
    fn into_tool_result(self) -> CallToolResult {
        Content::text(self).into_tool_result()
    }

    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::Text(self.into_owned())
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

    fn into_tool_output(self) -> ToolOutput {
        match self {
            Ok(value) => value.into_tool_output(),
            Err(error) => ToolOutput::Result(CallToolResult::error(error.to_string())),
        }
    }

    fn output_schema() -> Option<crate::handler::JsonObject> {
        T::output_schema()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the dispatcher answers with comes to the same result as `into_tool_result`.
    fn same_result<T: IntoToolResult + Clone>(value: T) -> ToolOutput {
        let output = value.clone().into_tool_output();
        let result = match &output {
            ToolOutput::Result(result) => result.clone(),
            ToolOutput::Text(text) => text.clone().into_tool_result(),
        };
        assert_eq!(result, value.into_tool_result());
        output
    }

    #[test]
    fn text_comes_out_as_text_and_everything_else_as_its_result() {
        let texts = [
            same_result("a".to_owned()),
            same_result("b"),
            same_result(std::borrow::Cow::Borrowed("c")),
            same_result(Ok::<_, String>("d".to_owned())),
        ];
        let texts: Vec<_> = texts
            .into_iter()
            .map(|output| match output {
                ToolOutput::Text(text) => text,
                other => panic!("not text: {other:?}"),
            })
            .collect();
        assert_eq!(texts, ["a", "b", "c", "d"]);
        for output in [
            same_result(Err::<String, _>("failed")),
            same_result(Ok::<_, String>(3)),
            same_result(7_u8),
            same_result(Content::text("e")),
        ] {
            assert!(matches!(output, ToolOutput::Result(_)), "{output:?}");
        }
        let ToolOutput::Result(failed) = Err::<String, _>("no").into_tool_output() else {
            panic!("an error is a result")
        };
        assert!(failed.is_error);
    }
}
