//! The engine's side of the coverage analysis: a concrete trace replayed
//! through two sessions at once — the `workflow` reference, which decides
//! what deviates, and the schedule under test, which says whether it caught
//! it. Every deviation is read off the reference session's verdicts
//! ([`deviation_at`]): a write deviates when the reference blocks it; an
//! instruction or claim when the reference says `deviate` (the session's own
//! order rules, `session::deviation`; a user's device call after an
//! instruction that did not name the fix counts as that instruction, at the
//! instruction's event; the agent's own call of a fix under solo control is
//! an [`AgentClass::DeviceCall`]); a read when it calls a procedural read
//! tool (one a `tool_call` step names) while no step of that tool has been
//! reached by any request — neither satisfied nor waiting in the reference
//! monitor once the event is taken. The session has no verdict for such a
//! read yet (the engine gates writes only); it is defined here from the
//! monitor state. Every session replaying a trace takes the trace's
//! `control` (its header), as `turnstile replay` does.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::Serialize;
use turnstile_judge::SyncJudge;
use turnstile_rules::{EventIdx, Monitor, StepId, Timing};

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
        let Some((at, class)) = deviation_at(rt, reference.monitor(), event, &seen) else {
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
    session
}

/// The deviation the reference (`workflow`) session's `report` on `event`
/// shows, if any, and the agent event where it happened; `monitor` is the
/// reference's once the event is taken.
pub fn deviation_at(
    rt: &BundleRuntime,
    monitor: &Monitor,
    event: &Event,
    report: &EventReport,
) -> Option<(EventIdx, AgentClass)> {
    match (&report.verdict, event) {
        (GateVerdict::Block { .. }, Event::Call { tool, .. }) => {
            Some((report.event, AgentClass::Write(tool.clone())))
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
        (_, Event::Call { tool, .. })
            if event.is_agent_event() && read_out_of_order(rt, monitor, tool) =>
        {
            Some((report.event, AgentClass::Read(tool.clone())))
        }
        _ => None,
    }
}

/// Whether a schedule's `report` on the event caught a deviation of `class`.
fn caught(class: &AgentClass, report: &EventReport) -> bool {
    match class {
        AgentClass::Write(_) => report.verdict.is_block(),
        AgentClass::Read(_) => report.fired,
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

/// Whether an agent call of `tool` is an out-of-order read given the monitor
/// state after it: `tool` has a read step and none of them is satisfied,
/// waiting for any request, or separated from a waiting step only by formal
/// state steps — the automaton's notion of reached (`Automaton::deviation`):
/// those may hold on the data read so far, or on this very call's result (a
/// branch `succeeded(get_customer_by_id)` holds only once the lookup it
/// guards has returned).
pub fn read_out_of_order(rt: &BundleRuntime, monitor: &Monitor, tool: &str) -> bool {
    read_reached(rt, monitor, tool).is_some_and(|reached| reached.is_none())
}

/// For a procedural read tool: the step of it the monitor has reached in
/// the sense of [`read_out_of_order`], if any (`None`: `tool` has no read
/// step).
pub fn read_reached(rt: &BundleRuntime, monitor: &Monitor, tool: &str) -> Option<Option<StepId>> {
    let program = &rt.bundle.program;
    let steps: BTreeSet<StepId> = program
        .steps
        .iter()
        .enumerate()
        .filter(
            |(_, s)| matches!(s.timing, Timing::Result(t) if rt.bundle.interner.resolve(t) == tool),
        )
        .filter_map(|(i, _)| u32::try_from(i).ok().map(StepId))
        .collect();
    if steps.is_empty() {
        return None;
    }
    if let Some((step, _)) = monitor.evidence().keys().find(|(s, _)| steps.contains(s)) {
        return Some(Some(*step));
    }
    // Formal state steps are passed on: they may hold without an event.
    let passable = |s: StepId| {
        program
            .step(s)
            .is_some_and(|st| st.timing == Timing::State && !st.semantic)
    };
    let mut seen = BTreeSet::new();
    let mut frontier: Vec<StepId> = monitor.waiting().iter().map(|w| w.step).collect();
    while let Some(step) = frontier.pop() {
        if !seen.insert(step) {
            continue;
        }
        if steps.contains(&step) {
            return Some(Some(step));
        }
        if passable(step) {
            frontier.extend(
                program
                    .edges
                    .iter()
                    .filter(|(from, _)| *from == step)
                    .map(|(_, to)| *to),
            );
        }
    }
    Some(None)
}

/// The step of the read tool `tool` the reference session has reached once
/// it has taken all of `trace` ([`read_reached`]), by name.
pub fn read_reached_after(
    rt: &Arc<BundleRuntime>,
    trace: &Trace,
    judge: &dyn SyncJudge,
    tool: &str,
) -> Result<Option<String>, SessionError> {
    let mut reference = reference_session(rt, trace.meta.control);
    for event in &trace.events {
        reference.push(event.clone(), judge)?;
    }
    Ok(read_reached(rt, reference.monitor(), tool)
        .flatten()
        .map(|s| rt.step_name(s).to_owned()))
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
