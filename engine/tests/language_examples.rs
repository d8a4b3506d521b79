//! Every example of `docs/language.md` compiles. A fenced block whose info
//! string names a place in the bank-card fixture (`tests/fixtures/bank-card/`)
//! is checked there:
//!
//! - ```` ```yaml <file> ```` — quoted from that file verbatim;
//! - ```` ```yaml <file>+ ```` — its top-level keys replace the file's in a copy
//!   of the bundle, which must compile;
//! - ```` ```check <flow file>:<node> ```` — added as a conjunct of that
//!   node's check or guard in a copy, which must compile.
//!
//! Blocks with any other info string (`text`, plain `yaml`) are prose.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod support;

use std::fs;
use std::path::{Path, PathBuf};

use turnstile_engine::check_bundle;

fn bank_card() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank-card")
}

fn reference() -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/language.md")).unwrap()
}

/// Where an example goes, read off its fence's info string.
#[derive(Debug)]
enum Place {
    Quoted { file: String },
    Replacing { file: String },
    Conjunct { file: String, node: String },
}

#[derive(Debug)]
struct Example {
    line: usize,
    place: Place,
    body: String,
}

fn place_of(info: &str) -> Option<Place> {
    let (lang, target) = info.split_once(' ')?;
    let target = target.trim();
    match lang {
        "yaml" => Some(match target.strip_suffix('+') {
            Some(file) => Place::Replacing {
                file: file.to_owned(),
            },
            None => Place::Quoted {
                file: target.to_owned(),
            },
        }),
        "check" => {
            let (file, node) = target.split_once(':')?;
            Some(Place::Conjunct {
                file: file.to_owned(),
                node: node.to_owned(),
            })
        }
        _ => None,
    }
}

/// The fenced blocks of `text` that name a place, with their (1-based)
/// fence line; a fence may be indented (inside a list item), and its body
/// loses that indentation.
fn examples(text: &str) -> Vec<Example> {
    let mut found = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((index, line)) = lines.next() {
        let indent = line.len() - line.trim_start().len();
        let Some(info) = line.trim_start().strip_prefix("```") else {
            continue;
        };
        let mut body = Vec::new();
        for (_, inner) in lines.by_ref() {
            if inner.trim_start().starts_with("```") {
                break;
            }
            body.push(inner.get(indent..).unwrap_or(inner.trim_start()));
        }
        if let Some(place) = place_of(info.trim()) {
            found.push(Example {
                line: index + 1,
                place,
                body: body.join("\n") + "\n",
            });
        }
    }
    found
}

/// `yaml` with each top-level key that `replacement` sets removed (the key's
/// line and the lines of its value), then `replacement` appended.
fn replace_top_level_keys(yaml: &str, replacement: &str) -> String {
    let keys: Vec<&str> = replacement
        .lines()
        .filter(|l| !l.starts_with([' ', '#', '-']) && !l.is_empty())
        .filter_map(|l| l.split_once(':').map(|(key, _)| key))
        .collect();
    let mut kept = Vec::new();
    let mut dropping = false;
    for line in yaml.lines() {
        let top_level = !line.is_empty() && !line.starts_with([' ', '-']);
        if top_level {
            dropping = keys
                .iter()
                .any(|key| line.strip_prefix(key).is_some_and(|r| r.starts_with(':')));
        }
        if !dropping {
            kept.push(line);
        }
    }
    kept.join("\n") + "\n" + replacement
}

/// `flow` with `conjunct` added to the check (or guard) of node `node`,
/// written back as a folded scalar.
fn add_conjunct(flow: &str, node: &str, conjunct: &str) -> String {
    let lines: Vec<&str> = flow.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim() == format!("- id: {node}"))
        .unwrap_or_else(|| panic!("no node `{node}`"));
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.trim_start().starts_with("- id:"))
        .map_or(lines.len(), |i| start + 1 + i);
    let (key_at, key) = lines[start..end]
        .iter()
        .enumerate()
        .find_map(|(i, l)| {
            let t = l.trim_start();
            ["check:", "guard:"]
                .into_iter()
                .find(|k| t.starts_with(k))
                .map(|k| (start + i, k))
        })
        .unwrap_or_else(|| panic!("node `{node}` has no check or guard"));
    let indent = lines[key_at].len() - lines[key_at].trim_start().len();
    let inline = lines[key_at].trim_start()[key.len()..].trim();
    let mut value_end = key_at + 1;
    while value_end < end {
        let l = lines[value_end];
        if l.trim().is_empty() || l.len() - l.trim_start().len() <= indent {
            break;
        }
        value_end += 1;
    }
    let continuation = lines[key_at + 1..value_end].iter().map(|l| l.trim());
    let existing: Vec<&str> = if matches!(inline, ">-" | ">" | "|" | "|-") {
        continuation.collect()
    } else {
        std::iter::once(inline).chain(continuation).collect()
    };
    let pad = " ".repeat(indent);
    let mut out: Vec<String> = lines[..key_at].iter().map(|l| (*l).to_owned()).collect();
    out.push(format!("{pad}{key} >-"));
    out.push(format!("{pad}  ({})", existing.join(" ")));
    out.push(format!(
        "{pad}  && ({})",
        conjunct.trim().replace('\n', " ")
    ));
    out.extend(lines[value_end..].iter().map(|l| (*l).to_owned()));
    out.join("\n") + "\n"
}

/// Compiles a copy of the bank-card bundle with the example applied.
fn compiles_in_a_copy(example: &Example) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bank-card");
    support::copy_dir(&bank_card(), &root);
    let (file, edited) = match &example.place {
        Place::Quoted { .. } => unreachable!("a quotation is not compiled"),
        Place::Replacing { file } => {
            let text = fs::read_to_string(root.join(file)).unwrap();
            (file, replace_top_level_keys(&text, &example.body))
        }
        Place::Conjunct { file, node } => {
            let text = fs::read_to_string(root.join(file)).unwrap();
            (file, add_conjunct(&text, node, &example.body))
        }
    };
    fs::write(root.join(file), edited).unwrap();
    check_bundle(&root).map(drop).map_err(|problems| {
        problems
            .iter()
            .map(|p| format!("{} {}", p.kind.code(), p.message))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

#[test]
fn every_example_of_the_language_reference_compiles_in_the_bank_card_bundle() {
    let text = reference();
    let found = examples(&text);
    let mut failures = Vec::new();
    for example in &found {
        let outcome = match &example.place {
            Place::Quoted { file } => {
                let source = fs::read_to_string(bank_card().join(file)).unwrap();
                if source.contains(example.body.trim_end()) {
                    Ok(())
                } else {
                    Err(format!("not quoted verbatim from {file}"))
                }
            }
            _ => compiles_in_a_copy(example),
        };
        if let Err(why) = outcome {
            failures.push(format!("docs/language.md:{}: {why}", example.line));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The sections on protected reads and time each carry examples of every kind.
    for kind in ["Quoted", "Replacing", "Conjunct"] {
        assert!(
            found
                .iter()
                .any(|e| format!("{:?}", e.place).starts_with(kind)),
            "no `{kind}` example found: {found:?}"
        );
    }
}

/// The harness itself: an example that does not compile, or a quotation the
/// file does not hold, is reported at its line.
#[test]
fn a_wrong_example_is_reported() {
    let text = "intro\n\n```check flows/dispute.yaml:authorize\nnow() > 3\n```\n\n\
                ```yaml bundle.yaml+\nclock: fixed 2024-05-15 15:00:00 EST\n```\n\n\
                ```yaml bundle.yaml\nclock: event\n```\n\n  ```check flows/identify.yaml:by_card\n  said(user, args.customer_id)\n  ```\n";
    let found = examples(text);
    assert_eq!(found.len(), 4, "{found:?}");
    assert_eq!(found[0].line, 3);
    let typed = compiles_in_a_copy(&found[0]).unwrap_err();
    assert!(typed.contains("type_mismatch"), "{typed}");
    let clock = compiles_in_a_copy(&found[1]).unwrap_err();
    assert!(clock.contains("bad_clock"), "{clock}");
    let source = fs::read_to_string(bank_card().join("bundle.yaml")).unwrap();
    assert!(!source.contains(found[2].body.trim_end()));
    // An indented block (inside a list item) loses its indentation.
    assert_eq!(found[3].body, "said(user, args.customer_id)\n");
    compiles_in_a_copy(&found[3]).unwrap();
}
