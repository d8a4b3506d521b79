//! A question only meaning decides that the judge answers neither yes nor
//! no is left to a person: on the `shop` fixture, a classification the
//! judge could not decide (a model that failed on it; the rest answered
//! offline) before a cancellation the user plainly agreed to gives
//! `confirm` with the consent `given` and the classification listed as
//! undecided; the host's approval then allows the call. A refusal, a
//! formal failure and a host's decline still block; a judge that fails on
//! the consent step too leaves the consent `unknown`; the Datalog
//! explainer and a session restored from the saved state decide the same.
//! A criterion an approval does not settle (the `bank-card` freeze's
//! reason) stays unmet when the judge fails on it.
//! (The offline reader's own unplaced requests: the blind suites.)
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod support;

use serde_json::json;
use turnstile_engine::session::{
    ConsentState, EventReport, Explainer, GateVerdict, Schedule, Session, Undecided,
};
use turnstile_engine::trace::{Approver, Event};
use turnstile_judge::{JudgeRequest, Judgement, OfflineJudge, Question, SyncJudge};

use support::{agent, call, shop_opening, shop_runtime as runtime, user};

/// A judge that cannot classify (a model that failed on that question)
/// and answers everything else offline.
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

/// Identification, the read of `#O1` in `status` and the agent's summary
/// (events 0-8).
fn summary(status: &str) -> Vec<Event> {
    let mut events = shop_opening("#O1", status);
    events.push(agent(
        "Order #O1: cancel it with reason 'no longer needed'? Please confirm (yes).",
    ));
    events
}

fn cancel(id: &str) -> Event {
    call(
        id,
        "cancel_pending_order",
        json!({"order_id": "#O1", "reason": "no longer needed"}),
    )
}

fn run(session: &mut Session, events: Vec<Event>, judge: &dyn SyncJudge) -> EventReport {
    let mut last = None;
    for event in events {
        last = Some(session.push(event, judge).unwrap());
    }
    last.unwrap()
}

/// The report on the cancel after the summary opened by `opening` and
/// `reply`, with `explainer`.
fn cancel_after(
    judge: &dyn SyncJudge,
    status: &str,
    reply: &str,
    explainer: Explainer,
) -> EventReport {
    let mut session = Session::new(runtime(), Schedule::Workflow);
    session.set_explainer(explainer);
    let mut events = summary(status);
    events.push(user(reply));
    events.push(cancel("c4"));
    run(&mut session, events, judge)
}

fn classification() -> Vec<Undecided> {
    vec![Undecided {
        question: "cancel an order".to_owned(),
        step: "classify[cancel]".to_owned(),
    }]
}

#[test]
fn an_undecided_classification_with_a_plain_yes_is_left_to_a_person() {
    for explainer in [Explainer::Monitor, Explainer::Datalog] {
        let report = cancel_after(&ClassifyFails, "pending", "Yes, please.", explainer);
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
            explanation
                .starts_with("the judge could not decide: cancel an order (classify[cancel])"),
            "{explanation}"
        );
        assert_eq!(confirmation.call, "c4");
    }
}

#[test]
fn the_same_conversation_classified_is_allowed() {
    let report = cancel_after(&OfflineJudge, "pending", "Yes, please.", Explainer::Monitor);
    assert!(
        matches!(report.verdict, GateVerdict::Allow { .. }),
        "{:?}",
        report.verdict
    );
}

#[test]
fn a_refusal_a_formal_failure_and_a_decline_still_block() {
    for explainer in [Explainer::Monitor, Explainer::Datalog] {
        let refused = cancel_after(&ClassifyFails, "pending", "No, keep it.", explainer);
        assert!(refused.verdict.is_block(), "{:?}", refused.verdict);
        // Only pending orders can be cancelled: no person is asked.
        let delivered = cancel_after(&ClassifyFails, "delivered", "Yes, please.", explainer);
        assert!(delivered.verdict.is_block(), "{:?}", delivered.verdict);
    }
    let report = answered_then_called_again(false);
    assert!(report.verdict.is_block(), "{:?}", report.verdict);
}

/// The cancel held after a plain yes (`c4`), the host's answer to it
/// (`granted`) and the identical call made again: the report on that call.
fn answered_then_called_again(granted: bool) -> EventReport {
    let mut session = Session::new(runtime(), Schedule::Workflow);
    let mut events = summary("pending");
    events.extend([user("Yes, please."), cancel("c4")]);
    let held = run(&mut session, events, &ClassifyFails);
    assert!(held.verdict.is_confirm(), "{:?}", held.verdict);
    let answer = Event::Approval {
        call: "c4".into(),
        granted,
        by: Approver::User,
    };
    run(&mut session, vec![answer, cancel("c5")], &ClassifyFails)
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
    let mut session = Session::new(runtime(), Schedule::Workflow);
    let mut events = summary("pending");
    events.push(user("Yes, please."));
    run(&mut session, events, &ClassifyFails);
    let live = run(&mut session, vec![cancel("c4")], &ClassifyFails);
    assert!(live.verdict.is_confirm(), "{:?}", live.verdict);
    let state = session.snapshot();
    assert!(
        state.judged.iter().any(|verdict| verdict.undecided),
        "{:?}",
        state.judged
    );
    let text = serde_json::to_string(&state).unwrap();
    assert!(text.contains(r#""undecided":true"#), "{text}");
    // Read back, the saved state restores a session that decides the next
    // identical call the same way.
    let saved = turnstile_engine::session::SessionState::from_json(&text).unwrap();
    assert_eq!(saved, state);
    let mut restored = Session::restore(runtime(), saved).unwrap();
    let again = run(&mut restored, vec![cancel("c5")], &ClassifyFails);
    let live_again = run(&mut session, vec![cancel("c5")], &ClassifyFails);
    assert!(again.verdict.is_confirm(), "{:?}", again.verdict);
    assert_eq!(again, live_again);
    assert_eq!(restored.snapshot(), session.snapshot());
}

/// A judge that answers every question unknown, as a model that fails.
struct Failing;

impl SyncJudge for Failing {
    fn name(&self) -> &str {
        "failing"
    }

    fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        requests
            .iter()
            .map(|_| Judgement::unknown("the model timed out"))
            .collect()
    }
}

#[test]
fn a_judge_that_fails_on_the_consent_step_too_leaves_the_consent_unknown() {
    let mut session = Session::new(runtime(), Schedule::Workflow);
    let mut events = summary("pending");
    events.extend([user("Yes, please."), cancel("c4")]);
    let report = run(&mut session, events, &Failing);
    let GateVerdict::Confirm {
        consent, undecided, ..
    } = &report.verdict
    else {
        panic!("{:?}", report.verdict);
    };
    assert_eq!(*consent, ConsentState::Unknown);
    let steps: Vec<&str> = undecided.iter().map(|u| u.step.as_str()).collect();
    assert_eq!(
        steps,
        ["cancel.confirm", "classify[cancel]"],
        "{undecided:?}"
    );
}

/// A judge that fails on the criteria (reasons, consent steps) and
/// answers classifications offline.
struct CriteriaFail;

impl SyncJudge for CriteriaFail {
    fn name(&self) -> &str {
        "criteria-fail"
    }

    fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        requests
            .iter()
            .map(|r| match r.question {
                Question::Criterion { .. } => Judgement::unknown("the model timed out"),
                _ => OfflineJudge.decide(r),
            })
            .collect()
    }
}

#[test]
fn a_reason_the_judge_could_not_decide_still_blocks() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank-card");
    let bundle = turnstile_engine::check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"));
    let rt = turnstile_engine::session::BundleRuntime::new(std::sync::Arc::new(bundle)).unwrap();
    let text = std::fs::read_to_string(dir.join("tests/conversations.jsonl")).unwrap();
    let events: Vec<Event> = text
        .lines()
        .skip_while(|line| !line.contains(r#""id": "freeze-stolen""#))
        .skip(1)
        .take_while(|line| !line.contains(r#""type": "trace""#))
        .filter(|line| line.starts_with('{'))
        .map(|line| {
            let mut event: serde_json::Value = serde_json::from_str(line).unwrap();
            event.as_object_mut().unwrap().remove("expect");
            serde_json::from_value(event).unwrap()
        })
        .collect();
    assert!(matches!(events.last(), Some(Event::Call { tool, .. }) if tool == "freeze_card"));
    let offline = run(
        &mut Session::new(rt.clone(), Schedule::Workflow),
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
        &CriteriaFail,
    );
    let GateVerdict::Block { step, .. } = &failed.verdict else {
        panic!("{:?}", failed.verdict);
    };
    assert_eq!(step.as_deref(), Some("freeze.reason"));
}
