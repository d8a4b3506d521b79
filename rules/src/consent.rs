//! Consent: which conditions of a gated write are the user agreeing to this
//! action on this record, and which are formal checks on what was said.
//!
//! A condition is *consent* when it is a consent step (a `user_input` step
//! asking for the user's yes) or a `confirmed(<argument>, "<action word>")`
//! that holds when met (not under a negation), where the argument is one of
//! the call's own and the word one the bundle lists for the tool's action.
//! Every other `confirmed`/`said` is *formal*: a covered reason, an identity,
//! a value the user must have given. Both evaluators read the same
//! [`ConsentSpec`], so they classify a failed condition alike; and
//! [`ConsentSpec::granted`] is the workflow with every consent condition of
//! one tool's writes taken as given, which decides whether a blocked write
//! fails on consent alone.

use serde::{Deserialize, Serialize};

use crate::encode::{CNode, Encoded, ONode};
use crate::intern::Symbol;
use crate::ir::{Check, Operand};
use crate::steps::{CompiledChecks, StepId};
use crate::value::Value;

/// What a failed condition of a gated write is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// A check on the data or on what was said: no approval opens it.
    #[default]
    Formal,
    /// The user agreeing to this action on this record: an approval can
    /// stand for it.
    Consent,
}

/// The consent conditions of a bundle: its consent steps and, per gated
/// tool, the words naming the tool's action.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentSpec {
    /// The `user_input` steps that ask for the user's yes.
    #[serde(default)]
    pub steps: Vec<StepId>,
    /// Per gated tool: the action words (`cancel`, `refund`) a
    /// `confirmed(args.id, "<word>")` of its writes names.
    #[serde(default)]
    pub actions: Vec<(Symbol, Vec<Symbol>)>,
}

impl ConsentSpec {
    /// Whether `step` is a consent step.
    pub fn is_step(&self, step: StepId) -> bool {
        self.steps.contains(&step)
    }

    /// The action words of `tool`'s writes.
    pub fn words(&self, tool: Symbol) -> &[Symbol] {
        self.actions
            .iter()
            .find(|(t, _)| *t == tool)
            .map(|(_, words)| words.as_slice())
            .unwrap_or_default()
    }

    /// Whether a write of `tool` has any consent condition at all.
    pub fn applies_to(&self, tool: Symbol) -> bool {
        !self.steps.is_empty() || !self.words(tool).is_empty()
    }

    /// What the encoded check node `atom`, failed at a write of `tool`, is.
    pub fn condition(&self, encoded: &Encoded, tool: Symbol, atom: u32) -> Condition {
        let Some(CNode::Confirmed {
            set,
            negated: false,
        }) = encoded.cnodes.get(atom as usize)
        else {
            return Condition::Formal;
        };
        let onode = |o: &u32| encoded.onodes.get(*o as usize);
        let operands: Vec<_> = encoded
            .sets
            .get(*set as usize)
            .map(|s| s.iter().map(onode).collect())
            .unwrap_or_default();
        match operands.as_slice() {
            [Some(ONode::Arg(_)), Some(ONode::Const(Value::Str(word)))]
                if self.words(tool).contains(word) =>
            {
                Condition::Consent
            }
            _ => Condition::Formal,
        }
    }

    /// `checks` with every consent condition of a write of `tool` taken as
    /// given: each consent step decided by its formal criterion alone, each
    /// consent `confirmed(...)` true (under a negation too, so a clause that
    /// holds only while nothing is confirmed no longer does). A write this
    /// workflow allows fails, if at all, on consent alone. The operands stay
    /// in place, so the encoding reads the same argument paths.
    pub fn granted(&self, checks: &CompiledChecks, tool: Symbol) -> CompiledChecks {
        let words = self.words(tool);
        let mut granted = checks.clone();
        granted.checks = Default::default();
        // Pushed in id order, so every check keeps its id.
        for (_, check) in checks.checks.iter() {
            granted.checks.push(assume(check, words));
        }
        for step in &self.steps {
            if let Some(s) = granted.steps.get_mut(step.0 as usize) {
                s.semantic = false;
            }
        }
        granted
    }
}

/// `check` with each consent `confirmed(...)` (naming one of `words`)
/// replaced by a condition that always holds and reads the same operands.
fn assume(check: &Check, words: &[Symbol]) -> Check {
    match check {
        Check::Confirmed(operands) if is_consent(operands, words) => {
            Check::Any(vec![check.clone(), Check::Not(Box::new(check.clone()))])
        }
        Check::Not(inner) => Check::Not(Box::new(assume(inner, words))),
        Check::All(all) => Check::All(all.iter().map(|c| assume(c, words)).collect()),
        Check::Any(any) => Check::Any(any.iter().map(|c| assume(c, words)).collect()),
        other => other.clone(),
    }
}

fn is_consent(operands: &[Operand], words: &[Symbol]) -> bool {
    matches!(
        operands,
        [Operand::Arg(_), Operand::Const(Value::Str(word))] if words.contains(word)
    )
}
