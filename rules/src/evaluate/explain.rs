//! Explains what the program derived: for an unauthorized call, the request
//! whose path came closest, the first unmet step on it, the reason and the
//! failing conditions with the values read.

use std::collections::BTreeSet;

use hashbrown::{HashMap, HashSet};

use crate::consent::Condition;
use crate::encode::{CNode, Encoded, ONode};
use crate::env::Env;
use crate::facts::TraceFacts;
use crate::intern::Symbol;
use crate::ir::CmpOp;
use crate::program::{self};
use crate::steps::{CompiledChecks, Protection, StepId, Timing};
use crate::value::Value;

use super::inputs::{Inputs, pinned_vars, to_u32};
use super::result::{Cited, Derived, FailedAtom, Ranked, Reason, Violation};
use crate::ids::{EventIdx, OperandId};

/// Operand values by (operand, event, env), for explanations.
pub(super) struct ValueIndex {
    pub(super) values: HashMap<(u32, u32, Env), Vec<(u32, Value)>>,
    pub(super) sources: HashMap<(u32, u32, Env), u32>,
    pub(super) present: HashSet<(u32, u32, Env)>,
}

impl ValueIndex {
    pub(super) fn new(
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

pub(super) struct Explainer<'a> {
    pub(super) checks: &'a CompiledChecks,
    pub(super) facts: &'a TraceFacts,
    pub(super) encoded: &'a Encoded,
    pub(super) inputs: &'a Inputs,
    pub(super) derived: &'a Derived,
    pub(super) values: &'a ValueIndex,
}

impl Explainer<'_> {
    /// Explains the protected read at `event` that no identification
    /// permitted ([`unpermitted_read`]).
    pub(super) fn unpermitted_read(&self, event: u32, tool: Symbol) -> Violation {
        unpermitted_read(
            &self.checks.protections,
            self.encoded,
            event,
            tool,
            |step| {
                self.derived
                    .sat
                    .range((step, Env::EMPTY, EventIdx(0))..=(step, Env::MAX, EventIdx(event)))
                    .filter(|(_, _, j)| j.0 <= event)
                    .map(|&(_, e, _)| e)
                    .collect()
            },
            |root, env| {
                let (failed, evaluated) = self.failed_atoms(root, event, env);
                let reason = failed
                    .iter()
                    .map(|f| self.atom_reason(f.atom, event, &evaluated.unwrap_or(*env)))
                    .min_by_key(|r| r.precedence())
                    .unwrap_or(Reason::WrongValue);
                (reason, failed)
            },
        )
    }

    pub(super) fn unguarded(&self, event: u32) -> Option<Violation> {
        let tool = self.facts.calls.iter().find(|c| c.event.0 == event)?.tool;
        Some(Violation {
            event: EventIdx(event),
            tool,
            request: Env::EMPTY,
            unmet: None,
            used_by: None,
            reason: Reason::NoAuthorization,
            failed: Vec::new(),
        })
    }

    /// Picks the request that came closest (most bindings, deepest unmet
    /// step, and — among equals — one the call's arguments are about rather
    /// than one it is ungrounded for) and says why its path stopped.
    pub(super) fn blocked(
        &self,
        event: u32,
        tool: Symbol,
        candidates: Vec<(u32, Env, u32, u32)>,
    ) -> Violation {
        let bound = |e: &Env| e.bound_count();
        let mut ranked: Vec<Ranked> = candidates
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
            .filter(|a| a.call.0 == event)
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
                                .find(|x| x.call.0 == event && x.path == p)
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
        Violation::explained(event, tool, ranked.into_iter().next(), |auth, env| {
            self.used_by(auth, event, env)
        })
    }

    /// The call names an entity (by a pinned argument) that no request is
    /// about, though a read did list it (the user's own reservation, seen in
    /// their profile): the read that would have bound it is missing. `None`
    /// when nothing read mentions the value — then it is ungrounded.
    pub(super) fn known_but_unread(
        &self,
        event: u32,
        auth: u32,
        near: u32,
        env: &Env,
    ) -> Option<Violation> {
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
                        .find(|x| x.call.0 == event && x.path == p)?;
                    match (arg.value, env.get(var)) {
                        (Value::Str(s), Some(bound)) if bound != s => Some((var, s)),
                        _ => None,
                    }
                })?;
        let listed = self
            .facts
            .attrs
            .iter()
            .any(|a| a.value == Value::Str(value) && a.from.0 <= event);
        if !listed {
            return None;
        }
        // The deepest step upstream of the authorization that binds the variable.
        let binder = (0..self.checks.steps.len())
            .filter(|&i| {
                self.inputs
                    .bind_masks
                    .get(i)
                    .is_some_and(|m| m & var.mask() != 0)
            })
            .filter(|&i| self.reaches(i, auth as usize))
            .max_by_key(|&i| {
                (
                    self.inputs.depth.get(i).copied().unwrap_or(u32::MAX),
                    i == near as usize,
                )
            })?;
        let request = env.without(var);
        Some(Violation {
            event: EventIdx(event),
            tool: self.facts.calls.iter().find(|c| c.event.0 == event)?.tool,
            request,
            unmet: Some(StepId(to_u32(binder))),
            used_by: None,
            reason: Reason::MissingRead,
            failed: Vec::new(),
        })
    }

    /// Whether step `to` can be reached from step `from` along the workflow
    /// without taking a loop's back edge (a finished request returning to
    /// the classifier): a path to an authorization that goes around such a
    /// loop belongs to another request type.
    pub(super) fn reaches(&self, from: usize, to: usize) -> bool {
        let mut seen = vec![false; self.checks.steps.len()];
        let mut stack = vec![from];
        while let Some(s) = stack.pop() {
            if s == to {
                return true;
            }
            // A step outside the graph has no edges to follow.
            let Some(flag) = seen.get_mut(s) else {
                continue;
            };
            if std::mem::replace(flag, true) {
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

    pub(super) fn classify(
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
        let root = self
            .inputs
            .step_roots
            .get(unmet as usize)
            .copied()
            .unwrap_or(u32::MAX);
        let judged_in_time = self
            .facts
            .judged
            .iter()
            .any(|&(s, e, k)| s.0 == unmet && e == env && k.0 >= pred_evidence && k.0 <= event);
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
            let evaluated_since = self
                .inputs
                .points
                .get(unmet as usize)
                .map_or(&[][..], Vec::as_slice)
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

    /// The latest earlier call that the authorization step `auth` allowed
    /// for a request agreeing with `env`.
    fn used_by(&self, auth: u32, event: u32, env: &Env) -> Option<EventIdx> {
        self.derived
            .sat
            .iter()
            .filter(|(s, e, k)| s.0 == auth && k.0 < event && e.agrees(env))
            .map(|&(_, _, k)| k)
            .filter(|k| self.derived.allowed.contains_key(k))
            .max()
    }

    /// The latest evaluation point of `step`, under an env agreeing with
    /// `env`, at or before `event`.
    pub(super) fn last_point(&self, step: u32, event: u32, env: &Env) -> u32 {
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
    pub(super) fn envs_at(&self, root: u32, k: u32, env: &Env) -> Vec<Env> {
        self.inputs
            .eval_at
            .range((root, k, Env::EMPTY)..=(root, k, Env::MAX))
            .filter(|(_, _, e)| e.agrees(env))
            .map(|&(_, _, e)| e)
            .collect()
    }

    /// The failing atoms of `root` at `k`, and the environment it was evaluated in.
    pub(super) fn failed_atoms(
        &self,
        root: u32,
        k: u32,
        env: &Env,
    ) -> (Vec<FailedAtom>, Option<Env>) {
        let envs = self.envs_at(root, k, env);
        let Some(p) = envs.first() else {
            return (Vec::new(), None);
        };
        let mut out = Vec::new();
        self.collect_failed(root, k, p, &mut out);
        (out, Some(*p))
    }

    pub(super) fn collect_failed(&self, c: u32, k: u32, env: &Env, out: &mut Vec<FailedAtom>) {
        if self.derived.holds(c, EventIdx(k), env) {
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
                        operand: OperandId(o),
                        values: self
                            .values
                            .values
                            .get(&(o, k, *env))
                            .map(|vs| vs.iter().map(|(_, v)| *v).collect())
                            .unwrap_or_default(),
                        read_at: self
                            .values
                            .sources
                            .get(&(o, k, *env))
                            .copied()
                            .map(EventIdx),
                    })
                    .collect();
                out.push(FailedAtom {
                    atom: c,
                    cited,
                    condition: Condition::Formal,
                });
            }
        }
    }

    pub(super) fn atom_reason(&self, atom: u32, k: u32, env: &Env) -> Reason {
        let Some(node) = self.encoded.cnodes.get(atom as usize) else {
            return Reason::MissingStep;
        };
        let operands = atom_operands(node, self.encoded);
        let missing = operands.iter().any(|o| {
            !self.values.present.contains(&(*o, k, *env))
                && !matches!(self.encoded.onodes.get(*o as usize), Some(ONode::Const(_)))
        });
        reason_of(
            node,
            &operands,
            self.encoded,
            missing,
            |tool| self.checks.gated_tools.contains(&tool),
            |property| {
                operands.iter().any(|o| {
                    self.values
                        .values
                        .get(&(*o, k, *env))
                        .is_some_and(|vs| vs.iter().any(|(_, v)| property(v)))
                })
            },
        )
    }
}

/// Explains an agent's call of protected read `tool` at `event` that no
/// identification permitted. The first request (protections, then their
/// `after` steps, in bundle order; requests in order) that satisfied an
/// `after` step by then explains it by its guard: the guard's failed atoms
/// and their reason (`guard_failed(root, bindings)`), or `NotIdentified`
/// when that request did not bind what the guard reads. With no such
/// request the read came before any identification: `NotIdentified` at the
/// first `after` step. `identified(step)`: the requests that satisfied
/// `step` by `event`, in order. The monitor and the Datalog explainer share
/// it.
pub(crate) fn unpermitted_read(
    protections: &[Protection],
    encoded: &Encoded,
    event: u32,
    tool: Symbol,
    identified: impl Fn(StepId) -> Vec<Env>,
    guard_failed: impl Fn(u32, &Env) -> (Reason, Vec<FailedAtom>),
) -> Violation {
    let violation = |request, unmet, reason, failed| Violation {
        event: EventIdx(event),
        tool,
        request,
        unmet,
        used_by: None,
        reason,
        failed,
    };
    let mut first_after = None;
    for protection in protections.iter().filter(|p| p.tool == tool) {
        first_after = first_after.or(protection.after.first().copied());
        for &step in &protection.after {
            let Some(request) = identified(step).into_iter().next() else {
                continue;
            };
            let Some(guard) = protection.guard else {
                continue;
            };
            let mask = encoded.mask(guard);
            let Some(root) = encoded.root(guard).filter(|_| request.binds_all(mask)) else {
                return violation(request, Some(step), Reason::NotIdentified, Vec::new());
            };
            let (reason, failed) = guard_failed(root, &request.project(mask));
            return violation(request, None, reason, failed);
        }
    }
    violation(Env::EMPTY, first_after, Reason::NotIdentified, Vec::new())
}

/// Why a failed atom blocks, from its kind and its operands' kinds:
/// `missing` — an operand other than a constant had no value; `gated` —
/// whether a tool is gated (a required past call of a read tool is a missing
/// read); `seen` — whether some compared value has a property (numbers: an
/// argument that does not match what was read is an amount out of bounds
/// rather than ungrounded; dates, times and durations: a comparison of them
/// is a window the value falls outside). The monitor and the Datalog
/// explainer share it.
pub(crate) fn reason_of(
    node: &CNode,
    operands: &[u32],
    encoded: &Encoded,
    missing: bool,
    gated: impl Fn(Symbol) -> bool,
    seen: impl Fn(fn(&Value) -> bool) -> bool,
) -> Reason {
    let kinds: Vec<&ONode> = operands
        .iter()
        .filter_map(|o| encoded.onodes.get(*o as usize))
        .collect();
    let has = |f: fn(&ONode) -> bool| kinds.iter().any(|n| f(n));
    match node {
        CNode::Happened {
            filter,
            negated: false,
        } => match encoded.filters.get(*filter as usize) {
            Some(f) if !gated(f.tool) => Reason::MissingRead,
            _ => Reason::MissingStep,
        },
        CNode::Happened { .. } => Reason::MissingStep,
        CNode::Said { .. } | CNode::Confirmed { .. } => Reason::DialogueUnmet,
        _ if has(|n| matches!(n, ONode::Count { .. })) => Reason::TooManyCalls,
        _ if missing && has(|n| matches!(n, ONode::Field { .. })) => Reason::MissingRead,
        CNode::Cmp { op, .. }
            if op.is_ordering()
                && (has(|n| matches!(n, ONode::Now))
                    || seen(|v| {
                        matches!(v, Value::Date(_) | Value::DateTime(_) | Value::Duration(_))
                    })) =>
        {
            Reason::OutOfWindow
        }
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
            if seen(|v| matches!(v, Value::Int(_) | Value::Amount(_))) {
                Reason::AmountOutOfBounds
            } else {
                Reason::Ungrounded
            }
        }
        _ => Reason::WrongValue,
    }
}

/// The operand nodes an atom compares or looks up.
pub(crate) fn atom_operands(node: &CNode, encoded: &Encoded) -> Vec<u32> {
    match *node {
        CNode::Cmp { lhs, rhs, .. } => vec![lhs, rhs],
        CNode::In { operand, set, .. } => {
            let mut v = vec![operand];
            v.extend(encoded.sets.get(set as usize).cloned().unwrap_or_default());
            v
        }
        CNode::Contains { item, list, .. } => vec![item, list],
        CNode::Said { operand, .. } => vec![operand],
        CNode::Confirmed { set, .. } => encoded.sets.get(set as usize).cloned().unwrap_or_default(),
        CNode::Happened { filter, .. } => encoded
            .filters
            .get(filter as usize)
            .map(|f| f.constraints.iter().map(|&(_, _, o)| o).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}
