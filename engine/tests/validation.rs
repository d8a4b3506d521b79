//! Every validation rule, each shown by a broken copy of the toy bundle and
//! the exact diagnostic (code, file, line, column, message) it must produce.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod support;

use std::fs;

use support::{BROKEN, bundle_in, mutated, position_of, toy_bundle};
use turnstile_engine::ProblemKind;
use turnstile_engine::check_bundle;

#[test]
fn the_toy_bundle_is_valid() {
    let bundle = check_bundle(&toy_bundle()).unwrap_or_else(|p| panic!("{p}"));
    assert_eq!(bundle.name, "toy-orders");
    assert!(bundle.workflow.node("cancel.authorize").is_some());
    assert!(bundle.workflow.node("identify.load_profile").is_some());
    assert_eq!(bundle.request_types, vec!["cancel"]);
    assert_eq!(bundle.variables.len(), 2);
}

#[test]
fn every_broken_fixture_gives_its_exact_diagnostic() {
    let mut failures = Vec::new();
    for case in BROKEN {
        let dir = mutated(case.edits);
        let root = bundle_in(&dir);
        let problems = match check_bundle(&root) {
            Ok(_) => {
                failures.push(format!("{}: accepted", case.name));
                continue;
            }
            Err(p) => p,
        };
        let expected = case
            .at
            .map(|(file, needle)| (file, position_of(&root, file, needle)));
        let found = problems.iter().find(|p| {
            let located = match expected {
                Some((file, (line, column))) => {
                    p.file.as_deref() == Some(&format!("toy-orders/{file}")[..])
                        && p.line == Some(line)
                        && p.column == Some(column)
                }
                None => true,
            };
            p.kind.code() == case.code && p.message.contains(case.message) && located
        });
        if found.is_none() {
            failures.push(format!(
                "{}: wanted {} at {:?} containing {:?}; got:\n{problems}",
                case.name, case.code, expected, case.message
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A branch that always holds (`check: "true"`) covers every case, as
/// `otherwise` does, without excluding the others: the decision is complete.
#[test]
fn a_branch_that_always_holds_makes_a_decision_complete() {
    let dir = mutated(&[support::Edit {
        file: "flows/cancel.yaml",
        find: "        check: order[$order].status in [\"processed\", \"delivered\", \"cancelled\"]\n",
        replace: "        check: \"true\"\n",
    }]);
    check_bundle(&bundle_in(&dir)).unwrap_or_else(|p| panic!("{p}"));
}

#[test]
fn malformed_yaml_is_located_on_its_line() {
    let dir = mutated(&[support::Edit {
        file: "flows/cancel.yaml",
        find: "    next: status\n",
        replace: "    next: [status\n",
    }]);
    let problems = check_bundle(&bundle_in(&dir)).unwrap_err();
    let p = problems.iter().next().unwrap();
    assert_eq!(p.kind, ProblemKind::Yaml);
    assert_eq!(p.file.as_deref(), Some("toy-orders/flows/cancel.yaml"));
    assert!(p.line.is_some_and(|l| l >= 19), "{p:?}");
}

/// Billion laughs inside `cites`, whose untagged form makes the parser
/// buffer (and so expand) the value: the alias budget must stop it.
#[test]
fn a_yaml_bomb_hits_the_parser_budget() {
    let dir = mutated(&[]);
    let root = bundle_in(&dir);
    let mut levels = vec![format!("&l0 [{}]", ["lol"; 10].join(", "))];
    for level in 1..9 {
        let refs = vec![format!("*l{}", level - 1); 10].join(", ");
        levels.push(format!("&l{level} [{refs}]"));
    }
    let path = root.join("flows/cancel.yaml");
    let text = fs::read_to_string(&path).unwrap();
    let bomb = format!("    cites: [{}]\n    next: status", levels.join(", "));
    fs::write(
        &path,
        text.replacen("    cites: policy.md:7\n    next: status", &bomb, 1),
    )
    .unwrap();
    let problems = check_bundle(&root).unwrap_err();
    let p = problems.iter().find(|p| p.kind == ProblemKind::YamlBudget);
    let p = p.unwrap_or_else(|| panic!("no budget problem in:\n{problems}"));
    assert_eq!(p.file.as_deref(), Some("toy-orders/flows/cancel.yaml"));
    assert!(p.line.is_some());
}

#[test]
fn a_ten_megabyte_file_is_refused_before_reading() {
    let dir = mutated(&[]);
    let root = bundle_in(&dir);
    let mut big = String::from("flow: cancel\nnodes: []\n# ");
    big.push_str(&"x".repeat(10 * 1024 * 1024));
    fs::write(root.join("flows/cancel.yaml"), big).unwrap();
    let problems = check_bundle(&root).unwrap_err();
    let p = problems.iter().next().unwrap();
    assert_eq!(p.kind, ProblemKind::FileTooLarge);
    assert!(
        p.message.contains("toy-orders/flows/cancel.yaml"),
        "{}",
        p.message
    );
}

#[test]
fn non_utf8_bytes_are_located() {
    let dir = mutated(&[]);
    let root = bundle_in(&dir);
    let path = root.join("flows/main.yaml");
    let expected = position_of(&root, "flows/main.yaml", "spine ");
    let mut bytes = fs::read(&path).unwrap();
    let at = bytes.windows(6).position(|w| w == b"spine ").unwrap();
    bytes[at] = 0xff;
    fs::write(&path, bytes).unwrap();
    let problems = check_bundle(&root).unwrap_err();
    let p = problems.iter().next().unwrap();
    assert_eq!(p.kind, ProblemKind::NotUtf8);
    assert_eq!((p.line, p.column), (Some(expected.0), Some(expected.1)));
}

#[test]
fn a_missing_file_is_reported_with_its_path() {
    let dir = mutated(&[]);
    let root = bundle_in(&dir);
    fs::remove_file(root.join("flows/identify.yaml")).unwrap();
    let problems = check_bundle(&root).unwrap_err();
    let p = problems.iter().next().unwrap();
    assert_eq!(p.kind, ProblemKind::Io);
    assert!(p.message.contains("flows/identify.yaml"));
}

#[test]
fn several_problems_are_all_reported() {
    let dir = mutated(&[
        support::Edit {
            file: "flows/cancel.yaml",
            find: "    next: verify",
            replace: "    next: verfiy",
        },
        support::Edit {
            file: "flows/main.yaml",
            find: "    flow: cancel",
            replace: "    flow: cancellation",
        },
    ]);
    let problems = check_bundle(&bundle_in(&dir)).unwrap_err();
    assert!(problems.has(ProblemKind::UnknownFlow), "{problems}");
    let dir = mutated(&[
        support::Edit {
            file: "flows/cancel.yaml",
            find: "    next: verify",
            replace: "    next: verfiy",
        },
        support::Edit {
            file: "flows/cancel.yaml",
            find: "order[$order].status == \"pending\"",
            replace: "order[$order].state == \"pending\"",
        },
    ]);
    let problems = check_bundle(&bundle_in(&dir)).unwrap_err();
    assert!(
        problems.has(ProblemKind::UnknownNode) && problems.has(ProblemKind::UnknownField),
        "{problems}"
    );
}

#[test]
fn unknown_node_suggests_the_closest_id() {
    let dir = mutated(&[support::Edit {
        file: "flows/cancel.yaml",
        find: "    next: verify",
        replace: "    next: verfiy",
    }]);
    let problems = check_bundle(&bundle_in(&dir)).unwrap_err();
    let p = problems
        .iter()
        .find(|p| p.kind == ProblemKind::UnknownNode)
        .unwrap();
    assert_eq!(p.help.as_deref(), Some("did you mean `verify`?"));
}
