//! One test per protocol revision from one test function.

/// For each `fn name(revision: ProtocolVersion)` listed, a module `name` with one `#[test]` per
/// revision (`name::v2024_11_05` ...), so a failure names its revision.
///
/// `per_revision!(all: f, g)` covers every revision, `per_revision!(legacy: f)` the four
/// `initialize` revisions.
macro_rules! per_revision {
    (all: $($test:ident),+ $(,)?) => {$(
        $crate::support::per_revision!(@module $test [
            V2024_11_05 v2024_11_05, V2025_03_26 v2025_03_26, V2025_06_18 v2025_06_18,
            V2025_11_25 v2025_11_25, V2026_07_28 v2026_07_28
        ]);
    )+};
    (legacy: $($test:ident),+ $(,)?) => {$(
        $crate::support::per_revision!(@module $test [
            V2024_11_05 v2024_11_05, V2025_03_26 v2025_03_26, V2025_06_18 v2025_06_18,
            V2025_11_25 v2025_11_25
        ]);
    )+};
    (@module $test:ident [$($variant:ident $name:ident),+ $(,)?]) => {
        mod $test {
            $(
                #[test]
                fn $name() {
                    super::$test(::mcp_runtime::protocol::ProtocolVersion::$variant);
                }
            )+
        }
    };
}

pub(crate) use per_revision;
