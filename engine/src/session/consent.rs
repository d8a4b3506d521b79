//! Consent at a blocked write: whether the write fails on the user's
//! consent alone — the workflow with that consent granted
//! (`ConsentSpec::granted`) allows it, in the session's own evaluator —,
//! what the conversation says about that consent ([`consent_read`]), and
//! the confirmation request a `confirm` verdict carries.

use std::sync::Arc;

use turnstile_judge::dialogue::{Stance, reply_stance};
use turnstile_rules::{EventIdx, FactsBuilder, Monitor, Plan, Speaker, evaluate};

use super::Explainer;
use super::core::Core;
use super::judging::Judged;
use super::verdict::{Confirmation, ConsentState, Detail, GateVerdict};
use crate::schema::ConfirmPiece;
use crate::trace::Event;

impl Core {
    /// The `confirm` verdict on the checked write `k` (the last event
    /// taken), which `block` explains, when the write fails on consent
    /// alone and the conversation does not settle that the user refused.
    pub fn confirm_instead(
        &self,
        k: EventIdx,
        block: &GateVerdict,
        judged: &Judged,
    ) -> Option<GateVerdict> {
        let GateVerdict::Block {
            step,
            request,
            explanation,
            ..
        } = block
        else {
            return None;
        };
        let Some(Event::Call { id, tool, args, .. }) = self.events.get(k.as_usize()) else {
            return None;
        };
        let symbol = self.rt.bundle.domain.tool(tool)?.symbol;
        let granted = self.rt.granted.get(&symbol)?;
        let allowed = match self.explainer {
            Explainer::Monitor => self.granted_monitor_allows(&granted.plan, judged),
            Explainer::Datalog => {
                let mut builder = FactsBuilder::new(self.rt.bundle.arg_paths.clone());
                for facts in &self.log {
                    builder.push(facts);
                }
                let mut facts = builder.snapshot(&self.extractor.interner, k.next().0);
                facts.judged = judged
                    .iter()
                    .flat_map(|(at, steps)| steps.iter().map(move |(s, e)| (*s, *e, *at)))
                    .collect();
                evaluate(&granted.checks, &facts).is_ok_and(|d| d.is_allowed(k))
            }
        };
        if !allowed {
            return None;
        }
        let consent = consent_read(self);
        if consent == ConsentState::Refused {
            return None;
        }
        Some(GateVerdict::Confirm {
            step: step.clone(),
            request: request.clone(),
            confirmation: Box::new(self.confirmation(id, tool, args)),
            consent,
            explanation: explanation.clone(),
        })
    }

    /// Whether the monitor over `plan`, fed every logged event with the
    /// accepted verdicts, allows the last one.
    fn granted_monitor_allows(&self, plan: &Arc<Plan>, judged: &Judged) -> bool {
        let mut monitor = Monitor::new(Arc::clone(plan));
        let mut last = None;
        for facts in &self.log {
            let at: Vec<_> = judged
                .get(&facts.event)
                .map(|s| s.iter().copied().collect())
                .unwrap_or_default();
            match monitor.push(facts, &at) {
                Ok(outcome) => last = outcome.allowed(),
                Err(_) => return false,
            }
        }
        last == Some(true)
    }

    /// The confirmation request of the call `id` of `tool` with `args`.
    fn confirmation(&self, id: &str, tool: &str, args: &serde_json::Value) -> Confirmation {
        let mut details: Vec<Detail> = args
            .as_object()
            .map(|object| {
                object
                    .iter()
                    .map(|(name, value)| Detail {
                        name: name.clone(),
                        value: shown(value),
                    })
                    .collect()
            })
            .unwrap_or_default();
        details.sort_by(|a, b| a.name.cmp(&b.name));
        let template = self
            .rt
            .bundle
            .domain
            .tool(tool)
            .and_then(|t| t.confirmation.as_deref());
        let text = match template {
            Some(pieces) => pieces
                .iter()
                .map(|piece| match piece {
                    ConfirmPiece::Text(text) => text.clone(),
                    ConfirmPiece::Param(name) => details
                        .iter()
                        .find(|d| d.name == *name)
                        .map(|d| d.value.clone())
                        .unwrap_or_else(|| format!("(no {name})")),
                })
                .collect(),
            None if details.is_empty() => format!("Run {tool}?"),
            None => format!(
                "Run {tool} with {}?",
                details
                    .iter()
                    .map(|d| format!("{} {}", d.name, d.value))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Confirmation {
            call: id.to_owned(),
            details,
            text,
            tool: tool.to_owned(),
        }
    }
}

/// An argument's value as a confirmation shows it.
fn shown(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// What the conversation says about the user's consent, as of the last
/// event: the user's replies since the agent's latest request for a
/// decision. No request or no reply is [`ConsentState::Absent`]; a reply
/// the reader reads as a refusal or withdrawal, not followed by a clear yes,
/// is [`ConsentState::Refused`]; any other reply is
/// [`ConsentState::Qualified`] (the reader could not decide it).
///
/// The one place the gate reads the user's answer for `confirm`: it uses
/// the reply stance of `turnstile_judge::dialogue`.
pub(super) fn consent_read(core: &Core) -> ConsentState {
    let mut replies = Vec::new();
    let mut asked = false;
    for facts in core.log.iter().rev() {
        let Some(turn) = facts.turn else { continue };
        match turn.speaker {
            Speaker::Agent if turn.asks_decision => {
                asked = true;
                break;
            }
            Speaker::User => replies.push(turn.event),
            Speaker::Agent => {}
        }
    }
    if !asked || replies.is_empty() {
        return ConsentState::Absent;
    }
    let mut refused = false;
    for event in replies.iter().rev() {
        let Some(Event::User { text }) = core.events.get(event.as_usize()) else {
            continue;
        };
        match reply_stance(text) {
            Stance::Refuse => refused = true,
            Stance::Affirm => refused = false,
            Stance::Question | Stance::Unknown => {}
        }
    }
    if refused {
        ConsentState::Refused
    } else {
        ConsentState::Qualified
    }
}
