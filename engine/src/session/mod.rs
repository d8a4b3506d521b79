//! Sessions: the live state of one conversation, owned by code. A session
//! takes events one at a time and decides each agent event its firing
//! schedule selects from the incremental monitor's formal state and the
//! judge verdicts already booked: **allow** or **block** (with the reason,
//! the first unmet step and its remediation) for an agent's mutating call,
//! **guide** (the remediation at each open request's cursor) for any other
//! agent event.
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
//! Requests are the monitor's bindings (`{$user, $order}`): a request forks
//! whenever a step binds a new value, so two orders are two requests. Its
//! cursor is the deepest step it waits at. Judge errors, timeouts and
//! unusable answers never satisfy a step: the gate fails closed.
//!
//! A session serializes to [`SessionState`] (events, accepted verdicts, what
//! was asked) and restores by replaying them, so a restored session answers
//! exactly like the original.

mod deviation;
mod judging;
pub mod recorded;
mod remedy;
mod runtime;
mod schedule;
mod state;
mod verdict;
mod views;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use turnstile_judge::{Judge, Judgement, Turn, Usage};
use turnstile_rules::{Env, EventIdx, Symbol};
use turnstile_rules::{EvaluateError, Reason, StepId, evaluate};
use turnstile_rules::{EventFacts, ExtractionDiagnostic, FactsBuilder};
use turnstile_rules::{EventOutcome, Monitor, MonitorError, Waiting};

// The order rules of deviations without a write, shared with the coverage
// analysis so both classify instructions and claims the same way.
pub(crate) use deviation::{Act, diagnoses, instruction_can_deviate, verified_after};
pub use judging::JudgeNote;
pub use remedy::plain_value;
pub use runtime::BundleRuntime;
pub use schedule::Schedule;
pub use state::{
    AcceptedVerdict, AskedQuestion, DeltaMark, STATE_VERSION, SessionDelta, SessionState,
};
pub use verdict::{
    Bindings, Cursor, EventReport, GateVerdict, Guidance, RequestStatus, RequestView,
};

use crate::decide::{Decision, explain, explain_violation, type_mismatch, type_mismatch_in};
use crate::extract::Extractor;
use crate::trace::Event;

#[derive(Debug, thiserror::Error)]
/// Why a session cannot take an event or be restored.
pub enum SessionError {
    #[error(transparent)]
    /// The bundle cannot be evaluated.
    Evaluate(#[from] EvaluateError),
    #[error(transparent)]
    /// The monitor refused the event.
    Monitor(#[from] MonitorError),
    #[error("the saved session was made with bundle {saved}; the loaded bundle is {loaded}")]
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
    rt: Arc<BundleRuntime>,
    explainer: Explainer,
    limits: SessionLimits,
    /// Bytes of the stored events (their JSON).
    stored_bytes: usize,
    schedule: Schedule,
    extractor: Extractor,
    monitor: Monitor,
    events: Vec<Event>,
    log: Vec<EventFacts>,
    /// The extraction type errors of `log`, apart: remediation and block
    /// explanations read them at each firing.
    type_errors: Vec<ExtractionDiagnostic>,
    /// Every event rendered as a judge turn (conversation turns tokenized)
    /// as it arrives, when the bundle asks a judge anything: questions take
    /// their slices from here as ranges of the shared list
    /// ([`turnstile_judge::Conversation`]), so a question copies no turn.
    rendered: Arc<Vec<Turn>>,
    /// Successful tool results so far, for the deviation checks.
    successes: deviation::Successes,
    /// Work counted for tests.
    work: SessionWork,
    /// Accepted verdicts by the event they take effect at: the step and the
    /// request it was asked about.
    judged: BTreeMap<EventIdx, BTreeSet<(StepId, Env)>>,
    asked: BTreeSet<AskedQuestion>,
    /// The last event of each role, for the judge questions' keys.
    last_turns: judging::LastTurns,
    /// Accepted verdicts, questions and shown requests in the order they
    /// were added, so a store can take only what is new ([`Session::delta`]).
    journal: Journal,
    seen: BTreeSet<Env>,
    /// `journal.seen`'s length before the last event's firing marked its
    /// requests seen: [`Session::requests`] reports those after it as open.
    seen_before: usize,
    after_user: bool,
    after_block: bool,
    usage: Usage,
    /// The monitor's explanation of the write just blocked, when deciding
    /// whether to ask the judge computed it and nothing changed since: the
    /// block verdict reuses it rather than explaining twice.
    explained: Option<turnstile_rules::Violation>,
    /// Ask about every waiting semantic step at every firing
    /// ([`Session::judge_eagerly`]) rather than only at a blocked write.
    eager: bool,
    /// The request views as last built, each rebuilt only when it can
    /// have changed.
    views: views::ViewCache,
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
            limits,
            explainer: Explainer::default(),
            stored_bytes: 0,
            extractor: Extractor::with_principal_mask(&rt.bundle, rt.principal_mask),
            monitor: Monitor::new(Arc::clone(&rt.plan)),
            rt,
            schedule,
            events: Vec::new(),
            log: Vec::new(),
            type_errors: Vec::new(),
            rendered: Arc::default(),
            successes: deviation::Successes::default(),
            work: SessionWork::default(),
            judged: BTreeMap::new(),
            asked: BTreeSet::new(),
            last_turns: judging::LastTurns::default(),
            journal: Journal::default(),
            seen: BTreeSet::new(),
            seen_before: 0,
            after_user: false,
            after_block: false,
            usage: Usage::default(),
            explained: None,
            eager: false,
            views: views::ViewCache::default(),
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
        self.eager = true;
    }

    /// Explains blocks with `explainer` from now on (the monitor by
    /// default; the Datalog program to exercise the reference).
    pub fn set_explainer(&mut self, explainer: Explainer) {
        self.explainer = explainer;
    }

    /// What explains this session's blocks.
    pub fn explainer(&self) -> Explainer {
        self.explainer
    }

    /// The firing schedule.
    pub fn schedule(&self) -> Schedule {
        self.schedule
    }

    /// The events taken so far.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The monitor, as of the last event.
    pub fn monitor(&self) -> &Monitor {
        &self.monitor
    }

    /// Judge usage so far.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The work this session did so far (see [`SessionWork`]).
    pub fn work(&self) -> SessionWork {
        let (views_rendered, views_reused) = self.views.counts();
        SessionWork {
            views_rendered,
            views_reused,
            ..self.work
        }
    }

    /// Accepted verdicts as `(step, request, evidence event)`.
    pub fn judged(&self) -> Vec<(StepId, Env, EventIdx)> {
        self.judged
            .iter()
            .flat_map(|(k, steps)| steps.iter().map(move |(s, e)| (*s, *e, *k)))
            .collect()
    }

    /// Takes the next event; `judge` answers the semantic questions if the
    /// schedule fires on it. The report carries the requests at a firing
    /// (what `turnstile gate` and `turnstile serve` print): [`Session::decide`]
    /// and then, at a firing, [`Session::requests`].
    pub async fn push(
        &mut self,
        event: Event,
        judge: &dyn Judge,
    ) -> Result<EventReport, SessionError> {
        let mut report = self.decide(event, judge).await?;
        if report.fired && report.requests.is_empty() {
            report.requests = self.requests();
        }
        Ok(report)
    }

    /// Takes the next event like [`Session::push`], but builds the request
    /// views (bindings, cursors, rendered remediation) only when the verdict
    /// is made of them (guidance): an allow or a block reports no requests.
    /// A caller that shows them reads [`Session::requests`] afterwards; the
    /// pair reports exactly what `push` does (tested on every tau2 trace).
    pub async fn decide(
        &mut self,
        event: Event,
        judge: &dyn Judge,
    ) -> Result<EventReport, SessionError> {
        let k = EventIdx::from_usize(self.events.len());
        let bytes = event.json_size();
        if self.events.len() >= self.limits.max_events
            || self.stored_bytes.saturating_add(bytes) > self.limits.max_bytes
        {
            return Ok(self.refuse_when_full(k, &event));
        }
        let unknown = self
            .unknown_tool(&event)
            .or_else(|| self.device_call_by_agent(&event));
        let is_agent = self.is_agent(&event) || unknown.is_some();
        let fired = is_agent && (self.fires(&event) || unknown.is_some());
        // Only a write the schedule checks can need the judge: guidance,
        // observations and the blocks of unknown or wrong-side tools never do.
        let asks_for = match &event {
            Event::Call { tool, .. }
                if fired
                    && unknown.is_none()
                    && self.rt.asks_judge
                    && self.is_gated_call(&event) =>
            {
                self.rt.bundle.domain.tool(tool).map(|t| t.symbol)
            }
            _ => None,
        };
        let kind = describe(&event);
        let is_user = matches!(event, Event::User { .. });
        let mut notes = Vec::new();
        if self.eager && fired && self.rt.asks_judge {
            let rt = Arc::clone(&self.rt);
            notes = self.consult(judge, k, &rt.every_step).await?;
        }
        let facts = self.take(event, bytes);
        let (outcome, lazy_notes) = self.decide_lazily(&facts, asks_for, judge).await?;
        notes.extend(lazy_notes);
        let anomalies = self.log_facts(facts);
        // Guidance is made of the request views; an allow or a block is not.
        let mut requests = Vec::new();
        let verdict = if let Some(verdict) = unknown {
            verdict
        } else if !is_agent {
            GateVerdict::Observe
        } else if !fired {
            GateVerdict::Unchecked {
                would_block: outcome.allowed() == Some(false),
            }
        } else if outcome.gated.is_some() {
            self.verdict(k, &outcome, &[])
        } else {
            requests = self.views(&self.seen);
            self.verdict(k, &outcome, &requests)
        };
        self.explained = None;
        let verdict = self.deviation(k, verdict);
        self.seen_before = self.journal.seen.len();
        if fired {
            self.mark_seen();
        }
        if is_user {
            self.after_user = true;
        } else if is_agent {
            self.after_user = false;
            self.after_block = verdict.is_block();
        }
        Ok(EventReport {
            event: k,
            kind,
            mutating: outcome.gated.is_some()
                || matches!(
                    verdict,
                    GateVerdict::Block {
                        reason: Reason::UnknownTool,
                        ..
                    }
                ),
            fired,
            verdict,
            requests,
            judge: notes,
            anomalies,
        })
    }

    /// The report on an event the full session does not take: a call is
    /// blocked, anything else only observed.
    fn refuse_when_full(&self, k: EventIdx, event: &Event) -> EventReport {
        let verdict = match event {
            Event::Call { .. } => GateVerdict::Block {
                reason: Reason::SessionFull,
                step: None,
                request: Bindings::new(),
                remediation: Some("start a new session".to_owned()),
                explanation: format!(
                    "event {k}: the session holds {} events ({} bytes); its limits are {} events and {} bytes",
                    self.events.len(),
                    self.stored_bytes,
                    self.limits.max_events,
                    self.limits.max_bytes
                ),
            },
            _ => GateVerdict::Observe,
        };
        EventReport {
            event: k,
            kind: describe(event),
            mutating: matches!(event, Event::Call { .. }),
            fired: false,
            verdict,
            requests: Vec::new(),
            judge: Vec::new(),
            anomalies: Vec::new(),
        }
    }

    /// Whether the agent made the event: its own claim, or a call of a write
    /// tool the bundle declares agent-side whoever the event says sent it.
    fn is_agent(&self, event: &Event) -> bool {
        event.is_agent_event()
            || matches!(event, Event::Call { tool, .. } if self.rt.bundle.domain.tool(tool).is_some_and(|t| {
                t.side == crate::bundle::model::Side::Agent && t.kind == crate::bundle::model::ToolKind::Write
            }))
    }

    /// A block for a call of a tool the bundle neither declares nor lets
    /// through, with the closest declared tool as a hint.
    fn unknown_tool(&self, event: &Event) -> Option<GateVerdict> {
        let Event::Call { tool, .. } = event else {
            return None;
        };
        let bundle = &self.rt.bundle;
        if bundle.domain.tool(tool).is_some() || bundle.pass_through.iter().any(|(t, _)| t == tool)
        {
            return None;
        }
        let wanted = tool.trim().to_lowercase();
        let closest = bundle
            .domain
            .tools
            .keys()
            .map(|name| {
                (
                    crate::compile::edit_distance(&name.to_lowercase(), &wanted),
                    name,
                )
            })
            .min();
        let hint = match closest {
            Some((distance, name)) if distance <= 3 => format!("did you mean `{name}`?"),
            _ => "call only the tools the bundle declares".to_owned(),
        };
        Some(GateVerdict::Block {
            reason: Reason::UnknownTool,
            step: None,
            request: Bindings::new(),
            remediation: Some(hint),
            explanation: format!("tool {tool:?} is not declared by bundle `{}`", bundle.name),
        })
    }

    fn fires(&self, event: &Event) -> bool {
        if !self.is_agent(event) {
            return false;
        }
        match self.schedule {
            Schedule::Workflow => true,
            Schedule::Boundary => self.after_user || self.after_block,
            Schedule::Action => self.is_gated_call(event),
        }
    }

    fn is_gated_call(&self, event: &Event) -> bool {
        match event {
            Event::Call { tool, .. } if self.is_agent(event) => self
                .rt
                .bundle
                .domain
                .tool(tool)
                .is_some_and(|t| self.rt.bundle.program.gated_tools.contains(&t.symbol)),
            _ => false,
        }
    }

    /// Extracts the event's facts and feeds the monitor (restoring a
    /// session: no judge). Returns the monitor's outcome.
    /// `bytes`: the event's size as JSON.
    fn ingest(&mut self, event: Event, bytes: usize) -> Result<EventOutcome, SessionError> {
        let facts = self.take(event, bytes);
        let outcome = self.monitor.push(&facts, &self.judged_at(facts.event))?;
        self.log_facts(facts);
        Ok(outcome)
    }

    /// Stores the event and extracts its facts, without deciding it: the
    /// monitor has not seen them yet.
    fn take(&mut self, event: Event, bytes: usize) -> EventFacts {
        let k = EventIdx::from_usize(self.events.len());
        let facts = self.extractor.event(&self.rt.bundle, k, &event);
        self.stored_bytes = self.stored_bytes.saturating_add(bytes);
        self.last_turns.note(k, &event);
        if self.rt.asks_judge {
            // A message's turn comes from the extractor, tokenized once for
            // its cues and for the judge.
            let turn = match event {
                Event::User { .. } | Event::Agent { .. } => match self.extractor.take_turn() {
                    Some(turn) => turn,
                    None => judging::render(k, &event).tokenized(),
                },
                Event::Call { .. } | Event::Result { .. } | Event::Principal { .. } => {
                    judging::render(k, &event)
                }
            };
            // The list is shared only while a judge holds a question's
            // slice of it; one kept beyond the call costs one copy here.
            if Arc::strong_count(&self.rendered) > 1 {
                self.work.turns_copied += self.rendered.len() as u64;
            }
            Arc::make_mut(&mut self.rendered).push(turn);
            self.work.turns_rendered += 1;
        }
        self.successes.note(
            &self.rt.bundle,
            self.extractor.control(),
            k.as_usize(),
            &event,
        );
        self.events.push(event);
        facts
    }

    /// Logs the facts of the event the monitor just decided; returns the
    /// input anomalies at it.
    fn log_facts(&mut self, facts: EventFacts) -> Vec<String> {
        let anomalies = facts
            .diagnostics
            .iter()
            .filter(|d| d.kind.is_anomaly())
            .map(|d| d.detail.clone())
            .collect();
        self.type_errors.extend(
            facts
                .diagnostics
                .iter()
                .filter(|d| d.kind.is_type_error())
                .cloned(),
        );
        self.log.push(facts);
        anomalies
    }

    /// Decides the event from the formal state and the verdicts already
    /// booked; asks the judge only when that blocks a write of the gated tool
    /// `asks_for` while some request waits at a semantic step on the way to
    /// it that no judge has answered on this slice, then decides again. An allowed write, and every other event, costs no
    /// judge call.
    async fn decide_lazily(
        &mut self,
        facts: &EventFacts,
        asks_for: Option<Symbol>,
        judge: &dyn Judge,
    ) -> Result<(EventOutcome, Vec<JudgeNote>), SessionError> {
        let k = facts.event;
        self.explained = None;
        let outcome = self.monitor.push(facts, &self.judged_at(k))?;
        let rt = Arc::clone(&self.rt);
        let on_path = asks_for.and_then(|tool| rt.on_path.get(&tool));
        let Some(on_path) = on_path else {
            return Ok((outcome, Vec::new()));
        };
        if outcome.allowed() != Some(false) {
            return Ok((outcome, Vec::new()));
        }
        // Any request waiting at an unasked dialogue step on the way to the
        // tool may lift the block, not only the one whose path came closest:
        // after the "anything else?" loop a second request of the same tool
        // waits at its dialogue steps while the first one's used
        // authorization explains the block. Asking only about the closest
        // path blocked what the eager reference allows.
        let any_question = judging::any_question(
            &self.rt,
            &self.monitor,
            &self.last_turns,
            &self.asked,
            on_path,
        );
        // Every debug test run checks the shortcut against the questions.
        debug_assert_eq!(
            any_question,
            !self.questions(&self.monitor, on_path).is_empty()
        );
        if !any_question {
            self.explained = self.monitor.explain_block();
            return Ok((outcome, Vec::new()));
        }
        // Back to the event before the write, where the questions are asked
        // (the logged facts stop there): the write's push is undone, at the
        // cost of what it changed, not replayed from the start.
        self.monitor.undo_last()?;
        self.work.pushes_undone += 1;
        let notes = self.consult(judge, k, on_path).await?;
        let outcome = self.monitor.push(facts, &self.judged_at(k))?;
        Ok((outcome, notes))
    }

    /// The questions not yet asked on this slice about the requests waiting
    /// in `monitor` at a semantic step of `on_path`.
    fn questions(&self, monitor: &Monitor, on_path: &BTreeSet<StepId>) -> Vec<judging::Ask> {
        let mut asks = judging::questions(
            &self.rt,
            monitor,
            &self.extractor.interner,
            &self.last_turns,
            &self.asked,
        );
        asks.retain(|ask| ask.steps.iter().any(|(step, _)| on_path.contains(step)));
        asks
    }

    /// A monitor fed every logged event with the verdicts of `judged`.
    fn replayed(
        &self,
        judged: &BTreeMap<EventIdx, BTreeSet<(StepId, Env)>>,
    ) -> Result<Monitor, SessionError> {
        let mut monitor = Monitor::new(Arc::clone(&self.rt.plan));
        for facts in &self.log {
            let at: Vec<(StepId, Env)> = judged
                .get(&facts.event)
                .map(|s| s.iter().copied().collect())
                .unwrap_or_default();
            monitor.push(facts, &at)?;
        }
        Ok(monitor)
    }

    fn judged_at(&self, k: EventIdx) -> Vec<(StepId, Env)> {
        self.judged
            .get(&k)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default()
    }

    /// Asks the judge what the write at `now` can need, with the
    /// conversation before it: every request waiting on a semantic step and,
    /// in the same call, the questions a positive answer would raise next
    /// ([`Session::questions_ahead`]). Accepted verdicts are replayed into the
    /// monitor at the events they take effect; the requests then waiting on
    /// a next semantic step take their answers from those asked ahead. Only
    /// a question nobody foresaw is asked in a further round (the PolicyGuide
    /// paper's Algorithm 1, 2026, kept as the fallback; counted in
    /// [`SessionWork::fallback_rounds`]), until nothing more is accepted.
    async fn consult(
        &mut self,
        judge: &dyn Judge,
        now: EventIdx,
        on_path: &BTreeSet<StepId>,
    ) -> Result<Vec<JudgeNote>, SessionError> {
        let mut notes = Vec::new();
        let mut ahead: Vec<(judging::Ask, Judgement)> = Vec::new();
        let mut rounds = 0u32;
        // Each round satisfies at least one more step, so the walk is bounded
        // by the workflow's length.
        for _ in 0..=self.rt.steps.len() {
            let asks = self.questions(&self.monitor, on_path);
            let mut accepted = Vec::new();
            let mut open = Vec::new();
            for ask in asks {
                match ahead.iter().position(|(a, _)| a.same_question(&ask)) {
                    Some(i) => {
                        let (asked, judgement) = ahead.swap_remove(i);
                        accepted.extend(self.record(&asked, judgement, now, &mut notes));
                    }
                    None => open.push(ask),
                }
            }
            if !open.is_empty() {
                if rounds > 0 {
                    self.work.fallback_rounds += 1;
                }
                rounds += 1;
                let real = open.len();
                let room = judge.questions_per_call().map_or(usize::MAX, |per_call| {
                    real.div_ceil(per_call).saturating_mul(per_call) - real
                });
                let opens = open.iter().any(|ask| {
                    ask.steps
                        .iter()
                        .any(|(step, _)| self.rt.opens_semantic.get(step.0 as usize) == Some(&true))
                });
                if room > 0 && opens {
                    let extra = self.questions_ahead(&open, on_path)?;
                    open.extend(extra.into_iter().take(room));
                }
                let requests = judging::with_slices(&mut open, &self.rendered, now);
                let sent: usize = requests.iter().map(|r| r.conversation.len()).sum();
                self.work.turns_sent += sent as u64;
                let judgements = judge.judge_batch(&requests).await;
                for (i, ask) in open.into_iter().enumerate() {
                    let judgement = judgements
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| Judgement::unknown("the judge returned no answer"));
                    // Every call is paid for, whether its answer is used or not.
                    self.usage += judgement.usage;
                    if i < real {
                        accepted.extend(self.record(&ask, judgement, now, &mut notes));
                    } else {
                        ahead.push((ask, judgement));
                    }
                }
            }
            if accepted.is_empty() {
                break;
            }
            self.replay(&accepted)?;
        }
        Ok(notes)
    }

    /// The questions a positive answer to `asks` would raise next: on a
    /// monitor where every step `asks` decides (and, in turn, every step
    /// those answers would open) is assumed satisfied where it would take
    /// effect at the earliest, the requests then waiting on a semantic step.
    /// A guess: a criterion whose real evidence comes later opens its
    /// successor later, on another slice, and is asked in a further round.
    fn questions_ahead(
        &mut self,
        asks: &[judging::Ask],
        on_path: &BTreeSet<StepId>,
    ) -> Result<Vec<judging::Ask>, SessionError> {
        let mut assumed = self.judged.clone();
        let mut known: BTreeSet<(StepId, Env)> = BTreeSet::new();
        let assume = |ask: &judging::Ask,
                      assumed: &mut BTreeMap<EventIdx, BTreeSet<(StepId, Env)>>,
                      known: &mut BTreeSet<(StepId, Env)>| {
            for (step, _) in &ask.steps {
                known.insert((*step, ask.env));
                assumed
                    .entry(ask.ready)
                    .or_default()
                    .insert((*step, ask.env));
            }
        };
        for ask in asks {
            assume(ask, &mut assumed, &mut known);
        }
        let mut ahead: Vec<judging::Ask> = Vec::new();
        for _ in 0..self.rt.steps.len() {
            let monitor = self.replayed(&assumed)?;
            self.work.events_replayed += self.log.len() as u64;
            let next: Vec<judging::Ask> = self
                .questions(&monitor, on_path)
                .into_iter()
                .filter(|a| a.steps.iter().all(|(s, _)| !known.contains(&(*s, a.env))))
                .collect();
            if next.is_empty() {
                break;
            }
            for ask in &next {
                assume(ask, &mut assumed, &mut known);
            }
            ahead.extend(next);
        }
        Ok(ahead)
    }

    /// Books one judgement; returns the verdict it added, if it satisfied
    /// a step anew: the event it takes effect at, the step and the request.
    fn record(
        &mut self,
        ask: &judging::Ask,
        judgement: Judgement,
        now: EventIdx,
        notes: &mut Vec<JudgeNote>,
    ) -> Option<(EventIdx, StepId, Env)> {
        // Asked again only once the conversation has moved on: a judge that
        // failed on this slice (and so kept the gate closed) gets another
        // chance with the next message, not at every event.
        if self.asked.insert(ask.key()) {
            self.journal.asked.push(ask.key());
        }
        let mut accepted = None;
        let rejected = match judging::accept(ask, &judgement) {
            Ok((step, evidence)) => {
                let at = ask.effective_at(evidence);
                if self.judged.entry(at).or_default().insert((step, ask.env)) {
                    accepted = Some((at, step, ask.env));
                    self.journal.judged.push(AcceptedVerdict {
                        step,
                        evidence: at,
                        request: ask.env,
                    });
                }
                None
            }
            Err(why) if judgement.verdict.is_satisfied() => Some(why),
            Err(_) => None,
        };
        notes.push(JudgeNote {
            at: now,
            node: ask.request.node_id.clone(),
            request: ask.request.bindings.clone(),
            verdict: judgement.verdict,
            rationale: judgement.rationale,
            rejected,
        });
        accepted
    }

    /// Brings the monitor up to the verdicts just `accepted` (already in
    /// `judged`). Verdicts that take effect at the last event taken (a
    /// confirmation in the latest turn) amend the monitor in place; one
    /// citing an earlier event replays the logged facts into a fresh monitor,
    /// since the monitor only moves forward.
    fn replay(&mut self, accepted: &[(EventIdx, StepId, Env)]) -> Result<(), SessionError> {
        let last = EventIdx::from_usize(self.log.len().saturating_sub(1));
        if !self.log.is_empty() && accepted.iter().all(|(at, _, _)| *at == last) {
            let verdicts: Vec<(StepId, Env)> =
                accepted.iter().map(|&(_, step, env)| (step, env)).collect();
            self.monitor.amend_last(last, &verdicts)?;
            self.work.verdicts_amended += verdicts.len() as u64;
            return Ok(());
        }
        self.monitor = self.replayed(&self.judged)?;
        self.work.events_replayed += self.log.len() as u64;
        Ok(())
    }

    /// The verdict on the agent event `k` at a firing: allow or block for a
    /// gated call, else the guidance of the open requests.
    fn verdict(
        &mut self,
        k: EventIdx,
        outcome: &EventOutcome,
        requests: &[Arc<RequestView>],
    ) -> GateVerdict {
        match &outcome.gated {
            Some(allowed) => match allowed.first() {
                Some((step, env)) => GateVerdict::Allow {
                    step: self.rt.step_name(*step).to_owned(),
                    request: self.bindings(env),
                },
                None => self.block(k),
            },
            None => GateVerdict::Guide {
                guidance: requests
                    .iter()
                    .filter(|r| r.status != RequestStatus::Done)
                    .flat_map(|r| {
                        r.cursor.iter().map(|c| Guidance {
                            request: r.request.clone(),
                            step: c.step.clone(),
                            remediation: c.remediation.clone(),
                        })
                    })
                    .collect(),
            },
        }
    }

    /// A block verdict for the gated call at `k` (the last event taken),
    /// explained by the session's [`Explainer`].
    fn block(&mut self, k: EventIdx) -> GateVerdict {
        let unexplained = GateVerdict::Block {
            reason: Reason::MissingStep,
            step: None,
            request: Bindings::new(),
            remediation: None,
            explanation: format!("event {k}: no authorizing path"),
        };
        let explained = match self.explainer {
            Explainer::Monitor => {
                let violation = self
                    .explained
                    .take()
                    .or_else(|| self.monitor.explain_block());
                violation.map(|v| self.monitor_block(&v))
            }
            Explainer::Datalog => self.datalog_block(k),
        };
        explained.unwrap_or(unexplained)
    }

    /// The block `violation` explained from the monitor's state: no Datalog
    /// run, a cost independent of the conversation's length.
    fn monitor_block(&self, violation: &turnstile_rules::Violation) -> GateVerdict {
        let explanation = explain_violation(
            &self.rt.bundle,
            &self.rt.plan.encoded,
            &self.extractor.interner,
            violation,
        );
        let mismatch = type_mismatch_in(&self.type_errors, violation, &explanation);
        self.block_verdict(violation, explanation, mismatch)
    }

    /// The block explained by the reference Datalog program over the facts
    /// so far.
    fn datalog_block(&self, k: EventIdx) -> Option<GateVerdict> {
        // Built here from the logged facts: the live path never pays for it.
        let mut builder = FactsBuilder::new(self.rt.bundle.arg_paths.clone());
        for facts in &self.log {
            builder.push(facts);
        }
        let mut facts = builder.snapshot(&self.extractor.interner, k.next().0);
        facts.judged = self.judged();
        let derived = evaluate(&self.rt.bundle.program, &facts).ok()?;
        let decision = Decision { facts, derived };
        let violation = decision.derived.violations.iter().find(|v| v.event == k)?;
        let explanation = explain(&self.rt.bundle, &decision, violation);
        let mismatch = type_mismatch(&decision.facts, violation, &explanation);
        Some(self.block_verdict(violation, explanation, mismatch))
    }

    fn block_verdict(
        &self,
        violation: &turnstile_rules::Violation,
        explanation: String,
        mismatch: Option<String>,
    ) -> GateVerdict {
        let remediation = violation
            .unmet
            .and_then(|s| self.remediation(s, &violation.request));
        GateVerdict::Block {
            reason: if mismatch.is_some() {
                Reason::TypeMismatch
            } else {
                violation.reason
            },
            step: violation.unmet.map(|s| self.rt.step_name(s).to_owned()),
            request: self.bindings(&violation.request),
            remediation,
            explanation: match mismatch {
                Some(mismatch) => format!("{mismatch}\n{explanation}"),
                None => explanation,
            },
        }
    }

    fn remediation(&self, step: StepId, env: &Env) -> Option<String> {
        let pieces = self.rt.step(step)?.remediation.as_ref()?;
        Some(remedy::render(
            pieces,
            &self.monitor,
            env,
            &self.extractor.interner,
            &self.type_errors,
        ))
    }

    fn bindings(&self, env: &Env) -> Bindings {
        env.bound()
            .filter_map(|(var, value)| {
                let v = self.rt.bundle.variables.get(var.0 as usize)?;
                Some((
                    v.name.clone(),
                    self.extractor.interner.resolve(value).to_owned(),
                ))
            })
            .collect()
    }

    /// The requests as the last event's firing reported them: every
    /// binding set that waits somewhere or reached an exit, except those an
    /// open, more specific request extends. A request first seen at that
    /// firing is open, one seen at an earlier firing continuing. Built on
    /// demand: [`Session::decide`] does not, [`Session::push`] does at a
    /// firing. After [`Session::restore`] every request seen is continuing.
    pub fn requests(&self) -> Vec<Arc<RequestView>> {
        let new_at_last = self
            .journal
            .seen
            .get(self.seen_before..)
            .unwrap_or_default();
        self.views(&SeenBefore {
            seen: &self.seen,
            new_at_last,
        })
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
        self.views.restamp(self.view_stamp());
    }

    /// What a rendering of the request views reads besides the request.
    fn view_stamp(&self) -> views::Stamp {
        views::Stamp {
            reads: self.monitor.read_stamp(),
            type_errors: self.type_errors.len(),
        }
    }

    /// The request views, a request being continuing when `seen` knew it.
    fn views(&self, seen: &dyn SeenFilter) -> Vec<Arc<RequestView>> {
        let depth = |step: StepId| self.rt.step(step).map_or(0, |i| i.depth);
        // The requests that reached a terminal exit: the evidence of the
        // exit steps only, in request order per step.
        let mut done: Vec<Env> = self
            .rt
            .exits
            .iter()
            .flat_map(|&exit| self.monitor.evidence_of(exit).map(|(env, _)| env))
            .collect();
        if self.rt.exits.len() > 1 {
            done.sort_unstable();
            done.dedup();
        }
        let is_done = |e: &Env| done.binary_search(e).is_ok();
        // Sorted by request, then step: one run per request.
        let mut waiting: Vec<Waiting> = self
            .monitor
            .waiting_iter()
            .filter(|w| !is_done(&w.request))
            .collect();
        waiting.sort_unstable_by_key(|w| (w.request, w.step, w.judge_from));
        let mut open: Vec<Env> = waiting.iter().map(|w| w.request).collect();
        open.dedup();
        let shown = |e: &Env| !open.iter().any(|o| o != e && o.extends(e));
        // Each request shown with the deepest steps it waits at (none: done).
        let mut requests: Vec<views::Shown> = Vec::new();
        for list in waiting.chunk_by(|a, b| a.request == b.request) {
            let Some(env) = list.first().map(|w| w.request) else {
                continue;
            };
            if !shown(&env) {
                continue;
            }
            let deepest = list.iter().map(|w| depth(w.step)).max().unwrap_or(0);
            let steps = list
                .iter()
                .filter(|w| depth(w.step) == deepest)
                .map(|w| (w.step, w.judge_from.is_some()))
                .collect();
            requests.push(views::Shown {
                request: env,
                steps,
                status: if seen.knew(&env) {
                    RequestStatus::Continuing
                } else {
                    RequestStatus::Open
                },
            });
        }
        requests.extend(
            done.iter()
                .filter(|e| !e.is_empty() && shown(e))
                .map(|e| views::Shown {
                    request: *e,
                    steps: Vec::new(),
                    status: RequestStatus::Done,
                }),
        );
        self.views
            .views(&self.rt, self.view_stamp(), requests, |env, steps| {
                let cursor = steps
                    .iter()
                    .map(|&(step, needs_judge)| Cursor {
                        needs_judge,
                        remediation: self.remediation(step, env),
                        step: self.rt.step_name(step).to_owned(),
                    })
                    .collect();
                (self.bindings(env), cursor)
            })
    }

    /// Remembers the requests waiting now, so later firings call them continuing.
    fn mark_seen(&mut self) {
        for waiting in self.monitor.waiting_iter() {
            if self.seen.insert(waiting.request) {
                self.journal.seen.push(waiting.request);
            }
        }
    }

    /// The session's state, for saving.
    pub fn snapshot(&self) -> SessionState {
        SessionState {
            version: STATE_VERSION,
            bundle: self.rt.bundle.hash.clone(),
            schedule: self.schedule,
            control: Some(self.control()),
            events: self.events.clone(),
            judged: self
                .judged()
                .into_iter()
                .map(|(step, request, evidence)| AcceptedVerdict {
                    step,
                    evidence,
                    request,
                })
                .collect(),
            asked: self.asked.iter().copied().collect(),
            seen: self.seen.iter().copied().collect(),
            after_user: self.after_user,
            after_block: self.after_block,
            usage: self.usage,
        }
    }

    /// Where the session stands now, for a later [`Session::delta`].
    pub fn mark(&self) -> DeltaMark {
        DeltaMark {
            events: self.events.len(),
            judged: self.journal.judged.len(),
            asked: self.journal.asked.len(),
            seen: self.journal.seen.len(),
        }
    }

    /// What the session added since `mark`: a store's append after an
    /// event, costing what the event added rather than the session's size.
    pub fn delta(&self, mark: DeltaMark) -> SessionDelta {
        SessionDelta {
            first_event: mark.events,
            events: self.events.get(mark.events..).unwrap_or_default().to_vec(),
            judged: self
                .journal
                .judged
                .get(mark.judged..)
                .unwrap_or_default()
                .to_vec(),
            asked: self
                .journal
                .asked
                .get(mark.asked..)
                .unwrap_or_default()
                .to_vec(),
            seen: self
                .journal
                .seen
                .get(mark.seen..)
                .unwrap_or_default()
                .to_vec(),
            total_events: self.events.len(),
            after_user: self.after_user,
            after_block: self.after_block,
            usage: self.usage,
        }
    }

    /// Rebuilds a session from its saved state (no judge is asked).
    pub fn restore(rt: Arc<BundleRuntime>, state: SessionState) -> Result<Session, SessionError> {
        if state.version != STATE_VERSION {
            return Err(SessionError::StateVersion(state.version));
        }
        if state.bundle != rt.bundle.hash {
            return Err(SessionError::BundleMismatch {
                saved: state.bundle,
                loaded: rt.bundle.hash.clone(),
            });
        }
        let mut session = Session::new(rt, state.schedule);
        if let Some(control) = state.control {
            session.set_control(control);
        }
        for verdict in state.judged {
            session
                .judged
                .entry(verdict.evidence)
                .or_default()
                .insert((verdict.step, verdict.request));
        }
        for event in state.events {
            let bytes = event.json_size();
            session.ingest(event, bytes)?;
        }
        session.journal = Journal {
            judged: session
                .judged()
                .into_iter()
                .map(|(step, request, evidence)| AcceptedVerdict {
                    step,
                    evidence,
                    request,
                })
                .collect(),
            asked: state.asked.clone(),
            seen: state.seen.clone(),
        };
        session.asked = state.asked.into_iter().collect();
        session.seen = state.seen.into_iter().collect();
        session.seen_before = session.journal.seen.len();
        session.after_user = state.after_user;
        session.after_block = state.after_block;
        session.usage = state.usage;
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
}

/// The growing parts of a session in the order they were added.
#[derive(Clone, Debug, Default)]
struct Journal {
    judged: Vec<AcceptedVerdict>,
    asked: Vec<AskedQuestion>,
    seen: Vec<Env>,
}

/// Which requests a firing's views call continuing.
trait SeenFilter {
    fn knew(&self, request: &Env) -> bool;
}

/// Before this firing's `mark_seen`: the seen set itself.
impl SeenFilter for BTreeSet<Env> {
    fn knew(&self, request: &Env) -> bool {
        self.contains(request)
    }
}

/// After it: the seen set without the requests that firing added.
struct SeenBefore<'a> {
    seen: &'a BTreeSet<Env>,
    new_at_last: &'a [Env],
}

impl SeenFilter for SeenBefore<'_> {
    fn knew(&self, request: &Env) -> bool {
        self.seen.contains(request) && !self.new_at_last.contains(request)
    }
}

/// A short description of an event for tables.
pub fn describe(event: &Event) -> String {
    match event {
        Event::User { .. } => "user".to_owned(),
        Event::Agent { .. } => "agent".to_owned(),
        Event::Principal { .. } => "principal".to_owned(),
        Event::Call {
            tool, requestor, ..
        } => match requestor {
            crate::bundle::model::Side::Agent => format!("call {tool}"),
            crate::bundle::model::Side::User => format!("user call {tool}"),
        },
        Event::Result { ok: true, .. } => "result".to_owned(),
        Event::Result { ok: false, .. } => "error".to_owned(),
    }
}
