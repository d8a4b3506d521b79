//! The store round-trips sessions, appends only, refuses a second writer
//! and unknown format versions.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod common;

use std::sync::Arc;

use common::{EVENTS, runtime};

use turnstile_engine::session::{BundleRuntime, Schedule, Session};
use turnstile_engine::trace::Event;
use turnstile_store::{Durability, SessionMeta, Store, StoreError};

fn meta(rt: &BundleRuntime) -> SessionMeta {
    SessionMeta {
        bundle: rt.bundle.name.clone(),
        bundle_hash: rt.bundle.hash.clone(),
        schedule: Schedule::Workflow,
        control: Some(rt.bundle.control),
    }
}

#[test]
fn a_stored_session_restores_to_the_same_session() {
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
        let report = serde_json::to_value(session.push(event, &judge).unwrap()).unwrap();
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
    let expected = session.push(last.clone(), &judge).unwrap();
    let got = restored.push(last, &judge).unwrap();
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
#[test]
fn appending_deltas_stores_the_same_session_as_snapshots() {
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
        let report = serde_json::to_value(session.push(event, &judge).unwrap()).unwrap();
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
        let report = serde_json::to_value(session.push(event, &judge).unwrap()).unwrap();
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
    assert_eq!(handle.verdicts().unwrap(), given, "verdicts alone");
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
                let judge = turnstile_judge::OfflineJudge::new();
                for n in 0..8 {
                    let id = format!("t{t}-{n}");
                    let mut handle = store.claim(&id).unwrap();
                    handle.create(&meta(&rt)).unwrap();
                    let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
                    for line in &EVENTS[..3] {
                        let event: Event = serde_json::from_str(line).unwrap();
                        let mark = session.mark();
                        let report = session.push(event, &judge).unwrap();
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

/// Holds SQLite's write lock on the store file from another connection (as
/// another process would), so the store's writer waits in `BEGIN` and the
/// writes queued meanwhile form its next batch.
fn hold_write_lock(path: &std::path::Path) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    conn
}

/// Waits until `n` writes in all were queued for the store's writer.
fn wait_until_queued(store: &Store, n: u64) {
    let start = std::time::Instant::now();
    while store.stats().writes_queued < n {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "only {} of {n} writes were queued",
            store.stats().writes_queued
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// The first event's commit of a new session: its delta and verdict.
fn first_commit(
    rt: &Arc<BundleRuntime>,
) -> (
    Session,
    turnstile_engine::session::SessionDelta,
    serde_json::Value,
) {
    let judge = turnstile_judge::OfflineJudge::new();
    let mut session = Session::new(Arc::clone(rt), Schedule::Workflow);
    let mark = session.mark();
    let event: Event = serde_json::from_str(EVENTS[0]).unwrap();
    let report = session.push(event, &judge).unwrap();
    let delta = session.delta(mark);
    (session, delta, serde_json::to_value(report).unwrap())
}

/// Group commit: the appends of concurrent sessions queued while the
/// writer is busy are committed together, at most two transactions for
/// eight writes (the first write may have been taken alone), and each
/// writer returns only once its event is stored.
#[test]
fn concurrent_appends_share_a_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let store = Store::open(&path, Durability::Full).unwrap();
    let rt = runtime();
    let (_, delta, verdict) = first_commit(&rt);
    let mut handles: Vec<_> = (0..8)
        .map(|n| {
            let mut handle = store.claim(&format!("g{n}")).unwrap();
            handle.create(&meta(&rt)).unwrap();
            handle
        })
        .collect();
    let before = store.stats();
    let lock = hold_write_lock(&path);
    let writers: Vec<_> = handles
        .drain(..)
        .map(|mut handle| {
            let (delta, verdict) = (delta.clone(), verdict.clone());
            std::thread::spawn(move || {
                handle
                    .append_delta(&delta, std::slice::from_ref(&verdict))
                    .map(|()| handle)
            })
        })
        .collect();
    wait_until_queued(&store, before.writes_queued + 8);
    lock.execute_batch("COMMIT").unwrap();
    for writer in writers {
        let mut handle = writer.join().unwrap().unwrap();
        assert_eq!(handle.stored_events(), 1);
        let stored = handle.load().unwrap().unwrap();
        assert_eq!(stored.verdicts, vec![verdict.clone()]);
    }
    let after = store.stats();
    assert_eq!(after.writes_committed - before.writes_committed, 8);
    let transactions = after.transactions - before.transactions;
    assert!(
        (1..=2).contains(&transactions),
        "8 queued writes took {transactions} transactions"
    );
}

/// A refused write in a batch (creating a session that exists, appending
/// to one whose row is gone) is answered with its own error and stores
/// nothing; the writes batched with it are stored.
#[test]
fn a_refused_write_does_not_fail_its_batch() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let store = Store::open(&path, Durability::Normal).unwrap();
    let rt = runtime();
    let (_, delta, verdict) = first_commit(&rt);
    store.claim("taken").unwrap().create(&meta(&rt)).unwrap();
    let mut good = store.claim("good").unwrap();
    good.create(&meta(&rt)).unwrap();
    // Its handle believes it exists but the row is gone, so its append is
    // refused inside the batch.
    let mut vanished = store.claim("vanished").unwrap();
    vanished.create(&meta(&rt)).unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("DELETE FROM sessions WHERE id = 'vanished'", [])
        .unwrap();
    let before = store.stats();
    let lock = hold_write_lock(&path);
    let (d1, v1) = (delta.clone(), verdict.clone());
    let appended = std::thread::spawn(move || {
        good.append_delta(&d1, std::slice::from_ref(&v1))
            .map(|()| good)
    });
    let (d2, v2) = (delta.clone(), verdict.clone());
    let refused_append = std::thread::spawn(move || {
        vanished
            .append_delta(&d2, std::slice::from_ref(&v2))
            .map(|()| vanished)
    });
    let (store2, rt2) = (store.clone(), Arc::clone(&rt));
    let refused_create =
        std::thread::spawn(move || store2.claim("taken").unwrap().create(&meta(&rt2)));
    let (store3, rt3) = (store.clone(), Arc::clone(&rt));
    let created = std::thread::spawn(move || {
        let mut handle = store3.claim("new").unwrap();
        handle.create(&meta(&rt3)).map(|()| handle)
    });
    wait_until_queued(&store, before.writes_queued + 4);
    lock.execute_batch("COMMIT").unwrap();
    let mut good = appended.join().unwrap().unwrap();
    // Refused by the events' foreign key, inside its own savepoint.
    let refused = refused_append.join().unwrap().unwrap_err();
    assert!(matches!(refused, StoreError::Sqlite { .. }), "{refused}");
    assert!(matches!(
        refused_create.join().unwrap(),
        Err(StoreError::Exists(_))
    ));
    let mut new = created.join().unwrap().unwrap();
    assert_eq!(good.load().unwrap().unwrap().verdicts, vec![verdict]);
    assert!(new.load().unwrap().unwrap().state.events.is_empty());
    let after = store.stats();
    assert_eq!(after.writes_committed - before.writes_committed, 2);
    // Nothing of the refused append was kept: no orphan event rows.
    let orphans: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM events WHERE session = 'vanished'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(orphans, 0);
}

/// In a new store in `dir`: session `id` created and its first event's
/// append started while another connection holds the write lock, then
/// abandoned (a cancelled request), so it stays queued. Returns the store,
/// the session, its handle, the held lock (commit it to let the writer go
/// on) and the verdict appended.
fn cancelled_append(
    dir: &std::path::Path,
    rt: &Arc<BundleRuntime>,
    id: &str,
) -> (
    Store,
    Session,
    turnstile_store::SessionHandle,
    rusqlite::Connection,
    serde_json::Value,
) {
    let path = dir.join("s.db");
    let store = Store::open(&path, Durability::Full).unwrap();
    let (session, delta, verdict) = first_commit(rt);
    let mut handle = store.claim(id).unwrap();
    handle.create(&meta(rt)).unwrap();
    let lock = hold_write_lock(&path);
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let waited = tokio.block_on(async {
        tokio::time::timeout(
            std::time::Duration::from_millis(50),
            handle.append_delta_async(&delta, std::slice::from_ref(&verdict)),
        )
        .await
    });
    assert!(waited.is_err(), "the writer was held: the append must wait");
    (store, session, handle, lock, verdict)
}

/// An async append whose caller stops waiting (a cancelled request) may
/// still commit: the handle's next operation waits for its outcome, so a
/// load sees the event and the next append continues after it.
#[test]
fn a_cancelled_async_append_is_settled_before_the_next_operation() {
    let (dir, rt) = (tempfile::tempdir().unwrap(), runtime());
    let (_store, mut session, mut handle, lock, verdict) =
        cancelled_append(dir.path(), &rt, "cancelled");
    lock.execute_batch("COMMIT").unwrap();
    let tokio = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let stored = handle.load().unwrap().unwrap();
    assert_eq!(stored.verdicts, vec![verdict]);
    assert_eq!(handle.stored_events(), 1);
    let judge = turnstile_judge::OfflineJudge::new();
    let mark = session.mark();
    let event: Event = serde_json::from_str(EVENTS[1]).unwrap();
    let report = session.push(event, &judge).unwrap();
    tokio
        .block_on(handle.append_delta_async(
            &session.delta(mark),
            &[serde_json::to_value(report).unwrap()],
        ))
        .unwrap();
    assert_eq!(handle.load().unwrap().unwrap().state.events.len(), 2);
}

/// Checkpoints run beside the writer (the writer's own automatic
/// checkpoint is off): what is committed reaches the database file while
/// the store stays open, without any connection closing.
#[test]
fn the_checkpointer_copies_the_wal_into_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let store = Store::open(&path, Durability::Normal).unwrap();
    let rt = runtime();
    let (_, delta, verdict) = first_commit(&rt);
    for n in 0..20 {
        let mut handle = store.claim(&format!("c{n}")).unwrap();
        handle.create(&meta(&rt)).unwrap();
        handle
            .append_delta(&delta, std::slice::from_ref(&verdict))
            .unwrap();
    }
    // Five tables and their keys: more than the header page alone.
    let start = std::time::Instant::now();
    while std::fs::metadata(&path).unwrap().len() <= 2 * 4096 {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "nothing was checkpointed into {}",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// A handle dropped while its cancelled append is still queued (an idle
/// session evicted right after a cancelled request) releases the session
/// only once that append is settled: the next holder reads it.
#[test]
fn a_dropped_handle_settles_its_queued_append_before_releasing_the_session() {
    let (dir, rt) = (tempfile::tempdir().unwrap(), runtime());
    let (store, _, handle, lock, verdict) = cancelled_append(dir.path(), &rt, "evicted");
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(500));
        lock.execute_batch("COMMIT").unwrap();
    });
    drop(handle);
    let stored = store.claim("evicted").unwrap().load().unwrap().unwrap();
    assert_eq!(stored.verdicts, vec![verdict]);
    release.join().unwrap();
}
