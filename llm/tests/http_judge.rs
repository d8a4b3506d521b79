//! The HTTP judge against a real HTTP server on loopback (wiremock): answers,
//! retries, timeouts, malformed bodies, strict answer validation, and
//! batches (every question of a batch in one call, answers keyed by question
//! number, split beyond the configured size). Every failure case also
//! asserts that the verdict keeps a gate closed.

// Test helpers outside #[test] functions panic on broken fixtures on purpose.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use turnstile_judge::{Branch, Judge, JudgeRequest, Question, Role, Turn, Verdict};
use turnstile_llm::{HttpJudge, HttpJudgeConfig, Secret};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const KEY: &str = "sk-test-DO-NOT-LEAK-1234";

fn config(base: &str) -> HttpJudgeConfig {
    let mut c = HttpJudgeConfig::new(base, "judge-model", Some(Secret::new(KEY)));
    c.timeout = Duration::from_secs(2);
    c.connect_timeout = Duration::from_millis(500);
    c.backoff_base = Duration::from_millis(5);
    c.backoff_max = Duration::from_millis(20);
    c.retry_after_cap = Duration::from_millis(50);
    c
}

async fn server_and_judge() -> (MockServer, HttpJudge) {
    let server = MockServer::start().await;
    let judge = HttpJudge::new(config(&format!("{}/v1", server.uri()))).unwrap();
    (server, judge)
}

fn criterion_request() -> JudgeRequest {
    JudgeRequest {
        bundle_hash: "bundle-1".into(),
        node_id: "cancel.confirm".into(),
        question: Question::Criterion {
            text: "the user explicitly confirmed (yes) after the agent listed the action details"
                .into(),
            keywords: Vec::new(),
            said_by: Role::User,
            key_values: Vec::new(),
        },
        policy_excerpt: Some(
            "Before any consequential action, obtain explicit confirmation (yes).".into(),
        ),
        bindings: BTreeMap::from([("order".into(), "#W123".into())]),
        conversation: vec![
            Turn::new(3, Role::Agent, "I will cancel #W123. Confirm (yes/no)?"),
            Turn::new(4, Role::User, "Yes, go ahead."),
        ]
        .into(),
    }
}

fn classify_request() -> JudgeRequest {
    let branch = |label: &str| Branch {
        label: label.into(),
        description: format!("{label} requests"),
        keywords: vec![label.into()],
        actions: Vec::new(),
    };
    JudgeRequest {
        question: Question::Classify {
            branches: vec![branch("cancel"), branch("return"), branch("general")],
        },
        node_id: "classify".into(),
        ..criterion_request()
    }
}

fn chat(content: &str) -> Value {
    json!({
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 15, "total_tokens": 135}
    })
}

fn ok(content: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(chat(content))
}

/// A one-question answer: the member of question 1.
const SATISFIED: &str =
    r#"{"1": {"verdict":"satisfied","evidence_event":4,"rationale":"user said yes"}}"#;

async fn mount(server: &MockServer, response: ResponseTemplate) {
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(response)
        .mount(server)
        .await;
}

async fn calls(server: &MockServer) -> usize {
    server.received_requests().await.unwrap().len()
}

fn assert_closed(verdict: &Verdict) {
    assert!(matches!(verdict, Verdict::Unknown { .. }), "{verdict:?}");
    assert!(!verdict.is_satisfied());
}

#[tokio::test]
async fn correct_answer_and_request_shape() {
    let (server, judge) = server_and_judge().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .respond_with(ok(SATISFIED))
        .expect(1)
        .mount(&server)
        .await;
    let j = judge.judge(&criterion_request()).await;
    assert_eq!(j.verdict, Verdict::Satisfied { evidence_event: 4 });
    assert_eq!(j.rationale, "user said yes");
    assert_eq!(j.usage.calls, 1);
    assert_eq!(j.usage.input_tokens, 120);
    assert_eq!(j.usage.output_tokens, 15);
    assert!(j.usage.latency_micros > 0);

    let requests = server.received_requests().await.unwrap();
    let body: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(body["model"], "judge-model");
    assert_eq!(body["temperature"], 0);
    assert_eq!(body["response_format"]["type"], "json_object");
    assert_eq!(body["max_tokens"], 64, "one question's budget");
    let system = body["messages"][0]["content"].as_str().unwrap();
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("obtain explicit confirmation"));
    assert!(user.contains("[4] user: Yes, go ahead."));
    assert!(user.contains("order = #W123"));
    assert!(user.contains("Question 1\n"));
    assert!(
        !system.contains("#W123") && !system.contains("obtain explicit confirmation"),
        "variable parts stay out of the cached prefix"
    );
}

#[tokio::test]
async fn rate_limited_then_success() {
    let (server, judge) = server_and_judge().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    mount(&server, ok(SATISFIED)).await;
    let j = judge.judge(&criterion_request()).await;
    assert_eq!(j.verdict, Verdict::Satisfied { evidence_event: 4 });
    assert_eq!(calls(&server).await, 2);
    assert_eq!(j.usage.calls, 2);
}

#[tokio::test]
async fn retry_after_is_honoured_but_capped() {
    let (server, judge) = server_and_judge().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503).insert_header("Retry-After", "3600"))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    mount(&server, ok(SATISFIED)).await;
    let started = Instant::now();
    let j = judge.judge(&criterion_request()).await;
    assert_eq!(j.verdict, Verdict::Satisfied { evidence_event: 4 });
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn server_errors_exhaust_attempts() {
    let (server, judge) = server_and_judge().await;
    mount(&server, ResponseTemplate::new(500).set_body_string("boom")).await;
    let j = judge.judge(&criterion_request()).await;
    assert_closed(&j.verdict);
    assert_eq!(calls(&server).await, 3);
    assert_eq!(j.usage.calls, 3);
    let Verdict::Unknown { reason } = &j.verdict else {
        unreachable!()
    };
    assert!(reason.contains("500"), "{reason}");
}

#[tokio::test]
async fn hanging_server_times_out() {
    let server = MockServer::start().await;
    let mut c = config(&format!("{}/v1", server.uri()));
    c.timeout = Duration::from_millis(200);
    let judge = HttpJudge::new(c).unwrap();
    mount(&server, ok(SATISFIED).set_delay(Duration::from_secs(5))).await;
    let started = Instant::now();
    let j = judge.judge(&criterion_request()).await;
    assert_closed(&j.verdict);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let Verdict::Unknown { reason } = &j.verdict else {
        unreachable!()
    };
    assert!(reason.contains("timed out"), "{reason}");
}

#[tokio::test]
async fn unreachable_server_is_unknown_after_retries() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let judge = HttpJudge::new(config(&format!("http://127.0.0.1:{port}/v1"))).unwrap();
    let j = judge.judge(&criterion_request()).await;
    assert_closed(&j.verdict);
    assert_eq!(j.usage.calls, 3);
}

#[tokio::test]
async fn malformed_json_body() {
    let (server, judge) = server_and_judge().await;
    mount(
        &server,
        ResponseTemplate::new(200).set_body_raw("this is not json {", "application/json"),
    )
    .await;
    assert_closed(&judge.judge(&criterion_request()).await.verdict);
}

#[tokio::test]
async fn truncated_body() {
    let (server, judge) = server_and_judge().await;
    let full = serde_json::to_string(&chat(SATISFIED)).unwrap();
    let cut = &full[..full.len() / 2];
    mount(
        &server,
        ResponseTemplate::new(200).set_body_raw(cut, "application/json"),
    )
    .await;
    assert_closed(&judge.judge(&criterion_request()).await.verdict);
}

#[tokio::test]
async fn prose_around_the_json_is_tolerated() {
    let (server, judge) = server_and_judge().await;
    let content =
        format!("Sure. Here is my judgement:\n```json\n{SATISFIED}\n```\nHope that helps!");
    mount(&server, ok(&content)).await;
    assert_eq!(
        judge.judge(&criterion_request()).await.verdict,
        Verdict::Satisfied { evidence_event: 4 }
    );
}

#[tokio::test]
async fn truncated_answer_content() {
    let (server, judge) = server_and_judge().await;
    mount(
        &server,
        ok(r#"{"1": {"verdict":"satisfied","evidence_event":4,"rationale":"the user sa"#),
    )
    .await;
    assert_closed(&judge.judge(&criterion_request()).await.verdict);
}

#[tokio::test]
async fn wrong_schema() {
    let (server, judge) = server_and_judge().await;
    mount(&server, ok(r#"{"1": {"verdict": 3}}"#)).await;
    assert_closed(&judge.judge(&criterion_request()).await.verdict);
}

#[tokio::test]
async fn missing_choices_and_empty_content() {
    let (server, judge) = server_and_judge().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"choices": []})))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    mount(&server, ok("   ")).await;
    assert_closed(&judge.judge(&criterion_request()).await.verdict);
    assert_closed(&judge.judge(&criterion_request()).await.verdict);
}

#[tokio::test]
async fn evidence_outside_the_slice() {
    let (server, judge) = server_and_judge().await;
    mount(
        &server,
        ok(r#"{"1": {"verdict":"satisfied","evidence_event":40}}"#),
    )
    .await;
    assert_closed(&judge.judge(&criterion_request()).await.verdict);
}

#[tokio::test]
async fn evidence_must_be_a_user_turn() {
    let (server, judge) = server_and_judge().await;
    mount(
        &server,
        ok(r#"{"1": {"verdict":"satisfied","evidence_event":3}}"#),
    )
    .await;
    assert_closed(&judge.judge(&criterion_request()).await.verdict);
}

#[tokio::test]
async fn not_satisfied_is_passed_through() {
    let (server, judge) = server_and_judge().await;
    mount(
        &server,
        ok(r#"{"1": {"verdict":"not_satisfied","rationale":"no"}}"#),
    )
    .await;
    let v = judge.judge(&criterion_request()).await.verdict;
    assert_eq!(v, Verdict::NotSatisfied);
    assert!(!v.is_satisfied());
}

#[tokio::test]
async fn classify_label_must_be_a_branch() {
    let (server, judge) = server_and_judge().await;
    Mock::given(method("POST"))
        .respond_with(ok(r#"{"1": {"label":"refund","evidence_event":4}}"#))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    mount(
        &server,
        ok(r#"{"1": {"label":"cancel","evidence_event":4}}"#),
    )
    .await;
    assert_closed(&judge.judge(&classify_request()).await.verdict);
    assert_eq!(
        judge.judge(&classify_request()).await.verdict,
        Verdict::Chosen {
            label: "cancel".into(),
            evidence_event: 4
        }
    );
}

#[tokio::test]
async fn api_key_never_leaks() {
    let (server, judge) = server_and_judge().await;
    // A confused proxy that echoes the Authorization header back.
    mount(
        &server,
        ResponseTemplate::new(401).set_body_string(format!("invalid api key Bearer {KEY}")),
    )
    .await;
    let j = judge.judge(&criterion_request()).await;
    assert_closed(&j.verdict);
    let Verdict::Unknown { reason } = &j.verdict else {
        unreachable!()
    };
    assert!(reason.contains("401"), "{reason}");
    assert!(!reason.contains(KEY), "{reason}");
    assert!(!j.rationale.contains(KEY));
    assert!(!format!("{j:?}").contains(KEY));
    assert!(!format!("{judge:?}").contains(KEY));
    assert!(!format!("{:?}", judge.config()).contains(KEY));
    assert_eq!(format!("{:?}", Secret::new(KEY)), "***");
    assert_eq!(calls(&server).await, 1, "4xx other than 429 is not retried");
}

/// The number of questions a call asks, read from the prompt's last line
/// (`... keys "1" to "N".`).
fn questions_asked(request: &Request) -> usize {
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    let user = body["messages"][1]["content"].as_str().unwrap();
    let count = user.matches("\nQuestion ").count() + usize::from(user.starts_with("Question "));
    assert!(
        user.contains(&format!("keys \"1\" to \"{count}\"")),
        "{user}"
    );
    count
}

/// A server that answers every question of each call with `answer`.
fn answering_all(answer: &'static str) -> impl Fn(&Request) -> ResponseTemplate {
    move |request: &Request| {
        let members: Vec<String> = (1..=questions_asked(request))
            .map(|i| format!("\"{i}\": {answer}"))
            .collect();
        ok(&format!("{{{}}}", members.join(", ")))
    }
}

fn user_message(request: &Request) -> String {
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    body["messages"][1]["content"].as_str().unwrap().to_owned()
}

/// Three questions about one conversation: a confirmation, a classification,
/// and a confirmation whose slice starts later.
fn mixed_batch() -> Vec<JudgeRequest> {
    let mut later = criterion_request();
    later.node_id = "return.confirm".into();
    later.conversation.make_mut().remove(0);
    vec![criterion_request(), classify_request(), later]
}

#[tokio::test]
async fn a_batch_is_one_call_with_numbered_questions() {
    let (server, judge) = server_and_judge().await;
    mount(
        &server,
        ok(
            r#"{"1": {"verdict":"satisfied","evidence_event":4,"rationale":"said yes"},
               "2": {"label":"cancel","evidence_event":4},
               "3": {"verdict":"not_satisfied"}}"#,
        ),
    )
    .await;
    let out = judge.judge_batch(&mixed_batch()).await;
    assert_eq!(out.len(), 3);
    assert_eq!(out[0].verdict, Verdict::Satisfied { evidence_event: 4 });
    assert_eq!(out[0].rationale, "said yes");
    assert_eq!(
        out[1].verdict,
        Verdict::Chosen {
            label: "cancel".into(),
            evidence_event: 4
        }
    );
    assert_eq!(out[2].verdict, Verdict::NotSatisfied);
    // The call's cost is booked once, on its first question.
    assert_eq!(out[0].usage.calls, 1);
    assert_eq!(out[0].usage.input_tokens, 120);
    assert_eq!(out[1].usage, Default::default());
    assert_eq!(out[2].usage, Default::default());
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    let body: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(body["max_tokens"], 3 * 64);
    let user = user_message(&requests[0]);
    assert_eq!(questions_asked(&requests[0]), 3);
    assert_eq!(
        user.matches("[4] user: Yes, go ahead.").count(),
        1,
        "{user}"
    );
    assert!(
        user.contains("Events: 3 to 4 of the conversation above"),
        "{user}"
    );
    assert!(
        user.contains("Events: 4 to 4 of the conversation above"),
        "{user}"
    );
    assert_eq!(
        user.matches("obtain explicit confirmation").count(),
        1,
        "{user}"
    );
}

#[tokio::test]
async fn reordered_answers_go_to_their_questions() {
    let (server, judge) = server_and_judge().await;
    mount(
        &server,
        ok(r#"```json
{"3": {"verdict":"satisfied","evidence_event":4},
 "1": {"verdict":"not_satisfied"},
 "2": {"label":"general","evidence_event":4}}
```"#),
    )
    .await;
    let out = judge.judge_batch(&mixed_batch()).await;
    assert_eq!(out[0].verdict, Verdict::NotSatisfied);
    assert_eq!(
        out[1].verdict,
        Verdict::Chosen {
            label: "general".into(),
            evidence_event: 4
        }
    );
    assert_eq!(out[2].verdict, Verdict::Satisfied { evidence_event: 4 });
}

#[tokio::test]
async fn a_malformed_answer_closes_only_its_question() {
    let (server, judge) = server_and_judge().await;
    let mut requests = mixed_batch();
    requests.extend(mixed_batch());
    // 1 well-formed; 2 an invented label; 3 cites an event outside its
    // slice; 4 answered twice; 5 missing; 6 not an object; and answers to
    // questions that do not exist (0, 7).
    mount(
        &server,
        ok(r#"{"0": {"verdict":"satisfied","evidence_event":4},
               "1": {"verdict":"satisfied","evidence_event":4},
               "2": {"label":"refund","evidence_event":4},
               "3": {"verdict":"satisfied","evidence_event":3},
               "4": {"verdict":"satisfied","evidence_event":4},
               "4": {"verdict":"not_satisfied"},
               "6": "satisfied",
               "7": {"verdict":"satisfied","evidence_event":4}}"#),
    )
    .await;
    let out = judge.judge_batch(&requests).await;
    assert_eq!(out.len(), 6);
    assert_eq!(out[0].verdict, Verdict::Satisfied { evidence_event: 4 });
    for (i, judgement) in out.iter().enumerate().skip(1) {
        assert!(
            matches!(judgement.verdict, Verdict::Unknown { .. }),
            "question {}: {:?}",
            i + 1,
            judgement.verdict
        );
    }
    assert_eq!(calls(&server).await, 1);
}

#[tokio::test]
async fn garbage_closes_every_question_of_the_call() {
    for response in [
        ok("I am sorry, I cannot judge this."),
        ok(r#"{"1": {"verdict":"satisfied","evidence_event":4}, "2": {"label":"#),
        ResponseTemplate::new(200).set_body_raw("<html>bad gateway</html>", "text/html"),
        ResponseTemplate::new(200).set_body_json(json!({"choices": []})),
    ] {
        let (server, judge) = server_and_judge().await;
        mount(&server, response).await;
        let out = judge.judge_batch(&mixed_batch()).await;
        assert_eq!(out.len(), 3);
        for judgement in &out {
            assert_closed(&judgement.verdict);
        }
        assert_eq!(out.iter().map(|j| j.usage.calls).sum::<u64>(), 1);
    }
}

#[tokio::test]
async fn a_failed_call_closes_every_question() {
    let (server, judge) = server_and_judge().await;
    mount(&server, ResponseTemplate::new(500)).await;
    let out = judge.judge_batch(&mixed_batch()).await;
    assert_eq!(out.len(), 3);
    out.iter().for_each(|j| assert_closed(&j.verdict));
    assert_eq!(calls(&server).await, 3, "one call, retried as a whole");
    assert_eq!(out.iter().map(|j| j.usage.calls).sum::<u64>(), 3);
}

#[tokio::test]
async fn an_empty_batch_makes_no_call() {
    let (server, judge) = server_and_judge().await;
    mount(&server, ok(SATISFIED)).await;
    assert!(judge.judge_batch(&[]).await.is_empty());
    assert_eq!(calls(&server).await, 0);
}

/// A server answering with `response`, and a judge asking at most
/// `per_call` questions per call, 4 calls at once.
async fn split_judge(
    per_call: usize,
    response: impl wiremock::Respond + 'static,
) -> (MockServer, HttpJudge) {
    let server = MockServer::start().await;
    let mut c = config(&format!("{}/v1", server.uri()));
    c.max_questions_per_call = per_call;
    c.max_concurrency = 4;
    let judge = HttpJudge::new(c).unwrap();
    Mock::given(method("POST"))
        .respond_with(response)
        .mount(&server)
        .await;
    (server, judge)
}

#[tokio::test]
async fn batches_beyond_the_cap_are_split_and_keep_order() {
    let (server, judge) = split_judge(
        2,
        answering_all(r#"{"verdict":"satisfied","evidence_event":4}"#),
    )
    .await;
    let mut requests = vec![criterion_request(); 5];
    // One request whose slice lacks event 4: its answer is invalid.
    requests[2].conversation.make_mut().truncate(1);
    let out = judge.judge_batch(&requests).await;
    assert_eq!(out.len(), 5);
    for (i, judgement) in out.iter().enumerate() {
        assert_eq!(
            judgement.verdict.is_satisfied(),
            i != 2,
            "{i}: {judgement:?}"
        );
    }
    let received = server.received_requests().await.unwrap();
    let mut sizes: Vec<usize> = received.iter().map(questions_asked).collect();
    sizes.sort_unstable();
    assert_eq!(sizes, [1, 2, 2]);
    assert_eq!(out.iter().map(|j| j.usage.calls).sum::<u64>(), 3);
}

#[tokio::test]
async fn split_calls_run_concurrently() {
    let (server, judge) = split_judge(1, ok(SATISFIED).set_delay(Duration::from_millis(150))).await;
    let requests = vec![criterion_request(); 4];
    let started = Instant::now();
    let out = judge.judge_batch(&requests).await;
    let elapsed = started.elapsed();
    assert!(out.iter().all(|j| j.verdict.is_satisfied()));
    assert_eq!(calls(&server).await, 4);
    assert!(
        elapsed < Duration::from_millis(550),
        "ran sequentially: {elapsed:?}"
    );
}
