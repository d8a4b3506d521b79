//! The server's counters, exposed in the Prometheus text format at
//! `/metrics`: decisions by verdict, the decision latency histogram
//! (judge, engine and store commit included) and judge calls.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

const VERDICTS: [&str; 7] = [
    "allow",
    "block",
    "confirm",
    "guide",
    "observe",
    "unchecked",
    "error",
];

#[derive(Default)]
pub struct Metrics {
    decisions: [AtomicU64; VERDICTS.len()],
    buckets: [AtomicU64; BUCKETS.len()],
    latency_count: AtomicU64,
    latency_micros: AtomicU64,
    judge_calls: AtomicU64,
    judge_questions: AtomicU64,
    sessions_created: AtomicU64,
    sessions_evicted: AtomicU64,
}

impl Metrics {
    /// Counts one decision: `verdict` is the label of the answer given
    /// (`error` for a refusal).
    pub fn decision(&self, verdict: &str, latency: Duration) {
        let slot = VERDICTS
            .iter()
            .position(|v| *v == verdict)
            .unwrap_or(VERDICTS.len() - 1);
        if let Some(counter) = self.decisions.get(slot) {
            counter.fetch_add(1, Ordering::Relaxed);
        }
        let seconds = latency.as_secs_f64();
        for (bound, counter) in BUCKETS.iter().zip(&self.buckets) {
            if seconds <= *bound {
                counter.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.latency_count.fetch_add(1, Ordering::Relaxed);
        self.latency_micros.fetch_add(
            u64::try_from(latency.as_micros()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
    }

    pub fn judge(&self, calls: u64, questions: u64) {
        self.judge_calls.fetch_add(calls, Ordering::Relaxed);
        self.judge_questions.fetch_add(questions, Ordering::Relaxed);
    }

    pub fn sessions_evicted(&self, n: u64) {
        self.sessions_evicted.fetch_add(n, Ordering::Relaxed);
    }

    pub fn session_created(&self) {
        self.sessions_created.fetch_add(1, Ordering::Relaxed);
    }

    /// The Prometheus text exposition.
    /// The counters in Prometheus text format, with the store's (`store`:
    /// how many writes its group commits took in how many transactions).
    pub fn render(&self, store: turnstile_store::StoreStats) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# HELP turnstile_decisions_total Events answered, by verdict (error: refused)."
        );
        let _ = writeln!(out, "# TYPE turnstile_decisions_total counter");
        for (label, counter) in VERDICTS.iter().zip(&self.decisions) {
            let _ = writeln!(
                out,
                "turnstile_decisions_total{{verdict=\"{label}\"}} {}",
                counter.load(Ordering::Relaxed)
            );
        }
        let _ = writeln!(
            out,
            "# HELP turnstile_decision_seconds Time to answer one event (judge, engine, store commit)."
        );
        let _ = writeln!(out, "# TYPE turnstile_decision_seconds histogram");
        for (bound, counter) in BUCKETS.iter().zip(&self.buckets) {
            let _ = writeln!(
                out,
                "turnstile_decision_seconds_bucket{{le=\"{bound}\"}} {}",
                counter.load(Ordering::Relaxed)
            );
        }
        let count = self.latency_count.load(Ordering::Relaxed);
        let _ = writeln!(
            out,
            "turnstile_decision_seconds_bucket{{le=\"+Inf\"}} {count}"
        );
        let _ = writeln!(
            out,
            "turnstile_decision_seconds_sum {}",
            self.latency_micros.load(Ordering::Relaxed) as f64 / 1e6
        );
        let _ = writeln!(out, "turnstile_decision_seconds_count {count}");
        for (name, help, counter) in [
            (
                "turnstile_judge_calls_total",
                "Requests sent to the judge model (retries count).",
                &self.judge_calls,
            ),
            (
                "turnstile_judge_questions_total",
                "Questions put to the judge.",
                &self.judge_questions,
            ),
            (
                "turnstile_sessions_created_total",
                "Sessions created.",
                &self.sessions_created,
            ),
            (
                "turnstile_sessions_evicted_total",
                "Idle sessions dropped from memory (restored from the store on their next event).",
                &self.sessions_evicted,
            ),
        ] {
            let _ = writeln!(out, "# HELP {name} {help}");
            let _ = writeln!(out, "# TYPE {name} counter");
            let _ = writeln!(out, "{name} {}", counter.load(Ordering::Relaxed));
        }
        for (name, help, value) in [
            (
                "turnstile_store_writes_total",
                "Session creations and event commits stored.",
                store.writes_committed,
            ),
            (
                "turnstile_store_transactions_total",
                "Store transactions committed (concurrent sessions' writes share one: group commit).",
                store.transactions,
            ),
        ] {
            let _ = writeln!(out, "# HELP {name} {help}");
            let _ = writeln!(out, "# TYPE {name} counter");
            let _ = writeln!(out, "{name} {value}");
        }
        out
    }
}
