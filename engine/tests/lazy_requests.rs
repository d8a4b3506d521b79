//! The request views a firing reports (`EventReport.requests`: what
//! `turnstile gate` and `turnstile serve` print) are the same however they
//! are built, on every tau2-bench retail and airline conversation under the
//! workflow schedule (it fires at every agent event):
//!
//! - `Session::push` (which builds them at a firing) and `Session::decide`
//!   (which does not) followed by `Session::requests` give byte-identical
//!   reports;
//! - at every firing, a session restored from scratch from the saved state
//!   (a fresh monitor fed every event, with the requests seen before that
//!   firing) reports the same views;
//! - the report's `serde_json::Value` written with `to_string` / `to_vec`
//!   (what `turnstile gate` and the store write) has the bytes its
//!   `Display` wrote before.
//!
//! Reads tau2 from `data/tau2/` (or `TAU2_DATA`), through `support/tau2.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "support/tau2.rs"]
mod tau2;

use std::sync::Arc;

use tau2::{domain_trace_files, shipped_bundle};
use turnstile_engine::import::import_file;
use turnstile_engine::session::{BundleRuntime, Schedule, Session};
use turnstile_judge::OfflineJudge;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

/// Returns the firings compared and those that reported requests.
fn compare_domain(domain: &str) -> (usize, usize) {
    let rt = BundleRuntime::new(Arc::new(shipped_bundle(domain))).unwrap();
    let tokio = runtime();
    let judge = OfflineJudge;
    let (mut firings, mut with_requests) = (0, 0);
    for file in domain_trace_files(domain) {
        let imported = import_file(&file, None).unwrap();
        for (t, trace) in imported.traces.iter().enumerate() {
            let what = format!("{} trace {t}", file.display());
            let mut eager = Session::new(Arc::clone(&rt), Schedule::Workflow);
            let mut lazy = Session::new(Arc::clone(&rt), Schedule::Workflow);
            for (k, event) in trace.events.iter().enumerate() {
                let seen_before = eager.snapshot().seen;
                let pushed = tokio.block_on(eager.push(event.clone(), &judge)).unwrap();
                let mut decided = tokio.block_on(lazy.decide(event.clone(), &judge)).unwrap();
                if decided.fired && decided.requests.is_empty() {
                    decided.requests = lazy.requests();
                }
                assert_eq!(
                    serde_json::to_string(&pushed).unwrap(),
                    serde_json::to_string(&decided).unwrap(),
                    "{what}, event {k}: push and decide + requests differ"
                );
                // What gate and serve write: the report's `Value` through
                // `to_string` / `to_vec`, byte for byte what its `Display`
                // wrote before.
                let value = serde_json::to_value(&pushed).unwrap();
                assert_eq!(
                    serde_json::to_string(&value).unwrap(),
                    value.to_string(),
                    "{what}, event {k}: the verdict's bytes differ"
                );
                if !pushed.fired {
                    continue;
                }
                firings += 1;
                with_requests += usize::from(!pushed.requests.is_empty());
                let mut state = eager.snapshot();
                state.seen = seen_before;
                let fresh = Session::restore(Arc::clone(&rt), state).unwrap();
                assert_eq!(
                    serde_json::to_string(&pushed.requests).unwrap(),
                    serde_json::to_string(&fresh.requests()).unwrap(),
                    "{what}, event {k}: the views differ from a session rebuilt from scratch"
                );
            }
        }
    }
    (firings, with_requests)
}

#[test]
fn retail_views_are_the_same_built_lazily_or_from_scratch() {
    let (firings, with_requests) = compare_domain("retail");
    assert!(
        firings > 1_000 && with_requests > 1_000,
        "{firings} {with_requests}"
    );
}

#[test]
fn airline_views_are_the_same_built_lazily_or_from_scratch() {
    let (firings, with_requests) = compare_domain("airline");
    assert!(
        firings > 1_000 && with_requests > 1_000,
        "{firings} {with_requests}"
    );
}
