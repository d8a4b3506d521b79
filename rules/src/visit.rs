//! One walk over encoded check trees ([`Encoded`]): a [`Visitor`] is told
//! of every condition, operand and event filter under a root, and descends
//! into each one's children by default. An override that does not call the
//! matching `walk_*` function prunes that subtree; one that calls it first
//! or last chooses pre- or post-order.
//!
//! Every walk that needs what a check reads — the evaluation points of a
//! criterion, the failing atoms of an explanation, a guard's pinned
//! arguments, the values a coverage witness must try — is a visitor, so no
//! code matches the node kinds a second time to find its way down, and none
//! reads a check's serialized form.
//!
//! Children are encoded before their parents ([`Encoded::new`]), so a walk
//! follows only edges to lower indices: a malformed tree built by hand ends
//! rather than cycles.

use crate::encode::{CNode, Encoded, ONode};

/// What a walk over encoded check nodes does at each node. Each method's
/// default descends into the node's children (`walk_*`).
pub trait Visitor {
    /// Condition node `c` of `tree`.
    fn condition(&mut self, tree: &Encoded, c: u32) {
        walk_condition(self, tree, c);
    }

    /// Operand node `o` of `tree`.
    fn operand(&mut self, tree: &Encoded, o: u32) {
        walk_operand(self, tree, o);
    }

    /// Event filter `f` of `tree` (of a `happened` condition or a `count`).
    fn filter(&mut self, tree: &Encoded, f: u32) {
        walk_filter(self, tree, f);
    }
}

/// Visits the children of condition `c`: both sides of `and`/`or`, the
/// operands an atom compares or names (a set's members included), the
/// filter of an event predicate.
pub fn walk_condition<V: Visitor + ?Sized>(visitor: &mut V, tree: &Encoded, c: u32) {
    let below = |child: u32| child < c;
    match tree.cnodes.get(c as usize) {
        Some(CNode::And(l, r) | CNode::Or(l, r)) => {
            for child in [*l, *r].into_iter().filter(|&n| below(n)) {
                visitor.condition(tree, child);
            }
        }
        Some(CNode::Cmp { lhs, rhs, .. }) => {
            visitor.operand(tree, *lhs);
            visitor.operand(tree, *rhs);
        }
        Some(CNode::Contains { item, list, .. }) => {
            visitor.operand(tree, *item);
            visitor.operand(tree, *list);
        }
        Some(CNode::In { operand, set, .. }) => {
            visitor.operand(tree, *operand);
            for &member in set_members(tree, *set) {
                visitor.operand(tree, member);
            }
        }
        Some(CNode::Said { operand, .. }) => visitor.operand(tree, *operand),
        // The call's other arguments and its items are the call's own,
        // read at it: no operand the condition cites.
        Some(CNode::Confirmed { set, .. }) => {
            for &member in set_members(tree, *set) {
                visitor.operand(tree, member);
            }
        }
        Some(CNode::Happened { filter, .. }) => visitor.filter(tree, *filter),
        Some(CNode::True | CNode::False) | None => {}
    }
}

/// Visits the children of operand `o`: a field's id, an aggregate's list,
/// both sides of arithmetic, a count's key and filter.
pub fn walk_operand<V: Visitor + ?Sized>(visitor: &mut V, tree: &Encoded, o: u32) {
    let child = |visitor: &mut V, n: u32| {
        if n < o {
            visitor.operand(tree, n);
        }
    };
    match tree.onodes.get(o as usize) {
        Some(ONode::Field { id, .. }) => child(visitor, *id),
        Some(ONode::Agg { inner, .. }) => child(visitor, *inner),
        Some(ONode::CountEqual { inner, value }) => {
            child(visitor, *inner);
            child(visitor, *value);
        }
        Some(ONode::Arith { lhs, rhs, .. }) => {
            child(visitor, *lhs);
            child(visitor, *rhs);
        }
        Some(ONode::Count { filter, key }) => {
            child(visitor, *key);
            visitor.filter(tree, *filter);
        }
        Some(ONode::Const(_) | ONode::Var(_) | ONode::Arg(_) | ONode::Now) | None => {}
    }
}

/// Visits the operands filter `f`'s constraints compare a past call's
/// arguments with.
pub fn walk_filter<V: Visitor + ?Sized>(visitor: &mut V, tree: &Encoded, f: u32) {
    let Some(filter) = tree.filters.get(f as usize) else {
        return;
    };
    for &(_, _, operand) in &filter.constraints {
        visitor.operand(tree, operand);
    }
}

/// The operand nodes of set `set` (empty for an index out of range).
pub fn set_members(tree: &Encoded, set: u32) -> &[u32] {
    tree.sets.get(set as usize).map_or(&[], Vec::as_slice)
}

/// The operand nodes condition `c` compares, names or looks up itself (a
/// set's members, an event filter's constraint values), without descending
/// into them: what an explanation cites for a failed atom.
pub fn atom_operands(tree: &Encoded, c: u32) -> Vec<u32> {
    struct Direct(Vec<u32>);
    impl Visitor for Direct {
        fn operand(&mut self, _: &Encoded, o: u32) {
            self.0.push(o);
        }
    }
    let mut direct = Direct(Vec::new());
    if !matches!(
        tree.cnodes.get(c as usize),
        Some(CNode::And(..) | CNode::Or(..))
    ) {
        walk_condition(&mut direct, tree, c);
    }
    direct.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intern::Symbol;
    use crate::ir::{
        ArgConstraint, ArgPath, ArgStep, Check, CheckSet, CmpOp, EventFilter, Operand, Outcome,
        VarId,
    };
    use crate::value::Value;

    /// Counts the nodes of each kind a default walk reaches.
    #[derive(Default)]
    struct Census {
        conditions: usize,
        operands: usize,
        filters: usize,
        fields: Vec<Symbol>,
    }

    impl Visitor for Census {
        fn condition(&mut self, tree: &Encoded, c: u32) {
            self.conditions += 1;
            walk_condition(self, tree, c);
        }
        fn operand(&mut self, tree: &Encoded, o: u32) {
            self.operands += 1;
            if let Some(ONode::Field { field, .. }) = tree.onodes.get(o as usize) {
                self.fields.push(*field);
            }
            walk_operand(self, tree, o);
        }
        fn filter(&mut self, tree: &Encoded, f: u32) {
            self.filters += 1;
            walk_filter(self, tree, f);
        }
    }

    fn field(entity: u32, id: Operand, name: u32) -> Operand {
        Operand::Field {
            entity: Symbol(entity),
            id: Box::new(id),
            field: Symbol(name),
        }
    }

    #[test]
    fn the_default_walk_reaches_every_node_under_a_root() {
        let mut checks = CheckSet::default();
        let filter = EventFilter {
            tool: Symbol(9),
            outcome: Outcome::Succeeded,
            constraints: vec![ArgConstraint {
                path: ArgPath(vec![ArgStep::Key(Symbol(4))]),
                op: CmpOp::Eq,
                value: Operand::Var(VarId(0)),
            }],
        };
        let id = checks.push(Check::All(vec![
            Check::Not(Box::new(Check::Compare {
                op: CmpOp::Eq,
                lhs: field(1, Operand::Var(VarId(0)), 2),
                rhs: Operand::Const(Value::Int(1)),
            })),
            Check::Any(vec![
                Check::Happened(filter.clone()),
                Check::Compare {
                    op: CmpOp::Lt,
                    lhs: Operand::CountEvents(filter),
                    rhs: Operand::Const(Value::Int(2)),
                },
            ]),
            Check::Confirmed {
                values: vec![field(1, Operand::Arg(ArgPath::default()), 3)],
                call: Vec::new(),
                items: Vec::new(),
            },
        ]));
        let tree = Encoded::new(&checks);
        let mut census = Census::default();
        census.condition(&tree, tree.root(id).unwrap());
        // and(cmp, and(or(happened, cmp), confirmed)): 7 conditions.
        assert_eq!(census.conditions, 7);
        assert_eq!(census.filters, 2);
        assert_eq!(census.fields, vec![Symbol(2), Symbol(3)]);
        // field + its id, const; the happened filter's $0; count, its key
        // and its filter's $0, const; field + its id.
        assert_eq!(census.operands, 10);
    }

    #[test]
    fn an_override_that_does_not_walk_prunes() {
        struct TopLevel(usize);
        impl Visitor for TopLevel {
            fn condition(&mut self, tree: &Encoded, c: u32) {
                self.0 += 1;
                if matches!(tree.cnodes.get(c as usize), Some(CNode::And(..))) {
                    walk_condition(self, tree, c);
                }
            }
            fn operand(&mut self, _: &Encoded, _: u32) {
                panic!("pruned at the atoms");
            }
        }
        let mut checks = CheckSet::default();
        let cmp = |v| Check::Compare {
            op: CmpOp::Eq,
            lhs: Operand::Var(VarId(v)),
            rhs: Operand::Const(Value::Int(1)),
        };
        let id = checks.push(Check::All(vec![cmp(0), cmp(1), cmp(2)]));
        let tree = Encoded::new(&checks);
        let mut top = TopLevel(0);
        top.condition(&tree, tree.root(id).unwrap());
        assert_eq!(top.0, 5);
    }

    #[test]
    fn a_hand_built_cycle_ends() {
        let tree = Encoded {
            cnodes: vec![CNode::And(0, 1), CNode::Or(0, 1)],
            onodes: vec![ONode::Field {
                entity: Symbol(0),
                id: 0,
                field: Symbol(0),
            }],
            ..Encoded::default()
        };
        let mut census = Census::default();
        census.condition(&tree, 1);
        census.operand(&tree, 0);
        assert_eq!((census.conditions, census.operands), (2, 1));
    }

    #[test]
    fn atom_operands_are_the_atoms_own() {
        let mut checks = CheckSet::default();
        let id = checks.push(Check::OneOf {
            operand: field(1, Operand::Var(VarId(0)), 2),
            set: vec![Operand::Const(Value::Int(1)), Operand::Const(Value::Int(2))],
        });
        let tree = Encoded::new(&checks);
        let root = tree.root(id).unwrap();
        let operands = atom_operands(&tree, root);
        assert_eq!(operands.len(), 3);
        assert!(matches!(
            tree.onodes[operands[0] as usize],
            ONode::Field { .. }
        ));
    }
}
