//! The gate's answer to a protected read no identification permits: a
//! block with the read's own reason (`NotIdentified`, or its guard's),
//! the identification step it waits for and the protection's remediation.
//! Which reads are permitted is the monitor's (`EventOutcome::protected`);
//! the explanation is the monitor's or the reference program's, like a
//! write's ([`super::Explainer`]).

use turnstile_rules::{EventIdx, FactsBuilder, Reason, evaluate};

use super::{Bindings, Explainer, GateVerdict, Session, remedy};
use crate::decide::explain_violation;

impl Session {
    /// The block of the protected read at `k` (the last event taken).
    pub(super) fn unpermitted_read(&self, k: EventIdx) -> GateVerdict {
        let violation = match self.explainer {
            Explainer::Monitor => self.monitor.explain_read(),
            Explainer::Datalog => {
                let mut builder = FactsBuilder::new(self.rt.bundle.arg_paths.clone());
                for facts in &self.log {
                    builder.push(facts);
                }
                let mut facts = builder.snapshot(&self.extractor.interner, k.next().0);
                facts.judged = self.judged();
                evaluate(&self.rt.bundle.program, &facts)
                    .ok()
                    .and_then(|d| d.violations.into_iter().find(|v| v.event == k))
            }
        };
        let Some(violation) = violation else {
            return GateVerdict::Block {
                reason: Reason::NotIdentified,
                step: None,
                request: Bindings::new(),
                remediation: None,
                explanation: format!("event {k}: a protected read no identification permits"),
            };
        };
        let bundle = &self.rt.bundle;
        let tool = self.extractor.interner.resolve(violation.tool);
        let remediation = self.rt.read_remedies.get(tool).map(|pieces| {
            remedy::render(
                pieces,
                &self.monitor,
                &violation.request,
                &self.extractor.interner,
                &self.type_errors,
            )
        });
        GateVerdict::Block {
            reason: violation.reason,
            step: violation.unmet.map(|s| self.rt.step_name(s).to_owned()),
            request: self.bindings(&violation.request),
            remediation,
            explanation: explain_violation(
                bundle,
                &self.rt.plan.encoded,
                &self.extractor.interner,
                &violation,
            ),
        }
    }
}
