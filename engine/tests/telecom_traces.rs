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
//!
//! `telecom_writes_against_the_graded_gold` asserts the counts of the table
//! `real_traces.rs` prints (`support/telecom_writes.rs`): every agent write
//! labelled against the simulation's graded gold, and which ones the gate
//! gets wrong, each with its cause. The gold writes blocked because the
//! dialogue reader does not yet read the user's reply as a yes are the
//! ignored `reader_*` tests.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "support/graded.rs"]
mod graded;
#[path = "support/tau2.rs"]
mod tau2;
#[path = "support/telecom_writes.rs"]
mod telecom_writes;

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

/// Short trace ids (`<file stem>#<first 8 characters of the simulation id>`)
/// with the event and tool of each write.
fn writes(list: &[telecom_writes::Write]) -> Vec<String> {
    let mut out: Vec<String> = list
        .iter()
        .map(|w| {
            let (stem, sim) = w.trace.split_once('#').unwrap();
            format!("{stem}#{} {} {}", &sim[..8], w.event, w.tool)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn telecom_writes_against_the_graded_gold() {
    use telecom_writes::Answer::{Allowed, Blocked};
    let rows = telecom_writes::telecom_write_rows();
    let dual = telecom_writes::total(&rows, Control::Dual);
    let solo = telecom_writes::total(&rows, Control::Solo);
    let counts = |t: &telecom_writes::Tally| (t.get(Allowed), t.get(Blocked));
    assert_eq!(
        counts(&dual.gold),
        (11, 5),
        "two-party gold: allowed, blocked"
    );
    assert_eq!(counts(&dual.wrong), (2, 18), "two-party wrong");
    assert_eq!(counts(&dual.other), (0, 2), "two-party other");
    assert_eq!(counts(&solo.gold), (34, 3), "solo gold");
    assert_eq!(counts(&solo.wrong), (6, 17), "solo wrong");
    assert_eq!(counts(&solo.other), (0, 0), "solo other");
    // Gold writes blocked: two refuels the policy forbids as done (no
    // amount asked and no price; "a small fee", no price), three whose yes
    // the reader does not read (the `reader_*` tests), and, solo, three
    // refuels of tickets that never mention one (an MMS problem).
    assert_eq!(
        writes(&dual.gold_blocked),
        [
            "telecom_gpt-4.1#2e004add 68 refuel_data",
            "telecom_gpt-4.1#7bb5a779 16 refuel_data",
            "telecom_gpt-4.1#8ec1f77b 36 refuel_data",
            "telecom_gpt-4.1#b7b7274d 50 refuel_data",
            "telecom_gpt-4.1#ea423bba 50 refuel_data",
        ]
    );
    assert_eq!(
        writes(&solo.gold_blocked),
        [
            "telecom_gpt-4.1_no-user#815cad25 39 refuel_data",
            "telecom_gpt-4.1_no-user#afbff769 13 refuel_data",
            "telecom_gpt-4.1_no-user#fa3d4658 27 refuel_data",
        ]
    );
    // Wrong writes allowed: an overdue bill paid and the user's suspended
    // line resumed, before the SIM was checked - which then turned out
    // locked (the task wanted an escalation). At the write nothing the
    // policy names is missing: the same writes before any SIM read are the
    // gold of the tasks whose SIM is fine.
    assert_eq!(
        writes(&dual.wrong_allowed),
        [
            "telecom_gpt-4.1#6b25bd2b 26 send_payment_request",
            "telecom_gpt-4.1#6b25bd2b 38 resume_line",
        ]
    );
    assert_eq!(
        writes(&solo.wrong_allowed),
        [
            "telecom_gpt-4.1_no-user#27ced65f 11 send_payment_request",
            "telecom_gpt-4.1_no-user#27ced65f 19 resume_line",
            "telecom_gpt-4.1_no-user#c5408c27 11 send_payment_request",
            "telecom_gpt-4.1_no-user#c5408c27 19 resume_line",
            "telecom_gpt-4.1_no-user#f75111e3 11 send_payment_request",
            "telecom_gpt-4.1_no-user#f75111e3 19 resume_line",
        ]
    );
}

/// A gold refuel the gate should allow once the dialogue reader reads the
/// user's reply to the agent's priced offer as a yes: `trace` (a simulation
/// of `telecom_gpt-4.1`) at event `write`.
fn gold_refuel_allowed(sim: &str, write: usize) {
    let rows = telecom_writes::telecom_write_rows();
    let blocked = writes(&rows["telecom_gpt-4.1.json.zst"].gold_blocked);
    let this = format!("telecom_gpt-4.1#{sim} {write} refuel_data");
    assert!(!blocked.contains(&this), "{this} is still blocked");
}

/// Agent (event 14): "... 1. Add more data to your line (up to 2GB at $2.00
/// per GB). 2. Change to a plan with a higher data limit. Would you like to
/// add more data now, or are you interested in changing your plan? ..."
/// User (event 15): "Thanks for explaining! I definitely don't want to
/// change my plan, but I'm willing to add more data. Let's go ahead and add
/// 2GB to my line ..." - declining the other option of an either/or
/// question is read as a refusal (cues: revokes, corrects).
#[test]
#[ignore = "reader (#27): a refusal of the other option of an either/or question revokes the yes"]
fn reader_declining_the_other_option_is_no_refusal() {
    gold_refuel_allowed("7bb5a779", 16);
}

/// Agent (event 62): "... you can refuel your line with up to 2GB of
/// additional data at $2.00 per GB. Would you like to add more data now?
/// ..." User (event 63): "Thanks for checking. I'd like to add 2GB of
/// additional data to my line so I can get MMS working again. Please go
/// ahead and process that for me." - no cue at all (not affirms).
#[test]
#[ignore = "reader (#27): \"I'd like to add ... Please go ahead and process that\" is not read as a yes"]
fn reader_a_request_and_a_go_ahead_is_a_yes() {
    gold_refuel_allowed("2e004add", 68);
}

/// Agent (event 30): "... 1. Add more data to your line (up to 2GB at $2.00
/// per GB). 2. Change to a plan with a higher data limit. Would you like to
/// add more data to your line now, or are you interested in exploring other
/// plan options?" User (event 31): "I'd like to add 2GB of data to my line,
/// but I don't want to change my current plan. Can you help me with that?"
/// - read as a refusal (revokes, corrects).
#[test]
#[ignore = "reader (#27): choosing one option and declining the other, then asking for help with it, is read as a refusal"]
fn reader_choosing_one_option_is_a_yes_to_it() {
    gold_refuel_allowed("8ec1f77b", 36);
}
