//! Approvals: the host's answers to `confirm` verdicts. Which calls the
//! gate answered `confirm` (by call id, with their tool and arguments),
//! what the host answered for each, and the approvals not yet used. An
//! approval opens exactly one later call of the same tool with the same
//! arguments, once; a refusal keeps such a call blocked until the user says
//! yes again; a withdrawing user turn voids an approval not yet used. An
//! approval for a call never answered `confirm` (unknown, or blocked on a
//! formal check), a second answer for one call, or an operator's where the
//! bundle permits none, is an anomaly and opens nothing.
//!
//! The registry is a function of the events and the verdicts made of them:
//! a restored session rebuilds it by taking its events again.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use serde_json::Value as Json;

use crate::trace::Approver;

/// What the host answered for a call held for confirmation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    /// Nothing yet.
    Awaiting,
    /// Approved, not used yet.
    Granted(Approver),
    /// Approved and used by a later identical call.
    Used,
    /// Declined: an identical call stays blocked until the user's next yes.
    Refused,
    /// Approved, then voided by a withdrawing user turn before its use.
    Voided,
}

#[derive(Clone, Debug)]
struct Held {
    tool: String,
    args: Json,
    answer: Answer,
}

/// What the registry says about a call of a tool with its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Standing {
    /// An unused approval of an identical call: (its call id, who approved).
    Approved(String, Approver),
    /// The host declined an identical call (its call id).
    Declined(String),
    /// Neither.
    Open,
}

/// The calls held for confirmation and the host's answers.
#[derive(Clone, Debug, Default)]
pub(super) struct Approvals {
    held: BTreeMap<String, Held>,
}

impl Approvals {
    /// Notes that the call `id` of `tool` with `args` was answered
    /// `confirm`; `false`: a call with that id already was, and it stays
    /// the one held.
    pub fn hold(&mut self, id: &str, tool: &str, args: &Json) -> bool {
        match self.held.entry(id.to_owned()) {
            Entry::Occupied(_) => false,
            Entry::Vacant(entry) => {
                entry.insert(Held {
                    tool: tool.to_owned(),
                    args: args.clone(),
                    answer: Answer::Awaiting,
                });
                true
            }
        }
    }

    /// Takes the host's answer for call `call`; `Err`: the anomaly to
    /// report (the answer opens nothing).
    pub fn answer(
        &mut self,
        call: &str,
        granted: bool,
        by: Approver,
        operator_permitted: bool,
    ) -> Result<(), String> {
        if by == Approver::Operator && !operator_permitted {
            return Err(format!(
                "an approval of call {call} by an operator, which this bundle does not permit (`operator_approvals`); it opens nothing"
            ));
        }
        let Some(held) = self.held.get_mut(call) else {
            return Err(format!(
                "an approval of call {call}, which the gate never answered `confirm` (unknown, or blocked); it opens nothing"
            ));
        };
        if held.answer != Answer::Awaiting {
            return Err(format!("a second answer for call {call}; it opens nothing"));
        }
        held.answer = if granted {
            Answer::Granted(by)
        } else {
            Answer::Refused
        };
        Ok(())
    }

    /// What the registry says about a call of `tool` with `args`: the
    /// earliest unused approval of an identical call, else a refusal of one.
    pub fn standing(&self, tool: &str, args: &Json) -> Standing {
        let identical = || {
            self.held
                .iter()
                .filter(move |(_, h)| h.tool == tool && h.args == *args)
        };
        if let Some((id, by)) = identical().find_map(|(id, h)| match h.answer {
            Answer::Granted(by) => Some((id, by)),
            _ => None,
        }) {
            return Standing::Approved(id.clone(), by);
        }
        match identical().find(|(_, h)| h.answer == Answer::Refused) {
            Some((id, _)) => Standing::Declined(id.clone()),
            None => Standing::Open,
        }
    }

    /// The approval of call `id` opened a call: it is used up.
    pub fn use_up(&mut self, id: &str) {
        if let Some(held) = self.held.get_mut(id)
            && matches!(held.answer, Answer::Granted(_))
        {
            held.answer = Answer::Used;
        }
    }

    /// Whether a user turn can change an answer: some approval is not yet
    /// used (a withdrawal voids it) or some refusal stands (a yes lifts
    /// it). Reading the turn is needed only then.
    pub fn open_to_the_user(&self) -> bool {
        self.held
            .values()
            .any(|h| matches!(h.answer, Answer::Granted(_) | Answer::Refused))
    }

    /// A user turn withdrew: every approval not yet used is void.
    pub fn withdraw(&mut self) {
        for held in self.held.values_mut() {
            if matches!(held.answer, Answer::Granted(_)) {
                held.answer = Answer::Voided;
            }
        }
    }

    /// A user turn said yes: refusals no longer stand (the next identical
    /// call is decided, and asks again, as any other).
    pub fn affirm(&mut self) {
        for held in self.held.values_mut() {
            if held.answer == Answer::Refused {
                held.answer = Answer::Voided;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_unused_approval_or_a_standing_refusal_is_open_to_the_user() {
        let mut approvals = Approvals::default();
        let args = serde_json::json!({"order_id": "#W1"});
        approvals.hold("c1", "cancel_pending_order", &args);
        approvals.hold("c2", "cancel_pending_order", &args);
        assert!(!approvals.open_to_the_user(), "held, unanswered");
        assert!(approvals.answer("c1", true, Approver::User, false).is_ok());
        assert!(approvals.open_to_the_user(), "an approval not yet used");
        approvals.use_up("c1");
        assert!(!approvals.open_to_the_user(), "used up");
        assert!(approvals.answer("c2", false, Approver::User, false).is_ok());
        assert!(approvals.open_to_the_user(), "a standing refusal");
        approvals.affirm();
        assert!(!approvals.open_to_the_user(), "the refusal lifted");
    }
}
