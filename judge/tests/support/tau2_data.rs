//! Where the tau2-bench data lives for the judge's tests: `$TAU2_DATA`, else
//! the vendored `data/tau2/` of the repository; files may be plain, gzip or
//! zstd.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The tau2 data directory (holding `traces/` and `tools.json`); panics with
/// a hint when it is missing.
pub fn data_dir() -> PathBuf {
    let dir = std::env::var_os("TAU2_DATA").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/tau2"),
        PathBuf::from,
    );
    assert!(
        dir.join("traces").is_dir() && dir.join("tools.json").is_file(),
        "tau2 data not found at {}: set TAU2_DATA to a directory laid out like data/tau2 \
         (traces/ and tools.json)",
        dir.display()
    );
    dir
}

/// A data file's content, decompressed when it is gzip or zstd.
pub fn read_stored(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    let decoded = if bytes.starts_with(&[0x1f, 0x8b]) {
        flate2::read::MultiGzDecoder::new(bytes.as_slice()).read_to_end(&mut out)
    } else if bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        ruzstd::decoding::StreamingDecoder::new(bytes.as_slice())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .read_to_end(&mut out)
    } else {
        return bytes;
    };
    decoded.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    out
}
