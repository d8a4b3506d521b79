//! `evaluate`: runs the Datalog program on one trace and returns typed
//! results — where each step is satisfied, which gated calls were allowed,
//! and every violation with the step where its path stopped, the reason, and
//! the facts the verdict rests on.
//!
//! `result.rs` holds the result types, `inputs.rs` prepares the program's
//! inputs from the trace facts, `graph.rs` the step-graph helpers, and
//! `explain.rs` turns the derived relations into violations.

pub(crate) mod explain;
pub(crate) mod graph;
pub(crate) mod inputs;
mod result;

pub use graph::step_depths;
pub(crate) use result::Ranked;
pub use result::{Cited, Derived, EvaluateError, FailedAtom, Reason, Violation};

use std::collections::{BTreeMap, BTreeSet};

use crate::encode::Encoded;
use crate::env::{Env, MAX_VARS};
use crate::facts::TraceFacts;
use crate::ids::EventIdx;
use crate::intern::Symbol;
use crate::program::{self, Program};
use crate::steps::{CompiledChecks, StepId};

use explain::{Explainer, ValueIndex};
use inputs::Inputs;

/// Runs the program. Deterministic: the same inputs give the same `Derived`.
pub fn evaluate(checks: &CompiledChecks, facts: &TraceFacts) -> Result<Derived, EvaluateError> {
    if checks.vars as usize > MAX_VARS {
        return Err(EvaluateError::TooManyVariables(checks.vars));
    }
    let mut encoded = Encoded::new(&checks.checks);
    let mut runtime = Program::new();
    let inputs = Inputs::build(checks, facts, &mut encoded);
    inputs.load(checks, &encoded, facts, &mut runtime);
    let (val, field_src, present, holds, sat, allowed, frontier, unguarded, read_allowed) =
        runtime.run_with_hasher::<hashbrown::DefaultHashBuilder>();
    let mut derived = Derived {
        holds: holds
            .into_iter()
            .map(|program::Holds(c, k, e)| (c, k, e))
            .collect(),
        sat: sat
            .into_iter()
            .map(|program::Sat(s, e, k)| (StepId(s), e, EventIdx(k)))
            .collect(),
        ..Derived::default()
    };
    // Sat is ordered by (step, env, event): the first entry per request is its evidence.
    for &(s, e, k) in &derived.sat {
        derived.evidence.entry((s, e)).or_insert(k);
    }
    for program::Allowed(k, a, e) in allowed {
        derived
            .allowed
            .entry(EventIdx(k))
            .or_default()
            .push((StepId(a), e));
    }
    for program::ReadAllowed(k, s, e) in read_allowed {
        derived
            .allowed
            .entry(EventIdx(k))
            .or_default()
            .push((StepId(s), e));
    }
    for list in derived.allowed.values_mut() {
        list.sort();
    }
    let values = ValueIndex::new(val, field_src, present);
    let explain = Explainer {
        checks,
        facts,
        encoded: &encoded,
        inputs: &inputs,
        derived: &derived,
        values: &values,
    };
    let mut violations: Vec<Violation> = unguarded
        .into_iter()
        .filter_map(|program::Unguarded(k)| explain.unguarded(k))
        .collect();
    let mut by_call: BTreeMap<u32, Vec<(u32, Env, u32, u32)>> = BTreeMap::new();
    for program::Frontier(k, a, e, n, j) in frontier {
        by_call.entry(k).or_default().push((a, e, n, j));
    }
    let gated: BTreeSet<Symbol> = checks.gated_tools.iter().copied().collect();
    for call in facts
        .calls
        .iter()
        .filter(|c| c.by_agent && gated.contains(&c.tool))
    {
        if derived.is_allowed(call.event) || violations.iter().any(|v| v.event == call.event) {
            continue;
        }
        let mut candidates = by_call.remove(&call.event.0).unwrap_or_default();
        // The program's output is a hash set: fix the order before the
        // (stable) ranking so ties go the same way every run — to the latest
        // pass of the predecessor. The monitor's explainer does the same.
        candidates.sort_by_key(|&(a, e, n, j)| (a, e, n, std::cmp::Reverse(j)));
        violations.push(
            explain
                .blocked(call.event.0, call.tool, candidates)
                .classified(&checks.consent, &encoded),
        );
    }
    for call in facts
        .calls
        .iter()
        .filter(|c| c.by_agent && checks.protections.iter().any(|p| p.tool == c.tool))
    {
        if !derived.is_allowed(call.event) {
            violations.push(explain.unpermitted_read(call.event.0, call.tool));
        }
    }
    violations.sort_by_key(|v| v.event);
    derived.violations = violations;
    derived.encoded = encoded;
    Ok(derived)
}
