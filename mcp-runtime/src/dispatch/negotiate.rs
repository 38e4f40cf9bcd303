//! Which revision a request is answered in.

use crate::protocol::ProtocolVersion;

/// The revision a legacy `initialize` settles on: the client's own if we speak it, else our
/// newest legacy one. Never 2026-07-28, even when asked for it: a client that receives it from
/// `initialize` validates every later result against 2026 shapes and rejects them.
pub(crate) fn legacy_version(requested: &str) -> ProtocolVersion {
    match requested.parse::<ProtocolVersion>() {
        Ok(version) if !version.is_modern() => version,
        _ => ProtocolVersion::NEWEST_LEGACY,
    }
}

/// The revision a 2026-era request is served in, if we serve the one its `_meta` names.
pub(crate) fn modern_version(requested: &str) -> Option<ProtocolVersion> {
    requested
        .parse::<ProtocolVersion>()
        .ok()
        .filter(|version| version.is_modern())
}

/// What `server/discover` and `-32022` list: the modern revisions first, then the legacy ones
/// `initialize` accepts, newest first in each group. A client that picks a legacy entry then
/// opens with `initialize`.
pub(crate) fn supported_versions() -> Vec<&'static str> {
    let newest_first = || ProtocolVersion::ALL.into_iter().rev();
    newest_first()
        .filter(|version| version.is_modern())
        .chain(newest_first().filter(|version| !version.is_modern()))
        .map(ProtocolVersion::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_legacy_version_is_echoed() {
        for version in ProtocolVersion::LEGACY {
            assert_eq!(legacy_version(version.as_str()), version);
        }
    }

    #[test]
    fn an_unknown_version_gets_the_newest_legacy_one() {
        assert_eq!(legacy_version("2023-01-01"), ProtocolVersion::V2025_11_25);
        assert_eq!(legacy_version(""), ProtocolVersion::V2025_11_25);
    }

    #[test]
    fn initialize_never_negotiates_the_modern_revision() {
        assert_eq!(legacy_version("2026-07-28"), ProtocolVersion::V2025_11_25);
    }

    #[test]
    fn only_modern_revisions_serve_modern_requests() {
        assert_eq!(
            modern_version("2026-07-28"),
            Some(ProtocolVersion::V2026_07_28)
        );
        assert_eq!(modern_version("2025-11-25"), None);
        assert_eq!(modern_version("2099-01-01"), None);
    }

    #[test]
    fn supported_versions_list_modern_first_then_legacy_newest_first() {
        assert_eq!(
            supported_versions(),
            [
                "2026-07-28",
                "2025-11-25",
                "2025-06-18",
                "2025-03-26",
                "2024-11-05"
            ]
        );
    }
}
