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
use crate::visit::{Visitor, atom_operands, walk_condition};

use super::inputs::{Inputs, pinned_vars, to_u32};
use super::result::{Cited, Derived, FailedAtom, RankFacts, Ranked, Reason, Violation, rank_key};
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
                let evaluated = evaluated.unwrap_or(*env);
                let reason = failing_reason(self.encoded, root, &failed, |atom| {
                    self.atom_reason(atom, event, &evaluated)
                })
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
        let would_bind = |a: u32, n: u32| {
            let root = self
                .inputs
                .step_roots
                .get(a as usize)
                .copied()
                .unwrap_or(u32::MAX);
            let binds = self.inputs.bind_masks.get(n as usize).copied().unwrap_or(0);
            pinned_vars(self.encoded, root)
                .iter()
                .any(|(var, _)| binds & var.mask() != 0)
        };
        ranked.sort_by_cached_key(|candidate| {
            let (a, e, n, _, _) = candidate;
            let facts = RankFacts {
                reaches: self.reaches(*n as usize, *a as usize),
                contradicts: contradicts(*a, e),
                about: about(e),
                would_bind: would_bind(*a, *n),
                depth: self.inputs.depth.get(*n as usize).copied().unwrap_or(0),
            };
            rank_key(candidate, facts)
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
        let evaluated = evaluated_env.unwrap_or(env);
        let reason = failing_reason(self.encoded, root, &failed, |atom| {
            self.atom_reason(atom, at, &evaluated)
        })
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
        for atom in failing_atoms(self.encoded, c, |n| self.derived.holds(n, EventIdx(k), env)) {
            let cited = atom_operands(self.encoded, atom)
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
            let consent = match self.encoded.cnodes.get(atom as usize) {
                Some(CNode::Confirmed { negated: false, .. }) => {
                    self.derived.consent(atom, EventIdx(k), env)
                }
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

    pub(super) fn atom_reason(&self, atom: u32, k: u32, env: &Env) -> Reason {
        let Some(node) = self.encoded.cnodes.get(atom as usize) else {
            return Reason::MissingStep;
        };
        let operands = atom_operands(self.encoded, atom);
        let missing: Vec<bool> = operands
            .iter()
            .map(|o| {
                !self.values.present.contains(&(*o, k, *env))
                    && !matches!(self.encoded.onodes.get(*o as usize), Some(ONode::Const(_)))
            })
            .collect();
        reason_of(
            node,
            &operands,
            self.encoded,
            &missing,
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
/// `missing` — per operand, whether it (not a constant) had no value: one
/// reading an entity field, however deep (a count over an unread list), is
/// a missing read; `gated` —
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
    missing: &[bool],
    gated: impl Fn(Symbol) -> bool,
    seen: impl Fn(fn(&Value) -> bool) -> bool,
) -> Reason {
    let kinds: Vec<&ONode> = operands
        .iter()
        .filter_map(|o| encoded.onodes.get(*o as usize))
        .collect();
    let has = |f: fn(&ONode) -> bool| kinds.iter().any(|n| f(n));
    let unread = operands
        .iter()
        .zip(missing)
        .any(|(&o, &m)| m && reads_a_field(encoded, o));
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
        _ if unread => Reason::MissingRead,
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

/// The atoms under condition `c` that fail, left to right: an `and` or `or`
/// that does not hold (`holds`) is descended into, an atom that does not
/// hold is listed. What both explainers cite for an unmet step.
pub(crate) fn failing_atoms(encoded: &Encoded, c: u32, holds: impl Fn(u32) -> bool) -> Vec<u32> {
    struct Failing<F> {
        holds: F,
        atoms: Vec<u32>,
    }
    impl<F: Fn(u32) -> bool> Visitor for Failing<F> {
        fn condition(&mut self, tree: &Encoded, c: u32) {
            if (self.holds)(c) {
                return;
            }
            match tree.cnodes.get(c as usize) {
                Some(CNode::And(..) | CNode::Or(..)) => walk_condition(self, tree, c),
                Some(CNode::True) | None => {}
                Some(_) => self.atoms.push(c),
            }
        }
    }
    let mut failing = Failing {
        holds,
        atoms: Vec::new(),
    };
    failing.condition(encoded, c);
    failing.atoms
}

/// Why the condition `c` fails, from the reasons (`atom_reason`) of its
/// failing atoms (`failed`, as [`failing_atoms`] lists them): the failing atom whose
/// reason comes first ([`Reason::precedence`]: a cause before its
/// consequences), except that of a disjunction's parts, those that require
/// a case the call is not in do not count while another part fails. A
/// guard states "in this case, the requirement" as `case does not apply ||
/// requirement`, and a call in that case fails the requirement, not the
/// case: "not a refund, or the refund's method confirmed" fails an
/// unconfirmed refund as `DialogueUnmet`, not as the `WrongValue` of being
/// a refund; of a table of cases (`cabin == "economy" && bags <= 1 || …`),
/// the rows of other cabins do not count. A part requires another case when
/// one of its failing conjuncts compares only the call's arguments with
/// constants ([`is_case_atom`]). `None` when `c` holds. The monitor and the
/// Datalog explainer share it.
pub(crate) fn failing_reason(
    encoded: &Encoded,
    c: u32,
    failed: &[FailedAtom],
    atom_reason: impl Fn(u32) -> Reason,
) -> Option<Reason> {
    let reason_if_failed = |atom: u32| {
        failed
            .iter()
            .any(|f| f.atom == atom)
            .then(|| atom_reason(atom))
    };
    failing_part(encoded, c, &reason_if_failed).map(|part| part.reason)
}

/// A failing part of a condition: the reason it is reported by, and
/// whether it requires a case the call is not in.
#[derive(Clone, Copy)]
struct FailingPart {
    reason: Reason,
    other_case: bool,
}

fn failing_part(
    encoded: &Encoded,
    c: u32,
    atom_reason: &impl Fn(u32) -> Option<Reason>,
) -> Option<FailingPart> {
    let first = |parts: &[FailingPart]| {
        parts
            .iter()
            .map(|part| part.reason)
            .min_by_key(|reason| reason.precedence())
    };
    let parts = |a: u32, b: u32| -> Vec<FailingPart> {
        [a, b]
            .into_iter()
            .filter_map(|part| failing_part(encoded, part, atom_reason))
            .collect()
    };
    match encoded.cnodes.get(c as usize) {
        Some(CNode::And(a, b)) => {
            let failing = parts(*a, *b);
            Some(FailingPart {
                reason: first(&failing)?,
                other_case: failing.iter().any(|part| part.other_case),
            })
        }
        Some(CNode::Or(a, b)) => {
            let failing = parts(*a, *b);
            let in_case: Vec<FailingPart> = failing
                .iter()
                .copied()
                .filter(|part| !part.other_case)
                .collect();
            Some(FailingPart {
                reason: first(if in_case.is_empty() {
                    &failing
                } else {
                    &in_case
                })?,
                other_case: in_case.is_empty(),
            })
        }
        Some(CNode::True) | None => None,
        Some(_) => atom_reason(c).map(|reason| FailingPart {
            reason,
            other_case: is_case_atom(encoded, c),
        }),
    }
}

/// Whether atom `c` compares only the call's arguments with constants
/// (`args.resolution != "refund_to_original"`, `args.cabin in [...]`): it
/// says which case the call is, nothing read or said.
fn is_case_atom(encoded: &Encoded, c: u32) -> bool {
    let kind = |o: &u32| encoded.onodes.get(*o as usize);
    let arg_or_const = |o: &u32| matches!(kind(o), Some(ONode::Arg(_) | ONode::Const(_)));
    let operands: Vec<u32> = match encoded.cnodes.get(c as usize) {
        Some(CNode::Cmp { lhs, rhs, .. }) => vec![*lhs, *rhs],
        Some(CNode::In { operand, .. }) => vec![*operand],
        _ => return false,
    };
    operands.iter().all(arg_or_const)
        && operands
            .iter()
            .any(|o| matches!(kind(o), Some(ONode::Arg(_))))
}

/// Whether operand `o` reads an entity field, itself or through the
/// operands it is made of.
fn reads_a_field(encoded: &Encoded, o: u32) -> bool {
    struct AnyField(bool);
    impl Visitor for AnyField {
        fn operand(&mut self, tree: &Encoded, o: u32) {
            if matches!(tree.onodes.get(o as usize), Some(ONode::Field { .. })) {
                self.0 = true;
            } else if !self.0 {
                crate::visit::walk_operand(self, tree, o);
            }
        }
    }
    let mut any = AnyField(false);
    any.operand(encoded, o);
    any.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{ArgPath, ArgStep, Check, CheckSet, Operand};

    const RESOLUTION: Symbol = Symbol(1);
    const PARCEL: Symbol = Symbol(2);
    const STATUS: Symbol = Symbol(3);

    fn arg(key: Symbol) -> Operand {
        Operand::Arg(ArgPath(vec![ArgStep::Key(key)]))
    }

    fn field(field: Symbol) -> Operand {
        Operand::Field {
            entity: PARCEL,
            id: Box::new(arg(PARCEL)),
            field,
        }
    }

    fn cmp(op: CmpOp, lhs: Operand, rhs: Operand) -> Check {
        Check::Compare { op, lhs, rhs }
    }

    fn text(s: u32) -> Operand {
        Operand::Const(Value::Str(Symbol(s)))
    }

    /// The reason of `check` when every atom fails but the comparisons
    /// with a constant among `holding`, each for the reason its kind
    /// gives: a consent `DialogueUnmet`, an ordering `AmountOutOfBounds`,
    /// any other comparison `WrongValue`.
    fn reason(check: Check, holding: &[u32]) -> Option<Reason> {
        let mut checks = CheckSet::default();
        checks.push(check);
        let encoded = Encoded::new(&checks);
        let holds = |atom: u32| match &encoded.cnodes[atom as usize] {
            CNode::Cmp { lhs, rhs, .. } => [lhs, rhs].into_iter().any(|&o| {
                matches!(&encoded.onodes[o as usize],
                    ONode::Const(Value::Str(s)) if holding.contains(&s.0))
            }),
            _ => false,
        };
        fn eval(encoded: &Encoded, c: u32, atom_holds: &dyn Fn(u32) -> bool) -> bool {
            match &encoded.cnodes[c as usize] {
                CNode::And(a, b) => eval(encoded, *a, atom_holds) && eval(encoded, *b, atom_holds),
                CNode::Or(a, b) => eval(encoded, *a, atom_holds) || eval(encoded, *b, atom_holds),
                CNode::True => true,
                CNode::False => false,
                _ => atom_holds(c),
            }
        }
        let root = encoded.roots[0];
        let failed: Vec<FailedAtom> = failing_atoms(&encoded, root, |c| eval(&encoded, c, &holds))
            .into_iter()
            .map(|atom| FailedAtom {
                atom,
                cited: Vec::new(),
                consent: None,
                condition: Condition::Formal,
            })
            .collect();
        failing_reason(&encoded, root, &failed, |atom| {
            match &encoded.cnodes[atom as usize] {
                CNode::Confirmed { .. } => Reason::DialogueUnmet,
                CNode::Cmp { op, .. } if op.is_ordering() => Reason::AmountOutOfBounds,
                _ => Reason::WrongValue,
            }
        })
    }

    #[test]
    fn a_disjunction_is_reported_by_what_fails_beyond_the_calls_case() {
        let not_a_refund = cmp(CmpOp::Ne, arg(RESOLUTION), text(10));
        let confirmed = Check::Confirmed {
            values: vec![arg(PARCEL)],
            call: Vec::new(),
            items: Vec::new(),
        };
        // "Not a refund, or confirmed": a refund fails its confirmation.
        assert_eq!(
            reason(
                Check::Any(vec![not_a_refund.clone(), confirmed.clone()]),
                &[]
            ),
            Some(Reason::DialogueUnmet)
        );
        // A conjunction keeps the first reason: being a refund is wrong
        // when the guard requires it not to be.
        assert_eq!(
            reason(Check::All(vec![not_a_refund.clone(), confirmed]), &[]),
            Some(Reason::WrongValue)
        );
        // A case read from the data is no case of the call: the earlier
        // reason of the two stands.
        let not_shipped = cmp(CmpOp::Ne, field(STATUS), text(11));
        let within = cmp(CmpOp::Le, arg(RESOLUTION), field(STATUS));
        assert_eq!(
            reason(Check::Any(vec![not_shipped, within.clone()]), &[]),
            Some(Reason::AmountOutOfBounds)
        );
        // A table of cases: the rows of other cases do not count; the
        // call's own row fails on its consent.
        let row = |case: u32, data: Check| {
            Check::All(vec![cmp(CmpOp::Eq, arg(RESOLUTION), text(case)), data])
        };
        let table = Check::Any(vec![
            row(12, cmp(CmpOp::Eq, field(STATUS), text(13))),
            row(
                14,
                Check::Confirmed {
                    values: vec![arg(PARCEL)],
                    call: Vec::new(),
                    items: Vec::new(),
                },
            ),
            row(15, within),
        ]);
        assert_eq!(reason(table.clone(), &[14]), Some(Reason::DialogueUnmet));
        assert_eq!(
            reason(table.clone(), &[15]),
            Some(Reason::AmountOutOfBounds)
        );
        // In no row's case: the earliest reason of all (the bound).
        assert_eq!(reason(table, &[]), Some(Reason::AmountOutOfBounds));
        // Only cases failing: the case is the reason.
        assert_eq!(
            reason(Check::Any(vec![not_a_refund.clone(), not_a_refund]), &[]),
            Some(Reason::WrongValue)
        );
        assert_eq!(reason(Check::Const(true), &[]), None);
    }
}
