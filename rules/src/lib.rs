//! The formal half of Turnstile: the vocabulary of typed values and checks that
//! a compiled bundle hands over, decided without any LLM.
//!
//! The engine compiles every `check:` and `guard:` expression of a bundle into a
//! [`Check`] over [`Value`]s and interned [`Symbol`]s; this crate owns those
//! types so the evaluator (the Datalog program) and the compiler agree on one
//! representation.

pub mod encode;
pub mod env;
pub mod evaluate;
pub mod facts;
pub mod intern;
pub mod ir;
pub mod monitor;
pub mod program;
pub mod steps;
pub mod value;

pub use env::{Env, MAX_VARS};
pub use evaluate::{Cited, Derived, EvaluateError, FailedAtom, Reason, Violation, evaluate};
pub use facts::TraceFacts;
pub use intern::{Interner, Symbol};
pub use ir::{
    AggOp, ArgConstraint, ArgPath, ArgStep, ArithOp, Check, CheckId, CheckSet, CmpOp, EventFilter,
    Operand, Outcome, VarId,
};
pub use steps::{CompiledChecks, Step, StepId, StepOrigin, Timing};
pub use value::{Amount, Date, DateTime, Value, ValueError, ValueType};
