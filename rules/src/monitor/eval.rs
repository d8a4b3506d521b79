//! The check interpreter of the incremental monitor: evaluates encoded check
//! and operand nodes against the monitor's current state, with exactly the
//! three-valued semantics of the Datalog rules in [`crate::program`] (an
//! operand that is absent or has a missing list element makes every atom on
//! it false, negated or not).

use smallvec::SmallVec;

use crate::encode::{CNode, ONode};
use crate::env::Env;
use crate::evaluate::{ConsentFailure, ConsentOutcome};
use crate::facts::SCALAR;
use crate::ir::{AggOp, CmpOp};
use crate::program::{arith, compare};
use crate::value::Value;

use super::dialogue::ItemFields;
use super::plan::Plan;
use super::state::View;

/// An operand's value at one event under one request: `(element, value)`
/// pairs (`SCALAR` for a scalar) and, for lists, their length(s).
#[derive(Clone, Debug, Default)]
pub struct OpVal {
    pub vals: SmallVec<[(u32, Value); 4]>,
    pub lens: SmallVec<[u32; 1]>,
}

impl OpVal {
    fn scalar(value: Value) -> Self {
        let mut out = OpVal::default();
        out.vals.push((SCALAR, value));
        out
    }

    pub(super) fn present(&self) -> bool {
        !self.lens.is_empty() || self.vals.iter().any(|(el, _)| *el == SCALAR)
    }

    /// A list whose length is known but some element is not.
    fn elem_missing(&self) -> bool {
        self.lens
            .iter()
            .any(|&n| (0..n).any(|el| !self.vals.iter().any(|(e, _)| *e == el)))
    }

    /// Present and complete: the precondition of every atom.
    fn ready(&self) -> bool {
        self.present() && !self.elem_missing()
    }

    fn at(&self, el: u32) -> Option<Value> {
        self.vals.iter().find(|(e, _)| *e == el).map(|(_, v)| *v)
    }

    fn scalars(&self) -> impl Iterator<Item = Value> + '_ {
        self.vals
            .iter()
            .filter(|(el, _)| *el == SCALAR)
            .map(|(_, v)| *v)
    }
}

/// Evaluation context: the event and the call whose arguments are visible.
pub struct Ctx<'a> {
    pub plan: &'a Plan,
    pub state: View<'a>,
    pub env: &'a Env,
}

impl Ctx<'_> {
    /// Whether check node `c` holds.
    pub fn holds(&self, c: u32) -> bool {
        let Some(node) = self.plan.encoded.cnodes.get(c as usize) else {
            return false;
        };
        match *node {
            CNode::True => true,
            CNode::False => false,
            CNode::And(l, r) => self.holds(l) && self.holds(r),
            CNode::Or(l, r) => self.holds(l) || self.holds(r),
            CNode::Cmp {
                op,
                lhs,
                rhs,
                negated,
            } => {
                let (l, r) = (self.operand(lhs), self.operand(rhs));
                if !(l.ready() && r.ready()) {
                    return false;
                }
                let pair_fails = l.vals.iter().any(|(i, a)| {
                    r.vals
                        .iter()
                        .any(|(j, b)| pairs(*i, *j) && !compare(op, a, b))
                });
                let len_differs = l.lens.iter().any(|n| r.lens.iter().any(|m| n != m));
                (pair_fails || len_differs) == negated
            }
            CNode::In {
                operand,
                set,
                negated,
            } => {
                let o = self.operand(operand);
                if !o.ready() {
                    return false;
                }
                let members: SmallVec<[Value; 8]> = self
                    .set_members(set)
                    .flat_map(|m| self.operand(m).vals.into_iter().map(|(_, v)| v))
                    .collect();
                let fails = o.vals.iter().any(|(_, v)| !members.contains(v));
                fails == negated
            }
            CNode::Contains {
                item,
                list,
                negated,
            } => {
                let (i, l) = (self.operand(item), self.operand(list));
                if !(i.ready() && l.ready()) {
                    return false;
                }
                let fails = i
                    .vals
                    .iter()
                    .any(|(_, v)| !l.vals.iter().any(|(el, w)| *el != SCALAR && w == v));
                fails == negated
            }
            CNode::Happened { filter, negated } => match self.happened(filter) {
                Some(any) => any != negated,
                None => false,
            },
            CNode::Said {
                speaker,
                operand,
                negated,
            } => {
                let o = self.operand(operand);
                if !o.ready() {
                    return false;
                }
                let k = self.state.event();
                let fails = o
                    .vals
                    .iter()
                    .any(|(_, v)| !self.state.dialogue().said(speaker, *v, k));
                fails == negated
            }
            CNode::Confirmed {
                set,
                call,
                items,
                negated,
            } => self
                .consent(set, call, items)
                .is_some_and(|c| (c.outcome == ConsentOutcome::Affirmative) != negated),
        }
    }

    /// How the user answered the request for a decision that
    /// `confirmed(...)` over the operands of `set` reads, at this event,
    /// the call's other arguments being those of `call`; `None` while an
    /// operand of `set` is not ready (the check fails closed).
    pub fn consent(
        &self,
        set: u32,
        call: Option<u32>,
        items: Option<u32>,
    ) -> Option<ConsentFailure> {
        let mut values: SmallVec<[Value; 8]> = SmallVec::new();
        for member in self.set_members(set) {
            let o = self.operand(member);
            if !o.ready() {
                return None;
            }
            values.extend(o.vals.into_iter().map(|(_, v)| v));
        }
        // An argument the call does not carry names nothing to rival; away
        // from a call no argument is read. They are read only for a request
        // that could be the summary, so most checks never evaluate them.
        let call = call.filter(|_| self.state.args_visible().is_some());
        let others = || {
            let mut others: SmallVec<[Value; 4]> = SmallVec::new();
            for member in call.into_iter().flat_map(|call| self.set_members(call)) {
                let o = self.operand(member);
                if o.ready() {
                    others.extend(o.vals.into_iter().map(|(_, v)| v));
                }
            }
            others
        };
        let items = items.filter(|_| self.state.args_visible().is_some());
        let item_fields = || {
            let groups = items
                .and_then(|i| self.plan.encoded.item_groups.get(i as usize))
                .map_or(&[][..], Vec::as_slice);
            groups
                .iter()
                .map(|&group| {
                    self.set_members(group)
                        .map(|m| (m, self.operand(m)))
                        .collect::<ItemFields>()
                })
                .collect::<Vec<ItemFields>>()
        };
        let k = self.state.event();
        Some(
            self.state
                .dialogue()
                .consent(&values, others, item_fields, k),
        )
    }

    /// The operand nodes of the encoded set `set` (none for an unknown set).
    fn set_members(&self, set: u32) -> impl Iterator<Item = u32> + '_ {
        self.plan
            .encoded
            .sets
            .get(set as usize)
            .into_iter()
            .flatten()
            .copied()
    }

    /// The value of a constraint operand: constants, and bound variables.
    fn key_value(&self, o: u32) -> Option<Value> {
        match self.plan.encoded.onodes.get(o as usize)? {
            ONode::Const(v) => Some(*v),
            ONode::Var(var) => self.env.get(*var).map(Value::Str),
            _ => None,
        }
    }

    /// Whether an event matching `filter` happened by now; `None` when a
    /// constraint's value is not available under this request.
    fn happened(&self, filter: u32) -> Option<bool> {
        let f = self.plan.encoded.filters.get(filter as usize)?;
        let mut keys: SmallVec<[Value; 4]> = SmallVec::new();
        for &(_, _, o) in &f.constraints {
            keys.push(self.key_value(o)?);
        }
        let key = f
            .constraints
            .iter()
            .position(|&(_, op, _)| op == CmpOp::Eq)
            .and_then(|i| keys.get(i).copied());
        let candidates = self.state.filter_events(filter, key);
        Some(candidates.iter().any(|&(_, call)| {
            f.constraints.iter().zip(&keys).all(|(&(p, op, _), b)| {
                let path = self.plan.fact_path(p);
                let mut values = self.state.arg_values(call, path).peekable();
                values.peek().is_some() && values.all(|(_, a)| compare(op, &a, b))
            })
        }))
    }

    /// The value(s) of operand node `o`.
    pub fn operand(&self, o: u32) -> OpVal {
        let Some(node) = self.plan.encoded.onodes.get(o as usize) else {
            return OpVal::default();
        };
        match *node {
            ONode::Const(v) => OpVal::scalar(v),
            ONode::Var(var) => self
                .env
                .get(var)
                .map(|s| OpVal::scalar(Value::Str(s)))
                .unwrap_or_default(),
            ONode::Arg(p) => {
                let mut out = OpVal::default();
                if let Some(call) = self.state.args_visible() {
                    let path = self.plan.fact_path(p);
                    out.vals.extend(self.state.arg_values(call, path));
                    out.lens.extend(self.state.arg_len(call, path));
                }
                out
            }
            ONode::Field { entity, id, field } => {
                let ids = self.operand(id);
                let mut out = OpVal::default();
                for &(el, idv) in &ids.vals {
                    let Value::Str(id) = idv else { continue };
                    let Some(latest) = self.state.attr(entity, id, field) else {
                        continue;
                    };
                    if el == SCALAR {
                        out.vals.extend(latest.elements());
                        if latest.is_list {
                            out.lens.push(latest.len());
                        }
                    } else if !latest.is_list
                        && let Some(v) = latest.values.first()
                    {
                        out.vals.push((el, *v));
                    }
                }
                out.lens.extend(ids.lens.iter().copied());
                out
            }
            ONode::Agg { op, inner, zero } => {
                let inner = self.operand(inner);
                let mut out = OpVal::default();
                for &n in &inner.lens {
                    let value = match op {
                        AggOp::Count => Some(Value::Int(i64::from(n))),
                        _ if n == 0 => (op == AggOp::Sum).then_some(zero),
                        _ => fold(&inner, n, op),
                    };
                    out.vals.extend(value.map(|v| (SCALAR, v)));
                }
                out
            }
            ONode::Count { filter, key } => {
                let mut out = OpVal::default();
                let Some(kv) = self.key_value(key) else {
                    return out;
                };
                let unconstrained = self
                    .plan
                    .encoded
                    .filters
                    .get(filter as usize)
                    .is_some_and(|f| f.constraints.is_empty());
                let events = self
                    .state
                    .filter_events(filter, (!unconstrained).then_some(kv));
                let n = u32::try_from(events.len()).unwrap_or(u32::MAX);
                out.vals.push((SCALAR, Value::Int(i64::from(n))));
                out
            }
            ONode::CountEqual { inner, value } => {
                let (inner, target) = (self.operand(inner), self.operand(value));
                let mut out = OpVal::default();
                for &n in &inner.lens {
                    if n == 0 {
                        out.vals.push((SCALAR, Value::Int(0)));
                        continue;
                    }
                    for t in target.scalars() {
                        let mut count = 0i64;
                        let complete = (0..n).all(|el| match inner.at(el) {
                            Some(v) => {
                                count += i64::from(compare(CmpOp::Eq, &v, &t));
                                true
                            }
                            None => false,
                        });
                        if complete {
                            out.vals.push((SCALAR, Value::Int(count)));
                        }
                    }
                }
                out
            }
            ONode::Now => self
                .state
                .now()
                .map(|t| OpVal::scalar(Value::DateTime(t)))
                .unwrap_or_default(),
            ONode::Arith { op, lhs, rhs } => {
                let (l, r) = (self.operand(lhs), self.operand(rhs));
                let mut out = OpVal::default();
                for a in l.scalars() {
                    for b in r.scalars() {
                        out.vals.extend(arith(op, a, b).map(|v| (SCALAR, v)));
                    }
                }
                out
            }
        }
    }
}

/// Left fold of elements `0..n` with `op` (sum, min, max); `None` when an
/// element is missing or a sum overflows.
fn fold(inner: &OpVal, n: u32, op: AggOp) -> Option<Value> {
    let mut acc = inner.at(0)?;
    for el in 1..n {
        let next = inner.at(el)?;
        acc = match op {
            AggOp::Sum => arith(crate::ir::ArithOp::Add, acc, next)?,
            AggOp::Min if compare(CmpOp::Le, &acc, &next) => acc,
            AggOp::Max if compare(CmpOp::Ge, &acc, &next) => acc,
            AggOp::Min | AggOp::Max | AggOp::Count => next,
        };
    }
    Some(acc)
}

fn pairs(i: u32, j: u32) -> bool {
    i == j || i == SCALAR || j == SCALAR
}
