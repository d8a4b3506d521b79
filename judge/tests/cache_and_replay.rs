//! The verdict cache (persistence, torn and garbled lines, zero-call re-runs;
//! over a synchronous judge and, behind [`Immediate`], as an awaited one)
//! and recording/replay round trips.

// Test helpers outside #[test] functions panic on broken fixtures on purpose.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use turnstile_judge::{
    Branch, CacheKey, CachingJudge, Immediate, Judge, JudgeRequest, Judgement, OfflineJudge,
    Question, RecordedJudge, RecordingJudge, Role, SyncJudge, Turn, Usage, Verdict, VerdictCache,
};

/// The offline judge, counting calls and reporting one model call each.
#[derive(Default)]
struct Counting {
    calls: AtomicU64,
}

impl SyncJudge for Counting {
    fn name(&self) -> &str {
        "counting"
    }

    fn judge_batch(&self, requests: &[JudgeRequest]) -> Vec<Judgement> {
        requests
            .iter()
            .map(|request| {
                self.calls.fetch_add(1, Ordering::SeqCst);
                let mut j = OfflineJudge::new().decide(request);
                j.usage.calls = 1;
                j.usage.input_tokens = 100;
                j
            })
            .collect()
    }
}

/// `judge`'s answer to one request.
fn one(judge: &dyn SyncJudge, request: &JudgeRequest) -> Judgement {
    judge.judge_batch(std::slice::from_ref(request)).remove(0)
}

/// A fresh path in a per-process scratch directory (under the target dir's
/// temp area), so parallel tests and reruns never share files.
fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("turnstile-judge-test-{}", std::process::id()));
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

fn classify(reply: &str) -> JudgeRequest {
    JudgeRequest {
        node_id: "classify".into(),
        question: Question::Classify {
            branches: vec![
                Branch {
                    label: "cancel".into(),
                    description: String::new(),
                    keywords: vec!["cancel".into()],
                    actions: Vec::new(),
                },
                Branch {
                    label: "return".into(),
                    description: String::new(),
                    keywords: vec!["return".into(), "refund".into()],
                    actions: Vec::new(),
                },
            ],
        },
        ..consent("classify", reply)
    }
}

/// Definitive answers only, so a cached re-run needs no call at all.
fn corpus() -> Vec<JudgeRequest> {
    vec![
        consent("a.confirm", "Yes, please proceed."),
        consent("a.confirm", "No, not yet."),
        consent("b.confirm", "Yes—go ahead"),
        consent("b.confirm", "Could you tell me the fee first?"),
        classify("I want to return my shoes for a refund"),
        classify("Please cancel my order"),
    ]
}

/// Awaited: the cache over a synchronous judge behind [`Immediate`], asked
/// one question and a batch at a time.
#[tokio::test]
async fn cached_rerun_is_identical_with_zero_calls() {
    let path = temp_path("cache.jsonl");
    let (cache, report) = VerdictCache::open(&path).unwrap();
    assert_eq!(report.entries, 0);
    let first = CachingJudge::new(Immediate(Counting::default()), cache);
    let run1 = Judge::judge_batch(&first, &corpus()).await;
    assert_eq!(first.inner().0.calls.load(Ordering::SeqCst), 6);
    assert!(run1.iter().all(|j| j.verdict.is_definitive()));
    let usage1: Usage = run1.iter().map(|j| j.usage).sum();
    assert_eq!((usage1.calls, usage1.cache_hits), (6, 0));
    drop(first);

    let (cache, report) = VerdictCache::open(&path).unwrap();
    assert_eq!(report.entries, 6);
    assert!(!report.has_warnings());
    let second = CachingJudge::new(Immediate(Counting::default()), cache);
    let mut run2 = Vec::new();
    for request in corpus() {
        run2.push(second.judge(&request).await);
    }
    assert_eq!(second.inner().0.calls.load(Ordering::SeqCst), 0);
    let verdicts = |run: &[Judgement]| run.iter().map(|j| j.verdict.clone()).collect::<Vec<_>>();
    assert_eq!(verdicts(&run1), verdicts(&run2));
    let usage2: Usage = run2.iter().map(|j| j.usage).sum();
    assert_eq!(
        usage2,
        Usage {
            cache_hits: 6,
            ..Usage::default()
        }
    );
    // The batch path hits the cache too.
    let run3 = Judge::judge_batch(&second, &corpus()).await;
    assert_eq!(second.inner().0.calls.load(Ordering::SeqCst), 0);
    assert_eq!(verdicts(&run1), verdicts(&run3));
}

#[test]
fn verdicts_cached_under_an_older_bundle_id_answer_once_adopted() {
    let path = temp_path("older.jsonl");
    let (cache, _) = VerdictCache::open(&path).unwrap();
    let older = CachingJudge::new(Counting::default(), cache);
    older.judge_batch(&corpus());
    drop(older);
    // The same bundle under its content id: nothing matches until adopted.
    let current = "c".repeat(64);
    let renamed: Vec<JudgeRequest> = corpus()
        .into_iter()
        .map(|mut r| {
            r.bundle_hash.clone_from(&current);
            r
        })
        .collect();
    let (cache, _) = VerdictCache::open(&path).unwrap();
    assert_eq!(cache.adopt_bundle_ids(&["other".to_owned()], &current), 0);
    assert_eq!(cache.adopt_bundle_ids(&["bundle".to_owned()], &current), 6);
    let judge = CachingJudge::new(Counting::default(), cache);
    judge.judge_batch(&renamed);
    assert_eq!(judge.inner().calls.load(Ordering::SeqCst), 0);
}

/// On the calling thread: the cache over a synchronous judge, the same
/// answers, the second run from the cache only.
#[test]
fn a_synchronous_cached_rerun_asks_nothing() {
    let path = temp_path("sync-cache.jsonl");
    let (cache, _) = VerdictCache::open(&path).unwrap();
    let first = CachingJudge::new(Counting::default(), cache);
    let run1 = first.judge_batch(&corpus());
    assert_eq!(first.inner().calls.load(Ordering::SeqCst), 6);
    drop(first);
    let (cache, report) = VerdictCache::open(&path).unwrap();
    assert_eq!(report.entries, 6);
    let second = CachingJudge::new(Counting::default(), cache);
    let run2 = second.judge_batch(&corpus());
    assert_eq!(second.inner().calls.load(Ordering::SeqCst), 0);
    let verdicts = |run: &[Judgement]| run.iter().map(|j| j.verdict.clone()).collect::<Vec<_>>();
    assert_eq!(verdicts(&run1), verdicts(&run2));
    assert!(run2.iter().all(|j| j.usage == Usage::cache_hit()));
}

#[test]
fn unknown_verdicts_are_not_cached() {
    let judge = CachingJudge::new(Counting::default(), VerdictCache::in_memory());
    let request = consent("a.confirm", "I want a coffee."); // no yes or no -> Unknown
    for _ in 0..2 {
        assert!(matches!(
            one(&judge, &request).verdict,
            Verdict::Unknown { .. }
        ));
    }
    assert_eq!(judge.inner().calls.load(Ordering::SeqCst), 2);
    assert!(judge.cache().is_empty());
}

#[test]
fn keys_separate_judges_nodes_and_bundles() {
    let r = consent("a.confirm", "yes");
    let k = CacheKey::new(&r, "m1");
    assert_ne!(k, CacheKey::new(&r, "m2"));
    let mut other = r.clone();
    other.node_id = "b.confirm".into();
    assert_ne!(k, CacheKey::new(&other, "m1"));
    other = r.clone();
    other.bundle_hash = "bundle2".into();
    assert_ne!(k, CacheKey::new(&other, "m1"));
    other = r.clone();
    other.bindings.insert("order".into(), "#W2".into());
    assert_ne!(k, CacheKey::new(&other, "m1"));
}

fn entry_line(node: &str) -> String {
    let request = consent(node, "yes");
    let key = CacheKey::new(&request, "counting");
    let mut v = serde_json::to_value(&key).unwrap();
    v["judgement"] = serde_json::to_value(Judgement::new(
        Verdict::Satisfied { evidence_event: 6 },
        "ok",
    ))
    .unwrap();
    serde_json::to_string(&v).unwrap()
}

#[test]
fn torn_last_line_is_ignored_and_cut() {
    let path = temp_path("torn.jsonl");
    let torn = &entry_line("c.confirm")[..30];
    std::fs::write(
        &path,
        format!(
            "{}\n{}\n{torn}",
            entry_line("a.confirm"),
            entry_line("b.confirm")
        ),
    )
    .unwrap();
    let (cache, report) = VerdictCache::open(&path).unwrap();
    assert_eq!(report.entries, 2);
    assert_eq!(report.torn_tail, 1);
    assert!(report.garbled_lines.is_empty());
    let judge = CachingJudge::new(Counting::default(), cache);
    one(&judge, &consent("a.confirm", "yes"));
    assert_eq!(judge.inner().calls.load(Ordering::SeqCst), 0);
    one(&judge, &consent("c.confirm", "yes"));
    assert_eq!(judge.inner().calls.load(Ordering::SeqCst), 1);
    assert!(judge.cache().write_errors().is_empty());
    drop(judge);
    let (_, report) = VerdictCache::open(&path).unwrap();
    assert_eq!(report.entries, 3);
    assert!(!report.has_warnings(), "{report:?}");
}

#[test]
fn garbled_middle_line_is_reported_and_skipped() {
    let path = temp_path("garbled.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    writeln!(f, "{}", entry_line("a.confirm")).unwrap();
    writeln!(f, "{{\"bundle\": garbage").unwrap();
    writeln!(f).unwrap();
    writeln!(f, "{}", entry_line("b.confirm")).unwrap();
    drop(f);
    let (cache, report) = VerdictCache::open(&path).unwrap();
    assert_eq!(report.entries, 2);
    assert_eq!(report.garbled_lines, vec![2]);
    assert_eq!(report.torn_tail, 0);
    assert_eq!(cache.len(), 2);
}

#[test]
fn record_then_replay_round_trip() {
    let path = temp_path("verdicts.jsonl");
    let mut requests = corpus();
    requests.push(consent("c.confirm", "Hmm, let me see.")); // Unknown is recorded too
    let recorder = RecordingJudge::new(OfflineJudge::new(), &path).unwrap();
    let mut recorded = Vec::new();
    for r in &requests {
        recorded.push(one(&recorder, r).verdict);
    }
    assert!(recorder.write_errors().is_empty());
    drop(recorder);

    let replay = RecordedJudge::from_path(&path).unwrap();
    assert_eq!(replay.records().len(), requests.len());
    let replayed: Vec<Verdict> = replay
        .judge_batch(&requests)
        .into_iter()
        .map(|j| j.verdict)
        .collect();
    assert_eq!(recorded, replayed);
    // A slice that was never recorded fails closed.
    let unseen = consent("a.confirm", "Yes, absolutely, do it.");
    assert!(!one(&replay, &unseen).verdict.is_satisfied());
}
