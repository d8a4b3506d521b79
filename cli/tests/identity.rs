//! A bundle checked as `.` from inside it and as `bundles/retail` from the
//! repository has one id, and a gate restarted with the other spelling
//! continues its session (the session is keyed by the bundle's content).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod common;

use std::path::Path;
use std::process::Command;

use common::{json, root};

/// `turnstile <args>` run in `dir`, with `input` on standard input.
fn turnstile_in(dir: &Path, args: &[&str], input: &str) -> (Option<i32>, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_turnstile"));
    command.current_dir(dir).args(args);
    common::run(&mut command, input.as_bytes())
}

fn checked_hash(dir: &Path, bundle: &str) -> String {
    let (code, out, err) = turnstile_in(dir, &["check", bundle, "--format", "json"], "");
    assert_eq!(code, Some(0), "{err}");
    json(&out)["hash"].as_str().unwrap().to_owned()
}

#[test]
fn a_bundle_checked_from_inside_and_from_its_parent_has_one_id() {
    let repo = root();
    let inside = checked_hash(&repo.join("bundles/retail"), ".");
    let outside = checked_hash(&repo, "bundles/retail");
    assert_eq!(inside, outside);
    assert_eq!(inside.len(), 64);
}

#[test]
fn a_gate_restarted_with_the_other_spelling_continues_its_session() {
    let repo = root();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("sessions.db");
    let store = store.to_str().unwrap();
    let user = r#"{"type":"user","text":"Hi, I want to return an item."}"#;
    let agent = r#"{"type":"agent","text":"Sure. What is your email?"}"#;
    let first = turnstile_in(
        &repo,
        &[
            "gate",
            "bundles/retail",
            "--state",
            store,
            "--session",
            "s1",
        ],
        &format!("{user}\n{agent}\n"),
    );
    assert_eq!(first.0, Some(0), "{}", first.2);
    let second = turnstile_in(
        &repo.join("bundles/retail"),
        &["gate", ".", "--state", store, "--session", "s1"],
        &format!("{user}\n"),
    );
    assert_eq!(second.0, Some(0), "{}", second.2);
    let verdict = json(second.1.lines().next().unwrap());
    assert_eq!(verdict["event"], 2, "{verdict}");
    assert_eq!(verdict["verdict"], "observe", "{verdict}");
}
