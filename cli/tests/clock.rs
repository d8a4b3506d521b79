//! The bundle's clock through the binary: `replay` and `audit` of a bundle on
//! a `system` clock decide at the events' recorded `at`, else at `--now`,
//! else refuse the trace saying which to give; `gate` and `serve` stand the
//! clock still at `--now`, never take an event's claimed `at` for it, keep
//! the time each event was decided at across a restart, and refuse an `at`
//! that is not a timestamp. The bundle is the bank-card fixture, whose
//! dispute rule reads "within 60 days of today".
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod common;
#[path = "../../engine/tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Server, json, root};

const TODAY: &str = "2026-10-02T12:00:00";
/// Six weeks earlier: the disputed transaction (2026-07-19) is then recent.
const EARLIER: &str = "2026-08-20T12:00:00";

fn bank_card() -> PathBuf {
    root().join("engine/tests/fixtures/bank-card")
}

fn conversations() -> PathBuf {
    bank_card().join("tests/conversations.jsonl")
}

fn turnstile(args: &[&str]) -> (Option<i32>, String, String) {
    common::run(
        Command::new(env!("CARGO_BIN_EXE_turnstile")).args(args),
        b"",
    )
}

/// The event lines of conversation `id`, without its header.
fn events_of(id: &str) -> Vec<String> {
    let text = std::fs::read_to_string(conversations()).unwrap();
    let header = format!(r#"{{"type": "trace", "id": "{id}"}}"#);
    text.lines()
        .skip_while(|l| *l != header)
        .skip(1)
        .take_while(|l| !l.contains(r#""type": "trace""#))
        .map(str::to_owned)
        .collect()
}

/// `line` with `"at": at` added.
fn stamped(line: &str, at: &str) -> String {
    let mut value = json(line);
    value["at"] = serde_json::Value::from(at);
    value.to_string()
}

fn out_of_window(verdict: &serde_json::Value) -> bool {
    verdict["verdict"] == "block" && verdict["reason"] == "OutOfWindow"
}

fn gate(store: &Path, now: &str, lines: &[String]) -> Vec<serde_json::Value> {
    let (code, verdicts, stderr) = common::gate(
        &bank_card(),
        store,
        &["--now", now],
        lines.join("\n").as_bytes(),
    );
    assert_eq!(code, Some(0), "{stderr}");
    verdicts
}

#[test]
fn replay_decides_at_the_recorded_time_else_at_now_else_refuses() {
    let bundle = bank_card();
    let file = conversations();
    let replay = |extra: &[&str]| {
        let mut args = vec![
            "replay",
            bundle.to_str().unwrap(),
            file.to_str().unwrap(),
            "--trace",
            "dispute-too-old",
        ];
        args.extend_from_slice(extra);
        turnstile(&args)
    };
    let (code, _, stderr) = replay(&[]);
    assert_ne!(code, Some(0));
    assert!(
        stderr.contains("records no time for its events")
            && stderr.contains("--now <timestamp>")
            && stderr.contains("`at` in native JSONL"),
        "{stderr}"
    );
    let (code, stdout, stderr) = replay(&["--now", TODAY]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("OutOfWindow at dispute.authorize"),
        "{stdout}"
    );
    assert!(
        stdout.contains("now() - 60 days = 2026-08-03T12:00:00"),
        "{stdout}"
    );
    let (code, stdout, stderr) = replay(&["--now", EARLIER]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stdout.contains("OutOfWindow"), "{stdout}");
    let (code, _, stderr) = replay(&["--now", "2026-10-02T12:00:00+02:00"]);
    assert_ne!(code, Some(0));
    assert!(stderr.contains("--now"), "{stderr}");

    // Times recorded with the events win over --now.
    let dir = tempfile::tempdir().unwrap();
    let recorded = dir.path().join("recorded.jsonl");
    let mut lines = vec![r#"{"type":"trace","id":"recorded"}"#.to_owned()];
    lines.extend(
        events_of("dispute-too-old")
            .iter()
            .map(|l| stamped(l, EARLIER)),
    );
    std::fs::write(&recorded, lines.join("\n")).unwrap();
    for extra in [&[][..], &["--now", TODAY][..]] {
        let mut args = vec![
            "replay",
            bundle.to_str().unwrap(),
            recorded.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = turnstile(&args);
        assert_eq!(code, Some(0), "{stderr}");
        assert!(stdout.contains("dispute_transaction"), "{stdout}");
        assert!(!stdout.contains("OutOfWindow"), "{extra:?}: {stdout}");
    }
}

#[test]
fn audit_takes_now_and_rejects_a_trace_it_cannot_time() {
    let bundle = bank_card();
    let file = conversations();
    let audit = |extra: &[&str]| {
        let mut args = vec![
            "audit",
            "--bundle",
            bundle.to_str().unwrap(),
            file.to_str().unwrap(),
            "--format",
            "jsonl",
        ];
        args.extend_from_slice(extra);
        let (_, stdout, stderr) = turnstile(&args);
        let lines: Vec<serde_json::Value> = stdout.lines().map(json).collect();
        assert!(!lines.is_empty(), "{stderr}");
        lines
    };
    let untimed = audit(&[]);
    let rejected: Vec<_> = untimed
        .iter()
        .filter_map(|l| l["rejected"]["reason"].as_str())
        .collect();
    assert_eq!(rejected.len(), 35, "{untimed:?}");
    assert!(rejected.iter().all(|r| r.contains("--now")), "{rejected:?}");
    let timed = audit(&["--now", TODAY]);
    assert!(
        timed.iter().all(|l| l.get("rejected").is_none()),
        "{timed:?}"
    );
    let too_old = timed
        .iter()
        .find(|l| l["trace"] == "dispute-too-old")
        .unwrap();
    assert_eq!(too_old["verdict"], "violation", "{too_old}");
    assert_eq!(
        too_old["first_deviation"]["reason"], "out_of_window",
        "{too_old}"
    );
}

#[test]
fn the_gate_decides_on_its_clock_and_keeps_the_times_across_a_restart() {
    let events = events_of("dispute-too-old");
    let (before, write) = events.split_at(events.len() - 1);
    let dir = tempfile::tempdir().unwrap();

    let today = gate(&dir.path().join("today.db"), TODAY, &events);
    assert!(out_of_window(today.last().unwrap()), "{today:?}");
    let earlier = gate(&dir.path().join("earlier.db"), EARLIER, &events);
    assert!(!out_of_window(earlier.last().unwrap()), "{earlier:?}");

    // An event's claimed time is not the live clock's.
    let claimed: Vec<String> = events.iter().map(|l| stamped(l, EARLIER)).collect();
    let verdicts = gate(&dir.path().join("claimed.db"), TODAY, &claimed);
    assert!(out_of_window(verdicts.last().unwrap()), "{verdicts:?}");

    // Restarted six weeks later, the session keeps what it decided and
    // decides the write on the clock as it is then.
    let store = dir.path().join("restarted.db");
    let first = gate(&store, EARLIER, before);
    assert_eq!(first, earlier[..before.len()]);
    let second = gate(&store, TODAY, write);
    assert!(out_of_window(&second[0]), "{second:?}");

    // An `at` that is not a timestamp is refused, and the gate goes on.
    let lines = vec![
        stamped(&events[0], "2026-10-02T12:00:00+02:00"),
        events[0].clone(),
    ];
    let verdicts = gate(&dir.path().join("bad.db"), TODAY, &lines);
    assert_eq!(verdicts[0]["verdict"], "block");
    assert!(
        verdicts[0]["error"].as_str().unwrap().contains("`at`"),
        "{verdicts:?}"
    );
    assert_eq!(verdicts[1]["verdict"], "observe");
}

#[test]
fn serve_stands_the_clock_at_now() {
    let bundles = tempfile::tempdir().unwrap();
    support::copy_dir(&bank_card(), &bundles.path().join("bank-card"));
    let events = events_of("dispute-too-old");
    for (now, blocked) in [(TODAY, true), (EARLIER, false)] {
        let dir = tempfile::tempdir().unwrap();
        let server = Server::start_with(bundles.path(), &dir.path().join("s.db"), &["--now", now]);
        let (status, body) = server.request(
            "POST",
            "/v1/sessions",
            Some(r#"{"bundle":"bank-card","schedule":"workflow"}"#),
        );
        assert_eq!(status, 201, "{body}");
        let id = json(&body)["id"].as_str().unwrap().to_owned();
        let (status, body) = server.request(
            "POST",
            &format!("/v1/sessions/{id}/events"),
            Some(&format!("[{}]", events.join(","))),
        );
        assert_eq!(status, 200, "{body}");
        let verdicts = json(&body);
        let last = verdicts.as_array().unwrap().last().unwrap();
        assert_eq!(out_of_window(last), blocked, "{now}: {last}");
    }
}
