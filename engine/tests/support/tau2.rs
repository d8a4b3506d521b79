//! Shared by the tests that read tau2-bench data: where it is, the shipped
//! bundles, the trace files of a domain, and the semantic steps of a bundle.
#![allow(dead_code)] // each test crate uses part of it

use std::path::{Path, PathBuf};

use turnstile_engine::{CompiledBundle, check_bundle};
use turnstile_rules::StepId;

/// `TAU2_DATA`, else `../shared/tau2` beside the workspace.
pub fn tau2_dir() -> PathBuf {
    std::env::var_os("TAU2_DATA").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/tau2"),
        PathBuf::from,
    )
}

/// The shipped bundle `bundles/<name>`, compiled.
pub fn shipped_bundle(name: &str) -> CompiledBundle {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bundles")
        .join(name);
    check_bundle(&dir).unwrap_or_else(|p| panic!("{name}: {p}"))
}

/// Every `tau2/traces/<domain>_*.json`, sorted.
pub fn domain_trace_files(domain: &str) -> Vec<PathBuf> {
    let dir = tau2_dir().join("traces");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (set TAU2_DATA)", dir.display()))
        .map(|e| {
            e.unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .path()
        })
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{domain}_")))
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no {domain} traces in {}", dir.display());
    files
}

/// The bundle's semantic steps.
pub fn semantic_steps(bundle: &CompiledBundle) -> Vec<StepId> {
    bundle
        .program
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.semantic)
        .filter_map(|(i, _)| u32::try_from(i).ok().map(StepId))
        .collect()
}
