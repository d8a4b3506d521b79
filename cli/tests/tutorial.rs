//! The tutorial cannot rot: `docs/tutorial.md` quotes the files of
//! `examples/tutorial/` verbatim, the bundle passes `check`, the mistake it
//! shows is reported where it says, and its conversations give exactly the
//! verdicts of its table, in `replay` and through the live `gate`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tutorial_dir() -> PathBuf {
    repo().join("examples/tutorial")
}

fn doc() -> String {
    std::fs::read_to_string(repo().join("docs/tutorial.md")).unwrap()
}

fn turnstile(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_turnstile"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run turnstile")
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
    let conversations = tutorial_dir().join("conversations.jsonl");
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
    let lines = std::fs::read_to_string(tutorial_dir().join("conversations.jsonl")).unwrap();
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
