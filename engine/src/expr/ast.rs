//! Untyped syntax trees of check expressions, with byte spans into the
//! expression text for column-accurate diagnostics.

use std::ops::Range;

use turnstile_rules::CmpOp;

/// A byte range within the expression text.
pub type Span = Range<usize>;

/// A parsed check expression. Its syntax tree is internal to the engine;
/// callers outside it see where the expression lies in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub(crate) kind: ExprKind,
    /// Byte range of the whole expression within its text.
    pub span: Span,
}

/// A literal value as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    Str(String),
    Int(i64),
    /// A decimal literal, kept as written so amounts stay exact.
    Decimal(String),
    Bool(bool),
    Date(String),
    DateTime(String),
}

/// One segment of an `args` or `result` path.
#[derive(Debug, Clone, PartialEq)]
pub enum PathSeg {
    Key(String),
    Index(u32),
    Each,
}

/// A name with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// `name op value` inside `called(...)` / `succeeded(...)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    /// The argument path constrained.
    pub path: Vec<PathSeg>,
    /// Where the path is written.
    pub path_span: Span,
    /// The comparison.
    pub op: CmpOp,
    /// What the argument is compared with.
    pub value: Expr,
}

/// Which calls an event predicate matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Called,
    Succeeded,
}

/// An aggregate function over a list (or events, for `count`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregate {
    Sum,
    Count,
    Min,
    Max,
}

/// The shape of an expression.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Or(Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Compare {
        op: CmpOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    InList {
        operand: Box<Expr>,
        set: Vec<Expr>,
    },
    InEnum {
        operand: Box<Expr>,
        name: Ident,
    },
    /// `x in user[$u].order_ids`: membership in a list-valued operand.
    InOperand {
        operand: Box<Expr>,
        list: Box<Expr>,
    },
    /// `lhs + rhs` / `lhs - rhs` on numbers.
    Arith {
        op: turnstile_rules::ArithOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Lit(Lit),
    Var(Ident),
    Field {
        entity: Ident,
        id: Box<Expr>,
        field: Ident,
    },
    Args(Vec<PathSeg>),
    Result(Vec<PathSeg>),
    Aggregate {
        op: Aggregate,
        of: Box<Expr>,
    },
    /// `count(list, value)`: elements equal to a value.
    CountEqual {
        of: Box<Expr>,
        value: Box<Expr>,
    },
    Event {
        kind: EventKind,
        tool: Ident,
        constraints: Vec<Constraint>,
    },
    /// `said(user, value)` / `said(agent, value)`: the value is named in a
    /// turn of that speaker up to this event.
    Said {
        speaker: turnstile_rules::Speaker,
        value: Box<Expr>,
    },
    /// `confirmed(value, ...)`: the user's yes to a summary naming them.
    Confirmed(Vec<Expr>),
    /// `now()`: the time of the event being decided, on the bundle's clock.
    Now,
    /// `days(n)`, `hours(n)`, `minutes(n)`: a duration of `n` units.
    Duration {
        /// Seconds per unit.
        unit: i64,
        /// The number of units (an integer).
        of: Box<Expr>,
    },
}
