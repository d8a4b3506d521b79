//! Sessions end to end on the `shop` fixture: hand-written conversations
//! replayed event by event, asserting every verdict, the requests' cursors
//! and the remediation text; judges that fail (scripted, and a real HTTP
//! server that errors or hangs) keep the gate closed; a saved session
//! restores and answers identically; schedules catch or miss deviations;
//! the decision protocol (questions out, answers in, a pending decision
//! refusing events, an abandoned one leaving the session as it was) and an
//! awaited judge deciding as a synchronous one.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod support;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use turnstile_engine::session::{
    ConsentState, EventReport, Explainer, GateVerdict, Progress, RequestStatus, RequestView,
    STATE_VERSION, Schedule, Session, SessionError, SessionState,
};
use turnstile_engine::session::{coverage, replay};
use turnstile_engine::trace::{Approver, Event, Trace};
use turnstile_judge::{
    Immediate, Judge, JudgeRequest, Judgement, OfflineJudge, Question, SyncJudge, Verdict,
};
use turnstile_llm::{HttpJudge, HttpJudgeConfig};
use turnstile_rules::{EventIdx, Reason};

use support::{
    agent, call, ok, shop_opening as opening, shop_order as order, shop_runtime as runtime, user,
};

/// The agent summarizes, the user says yes, the agent cancels: events 8-11.
fn confirmed_cancel(order_id: &str) -> Vec<Event> {
    vec![
        agent(&format!(
            "Order {order_id}: cancel it with reason 'no longer needed'? Please confirm (yes)."
        )),
        user("Yes, please go ahead."),
        call(
            "c4",
            "cancel_pending_order",
            json!({"order_id": order_id, "reason": "no longer needed"}),
        ),
        ok("c4", json!({"status": "cancelled"})),
    ]
}

fn run(session: &mut Session, events: Vec<Event>, judge: &dyn SyncJudge) -> Vec<EventReport> {
    let mut out = Vec::new();
    for event in events {
        out.push(session.push(event, judge).unwrap());
    }
    out
}

fn guidance(report: &EventReport) -> Vec<(String, String, Option<String>)> {
    match &report.verdict {
        GateVerdict::Guide { guidance } => guidance
            .iter()
            .map(|g| {
                let request: Vec<String> =
                    g.request.iter().map(|(k, v)| format!("{k}={v}")).collect();
                (request.join(","), g.step.clone(), g.remediation.clone())
            })
            .collect(),
        other => panic!("event {}: expected guide, got {other:?}", report.event),
    }
}

fn bindings(pairs: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn a_compliant_cancellation_is_guided_then_allowed() {
    let rt = runtime();
    let mut session = Session::new(rt, Schedule::Workflow);
    let mut events = opening("#O1", "pending");
    events.extend(confirmed_cancel("#O1"));
    events.push(agent("Your order is cancelled."));
    let r = run(&mut session, events, &OfflineJudge);

    // Only agent events fire; user messages and results are observed.
    let fired: Vec<u32> = r.iter().filter(|x| x.fired).map(|x| x.event.0).collect();
    assert_eq!(fired, vec![1, 2, 4, 6, 8, 10, 12]);
    for x in r.iter().filter(|x| !x.fired) {
        assert_eq!(x.verdict, GateVerdict::Observe, "event {}", x.event);
    }
    // Before identification: authenticate by email.
    assert_eq!(
        guidance(&r[1]),
        vec![(
            String::new(),
            "identify.find".to_owned(),
            Some("Authenticate the user by email first.".to_owned())
        )]
    );
    assert_eq!(r[1].requests[0].status, RequestStatus::Open);
    assert_eq!(r[2].requests[0].status, RequestStatus::Continuing);
    // After the email lookup the request is about u1: load the profile.
    assert_eq!(
        guidance(&r[4]),
        vec![(
            "user=u1".to_owned(),
            "identify.profile".to_owned(),
            Some("Load u1's profile.".to_owned())
        )]
    );
    // Identified. The judge is asked only when a write needs an answer, so
    // until then the request waits at its classification, unjudged.
    for at in [6, 8] {
        let cursor = guidance(&r[at]);
        assert!(
            cursor
                .iter()
                .all(|(request, step, _)| request == "user=u1" && step.starts_with("classify[")),
            "event {at}: {cursor:?}"
        );
        assert!(r[at].judge.is_empty(), "event {at}: {:?}", r[at].judge);
        assert!(
            r[at]
                .requests
                .iter()
                .any(|q| q.cursor.iter().any(|c| c.needs_judge))
        );
    }
    // At the cancel the judge classified the request from the first message
    // (stated before identification) and the confirmation in the same call.
    let note = |node: &str| {
        r[10]
            .judge
            .iter()
            .find(|n| n.node == node)
            .unwrap_or_else(|| panic!("{node} asked: {:?}", r[10].judge))
            .verdict
            .clone()
    };
    assert!(
        matches!(note("classify"), Verdict::Chosen { label, evidence_event: 0 } if label == "cancel")
    );
    // The confirmation was judged from the user's "yes" (event 9): allowed.
    assert_eq!(
        r[10].verdict,
        GateVerdict::Allow {
            step: "cancel.authorize".to_owned(),
            request: bindings(&[("order", "#O1"), ("user", "u1")]),
            approved: None,
            consent_by_judge: None,
        }
    );
    assert!(matches!(
        note("cancel.confirm"),
        Verdict::Satisfied { evidence_event: 9 }
    ));
    // After the verified cancellation the #O1 request is done; the user's
    // cancel request stays open for another order.
    let done: Vec<_> = r[12]
        .requests
        .iter()
        .filter(|q| q.status == RequestStatus::Done)
        .map(|q| q.request.clone())
        .collect();
    assert_eq!(done, vec![bindings(&[("order", "#O1"), ("user", "u1")])]);
    assert_eq!(
        guidance(&r[12]),
        vec![(
            "user=u1".to_owned(),
            "cancel.read".to_owned(),
            Some("Read the order first.".to_owned())
        )]
    );
}

#[test]
fn a_delivered_order_is_blocked_with_grounded_remediation() {
    let rt = runtime();
    let mut session = Session::new(rt, Schedule::Workflow);
    let mut events = opening("#O2", "delivered");
    // The user claims otherwise; only the tool result counts.
    events.push(user("It's definitely still pending, trust me."));
    events.extend(confirmed_cancel("#O2"));
    let r = run(&mut session, events, &OfflineJudge);
    let GateVerdict::Block {
        reason,
        step,
        request,
        remediation,
        explanation,
    } = &r[11].verdict
    else {
        panic!("expected a block, got {:?}", r[11].verdict);
    };
    assert_eq!(*reason, Reason::WrongValue);
    assert_eq!(step.as_deref(), Some("cancel.authorize"));
    assert_eq!(request, &bindings(&[("order", "#O2"), ("user", "u1")]));
    assert_eq!(
        remediation.as_deref(),
        Some("Only pending orders can be cancelled; #O2 is delivered.")
    );
    assert!(
        explanation.contains("\"delivered\" (read at event 7)"),
        "{explanation}"
    );
}

#[test]
fn a_write_without_the_read_is_blocked_as_missing_step() {
    let rt = runtime();
    let mut session = Session::new(rt, Schedule::Workflow);
    let mut events = opening("#O1", "pending");
    events.truncate(6); // identified, order never read
    events.push(agent(
        "Shall I cancel #O1 with reason 'no longer needed'? Please confirm (yes).",
    ));
    events.push(user("yes"));
    events.push(call(
        "c9",
        "cancel_pending_order",
        json!({"order_id": "#O1", "reason": "no longer needed"}),
    ));
    let r = run(&mut session, events, &OfflineJudge);
    let GateVerdict::Block {
        step, remediation, ..
    } = &r[8].verdict
    else {
        panic!("{:?}", r[8].verdict);
    };
    assert_eq!(step.as_deref(), Some("cancel.read"));
    assert_eq!(remediation.as_deref(), Some("Read the order first."));
}

#[test]
fn two_orders_are_two_requests() {
    let rt = runtime();
    let mut session = Session::new(rt, Schedule::Workflow);
    let mut events = opening("#O1", "pending");
    events.push(call("c5", "get_order_details", json!({"order_id": "#O2"})));
    events.push(ok("c5", order("#O2", "pending")));
    // An unconfirmed cancel: blocked, after the judge classified the
    // request (its answer forks it on both orders read).
    events.push(call(
        "c6",
        "cancel_pending_order",
        json!({"order_id": "#O1", "reason": "no longer needed"}),
    ));
    events.push(agent("Which one?"));
    let r = run(&mut session, events, &OfflineJudge);
    // Every formal check holds; the user was never asked: a confirmation.
    let GateVerdict::Confirm { consent, .. } = &r[10].verdict else {
        panic!("{:?}", r[10].verdict);
    };
    assert_eq!(*consent, ConsentState::Absent);
    let mut requests: Vec<_> = r[11].requests.iter().map(|q| q.request.clone()).collect();
    requests.sort();
    assert_eq!(
        requests,
        vec![
            bindings(&[("order", "#O1"), ("user", "u1")]),
            bindings(&[("order", "#O2"), ("user", "u1")]),
        ]
    );
}

/// The opening, the agent's summary, then `reply` (if any) and the cancel
/// of `order_id` at event 9 or 10; that write's report, under `explainer`.
fn cancel_after(
    order_id: &str,
    status: &str,
    reply: Option<&str>,
    explainer: Explainer,
) -> EventReport {
    let mut session = Session::new(runtime(), Schedule::Workflow);
    session.set_explainer(explainer);
    let mut events = opening(order_id, status);
    events.push(agent(&format!(
        "Order {order_id}: cancel it with reason 'no longer needed'? Please confirm (yes)."
    )));
    events.extend(reply.map(user));
    events.push(call(
        "c4",
        "cancel_pending_order",
        json!({"order_id": order_id, "reason": "no longer needed"}),
    ));
    run(&mut session, events, &OfflineJudge).pop().unwrap()
}

#[test]
fn a_write_lacking_only_the_yes_asks_for_confirmation() {
    for explainer in [Explainer::Monitor, Explainer::Datalog] {
        let report = cancel_after("#O1", "pending", None, explainer);
        let GateVerdict::Confirm {
            step,
            request,
            confirmation,
            consent,
            ..
        } = &report.verdict
        else {
            panic!("{explainer:?}: expected confirm, got {:?}", report.verdict);
        };
        assert_eq!(step.as_deref(), Some("cancel.confirm"));
        assert_eq!(request, &bindings(&[("order", "#O1"), ("user", "u1")]));
        assert_eq!(*consent, ConsentState::Absent, "no reply at all");
        assert_eq!(confirmation.call, "c4");
        assert_eq!(confirmation.tool, "cancel_pending_order");
        // The bundle's template, over the call's arguments.
        assert_eq!(confirmation.text, "Cancel order #O1 (no longer needed)?");
        let details: Vec<(&str, &str)> = confirmation
            .details
            .iter()
            .map(|d| (d.name.as_str(), d.value.as_str()))
            .collect();
        assert_eq!(
            details,
            vec![("order_id", "#O1"), ("reason", "no longer needed")]
        );
        assert_eq!(report.verdict.label(), "confirm");
        assert!(report.verdict.withholds() && !report.verdict.is_block());
    }
}

#[test]
fn a_reply_the_reader_cannot_decide_asks_for_confirmation() {
    let report = cancel_after(
        "#O1",
        "pending",
        Some("Hmm, how long does a refund take?"),
        Explainer::Monitor,
    );
    let GateVerdict::Confirm { consent, .. } = &report.verdict else {
        panic!("expected confirm, got {:?}", report.verdict);
    };
    assert_eq!(*consent, ConsentState::Qualified);
}

#[test]
fn a_refused_write_stays_blocked() {
    for explainer in [Explainer::Monitor, Explainer::Datalog] {
        let report = cancel_after("#O1", "pending", Some("No, don't cancel it."), explainer);
        let GateVerdict::Block { reason, step, .. } = &report.verdict else {
            panic!(
                "{explainer:?}: a refusal opened a prompt: {:?}",
                report.verdict
            );
        };
        assert_eq!(*reason, Reason::DialogueUnmet);
        assert_eq!(step.as_deref(), Some("cancel.confirm"));
    }
}

/// A write blocked on a refusal did not run: when the agent asks again and
/// the user's next reply is one the reader cannot decide, the identical call
/// is held for confirmation, not blocked as if the first had used the
/// authorization.
#[test]
fn after_a_refused_write_the_next_undecided_reply_asks_for_confirmation() {
    for explainer in [Explainer::Monitor, Explainer::Datalog] {
        let mut session = Session::new(runtime(), Schedule::Workflow);
        session.set_explainer(explainer);
        let summary = "Order #O1: cancel it with reason 'no longer needed'? Please confirm (yes).";
        let mut events = opening("#O1", "pending");
        events.push(agent(summary));
        events.push(user("No, don't cancel it."));
        events.push(cancel_call("c4", "#O1", "no longer needed"));
        let refused = run(&mut session, events, &OfflineJudge).pop().unwrap();
        assert!(
            refused.verdict.is_block(),
            "{explainer:?}: {:?}",
            refused.verdict
        );
        let again = vec![
            agent(summary),
            user("Hmm, how long does a refund take?"),
            cancel_call("c5", "#O1", "no longer needed"),
        ];
        let report = run(&mut session, again, &OfflineJudge).pop().unwrap();
        let GateVerdict::Confirm { consent, .. } = &report.verdict else {
            panic!("{explainer:?}: expected confirm, got {:?}", report.verdict);
        };
        assert_eq!(*consent, ConsentState::Qualified, "{explainer:?}");
    }
}

#[test]
fn a_formal_failure_is_never_confirm() {
    for explainer in [Explainer::Monitor, Explainer::Datalog] {
        // A delivered order, and no yes either: the status is formal.
        let report = cancel_after("#O2", "delivered", None, explainer);
        assert!(
            report.verdict.is_block(),
            "{explainer:?}: {:?}",
            report.verdict
        );
    }
}

fn cancel_call(id: &str, order_id: &str, reason: &str) -> Event {
    call(
        id,
        "cancel_pending_order",
        json!({"order_id": order_id, "reason": reason}),
    )
}

fn approval(call: &str, granted: bool, by: Approver) -> Event {
    Event::Approval {
        call: call.into(),
        granted,
        by,
    }
}

/// The opening of `order_id` in `status`, the agent's summary and a cancel
/// `c4` with no reply (event 9): a session that answered it.
fn held_cancel(order_id: &str, status: &str) -> (Session, EventReport) {
    let mut session = Session::new(runtime(), Schedule::Workflow);
    let mut events = opening(order_id, status);
    events.push(agent(&format!(
        "Order {order_id}: cancel it with reason 'no longer needed'? Please confirm (yes)."
    )));
    events.push(cancel_call("c4", order_id, "no longer needed"));
    let report = run(&mut session, events, &OfflineJudge).pop().unwrap();
    (session, report)
}

fn push(session: &mut Session, event: Event) -> EventReport {
    session.push(event, &OfflineJudge).unwrap()
}

fn approved_by(report: &EventReport) -> Option<(Approver, String)> {
    match &report.verdict {
        GateVerdict::Allow {
            approved: Some(a), ..
        } => Some((a.by, a.call.clone())),
        _ => None,
    }
}

#[test]
fn an_approval_opens_the_identical_call_once() {
    let (mut session, held) = held_cancel("#O1", "pending");
    assert!(held.verdict.is_confirm(), "{:?}", held.verdict);
    let answer = push(&mut session, approval("c4", true, Approver::User));
    assert_eq!(answer.verdict, GateVerdict::Observe);
    assert!(answer.anomalies.is_empty(), "{:?}", answer.anomalies);
    assert_eq!(answer.kind, "approval of c4 by user");
    let retry = push(&mut session, cancel_call("c5", "#O1", "no longer needed"));
    assert_eq!(
        approved_by(&retry),
        Some((Approver::User, "c4".to_owned())),
        "{:?}",
        retry.verdict
    );
    let GateVerdict::Allow { step, .. } = &retry.verdict else {
        unreachable!()
    };
    assert_eq!(step, "cancel.authorize");
    // A second use of the same approval opens nothing: the approved call
    // used the authorization, even with consent granted.
    let again = push(&mut session, cancel_call("c6", "#O1", "no longer needed"));
    assert!(again.verdict.is_block(), "{:?}", again.verdict);
}

#[test]
fn an_approval_opens_no_call_with_other_arguments() {
    let (mut session, _) = held_cancel("#O1", "pending");
    push(&mut session, approval("c4", true, Approver::User));
    let other = push(&mut session, cancel_call("c5", "#O1", "ordered by mistake"));
    assert!(other.verdict.is_confirm(), "{:?}", other.verdict);
    // The approval still stands for the call it named.
    let same = push(&mut session, cancel_call("c6", "#O1", "no longer needed"));
    assert!(approved_by(&same).is_some(), "{:?}", same.verdict);
}

#[test]
fn a_withdrawal_voids_an_unused_approval() {
    let (mut session, _) = held_cancel("#O1", "pending");
    push(&mut session, approval("c4", true, Approver::User));
    push(&mut session, user("Wait, no, don't cancel it."));
    let retry = push(&mut session, cancel_call("c5", "#O1", "no longer needed"));
    assert!(retry.verdict.is_block(), "{:?}", retry.verdict);
}

#[test]
fn a_declined_call_stays_blocked() {
    let (mut session, _) = held_cancel("#O1", "pending");
    let answer = push(&mut session, approval("c4", false, Approver::User));
    assert_eq!(answer.kind, "refusal of c4 by user");
    assert!(answer.anomalies.is_empty(), "{:?}", answer.anomalies);
    let retry = push(&mut session, cancel_call("c5", "#O1", "no longer needed"));
    assert!(retry.verdict.is_block(), "{:?}", retry.verdict);
}

#[test]
fn an_approval_of_a_call_never_seen_is_an_anomaly_and_opens_nothing() {
    let (mut session, _) = held_cancel("#O1", "pending");
    let answer = push(&mut session, approval("c99", true, Approver::User));
    assert_eq!(answer.anomalies.len(), 1, "{:?}", answer.anomalies);
    assert!(
        answer.anomalies[0].contains("c99"),
        "{:?}",
        answer.anomalies
    );
    let retry = push(&mut session, cancel_call("c5", "#O1", "no longer needed"));
    assert!(retry.verdict.is_confirm(), "{:?}", retry.verdict);
}

#[test]
fn an_approval_of_a_formally_blocked_call_is_an_anomaly_and_opens_nothing() {
    let (mut session, held) = held_cancel("#O2", "delivered");
    assert!(held.verdict.is_block(), "{:?}", held.verdict);
    let answer = push(&mut session, approval("c4", true, Approver::User));
    assert_eq!(answer.anomalies.len(), 1, "{:?}", answer.anomalies);
    let retry = push(&mut session, cancel_call("c5", "#O2", "no longer needed"));
    assert!(retry.verdict.is_block(), "{:?}", retry.verdict);
}

#[test]
fn a_second_answer_and_an_unpermitted_operator_are_anomalies() {
    let (mut session, _) = held_cancel("#O1", "pending");
    // The shop bundle does not permit operators.
    let operator = push(&mut session, approval("c4", true, Approver::Operator));
    assert_eq!(operator.anomalies.len(), 1, "{:?}", operator.anomalies);
    let first = push(&mut session, approval("c4", false, Approver::User));
    assert!(first.anomalies.is_empty(), "{:?}", first.anomalies);
    let second = push(&mut session, approval("c4", true, Approver::User));
    assert_eq!(second.anomalies.len(), 1, "{:?}", second.anomalies);
    let retry = push(&mut session, cancel_call("c5", "#O1", "no longer needed"));
    assert!(
        retry.verdict.is_block(),
        "the refusal stands: {:?}",
        retry.verdict
    );
}

#[test]
fn an_approval_survives_a_restore() {
    let (mut session, _) = held_cancel("#O1", "pending");
    push(&mut session, approval("c4", true, Approver::User));
    let text = serde_json::to_string(&session.snapshot()).unwrap();
    let state = SessionState::from_json(&text).unwrap();
    let mut restored = Session::restore(runtime(), state).unwrap();
    let retry = push(&mut restored, cancel_call("c5", "#O1", "no longer needed"));
    assert_eq!(
        approved_by(&retry),
        Some((Approver::User, "c4".to_owned())),
        "{:?}",
        retry.verdict
    );
}

/// Classifies with the offline judge; answers every criterion with `answer`.
struct FailingCriteria {
    answer: fn(&JudgeRequest) -> Vec<Judgement>,
}

impl SyncJudge for FailingCriteria {
    fn name(&self) -> &str {
        "failing-criteria"
    }

    fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        let mut out = Vec::new();
        for request in requests {
            match request.question {
                Question::Classify { .. } => out.push(OfflineJudge.decide(request)),
                Question::Criterion { .. } | Question::Consent { .. } => {
                    out.extend((self.answer)(request))
                }
            }
        }
        out
    }
}

/// The events of a confirmed cancellation of `#O1`: its write is event 10.
fn cancellation() -> Vec<Event> {
    let mut events = opening("#O1", "pending");
    events.extend(confirmed_cancel("#O1"));
    events
}

fn cancel_with(judge: &dyn SyncJudge) -> EventReport {
    let mut session = Session::new(runtime(), Schedule::Workflow);
    let mut r = run(&mut session, cancellation(), judge);
    r.swap_remove(10)
}

/// [`cancel_with`] a judge that is awaited.
async fn cancel_with_async(judge: &dyn Judge) -> EventReport {
    let mut session = Session::new(runtime(), Schedule::Workflow);
    let mut r = Vec::new();
    for event in cancellation() {
        r.push(session.push_async(event, judge).await.unwrap());
    }
    r.swap_remove(10)
}

/// The write is not run: every formal check holds and the judge did not
/// establish the yes, so the gate asks for the user's confirmation.
fn assert_closed(report: &EventReport) {
    let GateVerdict::Confirm {
        step,
        confirmation,
        consent,
        ..
    } = &report.verdict
    else {
        panic!("expected confirm: {:?}", report.verdict);
    };
    assert_eq!(step.as_deref(), Some("cancel.confirm"));
    assert_eq!(confirmation.call, "c4");
    // The user did say yes, which the judge could not establish.
    assert_eq!(*consent, ConsentState::Qualified);
}

#[test]
fn every_judge_failure_keeps_the_gate_closed() {
    let answers: [fn(&JudgeRequest) -> Vec<Judgement>; 6] = [
        |_| vec![Judgement::unknown("timeout")],
        |_| vec![Judgement::new(Verdict::NotSatisfied, "no")],
        // Evidence outside the judged slice.
        |_| {
            vec![Judgement::new(
                Verdict::Satisfied { evidence_event: 0 },
                "the first message",
            )]
        },
        |_| {
            vec![Judgement::new(
                Verdict::Satisfied {
                    evidence_event: 999,
                },
                "made up",
            )]
        },
        // A classification answer to a yes/no question.
        |_| {
            vec![Judgement::new(
                Verdict::Chosen {
                    label: "cancel".into(),
                    evidence_event: 9,
                },
                "?",
            )]
        },
        // No answer at all.
        |_| Vec::new(),
    ];
    for answer in answers {
        let report = cancel_with(&FailingCriteria { answer });
        assert_closed(&report);
    }
    // The control: the same judge answering properly opens it.
    let report = cancel_with(&FailingCriteria {
        answer: |_| {
            vec![Judgement::new(
                Verdict::Satisfied { evidence_event: 9 },
                "yes",
            )]
        },
    });
    assert!(
        matches!(report.verdict, GateVerdict::Allow { .. }),
        "{:?}",
        report.verdict
    );
}

/// Classifies offline; asks a real HTTP judge every criterion.
struct HttpCriteria(HttpJudge);

#[async_trait]
impl Judge for HttpCriteria {
    fn name(&self) -> &str {
        "http-criteria"
    }

    async fn judge(&self, request: &JudgeRequest) -> Judgement {
        match request.question {
            Question::Classify { .. } => OfflineJudge.decide(request),
            Question::Criterion { .. } | Question::Consent { .. } => self.0.judge(request).await,
        }
    }
}

#[tokio::test]
async fn a_failing_http_judge_keeps_the_gate_closed() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let completion = |content: &str| {
        json!({"choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
    };
    let cases = vec![
        ResponseTemplate::new(500),
        ResponseTemplate::new(200).set_body_string("{not json"),
        ResponseTemplate::new(200).set_body_json(completion("I think the user agreed.")),
        ResponseTemplate::new(200)
            .set_body_json(completion(r#"{"verdict": "satisfied"}"#))
            .set_delay(Duration::from_secs(5)),
    ];
    for response in cases {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(response)
            .mount(&server)
            .await;
        let mut config = HttpJudgeConfig::new(format!("{}/v1", server.uri()), "test-model", None);
        config.timeout = Duration::from_millis(300);
        config.max_attempts = 2;
        config.backoff_base = Duration::from_millis(1);
        let judge = HttpCriteria(HttpJudge::new(config).unwrap());
        let report = cancel_with_async(&judge).await;
        assert_closed(&report);
        // The classification is offline; the criterion asked over HTTP
        // is unknown.
        assert!(
            report
                .judge
                .iter()
                .filter(|n| n.node != "classify")
                .all(|n| matches!(n.verdict, Verdict::Unknown { .. })),
            "{:?}",
            report.judge
        );
        assert!(report.judge.iter().any(|n| n.node != "classify"));
    }
}

#[test]
fn a_state_of_another_version_or_bundle_is_refused_on_restore() {
    let rt = runtime();
    let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
    run(&mut session, opening("#O1", "pending"), &OfflineJudge);
    let mut state = session.snapshot();
    state.version = STATE_VERSION + 1;
    let err = Session::restore(Arc::clone(&rt), state).unwrap_err();
    assert!(
        matches!(err, SessionError::StateVersion(v) if v == STATE_VERSION + 1),
        "{err}"
    );
    let mut state = session.snapshot();
    state.bundle = "another".to_owned();
    let err = Session::restore(rt, state).unwrap_err();
    assert!(matches!(err, SessionError::BundleMismatch { .. }), "{err}");
}

#[test]
fn a_restored_session_answers_identically() {
    let rt = runtime();
    let mut events = opening("#O1", "pending");
    events.extend(confirmed_cancel("#O1"));
    events.push(call("c5", "get_order_details", json!({"order_id": "#O2"})));
    events.push(ok("c5", order("#O2", "pending")));
    events.push(call(
        "c6",
        "cancel_pending_order",
        json!({"order_id": "#O2", "reason": "no longer needed"}),
    ));
    let mut whole = Session::new(Arc::clone(&rt), Schedule::Boundary);
    let expected = run(&mut whole, events.clone(), &OfflineJudge);
    for cut in [0, 3, 7, 9, 10, 13] {
        let mut first = Session::new(Arc::clone(&rt), Schedule::Boundary);
        let mut got = run(&mut first, events[..cut].to_vec(), &OfflineJudge);
        let saved = serde_json::to_string(&first.snapshot()).unwrap();
        let state: SessionState = serde_json::from_str(&saved).unwrap();
        assert_eq!(state, first.snapshot());
        let mut restored = Session::restore(Arc::clone(&rt), state).unwrap();
        assert_eq!(restored.snapshot(), first.snapshot());
        got.extend(run(&mut restored, events[cut..].to_vec(), &OfflineJudge));
        assert_eq!(got, expected, "restored at event {cut}");
    }
    // The second cancellation was never confirmed, and happened mid-turn:
    // the boundary schedule does not check it (the workflow schedule would).
    assert_eq!(
        expected[14].verdict,
        GateVerdict::Unchecked { would_block: true }
    );
}

#[test]
fn a_state_of_another_bundle_is_refused() {
    let rt = runtime();
    let session = Session::new(Arc::clone(&rt), Schedule::Workflow);
    let mut state = session.snapshot();
    state.bundle = "0000".into();
    assert!(Session::restore(Arc::clone(&rt), state.clone()).is_err());
    state.bundle = session.snapshot().bundle;
    state.version = 99;
    assert!(Session::restore(rt, state).is_err());
}

#[test]
fn schedules_catch_or_miss_a_mid_turn_deviation() {
    let rt = runtime();
    let mut events = opening("#O1", "pending");
    // Mid-turn: no user message since the first one, no confirmation.
    events.push(call(
        "c4",
        "cancel_pending_order",
        json!({"order_id": "#O1", "reason": "no longer needed"}),
    ));
    events.push(ok("c4", json!({})));
    let trace = Trace {
        events,
        ..Trace::default()
    };
    let workflow = replay(&rt, &trace, Schedule::Workflow, &OfflineJudge).unwrap();
    let boundary = replay(&rt, &trace, Schedule::Boundary, &OfflineJudge).unwrap();
    let action = replay(&rt, &trace, Schedule::Action, &OfflineJudge).unwrap();
    // Only the yes is missing: held for the user's confirmation.
    assert_eq!(workflow.confirmed(), vec![EventIdx(8)]);
    assert_eq!(action.confirmed(), vec![EventIdx(8)]);
    assert_eq!(
        boundary.events[8].verdict,
        GateVerdict::Unchecked { would_block: true }
    );
    assert_eq!(workflow.gated_calls(), vec![(EventIdx(8), Some(true))]);
    assert_eq!(boundary.gated_calls(), vec![(EventIdx(8), None)]);
    assert_eq!(boundary.unchecked_deviations(), 1);
    assert_eq!(workflow.unchecked_deviations(), 0);
    let missed = coverage(&workflow, &boundary);
    assert_eq!((missed.caught, missed.missed), (vec![], vec![EventIdx(8)]));
    let caught = coverage(&workflow, &action);
    assert_eq!((caught.caught, caught.missed), (vec![EventIdx(8)], vec![]));
    // The action schedule is silent on every other event.
    assert!(
        action
            .events
            .iter()
            .filter(|e| e.event != EventIdx(8))
            .all(|e| !e.fired)
    );
}

#[test]
fn malformed_tool_output_fails_closed_without_panicking() {
    let rt = runtime();
    let mut session = Session::new(rt, Schedule::Workflow);
    let mut events = opening("#O1", "pending");
    events[7] = ok("c3", json!("<html>502 Bad Gateway</html>"));
    events.push(ok("nope", json!({}))); // a result for a call that never happened
    events.extend(confirmed_cancel("#O1"));
    let r = run(&mut session, events, &OfflineJudge);
    assert!(r[11].verdict.is_block(), "{:?}", r[11].verdict);
}

/// Decides `event` by driving the protocol with the offline judge's answers,
/// counting the rounds of questions.
fn driven(session: &mut Session, event: Event, rounds: &mut usize) -> EventReport {
    let mut progress = session.begin(event, None).unwrap();
    loop {
        match progress {
            Progress::Decided(report) => return session.with_requests(report),
            Progress::Asks(requests) => {
                *rounds += 1;
                assert!(session.is_pending());
                let answers = requests.iter().map(|r| OfflineJudge.decide(r)).collect();
                drop(requests);
                progress = session.answer(answers).unwrap();
            }
        }
    }
}

/// Any caller can drive a decision: questions out, answers in, the same
/// reports as `push` — lazily (the write asks) and eagerly (every firing
/// asks before the event is taken).
#[test]
fn a_decision_driven_question_by_question_reports_what_push_does() {
    for eager in [false, true] {
        let mut pushed = Session::new(runtime(), Schedule::Workflow);
        let mut driven_session = Session::new(runtime(), Schedule::Workflow);
        if eager {
            pushed.judge_eagerly();
            driven_session.judge_eagerly();
        }
        let mut rounds = 0;
        for (k, event) in cancellation().into_iter().enumerate() {
            let expected = pushed.push(event.clone(), &OfflineJudge).unwrap();
            let got = driven(&mut driven_session, event, &mut rounds);
            assert_eq!(got, expected, "event {k}, eager {eager}");
            assert!(!driven_session.is_pending());
        }
        assert!(rounds > 0, "eager {eager}: the judge was never asked");
        assert_eq!(driven_session.snapshot(), pushed.snapshot());
        assert_eq!(driven_session.work(), pushed.work());
    }
}

/// While a decision waits for the judge, the session takes no other event
/// and answers arrive only for a pending decision.
#[test]
fn a_pending_decision_refuses_a_new_event() {
    let mut session = Session::new(runtime(), Schedule::Workflow);
    let events = cancellation();
    assert!(matches!(
        session.answer(Vec::new()),
        Err(SessionError::NotPending)
    ));
    for event in &events[..10] {
        session.push(event.clone(), &OfflineJudge).unwrap();
    }
    let Progress::Asks(requests) = session.begin(events[10].clone(), None).unwrap() else {
        panic!("the confirmation was not asked about");
    };
    assert!(!requests.is_empty());
    let refused = session.begin(events[11].clone(), None).unwrap_err();
    assert!(matches!(refused, SessionError::Pending), "{refused}");
    assert!(matches!(
        session.push(events[11].clone(), &OfflineJudge),
        Err(SessionError::Pending)
    ));
    // Answered, the decision ends: the write is allowed.
    let answers = requests.iter().map(|r| OfflineJudge.decide(r)).collect();
    let Progress::Decided(report) = session.answer(answers).unwrap() else {
        panic!("the offline judge's answers left questions");
    };
    assert!(
        matches!(report.verdict, GateVerdict::Allow { .. }),
        "{report:?}"
    );
    assert!(matches!(
        session.answer(Vec::new()),
        Err(SessionError::NotPending)
    ));
}

/// An abandoned decision leaves the session as it was before the event —
/// its state, its requests, what a store would append — and the event is
/// decided again as if for the first time.
#[test]
fn an_abandoned_decision_leaves_the_session_as_before_the_event() {
    // Lazily, one question a call: the write asks the classification, then
    // the confirmation in a further round; given up there, after a verdict
    // was accepted.
    abandon_at_first_question(false, Some(1), 1);
    // Eagerly: the first firing that asks, given up before any answer.
    abandon_at_first_question(true, None, 0);
}

/// The session's request views, by value.
fn views(session: &Session) -> Vec<RequestView> {
    session
        .requests()
        .iter()
        .map(|v| RequestView::clone(v))
        .collect()
}

fn abandon_at_first_question(eager: bool, per_call: Option<usize>, answered: usize) {
    let events = cancellation();
    let mut session = Session::new(runtime(), Schedule::Workflow);
    let mut control = Session::new(runtime(), Schedule::Workflow);
    if eager {
        session.judge_eagerly();
        control.judge_eagerly();
    }
    for (k, event) in events.iter().enumerate() {
        let before = session.snapshot();
        let mark = session.mark();
        let requests = views(&session);
        assert!(!session.abandon().unwrap(), "nothing was pending");
        let Progress::Asks(mut asked) = session.begin(event.clone(), per_call).unwrap() else {
            control.push(event.clone(), &OfflineJudge).unwrap();
            continue;
        };
        for _ in 0..answered {
            let answers = asked.iter().map(|r| OfflineJudge.decide(r)).collect();
            let Progress::Asks(next) = session.answer(answers).unwrap() else {
                panic!("eager {eager}, event {k}: decided before a further round");
            };
            asked = next;
        }
        drop(asked);
        if answered > 0 {
            assert_ne!(session.judged(), control.judged(), "a verdict was accepted");
        }
        assert!(session.abandon().unwrap());
        assert!(!session.is_pending());
        assert_eq!(session.snapshot(), before, "eager {eager}, event {k}");
        assert_eq!(session.mark(), mark, "eager {eager}, event {k}");
        assert_eq!(views(&session), requests, "eager {eager}, event {k}");
        for event in &events[k..] {
            let expected = control.push(event.clone(), &OfflineJudge).unwrap();
            let got = session.push(event.clone(), &OfflineJudge).unwrap();
            assert_eq!(got, expected, "eager {eager}");
        }
        assert_eq!(session.snapshot(), control.snapshot(), "eager {eager}");
        return;
    }
    panic!("eager {eager}: no event asked the judge");
}

/// A judge that is awaited decides as the same judge on the calling
/// thread does.
#[tokio::test]
async fn an_awaited_judge_decides_as_a_synchronous_one() {
    let mut awaited = Session::new(runtime(), Schedule::Workflow);
    let mut immediate = Session::new(runtime(), Schedule::Workflow);
    let judge = Immediate(OfflineJudge);
    for event in cancellation() {
        let a = awaited.push_async(event.clone(), &judge).await.unwrap();
        let b = immediate.push(event, &OfflineJudge).unwrap();
        assert_eq!(a, b);
    }
    assert_eq!(awaited.snapshot(), immediate.snapshot());
}
