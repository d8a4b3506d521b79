//! What an evaluation returns: the derived satisfaction and authorization
//! relations, and every violation with its reason and the facts it rests on.

use std::collections::{BTreeMap, BTreeSet};

use hashbrown::HashSet;
use serde::{Deserialize, Serialize};

use crate::consent::{Condition, ConsentSpec};
use crate::encode::Encoded;
use crate::env::{Env, MAX_VARS};
use crate::ids::{EventIdx, OperandId};
use crate::intern::Symbol;
use crate::steps::StepId;
use crate::value::Value;

/// Why a gated call (or a protected read) was blocked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Reason {
    /// The tool has no authorization step at all.
    NoAuthorization,
    /// A value the decision needs was never read (or not by then).
    MissingRead,
    /// A read value has the wrong value (a status, a flag).
    WrongValue,
    /// An amount or quantity is out of bounds.
    AmountOutOfBounds,
    /// A date, time or duration is outside the window the check allows
    /// ("within 60 days of today", "booked in the last 24 hours").
    OutOfWindow,
    /// An argument is not grounded in what was read for this request.
    Ungrounded,
    /// The call (or a related one) already happened too often.
    TooManyCalls,
    /// A required step happened, but before its predecessor.
    OutOfOrder,
    /// A dialogue-semantic step (confirmation, reason...) is not established.
    DialogueUnmet,
    /// A required earlier step did not happen.
    MissingStep,
    /// The call names a tool the bundle does not declare (nor lets through).
    UnknownTool,
    /// An argument of the call, or a field a read returned, has the wrong
    /// type; the checks that need it cannot be decided.
    TypeMismatch,
    /// The authorization this call would need was already used by an earlier
    /// call of the same request (a retry, a second write): the workflow must
    /// be walked again before another write.
    AuthorizationUsed,
    /// The session reached its configured size; it takes no more calls.
    SessionFull,
    /// The call was made by the wrong side: under dual control the agent
    /// called a tool only the user may call (a device tool).
    WrongSide,
    /// A protected read before the identification it requires: no request
    /// has satisfied the step the bundle makes the read wait for.
    NotIdentified,
}

impl Reason {
    /// When several conditions fail, the one reported: a cause before its
    /// consequences (an ungrounded id also leaves its fields unread).
    pub fn precedence(self) -> u8 {
        match self {
            Reason::SessionFull
            | Reason::UnknownTool
            | Reason::WrongSide
            | Reason::NoAuthorization
            | Reason::NotIdentified => 0,
            Reason::TypeMismatch => 1,
            Reason::Ungrounded => 2,
            Reason::TooManyCalls => 3,
            Reason::AuthorizationUsed => 4,
            Reason::OutOfOrder => 5,
            Reason::AmountOutOfBounds | Reason::OutOfWindow => 6,
            Reason::WrongValue => 7,
            Reason::MissingRead => 8,
            Reason::DialogueUnmet => 9,
            Reason::MissingStep => 10,
        }
    }
}

/// A fact a verdict rests on: an operand's value(s) at the decision, and the
/// read event it came from when it is an entity field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cited {
    /// Encoded operand node (see [`Encoded::onodes`]).
    pub operand: OperandId,
    /// The value(s): one for a scalar, the elements of a list.
    pub values: Vec<Value>,
    /// The event whose result the value was read from, for an entity field.
    pub read_at: Option<EventIdx>,
}

/// One failing condition of a guard or criterion, with its operands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedAtom {
    /// Encoded check node (see [`Encoded::cnodes`]).
    pub atom: u32,
    /// The facts the condition was decided on.
    pub cited: Vec<Cited>,
    /// Whether the condition is the user's consent or a formal check.
    #[serde(default)]
    pub condition: Condition,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// A gated call the workflow did not authorize, explained.
pub struct Violation {
    /// The gated call's event index.
    pub event: EventIdx,
    /// The tool called.
    pub tool: Symbol,
    /// The request (bindings) whose path came closest to authorizing it.
    pub request: Env,
    /// The first unmet step on that path.
    pub unmet: Option<StepId>,
    /// For [`Reason::AuthorizationUsed`]: the earlier call that used it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_by: Option<EventIdx>,
    /// Why the call was blocked.
    pub reason: Reason,
    /// The conditions that failed at the unmet step.
    pub failed: Vec<FailedAtom>,
}

impl Violation {
    /// Each failed condition classified by `consent` (both explainers
    /// classify alike).
    pub(crate) fn classified(mut self, consent: &ConsentSpec, encoded: &Encoded) -> Self {
        for failed in &mut self.failed {
            failed.condition = consent.condition(encoded, self.tool, failed.atom);
        }
        self
    }

    /// Whether every failed condition is consent (and one failed at all).
    pub fn fails_on_consent(&self) -> bool {
        !self.failed.is_empty()
            && self
                .failed
                .iter()
                .all(|f| f.condition == Condition::Consent)
    }
}

/// One candidate explanation of a blocked call: the authorization step, the
/// request, its first unmet step, the reason and the failed conditions.
pub(crate) type Ranked = (u32, Env, u32, Reason, Vec<FailedAtom>);

impl Violation {
    /// The violation the best-ranked candidate explains; with none, no
    /// request came near the authorization (`MissingStep`). `used_by` finds
    /// the earlier call whose satisfaction of the authorization this one
    /// would re-use: asked only when the guard holds at the authorization
    /// itself (a retry, a second write).
    pub(crate) fn explained(
        event: u32,
        tool: Symbol,
        best: Option<Ranked>,
        used_by: impl FnOnce(u32, &Env) -> Option<EventIdx>,
    ) -> Violation {
        let Some((auth, env, unmet, reason, failed)) = best else {
            return Violation {
                event: EventIdx(event),
                tool,
                request: Env::EMPTY,
                unmet: None,
                used_by: None,
                reason: Reason::MissingStep,
                failed: Vec::new(),
            };
        };
        let used_by = (unmet == auth && failed.is_empty())
            .then(|| used_by(auth, &env))
            .flatten();
        Violation {
            event: EventIdx(event),
            tool,
            request: env,
            unmet: Some(StepId(unmet)),
            used_by,
            reason: if used_by.is_some() {
                Reason::AuthorizationUsed
            } else {
                reason
            },
            failed,
        }
    }
}

/// What the program derived for one trace.
#[derive(Clone, Debug, Default)]
pub struct Derived {
    /// The encoded checks the relations refer to.
    pub encoded: Encoded,
    /// `(step, request, event)`: the step is satisfied there on a valid path.
    pub sat: BTreeSet<(StepId, Env, EventIdx)>,
    /// Earliest satisfaction of each step per request.
    pub evidence: BTreeMap<(StepId, Env), EventIdx>,
    /// Gated calls that were authorized, with the authorizing step and request.
    pub allowed: BTreeMap<EventIdx, Vec<(StepId, Env)>>,
    /// Every unauthorized gated call, in event order.
    pub violations: Vec<Violation>,
    pub(super) holds: HashSet<(u32, u32, Env)>,
}

impl Derived {
    /// Whether check `root` (an encoded node) holds at `event` under `env`.
    pub fn holds(&self, root: u32, event: EventIdx, env: &Env) -> bool {
        self.holds.contains(&(root, event.0, *env))
    }

    /// Whether the gated call at `event` was authorized.
    pub fn is_allowed(&self, event: EventIdx) -> bool {
        self.allowed.contains_key(&event)
    }
}

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
/// Why a bundle cannot be evaluated.
pub enum EvaluateError {
    #[error("the bundle declares {0} request variables; the evaluator supports at most {MAX_VARS}")]
    /// More request variables than an [`Env`] holds.
    TooManyVariables(u32),
    /// A step's origin names a workflow node the workflow does not have.
    #[error("step `{0}` names a node the workflow does not have")]
    StepWithoutNode(String),
}
