//! Turnstile's engine: everything between a workflow bundle on disk and a
//! verdict on an agent's behaviour.
//!
//! - **Bundles**: [`bundle::load()`] reads the YAML files of a bundle (safely,
//!   with source spans); [`compile()`] resolves the domain [`schema`], inlines
//!   subflows, type-checks every expression and validates the graph, giving a
//!   [`CompiledBundle`] (a typed [`Workflow`] plus the formal checks the
//!   `rules` crate decides) or [`Problems`] that point at file, line and
//!   column. [`render_graph`] draws the workflow; [`bundle_schema`] is the
//!   JSON Schema of the bundle files.
//! - **Traces**: [`import`] reads recorded conversations (tau2, OpenAI chat,
//!   tau-bench, native JSONL) into a [`trace::Trace`]; fact extraction turns
//!   each event into the typed facts the checks read.
//! - **Coverage**: [`coverage`] computes, on the compiled workflow, the
//!   reachable first deviations and which a firing schedule covers.
//! - **Decisions**: [`decide`] judges a whole trace and explains violations;
//!   [`session`] follows a live conversation one event at a time and answers
//!   allow, block or guide before each tool call — a plain function call
//!   with a judge that answers at once ([`Session::push`]), a protocol of
//!   questions out and answers in for any other ([`Session::begin`],
//!   [`Progress`]); [`audit`] runs a corpus through sessions in parallel.
//!
//! **The public surface.** A program embedding the gate needs the modules
//! [`bundle`] (the model, [`bundle::Control`]), [`session`] (the live
//! gate, replays), [`audit`] (corpora: [`audit::Auditor`], [`audit::run`],
//! [`audit::Summary`]), [`coverage`] (the analysis and its witnesses),
//! [`import`] (readers and writers of traces), [`trace`] (events) and
//! [`clock`] (where `now()` comes from, and a trace's times), and
//! the re-exports below; `turnstile` uses nothing else. [`decide`],
//! [`extract`] and [`schema`] are public for the tests, benchmarks and
//! property tests that check the evaluators against each other.

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

pub mod audit;
pub mod bundle;
mod choices;
pub mod clock;
mod compile;
pub mod coverage;
pub mod decide;
mod diag;
mod expr;
pub mod extract;
mod fsm;
pub mod import;
mod render;
pub mod schema;
pub mod session;
mod source;
pub mod trace;

pub use compile::{
    CompiledBundle, ProtectedRead, REVIEW_MARKER, SemanticCriterion, Variable, check_bundle,
    compile,
};
pub use diag::{Problem, ProblemKind, Problems};
pub use expr::{Expr, ParseError, parse as parse_expr};
pub use fsm::{
    BindSource, Binding, Criterion, Edge, Node, NodeIdx, NodeSource, Template, TemplatePiece,
    Workflow,
};
pub use render::{
    BundleFile, GraphFormat, GraphOptions, bundle_schema, flow_instances, render_graph,
    render_graph_with,
};
pub use session::{
    AcceptedVerdict, AskedQuestion, Bindings, BundleRuntime, Cursor, EventReport, GateVerdict,
    Guidance, Progress, RequestStatus, RequestView, STATE_VERSION, Schedule, Session, SessionError,
    SessionState,
};
