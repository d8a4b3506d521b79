//! The formal half of Turnstile: the vocabulary of typed values and checks that
//! a compiled bundle hands over, decided without any LLM.
//!
//! The engine compiles every `check:` and `guard:` expression of a bundle into a
//! [`Check`] over [`Value`]s and interned [`Symbol`]s; this crate owns those
//! types so the evaluator (the Datalog program) and the compiler agree on one
//! representation.

pub mod intern;
pub mod ir;
pub mod value;

pub use intern::{Interner, Symbol};
pub use ir::{
    AggOp, ArgConstraint, ArgPath, ArgStep, Check, CheckId, CheckSet, CmpOp, EventFilter, Operand,
    Outcome, VarId,
};
pub use value::{Amount, Date, DateTime, Value, ValueError, ValueType};
