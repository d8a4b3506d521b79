//! Conformance of the shipped retail and airline bundles with tau2-bench:
//! every task's gold action sequence, turned into a compliant conversation
//! (see `conformance/plan.rs`), must have every gold mutating call allowed
//! (except the documented, policy-justified disagreements below), and
//! deviations injected into those conversations must be blocked with the
//! right `Reason`. Prints the figures quoted in `bundles/README.md`.
//!
//! Reads tau2 from `data/tau2/` (or `TAU2_DATA`), through `support/tau2.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "conformance/plan.rs"]
mod plan;
#[path = "conformance/sim.rs"]
mod sim;
#[path = "support/tau2.rs"]
mod tau2;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use turnstile_engine::decide::{Decision, decide, explain, for_every_request};
use turnstile_engine::{CompiledBundle, check_bundle};

use plan::{Kind, Plan, build, gold_plan, variants};
use sim::{Db, Domain};

/// Gold mutating calls the bundles block on purpose: `(domain, task id,
/// index in the task's gold action list, why)`. Each is also listed in the
/// bundle's COVERAGE.md.
const DOCUMENTED_EXCEPTIONS: &[(&str, &str, usize, &str)] = &[
    (
        "retail",
        "64",
        6,
        "exchange_delivered_order_items on order #W7464385, whose status is `pending`: \
         only delivered orders can be exchanged (policy.md:130); a pending order's items \
         are modified with modify_pending_order_items instead",
    ),
    (
        "retail",
        "105",
        0,
        "exchange of two tea kettles (94.80 each) for items at 101.12 and 109.58, paying the \
         21.10 difference with gift_card_7245904 whose balance is 17.00: a gift card must \
         cover the price difference (policy.md:134)",
    ),
    (
        "airline",
        "39",
        10,
        "cancel_reservation of MSJ4OA (economy, insured, booked 2024-05-05, nothing \
         cancelled by the airline): the user cancels to give the seat to someone who needs \
         it, not a reason the insurance covers (health or weather, policy.md:101, :147)",
    ),
];

/// The reason for cancelling the user of a task states (`(domain, task id,
/// reason)`, from the task's instructions), restated in the cancellation's
/// summary: an insured reservation is cancelled only for a reason the
/// insurance covers, named in the summary the user confirms (airline
/// `cancel.authorize`).
const CANCEL_REASONS: &[(&str, &str, &str)] = &[
    ("airline", "7", "you are sick"),      // "You are sick."
    ("airline", "19", "you feel unwell"),  // "... as you feel unwell"
    ("airline", "29", "a health problem"), // "mention your health problem"
];

/// Gold mutating calls the *engine* blocks although bundle and policy allow
/// them: known engine gaps, reported (printed and in the final figures), not
/// hidden. The suite fails when one of them becomes allowed, so the list
/// stays current. Reproduction: a second write of the same request type whose
/// request has no entity binding (`$user` only: a second booking, a second
/// default-address change) after a new "yes": a semantic step is judged only
/// at the first judged event after its predecessor (`INextJudged` in
/// `rules/src/program.rs`), so the request's `confirm` evidence stays before
/// the first write, and the authorization step of that request cannot be
/// satisfied again (`blocked (WrongValue)` with no failing condition).
const ENGINE_GAPS: &[(&str, &str, usize, &str)] = &[
    // Empty since the main flows loop back to `classify` after a request
    // (`main.more`): a second booking or a second default-address change of
    // the same user (airline task 23 #2, #3; retail task 22 #6) is allowed.
];

/// Variants are derived from every `STRIDE`-th gold write (all in release
/// builds; every 4th in debug builds, where one decision takes ~5x longer).
/// `CONFORMANCE_STRIDE=1` runs them all.
fn stride() -> usize {
    std::env::var("CONFORMANCE_STRIDE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 4 } else { 1 })
        .max(1)
}

fn bundle(domain: Domain) -> CompiledBundle {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bundles")
        .join(domain.name());
    check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"))
}

/// The verdict on the call at plan position `at`.
fn verdict(
    bundle: &CompiledBundle,
    db: &Db,
    plan: &Plan,
    at: usize,
) -> (Decision, turnstile_rules::EventIdx, Result<(), String>) {
    let built = build(bundle, db, plan);
    // The plan's verdicts name no request: each holds for every request.
    let monitor_plan =
        Arc::new(turnstile_rules::Plan::new(&bundle.program, &bundle.arg_paths).expect("plans"));
    let judged =
        for_every_request(bundle, &monitor_plan, &built.trace, &built.judged).expect("monitors");
    let start = std::time::Instant::now();
    let d = decide(bundle, &built.trace, &judged).expect("evaluates");
    TIME.with(|t| t.set(t.get() + start.elapsed()));
    let k = built.event_of[at];
    let v = if d.derived.is_allowed(k) {
        Ok(())
    } else {
        Err(d
            .derived
            .violations
            .iter()
            .find(|v| v.event == k)
            .map_or_else(
                || format!("event {k}: blocked, no violation"),
                |v| explain(bundle, &d, v),
            ))
    };
    (d, k, v)
}

thread_local! {
    static TIME: std::cell::Cell<std::time::Duration> = const { std::cell::Cell::new(std::time::Duration::ZERO) };
}

#[derive(Default)]
struct Tally {
    tasks: usize,
    gold_writes: usize,
    allowed: usize,
    documented: usize,
    gold_failures: Vec<String>,
    engine_gaps: Vec<String>,
    /// Per kind: (blocked with an expected reason, blocked at all, variants).
    variants: BTreeMap<Kind, (usize, usize, usize)>,
    /// The same, restricted to conversations about a single order / reservation:
    /// (right reason, variants).
    single: BTreeMap<Kind, (usize, usize)>,
    misses: Vec<String>,
    decide_time: std::time::Duration,
    decisions: usize,
}

fn run(domain: Domain) -> Tally {
    let tasks = tau2::tau2_json(&format!("{}/tasks.json", domain.name()));
    let db = Db {
        domain,
        data: tau2::tau2_json(&format!("{}/db.json", domain.name())),
    };
    let bundle = bundle(domain);
    let mut t = Tally::default();
    let stride = stride();
    for task in tasks.as_array().expect("a task list") {
        t.tasks += 1;
        let id = task["id"].as_str().unwrap_or_default();
        let actions = task["evaluation_criteria"]["actions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let cancel_reason = CANCEL_REASONS
            .iter()
            .find(|(d, task, _)| *d == domain.name() && *task == id)
            .map(|(_, _, reason)| *reason);
        let gold = gold_plan(domain, &db, &actions, cancel_reason);
        let entities: std::collections::BTreeSet<String> = gold
            .acts
            .iter()
            .filter_map(|a| match a {
                plan::Act::Call { tool, args, .. }
                    if tool == "get_order_details" || tool == "get_reservation_details" =>
                {
                    Some(args.to_string())
                }
                _ => None,
            })
            .collect();
        let single = entities.len() <= 1;
        for w in &gold.writes {
            t.gold_writes += 1;
            let (_, _, v) = verdict(&bundle, &db, &gold, w.at);
            t.decisions += 1;
            let listed = |list: &[(&str, &str, usize, &str)]| {
                list.iter()
                    .any(|(d, task, i, _)| *d == domain.name() && *task == id && *i == w.gold_index)
            };
            let documented = listed(DOCUMENTED_EXCEPTIONS);
            let engine_gap = listed(ENGINE_GAPS);
            let here = format!("{} task {id} action {}", domain.name(), w.gold_index);
            match (v, documented || engine_gap) {
                (Ok(()), false) => t.allowed += 1,
                (Ok(()), true) => t.gold_failures.push(format!(
                    "{here}: listed as blocked, but now allowed: update the list"
                )),
                (Err(_), true) if documented => t.documented += 1,
                (Err(why), true) => t.engine_gaps.push(format!("{here} {}\n  {why}", w.tool)),
                (Err(why), false) => t
                    .gold_failures
                    .push(format!("{here} {} {}\n  {why}", w.tool, w.args)),
            }
            if engine_gap {
                continue;
            }
            if documented || (t.gold_writes - 1) % stride != 0 {
                continue;
            }
            for variant in variants(domain, &db, &gold, w) {
                let (d, k, v) = verdict(&bundle, &db, &variant.plan, variant.at);
                t.decisions += 1;
                let entry = t.variants.entry(variant.kind).or_default();
                entry.2 += 1;
                entry.1 += usize::from(v.is_err());
                let caught = v.is_err()
                    && d.derived
                        .violations
                        .iter()
                        .find(|x| x.event == k)
                        .is_some_and(|x| variant.expect.contains(&x.reason));
                if single {
                    let e = t.single.entry(variant.kind).or_default();
                    e.0 += usize::from(caught);
                    e.1 += 1;
                }
                if caught {
                    entry.0 += 1;
                } else {
                    t.misses.push(format!(
                        "{} task {id} action {} {} [{}: {}] expected {:?}, got {}",
                        domain.name(),
                        w.gold_index,
                        w.tool,
                        variant.kind.name(),
                        variant.what,
                        variant.expect,
                        match v {
                            Ok(()) => "allowed".to_owned(),
                            Err(why) => why,
                        }
                    ));
                }
            }
        }
    }
    t.decide_time = TIME.with(std::cell::Cell::get);
    t
}

fn report(domain: Domain, t: &Tally) -> (usize, usize, usize) {
    println!(
        "{}: {} tasks, {} gold mutating calls, {} allowed, {} documented exceptions, {} blocked by known engine gaps, {} unexpected",
        domain.name(),
        t.tasks,
        t.gold_writes,
        t.allowed,
        t.documented,
        t.engine_gaps.len(),
        t.gold_failures.len()
    );
    for g in &t.engine_gaps {
        println!("ENGINE GAP: {g}");
    }
    let (mut caught, mut blocked, mut total) = (0, 0, 0);
    for kind in Kind::ALL {
        let (c, b, n) = t.variants.get(&kind).copied().unwrap_or_default();
        caught += c;
        blocked += b;
        total += n;
        let (sc, sn) = t.single.get(&kind).copied().unwrap_or_default();
        println!(
            "  {:<50} {c:>4} / {n:<4} right reason{}, {b} blocked; single-entity conversations {sc} / {sn}{}",
            kind.name(),
            percent(c, n),
            percent(sc, sn)
        );
    }
    println!(
        "  {} decisions, {:.2?} in decide ({:.1} ms each), variants from every {}-th gold write",
        t.decisions,
        t.decide_time,
        t.decide_time.as_secs_f64() * 1000.0 / t.decisions.max(1) as f64,
        stride()
    );
    for f in &t.gold_failures {
        println!("GOLD BLOCKED: {f}");
    }
    for m in &t.misses {
        println!("MISS: {m}");
    }
    (caught, blocked, total)
}

fn percent(c: usize, n: usize) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" ({:.1}%)", 100.0 * c as f64 / n as f64)
    }
}

fn conformance(domain: Domain) {
    let t = run(domain);
    let (caught, blocked, total) = report(domain, &t);
    println!(
        "{}: deviations blocked with the right reason {caught} / {total}{}; blocked at all {blocked} / {total}{}",
        domain.name(),
        percent(caught, total),
        percent(blocked, total)
    );
    assert!(
        t.gold_failures.is_empty(),
        "gold mutating calls blocked (see the GOLD BLOCKED lines above)"
    );
    // Every injected deviation must be blocked, and at least 99% with the
    // reason its kind expects (the MISS lines list the others).
    assert_eq!(
        blocked, total,
        "injected deviations allowed (see the MISS lines above)"
    );
    assert!(
        caught * 100 >= total * 99,
        "{}: only {caught} / {total} deviations blocked with the expected reason (see the MISS lines above)",
        domain.name()
    );
}

#[test]
fn retail_gold_paths_and_deviations() {
    conformance(Domain::Retail);
}

#[test]
fn airline_gold_paths_and_deviations() {
    conformance(Domain::Airline);
}
