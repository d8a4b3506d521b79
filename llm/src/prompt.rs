//! The chat messages sent to a model judge: one call asks every question of
//! a batch.
//!
//! The system message is fixed (rules and output contract), so it is
//! byte-identical for every call and providers' prompt caching applies. The
//! user message starts with the conversation the questions share (the union
//! of their slices, which all end at the same event when they come from one
//! firing), so consecutive calls of one session also share a long prefix;
//! then the policy excerpts, each once; then the numbered questions, each
//! naming the events it may use. A question whose slice is not a contiguous
//! part of the shared conversation (questions about different
//! conversations) carries its own slice instead.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use turnstile_judge::{JudgeRequest, Question, Turn};

const RULES: &str = "\
You are the semantic judge of Turnstile, a policy-workflow engine for customer-service agents.
You answer numbered questions about a conversation between a user, an agent and tools.

Rules:
1. Judge each question only from the events it names. Each event is numbered [event_index] and labelled user, agent or tool.
2. Consent, choices and confirmations count only when the user said them. The agent's claims or assumptions never count as the user's consent.
3. A confirmation counts only if it comes after the agent stated the details it asks about, and the user did not retract, correct or question it afterwards. \"Yes, but ...\" or \"yes, and change ...\" is not a confirmation of the stated details.
4. If the events do not contain the evidence, the criterion is not satisfied. If you cannot tell, answer unknown.
5. Facts about orders, reservations, accounts or eligibility are not yours to judge; do not speculate about them.
6. Questions are independent: never let the answer to one question decide another.
7. A consent question names one tool call. It is satisfied only if, in the events it names (from the agent's latest request for a decision about this action), the user explicitly agreed to exactly that call: that action, on those records, with those details. A yes to a different action, record or amount, a yes with a condition or a change, a question back, or silence is not consent: answer not_satisfied when the user declined or agreed to something else, unknown when you cannot tell.

Output contract: reply with one JSON object and nothing else, with exactly one member per question, keyed by the question's number as a string: {\"1\": <answer>, \"2\": <answer>, ...}.
- Answer to a criterion question or a consent question: {\"verdict\": \"satisfied\" | \"not_satisfied\" | \"unknown\", \"evidence_event\": <event_index of the turn that satisfies it, by the speaker the question's Evidence line names; required when satisfied>, \"rationale\": \"<at most 12 words>\"}
- Answer to a classification question: {\"label\": \"<exactly one of the given labels, or null if none fits>\", \"evidence_event\": <event_index of the user turn that shows it>, \"rationale\": \"<at most 12 words>\"}
";

/// The system message: fixed rules and output contract.
#[must_use]
pub(crate) fn system_message() -> &'static str {
    RULES
}

/// The user message asking every question of `requests`, numbered from 1 in
/// their order.
#[must_use]
pub(crate) fn batch_message(requests: &[JudgeRequest]) -> String {
    let shared = SharedConversation::of(requests);
    let mut s = String::new();
    // Writing to a String cannot fail; the results are ignored on purpose.
    if !shared.turns.is_empty() {
        let _ = writeln!(s, "Conversation:");
        for turn in shared.turns.values() {
            write_turn(&mut s, turn);
        }
        s.push('\n');
    }
    let excerpts = Excerpts::of(requests);
    if !excerpts.texts.is_empty() {
        let _ = writeln!(s, "Policy excerpts:");
        for (i, text) in excerpts.texts.iter().enumerate() {
            let _ = writeln!(s, "[P{}] {}", i + 1, text.trim());
        }
        s.push('\n');
    }
    for (i, request) in requests.iter().enumerate() {
        let _ = writeln!(s, "Question {}", i + 1);
        write_question(&mut s, request);
        if let Some(p) = excerpts.index_of(request) {
            let _ = writeln!(s, "Policy: P{}", p + 1);
        }
        match (request.conversation.first(), request.conversation.last()) {
            (Some(first), Some(last)) if shared.covers(request) => {
                let _ = writeln!(
                    s,
                    "Events: {} to {} of the conversation above",
                    first.event_index, last.event_index
                );
            }
            (Some(_), Some(_)) => {
                let _ = writeln!(s, "Events (this question's own):");
                for turn in &request.conversation {
                    write_turn(&mut s, turn);
                }
            }
            _ => {
                let _ = writeln!(s, "Events: none");
            }
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "Answer with the JSON object only, one member per question, keys \"1\" to \"{}\".",
        requests.len()
    );
    s
}

/// The turns the questions share, by event index: every turn of every
/// request whose turns agree with those already collected (same role and
/// text at the same index).
struct SharedConversation<'a> {
    turns: BTreeMap<u32, &'a Turn>,
}

impl<'a> SharedConversation<'a> {
    fn of(requests: &'a [JudgeRequest]) -> Self {
        let mut turns: BTreeMap<u32, &'a Turn> = BTreeMap::new();
        for request in requests {
            let agrees = request
                .conversation
                .iter()
                .all(|t| turns.get(&t.event_index).is_none_or(|seen| *seen == t));
            if agrees {
                for turn in &request.conversation {
                    turns.insert(turn.event_index, turn);
                }
            }
        }
        Self { turns }
    }

    /// Whether `request`'s slice is exactly the shared turns from its first
    /// to its last event, so "events A to B" names it without loss.
    fn covers(&self, request: &JudgeRequest) -> bool {
        let (Some(first), Some(last)) = (request.conversation.first(), request.conversation.last())
        else {
            return false;
        };
        if first.event_index > last.event_index {
            return false;
        }
        let shared = self.turns.range(first.event_index..=last.event_index);
        shared.clone().count() == request.conversation.len()
            && shared
                .zip(&request.conversation)
                .all(|((_, seen), own)| *seen == own)
    }
}

/// The distinct policy excerpts of a batch, in first-seen order.
struct Excerpts<'a> {
    texts: Vec<&'a str>,
}

impl<'a> Excerpts<'a> {
    fn of(requests: &'a [JudgeRequest]) -> Self {
        let mut texts: Vec<&'a str> = Vec::new();
        for text in requests.iter().filter_map(|r| r.policy_excerpt.as_deref()) {
            if !text.trim().is_empty() && !texts.contains(&text) {
                texts.push(text);
            }
        }
        Self { texts }
    }

    fn index_of(&self, request: &JudgeRequest) -> Option<usize> {
        let text = request.policy_excerpt.as_deref()?;
        self.texts.iter().position(|t| *t == text)
    }
}

fn write_turn(s: &mut String, turn: &Turn) {
    let _ = writeln!(
        s,
        "[{}] {}: {}",
        turn.event_index,
        turn.role.as_str(),
        turn.text.trim()
    );
}

/// The question itself: node, kind, criterion or labels, bindings.
fn write_question(s: &mut String, request: &JudgeRequest) {
    let _ = writeln!(s, "Node: {}", request.node_id);
    match &request.question {
        Question::Criterion {
            text,
            keywords,
            key_values,
            said_by,
        } => {
            let _ = writeln!(s, "Type: criterion");
            let _ = writeln!(s, "Criterion: {}", one_line(text));
            let _ = writeln!(s, "Evidence: a {} turn", said_by.as_str());
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
        Question::Consent { tool, call } => {
            let _ = writeln!(s, "Type: consent");
            let _ = writeln!(
                s,
                "Did the user explicitly agree to exactly this call of {tool}: {}",
                one_line(call)
            );
            let _ = writeln!(s, "Evidence: a user turn");
        }
        Question::Classify { branches } => {
            let _ = writeln!(s, "Type: classification");
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
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use turnstile_judge::Role;

    fn request(node: &str, order: &str, turns: Vec<Turn>) -> JudgeRequest {
        JudgeRequest {
            bundle_hash: "b".into(),
            node_id: node.into(),
            question: Question::Criterion {
                text: "the user confirmed".into(),
                keywords: Vec::new(),
                said_by: Role::User,
                key_values: vec![order.into()],
            },
            policy_excerpt: Some("Cancel only pending orders.".into()),
            bindings: BTreeMap::from([("order".into(), order.into())]),
            conversation: turns.into(),
        }
    }

    fn turns(range: std::ops::Range<u32>) -> Vec<Turn> {
        range
            .map(|i| Turn::new(i, Role::User, format!("turn {i}")))
            .collect()
    }

    #[test]
    fn shared_conversation_is_rendered_once() {
        let a = request("cancel.confirm", "#W1", turns(2..6));
        let b = request("return.confirm", "#W2", turns(4..6));
        let u = batch_message(&[a, b]);
        assert_eq!(u.matches("[5] user: turn 5").count(), 1, "{u}");
        assert!(u.contains("Question 1\nNode: cancel.confirm"), "{u}");
        assert!(
            u.contains("Events: 2 to 5 of the conversation above"),
            "{u}"
        );
        assert!(
            u.contains("Events: 4 to 5 of the conversation above"),
            "{u}"
        );
        assert_eq!(u.matches("Cancel only pending orders.").count(), 1, "{u}");
        assert_eq!(u.matches("Policy: P1").count(), 2, "{u}");
        assert!(u.contains("- order = #W2"), "{u}");
        assert!(u.ends_with("keys \"1\" to \"2\".\n"), "{u}");
        assert!(
            !RULES.contains("#W1"),
            "variable parts stay out of the cached prefix"
        );
    }

    #[test]
    fn a_consent_question_names_the_call_and_asks_for_a_user_turn() {
        let mut consent = request("cancel.confirm#consent", "#W1", turns(8..10));
        consent.question = Question::Consent {
            tool: "cancel_pending_order".into(),
            call: "Cancel order #W1\n(no longer needed)?".into(),
        };
        consent.policy_excerpt = None;
        let criterion = request("cancel.reason", "#W1", turns(8..10));
        let u = batch_message(&[criterion, consent]);
        assert!(
            u.contains(
                "Question 2\nNode: cancel.confirm#consent\nType: consent\nDid the user explicitly agree to exactly this call of cancel_pending_order: Cancel order #W1 (no longer needed)?\nEvidence: a user turn\n"
            ),
            "{u}"
        );
        assert!(
            u.contains("Events: 8 to 9 of the conversation above"),
            "{u}"
        );
        // Its answer follows the criterion's contract.
        assert!(RULES.contains("Answer to a criterion question or a consent question"));
        assert!(RULES.contains("7. A consent question names one tool call."));
    }

    #[test]
    fn a_conflicting_slice_carries_its_own_events() {
        let a = request("cancel.confirm", "#W1", turns(2..6));
        let mut other = turns(3..5);
        other[0].text = "something else".into();
        let b = request("cancel.confirm", "#W2", other);
        let u = batch_message(&[a, b]);
        assert!(
            u.contains("Events (this question's own):\n[3] user: something else\n[4] user: turn 4"),
            "{u}"
        );
        assert_eq!(u.matches("[4] user: turn 4").count(), 2, "{u}");
    }

    #[test]
    fn a_slice_with_a_gap_is_not_named_by_its_range() {
        let a = request("cancel.confirm", "#W1", turns(2..6));
        let mut gapped = turns(2..6);
        gapped.remove(1);
        let b = request("cancel.confirm", "#W2", gapped);
        let u = batch_message(&[a, b]);
        assert!(u.contains("Events (this question's own):"), "{u}");
        let empty = request("cancel.confirm", "#W3", Vec::new());
        assert!(batch_message(&[empty]).contains("Events: none"));
    }
}
