//! Replaying a recorded trace through a session under a firing schedule,
//! and comparing schedules: a *deviation* is a mutating call the complete
//! `workflow` schedule blocks; another schedule catches it if it blocks it
//! too, and misses it if it did not fire there. [`deviation_coverage`]
//! counts every deviation, out-of-order reads included.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use turnstile_judge::{Judge, SyncJudge, Usage};
use turnstile_rules::{DateTime, EventIdx};

use super::{BundleRuntime, EventReport, Explainer, GateVerdict, Schedule, Session, SessionError};
use crate::trace::Trace;

/// One trace replayed under one schedule.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReplayReport {
    /// The trace id.
    pub trace: String,
    /// The schedule the trace was replayed under.
    pub schedule: Schedule,
    /// The report on every event.
    pub events: Vec<EventReport>,
    /// Judge usage.
    pub usage: Usage,
}

impl ReplayReport {
    /// Every mutating call's event and whether it was withheld — blocked,
    /// or held for the user's confirmation (`None`: the schedule did not
    /// fire there).
    pub fn gated_calls(&self) -> Vec<(EventIdx, Option<bool>)> {
        self.events
            .iter()
            .filter(|r| r.mutating)
            .map(|r| match &r.verdict {
                GateVerdict::Unchecked { .. } => (r.event, None),
                verdict => (r.event, Some(verdict.withholds())),
            })
            .collect()
    }

    /// Mutating calls the schedule did not check although the monitor would
    /// have blocked them: the deviations it missed.
    pub fn unchecked_deviations(&self) -> usize {
        self.events
            .iter()
            .filter(|r| matches!(r.verdict, GateVerdict::Unchecked { would_block: true }))
            .count()
    }

    /// The events whose verdict is a deviation without a write.
    pub fn deviated(&self) -> Vec<EventIdx> {
        self.events_where(GateVerdict::is_deviation)
    }

    /// The events whose verdict asks for the user's confirmation.
    pub fn confirmed(&self) -> Vec<EventIdx> {
        self.events_where(GateVerdict::is_confirm)
    }

    /// The events whose call must not run: blocked, or held for the user's
    /// confirmation.
    pub fn withheld(&self) -> Vec<EventIdx> {
        self.events_where(GateVerdict::withholds)
    }

    /// The events whose verdict is a block.
    pub fn blocked(&self) -> Vec<EventIdx> {
        self.events_where(GateVerdict::is_block)
    }

    /// The events whose verdict meets `test`, in order.
    fn events_where(&self, test: impl Fn(&GateVerdict) -> bool) -> Vec<EventIdx> {
        self.events
            .iter()
            .filter(|r| test(&r.verdict))
            .map(|r| r.event)
            .collect()
    }
}

/// Replays `trace` event by event.
pub fn replay(
    rt: &Arc<BundleRuntime>,
    trace: &Trace,
    schedule: Schedule,
    judge: &dyn SyncJudge,
) -> Result<ReplayReport, SessionError> {
    replay_explained(rt, trace, schedule, judge, Explainer::default())
}

/// Replays `trace` event by event, its blocks explained by `explainer`
/// (`turnstile replay --explain`).
pub fn replay_explained(
    rt: &Arc<BundleRuntime>,
    trace: &Trace,
    schedule: Schedule,
    judge: &dyn SyncJudge,
    explainer: Explainer,
) -> Result<ReplayReport, SessionError> {
    replay_at(rt, trace, schedule, judge, explainer, None)
}

/// Replays `trace` event by event, its blocks explained by `explainer`,
/// each event decided at its recorded time, else at `now` (`--now`); a
/// bundle reading `now()` on a clock that is not fixed refuses a trace
/// that gives neither ([`SessionError::Clock`]).
pub fn replay_at(
    rt: &Arc<BundleRuntime>,
    trace: &Trace,
    schedule: Schedule,
    judge: &dyn SyncJudge,
    explainer: Explainer,
    now: Option<DateTime>,
) -> Result<ReplayReport, SessionError> {
    let mut session = replaying(rt, trace, schedule, explainer, now)?;
    let mut events = Vec::with_capacity(trace.events.len());
    for event in &trace.events {
        events.push(session.push(event.clone(), judge)?);
    }
    Ok(replayed(trace, schedule, events, &session))
}

/// [`replay_at`] with a judge that is awaited (a model).
pub async fn replay_async(
    rt: &Arc<BundleRuntime>,
    trace: &Trace,
    schedule: Schedule,
    judge: &dyn Judge,
    explainer: Explainer,
    now: Option<DateTime>,
) -> Result<ReplayReport, SessionError> {
    let mut session = replaying(rt, trace, schedule, explainer, now)?;
    let mut events = Vec::with_capacity(trace.events.len());
    for event in &trace.events {
        events.push(session.push_async(event.clone(), judge).await?);
    }
    Ok(replayed(trace, schedule, events, &session))
}

/// The session a replay of `trace` runs: under its `control`, if it says,
/// each event decided at its recorded time, else at `now`.
fn replaying(
    rt: &Arc<BundleRuntime>,
    trace: &Trace,
    schedule: Schedule,
    explainer: Explainer,
    now: Option<DateTime>,
) -> Result<Session, SessionError> {
    let mut session = Session::new(Arc::clone(rt), schedule);
    session.set_explainer(explainer);
    session.replay_times_of(trace, now)?;
    if let Some(control) = trace.meta.control {
        session.set_control(control);
    }
    Ok(session)
}

fn replayed(
    trace: &Trace,
    schedule: Schedule,
    events: Vec<EventReport>,
    session: &Session,
) -> ReplayReport {
    ReplayReport {
        trace: trace.meta.id.clone(),
        schedule,
        events,
        usage: session.usage(),
    }
}

/// Which of the reference's deviations a schedule caught and missed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// The schedule measured against the workflow reference.
    pub schedule: Option<Schedule>,
    /// The deviations: the events the workflow schedule blocks.
    pub deviations: Vec<EventIdx>,
    /// Deviations this schedule blocked too.
    pub caught: Vec<EventIdx>,
    /// Deviations this schedule let through.
    pub missed: Vec<EventIdx>,
    /// Deviations without a write: the events the workflow schedule reports
    /// as `deviate` (an instruction or claim out of order).
    #[serde(default)]
    pub unwritten: Vec<EventIdx>,
    /// Of those, the ones this schedule reported too.
    #[serde(default)]
    pub unwritten_caught: Vec<EventIdx>,
    /// Of those, the ones this schedule let through: the blind spot of a
    /// schedule that fires only on writes.
    #[serde(default)]
    pub unwritten_missed: Vec<EventIdx>,
}

/// Compares `other` with the `workflow` replay of the same trace.
pub fn coverage(workflow: &ReplayReport, other: &ReplayReport) -> Coverage {
    // A write held for confirmation did not run: it counts as caught.
    let deviations = workflow.withheld();
    let withheld = other.withheld();
    let (caught, missed) = deviations.iter().partition(|e| withheld.contains(e));
    let unwritten = workflow.deviated();
    let reported = other.deviated();
    let (unwritten_caught, unwritten_missed) = unwritten.iter().partition(|e| reported.contains(e));
    Coverage {
        schedule: Some(other.schedule),
        deviations,
        caught,
        missed,
        unwritten,
        unwritten_caught,
        unwritten_missed,
    }
}

/// Which of *every* deviation of `trace` `schedule` caught: the writes the
/// `workflow` schedule blocks and the out-of-order procedural reads
/// ([`crate::coverage::observe`]), so the gap of an action-only guard shows
/// (Corollary 1). [`coverage`] counts the writes only.
pub fn deviation_coverage(
    rt: &Arc<BundleRuntime>,
    trace: &Trace,
    schedule: Schedule,
    judge: &dyn SyncJudge,
) -> Result<Coverage, SessionError> {
    let found = crate::coverage::observe::deviations(rt, trace, schedule, judge)?;
    let deviations = found.iter().map(|d| d.event).collect();
    let (caught, missed): (Vec<_>, Vec<_>) = found.iter().partition(|d| d.covered);
    Ok(Coverage {
        schedule: Some(schedule),
        deviations,
        caught: caught.into_iter().map(|d| d.event).collect(),
        missed: missed.into_iter().map(|d| d.event).collect(),
        // The observed deviations already include those without a write.
        unwritten: Vec::new(),
        unwritten_caught: Vec::new(),
        unwritten_missed: Vec::new(),
    })
}
