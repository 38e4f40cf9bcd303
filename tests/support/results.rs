//! Reading `CallToolResult`s the way a model would: their text and their error flag.

use serde_json::Value;

/// The text blocks of a `CallToolResult`, joined by newlines.
pub fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("a CallToolResult has `content`: {result}"))
        .iter()
        .filter(|block| block["type"] == "text")
        .filter_map(|block| block["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether a `CallToolResult` reports a failed call (`isError` absent means success).
pub fn is_error(result: &Value) -> bool {
    result.get("isError").and_then(Value::as_bool) == Some(true)
}

/// Assert a successful call whose text is exactly `expected`.
pub fn assert_text(result: &Value, expected: &str) {
    assert!(!is_error(result), "expected success, got {result}");
    assert_eq!(text_of(result), expected, "in {result}");
}

/// Assert a failed call (`isError: true`) whose text mentions every one of `words`, so the
/// model can tell what to correct.
pub fn assert_tool_error_mentions(result: &Value, words: &[&str]) {
    assert!(is_error(result), "expected `isError: true`, got {result}");
    let text = text_of(result);
    for word in words {
        assert!(
            text.contains(word),
            "the error text should mention {word:?}: {text:?}"
        );
    }
}
