//! Intervention coverage on a compiled bundle (PolicyGuide, Appendix A):
//! which reachable first deviations a firing schedule covers.
//!
//! The workflow is abstracted to an automaton ([`Automaton`]) over the event
//! alphabet — user messages, agent messages (among them instructions to run
//! a device fix and completion claims), agent read calls, agent write calls
//! (each with its result), the user's own tool calls under dual control
//! (device tools, user events that never deviate) — following one request
//! along one path of the step graph the monitor evaluates. Formal checks and
//! judge questions are abstracted to their outcomes: each may hold or not,
//! independently.
//!
//! - `P_G` (the valid prefixes) is decided on the automaton: a prefix is
//!   valid iff every agent event in it is a valid move of the state it meets
//!   and an exit is still reachable from where it ends ([`Analysis::valid`]).
//! - `D_G` is the set of reachable first deviations: a reachable, live state
//!   and an agent event class that leaves `P_G` there — a read the bundle
//!   protects before the path satisfied its identification
//!   ([`Why::NotIdentified`]) or, once identified, where its guard fails
//!   ([`Why::GuardFails`]), a write with no authorization of its tool enabled
//!   ([`Why::Unauthorized`]), a write whose enabled authorization's guard
//!   fails ([`Why::GuardFails`]), an instruction of a device fix before any
//!   of its diagnoses succeeded ([`Why::BeforeDiagnosis`]), or a claim with
//!   no verifying result since the last fix ([`Why::Unverified`]). The last
//!   two are the session's `deviate` verdicts, classified by the session's
//!   own rules (`session::deviation`, shared) from the bundle's tools
//!   (`after`) and `claims`; since they depend on the path rather than the
//!   state, such a deviation is a state reachable by some valid path on
//!   which the rule is unmet, with the shortest such path
//!   ([`Automaton::unmet_paths`]). Each deviation has a shortest witness:
//!   the moves that reach the state, then the deviating event. Other agent
//!   messages never deviate: the engine judges what a message achieves; nor
//!   do reads the bundle does not protect, wherever they come (the policy
//!   forbids no such read, and the session reports none). A step separated
//!   from the cursor only by formal state steps counts as reached, since
//!   those may already hold on the data read.
//! - For a schedule, `C_S` is the subset of `D_G` at which it fires: every
//!   one for `workflow`; the write deviations (the guarded class) for
//!   `action`, which never fires at a message, read or instruction or claim
//!   (Corollary 1's gap: a protected read is no write); those at the first agent event of a user turn for
//!   `boundary` (Corollary 2: the session fires there and says `deviate` for
//!   an instruction or claim, exactly as it blocks a write).
//!
//! **Exactness.** Reachability is over-approximate: checks are treated as
//! independent free outcomes, so a state may be reachable in the automaton
//! that no concrete data reaches (two checks that cannot both hold). Given a
//! reachable state, the deviation classes are exact for the engine's
//! single-request behaviour: a write blocks exactly when no enabled
//! authorization holds, and a protected read exactly when no identification
//! of it was satisfied (or its guard fails); [`observe`] reads both off the
//! session's blocks. Concrete witnesses ([`witness`], built by a
//! [`WitnessBuilder`]) are
//! checked by replaying them through a [`crate::Session`]; a state the
//! witness search does not reach shows up as
//! [`witness::WitnessError::Unrealised`]. The automaton also follows one
//! path per request, while the monitor follows every path the data allows
//! (a branch's `otherwise` can hold beside the branch taken, an earlier
//! request's steps stay enabled) and may satisfy a chain of steps at one
//! event: a replay that shows another deviation because the request is past
//! or beside the abstract state is [`witness::WitnessError::Overtaken`].
//! Both are counted, never taken for agreement; a replay that shows another
//! deviation with the request on the predicted path is a disagreement and
//! fails the tests.
//!
//! The alphabet has no width limit: read tools, device fixes and claims are
//! indexed by [`bits::ClassSet`]s, which grow past 64 classes.
//!
//! **Control.** Under dual control (the default of most bundles) the user
//! calls the device tools: user events, which satisfy the steps waiting for
//! their reports and never deviate. Under solo control ([`analyze_with`],
//! `turnstile coverage --control solo`) the agent calls them: its device
//! calls are agent events, and its call of a device fix before any of its
//! diagnoses is a deviation of its own ([`AgentClass::DeviceCall`], the
//! session's `deviate` verdict `calls <fix>`), beside the instruction naming
//! it; outside the guarded class, so `action` never covers it. A device read
//! called out of order is not in the solo alphabet (see
//! [`Automaton::with_control`]).
//!
//! The user's device call of a fix is a valid move wherever a step waits for
//! it; the session instead reports a deviation when no diagnosis of the fix
//! preceded it. The two agree when every path to a fix's step passes one of
//! its diagnoses; [`Analysis::fixes_before_diagnosis`] lists the states where
//! that fails (none in the shipped bundles, tested).

mod automaton;
pub mod bits;
pub mod observe;
pub mod witness;

use serde::Serialize;

pub use automaton::{AgentClass, Automaton, Explored, MAX_STATES, Move, State, Turn, Why};
pub use witness::{Builder as WitnessBuilder, Witness, WitnessError};

use crate::CompiledBundle;
use crate::bundle::model::Control;
use crate::session::Schedule;

/// One reachable first deviation: a state, the deviating agent event class
/// and why it deviates, with the shortest moves reaching the state.
#[derive(Clone, Debug, Serialize)]
pub struct Deviation {
    /// The state the valid prefix ends in.
    pub state: State,
    /// Its index in [`Explored::states`].
    pub state_index: usize,
    /// The step the request last satisfied (the state's cursor), by name.
    pub node: String,
    /// The steps the request waits at, by name.
    pub waiting: Vec<String>,
    /// The deviating event class.
    pub class: AgentClass,
    /// Why it deviates.
    pub why: Why,
    /// The moves of the shortest valid prefix reaching the state.
    pub prefix: Vec<Move>,
}

impl Deviation {
    /// Whether `schedule` fires at this deviation (the ideal verifier then
    /// rejects it).
    pub fn covered_by(&self, schedule: Schedule) -> bool {
        match schedule {
            Schedule::Workflow => true,
            Schedule::Action => matches!(self.class, AgentClass::Write(_)),
            Schedule::Boundary => self.state.turn == Turn::TurnStart,
        }
    }
}

/// The analysis of one bundle.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The automaton.
    pub automaton: Automaton,
    /// Its reachable part.
    pub explored: Explored,
    /// `D_G`: the calls in breadth-first order of their states, then the
    /// instructions and claims, class by class.
    pub deviations: Vec<Deviation>,
    /// States (indices into [`Explored::states`]) from which the user's call
    /// of a device fix is a move although some valid path reaches them with
    /// none of the fix's diagnoses: the engine would report that call.
    pub fixes_before_diagnosis: Vec<(usize, String)>,
}

/// `C_S` and the rest of `D_G` for one schedule.
#[derive(Clone, Debug, Serialize)]
pub struct ScheduleCoverage {
    /// The schedule.
    pub schedule: Schedule,
    /// `|D_G|`.
    pub deviations: usize,
    /// Indices into [`Analysis::deviations`] of `C_S`.
    pub covered: Vec<usize>,
    /// Indices of the uncovered deviations.
    pub uncovered: Vec<usize>,
}

/// Analyses `bundle` under its own `control`.
pub fn analyze(bundle: &CompiledBundle) -> Analysis {
    analyze_with(bundle, bundle.control)
}

/// Analyses `bundle` with its device tools called as `control` says (see
/// [`Automaton::with_control`]).
pub fn analyze_with(bundle: &CompiledBundle, control: Control) -> Analysis {
    let automaton = Automaton::with_control(bundle, control);
    let explored = automaton.explore();
    let (ruled, calls): (Vec<AgentClass>, Vec<AgentClass>) = automaton
        .agent_classes()
        .into_iter()
        .partition(AgentClass::has_order_rule);
    let open = |i: usize, state: &State| {
        explored.live.get(i).copied().unwrap_or(false) && !automaton.is_exit(state.cursor)
    };
    let deviation = |i: usize, state: &State, class: &AgentClass, why, prefix| Deviation {
        state: state.clone(),
        state_index: i,
        node: automaton.step_name(state.cursor).to_owned(),
        waiting: automaton
            .ahead(state.cursor)
            .iter()
            .map(|s| automaton.step_name(*s).to_owned())
            .collect(),
        class: class.clone(),
        why,
        prefix,
    };
    let mut deviations = Vec::new();
    for (i, state) in explored.states.iter().enumerate() {
        if !open(i, state) {
            continue;
        }
        for class in &calls {
            if let Some(why) = automaton.deviation(state, class) {
                deviations.push(deviation(i, state, class, why, explored.path_to(i)));
            }
        }
    }
    let mut fixes_before_diagnosis = Vec::new();
    for class in &ruled {
        let why = match class {
            AgentClass::Claim(_) => Why::Unverified,
            _ => Why::BeforeDiagnosis,
        };
        let paths = automaton.unmet_paths(&explored, class);
        for (i, (state, path)) in explored.states.iter().zip(paths).enumerate() {
            let Some(path) = path else { continue };
            if let AgentClass::Instruct(fix) = class {
                let called = explored
                    .successors
                    .get(i)
                    .into_iter()
                    .flatten()
                    .any(|(mv, _)| matches!(mv, Move::UserTool { tool, .. } if tool == fix));
                if called {
                    fixes_before_diagnosis.push((i, fix.clone()));
                }
            }
            if open(i, state) {
                deviations.push(deviation(i, state, class, why, path));
            }
        }
    }
    Analysis {
        automaton,
        explored,
        deviations,
        fixes_before_diagnosis,
    }
}

impl Analysis {
    /// `C_S` and the rest for `schedule`.
    pub fn coverage(&self, schedule: Schedule) -> ScheduleCoverage {
        let (covered, uncovered) = (0..self.deviations.len()).partition(|&i| {
            self.deviations
                .get(i)
                .is_some_and(|d| d.covered_by(schedule))
        });
        ScheduleCoverage {
            schedule,
            deviations: self.deviations.len(),
            covered,
            uncovered,
        }
    }

    /// Indices of the deviations at `node` (its name, or a flow or decision
    /// name prefixing it: `mms.service` selects `mms.service.sim[missing]`;
    /// `None`: all), at most `limit` of them spread evenly over the list
    /// (every kind and depth, not only the first states): the sample whose
    /// witnesses a user asks for.
    pub fn sample(&self, node: Option<&str>, limit: Option<usize>) -> Vec<usize> {
        let at_node = |d: &Deviation| {
            node.is_none_or(|n| {
                d.node
                    .strip_prefix(n)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
            })
        };
        let matching: Vec<usize> = self
            .deviations
            .iter()
            .enumerate()
            .filter(|(_, d)| at_node(d))
            .map(|(i, _)| i)
            .collect();
        match limit {
            Some(limit) if limit < matching.len() => (0..limit)
                .filter_map(|k| matching.get(k * matching.len() / limit).copied())
                .collect(),
            _ => matching,
        }
    }

    /// `P_G` membership of an abstract prefix: its valid moves, then
    /// optionally one more agent event; valid iff the moves run, the last
    /// event does not deviate, and an exit stays reachable.
    pub fn valid(&self, moves: &[Move], then: Option<&AgentClass>) -> bool {
        let Ok(state) = self.automaton.run(moves) else {
            return false;
        };
        if then.is_some_and(|c| self.automaton.deviation_after(moves, c).is_some()) {
            return false;
        }
        self.is_live(&state)
    }

    /// Whether an exit is reachable from `state`.
    pub fn is_live(&self, state: &State) -> bool {
        self.explored
            .states
            .iter()
            .position(|s| s == state)
            .and_then(|i| self.explored.live.get(i).copied())
            .unwrap_or(false)
    }
}
