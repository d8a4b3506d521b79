//! A question only meaning decides that the judge answers neither yes nor
//! no is left to a person where a person's approval settles it: on the
//! `pharmacy` fixture, a classification the judge could not decide (a
//! model that failed on it; the rest answered offline) before a
//! cancellation the patient plainly agreed to gives `confirm` with the
//! consent `given` and the classification listed as undecided; the host's
//! approval then allows the call. A refusal, a formal failure and a host's
//! decline still block; the Datalog explainer and a session restored from
//! the saved state decide the same. A criterion an approval does not
//! settle (the `bank-card` freeze's reason) stays unmet when the judge
//! fails on it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::{Path, PathBuf};
use std::sync::Arc;

use turnstile_engine::session::{
    BundleRuntime, ConsentState, EventReport, Explainer, GateVerdict, Schedule, Session,
    SessionState, Undecided,
};
use turnstile_engine::trace::{Approver, Event};
use turnstile_judge::{JudgeRequest, Judgement, OfflineJudge, Question, SyncJudge};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn runtime(name: &str) -> Arc<BundleRuntime> {
    let bundle = turnstile_engine::check_bundle(&fixture(name)).unwrap_or_else(|p| panic!("{p}"));
    BundleRuntime::new(Arc::new(bundle)).unwrap()
}

/// The events of conversation `id` of the fixture's test file `file`,
/// without their expectations.
fn conversation(name: &str, file: &str, id: &str) -> Vec<Event> {
    let text = std::fs::read_to_string(fixture(name).join("tests").join(file)).unwrap();
    let records: Vec<serde_json::Value> = text
        .lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let is_trace = |record: &serde_json::Value| record["type"] == "trace";
    let events: Vec<Event> = records
        .into_iter()
        .skip_while(|record| !(is_trace(record) && record["id"] == id))
        .skip(1)
        .take_while(|record| !is_trace(record))
        .map(|mut event| {
            event.as_object_mut().unwrap().remove("expect");
            serde_json::from_value(event).unwrap()
        })
        .collect();
    assert!(!events.is_empty(), "no conversation {id} in {name}/{file}");
    events
}

/// A judge that fails (as a model timing out) on the questions `fails`
/// picks and answers the rest offline.
struct FailsOn(fn(&Question) -> bool);

impl SyncJudge for FailsOn {
    fn name(&self) -> &str {
        "fails-on"
    }

    fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        requests
            .iter()
            .map(|r| {
                if (self.0)(&r.question) {
                    Judgement::unknown("the model timed out")
                } else {
                    OfflineJudge.decide(r)
                }
            })
            .collect()
    }
}

/// A model that cannot classify.
const CLASSIFY_FAILS: FailsOn = FailsOn(|q| matches!(q, Question::Classify { .. }));

/// A model that fails on every criterion (reasons, consent steps).
const CRITERIA_FAIL: FailsOn = FailsOn(|q| matches!(q, Question::Criterion { .. }));

fn run(session: &mut Session, events: Vec<Event>, judge: &dyn SyncJudge) -> EventReport {
    let mut last = None;
    for event in events {
        last = Some(session.push(event, judge).unwrap());
    }
    last.unwrap()
}

/// The pharmacy's cancellation of RF-77120 after "Shall I go ahead?"
/// (`R01-situation-then-yes`), with the patient's reply `reply` and the
/// refill read in `status`.
fn cancellation(reply: &str, status: &str) -> Vec<Event> {
    let mut events = conversation("pharmacy", "requests.jsonl", "R01-situation-then-yes");
    for event in &mut events {
        match event {
            Event::User { text } if text == "Yes please, go ahead." => *text = reply.to_owned(),
            Event::Result { content, .. } if content.get("refill_id").is_some() => {
                content["status"] = serde_json::json!(status);
            }
            _ => {}
        }
    }
    events
}

fn cancel_again(id: &str) -> Event {
    Event::Call {
        id: id.into(),
        tool: "cancel_refill".into(),
        args: serde_json::json!({"refill_id": "RF-77120"}),
        requestor: turnstile_engine::bundle::model::Side::Agent,
    }
}

fn decided(events: Vec<Event>, judge: &dyn SyncJudge, explainer: Explainer) -> EventReport {
    let mut session = Session::new(runtime("pharmacy"), Schedule::Workflow);
    session.set_explainer(explainer);
    run(&mut session, events, judge)
}

fn classification() -> Vec<Undecided> {
    vec![Undecided {
        question: "The patient asks to cancel a refill.".to_owned(),
        step: "classify[cancel_refill]".to_owned(),
    }]
}

#[test]
fn an_undecided_classification_with_a_plain_yes_is_left_to_a_person() {
    for explainer in [Explainer::Monitor, Explainer::Datalog] {
        let report = decided(
            cancellation("Yes please, go ahead.", "queued"),
            &CLASSIFY_FAILS,
            explainer,
        );
        let GateVerdict::Confirm {
            consent,
            undecided,
            explanation,
            confirmation,
            ..
        } = &report.verdict
        else {
            panic!("{explainer:?}: {:?}", report.verdict);
        };
        assert_eq!(*consent, ConsentState::Given, "{explainer:?}");
        assert_eq!(*undecided, classification(), "{explainer:?}");
        assert!(
            explanation.starts_with(
                "the judge could not decide: The patient asks to cancel a refill. (classify[cancel_refill])"
            ),
            "{explanation}"
        );
        assert_eq!(confirmation.call, "c4");
    }
}

#[test]
fn the_same_conversation_classified_is_allowed() {
    let report = decided(
        cancellation("Yes please, go ahead.", "queued"),
        &OfflineJudge,
        Explainer::Monitor,
    );
    assert!(
        matches!(report.verdict, GateVerdict::Allow { .. }),
        "{:?}",
        report.verdict
    );
}

#[test]
fn a_refusal_a_formal_failure_and_a_decline_still_block() {
    for explainer in [Explainer::Monitor, Explainer::Datalog] {
        let refused = decided(
            cancellation("No, leave it queued.", "queued"),
            &CLASSIFY_FAILS,
            explainer,
        );
        assert!(refused.verdict.is_block(), "{:?}", refused.verdict);
        // Only a queued refill can be cancelled: no person is asked.
        let filled = decided(
            cancellation("Yes please, go ahead.", "filled"),
            &CLASSIFY_FAILS,
            explainer,
        );
        assert!(filled.verdict.is_block(), "{:?}", filled.verdict);
    }
    let report = answered_then_called_again(false);
    assert!(report.verdict.is_block(), "{:?}", report.verdict);
}

/// A pharmacy session whose cancel after a plain yes (`c4`) was held for
/// a person: the classification left undecided.
fn held() -> Session {
    let mut session = Session::new(runtime("pharmacy"), Schedule::Workflow);
    let report = run(
        &mut session,
        cancellation("Yes please, go ahead.", "queued"),
        &CLASSIFY_FAILS,
    );
    assert!(report.verdict.is_confirm(), "{:?}", report.verdict);
    session
}

/// The cancel held after a plain yes (`c4`), the host's answer to it
/// (`granted`) and the identical call made again: the report on that call.
fn answered_then_called_again(granted: bool) -> EventReport {
    let mut session = held();
    let answer = Event::Approval {
        call: "c4".into(),
        granted,
        by: Approver::User,
    };
    run(
        &mut session,
        vec![answer, cancel_again("c5")],
        &CLASSIFY_FAILS,
    )
}

#[test]
fn the_hosts_approval_allows_the_call_it_names() {
    let report = answered_then_called_again(true);
    let GateVerdict::Allow {
        approved: Some(approved),
        ..
    } = &report.verdict
    else {
        panic!("{:?}", report.verdict);
    };
    assert_eq!(approved.call, "c4");
}

#[test]
fn a_restored_session_and_its_saved_state_decide_the_same() {
    let mut session = held();
    let state = session.snapshot();
    assert!(
        state.undecided.iter().any(|answer| answer.open),
        "{:?}",
        state.undecided
    );
    let text = serde_json::to_string(&state).unwrap();
    assert!(text.contains(r#""open":true"#), "{text}");
    let saved = SessionState::from_json(&text).unwrap();
    assert_eq!(saved, state);
    let mut restored = Session::restore(runtime("pharmacy"), saved).unwrap();
    let again = run(&mut restored, vec![cancel_again("c5")], &CLASSIFY_FAILS);
    let live_again = run(&mut session, vec![cancel_again("c5")], &CLASSIFY_FAILS);
    assert!(again.verdict.is_confirm(), "{:?}", again.verdict);
    assert_eq!(again, live_again);
    assert_eq!(restored.snapshot(), session.snapshot());
}

#[test]
fn a_later_decided_answer_closes_what_was_left_undecided() {
    // The classification left undecided, then the patient names the
    // request in a branch's words and the offline judge decides it.
    let mut session = held();
    let events = vec![
        Event::User {
            text: "Yes, please cancel my refill.".into(),
        },
        cancel_again("c5"),
    ];
    let report = run(&mut session, events, &OfflineJudge);
    // Whatever else the call lacks, nothing is left undecided any more.
    assert!(
        !matches!(&report.verdict, GateVerdict::Confirm { undecided, .. } if !undecided.is_empty()),
        "{:?}",
        report.verdict
    );
    let state = session.snapshot();
    assert!(
        state.undecided.iter().any(|answer| !answer.open),
        "{:?}",
        state.undecided
    );
    let restored = Session::restore(runtime("pharmacy"), state.clone()).unwrap();
    assert_eq!(restored.snapshot(), state);
}

#[test]
fn a_reason_the_judge_could_not_decide_still_blocks() {
    let rt = runtime("bank-card");
    let events = conversation("bank-card", "conversations.jsonl", "freeze-stolen");
    assert!(matches!(events.last(), Some(Event::Call { tool, .. }) if tool == "freeze_card"));
    let offline = run(
        &mut Session::new(Arc::clone(&rt), Schedule::Workflow),
        events.clone(),
        &OfflineJudge,
    );
    assert!(
        matches!(offline.verdict, GateVerdict::Allow { .. }),
        "{:?}",
        offline.verdict
    );
    let failed = run(
        &mut Session::new(rt, Schedule::Workflow),
        events,
        &CRITERIA_FAIL,
    );
    let GateVerdict::Block { step, .. } = &failed.verdict else {
        panic!("{:?}", failed.verdict);
    };
    assert_eq!(step.as_deref(), Some("freeze.reason"));
}

#[test]
fn only_the_branch_that_leads_to_the_call_is_left_to_a_person() {
    // The library desk goes round again after each request, so every
    // branch of its classification lies on the renewal's path; a person
    // approving the renewal settles only that the patron asked to renew.
    let events = conversation("library", "smoke.jsonl", "renew-ok");
    for explainer in [Explainer::Monitor, Explainer::Datalog] {
        let mut session = Session::new(runtime("library"), Schedule::Workflow);
        session.set_explainer(explainer);
        let report = run(&mut session, events.clone(), &CLASSIFY_FAILS);
        let GateVerdict::Confirm {
            consent, undecided, ..
        } = &report.verdict
        else {
            panic!("{explainer:?}: {:?}", report.verdict);
        };
        assert_eq!(*consent, ConsentState::Given, "{explainer:?}");
        let steps: Vec<&str> = undecided.iter().map(|u| u.step.as_str()).collect();
        assert_eq!(steps, ["classify[renew]"], "{explainer:?}");
    }
}
