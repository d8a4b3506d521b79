//! The incremental monitor: the live path's evaluator. It consumes a trace's
//! facts one event at a time and maintains, per request, where each step of
//! the workflow is satisfied — the same `Sat` and `Allowed` relations the
//! Datalog program ([`crate::program`], the reference semantics) derives for
//! the whole trace, without re-running anything over past events.
//!
//! How: every `(step, request)` that is *ready* (its predecessor satisfied)
//! but not yet satisfied waits in a pending set. An event updates the state
//! (latest values, call arguments, filter matches) and then re-tries only the
//! pending entries it can affect: state criteria on tool events, call and
//! result criteria on events of their tool. A satisfied step makes its
//! successors ready at the same event, so several steps can be passed in one
//! event. Semantic steps wait for a judge verdict at or after their
//! predecessor's evidence. `proptests/tests/monitor_vs_datalog.rs` checks the
//! monitor against the Datalog program on random workflows and traces.
//!
//! Each push journals what it changed, so [`Monitor::undo_last`] takes the
//! last event back at the cost of that event: a session asking the judge
//! about a write goes back to the event before it without a replay.

mod dialogue;
mod eval;
mod explain;
mod plan;
mod state;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

pub use plan::Plan;
use plan::StepPlan;
use state::{State, StateBefore, StateChange};

use crate::env::Env;
use crate::facts::EventFacts;
use crate::ids::{EventIdx, OperandId};
use crate::intern::Symbol;
use crate::steps::{StepId, Timing};
use crate::value::Value;

/// Why the monitor refused an input.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum MonitorError {
    #[error(
        "got the facts of event {got}, expected event {expected}: every event is pushed, in order"
    )]
    /// Events must be pushed in order.
    OutOfOrder {
        /// The event index pushed.
        got: EventIdx,
        /// The event index the monitor expected next.
        expected: EventIdx,
    },
    #[error(
        "verdicts at event {got} cannot amend a monitor that has consumed {events} events: only the last event can be amended"
    )]
    /// [`Monitor::amend_last`] was given an event other than the last one.
    NotLast {
        /// The event the verdicts were for.
        got: EventIdx,
        /// The events consumed so far.
        events: u32,
    },
    #[error("nothing to undo: only the last event pushed can be undone, once")]
    /// [`Monitor::undo_last`] with no push to take back.
    NothingToUndo,
}

/// What the monitor concluded about one event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventOutcome {
    /// For an agent call of a gated tool: the authorizing steps and requests
    /// (empty: blocked).
    pub gated: Option<Vec<(StepId, Env)>>,
    /// For an agent call of a protected read tool: the identification steps
    /// and the requests that permit it (empty: blocked).
    pub protected: Option<Vec<(StepId, Env)>>,
}

impl EventOutcome {
    /// `Some(true)` allowed, `Some(false)` blocked, `None` neither a gated
    /// call nor a protected read.
    pub fn allowed(&self) -> Option<bool> {
        self.gated
            .as_ref()
            .or(self.protected.as_ref())
            .map(|a| !a.is_empty())
    }
}

/// A request waiting at a step: its cursor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Waiting {
    /// The step the request waits at.
    pub step: StepId,
    /// The request's bindings.
    pub request: Env,
    /// Waiting for a judge verdict (a semantic step) that may cite events
    /// from this one on; `None`: waiting for data.
    pub judge_from: Option<EventIdx>,
}

/// What of the monitor's state an operand's value depends on, besides the
/// request's bindings and constants ([`Monitor::operand_reads`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    /// Entity fields read from tool results.
    pub fields: bool,
    /// Counts of past calls matching a filter.
    pub counts: bool,
    /// Arguments of the call the current event shows.
    pub args: bool,
    /// The time of the current event (`now()`).
    pub time: bool,
}

impl Reads {
    /// What either reads.
    pub fn union(self, other: Reads) -> Reads {
        Reads {
            fields: self.fields || other.fields,
            counts: self.counts || other.counts,
            args: self.args || other.args,
            time: self.time || other.time,
        }
    }
}

/// A stamp of the state operands read ([`Monitor::read_stamp`]): how many
/// field reads and filter matches the monitor holds, and which call's
/// arguments the current event shows. The state only grows by appending,
/// and a push taken back removes what it appended, so within one session
/// (one sequence of events) two equal stamps mean the same state for what
/// they count: an operand reading only that part has the same value under
/// the same request. Stamps of different sessions are not comparable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadStamp {
    field_reads: u64,
    filter_matches: u64,
    visible: Option<u32>,
    time: Option<crate::value::DateTime>,
}

impl ReadStamp {
    /// Whether an operand reading `reads` has the same value under the same
    /// request at both stamps.
    pub fn same_for(&self, other: &ReadStamp, reads: Reads) -> bool {
        (!reads.fields || self.field_reads == other.field_reads)
            && (!reads.counts || self.filter_matches == other.filter_matches)
            && (!reads.args || self.visible == other.visible)
            && (!reads.time || self.time == other.time)
    }
}

#[derive(Clone, Debug)]
/// The incremental evaluator: takes one event's facts at a time and keeps,
/// per request, where each step is satisfied and which gated calls were allowed.
pub struct Monitor {
    plan: Arc<Plan>,
    state: State,
    sat: BTreeSet<(StepId, Env, EventIdx)>,
    evidence: BTreeMap<(StepId, Env), EventIdx>,
    allowed: BTreeMap<EventIdx, Vec<(StepId, Env)>>,
    /// State steps: requests waiting for the criterion to hold.
    pending_state: BTreeMap<u32, BTreeSet<Env>>,
    /// Call and result steps: requests waiting, with the bound values already
    /// satisfied since they became ready (a binding step forks per value).
    pending_event: BTreeMap<u32, BTreeMap<Env, BTreeSet<Env>>>,
    /// Semantic steps: requests waiting for a verdict, with the earliest
    /// event a verdict may cite (their predecessor's evidence).
    awaiting: BTreeMap<u32, BTreeMap<Env, u32>>,
    /// Semantic steps the judge found satisfied at this event, per request.
    judged_now: Vec<(u32, Env)>,
    /// Every verdict pushed so far: `(step, request, event)`.
    judged_log: BTreeSet<(u32, Env, u32)>,
    /// How to take back the last push (and the amendments after it).
    undo: Undo,
}

/// Equal: the same derivations from the same state (the undo journal and
/// the plan's address aside).
impl PartialEq for Monitor {
    fn eq(&self, other: &Self) -> bool {
        self.state == other.state
            && self.sat == other.sat
            && self.evidence == other.evidence
            && self.allowed == other.allowed
            && self.pending_state == other.pending_state
            && self.pending_event == other.pending_event
            && self.awaiting == other.awaiting
            && sorted(&self.judged_now) == sorted(&other.judged_now)
            && self.judged_log == other.judged_log
    }
}

/// `list` in order: the verdicts of one event are a set.
fn sorted(list: &[(u32, Env)]) -> Vec<(u32, Env)> {
    let mut list = list.to_vec();
    list.sort_unstable();
    list
}

/// The changes of the last push, newest last, so [`Monitor::undo_last`]
/// costs what that event changed rather than a replay of the conversation.
#[derive(Clone, Debug, Default)]
struct Undo {
    /// What the push overwrote; `None`: nothing to undo.
    before: Option<(StateBefore, Vec<(u32, Env)>)>,
    state: Vec<StateChange>,
    derived: Vec<Derived>,
}

/// One change of the derived relations.
#[derive(Clone, Debug)]
enum Derived {
    JudgedLogged((u32, Env, u32)),
    Sat((StepId, Env, EventIdx)),
    Evidence((StepId, Env)),
    Allowed(EventIdx, (StepId, Env)),
    PendingStateCreated(u32),
    PendingStateAdded(u32, Env),
    PendingStateRemoved(u32, Env),
    PendingEventCreated(u32),
    PendingEventWas(u32, Env, Option<BTreeSet<Env>>),
    PendingEventFired(u32, Env, Env),
    AwaitingCreated(u32),
    AwaitingWas(u32, Env, Option<u32>),
}

enum Work {
    Ready(u32, Env),
    Retry(u32, Env),
}

impl Monitor {
    /// A monitor that has seen no event.
    pub fn new(plan: Arc<Plan>) -> Self {
        Monitor {
            plan,
            state: State::default(),
            sat: BTreeSet::new(),
            evidence: BTreeMap::new(),
            allowed: BTreeMap::new(),
            pending_state: BTreeMap::new(),
            pending_event: BTreeMap::new(),
            awaiting: BTreeMap::new(),
            judged_now: Vec::new(),
            judged_log: BTreeSet::new(),
            undo: Undo::default(),
        }
    }

    /// Events consumed so far.
    pub fn events(&self) -> u32 {
        self.state.events
    }

    /// `(step, request, event)` for every satisfaction so far.
    pub fn sat(&self) -> &BTreeSet<(StepId, Env, EventIdx)> {
        &self.sat
    }

    /// Earliest satisfaction of each step per request.
    pub fn evidence(&self) -> &BTreeMap<(StepId, Env), EventIdx> {
        &self.evidence
    }

    /// The requests satisfying `step`, each with its earliest evidence, in
    /// request order: a range of [`Monitor::evidence`], not a scan of it.
    pub fn evidence_of(&self, step: StepId) -> impl Iterator<Item = (Env, EventIdx)> + '_ {
        self.evidence
            .range((step, Env::EMPTY)..=(step, Env::MAX))
            .map(|(&(_, env), &k)| (env, k))
    }

    /// Gated calls allowed so far, with their authorizing steps and requests.
    pub fn allowed(&self) -> &BTreeMap<EventIdx, Vec<(StepId, Env)>> {
        &self.allowed
    }

    /// Consumes the next event's facts. `judged`: semantic steps the judge
    /// found satisfied with this event as evidence, each for the request it
    /// was asked about (and no other).
    pub fn push(
        &mut self,
        facts: &EventFacts,
        judged: &[(StepId, Env)],
    ) -> Result<EventOutcome, MonitorError> {
        let k = facts.event.0;
        if k != self.state.events {
            return Err(MonitorError::OutOfOrder {
                got: facts.event,
                expected: EventIdx(self.state.events),
            });
        }
        let plan = Arc::clone(&self.plan);
        self.undo.state.clear();
        self.undo.derived.clear();
        let state_before = self.state.apply(&plan, facts, &mut self.undo.state);
        let judged_before = std::mem::replace(
            &mut self.judged_now,
            judged.iter().map(|(s, e)| (s.0, *e)).collect(),
        );
        self.undo.before = Some((state_before, judged_before));
        for &(s, e) in judged {
            if self.judged_log.insert((s.0, e, k)) {
                self.undo.derived.push(Derived::JudgedLogged((s.0, e, k)));
            }
        }
        let mut work = Vec::new();
        for i in 0..self.judged_now.len() {
            if let Some(&(s, e)) = self.judged_now.get(i) {
                self.unawait(s, e, &mut work);
            }
        }
        // A state criterion can change at a tool event, (through the
        // dialogue predicates) at a conversation turn, and (through
        // `now()`) where the time changes.
        if self.state.is_tool_event() || facts.turn.is_some() || self.state.time_changed_now {
            for (&s, envs) in &self.pending_state {
                work.extend(envs.iter().map(|e| Work::Retry(s, *e)));
            }
        }
        let tool_steps = match (self.state.call_now, self.state.ok_result_now) {
            (Some((tool, _)), _) => plan.call_steps.get(&tool),
            (None, Some(tool)) => plan.result_steps.get(&tool),
            (None, None) => None,
        };
        for &s in tool_steps.into_iter().flatten() {
            if let Some(envs) = self.pending_event.get(&s) {
                work.extend(envs.keys().map(|e| Work::Retry(s, *e)));
            }
        }
        if k == 0 {
            self.emit(plan.entry.0, Env::EMPTY, k, &mut work);
        }
        self.derive(k, work);
        let protected = self.permit_read(k);
        let gated = match self.state.call_now {
            Some((tool, true)) if plan.is_gated(tool) => {
                Some(self.allowed.get(&EventIdx(k)).cloned().unwrap_or_default())
            }
            _ => None,
        };
        Ok(EventOutcome { gated, protected })
    }

    /// For an agent's call of a protected read tool at `k` (the last event
    /// taken): every `(after step, request)` that permits it — a request
    /// that satisfied the step by `k` and under whose bindings the guard
    /// holds — booked as allowed. `None` for any other event.
    fn permit_read(&mut self, k: u32) -> Option<Vec<(StepId, Env)>> {
        let plan = Arc::clone(&self.plan);
        let Some((tool, true)) = self.state.call_now else {
            return None;
        };
        if !plan.is_protected(tool) {
            return None;
        }
        let mut permits: Vec<(StepId, Env)> = Vec::new();
        for protection in plan.protections.iter().filter(|p| p.tool == tool) {
            let guard = protection
                .guard
                .map(|g| (plan.encoded.root(g), plan.encoded.mask(g)));
            for &step in &protection.after {
                for (env, at) in self.evidence_of(step) {
                    let holds = match guard {
                        None => true,
                        Some((Some(root), mask)) => {
                            env.binds_all(mask) && self.holds(Some(root), &env.project(mask))
                        }
                        // A guard with no node never holds (fail closed).
                        Some((None, _)) => false,
                    };
                    if at.0 <= k && holds && !permits.contains(&(step, env)) {
                        permits.push((step, env));
                    }
                }
            }
        }
        permits.sort();
        let booked = self.allowed.entry(EventIdx(k)).or_default();
        for &permit in &permits {
            if !booked.contains(&permit) {
                booked.push(permit);
                self.undo
                    .derived
                    .push(Derived::Allowed(EventIdx(k), permit));
            }
        }
        booked.sort();
        if booked.is_empty() {
            self.allowed.remove(&EventIdx(k));
        }
        Some(permits)
    }

    /// Adds verdicts that take effect at `at`, the last event consumed, as
    /// if they had been pushed with it: the monitor ends in the state a
    /// fresh monitor fed every event, with these verdicts added to the last
    /// one's, would be in. It costs the derivations the verdicts enable —
    /// nothing is replayed — which is why a session accepting a verdict on
    /// the latest turn does not rebuild. Derivations at event `at` do not
    /// depend on their order (the result is a set), so adding verdicts
    /// afterwards derives the same.
    pub fn amend_last(
        &mut self,
        at: EventIdx,
        judged: &[(StepId, Env)],
    ) -> Result<(), MonitorError> {
        let last = self.state.events.checked_sub(1);
        if last != Some(at.0) {
            return Err(MonitorError::NotLast {
                got: at,
                events: self.state.events,
            });
        }
        let mut work = Vec::new();
        for &(s, e) in judged {
            if self.judged_now.contains(&(s.0, e)) {
                continue;
            }
            // `judged_now` as the push found it is in the undo journal.
            self.judged_now.push((s.0, e));
            if self.judged_log.insert((s.0, e, at.0)) {
                self.undo
                    .derived
                    .push(Derived::JudgedLogged((s.0, e, at.0)));
            }
            self.unawait(s.0, e, &mut work);
        }
        self.derive(at.0, work);
        // An identification the verdicts satisfied now permits the read.
        self.permit_read(at.0);
        Ok(())
    }

    /// Takes back the last [`Monitor::push`] and any [`Monitor::amend_last`]
    /// after it: the monitor ends equal to what it was before that push
    /// (property-tested), at a cost proportional to what the event changed,
    /// not to the conversation. This is how a session goes back to the
    /// event before a write to ask the judge about it. Only one push can be
    /// undone: a second call, or one before any push, is
    /// [`MonitorError::NothingToUndo`].
    pub fn undo_last(&mut self) -> Result<(), MonitorError> {
        let (state_before, judged_before) =
            self.undo.before.take().ok_or(MonitorError::NothingToUndo)?;
        while let Some(change) = self.undo.derived.pop() {
            self.revert(change);
        }
        while let Some(change) = self.undo.state.pop() {
            self.state.revert(change);
        }
        self.state.restore(state_before);
        self.judged_now = judged_before;
        Ok(())
    }

    fn revert(&mut self, change: Derived) {
        match change {
            Derived::JudgedLogged(entry) => {
                self.judged_log.remove(&entry);
            }
            Derived::Sat(entry) => {
                self.sat.remove(&entry);
            }
            Derived::Evidence(key) => {
                self.evidence.remove(&key);
            }
            Derived::Allowed(k, entry) => {
                if let Some(list) = self.allowed.get_mut(&k) {
                    list.retain(|x| *x != entry);
                    if list.is_empty() {
                        self.allowed.remove(&k);
                    }
                }
            }
            Derived::PendingStateCreated(s) => {
                self.pending_state.remove(&s);
            }
            Derived::PendingStateAdded(s, e) => {
                if let Some(envs) = self.pending_state.get_mut(&s) {
                    envs.remove(&e);
                }
            }
            Derived::PendingStateRemoved(s, e) => {
                self.pending_state.entry(s).or_default().insert(e);
            }
            Derived::PendingEventCreated(s) => {
                self.pending_event.remove(&s);
            }
            Derived::PendingEventWas(s, e, was) => {
                let m = self.pending_event.entry(s).or_default();
                match was {
                    Some(done) => m.insert(e, done),
                    None => m.remove(&e),
                };
            }
            Derived::PendingEventFired(s, e, combo) => {
                if let Some(done) = self.pending_event.get_mut(&s).and_then(|m| m.get_mut(&e)) {
                    done.remove(&combo);
                }
            }
            Derived::AwaitingCreated(s) => {
                self.awaiting.remove(&s);
            }
            Derived::AwaitingWas(s, e, was) => {
                let m = self.awaiting.entry(s).or_default();
                match was {
                    Some(from) => m.insert(e, from),
                    None => m.remove(&e),
                };
            }
        }
    }

    /// A verdict for `(s, e)`: the request stops waiting at semantic step
    /// `s`, which becomes ready.
    fn unawait(&mut self, s: u32, e: Env, work: &mut Vec<Work>) {
        if let Some(waiting) = self.awaiting.get_mut(&s)
            && let Some(from) = waiting.remove(&e)
        {
            // No empty entry is left behind: a monitor given the verdict
            // when the step was reached never created one, and the two must
            // be equal (the undo recreates the entry).
            if waiting.is_empty() {
                self.awaiting.remove(&s);
            }
            self.undo
                .derived
                .push(Derived::AwaitingWas(s, e, Some(from)));
            work.push(Work::Ready(s, e));
        }
    }

    /// Runs the derivations of event `k` to a fixpoint.
    fn derive(&mut self, k: u32, mut work: Vec<Work>) {
        // Depth-first is fine: every derivation happens at this event, and
        // the result is a set.
        while let Some(item) = work.pop() {
            match item {
                Work::Ready(s, e) => self.ready(s, e, k, &mut work),
                Work::Retry(s, e) => self.retry(s, e, k, &mut work),
            }
        }
    }

    fn ready(&mut self, s: u32, e: Env, k: u32, work: &mut Vec<Work>) {
        let Some(step) = self.plan.steps.get(s as usize) else {
            return;
        };
        if step.trivial {
            self.emit(s, e, k, work);
            return;
        }
        if !e.binds_all(step.key_mask) {
            // The request has not bound every variable the criterion reads:
            // no evaluation point matches it, ever.
            return;
        }
        match step.timing {
            Timing::State => {
                if !self.pending_state.contains_key(&s) {
                    self.undo.derived.push(Derived::PendingStateCreated(s));
                }
                if self.pending_state.entry(s).or_default().insert(e) {
                    self.undo.derived.push(Derived::PendingStateAdded(s, e));
                }
            }
            Timing::Call(_) | Timing::Result(_) => {
                if !self.pending_event.contains_key(&s) {
                    self.undo.derived.push(Derived::PendingEventCreated(s));
                }
                let was = self
                    .pending_event
                    .entry(s)
                    .or_default()
                    .insert(e, BTreeSet::new());
                self.undo.derived.push(Derived::PendingEventWas(s, e, was));
            }
        }
        self.retry(s, e, k, work);
    }

    fn retry(&mut self, s: u32, e: Env, k: u32, work: &mut Vec<Work>) {
        let plan = Arc::clone(&self.plan);
        let Some(step) = plan.steps.get(s as usize) else {
            return;
        };
        if !self.state.is_point(step.timing) {
            return;
        }
        match step.timing {
            Timing::State => {
                let q = e.project(step.key_mask);
                if self.holds(step.root, &q) {
                    if let Some(envs) = self.pending_state.get_mut(&s)
                        && envs.remove(&e)
                    {
                        self.undo.derived.push(Derived::PendingStateRemoved(s, e));
                    }
                    self.emit(s, e, k, work);
                }
            }
            Timing::Call(_) | Timing::Result(_) => {
                let bound = self.state.binds_now(s);
                if !bound.binds_all(step.bind_mask) || !e.joinable(&bound, step.bind_mask) {
                    return;
                }
                let p = e.project(step.key_mask).merge(&bound);
                let combo = p.project(step.bind_mask);
                let fired = self
                    .pending_event
                    .get(&s)
                    .and_then(|m| m.get(&e))
                    .is_some_and(|done| done.contains(&combo));
                if fired || !self.holds(step.root, &p) {
                    return;
                }
                if let Some(m) = self.pending_event.get_mut(&s) {
                    if step.bind_mask == 0 {
                        if let Some(done) = m.remove(&e) {
                            self.undo
                                .derived
                                .push(Derived::PendingEventWas(s, e, Some(done)));
                        }
                    } else if let Some(done) = m.get_mut(&e)
                        && done.insert(combo)
                    {
                        self.undo
                            .derived
                            .push(Derived::PendingEventFired(s, e, combo));
                    }
                }
                self.emit(s, e.merge(&p), k, work);
            }
        }
    }

    /// Whether the call of `tool` just pushed is refused whatever the
    /// requests bound and whichever earlier calls ran: every step that
    /// authorizes `tool` has a conjunct that reads only the call's
    /// arguments, read fields, constants, the clock and request variables
    /// its check pins to an argument (taken as that argument's value), and
    /// fails now. Such a conjunct fails alike in every workflow over these
    /// events whose checks differ from this one only in other conditions —
    /// the workflow with consent granted is one —, so none of them
    /// authorizes the call either. `false` when the last event pushed is no
    /// call of `tool`.
    pub fn refused_by_facts(&self, tool: Symbol) -> bool {
        if self.state.call_now.map(|(t, _)| t) != Some(tool) {
            return false;
        }
        let Some(steps) = self.plan.auth_steps.get(&tool) else {
            return false;
        };
        !steps.is_empty()
            && steps.iter().all(|&s| {
                let Some(step) = self.plan.steps.get(s as usize) else {
                    return false;
                };
                let Some(env) = self.pinned_env(step) else {
                    return false;
                };
                step.fact_conjuncts
                    .iter()
                    .any(|&c| !self.holds(Some(c), &env))
            })
    }

    /// The only bindings of `step`'s pinned variables under which its
    /// check can hold at the call just pushed: each its argument's one
    /// value. `None` when an argument has not exactly one string value, or
    /// two pins disagree.
    fn pinned_env(&self, step: &StepPlan) -> Option<Env> {
        let view = self.state.now();
        let call = view.args_visible()?;
        let mut env = Env::EMPTY;
        for &(var, path) in &step.pins {
            let mut values = view.arg_values(call, self.plan.fact_path(path));
            let (Some((_, Value::Str(value))), None) = (values.next(), values.next()) else {
                return None;
            };
            match env.get(var) {
                Some(bound) if bound != value => return None,
                _ => env = env.with(var, value),
            }
        }
        Some(env)
    }

    fn holds(&self, root: Option<u32>, env: &Env) -> bool {
        let Some(root) = root else { return true };
        eval::Ctx {
            plan: &self.plan,
            state: self.state.now(),
            env,
        }
        .holds(root)
    }

    fn emit(&mut self, s: u32, e: Env, k: u32, work: &mut Vec<Work>) {
        if !self.sat.insert((StepId(s), e, EventIdx(k))) {
            return;
        }
        self.undo
            .derived
            .push(Derived::Sat((StepId(s), e, EventIdx(k))));
        if let std::collections::btree_map::Entry::Vacant(slot) =
            self.evidence.entry((StepId(s), e))
        {
            slot.insert(EventIdx(k));
            self.undo.derived.push(Derived::Evidence((StepId(s), e)));
        }
        let plan = Arc::clone(&self.plan);
        let Some(step) = plan.steps.get(s as usize) else {
            return;
        };
        if let (Some(tool), Some((now, true))) = (step.authorizes, self.state.call_now)
            && tool == now
            && plan.is_gated(tool)
        {
            let list = self.allowed.entry(EventIdx(k)).or_default();
            list.push((StepId(s), e));
            list.sort();
            self.undo
                .derived
                .push(Derived::Allowed(EventIdx(k), (StepId(s), e)));
        }
        for &next in &step.succs {
            let semantic = plan.steps.get(next as usize).is_some_and(|n| n.semantic);
            if !semantic || self.judged_now.contains(&(next, e)) {
                work.push(Work::Ready(next, e));
            } else {
                if !self.awaiting.contains_key(&next) {
                    self.undo.derived.push(Derived::AwaitingCreated(next));
                }
                let waiting = self.awaiting.entry(next).or_default();
                if let std::collections::btree_map::Entry::Vacant(slot) = waiting.entry(e) {
                    slot.insert(k);
                    self.undo.derived.push(Derived::AwaitingWas(next, e, None));
                }
            }
        }
    }

    /// Every request waiting at a step (the cursors), in a stable order.
    pub fn waiting(&self) -> Vec<Waiting> {
        let mut out: Vec<Waiting> = self.waiting_iter().collect();
        out.sort();
        out
    }

    /// Every request waiting at a step, in no particular order and without
    /// collecting them: for callers that sort (or only look) themselves.
    pub fn waiting_iter(&self) -> impl Iterator<Item = Waiting> + '_ {
        let state = self.pending_state.iter().flat_map(|(&s, envs)| {
            envs.iter().map(move |e| Waiting {
                step: StepId(s),
                request: *e,
                judge_from: None,
            })
        });
        let event = self.pending_event.iter().flat_map(|(&s, envs)| {
            envs.keys().map(move |e| Waiting {
                step: StepId(s),
                request: *e,
                judge_from: None,
            })
        });
        let awaiting = self.awaiting.iter().flat_map(|(&s, envs)| {
            envs.iter().map(move |(e, from)| Waiting {
                step: StepId(s),
                request: *e,
                judge_from: Some(EventIdx(*from)),
            })
        });
        state.chain(event).chain(awaiting)
    }

    /// What of the state [`Monitor::operand_values`] of `o` reads.
    pub fn operand_reads(&self, o: OperandId) -> Reads {
        self.plan.operand_reads(o.0)
    }

    /// The stamp of the state operands read now (see [`ReadStamp`]).
    pub fn read_stamp(&self) -> ReadStamp {
        self.state.read_stamp()
    }

    /// The values of encoded operand `o` now, under request `env`, with the
    /// event each field value was read at.
    pub fn operand_values(&self, o: OperandId, env: &Env) -> Vec<Value> {
        eval::Ctx {
            plan: &self.plan,
            state: self.state.now(),
            env,
        }
        .operand(o.0)
        .vals
        .into_iter()
        .map(|(_, v)| v)
        .collect()
    }
}
