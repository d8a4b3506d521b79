//! Firing schedules: at which agent events a session issues verdicts. (The
//! judge is asked only at a write a firing would otherwise block, whatever
//! the schedule.)

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// When a session fires (issues verdicts; at a blocked write, asks the judge).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Schedule {
    /// Before every agent event: the hard gate. Covers every first deviation.
    Workflow,
    /// At the first agent event after each user message, and once more at
    /// the agent event after a block (the agent's retry is checked).
    Boundary,
    /// Only on agent calls of mutating tools (the PolicyGuard baseline).
    Action,
}

impl Schedule {
    /// Every schedule, strictest first.
    pub const ALL: [Schedule; 3] = [Schedule::Workflow, Schedule::Boundary, Schedule::Action];

    /// The schedule's name as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Workflow => "workflow",
            Schedule::Boundary => "boundary",
            Schedule::Action => "action",
        }
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for Schedule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Schedule::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| format!("unknown schedule {s:?}: use workflow, boundary or action"))
    }
}
