//! The chat messages sent to a model judge.
//!
//! The system message depends only on the policy excerpt, so it is
//! byte-identical for every node of a bundle and providers' prompt caching
//! applies; everything that varies per question (criterion or branches,
//! bindings, the numbered conversation) goes in the user message.

use std::fmt::Write as _;

use turnstile_judge::{JudgeRequest, Question};

const RULES: &str = "\
You are the semantic judge of Turnstile, a policy-workflow engine for customer-service agents.
You decide one question about a conversation slice between a user, an agent and tools.

Rules:
1. Judge only from the conversation slice given. Each event is numbered [event_index] and labelled user, agent or tool.
2. Consent, choices and confirmations count only when the user said them. The agent's claims or assumptions never count as the user's consent.
3. A confirmation counts only if it comes after the agent stated the details it asks about, and the user did not retract, correct or question it afterwards. \"Yes, but ...\" or \"yes, and change ...\" is not a confirmation of the stated details.
4. If the slice does not contain the evidence, the criterion is not satisfied. If you cannot tell, answer unknown.
5. Facts about orders, reservations, accounts or eligibility are not yours to judge; do not speculate about them.

Output contract: reply with one JSON object and nothing else.
- For a criterion question: {\"verdict\": \"satisfied\" | \"not_satisfied\" | \"unknown\", \"evidence_event\": <event_index of the user turn that satisfies it, required when satisfied>, \"rationale\": \"<one short sentence>\"}
- For a classification question: {\"label\": \"<exactly one of the given labels, or null if none fits>\", \"evidence_event\": <event_index of the user turn that shows it>, \"rationale\": \"<one short sentence>\"}
";

/// The system message: fixed rules and output contract, then the policy excerpt.
#[must_use]
pub(crate) fn system_message(policy_excerpt: Option<&str>) -> String {
    let mut s = String::from(RULES);
    if let Some(policy) = policy_excerpt {
        s.push_str("\nPolicy excerpt:\n");
        s.push_str(policy.trim_end());
        s.push('\n');
    }
    s
}

/// The user message: the question, bindings and the numbered slice.
#[must_use]
pub(crate) fn user_message(request: &JudgeRequest) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail; the results are ignored on purpose.
    let _ = writeln!(s, "Node: {}", request.node_id);
    match &request.question {
        Question::Criterion {
            text,
            keywords,
            key_values,
            ..
        } => {
            let _ = writeln!(s, "Question type: criterion");
            let _ = writeln!(s, "Criterion: {}", one_line(text));
            if !keywords.is_empty() {
                let _ = writeln!(s, "Phrases that indicate it: {}", keywords.join(", "));
            }
            if !key_values.is_empty() {
                let _ = writeln!(
                    s,
                    "It concerns exactly: {} (a confirmation counts only for a summary naming these)",
                    key_values.join(", ")
                );
            }
        }
        Question::Classify { branches } => {
            let _ = writeln!(s, "Question type: classification");
            let _ = writeln!(s, "Which request type is the user's request? Labels:");
            for b in branches {
                let _ = write!(s, "- {}", b.label);
                if !b.description.is_empty() {
                    let _ = write!(s, ": {}", one_line(&b.description));
                }
                if !b.keywords.is_empty() {
                    let _ = write!(s, " (keywords: {})", b.keywords.join(", "));
                }
                s.push('\n');
            }
        }
    }
    if !request.bindings.is_empty() {
        let _ = writeln!(s, "Bindings:");
        for (k, v) in &request.bindings {
            let _ = writeln!(s, "- {k} = {v}");
        }
    }
    let _ = writeln!(s, "Conversation slice:");
    for turn in &request.conversation {
        let _ = writeln!(
            s,
            "[{}] {}: {}",
            turn.event_index,
            turn.role.as_str(),
            turn.text.trim()
        );
    }
    s.push_str("Answer with the JSON object only.\n");
    s
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use turnstile_judge::{Role, Turn};

    #[test]
    fn system_prefix_is_stable_and_user_part_varies() {
        let a = system_message(Some("Cancel only pending orders."));
        assert_eq!(a, system_message(Some("Cancel only pending orders.")));
        assert!(a.starts_with(RULES));
        let req = JudgeRequest {
            bundle_hash: "b".into(),
            node_id: "cancel.confirm".into(),
            question: Question::Criterion {
                text: "the user confirmed".into(),
                keywords: Vec::new(),
                said_by: Role::User,
                key_values: Vec::new(),
            },
            policy_excerpt: None,
            bindings: BTreeMap::from([("order".into(), "#W1".into())]),
            conversation: vec![Turn::new(7, Role::User, "Yes, please.")],
        };
        let u = user_message(&req);
        assert!(u.contains("[7] user: Yes, please."));
        assert!(u.contains("- order = #W1"));
    }
}
