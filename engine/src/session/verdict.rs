//! What a session says about an event: the gate verdict (allow, block,
//! guide, observe, unchecked), the requests open at a firing with their
//! cursors, and the per-event report that carries both.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use turnstile_rules::Reason;

use super::judging::JudgeNote;

/// Request bindings by variable name (`order -> "#W1"`).
pub type Bindings = BTreeMap<String, String>;

/// The verdict on one event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum GateVerdict {
    /// The mutating call is authorized: this request's path reached `step`.
    Allow { step: String, request: Bindings },
    /// The mutating call is not authorized.
    Block {
        reason: Reason,
        /// The first unmet step on the path that came closest.
        step: Option<String>,
        request: Bindings,
        remediation: Option<String>,
        /// Which conditions failed, with the values read.
        explanation: String,
    },
    /// Any other agent event: what each open request needs next.
    Guide { guidance: Vec<Guidance> },
    /// Not an agent event: nothing to decide.
    Observe,
    /// An agent event the schedule does not fire on. `would_block`: the
    /// monitor's decision had it fired (a deviation this schedule misses).
    Unchecked { would_block: bool },
}

impl GateVerdict {
    pub fn is_block(&self) -> bool {
        matches!(self, GateVerdict::Block { .. })
    }

    pub fn label(&self) -> &'static str {
        match self {
            GateVerdict::Allow { .. } => "allow",
            GateVerdict::Block { .. } => "block",
            GateVerdict::Guide { .. } => "guide",
            GateVerdict::Observe => "observe",
            GateVerdict::Unchecked { .. } => "unchecked",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Guidance {
    pub request: Bindings,
    pub step: String,
    pub remediation: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
    pub request: Bindings,
    pub status: RequestStatus,
    pub cursor: Vec<Cursor>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    pub step: String,
    /// Waiting for a judge verdict rather than for data.
    pub needs_judge: bool,
    pub remediation: Option<String>,
}

/// Everything a session says about one event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventReport {
    pub event: u32,
    pub kind: String,
    /// An agent call of a mutating (gated) tool.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mutating: bool,
    pub fired: bool,
    #[serde(flatten)]
    pub verdict: GateVerdict,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<RequestView>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judge: Vec<JudgeNote>,
}
