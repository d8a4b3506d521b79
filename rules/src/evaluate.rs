//! `evaluate`: runs the Datalog program on one trace and returns typed
//! results — where each step is satisfied, which gated calls were allowed,
//! and every violation with the step where its path stopped, the reason, and
//! the facts the verdict rests on.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use hashbrown::{HashMap, HashSet};
use serde::{Deserialize, Serialize};

use crate::encode::{CNode, Encoded, ONode};
use crate::env::{Env, MAX_VARS};
use crate::facts::{FOREVER, TraceFacts};
use crate::intern::Symbol;
use crate::ir::{CmpOp, Outcome, VarId};
use crate::program::{self, Program};
use crate::steps::{CompiledChecks, StepId, Timing};
use crate::value::Value;

/// Why a gated call was blocked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Reason {
    /// The tool has no authorization step at all.
    NoAuthorization,
    /// A value the decision needs was never read (or not by then).
    MissingRead,
    /// A read value has the wrong value (a status, a flag).
    WrongValue,
    /// An amount or quantity is out of bounds.
    AmountOutOfBounds,
    /// An argument is not grounded in what was read for this request.
    Ungrounded,
    /// The call (or a related one) already happened too often.
    TooManyCalls,
    /// A required step happened, but before its predecessor.
    OutOfOrder,
    /// A dialogue-semantic step (confirmation, reason...) is not established.
    DialogueUnmet,
    /// A required earlier step did not happen.
    MissingStep,
}

impl Reason {
    /// When several conditions fail, the one reported: a cause before its
    /// consequences (an ungrounded id also leaves its fields unread).
    pub fn precedence(self) -> u8 {
        match self {
            Reason::NoAuthorization => 0,
            Reason::Ungrounded => 1,
            Reason::TooManyCalls => 2,
            Reason::OutOfOrder => 3,
            Reason::AmountOutOfBounds => 4,
            Reason::WrongValue => 5,
            Reason::MissingRead => 6,
            Reason::DialogueUnmet => 7,
            Reason::MissingStep => 8,
        }
    }
}

/// A fact a verdict rests on: an operand's value(s) at the decision, and the
/// read event it came from when it is an entity field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cited {
    /// Encoded operand node (see [`Encoded::onodes`]).
    pub operand: u32,
    pub values: Vec<Value>,
    pub read_at: Option<u32>,
}

/// One failing condition of a guard or criterion, with its operands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedAtom {
    /// Encoded check node (see [`Encoded::cnodes`]).
    pub atom: u32,
    pub cited: Vec<Cited>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The gated call's event index.
    pub event: u32,
    pub tool: Symbol,
    /// The request (bindings) whose path came closest to authorizing it.
    pub request: Env,
    /// The first unmet step on that path.
    pub unmet: Option<StepId>,
    pub reason: Reason,
    pub failed: Vec<FailedAtom>,
}

/// What the program derived for one trace.
#[derive(Clone, Debug, Default)]
pub struct Derived {
    pub encoded: Encoded,
    /// `(step, request, event)`: the step is satisfied there on a valid path.
    pub sat: BTreeSet<(StepId, Env, u32)>,
    /// Earliest satisfaction of each step per request.
    pub evidence: BTreeMap<(StepId, Env), u32>,
    /// Gated calls that were authorized, with the authorizing step and request.
    pub allowed: BTreeMap<u32, Vec<(StepId, Env)>>,
    pub violations: Vec<Violation>,
    holds: HashSet<(u32, u32, Env)>,
}

impl Derived {
    /// Whether check `root` (an encoded node) holds at `event` under `env`.
    pub fn holds(&self, root: u32, event: u32, env: &Env) -> bool {
        self.holds.contains(&(root, event, *env))
    }

    pub fn is_allowed(&self, event: u32) -> bool {
        self.allowed.contains_key(&event)
    }
}

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum EvaluateError {
    #[error("the bundle declares {0} request variables; the evaluator supports at most {MAX_VARS}")]
    TooManyVariables(u32),
    /// A step's origin names a workflow node the workflow does not have.
    #[error("step `{0}` names a node the workflow does not have")]
    StepWithoutNode(String),
}

/// Runs the program. Deterministic: the same inputs give the same `Derived`.
pub fn evaluate(checks: &CompiledChecks, facts: &TraceFacts) -> Result<Derived, EvaluateError> {
    if checks.vars as usize > MAX_VARS {
        return Err(EvaluateError::TooManyVariables(checks.vars));
    }
    let mut encoded = Encoded::new(&checks.checks);
    let mut runtime = Program::new();
    let inputs = Inputs::build(checks, facts, &mut encoded);
    inputs.load(checks, &encoded, facts, &mut runtime);
    let (val, field_src, present, holds, sat, allowed, frontier, unguarded) =
        runtime.run_with_hasher::<hashbrown::DefaultHashBuilder>();
    let mut derived = Derived {
        holds: holds
            .into_iter()
            .map(|program::Holds(c, k, e)| (c, k, e))
            .collect(),
        sat: sat
            .into_iter()
            .map(|program::Sat(s, e, k)| (StepId(s), e, k))
            .collect(),
        ..Derived::default()
    };
    // Sat is ordered by (step, env, event): the first entry per request is its evidence.
    for &(s, e, k) in &derived.sat {
        derived.evidence.entry((s, e)).or_insert(k);
    }
    for program::Allowed(k, a, e) in allowed {
        derived.allowed.entry(k).or_default().push((StepId(a), e));
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
        let candidates = by_call.remove(&call.event).unwrap_or_default();
        violations.push(explain.blocked(call.event, call.tool, candidates));
    }
    violations.sort_by_key(|v| v.event);
    derived.violations = violations;
    derived.encoded = encoded;
    Ok(derived)
}

/// Operand values by (operand, event, env), for explanations.
struct ValueIndex {
    values: HashMap<(u32, u32, Env), Vec<(u32, Value)>>,
    sources: HashMap<(u32, u32, Env), u32>,
    present: HashSet<(u32, u32, Env)>,
}

impl ValueIndex {
    fn new(
        val: impl IntoIterator<Item = program::Val>,
        src: impl IntoIterator<Item = program::FieldSrc>,
        present: impl IntoIterator<Item = program::Present>,
    ) -> Self {
        let mut values: HashMap<(u32, u32, Env), Vec<(u32, Value)>> = HashMap::new();
        for program::Val(o, k, e, el, v) in val {
            values.entry((o, k, e)).or_default().push((el, v));
        }
        for list in values.values_mut() {
            list.sort();
        }
        ValueIndex {
            values,
            sources: src
                .into_iter()
                .map(|program::FieldSrc(o, k, e, r)| ((o, k, e), r))
                .collect(),
            present: present
                .into_iter()
                .map(|program::Present(o, k, e)| (o, k, e))
                .collect(),
        }
    }
}

/// Everything fed to the program besides the encoded checks.
struct Inputs {
    step_roots: Vec<u32>,
    /// The workflow's edges without the back edges of its loops.
    forward_edges: Vec<(u32, u32)>,
    /// Every event where each step is evaluated (empty for trivial steps).
    points: Vec<Vec<u32>>,
    /// The ordered evaluation points of each (step, env).
    step_points: BTreeMap<(u32, Env), Vec<u32>>,
    /// Variables a request's bindings select a step's runs by.
    key_masks: Vec<u32>,
    /// Per filter: `(event, call, key)` of every event of its tool and outcome,
    /// keyed by the argument its first `==` constraint reads.
    filter_events: BTreeMap<u32, Vec<(u32, u32, Value)>>,
    /// `(semantic step, j, k)`: the first judge verdict at or after `j` is at `k`.
    next_judged: Vec<(u32, u32, u32)>,
    trivial: Vec<bool>,
    eval_at: BTreeSet<(u32, u32, Env)>,
    bind_masks: Vec<u32>,
    depth: Vec<u32>,
    count_values: Vec<(u32, Value, u32, u32, u32)>,
}

impl Inputs {
    fn build(checks: &CompiledChecks, facts: &TraceFacts, encoded: &mut Encoded) -> Inputs {
        let mut used_roots = HashSet::new();
        let mut step_roots = Vec::new();
        for step in &checks.steps {
            let root = match step.check.and_then(|c| encoded.root(c)) {
                Some(r) if used_roots.insert(r) => r,
                Some(r) => {
                    // Keep one root per step so runs never mix steps.
                    encoded.cnodes.push(CNode::True);
                    let fresh = to_u32(encoded.cnodes.len() - 1);
                    encoded.cnodes.push(CNode::And(r, fresh));
                    to_u32(encoded.cnodes.len() - 1)
                }
                None => {
                    encoded.cnodes.push(CNode::True);
                    to_u32(encoded.cnodes.len() - 1)
                }
            };
            step_roots.push(root);
        }
        let tool_of_call: HashMap<u32, Symbol> =
            facts.calls.iter().map(|c| (c.event, c.tool)).collect();
        let mut bind_env: HashMap<(u32, u32), Env> = HashMap::new();
        let mut candidates: BTreeMap<VarId, BTreeSet<Symbol>> = BTreeMap::new();
        for b in &facts.binds {
            let env = bind_env.entry((b.step.0, b.event)).or_insert(Env::EMPTY);
            *env = env.with(b.var, b.value);
            candidates.entry(b.var).or_default().insert(b.value);
        }
        let mut deps = Dependencies::new(facts, &tool_of_call);
        let filter_events = keyed_filter_events(encoded, facts, &deps);
        for (f, events) in &filter_events {
            for &(ev, _, key) in events {
                deps.by_key.entry((*f, key)).or_default().push(ev);
            }
            deps.by_filter
                .insert(*f, events.iter().map(|&(ev, _, _)| ev).collect());
        }
        let mut points = Vec::new();
        let mut bind_masks = Vec::new();
        let mut key_masks = Vec::new();
        let mut step_points: BTreeMap<(u32, Env), Vec<u32>> = BTreeMap::new();
        for (index, step) in checks.steps.iter().enumerate() {
            let s = to_u32(index);
            let bind_mask = step.bind_mask();
            let check_mask = step.key_mask(encoded);
            let root = step_roots[index];
            match step.timing {
                Timing::State if step.check.is_none() => {}
                Timing::State => {
                    for env in projections(Env::EMPTY, check_mask, &candidates) {
                        step_points.insert((s, env), deps.state_points(encoded, root, &env));
                    }
                }
                Timing::Call(tool) | Timing::Result(tool) => {
                    let events = match step.timing {
                        Timing::Call(_) => deps.calls(tool),
                        _ => deps.results(tool),
                    };
                    let pins = pinned_vars(encoded, root);
                    for (k, call) in events {
                        let bound = bind_env.get(&(s, k)).copied().unwrap_or(Env::EMPTY);
                        let complete = step.binds.iter().all(|v| bound.is_bound(*v));
                        if !complete {
                            continue;
                        }
                        // A guard `args.x == $v` can only hold for the request
                        // whose $v is this call's x: evaluate just that one.
                        let mut narrowed = candidates.clone();
                        for &(var, path) in &pins {
                            let value = facts
                                .arg_path_index(&encoded.arg_paths[path as usize])
                                .and_then(|p| deps.args.get(&(call, p)))
                                .and_then(|vs| match vs.as_slice() {
                                    [Value::Str(s)] => Some(*s),
                                    _ => None,
                                });
                            // An argument no request bound keeps every candidate,
                            // so the failing grounding can be explained.
                            if let Some(v) = value
                                .filter(|v| candidates.get(&var).is_some_and(|c| c.contains(v)))
                            {
                                narrowed.insert(var, BTreeSet::from([v]));
                            }
                        }
                        for env in projections(bound, check_mask, &narrowed) {
                            step_points.entry((s, env)).or_default().push(k);
                        }
                    }
                }
            }
            let mut all: Vec<u32> = step_points
                .range((s, Env::EMPTY)..=(s, Env::MAX))
                .flat_map(|(_, v)| v.iter().copied())
                .collect();
            all.sort_unstable();
            all.dedup();
            points.push(all);
            bind_masks.push(bind_mask);
            key_masks.push(check_mask);
        }
        let mut eval_at = BTreeSet::new();
        for ((s, env), pts) in step_points.iter_mut() {
            pts.sort_unstable();
            pts.dedup();
            for &k in pts.iter() {
                eval_at.insert((step_roots[*s as usize], k, *env));
            }
        }
        let mut next_judged = Vec::new();
        for (index, step) in checks.steps.iter().enumerate() {
            if !step.semantic {
                continue;
            }
            let mut judged: Vec<u32> = facts
                .judged
                .iter()
                .filter(|(st, _)| st.0 as usize == index)
                .map(|(_, k)| *k)
                .collect();
            judged.sort_unstable();
            judged.dedup();
            let mut next = judged.iter().peekable();
            for j in 0..facts.events.max(1) {
                while next.peek().is_some_and(|&&k| k < j) {
                    next.next();
                }
                if let Some(&&k) = next.peek() {
                    next_judged.push((to_u32(index), j, k));
                }
            }
        }
        let depth = depths(checks);
        let forward_edges = forward_edges(checks);
        let count_values = count_intervals(encoded, &deps, &candidates);
        let trivial = checks
            .steps
            .iter()
            .map(|s| s.timing == Timing::State && s.check.is_none())
            .collect();
        Inputs {
            step_roots,
            forward_edges,
            points,
            step_points,
            key_masks,
            next_judged,
            filter_events,
            trivial,
            eval_at,
            bind_masks,
            depth,
            count_values,
        }
    }

    fn load(
        &self,
        checks: &CompiledChecks,
        encoded: &Encoded,
        facts: &TraceFacts,
        rt: &mut Program,
    ) {
        use program::*;
        rt.extend(self.eval_at.iter().map(|&(c, k, e)| IEvalAt(c, k, e)));
        for (i, node) in encoded.cnodes.iter().enumerate() {
            let c = to_u32(i);
            match *node {
                CNode::True => rt.extend([ICTrue(c)]),
                CNode::False => {}
                CNode::And(l, r) => rt.extend([ICAnd(c, l, r)]),
                CNode::Or(l, r) => rt.extend([ICOr(c, l, r)]),
                CNode::Cmp {
                    op,
                    lhs,
                    rhs,
                    negated,
                } => rt.extend([ICCmp(c, op, lhs, rhs, negated)]),
                CNode::In {
                    operand,
                    set,
                    negated,
                } => rt.extend([ICIn(c, operand, set, negated)]),
                CNode::Contains {
                    item,
                    list,
                    negated,
                } => rt.extend([ICContains(c, item, list, negated)]),
                CNode::Happened { filter, negated } => rt.extend([ICHappened(c, filter, negated)]),
            }
        }
        for (s, members) in encoded.sets.iter().enumerate() {
            rt.extend(members.iter().map(|&m| ISetMember(to_u32(s), m)));
        }
        let path_map: Vec<Option<u32>> = encoded
            .arg_paths
            .iter()
            .map(|p| facts.arg_path_index(p))
            .collect();
        // Encoded paths the facts lack get an index no fact carries (fail closed).
        let path = |p: u32| {
            path_map
                .get(p as usize)
                .copied()
                .flatten()
                .unwrap_or(u32::MAX)
        };
        for (i, node) in encoded.onodes.iter().enumerate() {
            let o = to_u32(i);
            match *node {
                ONode::Const(v) => rt.extend([IOConst(o, v)]),
                ONode::Var(v) => rt.extend([IOVar(o, v)]),
                ONode::Arg(p) => rt.extend([IOArg(o, path(p))]),
                ONode::Field { entity, id, field } => rt.extend([IOField(o, entity, id, field)]),
                ONode::Agg { op, inner, zero } => rt.extend([IOAgg(o, op, inner, zero)]),
                ONode::Count { filter, key } => rt.extend([IOCount(o, filter, key)]),
                ONode::Arith { op, lhs, rhs } => rt.extend([IOArith(o, op, lhs, rhs)]),
                ONode::CountEqual { inner, value } => rt.extend([IOCountEq(o, inner, value)]),
            }
        }
        for (f, events) in &self.filter_events {
            rt.extend(events.iter().map(|&(ev, c, key)| IFilterEv(*f, ev, c, key)));
        }
        for (f, filter) in encoded.filters.iter().enumerate() {
            let f = to_u32(f);
            if let Some(&(_, _, o)) = filter
                .constraints
                .iter()
                .find(|&&(_, op, _)| op == CmpOp::Eq)
            {
                rt.extend([IFilterKeyOp(f, o)]);
                rt.extend([IFilterKeyed(f)]);
            }
            rt.extend(
                filter
                    .constraints
                    .iter()
                    .map(|&(p, op, o)| IFCons(f, path(p), op, o)),
            );
        }
        rt.extend(
            self.count_values
                .iter()
                .map(|&(f, v, n, from, until)| ICountV(f, v, n, from, until)),
        );
        rt.extend(
            facts
                .calls
                .iter()
                .map(|c| ICall(c.event, c.tool, c.by_agent)),
        );
        rt.extend(facts.calls.iter().map(|c| IArgsOf(c.event, c.event)));
        rt.extend(facts.results.iter().map(|r| IResult(r.event, r.call, r.ok)));
        rt.extend(facts.results.iter().map(|r| IArgsOf(r.event, r.call)));
        rt.extend(
            facts
                .attrs
                .iter()
                .map(|a| IAttr(a.entity, a.id, a.field, a.elem, a.value, a.from, a.until)),
        );
        rt.extend(
            facts
                .attr_lens
                .iter()
                .map(|a| IAttrLen(a.entity, a.id, a.field, a.len, a.from, a.until)),
        );
        rt.extend(
            facts
                .args
                .iter()
                .map(|a| IArg(a.call, a.path, a.elem, a.value)),
        );
        rt.extend(
            facts
                .arg_lens
                .iter()
                .map(|a| IArgLen(a.call, a.path, a.len)),
        );
        rt.extend(
            self.next_judged
                .iter()
                .map(|&(s, j, k)| INextJudged(s, j, k)),
        );
        for i in 0..self.points.len() {
            let s = to_u32(i);
            rt.extend([IStepRoot(s, self.step_roots[i])]);
            rt.extend([IStepBinds(s, self.bind_masks[i])]);
            rt.extend([IStepKeyMask(s, self.key_masks[i])]);
            if self.trivial[i] {
                rt.extend([ITrivial(s)]);
            }
        }
        for (&(s, env), pts) in &self.step_points {
            rt.extend(pts.iter().map(|&k| IStepPt(s, env, k)));
            rt.extend(pts.windows(2).map(|w| INextPt(s, env, w[0], w[1])));
            if let (Some(&first), Some(&last)) = (pts.first(), pts.last()) {
                rt.extend([IFirstPt(s, env, first)]);
                rt.extend([ILastPt(s, env, last)]);
            }
        }
        for (i, step) in checks.steps.iter().enumerate() {
            let s = to_u32(i);
            if step.timing == Timing::State {
                rt.extend([IStepIsState(s)]);
            }
            if step.semantic {
                rt.extend([ISemantic(s)]);
            }
            if let Some(tool) = step.authorizes {
                rt.extend([IAuth(s, tool)]);
            }
        }
        rt.extend(checks.edges.iter().map(|&(a, b)| IEdge(a.0, b.0)));
        rt.extend(checks.gated_tools.iter().map(|&t| IGated(t)));
        rt.extend([ISeed(checks.entry.0, Env::EMPTY, 0)]);
    }
}

/// Variables a check pins to an argument: top-level conjuncts `args.x == $v`
/// (as `(var, encoded path)`), which can only hold when `$v` is that argument.
fn pinned_vars(encoded: &Encoded, root: u32) -> Vec<(VarId, u32)> {
    let mut pins = Vec::new();
    let mut stack = vec![root];
    while let Some(c) = stack.pop() {
        match encoded.cnodes.get(c as usize) {
            Some(CNode::And(l, r)) => stack.extend([*l, *r]),
            Some(CNode::Cmp {
                op: CmpOp::Eq,
                lhs,
                rhs,
                negated: false,
            }) => {
                let side = |o: &u32| encoded.onodes.get(*o as usize);
                let scalar = |p: &u32| {
                    !encoded
                        .arg_paths
                        .get(*p as usize)
                        .is_some_and(|path| path.yields_list())
                };
                match (side(lhs), side(rhs)) {
                    (Some(ONode::Arg(p)), Some(ONode::Var(v)))
                    | (Some(ONode::Var(v)), Some(ONode::Arg(p)))
                        if scalar(p) =>
                    {
                        pins.push((*v, *p));
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    pins
}

/// Which events can change what a state criterion reads, per environment.
struct Dependencies {
    /// `(entity, id, field)` to the events that (re)read it.
    reads: HashMap<(Symbol, Symbol, Symbol), Vec<u32>>,
    /// Tool to its `(call event, call event)` and `(ok result event, call event)`.
    calls: HashMap<Symbol, Vec<(u32, u32)>>,
    results: HashMap<Symbol, Vec<(u32, u32)>>,
    all_tool_events: Vec<u32>,
    args: ArgIndex,
    /// Events of each filter, and by the key of its first `==` constraint.
    by_filter: HashMap<u32, Vec<u32>>,
    by_key: HashMap<(u32, Value), Vec<u32>>,
}

/// Argument values by (call event, path index).
type ArgIndex = HashMap<(u32, u32), Vec<Value>>;

fn arg_index(facts: &TraceFacts) -> ArgIndex {
    let mut index: ArgIndex = HashMap::new();
    for a in &facts.args {
        index.entry((a.call, a.path)).or_default().push(a.value);
    }
    index
}

impl Dependencies {
    fn new(facts: &TraceFacts, tool_of_call: &HashMap<u32, Symbol>) -> Self {
        let mut reads: HashMap<(Symbol, Symbol, Symbol), Vec<u32>> = HashMap::new();
        for a in &facts.attrs {
            reads
                .entry((a.entity, a.id, a.field))
                .or_default()
                .push(a.from);
        }
        for a in &facts.attr_lens {
            reads
                .entry((a.entity, a.id, a.field))
                .or_default()
                .push(a.from);
        }
        let mut calls: HashMap<Symbol, Vec<(u32, u32)>> = HashMap::new();
        for c in &facts.calls {
            calls.entry(c.tool).or_default().push((c.event, c.event));
        }
        let mut results: HashMap<Symbol, Vec<(u32, u32)>> = HashMap::new();
        for r in facts.results.iter().filter(|r| r.ok) {
            if let Some(tool) = tool_of_call.get(&r.call) {
                results.entry(*tool).or_default().push((r.event, r.call));
            }
        }
        let mut all_tool_events: Vec<u32> = facts
            .calls
            .iter()
            .map(|c| c.event)
            .chain(facts.results.iter().map(|r| r.event))
            .collect();
        all_tool_events.sort_unstable();
        Dependencies {
            reads,
            calls,
            results,
            all_tool_events,
            args: arg_index(facts),
            by_filter: HashMap::new(),
            by_key: HashMap::new(),
        }
    }

    fn calls(&self, tool: Symbol) -> Vec<(u32, u32)> {
        self.calls.get(&tool).cloned().unwrap_or_default()
    }

    fn results(&self, tool: Symbol) -> Vec<(u32, u32)> {
        self.results.get(&tool).cloned().unwrap_or_default()
    }

    /// Event 0 and every event where the criterion under `root` may change
    /// value for `env`; all tool events where that cannot be narrowed.
    fn state_points(&self, encoded: &Encoded, root: u32, env: &Env) -> Vec<u32> {
        let mut points = vec![0];
        let mut stack = vec![Node::C(root)];
        while let Some(node) = stack.pop() {
            match node {
                Node::C(c) => match encoded.cnodes.get(c as usize) {
                    Some(CNode::And(l, r) | CNode::Or(l, r)) => {
                        stack.extend([Node::C(*l), Node::C(*r)])
                    }
                    Some(CNode::Cmp { lhs, rhs, .. }) => {
                        stack.extend([Node::O(*lhs), Node::O(*rhs)])
                    }
                    Some(CNode::In { operand, set, .. }) => {
                        stack.push(Node::O(*operand));
                        stack.extend(
                            encoded
                                .sets
                                .get(*set as usize)
                                .into_iter()
                                .flatten()
                                .map(|m| Node::O(*m)),
                        );
                    }
                    Some(CNode::Contains { item, list, .. }) => {
                        stack.extend([Node::O(*item), Node::O(*list)])
                    }
                    Some(CNode::Happened { filter, .. }) => {
                        points.extend(self.filter_events(encoded, *filter, env))
                    }
                    Some(CNode::True | CNode::False) | None => {}
                },
                Node::O(o) => match encoded.onodes.get(o as usize) {
                    Some(ONode::Field { entity, id, field }) => {
                        let key = match encoded.onodes.get(*id as usize) {
                            Some(ONode::Var(v)) => env.get(*v),
                            Some(ONode::Const(Value::Str(s))) => Some(*s),
                            _ => None,
                        };
                        match key {
                            Some(id) => points.extend(
                                self.reads.get(&(*entity, id, *field)).into_iter().flatten(),
                            ),
                            None => {
                                stack.push(Node::O(*id));
                                points.extend(self.all_tool_events.iter().copied());
                            }
                        }
                    }
                    Some(ONode::Agg { inner, .. }) => stack.push(Node::O(*inner)),
                    Some(ONode::CountEqual { inner, value }) => {
                        stack.extend([Node::O(*inner), Node::O(*value)])
                    }
                    Some(ONode::Arith { lhs, rhs, .. }) => {
                        stack.extend([Node::O(*lhs), Node::O(*rhs)])
                    }
                    Some(ONode::Count { filter, .. }) => {
                        points.extend(self.filter_events(encoded, *filter, env))
                    }
                    Some(ONode::Const(_) | ONode::Var(_) | ONode::Arg(_)) | None => {}
                },
            }
        }
        points.sort_unstable();
        points.dedup();
        points
    }

    /// Events of a filter's tool, narrowed to those whose argument equals the
    /// env's value when its first `==` constraint compares with a variable.
    fn filter_events(&self, encoded: &Encoded, filter: u32, env: &Env) -> Vec<u32> {
        let Some(f) = encoded.filters.get(filter as usize) else {
            return Vec::new();
        };
        let key = f
            .constraints
            .iter()
            .find(|&&(_, op, _)| op == CmpOp::Eq)
            .and_then(|&(_, _, o)| match encoded.onodes.get(o as usize) {
                Some(ONode::Var(v)) => env.get(*v).map(Value::Str),
                Some(ONode::Const(v)) => Some(*v),
                _ => None,
            });
        match key {
            Some(key) => self.by_key.get(&(filter, key)).cloned().unwrap_or_default(),
            None => self.by_filter.get(&filter).cloned().unwrap_or_default(),
        }
    }
}

/// Every filter's events with the key its first `==` constraint compares.
fn keyed_filter_events(
    encoded: &Encoded,
    facts: &TraceFacts,
    deps: &Dependencies,
) -> BTreeMap<u32, Vec<(u32, u32, Value)>> {
    let mut out = BTreeMap::new();
    for (f, filter) in encoded.filters.iter().enumerate() {
        let events = match filter.outcome {
            Outcome::Called => deps.calls(filter.tool),
            Outcome::Succeeded => deps.results(filter.tool),
        };
        let key_path = filter
            .constraints
            .iter()
            .find(|&&(_, op, _)| op == CmpOp::Eq)
            .and_then(|&(p, _, _)| facts.arg_path_index(encoded.arg_paths.get(p as usize)?));
        let keyed: Vec<(u32, u32, Value)> = events
            .into_iter()
            .flat_map(|(ev, call)| {
                let keys: Vec<Value> = match key_path {
                    None => vec![Value::Bool(true)],
                    Some(path) => deps.args.get(&(call, path)).cloned().unwrap_or_default(),
                };
                keys.into_iter().map(move |k| (ev, call, k))
            })
            .collect();
        out.insert(to_u32(f), keyed);
    }
    out
}

enum Node {
    C(u32),
    O(u32),
}

fn to_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Every binding of the variables in `mask` to candidate values, on top of `base`.
fn projections(base: Env, mask: u32, candidates: &BTreeMap<VarId, BTreeSet<Symbol>>) -> Vec<Env> {
    let mut envs = vec![base];
    for var in 0..MAX_VARS as u32 {
        if mask & (1 << var) == 0 {
            continue;
        }
        let Some(values) = candidates.get(&VarId(var)) else {
            return Vec::new();
        };
        envs = envs
            .iter()
            .flat_map(|e| values.iter().map(move |v| e.with(VarId(var), *v)))
            .collect();
    }
    envs
}

/// Distance of each step from the entry along the step graph (`u32::MAX`
/// when unreachable), for choosing the deepest unmet step.
pub fn depths(checks: &CompiledChecks) -> Vec<u32> {
    let mut depth = vec![u32::MAX; checks.steps.len()];
    let mut queue = VecDeque::from([checks.entry]);
    if let Some(d) = depth.get_mut(checks.entry.0 as usize) {
        *d = 0;
    }
    while let Some(s) = queue.pop_front() {
        let here = depth[s.0 as usize];
        for &(a, b) in &checks.edges {
            if a == s && depth[b.0 as usize] == u32::MAX {
                depth[b.0 as usize] = here + 1;
                queue.push_back(b);
            }
        }
    }
    depth
}

/// The edges of the step graph minus the back edges of a depth-first search
/// from the entry (edges into a step still on the search path).
fn forward_edges(checks: &CompiledChecks) -> Vec<(u32, u32)> {
    let n = checks.steps.len();
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(a, b) in &checks.edges {
        if let Some(list) = succs.get_mut(a.0 as usize) {
            list.push(b.0);
        }
    }
    // 0 unvisited, 1 on the path, 2 done.
    let mut state = vec![0u8; n];
    let mut back = HashSet::new();
    let mut stack: Vec<(u32, usize)> = vec![(checks.entry.0, 0)];
    if let Some(s) = state.get_mut(checks.entry.0 as usize) {
        *s = 1;
    }
    while let Some((node, i)) = stack.pop() {
        let next = succs.get(node as usize).and_then(|l| l.get(i)).copied();
        match next {
            Some(child) => {
                stack.push((node, i + 1));
                match state.get(child as usize) {
                    Some(0) => {
                        state[child as usize] = 1;
                        stack.push((child, 0));
                    }
                    Some(1) => {
                        back.insert((node, child));
                    }
                    _ => {}
                }
            }
            None => {
                if let Some(s) = state.get_mut(node as usize) {
                    *s = 2;
                }
            }
        }
    }
    checks
        .edges
        .iter()
        .map(|&(a, b)| (a.0, b.0))
        .filter(|e| !back.contains(e))
        .collect()
}

/// Step functions "how many matching events so far" for every counted filter
/// and candidate key, as `(filter, key, count, from, until)`.
fn count_intervals(
    encoded: &Encoded,
    deps: &Dependencies,
    candidates: &BTreeMap<VarId, BTreeSet<Symbol>>,
) -> Vec<(u32, Value, u32, u32, u32)> {
    let mut out = Vec::new();
    for node in &encoded.onodes {
        let ONode::Count { filter, key } = *node else {
            continue;
        };
        let keys: Vec<Value> = match encoded.onodes.get(key as usize) {
            Some(ONode::Const(v)) => vec![*v],
            Some(ONode::Var(var)) => candidates
                .get(var)
                .map(|vs| vs.iter().map(|s| Value::Str(*s)).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let unconstrained = encoded
            .filters
            .get(filter as usize)
            .is_some_and(|f| f.constraints.is_empty());
        for key_value in keys {
            let mut matches = if unconstrained {
                deps.by_filter.get(&filter).cloned().unwrap_or_default()
            } else {
                deps.by_key
                    .get(&(filter, key_value))
                    .cloned()
                    .unwrap_or_default()
            };
            matches.sort_unstable();
            matches.dedup();
            let mut from = 0;
            for (n, ev) in matches.iter().enumerate() {
                out.push((filter, key_value, to_u32(n), from, *ev));
                from = *ev;
            }
            out.push((filter, key_value, to_u32(matches.len()), from, FOREVER));
        }
    }
    out
}

struct Explainer<'a> {
    checks: &'a CompiledChecks,
    facts: &'a TraceFacts,
    encoded: &'a Encoded,
    inputs: &'a Inputs,
    derived: &'a Derived,
    values: &'a ValueIndex,
}

impl Explainer<'_> {
    fn unguarded(&self, event: u32) -> Option<Violation> {
        let tool = self.facts.calls.iter().find(|c| c.event == event)?.tool;
        Some(Violation {
            event,
            tool,
            request: Env::EMPTY,
            unmet: None,
            reason: Reason::NoAuthorization,
            failed: Vec::new(),
        })
    }

    /// Picks the request that came closest (most bindings, deepest unmet
    /// step, and — among equals — one the call's arguments are about rather
    /// than one it is ungrounded for) and says why its path stopped.
    fn blocked(
        &self,
        event: u32,
        tool: Symbol,
        candidates: Vec<(u32, Env, u32, u32)>,
    ) -> Violation {
        let bound = |e: &Env| e.bound_count();
        let mut ranked: Vec<(u32, Env, u32, Reason, Vec<FailedAtom>)> = candidates
            .into_iter()
            .map(|(a, e, n, j)| {
                let (reason, failed) = self.classify(event, e, a, n, j);
                (a, e, n, reason, failed)
            })
            .collect();
        // The call is about the requests whose bound ids appear in its arguments.
        let mentioned: BTreeSet<Symbol> = self
            .facts
            .args
            .iter()
            .filter(|a| a.call == event)
            .filter_map(|a| match a.value {
                Value::Str(s) => Some(s),
                _ => None,
            })
            .collect();
        let about = |e: &Env| e.bound().filter(|(_, s)| mentioned.contains(s)).count();
        // A request whose binding contradicts what the guard pins to this
        // call's argument (`args.order_id == $order`) is about another entity.
        let contradicts = |a: u32, e: &Env| {
            let root = self
                .inputs
                .step_roots
                .get(a as usize)
                .copied()
                .unwrap_or(u32::MAX);
            pinned_vars(self.encoded, root)
                .into_iter()
                .any(|(var, path)| {
                    let arg = self
                        .encoded
                        .arg_paths
                        .get(path as usize)
                        .and_then(|p| self.facts.arg_path_index(p))
                        .and_then(|p| {
                            self.facts
                                .args
                                .iter()
                                .find(|x| x.call == event && x.path == p)
                        })
                        .map(|x| x.value);
                    match (e.get(var), arg) {
                        (Some(bound), Some(Value::Str(s))) => bound != s,
                        _ => false,
                    }
                })
        };
        // First the requests this call is about (bindings that its pinned
        // arguments name, or whose unmet step would bind them), then requests
        // about another entity (the call is ungrounded for them), then the rest.
        let class = |a: u32, e: &Env, n: u32| {
            let pins = pinned_vars(
                self.encoded,
                self.inputs
                    .step_roots
                    .get(a as usize)
                    .copied()
                    .unwrap_or(u32::MAX),
            );
            let binds = self.inputs.bind_masks.get(n as usize).copied().unwrap_or(0);
            let would_bind = pins.iter().any(|(var, _)| binds & var.mask() != 0);
            if contradicts(a, e) {
                1
            } else if about(e) > 0 || would_bind {
                0
            } else {
                2
            }
        };
        // Among the requests the call is about, a path whose authorization
        // finds the call's arguments foreign to it (a cabin change whose
        // flights differ) is about another request type: explain by the
        // others first.
        ranked.sort_by_key(|(a, e, n, reason, failed)| {
            let depth = self.inputs.depth.get(*n as usize).copied().unwrap_or(0);
            let class = class(*a, e, *n);
            (
                !self.reaches(*n as usize, *a as usize),
                class,
                class == 0 && *reason == Reason::Ungrounded && *n == *a,
                std::cmp::Reverse(about(e)),
                std::cmp::Reverse(bound(e)),
                std::cmp::Reverse(depth),
                *reason == Reason::Ungrounded,
                failed.len(),
                *a,
                *n,
                *e,
            )
        });
        if let Some((a, e, n, _, _)) = ranked.first()
            && contradicts(*a, e)
            && let Some(unread) = self.known_but_unread(event, *a, *n, e)
        {
            return unread;
        }
        match ranked.into_iter().next() {
            Some((_, env, unmet, reason, failed)) => Violation {
                event,
                tool,
                request: env,
                unmet: Some(StepId(unmet)),
                reason,
                failed,
            },
            None => Violation {
                event,
                tool,
                request: Env::EMPTY,
                unmet: None,
                reason: Reason::MissingStep,
                failed: Vec::new(),
            },
        }
    }

    /// The call names an entity (by a pinned argument) that no request is
    /// about, though a read did list it (the user's own reservation, seen in
    /// their profile): the read that would have bound it is missing. `None`
    /// when nothing read mentions the value — then it is ungrounded.
    fn known_but_unread(&self, event: u32, auth: u32, near: u32, env: &Env) -> Option<Violation> {
        let root = self.inputs.step_roots.get(auth as usize).copied()?;
        let (var, value) =
            pinned_vars(self.encoded, root)
                .into_iter()
                .find_map(|(var, path)| {
                    let p = self
                        .facts
                        .arg_path_index(self.encoded.arg_paths.get(path as usize)?)?;
                    let arg = self
                        .facts
                        .args
                        .iter()
                        .find(|x| x.call == event && x.path == p)?;
                    match (arg.value, env.get(var)) {
                        (Value::Str(s), Some(bound)) if bound != s => Some((var, s)),
                        _ => None,
                    }
                })?;
        let listed = self
            .facts
            .attrs
            .iter()
            .any(|a| a.value == Value::Str(value) && a.from <= event);
        if !listed {
            return None;
        }
        // The deepest step upstream of the authorization that binds the variable.
        let binder = (0..self.checks.steps.len())
            .filter(|&i| self.inputs.bind_masks[i] & var.mask() != 0)
            .filter(|&i| self.reaches(i, auth as usize))
            .max_by_key(|&i| (self.inputs.depth[i], i == near as usize))?;
        let request = env.without(var);
        Some(Violation {
            event,
            tool: self.facts.calls.iter().find(|c| c.event == event)?.tool,
            request,
            unmet: Some(StepId(to_u32(binder))),
            reason: Reason::MissingRead,
            failed: Vec::new(),
        })
    }

    /// Whether step `to` can be reached from step `from` along the workflow
    /// without taking a loop's back edge (a finished request returning to
    /// the classifier): a path to an authorization that goes around such a
    /// loop belongs to another request type.
    fn reaches(&self, from: usize, to: usize) -> bool {
        let mut seen = vec![false; self.checks.steps.len()];
        let mut stack = vec![from];
        while let Some(s) = stack.pop() {
            if s == to {
                return true;
            }
            if std::mem::replace(&mut seen[s], true) {
                continue;
            }
            stack.extend(
                self.inputs
                    .forward_edges
                    .iter()
                    .filter(|(a, _)| *a as usize == s)
                    .map(|(_, b)| *b as usize),
            );
        }
        false
    }

    fn classify(
        &self,
        event: u32,
        env: Env,
        auth: u32,
        unmet: u32,
        pred_evidence: u32,
    ) -> (Reason, Vec<FailedAtom>) {
        let Some(step) = self.checks.steps.get(unmet as usize) else {
            return (Reason::MissingStep, Vec::new());
        };
        let root = self.inputs.step_roots[unmet as usize];
        let judged_in_time = self
            .facts
            .judged
            .iter()
            .any(|&(s, k)| s.0 == unmet && k >= pred_evidence && k <= event);
        if step.semantic && !judged_in_time {
            return (Reason::DialogueUnmet, Vec::new());
        }
        // Held at some point, but only before its predecessor was satisfied.
        let held_earlier = self
            .derived
            .holds
            .iter()
            .any(|&(c, k, e)| c == root && k < pred_evidence && e.agrees(&env))
            && step.check.is_some();
        let at = if unmet == auth {
            event
        } else {
            self.last_point(unmet, event, &env)
        };
        let (failed, evaluated_env) = self.failed_atoms(root, at, &env);
        if unmet == auth && evaluated_env.is_none() {
            // The guard pins a variable to an argument, and this request's
            // value is not it: the call is not about this request.
            return (Reason::Ungrounded, failed);
        }
        if unmet != auth {
            let evaluated_since = self.inputs.points[unmet as usize]
                .iter()
                .any(|&k| k >= pred_evidence && k <= event);
            if matches!(step.timing, Timing::Result(_)) && (!evaluated_since || failed.is_empty()) {
                return (Reason::MissingRead, failed);
            }
            if held_earlier {
                return (Reason::OutOfOrder, failed);
            }
        }
        let reason = failed
            .iter()
            .map(|f| self.atom_reason(f.atom, at, &evaluated_env.unwrap_or(env)))
            .min_by_key(|r| r.precedence())
            .unwrap_or(if unmet == auth {
                Reason::WrongValue
            } else {
                Reason::MissingStep
            });
        (reason, failed)
    }

    /// The latest evaluation point of `step`, under an env agreeing with
    /// `env`, at or before `event`.
    fn last_point(&self, step: u32, event: u32, env: &Env) -> u32 {
        self.inputs
            .step_points
            .range((step, Env::EMPTY)..=(step, Env::MAX))
            .filter(|((_, p), _)| p.agrees(env))
            .flat_map(|(_, pts)| pts.iter().copied())
            .filter(|&k| k <= event)
            .max()
            .unwrap_or(0)
    }

    /// Environments the root was evaluated with at `k` that agree with `env`.
    fn envs_at(&self, root: u32, k: u32, env: &Env) -> Vec<Env> {
        self.inputs
            .eval_at
            .range((root, k, Env::EMPTY)..=(root, k, Env::MAX))
            .filter(|(_, _, e)| e.agrees(env))
            .map(|&(_, _, e)| e)
            .collect()
    }

    /// The failing atoms of `root` at `k`, and the environment it was evaluated in.
    fn failed_atoms(&self, root: u32, k: u32, env: &Env) -> (Vec<FailedAtom>, Option<Env>) {
        let envs = self.envs_at(root, k, env);
        let Some(p) = envs.first() else {
            return (Vec::new(), None);
        };
        let mut out = Vec::new();
        self.collect_failed(root, k, p, &mut out);
        (out, Some(*p))
    }

    fn collect_failed(&self, c: u32, k: u32, env: &Env, out: &mut Vec<FailedAtom>) {
        if self.derived.holds(c, k, env) {
            return;
        }
        match self.encoded.cnodes.get(c as usize) {
            Some(CNode::And(l, r)) | Some(CNode::Or(l, r)) => {
                self.collect_failed(*l, k, env, out);
                self.collect_failed(*r, k, env, out);
            }
            Some(CNode::True) | None => {}
            Some(node) => {
                let operands = atom_operands(node, self.encoded);
                let cited = operands
                    .into_iter()
                    .map(|o| Cited {
                        operand: o,
                        values: self
                            .values
                            .values
                            .get(&(o, k, *env))
                            .map(|vs| vs.iter().map(|(_, v)| *v).collect())
                            .unwrap_or_default(),
                        read_at: self.values.sources.get(&(o, k, *env)).copied(),
                    })
                    .collect();
                out.push(FailedAtom { atom: c, cited });
            }
        }
    }

    fn atom_reason(&self, atom: u32, k: u32, env: &Env) -> Reason {
        let Some(node) = self.encoded.cnodes.get(atom as usize) else {
            return Reason::MissingStep;
        };
        let operands = atom_operands(node, self.encoded);
        let missing = operands.iter().any(|o| {
            !self.values.present.contains(&(*o, k, *env))
                && !matches!(self.encoded.onodes.get(*o as usize), Some(ONode::Const(_)))
        });
        let kinds: Vec<&ONode> = operands
            .iter()
            .filter_map(|o| self.encoded.onodes.get(*o as usize))
            .collect();
        let has = |f: fn(&ONode) -> bool| kinds.iter().any(|n| f(n));
        match node {
            // A required past call of a read tool is a missing read.
            CNode::Happened {
                filter,
                negated: false,
            } => match self.encoded.filters.get(*filter as usize) {
                Some(f) if !self.checks.gated_tools.contains(&f.tool) => Reason::MissingRead,
                _ => Reason::MissingStep,
            },
            CNode::Happened { .. } => Reason::MissingStep,
            _ if has(|n| matches!(n, ONode::Count { .. })) => Reason::TooManyCalls,
            _ if missing && has(|n| matches!(n, ONode::Field { .. })) => Reason::MissingRead,
            CNode::Contains { .. } => Reason::Ungrounded,
            CNode::Cmp { op, .. } if op.is_ordering() => Reason::AmountOutOfBounds,
            _ if has(|n| {
                matches!(
                    n,
                    ONode::Agg { .. } | ONode::Arith { .. } | ONode::CountEqual { .. }
                )
            }) =>
            {
                Reason::AmountOutOfBounds
            }
            CNode::Cmp {
                op: CmpOp::Eq | CmpOp::Ne,
                ..
            } if has(|n| matches!(n, ONode::Arg(_)))
                && has(|n| matches!(n, ONode::Var(_) | ONode::Field { .. })) =>
            {
                // An id that does not match what was read is ungrounded; a
                // number that does not match is an amount out of bounds.
                let numeric = operands.iter().any(|o| {
                    self.values.values.get(&(*o, k, *env)).is_some_and(|vs| {
                        vs.iter()
                            .any(|(_, v)| matches!(v, Value::Int(_) | Value::Amount(_)))
                    })
                });
                if numeric {
                    Reason::AmountOutOfBounds
                } else {
                    Reason::Ungrounded
                }
            }
            _ => Reason::WrongValue,
        }
    }
}

/// Both environments give the same value to every variable both bind.
fn atom_operands(node: &CNode, encoded: &Encoded) -> Vec<u32> {
    match *node {
        CNode::Cmp { lhs, rhs, .. } => vec![lhs, rhs],
        CNode::In { operand, set, .. } => {
            let mut v = vec![operand];
            v.extend(encoded.sets.get(set as usize).cloned().unwrap_or_default());
            v
        }
        CNode::Contains { item, list, .. } => vec![item, list],
        CNode::Happened { filter, .. } => encoded
            .filters
            .get(filter as usize)
            .map(|f| f.constraints.iter().map(|&(_, _, o)| o).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}
