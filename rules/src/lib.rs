//! The formal half of Turnstile: the vocabulary of typed values and checks that
//! a compiled bundle hands over, decided without any LLM.
//!
//! The engine compiles every `check:` and `guard:` expression of a bundle into a
//! [`Check`] over [`Value`]s and interned [`Symbol`]s; this crate owns those
//! types so the evaluator (the Datalog program) and the compiler agree on one
//! representation. Every public item is re-exported here, at one path; the
//! modules themselves are private.

#![warn(missing_docs)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

mod consent;
mod encode;
mod env;
mod evaluate;
mod facts;
mod ids;
mod intern;
mod ir;
mod monitor;
mod program;
mod steps;
mod value;
mod visit;

pub use consent::{Condition, ConsentSpec, is_consent};
pub use encode::{CNode, Encoded, FilterNode, ONode};
pub use env::{Env, MAX_VARS};
pub use evaluate::{
    Cited, ConsentFailure, ConsentOutcome, Derived, EvaluateError, FailedAtom, Reason, Violation,
    evaluate, step_depths,
};
pub use facts::{
    ArgFact, ArgLenFact, AttrFact, AttrLenFact, BindFact, CallFact, DisownFact, EventFacts,
    ExtractionDiagnostic, ExtractionProblem, FOREVER, FactsBuilder, HeldFact, LiteralFact,
    MentionFact, PassedOverFact, Read, Reply, ResultFact, SCALAR, Speaker, TraceFacts, TurnFact,
    UNKNOWN_PLACE, UNPLACED_SEGMENT,
};
pub use ids::{EventIdx, OperandId};
pub use intern::{Interner, Symbol};
pub use ir::{
    AggOp, ArgConstraint, ArgPath, ArgStep, ArithOp, Check, CheckId, CheckSet, CmpOp, EventFilter,
    Operand, Outcome, VarId,
};
pub use monitor::{EventOutcome, Monitor, MonitorError, Plan, ReadStamp, Reads, Waiting};
pub use steps::{CompiledChecks, Protection, Step, StepId, StepOrigin, Timing};
pub use value::{Amount, Date, DateTime, Duration, Value, ValueError, ValueType};
pub use visit::{Visitor, atom_operands, set_members, walk_condition, walk_filter, walk_operand};
