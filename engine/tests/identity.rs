//! A bundle's id is its content: the same files give one id however the
//! directory is spelled or named, a change to what the gate decides from
//! changes it, and the policy text and tests do not. A session saved under
//! an id of the older, path-based form restores under the content id.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod support;

use std::fs;
use std::sync::Arc;

use support::{copy_dir, toy_bundle};
use turnstile_engine::bundle::is_legacy_id;
use turnstile_engine::check_bundle;
use turnstile_engine::session::{BundleRuntime, Schedule, Session, SessionError};
use turnstile_engine::trace::Event;
use turnstile_judge::OfflineJudge;

#[test]
fn one_bundle_has_one_id_under_every_spelling_and_name() {
    let direct = check_bundle(&toy_bundle()).unwrap();
    assert_eq!(direct.hash.len(), 64);
    assert!(!is_legacy_id(&direct.hash));
    let roundabout = toy_bundle().join("../toy-orders/./");
    assert_eq!(check_bundle(&roundabout).unwrap().hash, direct.hash);
    let by_manifest = toy_bundle().join("bundle.yaml");
    assert_eq!(check_bundle(&by_manifest).unwrap().hash, direct.hash);
    let dir = tempfile::tempdir().unwrap();
    let renamed = dir.path().join("another-name");
    copy_dir(&toy_bundle(), &renamed);
    assert_eq!(check_bundle(&renamed).unwrap().hash, direct.hash);
}

#[test]
fn the_id_follows_what_the_gate_reads_not_the_policy_text_or_tests() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("toy-orders");
    copy_dir(&toy_bundle(), &root);
    let base = check_bundle(&root).unwrap().hash;
    fs::write(root.join("policy.md"), "another policy text\n".repeat(40)).unwrap();
    fs::create_dir_all(root.join("tests")).unwrap();
    fs::write(root.join("tests/case.jsonl"), "{}\n").unwrap();
    fs::write(root.join("NOTES.md"), "notes\n").unwrap();
    assert_eq!(check_bundle(&root).unwrap().hash, base);
    let domain = fs::read_to_string(root.join("domain.yaml")).unwrap();
    fs::write(root.join("domain.yaml"), format!("{domain}\n# a comment\n")).unwrap();
    assert_ne!(check_bundle(&root).unwrap().hash, base);
}

#[test]
fn a_session_saved_under_an_older_id_of_the_bundle_restores() {
    let bundle = check_bundle(&toy_bundle()).unwrap();
    assert!(!bundle.legacy_hashes.is_empty());
    assert!(bundle.legacy_hashes.iter().all(|h| is_legacy_id(h)));
    let legacy = bundle.legacy_hashes[0].clone();
    let rt = BundleRuntime::new(Arc::new(bundle)).unwrap();
    let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
    session
        .push(
            Event::User {
                text: "Please cancel order #O1.".into(),
            },
            &OfflineJudge::new(),
        )
        .unwrap();
    let mut state = session.snapshot();
    state.bundle = legacy;
    let restored = Session::restore(Arc::clone(&rt), state).unwrap();
    assert_eq!(restored.events().len(), 1);
    // Saved again, it carries the content id.
    assert_eq!(restored.snapshot().bundle, rt.bundle.hash);
    let mut state = session.snapshot();
    state.bundle = "0123456789abcdef".to_owned();
    let err = Session::restore(rt, state).unwrap_err();
    assert!(matches!(err, SessionError::BundleMismatch { .. }), "{err}");
    assert!(err.to_string().contains("start a new session"), "{err}");
}
