//! What a session says about an event: the gate verdict (allow, block,
//! guide, observe, unchecked), the requests open at a firing with their
//! cursors, and the per-event report that carries both.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use turnstile_rules::{EventIdx, Reason};

use super::judging::JudgeNote;

/// Request bindings by variable name (`order -> "#W1"`).
pub type Bindings = BTreeMap<String, String>;

/// The verdict on one event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum GateVerdict {
    /// The mutating call is authorized: this request's path reached `step`.
    Allow {
        /// The authorizing step.
        step: String,
        /// The bindings of the request whose path reached it.
        request: Bindings,
    },
    /// The mutating call is not authorized.
    Block {
        /// Why the call is not authorized.
        reason: Reason,
        /// The first unmet step on the path that came closest.
        step: Option<String>,
        /// The bindings of that request.
        request: Bindings,
        /// What the agent should do instead, from the unmet step's template.
        remediation: Option<String>,
        /// Which conditions failed, with the values read.
        explanation: String,
    },
    /// Any other agent event: what each open request needs next.
    Guide {
        /// Per open request: the step it waits at and its remediation.
        guidance: Vec<Guidance>,
    },
    /// An agent event out of the workflow's order that writes nothing (a fix
    /// instructed before its diagnosis, a claim before its verification):
    /// reported where it happens, so the agent is told before it goes on.
    Deviate {
        /// Why: the prerequisite never happened (`missing_step`).
        reason: Reason,
        /// What the agent did out of order (`instructs toggle_data`,
        /// `claims resolved`).
        action: String,
        /// The first unmet step: the node that had to come first.
        step: Option<String>,
        /// What the agent should do instead.
        remediation: Option<String>,
        /// What was missing, in words.
        explanation: String,
        /// The agent event where the deviation happened: this event, or the
        /// instruction that the user's device call at this event followed.
        at: EventIdx,
    },
    /// Not an agent event: nothing to decide.
    Observe,
    /// An agent event the schedule does not fire on. `would_block`: the
    /// monitor's decision had it fired (a deviation this schedule misses).
    Unchecked {
        /// Whether the monitor would have blocked the event.
        would_block: bool,
    },
}

impl GateVerdict {
    /// Whether the verdict is a block.
    pub fn is_block(&self) -> bool {
        matches!(self, GateVerdict::Block { .. })
    }

    /// Whether the verdict is a deviation without a write.
    pub fn is_deviation(&self) -> bool {
        matches!(self, GateVerdict::Deviate { .. })
    }

    /// The verdict's name as reported (`allow`, `block`, ...).
    pub fn label(&self) -> &'static str {
        match self {
            GateVerdict::Allow { .. } => "allow",
            GateVerdict::Block { .. } => "block",
            GateVerdict::Guide { .. } => "guide",
            GateVerdict::Deviate { .. } => "deviate",
            GateVerdict::Observe => "observe",
            GateVerdict::Unchecked { .. } => "unchecked",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// What one open request needs next.
pub struct Guidance {
    /// The request's bindings.
    pub request: Bindings,
    /// The step it waits at.
    pub step: String,
    /// The remediation at that step.
    pub remediation: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
/// Where a request stands at a firing.
pub enum RequestStatus {
    /// First seen at this firing.
    Open,
    /// Seen at an earlier firing, not finished.
    Continuing,
    /// Reached an exit.
    Done,
}

/// One request at a firing: its bindings, status and cursor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestView {
    /// The request's bindings.
    pub request: Bindings,
    /// Where it stands.
    pub status: RequestStatus,
    /// The steps it waits at.
    pub cursor: Vec<Cursor>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// A step a request waits at.
pub struct Cursor {
    /// The step's display name.
    pub step: String,
    /// Waiting for a judge verdict rather than for data.
    pub needs_judge: bool,
    /// The remediation at that step.
    pub remediation: Option<String>,
}

/// Everything a session says about one event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventReport {
    /// The event's index.
    pub event: EventIdx,
    /// A short description (`user`, `call get_order`, ...).
    pub kind: String,
    /// An agent call of a mutating (gated) tool.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mutating: bool,
    /// Whether the schedule fired on the event.
    pub fired: bool,
    #[serde(flatten)]
    /// The verdict.
    pub verdict: GateVerdict,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// The requests at the firing.
    pub requests: Vec<RequestView>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// What the judge was asked and said.
    pub judge: Vec<JudgeNote>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// Malformed input at this event (a result with no open call, a reused
    /// call id, a call attributed to the wrong side); such input satisfies
    /// nothing.
    pub anomalies: Vec<String>,
}
