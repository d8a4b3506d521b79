//! What the store keeps of a session's clock and of its bundle's id: the
//! time each event was decided at (restored with the session), a format-2
//! store migrated with no times, and a session stored under its bundle's
//! older path-based id adopted under the content id at its next append.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::Path;
use std::sync::Arc;

use turnstile_engine::import::import_file;
use turnstile_engine::session::{BundleRuntime, GateVerdict, Schedule, Session};
use turnstile_engine::trace::Event;
use turnstile_judge::OfflineJudge;
use turnstile_rules::{DateTime, Reason};
use turnstile_store::{Durability, STORE_FORMAT, SessionMeta, Store};

mod common;

use common::push_stored;

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../engine/tests/fixtures")
        .join(name)
}

fn runtime(name: &str) -> Arc<BundleRuntime> {
    let bundle = turnstile_engine::check_bundle(&fixture(name)).unwrap();
    BundleRuntime::new(Arc::new(bundle)).unwrap()
}

fn meta(rt: &BundleRuntime, hash: &str) -> SessionMeta {
    SessionMeta {
        bundle: rt.bundle.name.clone(),
        bundle_hash: hash.to_owned(),
        schedule: Schedule::Workflow,
        control: Some(rt.bundle.control),
    }
}

fn at(text: &str) -> DateTime {
    DateTime::parse(text).unwrap()
}

/// The bank-card conversation whose last call disputes a transaction of
/// 2026-07-19: within 60 days on 2026-08-20, not on 2026-10-02.
fn dispute() -> Vec<Event> {
    let imported = import_file(&fixture("bank-card/tests/conversations.jsonl"), None).unwrap();
    imported
        .traces
        .into_iter()
        .find(|t| t.meta.id == "dispute-too-old")
        .unwrap()
        .events
}

/// A conversation's first two messages, for a bundle with no clock.
fn opening() -> Vec<Event> {
    [
        r#"{"type":"user","text":"Hi, cancel an order please."}"#,
        r#"{"type":"agent","text":"Sure, your email?"}"#,
    ]
    .iter()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect()
}

#[test]
fn the_time_each_event_was_decided_at_is_stored_and_restored() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let store = Store::open(&path, Durability::Full).unwrap();
    let rt = runtime("bank-card");
    let events = dispute();
    let (before, write) = events.split_at(events.len() - 1);
    let mut handle = store.claim("card").unwrap();
    handle.create(&meta(&rt, &rt.bundle.hash)).unwrap();
    let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
    session.set_clock_now(Some(at("2026-08-20T12:00:00")));
    push_stored(
        &mut session,
        &mut handle,
        before.to_vec(),
        &OfflineJudge::new(),
    );
    drop(handle);

    let conn = rusqlite::Connection::open(&path).unwrap();
    let times: Vec<Option<String>> = conn
        .prepare("SELECT decided_at FROM events ORDER BY seq")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(times.len(), before.len());
    assert!(
        times
            .iter()
            .all(|t| t.as_deref() == Some("2026-08-20T12:00:00")),
        "{times:?}"
    );

    let mut handle = store.claim("card").unwrap();
    let stored = handle.load().unwrap().unwrap();
    assert_eq!(stored.state, session.snapshot());
    let mut restored = Session::restore(Arc::clone(&rt), stored.state).unwrap();
    assert_eq!(restored.decided_times(), session.decided_times());
    // Six weeks later the write is out of the window.
    restored.set_clock_now(Some(at("2026-10-02T12:00:00")));
    let verdict = push_stored(
        &mut restored,
        &mut handle,
        write.to_vec(),
        &OfflineJudge::new(),
    );
    assert!(
        matches!(
            verdict,
            GateVerdict::Block {
                reason: Reason::OutOfWindow,
                ..
            }
        ),
        "{verdict:?}"
    );
}

#[test]
fn a_format_2_store_is_migrated_and_its_sessions_have_no_times() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let rt = runtime("shop");
    let events = opening();
    let session = {
        let store = Store::open(&path, Durability::Full).unwrap();
        let mut handle = store.claim("old").unwrap();
        handle.create(&meta(&rt, &rt.bundle.hash)).unwrap();
        let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
        push_stored(
            &mut session,
            &mut handle,
            events[..1].to_vec(),
            &OfflineJudge::new(),
        );
        session
    };
    // What a format-2 store wrote: no `decided_at`, sessions in state format 4.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "ALTER TABLE events DROP COLUMN decided_at;
             UPDATE sessions SET state_format = 4;
             PRAGMA user_version = 2;",
        )
        .unwrap();
    }
    let store = Store::open(&path, Durability::Full).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, STORE_FORMAT);
    let mut handle = store.claim("old").unwrap();
    let stored = handle.load().unwrap().unwrap();
    assert_eq!(stored.state, session.snapshot());
    let mut restored = Session::restore(Arc::clone(&rt), stored.state).unwrap();
    assert_eq!(restored.decided_times(), [None]);
    push_stored(
        &mut restored,
        &mut handle,
        events[1..].to_vec(),
        &OfflineJudge::new(),
    );
    drop(handle);
    let stored = store.claim("old").unwrap().load().unwrap().unwrap();
    assert_eq!(stored.state.events.len(), 2);
}

#[test]
fn a_session_under_the_bundles_older_id_is_adopted_at_its_next_append() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db"), Durability::Full).unwrap();
    let rt = runtime("shop");
    let legacy = rt.bundle.legacy_hashes.first().unwrap().clone();
    assert_ne!(legacy, rt.bundle.hash);
    let events = opening();
    {
        let mut handle = store.claim("legacy").unwrap();
        handle.create(&meta(&rt, &legacy)).unwrap();
        let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
        push_stored(
            &mut session,
            &mut handle,
            events[..1].to_vec(),
            &OfflineJudge::new(),
        );
    }
    let mut handle = store.claim("legacy").unwrap();
    let stored = handle.load().unwrap().unwrap();
    assert_eq!(stored.meta.bundle_hash, legacy);
    assert_eq!(stored.state.bundle, legacy);
    // The session restores as the same bundle's, and its row takes the
    // content id with the next append.
    let mut session = Session::restore(Arc::clone(&rt), stored.state).unwrap();
    handle.adopt_bundle_hash(&rt.bundle.hash);
    push_stored(
        &mut session,
        &mut handle,
        events[1..].to_vec(),
        &OfflineJudge::new(),
    );
    drop(handle);
    let stored = store.claim("legacy").unwrap().load().unwrap().unwrap();
    assert_eq!(stored.meta.bundle_hash, rt.bundle.hash);
    assert_eq!(stored.state.events.len(), 2);
    // Another bundle's id is refused, not adopted.
    let mut state = stored.state;
    state.bundle = "0123456789abcdef".to_owned();
    assert!(Session::restore(Arc::clone(&rt), state).is_err());
}
