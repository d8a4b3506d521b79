//! `turnstile gate` on its session store: bad bytes and over-limit lines are
//! answered `block` and the gate goes on; trace headers start sessions; a
//! second gate on a session fails at start.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod common;

use std::io::{BufRead, BufReader, Write as _};
use std::process::{Command, Stdio};

use common::{json, root};

fn gate(
    store: &std::path::Path,
    extra: &[&str],
    input: &[u8],
) -> (Option<i32>, Vec<serde_json::Value>, String) {
    common::gate(&root().join("bundles/retail"), store, extra, input)
}

const USER: &str = r#"{"type":"user","text":"Hi, I want to return an item."}"#;
const AGENT: &str = r#"{"type":"agent","text":"Sure. What is your email?"}"#;

#[test]
fn invalid_utf8_and_overlong_lines_are_blocked_and_the_gate_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let mut input = Vec::new();
    input.extend_from_slice(USER.as_bytes());
    input.extend_from_slice(b"\n{\"type\":\"user\",\"text\":\"caf\xe9\"}\n");
    input.extend_from_slice(
        format!("{{\"type\":\"user\",\"text\":\"{}\"}}\n", "x".repeat(5000)).as_bytes(),
    );
    input.extend_from_slice(AGENT.as_bytes());
    input.push(b'\n');
    let (code, verdicts, stderr) = gate(&store, &["--max-line", "1024"], &input);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(verdicts.len(), 4);
    assert_eq!(verdicts[0]["verdict"], "observe");
    assert_eq!(verdicts[1]["verdict"], "block");
    assert!(
        verdicts[1]["error"].as_str().unwrap().contains("UTF-8"),
        "{}",
        verdicts[1]
    );
    assert_eq!(verdicts[1]["line"], 2);
    assert_eq!(verdicts[2]["verdict"], "block");
    assert!(
        verdicts[2]["error"]
            .as_str()
            .unwrap()
            .contains("limit of 1024 bytes"),
        "{}",
        verdicts[2]
    );
    // Neither was ingested: the agent's turn is event 1.
    assert_eq!(verdicts[3]["event"], 1);
    assert_eq!(verdicts[3]["verdict"], "guide");
}

#[test]
fn a_trace_header_starts_a_new_session_and_sessions_resume_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let input = format!(
        "{USER}\n{{\"type\":\"trace\",\"id\":\"t-1\"}}\n{USER}\n{AGENT}\n{{\"type\":\"trace\"}}\n{USER}\n"
    );
    let (code, verdicts, stderr) = gate(&store, &[], input.as_bytes());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(verdicts[0]["event"], 0);
    assert_eq!(
        verdicts[1],
        serde_json::json!({"verdict":"observe","kind":"trace","session":"t-1","control":"dual"})
    );
    assert_eq!(verdicts[2]["event"], 0, "a new session counts from 0");
    assert_eq!(verdicts[3]["event"], 1);
    assert_eq!(
        verdicts[4]["session"].as_str().unwrap().len(),
        32,
        "a random id"
    );
    assert_eq!(verdicts[5]["event"], 0);
    // Resuming t-1 by id continues its numbering; a header naming it again is refused.
    let input = format!("{AGENT}\n{{\"type\":\"trace\",\"id\":\"t-1\"}}\n{USER}\n");
    let (code, verdicts, stderr) = gate(&store, &["--session", "t-1"], input.as_bytes());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(verdicts[0]["event"], 2);
    assert_eq!(verdicts[1]["verdict"], "block");
    assert!(
        verdicts[1]["error"]
            .as_str()
            .unwrap()
            .contains("already exists")
    );
    assert_eq!(verdicts[2]["verdict"], "block");
    assert!(
        verdicts[2]["error"]
            .as_str()
            .unwrap()
            .contains("no session")
    );
}

#[test]
fn a_second_gate_on_the_same_session_fails_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let mut first = Command::new(env!("CARGO_BIN_EXE_turnstile"))
        .arg("gate")
        .arg(root().join("bundles/retail"))
        .args(["--state", store.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = first.stdin.take().unwrap();
    writeln!(stdin, "{USER}").unwrap();
    let mut line = String::new();
    BufReader::new(first.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(json(&line)["verdict"], "observe");
    // The first gate holds the default session: a second one is refused...
    let (code, verdicts, stderr) = gate(&store, &[], format!("{AGENT}\n").as_bytes());
    assert_eq!(code, Some(1));
    assert!(verdicts.is_empty());
    assert!(stderr.contains("in use by another writer"), "{stderr}");
    // ...while another session of the same store proceeds.
    let (code, verdicts, stderr) = gate(
        &store,
        &["--session", "other"],
        format!("{USER}\n").as_bytes(),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(verdicts.len(), 1);
    drop(stdin);
    assert!(first.wait().unwrap().success());
    // Once the first gate is gone the session is free again and continues.
    let (code, verdicts, stderr) = gate(&store, &[], format!("{AGENT}\n").as_bytes());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(verdicts[0]["event"], 1);
}

#[test]
fn a_store_write_failure_answers_block_and_the_event_is_not_ingested() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let (code, _, stderr) = gate(&store, &[], format!("{USER}\n").as_bytes());
    assert_eq!(code, Some(0), "{stderr}");
    // Every append now fails, as on a full disk.
    let conn = rusqlite::Connection::open(&store).unwrap();
    conn.execute_batch(
        "CREATE TRIGGER full_disk BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk full'); END;",
    )
    .unwrap();
    let (code, verdicts, stderr) = gate(&store, &[], format!("{AGENT}\n{AGENT}\n").as_bytes());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(verdicts.len(), 2);
    for verdict in &verdicts {
        assert_eq!(verdict["verdict"], "block", "{verdict}");
        let error = verdict["error"].as_str().unwrap();
        assert!(
            error.contains("could not be stored") && error.contains("disk full"),
            "{verdict}"
        );
    }
    conn.execute_batch("DROP TRIGGER full_disk").unwrap();
    let (code, verdicts, stderr) = gate(&store, &[], format!("{AGENT}\n").as_bytes());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        verdicts[0]["event"], 1,
        "the refused events were not ingested"
    );
}

/// `value` written with every object's keys in sorted order, whatever
/// order this build's `serde_json::Map` keeps.
fn sorted_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| {
                    format!(
                        "{}:{}",
                        serde_json::Value::from(k.as_str()),
                        sorted_text(&map[k])
                    )
                })
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        serde_json::Value::Array(items) => {
            let items: Vec<String> = items.iter().map(sorted_text).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

/// The gate's answers are written straight from the report with every
/// object's keys sorted: the bytes the gate wrote when it went through a
/// `serde_json::Value` without `preserve_order`. Pinned here so they are
/// the same in this crate's own build and in a workspace build (where
/// `cedar-policy` turns `preserve_order` on).
#[test]
fn verdict_bytes_have_sorted_keys_in_every_build() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let sample = std::fs::read_to_string(root().join("examples/retail-sample.jsonl")).unwrap();
    let input: String = sample
        .lines()
        .skip(1)
        .take(30)
        .map(|l| format!("{l}\n"))
        .collect();
    let (_, stdout, stderr) = common::gate_output(
        &root().join("bundles/retail"),
        &store,
        &[],
        input.as_bytes(),
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 30, "{stderr}");
    assert_eq!(
        lines[0],
        r#"{"event":0,"fired":true,"guidance":[{"remediation":"Ask for the user's email, or their first name, last name and zip code, and look the user id up (find_user_id_by_email / find_user_id_by_name_zip).","request":{},"step":"identify.find_by_name_zip"}],"kind":"agent","requests":[{"cursor":[{"needs_judge":false,"remediation":"Ask for the user's email, or their first name, last name and zip code, and look the user id up (find_user_id_by_email / find_user_id_by_name_zip).","step":"identify.find_by_name_zip"}],"request":{},"status":"open"}],"verdict":"guide"}"#
    );
    assert_eq!(
        lines[1],
        r#"{"event":1,"fired":false,"kind":"user","verdict":"observe"}"#
    );
    let mut with_requests = 0;
    for (i, line) in lines.iter().enumerate() {
        let value = json(line);
        assert_eq!(*line, sorted_text(&value), "answer {i}: keys not sorted");
        with_requests += usize::from(value.get("requests").is_some());
    }
    assert!(with_requests > 5, "{stdout}");
}

/// `confirm` and `approval` end to end on the shop fixture: a cancel that
/// lacks only the user's yes is answered `confirm` with its confirmation
/// request; the host's approval, sent in a second run of the gate (a
/// restart of the store), opens the identical call once.
#[test]
fn a_confirmed_call_is_allowed_on_the_hosts_approval_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let bundle = root().join("engine/tests/fixtures/shop");
    let first = [
        r#"{"type":"user","text":"Hi! I'd like to cancel an order. My email is u1@example.com."}"#,
        r#"{"type":"call","id":"c1","tool":"find_user_id_by_email","args":{"email":"u1@example.com"}}"#,
        r#"{"type":"result","id":"c1","ok":true,"content":"u1"}"#,
        r##"{"type":"call","id":"c2","tool":"get_user_details","args":{"user_id":"u1"}}"##,
        r##"{"type":"result","id":"c2","ok":true,"content":{"user_id":"u1","orders":["#O1"],"payment_methods":{},"bills":[]}}"##,
        r##"{"type":"call","id":"c3","tool":"get_order_details","args":{"order_id":"#O1"}}"##,
        r##"{"type":"result","id":"c3","ok":true,"content":{"order_id":"#O1","user_id":"u1","status":"pending","total":10,"items":[]}}"##,
        r##"{"type":"agent","text":"Order #O1: cancel it with reason 'no longer needed'? Please confirm (yes)."}"##,
        r##"{"type":"call","id":"c4","tool":"cancel_pending_order","args":{"order_id":"#O1","reason":"no longer needed"}}"##,
    ]
    .join("\n");
    let (code, verdicts, stderr) =
        common::gate(&bundle, &store, &["--session", "s"], first.as_bytes());
    assert_eq!(code, Some(0), "{stderr}");
    let confirm = verdicts.last().unwrap();
    assert_eq!(confirm["verdict"], "confirm", "{confirm}");
    assert_eq!(confirm["consent"], "absent");
    assert_eq!(confirm["confirmation"]["call"], "c4");
    assert_eq!(
        confirm["confirmation"]["text"],
        "Cancel order #O1 (no longer needed)?"
    );
    let second = [
        r#"{"type":"approval","call":"c9","granted":true,"by":"user"}"#,
        r#"{"type":"approval","call":"c4","granted":true,"by":"user"}"#,
        r##"{"type":"call","id":"c5","tool":"cancel_pending_order","args":{"order_id":"#O1","reason":"no longer needed"}}"##,
    ]
    .join("\n");
    let (code, verdicts, stderr) =
        common::gate(&bundle, &store, &["--session", "s"], second.as_bytes());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(verdicts[0]["verdict"], "observe");
    assert!(
        verdicts[0]["anomalies"][0].as_str().unwrap().contains("c9"),
        "an approval of a call never answered confirm: {}",
        verdicts[0]
    );
    assert_eq!(verdicts[1]["kind"], "approval of c4 by user");
    assert!(verdicts[1].get("anomalies").is_none(), "{}", verdicts[1]);
    assert_eq!(verdicts[2]["verdict"], "allow", "{}", verdicts[2]);
    assert_eq!(verdicts[2]["approved"]["call"], "c4");
    assert_eq!(verdicts[2]["approved"]["by"], "user");
}
