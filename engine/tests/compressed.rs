//! Compressed trace files: a tau2 results file and a native JSONL file
//! import to the same traces plain, gzip- and zstd-compressed (told apart by
//! magic bytes, not names); a cut or damaged stream is a
//! `CompressedTruncated` / `CompressedCorrupt` error naming the file, never a
//! panic and never a silently shortened or altered result.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "support/tau2.rs"]
mod tau2;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use turnstile_engine::import::native::write_native;
use turnstile_engine::import::{
    Compression, Format, ImportError, ImportErrorKind, TraceReader, compressed, detect, import_file,
};
use turnstile_engine::trace::Trace;

use tau2::{read_tau2, tau2_file};

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
}

fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    fs::write(&path, bytes).unwrap();
    path
}

/// Every item a file gives, a failure to open it (format detection
/// included) counted as an error item.
fn read_everything(path: &Path) -> (Vec<Trace>, Vec<ImportError>) {
    match TraceReader::open(path, None) {
        Ok(reader) => {
            let mut traces = Vec::new();
            let mut errors = Vec::new();
            for item in reader {
                // Nothing may follow the first error of a damaged stream.
                assert!(
                    errors
                        .iter()
                        .all(|e: &ImportError| !is_stream_error(&e.kind)),
                    "{}: an item after a stream error",
                    path.display()
                );
                match item {
                    Ok(trace) => traces.push(trace),
                    Err(e) => errors.push(e),
                }
            }
            (traces, errors)
        }
        Err(e) => (Vec::new(), vec![e]),
    }
}

fn is_stream_error(kind: &ImportErrorKind) -> bool {
    matches!(
        kind,
        ImportErrorKind::CompressedTruncated { .. } | ImportErrorKind::CompressedCorrupt { .. }
    )
}

/// The one error a damaged file ends with: of a compressed-stream kind,
/// naming the file.
fn stream_error(path: &Path, errors: &[ImportError]) -> String {
    let last = errors
        .last()
        .unwrap_or_else(|| panic!("{}: no error", path.display()));
    assert!(is_stream_error(&last.kind), "{}: {last}", path.display());
    let message = last.to_string();
    let name = path.file_name().unwrap().to_str().unwrap();
    assert!(message.contains(name), "{message}");
    message
}

/// A small native JSONL file: a few short traces.
fn native_sample() -> Vec<u8> {
    let mut out = String::new();
    for t in 0..6 {
        out.push_str(&format!(
            "{{\"type\":\"trace\",\"id\":\"t{t}\",\"task_id\":\"{t}\"}}\n\
             {{\"type\":\"user\",\"text\":\"Hi, please cancel order #O{t}.\"}}\n\
             {{\"type\":\"call\",\"id\":\"c{t}\",\"tool\":\"get_order_details\",\"args\":{{\"order_id\":\"#O{t}\"}}}}\n\
             {{\"type\":\"result\",\"id\":\"c{t}\",\"ok\":true,\"content\":{{\"status\":\"pending\",\"total\":{t}}}}}\n\
             {{\"type\":\"agent\",\"text\":\"Order #O{t} is pending; cancel it? (yes)\"}}\n"
        ));
    }
    out.into_bytes()
}

#[test]
fn a_tau2_file_imports_to_the_same_events_plain_gzip_and_zstd() {
    let plain = read_tau2("traces/retail_gpt-4.1.json");
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (write(&dir, "r.json", &plain), Compression::Plain),
        (write(&dir, "r.json.gz", &gzip(&plain)), Compression::Gzip),
        (write(&dir, "r.json.zst", &zstd(&plain)), Compression::Zstd),
    ];
    let (expected, errors) = read_everything(&files[0].0);
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(expected.len(), 40);
    for (path, compression) in &files {
        assert_eq!(compressed::sniff(path).unwrap(), *compression);
        assert_eq!(detect(path).unwrap(), Format::Tau2, "{}", path.display());
        let imported = import_file(path, None).unwrap();
        assert!(imported.errors.is_empty(), "{:#?}", imported.errors);
        assert_eq!(imported.traces.len(), expected.len());
        for (a, b) in imported.traces.iter().zip(&expected) {
            assert_eq!(a.meta, b.meta, "{}", path.display());
            assert_eq!(a.events, b.events, "{}: {}", path.display(), a.meta.id);
        }
    }

    // The shipped file, compressed by the zstd command-line tool.
    let shipped = tau2_file("traces/retail_gpt-4.1.json");
    let imported = import_file(&shipped, Some(Format::Tau2)).unwrap();
    assert!(imported.errors.is_empty(), "{:#?}", imported.errors);
    for (a, b) in imported.traces.iter().zip(&expected) {
        assert_eq!(a.events, b.events);
        assert_eq!(a.meta.id.replacen("retail_gpt-4.1#", "r#", 1), b.meta.id);
    }
}

#[test]
fn a_native_jsonl_file_imports_to_the_same_events_plain_gzip_and_zstd() {
    let mut plain = Vec::new();
    let tau2 = tempfile::tempdir().unwrap();
    let source = write(
        &tau2,
        "single.json",
        &read_tau2("traces/telecom_gpt-4.1-mini_single.json"),
    );
    for trace in import_file(&source, None).unwrap().traces {
        write_native(&mut plain, &trace).unwrap();
    }
    plain.extend(native_sample());

    let dir = tempfile::tempdir().unwrap();
    let files = [
        write(&dir, "n.jsonl", &plain),
        write(&dir, "n.jsonl.gz", &gzip(&plain)),
        write(&dir, "n.jsonl.zst", &zstd(&plain)),
    ];
    let (expected, errors) = read_everything(&files[0]);
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(expected.len(), 7);
    assert_eq!(expected[1].meta.id, "t0");
    for path in &files {
        assert_eq!(detect(path).unwrap(), Format::Native, "{}", path.display());
        let (traces, errors) = read_everything(path);
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
        assert_eq!(traces, expected, "{}", path.display());
    }
}

#[test]
fn compression_is_told_by_magic_bytes_not_by_the_name() {
    let plain = native_sample();
    let dir = tempfile::tempdir().unwrap();
    let expected = read_everything(&write(&dir, "n.jsonl", &plain)).0;
    // Compressed content under a plain name, plain content under a
    // compressed name, and the gzip/zstd names swapped.
    for (name, bytes) in [
        ("gz-inside.jsonl", gzip(&plain)),
        ("zst-inside.jsonl", zstd(&plain)),
        ("swapped.jsonl.zst", gzip(&plain)),
        ("swapped.jsonl.gz", zstd(&plain)),
    ] {
        let path = write(&dir, name, &bytes);
        let (traces, errors) = read_everything(&path);
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        assert_eq!(traces, expected, "{name}");
    }
    let path = write(&dir, "plain.jsonl.gz", &plain);
    assert_eq!(compressed::sniff(&path).unwrap(), Compression::Plain);
    assert_eq!(compressed::read_all(&path).unwrap(), plain);
    // A plain file keeps its name: `.gz` is then not a lines extension.
    assert!(
        import_file(&path, Some(Format::Native))
            .unwrap()
            .errors
            .is_empty()
    );
}

#[test]
fn concatenated_gzip_members_and_zstd_frames_are_read_in_turn() {
    let plain = native_sample();
    let (first, second) = plain.split_at(plain.len() / 2);
    let dir = tempfile::tempdir().unwrap();
    let expected = read_everything(&write(&dir, "n.jsonl", &plain)).0;
    let mut skippable = vec![0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3];
    skippable.extend(zstd(second));
    for (name, bytes) in [
        ("n.jsonl.gz", [gzip(first), gzip(second)].concat()),
        ("n.jsonl.zst", [zstd(first), zstd(second)].concat()),
        ("skip.jsonl.zst", [zstd(first), skippable].concat()),
    ] {
        let path = write(&dir, name, &bytes);
        let (traces, errors) = read_everything(&path);
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        assert_eq!(traces, expected, "{name}");
    }
}

#[test]
fn a_truncated_gzip_or_zstd_file_is_an_error_naming_the_file() {
    let plain = read_tau2("traces/retail_gpt-4.1.json");
    let dir = tempfile::tempdir().unwrap();
    let whole = read_everything(&write(&dir, "whole.json", &plain)).0;
    for (name, compressed, format) in [
        ("cut.json.gz", gzip(&plain), Compression::Gzip),
        ("cut.json.zst", zstd(&plain), Compression::Zstd),
    ] {
        let path = write(&dir, name, &compressed[..compressed.len() / 2]);
        let (traces, errors) = read_everything(&path);
        assert_eq!(errors.len(), 1, "{name}: {errors:#?}");
        let message = stream_error(&path, &errors);
        assert!(
            matches!(errors[0].kind, ImportErrorKind::CompressedTruncated { format: f, .. } if f == format),
            "{message}"
        );
        assert!(message.contains("truncated"), "{message}");
        // The traces before the cut, and nothing else.
        assert!(traces.len() < whole.len(), "{name}");
        for (a, b) in traces.iter().zip(&whole) {
            assert_eq!(a.events, b.events, "{name}");
        }
        // Every entry point reports it.
        let e = import_file(&path, Some(Format::Tau2)).unwrap().errors;
        assert!(is_stream_error(&e.last().unwrap().kind), "{name}: {e:#?}");
        let e = compressed::read_all(&path).unwrap_err();
        assert!(is_stream_error(&e.kind), "{name}: {e}");
    }
}

#[test]
fn a_corrupted_gzip_or_zstd_file_is_an_error_naming_the_file() {
    let plain = read_tau2("traces/retail_gpt-4.1.json");
    let dir = tempfile::tempdir().unwrap();
    for (name, mut bytes, format) in [
        ("bad.json.gz", gzip(&plain), Compression::Gzip),
        ("bad.json.zst", zstd(&plain), Compression::Zstd),
    ] {
        // Damage in the middle of the stream.
        let middle = bytes.len() / 2;
        for b in &mut bytes[middle..middle + 8] {
            *b ^= 0x55;
        }
        let path = write(&dir, name, &bytes);
        let (_, errors) = read_everything(&path);
        let message = stream_error(&path, &errors);
        assert!(
            matches!(errors.last().unwrap().kind, ImportErrorKind::CompressedCorrupt { format: f, .. } if f == format),
            "{message}"
        );
        assert!(message.contains("corrupt"), "{message}");
    }
    // Damage only the checksums catch: the gzip CRC-32 (8 bytes from the
    // end) and the zstd content checksum (the last 4 bytes).
    for (name, mut bytes, at) in [
        ("crc.json.gz", gzip(&plain), 8),
        ("crc.json.zst", zstd(&plain), 2),
    ] {
        let at = bytes.len() - at;
        bytes[at] ^= 1;
        let path = write(&dir, name, &bytes);
        let (_, errors) = read_everything(&path);
        let message = stream_error(&path, &errors);
        assert!(
            matches!(
                errors.last().unwrap().kind,
                ImportErrorKind::CompressedCorrupt { .. }
            ),
            "{message}"
        );
        assert!(message.contains("checksum"), "{message}");
    }
}

/// Cut at every byte, or one byte flipped anywhere: the reader never
/// panics, and either delivers exactly the original traces or ends with an
/// error (a header byte the decoder ignores may change nothing).
#[test]
fn every_cut_or_flipped_byte_gives_the_original_or_an_error() {
    let plain = native_sample();
    let dir = tempfile::tempdir().unwrap();
    let expected = read_everything(&write(&dir, "n.jsonl", &plain)).0;
    for (name, compressed) in [("n.jsonl.gz", gzip(&plain)), ("n.jsonl.zst", zstd(&plain))] {
        // Shorter than its magic, a file is no longer recognised as compressed.
        for cut in 4..compressed.len() {
            let path = write(&dir, name, &compressed[..cut]);
            let (traces, errors) = read_everything(&path);
            stream_error(&path, &errors);
            assert!(traces.len() < expected.len(), "{name} cut at {cut}");
        }
        for at in 0..compressed.len() {
            let mut bytes = compressed.clone();
            bytes[at] ^= 0x20;
            let path = write(&dir, name, &bytes);
            let (traces, errors) = read_everything(&path);
            if errors.is_empty() {
                assert_eq!(traces, expected, "{name} flipped at {at}");
            }
        }
    }
}
