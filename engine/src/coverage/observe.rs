//! The engine's side of the coverage analysis: a concrete trace replayed
//! through two sessions at once — the `workflow` reference, which decides
//! what deviates, and the schedule under test, which says whether it caught
//! it. Every deviation is read off the reference session's verdicts
//! ([`deviation_at`]): a write or a protected read deviates when the
//! reference blocks it; an instruction or claim when the reference says
//! `deviate` (the session's own order rules, `session::deviation`; a user's
//! device call after an instruction that did not name the fix counts as
//! that instruction, at the instruction's event; the agent's own call of a
//! fix under solo control is an [`AgentClass::DeviceCall`]). What the
//! analysis calls a deviation, the session reports. Every session replaying
//! a trace takes the trace's `control` (its header), as `turnstile replay`
//! does.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::Serialize;
use turnstile_judge::SyncJudge;
use turnstile_rules::{EventIdx, Monitor};

use super::automaton::AgentClass;
use crate::bundle::model::{Control, Side};
use crate::session::{
    Act, BundleRuntime, EventReport, GateVerdict, Schedule, Session, SessionError,
};
use crate::trace::{Event, Trace};

/// A deviation seen when replaying a concrete trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Observed {
    /// The agent event that deviated.
    pub event: EventIdx,
    /// Its class.
    pub class: AgentClass,
    /// Whether the schedule under test caught it: blocked a write, fired at a
    /// read, said `deviate` at an instruction or claim.
    pub covered: bool,
    /// The steps the reference monitor has satisfied for some request once
    /// the event is taken (a deviating event satisfies none), by name.
    pub satisfied: BTreeSet<String>,
}

/// Every deviation of `trace`, in event order, with whether `schedule`
/// caught it.
pub fn deviations(
    rt: &Arc<BundleRuntime>,
    trace: &Trace,
    schedule: Schedule,
    judge: &dyn SyncJudge,
) -> Result<Vec<Observed>, SessionError> {
    Ok(deviations_under(rt, trace, &[schedule], judge)?
        .into_iter()
        .next()
        .unwrap_or_default())
}

/// [`deviations`] under several schedules at once (one reference replay),
/// in the order of `schedules`.
pub fn deviations_under(
    rt: &Arc<BundleRuntime>,
    trace: &Trace,
    schedules: &[Schedule],
    judge: &dyn SyncJudge,
) -> Result<Vec<Vec<Observed>>, SessionError> {
    let mut reference = reference_session(rt, trace.meta.control);
    let mut tested: Vec<Session> = schedules
        .iter()
        .map(|s| {
            let mut session = Session::new(Arc::clone(rt), *s);
            if let Some(control) = trace.meta.control {
                session.set_control(control);
            }
            session.set_clock_now(Some(analysis_now()));
            session
        })
        .collect();
    let mut found = vec![Vec::new(); schedules.len()];
    for event in &trace.events {
        let seen = reference.push(event.clone(), judge)?;
        let mut reports = Vec::with_capacity(tested.len());
        for session in &mut tested {
            reports.push(session.push(event.clone(), judge)?);
        }
        let Some((at, class)) = deviation_at(rt, event, &seen) else {
            continue;
        };
        let satisfied = satisfied_names(rt, reference.monitor());
        for (report, list) in reports.iter().zip(found.iter_mut()) {
            list.push(Observed {
                event: at,
                class: class.clone(),
                covered: caught(&class, report),
                satisfied: satisfied.clone(),
            });
        }
    }
    Ok(found)
}

/// The analysis' reference: a `workflow` session that asks the judge
/// eagerly ([`Session::judge_eagerly`]), so its monitor shows every step a
/// judge grants as soon as it can be — the state the automaton abstracts.
/// `control`: who calls the device tools (a trace's own header; `None`:
/// the bundle's).
pub(crate) fn reference_session(rt: &Arc<BundleRuntime>, control: Option<Control>) -> Session {
    let mut session = Session::new(Arc::clone(rt), Schedule::Workflow);
    session.judge_eagerly();
    if let Some(control) = control {
        session.set_control(control);
    }
    session.set_clock_now(Some(analysis_now()));
    session
}

/// The instant the analysis decides every event at when the bundle's
/// clock is not fixed (`event` or `system`): noon on the day the
/// witnesses' dates are on, so a concrete replay never reads the wall
/// clock and gives the same verdicts on any day.
pub fn analysis_now() -> turnstile_rules::DateTime {
    turnstile_rules::DateTime(turnstile_rules::DateTime::at_midnight(WITNESS_DAY).0 + 12 * 3_600)
}

/// The day the witnesses' dates are on (`2024-05-15`).
const WITNESS_DAY: turnstile_rules::Date = turnstile_rules::Date(19_858);

/// The deviation the reference (`workflow`) session's `report` on `event`
/// shows, if any, and the agent event where it happened.
pub fn deviation_at(
    rt: &BundleRuntime,
    event: &Event,
    report: &EventReport,
) -> Option<(EventIdx, AgentClass)> {
    match (&report.verdict, event) {
        // A write held for confirmation did not run: covered like a block.
        (GateVerdict::Block { .. } | GateVerdict::Confirm { .. }, Event::Call { tool, .. }) => {
            let protected = rt.bundle.protected_reads.iter().any(|p| p.tool == *tool);
            Some((
                report.event,
                if protected {
                    AgentClass::Read(tool.clone())
                } else {
                    AgentClass::Write(tool.clone())
                },
            ))
        }
        (GateVerdict::Deviate { action, at, .. }, _) => {
            let class = match (Act::parse(action)?, event) {
                // The agent's own call of the fix (solo control).
                (
                    Act::Calls(tool),
                    Event::Call {
                        requestor: Side::Agent,
                        ..
                    },
                ) => AgentClass::DeviceCall(tool),
                // The user's call shows the instruction before it (dual).
                (Act::Instructs(tool) | Act::Calls(tool), _) => AgentClass::Instruct(tool),
                (Act::Claims(claim), _) => AgentClass::Claim(claim),
            };
            Some((*at, class))
        }
        _ => None,
    }
}

/// Whether a schedule's `report` on the event caught a deviation of `class`.
fn caught(class: &AgentClass, report: &EventReport) -> bool {
    match class {
        AgentClass::Write(_) | AgentClass::Read(_) => report.verdict.withholds(),
        AgentClass::Instruct(_) | AgentClass::Claim(_) | AgentClass::DeviceCall(_) => {
            report.verdict.is_deviation()
        }
    }
}

/// The first deviation of `trace` under `schedule`, if any.
pub fn first_deviation(
    rt: &Arc<BundleRuntime>,
    trace: &Trace,
    schedule: Schedule,
    judge: &dyn SyncJudge,
) -> Result<Option<Observed>, SessionError> {
    Ok(deviations(rt, trace, schedule, judge)?.into_iter().next())
}

/// The identification of protected read `tool` (one of its `after`
/// steps) the reference session has satisfied for some request once it
/// has taken all of `trace`, by name.
pub fn identification_after(
    rt: &Arc<BundleRuntime>,
    trace: &Trace,
    judge: &dyn SyncJudge,
    tool: &str,
) -> Result<Option<String>, SessionError> {
    let mut reference = reference_session(rt, trace.meta.control);
    for event in &trace.events {
        reference.push(event.clone(), judge)?;
    }
    let satisfied = satisfied_names(rt, reference.monitor());
    Ok(rt
        .bundle
        .protected_reads
        .iter()
        .filter(|p| p.tool == tool)
        .flat_map(|p| &p.after)
        .find(|step| satisfied.contains(*step))
        .cloned())
}

/// The steps satisfied for some request once the reference (`workflow`)
/// session has taken all of `trace`, by name.
pub fn satisfied_after(
    rt: &Arc<BundleRuntime>,
    trace: &Trace,
    judge: &dyn SyncJudge,
) -> Result<BTreeSet<String>, SessionError> {
    let mut reference = reference_session(rt, trace.meta.control);
    for event in &trace.events {
        reference.push(event.clone(), judge)?;
    }
    Ok(satisfied_names(rt, reference.monitor()))
}

fn satisfied_names(rt: &BundleRuntime, monitor: &Monitor) -> BTreeSet<String> {
    monitor
        .evidence()
        .keys()
        .map(|(s, _)| rt.step_name(*s).to_owned())
        .collect()
}
