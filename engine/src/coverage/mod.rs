//! Intervention coverage on a compiled bundle (PolicyGuide, Appendix A):
//! which reachable first deviations a firing schedule covers.
//!
//! The workflow is abstracted to an automaton ([`Automaton`]) over the event
//! alphabet — user messages, agent messages, agent read calls, agent write
//! calls (each with its result), the user's own tool calls under dual
//! control (device tools, user events that never deviate) — following one request along one path of
//! the step graph the monitor evaluates. Formal checks and judge questions are
//! abstracted to their outcomes: each may hold or not, independently.
//!
//! - `P_G` (the valid prefixes) is decided on the automaton: a prefix is
//!   valid iff every agent event in it is a valid move of the state it meets
//!   and an exit is still reachable from where it ends ([`Analysis::valid`]).
//! - `D_G` is the set of reachable first deviations: a reachable, live state
//!   and an agent event class that leaves `P_G` there — a read of a
//!   procedural tool before the path reached a step of that tool
//!   ([`Why::OutOfOrder`]), a write with no authorization of its tool enabled
//!   ([`Why::Unauthorized`]), or a write whose enabled authorization's guard
//!   fails ([`Why::GuardFails`]). Each has a shortest witness: the moves that
//!   reach the state, then the deviating event. Agent messages (completion
//!   claims and instructions included: the alphabet does not tell them apart)
//!   never deviate here: the engine judges what a message achieves, never
//!   rejects one. The read deviation is defined here, from the monitor's
//!   state ([`observe::read_out_of_order`]); the session gives no verdict for
//!   it yet. A step separated from the cursor only by formal state steps
//!   counts as reached, since those may already hold on the data read.
//! - For a schedule, `C_S` is the subset of `D_G` at which it fires: every
//!   one for `workflow`; the write deviations (the guarded class) for
//!   `action`; those at the first agent event of a user turn for `boundary`.
//!
//! **Exactness.** Reachability is over-approximate: checks are treated as
//! independent free outcomes, so a state may be reachable in the automaton
//! that no concrete data reaches (two checks that cannot both hold). Given a
//! reachable state, the deviation classes are exact for the engine's
//! single-request behaviour: a write blocks exactly when no enabled
//! authorization holds, and [`observe`] detects out-of-order reads from the
//! monitor's state the same way. Concrete witnesses ([`witness`]) are checked
//! by replaying them through a [`crate::Session`]; a state no concrete data
//! reaches shows up as a witness that cannot be built
//! ([`witness::WitnessError::Unrealised`]). The automaton also moves one step
//! per event, while the monitor may satisfy a chain of steps at one event (a
//! classification is dated where the classifier was reached, so a read at
//! that event also satisfies a later step of the same tool): such a state is
//! passed at once concretely ([`witness::WitnessError::Overtaken`]). Both are
//! counted, never taken for agreement; a replay that shows another deviation
//! than the predicted one is a disagreement and fails the tests.

mod automaton;
pub mod observe;
pub mod witness;

use serde::Serialize;

pub use automaton::{AgentClass, Automaton, Explored, MAX_STATES, Move, State, Turn, Why};

use crate::CompiledBundle;
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
    /// `D_G`, in breadth-first order of their states.
    pub deviations: Vec<Deviation>,
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

/// Analyses `bundle`.
pub fn analyze(bundle: &CompiledBundle) -> Analysis {
    let automaton = Automaton::new(bundle);
    let explored = automaton.explore();
    let classes = automaton.agent_classes();
    let mut deviations = Vec::new();
    for (i, state) in explored.states.iter().enumerate() {
        if !explored.live.get(i).copied().unwrap_or(false) || automaton.is_exit(state.cursor) {
            continue;
        }
        for class in &classes {
            if let Some(why) = automaton.deviation(state, class) {
                deviations.push(Deviation {
                    state: *state,
                    state_index: i,
                    node: automaton.step_name(state.cursor).to_owned(),
                    waiting: automaton
                        .ahead(state.cursor)
                        .iter()
                        .map(|s| automaton.step_name(*s).to_owned())
                        .collect(),
                    class: class.clone(),
                    why,
                    prefix: explored.path_to(i),
                });
            }
        }
    }
    Analysis {
        automaton,
        explored,
        deviations,
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

    /// `P_G` membership of an abstract prefix: its valid moves, then
    /// optionally one more agent event; valid iff the moves run, the last
    /// event does not deviate, and an exit stays reachable.
    pub fn valid(&self, moves: &[Move], then: Option<&AgentClass>) -> bool {
        let Ok(state) = self.automaton.run(moves) else {
            return false;
        };
        if then.is_some_and(|c| self.automaton.deviation(&state, c).is_some()) {
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
