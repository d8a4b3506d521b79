//! The shipped bundles on the benchmark's real agent conversations: every
//! retail and airline simulation in `tau2/traces`, replayed through a session
//! under the `workflow` and `action` schedules, and telecom's writes scored
//! against the graded gold (`telecom_writes`, see `support/telecom_writes.rs`).
//!
//! Ground truth without any LLM: on a task whose gold actions contain no
//! mutating tool, every mutating call the agent made is a violation and must
//! be blocked; a mutating call that matches a gold action (name and
//! arguments) should be allowed when the conversation shows the required
//! reads and confirmation. A simulation's gold actions are the ones its own
//! grader checked (`reward_info.action_checks`), falling back to
//! `tasks.json` by task id: in some result files a simulation's `task_id`
//! names another task of `tasks.json` than the one it ran (the grader's
//! action ids give the real one). Three modes:
//! - `offline · workflow` and `offline · action`: sessions with the shipped
//!   offline judge (keywords and consent detection; anything it cannot tell
//!   blocks) under the two schedules;
//! - `formal only`: the Datalog program with every semantic step granted at
//!   every event (so as soon as it is reached) — what the formal checks alone
//!   decide. A wrong call it allows is one the policy leaves to the dialogue.
//!
//! Every wrong call the offline judge lets through is listed with the
//! semantic steps the judge accepted on the allowing request's path: the
//! dialogue is why it passed, and the test asserts there is such a step.
//!
//! Prints a per-file table (`cargo test --test real_traces -- --nocapture`);
//! the figures are in `bundles/README.md`. Reads tau2 from `data/tau2/` (or `TAU2_DATA`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "support/graded.rs"]
mod graded;
#[path = "support/tau2.rs"]
mod tau2;
#[path = "support/telecom_writes.rs"]
mod telecom_writes;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use graded::{GoldAction, graded_gold};
use tau2::{domain_trace_files, semantic_steps, shipped_bundle};
use turnstile_engine::CompiledBundle;
use turnstile_engine::decide::{decide, for_every_request};
use turnstile_engine::import::import_file;
use turnstile_engine::session::{BundleRuntime, GateVerdict, Schedule};
use turnstile_engine::session::{ReplayReport, replay};
use turnstile_engine::trace::{Event, Trace};
use turnstile_judge::OfflineJudge;
use turnstile_rules::EventIdx;

/// Gold mutating actions of every simulation of one results file, by
/// trace id (the graded gold, [`graded::graded_gold`]).
fn gold_writes(
    domain: &str,
    file: &std::path::Path,
    mutating: &[String],
) -> HashMap<String, Vec<GoldAction>> {
    graded_gold(domain, file)
        .into_iter()
        .map(|(id, gold)| {
            let writes = gold
                .into_iter()
                .filter(|a| mutating.contains(&a.name))
                .collect();
            (id, writes)
        })
        .collect()
}

#[derive(Default, Clone)]
struct Row {
    traces: usize,
    calls: usize,
    blocked: usize,
    wrong: usize,
    wrong_blocked: usize,
    gold: usize,
    gold_allowed: usize,
    reasons: BTreeMap<String, usize>,
    /// Step satisfactions on allowed writes' paths decided by formal checks.
    formal_steps: usize,
    /// The same, decided by the judge (semantic steps).
    judged_steps: usize,
    /// Wrong calls that were allowed: trace, event, what allowed it.
    leaks: Vec<Leak>,
    /// Gold-matching calls that were blocked: trace, event, why.
    gold_blocked: Vec<(String, u32, String)>,
}

impl Row {
    fn add(&mut self, other: &Row) {
        self.traces += other.traces;
        self.calls += other.calls;
        self.blocked += other.blocked;
        self.wrong += other.wrong;
        self.wrong_blocked += other.wrong_blocked;
        self.gold += other.gold;
        self.gold_allowed += other.gold_allowed;
        self.formal_steps += other.formal_steps;
        self.judged_steps += other.judged_steps;
        for (k, v) in &other.reasons {
            *self.reasons.entry(k.clone()).or_default() += v;
        }
        self.leaks.extend(other.leaks.iter().cloned());
        self.gold_blocked.extend(other.gold_blocked.iter().cloned());
    }

    fn line(&self, name: &str) -> String {
        let pct = |a: usize, b: usize| {
            if b == 0 {
                "—".to_owned()
            } else {
                format!("{:.1}%", 100.0 * a as f64 / b as f64)
            }
        };
        let mut reasons: Vec<_> = self.reasons.iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(a.1));
        let top: Vec<String> = reasons
            .iter()
            .take(3)
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        format!(
            "| {name} | {} | {} | {} | {}/{} ({}) | {}/{} ({}) | {} |",
            self.traces,
            self.calls,
            self.blocked,
            self.wrong_blocked,
            self.wrong,
            pct(self.wrong_blocked, self.wrong),
            self.gold_allowed,
            self.gold,
            pct(self.gold_allowed, self.gold),
            top.join(", ")
        )
    }
}

/// One gated call's outcome in one mode: blocked with a reason key, or
/// allowed, with what allowed it and the judge-accepted steps of the
/// request's own flow (qualified ids such as `cancel.confirm`; the
/// classification alone does not count).
enum Outcome {
    Blocked(String),
    Allowed { why: String, dialogue: Vec<String> },
}

/// A wrong call that was allowed.
#[derive(Clone)]
struct Leak {
    trace: String,
    event: u32,
    why: String,
    dialogue: Vec<String>,
}

fn session_outcomes(report: &ReplayReport) -> HashMap<u32, Outcome> {
    report
        .events
        .iter()
        .filter_map(|r| match &r.verdict {
            GateVerdict::Block { reason, step, .. } => Some((
                r.event.0,
                Outcome::Blocked(format!("{reason:?}@{}", step.as_deref().unwrap_or("?"))),
            )),
            // Held for the user's confirmation: it does not run, so it counts
            // with the blocks, under a reason of its own.
            GateVerdict::Confirm { step, consent, .. } => Some((
                r.event.0,
                Outcome::Blocked(format!(
                    "Confirm({})@{}",
                    consent.label(),
                    step.as_deref().unwrap_or("?")
                )),
            )),
            GateVerdict::Allow { step, request, .. } => {
                let accepted: Vec<String> = report
                    .events
                    .iter()
                    .filter(|e| e.event <= r.event)
                    .flat_map(|e| &e.judge)
                    .filter(|n| n.verdict.is_satisfied() && n.rejected.is_none())
                    .filter(|n| n.request.iter().all(|(k, v)| request.get(k) == Some(v)))
                    .map(|n| n.node.clone())
                    .collect();
                let dialogue = accepted
                    .iter()
                    .filter(|n| n.contains('.'))
                    .cloned()
                    .collect();
                Some((
                    r.event.0,
                    Outcome::Allowed {
                        why: format!("at {step} {request:?}; judge accepted {accepted:?}"),
                        dialogue,
                    },
                ))
            }
            _ => None,
        })
        .collect()
}

/// The schedules replayed: `workflow` and `action`, or those listed in
/// `REAL_TRACES_SCHEDULES` (comma-separated).
fn schedules() -> Vec<Schedule> {
    let all = [Schedule::Workflow, Schedule::Action];
    match std::env::var("REAL_TRACES_SCHEDULES") {
        Ok(list) => all
            .into_iter()
            .filter(|s| list.split(',').any(|n| n.trim() == s.to_string()))
            .collect(),
        Err(_) => all.to_vec(),
    }
}

/// For the writes at `allowed`: how many step satisfactions on the allowing
/// request's path (the steps that lead to its authorization, satisfied for
/// it by the write) are formal checks, and how many judge criteria. Counted
/// on the formal-only derivation, where every step of the path is satisfied.
fn path_split(bundle: &CompiledBundle, trace: &Trace, allowed: &[u32]) -> (usize, usize) {
    let semantic = semantic_steps(bundle);
    let mut judged = Vec::new();
    for k in 0..trace.events.len() {
        judged.extend(semantic.iter().map(|s| (*s, EventIdx::from_usize(k))));
    }
    let plan = Arc::new(turnstile_rules::Plan::new(&bundle.program, &bundle.arg_paths).unwrap());
    let judged = for_every_request(bundle, &plan, trace, &judged).unwrap();
    let decision = decide(bundle, trace, &judged).unwrap();
    let steps = &bundle.program.steps;
    let (mut formal, mut by_judge) = (0, 0);
    for k in allowed {
        let Some(list) = decision.derived.allowed.get(&EventIdx(*k)) else {
            continue;
        };
        let Some((auth, env)) = list.first() else {
            continue;
        };
        // Every step from which the authorization can be reached.
        let mut ancestors = std::collections::BTreeSet::from([*auth]);
        let mut frontier = vec![*auth];
        while let Some(s) = frontier.pop() {
            for (from, _) in bundle.program.edges.iter().filter(|(_, to)| *to == s) {
                if ancestors.insert(*from) {
                    frontier.push(*from);
                }
            }
        }
        let on_path: std::collections::BTreeSet<_> = decision
            .derived
            .sat
            .iter()
            .filter(|(s, e, at)| at.0 <= *k && ancestors.contains(s) && env.extends(e))
            .map(|(s, _, _)| *s)
            .collect();
        for s in on_path {
            let Some(step) = steps.get(s.0 as usize) else {
                continue;
            };
            if step.semantic {
                by_judge += 1;
            } else if step.check.is_some() {
                formal += 1;
            }
        }
    }
    (formal, by_judge)
}

/// The formal checks alone: every semantic step granted at every event.
fn formal_outcomes(bundle: &CompiledBundle, trace: &Trace) -> HashMap<u32, Outcome> {
    let semantic = semantic_steps(bundle);
    let mut judged = Vec::new();
    for k in 0..trace.events.len() {
        judged.extend(semantic.iter().map(|s| (*s, EventIdx::from_usize(k))));
    }
    let plan = Arc::new(turnstile_rules::Plan::new(&bundle.program, &bundle.arg_paths).unwrap());
    let judged = for_every_request(bundle, &plan, trace, &judged).unwrap();
    let decision = decide(bundle, trace, &judged).unwrap();
    let mut out: HashMap<u32, Outcome> = decision
        .derived
        .violations
        .iter()
        .map(|v| {
            let step = v.unmet.map_or("?", |s| bundle.step_name(s));
            (
                v.event.0,
                Outcome::Blocked(format!("{:?}@{step}", v.reason)),
            )
        })
        .collect();
    for (k, list) in &decision.derived.allowed {
        let step = list.first().map_or("?", |(s, _)| bundle.step_name(*s));
        out.insert(
            k.0,
            Outcome::Allowed {
                why: format!("at {step} (formal checks pass)"),
                dialogue: Vec::new(),
            },
        );
    }
    out
}

fn score(
    trace: &Trace,
    outcomes: &HashMap<u32, Outcome>,
    gold: &HashMap<String, Vec<GoldAction>>,
    mutating: &[String],
) -> Row {
    let writes = gold.get(&trace.meta.id).cloned().unwrap_or_default();
    let mut row = Row {
        traces: 1,
        ..Row::default()
    };
    for (k, event) in trace.events.iter().enumerate() {
        let Event::Call { tool, args, .. } = event else {
            continue;
        };
        if !mutating.contains(tool) || !event.is_agent_event() {
            continue;
        }
        let k = u32::try_from(k).unwrap();
        row.calls += 1;
        let outcome = outcomes
            .get(&k)
            .unwrap_or_else(|| panic!("{}: event {k} ({tool}) has no verdict", trace.meta.id));
        let blocked = match outcome {
            Outcome::Blocked(key) => {
                *row.reasons.entry(key.clone()).or_default() += 1;
                true
            }
            Outcome::Allowed { .. } => false,
        };
        row.blocked += usize::from(blocked);
        if writes.is_empty() {
            row.wrong += 1;
            row.wrong_blocked += usize::from(blocked);
            if let Outcome::Allowed { why, dialogue } = outcome {
                row.leaks.push(Leak {
                    trace: trace.meta.id.clone(),
                    event: k,
                    why: format!("{tool} allowed {why}"),
                    dialogue: dialogue.clone(),
                });
            }
        } else if writes.iter().any(|a| a.matches(tool, args)) {
            row.gold += 1;
            row.gold_allowed += usize::from(!blocked);
            if let Outcome::Blocked(why) = outcome {
                row.gold_blocked
                    .push((trace.meta.id.clone(), k, format!("{tool} blocked: {why}")));
            }
        }
    }
    row
}

fn run_domain(domain: &str) -> BTreeMap<(String, String), Row> {
    let bundle = shipped_bundle(domain);
    let mutating: Vec<String> = bundle
        .domain
        .agent_writes()
        .map(|t| t.name.clone())
        .collect();
    let bundle = Arc::new(bundle);
    let rt = BundleRuntime::new(Arc::clone(&bundle)).unwrap();
    let files = domain_trace_files(domain);
    let mut table = BTreeMap::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let gold = gold_writes(domain, file, &mutating);
        let imported = import_file(file, None).unwrap();
        assert!(imported.errors.is_empty(), "{name}: {:?}", imported.errors);
        for schedule in schedules() {
            let mut row = Row::default();
            for trace in &imported.traces {
                let report = replay(&rt, trace, schedule, &OfflineJudge).unwrap();
                row.add(&score(trace, &session_outcomes(&report), &gold, &mutating));
            }
            table.insert((format!("offline · {schedule}"), name.clone()), row);
        }
        let mut row = Row::default();
        for trace in &imported.traces {
            row.add(&score(
                trace,
                &formal_outcomes(&bundle, trace),
                &gold,
                &mutating,
            ));
        }
        table.insert(("formal only".to_owned(), name.clone()), row);
        // The formal / judge split of the step satisfactions on the paths of
        // the writes the offline judge allows under the workflow schedule.
        let mut split = Row::default();
        for trace in &imported.traces {
            let report = replay(&rt, trace, Schedule::Workflow, &OfflineJudge).unwrap();
            let allowed: Vec<u32> = session_outcomes(&report)
                .into_iter()
                .filter(|(_, o)| matches!(o, Outcome::Allowed { .. }))
                .map(|(k, _)| k)
                .collect();
            let (formal, judged) = path_split(&bundle, trace, &allowed);
            split.formal_steps += formal;
            split.judged_steps += judged;
        }
        table.insert(("path steps".to_owned(), name.clone()), split);
    }
    table
}

fn report(domain: &str) -> BTreeMap<(String, String), Row> {
    let table = run_domain(domain);
    println!("\n### {domain}\n");
    println!(
        "| mode · file | traces | mutating calls | blocked | wrong calls blocked | gold-matching allowed | top block reasons |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut totals: BTreeMap<String, Row> = BTreeMap::new();
    for ((mode, file), row) in &table {
        if mode != "path steps" {
            println!("{}", row.line(&format!("{mode} · {file}")));
        }
        totals.entry(mode.clone()).or_default().add(row);
    }
    for (mode, row) in &totals {
        if mode == "path steps" {
            let total = row.formal_steps + row.judged_steps;
            println!(
                "\nstep satisfactions on the paths of allowed writes (offline · workflow): {} formal, {} judge ({:.1}% formal)",
                row.formal_steps,
                row.judged_steps,
                100.0 * row.formal_steps as f64 / total.max(1) as f64
            );
            continue;
        }
        println!("{}", row.line(&format!("**{mode} · all**")));
    }
    if let Some(row) = totals.get("offline · workflow") {
        for (trace, event, why) in &row.gold_blocked {
            println!("- gold-matching, offline · workflow: {trace} event {event}: {why}");
        }
    }
    for (mode, row) in &totals {
        for leak in &row.leaks {
            println!(
                "- {mode}: {} event {}: {}",
                leak.trace, leak.event, leak.why
            );
        }
    }
    if let Some(row) = totals.get("formal only") {
        for (trace, event, why) in &row.gold_blocked {
            println!("- gold-matching, formal only: {trace} event {event}: {why}");
        }
    }
    table
}

/// Every wrong call the offline judge lets through passed because the judge
/// accepted a dialogue-semantic step on its request's path, and is listed.
fn assert_leaks_are_dialogue_only(domain: &str, table: &BTreeMap<(String, String), Row>) {
    for ((mode, file), row) in table {
        assert!(
            row.calls > 0 || row.traces == 0,
            "{domain} {mode} {file}: no calls"
        );
        assert_eq!(
            row.wrong - row.wrong_blocked,
            row.leaks.len(),
            "{domain} {mode} {file}: every allowed wrong call is listed"
        );
        if mode == "formal only" || mode == "path steps" {
            continue;
        }
        // A leak passes on the dialogue: a judge-accepted step, or the
        // user's confirmation of a summary (`confirmed(...)` in the guard).
        for leak in &row.leaks {
            assert!(
                !leak.dialogue.is_empty() || leak.why.contains(".authorize"),
                "{domain} {mode}: {} event {} ({}) passed without any dialogue step",
                leak.trace,
                leak.event,
                leak.why
            );
        }
    }
}

#[test]
fn retail_traces() {
    let table = report("retail");
    assert_leaks_are_dialogue_only("retail", &table);
}

#[test]
fn airline_traces() {
    let table = report("airline");
    assert_leaks_are_dialogue_only("airline", &table);
}

/// Telecom's writes against the graded gold, two-party and solo files apart
/// (`support/telecom_writes.rs`; `telecom_traces.rs` asserts the counts).
#[test]
fn telecom_writes() {
    telecom_writes::print_table(&telecom_writes::telecom_write_rows());
}
