//! `CompleteResult`, the same in every revision but for the 2026-07-28 members.

use serde::Serialize;

use super::ModernResult;
use crate::protocol::Completion;

/// The result of `completion/complete`.
#[derive(Debug, Serialize)]
pub(crate) struct CompleteResult<'a> {
    completion: CompletionWire<'a>,
    #[serde(flatten)]
    modern: Option<ModernResult<'a>>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CompletionWire<'a> {
    values: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<u64>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    has_more: bool,
}

impl<'a> CompleteResult<'a> {
    /// `completion`, at most [`Completion::MAX_VALUES`] values of it.
    pub(crate) fn new(completion: &'a Completion, modern: Option<ModernResult<'a>>) -> Self {
        let values = &completion.values[..completion.values.len().min(Completion::MAX_VALUES)];
        let cut = values.len() < completion.values.len();
        CompleteResult {
            completion: CompletionWire {
                values,
                total: completion
                    .total
                    .or_else(|| cut.then_some(completion.values.len() as u64)),
                has_more: completion.has_more || cut,
            },
            modern,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_short_completion_has_values_only() {
        let completion = Completion::new(["a", "b"]);
        assert_eq!(
            serde_json::to_value(CompleteResult::new(&completion, None)).unwrap(),
            json!({"completion": {"values": ["a", "b"]}})
        );
    }

    #[test]
    fn more_than_a_hundred_values_are_never_sent() {
        let completion = Completion {
            values: (0..101).map(|n| n.to_string()).collect(),
            total: None,
            has_more: false,
        };
        let value = serde_json::to_value(CompleteResult::new(&completion, None)).unwrap();
        assert_eq!(value["completion"]["values"].as_array().unwrap().len(), 100);
        assert_eq!(value["completion"]["total"], 101);
        assert_eq!(value["completion"]["hasMore"], true);
    }
}
