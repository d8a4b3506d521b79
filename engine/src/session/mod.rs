//! Sessions: the live state of one conversation, owned by code. A session
//! takes events one at a time and decides each agent event its firing
//! schedule selects from the incremental monitor's formal state and the
//! judge verdicts already booked: **allow** or **block** (with the reason,
//! the first unmet step and its remediation) for an agent's mutating call,
//! **guide** (the remediation at each open request's cursor) for any other
//! agent event, **deviate** for an instruction or claim out of order.
//!
//! The judge is asked lazily: only at a write that decision blocks at a
//! dialogue-semantic step no judge has answered on this slice. Then every
//! request waiting on a semantic step is asked, with the questions a
//! positive answer would raise next (asked ahead), in one call, and the
//! write is decided again; the PolicyGuide paper's (2026) Algorithm 1 rounds
//! remain only for questions nobody foresaw. Guidance, observed events and
//! allowed writes never call the judge, so their cursors may rest at a
//! semantic step until a write needs its answer.
//!
//! **Deciding is a function call; the judge is a protocol.** With a
//! [`SyncJudge`] (the offline judge, recorded verdicts, a cache over
//! either) [`Session::push`] decides an event on the calling thread. Under
//! it, any caller can drive the decision itself ([`Session::begin`]): an
//! event either is decided at once, or the session hands out the judge
//! questions the decision needs ([`Progress::Asks`]) and goes on when given
//! the answers ([`Session::answer`]) — to the report, or to the next round.
//! While a decision is pending the session refuses a new event
//! ([`SessionError::Pending`]); [`Session::abandon`] gives the decision up
//! and leaves the session as it was before the event. A model judge is
//! awaited over the same protocol ([`Session::push_async`]); the engine
//! builds no async runtime.
//!
//! Requests are the monitor's bindings (`{$user, $order}`): a request forks
//! whenever a step binds a new value, so two orders are two requests. Its
//! cursor is the deepest step it waits at. Judge errors, timeouts and
//! unusable answers never satisfy a step: the gate fails closed.
//!
//! A session serializes to [`SessionState`] (events, accepted verdicts, what
//! was asked) and restores by replaying them, so a restored session answers
//! exactly like the original; a store appends what each event added
//! ([`Session::delta`] since a [`Session::mark`]).
//!
//! Inside, a session is three parts, each owning its fields: the formal
//! core (`core.rs`: events, facts, monitor, verdicts), the judge's
//! (`judging.rs`: accepted verdicts, questions asked, the conversation as
//! the judge reads it, usage, the consult) and the ledger (`ledger.rs`:
//! requests seen, the journal a store appends from, the view cache). Each
//! event is classified once as it arrives (`classify.rs`), and the
//! protocol (`protocol.rs`) carries it through extraction, the monitor, the
//! judge and the verdict.

mod approvals;
mod classify;
mod clocked;
mod consent;
mod core;
mod deviation;
mod granted;
mod judging;
mod ledger;
mod protected;
mod protocol;
mod questions;
mod recorded;
mod remedy;
mod runtime;
mod schedule;
mod shadow;
mod state;
mod turns;
mod verdict;
mod views;

use std::sync::Arc;

use turnstile_judge::{Judge, SyncJudge, Usage};
use turnstile_rules::{Env, EventIdx, StepId};
use turnstile_rules::{EvaluateError, Monitor, MonitorError};

// The order rules of deviations without a write, shared with the coverage
// analysis so both classify instructions and claims the same way.
pub(crate) use deviation::{Act, diagnoses, instruction_can_deviate, verified_after};
pub use protocol::Progress;
pub use recorded::{
    Coverage, ReplayReport, coverage, deviation_coverage, replay, replay_async, replay_at,
    replay_explained,
};
pub use remedy::plain_value;
pub use runtime::BundleRuntime;
pub use schedule::Schedule;
pub use shadow::Enforcement;
pub use state::{
    AcceptedVerdict, AskedQuestion, ConsentAnswer, DeltaMark, JudgedConsent, STATE_VERSION,
    STATE_VERSION_WITHOUT_CONSENTS, STATE_VERSION_WITHOUT_TIMES, STATE_VERSION_WITHOUT_UNDECIDED,
    SessionDelta, SessionState, UndecidedAnswer,
};
pub use verdict::{
    Approved, Bindings, Confirmation, ConsentByJudge, ConsentState, Cursor, Detail, EventReport,
    GateVerdict, Guidance, JudgeNote, RequestStatus, RequestView, Undecided,
};

use self::core::Core;
use crate::bundle::model::Control;
use crate::trace::Event;
use judging::Judging;
use ledger::Ledger;

#[derive(Debug, thiserror::Error)]
/// Why a session cannot take an event or be restored.
pub enum SessionError {
    #[error(transparent)]
    /// The bundle cannot be evaluated.
    Evaluate(#[from] EvaluateError),
    #[error(transparent)]
    /// The monitor refused the event.
    Monitor(#[from] MonitorError),
    #[error(
        "the saved session was made with bundle {saved}; the loaded bundle is {loaded} (its files differ): restore it with the bundle it was saved with, or start a new session"
    )]
    /// The saved state was made with another bundle.
    BundleMismatch {
        /// The hash of the bundle the state was saved with.
        saved: String,
        /// The hash of the bundle loaded now.
        loaded: String,
    },
    #[error(
        "session state format version {0} is not supported (this build reads version {STATE_VERSION}); start a new session"
    )]
    /// The saved state is in a layout this build does not read.
    StateVersion(u32),
    #[error("not a saved session: {0}")]
    /// The saved state is not a session state (malformed JSON or fields).
    StateFormat(String),
    #[error(transparent)]
    /// A recorded trace gives no time for a bundle that reads `now()`.
    Clock(#[from] crate::clock::ClockError),
    #[error(
        "the session is deciding an event and waits for the judge's answers: answer or abandon that decision first"
    )]
    /// An event arrived while a decision waits for the judge's answers.
    Pending,
    #[error("no decision waits for the judge's answers")]
    /// Answers arrived while no decision waits for any.
    NotPending,
}

/// What explains a block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Explainer {
    /// The incremental monitor's own state (`Monitor::explain_block`): what
    /// the live gate uses; its cost does not grow with the conversation.
    #[default]
    Monitor,
    /// The reference Datalog program over the facts so far: the same
    /// explanation (tested), at a cost that grows with the conversation.
    Datalog,
}

/// One conversation's live state. See the module documentation.
#[derive(Clone, Debug)]
pub struct Session {
    core: Core,
    judging: Judging,
    ledger: Ledger,
    /// The decision waiting for the judge's answers, if any.
    pending: Option<Box<protocol::Pending>>,
}

/// How much one session stores. At either cap the session takes no more
/// events: every further call is blocked (`SessionFull`), so a runaway or
/// hostile conversation cannot grow the gate's memory without bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionLimits {
    /// Events stored at most.
    pub max_events: usize,
    /// Bytes of stored events (as JSON) at most.
    pub max_bytes: usize,
}

impl Default for SessionLimits {
    /// Far above any real conversation (tau2's longest are a few hundred events).
    fn default() -> Self {
        SessionLimits {
            max_events: 10_000,
            max_bytes: 16 * 1024 * 1024,
        }
    }
}

impl Session {
    /// A session that has seen no event, with the default [`SessionLimits`].
    pub fn new(rt: Arc<BundleRuntime>, schedule: Schedule) -> Self {
        Session::with_limits(rt, schedule, SessionLimits::default())
    }

    /// A session that has seen no event, storing at most `limits`.
    pub fn with_limits(rt: Arc<BundleRuntime>, schedule: Schedule, limits: SessionLimits) -> Self {
        Session {
            core: Core::new(rt, schedule, limits),
            judging: Judging::default(),
            ledger: Ledger::default(),
            pending: None,
        }
    }

    /// From now on, asks the judge about every request waiting on a
    /// semantic step at every firing, before the event is taken (the
    /// PolicyGuide paper's Algorithm 1 as written), not only at a write that
    /// needs an answer. The verdicts a gate gives are the same either way;
    /// what differs is the monitor state between writes: eagerly, a step a
    /// judge would grant is satisfied as soon as it can be. The coverage
    /// analysis' reference session reads that state (which step a read or
    /// instruction belongs to); a deployed gate should stay lazy, which
    /// costs no judge call for guidance.
    pub fn judge_eagerly(&mut self) {
        self.judging.judge_eagerly();
    }

    /// Explains blocks with `explainer` from now on (the monitor by
    /// default; the Datalog program to exercise the reference).
    pub fn set_explainer(&mut self, explainer: Explainer) {
        self.core.explainer = explainer;
    }

    /// What explains this session's blocks.
    pub fn explainer(&self) -> Explainer {
        self.core.explainer
    }

    /// Sets who calls the user-side tools (a trace's own mode, or a flag),
    /// overriding the bundle's `control`. Call it before the first event.
    pub fn set_control(&mut self, control: Control) {
        self.core.set_control(control);
    }

    /// Who calls the user-side tools in this session (see
    /// [`Session::set_control`]).
    pub fn control(&self) -> Control {
        self.core.extractor.control()
    }

    /// The bundle runtime the session runs.
    pub fn runtime(&self) -> &Arc<BundleRuntime> {
        &self.core.rt
    }

    /// The firing schedule.
    pub fn schedule(&self) -> Schedule {
        self.core.schedule
    }

    /// The events taken so far.
    pub fn events(&self) -> &[Event] {
        &self.core.events
    }

    /// The monitor, as of the last event.
    pub fn monitor(&self) -> &Monitor {
        &self.core.monitor
    }

    /// Judge usage so far.
    pub fn usage(&self) -> Usage {
        self.judging.usage()
    }

    /// The work this session did so far (see [`SessionWork`]).
    pub fn work(&self) -> SessionWork {
        let (views_rendered, views_reused) = self.ledger.view_counts();
        SessionWork {
            views_rendered,
            views_reused,
            granted_events_pushed: self.core.granted.pushed(),
            ..self.judging.work()
        }
    }

    /// Accepted verdicts as `(step, request, evidence event)`.
    pub fn judged(&self) -> Vec<(StepId, Env, EventIdx)> {
        self.judging.judged()
    }

    /// Takes the next event and decides it, asking `judge` what the
    /// decision needs. The report carries the requests at a firing (what
    /// `turnstile gate` and `turnstile serve` print): [`Session::decide`]
    /// and then [`Session::with_requests`].
    pub fn push(
        &mut self,
        event: Event,
        judge: &dyn SyncJudge,
    ) -> Result<EventReport, SessionError> {
        let report = self.decide(event, judge)?;
        Ok(self.with_requests(report))
    }

    /// Takes the next event like [`Session::push`], but builds the request
    /// views (bindings, cursors, rendered remediation) only when the verdict
    /// is made of them (guidance): an allow or a block reports no requests.
    /// A caller that shows them reads [`Session::requests`] afterwards; the
    /// pair reports exactly what `push` does (tested on every tau2 trace).
    pub fn decide(
        &mut self,
        event: Event,
        judge: &dyn SyncJudge,
    ) -> Result<EventReport, SessionError> {
        if !self.is_pending() {
            self.judge_consent(judge.decides_consent());
        }
        let mut progress = self.begin(event, judge.questions_per_call())?;
        loop {
            match progress {
                Progress::Decided(report) => return Ok(report),
                Progress::Asks(requests) => {
                    let answers = judge.judge_batch(&requests);
                    // The questions' slices share the session's turns:
                    // dropped before the next event, they cost no copy.
                    drop(requests);
                    progress = self.answer(answers)?;
                }
            }
        }
    }

    /// [`Session::push`] with a judge that is awaited (a model): the same
    /// protocol, each round of questions sent with `judge_batch().await`.
    /// If the future is dropped while it waits, the decision stays pending
    /// ([`Session::abandon`] gives it up).
    pub async fn push_async(
        &mut self,
        event: Event,
        judge: &dyn Judge,
    ) -> Result<EventReport, SessionError> {
        let report = self.decide_async(event, judge).await?;
        Ok(self.with_requests(report))
    }

    /// [`Session::decide`] with a judge that is awaited.
    pub async fn decide_async(
        &mut self,
        event: Event,
        judge: &dyn Judge,
    ) -> Result<EventReport, SessionError> {
        if !self.is_pending() {
            self.judge_consent(judge.decides_consent());
        }
        let mut progress = self.begin(event, judge.questions_per_call())?;
        loop {
            match progress {
                Progress::Decided(report) => return Ok(report),
                Progress::Asks(requests) => {
                    let answers = judge.judge_batch(&requests).await;
                    drop(requests);
                    progress = self.answer(answers)?;
                }
            }
        }
    }

    /// `report` with the request views of its firing, as [`Session::push`]
    /// reports it: a firing that did not show them (an allow, a block)
    /// gets [`Session::requests`]. For a caller driving the protocol
    /// ([`Session::begin`]) that shows them.
    pub fn with_requests(&self, mut report: EventReport) -> EventReport {
        if report.fired && report.requests.is_empty() {
            report.requests = self.requests();
        }
        report
    }

    /// The requests as the last event's firing reported them: every
    /// binding set that waits somewhere or reached an exit, except those an
    /// open, more specific request extends. A request first seen at that
    /// firing is open, one seen at an earlier firing continuing. Built on
    /// demand: [`Session::decide`] does not, [`Session::push`] does at a
    /// firing. After [`Session::restore`] every request seen is continuing.
    pub fn requests(&self) -> Vec<Arc<RequestView>> {
        self.ledger.requests(&self.core)
    }

    /// A test hook that breaks the view cache on purpose: every cached
    /// request view is taken as rendered at the current state, so the next
    /// [`Session::requests`] hands out views rendered before the monitor's
    /// state changed (stale ones) as long as their steps are the same.
    /// `engine/tests/lazy_requests.rs` uses it to check that its comparison
    /// with a session rebuilt from scratch catches a stale view. Never call
    /// it on a session whose views anyone reads.
    #[doc(hidden)]
    pub fn mark_cached_views_current(&self) {
        self.ledger.restamp(&self.core);
    }

    /// The session's state, for saving. While a decision is pending it
    /// holds the event being decided and what the judge said so far: save
    /// a session between events.
    pub fn snapshot(&self) -> SessionState {
        SessionState {
            version: STATE_VERSION,
            bundle: self.core.rt.bundle.hash.clone(),
            schedule: self.core.schedule,
            control: Some(self.control()),
            events: self.core.events.clone(),
            times: self.core.clock.decided().to_vec(),
            judged: self.accepted(),
            asked: self.judging.asked().collect(),
            consents: self.judging.consent_answers().collect(),
            undecided: self.judging.undecided_answers().cloned().collect(),
            seen: self.ledger.seen().collect(),
            after_user: self.core.after_user,
            after_block: self.core.after_block,
            usage: self.judging.usage(),
        }
    }

    /// The accepted verdicts as saved.
    fn accepted(&self) -> Vec<AcceptedVerdict> {
        self.judging
            .judged()
            .into_iter()
            .map(|(step, request, evidence)| AcceptedVerdict {
                step,
                evidence,
                request,
            })
            .collect()
    }

    /// Where the session stands now, for a later [`Session::delta`].
    pub fn mark(&self) -> DeltaMark {
        self.ledger.mark(self.core.events.len())
    }

    /// What the session added since `mark`: a store's append after an
    /// event, costing what the event added rather than the session's size.
    pub fn delta(&self, mark: DeltaMark) -> SessionDelta {
        self.ledger.delta(mark, &self.core, self.judging.usage())
    }

    /// Rebuilds a session from its saved state (no judge is asked).
    pub fn restore(rt: Arc<BundleRuntime>, state: SessionState) -> Result<Session, SessionError> {
        Session::rebuild(rt, state, SessionLimits::default(), None)
    }

    /// [`Session::restore`] storing at most `limits`; `seen_before`: how
    /// many of the requests seen were seen before the last firing (`None`:
    /// all, as after a restart).
    fn rebuild(
        rt: Arc<BundleRuntime>,
        state: SessionState,
        limits: SessionLimits,
        seen_before: Option<usize>,
    ) -> Result<Session, SessionError> {
        if state.version != STATE_VERSION {
            return Err(SessionError::StateVersion(state.version));
        }
        // A state saved under an id of the older, path-based form is the
        // same bundle when that id is one these files had.
        if state.bundle != rt.bundle.hash && !rt.bundle.legacy_hashes.contains(&state.bundle) {
            return Err(SessionError::BundleMismatch {
                saved: state.bundle,
                loaded: rt.bundle.hash.clone(),
            });
        }
        let mut core = Core::new(rt, state.schedule, limits);
        if let Some(control) = state.control {
            core.set_control(control);
        }
        core.decide_first_events_at(state.times);
        let mut judging = Judging::restored(
            state.judged,
            state.asked.iter().copied(),
            &state.consents,
            &state.undecided,
            state.usage,
        );
        for event in state.events {
            protocol::ingest(&mut core, &mut judging, event)?;
        }
        core.after_user = state.after_user;
        core.after_block = state.after_block;
        let mut session = Session {
            core,
            judging,
            ledger: Ledger::default(),
            pending: None,
        };
        let seen_before = seen_before.unwrap_or(state.seen.len());
        session.ledger = Ledger::restored(
            session.accepted(),
            state.asked,
            state.consents,
            state.undecided,
            state.seen,
            seen_before,
        );
        Ok(session)
    }
}

/// Work a session did, counted so tests can check that a push costs the same
/// however long the conversation is, without timing anything.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionWork {
    /// Events rendered as judge turns: each once, as it arrives (when the
    /// bundle asks a judge anything).
    pub turns_rendered: u64,
    /// Turns handed to the judge in conversation slices (a question about
    /// the whole conversation gets all of them), by reference.
    pub turns_sent: u64,
    /// Turns copied: the rendered list copied because something kept a
    /// question's slice of it after the judge answered.
    pub turns_copied: u64,
    /// Events replayed into a fresh monitor because an accepted verdict
    /// took effect before the last event.
    pub events_replayed: u64,
    /// Verdicts added to the monitor at the last event, without a replay.
    pub verdicts_amended: u64,
    /// Pushes taken back (`Monitor::undo_last`) to ask the judge about a
    /// write before it, instead of replaying the conversation.
    pub pushes_undone: u64,
    /// Further rounds of questions at one write: questions that neither the
    /// first call nor the questions asked ahead with it covered.
    pub fallback_rounds: u64,
    /// Request views rendered (bindings named, remediation filled in): a
    /// request's view is rendered again only when it can have changed.
    pub views_rendered: u64,
    /// Request views reported as the cache held them.
    pub views_reused: u64,
    /// Events pushed into the consent-granted monitors, which decide
    /// whether a blocked write fails on consent alone: each event once per
    /// tool plus the write itself, not the conversation at every block —
    /// unless a call they read as not run turns out to have run, or a
    /// judge verdict lands at an event they were fed.
    pub granted_events_pushed: u64,
}
