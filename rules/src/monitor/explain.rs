//! Block explanations from the monitor's own state: for the gated call the
//! monitor just refused, the request whose path came closest, the first unmet
//! step on it, the [`Reason`] and the failed conditions with the values seen
//! and the events they were read at — the same [`Violation`] the Datalog
//! explainer (`evaluate/explain.rs`, the reference) derives, without running
//! the program.
//!
//! How: the monitor keeps every satisfaction, every read of every field and
//! every filter match in event order, so a criterion can be re-evaluated as
//! of any earlier event ([`super::state::View`]). The explainer walks only
//! the steps on the paths to the call's authorization and, for the one it
//! classifies, that step's own evaluation points (its tool's events, or the
//! events that changed what its criterion reads) — not the whole trace. A
//! tool step's points are projected one event at a time as a question needs
//! them (`Points`): the authorization's own classification reads only the
//! blocked call, however many calls of the tool came before.
//! The ranking rules (requests the call is about first, deepest unmet step,
//! ...) are the reference's, rule for rule; `engine/tests/monitor_real.rs`
//! and `proptests/tests/monitor_vs_datalog.rs` check that both agree.

use std::collections::{BTreeMap, BTreeSet};

use smallvec::SmallVec;

use crate::consent::Condition;
use crate::encode::{CNode, ONode};
use crate::env::Env;
use crate::evaluate::explain::{failing_atoms, failing_reason, reason_of, unpermitted_read};
use crate::evaluate::inputs::{PointSource, pinned_projections, projections, state_points};
use crate::evaluate::{Cited, FailedAtom, Reason, Violation};
use crate::evaluate::{RankFacts, Ranked, rank_key};
use crate::facts::SCALAR;
use crate::ids::{EventIdx, OperandId};
use crate::intern::Symbol;
use crate::ir::VarId;
use crate::steps::{StepId, Timing};
use crate::value::Value;
use crate::visit::atom_operands;

use super::Monitor;
use super::eval::Ctx;
use super::state::View;

/// A request whose path stopped before the authorization: `(authorization
/// step, request, first unmet step, its predecessor's evidence)`.
type Candidate = (u32, Env, u32, u32);

impl Monitor {
    /// Explains the block of the gated call the monitor consumed last: the
    /// request whose path came closest to authorizing it, the first unmet
    /// step, the reason and the failed conditions (with the values seen and
    /// the events they were read at). `None` when the last event is not an
    /// agent's call of a gated tool, or that call was allowed.
    ///
    /// This is what the live gate (`Session::push`) and audits report; the
    /// Datalog program's violations (`turnstile_rules::evaluate`) are the reference
    /// it is tested against. Its cost depends on the steps leading to the
    /// call's authorization and their evaluation points, not on the length
    /// of the conversation.
    pub fn explain_block(&self) -> Option<Violation> {
        let k = self.state.events.checked_sub(1)?;
        let (tool, true) = self.state.call_now? else {
            return None;
        };
        if !self.plan.is_gated(tool)
            || self
                .allowed
                .get(&EventIdx(k))
                .is_some_and(|a| !a.is_empty())
        {
            return None;
        }
        let Some(auths) = self.plan.auth_steps.get(&tool) else {
            return Some(Violation {
                event: EventIdx(k),
                tool,
                request: Env::EMPTY,
                unmet: None,
                used_by: None,
                reason: Reason::NoAuthorization,
                failed: Vec::new(),
            });
        };
        let mut candidates: BTreeSet<Candidate> = BTreeSet::new();
        for &a in auths {
            self.frontier(a, k, &mut candidates);
        }
        let explainer = Explainer { monitor: self, k };
        let mut candidates: Vec<Candidate> = candidates.into_iter().collect();
        // The reference's order before its stable ranking: ties go to the
        // latest pass of the predecessor.
        candidates.sort_by_key(|&(a, e, n, j)| (a, e, n, std::cmp::Reverse(j)));
        Some(
            explainer
                .blocked(tool, candidates)
                .classified(&self.plan.consent, &self.plan.encoded),
        )
    }

    /// Explains the block of the protected read the monitor consumed last:
    /// the read before any identification (`NotIdentified`), or the
    /// identified request whose guard failed, with the failed conditions —
    /// the reference's explanation, by the same code. `None` when the last
    /// event is not an agent's call of a protected read tool, or that call
    /// was permitted.
    pub fn explain_read(&self) -> Option<Violation> {
        let k = self.state.events.checked_sub(1)?;
        let (tool, true) = self.state.call_now? else {
            return None;
        };
        if !self.plan.is_protected(tool)
            || self
                .allowed
                .get(&EventIdx(k))
                .is_some_and(|a| !a.is_empty())
        {
            return None;
        }
        let explainer = Explainer { monitor: self, k };
        Some(unpermitted_read(
            &self.plan.protections,
            &self.plan.encoded,
            k,
            tool,
            |step| {
                self.evidence_of(step)
                    .filter(|(_, j)| j.0 <= k)
                    .map(|(e, _)| e)
                    .collect()
            },
            |root, env| {
                let mut failed = Vec::new();
                explainer.collect_failed(root, k, env, &mut failed);
                let reason =
                    failing_reason(&explainer.monitor.plan.encoded, root, &failed, |atom| {
                        explainer.atom_reason(atom, k, env)
                    })
                    .unwrap_or(Reason::WrongValue);
                (reason, failed)
            },
        ))
    }

    /// The reference's `Frontier`: every request satisfied at a predecessor
    /// `p` (by event `k`) of a step `n` on the way to authorization `a`,
    /// where `n` was not satisfied since; and every request satisfied at a
    /// direct predecessor of `a`.
    fn frontier(&self, a: u32, k: u32, out: &mut BTreeSet<Candidate>) {
        let plan = &self.plan;
        let reaching = plan.reaching.get(&a).map_or(&[][..], Vec::as_slice);
        let direct = plan.steps.get(a as usize).map_or(&[][..], |s| &s.preds[..]);
        for &p in direct {
            for (e, j) in self.sat_of(p, k) {
                out.insert((a, e, a, j));
            }
        }
        for &n in reaching {
            let Some(step) = plan.steps.get(n as usize) else {
                continue;
            };
            for &p in &step.preds {
                for (e, j) in self.sat_of(p, k) {
                    if !self.sat_by(n, &e, k) {
                        out.insert((a, e, n, j));
                    }
                }
            }
        }
    }

    /// `(request, event)` of every satisfaction of step `s` at or before `k`.
    fn sat_of(&self, s: u32, k: u32) -> impl Iterator<Item = (Env, u32)> + '_ {
        self.sat
            .range((StepId(s), Env::EMPTY, EventIdx(0))..=(StepId(s), Env::MAX, EventIdx(u32::MAX)))
            .filter(move |(_, _, j)| j.0 <= k)
            .map(|&(_, e, j)| (e, j.0))
    }

    /// The reference's `SatBy(n, e, k)`: some predecessor of `n` is satisfied
    /// for `e` at `j <= k`, and `n` for an extension of `e` in `[j, k]`.
    fn sat_by(&self, n: u32, e: &Env, k: u32) -> bool {
        let Some(step) = self.plan.steps.get(n as usize) else {
            return false;
        };
        let earliest = step
            .preds
            .iter()
            .filter_map(|&p| {
                self.sat
                    .range((StepId(p), *e, EventIdx(0))..=(StepId(p), *e, EventIdx(u32::MAX)))
                    .map(|(_, _, j)| j.0)
                    .find(|&j| j <= k)
            })
            .min();
        let Some(from) = earliest else {
            return false;
        };
        self.sat_of(n, k)
            .any(|(e2, j2)| from <= j2 && e2.extends(e))
    }
}

/// An operand's value as the reference cites it: `(element, value)` pairs
/// in order, whether it is present, and the event a field was read at.
struct Seen {
    vals: Vec<(u32, Value)>,
    present: bool,
    read_at: Option<u32>,
}

struct Explainer<'a> {
    monitor: &'a Monitor,
    /// The blocked call's event.
    k: u32,
}

/// A step's evaluation points as the reference has them: a state step's
/// per environment (event 0 and the events that can change what its
/// criterion reads), or a call or result step's tool events, whose
/// environments are projected one event at a time when asked — so the
/// questions the explanation asks (the points at one event, the latest one
/// agreeing with a request, any in a range, a hold before an event) read
/// only the events they need, not every event of the tool.
enum Points<'a> {
    State(BTreeMap<Env, Vec<u32>>),
    Tool { step: u32, events: ToolEvents<'a> },
}

/// A tool's events in order, as `(event, call it shows)`.
#[derive(Clone, Copy)]
enum ToolEvents<'a> {
    /// Call events (each shows its own arguments).
    Calls(&'a [u32]),
    /// Successful results, with the call each answers.
    Results(&'a [(u32, u32)]),
}

impl ToolEvents<'_> {
    fn len(self) -> usize {
        match self {
            ToolEvents::Calls(list) => list.len(),
            ToolEvents::Results(list) => list.len(),
        }
    }

    fn get(self, i: usize) -> Option<(u32, u32)> {
        match self {
            ToolEvents::Calls(list) => list.get(i).map(|&k| (k, k)),
            ToolEvents::Results(list) => list.get(i).copied(),
        }
    }

    /// The index of the first event at or after `k`.
    fn first_from(self, k: u32) -> usize {
        match self {
            ToolEvents::Calls(list) => list.partition_point(|&e| e < k),
            ToolEvents::Results(list) => list.partition_point(|&(e, _)| e < k),
        }
    }
}

impl Points<'_> {
    /// The environments evaluated at event `at`.
    fn envs_at(&self, x: &Explainer<'_>, at: u32) -> Vec<Env> {
        match self {
            Points::State(map) => map
                .iter()
                .filter(|(_, pts)| pts.binary_search(&at).is_ok())
                .map(|(env, _)| *env)
                .collect(),
            Points::Tool { step, events } => {
                let i = events.first_from(at);
                match events.get(i) {
                    Some((k, call)) if k == at => x.tool_envs(*step, k, call),
                    _ => Vec::new(),
                }
            }
        }
    }

    /// The latest point at or before `upto` of an environment agreeing
    /// with `env`.
    fn latest_agreeing(&self, x: &Explainer<'_>, env: &Env, upto: u32) -> Option<u32> {
        match self {
            Points::State(map) => map
                .iter()
                .filter(|(p, _)| p.agrees(env))
                .filter_map(|(_, pts)| {
                    let n = pts.partition_point(|&k| k <= upto);
                    pts.get(n.checked_sub(1)?).copied()
                })
                .max(),
            Points::Tool { step, events } => {
                let end = events.first_from(upto.saturating_add(1));
                (0..end).rev().find_map(|i| {
                    let (k, call) = events.get(i)?;
                    x.tool_envs(*step, k, call)
                        .iter()
                        .any(|p| p.agrees(env))
                        .then_some(k)
                })
            }
        }
    }

    /// Whether any environment is evaluated at a point in `[from, to]`.
    fn any_between(&self, x: &Explainer<'_>, from: u32, to: u32) -> bool {
        match self {
            Points::State(map) => map.values().flatten().any(|&k| k >= from && k <= to),
            Points::Tool { step, events } => (events.first_from(from)..events.len())
                .map_while(|i| events.get(i).filter(|&(k, _)| k <= to))
                .any(|(k, call)| !x.tool_envs(*step, k, call).is_empty()),
        }
    }

    /// Whether check `root` held, under an environment agreeing with `env`,
    /// at one of these points before `before`.
    fn held_before(&self, x: &Explainer<'_>, root: Option<u32>, env: &Env, before: u32) -> bool {
        match self {
            Points::State(map) => map.iter().any(|(p, pts)| {
                p.agrees(env)
                    && pts
                        .iter()
                        .take_while(|&&k| k < before)
                        .any(|&k| x.holds(root, k, p))
            }),
            Points::Tool { step, events } => (0..events.first_from(before)).any(|i| {
                events.get(i).is_some_and(|(k, call)| {
                    x.tool_envs(*step, k, call)
                        .iter()
                        .any(|p| p.agrees(env) && x.holds(root, k, p))
                })
            }),
        }
    }
}

impl Explainer<'_> {
    fn ctx<'b>(&'b self, view: View<'b>, env: &'b Env) -> Ctx<'b> {
        Ctx {
            plan: &self.monitor.plan,
            state: view,
            env,
        }
    }

    fn step(&self, s: u32) -> Option<&super::plan::StepPlan> {
        self.monitor.plan.steps.get(s as usize)
    }

    /// The blocked call's argument at encoded path `path` (its first value).
    fn call_arg(&self, path: u32) -> Option<Value> {
        let p = self.monitor.plan.fact_path(path);
        self.monitor
            .state
            .arg_values(self.k, p)
            .next()
            .map(|(_, v)| v)
    }

    /// Picks the request that came closest and says why its path stopped;
    /// the ranking is the reference explainer's.
    fn blocked(&self, tool: Symbol, candidates: Vec<Candidate>) -> Violation {
        let event = self.k;
        let mut ranked: Vec<Ranked> = candidates
            .into_iter()
            .map(|(a, e, n, j)| {
                let (reason, failed) = self.classify(e, a, n, j);
                (a, e, n, reason, failed)
            })
            .collect();
        let mentioned: BTreeSet<Symbol> = self.monitor.state.call_strings(event).collect();
        let about = |e: &Env| e.bound().filter(|(_, s)| mentioned.contains(s)).count();
        let contradicts = |a: u32, e: &Env| {
            self.step(a).is_some_and(|step| {
                step.pins
                    .iter()
                    .any(|&(var, path)| match (e.get(var), self.call_arg(path)) {
                        (Some(bound), Some(Value::Str(s))) => bound != s,
                        _ => false,
                    })
            })
        };
        let would_bind = |a: u32, n: u32| {
            let pins = self.step(a).map_or(&[][..], |s| &s.pins[..]);
            let binds = self.step(n).map_or(0, |s| s.bind_mask);
            pins.iter().any(|(var, _)| binds & var.mask() != 0)
        };
        // Each key once per candidate (reachability walks the step graph).
        ranked.sort_by_cached_key(|candidate| {
            let (a, e, n, _, _) = candidate;
            let facts = RankFacts {
                reaches: self.reaches(*n, *a),
                contradicts: contradicts(*a, e),
                about: about(e),
                would_bind: would_bind(*a, *n),
                depth: self.step(*n).map_or(0, |s| s.depth),
            };
            rank_key(candidate, facts)
        });
        if let Some((a, e, n, _, _)) = ranked.first()
            && contradicts(*a, e)
            && let Some(unread) = self.known_but_unread(tool, *a, *n, e)
        {
            return unread;
        }
        Violation::explained(event, tool, ranked.into_iter().next(), |auth, env| {
            self.used_by(auth, env)
        })
    }

    /// The call names an entity (by a pinned argument) no request is about,
    /// though a read listed it: the read that would have bound it is missing.
    fn known_but_unread(&self, tool: Symbol, auth: u32, near: u32, env: &Env) -> Option<Violation> {
        let (var, value) = self.step(auth)?.pins.iter().find_map(|&(var, path)| {
            match (self.call_arg(path)?, env.get(var)) {
                (Value::Str(s), Some(bound)) if bound != s => Some((var, s)),
                _ => None,
            }
        })?;
        if !self.monitor.state.read_strings.contains(&value) {
            return None;
        }
        let steps = &self.monitor.plan.steps;
        let binder = (0..steps.len())
            .filter(|&i| steps.get(i).is_some_and(|s| s.bind_mask & var.mask() != 0))
            .filter(|&i| self.reaches(super::plan::to_u32(i), auth))
            .max_by_key(|&i| {
                (
                    steps.get(i).map_or(u32::MAX, |s| s.depth),
                    i == near as usize,
                )
            })?;
        Some(Violation {
            event: EventIdx(self.k),
            tool,
            request: env.without(var),
            unmet: Some(StepId(super::plan::to_u32(binder))),
            used_by: None,
            reason: Reason::MissingRead,
            failed: Vec::new(),
        })
    }

    /// Whether `to` is reachable from `from` along forward edges.
    fn reaches(&self, from: u32, to: u32) -> bool {
        let steps = &self.monitor.plan.steps;
        let mut seen = vec![false; steps.len()];
        let mut stack = vec![from];
        while let Some(s) = stack.pop() {
            if s == to {
                return true;
            }
            let Some(flag) = seen.get_mut(s as usize) else {
                continue;
            };
            if std::mem::replace(flag, true) {
                continue;
            }
            stack.extend(
                steps
                    .get(s as usize)
                    .into_iter()
                    .flat_map(|p| p.forward_succs.iter()),
            );
        }
        false
    }

    /// The latest earlier call the authorization `auth` allowed for a
    /// request agreeing with `env`.
    fn used_by(&self, auth: u32, env: &Env) -> Option<EventIdx> {
        self.monitor
            .sat_of(auth, self.k)
            .filter(|(e, j)| *j < self.k && e.agrees(env))
            .map(|(_, j)| EventIdx(j))
            .filter(|j| self.monitor.allowed.contains_key(j))
            .max()
    }

    fn classify(&self, env: Env, auth: u32, unmet: u32, pred: u32) -> (Reason, Vec<FailedAtom>) {
        let event = self.k;
        let Some(step) = self.step(unmet) else {
            return (Reason::MissingStep, Vec::new());
        };
        let judged_in_time = self
            .monitor
            .judged_log
            .range((unmet, env, pred)..=(unmet, env, event))
            .next()
            .is_some();
        if step.semantic && !judged_in_time {
            return (Reason::DialogueUnmet, Vec::new());
        }
        let points = self.points(unmet);
        let at = if unmet == auth {
            event
        } else {
            points.latest_agreeing(self, &env, event).unwrap_or(0)
        };
        let evaluated_env = points
            .envs_at(self, at)
            .into_iter()
            .filter(|p| p.agrees(&env))
            .min();
        let mut failed = Vec::new();
        if let Some(p) = evaluated_env
            && let Some(root) = step.root
        {
            self.collect_failed(root, at, &p, &mut failed);
        }
        if unmet == auth && evaluated_env.is_none() {
            return (Reason::Ungrounded, failed);
        }
        if unmet != auth {
            let evaluated_since = points.any_between(self, pred, event);
            if matches!(step.timing, Timing::Result(_)) && (!evaluated_since || failed.is_empty()) {
                return (Reason::MissingRead, failed);
            }
            // Where the step's root node held before the predecessor: at the
            // points of every step whose check evaluates that node (the
            // reference's `Holds` on the node), or only its own when another
            // step owns the node.
            let held_earlier = step.has_check
                && if step.evaluated_by.is_empty() {
                    points.held_before(self, step.root, &env, pred)
                } else {
                    step.evaluated_by.iter().any(|&t| {
                        let pts = if t == unmet {
                            None
                        } else {
                            Some(self.points(t))
                        };
                        pts.as_ref()
                            .unwrap_or(&points)
                            .held_before(self, step.root, &env, pred)
                    })
                };
            if held_earlier {
                return (Reason::OutOfOrder, failed);
            }
        }
        let evaluated = evaluated_env.unwrap_or(env);
        let reason = step
            .root
            .and_then(|root| {
                failing_reason(&self.monitor.plan.encoded, root, &failed, |atom| {
                    self.atom_reason(atom, at, &evaluated)
                })
            })
            .unwrap_or(if unmet == auth {
                Reason::WrongValue
            } else {
                Reason::MissingStep
            });
        (reason, failed)
    }

    fn holds(&self, root: Option<u32>, k: u32, env: &Env) -> bool {
        match root {
            None => true,
            Some(root) => self.ctx(self.monitor.state.at(k), env).holds(root),
        }
    }

    /// The reference's evaluation points of step `s` (see [`Points`]).
    fn points(&self, s: u32) -> Points<'_> {
        let Some(step) = self.step(s) else {
            return Points::State(BTreeMap::new());
        };
        let state = &self.monitor.state;
        match step.timing {
            Timing::State if !step.has_check => Points::State(BTreeMap::new()),
            Timing::State => {
                let root = step.root.unwrap_or(u32::MAX);
                Points::State(
                    projections(Env::EMPTY, step.key_mask, &state.candidates)
                        .into_iter()
                        .map(|env| (env, self.state_points(root, &env)))
                        .collect(),
                )
            }
            Timing::Call(tool) => Points::Tool {
                step: s,
                events: ToolEvents::Calls(state.tool_calls.get(&tool).map_or(&[], Vec::as_slice)),
            },
            Timing::Result(tool) => Points::Tool {
                step: s,
                events: ToolEvents::Results(
                    state.tool_results.get(&tool).map_or(&[], Vec::as_slice),
                ),
            },
        }
    }

    /// The environments call or result step `s` is evaluated for at its
    /// tool's event `k` (answering call `call`): the request bound there,
    /// projected over the candidates, narrowed to the request a pinned
    /// argument names. Empty when the event did not bind all the step binds.
    fn tool_envs(&self, s: u32, k: u32, call: u32) -> Vec<Env> {
        let Some(step) = self.step(s) else {
            return Vec::new();
        };
        let state = &self.monitor.state;
        let bound = state.binds_at.get(&(s, k)).copied().unwrap_or(Env::EMPTY);
        if !bound.binds_all(step.bind_mask) {
            return Vec::new();
        }
        let candidates = &state.candidates;
        let pinned: SmallVec<[(VarId, Symbol); 2]> = step
            .pins
            .iter()
            .filter_map(|&(var, path)| {
                let p = self.monitor.plan.fact_path(path);
                let mut values = state.arg_values(call, p).map(|(_, v)| v);
                match (values.next(), values.next()) {
                    (Some(Value::Str(v)), None)
                        if candidates.get(&var).is_some_and(|c| c.contains(&v)) =>
                    {
                        Some((var, v))
                    }
                    _ => None,
                }
            })
            .collect();
        pinned_projections(bound, step.key_mask, candidates, &pinned)
    }

    /// Event 0 and every event where the criterion under `root` may change
    /// value for `env` (all tool events where that cannot be narrowed).
    fn state_points(&self, root: u32, env: &Env) -> Vec<u32> {
        state_points(&self.monitor.plan.encoded, root, env, &self.monitor.state)
    }

    fn collect_failed(&self, c: u32, k: u32, env: &Env, out: &mut Vec<FailedAtom>) {
        let encoded = &self.monitor.plan.encoded;
        let ctx = self.ctx(self.monitor.state.at(k), env);
        for atom in failing_atoms(encoded, c, |n| ctx.holds(n)) {
            // Event predicates match by constraint, never by operand value:
            // the reference cites no values for them.
            let happened = matches!(
                encoded.cnodes.get(atom as usize),
                Some(CNode::Happened { .. })
            );
            let cited = atom_operands(encoded, atom)
                .into_iter()
                .map(|o| {
                    let seen = (!happened).then(|| self.seen(o, k, env));
                    Cited {
                        operand: OperandId(o),
                        values: seen
                            .as_ref()
                            .map(|s| s.vals.iter().map(|(_, v)| *v).collect())
                            .unwrap_or_default(),
                        read_at: seen.and_then(|s| s.read_at).map(EventIdx),
                    }
                })
                .collect();
            let consent = match encoded.cnodes.get(atom as usize) {
                Some(CNode::Confirmed {
                    set,
                    call,
                    items,
                    negated: false,
                }) => self
                    .ctx(self.monitor.state.at(k), env)
                    .consent(*set, *call, *items),
                _ => None,
            };
            out.push(FailedAtom {
                atom,
                cited,
                consent,
                condition: Condition::Formal,
            });
        }
    }

    /// Operand `o` as of event `k` under `env`.
    fn seen(&self, o: u32, k: u32, env: &Env) -> Seen {
        let view = self.monitor.state.at(k);
        let ctx = self.ctx(view, env);
        let value = ctx.operand(o);
        let present = value.present();
        let mut vals: Vec<(u32, Value)> = value.vals.into_iter().collect();
        vals.sort();
        vals.dedup();
        let read_at = match self.monitor.plan.encoded.onodes.get(o as usize) {
            Some(ONode::Field { entity, id, field }) => {
                let ids: SmallVec<[Value; 2]> = ctx
                    .operand(*id)
                    .vals
                    .iter()
                    .filter(|(el, _)| *el == SCALAR)
                    .map(|(_, v)| *v)
                    .collect();
                ids.iter()
                    .filter_map(|idv| match idv {
                        // An empty list read carries no element to cite a source for.
                        Value::Str(id) => view
                            .attr(*entity, *id, *field)
                            .filter(|l| !l.values.is_empty())
                            .map(|l| l.read_at),
                        _ => None,
                    })
                    .next()
            }
            _ => None,
        };
        Seen {
            vals,
            present,
            read_at,
        }
    }

    fn atom_reason(&self, atom: u32, k: u32, env: &Env) -> Reason {
        let plan = &self.monitor.plan;
        let encoded = &plan.encoded;
        let Some(node) = encoded.cnodes.get(atom as usize) else {
            return Reason::MissingStep;
        };
        let operands = atom_operands(encoded, atom);
        let happened = matches!(node, CNode::Happened { .. });
        let seen: Vec<Option<Seen>> = operands
            .iter()
            .map(|&o| (!happened).then(|| self.seen(o, k, env)))
            .collect();
        let missing: Vec<bool> = operands
            .iter()
            .zip(&seen)
            .map(|(o, s)| {
                !s.as_ref().is_some_and(|s| s.present)
                    && !matches!(encoded.onodes.get(*o as usize), Some(ONode::Const(_)))
            })
            .collect();
        reason_of(
            node,
            &operands,
            encoded,
            &missing,
            |tool| plan.is_gated(tool),
            |property| {
                seen.iter()
                    .flatten()
                    .any(|s| s.vals.iter().any(|(_, v)| property(v)))
            },
        )
    }
}

impl PointSource for super::state::State {
    fn field_reads(&self, entity: Symbol, id: Symbol, field: Symbol, out: &mut Vec<u32>) {
        out.extend(self.read_events(entity, id, field));
    }

    fn tool_events(&self, out: &mut Vec<u32>) {
        out.extend_from_slice(&self.tool_events);
    }

    fn turn_events(&self, out: &mut Vec<u32>) {
        out.extend(self.dialogue.turn_events());
    }

    fn first_reads(&self, out: &mut Vec<u32>) {
        out.extend(self.dialogue.first_reads());
    }

    fn filter_events(&self, filter: u32, key: Option<Value>, out: &mut Vec<u32>) {
        out.extend(
            super::state::State::filter_events(self, filter, key)
                .iter()
                .map(|&(ev, _)| ev),
        );
    }

    fn time_changes(&self, out: &mut Vec<u32>) {
        out.extend(super::state::State::time_changes(self, u32::MAX));
    }
}
