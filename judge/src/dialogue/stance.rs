//! The reply-stance grammar: which markers a reply contains (see
//! [`Markers`]) and how they combine into a [`Stance`]. The rule itself is
//! documented on the `dialogue` module.

use super::lexicon::{
    AGREEMENT, CONDITION_NEUTRALISERS, CONDITIONS, CONTRAST, CONTRAST_HEADS, FILLERS, GO_AHEAD,
    HEDGES, NEGATORS, NEUTRAL_NEGATIONS, REFUSALS, RETENTION, SARCASM, SARCASM_MARKS,
    WITHDRAWAL_HEADS, WITHDRAWALS, YES_HEADS,
};
use super::tokens::{Sentence, contains_phrase, phrase_positions, sentences};

/// How a user reply answers the agent's request for a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stance {
    /// An explicit, unqualified yes: the only stance that is consent.
    Affirm,
    /// A no, a hesitation, a withdrawal or a sarcastic yes.
    Refuse,
    /// A question with no explicit yes: the user is still deciding.
    Question,
    /// Anything else, including a yes qualified by a contrast, condition or
    /// negation ("yes, but …"): never consent.
    Unknown,
}

impl Stance {
    /// Whether this stance takes back or qualifies an earlier yes. A plain
    /// question or an unrelated remark does not; a refusal, or any reply that
    /// carries a negation, contrast, condition, hedge or withdrawal, does.
    #[must_use]
    pub(crate) fn revokes(self, markers: &Markers) -> bool {
        match self {
            Stance::Affirm => false,
            Stance::Refuse => true,
            Stance::Question | Stance::Unknown => markers.any_defeater(),
        }
    }
}

/// The markers found in one reply; each field is one grammar class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Markers {
    /// A go-ahead phrase in a statement ("go ahead", "I confirm").
    pub go_ahead: bool,
    /// A yes interjection opening a clause, or an agreement phrase, in a
    /// statement.
    pub weak_yes: bool,
    /// A negator anywhere (idioms such as "no problem" excepted).
    pub negation: bool,
    /// A clause opening with a negator ("No, …", "Do not …", "Absolutely
    /// not"), or a negator in the same clause as a yes word ("I confirm
    /// nothing").
    pub refusal: bool,
    /// A contrast or correction marker.
    pub contrast: bool,
    /// A condition marker.
    pub condition: bool,
    /// A hedge.
    pub hedge: bool,
    /// Keeping what the action would change ("keep it", "leave it").
    pub retention: bool,
    /// A withdrawal ("changed my mind", a clause opening with "wait").
    pub withdrawal: bool,
    /// A sarcasm marker.
    pub sarcasm: bool,
    /// Some sentence is a question.
    pub question: bool,
}

impl Markers {
    /// Reads the markers of one reply.
    #[must_use]
    pub(crate) fn of(reply: &str) -> Self {
        let mut m = Markers {
            sarcasm: SARCASM_MARKS.iter().any(|mark| reply.contains(mark)),
            ..Markers::default()
        };
        for sentence in sentences(&without_quoted_mentions(reply)) {
            m.read_sentence(&sentence);
        }
        m
    }

    fn read_sentence(&mut self, sentence: &Sentence) {
        self.question |= sentence.question;
        let all: Vec<String> = sentence.tokens().cloned().collect();
        let any = |class: &[&[&str]]| class.iter().any(|p| contains_phrase(&all, p));
        self.contrast |= any(CONTRAST);
        self.condition |= CONDITIONS.iter().any(|p| {
            phrase_positions(&all, p).into_iter().any(|at| {
                let before = all.get(..at).unwrap_or_default();
                !CONDITION_NEUTRALISERS.iter().any(|n| {
                    before.ends_with(&n.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>())
                })
            })
        });
        self.hedge |= any(HEDGES) || all.iter().any(|w| is_elongated(w));
        self.retention |= any(RETENTION);
        self.withdrawal |= any(WITHDRAWALS);
        // Sarcasm and elongation ("suuure") read across clause boundaries.
        self.sarcasm |= any(SARCASM) || all.iter().any(|w| is_elongated(w));
        for clause in &sentence.clauses {
            self.read_clause(clause, sentence.question);
        }
    }

    fn read_clause(&mut self, clause: &[String], in_question: bool) {
        let negators = negator_positions(clause);
        let head = skip_fillers(clause);
        let opens_with = |p: &[&str]| {
            head.get(..p.len())
                .is_some_and(|start| contains_phrase(start, p))
        };
        let yes_head = YES_HEADS.iter().any(|p| opens_with(p));
        let go_ahead = GO_AHEAD.iter().any(|p| contains_phrase(clause, p));
        let agreement = AGREEMENT.iter().any(|p| contains_phrase(clause, p));
        if !in_question {
            self.go_ahead |= go_ahead;
            self.weak_yes |= yes_head || agreement;
        }
        self.negation |= !negators.is_empty();
        // "No, …", "Do not …", "Absolutely not", "ok no": a negator among the
        // first two words after the fillers opens the clause as a refusal.
        let head_offset = clause.len() - head.len();
        let opens_negated = negators.iter().any(|&i| i < head_offset + 2);
        let negated_yes = !negators.is_empty() && (yes_head || go_ahead || agreement);
        self.refusal |=
            opens_negated || negated_yes || REFUSALS.iter().any(|p| contains_phrase(clause, p));
        self.contrast |= CONTRAST_HEADS.iter().any(|p| opens_with(p));
        self.withdrawal |= WITHDRAWAL_HEADS.iter().any(|p| opens_with(p))
            && !(opens_with(&["cancel", "that"]) && head.len() > 2);
    }

    /// Whether the reply holds an explicit yes in a statement.
    #[must_use]
    pub(crate) fn says_yes(&self) -> bool {
        self.go_ahead || self.weak_yes
    }

    /// Whether anything that defeats a yes is present.
    #[must_use]
    pub(crate) fn any_defeater(&self) -> bool {
        self.negation
            || self.refusal
            || self.contrast
            || self.condition
            || self.hedge
            || self.retention
            || self.withdrawal
            || self.sarcasm
    }

    /// The stance these markers make; see the `dialogue` module for the rule.
    #[must_use]
    pub(crate) fn stance(&self) -> Stance {
        if self.refusal || self.withdrawal || (self.sarcasm && self.says_yes()) {
            return Stance::Refuse;
        }
        let still_deciding = self.question && !self.go_ahead;
        if self.says_yes() && !self.any_defeater() && !still_deciding {
            return Stance::Affirm;
        }
        let qualified = self.contrast || self.condition || self.retention || self.negation;
        if self.says_yes() && qualified && !self.hedge {
            return Stance::Unknown;
        }
        if self.question {
            return Stance::Question;
        }
        if self.hedge || self.retention || self.sarcasm {
            return Stance::Refuse;
        }
        Stance::Unknown
    }
}

/// Classifies one user reply to the agent's request for a decision. Pure and
/// deterministic; the rule is documented on the `dialogue` module.
#[must_use]
pub fn reply_stance(reply: &str) -> Stance {
    Markers::of(reply).stance()
}

/// Longest quoted span treated as a mention, in words.
const MAX_MENTION_WORDS: usize = 8;

/// `reply` with short double-quoted spans blanked: `The reason is "no longer
/// needed"` mentions the words, it does not say "no". An unbalanced or long
/// quotation is kept, so it is read as the user's own words.
fn without_quoted_mentions(reply: &str) -> String {
    let mut out = String::with_capacity(reply.len());
    let mut rest = reply;
    while let Some(open) = rest.find(['"', '\u{201c}']) {
        let (before, from_open) = rest.split_at(open);
        let quote_len = from_open.chars().next().map_or(1, char::len_utf8);
        let inner_and_after = from_open.get(quote_len..).unwrap_or_default();
        let Some(close) = inner_and_after.find(['"', '\u{201d}']) else {
            break;
        };
        let inner = inner_and_after.get(..close).unwrap_or_default();
        out.push_str(before);
        if inner.split_whitespace().count() <= MAX_MENTION_WORDS {
            out.push_str(" , ");
        } else {
            out.push_str(inner);
        }
        let close_len = inner_and_after
            .get(close..)
            .and_then(|c| c.chars().next())
            .map_or(1, char::len_utf8);
        rest = inner_and_after.get(close + close_len..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// `tokens` without the filler words that open it.
fn skip_fillers(tokens: &[String]) -> &[String] {
    let start = tokens
        .iter()
        .position(|t| !FILLERS.contains(&t.as_str()))
        .unwrap_or(tokens.len());
    tokens.get(start..).unwrap_or_default()
}

/// Positions of negators in `tokens`, except those inside an idiom that
/// negates nothing ("no problem").
pub(crate) fn negator_positions(tokens: &[String]) -> Vec<usize> {
    let neutral: Vec<usize> = NEUTRAL_NEGATIONS
        .iter()
        .flat_map(|p| phrase_positions(tokens, p))
        .collect();
    tokens
        .iter()
        .enumerate()
        .filter(|(i, t)| NEGATORS.contains(&t.as_str()) && !neutral.contains(i))
        .map(|(i, _)| i)
        .collect()
}

/// A word with one letter three times in a row ("suuure", "yesss"): drawn-out
/// emphasis that reads as sarcasm or hesitation, never as a plain yes.
fn is_elongated(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    chars
        .windows(3)
        .any(|w| matches!(w, [a, b, c] if a == b && b == c && a.is_alphabetic()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn markers(reply: &str) -> Markers {
        Markers::of(reply)
    }

    #[test]
    fn yes_heads_count_only_at_the_start_of_a_statement_clause() {
        assert!(markers("Yes.").weak_yes);
        assert!(markers("Well, okay").weak_yes);
        assert!(!markers("Make sure it is refunded").weak_yes);
        assert!(!markers("Yes?").says_yes());
        assert!(markers("That's correct").weak_yes);
    }

    #[test]
    fn go_ahead_counts_anywhere_in_a_statement_but_not_in_a_question() {
        assert!(markers("You can go ahead").go_ahead);
        assert!(markers("I confirm the change").go_ahead);
        assert!(!markers("Should I go ahead?").go_ahead);
    }

    #[test]
    fn negators_and_their_refusal_forms() {
        let m = markers("Absolutely not.");
        assert!(m.negation && m.refusal);
        assert!(markers("ok no").refusal);
        assert!(markers("Do NOT cancel it").refusal);
        assert!(markers("I confirm nothing").refusal);
        // A negator deep in a clause without a yes word is a negation, not a refusal.
        let m = markers("Even if there is no refund, fine");
        assert!(m.negation && !m.refusal);
        // "no problem" negates nothing.
        assert!(!markers("No problem, go ahead").negation);
    }

    #[test]
    fn qualifier_classes() {
        assert!(markers("yes, but the other one").contrast);
        assert!(markers("yes if it is free").condition);
        assert!(markers("maybe").hedge);
        assert!(markers("I'll keep it").retention);
        assert!(markers("I changed my mind").withdrawal);
        assert!(markers("Wait, what?").withdrawal);
        assert!(!markers("I'll wait until it's delivered").withdrawal);
        assert!(markers("Cancel that.").withdrawal);
        assert!(!markers("Cancel that order please").withdrawal);
        assert!(markers("Sure, when pigs fly").sarcasm);
        assert!(markers("suuure").sarcasm);
        assert!(markers("yes /s").sarcasm);
    }

    #[test]
    fn stance_combination() {
        assert_eq!(reply_stance("Yes, go ahead."), Stance::Affirm);
        assert_eq!(
            reply_stance("Yes, go ahead. Could you add a bag?"),
            Stance::Affirm
        );
        assert_eq!(reply_stance("Okay. Could you add a bag?"), Stance::Question);
        assert_eq!(reply_stance("Yes, but use my gift card."), Stance::Unknown);
        assert_eq!(reply_stance("No."), Stance::Refuse);
        assert_eq!(reply_stance("Let me think about it."), Stance::Refuse);
        assert_eq!(reply_stance("I'll keep it."), Stance::Refuse);
        assert_eq!(reply_stance("Sure, when pigs fly."), Stance::Refuse);
        assert_eq!(reply_stance("What is the refund amount?"), Stance::Question);
        assert_eq!(reply_stance("I want a coffee."), Stance::Unknown);
        assert_eq!(reply_stance(""), Stance::Unknown);
    }

    #[test]
    fn quoted_mentions_and_neutral_idioms() {
        assert_eq!(
            reply_stance("Yes. The reason is \u{201c}no longer needed.\u{201d} Go ahead."),
            Stance::Affirm
        );
        assert_eq!(without_quoted_mentions("say \"no\" now"), "say  ,  now");
        assert_eq!(
            without_quoted_mentions("unbalanced \"no"),
            "unbalanced \"no"
        );
        assert!(!markers("Yes, let me know if you need anything").condition);
        assert!(!markers("Go ahead, even if there is a fee").condition);
        assert!(markers("Go ahead if there is no fee").condition);
        assert!(!markers("Go ahead. No other changes needed.").negation);
        assert!(!markers("how much I'm actually saving").contrast);
        assert!(markers("Actually, use my card").contrast);
        assert!(markers("I decline.").refusal);
    }

    #[test]
    fn elongation() {
        assert!(is_elongated("suuure"));
        assert!(!is_elongated("yes"));
        assert!(!is_elongated("1000"));
    }
}
