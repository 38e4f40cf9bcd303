//! Protocol revisions and the era each belongs to.

use std::fmt;

/// A revision of the Model Context Protocol this runtime can speak.
///
/// Ordered by date, so feature gates read naturally: `revision >= ProtocolVersion::V2025_06_18`.
///
/// ```
/// use mcp_runtime::protocol::ProtocolVersion;
///
/// let v: ProtocolVersion = "2025-06-18".parse().unwrap();
/// assert!(v >= ProtocolVersion::V2025_03_26);
/// assert!(!v.is_modern());
/// assert_eq!(v.to_string(), "2025-06-18");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// The first public revision: `initialize` handshake, stdio and HTTP+SSE.
    V2024_11_05,
    /// Streamable HTTP, tool annotations, audio content, JSON-RPC batches.
    V2025_03_26,
    /// Elicitation, structured tool output, titles, resource links; batches removed.
    V2025_06_18,
    /// Icons, tasks (experimental), URL elicitation.
    V2025_11_25,
    /// The modern, stateless revision: no handshake, every request carries its own `_meta`.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every revision, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        Self::V2024_11_05,
        Self::V2025_03_26,
        Self::V2025_06_18,
        Self::V2025_11_25,
        Self::V2026_07_28,
    ];

    /// The revisions negotiated through `initialize`, oldest first.
    pub const LEGACY: [ProtocolVersion; 4] = [
        Self::V2024_11_05,
        Self::V2025_03_26,
        Self::V2025_06_18,
        Self::V2025_11_25,
    ];

    /// The revisions spoken statelessly, with per-request `_meta`.
    pub const MODERN: [ProtocolVersion; 1] = [Self::V2026_07_28];

    /// The newest legacy revision: the answer to an `initialize` asking for one we do not know.
    pub const NEWEST_LEGACY: ProtocolVersion = Self::V2025_11_25;

    /// The revision's date string, as it travels on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// Whether this revision is stateless (no `initialize`; `_meta` on every request).
    pub const fn is_modern(self) -> bool {
        matches!(self, Self::V2026_07_28)
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The string was not a revision this runtime speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVersion(pub String);

impl fmt::Display for UnknownVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unsupported protocol version {:?}", self.0)
    }
}

impl std::error::Error for UnknownVersion {}

impl std::str::FromStr for ProtocolVersion {
    type Err = UnknownVersion;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| UnknownVersion(s.to_owned()))
    }
}
