//! The gate's answer to a protected read no identification permits: a
//! block with the read's own reason (`NotIdentified`, or its guard's),
//! the identification step it waits for and the protection's remediation.
//! Which reads are permitted is the monitor's (`EventOutcome::protected`);
//! the explanation is the monitor's or the reference program's, like a
//! write's ([`super::Explainer`]).

use turnstile_rules::{Env, EventIdx, FactsBuilder, Reason, StepId, evaluate};

use super::core::Core;
use super::{Bindings, Explainer, GateVerdict};
use crate::decide::explain_violation;

impl Core {
    /// The block of the protected read at `k` (the last event taken).
    /// `judged`: the accepted verdicts, for the Datalog explainer.
    pub(super) fn unpermitted_read(
        &self,
        k: EventIdx,
        judged: impl FnOnce() -> Vec<(StepId, Env, EventIdx)>,
    ) -> GateVerdict {
        let violation = match self.explainer {
            Explainer::Monitor => self.monitor.explain_read(),
            Explainer::Datalog => {
                let mut builder = FactsBuilder::new(self.rt.bundle.arg_paths.clone());
                for facts in &self.log {
                    builder.push(facts);
                }
                let mut facts = builder.snapshot(&self.extractor.interner, k.next().0);
                facts.judged = judged();
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
        let tool = self.extractor.interner.resolve(violation.tool);
        let remediation = self
            .rt
            .read_remedies
            .get(tool)
            .map(|pieces| self.render_remedy(pieces, &violation.request));
        GateVerdict::Block {
            reason: violation.reason,
            step: violation.unmet.map(|s| self.rt.step_name(s).to_owned()),
            request: self.bindings(&violation.request),
            remediation,
            explanation: explain_violation(
                &self.rt.bundle,
                &self.rt.plan.encoded,
                &self.extractor.interner,
                &violation,
            ),
        }
    }
}
