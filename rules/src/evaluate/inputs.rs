//! The program's inputs besides the encoded checks: per step its root check
//! and evaluation points (the events that can change what its criterion
//! reads), judge verdicts, filter matches and event counts, all computed from
//! the trace facts.

use std::collections::{BTreeMap, BTreeSet};

use hashbrown::{HashMap, HashSet};

use crate::encode::{CNode, Encoded, ONode};
use crate::env::{Env, MAX_VARS};
use crate::facts::{FOREVER, Reply, Speaker, TraceFacts, UNPLACED_SEGMENT};
use crate::intern::Symbol;
use crate::ir::{CmpOp, Outcome, VarId};
use crate::program::{self, Program};
use crate::steps::{CompiledChecks, Timing};
use crate::value::Value;
use crate::visit::{Visitor, walk_condition, walk_operand};

use super::graph::{forward_edges, step_depths};

/// Everything fed to the program besides the encoded checks.
pub(super) struct Inputs {
    pub(super) step_roots: Vec<u32>,
    /// The workflow's edges without the back edges of its loops.
    pub(super) forward_edges: Vec<(u32, u32)>,
    /// Every event where each step is evaluated (empty for trivial steps).
    pub(super) points: Vec<Vec<u32>>,
    /// The ordered evaluation points of each (step, env).
    pub(super) step_points: BTreeMap<(u32, Env), Vec<u32>>,
    /// Variables a request's bindings select a step's runs by.
    pub(super) key_masks: Vec<u32>,
    /// Per filter: `(event, call, key)` of every event of its tool and outcome,
    /// keyed by the argument its first `==` constraint reads.
    pub(super) filter_events: BTreeMap<u32, Vec<(u32, u32, Value)>>,
    /// `(semantic step, j, k)`: the first judge verdict at or after `j` is at `k`.
    pub(super) next_judged: Vec<(u32, Env, u32, u32)>,
    pub(super) trivial: Vec<bool>,
    pub(super) eval_at: BTreeSet<(u32, u32, Env)>,
    pub(super) bind_masks: Vec<u32>,
    pub(super) depth: Vec<u32>,
    pub(super) count_values: Vec<(u32, Value, u32, u32, u32)>,
    /// Per protection (by index): its guard's root node and the variables
    /// the guard reads, `None` without a guard.
    pub(super) protection_guards: Vec<Option<(u32, u32)>>,
}

impl Inputs {
    pub(super) fn build(
        checks: &CompiledChecks,
        facts: &TraceFacts,
        encoded: &mut Encoded,
    ) -> Inputs {
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
            facts.calls.iter().map(|c| (c.event.0, c.tool)).collect();
        let mut bind_env: HashMap<(u32, u32), Env> = HashMap::new();
        let mut candidates: BTreeMap<VarId, BTreeSet<Symbol>> = BTreeMap::new();
        for b in &facts.binds {
            let env = bind_env.entry((b.step.0, b.event.0)).or_insert(Env::EMPTY);
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
            let root = step_roots.get(index).copied().unwrap_or(u32::MAX);
            match step.timing {
                Timing::State if step.check.is_none() => {}
                Timing::State => {
                    for env in projections(Env::EMPTY, check_mask, &candidates) {
                        step_points.insert((s, env), state_points(encoded, root, &env, &deps));
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
                        let mut pinned: Vec<(VarId, Symbol)> = Vec::new();
                        for &(var, path) in &pins {
                            let value = encoded
                                .arg_paths
                                .get(path as usize)
                                .and_then(|p| facts.arg_path_index(p))
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
                                pinned.push((var, v));
                            }
                        }
                        for env in pinned_projections(bound, check_mask, &candidates, &pinned) {
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
                eval_at.insert((
                    step_roots.get(*s as usize).copied().unwrap_or(u32::MAX),
                    k,
                    *env,
                ));
            }
        }
        // A protected read's guard is evaluated at every agent call of its
        // tool, under every binding of what it reads.
        let mut protection_guards = Vec::new();
        for protection in &checks.protections {
            // A guard with no node never holds (fail closed).
            let guard = protection
                .guard
                .map(|g| (encoded.root(g).unwrap_or(u32::MAX), encoded.mask(g)));
            if let Some((root, mask)) = guard {
                for call in facts
                    .calls
                    .iter()
                    .filter(|c| c.by_agent && c.tool == protection.tool)
                {
                    for env in projections(Env::EMPTY, mask, &candidates) {
                        eval_at.insert((root, call.event.0, env));
                    }
                }
            }
            protection_guards.push(guard);
        }
        let mut next_judged = Vec::new();
        for (index, step) in checks.steps.iter().enumerate() {
            if !step.semantic {
                continue;
            }
            // Per request: a verdict satisfies the step for the request it
            // was asked about only.
            let mut by_request: BTreeMap<Env, Vec<u32>> = BTreeMap::new();
            for (_, env, k) in facts
                .judged
                .iter()
                .filter(|(st, _, _)| st.0 as usize == index)
            {
                by_request.entry(*env).or_default().push(k.0);
            }
            for (env, mut judged) in by_request {
                judged.sort_unstable();
                judged.dedup();
                let mut next = judged.iter().peekable();
                for j in 0..facts.events.max(1) {
                    while next.peek().is_some_and(|&&k| k < j) {
                        next.next();
                    }
                    if let Some(&&k) = next.peek() {
                        next_judged.push((to_u32(index), env, j, k));
                    }
                }
            }
        }
        let depth = step_depths(checks);
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
            protection_guards,
        }
    }

    pub(super) fn load(
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
                CNode::Said {
                    speaker,
                    operand,
                    negated,
                } => rt.extend([ICSaid(c, speaker, operand, negated)]),
                CNode::Confirmed {
                    set,
                    call,
                    items,
                    negated,
                } => {
                    rt.extend([ICConfirmed(c, set, negated)]);
                    rt.extend(call.map(|call| ICConfirmedCall(c, call)));
                    let groups = items
                        .and_then(|i| encoded.item_groups.get(i as usize))
                        .map_or(&[][..], Vec::as_slice);
                    for &group in groups {
                        let fields = encoded
                            .sets
                            .get(group as usize)
                            .map_or(&[][..], Vec::as_slice);
                        rt.extend(fields.iter().map(|&m| ICItemField(c, group, m)));
                    }
                }
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
                ONode::Now => rt.extend([IONow(o)]),
            }
        }
        rt.extend(
            facts
                .clock
                .iter()
                .map(|&(k, t)| INow(k.0, Value::DateTime(t))),
        );
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
                .map(|c| ICall(c.event.0, c.tool, c.by_agent)),
        );
        rt.extend(facts.calls.iter().map(|c| IArgsOf(c.event.0, c.event.0)));
        rt.extend(
            facts
                .results
                .iter()
                .map(|r| IResult(r.event.0, r.call.0, r.ok)),
        );
        rt.extend(facts.results.iter().map(|r| IArgsOf(r.event.0, r.call.0)));
        rt.extend(
            facts
                .mentions
                .iter()
                .map(|m| IMention(m.value, m.event.0, m.speaker)),
        );
        rt.extend(said_intervals(facts).map(|(v, ev, sp, until)| ISaid(v, ev, sp, until)));
        rt.extend(
            facts
                .mentions
                .iter()
                .filter(|m| m.record)
                .map(|m| IRecord(m.value)),
        );
        rt.extend(
            facts
                .mentions
                .iter()
                .filter(|m| m.action)
                .map(|m| IActionWord(m.value)),
        );
        rt.extend(facts.literals.iter().map(|l| ILiteral(l.value, l.of)));
        rt.extend(
            facts
                .mentions
                .iter()
                .filter(|m| m.in_answer)
                .map(|m| IInAnswer(m.value, m.event.0)),
        );
        rt.extend(
            facts
                .mentions
                .iter()
                .filter(|m| m.declined)
                .map(|m| IDeclined(m.value, m.event.0)),
        );
        for m in facts
            .mentions
            .iter()
            .filter(|m| m.speaker == Speaker::Agent)
        {
            if (m.segments | m.clauses) & UNPLACED_SEGMENT != 0 {
                rt.extend([IUnplaced(m.value, m.event.0)]);
            }
            let placed = |bits: u32| {
                (0..UNPLACED_SEGMENT.trailing_zeros()).filter(move |s| bits & (1 << s) != 0)
            };
            rt.extend(placed(m.segments).map(|s| ISegment(m.value, m.event.0, s)));
            rt.extend(placed(m.clauses).map(|s| IClause(m.value, m.event.0, s)));
            if m.first_place != 0 {
                rt.extend([
                    IPlace(m.value, m.event.0, m.first_place),
                    IPlace(m.value, m.event.0, m.last_place),
                ]);
            }
        }
        rt.extend(
            facts
                .held
                .iter()
                .map(|h| IHeld(h.value, h.event.0, h.entity, h.record)),
        );
        for p in &facts.passed_over {
            if p.picked_another {
                rt.extend([IPassedOver(p.value, p.event.0)]);
            } else {
                rt.extend([IUnpicked(p.value, p.event.0)]);
            }
        }
        for turn in &facts.turns {
            let ev = turn.event.0;
            match turn.speaker {
                Speaker::Agent => {
                    if turn.asks_decision {
                        rt.extend([IAskTurn(ev)]);
                    }
                    if turn.asks_anything {
                        rt.extend([IAsksAny(ev)]);
                    }
                    if turn.weighs_actions {
                        rt.extend([IWeighs(ev)]);
                    }
                }
                Speaker::User | Speaker::Ticket => {
                    if turn.reply == Reply::Affirms {
                        rt.extend([IAffirm(ev)]);
                    }
                    if turn.reply.revoke_rank() > 0 {
                        rt.extend([IRevoke(ev, turn.reply.revoke_rank())]);
                    }
                    if turn.corrects {
                        rt.extend([ICorrect(ev)]);
                    }
                    if turn.retracts {
                        rt.extend([IRetract(ev)]);
                    }
                    if turn.by_item {
                        rt.extend([IByItem(ev)]);
                    }
                }
            }
        }
        rt.extend(facts.attrs.iter().map(|a| {
            IAttr(
                a.entity, a.id, a.field, a.elem, a.value, a.from.0, a.until.0,
            )
        }));
        rt.extend(
            facts
                .attr_lens
                .iter()
                .map(|a| IAttrLen(a.entity, a.id, a.field, a.len, a.from.0, a.until.0)),
        );
        rt.extend(
            facts
                .args
                .iter()
                .map(|a| IArg(a.call.0, a.path, a.elem, a.value)),
        );
        rt.extend(
            facts
                .arg_lens
                .iter()
                .map(|a| IArgLen(a.call.0, a.path, a.len)),
        );
        rt.extend(
            self.next_judged
                .iter()
                .map(|&(s, e, j, k)| INextJudged(s, e, j, k)),
        );
        // One entry per step in each of these (built together).
        let per_step = self
            .step_roots
            .iter()
            .zip(&self.bind_masks)
            .zip(&self.key_masks)
            .zip(&self.trivial)
            .take(self.points.len());
        for (i, (((&root, &binds), &keys), &trivial)) in per_step.enumerate() {
            let s = to_u32(i);
            rt.extend([IStepRoot(s, root)]);
            rt.extend([IStepBinds(s, binds)]);
            rt.extend([IStepKeyMask(s, keys)]);
            if trivial {
                rt.extend([ITrivial(s)]);
            }
        }
        for (&(s, env), pts) in &self.step_points {
            rt.extend(pts.iter().map(|&k| IStepPt(s, env, k)));
            rt.extend(pts.windows(2).filter_map(|w| match *w {
                [k, next] => Some(INextPt(s, env, k, next)),
                _ => None,
            }));
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
        for (p, (protection, guard)) in checks
            .protections
            .iter()
            .zip(&self.protection_guards)
            .enumerate()
        {
            let p = to_u32(p);
            rt.extend([IProtect(p, protection.tool)]);
            rt.extend(protection.after.iter().map(|s| IProtAfter(p, s.0)));
            match *guard {
                Some((root, mask)) => rt.extend([IProtGuard(p, root, mask)]),
                None => rt.extend([IProtNoGuard(p)]),
            }
        }
        rt.extend([ISeed(checks.entry.0, Env::EMPTY, 0)]);
    }
}

/// Every mention that spells its value, as `(value, event, speaker,
/// until)`: a user's (or the
/// ticket's, the user's statement) counts for `said` until the user's next
/// disowning of the value at or after it ([`FOREVER`] when none; a turn
/// naming a value to disown it does not count), an agent's for good.
fn said_intervals(facts: &TraceFacts) -> impl Iterator<Item = (Value, u32, Speaker, u32)> + '_ {
    let mut disowned: HashMap<Value, Vec<u32>> = HashMap::new();
    for d in &facts.disowned {
        disowned.entry(d.value).or_default().push(d.event.0);
    }
    for events in disowned.values_mut() {
        events.sort_unstable();
    }
    facts.mentions.iter().filter(|m| !m.implied).map(move |m| {
        let until = match m.speaker {
            Speaker::User | Speaker::Ticket => disowned
                .get(&m.value)
                .and_then(|events| events.iter().find(|&&d| d >= m.event.0).copied())
                .unwrap_or(FOREVER.0),
            Speaker::Agent => FOREVER.0,
        };
        (m.value, m.event.0, m.speaker, until)
    })
}

/// Variables a check pins to an argument: top-level conjuncts `args.x == $v`
/// (as `(var, encoded path)`), which can only hold when `$v` is that argument.
pub(crate) fn pinned_vars(encoded: &Encoded, root: u32) -> Vec<(VarId, u32)> {
    struct Pins(Vec<(VarId, u32)>);
    impl Visitor for Pins {
        fn condition(&mut self, tree: &Encoded, c: u32) {
            match tree.cnodes.get(c as usize) {
                Some(CNode::And(..)) => walk_condition(self, tree, c),
                Some(CNode::Cmp {
                    op: CmpOp::Eq,
                    lhs,
                    rhs,
                    negated: false,
                }) => {
                    let side = |o: &u32| tree.onodes.get(*o as usize);
                    let scalar = |p: &u32| {
                        !tree
                            .arg_paths
                            .get(*p as usize)
                            .is_some_and(|path| path.yields_list())
                    };
                    match (side(lhs), side(rhs)) {
                        (Some(ONode::Arg(p)), Some(ONode::Var(v)))
                        | (Some(ONode::Var(v)), Some(ONode::Arg(p)))
                            if scalar(p) =>
                        {
                            self.0.push((*v, *p));
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
    }
    let mut pins = Pins(Vec::new());
    pins.condition(encoded, root);
    pins.0
}

/// Where the events that can change what a criterion reads are found: the
/// Datalog inputs' indices ([`Dependencies`]) or the monitor's state. Each
/// method appends event indices to `out`.
pub(crate) trait PointSource {
    /// The events that (re)read `entity[id].field`.
    fn field_reads(&self, entity: Symbol, id: Symbol, field: Symbol, out: &mut Vec<u32>);
    /// Every call and result event (a field whose id is not known yet).
    fn tool_events(&self, out: &mut Vec<u32>);
    /// Every conversation turn's event (dialogue predicates change there).
    fn turn_events(&self, out: &mut Vec<u32>);
    /// The event of every record's first read: `confirmed` tells a yes to
    /// another record of a key record's kind by the records read so far.
    fn first_reads(&self, out: &mut Vec<u32>);
    /// The events matching filter `filter`: all of them (`key: None`), or
    /// those whose key argument equals `key`.
    fn filter_events(&self, filter: u32, key: Option<Value>, out: &mut Vec<u32>);
    /// Every event whose time differs from the one before it (`now()`
    /// changes there).
    fn time_changes(&self, out: &mut Vec<u32>);
}

/// Event 0 and every event where the criterion under `root` may change value
/// for `env`; all tool events where that cannot be narrowed. Both explainers
/// and the program's inputs take a state step's evaluation points from here.
pub(crate) fn state_points(
    encoded: &Encoded,
    root: u32,
    env: &Env,
    source: &impl PointSource,
) -> Vec<u32> {
    struct Points<'a, S> {
        env: &'a Env,
        source: &'a S,
        out: Vec<u32>,
    }
    impl<S: PointSource> Points<'_, S> {
        fn filter(&mut self, tree: &Encoded, f: u32) {
            if tree.filters.get(f as usize).is_some() {
                let key = filter_key(tree, f, self.env);
                self.source.filter_events(f, key, &mut self.out);
            }
        }
    }
    impl<S: PointSource> Visitor for Points<'_, S> {
        fn condition(&mut self, tree: &Encoded, c: u32) {
            match tree.cnodes.get(c as usize) {
                // Matches by constraint: its events, not its operands'.
                Some(CNode::Happened { filter, .. }) => self.filter(tree, *filter),
                Some(CNode::Said { .. }) => {
                    self.source.turn_events(&mut self.out);
                    walk_condition(self, tree, c);
                }
                Some(CNode::Confirmed { .. }) => {
                    self.source.turn_events(&mut self.out);
                    self.source.first_reads(&mut self.out);
                    walk_condition(self, tree, c);
                }
                _ => walk_condition(self, tree, c),
            }
        }

        fn operand(&mut self, tree: &Encoded, o: u32) {
            match tree.onodes.get(o as usize) {
                Some(ONode::Field { entity, id, field }) => {
                    let key = match tree.onodes.get(*id as usize) {
                        Some(ONode::Var(v)) => self.env.get(*v),
                        Some(ONode::Const(Value::Str(s))) => Some(*s),
                        _ => None,
                    };
                    match key {
                        Some(id) => self.source.field_reads(*entity, id, *field, &mut self.out),
                        None => {
                            self.source.tool_events(&mut self.out);
                            walk_operand(self, tree, o);
                        }
                    }
                }
                Some(ONode::Count { filter, .. }) => self.filter(tree, *filter),
                Some(ONode::Now) => self.source.time_changes(&mut self.out),
                _ => walk_operand(self, tree, o),
            }
        }
    }
    let mut points = Points {
        env,
        source,
        out: vec![0],
    };
    points.condition(encoded, root);
    let mut out = points.out;
    out.sort_unstable();
    out.dedup();
    out
}

/// The value filter `f`'s first `==` constraint compares a past call's
/// argument with, when the request (or a constant) gives it: the filter's
/// events are narrowed to that key. `None`: every event of the filter.
pub(crate) fn filter_key(encoded: &Encoded, f: u32, env: &Env) -> Option<Value> {
    encoded
        .filters
        .get(f as usize)?
        .constraints
        .iter()
        .find(|&&(_, op, _)| op == CmpOp::Eq)
        .and_then(|&(_, _, o)| match encoded.onodes.get(o as usize) {
            Some(ONode::Var(v)) => env.get(*v).map(Value::Str),
            Some(ONode::Const(v)) => Some(*v),
            _ => None,
        })
}

/// Which events can change what a state criterion reads, per environment.
pub(super) struct Dependencies {
    /// `(entity, id, field)` to the events that (re)read it.
    pub(super) reads: HashMap<(Symbol, Symbol, Symbol), Vec<u32>>,
    /// Tool to its `(call event, call event)` and `(ok result event, call event)`.
    pub(super) calls: HashMap<Symbol, Vec<(u32, u32)>>,
    pub(super) results: HashMap<Symbol, Vec<(u32, u32)>>,
    pub(super) all_tool_events: Vec<u32>,
    /// Every conversation turn's event (dialogue predicates change there).
    pub(super) turn_events: Vec<u32>,
    /// The event of every record's first read.
    pub(super) first_reads: Vec<u32>,
    /// Every event whose time differs from the one before it (`now()`
    /// changes there), a time becoming known or unknown included.
    pub(super) time_changes: Vec<u32>,
    pub(super) args: ArgIndex,
    /// Events of each filter, and by the key of its first `==` constraint.
    pub(super) by_filter: HashMap<u32, Vec<u32>>,
    pub(super) by_key: HashMap<(u32, Value), Vec<u32>>,
}

/// Argument values by (call event, path index).
pub(super) type ArgIndex = HashMap<(u32, u32), Vec<Value>>;

pub(super) fn arg_index(facts: &TraceFacts) -> ArgIndex {
    let mut index: ArgIndex = HashMap::new();
    for a in &facts.args {
        index.entry((a.call.0, a.path)).or_default().push(a.value);
    }
    index
}

impl Dependencies {
    pub(super) fn new(facts: &TraceFacts, tool_of_call: &HashMap<u32, Symbol>) -> Self {
        // A read changes what a criterion reads where a value starts and
        // where it stops: a read that concludes nothing (`Read::unknown`)
        // adds no value of its own, yet ends the one before.
        let mut reads: HashMap<(Symbol, Symbol, Symbol), Vec<u32>> = HashMap::new();
        let mut first_read: HashMap<(Symbol, Symbol), u32> = HashMap::new();
        let spans = facts
            .attrs
            .iter()
            .map(|a| (a.entity, a.id, a.field, a.from, a.until))
            .chain(
                facts
                    .attr_lens
                    .iter()
                    .map(|a| (a.entity, a.id, a.field, a.from, a.until)),
            );
        for (entity, id, field, from, until) in spans {
            first_read
                .entry((entity, id))
                .and_modify(|first| *first = (*first).min(from.0))
                .or_insert(from.0);
            let points = reads.entry((entity, id, field)).or_default();
            points.push(from.0);
            if until != FOREVER {
                points.push(until.0);
            }
        }
        let mut calls: HashMap<Symbol, Vec<(u32, u32)>> = HashMap::new();
        for c in &facts.calls {
            calls
                .entry(c.tool)
                .or_default()
                .push((c.event.0, c.event.0));
        }
        let mut results: HashMap<Symbol, Vec<(u32, u32)>> = HashMap::new();
        for r in facts.results.iter().filter(|r| r.ok) {
            if let Some(tool) = tool_of_call.get(&r.call.0) {
                results
                    .entry(*tool)
                    .or_default()
                    .push((r.event.0, r.call.0));
            }
        }
        let mut all_tool_events: Vec<u32> = facts
            .calls
            .iter()
            .map(|c| c.event.0)
            .chain(facts.results.iter().map(|r| r.event.0))
            .collect();
        all_tool_events.sort_unstable();
        Dependencies {
            reads,
            calls,
            results,
            all_tool_events,
            turn_events: facts.turns.iter().map(|t| t.event.0).collect(),
            first_reads: first_read.into_values().collect(),
            time_changes: time_changes(facts),
            args: arg_index(facts),
            by_filter: HashMap::new(),
            by_key: HashMap::new(),
        }
    }

    pub(super) fn calls(&self, tool: Symbol) -> Vec<(u32, u32)> {
        self.calls.get(&tool).cloned().unwrap_or_default()
    }

    pub(super) fn results(&self, tool: Symbol) -> Vec<(u32, u32)> {
        self.results.get(&tool).cloned().unwrap_or_default()
    }

    /// The events of filter `filter`: all of them, or those whose key
    /// argument equals `key`.
    fn filter_events_keyed(&self, filter: u32, key: Option<Value>) -> Vec<u32> {
        match key {
            Some(key) => self.by_key.get(&(filter, key)).cloned().unwrap_or_default(),
            None => self.by_filter.get(&filter).cloned().unwrap_or_default(),
        }
    }
}

/// The events whose time differs from the previous event's (see
/// [`Dependencies::time_changes`]).
fn time_changes(facts: &TraceFacts) -> Vec<u32> {
    let times: HashMap<u32, crate::value::DateTime> =
        facts.clock.iter().map(|&(k, t)| (k.0, t)).collect();
    (1..facts.events)
        .filter(|k| times.get(k) != times.get(&(k - 1)))
        .collect()
}

impl PointSource for Dependencies {
    fn field_reads(&self, entity: Symbol, id: Symbol, field: Symbol, out: &mut Vec<u32>) {
        out.extend(self.reads.get(&(entity, id, field)).into_iter().flatten());
    }

    fn tool_events(&self, out: &mut Vec<u32>) {
        out.extend_from_slice(&self.all_tool_events);
    }

    fn turn_events(&self, out: &mut Vec<u32>) {
        out.extend_from_slice(&self.turn_events);
    }

    fn first_reads(&self, out: &mut Vec<u32>) {
        out.extend_from_slice(&self.first_reads);
    }

    fn filter_events(&self, filter: u32, key: Option<Value>, out: &mut Vec<u32>) {
        out.extend(self.filter_events_keyed(filter, key));
    }

    fn time_changes(&self, out: &mut Vec<u32>) {
        out.extend_from_slice(&self.time_changes);
    }
}

/// Every filter's events with the key its first `==` constraint compares.
pub(super) fn keyed_filter_events(
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

pub(super) fn to_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Every binding of the variables in `mask` to candidate values, on top of `base`.
pub(crate) fn projections(
    base: Env,
    mask: u32,
    candidates: &BTreeMap<VarId, BTreeSet<Symbol>>,
) -> Vec<Env> {
    pinned_projections(base, mask, candidates, &[])
}

/// [`projections`] with some variables pinned to one value each (the last
/// pin of a variable wins): what a call's pinned arguments narrow the
/// candidates to, without copying the candidates. A pin only narrows a
/// variable to a value that is among its candidates (the caller checks).
pub(crate) fn pinned_projections(
    base: Env,
    mask: u32,
    candidates: &BTreeMap<VarId, BTreeSet<Symbol>>,
    pinned: &[(VarId, Symbol)],
) -> Vec<Env> {
    let mut envs = vec![base];
    for var in 0..MAX_VARS as u32 {
        if mask & (1 << var) == 0 {
            continue;
        }
        let id = VarId(var);
        if let Some(&(_, only)) = pinned.iter().rev().find(|(v, _)| *v == id) {
            for env in &mut envs {
                *env = env.with(id, only);
            }
            continue;
        }
        let Some(values) = candidates.get(&id) else {
            return Vec::new();
        };
        envs = envs
            .iter()
            .flat_map(|e| values.iter().map(move |v| e.with(id, *v)))
            .collect();
    }
    envs
}

/// Step functions "how many matching events so far" for every counted filter
/// and candidate key, as `(filter, key, count, from, until)`.
pub(super) fn count_intervals(
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
            out.push((filter, key_value, to_u32(matches.len()), from, FOREVER.0));
        }
    }
    out
}
