//! Icons of the server and its offerings (sent to clients from 2025-11-25 on).

use std::borrow::Cow;

use serde::Serialize;

/// An icon a client may show: an `https:` or `data:` URI, with what it is.
///
/// ```
/// use mcp_runtime::protocol::{Icon, IconTheme};
///
/// let icon = Icon::new("https://example.com/calc.svg")
///     .with_mime_type("image/svg+xml")
///     .with_sizes(["any"])
///     .with_theme(IconTheme::Light);
/// assert_eq!(icon.src, "https://example.com/calc.svg");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// Where the image is: an `https:` URL or a `data:` URI.
    pub src: Cow<'static, str>,
    /// Its MIME type, when the URI does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<Cow<'static, str>>,
    /// The sizes it fits, like `48x48` or `any` (`[]`: not said).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<Cow<'static, str>>,
    /// The background it is drawn for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

/// Which background an [`Icon`] is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// A light background.
    Light,
    /// A dark background.
    Dark,
}

impl Icon {
    /// An icon at `src`, with nothing else said.
    pub fn new(src: impl Into<Cow<'static, str>>) -> Self {
        Icon {
            src: src.into(),
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        }
    }

    /// The same icon with a MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<Cow<'static, str>>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The same icon with the sizes it fits.
    pub fn with_sizes<S: Into<Cow<'static, str>>>(
        mut self,
        sizes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.sizes = sizes.into_iter().map(Into::into).collect();
        self
    }

    /// The same icon for one theme.
    pub fn with_theme(mut self, theme: IconTheme) -> Self {
        self.theme = Some(theme);
        self
    }
}
