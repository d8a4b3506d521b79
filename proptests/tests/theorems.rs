#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code: a panic is a failure report
//! The coverage theorems of PolicyGuide (Appendix A) as properties, over
//! random workflows (`turnstile_proptests::workflows`) and random agents:
//!
//! - Corollary 1 and 2 and the prefix closure of `P_G`, on the analysis —
//!   half the workflows have dual control with a device fix and a claim
//!   (`WorkflowSpec::order`), whose premature instruction and unverified
//!   claim are deviations no action-only guard covers;
//! - Theorem 1, necessity, and the analysis agreeing with the engine: every
//!   deviation's witness, replayed through sessions under each schedule,
//!   shows exactly the predicted first deviation, committed by exactly the
//!   schedules that do not cover it;
//! - Theorem 1, sufficiency: an adversarial agent proposing arbitrary events
//!   against an ideal binding verifier that fires everywhere (`C_S = D_G`)
//!   never commits a prefix outside `P_G`; the same agent against a verifier
//!   that skips one kind of step (reads) does — `a_verifier_that_skips_reads_is_caught`
//!   keeps that failure in the suite;
//! - engine invariants: determinism, lazy judge asking deciding every write
//!   as eager asking does, no allowed write without its
//!   authorization path, save/restore at any cut, and an event no check
//!   mentions changing no verdict.
//!
//! Cases: 64 for the analysis-only property, 12 for the witnesses (20
//! deviations each), 24 for the others; `TURNSTILE_PROPTEST_CASES` (or
//! `PROPTEST_CASES`) sets them all, `TURNSTILE_PROPTEST_SCALE=10` multiplies
//! the defaults. Deep run:
//! `TURNSTILE_PROPTEST_SCALE=10 cargo test --release -p turnstile-proptests --test theorems`.

use std::sync::Arc;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use turnstile_engine::BundleRuntime;
use turnstile_engine::bundle::model::Side;
use turnstile_engine::coverage::observe::deviations;
use turnstile_engine::coverage::witness::{Builder, WitnessError};
use turnstile_engine::coverage::{AgentClass, Turn, analyze};
use turnstile_engine::session::{GateVerdict, Schedule, Session, SessionState};
use turnstile_engine::trace::{Event, Trace, TraceMeta};
use turnstile_judge::{Record, RecordedJudge, Verdict};
use turnstile_proptests::workflows::{
    CLAIM, CLAIM_PHRASE, FIX_TOOL, READ_TOOLS, RequestSpec, StepSpec, UNMENTIONED_TOOL,
    WRITE_TOOLS, WorkflowSpec,
};
use turnstile_rules::StepOrigin;

fn config(default: u32) -> Config {
    Config {
        cases: turnstile_proptests::cases(default),
        failure_persistence: None,
        ..Config::default()
    }
}

// ---------------------------------------------------------------------------
// Generators.

fn leaf() -> impl Strategy<Value = StepSpec> {
    prop_oneof![
        (0..READ_TOOLS.len(), any::<bool>())
            .prop_map(|(tool, checked)| StepSpec::Read { tool, checked }),
        Just(StepSpec::UserSays),
        Just(StepSpec::AgentSays),
    ]
}

fn step() -> impl Strategy<Value = StepSpec> {
    prop_oneof![
        4 => leaf(),
        1 => (
            prop::collection::vec(leaf(), 0..2),
            prop::collection::vec(leaf(), 0..2)
        )
            .prop_map(|(yes, no)| StepSpec::Decide { yes, no }),
    ]
}

fn workflow() -> impl Strategy<Value = WorkflowSpec> {
    let request = (
        prop::collection::vec(step(), 0..3),
        0..WRITE_TOOLS.len(),
        any::<bool>(),
    )
        .prop_map(|(steps, write, guarded)| RequestSpec {
            steps,
            write,
            guarded,
        });
    (
        prop::collection::vec(step(), 0..3),
        prop::collection::vec(request, 1..3),
        any::<bool>(),
        any::<bool>(),
        prop::option::of((1..READ_TOOLS.len(), any::<bool>())),
    )
        .prop_map(|(intro, requests, repeat, order, protect)| WorkflowSpec {
            intro,
            requests,
            repeat,
            order,
            protect,
        })
}

/// One event an agent (or its user and tools) may propose.
#[derive(Clone, Debug)]
enum Proposal {
    /// A user message; `Some(i)`: the judge says it satisfies the i-th
    /// dialogue step (modulo their number).
    User(Option<usize>),
    /// An agent message, likewise.
    Agent(Option<usize>),
    /// A read of `READ_TOOLS[tool]` (or `peek` past the end) of id `W{id}`
    /// whose result says `ok`.
    Read { tool: usize, id: u8, ok: bool },
    /// A write of `WRITE_TOOLS[tool]` of id `W{id}`.
    Write { tool: usize, id: u8 },
    /// An agent message telling the user to run the device fix `FIX_TOOL`.
    Instruct,
    /// An agent message making the claim `CLAIM`.
    Claim,
}

fn proposal() -> impl Strategy<Value = Proposal> {
    prop_oneof![
        1 => prop::option::of(0..8usize).prop_map(Proposal::User),
        1 => prop::option::of(0..8usize).prop_map(Proposal::Agent),
        3 => (0..=READ_TOOLS.len(), 1..3u8, prop::bool::weighted(0.7))
            .prop_map(|(tool, id, ok)| Proposal::Read { tool, id, ok }),
        2 => (0..WRITE_TOOLS.len(), 1..3u8).prop_map(|(tool, id)| Proposal::Write { tool, id }),
        1 => Just(Proposal::Instruct),
        1 => Just(Proposal::Claim),
    ]
}

fn agent() -> impl Strategy<Value = Vec<Proposal>> {
    prop::collection::vec(proposal(), 1..24)
}

// ---------------------------------------------------------------------------
// Helpers.

struct Compiled {
    _dir: tempfile::TempDir,
    rt: Arc<BundleRuntime>,
}

fn compile(spec: &WorkflowSpec) -> Compiled {
    let dir = tempfile::tempdir().unwrap();
    spec.write_to(dir.path()).unwrap();
    let bundle = turnstile_engine::check_bundle(dir.path())
        .unwrap_or_else(|p| panic!("generated bundle does not compile: {p:?}\n{spec:?}"));
    Compiled {
        rt: BundleRuntime::new(Arc::new(bundle)).unwrap(),
        _dir: dir,
    }
}

/// The dialogue steps of the bundle: (node id, branch label).
fn dialogue_steps(rt: &BundleRuntime) -> Vec<(String, Option<String>)> {
    let program = &rt.bundle.program;
    program
        .steps
        .iter()
        .filter(|s| s.semantic)
        .filter_map(|s| match &s.origin {
            StepOrigin::Node => Some((s.name.clone(), None)),
            StepOrigin::Branch { decision, label } => program
                .step(*decision)
                .map(|d| (d.name.clone(), Some(label.clone()))),
        })
        .collect()
}

/// The events of one proposal at event `k`, and the verdict record it brings
/// (at most one record per node, so the recording answers the same live and
/// on replay).
fn realise(
    rt: &BundleRuntime,
    proposal: &Proposal,
    k: usize,
    records: &[Record],
) -> (Vec<Event>, Option<Record>) {
    let dialogue = dialogue_steps(rt);
    let record = |pick: &Option<usize>| {
        let (node, label) = dialogue.get((*pick)? % dialogue.len().max(1))?.clone();
        if records.iter().any(|r| r.node == node) {
            return None;
        }
        let evidence_event = u32::try_from(k).ok()?;
        Some(Record {
            node,
            bundle: None,
            slice: None,
            at_event: None,
            verdict: match label {
                Some(label) => Verdict::Chosen {
                    label,
                    evidence_event,
                },
                None => Verdict::Satisfied { evidence_event },
            },
            rationale: None,
        })
    };
    let call = |tool: &str, id: u8| Event::Call {
        id: format!("c{k}"),
        tool: tool.to_owned(),
        args: serde_json::json!({ "id": format!("W{id}") }),
        requestor: Side::Agent,
    };
    match proposal {
        Proposal::User(pick) => (
            vec![Event::User {
                text: "yes".to_owned(),
            }],
            record(pick),
        ),
        Proposal::Agent(pick) => (
            vec![Event::Agent {
                text: "noted".to_owned(),
            }],
            record(pick),
        ),
        Proposal::Read { tool, id, ok } => {
            let name = READ_TOOLS.get(*tool).copied().unwrap_or(UNMENTIONED_TOOL);
            (
                vec![
                    call(name, *id),
                    Event::Result {
                        id: format!("c{k}"),
                        ok: true,
                        content: serde_json::json!({ "id": format!("W{id}"), "ok": ok }),
                    },
                ],
                None,
            )
        }
        Proposal::Instruct => (
            vec![Event::Agent {
                text: format!("Please run {FIX_TOOL} on your device."),
            }],
            None,
        ),
        Proposal::Claim => (
            vec![Event::Agent {
                text: format!("Good news: {CLAIM_PHRASE}."),
            }],
            None,
        ),
        Proposal::Write { tool, id } => {
            let name = WRITE_TOOLS[*tool];
            (
                vec![
                    call(name, *id),
                    Event::Result {
                        id: format!("c{k}"),
                        ok: true,
                        content: serde_json::json!({}),
                    },
                ],
                None,
            )
        }
    }
}

fn judge_of(records: &[Record]) -> RecordedJudge {
    let text: String = records
        .iter()
        .map(|r| serde_json::to_string(r).unwrap() + "\n")
        .collect();
    RecordedJudge::parse(&text).unwrap()
}

fn trace_of(events: Vec<Event>) -> Trace {
    Trace {
        meta: TraceMeta::default(),
        events,
    }
}

/// What a write's gist decides: its allow with the authorizing step, or
/// that it is withheld (blocked, or held for a person); `None` for a
/// verdict that decides no write.
fn decision(gist: &str) -> Option<&str> {
    if gist.starts_with("allow") {
        Some(gist)
    } else if gist.starts_with("block") || gist == "confirm" {
        Some("withheld")
    } else {
        None
    }
}

/// A verdict without its prose (event indices shift when an event is added).
fn gist(verdict: &GateVerdict) -> String {
    match verdict {
        GateVerdict::Allow { step, .. } => format!("allow {step}"),
        GateVerdict::Block { reason, step, .. } => format!("block {reason:?} {step:?}"),
        other => other.label().to_owned(),
    }
}

// ---------------------------------------------------------------------------
// The verifier an adversarial agent runs against.

/// Decides whether the event just taken (its report and the session after it)
/// is rejected; a rejected event is not committed.
trait Verifier {
    fn rejects(
        &self,
        rt: &BundleRuntime,
        session: &Session,
        event: &Event,
        verdict: &GateVerdict,
    ) -> bool;
}

/// The ideal binding verifier under the workflow schedule: it rejects exactly
/// the events that leave `P_G` (a write or protected read withheld — blocked,
/// or held for confirmation, which does not run until an approval no
/// adversary here sends —, a `deviate` instruction or claim). `messages: false` breaks it: it then lets
/// every agent message through, so a premature instruction or an
/// unverified claim is committed.
struct Ideal {
    messages: bool,
}

impl Verifier for Ideal {
    fn rejects(&self, _: &BundleRuntime, _: &Session, _: &Event, verdict: &GateVerdict) -> bool {
        verdict.withholds() || (self.messages && verdict.is_deviation())
    }
}

/// A broken verifier: it never checks reads (the protected ones included)
/// nor the agent's messages, like an action-only guard.
struct SkipsReads;

impl Verifier for SkipsReads {
    fn rejects(
        &self,
        rt: &BundleRuntime,
        _: &Session,
        event: &Event,
        verdict: &GateVerdict,
    ) -> bool {
        let read = matches!(event, Event::Call { tool, .. }
            if rt.bundle.protected_reads.iter().any(|p| p.tool == *tool));
        verdict.withholds() && !read
    }
}

/// Runs the adversary against `verifier`; returns the committed events and
/// the records. A rejected proposal leaves no trace (its result neither).
fn run_adversary(
    rt: &Arc<BundleRuntime>,
    proposals: &[Proposal],
    verifier: &dyn Verifier,
) -> (Vec<Event>, Vec<Record>) {
    {
        let mut session = Session::new(Arc::clone(rt), Schedule::Workflow);
        let mut committed: Vec<Event> = Vec::new();
        let mut records: Vec<Record> = Vec::new();
        for proposal in proposals {
            let (events, record) = realise(rt, proposal, committed.len(), &records);
            let mut trial = session.clone();
            let mut trial_records = records.clone();
            trial_records.extend(record);
            let judge = judge_of(&trial_records);
            let mut rejected = false;
            for event in &events {
                let report = trial.push(event.clone(), &judge).unwrap();
                if verifier.rejects(rt, &trial, event, &report.verdict) {
                    rejected = true;
                    break;
                }
            }
            if !rejected {
                session = trial;
                records = trial_records;
                committed.extend(events);
            }
        }
        (committed, records)
    }
}

fn sufficiency(
    spec: &WorkflowSpec,
    proposals: &[Proposal],
    verifier: &dyn Verifier,
) -> Result<(), TestCaseError> {
    let compiled = compile(spec);
    let (committed, records) = run_adversary(&compiled.rt, proposals, verifier);
    let trace = trace_of(committed);
    let found = deviations(
        &compiled.rt,
        &trace,
        Schedule::Workflow,
        &judge_of(&records),
    )
    .unwrap();
    prop_assert!(
        found.is_empty(),
        "committed a prefix outside P_G: {:?} in {:#?}",
        found.first(),
        trace.events
    );
    Ok(())
}

// ---------------------------------------------------------------------------
// Properties.

proptest! {
    #![proptest_config(config(64))]

    /// Corollary 1 (workflow covers D_G; action exactly its write class),
    /// Corollary 2 (boundary exactly the deviations at a turn's first agent
    /// event) and the prefix closure of P_G.
    #[test]
    fn corollaries_and_prefix_closure(spec in workflow()) {
        let compiled = compile(&spec);
        let analysis = analyze(&compiled.rt.bundle);
        prop_assert!(!analysis.explored.truncated);
        prop_assert!(!analysis.deviations.is_empty(), "no deviation in {spec:?}");
        let all = analysis.deviations.len();
        prop_assert_eq!(analysis.coverage(Schedule::Workflow).covered.len(), all);
        // With the device fix and the claim, both are in D_G (from the start:
        // nothing diagnosed or verified) and the action schedule covers
        // neither: Corollary 1's gap for messages.
        if spec.order {
            for class in [AgentClass::Instruct(FIX_TOOL.to_owned()), AgentClass::Claim(CLAIM.to_owned())] {
                let of_class: Vec<usize> = (0..all).filter(|&i| analysis.deviations[i].class == class).collect();
                prop_assert!(!of_class.is_empty(), "no {class:?} deviation in {spec:?}");
                let action = analysis.coverage(Schedule::Action);
                prop_assert!(of_class.iter().all(|i| action.uncovered.contains(i)));
            }
        }
        for (i, d) in analysis.deviations.iter().enumerate() {
            let write = matches!(d.class, AgentClass::Write(_));
            prop_assert_eq!(analysis.coverage(Schedule::Action).covered.contains(&i), write);
            prop_assert_eq!(
                analysis.coverage(Schedule::Boundary).covered.contains(&i),
                d.state.turn == Turn::TurnStart
            );
            // The witness prefix is in P_G, every prefix of it too, and the
            // deviating event leaves it.
            for cut in 0..=d.prefix.len() {
                prop_assert!(analysis.valid(&d.prefix[..cut], None), "prefix {cut} of {d:?}");
            }
            prop_assert!(!analysis.valid(&d.prefix, Some(&d.class)));
        }
        // Closure over every reachable live state, not only deviation states.
        for i in 0..analysis.explored.states.len() {
            if analysis.explored.live[i] {
                let path = analysis.explored.path_to(i);
                for cut in 0..=path.len() {
                    prop_assert!(analysis.valid(&path[..cut], None));
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(config(12))]

    /// Theorem 1, necessity, and the analysis agreeing with the engine: each
    /// deviation's witness replays to exactly the predicted first deviation;
    /// a schedule that does not cover it commits it (a write is not blocked,
    /// a read not checked), one that covers it rejects it.
    #[test]
    fn witnesses_show_the_predicted_deviation_under_each_schedule(spec in workflow()) {
        let compiled = compile(&spec);
        let analysis = analyze(&compiled.rt.bundle);
        let mut builder = Builder::new(Arc::clone(&compiled.rt), &analysis);
        let stride = (analysis.deviations.len() / 20).max(1);
        let mut confirmed = 0;
        // Twenty deviations evenly spread over D_G per workflow.
        for d in analysis.deviations.iter().step_by(stride) {
            match builder.witness(d) {
                Ok(witness) => {
                    confirmed += 1;
                    for schedule in Schedule::ALL {
                        let seen = deviations(&compiled.rt, &witness.trace, schedule, &witness.judge()).unwrap();
                        let first = seen.first().expect("checked by the builder");
                        prop_assert_eq!(first.covered, d.covered_by(schedule));
                    }
                }
                // Over-approximation made visible: a state no data reaches
                // (correlated checks) or one the request passes at once.
                Err(WitnessError::Unrealised { .. } | WitnessError::Overtaken { .. }) => {}
                Err(e) => prop_assert!(false, "{e} for {d:?} in {spec:?}"),
            }
        }
        prop_assert!(confirmed > 0, "no witness confirmed in {spec:?}");
    }

}

proptest! {
    #![proptest_config(config(24))]

    /// Theorem 1, sufficiency: with C_S = D_G (the ideal verifier firing at
    /// every agent event), no adversary commits a prefix outside P_G.
    #[test]
    fn the_ideal_verifier_never_commits_an_invalid_prefix(spec in workflow(), proposals in agent()) {
        sufficiency(&spec, &proposals, &Ideal { messages: true })?;
    }

    /// Engine invariants on random traces under every schedule.
    #[test]
    fn engine_invariants(spec in workflow(), proposals in agent(), cut in any::<prop::sample::Index>(), at in any::<prop::sample::Index>()) {
        let compiled = compile(&spec);
        let rt = &compiled.rt;
        // Everything committed: a raw agent.
        let (events, records) = run_adversary(rt, &proposals, &Never);
        let judge = judge_of(&records);
        for schedule in Schedule::ALL {
            let replay = |events: &[Event], judge: &RecordedJudge| {
                {
                    let mut session = Session::new(Arc::clone(rt), schedule);
                    let mut out = Vec::new();
                    for e in events {
                        out.push(session.push(e.clone(), judge).unwrap());
                    }
                    (out, session)
                }
            };
            let (first, session) = replay(&events, &judge);
            // Determinism: the same input gives the same bytes.
            let (second, _) = replay(&events, &judge);
            prop_assert_eq!(serde_json::to_string(&first).unwrap(), serde_json::to_string(&second).unwrap());
            // Asking the judge lazily (only at a write the booked verdicts
            // block) allows exactly the writes asking at every firing does,
            // by the same step, and withholds the rest; guidance may differ
            // (a cursor rests at a dialogue step until a write needs its
            // answer), and so may how a write is withheld: the eager session
            // asks questions the lazy one never needs, and one the judge
            // could not decide leaves its write to a person (`confirm`)
            // where the lazy session, not having asked, blocks it.
            let eager: Vec<String> = {
                let mut s = Session::new(Arc::clone(rt), schedule);
                s.judge_eagerly();
                let mut out = Vec::new();
                for e in &events {
                    out.push(gist(&s.push(e.clone(), &judge).unwrap().verdict));
                }
                out
            };
            for (k, (lazy, eager)) in first.iter().map(|r| gist(&r.verdict)).zip(&eager).enumerate() {
                if let (Some(lazy), Some(eager)) = (decision(&lazy), decision(eager)) {
                    prop_assert_eq!(lazy, eager, "event {} under {}", k, schedule);
                } else {
                    prop_assert_eq!(decision(&lazy), decision(eager), "event {} under {}", k, schedule);
                }
            }
            // No write is allowed unless its authorization step's
            // predecessor holds for that request at or before the call.
            let program = &rt.bundle.program;
            for (k, allowed) in session.monitor().allowed() {
                for (step, env) in allowed {
                    let ok = program.edges.iter().filter(|(_, to)| to == step).any(|(from, _)| {
                        session.monitor().evidence().iter().any(|((s, e), at)| {
                            s == from && (e == env || env.extends(e)) && at <= k
                        })
                    });
                    prop_assert!(ok, "write at {k:?} allowed without its path");
                }
            }
            // Save/restore at any cut answers the rest identically.
            if !events.is_empty() {
                let cut = cut.index(events.len());
                let restored = {
                    let mut s = Session::new(Arc::clone(rt), schedule);
                    for e in &events[..cut] {
                        s.push(e.clone(), &judge).unwrap();
                    }
                    let text = serde_json::to_string(&s.snapshot()).unwrap();
                    let mut s = Session::restore(Arc::clone(rt), SessionState::from_json(&text).unwrap()).unwrap();
                    let mut out = Vec::new();
                    for e in &events[cut..] {
                        out.push(s.push(e.clone(), &judge).unwrap());
                    }
                    out
                };
                prop_assert_eq!(
                    serde_json::to_string(&restored).unwrap(),
                    serde_json::to_string(&first[cut..]).unwrap()
                );
            }
            // An event no check mentions changes no verdict (under the
            // boundary schedule any agent event moves the firing point, by
            // design, so it is left out).
            if schedule != Schedule::Boundary {
                let at = at.index(events.len() + 1);
                let mut with = events.clone();
                let peek = [
                    Event::Call { id: "peek".into(), tool: UNMENTIONED_TOOL.into(), args: serde_json::json!({"id": "W1"}), requestor: Side::Agent },
                    Event::Result { id: "peek".into(), ok: true, content: serde_json::json!({}) },
                ];
                with.splice(at..at, peek);
                let shifted: Vec<Record> = records.iter().cloned().map(|mut r| {
                    let shift = |e: &mut u32| if *e as usize >= at { *e += 2 };
                    match &mut r.verdict {
                        Verdict::Satisfied { evidence_event } | Verdict::Chosen { evidence_event, .. } => shift(evidence_event),
                        _ => {}
                    }
                    r
                }).collect();
                let (after, _) = replay(&with, &judge_of(&shifted));
                let mut after: Vec<String> = after.iter().map(|r| gist(&r.verdict)).collect();
                after.drain(at..at + 2);
                let before: Vec<String> = first.iter().map(|r| gist(&r.verdict)).collect();
                prop_assert_eq!(before, after);
            }
        }
    }
}

/// A verifier that rejects nothing: the raw agent.
struct Never;

impl Verifier for Never {
    fn rejects(&self, _: &BundleRuntime, _: &Session, _: &Event, _: &GateVerdict) -> bool {
        false
    }
}

/// Runs the sufficiency property against a broken `verifier` until it fails;
/// returns the shrunk workflow and proposals (panics if it never fails).
fn caught(verifier: &dyn Verifier) -> (WorkflowSpec, Vec<Proposal>) {
    let mut runner = TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&(workflow(), agent()), |(spec, proposals)| {
        sufficiency(&spec, &proposals, verifier)
    });
    match result {
        Err(proptest::test_runner::TestError::Fail(why, (spec, proposals))) => {
            println!("caught, shrunk to {spec:?} with {proposals:?}: {why}");
            (spec, proposals)
        }
        other => panic!("the broken verifier was not caught: {other:?}"),
    }
}

/// The properties can fail: the sufficiency property, run against a verifier
/// that skips read steps, finds a committed deviation (and shrinks it).
#[test]
fn a_verifier_that_skips_reads_is_caught() {
    caught(&SkipsReads);
}

/// The properties see the messages: the sufficiency property, run against a
/// verifier that lets agent messages through, finds a committed instruction
/// or claim deviation.
#[test]
fn a_verifier_that_skips_messages_is_caught() {
    let (spec, proposals) = caught(&Ideal { messages: false });
    assert!(spec.order, "{spec:?}");
    assert!(
        proposals
            .iter()
            .any(|p| matches!(p, Proposal::Instruct | Proposal::Claim)),
        "{proposals:?}"
    );
}

/// A workflow with one request type: a checked read of `READ_TOOLS[read]`,
/// then the guarded write `act_x`.
fn one_request(read: usize, repeat: bool, order: bool) -> WorkflowSpec {
    WorkflowSpec {
        intro: Vec::new(),
        requests: vec![RequestSpec {
            steps: vec![StepSpec::Read {
                tool: read,
                checked: true,
            }],
            write: 0,
            guarded: true,
        }],
        repeat,
        order,
        protect: None,
    }
}

/// The small workflow with the device fix and the claim: one checked-free
/// read before a request of two steps.
fn small_ordered_workflow() -> Compiled {
    compile(&WorkflowSpec {
        intro: vec![StepSpec::Read {
            tool: 1,
            checked: false,
        }],
        ..one_request(2, false, true)
    })
}

/// Builds the witness of each of `chosen` and checks the engine confirms it
/// under every schedule: `deviate` (or a block) at the predicted event, of
/// the predicted class, where the schedule covers it. Returns the witnesses.
fn confirmed_under_every_schedule(
    rt: &Arc<BundleRuntime>,
    analysis: &turnstile_engine::coverage::Analysis,
    chosen: &[&turnstile_engine::coverage::Deviation],
) -> Vec<turnstile_engine::coverage::witness::Witness> {
    let mut builder = Builder::new(Arc::clone(rt), analysis);
    let mut witnesses = Vec::new();
    for d in chosen {
        let witness = builder
            .witness(d)
            .unwrap_or_else(|e| panic!("{e} for {d:?}"));
        for schedule in Schedule::ALL {
            let seen = deviations(rt, &witness.trace, schedule, &witness.judge()).unwrap();
            assert_eq!(seen[0].class, d.class);
            assert_eq!(seen[0].covered, d.covered_by(schedule), "{schedule} {d:?}");
        }
        witnesses.push(witness);
    }
    witnesses
}

/// With the device fix and the claim, every instruction and claim deviation
/// of a small workflow has a witness the engine confirms under every
/// schedule: `deviate` at the predicted message where the schedule covers it.
#[test]
fn instruction_and_claim_witnesses_are_confirmed() {
    let compiled = small_ordered_workflow();
    let analysis = analyze(&compiled.rt.bundle);
    let messages: Vec<_> = analysis
        .deviations
        .iter()
        .filter(|d| d.class.is_message())
        .collect();
    assert!(
        messages
            .iter()
            .any(|d| matches!(d.class, AgentClass::Instruct(_)))
            && messages
                .iter()
                .any(|d| matches!(d.class, AgentClass::Claim(_))),
        "{messages:?}"
    );
    confirmed_under_every_schedule(&compiled.rt, &analysis, &messages);
}

/// Solo control on the same small workflow: analysed with the agent calling
/// the device tools, the device fix is an agent class too
/// ([`AgentClass::DeviceCall`]), and every instruction, claim and device-call
/// deviation has a witness whose header says `solo`, in which the agent
/// makes every device call, and which the engine (taking the header's
/// control) confirms under every schedule.
#[test]
fn solo_control_witnesses_are_confirmed() {
    use turnstile_engine::bundle::model::Control;
    use turnstile_engine::coverage::analyze_with;
    let compiled = small_ordered_workflow();
    let analysis = analyze_with(&compiled.rt.bundle, Control::Solo);
    let ruled: Vec<_> = analysis
        .deviations
        .iter()
        .filter(|d| d.class.has_order_rule())
        .collect();
    assert!(
        ruled
            .iter()
            .any(|d| matches!(d.class, AgentClass::DeviceCall(_))),
        "{ruled:?}"
    );
    for witness in confirmed_under_every_schedule(&compiled.rt, &analysis, &ruled) {
        assert_eq!(witness.trace.meta.control, Some(Control::Solo));
        assert!(!witness.trace.events.iter().any(|e| matches!(
            e,
            Event::Call {
                requestor: Side::User,
                ..
            }
        )));
    }
}

/// The generator's loop is real: with `repeat`, the analysis reaches states
/// after a request looped back through `more[another]` to the classifier,
/// and a deviation there has a witness the engine confirms (the second
/// request's write is judged as the analysis predicts).
#[test]
fn a_looping_workflow_has_confirmed_deviations_after_the_loop() {
    use turnstile_engine::coverage::Move;
    let spec = one_request(1, true, false);
    let compiled = compile(&spec);
    let analysis = analyze(&compiled.rt.bundle);
    let rt = &compiled.rt;
    let looped = |d: &&turnstile_engine::coverage::Deviation| {
        d.prefix.iter().any(|m| {
            matches!(m, Move::User { satisfies: Some(s) } | Move::Holds { step: s }
                if rt.step_name(*s) == "more[another]")
        })
    };
    let after_loop: Vec<_> = analysis.deviations.iter().filter(looped).collect();
    assert!(
        !after_loop.is_empty(),
        "no deviation after the loop: {:?}",
        analysis
            .deviations
            .iter()
            .map(|d| &d.node)
            .collect::<Vec<_>>()
    );
    let mut builder = Builder::new(Arc::clone(rt), &analysis);
    let confirmed = after_loop
        .iter()
        .take(6)
        .filter(|d| builder.witness(d).is_ok())
        .count();
    assert!(confirmed > 0, "no witness after the loop confirmed");
}

/// Found by `the_ideal_verifier_never_commits_an_invalid_prefix` (default
/// case count): a write whose only unmet step is the user's consent (a
/// `user_input` step) is held for confirmation, not blocked; the call does
/// not run, so the ideal verifier must not commit it.
#[test]
fn a_write_held_for_confirmation_is_not_committed() {
    use turnstile_proptests::workflows::RequestSpec;
    let request = |steps: Vec<StepSpec>| RequestSpec {
        steps,
        write: 0,
        guarded: false,
    };
    let spec = WorkflowSpec {
        intro: vec![],
        requests: vec![request(vec![StepSpec::UserSays]), request(vec![])],
        repeat: false,
        order: false,
        protect: None,
    };
    let proposals = vec![
        Proposal::User(Some(4)),
        Proposal::Read {
            tool: 0,
            id: 1,
            ok: false,
        },
        Proposal::Write { tool: 0, id: 1 },
    ];
    sufficiency(&spec, &proposals, &Ideal { messages: true }).unwrap();
}

/// Found at `PROPTEST_CASES=1000` by `the_ideal_verifier_never_commits_an_invalid_prefix`:
/// a judge citing the agent's own message as a classification's evidence
/// was accepted by the gate's lazy session (asked at the write, after the
/// message) but not by the analysis' eager one (asked before it, and not
/// again, as no user turn came). Evidence after the last turn of the
/// speaker who decides a question is now refused in both, so they agree.
#[test]
fn lazy_and_eager_sessions_agree_on_evidence_after_the_deciding_speaker() {
    use turnstile_proptests::workflows::RequestSpec;
    let spec = WorkflowSpec {
        intro: vec![],
        requests: vec![
            RequestSpec {
                steps: vec![],
                write: 0,
                guarded: false,
            },
            RequestSpec {
                steps: vec![StepSpec::UserSays],
                write: 0,
                guarded: false,
            },
        ],
        repeat: false,
        order: false,
        protect: None,
    };
    let proposals = vec![
        Proposal::Read {
            tool: 0,
            id: 1,
            ok: false,
        },
        Proposal::Agent(Some(4)),
        Proposal::Write { tool: 0, id: 1 },
    ];
    let compiled = compile(&spec);
    let (committed, records) = run_adversary(&compiled.rt, &proposals, &Ideal { messages: true });
    let judge = judge_of(&records);
    let write = Event::Call {
        id: "w".to_owned(),
        tool: "act_x".to_owned(),
        args: serde_json::json!({ "id": "W1" }),
        requestor: Side::Agent,
    };
    let verdicts = |eager: bool| {
        let mut session = Session::new(Arc::clone(&compiled.rt), Schedule::Workflow);
        if eager {
            session.judge_eagerly();
        }
        let mut out = Vec::new();
        for event in committed.iter().chain([&write]) {
            out.push(gist(&session.push(event.clone(), &judge).unwrap().verdict));
        }
        out
    };
    let (lazy, eager) = (verdicts(false), verdicts(true));
    assert_eq!(lazy, eager);
    // The write does not run: no user turn decides the classification
    // (the judge's only yes cites the agent's turn), so it is left to a
    // person, the same whether the judge was asked at the write or before
    // (only the latest answer about the classification counts).
    assert!(lazy.last().is_some_and(|v| v == "confirm"), "{lazy:?}");
}

/// Found at `TURNSTILE_PROPTEST_SCALE=10` by
/// `witnesses_show_the_predicted_deviation_under_each_schedule`: two request
/// types writing the same tool, the "anything else?" loop between them. At
/// the second request's write the lazy session explained the block by the
/// first request's used authorization (a formal step) and asked nothing,
/// while the second request waited at unasked dialogue steps (`more`,
/// `classify`, its own step): it blocked what the eager reference allowed,
/// and that block made the boundary schedule fire at the next agent event,
/// so the analysis' uncovered mid-turn write was caught. The lazy session
/// now asks whenever any request waits at an unasked dialogue step on the
/// way to the tool; every witness of this workflow is confirmed. The
/// deviations' states are reached without the loop too, so each write
/// deviation's witness is built along a prefix that takes the loop (two
/// writes before the deviating one).
#[test]
fn a_second_request_of_the_same_tool_after_the_loop_is_judged_lazily_as_eagerly() {
    let spec = WorkflowSpec {
        intro: vec![],
        requests: vec![
            RequestSpec {
                steps: vec![StepSpec::Decide {
                    yes: vec![StepSpec::Read {
                        tool: 1,
                        checked: false,
                    }],
                    no: vec![StepSpec::UserSays],
                }],
                write: 1,
                guarded: false,
            },
            RequestSpec {
                steps: vec![StepSpec::UserSays],
                write: 1,
                guarded: false,
            },
        ],
        repeat: true,
        order: false,
        protect: None,
    };
    let compiled = compile(&spec);
    let analysis = analyze(&compiled.rt.bundle);
    let mut builder = Builder::new(Arc::clone(&compiled.rt), &analysis);
    let mut second_writes = 0;
    let looped: Vec<_> = analysis
        .deviations
        .iter()
        .filter(|d| d.class == AgentClass::Write("act_y".to_owned()))
        .filter_map(|d| {
            let prefix = path_with_writes(&analysis, d.state_index, 2)?;
            let mut d = d.clone();
            d.prefix = prefix;
            Some(d)
        })
        .collect();
    assert!(!looped.is_empty(), "no write deviation after the loop");
    for d in analysis.deviations.iter().chain(&looped) {
        match builder.witness(d) {
            Ok(witness) => {
                let writes = witness
                    .trace
                    .events
                    .iter()
                    .filter(|e| matches!(e, Event::Call { tool, .. } if tool == "act_y"))
                    .count();
                // The witnesses this regression is about: a second write
                // allowed before the deviating one.
                if writes == 3 {
                    second_writes += 1;
                }
                for schedule in Schedule::ALL {
                    let seen = deviations(&compiled.rt, &witness.trace, schedule, &witness.judge())
                        .unwrap();
                    let first = seen.first().expect("checked by the builder");
                    assert_eq!(
                        first.covered,
                        d.covered_by(schedule),
                        "{d:?} under {schedule}"
                    );
                }
            }
            Err(WitnessError::Unrealised { .. } | WitnessError::Overtaken { .. }) => {}
            Err(e) => panic!("{e} for {d:?}"),
        }
    }
    assert!(second_writes > 0, "no witness allows a second write");
}

/// The shortest valid moves from the start to state `target` that take at
/// least `writes` writes (breadth-first over state × writes taken).
fn path_with_writes(
    analysis: &turnstile_engine::coverage::Analysis,
    target: usize,
    writes: usize,
) -> Option<Vec<turnstile_engine::coverage::Move>> {
    use std::collections::{BTreeMap, VecDeque};
    use turnstile_engine::coverage::Move;
    let explored = &analysis.explored;
    let mut parent: BTreeMap<(usize, usize), ((usize, usize), Move)> = BTreeMap::new();
    let mut queue = VecDeque::from([(0usize, 0usize)]);
    let mut seen = std::collections::BTreeSet::from([(0usize, 0usize)]);
    while let Some((state, taken)) = queue.pop_front() {
        if state == target && taken >= writes {
            let mut path = Vec::new();
            let mut at = (state, taken);
            while let Some((from, mv)) = parent.get(&at) {
                path.push(mv.clone());
                at = *from;
            }
            path.reverse();
            return Some(path);
        }
        for (mv, next) in explored.successors.get(state).into_iter().flatten() {
            let after = (taken + usize::from(matches!(mv, Move::Write { .. }))).min(writes);
            if seen.insert((*next, after)) {
                parent.insert((*next, after), ((state, taken), mv.clone()));
                queue.push_back((*next, after));
            }
        }
    }
    None
}

/// Found by `engine_invariants` once undecided questions were left to a
/// person: a request loops back to its classifier after `general`; the
/// eager session asks the second classification at the write (its label
/// recorded for the first is no longer offered: unknown) and holds the
/// write for a person, while the lazy session, whose question about the
/// first classification already stands for that slice, blocks it. Both
/// withhold it; neither allows it.
#[test]
fn a_question_only_the_eager_session_asks_changes_how_not_whether_a_write_is_withheld() {
    use turnstile_proptests::workflows::RequestSpec;
    let spec = WorkflowSpec {
        intro: vec![],
        requests: vec![RequestSpec {
            steps: vec![StepSpec::UserSays],
            write: 0,
            guarded: false,
        }],
        repeat: true,
        order: false,
        protect: None,
    };
    let proposals = vec![
        Proposal::Agent(Some(7)),
        Proposal::Read {
            tool: 0,
            id: 1,
            ok: false,
        },
        Proposal::User(None),
        Proposal::Agent(None),
        Proposal::User(None),
        Proposal::Write { tool: 0, id: 1 },
    ];
    let compiled = compile(&spec);
    let (events, records) = run_adversary(&compiled.rt, &proposals, &Never);
    let judge = judge_of(&records);
    let decided = |eager: bool| {
        let mut session = Session::new(Arc::clone(&compiled.rt), Schedule::Workflow);
        if eager {
            session.judge_eagerly();
        }
        events
            .iter()
            .map(|event| gist(&session.push(event.clone(), &judge).unwrap().verdict))
            .find(|g| decision(g).is_some())
    };
    let (lazy, eager) = (decided(false).unwrap(), decided(true).unwrap());
    assert!(lazy.starts_with("block"), "{lazy}");
    assert_eq!(eager, "confirm");
    assert_eq!(decision(&lazy), decision(&eager));
}
