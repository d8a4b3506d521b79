//! `DurableSession`: a session claimed in the store, each event decided and
//! committed before it is answered (the same reports and bytes as a plain
//! session's), its row written with its first event or at creation, a
//! stored session restored, a new one refused where one exists, and a
//! commit given up midway reloaded from the store before the next event.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{EVENTS, event, runtime};

use turnstile_engine::session::{Schedule, Session};
use turnstile_judge::{Immediate, OfflineJudge};
use turnstile_store::{Durability, DurableError, DurableSession, SessionMeta, Store, StoreError};

fn store(dir: &tempfile::TempDir) -> Store {
    Store::open(&dir.path().join("s.db"), Durability::Normal).unwrap()
}

/// The reports of a plain session over `EVENTS`, as JSON.
fn plain_reports() -> Vec<String> {
    let mut session = Session::new(runtime(), Schedule::Workflow);
    EVENTS
        .iter()
        .map(|line| {
            serde_json::to_string(&session.push(event(line), &OfflineJudge).unwrap()).unwrap()
        })
        .collect()
}

#[test]
fn a_durable_session_commits_each_event_and_restores_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(&dir);
    let rt = runtime();
    let claimed = DurableSession::claim(&store, "s").unwrap();
    assert!(claimed.stored().is_none());
    let mut durable = claimed
        .start(Arc::clone(&rt), "shop".to_owned(), Schedule::Workflow, None)
        .unwrap();
    assert!(
        !durable.is_stored(),
        "the row is written with the first event"
    );
    // One writer per session.
    assert!(matches!(
        DurableSession::claim(&store, "s"),
        Err(StoreError::Locked { .. })
    ));
    let expected = plain_reports();
    let mut answered = Vec::new();
    for line in EVENTS {
        let committed = durable.push(event(line), &OfflineJudge).unwrap();
        assert!(durable.is_stored());
        assert_eq!(
            committed.json,
            serde_json::to_string(&committed.report).unwrap()
        );
        answered.push(committed.json);
    }
    assert_eq!(answered, expected, "the same verdicts, byte for byte");
    let stored: Vec<serde_json::Value> = answered
        .iter()
        .map(|j| serde_json::from_str(j).unwrap())
        .collect();
    assert_eq!(durable.verdicts().unwrap(), stored);
    let snapshot = durable.session().snapshot();
    drop(durable);

    let claimed = DurableSession::claim(&store, "s").unwrap();
    let meta = claimed.stored().unwrap().clone();
    assert_eq!(
        meta,
        SessionMeta {
            bundle: "shop".to_owned(),
            bundle_hash: rt.bundle.hash.clone(),
            schedule: Schedule::Workflow,
            control: Some(rt.bundle.control),
        }
    );
    let restored = claimed.restore(Arc::clone(&rt)).unwrap();
    assert!(restored.is_stored());
    assert_eq!(restored.session().snapshot(), snapshot);
    drop(restored);

    // A new session is refused where one is stored, and a stored one is
    // restored only where there is one.
    let exists = DurableSession::claim(&store, "s")
        .unwrap()
        .start(Arc::clone(&rt), "shop".to_owned(), Schedule::Workflow, None)
        .unwrap_err();
    assert!(
        matches!(exists, DurableError::Store(StoreError::Exists(ref id)) if id == "s"),
        "{exists}"
    );
    let missing = DurableSession::claim(&store, "nobody")
        .unwrap()
        .restore(rt)
        .unwrap_err();
    assert!(
        matches!(missing, DurableError::Store(StoreError::Missing(_))),
        "{missing}"
    );
}

/// An async server creates the row at once and commits each event without
/// blocking a thread: the same bytes as the synchronous path.
#[tokio::test]
async fn an_async_session_commits_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(&dir);
    let rt = runtime();
    let meta = SessionMeta {
        bundle: "shop".to_owned(),
        bundle_hash: rt.bundle.hash.clone(),
        schedule: Schedule::Workflow,
        control: None,
    };
    let mut durable = DurableSession::create_async(&store, "a", Arc::clone(&rt), meta)
        .await
        .unwrap();
    assert!(durable.is_stored(), "created at once");
    let judge = Immediate(OfflineJudge);
    let mut answered = Vec::new();
    for line in EVENTS {
        answered.push(durable.push_async(event(line), &judge).await.unwrap().json);
    }
    assert_eq!(answered, plain_reports());
    drop(durable);
    let restored = DurableSession::claim(&store, "a")
        .unwrap()
        .restore(rt)
        .unwrap();
    assert_eq!(restored.session().events().len(), EVENTS.len());
}

/// A commit whose caller stops waiting (a request cut off by its timeout)
/// leaves the session stale: before its next event it is reloaded from the
/// store, which holds the cut-off event once its commit went through, so
/// the next event takes the next index and the session equals one that
/// was never interrupted.
#[test]
fn a_commit_given_up_midway_is_reloaded_before_the_next_event() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let store = Store::open(&path, Durability::Full).unwrap();
    let rt = runtime();
    let mut durable = DurableSession::claim(&store, "c")
        .unwrap()
        .start(Arc::clone(&rt), "shop".to_owned(), Schedule::Workflow, None)
        .unwrap();
    for line in &EVENTS[..3] {
        durable.push(event(line), &OfflineJudge).unwrap();
    }
    // Another connection holds the write lock: the commit waits, and the
    // caller gives up.
    let lock = rusqlite::Connection::open(&path).unwrap();
    lock.execute_batch("BEGIN IMMEDIATE").unwrap();
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let judge = Immediate(OfflineJudge);
    let waited = tokio.block_on(async {
        tokio::time::timeout(
            Duration::from_millis(50),
            durable.push_async(event(EVENTS[3]), &judge),
        )
        .await
    });
    assert!(waited.is_err(), "the commit was held: the push must wait");
    lock.execute_batch("COMMIT").unwrap();
    let next = durable.push(event(EVENTS[4]), &OfflineJudge).unwrap();
    assert_eq!(next.report.event.0, 4, "the cut-off event was committed");
    let mut plain = Session::new(rt, Schedule::Workflow);
    for line in &EVENTS[..5] {
        plain.push(event(line), &OfflineJudge).unwrap();
    }
    assert_eq!(durable.session().snapshot(), plain.snapshot());
    assert_eq!(durable.verdicts().unwrap().len(), 5);
}

/// A call answered `confirm`, the host's approval, then the store closed
/// and opened again: the restored session still holds the approval, and
/// the identical call it names is allowed once, on it.
#[test]
fn an_approval_is_replayed_after_a_store_restart() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    // The conversation up to the summary, no reply, then the cancel.
    let held: Vec<&str> = EVENTS
        .iter()
        .copied()
        .filter(|line| !line.contains("Yes, please"))
        .collect();
    {
        let store = store(&dir);
        let mut durable = DurableSession::claim(&store, "s")
            .unwrap()
            .start(Arc::clone(&rt), "shop".to_owned(), Schedule::Workflow, None)
            .unwrap();
        let mut last = None;
        for line in &held {
            last = Some(durable.push(event(line), &OfflineJudge).unwrap());
        }
        let confirm = last.unwrap();
        assert_eq!(
            confirm.report.verdict.label(),
            "confirm",
            "{}",
            confirm.json
        );
        let approval = durable
            .push(
                event(r#"{"type":"approval","call":"c4","granted":true,"by":"user"}"#),
                &OfflineJudge,
            )
            .unwrap();
        assert!(approval.report.anomalies.is_empty(), "{}", approval.json);
    }
    let store = store(&dir);
    let mut restored = DurableSession::claim(&store, "s")
        .unwrap()
        .restore(Arc::clone(&rt))
        .unwrap();
    let retry = restored
        .push(
            event(r##"{"type":"call","id":"c5","tool":"cancel_pending_order","args":{"order_id":"#O1","reason":"no longer needed"}}"##),
            &OfflineJudge,
        )
        .unwrap();
    assert_eq!(retry.report.verdict.label(), "allow", "{}", retry.json);
    assert!(
        retry
            .json
            .contains(r#""approved":{"by":"user","call":"c4"}"#),
        "{}",
        retry.json
    );
}
