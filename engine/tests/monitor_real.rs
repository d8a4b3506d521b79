//! The incremental monitor against the Datalog program on real conversations:
//! every tau2-bench retail and airline simulation, through the shipped
//! bundles, with no verdicts and with every semantic step judged satisfied at
//! every user turn for every request. `sat` and `allowed` must be identical.
//!
//! Reads tau2 from `data/tau2/` (or `TAU2_DATA`), through `support/tau2.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "support/tau2.rs"]
mod tau2;

use std::sync::Arc;

use tau2::{domain_trace_files, semantic_steps, shipped_bundle};
use turnstile_engine::CompiledBundle;
use turnstile_engine::decide::{decide, for_every_request, monitor_trace};
use turnstile_engine::import::import_file;
use turnstile_engine::trace::{Event, Trace};
use turnstile_rules::Plan;
use turnstile_rules::{Env, EventIdx, StepId};

/// Every semantic step judged satisfied at every user turn, for every
/// request.
fn every_user_turn(
    bundle: &CompiledBundle,
    plan: &Arc<Plan>,
    trace: &Trace,
) -> Vec<(StepId, Env, EventIdx)> {
    let semantic = semantic_steps(bundle);
    let mut judged = Vec::new();
    for (k, event) in trace.events.iter().enumerate() {
        if matches!(event, Event::User { .. }) {
            judged.extend(semantic.iter().map(|s| (*s, EventIdx::from_usize(k))));
        }
    }
    for_every_request(bundle, plan, trace, &judged).unwrap()
}

fn compare_domain(domain: &str) {
    let bundle = shipped_bundle(domain);
    let plan = Arc::new(Plan::new(&bundle.program, &bundle.arg_paths).unwrap());
    let files = domain_trace_files(domain);
    let mut compared = 0;
    let mut gated = 0;
    for file in files {
        let imported = import_file(&file, None).unwrap();
        for trace in &imported.traces {
            for judged in [Vec::new(), every_user_turn(&bundle, &plan, trace)] {
                let reference = decide(&bundle, trace, &judged).unwrap();
                let monitor = monitor_trace(&bundle, &plan, trace, &judged).unwrap();
                assert_eq!(
                    monitor.sat(),
                    &reference.derived.sat,
                    "{}: {} ({} verdicts): sat differs",
                    file.display(),
                    trace.meta.id,
                    judged.len()
                );
                assert_eq!(
                    monitor.allowed(),
                    &reference.derived.allowed,
                    "{}: {}: allowed differs",
                    file.display(),
                    trace.meta.id
                );
                gated += reference.derived.allowed.len() + reference.derived.violations.len();
                compared += 1;
            }
        }
    }
    println!("{domain}: {compared} replays compared, {gated} gated calls");
    assert!(compared > 0);
}

#[test]
fn monitor_equals_datalog_on_every_retail_trace() {
    compare_domain("retail");
}

#[test]
fn monitor_equals_datalog_on_every_airline_trace() {
    compare_domain("airline");
}
