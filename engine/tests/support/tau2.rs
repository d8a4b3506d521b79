//! Shared by the tests that read tau2-bench data: where it is and how its
//! (possibly compressed) files are read, the shipped bundles, the trace
//! files of a domain, and the semantic steps of a bundle.
#![allow(dead_code)] // each test crate uses part of it

use std::path::{Path, PathBuf};

use turnstile_engine::import::compressed;
use turnstile_engine::{CompiledBundle, check_bundle};
use turnstile_rules::StepId;

/// Extensions a stored file may carry beyond its content's name.
const COMPRESSED_SUFFIXES: [&str; 2] = [".zst", ".gz"];

/// `TAU2_DATA`, else the repository's own copy `data/tau2/`.
pub fn tau2_dir() -> PathBuf {
    std::env::var_os("TAU2_DATA").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/tau2"),
        PathBuf::from,
    )
}

/// The stored file whose content is `relative` (`retail/db.json`): the
/// plain file, else `relative.zst`, else `relative.gz`.
pub fn tau2_file(relative: &str) -> PathBuf {
    let dir = tau2_dir();
    let plain = dir.join(relative);
    if plain.is_file() {
        return plain;
    }
    COMPRESSED_SUFFIXES
        .iter()
        .map(|suffix| dir.join(format!("{relative}{suffix}")))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "tau2-bench file {relative} (plain, .zst or .gz) not found in {}: \
                 set TAU2_DATA to a directory laid out like data/tau2",
                dir.display()
            )
        })
}

/// The decompressed bytes of a stored file.
pub fn read_stored(path: &Path) -> Vec<u8> {
    compressed::read_all(path).unwrap_or_else(|e| panic!("{e}"))
}

/// The decompressed content of `relative` (see [`tau2_file`]).
pub fn read_tau2(relative: &str) -> Vec<u8> {
    read_stored(&tau2_file(relative))
}

/// `relative` parsed as JSON.
pub fn tau2_json(relative: &str) -> serde_json::Value {
    let path = tau2_file(relative);
    serde_json::from_slice(&read_stored(&path))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A trace file's name less `.json` and any compression extension: the
/// stem of its trace ids.
pub fn trace_stem(path: &Path) -> String {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_else(|| panic!("{}: not a UTF-8 file name", path.display()));
    let name = COMPRESSED_SUFFIXES
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(name);
    name.strip_suffix(".json").unwrap_or(name).to_owned()
}

/// Every trace file `traces/*.json` (plain, `.zst` or `.gz`), sorted.
pub fn trace_files() -> Vec<PathBuf> {
    let dir = tau2_dir().join("traces");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (set TAU2_DATA)", dir.display()))
        .map(|e| {
            e.unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .path()
        })
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.ends_with(".json")
                    || COMPRESSED_SUFFIXES
                        .iter()
                        .any(|s| n.ends_with(&format!(".json{s}")))
            })
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no trace files in {}", dir.display());
    files
}

/// The shipped bundle `bundles/<name>`, compiled.
pub fn shipped_bundle(name: &str) -> CompiledBundle {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bundles")
        .join(name);
    check_bundle(&dir).unwrap_or_else(|p| panic!("{name}: {p}"))
}

/// Every trace file of `domain` (`traces/<domain>_*`), sorted.
pub fn domain_trace_files(domain: &str) -> Vec<PathBuf> {
    let prefix = format!("{domain}_");
    let files: Vec<PathBuf> = trace_files()
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&prefix))
        })
        .collect();
    assert!(
        !files.is_empty(),
        "no {domain} traces in {}",
        tau2_dir().display()
    );
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
