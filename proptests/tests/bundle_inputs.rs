//! No input makes the front end panic: arbitrary expression text, arbitrary
//! bytes in a bundle file and random line deletions all end in a value or in
//! diagnostics whose locations lie inside the files they name.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use turnstile_engine::check_bundle;
use turnstile_engine::parse_expr;

fn toy_bundle() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/toy-orders")
}

fn copy_toy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("toy-orders");
    fs::create_dir_all(root.join("flows")).unwrap();
    for file in [
        "bundle.yaml",
        "domain.yaml",
        "policy.md",
        "flows/main.yaml",
        "flows/identify.yaml",
        "flows/cancel.yaml",
    ] {
        fs::copy(toy_bundle().join(file), root.join(file)).unwrap();
    }
    (dir, root)
}

/// The file-system properties write a bundle per case: a quarter of the
/// usual default.
fn file_cases() -> u32 {
    turnstile_proptests::cases(64)
}

/// Every problem either has no location or a line/column inside its file.
fn assert_locations_in_bounds(root: &Path, problems: &turnstile_engine::Problems) {
    for p in problems.iter() {
        let (Some(file), Some(line), Some(column)) = (&p.file, p.line, p.column) else {
            continue;
        };
        let relative = file.strip_prefix("toy-orders/").unwrap_or(file);
        let bytes = fs::read(root.join(relative)).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.split('\n').collect();
        assert!(line >= 1 && line <= lines.len(), "{p:?} line out of range");
        assert!(
            column >= 1 && column <= lines[line - 1].chars().count() + 1,
            "{p:?} column out of range"
        );
    }
}

const TOKENS: &[&str] = &[
    "order",
    "[",
    "]",
    ".",
    "status",
    "$order",
    "args",
    "order_id",
    "==",
    "!=",
    "<",
    ">=",
    "&&",
    "||",
    "!",
    "(",
    ")",
    "in",
    "enum",
    "\"pending\"",
    "12",
    "3.5",
    "count",
    "sum",
    "succeeded",
    "called",
    ",",
    "*",
    "true",
    "date",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(turnstile_proptests::cases(256)))]

    #[test]
    fn parser_never_panics_on_any_text(text in "\\PC{0,80}") {
        if let Err(e) = parse_expr(&text) {
            prop_assert!(e.span.start <= e.span.end && e.span.end <= text.len());
            prop_assert!(text.is_char_boundary(e.span.start) && text.is_char_boundary(e.span.end));
        }
    }

    #[test]
    fn parser_never_panics_on_token_soup(tokens in prop::collection::vec(prop::sample::select(TOKENS), 0..30)) {
        let text = tokens.join(" ");
        match parse_expr(&text) {
            Ok(expr) => prop_assert!(expr.span.end <= text.len()),
            Err(e) => prop_assert!(e.span.end <= text.len()),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(file_cases()))]

    #[test]
    fn arbitrary_bytes_in_a_bundle_file_give_located_diagnostics(
        bytes in prop::collection::vec(any::<u8>(), 0..400),
        which in 0usize..3,
    ) {
        let (_dir, root) = copy_toy();
        let file = ["domain.yaml", "flows/cancel.yaml", "bundle.yaml"][which];
        fs::write(root.join(file), &bytes).unwrap();
        if let Err(problems) = check_bundle(&root) {
            prop_assert!(!problems.is_empty());
            assert_locations_in_bounds(&root, &problems);
        }
    }

    #[test]
    fn deleting_any_line_never_panics(line in 0usize..80, which in 0usize..4) {
        let (_dir, root) = copy_toy();
        let file = ["domain.yaml", "flows/cancel.yaml", "flows/main.yaml", "flows/identify.yaml"][which];
        let text = fs::read_to_string(root.join(file)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let kept: Vec<&str> = lines.iter().enumerate().filter(|(i, _)| *i != line % lines.len()).map(|(_, l)| *l).collect();
        fs::write(root.join(file), kept.join("\n")).unwrap();
        if let Err(problems) = check_bundle(&root) {
            assert_locations_in_bounds(&root, &problems);
        }
    }
}
