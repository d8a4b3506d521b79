//! The session store's cost per event: committing the n-th event of a
//! conversation (its row, its verdict, the judge's new verdicts and the
//! session's flags; one transaction) at n = 10 and 1,000, under each sync
//! policy: `synchronous=FULL` (every commit synced: an acknowledged
//! verdict survives power loss) and `NORMAL` (WAL synced at checkpoints:
//! survives a crash of the process). The cost must not grow with n: the
//! store appends, it never rewrites the conversation.
//!
//! Outside the timed region each sample gets a fresh session holding the
//! first n-1 events. The store is in the system's temporary directory, so
//! the FULL figures are that disk's fsync latency.

use std::sync::Arc;

use criterion::{BatchSize, BenchmarkId, Criterion};
use turnstile_benches::shop_bundle;
use turnstile_engine::check_bundle;
use turnstile_engine::session::{BundleRuntime, Schedule, Session, SessionState};
use turnstile_judge::OfflineJudge;
use turnstile_store::{Durability, SessionMeta, Store};

/// The session's state after n-1 and after n events, and the verdicts.
struct Case {
    before: SessionState,
    after: SessionState,
    verdicts: Vec<serde_json::Value>,
    meta: SessionMeta,
}

fn case(events: usize) -> Case {
    let bundle = Arc::new(check_bundle(&shop_bundle()).unwrap_or_else(|p| {
        eprintln!("{p:?}");
        std::process::exit(1)
    }));
    let (trace, _) = turnstile_benches::shop_trace(&bundle, events);
    let rt = BundleRuntime::new(Arc::clone(&bundle)).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let tokio = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1)
        });
    let judge = OfflineJudge::new();
    let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
    let mut verdicts = Vec::new();
    let mut before = session.snapshot();
    let total = trace.events.len().min(events);
    for (i, event) in trace.events.into_iter().take(total).enumerate() {
        if i + 1 == total {
            before = session.snapshot();
        }
        let report = tokio
            .block_on(session.push(event, &judge))
            .unwrap_or_else(|e| {
                eprintln!("{e}");
                std::process::exit(1)
            });
        verdicts.push(serde_json::to_value(&report).unwrap_or_default());
    }
    Case {
        before,
        after: session.snapshot(),
        verdicts,
        meta: SessionMeta {
            bundle: bundle.name.clone(),
            bundle_hash: bundle.hash.clone(),
            schedule: Schedule::Workflow,
        },
    }
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let mut group = c.benchmark_group("store_append");
    group.sample_size(30);
    let mut sessions = 0u64;
    for events in [10, 1_000] {
        let case = case(events);
        let (last, earlier) = case.verdicts.split_last().unwrap_or_else(|| {
            eprintln!("empty conversation");
            std::process::exit(1)
        });
        for (label, durability) in [("full", Durability::Full), ("normal", Durability::Normal)] {
            let store = Store::open(&dir.path().join(format!("{label}.db")), durability)
                .unwrap_or_else(|e| {
                    eprintln!("{e}");
                    std::process::exit(1)
                });
            group.bench_function(BenchmarkId::new(label, events), |b| {
                b.iter_batched(
                    || {
                        sessions += 1;
                        let mut handle = store
                            .claim(&format!("s{sessions}"))
                            .and_then(|mut h| h.create(&case.meta).map(|()| h))
                            .and_then(|mut h| h.append(&case.before, earlier).map(|()| h))
                            .unwrap_or_else(|e| {
                                eprintln!("{e}");
                                std::process::exit(1)
                            });
                        let _ = &mut handle;
                        handle
                    },
                    |mut handle| {
                        handle
                            .append(&case.after, std::slice::from_ref(last))
                            .unwrap_or_else(|e| {
                                eprintln!("{e}");
                                std::process::exit(1)
                            });
                        handle
                    },
                    BatchSize::PerIteration,
                );
            });
        }
    }
    group.finish();
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
