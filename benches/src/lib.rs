//! Benchmarks live in `benches/`; see BENCHMARKS.md at the workspace root for
//! the figures and how they were measured.

use std::path::{Path, PathBuf};

/// The example bundle every benchmark starts from.
pub fn toy_bundle() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/toy-orders")
}
