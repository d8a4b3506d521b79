//! What the store keeps of a model judge's consent answers: appended with
//! the event they decided, read back with the session, and a restored
//! session deciding the write as the judge did (it holds no call for the
//! host's approval); a format-3 store (before the answers were kept) is
//! migrated with none.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod common;

use std::sync::Arc;

use serde_json::json;
use turnstile_engine::bundle::model::Side;
use turnstile_engine::session::{GateVerdict, JudgedConsent, STATE_VERSION, Schedule, Session};
use turnstile_engine::trace::{Approver, Event};
use turnstile_judge::{JudgeRequest, Judgement, OfflineJudge, Question, Role, SyncJudge, Verdict};
use turnstile_rules::EventIdx;
use turnstile_store::{Durability, STORE_FORMAT, Store};

use common::{EVENTS, event, formats, meta, push_stored, runtime};

/// A judge that decides consent as a model would (here: yes, citing the
/// slice's last user turn); everything else offline.
struct AgreeingModel;

impl SyncJudge for AgreeingModel {
    fn name(&self) -> &str {
        "agreeing-model"
    }

    fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        requests
            .iter()
            .map(|r| match r.question {
                Question::Consent { .. } => {
                    let last_user = r.conversation.iter().rev().find(|t| t.role == Role::User);
                    match last_user {
                        Some(turn) => Judgement::new(
                            Verdict::Satisfied {
                                evidence_event: turn.event_index,
                            },
                            "agreed",
                        ),
                        None => Judgement::unknown("no user turn"),
                    }
                }
                _ => OfflineJudge.decide(r),
            })
            .collect()
    }

    fn decides_consent(&self) -> bool {
        true
    }
}

/// The shop's cancellation of `#O1`, the user's reply (event 9) one the
/// reader cannot decide; the cancel is event 10.
fn conversation() -> Vec<Event> {
    let mut events: Vec<Event> = EVENTS.iter().map(|line| event(line)).collect();
    events[9] = event(r#"{"type":"user","text":"Hmm, how long does a refund take?"}"#);
    events
}

fn approval_of_c4() -> Event {
    Event::Approval {
        call: "c4".into(),
        granted: true,
        by: Approver::User,
    }
}

#[test]
fn a_consent_answer_survives_a_restart_of_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let rt = runtime();
    let session = {
        let store = Store::open(&path, Durability::Full).unwrap();
        let mut handle = store.claim("s").unwrap();
        handle.create(&meta(&rt)).unwrap();
        let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
        let verdict = push_stored(&mut session, &mut handle, conversation(), &AgreeingModel);
        assert!(
            matches!(&verdict, GateVerdict::Allow { consent_by_judge: Some(c), .. } if c.evidence == EventIdx(9)),
            "{verdict:?}"
        );
        session
    };
    let store = Store::open(&path, Durability::Full).unwrap();
    let mut handle = store.claim("s").unwrap();
    let stored = handle.load().unwrap().unwrap();
    assert_eq!(stored.state, session.snapshot());
    assert_eq!(
        stored.state.consents[0].answer,
        JudgedConsent::Agreed {
            evidence: EventIdx(9)
        }
    );
    // Restored, the session decided the write as the judge did: it holds
    // no call for the host, so an approval of it is an anomaly (asked of
    // the offline judge, which is never asked about consent).
    let mut restored = Session::restore(Arc::clone(&rt), stored.state).unwrap();
    let report = restored.push(approval_of_c4(), &OfflineJudge).unwrap();
    assert!(!report.anomalies.is_empty(), "{report:?}");
}

#[test]
fn a_format_3_store_is_migrated_with_no_consent_answer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let rt = runtime();
    let session = {
        let store = Store::open(&path, Durability::Full).unwrap();
        let mut handle = store.claim("old").unwrap();
        handle.create(&meta(&rt)).unwrap();
        let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
        let verdict = push_stored(&mut session, &mut handle, conversation(), &OfflineJudge);
        assert!(verdict.is_confirm(), "{verdict:?}");
        session
    };
    // What a format-3 store wrote: no consents table, state format 5.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "DROP TABLE consents;
             UPDATE sessions SET state_format = 5;
             PRAGMA user_version = 3;",
        )
        .unwrap();
    }
    let store = Store::open(&path, Durability::Full).unwrap();
    assert_eq!(formats(&path), (STORE_FORMAT, i64::from(STATE_VERSION)));
    let mut handle = store.claim("old").unwrap();
    let stored = handle.load().unwrap().unwrap();
    assert!(stored.state.consents.is_empty());
    assert_eq!(stored.state, session.snapshot());
    // The held call is still held: the approval opens the resubmitted call.
    let mut restored = Session::restore(Arc::clone(&rt), stored.state).unwrap();
    let cancel = Event::Call {
        id: "c5".into(),
        tool: "cancel_pending_order".into(),
        args: json!({"order_id": "#O1", "reason": "no longer needed"}),
        requestor: Side::Agent,
    };
    let verdict = push_stored(
        &mut restored,
        &mut handle,
        vec![approval_of_c4(), cancel],
        &AgreeingModel,
    );
    assert!(
        matches!(
            &verdict,
            GateVerdict::Allow {
                approved: Some(_),
                ..
            }
        ),
        "{verdict:?}"
    );
}
