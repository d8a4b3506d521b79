//! The session store's cost per event: committing the n-th event of a
//! conversation (its row, its verdict, the judge's new verdicts and the
//! session's flags; one transaction) at n = 10 and 1,000, under each sync
//! policy: `synchronous=FULL` (every commit synced: an acknowledged
//! verdict survives power loss) and `NORMAL` (WAL synced at checkpoints:
//! survives a crash of the process). The cost must not grow with n: the
//! store appends, it never rewrites the conversation.
//!
//! Each commit is what `serve` commits: the event's delta
//! (`Session::delta`). Outside the timed region each sample gets a fresh
//! session holding the first n-1 events. The store is in the system's
//! temporary directory, so the FULL figures are that disk's fsync latency.
//!
//! Two modes skip criterion: `STORE_PROFILE` repeats one timed append (for
//! a profiler), `STORE_CONCURRENT` has N sessions commit at once and prints
//! the events per second they get from the store (its group commit).

use std::sync::Arc;

use criterion::{BatchSize, BenchmarkId, Criterion};
use turnstile_benches::shop_bundle;
use turnstile_engine::check_bundle;
use turnstile_engine::session::{BundleRuntime, DeltaMark, Schedule, Session, SessionDelta};
use turnstile_judge::OfflineJudge;
use turnstile_store::{Durability, SessionMeta, Store};

/// A conversation of the shop fixture pushed through a session: each
/// event's commit as `serve` makes it (the event's delta and its verdict),
/// and the commit of the first n-1 events at once (a benchmark's setup).
struct Case {
    commits: Vec<(SessionDelta, serde_json::Value)>,
    before_last: SessionDelta,
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
    let judge = OfflineJudge::new();
    let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
    let mut commits = Vec::new();
    let mut before_last = session.delta(DeltaMark::default());
    for event in trace.events.into_iter().take(events) {
        before_last = session.delta(DeltaMark::default());
        let mark = session.mark();
        let report = session.push(event, &judge).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1)
        });
        commits.push((
            session.delta(mark),
            serde_json::to_value(&report).unwrap_or_default(),
        ));
    }
    Case {
        commits,
        before_last,
        meta: SessionMeta {
            bundle: bundle.name.clone(),
            bundle_hash: bundle.hash.clone(),
            schedule: Schedule::Workflow,
            control: Some(bundle.control),
        },
    }
}

impl Case {
    /// The last event's commit, and the verdicts of the ones before it.
    fn split_last(&self) -> (&SessionDelta, &serde_json::Value, Vec<serde_json::Value>) {
        let Some(((last, verdict), earlier)) = self.commits.split_last() else {
            eprintln!("empty conversation");
            std::process::exit(1)
        };
        (
            last,
            verdict,
            earlier.iter().map(|(_, v)| v.clone()).collect(),
        )
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
        let (last, verdict, earlier) = case.split_last();
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
                            .and_then(|mut h| {
                                h.append_delta(&case.before_last, &earlier).map(|()| h)
                            })
                            .unwrap_or_else(fail);
                        let _ = &mut handle;
                        handle
                    },
                    |mut handle| {
                        handle
                            .append_delta(last, std::slice::from_ref(verdict))
                            .unwrap_or_else(fail);
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
    let durability = durability(parts.next());
    let events: usize = parts.next().and_then(|n| n.parse().ok()).unwrap_or(1_000);
    let fresh = parts.next() == Some("fresh");
    let case = case(events);
    let (last, verdict, earlier) = case.split_last();
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
            .and_then(|mut h| h.append_delta(&case.before_last, &earlier).map(|()| h))
            .unwrap_or_else(fail);
        let t = std::time::Instant::now();
        timed_append(&mut handle, last, verdict).unwrap_or_else(fail);
        times.push(t.elapsed());
    }
    times.sort();
    let at = |q: f64| percentile_micros(&times, q);
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

/// The sync policy a mode's spec names first (`full`, else `normal`).
fn durability(name: Option<&str>) -> Durability {
    match name {
        Some("full") => Durability::Full,
        _ => Durability::Normal,
    }
}

/// The `q` quantile of sorted `times`, in µs.
fn percentile_micros(times: &[std::time::Duration], q: f64) -> f64 {
    let i = ((times.len() as f64 * q).ceil() as usize).saturating_sub(1);
    times.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e6)
}

fn fail<T>(e: turnstile_store::StoreError) -> T {
    eprintln!("{e}");
    std::process::exit(1)
}

/// The measured append, by name for `callgrind --toggle-collect=*timed_append*`.
#[inline(never)]
fn timed_append(
    handle: &mut turnstile_store::SessionHandle,
    last: &SessionDelta,
    verdict: &serde_json::Value,
) -> Result<(), turnstile_store::StoreError> {
    handle.append_delta(last, std::slice::from_ref(verdict))
}

/// `STORE_CONCURRENT=<full|normal>:<sessions>[:<seconds>]`: skip criterion;
/// `sessions` threads each write sessions of a 40-event shop conversation
/// back to back, one event's commit at a time (as `serve` commits them),
/// into one store for `seconds` (default 10). Prints the events committed
/// per second over all threads and the percentiles of the individually
/// timed commits: what concurrent sessions get from the store alone.
fn concurrent(spec: &str) {
    let mut parts = spec.split(':');
    let durability = durability(parts.next());
    let sessions: usize = parts.next().and_then(|n| n.parse().ok()).unwrap_or(16);
    let seconds: u64 = parts.next().and_then(|n| n.parse().ok()).unwrap_or(10);
    let conversation = Arc::new(case(40));
    let dir = tempfile::tempdir().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let store = Store::open(&dir.path().join("concurrent.db"), durability).unwrap_or_else(fail);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    let start = std::time::Instant::now();
    let threads: Vec<_> = (0..sessions)
        .map(|thread| {
            let store = store.clone();
            let conversation = Arc::clone(&conversation);
            std::thread::spawn(move || {
                let mut times = Vec::new();
                let mut written = 0u64;
                while std::time::Instant::now() < deadline {
                    written += 1;
                    let mut handle = store
                        .claim(&format!("t{thread}-{written}"))
                        .and_then(|mut h| h.create(&conversation.meta).map(|()| h))
                        .unwrap_or_else(fail);
                    for (delta, verdict) in &conversation.commits {
                        let t = std::time::Instant::now();
                        handle
                            .append_delta(delta, std::slice::from_ref(verdict))
                            .unwrap_or_else(fail);
                        times.push(t.elapsed());
                        if std::time::Instant::now() >= deadline {
                            break;
                        }
                    }
                }
                times
            })
        })
        .collect();
    let mut times: Vec<std::time::Duration> = threads
        .into_iter()
        .flat_map(|t| {
            t.join().unwrap_or_else(|_| {
                eprintln!("a writer thread failed");
                std::process::exit(1)
            })
        })
        .collect();
    let elapsed = start.elapsed().as_secs_f64();
    times.sort();
    let at = |q: f64| percentile_micros(&times, q);
    println!(
        "{spec}: {sessions} concurrent sessions, {} commits in {elapsed:.1} s = {:.0} events/s; commit median {:.1} µs, p90 {:.1} µs, p99 {:.1} µs, max {:.1} µs",
        times.len(),
        times.len() as f64 / elapsed,
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0),
    );
}

fn main() {
    if let Ok(spec) = std::env::var("STORE_PROFILE") {
        profile(&spec);
        return;
    }
    if let Ok(spec) = std::env::var("STORE_CONCURRENT") {
        concurrent(&spec);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

criterion::criterion_group!(benches, bench);
