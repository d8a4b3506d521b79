//! The incremental monitor against the Datalog program on real conversations:
//! every tau2-bench retail and airline simulation, through the shipped
//! bundles, with no verdicts and with every semantic step judged satisfied at
//! every user turn for every request. `sat` and `allowed` must be identical,
//! and every blocked call must be explained alike: the monitor's own
//! explanation (`Monitor::explain_block`, or `Monitor::explain_read` for a
//! protected read, what the live gate reports) names
//! the same request, first unmet step and reason as the Datalog program run
//! on the conversation up to that call (what the gate used to run).
//!
//! Reads tau2 from `data/tau2/` (or `TAU2_DATA`), through `support/tau2.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "support/tau2.rs"]
mod tau2;

use std::sync::Arc;

use tau2::{domain_trace_files, semantic_steps, shipped_bundle};
use turnstile_engine::CompiledBundle;
use turnstile_engine::decide::{decide, for_every_request, monitor_trace};
use turnstile_engine::extract::Extractor;
use turnstile_engine::import::import_file;
use turnstile_engine::session::{BundleRuntime, Explainer, Schedule, Session};
use turnstile_engine::trace::{Event, Trace};
use turnstile_judge::OfflineJudge;
use turnstile_rules::{Env, EventIdx, StepId};
use turnstile_rules::{Monitor, Plan};

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

/// Pushes the trace through a monitor event by event; at every blocked
/// gated call or protected read compares the monitor's explanation with the Datalog
/// program's on the prefix ending at that call. Returns the blocks compared.
fn compare_explanations(
    bundle: &CompiledBundle,
    plan: &Arc<Plan>,
    trace: &Trace,
    judged: &[(StepId, Env, EventIdx)],
    what: &str,
) -> usize {
    let mut extractor = Extractor::new(bundle);
    let mut monitor = Monitor::new(Arc::clone(plan));
    let mut blocks = 0;
    // `now()` on the bundle's clock, as the reference reads it.
    let times = turnstile_engine::extract::event_times(bundle, trace);
    for (index, event) in trace.events.iter().enumerate() {
        let k = EventIdx::from_usize(index);
        let mut facts = extractor.event(bundle, k, event).facts;
        facts.now = times.get(index).copied().flatten();
        let now: Vec<(StepId, Env)> = judged
            .iter()
            .filter(|(_, _, e)| *e == k)
            .map(|(s, env, _)| (*s, *env))
            .collect();
        let outcome = monitor.push(&facts, &now).unwrap();
        // A blocked write, or a protected read no identification permits.
        let explained = monitor.explain_block().or_else(|| monitor.explain_read());
        if outcome.allowed() != Some(false) {
            assert_eq!(explained, None, "{what}: event {k} is not a block");
            continue;
        }
        let prefix = Trace {
            meta: trace.meta.clone(),
            events: trace.events.get(..=index).unwrap().to_vec(),
        };
        let earlier: Vec<_> = judged.iter().filter(|(_, _, e)| *e <= k).copied().collect();
        let reference = decide(bundle, &prefix, &earlier).unwrap();
        let expected = reference
            .derived
            .violations
            .iter()
            .find(|v| v.event == k)
            .unwrap_or_else(|| panic!("{what}: no reference violation at event {k}"));
        let got = explained.unwrap_or_else(|| panic!("{what}: no explanation at event {k}"));
        assert_eq!(
            (got.unmet, got.reason, got.request, got.used_by),
            (
                expected.unmet,
                expected.reason,
                expected.request,
                expected.used_by
            ),
            "{what}: the explanations of the block at event {k} differ"
        );
        assert_eq!(
            got.failed, expected.failed,
            "{what}: event {k}: failed conditions differ"
        );
        blocks += 1;
    }
    blocks
}

fn compare_domain(domain: &str) {
    let bundle = shipped_bundle(domain);
    let plan = Arc::new(Plan::new(&bundle.program, &bundle.arg_paths).unwrap());
    let files = domain_trace_files(domain);
    let mut compared = 0;
    let mut gated = 0;
    let mut blocks = 0;
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
                let what = format!(
                    "{}: {} ({} verdicts)",
                    file.display(),
                    trace.meta.id,
                    judged.len()
                );
                blocks += compare_explanations(&bundle, &plan, trace, &judged, &what);
                compared += 1;
            }
        }
    }
    println!(
        "{domain}: {compared} replays compared, {gated} gated calls, {blocks} blocks explained alike"
    );
    assert!(compared > 0);
    assert!(blocks > 0, "{domain}: no block was compared");
}

#[test]
fn monitor_equals_datalog_on_every_retail_trace() {
    compare_domain("retail");
}

#[test]
fn monitor_equals_datalog_on_every_airline_trace() {
    compare_domain("airline");
}

/// The live gate's verdicts are the same whichever explainer it uses: every
/// tau2 conversation through a session with the offline judge, blocks
/// explained by the monitor (the live path) and by the Datalog program (the
/// reference), verdict for verdict — reason, step, request, remediation and
/// the rendered explanation.
fn sessions_explain_alike(domain: &str) {
    let bundle = Arc::new(shipped_bundle(domain));
    let rt = BundleRuntime::new(Arc::clone(&bundle)).unwrap();
    let mut blocks = 0;
    for file in domain_trace_files(domain) {
        let imported = import_file(&file, None).unwrap();
        for trace in &imported.traces {
            let mut live = Session::new(Arc::clone(&rt), Schedule::Workflow);
            let mut reference = Session::new(Arc::clone(&rt), Schedule::Workflow);
            reference.set_explainer(Explainer::Datalog);
            for event in &trace.events {
                let got = live.push(event.clone(), &OfflineJudge).unwrap();
                let expected = reference.push(event.clone(), &OfflineJudge).unwrap();
                assert_eq!(
                    got.verdict,
                    expected.verdict,
                    "{}: {}: event {}",
                    file.display(),
                    trace.meta.id,
                    got.event
                );
                blocks += usize::from(got.verdict.is_block());
            }
        }
    }
    println!("{domain}: {blocks} session blocks explained alike");
    assert!(blocks > 0);
}

#[test]
fn sessions_explain_retail_blocks_alike() {
    sessions_explain_alike("retail");
}

#[test]
fn sessions_explain_airline_blocks_alike() {
    sessions_explain_alike("airline");
}
