//! Whole-trace evaluation with the Datalog program (the reference semantics)
//! and human-readable explanations of its verdicts.

use turnstile_rules::{AggOp, ArgStep, ArithOp, Outcome, StepId, TraceFacts, Value, evaluate};
use turnstile_rules::{CNode, Env, EventIdx, ONode};
use turnstile_rules::{ConsentFailure, ConsentOutcome, Derived, EvaluateError, Violation};

use crate::compile::CompiledBundle;
use std::sync::Arc;

use turnstile_rules::{Monitor, MonitorError, Plan};

use crate::extract::{Extractor, extract};
use crate::trace::Trace;

/// The facts of a trace and what the program derived from them.
#[derive(Debug)]
pub struct Decision {
    /// The trace's facts, as the program read them.
    pub facts: TraceFacts,
    /// What the program derived from them.
    pub derived: Derived,
}

/// Extracts the trace's facts, adds the judge's verdicts (`judged`: semantic
/// step, the request it was asked about, evidence event) and runs the program.
pub fn decide(
    bundle: &CompiledBundle,
    trace: &Trace,
    judged: &[(StepId, Env, EventIdx)],
) -> Result<Decision, EvaluateError> {
    let mut facts = extract(bundle, trace);
    facts.judged = judged.to_vec();
    let derived = evaluate(&bundle.program, &facts)?;
    Ok(Decision { facts, derived })
}

/// Runs the incremental monitor over a whole trace, as a session does event
/// by event (with `judged` as the accepted verdicts). Equal to [`decide`]'s
/// `sat` and `allowed`; the live path uses it instead of the Datalog program.
pub fn monitor_trace(
    bundle: &CompiledBundle,
    plan: &Arc<Plan>,
    trace: &Trace,
    judged: &[(StepId, Env, EventIdx)],
) -> Result<Monitor, MonitorError> {
    let mut extractor = Extractor::new(bundle);
    let mut monitor = Monitor::new(Arc::clone(plan));
    let times = crate::extract::event_times(bundle, trace);
    for (index, event) in trace.events.iter().enumerate() {
        let k = EventIdx::from_usize(index);
        let mut facts = extractor.event(bundle, k, event).facts;
        facts.now = times.get(index).copied().flatten();
        let now: Vec<(StepId, Env)> = judged
            .iter()
            .filter(|(_, _, e)| *e == k)
            .map(|(s, env, _)| (*s, *env))
            .collect();
        monitor.push(&facts, &now)?;
    }
    Ok(monitor)
}

/// Verdicts given without a request (`(step, evidence event)`, as a test or
/// a recorded trace states them) scoped to every request: each becomes one
/// verdict per request the workflow reaches, which is what a judge saying
/// yes about every request would give. The requests depend on the verdicts,
/// so the set grows to a fixpoint: each round passes at least one more
/// semantic step, so there are at most as many rounds as steps.
pub fn for_every_request(
    bundle: &CompiledBundle,
    plan: &Arc<Plan>,
    trace: &Trace,
    judged: &[(StepId, EventIdx)],
) -> Result<Vec<(StepId, Env, EventIdx)>, MonitorError> {
    let mut requests: std::collections::BTreeSet<Env> = [Env::EMPTY].into_iter().collect();
    let mut scoped = Vec::new();
    for _ in 0..=bundle.program.steps.len() {
        scoped = requests
            .iter()
            .flat_map(|e| judged.iter().map(move |(s, k)| (*s, *e, *k)))
            .collect();
        let monitor = monitor_trace(bundle, plan, trace, &scoped)?;
        let before = requests.len();
        requests.extend(monitor.sat().iter().map(|(_, e, _)| *e));
        if requests.len() == before {
            break;
        }
    }
    Ok(scoped)
}

/// Why a blocked call is a type mismatch rather than what the checks say:
/// an argument of the call has the wrong type, or a field the failed
/// conditions mention was read with the wrong type (so it counts as never
/// read). `explanation` is the violation rendered by [`explain`]. The gate,
/// replays and audits share this one rule.
pub fn type_mismatch(
    facts: &turnstile_rules::TraceFacts,
    violation: &Violation,
    explanation: &str,
) -> Option<String> {
    type_mismatch_in(&facts.diagnostics, violation, explanation)
}

/// [`type_mismatch`] over the extraction diagnostics of the events so far
/// (what a live session keeps, without building [`TraceFacts`]).
pub fn type_mismatch_in<'a>(
    diagnostics: impl IntoIterator<Item = &'a turnstile_rules::ExtractionDiagnostic> + Clone,
    violation: &Violation,
    explanation: &str,
) -> Option<String> {
    let type_errors = || {
        diagnostics
            .clone()
            .into_iter()
            .filter(|d| d.kind.is_type_error())
    };
    let at_call: Vec<String> = type_errors()
        .filter(|d| d.event == violation.event)
        .map(|d| format!("type mismatch at event {}: {}", d.event, d.detail))
        .collect();
    if !at_call.is_empty() {
        return Some(at_call.join("\n"));
    }
    // Read diagnostics say `tool: entity.field: why`; the failed
    // conditions name the field as `entity.field` or `.field`.
    let read: Vec<String> = type_errors()
        .filter(|d| d.event < violation.event)
        .filter(|d| {
            d.detail
                .split(": ")
                .nth(1)
                .and_then(|subject| subject.rsplit('.').next())
                .is_some_and(|field| explanation.contains(&format!(".{field}")))
        })
        .map(|d| {
            format!(
                "type mismatch in the result at event {}: {}",
                d.event, d.detail
            )
        })
        .collect();
    (!read.is_empty()).then(|| read.join("\n"))
}

/// Renders a violation for people: the call, the step where the request's
/// path stopped, why, and the facts that decided it.
pub fn explain(bundle: &CompiledBundle, decision: &Decision, violation: &Violation) -> String {
    explain_violation(
        bundle,
        &decision.derived.encoded,
        &decision.facts.interner,
        violation,
    )
}

/// [`explain`] for a violation whose atoms and operands are nodes of
/// `encoded` and whose symbols `interner` resolves: what a live session has
/// (the monitor's plan and the extractor's interner) without a [`Decision`].
pub fn explain_violation(
    bundle: &CompiledBundle,
    encoded: &turnstile_rules::Encoded,
    interner: &turnstile_rules::Interner,
    violation: &Violation,
) -> String {
    let names = Names {
        bundle,
        encoded,
        interner,
    };
    // Written into one buffer (a `String` never fails a write).
    use std::fmt::Write;
    let tool = interner.resolve(violation.tool);
    let mut out = String::with_capacity(256);
    let _ = write!(
        out,
        "event {}: {tool} blocked ({:?})",
        violation.event, violation.reason
    );
    if let Some(step) = violation.unmet {
        let _ = write!(out, ": step `{}` is not satisfied", bundle.step_name(step));
    }
    let mut bound = violation.request.bound().filter_map(|(var, value)| {
        let v = bundle.variables.get(var.0 as usize)?;
        Some((v.name.as_str(), interner.resolve(value)))
    });
    if let Some((name, value)) = bound.next() {
        let _ = write!(out, " for request {{${name} = {value}");
        for (name, value) in bound {
            let _ = write!(out, ", ${name} = {value}");
        }
        out.push('}');
    }
    if let Some(used) = violation.used_by {
        let _ = write!(
            out,
            "\n  failed: the authorization was already used by the call at event {used}; walk the steps again (read, confirm) before another write"
        );
    }
    for failed in &violation.failed {
        let _ = write!(out, "\n  failed: {}", names.atom(failed.atom));
        for cited in &failed.cited {
            if matches!(names.onode(cited.operand.0), Some(ONode::Const(_))) {
                continue;
            }
            let _ = write!(out, "\n    {} = ", names.operand(cited.operand.0));
            if cited.values.is_empty() {
                out.push_str("no value");
            }
            for (i, v) in cited.values.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                names.write_value(&mut out, v);
            }
            if let Some(e) = cited.read_at {
                let _ = write!(out, " (read at event {e})");
            }
        }
        if let Some(consent) = failed.consent {
            let _ = write!(out, "\n    consent: {}", consent_reason(consent));
        }
    }
    out
}

/// Why a consent condition failed, in words: its outcome and the turn.
fn consent_reason(consent: ConsentFailure) -> String {
    let turn = consent.turn;
    match (consent.outcome, turn) {
        (ConsentOutcome::Absent, None) => {
            "absent: no agent turn asked for a decision naming these values".to_owned()
        }
        (ConsentOutcome::Absent, Some(at)) => {
            format!("absent: the request for a decision at event {at} has no yes that answers it")
        }
        (ConsentOutcome::Refused, Some(at)) => format!(
            "refused at event {at}: the reply said no, or agreed to this action on another record"
        ),
        (ConsentOutcome::Withdrawn, Some(at)) => format!("withdrawn at event {at}"),
        (ConsentOutcome::Qualified, Some(at)) => format!(
            "qualified at event {at}: the reply made its yes conditional or corrected it; restate the details"
        ),
        (outcome, _) => outcome.name().to_owned(),
    }
}

struct Names<'a> {
    bundle: &'a CompiledBundle,
    encoded: &'a turnstile_rules::Encoded,
    interner: &'a turnstile_rules::Interner,
}

impl Names<'_> {
    fn sym(&self, s: turnstile_rules::Symbol) -> &str {
        self.interner.resolve(s)
    }

    fn onode(&self, o: u32) -> Option<&ONode> {
        self.encoded.onodes.get(o as usize)
    }

    fn value(&self, v: &Value) -> String {
        let mut out = String::new();
        self.write_value(&mut out, v);
        out
    }

    /// `v` as [`Names::value`] writes it, appended to `out`.
    fn write_value(&self, out: &mut String, v: &Value) {
        use std::fmt::Write;
        let _ = match v {
            Value::Str(s) => write!(out, "{:?}", self.sym(*s)),
            Value::Int(i) => write!(out, "{i}"),
            Value::Amount(a) => write!(out, "{a}"),
            Value::Bool(b) => write!(out, "{b}"),
            Value::Date(d) => write!(out, "{d}"),
            Value::DateTime(d) => write!(out, "{d}"),
            Value::Duration(d) => write!(out, "{d}"),
        };
    }

    fn operand(&self, o: u32) -> String {
        let encoded = self.encoded;
        match self.onode(o) {
            None => "?".to_owned(),
            Some(ONode::Const(v)) => self.value(v),
            Some(ONode::Var(v)) => format!(
                "${}",
                self.bundle
                    .variables
                    .get(v.0 as usize)
                    .map_or("?", |x| x.name.as_str())
            ),
            Some(ONode::Arg(p)) => {
                let mut text = String::from("args");
                for step in encoded
                    .arg_paths
                    .get(*p as usize)
                    .map(|p| p.0.as_slice())
                    .unwrap_or_default()
                {
                    match step {
                        ArgStep::Key(k) => text.push_str(&format!(".{}", self.sym(*k))),
                        ArgStep::Index(i) => text.push_str(&format!("[{i}]")),
                        ArgStep::Each => text.push_str("[*]"),
                    }
                }
                text
            }
            Some(ONode::Field { entity, id, field }) => {
                format!(
                    "{}[{}].{}",
                    self.sym(*entity),
                    self.operand(*id),
                    self.sym(*field)
                )
            }
            Some(ONode::Agg { op, inner, .. }) => {
                let name = match op {
                    AggOp::Sum => "sum",
                    AggOp::Count => "count",
                    AggOp::Min => "min",
                    AggOp::Max => "max",
                };
                format!("{name}({})", self.operand(*inner))
            }
            Some(ONode::CountEqual { inner, value }) => {
                format!("count({}, {})", self.operand(*inner), self.operand(*value))
            }
            Some(ONode::Count { filter, .. }) => format!("count({})", self.filter(*filter)),
            Some(ONode::Now) => "now()".to_owned(),
            Some(ONode::Arith { op, lhs, rhs }) => {
                let sign = match op {
                    ArithOp::Add => "+",
                    ArithOp::Sub => "-",
                    ArithOp::Mul => "*",
                };
                format!("{} {sign} {}", self.operand(*lhs), self.operand(*rhs))
            }
        }
    }

    fn filter(&self, f: u32) -> String {
        let Some(filter) = self.encoded.filters.get(f as usize) else {
            return "?".to_owned();
        };
        let kind = if filter.outcome == Outcome::Called {
            "called"
        } else {
            "succeeded"
        };
        let mut parts = vec![self.sym(filter.tool).to_owned()];
        for &(p, op, o) in &filter.constraints {
            let path = self
                .encoded
                .arg_paths
                .get(p as usize)
                .map(|p| {
                    p.0.iter()
                        .map(|s| match s {
                            ArgStep::Key(k) => self.sym(*k).to_owned(),
                            ArgStep::Index(i) => format!("[{i}]"),
                            ArgStep::Each => "[*]".to_owned(),
                        })
                        .collect::<Vec<_>>()
                        .join(".")
                })
                .unwrap_or_default();
            parts.push(format!("{path} {} {}", op.symbol(), self.operand(o)));
        }
        format!("{kind}({})", parts.join(", "))
    }

    fn atom(&self, c: u32) -> String {
        let encoded = self.encoded;
        let not = |negated: bool| if negated { "!" } else { "" };
        match encoded.cnodes.get(c as usize) {
            Some(CNode::Cmp {
                op,
                lhs,
                rhs,
                negated,
            }) => {
                format!(
                    "{}({} {} {})",
                    not(*negated),
                    self.operand(*lhs),
                    op.symbol(),
                    self.operand(*rhs)
                )
            }
            Some(CNode::In {
                operand,
                set,
                negated,
            }) => {
                let members: Vec<String> = encoded
                    .sets
                    .get(*set as usize)
                    .map(|m| m.iter().map(|o| self.operand(*o)).collect())
                    .unwrap_or_default();
                format!(
                    "{}({} in [{}])",
                    not(*negated),
                    self.operand(*operand),
                    members.join(", ")
                )
            }
            Some(CNode::Contains {
                item,
                list,
                negated,
            }) => {
                format!(
                    "{}({} in {})",
                    not(*negated),
                    self.operand(*item),
                    self.operand(*list)
                )
            }
            Some(CNode::Happened { filter, negated }) => {
                format!("{}{}", not(*negated), self.filter(*filter))
            }
            Some(CNode::Said {
                speaker,
                operand,
                negated,
            }) => {
                let who = match speaker {
                    turnstile_rules::Speaker::User => "user",
                    turnstile_rules::Speaker::Agent => "agent",
                    turnstile_rules::Speaker::Ticket => "ticket",
                };
                format!("{}said({who}, {})", not(*negated), self.operand(*operand))
            }
            Some(CNode::Confirmed { set, negated, .. }) => {
                let members: Vec<String> = encoded
                    .sets
                    .get(*set as usize)
                    .into_iter()
                    .flatten()
                    .map(|m| self.operand(*m))
                    .collect();
                format!("{}confirmed({})", not(*negated), members.join(", "))
            }
            _ => "?".to_owned(),
        }
    }
}
