//! What the store keeps of the questions a judge could not decide (the
//! pharmacy fixture's classification, a model failing on it): appended
//! with the event that asked them, read back with the session, and a
//! restored session deciding the next identical write as the live one
//! does; a format-4 store (before they were kept) is migrated.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod common;

use std::sync::Arc;

use turnstile_engine::session::{
    BundleRuntime, ConsentState, GateVerdict, STATE_VERSION, Schedule, Session,
};
use turnstile_engine::trace::Event;
use turnstile_judge::{JudgeRequest, Judgement, OfflineJudge, Question, SyncJudge};
use turnstile_store::{Durability, STORE_FORMAT, Store};

use common::{event, formats, meta, push_stored};

/// A model that fails on the classification; everything else offline.
struct ClassifyFails;

impl SyncJudge for ClassifyFails {
    fn name(&self) -> &str {
        "classify-fails"
    }

    fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        requests
            .iter()
            .map(|r| match r.question {
                Question::Classify { .. } => Judgement::unknown("the model timed out"),
                _ => OfflineJudge.decide(r),
            })
            .collect()
    }
}

fn runtime() -> Arc<BundleRuntime> {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/fixtures/pharmacy");
    let bundle = turnstile_engine::check_bundle(&dir).unwrap();
    BundleRuntime::new(Arc::new(bundle)).unwrap()
}

/// The pharmacy's `R01-situation-then-yes`: the patient's plain yes to the
/// cancellation of refill RF-77120, the call last.
fn conversation() -> Vec<Event> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../engine/tests/fixtures/pharmacy/tests/requests.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip_while(|line| !line.contains(r#""id": "R01-situation-then-yes""#))
        .skip(1)
        .take_while(|line| !line.contains(r#""type": "trace""#))
        .filter(|line| line.starts_with('{'))
        .map(|line| event(&line.replace(r#", "expect": "allow""#, "")))
        .collect()
}

fn cancel_again() -> Event {
    event(r#"{"type":"call","id":"c5","tool":"cancel_refill","args":{"refill_id":"RF-77120"}}"#)
}

/// A session stored in a fresh store at `path` up to the cancel, which is
/// left to a person.
fn stored_session(path: &std::path::Path, rt: &Arc<BundleRuntime>) -> Session {
    let store = Store::open(path, Durability::Full).unwrap();
    let mut handle = store.claim("s").unwrap();
    handle.create(&meta(rt)).unwrap();
    let mut session = Session::new(Arc::clone(rt), Schedule::Workflow);
    let verdict = push_stored(&mut session, &mut handle, conversation(), &ClassifyFails);
    assert!(
        matches!(
            &verdict,
            GateVerdict::Confirm {
                consent: ConsentState::Given,
                undecided,
                ..
            } if undecided.len() == 1
        ),
        "{verdict:?}"
    );
    session
}

#[test]
fn an_undecided_question_survives_a_restart_of_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let rt = runtime();
    let mut session = stored_session(&path, &rt);
    let store = Store::open(&path, Durability::Full).unwrap();
    let mut handle = store.claim("s").unwrap();
    let stored = handle.load().unwrap().unwrap();
    assert_eq!(stored.state, session.snapshot());
    assert!(stored.state.undecided.iter().any(|a| a.open));
    let mut restored = Session::restore(Arc::clone(&rt), stored.state).unwrap();
    let again = restored.push(cancel_again(), &ClassifyFails).unwrap();
    let live = session.push(cancel_again(), &ClassifyFails).unwrap();
    assert!(again.verdict.is_confirm(), "{:?}", again.verdict);
    assert_eq!(again, live);
}

#[test]
fn a_format_4_store_is_migrated_with_no_undecided_question() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let rt = runtime();
    stored_session(&path, &rt);
    // What a format-4 store wrote: state format 6, no undecided table.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "DROP TABLE undecided;
             UPDATE sessions SET state_format = 6;
             PRAGMA user_version = 4;",
        )
        .unwrap();
    }
    let store = Store::open(&path, Durability::Full).unwrap();
    assert_eq!(formats(&path), (STORE_FORMAT, i64::from(STATE_VERSION)));
    let mut handle = store.claim("s").unwrap();
    let stored = handle.load().unwrap().unwrap();
    assert!(stored.state.undecided.is_empty());
    Session::restore(rt, stored.state).unwrap();
}
