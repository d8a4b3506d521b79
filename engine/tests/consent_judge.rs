//! A model judge deciding the consent the offline reader cannot (issue #26):
//! the `shop` fixture's cancellation, whose write lacks only the user's
//! consent, decided with the real HTTP judge (`turnstile_llm::HttpJudge`)
//! pointed at a fake OpenAI-compatible server on loopback (wiremock) that
//! counts every chat completion and answers the consent question as each
//! test scripts it. The classification and the fixture's `confirm`
//! criterion are answered by the offline judge ([`ConsentOverHttp`]), so
//! the server sees the consent questions only and its request count is the
//! number of consent questions asked.
//!
//! Asserted (each can fail): the judge's yes allows and names the turn it
//! read; its no blocks; unknown, garbage, a yes citing the agent's turn, an
//! HTTP 500 and a timeout each give `confirm`; a refusal the reader is sure
//! of and a formal failure never reach the server; the question is asked
//! once per write (not again on a call resubmitted after an approval, nor
//! on an identical call before the user says anything new); the usage the
//! session booked is what the server reported; a restored session, and a
//! replay with the recorded answers, decide the write the same way without
//! asking.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod support;

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value as Json, json};
use turnstile_engine::session::{
    ConsentByJudge, ConsentState, EventReport, GateVerdict, JudgedConsent, Schedule, Session,
    SessionState,
};
use turnstile_engine::trace::{Approver, Event};
use turnstile_judge::{
    Judge, JudgeRequest, Judgement, OfflineJudge, Question, RecordedJudge, RecordingJudge,
    SyncJudge,
};
use turnstile_llm::{HttpJudge, HttpJudgeConfig};
use turnstile_rules::{EventIdx, Reason};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use support::{agent, call, shop_opening, shop_runtime as runtime, user};

/// Tokens the fake server reports per completion.
const PROMPT_TOKENS: u64 = 120;
const COMPLETION_TOKENS: u64 = 15;

fn cancel(id: &str, order_id: &str) -> Event {
    call(
        id,
        "cancel_pending_order",
        json!({"order_id": order_id, "reason": "no longer needed"}),
    )
}

/// Identification, the order read and the agent's summary: events 0-8.
fn asked(order_id: &str, status: &str) -> Vec<Event> {
    let mut events = shop_opening(order_id, status);
    events.push(agent(&format!(
        "Order {order_id}: cancel it with reason 'no longer needed'? Please confirm (yes)."
    )));
    events
}

/// A reply the offline reader cannot decide (it answers with a question).
const UNDECIDED: &str = "Hmm, how long does a refund take?";

/// The classification and criteria answered offline, the consent question
/// over HTTP: a model judge as far as consent goes.
struct ConsentOverHttp(HttpJudge);

#[async_trait]
impl Judge for ConsentOverHttp {
    fn name(&self) -> &str {
        "consent-over-http"
    }

    async fn judge(&self, request: &JudgeRequest) -> Judgement {
        self.judge_batch(std::slice::from_ref(request))
            .await
            .pop()
            .unwrap()
    }

    /// The consent questions of a round in one HTTP call, the rest offline.
    async fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        let consent: Vec<JudgeRequest> = requests
            .iter()
            .filter(|r| matches!(r.question, Question::Consent { .. }))
            .cloned()
            .collect();
        let mut over_http = if consent.is_empty() {
            Vec::new()
        } else {
            self.0.judge_batch(&consent).await
        }
        .into_iter();
        requests
            .iter()
            .map(|r| match r.question {
                Question::Consent { .. } => over_http.next().unwrap(),
                _ => OfflineJudge.decide(r),
            })
            .collect()
    }

    fn questions_per_call(&self) -> Option<usize> {
        self.0.questions_per_call()
    }

    fn decides_consent(&self) -> bool {
        self.0.decides_consent()
    }
}

fn chat(content: &str) -> Json {
    json!({
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS}
    })
}

/// A fake server answering every completion with `response`, and the judge
/// asking it (one attempt: a failure is not retried, so calls are requests).
async fn judged_by(response: ResponseTemplate) -> (MockServer, ConsentOverHttp) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(response)
        .mount(&server)
        .await;
    let mut config = HttpJudgeConfig::new(format!("{}/v1", server.uri()), "fake-model", None);
    config.timeout = Duration::from_millis(400);
    config.max_attempts = 1;
    (server, ConsentOverHttp(HttpJudge::new(config).unwrap()))
}

fn answering(member: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(chat(&format!(r#"{{"1": {member}}}"#)))
}

const YES_AT_9: &str =
    r#"{"verdict":"satisfied","evidence_event":9,"rationale":"the user agreed to it"}"#;
const NO: &str = r#"{"verdict":"not_satisfied","rationale":"the user asked a question"}"#;

async fn requests(server: &MockServer) -> Vec<Request> {
    server.received_requests().await.unwrap()
}

async fn push(session: &mut Session, events: Vec<Event>, judge: &dyn Judge) -> Vec<EventReport> {
    let mut out = Vec::new();
    for event in events {
        out.push(session.push_async(event, judge).await.unwrap());
    }
    out
}

/// The summary of `#O1`, `reply` (event 9, if any) and the cancel: the
/// session and the report on the cancel.
async fn cancel_after(reply: Option<&str>, judge: &dyn Judge) -> (Session, EventReport) {
    let mut session = Session::new(runtime(), Schedule::Workflow);
    let mut events = asked("#O1", "pending");
    events.extend(reply.map(user));
    events.push(cancel("c4", "#O1"));
    let report = push(&mut session, events, judge).await.pop().unwrap();
    (session, report)
}

/// [`cancel_after`] the undecided reply with a judge that answers at once.
fn cancel_after_sync(judge: &dyn SyncJudge) -> (Session, EventReport) {
    let mut session = Session::new(runtime(), Schedule::Workflow);
    let mut events = asked("#O1", "pending");
    events.push(user(UNDECIDED));
    events.push(cancel("c4", "#O1"));
    let mut last = None;
    for event in events {
        last = Some(session.push(event, judge).unwrap());
    }
    (session, last.unwrap())
}

fn consent_of(report: &EventReport) -> ConsentState {
    match &report.verdict {
        GateVerdict::Confirm { consent, .. } => *consent,
        other => panic!("expected confirm, got {other:?}"),
    }
}

#[tokio::test]
async fn the_offline_reader_leaves_the_reply_undecided() {
    // The premise of every test below: offline, the write is `confirm`.
    let (session, report) = cancel_after_sync(&OfflineJudge);
    assert_eq!(consent_of(&report), ConsentState::Qualified);
    assert!(report.judge.iter().all(|n| !n.node.ends_with("#consent")));
    assert!(session.snapshot().consents.is_empty());
}

#[tokio::test]
async fn the_judges_yes_allows_and_names_the_turn_it_read() {
    let (server, judge) = judged_by(answering(YES_AT_9)).await;
    let (session, report) = cancel_after(Some(UNDECIDED), &judge).await;
    assert_eq!(
        report.verdict,
        GateVerdict::Allow {
            step: "cancel.authorize".to_owned(),
            request: [("order", "#O1"), ("user", "u1")]
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            approved: None,
            consent_by_judge: Some(ConsentByJudge {
                evidence: EventIdx(9)
            }),
        }
    );
    let note = report
        .judge
        .iter()
        .find(|n| n.node == "cancel.confirm#consent")
        .unwrap_or_else(|| panic!("no consent note: {:?}", report.judge));
    assert_eq!(note.rationale, "the user agreed to it");
    let json = serde_json::to_string(&report).unwrap();
    assert!(
        json.contains(r#""consent_by_judge":{"evidence":9}"#),
        "{json}"
    );
    // One question, one call, its prompt the consent question on the call.
    let received = requests(&server).await;
    assert_eq!(received.len(), 1);
    let body: Json = serde_json::from_slice(&received[0].body).unwrap();
    let prompt = body["messages"][1]["content"].as_str().unwrap();
    assert!(prompt.contains("Type: consent"), "{prompt}");
    assert!(
        prompt.contains("cancel_pending_order: Cancel order #O1 (no longer needed)?"),
        "{prompt}"
    );
    // The slice starts at the agent's request for the decision.
    assert!(prompt.contains("Events: 8 to 9"), "{prompt}");
    assert!(!prompt.contains("[7]"), "{prompt}");
    // Counted as the server reported it.
    let usage = session.usage();
    assert_eq!(
        (usage.calls, usage.input_tokens, usage.output_tokens),
        (1, PROMPT_TOKENS, COMPLETION_TOKENS)
    );
    assert_eq!(
        session.snapshot().consents[0].answer,
        JudgedConsent::Agreed {
            evidence: EventIdx(9)
        }
    );
}

#[tokio::test]
async fn the_judges_no_blocks() {
    let (server, judge) = judged_by(answering(NO)).await;
    let (_, report) = cancel_after(Some(UNDECIDED), &judge).await;
    let GateVerdict::Block {
        reason,
        step,
        explanation,
        ..
    } = &report.verdict
    else {
        panic!("expected block, got {:?}", report.verdict);
    };
    assert_eq!(*reason, Reason::DialogueUnmet);
    assert_eq!(step.as_deref(), Some("cancel.confirm"));
    assert!(
        explanation
            .starts_with("the judge found no consent to Cancel order #O1 (no longer needed)?"),
        "{explanation}"
    );
    assert_eq!(requests(&server).await.len(), 1);
}

#[tokio::test]
async fn any_other_answer_asks_the_host() {
    let cases = [
        ("unknown", answering(r#"{"verdict":"unknown"}"#)),
        (
            "garbage JSON",
            ResponseTemplate::new(200).set_body_json(chat("{not json")),
        ),
        (
            "a yes citing the agent's turn",
            answering(r#"{"verdict":"satisfied","evidence_event":8}"#),
        ),
        ("HTTP 500", ResponseTemplate::new(500)),
        (
            "a timeout",
            answering(YES_AT_9).set_delay(Duration::from_secs(3)),
        ),
    ];
    for (name, response) in cases {
        let (server, judge) = judged_by(response).await;
        let (session, report) = cancel_after(Some(UNDECIDED), &judge).await;
        assert_eq!(consent_of(&report), ConsentState::Unknown, "{name}");
        assert!(!report.verdict.is_block(), "{name}");
        assert_eq!(requests(&server).await.len(), 1, "{name}");
        assert_eq!(session.usage().calls, 1, "{name}");
        assert_eq!(
            session.snapshot().consents[0].answer,
            JudgedConsent::Unknown,
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_consent_never_answered_is_asked_too() {
    let (server, judge) = judged_by(answering(NO)).await;
    let (_, report) = cancel_after(None, &judge).await;
    assert!(report.verdict.is_block(), "{:?}", report.verdict);
    let received = requests(&server).await;
    assert_eq!(received.len(), 1);
    let body: Json = serde_json::from_slice(&received[0].body).unwrap();
    let prompt = body["messages"][1]["content"].as_str().unwrap();
    assert!(prompt.contains("Events: 8 to 8"), "{prompt}");
}

#[tokio::test]
async fn a_refusal_the_reader_is_sure_of_never_reaches_the_judge() {
    let (server, judge) = judged_by(answering(YES_AT_9)).await;
    let (_, report) = cancel_after(Some("No, don't cancel it."), &judge).await;
    assert!(report.verdict.is_block(), "{:?}", report.verdict);
    assert_eq!(requests(&server).await.len(), 0);
}

#[tokio::test]
async fn a_formal_failure_never_reaches_the_judge() {
    let (server, judge) = judged_by(answering(YES_AT_9)).await;
    let mut session = Session::new(runtime(), Schedule::Workflow);
    let mut events = asked("#O2", "delivered");
    events.push(user(UNDECIDED));
    events.push(cancel("c4", "#O2"));
    let report = push(&mut session, events, &judge).await.pop().unwrap();
    assert!(report.verdict.is_block(), "{:?}", report.verdict);
    assert_eq!(requests(&server).await.len(), 0);
}

#[tokio::test]
async fn the_question_is_asked_once_per_write() {
    let (server, judge) = judged_by(answering(r#"{"verdict":"unknown"}"#)).await;
    let (mut session, report) = cancel_after(Some(UNDECIDED), &judge).await;
    assert_eq!(consent_of(&report), ConsentState::Unknown);
    // The host approves; the resubmitted call runs on the approval.
    let approval = Event::Approval {
        call: "c4".into(),
        granted: true,
        by: Approver::User,
    };
    let reports = push(&mut session, vec![approval, cancel("c5", "#O1")], &judge).await;
    let GateVerdict::Allow {
        approved: Some(approved),
        consent_by_judge: None,
        ..
    } = &reports[1].verdict
    else {
        panic!(
            "expected an allow on the approval, got {:?}",
            reports[1].verdict
        );
    };
    assert_eq!(approved.call, "c4");
    assert_eq!(requests(&server).await.len(), 1, "asked again");
}

#[tokio::test]
async fn an_identical_call_takes_the_answer_until_the_user_says_more() {
    let (server, judge) = judged_by(answering(r#"{"verdict":"unknown"}"#)).await;
    let (mut session, report) = cancel_after(Some(UNDECIDED), &judge).await;
    assert_eq!(consent_of(&report), ConsentState::Unknown);
    // The same call again at once: nothing the user said changed.
    let again = push(&mut session, vec![cancel("c5", "#O1")], &judge).await;
    assert_eq!(consent_of(&again[0]), ConsentState::Unknown);
    assert_eq!(requests(&server).await.len(), 1);
    // The user says something new: the question is asked again.
    let more = push(
        &mut session,
        vec![user("Also, can I keep the shirt?"), cancel("c6", "#O1")],
        &judge,
    )
    .await;
    assert_eq!(consent_of(&more[1]), ConsentState::Unknown);
    assert_eq!(requests(&server).await.len(), 2);
    assert_eq!(session.snapshot().consents.len(), 2);
}

#[tokio::test]
async fn a_restored_session_decides_the_write_as_the_judge_did() {
    let (server, judge) = judged_by(answering(YES_AT_9)).await;
    let (session, report) = cancel_after(Some(UNDECIDED), &judge).await;
    assert!(matches!(report.verdict, GateVerdict::Allow { .. }));
    let saved = serde_json::to_string(&session.snapshot()).unwrap();
    let state = SessionState::from_json(&saved).unwrap();
    assert_eq!(state.consents.len(), 1);
    // An approval of the allowed call names no call held for the host:
    // restored with the judge's answer, the session held none.
    let approval = Event::Approval {
        call: "c4".into(),
        granted: true,
        by: Approver::User,
    };
    let mut restored = Session::restore(runtime(), state.clone()).unwrap();
    assert_eq!(restored.snapshot(), session.snapshot());
    let after = restored.push(approval.clone(), &OfflineJudge).unwrap();
    assert!(!after.anomalies.is_empty(), "{after:?}");
    // Without the answer the same events would have held the call.
    let mut forgetful = state;
    forgetful.consents.clear();
    let mut forgetful = Session::restore(runtime(), forgetful).unwrap();
    let after = forgetful.push(approval, &OfflineJudge).unwrap();
    assert!(after.anomalies.is_empty(), "{after:?}");
    assert_eq!(requests(&server).await.len(), 1, "a restore asks nothing");
}

#[tokio::test]
async fn a_replay_with_the_recorded_answers_decides_alike() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("verdicts.jsonl");
    let (server, judge) = judged_by(answering(YES_AT_9)).await;
    let recording = RecordingJudge::new(judge, &record).unwrap();
    let (_, live) = cancel_after(Some(UNDECIDED), &recording).await;
    drop(recording);
    assert!(matches!(live.verdict, GateVerdict::Allow { .. }));
    let recorded = RecordedJudge::from_path(&record).unwrap();
    assert!(recorded.decides_consent());
    let (_, replayed) = cancel_after_sync(&recorded);
    assert_eq!(replayed.verdict, live.verdict);
    assert_eq!(requests(&server).await.len(), 1, "the replay asked nobody");
    // A recording of the offline judge answered no consent question.
    assert!(!RecordedJudge::parse("").unwrap().decides_consent());
}
