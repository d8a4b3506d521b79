//! Gate decision latency: deciding the n-th event of a conversation, a gated
//! agent call (`cancel_pending_order`), after the first n-1 events, at
//! n = 10, 100 and 1,000, allowed and blocked (`turnstile_benches::gate_trace`).
//! The decision is formal-only: every semantic verdict it depends on (the
//! classification, the user's confirmations) is already accepted.
//!
//! - `monitor`: the incremental monitor (with its fact extractor) that
//!   consumed the prefix extracts and pushes the call.
//! - `datalog`: `decide` on the whole n-event trace, as a non-incremental gate
//!   must at every decision.
//! - `session`: `Session::push` of the call (offline judge, a plain
//!   function call; workflow schedule), restored with every verdict accepted: the monitor's work
//!   plus the session's bookkeeping (rendering the event, the request views)
//!   and, for a block, the monitor's explanation (`Monitor::explain_block`).
//!   The judge is not asked: the booked verdicts decide the call (allowed,
//!   or blocked at a formal step). `session_live` is the allowed call as a
//!   live session meets it: the confirmation right before the call is not
//!   judged yet, so the push blocks at it, goes back to the event before the
//!   call (a replay of the logged events), asks the judge the confirmation
//!   (with the open classification, on the whole conversation), amends the
//!   monitor and decides again — the one push of a session that asks.
//! - `<allow|block>_gate_path` (criterion) and `gate path` (the timed
//!   table): what `turnstile gate` / `turnstile serve` do with the event
//!   besides the store's write (`turnstile_store::DurableSession`) —
//!   `Session::push`, the report serialized once to its JSON text, copied
//!   into the store's row and written as the answer.
//! - `cedar`: the same call decided by Cedar (`cedar-policy`) with the
//!   fixture's cancel rule written as a Cedar policy (module [`cedar`]):
//!   `is_authorized` alone, and request + context construction from the
//!   call's arguments + `is_authorized`. The percentiles end with the ratio
//!   Turnstile ÷ Cedar at each length.
//!
//! Outside the timed region, the monitor's prefix state is cloned and the
//! sessions are restored from their saved state (see [`restore`]). Criterion
//! reports medians; after it, `percentiles` times individual decisions with
//! `Instant` and prints median and p99 per (evaluator, size), what the
//! session's decision asked the judge and the work it counted
//! (`Session::work`). `GATE_PROFILE=<evaluator>:<n>[:block]`
//! skips all that and repeats one decision for a profiler (see [`profile`]).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BatchSize, BenchmarkId, Criterion};
use turnstile_benches::{GATE_TRACE_MIN, gate_trace, shop_bundle};
use turnstile_engine::CompiledBundle;
use turnstile_engine::check_bundle;
use turnstile_engine::decide::decide;
use turnstile_engine::extract::Extractor;
use turnstile_engine::session::{
    AcceptedVerdict, BundleRuntime, EventReport, GateVerdict, Schedule, Session, SessionState,
};
use turnstile_engine::trace::{Event, Trace};
use turnstile_judge::OfflineJudge;
use turnstile_rules::Monitor;
use turnstile_rules::{Env, EventIdx, StepId};

const SIZES: [usize; 3] = [10, 100, 1_000];

/// The shop fixture's cancel rule (`flows/cancel.yaml`, node `authorize`,
/// with the `confirm` step before it) as a Cedar policy, for a side-by-side
/// figure: Cedar is stateless, so the application hands it what Turnstile's
/// session tracks itself (which orders the user owns, the order's status,
/// and whether the user confirmed), and its cost does not depend on the
/// conversation's length.
mod cedar {
    use std::str::FromStr;

    use cedar_policy::{
        Authorizer, Context, Decision, Entities, EntityId, EntityTypeName, EntityUid, PolicySet,
        Request, RestrictedExpression, Schema, ValidationMode, Validator,
    };
    use serde_json::{Value, json};

    const SCHEMA: &str = r#"
        entity Order { status: String };
        entity User { orders: Set<Order> };
        action cancel_pending_order appliesTo {
            principal: User,
            resource: Order,
            context: { reason: String, confirmed: Bool }
        };
    "#;

    /// The user owns the order, the order is pending, the reason is one of
    /// the two accepted ones (`enum(cancel_reason)`), and the user
    /// confirmed.
    const POLICY: &str = r#"
        permit (principal, action == Action::"cancel_pending_order", resource)
        when {
            principal.orders.contains(resource) &&
            resource.status == "pending" &&
            ["no longer needed", "ordered by mistake"].contains(context.reason) &&
            context.confirmed
        };
    "#;

    /// The user and the orders of `gate_trace`: five cancelled, and `#OF`
    /// pending (`allowed`) or processed.
    pub struct Cedar {
        schema: Schema,
        policies: PolicySet,
        entities: Entities,
        authorizer: Authorizer,
        user: EntityUid,
        action: EntityUid,
        order_type: EntityTypeName,
    }

    impl Cedar {
        pub fn new(allowed: bool) -> Result<Self, String> {
            let (schema, _) = Schema::from_cedarschema_str(SCHEMA).map_err(|e| e.to_string())?;
            let policies: PolicySet = POLICY.parse().map_err(|e| format!("{e}"))?;
            let validation =
                Validator::new(schema.clone()).validate(&policies, ValidationMode::Strict);
            if !validation.validation_passed() {
                return Err(format!("the policy does not validate: {validation}"));
            }
            let final_status = if allowed { "pending" } else { "processed" };
            let mut orders: Vec<(String, &str)> =
                (0..5).map(|i| (format!("#O{i}"), "cancelled")).collect();
            orders.push(("#OF".to_owned(), final_status));
            let mut records: Vec<Value> = orders
                .iter()
                .map(|(id, status)| {
                    json!({"uid": {"type": "Order", "id": id}, "attrs": {"status": status}, "parents": []})
                })
                .collect();
            let owned: Vec<Value> = orders
                .iter()
                .map(|(id, _)| json!({"__entity": {"type": "Order", "id": id}}))
                .collect();
            records.push(
                json!({"uid": {"type": "User", "id": "u1"}, "attrs": {"orders": owned}, "parents": []}),
            );
            let entities = Entities::from_json_value(Value::Array(records), Some(&schema))
                .map_err(|e| e.to_string())?;
            Ok(Self {
                schema,
                policies,
                entities,
                authorizer: Authorizer::new(),
                user: EntityUid::from_str(r#"User::"u1""#).map_err(|e| e.to_string())?,
                action: EntityUid::from_str(r#"Action::"cancel_pending_order""#)
                    .map_err(|e| e.to_string())?,
                order_type: EntityTypeName::from_str("Order").map_err(|e| e.to_string())?,
            })
        }

        /// The Cedar request of an agent call `cancel_pending_order(args)`:
        /// the resource from `args.order_id`, the context from
        /// `args.reason` and the confirmation flag, validated against the
        /// schema (as an application that builds requests from tool calls
        /// would).
        pub fn request(&self, args: &Value, confirmed: bool) -> Result<Request, String> {
            let field = |name: &str| {
                args.get(name)
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("the call has no string {name}"))
            };
            let resource = EntityUid::from_type_name_and_id(
                self.order_type.clone(),
                EntityId::new(field("order_id")?),
            );
            let context = Context::from_pairs([
                (
                    "reason".to_owned(),
                    RestrictedExpression::new_string(field("reason")?.to_owned()),
                ),
                (
                    "confirmed".to_owned(),
                    RestrictedExpression::new_bool(confirmed),
                ),
            ])
            .map_err(|e| e.to_string())?;
            Request::new(
                self.user.clone(),
                self.action.clone(),
                resource,
                context,
                Some(&self.schema),
            )
            .map_err(|e| e.to_string())
        }

        /// `is_authorized` alone.
        pub fn authorize(&self, request: &Request) -> bool {
            self.authorizer
                .is_authorized(request, &self.policies, &self.entities)
                .decision()
                == Decision::Allow
        }

        /// Request and context construction, then `is_authorized`.
        pub fn decide(&self, args: &Value) -> Result<bool, String> {
            Ok(self.authorize(&self.request(args, true)?))
        }
    }
}

/// One gate decision: the n-event trace and every evaluator's state after
/// its first n-1 events.
struct Case {
    events: usize,
    allowed: bool,
    trace: Trace,
    /// Every accepted verdict of a live session over the whole trace.
    judged: Vec<(StepId, Env, EventIdx)>,
    /// Verdicts citing the last event (none: the decision is formal-only).
    judged_last: Vec<(StepId, Env)>,
    monitor: (Extractor, Monitor),
    /// The session after the prefix, every verdict accepted (the final
    /// confirmation included).
    session: SessionState,
    /// The session as a live run leaves the prefix: the confirmation not yet
    /// judged.
    live: SessionState,
}

impl Case {
    fn last(&self) -> &Event {
        self.trace
            .events
            .last()
            .unwrap_or_else(|| panic!("an empty trace"))
    }

    fn k(&self) -> EventIdx {
        EventIdx::from_usize(self.events - 1)
    }

    fn name(&self) -> &'static str {
        if self.allowed { "allow" } else { "block" }
    }
}

/// A session in `state`. Restored rather than cloned: a cloned `Vec` has no
/// spare capacity, so the clone's next push would copy every event's data
/// (O(n)), which a live session, grown push by push, does not. Its request
/// views are built once, as a live session built them at its last firing:
/// a live session's view cache is warm, a restored one's empty.
fn restore(rt: &Arc<BundleRuntime>, state: &SessionState) -> Session {
    let session =
        Session::restore(Arc::clone(rt), state.clone()).unwrap_or_else(|e| panic!("restore: {e}"));
    black_box(session.requests());
    session
}

fn push(session: &mut Session, event: Event) -> EventReport {
    session
        .push(event, &OfflineJudge)
        .unwrap_or_else(|e| panic!("session push: {e}"))
}

/// The session's decision (separate from [`push`] so a profiler can tell
/// it from the setup's pushes).
#[inline(never)]
fn session_decision(session: &mut Session, event: Event) -> EventReport {
    push(session, event)
}

/// One way of deciding a session's event, for the tables.
type Decision = fn(&mut Session, Event) -> EventReport;

/// The session's decision without the request views (`Session::decide`):
/// what a caller that prints only the verdict pays.
#[inline(never)]
fn session_decision_only(session: &mut Session, event: Event) -> EventReport {
    session
        .decide(event, &OfflineJudge)
        .unwrap_or_else(|e| panic!("session decide: {e}"))
}

/// The path `turnstile gate` and `turnstile serve` take for an event,
/// besides the store's write: [`Session::push`] (the verdict with the
/// request views), the report serialized once to its JSON text
/// (`cli/src/gate.rs`, `cli/src/serve/api.rs`), that text copied into the
/// store's row (`SessionHandle::append_delta`, `VerdictJson for String`)
/// and written as the answer line.
#[inline(never)]
fn session_gate_path(session: &mut Session, event: Event) -> EventReport {
    let report = push(session, event);
    let verdict =
        serde_json::to_string(&report).unwrap_or_else(|e| panic!("the verdict as JSON: {e}"));
    black_box(verdict.clone());
    let mut line = verdict.into_bytes();
    line.push(b'\n');
    black_box(line);
    report
}

fn live_run(rt: &Arc<BundleRuntime>, events: &[Event]) -> (Session, Vec<EventReport>) {
    let mut session = Session::new(Arc::clone(rt), Schedule::Workflow);
    let reports = events
        .iter()
        .map(|e| push(&mut session, e.clone()))
        .collect();
    (session, reports)
}

/// The monitor's decision: extract the call's facts and push them.
fn monitor_decision(
    bundle: &CompiledBundle,
    state: &mut (Extractor, Monitor),
    k: EventIdx,
    event: &Event,
    judged: &[(StepId, Env)],
) -> Option<bool> {
    let facts = state.0.event(bundle, k, event).facts;
    state
        .1
        .push(&facts, judged)
        .unwrap_or_else(|e| panic!("monitor push: {e}"))
        .allowed()
}

fn datalog_decision(
    bundle: &CompiledBundle,
    trace: &Trace,
    judged: &[(StepId, Env, EventIdx)],
) -> bool {
    let k = EventIdx::from_usize(trace.events.len() - 1);
    decide(bundle, trace, judged)
        .unwrap_or_else(|e| panic!("decide: {e}"))
        .derived
        .is_allowed(k)
}

fn build(rt: &Arc<BundleRuntime>, events: usize, allowed: bool) -> Case {
    let bundle = &rt.bundle;
    let trace = gate_trace(events, allowed);
    assert_eq!(trace.events.len(), events);
    let n = trace.events.len();
    let k = EventIdx::from_usize(n - 1);

    // A live session over the whole trace: its verdicts are the judged facts.
    let (full, reports) = live_run(rt, &trace.events);
    for r in &reports[..n - 1] {
        assert!(!r.verdict.is_block(), "n={n}: event {} blocked", r.event);
    }
    let last = &reports[n - 1];
    match (&last.verdict, allowed) {
        (GateVerdict::Allow { .. }, true) | (GateVerdict::Block { .. }, false) => {}
        (other, _) => panic!("n={n}, allowed={allowed}: the live session said {other:?}"),
    }
    let judged = full.judged();
    let confirm = bundle
        .step("cancel.confirm")
        .unwrap_or_else(|| panic!("the shop bundle has cancel.confirm"));
    assert!(
        judged
            .iter()
            .any(|&(s, _, e)| s == confirm && e == EventIdx(k.0 - 1)),
        "the final confirmation is judged: {judged:?}"
    );
    let judged_last: Vec<(StepId, Env)> = judged
        .iter()
        .filter(|(_, _, e)| *e == k)
        .map(|(s, env, _)| (*s, *env))
        .collect();
    assert!(judged_last.is_empty(), "formal-only: {judged_last:?}");

    // The monitor after the prefix.
    let mut extractor = Extractor::new(bundle);
    let mut monitor = Monitor::new(Arc::clone(&rt.plan));
    for (i, event) in trace.events[..n - 1].iter().enumerate() {
        let i = EventIdx::from_usize(i);
        let facts = extractor.event(bundle, i, event).facts;
        let now: Vec<(StepId, Env)> = judged
            .iter()
            .filter(|(_, _, e)| *e == i)
            .map(|(s, env, _)| (*s, *env))
            .collect();
        monitor
            .push(&facts, &now)
            .unwrap_or_else(|e| panic!("monitor push: {e}"));
    }

    // Sessions after the prefix: as a live run leaves it, and restored with
    // the final confirmation accepted.
    let (live, _) = live_run(rt, &trace.events[..n - 1]);
    let live = live.snapshot();
    let mut session = live.clone();
    session.judged = judged
        .iter()
        .map(|&(step, request, evidence)| AcceptedVerdict {
            step,
            evidence,
            request,
        })
        .collect();

    let case = Case {
        events: n,
        allowed,
        judged,
        judged_last,
        monitor: (extractor, monitor),
        session,
        live,
        trace,
    };

    // Every evaluator agrees, once, outside the timing.
    let mut m = case.monitor.clone();
    assert_eq!(
        monitor_decision(bundle, &mut m, k, case.last(), &case.judged_last),
        Some(allowed),
        "monitor, n={n}"
    );
    assert_eq!(
        datalog_decision(bundle, &case.trace, &case.judged),
        allowed,
        "datalog, n={n}"
    );
    let mut s = restore(rt, &case.session);
    let before = s.judged();
    let report = push(&mut s, case.last().clone());
    assert!(report.fired);
    assert_eq!(
        report.verdict.is_block(),
        !allowed,
        "session, n={n}: {:?}",
        report.verdict
    );
    assert_eq!(
        s.judged(),
        before,
        "no verdict is accepted at the decision: {:?}",
        report.judge
    );
    case
}

/// Cedar's decision of the same gated call (`cedar::Cedar`), allowed and
/// denied.
struct CedarCase {
    allowed: bool,
    cedar: cedar::Cedar,
    /// The call's arguments, from which a request is built.
    args: serde_json::Value,
    /// The request built once, for `is_authorized` alone.
    request: cedar_policy::Request,
}

impl CedarCase {
    fn name(&self) -> &'static str {
        if self.allowed { "allow" } else { "block" }
    }
}

fn cedar_cases() -> Vec<CedarCase> {
    [true, false]
        .map(|allowed| {
            let trace = gate_trace(GATE_TRACE_MIN, allowed);
            let args = match trace.events.last() {
                Some(Event::Call { args, .. }) => args.clone(),
                other => panic!("the gate trace ends with a call: {other:?}"),
            };
            let cedar = cedar::Cedar::new(allowed).unwrap_or_else(|e| panic!("cedar: {e}"));
            let request = cedar
                .request(&args, true)
                .unwrap_or_else(|e| panic!("cedar request: {e}"));
            assert_eq!(
                cedar.authorize(&request),
                allowed,
                "cedar, allowed={allowed}"
            );
            assert_eq!(cedar.decide(&args), Ok(allowed), "cedar, allowed={allowed}");
            CedarCase {
                allowed,
                cedar,
                args,
                request,
            }
        })
        .into_iter()
        .collect()
}

fn cases(rt: &Arc<BundleRuntime>) -> Vec<Case> {
    SIZES
        .iter()
        .flat_map(|&n| [true, false].map(|allowed| build(rt, n, allowed)))
        .collect()
}

fn bench_gate(c: &mut Criterion, rt: &Arc<BundleRuntime>, cases: &[Case], cedar: &[CedarCase]) {
    let bundle = &rt.bundle;

    let mut group = c.benchmark_group("gate_cedar");
    group
        .sample_size(50)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(500));
    for case in cedar {
        group.bench_function(BenchmarkId::new("is_authorized", case.name()), |b| {
            b.iter(|| case.cedar.authorize(black_box(&case.request)))
        });
        group.bench_function(
            BenchmarkId::new("request_and_is_authorized", case.name()),
            |b| b.iter(|| case.cedar.decide(black_box(&case.args))),
        );
    }
    group.finish();

    // Short windows: a decision takes microseconds, so even these give tens
    // of thousands of iterations, while each iteration's untimed setup (the
    // clone or restore of the prefix state) multiplies the wall time.
    let mut group = c.benchmark_group("gate_monitor");
    group
        .sample_size(50)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(500));
    for case in cases {
        let id = BenchmarkId::new(case.name(), case.events);
        group.bench_function(id, |b| {
            b.iter_batched(
                || case.monitor.clone(),
                |mut state| {
                    let allowed = monitor_decision(
                        bundle,
                        &mut state,
                        case.k(),
                        black_box(case.last()),
                        &case.judged_last,
                    );
                    (state, allowed)
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();

    let mut group = c.benchmark_group("gate_datalog");
    group.warm_up_time(Duration::from_millis(300));
    for case in cases {
        // Linear sampling runs 55 iterations at sample size 10.
        let (samples, window) = match case.events {
            ..100 => (30, 1_000),
            100..1_000 => (10, 1_000),
            _ => (10, 3_000),
        };
        group
            .sample_size(samples)
            .measurement_time(Duration::from_millis(window));
        let id = BenchmarkId::new(case.name(), case.events);
        group.bench_function(id, |b| {
            b.iter(|| datalog_decision(bundle, black_box(&case.trace), &case.judged))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("gate_session");
    group.warm_up_time(Duration::from_millis(300));
    for case in cases {
        let slow = case.events >= 1_000 && !case.allowed;
        group
            .sample_size(if slow { 10 } else { 20 })
            .measurement_time(Duration::from_millis(if slow { 3_000 } else { 1_000 }));
        let runs: [(String, &SessionState, Decision); 4] = [
            (case.name().to_owned(), &case.session, session_decision),
            (
                format!("{}_decide", case.name()),
                &case.session,
                session_decision_only,
            ),
            (
                format!("{}_gate_path", case.name()),
                &case.session,
                session_gate_path,
            ),
            ("allow_live".to_owned(), &case.live, session_decision),
        ];
        let runs = if case.allowed { &runs[..] } else { &runs[..3] };
        for (name, state, decision) in runs {
            let id = BenchmarkId::new(name, case.events);
            group.bench_function(id, |b| {
                b.iter_batched(
                    || (restore(rt, state), case.last().clone()),
                    |(mut session, event)| {
                        let report = decision(&mut session, event);
                        (session, report)
                    },
                    BatchSize::SmallInput,
                )
            });
        }
    }
    group.finish();
}

/// Median and p99 of individually timed decisions: up to `max` of them, or
/// as many as fit in `budget` (at least 100). The input is prepared (cloned)
/// outside the timing and the output dropped outside it.
fn sample<S, O>(
    max: usize,
    budget: Duration,
    mut setup: impl FnMut() -> S,
    mut run: impl FnMut(&mut S) -> O,
) -> (Duration, Duration, usize) {
    let start = Instant::now();
    let mut times = Vec::with_capacity(max);
    while times.len() < max && (times.len() < 100 || start.elapsed() < budget) {
        let mut state = setup();
        let t = Instant::now();
        let out = run(&mut state);
        times.push(t.elapsed());
        drop(black_box(out));
        drop(state);
    }
    times.sort();
    let at = |q: f64| {
        let i = ((times.len() as f64 * q).ceil() as usize).saturating_sub(1);
        times.get(i).copied().unwrap_or_default()
    };
    (at(0.5), at(0.99), times.len())
}

fn micros(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 100.0 {
        format!("{us:.2} µs")
    } else if us < 10_000.0 {
        format!("{us:.0} µs")
    } else {
        format!("{:.1} ms", us / 1e3)
    }
}

/// Individually timed medians of this run, by (evaluator, decision,
/// events); Cedar's at 0 events (it keeps no conversation).
type Medians = std::collections::BTreeMap<(&'static str, &'static str, usize), Duration>;

fn percentiles(rt: &Arc<BundleRuntime>, cases: &[Case], cedar: &[CedarCase]) {
    let bundle = &rt.bundle;
    let budget = Duration::from_millis(1_500);
    let mut medians = Medians::new();
    println!("\nIndividually timed decisions (Instant), median / p99 (samples):");
    println!("| evaluator | decision | events | median | p99 | samples |");
    println!("|---|---|---|---|---|---|");
    let mut record = |what: &'static str,
                      name: &'static str,
                      events: usize,
                      (median, p99, n): (Duration, Duration, usize)| {
        println!(
            "| {what} | {name} | {events} | {} | {} | {n} |",
            micros(median),
            micros(p99)
        );
        medians.insert((what, name, events), median);
    };
    for case in cedar {
        let r = sample(
            2_000,
            budget,
            || (),
            |()| case.cedar.authorize(&case.request),
        );
        record("cedar is_authorized", case.name(), 0, r);
        let r = sample(2_000, budget, || (), |()| case.cedar.decide(&case.args));
        record("cedar request+is_authorized", case.name(), 0, r);
    }
    let mut row = |what: &'static str, case: &Case, r: (Duration, Duration, usize)| {
        record(what, case.name(), case.events, r)
    };
    for case in cases {
        for (what, state) in [("session", &case.session), ("session_live", &case.live)] {
            let mut session = restore(rt, state);
            let before = session.work();
            session_decision(&mut session, case.last().clone());
            let after = session.work();
            println!(
                "work of the {what} decision ({}, {} events): {} turns rendered, {} turns sent to the judge (by reference), {} turns copied, {} events replayed, {} pushes undone, {} verdicts amended, {} fallback rounds",
                case.name(),
                case.events,
                after.turns_rendered - before.turns_rendered,
                after.turns_sent - before.turns_sent,
                after.turns_copied - before.turns_copied,
                after.events_replayed - before.events_replayed,
                after.pushes_undone - before.pushes_undone,
                after.verdicts_amended - before.verdicts_amended,
                after.fallback_rounds - before.fallback_rounds,
            );
        }
        let mut session = restore(rt, &case.session);
        let report = session_decision(&mut session, case.last().clone());
        let asked: Vec<String> = report
            .judge
            .iter()
            .map(|j| format!("{} {:?} -> {:?}", j.node, j.request, j.verdict))
            .collect();
        println!(
            "judge questions of the session's decision ({}, {} events): {asked:?}",
            case.name(),
            case.events
        );
        let k = case.k();
        let r = sample(
            2_000,
            budget,
            || case.monitor.clone(),
            |state| monitor_decision(bundle, state, k, case.last(), &case.judged_last),
        );
        row("monitor", case, r);
        let r = sample(
            2_000,
            budget,
            || (),
            |()| datalog_decision(bundle, &case.trace, &case.judged),
        );
        row("datalog", case, r);
        let timed = |state: &SessionState, decision: Decision| {
            sample(
                2_000,
                budget,
                || Some((restore(rt, state), case.last().clone())),
                |input| {
                    input
                        .take()
                        .map(|(mut session, event)| (decision(&mut session, event), session))
                },
            )
        };
        row("session", case, timed(&case.session, session_decision));
        row(
            "session decide",
            case,
            timed(&case.session, session_decision_only),
        );
        row("gate path", case, timed(&case.session, session_gate_path));
        if case.allowed {
            row("session_live", case, timed(&case.live, session_decision));
            // What the clone excluded above costs (the prefix state's size).
            let r = sample(2_000, budget, || (), |()| case.monitor.clone());
            row("monitor clone", case, r);
        }
    }
    ratios(&medians);
}

/// Turnstile ÷ Cedar, from the individually timed medians of this run: the
/// allowed call against Cedar's allow, the blocked one against its deny.
fn ratios(medians: &Medians) {
    println!("\nTurnstile ÷ Cedar (medians of this run; allow vs allow, block vs deny):");
    println!(
        "| events | decision | monitor ÷ is_authorized | monitor ÷ request+is_authorized | session ÷ is_authorized | session ÷ request+is_authorized | session decide ÷ request+is_authorized | gate path ÷ request+is_authorized |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let ratio = |ours: Option<&Duration>, theirs: Option<&Duration>| match (ours, theirs) {
        (Some(a), Some(b)) if !b.is_zero() => format!("{:.2}×", a.as_secs_f64() / b.as_secs_f64()),
        _ => "–".to_owned(),
    };
    for events in SIZES {
        for name in ["allow", "block"] {
            let authorize = medians.get(&("cedar is_authorized", name, 0));
            let request = medians.get(&("cedar request+is_authorized", name, 0));
            let monitor = medians.get(&("monitor", name, events));
            let session = medians.get(&("session", name, events));
            let decide = medians.get(&("session decide", name, events));
            let path = medians.get(&("gate path", name, events));
            println!(
                "| {events} | {name} | {} | {} | {} | {} | {} | {} |",
                ratio(monitor, authorize),
                ratio(monitor, request),
                ratio(session, authorize),
                ratio(session, request),
                ratio(decide, request),
                ratio(path, request),
            );
        }
    }
}

/// `GATE_PROFILE=<monitor|session|decide|path|live|cedar>:<events>[:block]`
/// (or `path:<events>:consent`, [`profile_consent_block`]):
/// only repeat that evaluator's allowed (or blocked) decision at that length
/// for ten seconds, without criterion (to run under `perf record` or
/// `valgrind --tool=callgrind`). `decide` is `Session::decide` (no request
/// views); `path` the gate's whole path (`session_gate_path`: push and the
/// verdict's JSON); `live` the allowed push that asks the judge; `cedar`
/// Cedar's request + `is_authorized` ([`profile_cedar`]; the length is
/// ignored).
fn profile(rt: &Arc<BundleRuntime>, spec: &str) {
    let mut parts = spec.split(':');
    let (what, events) = match (parts.next(), parts.next()) {
        (Some(what), Some(events)) => (what, events),
        (Some(events), None) => ("monitor", events),
        _ => panic!("GATE_PROFILE={spec}: <evaluator>:<events>[:block]"),
    };
    let variant = parts.next();
    let allowed = variant != Some("block");
    let events: usize = events
        .parse()
        .unwrap_or_else(|e| panic!("GATE_PROFILE={spec}: {e}"));
    if what == "cedar" {
        profile_cedar(allowed);
        return;
    }
    if variant == Some("consent") {
        profile_consent_block(rt, events);
        return;
    }
    let case = build(rt, events, allowed);
    println!("{} argument paths", rt.bundle.arg_paths.len());
    let start = Instant::now();
    let mut decisions = 0u64;
    while start.elapsed() < Duration::from_secs(10) {
        let allowed = if what == "session" || what == "live" {
            let state = if what == "live" {
                &case.live
            } else {
                &case.session
            };
            let mut session = restore(rt, state);
            let report = session_decision(&mut session, case.last().clone());
            Some(!report.verdict.is_block())
        } else if what == "decide" {
            let mut session = restore(rt, &case.session);
            let report = session_decision_only(&mut session, case.last().clone());
            Some(!report.verdict.is_block())
        } else if what == "path" {
            let mut session = restore(rt, &case.session);
            let report = session_gate_path(&mut session, case.last().clone());
            Some(!report.verdict.is_block())
        } else {
            let mut state = case.monitor.clone();
            monitor_decision(
                &rt.bundle,
                &mut state,
                case.k(),
                case.last(),
                &case.judged_last,
            )
        };
        decisions += u64::from(black_box(allowed).is_some());
    }
    println!("{decisions} decisions");
}

/// `GATE_PROFILE=path:<events>:consent`: the gate's whole path
/// (`session_gate_path`) at a write that fails on consent alone — the
/// allowed conversation with the user's final yes replaced by a reply the
/// reader cannot read as one, so the cancel is held for confirmation —,
/// the session restored before it each time (so the consent-granted
/// monitor starts empty: the session's first such block), for ten seconds.
fn profile_consent_block(rt: &Arc<BundleRuntime>, events: usize) {
    let mut trace = gate_trace(events, true);
    let n = trace.events.len();
    let Some(Event::User { text }) = trace.events.get_mut(n - 2) else {
        panic!("the user's yes comes before the final cancel");
    };
    *text = "How long does a refund take?".to_owned();
    let (live, _) = live_run(rt, &trace.events[..n - 1]);
    let state = live.snapshot();
    let last = trace.events[n - 1].clone();
    let mut s = restore(rt, &state);
    let report = push(&mut s, last.clone());
    assert!(
        matches!(report.verdict, GateVerdict::Confirm { .. }),
        "n={n}: the unconfirmed cancel is held for confirmation: {:?}",
        report.verdict
    );
    let start = Instant::now();
    let mut decisions = 0u64;
    while start.elapsed() < Duration::from_secs(10) {
        let mut session = restore(rt, &state);
        let report = session_gate_path(&mut session, last.clone());
        decisions += u64::from(black_box(report.verdict.withholds()));
    }
    println!("{decisions} decisions");
}

/// `GATE_PROFILE=cedar:0[:block]`: Cedar's request construction +
/// `is_authorized` of the same call, repeated for ten seconds
/// ([`cedar_decision`] for `--toggle-collect`).
fn profile_cedar(allowed: bool) {
    let case = cedar_cases()
        .into_iter()
        .find(|c| c.allowed == allowed)
        .unwrap_or_else(|| panic!("no cedar case"));
    let start = Instant::now();
    let mut decisions = 0u64;
    while start.elapsed() < Duration::from_secs(10) {
        decisions += u64::from(black_box(cedar_decision(&case)).is_ok());
    }
    println!("{decisions} decisions");
}

/// Cedar's decision of the call: request and context built from its
/// arguments, then `is_authorized`.
#[inline(never)]
fn cedar_decision(case: &CedarCase) -> Result<bool, String> {
    case.cedar.decide(&case.args)
}

fn main() {
    let bundle = check_bundle(&shop_bundle()).unwrap_or_else(|e| panic!("shop bundle: {e}"));
    let rt = BundleRuntime::new(Arc::new(bundle)).unwrap_or_else(|e| panic!("runtime: {e}"));
    if let Ok(spec) = std::env::var("GATE_PROFILE") {
        profile(&rt, &spec);
        return;
    }
    let cases = cases(&rt);
    let cedar = cedar_cases();
    let mut c = Criterion::default().configure_from_args();
    bench_gate(&mut c, &rt, &cases, &cedar);
    c.final_summary();
    percentiles(&rt, &cases, &cedar);
}
