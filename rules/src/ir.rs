//! The check IR: typed, name-resolved boolean expressions over request
//! variables, latest-read entity fields, the arguments of the call being
//! decided, and the events that happened before it.
//!
//! List semantics (so one expression covers "every item" and "paired items"):
//! an operand over a list argument (`args.item_ids[*]`) or a list field yields
//! a list; comparing a list with a scalar requires every element to compare;
//! comparing two lists compares them pairwise and requires equal length.

use serde::{Deserialize, Serialize};

use crate::facts::Speaker;
use crate::intern::Symbol;
use crate::value::Value;

/// Index of a check in its [`CheckSet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CheckId(pub u32);

/// Index of a request variable (`$order`) in its bundle's variable table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct VarId(pub u32);

impl VarId {
    /// This variable's bit in a variable mask (none past bit 31).
    pub fn mask(self) -> u32 {
        1u32.checked_shl(self.0).unwrap_or(0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
/// A comparison operator.
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    /// Whether the operator orders its operands (`<`, `<=`, `>`, `>=`).
    pub fn is_ordering(self) -> bool {
        !matches!(self, CmpOp::Eq | CmpOp::Ne)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
/// An aggregation over a list.
pub enum AggOp {
    /// The sum (an empty list sums to zero).
    Sum,
    /// The number of elements.
    Count,
    /// The smallest element.
    Min,
    /// The largest element.
    Max,
}

impl AggOp {
    /// The aggregation's name as written.
    pub fn name(self) -> &'static str {
        match self {
            AggOp::Sum => "sum",
            AggOp::Count => "count",
            AggOp::Min => "min",
            AggOp::Max => "max",
        }
    }
}

/// One step of a path into call arguments: `.name`, `[3]`, `[*]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ArgStep {
    /// `.name`: an object key.
    Key(Symbol),
    /// `[3]`: a list index.
    Index(u32),
    /// `[*]`: every element of a list.
    Each,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
/// A path into call arguments.
pub struct ArgPath(pub Vec<ArgStep>);

impl ArgPath {
    /// Whether the path yields a list (it has a `[*]`).
    pub fn yields_list(&self) -> bool {
        self.0.contains(&ArgStep::Each)
    }
}

/// Whether an event predicate counts every call or only successful ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// Every call of the tool.
    Called,
    /// Only calls whose result succeeded.
    Succeeded,
}

/// Calls of one tool, strictly before the event being decided, whose
/// arguments satisfy every constraint.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EventFilter {
    /// The tool whose calls match.
    pub tool: Symbol,
    /// Every call, or only successful ones.
    pub outcome: Outcome,
    /// Constraints on the call's arguments.
    pub constraints: Vec<ArgConstraint>,
}

/// `name == operand` inside an event predicate: a constraint on that past
/// call's argument, compared with an operand evaluated now.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ArgConstraint {
    /// The argument of the past call.
    pub path: ArgPath,
    /// The comparison.
    pub op: CmpOp,
    /// The operand compared with, evaluated now.
    pub value: Operand,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
/// A value a check reads.
pub enum Operand {
    /// A literal value.
    Const(Value),
    /// A request variable bound earlier in the conversation.
    Var(VarId),
    /// `entity[id].field`: the latest successfully read value.
    Field {
        /// The entity type.
        entity: Symbol,
        /// The entity id.
        id: Box<Operand>,
        /// The field read.
        field: Symbol,
    },
    /// An argument of the call being decided.
    Arg(ArgPath),
    /// `sum`, `count`, `min` or `max` of a list.
    Aggregate {
        /// The aggregation.
        op: AggOp,
        /// The list aggregated.
        of: Box<Operand>,
    },
    /// How many elements of a list equal a value (`count(list, value)`).
    CountEqual {
        /// The list.
        of: Box<Operand>,
        /// The value counted.
        value: Box<Operand>,
    },
    /// How many past calls match the filter (at most one `==` constraint,
    /// against a variable or a constant).
    CountEvents(EventFilter),
    /// `now()`: the time the event being decided happened at, as the
    /// session's clock gives it (absent when no time is known: every check
    /// on it fails closed).
    Now,
    /// `lhs + rhs`, `lhs - rhs` or `lhs * rhs` on numbers (amount
    /// differences), and on times (an instant shifted by a duration, the
    /// duration between two instants).
    Arith {
        /// The operation.
        op: ArithOp,
        /// Left operand.
        lhs: Box<Operand>,
        /// Right operand.
        rhs: Box<Operand>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
/// An arithmetic operator.
pub enum ArithOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// At least one side an integer: amount × count stays exact.
    Mul,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
/// A boolean condition over operands and past events.
pub enum Check {
    /// Always true or always false.
    Const(bool),
    /// `lhs op rhs` (element-wise over lists).
    Compare {
        /// The comparison.
        op: CmpOp,
        /// Left operand.
        lhs: Operand,
        /// Right operand.
        rhs: Operand,
    },
    /// Membership in a literal list; `in enum(name)` lowers to this too.
    OneOf {
        /// The operand tested.
        operand: Operand,
        /// The allowed values.
        set: Vec<Operand>,
    },
    /// `item in list` where the list is itself an operand (a list field or
    /// list argument); a list-valued item requires every element contained.
    Contains {
        /// The item (every element when a list).
        item: Operand,
        /// The list searched.
        list: Operand,
    },
    /// Holds when the check does not (three-valued: an unknown stays unknown).
    Not(Box<Check>),
    /// Every check holds.
    All(Vec<Check>),
    /// Some check holds.
    Any(Vec<Check>),
    /// At least one past call matches the filter.
    Happened(EventFilter),
    /// `said(user, x)` / `said(agent, x)`: the value (every element of a
    /// list) is named in some turn of that speaker up to this event.
    Said {
        /// Whose turns are searched.
        speaker: Speaker,
        /// The value looked for.
        value: Operand,
    },
    /// `confirmed(x, ...)`: the user's explicit yes answers the last agent
    /// turn that asked for a decision and named every value (every element
    /// of every list), and no user turn since refused, withdrew or
    /// qualified it (nor, after the yes, asked for another action).
    Confirmed {
        /// The values the summary must name.
        values: Vec<Operand>,
        /// The call's other arguments that name records or enum literals
        /// (consent at a write only): a request naming, in place of one of
        /// them, another record or literal of its kind is no summary of
        /// this call.
        call: Vec<Operand>,
        /// The call's items (consent at a write only): per list of the
        /// call whose elements pair values (a list of objects; lists side
        /// by side), the operands of its fields, each a list whose `i`th
        /// element belongs to item `i`. A request laying out items segment
        /// by segment that pairs one item's value with another's is no
        /// summary of this call.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        items: Vec<Vec<Operand>>,
    },
}

/// Every check of a compiled bundle, addressed by [`CheckId`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckSet {
    checks: Vec<Check>,
}

impl CheckSet {
    /// Adds a check; returns its id.
    pub fn push(&mut self, check: Check) -> CheckId {
        let id = CheckId(u32::try_from(self.checks.len()).unwrap_or(u32::MAX));
        self.checks.push(check);
        id
    }

    /// The check `id`.
    pub fn get(&self, id: CheckId) -> Option<&Check> {
        self.checks.get(id.0 as usize)
    }

    /// The number of checks.
    pub fn len(&self) -> usize {
        self.checks.len()
    }

    /// Whether there are no checks.
    pub fn is_empty(&self) -> bool {
        self.checks.is_empty()
    }

    /// Every check with its id, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (CheckId, &Check)> {
        self.checks
            .iter()
            .enumerate()
            .map(|(i, c)| (CheckId(u32::try_from(i).unwrap_or(u32::MAX)), c))
    }
}
