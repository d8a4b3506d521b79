//! The red-team conversations whose events break the native format's
//! protocol (a result for a call id nobody made, a result before its call,
//! a call id reused while open), pushed event by event into a live
//! [`Session`] as a host would: `turnstile test` refuses such a file at
//! import, but a gate has to decide on what it is sent. Each write carries
//! the verdict its author expected from the policy; the malformed event must
//! be reported as an anomaly and must satisfy nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value as Json;
use turnstile_engine::check_bundle;
use turnstile_engine::import::native::event_time;
use turnstile_engine::session::{BundleRuntime, Schedule, Session};
use turnstile_engine::trace::Event;
use turnstile_judge::OfflineJudge;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The bundle a suite file is written against: a shipped bundle, or a
/// fixture domain's.
fn bundle_dir(name: &str) -> PathBuf {
    let shipped = root().join("bundles").join(name);
    if shipped.is_dir() {
        shipped
    } else {
        root().join("engine/tests/fixtures").join(name)
    }
}

/// A conversation of a suite: its id and its lines, parsed.
fn conversations(file: &Path) -> Vec<(String, Vec<Json>)> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut out: Vec<(String, Vec<Json>)> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let value: Json = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        if value["type"] == "trace" {
            out.push((value["id"].as_str().unwrap().to_owned(), Vec::new()));
        } else {
            out.last_mut()
                .expect("an event before any trace")
                .1
                .push(value);
        }
    }
    out
}

#[test]
fn protocol_breaks_open_nothing_at_the_live_gate() {
    let dir = root().join("engine/tests/redteam/protocol");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    let judge = OfflineJudge::new();
    let mut checked = 0;
    let mut anomalies = 0;
    for file in files {
        let name = file.file_stem().unwrap().to_str().unwrap().to_owned();
        let bundle = check_bundle(&bundle_dir(&name)).unwrap_or_else(|p| panic!("{p}"));
        let runtime = BundleRuntime::new(Arc::new(bundle)).unwrap();
        for (id, lines) in conversations(&file) {
            let mut session = Session::new(Arc::clone(&runtime), Schedule::Workflow);
            for (index, mut line) in lines.into_iter().enumerate() {
                let expected = line
                    .as_object_mut()
                    .and_then(|o| o.remove("expect"))
                    .map(|e| e.as_str().unwrap().to_owned());
                let at = event_time(&line).unwrap();
                if let Some(o) = line.as_object_mut() {
                    o.remove("at");
                }
                let event: Event = serde_json::from_value(line).unwrap();
                let report = session.push_at(event, at, &judge).unwrap();
                anomalies += report.anomalies.len();
                if let Some(expected) = expected {
                    let expected = expected.split_whitespace().next().unwrap();
                    assert_eq!(
                        report.verdict.label(),
                        expected,
                        "{name} `{id}` event {index}: {:?}",
                        report.verdict
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 8, "{checked} expectations checked");
    assert!(anomalies >= 8, "{anomalies} anomalies reported");
}
