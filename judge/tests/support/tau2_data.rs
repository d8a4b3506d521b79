//! Where the tau2-bench data lives for the judge's tests: `$TAU2_DATA`, else
//! `<workspace>/../shared/tau2`.

use std::path::PathBuf;

/// The tau2 data directory (holding `traces/` and `tools.json`); panics with
/// a hint when it is missing.
pub fn data_dir() -> PathBuf {
    let dir = std::env::var_os("TAU2_DATA").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/tau2"),
        PathBuf::from,
    );
    assert!(
        dir.join("traces").is_dir() && dir.join("tools.json").is_file(),
        "tau2 data not found at {}: set TAU2_DATA to the directory holding traces/ and tools.json \
         (the shared/tau2 folder beside the workspace)",
        dir.display()
    );
    dir
}
