//! The tutorial cannot rot: what it shows `init` writing from
//! `examples/tutorial/tools.json` is what `init` writes (and that passes
//! `check` with the warning it quotes), `docs/tutorial.md` quotes the files
//! of `examples/tutorial/` verbatim, the bundle passes `check`, the mistake
//! it shows is reported where it says, its conversations give exactly the
//! verdicts of its table in `replay` and through the live `gate`, those are
//! the verdicts its test conversations expect, and `turnstile test` says
//! what the page says, passing and failing.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use common::{copy_dir, root, turnstile, turnstile_in};

fn tutorial_dir() -> PathBuf {
    root().join("examples/tutorial")
}

fn doc() -> String {
    std::fs::read_to_string(root().join("docs/tutorial.md")).unwrap()
}

fn conversations() -> PathBuf {
    tutorial_dir().join("tests/conversations.jsonl")
}

/// The body of the first fenced block after `<!-- marker -->`.
fn quoted(doc: &str, marker: &str) -> String {
    let at = doc
        .find(&format!("<!-- {marker} -->"))
        .unwrap_or_else(|| panic!("the tutorial marks {marker}"));
    let rest = &doc[at..];
    let fence = rest.find("```").unwrap();
    let body = &rest[fence..];
    let start = body.find('\n').unwrap() + 1;
    let end = start + body[start..].find("\n```").unwrap();
    body[start..end].to_owned()
}

/// A copy of the tutorial's directory layout under a temporary directory,
/// so commands run there print the paths the page shows.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&tutorial_dir(), &dir.path().join("examples/tutorial"));
    dir
}

/// The verdict table: conversation -> (gated tool, `allow` | `block Reason`).
fn documented_verdicts() -> BTreeMap<String, (String, String)> {
    let doc = doc();
    let start = doc
        .find("<!-- verdicts:begin -->")
        .expect("verdict table start");
    let end = doc
        .find("<!-- verdicts:end -->")
        .expect("verdict table end");
    let cell = |c: &str| c.trim().trim_matches('`').to_owned();
    doc[start..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').collect();
            (cell(cells[1]), (cell(cells[2]), cell(cells[3])))
        })
        .collect()
}

/// `allow` or `block Reason` for a JSON verdict line.
fn shown(event: &serde_json::Value) -> String {
    match event["verdict"].as_str().unwrap() {
        "block" => format!("block {}", event["reason"].as_str().unwrap()),
        other => other.to_owned(),
    }
}

#[test]
fn the_tutorial_quotes_its_files_verbatim() {
    let doc = doc();
    let mut quoted = 0;
    for (at, _) in doc.match_indices("<!-- file: ") {
        let rest = &doc[at + "<!-- file: ".len()..];
        let name = &rest[..rest.find(" -->").unwrap()];
        let fence = rest.find("```yaml\n").unwrap() + "```yaml\n".len();
        let body = &rest[fence..fence + rest[fence..].find("\n```").unwrap()];
        let file = std::fs::read_to_string(tutorial_dir().join(name)).unwrap();
        assert_eq!(
            body,
            file.trim_end_matches('\n'),
            "{name} differs from the tutorial"
        );
        quoted += 1;
    }
    assert_eq!(quoted, 5, "every bundle file is quoted");
}

#[test]
fn the_tutorial_bundle_passes_check() {
    let out = turnstile(&["check", tutorial_dir().to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary = "23 nodes, 22 edges, 7 formal checks, 7 semantic criteria, 6 tools (2 mutating: 1 authorized, 1 out of scope)";
    assert!(stdout.contains(summary), "{stdout}");
    assert!(
        doc().contains(summary),
        "the tutorial shows the same summary"
    );
}

#[test]
fn the_mistake_the_tutorial_shows_is_reported_where_it_says() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("tutorial");
    std::fs::create_dir_all(copy.join("flows")).unwrap();
    for name in [
        "bundle.yaml",
        "domain.yaml",
        "policy.md",
        "flows/main.yaml",
        "flows/identify.yaml",
        "flows/transfer.yaml",
    ] {
        let text = std::fs::read_to_string(tutorial_dir().join(name)).unwrap();
        let text = text.replace(
            "args.amount <= account[$account].balance\n",
            "args.amount <= account[$account].balanse\n",
        );
        std::fs::write(copy.join(name), text).unwrap();
    }
    let out = turnstile(&["check", copy.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let doc = doc();
    for expected in [
        "turnstile::unknown_field",
        "× entity `account` has no field `balanse`",
        "╭─[tutorial/flows/transfer.yaml:59:43]",
        "help: did you mean `balance`?",
    ] {
        assert!(
            stderr.contains(expected),
            "check says {expected}:\n{stderr}"
        );
        assert!(doc.contains(expected), "the tutorial says {expected}");
    }
    assert!(stderr.contains("1 problem found"), "{stderr}");
}

#[test]
fn replay_gives_the_verdicts_the_tutorial_shows() {
    let documented = documented_verdicts();
    assert_eq!(documented.len(), 9);
    let conversations = conversations();
    let out = turnstile(&[
        "replay",
        tutorial_dir().to_str().unwrap(),
        conversations.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut seen = BTreeMap::new();
    for line in stdout.lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        for replay in value["replays"].as_array().unwrap() {
            let trace = replay["trace"].as_str().unwrap().to_owned();
            let gated: Vec<&serde_json::Value> = replay["events"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["mutating"] == true)
                .collect();
            assert_eq!(gated.len(), 1, "{trace}: one gated call");
            let tool = gated[0]["kind"]
                .as_str()
                .unwrap()
                .trim_start_matches("call ");
            seen.insert(trace, (tool.to_owned(), shown(gated[0])));
        }
    }
    assert_eq!(seen, documented);
    // The remediation for a mistyped read says so.
    assert!(stdout.contains(
        "<account[$account].balance: wrong type in the result at event 8: expected an amount, found \\\"1,200.00 EUR\\\">"
    ));
}

#[test]
fn the_gate_gives_the_same_verdicts() {
    let documented = documented_verdicts();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("sessions.db");
    let lines = std::fs::read_to_string(conversations()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_turnstile"))
        .args(["gate", tutorial_dir().to_str().unwrap(), "--state"])
        .arg(&store)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(lines.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut session = String::new();
    let mut seen = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        if value["kind"] == "trace" {
            session = value["session"].as_str().unwrap().to_owned();
        } else if value["mutating"] == true {
            let tool = value["kind"].as_str().unwrap().trim_start_matches("call ");
            seen.insert(session.clone(), (tool.to_owned(), shown(&value)));
        }
    }
    assert_eq!(seen, documented);
}

#[test]
fn init_writes_what_the_tutorial_shows() {
    let doc = doc();
    let dir = workspace();
    let command = quoted(&doc, "init: output");
    let mut lines = command.lines();
    let shown: Vec<&str> = lines
        .next()
        .unwrap()
        .trim_start_matches("$ turnstile ")
        .split(' ')
        .collect();
    assert_eq!(shown[0], "init");
    let out = turnstile_in(dir.path(), &shown);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim_end(),
        lines.next().unwrap()
    );
    let stub =
        std::fs::read_to_string(dir.path().join("tutorial/flows/wire_transfer.yaml")).unwrap();
    assert_eq!(
        stub.trim_end(),
        quoted(&doc, "init: flows/wire_transfer.yaml")
    );
    // Every file the page lists, and an empty tests/.
    for file in [
        "bundle.yaml",
        "domain.yaml",
        "policy.md",
        "flows/main.yaml",
        "flows/close_account.yaml",
    ] {
        assert!(dir.path().join("tutorial").join(file).is_file(), "{file}");
    }
    assert_eq!(
        std::fs::read_dir(dir.path().join("tutorial/tests"))
            .unwrap()
            .count(),
        0
    );
    // It passes check, with the warning the page quotes.
    let out = turnstile_in(dir.path(), &["check", "tutorial"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    for line in quoted(&doc, "init: warning").lines() {
        assert!(stderr.contains(line), "check says {line:?}:\n{stderr}");
    }
}

#[test]
fn the_test_conversations_expect_the_verdicts_of_the_table() {
    let documented = documented_verdicts();
    let text = std::fs::read_to_string(conversations()).unwrap();
    let mut trace = String::new();
    let mut expected = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with('{')) {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        if value["type"] == "trace" {
            trace = value["id"].as_str().unwrap().to_owned();
        } else if let Some(expect) = value["expect"].as_str() {
            // `block Reason at step` in the file, `block Reason` in the table.
            let verdict = expect.split(" at ").next().unwrap().to_owned();
            let tool = value["tool"].as_str().unwrap().to_owned();
            assert!(expected.insert(trace.clone(), (tool, verdict)).is_none());
        }
    }
    assert_eq!(expected, documented);
    // The expectation the page quotes is a line of the file.
    let line = quoted(&doc(), "expect: over-balance");
    assert!(text.lines().any(|l| l == line), "{line}");
}

#[test]
fn turnstile_test_says_what_the_tutorial_shows() {
    let doc = doc();
    let dir = workspace();
    let summary = quoted(&doc, "test: summary");
    let mut lines = summary.lines();
    let command: Vec<&str> = lines
        .next()
        .unwrap()
        .trim_start_matches("$ turnstile ")
        .split(' ')
        .collect();
    let out = turnstile_in(dir.path(), &command);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim_end(),
        lines.next().unwrap()
    );
    // Lowered to 400, the limit fails the allowed transfer, as shown.
    let flow = dir.path().join("examples/tutorial/flows/transfer.yaml");
    let text = std::fs::read_to_string(&flow).unwrap();
    assert!(text.contains("&& args.amount <= 10000"));
    std::fs::write(
        &flow,
        text.replace("&& args.amount <= 10000", "&& args.amount <= 400"),
    )
    .unwrap();
    let out = turnstile_in(dir.path(), &command);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let failure = quoted(&doc, "test: failure");
    assert!(stdout.starts_with(&failure), "{stdout}");
    // The unconfirmed transfer of 500 fails the limit too: a formal
    // failure is a block, never a confirmation.
    assert!(stdout.contains("7 passed, 2 failed"), "{stdout}");
    assert!(
        stdout.contains("`not-confirmed` under workflow"),
        "{stdout}"
    );
}
