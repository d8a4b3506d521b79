//! The request views a firing reports (`EventReport.requests`: what
//! `turnstile gate` and `turnstile serve` print) are the same however they
//! are built, on every tau2-bench retail and airline conversation under the
//! workflow schedule (it fires at every agent event):
//!
//! - `Session::push` (which builds them at a firing) and `Session::decide`
//!   (which does not) followed by `Session::requests` give byte-identical
//!   reports;
//! - at every event, the views of the live session (built from its view
//!   cache, which rebuilds only the requests the event changed) equal those
//!   of a session restored from scratch from the saved state (a fresh
//!   monitor fed every event, an empty cache, the requests seen before that
//!   event);
//! - the report serialized straight to bytes (what `turnstile gate`, the
//!   store and `turnstile serve` write) has every object's keys in sorted
//!   order: the bytes its `serde_json::Value` wrote in the shipped build
//!   (no `preserve_order`), whichever build runs the test.
//!
//! And the comparison can fail: a session whose cache is made to hand out
//! stale views (`Session::mark_cached_views_current`, a test hook that
//! takes every cached view as rendered now) differs from the session
//! rebuilt from scratch at events of these conversations, so a cache that
//! stopped invalidating would fail the tests above.
//!
//! Reads tau2 from `data/tau2/` (or `TAU2_DATA`), through `support/tau2.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "support/tau2.rs"]
mod tau2;

use std::sync::Arc;

use tau2::{domain_trace_files, shipped_bundle};
use turnstile_engine::import::import_file;
use turnstile_engine::session::{BundleRuntime, EventReport, Schedule, Session};
use turnstile_judge::OfflineJudge;

/// Returns the firings compared and those that reported requests.
fn compare_domain(domain: &str) -> (usize, usize) {
    let rt = BundleRuntime::new(Arc::new(shipped_bundle(domain))).unwrap();
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
                let pushed = eager.push(event.clone(), &judge).unwrap();
                let mut decided = lazy.decide(event.clone(), &judge).unwrap();
                if decided.fired && decided.requests.is_empty() {
                    decided.requests = lazy.requests();
                }
                assert_eq!(
                    serde_json::to_string(&pushed).unwrap(),
                    serde_json::to_string(&decided).unwrap(),
                    "{what}, event {k}: push and decide + requests differ"
                );
                // What gate, serve and the store write: the report straight
                // to bytes, with the keys a `Value` without `preserve_order`
                // sorts them into.
                let bytes = serde_json::to_string(&pushed).unwrap();
                assert_eq!(
                    bytes,
                    sorted_keys(serde_json::to_value(&pushed).unwrap()).to_string(),
                    "{what}, event {k}: the verdict's keys are not in sorted order"
                );
                // And it reads back as the same report.
                let read: EventReport = serde_json::from_str(&bytes).unwrap();
                assert_eq!(
                    read, pushed,
                    "{what}, event {k}: the verdict does not read back"
                );
                let mut state = eager.snapshot();
                state.seen = seen_before;
                let fresh = Session::restore(Arc::clone(&rt), state).unwrap();
                let cached = eager.requests();
                assert_eq!(
                    cached,
                    fresh.requests(),
                    "{what}, event {k}: the cached views differ from a session rebuilt from scratch"
                );
                if !pushed.fired {
                    continue;
                }
                firings += 1;
                with_requests += usize::from(!pushed.requests.is_empty());
                assert_eq!(
                    pushed.requests, cached,
                    "{what}, event {k}: the views reported differ from those read after"
                );
            }
        }
    }
    (firings, with_requests)
}

/// `value` with every object's keys in sorted order, whatever order the
/// build's `serde_json::Map` keeps (insertion with `preserve_order`).
fn sorted_keys(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => {
            let mut entries: Vec<(String, serde_json::Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            serde_json::Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sorted_keys(v)))
                    .collect(),
            )
        }
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.into_iter().map(sorted_keys).collect())
        }
        other => other,
    }
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

/// The events of `domain`'s conversations at which a cache handing out stale
/// views (every cached view taken as rendered now) reports other views than
/// a session rebuilt from scratch: where the comparison above catches a
/// cache that no longer invalidates. Returns them with the events compared.
fn stale_views_caught(domain: &str) -> (usize, usize) {
    let rt = BundleRuntime::new(Arc::new(shipped_bundle(domain))).unwrap();
    let judge = OfflineJudge;
    let (mut caught, mut compared) = (0, 0);
    // One file is enough to find stale views; each event clones a session.
    for file in domain_trace_files(domain).into_iter().take(1) {
        let imported = import_file(&file, None).unwrap();
        for trace in &imported.traces {
            let mut live = Session::new(Arc::clone(&rt), Schedule::Workflow);
            for event in &trace.events {
                let seen_before = live.snapshot().seen;
                // The hook before the push: the views the push builds reuse
                // whatever the cache held, valid or not.
                let mut stale = live.clone();
                stale.mark_cached_views_current();
                let report = stale.push(event.clone(), &judge).unwrap();
                let honest = live.push(event.clone(), &judge).unwrap();
                if !report.fired {
                    continue;
                }
                let mut state = live.snapshot();
                state.seen = seen_before;
                let fresh = Session::restore(Arc::clone(&rt), state).unwrap();
                // The honest cache passes where the stale one may not.
                assert_eq!(honest.requests, fresh.requests());
                compared += 1;
                caught += usize::from(report.requests != fresh.requests());
            }
        }
    }
    (caught, compared)
}

#[test]
fn a_cache_handing_out_stale_views_is_caught() {
    let (caught, compared) = stale_views_caught("retail");
    assert!(
        caught > 0,
        "a stale view cache went unnoticed at all {compared} firings"
    );
}
