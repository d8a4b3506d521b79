//! Consent criteria: whether a criterion asks for the user's yes, and its
//! verdict, which is [`crate::dialogue::consent`] on the slice (the rule is
//! documented there) mapped onto a [`Verdict`].

use crate::dialogue::{Consent, consent};
use crate::types::{Judgement, Turn, Verdict};

/// Stems whose presence makes a criterion a confirmation/consent criterion
/// (with the word "yes", checked separately).
const CONSENT_STEMS: &[&str] = &[
    "confirm",
    "consent",
    "agree",
    "approv",
    "permission",
    "authoriz",
    "authoris",
];

/// Whether `text` is a confirmation/consent criterion, which the offline
/// judge reads as "the user said yes to the agent's latest summary".
pub fn is_consent_criterion(text: &str) -> bool {
    let lower = text.to_lowercase();
    CONSENT_STEMS.iter().any(|stem| lower.contains(stem))
        || lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == "yes")
}

/// The consent verdict on a slice. The summary is the latest agent request
/// for a decision that names every key value (the order id the request is
/// about: a yes to a summary of another order does not count), or with no
/// key values, some identifier.
pub(super) fn judge_consent(conversation: &[Turn], key_values: &[String]) -> Judgement {
    let key_values: Vec<&str> = key_values.iter().map(String::as_str).collect();
    match consent(conversation, &key_values) {
        Consent::Given {
            summary_event,
            evidence_event,
        } => Judgement::new(
            Verdict::Satisfied { evidence_event },
            format!(
                "the user agreed at event {evidence_event} to the agent's request at event {summary_event}"
            ),
        ),
        Consent::NotGiven { reason } => Judgement::new(Verdict::NotSatisfied, reason),
        Consent::Unknown { reason } => Judgement::unknown(reason),
    }
}
