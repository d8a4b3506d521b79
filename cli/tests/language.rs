//! `docs/language.md` cannot drift from the compiler: every example in a
//! `check`, `guard` or `template` block (whatever section wrote it) compiles
//! against the fixture bundle `cli/tests/fixtures/language/`, and every
//! `check-error <code>` / `guard-error <code>` example fails with that code.
//!
//! In a `check` or `guard` block each line is an example, and a line that
//! starts with blanks continues the one before (a guard written over several
//! lines); in a `template` block each line is a remediation template. A
//! `check` example is the `check` of the fixture's `refund.example` node, a
//! `guard` example the guard of `refund.authorize` (a call of
//! `refund_order`), a template that authorization's remediation.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code

mod common;

use std::path::PathBuf;

use common::{copy_dir, root};

fn fixture() -> PathBuf {
    root().join("cli/tests/fixtures/language")
}

/// Where an example goes in the fixture's refund flow.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
    Check,
    Guard,
    Template,
}

impl Slot {
    /// The line of `flows/refund.yaml` the example replaces, and the line
    /// that replaces it.
    fn substitute(self, example: &str) -> (&'static str, String) {
        let quoted = serde_json::Value::from(example).to_string();
        match self {
            Slot::Check => ("    check: \"true\"\n", format!("    check: {quoted}\n")),
            Slot::Guard => (
                "    guard: args.order_id == $order\n",
                format!("    guard: {quoted}\n"),
            ),
            Slot::Template => (
                "    remediation: \"Refund only {$order}.\"\n",
                format!("    remediation: {quoted}\n"),
            ),
        }
    }
}

#[derive(Debug)]
struct Example {
    /// 1-based line in docs/language.md.
    line: usize,
    slot: Slot,
    text: String,
    /// The diagnostic code an error example must produce.
    error: Option<String>,
}

/// Every example of the fenced blocks the file marks as examples.
fn examples(doc: &str) -> Vec<Example> {
    let mut found = Vec::new();
    let mut block: Option<(Slot, Option<String>)> = None;
    for (index, line) in doc.lines().enumerate() {
        let number = index + 1;
        if let Some(info) = line.strip_prefix("```") {
            if block.is_some() {
                block = None;
                continue;
            }
            let mut words = info.split_whitespace();
            block = match (words.next(), words.next()) {
                (Some("check"), None) => Some((Slot::Check, None)),
                (Some("guard"), None) => Some((Slot::Guard, None)),
                (Some("template"), None) => Some((Slot::Template, None)),
                (Some("check-error"), Some(code)) => Some((Slot::Check, Some(code.to_owned()))),
                (Some("guard-error"), Some(code)) => Some((Slot::Guard, Some(code.to_owned()))),
                (Some(other), _) if other.ends_with("-error") => {
                    panic!("docs/language.md:{number}: `{other}` needs the code it fails with")
                }
                _ => None,
            };
            // A block that is not an example still has to be skipped whole.
            if block.is_none() {
                block = Some((Slot::Check, Some(String::new())));
            }
            continue;
        }
        let Some((slot, error)) = &block else {
            continue;
        };
        if error.as_deref() == Some("") {
            continue; // inside a block that is not an example
        }
        if line.trim().is_empty() {
            continue;
        }
        let continues = line.starts_with(char::is_whitespace) && *slot != Slot::Template;
        match found.last_mut() {
            Some(last) if continues => {
                let last: &mut Example = last;
                last.text.push(' ');
                last.text.push_str(line.trim());
            }
            _ => found.push(Example {
                line: number,
                slot: *slot,
                text: line.trim().to_owned(),
                error: error.clone(),
            }),
        }
    }
    found
}

/// Compiles the fixture with `example` in its slot: `Ok` or the codes of
/// the problems found.
fn compile(example: &Example) -> Result<(), Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("language");
    copy_dir(&fixture(), &bundle);
    let refund = std::fs::read_to_string(fixture().join("flows/refund.yaml")).unwrap();
    let (from, to) = example.slot.substitute(&example.text);
    assert!(refund.contains(from), "the fixture has {from:?}");
    std::fs::write(
        bundle.join("flows/refund.yaml"),
        refund.replacen(from, &to, 1),
    )
    .unwrap();
    turnstile_engine::check_bundle(&bundle)
        .map(|_| ())
        .map_err(|problems| problems.iter().map(|p| p.kind.code().to_owned()).collect())
}

#[test]
fn the_fixture_compiles_as_it_is() {
    turnstile_engine::check_bundle(&fixture()).unwrap_or_else(|p| panic!("{p}"));
}

#[test]
fn every_example_of_the_language_reference_compiles() {
    let doc = std::fs::read_to_string(root().join("docs/language.md")).unwrap();
    let found = examples(&doc);
    let compiled = found.iter().filter(|e| e.error.is_none()).count();
    let refused = found.len() - compiled;
    assert!(compiled >= 50, "only {compiled} examples: {found:#?}");
    assert!(refused >= 8, "only {refused} error examples");
    for slot in [Slot::Check, Slot::Guard, Slot::Template] {
        assert!(found.iter().any(|e| e.slot == slot), "no {slot:?} example");
    }
    let mut failures = Vec::new();
    for example in &found {
        match (compile(example), &example.error) {
            (Ok(()), None) => {}
            (Err(codes), None) => failures.push(format!(
                "docs/language.md:{}: `{}` does not compile: {codes:?}",
                example.line, example.text
            )),
            (Ok(()), Some(code)) => failures.push(format!(
                "docs/language.md:{}: `{}` compiles, but the page says it fails with {code}",
                example.line, example.text
            )),
            (Err(codes), Some(code)) if !codes.contains(code) => failures.push(format!(
                "docs/language.md:{}: `{}` fails with {codes:?}, not {code}",
                example.line, example.text
            )),
            (Err(_), Some(_)) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn examples_are_found_in_any_section_and_multi_line_guards_are_one() {
    let doc = "## Anyone's section\n\n```guard\nargs.amount > 0\n  && args.amount <= 10\nargs.count > 0\n```\n\n```text\nnot an example\n```\n\n```check-error turnstile::expr_syntax\na = b\n```\n";
    let found = examples(doc);
    assert_eq!(found.len(), 3, "{found:#?}");
    assert_eq!(found[0].text, "args.amount > 0 && args.amount <= 10");
    assert_eq!((found[0].line, found[1].line), (4, 6));
    assert_eq!(found[2].error.as_deref(), Some("turnstile::expr_syntax"));
    // A wrong example is caught, with its line.
    let wrong = Example {
        line: 1,
        slot: Slot::Check,
        text: "order[$order].statuz == \"delivered\"".to_owned(),
        error: None,
    };
    assert_eq!(
        compile(&wrong),
        Err(vec!["turnstile::unknown_field".to_owned()])
    );
}
