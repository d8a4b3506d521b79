//! Consent: which conditions of a gated write are the user agreeing to this
//! action on this record, and which are formal checks on what was said.
//!
//! A condition is *consent* when it is a consent step (a `user_input` step
//! asking for the user's yes) or a `confirmed(<argument>, …, "<action
//! word>")` that holds when met (not under a negation), where the arguments
//! are the call's own (its key record, and the details the summary must
//! state) and the one word is one the bundle lists for the tool's action.
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
            ..
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
        let words = self.words(tool);
        let shape = operands.iter().map(|operand| match operand {
            Some(ONode::Arg(_)) => Part::Arg,
            Some(ONode::Const(Value::Str(word))) if words.contains(word) => Part::Word,
            _ => Part::Other,
        });
        if consent_shape(shape) {
            Condition::Consent
        } else {
            Condition::Formal
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
        Check::Confirmed { values, .. } if is_consent(values, words) => {
            Check::Any(vec![check.clone(), Check::Not(Box::new(check.clone()))])
        }
        Check::Not(inner) => Check::Not(Box::new(assume(inner, words))),
        Check::All(all) => Check::All(all.iter().map(|c| assume(c, words)).collect()),
        Check::Any(any) => Check::Any(any.iter().map(|c| assume(c, words)).collect()),
        other => other.clone(),
    }
}

/// Whether `confirmed(operands)` at a write whose action `words` names is
/// consent: the call's arguments and exactly one of the words.
pub fn is_consent(operands: &[Operand], words: &[Symbol]) -> bool {
    consent_shape(operands.iter().map(|operand| match operand {
        Operand::Arg(_) => Part::Arg,
        Operand::Const(Value::Str(word)) if words.contains(word) => Part::Word,
        _ => Part::Other,
    }))
}

/// One operand of a `confirmed(...)`, as consent reads it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// An argument of the call: its key, or a detail.
    Arg,
    /// One of the tool's action words.
    Word,
    /// Anything else: a read field, another constant.
    Other,
}

/// Whether operands of these parts are consent: the call's own arguments
/// (the key record and any details the summary must state) and exactly one
/// of the tool's action words, nothing else.
fn consent_shape(parts: impl Iterator<Item = Part>) -> bool {
    let (mut args, mut words) = (0, 0);
    for part in parts {
        match part {
            Part::Arg => args += 1,
            Part::Word => words += 1,
            Part::Other => return false,
        }
    }
    args >= 1 && words == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intern::Interner;
    use crate::ir::{ArgPath, ArgStep};

    fn arg(interner: &mut Interner, name: &str) -> Operand {
        Operand::Arg(ArgPath(vec![ArgStep::Key(interner.intern(name))]))
    }

    #[test]
    fn consent_is_the_calls_arguments_and_one_action_word() {
        let mut interner = Interner::new();
        let freeze = interner.intern("freeze");
        let thaw = interner.intern("thaw");
        let stolen = interner.intern("stolen");
        let words = [freeze, thaw];
        let word = |w| Operand::Const(Value::Str(w));
        let card = arg(&mut interner, "card_id");
        let reason = arg(&mut interner, "reason");
        // The key record and the action; with details the summary states.
        assert!(is_consent(&[card.clone(), word(freeze)], &words));
        assert!(is_consent(
            &[card.clone(), reason.clone(), word(freeze)],
            &words
        ));
        assert!(is_consent(&[word(thaw), card.clone()], &words));
        // No action word, two of them, or another constant: formal.
        assert!(!is_consent(&[card.clone(), reason.clone()], &words));
        assert!(!is_consent(
            &[card.clone(), word(freeze), word(thaw)],
            &words
        ));
        assert!(!is_consent(&[card.clone(), word(stolen)], &words));
        assert!(!is_consent(&[card, word(stolen), word(freeze)], &words));
        assert!(!is_consent(&[word(freeze)], &words));
    }
}
