//! Diagnostics inside check expressions point at the exact wrong character
//! whatever YAML scalar style holds the expression: plain, single- or
//! double-quoted, folded (`>`, `>-`) or literal (`|`, `|-`), on one line or
//! spread over several.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod support;

use std::fs;

use miette::Diagnostic;
use support::{Edit, bundle_in, mutated, position_of};
use turnstile_engine::check_bundle;

const CANCEL: &str = "flows/cancel.yaml";
const GUARD: &str = "    guard: args.order_id == $order && args.reason in enum(cancel_reason) && order[args.order_id].status == \"pending\"\n";

/// Each style of scalar, with `{A}`, `{B}` and `{C}` standing for the three
/// conjuncts (`{C}` always on the last line of a multi-line form). The
/// quoting of string literals inside follows the style.
const STYLES: &[(&str, &str)] = &[
    ("plain one line", "    guard: {A} && {B} && {C}\n"),
    (
        "plain multi-line",
        "    guard: {A}\n      && {B}\n      && {C}\n",
    ),
    (
        "single-quoted",
        "    guard: '{A}\n      && {B}\n      && {C}'\n",
    ),
    (
        "double-quoted",
        "    guard: \"{A} \\\n      && {B}\n      && {C}\"\n",
    ),
    (
        "folded >-",
        "    guard: >-\n      {A}\n      && {B}\n          && {C}\n",
    ),
    (
        "folded >",
        "    guard: >\n      {A} &&\n      {B} &&\n      {C}\n",
    ),
    (
        "literal |",
        "    guard: |\n      {A}\n        && {B}\n      && {C}\n",
    ),
    (
        "literal |- with comment",
        "    guard: |-  # three conditions\n      {A}\n      && {B}\n      && {C}\n",
    ),
];

/// A mistake in the last conjunct and where it must be reported: the
/// needle's first character.
struct Mistake {
    name: &'static str,
    /// The conjunct, with `"` for a string literal's quotes.
    last: &'static str,
    code: &'static str,
    needle: &'static str,
}

const MISTAKES: &[Mistake] = &[
    Mistake {
        name: "field typo",
        last: "order[args.order_id].stauts == \"pending\"",
        code: "turnstile::unknown_field",
        needle: "stauts",
    },
    Mistake {
        name: "wrong-type literal",
        last: "args.order_id == 5",
        code: "turnstile::type_mismatch",
        needle: "args.order_id == 5",
    },
    Mistake {
        name: "enum value typo",
        last: "order[args.order_id].status == \"pendng\"",
        code: "turnstile::unknown_enum_value",
        needle: "\"pendng\"",
    },
    Mistake {
        name: "syntax error",
        last: "order[args.order_id].status == == \"pendingx\"",
        code: "turnstile::expr_syntax",
        needle: "== \"pendingx",
    },
];

/// The guard in `style` with `last` as its third conjunct, string quotes
/// written the way the style needs them.
fn guard(style: &str, template: &str, last: &str) -> String {
    let quote = match style {
        "single-quoted" => "''",
        "double-quoted" => "\\\"",
        _ => "\"",
    };
    template
        .replace("{A}", "args.order_id == $order")
        .replace("{B}", "args.reason in enum(cancel_reason)")
        .replace("{C}", &last.replace('"', quote))
}

/// Where the needle sits in the file, written in the style's quoting.
fn needle_in(style: &str, needle: &str) -> String {
    match style {
        "single-quoted" => needle.replace('"', "''"),
        "double-quoted" => needle.replace('"', "\\\""),
        _ => needle.to_owned(),
    }
}

#[test]
fn every_scalar_style_locates_the_wrong_character() {
    let mut failures = Vec::new();
    for (style, template) in STYLES {
        for mistake in MISTAKES {
            let text = guard(style, template, mistake.last);
            let replace: &'static str = Box::leak(text.into_boxed_str());
            let dir = mutated(&[Edit {
                file: CANCEL,
                find: GUARD,
                replace,
            }]);
            let root = bundle_in(&dir);
            let needle = needle_in(style, mistake.needle);
            let (line, column) = position_of(&root, CANCEL, &needle);
            let problems = match check_bundle(&root) {
                Ok(_) => {
                    failures.push(format!("{style} / {}: accepted", mistake.name));
                    continue;
                }
                Err(p) => p,
            };
            let ok = problems.len() == 1
                && problems.iter().all(|p| {
                    p.kind.code() == mistake.code
                        && p.line == Some(line)
                        && p.column == Some(column)
                });
            if !ok {
                failures.push(format!(
                    "{style} / {}: wanted exactly {} at {line}:{column}; got:\n{problems}",
                    mistake.name, mistake.code
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The highlighted span covers exactly the wrong text, even when a folded
/// expression runs over two lines.
#[test]
fn the_highlight_covers_exactly_the_wrong_text() {
    let cases = [
        ("order[args.order_id].stauts == \"pending\"", "stauts"),
        ("args.order_id == 5", "args.order_id == 5"),
    ];
    for (last, wrong) in cases {
        let text = guard("folded >-", STYLES[4].1, last);
        let replace: &'static str = Box::leak(text.into_boxed_str());
        let dir = mutated(&[Edit {
            file: CANCEL,
            find: GUARD,
            replace,
        }]);
        let root = bundle_in(&dir);
        let problems = check_bundle(&root).unwrap_err();
        let p = problems.iter().next().unwrap();
        let file = fs::read_to_string(root.join(CANCEL)).unwrap();
        let span = p.labels().unwrap().next().unwrap();
        let highlighted = &file[span.offset()..span.offset() + span.len()];
        assert_eq!(highlighted, wrong);
    }
}
