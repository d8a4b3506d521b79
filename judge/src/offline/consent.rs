//! Consent detection: whether a criterion asks for the user's yes, how one
//! user turn answers a proposal ([`Reply`]), and the consent verdict on a
//! slice (the rules are in the `offline` module documentation).

use crate::types::{Judgement, Role, Turn, Verdict};

use super::lexicon::{
    ASK_CUES, CONDITIONALS, CONSENT_STEMS, FILLERS, NEGATIVE_HEADS, NEGATIVE_PHRASES, NEGATORS,
    STRONG, WEAK_HEADS, WEAK_PHRASES,
};
use super::text::{clauses, contains_phrase, normalise, sentences, words};

/// Whether `text` is a confirmation/consent criterion, which the offline
/// judge reads as "the user said yes to what the agent last proposed".
pub(super) fn is_consent_criterion(text: &str) -> bool {
    let lower = text.to_lowercase();
    CONSENT_STEMS.iter().any(|stem| lower.contains(stem))
        || words(&lower).iter().any(|w| w == "yes")
}

/// How one user turn answers a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reply {
    /// Plain consent.
    Affirm,
    /// Consent mixed with a correction or a negation ("yes, but …").
    AffirmWithCorrection,
    /// Refusal, hesitation or a correction without consent.
    Negative,
    /// A question without consent (or with only weak consent).
    Question,
    /// Nothing recognisable.
    Unclear,
}

/// Classifies one user utterance as an answer to a proposal.
#[must_use]
pub(super) fn classify_reply(text: &str) -> Reply {
    let text = normalise(text);
    let sentences = sentences(&text);
    let mut negative = false;
    let mut correction = false;
    let mut strong = false;
    let mut weak = false;
    let mut question = false;
    for (sentence_index, (sentence, is_question)) in sentences.iter().enumerate() {
        question |= *is_question;
        let tokens = words(sentence);
        // "I don't want to go ahead …" mentions a go-ahead only to refuse it.
        for phrase in STRONG {
            match phrase_polarity(&tokens, phrase) {
                Some(true) if !*is_question => strong = true,
                Some(false) => negative = true,
                _ => {}
            }
        }
        for phrase in WEAK_PHRASES {
            match phrase_polarity(&tokens, phrase) {
                Some(true) => weak = true,
                Some(false) => negative = true,
                None => {}
            }
        }
        if NEGATIVE_PHRASES.iter().any(|p| contains_phrase(&tokens, p)) {
            negative = true;
        }
        if tokens.iter().any(|t| t == "instead") || contains_phrase(&tokens, &["rather", "than"]) {
            correction = true;
        }
        for (clause_index, clause) in clauses(sentence).iter().enumerate() {
            let tokens = words(clause);
            let head = skip_fillers(&tokens);
            // "Yes, but …" / "Yes but …" / "That sounds good, but …": a `but`
            // right after the opening words qualifies the agreement; a later
            // `but` usually restates details ("… but keep the pet bed").
            if sentence_index == 0
                && ((clause_index == 1 && head.first().is_some_and(|w| w == "but"))
                    || (clause_index == 0 && head.iter().take(4).any(|w| w == "but")))
            {
                correction = true;
            }
            match head.first().map(String::as_str) {
                Some(w) if WEAK_HEADS.contains(&w) => weak = true,
                Some("no")
                    if head.len() == 1 || head.get(1).is_some_and(|w| w.starts_with("thank")) =>
                {
                    negative = true;
                }
                Some(w) if NEGATIVE_HEADS.contains(&w) => negative = true,
                // Only as an opener: "Maybe I can just cancel that item" is
                // not a withdrawal.
                Some("cancel") if head.get(1).is_some_and(|w| w == "that") => negative = true,
                Some("actually" | "however" | "except") => correction = true,
                _ => {}
            }
        }
    }
    let affirm = strong || weak;
    match (affirm, negative || correction) {
        (true, true) => Reply::AffirmWithCorrection,
        (false, true) => Reply::Negative,
        (true, false) if strong || !question => Reply::Affirm,
        (true, false) => Reply::Question,
        (false, false) if question => Reply::Question,
        (false, false) => Reply::Unclear,
    }
}

/// `tokens` without the filler words that open it.
fn skip_fillers(tokens: &[String]) -> &[String] {
    let start = tokens
        .iter()
        .position(|t| !FILLERS.contains(&t.as_str()))
        .unwrap_or(tokens.len());
    tokens.get(start..).unwrap_or_default()
}

/// `Some(true)` if `phrase` occurs un-negated, `Some(false)` if it occurs only
/// with a negator among the three words before it, `None` if absent or only
/// hypothetical.
fn phrase_polarity(tokens: &[String], phrase: &[&str]) -> Option<bool> {
    if phrase.is_empty() || phrase.len() > tokens.len() {
        return None;
    }
    let mut negated = false;
    for (start, candidate) in tokens.windows(phrase.len()).enumerate() {
        if candidate.iter().zip(phrase).all(|(a, b)| a == b) {
            let window = tokens
                .get(start.saturating_sub(3)..start)
                .unwrap_or_default();
            if window.iter().any(|w| CONDITIONALS.contains(&w.as_str())) {
                continue;
            }
            if window.iter().any(|w| NEGATORS.contains(&w.as_str())) {
                negated = true;
            } else {
                return Some(true);
            }
        }
    }
    negated.then_some(false)
}

/// Whether an agent turn asks the user to decide something.
fn asks_for_decision(text: &str) -> bool {
    let tokens = words(&normalise(text));
    ASK_CUES.iter().any(|p| contains_phrase(&tokens, p))
}

/// Whether a turn is the agent speaking (not a tool call, not blank).
fn is_agent_text(turn: &Turn) -> bool {
    turn.role == Role::Agent && !turn.text.trim().is_empty()
}

/// The consent verdict on a slice: the last decisive user reply to the
/// agent's last request for a decision.
pub(super) fn judge_consent(conversation: &[Turn]) -> Judgement {
    let Some(last_user) = conversation.iter().rposition(|t| t.role == Role::User) else {
        return Judgement::new(Verdict::NotSatisfied, "no user turn in the slice");
    };
    let after_last_user = conversation.get(last_user + 1..).unwrap_or_default();
    if let Some(pending) = after_last_user
        .iter()
        .find(|t| is_agent_text(t) && asks_for_decision(&t.text))
    {
        return Judgement::new(
            Verdict::NotSatisfied,
            format!(
                "the agent's request for confirmation at event {} has no user reply",
                pending.event_index
            ),
        );
    }
    let before_last_user = conversation.get(..last_user).unwrap_or_default();
    let summary = before_last_user
        .iter()
        .enumerate()
        .rfind(|(_, t)| is_agent_text(t));
    if let Some((_, summary_turn)) = summary
        && !asks_for_decision(&summary_turn.text)
    {
        return Judgement::unknown(format!(
            "the agent's last turn (event {}) does not ask for confirmation",
            summary_turn.event_index
        ));
    }
    let first_reply = summary.map_or(0, |(s, _)| s + 1);
    let decisive = conversation
        .get(first_reply..=last_user)
        .unwrap_or_default()
        .iter()
        .filter(|t| t.role == Role::User)
        .map(|t| (t, classify_reply(&t.text)))
        .rfind(|(_, r)| *r != Reply::Unclear);
    match decisive {
        Some((turn, Reply::Affirm)) => Judgement::new(
            Verdict::Satisfied {
                evidence_event: turn.event_index,
            },
            format!("the user agreed at event {}", turn.event_index),
        ),
        Some((turn, Reply::AffirmWithCorrection)) => Judgement::unknown(format!(
            "the user agreed with a correction at event {}; the details must be restated",
            turn.event_index
        )),
        Some((turn, Reply::Negative)) => Judgement::new(
            Verdict::NotSatisfied,
            format!(
                "the user declined or hesitated at event {}",
                turn.event_index
            ),
        ),
        Some((turn, Reply::Question)) => Judgement::new(
            Verdict::NotSatisfied,
            format!(
                "the user asked a question at event {} instead of confirming",
                turn.event_index
            ),
        ),
        Some((_, Reply::Unclear)) | None => {
            Judgement::unknown("no recognisable yes or no in the user's reply")
        }
    }
}
