//! Encodes the check IR as Datalog input facts: every check tree in negation
//! normal form (so the rule program needs negation only against lower strata)
//! with binary `and`/`or` nodes, and every operand as a numbered node.

use crate::ids::OperandId;
use hashbrown::HashMap;

use crate::facts::Speaker;
use crate::intern::Symbol;
use crate::ir::{
    AggOp, ArgPath, ArithOp, Check, CheckId, CheckSet, CmpOp, EventFilter, Operand, Outcome, VarId,
};
use crate::value::Value;

/// A check node in negation normal form.
#[derive(Clone, Debug, PartialEq)]
pub enum CNode {
    /// Always holds.
    True,
    /// Never holds.
    False,
    /// Both nodes hold.
    And(u32, u32),
    /// Either node holds.
    Or(u32, u32),
    /// `negated`: some element pair fails (or a length differs), instead of all hold.
    Cmp {
        /// The comparison.
        op: CmpOp,
        /// Left operand node.
        lhs: u32,
        /// Right operand node.
        rhs: u32,
        /// Whether the node holds when the comparison fails instead.
        negated: bool,
    },
    /// The operand is one of a set's members.
    In {
        /// The operand node.
        operand: u32,
        /// Index into [`Encoded::sets`].
        set: u32,
        /// Whether the node holds when the operand is in none instead.
        negated: bool,
    },
    /// Every element of `item` is in `list`.
    Contains {
        /// The item operand node.
        item: u32,
        /// The list operand node.
        list: u32,
        /// Whether the node holds when some element is missing instead.
        negated: bool,
    },
    /// A past call matches a filter.
    Happened {
        /// Index into [`Encoded::filters`].
        filter: u32,
        /// Whether the node holds when no call matches instead.
        negated: bool,
    },
    /// Every value of `operand` is named in a turn of `speaker` so far.
    Said {
        /// Whose turns.
        speaker: Speaker,
        /// The operand node.
        operand: u32,
        /// Whether the node holds when some value is not named instead.
        negated: bool,
    },
    /// The user confirmed a summary naming every value of the set's operands.
    Confirmed {
        /// Index into [`Encoded::sets`]: the operand nodes.
        set: u32,
        /// Index into [`Encoded::sets`]: the call's other arguments naming
        /// records or literals ([`Check::Confirmed`]'s `call`), if any.
        call: Option<u32>,
        /// Index into [`Encoded::item_groups`]: the call's items
        /// ([`Check::Confirmed`]'s `items`), if any.
        items: Option<u32>,
        /// Whether the node holds when there is no such confirmation instead.
        negated: bool,
    },
}

#[derive(Clone, Debug, PartialEq)]
/// An operand node: where a value comes from.
pub enum ONode {
    /// A literal value.
    Const(Value),
    /// A request variable's bound symbol.
    Var(VarId),
    /// An argument of the call being decided (index into [`Encoded::arg_paths`]).
    Arg(u32),
    /// The latest read value of `entity[id].field`.
    Field {
        /// The entity type.
        entity: Symbol,
        /// The operand node giving the entity id.
        id: u32,
        /// The field read.
        field: Symbol,
    },
    /// `zero` is the sum of an empty list, typed like its elements.
    Agg {
        /// The aggregation.
        op: AggOp,
        /// The list operand node aggregated.
        inner: u32,
        /// The sum of an empty list, typed like its elements.
        zero: Value,
    },
    /// How many past calls match a filter under a key.
    Count {
        /// Index into [`Encoded::filters`].
        filter: u32,
        /// The operand node giving the key its first `==` constraint compares.
        key: u32,
    },
    /// How many elements of a list equal a value.
    CountEqual {
        /// The list operand node.
        inner: u32,
        /// The operand node counted.
        value: u32,
    },
    /// The time of the event being decided.
    Now,
    /// Integer, amount or time arithmetic.
    Arith {
        /// The operation.
        op: ArithOp,
        /// Left operand node.
        lhs: u32,
        /// Right operand node.
        rhs: u32,
    },
}

#[derive(Clone, Debug, PartialEq)]
/// An encoded event filter.
pub struct FilterNode {
    /// The tool whose calls match.
    pub tool: Symbol,
    /// Every call, or only successful ones.
    pub outcome: Outcome,
    /// `(argument path index, comparison, operand node)` constraints.
    pub constraints: Vec<(u32, CmpOp, u32)>,
}

/// The encoded program input for one [`CheckSet`].
#[derive(Clone, Debug, Default)]
pub struct Encoded {
    /// Check nodes; a check's root is in [`Encoded::roots`].
    pub cnodes: Vec<CNode>,
    /// Operand nodes.
    pub onodes: Vec<ONode>,
    /// Literal sets of operand nodes (for `in`).
    pub sets: Vec<Vec<u32>>,
    /// Per `confirmed(...)` with items, the sets (into [`Encoded::sets`])
    /// of each list's field operands.
    pub item_groups: Vec<Vec<u32>>,
    /// Event filters.
    pub filters: Vec<FilterNode>,
    /// Argument paths by index (operands and filter constraints refer to them).
    pub arg_paths: Vec<ArgPath>,
    /// Root node of each check, by [`CheckId`].
    pub roots: Vec<u32>,
    /// Variables each check's root reads, as a bit mask.
    pub var_masks: Vec<u32>,
    /// For count operands: the key operand is a constant `true` when the
    /// filter has no constraint.
    pub count_keys: Vec<(u32, Option<(u32, u32)>)>,
}

impl Encoded {
    /// Encodes every check of `checks`, in [`CheckId`] order.
    pub fn new(checks: &CheckSet) -> Encoded {
        let mut encoded = Encoded::default();
        let mut paths: HashMap<ArgPath, u32> = HashMap::new();
        for (_, check) in checks.iter() {
            let mut mask = 0;
            let root = encoded.check(check, false, &mut paths, &mut mask);
            encoded.roots.push(root);
            encoded.var_masks.push(mask);
        }
        encoded
    }

    /// Encodes one more operand (outside any check), reusing the paths
    /// already numbered; returns its node.
    pub fn encode_operand(&mut self, operand: &Operand) -> OperandId {
        let mut paths: HashMap<ArgPath, u32> = self
            .arg_paths
            .iter()
            .enumerate()
            .map(|(i, p)| (p.clone(), index(i)))
            .collect();
        let mut mask = 0;
        OperandId(self.operand(operand, &mut paths, &mut mask))
    }

    /// The root node of check `id`.
    pub fn root(&self, id: CheckId) -> Option<u32> {
        self.roots.get(id.0 as usize).copied()
    }

    /// The variables check `id` reads, as a bit mask.
    pub fn mask(&self, id: CheckId) -> u32 {
        self.var_masks.get(id.0 as usize).copied().unwrap_or(0)
    }

    fn push_c(&mut self, node: CNode) -> u32 {
        self.cnodes.push(node);
        index(self.cnodes.len() - 1)
    }

    fn push_o(&mut self, node: ONode) -> u32 {
        self.onodes.push(node);
        index(self.onodes.len() - 1)
    }

    fn path(&mut self, path: &ArgPath, paths: &mut HashMap<ArgPath, u32>) -> u32 {
        if let Some(&i) = paths.get(path) {
            return i;
        }
        self.arg_paths.push(path.clone());
        let i = index(self.arg_paths.len() - 1);
        paths.insert(path.clone(), i);
        i
    }

    fn check(
        &mut self,
        check: &Check,
        negated: bool,
        paths: &mut HashMap<ArgPath, u32>,
        mask: &mut u32,
    ) -> u32 {
        match check {
            Check::Const(b) => self.push_c(if *b != negated {
                CNode::True
            } else {
                CNode::False
            }),
            Check::Not(inner) => self.check(inner, !negated, paths, mask),
            Check::All(items) | Check::Any(items) => {
                // De Morgan: a negated conjunction is a disjunction of negations.
                let conjunction = matches!(check, Check::All(_)) != negated;
                let mut nodes: Vec<u32> = items
                    .iter()
                    .map(|c| self.check(c, negated, paths, mask))
                    .collect();
                let Some(mut acc) = nodes.pop() else {
                    return self.push_c(if conjunction {
                        CNode::True
                    } else {
                        CNode::False
                    });
                };
                while let Some(next) = nodes.pop() {
                    acc = self.push_c(if conjunction {
                        CNode::And(next, acc)
                    } else {
                        CNode::Or(next, acc)
                    });
                }
                acc
            }
            Check::Compare { op, lhs, rhs } => {
                let (lhs, rhs) = (
                    self.operand(lhs, paths, mask),
                    self.operand(rhs, paths, mask),
                );
                self.push_c(CNode::Cmp {
                    op: *op,
                    lhs,
                    rhs,
                    negated,
                })
            }
            Check::OneOf { operand, set } => {
                let operand = self.operand(operand, paths, mask);
                let members = set.iter().map(|m| self.operand(m, paths, mask)).collect();
                self.sets.push(members);
                let set = index(self.sets.len() - 1);
                self.push_c(CNode::In {
                    operand,
                    set,
                    negated,
                })
            }
            Check::Contains { item, list } => {
                let (item, list) = (
                    self.operand(item, paths, mask),
                    self.operand(list, paths, mask),
                );
                self.push_c(CNode::Contains {
                    item,
                    list,
                    negated,
                })
            }
            Check::Happened(filter) => {
                let filter = self.filter(filter, paths, mask);
                self.push_c(CNode::Happened { filter, negated })
            }
            Check::Said { speaker, value } => {
                let operand = self.operand(value, paths, mask);
                self.push_c(CNode::Said {
                    speaker: *speaker,
                    operand,
                    negated,
                })
            }
            Check::Confirmed {
                values,
                call,
                items,
            } => {
                let members = values
                    .iter()
                    .map(|m| self.operand(m, paths, mask))
                    .collect();
                self.sets.push(members);
                let set = index(self.sets.len() - 1);
                let call = (!call.is_empty()).then(|| {
                    let members = call.iter().map(|m| self.operand(m, paths, mask)).collect();
                    self.sets.push(members);
                    index(self.sets.len() - 1)
                });
                let items = (!items.is_empty()).then(|| {
                    let groups = items
                        .iter()
                        .map(|fields| {
                            let members = fields
                                .iter()
                                .map(|m| self.operand(m, paths, mask))
                                .collect();
                            self.sets.push(members);
                            index(self.sets.len() - 1)
                        })
                        .collect();
                    self.item_groups.push(groups);
                    index(self.item_groups.len() - 1)
                });
                self.push_c(CNode::Confirmed {
                    set,
                    call,
                    items,
                    negated,
                })
            }
        }
    }

    fn filter(
        &mut self,
        filter: &EventFilter,
        paths: &mut HashMap<ArgPath, u32>,
        mask: &mut u32,
    ) -> u32 {
        let constraints = filter
            .constraints
            .iter()
            .map(|c| {
                (
                    self.path(&c.path, paths),
                    c.op,
                    self.operand(&c.value, paths, mask),
                )
            })
            .collect();
        self.filters.push(FilterNode {
            tool: filter.tool,
            outcome: filter.outcome,
            constraints,
        });
        index(self.filters.len() - 1)
    }

    fn operand(
        &mut self,
        operand: &Operand,
        paths: &mut HashMap<ArgPath, u32>,
        mask: &mut u32,
    ) -> u32 {
        let node = match operand {
            Operand::Const(v) => ONode::Const(*v),
            Operand::Var(v) => {
                *mask |= v.mask();
                ONode::Var(*v)
            }
            Operand::Arg(path) => ONode::Arg(self.path(path, paths)),
            Operand::Field { entity, id, field } => {
                let id = self.operand(id, paths, mask);
                ONode::Field {
                    entity: *entity,
                    id,
                    field: *field,
                }
            }
            Operand::Aggregate { op, of } => {
                let inner = self.operand(of, paths, mask);
                ONode::Agg {
                    op: *op,
                    inner,
                    zero: Value::Int(0),
                }
            }
            Operand::CountEqual { of, value } => {
                let (inner, value) = (
                    self.operand(of, paths, mask),
                    self.operand(value, paths, mask),
                );
                ONode::CountEqual { inner, value }
            }
            Operand::CountEvents(filter) => {
                let key = match filter.constraints.first() {
                    Some(c) => self.operand(&c.value, paths, mask),
                    None => self.push_o(ONode::Const(Value::Bool(true))),
                };
                let filter_index = self.filter(filter, paths, mask);
                ONode::Count {
                    filter: filter_index,
                    key,
                }
            }
            Operand::Arith { op, lhs, rhs } => {
                let (lhs, rhs) = (
                    self.operand(lhs, paths, mask),
                    self.operand(rhs, paths, mask),
                );
                ONode::Arith { op: *op, lhs, rhs }
            }
            Operand::Now => ONode::Now,
        };
        self.push_o(node)
    }
}

fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negation_is_pushed_to_the_leaves() {
        let mut checks = CheckSet::default();
        let cmp = |v| Check::Compare {
            op: CmpOp::Eq,
            lhs: Operand::Var(VarId(v)),
            rhs: Operand::Const(Value::Int(1)),
        };
        checks.push(Check::Not(Box::new(Check::All(vec![cmp(0), cmp(2)]))));
        let encoded = Encoded::new(&checks);
        let root = encoded.roots[0] as usize;
        assert!(matches!(encoded.cnodes[root], CNode::Or(..)));
        let negated = encoded
            .cnodes
            .iter()
            .filter(|c| matches!(c, CNode::Cmp { negated: true, .. }))
            .count();
        assert_eq!(negated, 2);
        assert_eq!(encoded.var_masks[0], 0b101);
    }
}
