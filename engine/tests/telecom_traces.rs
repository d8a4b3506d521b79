//! Every telecom simulation in `tau2/traces` replayed through a session under
//! the `workflow` and `action` schedules. Telecom tasks are graded by
//! environment assertions, not gold writes, and most of their deviations
//! are instructions or claims out of order rather than writes - so the
//! table counts, per file: traces with a deviation without a write
//! (`deviate`) under `workflow`, how many of those the `action` schedule
//! misses entirely, write blocks, and how both relate to the benchmark's
//! reward.
//!
//! Prints the table (`cargo test --test telecom_traces -- --nocapture`); the
//! figures are in `bundles/README.md`. Reads tau2 from `data/tau2/` (or `TAU2_DATA`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "support/tau2.rs"]
mod tau2;

use std::collections::BTreeMap;
use std::sync::Arc;

use turnstile_engine::bundle::model::Control;
use turnstile_engine::import::import_file;
use turnstile_engine::session::{BundleRuntime, GateVerdict, Schedule};
use turnstile_engine::session::{coverage, replay};
use turnstile_judge::OfflineJudge;
use turnstile_rules::Reason;

#[derive(Default, Debug)]
struct Row {
    mode: &'static str,
    traces: usize,
    /// Traces with at least one `deviate` under workflow.
    deviating: usize,
    /// Of those, traces where the action schedule reported none of them.
    missed_by_action: usize,
    /// `deviate` verdicts under workflow, by kind (instructs/calls/claims).
    deviations: BTreeMap<String, usize>,
    /// Traces with a blocked write under workflow.
    blocked: usize,
    /// Agent calls of device tools refused under dual control.
    wrong_side: usize,
    /// Reward sums and counts: deviating vs clean traces.
    reward_deviating: (f64, usize),
    reward_clean: (f64, usize),
}

fn mean((sum, n): (f64, usize)) -> String {
    if n == 0 {
        "-".to_owned()
    } else {
        #[allow(clippy::cast_precision_loss)]
        let m = sum / n as f64;
        format!("{m:.2}")
    }
}

#[test]
fn telecom_traces() {
    let bundle = Arc::new(tau2::shipped_bundle("telecom"));
    let rt = BundleRuntime::new(Arc::clone(&bundle)).unwrap();
    let mut table: BTreeMap<String, Row> = BTreeMap::new();
    for file in tau2::domain_trace_files("telecom") {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let imported = import_file(&file, None).unwrap();
        assert!(imported.errors.is_empty(), "{name}: {:?}", imported.errors);
        assert!(!imported.traces.is_empty(), "{name}");
        let row = table.entry(name.clone()).or_default();
        for trace in &imported.traces {
            let control = trace
                .meta
                .control
                .expect("tau2 says who runs the device tools");
            row.mode = match control {
                Control::Dual => "dual",
                Control::Solo => "solo",
            };
            let workflow = replay(&rt, trace, Schedule::Workflow, &OfflineJudge).unwrap();
            let action = replay(&rt, trace, Schedule::Action, &OfflineJudge).unwrap();
            assert_eq!(workflow.events.len(), trace.events.len());
            // Deviations without a write are the workflow schedule's alone.
            assert!(action.deviated().is_empty(), "{}", trace.meta.id);
            let cov = coverage(&workflow, &action);
            row.traces += 1;
            let deviating = !cov.unwritten.is_empty();
            if deviating {
                row.deviating += 1;
                if cov.unwritten_caught.is_empty() {
                    row.missed_by_action += 1;
                }
            }
            for report in &workflow.events {
                match &report.verdict {
                    GateVerdict::Deviate { action, .. } => {
                        let kind = action.split(' ').next().unwrap_or("?").to_owned();
                        *row.deviations.entry(kind).or_default() += 1;
                    }
                    GateVerdict::Block {
                        reason: Reason::WrongSide,
                        ..
                    } => row.wrong_side += 1,
                    _ => {}
                }
            }
            if workflow
                .events
                .iter()
                .any(|r| r.mutating && r.verdict.is_block())
            {
                row.blocked += 1;
            }
            let reward = trace.meta.reward.unwrap_or(0.0);
            let slot = if deviating {
                &mut row.reward_deviating
            } else {
                &mut row.reward_clean
            };
            slot.0 += reward;
            slot.1 += 1;
        }
        // Solo traces: the agent runs the device tools, nothing is refused
        // for the side; dual traces keep refusing an agent's device call.
        if row.mode == "solo" {
            assert_eq!(row.wrong_side, 0, "{name}");
        }
    }
    println!("\n### telecom\n");
    println!(
        "| file | control | traces | with a deviation without a write (workflow) | of those missed by `action` | deviate verdicts (instructs / calls / claims) | traces with a blocked write | agent device calls refused | mean reward: deviating / clean |"
    );
    println!("|---|---|---:|---:|---:|---|---:|---:|---|");
    let mut total = Row::default();
    for (name, row) in &table {
        let kinds = |r: &Row| {
            ["instructs", "calls", "claims"]
                .iter()
                .map(|k| r.deviations.get(*k).copied().unwrap_or(0).to_string())
                .collect::<Vec<_>>()
                .join(" / ")
        };
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} / {} |",
            row.mode,
            row.traces,
            row.deviating,
            row.missed_by_action,
            kinds(row),
            row.blocked,
            row.wrong_side,
            mean(row.reward_deviating),
            mean(row.reward_clean),
        );
        total.traces += row.traces;
        total.deviating += row.deviating;
        total.missed_by_action += row.missed_by_action;
        total.blocked += row.blocked;
        total.wrong_side += row.wrong_side;
        for (k, v) in &row.deviations {
            *total.deviations.entry(k.clone()).or_default() += v;
        }
        total.reward_deviating.0 += row.reward_deviating.0;
        total.reward_deviating.1 += row.reward_deviating.1;
        total.reward_clean.0 += row.reward_clean.0;
        total.reward_clean.1 += row.reward_clean.1;
    }
    println!(
        "| **all** | | {} | {} | {} | {} | {} | {} | {} / {} |",
        total.traces,
        total.deviating,
        total.missed_by_action,
        ["instructs", "calls", "claims"]
            .iter()
            .map(|k| total.deviations.get(*k).copied().unwrap_or(0).to_string())
            .collect::<Vec<_>>()
            .join(" / "),
        total.blocked,
        total.wrong_side,
        mean(total.reward_deviating),
        mean(total.reward_clean),
    );
    assert_eq!(total.traces, 121, "every telecom simulation replayed");
    assert!(
        total.deviating > 0,
        "the workflow schedule finds ordering deviations"
    );
    assert_eq!(
        total.missed_by_action, total.deviating,
        "the action schedule fires on no instruction or claim"
    );
}
