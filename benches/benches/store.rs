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
            control: Some(bundle.control),
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

/// `STORE_PROFILE=<full|normal>:<events>[:fresh]`: skip criterion and
/// repeat the timed append for ten seconds (under `perf record` or
/// `valgrind --tool=callgrind` if wanted), printing the median and p99 of
/// the individually timed appends and the database's and WAL's sizes at the
/// end. With `fresh`, every append goes to a new database file, so the
/// database does not grow with the number of sessions the setup wrote:
/// what remains is the cost of the session's own length.
fn profile(spec: &str) {
    let mut parts = spec.split(':');
    let durability = match parts.next() {
        Some("full") => Durability::Full,
        _ => Durability::Normal,
    };
    let events: usize = parts.next().and_then(|n| n.parse().ok()).unwrap_or(1_000);
    let fresh = parts.next() == Some("fresh");
    let case = case(events);
    let Some((last, earlier)) = case.verdicts.split_last() else {
        eprintln!("empty conversation");
        std::process::exit(1)
    };
    let dir = tempfile::tempdir().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let shared = dir.path().join("shared.db");
    let mut store = Store::open(&shared, durability).unwrap_or_else(fail);
    let mut times = Vec::new();
    let start = std::time::Instant::now();
    let mut sessions = 0u64;
    while start.elapsed() < std::time::Duration::from_secs(10) {
        sessions += 1;
        if fresh {
            // Dropped (closed) before the file is removed and reopened.
            drop(store);
            let path = dir.path().join(format!("fresh{}.db", sessions % 2));
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
            }
            store = Store::open(&path, durability).unwrap_or_else(fail);
        }
        let mut handle = store
            .claim(&format!("s{sessions}"))
            .and_then(|mut h| h.create(&case.meta).map(|()| h))
            .and_then(|mut h| h.append(&case.before, earlier).map(|()| h))
            .unwrap_or_else(fail);
        let t = std::time::Instant::now();
        timed_append(&mut handle, &case.after, last).unwrap_or_else(fail);
        times.push(t.elapsed());
    }
    times.sort();
    let at = |q: f64| {
        let i = ((times.len() as f64 * q).ceil() as usize).saturating_sub(1);
        times.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e6)
    };
    let size = |name: &str| std::fs::metadata(dir.path().join(name)).map_or(0, |m| m.len());
    println!(
        "{spec}: {} appends, median {:.1} µs, p90 {:.1} µs, p99 {:.1} µs, max {:.1} µs; shared.db {} KiB, WAL {} KiB",
        times.len(),
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0),
        size("shared.db") / 1024,
        size("shared.db-wal") / 1024
    );
}

fn fail<T>(e: turnstile_store::StoreError) -> T {
    eprintln!("{e}");
    std::process::exit(1)
}

/// The measured append, by name for `callgrind --toggle-collect=*timed_append*`.
#[inline(never)]
fn timed_append(
    handle: &mut turnstile_store::SessionHandle,
    after: &SessionState,
    verdict: &serde_json::Value,
) -> Result<(), turnstile_store::StoreError> {
    handle.append(after, std::slice::from_ref(verdict))
}

fn main() {
    if let Ok(spec) = std::env::var("STORE_PROFILE") {
        profile(&spec);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

criterion::criterion_group!(benches, bench);
