//! Helpers shared by the integration tests.

use std::path::PathBuf;

/// The `toolscout` binary built for this test run.
pub fn toolscout_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_toolscout"))
}

/// `tests/fixtures` of this crate.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
}

/// The catalog shipped with the crate (`catalog/`).
pub fn shipped_catalog() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("catalog")
}
