//! The store round-trips sessions, appends only, refuses a second writer
//! and unknown format versions.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::sync::Arc;

use turnstile_engine::session::{BundleRuntime, Schedule, Session};
use turnstile_engine::trace::Event;
use turnstile_store::{Durability, SessionMeta, Store, StoreError};

fn runtime() -> Arc<BundleRuntime> {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/fixtures/shop");
    let bundle = turnstile_engine::check_bundle(&dir).unwrap();
    BundleRuntime::new(Arc::new(bundle)).unwrap()
}

const EVENTS: &[&str] = &[
    r##"{"type":"user","text":"Hi! I'd like to cancel an order. My email is u1@example.com."}"##,
    r##"{"type":"agent","text":"Sure, let me look you up."}"##,
    r##"{"type":"call","id":"c1","tool":"find_user_id_by_email","args":{"email":"u1@example.com"}}"##,
    r##"{"type":"result","id":"c1","ok":true,"content":"u1"}"##,
    r##"{"type":"call","id":"c2","tool":"get_user_details","args":{"user_id":"u1"}}"##,
    r##"{"type":"result","id":"c2","ok":true,"content":{"user_id":"u1","orders":["#O1"],"payment_methods":{},"bills":[]}}"##,
    r##"{"type":"call","id":"c3","tool":"get_order_details","args":{"order_id":"#O1"}}"##,
    r##"{"type":"result","id":"c3","ok":true,"content":{"order_id":"#O1","user_id":"u1","status":"pending","total":10,"items":[]}}"##,
    r##"{"type":"agent","text":"Order #O1: cancel it with reason 'no longer needed'? Please confirm (yes)."}"##,
    r##"{"type":"user","text":"Yes, please go ahead."}"##,
    r##"{"type":"call","id":"c4","tool":"cancel_pending_order","args":{"order_id":"#O1","reason":"no longer needed"}}"##,
];

fn meta(rt: &BundleRuntime) -> SessionMeta {
    SessionMeta {
        bundle: rt.bundle.name.clone(),
        bundle_hash: rt.bundle.hash.clone(),
        schedule: Schedule::Workflow,
        control: Some(rt.bundle.control),
    }
}

#[tokio::test]
async fn a_stored_session_restores_to_the_same_session() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db"), Durability::Full).unwrap();
    let rt = runtime();
    let judge = turnstile_judge::OfflineJudge::new();
    let mut handle = store.claim("one").unwrap();
    handle.create(&meta(&rt)).unwrap();
    let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
    let mut given = Vec::new();
    for line in &EVENTS[..EVENTS.len() - 1] {
        let event: Event = serde_json::from_str(line).unwrap();
        let report = serde_json::to_value(session.push(event, &judge).await.unwrap()).unwrap();
        handle
            .append(&session.snapshot(), std::slice::from_ref(&report))
            .unwrap();
        given.push(report);
    }
    drop(handle);
    let mut handle = store.claim("one").unwrap();
    let stored = handle.load().unwrap().unwrap();
    assert_eq!(stored.verdicts, given);
    assert_eq!(stored.meta, meta(&rt));
    assert_eq!(stored.state, session.snapshot());
    let mut restored = Session::restore(Arc::clone(&rt), stored.state).unwrap();
    let last: Event = serde_json::from_str(EVENTS[EVENTS.len() - 1]).unwrap();
    let expected = session.push(last.clone(), &judge).await.unwrap();
    let got = restored.push(last, &judge).await.unwrap();
    assert_eq!(got, expected);
    assert_eq!(got.verdict.label(), "allow");
}

#[test]
fn a_second_writer_of_a_session_is_refused_and_others_proceed() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db"), Durability::Normal).unwrap();
    let first = store.claim("a").unwrap();
    let again = Store::open(&dir.path().join("s.db"), Durability::Normal).unwrap();
    let err = again.claim("a").unwrap_err();
    assert!(matches!(err, StoreError::Locked { .. }), "{err}");
    assert!(
        err.to_string().contains("in use by another writer"),
        "{err}"
    );
    let other = again.claim("b").unwrap();
    drop(first);
    let _retaken = again.claim("a").unwrap();
    drop(other);
}

#[test]
fn creating_an_existing_session_and_appending_to_a_missing_one_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db"), Durability::Full).unwrap();
    let rt = runtime();
    let mut handle = store.claim("x").unwrap();
    let session = Session::new(Arc::clone(&rt), Schedule::Workflow);
    assert!(matches!(
        handle.append(&session.snapshot(), &[]),
        Err(StoreError::Missing(_))
    ));
    handle.create(&meta(&rt)).unwrap();
    assert!(matches!(
        handle.create(&meta(&rt)),
        Err(StoreError::Exists(_))
    ));
    assert!(matches!(store.claim(""), Err(StoreError::InvalidId(_))));
    assert!(matches!(store.claim("a\nb"), Err(StoreError::InvalidId(_))));
    // Ids are free text: they name lock files only hex-encoded.
    store.claim("../../etc/passwd#1").unwrap();
}

#[test]
fn unknown_format_versions_are_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let rt = runtime();
    {
        let store = Store::open(&path, Durability::Full).unwrap();
        let mut handle = store.claim("old").unwrap();
        handle.create(&meta(&rt)).unwrap();
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE sessions SET state_format = 99", [])
        .unwrap();
    let store = Store::open(&path, Durability::Full).unwrap();
    let err = store.claim("old").unwrap().load().unwrap_err();
    assert!(err.to_string().contains("state format 99"), "{err}");
    conn.execute_batch("PRAGMA user_version = 7").unwrap();
    let err = Store::open(&path, Durability::Full).unwrap_err();
    assert!(err.to_string().contains("format version 7"), "{err}");
    // A file that is not a store at all.
    let json = dir.path().join("state.json");
    std::fs::write(&json, "{\"version\":1}").unwrap();
    let err = Store::open(&json, Durability::Full).unwrap_err();
    assert!(err.to_string().contains("state.json"), "{err}");
}

/// The hot path's commit: each event appends only what the session added
/// since the last commit (`Session::delta`), across a restore in the
/// middle, and the store then holds exactly the session's state.
#[tokio::test]
async fn appending_deltas_stores_the_same_session_as_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db"), Durability::Normal).unwrap();
    let rt = runtime();
    let judge = turnstile_judge::OfflineJudge::new();
    let mut handle = store.claim("delta").unwrap();
    handle.create(&meta(&rt)).unwrap();
    let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
    let mut synced = session.mark();
    let mut given = Vec::new();
    let half = EVENTS.len() / 2;
    for line in &EVENTS[..half] {
        let event: Event = serde_json::from_str(line).unwrap();
        let report = serde_json::to_value(session.push(event, &judge).await.unwrap()).unwrap();
        let delta = session.delta(synced);
        assert_eq!(delta.events.len(), 1, "one event per commit");
        handle
            .append_delta(&delta, std::slice::from_ref(&report))
            .unwrap();
        synced = session.mark();
        given.push(report);
    }
    // A restart: the session comes back from the store and goes on.
    drop(handle);
    let mut handle = store.claim("delta").unwrap();
    let stored = handle.load().unwrap().unwrap();
    assert_eq!(stored.state, session.snapshot());
    let mut session = Session::restore(Arc::clone(&rt), stored.state).unwrap();
    let mut synced = session.mark();
    for line in &EVENTS[half..] {
        let event: Event = serde_json::from_str(line).unwrap();
        let report = serde_json::to_value(session.push(event, &judge).await.unwrap()).unwrap();
        handle
            .append_delta(&session.delta(synced), std::slice::from_ref(&report))
            .unwrap();
        synced = session.mark();
        given.push(report);
    }
    drop(handle);
    let mut handle = store.claim("delta").unwrap();
    let stored = handle.load().unwrap().unwrap();
    assert_eq!(stored.verdicts, given);
    // The store lists accepted verdicts in the order they were accepted, a
    // snapshot by evidence event: the same set (a restore orders them).
    let by_evidence = |mut state: turnstile_engine::SessionState| {
        state
            .judged
            .sort_by_key(|j| (j.evidence, j.step, j.request));
        state
    };
    assert_eq!(
        by_evidence(stored.state.clone()),
        by_evidence(session.snapshot())
    );
    assert!(
        !stored.state.judged.is_empty(),
        "the confirmation was stored"
    );
    // A delta that does not start where the store stands is refused.
    let stale = session.delta(turnstile_engine::session::DeltaMark::default());
    let err = handle
        .append_delta(&stale, &vec![serde_json::Value::Null; stale.events.len()])
        .unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
}

/// Many sessions created and written at once from one process (what
/// `serve` does under load) all succeed: writers queue in the process
/// instead of failing with "database is locked".
#[test]
fn concurrent_creates_and_appends_all_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db"), Durability::Full).unwrap();
    let rt = runtime();
    let threads: Vec<_> = (0..16)
        .map(|t| {
            let store = store.clone();
            let rt = Arc::clone(&rt);
            std::thread::spawn(move || {
                let tokio = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap();
                let judge = turnstile_judge::OfflineJudge::new();
                for n in 0..8 {
                    let id = format!("t{t}-{n}");
                    let mut handle = store.claim(&id).unwrap();
                    handle.create(&meta(&rt)).unwrap();
                    let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
                    for line in &EVENTS[..3] {
                        let event: Event = serde_json::from_str(line).unwrap();
                        let mark = session.mark();
                        let report = tokio.block_on(session.push(event, &judge)).unwrap();
                        let report = serde_json::to_value(report).unwrap();
                        handle
                            .append_delta(&session.delta(mark), std::slice::from_ref(&report))
                            .unwrap();
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let mut handle = store.claim("t15-7").unwrap();
    assert_eq!(handle.load().unwrap().unwrap().state.events.len(), 3);
}

/// A session created but never appended to (a server restarted between
/// `POST /v1/sessions` and its first event) loads as an empty session.
#[test]
fn a_created_session_without_events_loads_and_restores() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db"), Durability::Full).unwrap();
    let rt = runtime();
    store.claim("empty").unwrap().create(&meta(&rt)).unwrap();
    let stored = store.claim("empty").unwrap().load().unwrap().unwrap();
    assert!(stored.state.events.is_empty());
    assert_eq!(stored.meta, meta(&rt));
    let restored = Session::restore(Arc::clone(&rt), stored.state).unwrap();
    assert_eq!(
        restored.snapshot(),
        Session::new(Arc::clone(&rt), Schedule::Workflow).snapshot()
    );
}
