//! What completers produce, independent of any revision: suggested values for one argument.

/// The suggestions for one argument of a prompt or one variable of a resource template.
///
/// At most [`Completion::MAX_VALUES`] values are sent; [`Completion::new`] keeps the first
/// hundred and says how many there were (`total`) and that there are more (`hasMore`).
///
/// ```
/// use mcp_runtime::protocol::Completion;
///
/// let many = Completion::new((0..250).map(|n| n.to_string()));
/// assert_eq!(many.values.len(), 100);
/// assert_eq!(many.total, Some(250));
/// assert!(many.has_more);
///
/// let few = Completion::new(["rust", "python"]);
/// assert_eq!((few.total, few.has_more), (None, false));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completion {
    /// The suggested values, best first.
    pub values: Vec<String>,
    /// How many values there are in all, when more exist than are sent.
    pub total: Option<u64>,
    /// Whether there are values beyond those sent.
    pub has_more: bool,
}

impl Completion {
    /// The most values one answer may carry (the spec's limit).
    pub const MAX_VALUES: usize = 100;

    /// A completion offering `values`, capped at [`MAX_VALUES`](Self::MAX_VALUES).
    pub fn new<I>(values: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let mut values: Vec<String> = values.into_iter().map(Into::into).collect();
        if values.len() <= Self::MAX_VALUES {
            return Completion {
                values,
                total: None,
                has_more: false,
            };
        }
        let total = values.len() as u64;
        values.truncate(Self::MAX_VALUES);
        Completion {
            values,
            total: Some(total),
            has_more: true,
        }
    }

    /// No suggestion.
    pub fn empty() -> Self {
        Self::default()
    }
}
