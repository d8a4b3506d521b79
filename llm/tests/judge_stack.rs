//! The `--judge` spec builder wires the verdict cache and the recorder around
//! the judge it names: a stack that answers at once for the offline and
//! recorded judges, usable where an awaited one is expected too.

// Test helpers outside #[test] functions panic on broken fixtures on purpose.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use turnstile_judge::{Judge, JudgeRequest, Judgement, Question, Role, SyncJudge, Turn, Verdict};
use turnstile_llm::{JudgeOptions, JudgeStack, SpecError, build};

/// A fresh path in a per-process scratch directory, so parallel tests and
/// reruns never share files.
fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("turnstile-llm-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{}-{name}", fastrand::u64(..)))
}

fn consent(node: &str, reply: &str) -> JudgeRequest {
    JudgeRequest {
        bundle_hash: "bundle".into(),
        node_id: node.into(),
        question: Question::Criterion {
            text: "the user explicitly confirmed (yes) after the agent listed the action details"
                .into(),
            keywords: Vec::new(),
            said_by: Role::User,
            key_values: Vec::new(),
        },
        policy_excerpt: None,
        bindings: BTreeMap::from([("order".into(), "#W1".into())]),
        conversation: vec![
            Turn::new(5, Role::Agent, "I will cancel #W1. Shall I proceed?"),
            Turn::new(6, Role::User, reply),
        ]
        .into(),
    }
}

/// Parses `spec` and builds it, as the CLI does: a judge that answers at once.
fn from_spec(spec: &str, options: &JudgeOptions) -> Result<Arc<dyn SyncJudge>, SpecError> {
    match build(&spec.parse()?, options)?.judge {
        JudgeStack::Immediate(judge) => Ok(judge),
        JudgeStack::Model(judge) => panic!("{spec} built a model judge: {}", judge.name()),
    }
}

fn one(judge: &dyn SyncJudge, request: &JudgeRequest) -> Judgement {
    judge.judge_batch(std::slice::from_ref(request)).remove(0)
}

#[test]
fn spec_wires_cache_and_recording() {
    let cache = temp_path("spec-cache.jsonl");
    let record = temp_path("spec-record.jsonl");
    let options = JudgeOptions {
        cache: Some(cache.clone()),
        record: Some(record.clone()),
        http: None,
        bundle_ids: Vec::new(),
    };
    let judge = from_spec("offline", &options).unwrap();
    let first = one(judge.as_ref(), &consent("a.confirm", "yes"));
    assert_eq!(first.verdict, Verdict::Satisfied { evidence_event: 6 });
    drop(judge);
    let judge = from_spec("offline", &options).unwrap();
    let second = one(judge.as_ref(), &consent("a.confirm", "yes"));
    assert_eq!(second.usage.cache_hits, 1);
    drop(judge);
    let replay = from_spec(
        &format!("recorded:{}", record.display()),
        &JudgeOptions::default(),
    )
    .unwrap();
    assert_eq!(
        one(replay.as_ref(), &consent("a.confirm", "yes")).verdict,
        Verdict::Satisfied { evidence_event: 6 }
    );
}

/// Where an awaited judge is expected (`serve`), the same stack answers the
/// same.
#[tokio::test]
async fn an_immediate_stack_answers_awaited_alike() {
    let judge = build(&"offline".parse().unwrap(), &JudgeOptions::default())
        .unwrap()
        .judge
        .into_async();
    let request = consent("a.confirm", "yes");
    let awaited = judge.judge(&request).await;
    let batch = judge.judge_batch(std::slice::from_ref(&request)).await;
    let immediate = one(
        from_spec("offline", &JudgeOptions::default())
            .unwrap()
            .as_ref(),
        &request,
    );
    assert_eq!(awaited, immediate);
    assert_eq!(batch, vec![immediate]);
}
