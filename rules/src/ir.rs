//! The check IR: typed, name-resolved boolean expressions over request
//! variables, latest-read entity fields, the arguments of the call being
//! decided, and the events that happened before it.
//!
//! List semantics (so one expression covers "every item" and "paired items"):
//! an operand over a list argument (`args.item_ids[*]`) or a list field yields
//! a list; comparing a list with a scalar requires every element to compare;
//! comparing two lists compares them pairwise and requires equal length.

use serde::{Deserialize, Serialize};

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
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
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

    pub fn is_ordering(self) -> bool {
        !matches!(self, CmpOp::Eq | CmpOp::Ne)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AggOp {
    Sum,
    Count,
    Min,
    Max,
}

impl AggOp {
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
    Key(Symbol),
    Index(u32),
    Each,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct ArgPath(pub Vec<ArgStep>);

impl ArgPath {
    pub fn yields_list(&self) -> bool {
        self.0.contains(&ArgStep::Each)
    }
}

/// Whether an event predicate counts every call or only successful ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    Called,
    Succeeded,
}

/// Calls of one tool, strictly before the event being decided, whose
/// arguments satisfy every constraint.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EventFilter {
    pub tool: Symbol,
    pub outcome: Outcome,
    pub constraints: Vec<ArgConstraint>,
}

/// `name == operand` inside an event predicate: a constraint on that past
/// call's argument, compared with an operand evaluated now.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ArgConstraint {
    pub path: ArgPath,
    pub op: CmpOp,
    pub value: Operand,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Operand {
    Const(Value),
    /// A request variable bound earlier in the conversation.
    Var(VarId),
    /// `entity[id].field`: the latest successfully read value.
    Field {
        entity: Symbol,
        id: Box<Operand>,
        field: Symbol,
    },
    /// An argument of the call being decided.
    Arg(ArgPath),
    Aggregate {
        op: AggOp,
        of: Box<Operand>,
    },
    /// How many elements of a list equal a value (`count(list, value)`).
    CountEqual {
        of: Box<Operand>,
        value: Box<Operand>,
    },
    /// How many past calls match the filter (at most one `==` constraint,
    /// against a variable or a constant).
    CountEvents(EventFilter),
    /// `lhs + rhs` or `lhs - rhs` on numbers (amount differences).
    Arith {
        op: ArithOp,
        lhs: Box<Operand>,
        rhs: Box<Operand>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ArithOp {
    Add,
    Sub,
    /// At least one side an integer: amount × count stays exact.
    Mul,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Check {
    Const(bool),
    Compare {
        op: CmpOp,
        lhs: Operand,
        rhs: Operand,
    },
    /// Membership in a literal list; `in enum(name)` lowers to this too.
    OneOf {
        operand: Operand,
        set: Vec<Operand>,
    },
    /// `item in list` where the list is itself an operand (a list field or
    /// list argument); a list-valued item requires every element contained.
    Contains {
        item: Operand,
        list: Operand,
    },
    Not(Box<Check>),
    All(Vec<Check>),
    Any(Vec<Check>),
    /// At least one past call matches the filter.
    Happened(EventFilter),
}

/// Every check of a compiled bundle, addressed by [`CheckId`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckSet {
    checks: Vec<Check>,
}

impl CheckSet {
    pub fn push(&mut self, check: Check) -> CheckId {
        let id = CheckId(u32::try_from(self.checks.len()).unwrap_or(u32::MAX));
        self.checks.push(check);
        id
    }

    pub fn get(&self, id: CheckId) -> Option<&Check> {
        self.checks.get(id.0 as usize)
    }

    pub fn len(&self) -> usize {
        self.checks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.checks.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (CheckId, &Check)> {
        self.checks
            .iter()
            .enumerate()
            .map(|(i, c)| (CheckId(u32::try_from(i).unwrap_or(u32::MAX)), c))
    }
}
