//! Turnstile's engine: loads a workflow bundle, type-checks it against its
//! domain schema and compiles it into a typed finite-state machine plus the
//! formal checks the `rules` crate decides.
//!
//! Data flow: [`bundle::load`] reads YAML into the raw [`bundle::model`] with
//! source spans; [`compile::compile`] resolves names, inlines subflows,
//! type-checks every expression and validates the graph, producing a
//! [`compile::CompiledBundle`] or a list of [`diag::Problem`]s that point at
//! file, line and column.

pub mod bundle;
pub mod compile;
pub mod decide;
pub mod diag;
pub mod expr;
pub mod extract;
pub mod fsm;
pub mod import;
pub mod render;
pub mod schema;
pub mod session;
pub mod source;
pub mod trace;

pub use compile::{CompiledBundle, check_bundle, compile};
pub use diag::{Problem, Problems};
pub use session::{
    AcceptedVerdict, AskedQuestion, Bindings, BundleRuntime, Cursor, EventReport, GateVerdict,
    Guidance, RequestStatus, RequestView, STATE_VERSION, Schedule, Session, SessionError,
    SessionState,
};
