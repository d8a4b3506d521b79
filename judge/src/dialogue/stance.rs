//! The reply-stance grammar: which markers a reply contains (see
//! [`Markers`]) and how they combine into a [`Stance`]. The rule itself is
//! documented on the `dialogue` module.

use super::lexicon::{
    ACKNOWLEDGEMENTS, ACTION_ANAPHORS, ACTION_NOUNS, ACTION_STEMS, AGREEMENT, COMPLETIONS,
    CONCESSIONS, CONDITIONS, CONTRAST, CONTRAST_CONCESSIONS, CONTRAST_HEADS, CORRECTIONS,
    COURTESY_CONDITIONS, DECISION_LABELS, FILLERS, FIRST_PERSON, GO_AHEAD, HEDGES,
    INDIRECT_QUESTIONS, INTERJECTION_FOLLOWERS, NEGATORS, NEUTRAL_NEGATIONS, NEW_TOPIC,
    NEW_TOPIC_HEAD, NEW_TOPIC_HEAD_WINDOW, REFUSALS, RETENTION, SARCASM, SARCASM_MARKS, TEMPORAL,
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
    /// A negator in the clause of the first yes or after it: one before the
    /// yes describes ("the ones that are not water resistant. Yes, go
    /// ahead") and does not qualify it.
    pub negation_after_yes: bool,
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
        Markers::of_sentences(reply, &sentences(&without_quoted_mentions(reply)))
    }

    /// Reads the markers of `reply` whose sentences, short quotations
    /// blanked, are `read` (`sentences(&without_quoted_mentions(reply))`:
    /// a caller holding the reply's sentences passes them when
    /// [`quotes_nothing`] says blanking changes nothing).
    pub(crate) fn of_sentences(reply: &str, read: &[Sentence]) -> Self {
        let mut m = Markers {
            sarcasm: SARCASM_MARKS.iter().any(|mark| reply.contains(mark)),
            ..Markers::default()
        };
        let mut scope = Scope::Answer;
        for sentence in read {
            if m.says_yes() && opens_new_request(sentence) {
                scope = Scope::NextRequest;
            }
            match scope {
                Scope::Answer => m.read_sentence(sentence),
                Scope::NextRequest => m.read_next_request(sentence),
            }
        }
        m
    }

    /// A sentence of the answer itself: every marker counts.
    fn read_sentence(&mut self, sentence: &Sentence) {
        self.question |= sentence.question;
        let all: Vec<String> = sentence.tokens().cloned().collect();
        let any = |class: &[&[&str]]| class.iter().any(|p| contains_phrase(&all, p));
        self.contrast |= CONTRAST.iter().any(|p| {
            phrase_positions(&all, p).into_iter().any(|at| {
                let conceded = at
                    .checked_sub(1)
                    .and_then(|i| all.get(i))
                    .is_some_and(|w| CONTRAST_CONCESSIONS.contains(&w.as_str()));
                !conceded
            })
        });
        self.condition |= sentence.clauses.iter().any(|c| states_condition(c));
        self.hedge |= any(HEDGES) || all.iter().any(|w| is_elongated(w));
        self.retention |= any(RETENTION);
        self.withdrawal |= any(WITHDRAWALS);
        // Sarcasm and elongation ("suuure") read across clause boundaries.
        self.sarcasm |= any(SARCASM) || all.iter().any(|w| is_elongated(w));
        for (clause, label) in sentence.clauses.iter().zip(&sentence.labels) {
            if is_field_value(clause, label.as_deref()) {
                continue;
            }
            self.read_clause(clause, sentence.question);
        }
    }

    /// A sentence after the yes that moves on to another request: its
    /// conditions, hedges, questions and contrasts are about that request; a
    /// negation (but the alternative "if not"), refusal, withdrawal, sarcasm,
    /// retention or correction still takes the yes back.
    fn read_next_request(&mut self, sentence: &Sentence) {
        let all: Vec<String> = sentence.tokens().cloned().collect();
        let any = |class: &[&[&str]]| class.iter().any(|p| contains_phrase(&all, p));
        self.contrast |= any(CORRECTIONS);
        self.retention |= any(RETENTION);
        self.withdrawal |= any(WITHDRAWALS);
        self.sarcasm |= any(SARCASM) || all.iter().any(|w| is_elongated(w));
        for (clause, label) in sentence.clauses.iter().zip(&sentence.labels) {
            if is_field_value(clause, label.as_deref()) {
                continue;
            }
            let before = *self;
            self.read_clause(clause, true);
            // Only the clause's refusal and withdrawal forms are kept.
            let negates = bears_on_action(clause)
                && negator_positions(clause)
                    .into_iter()
                    .any(|i| !follows_condition(clause, i));
            *self = Markers {
                refusal: self.refusal,
                withdrawal: self.withdrawal,
                negation: self.negation,
                negation_after_yes: before.negation_after_yes || negates,
                ..before
            };
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
        let says_yes_here = !in_question && (yes_head || go_ahead || agreement);
        self.negation_after_yes |=
            !negators.is_empty() && (self.says_yes() || says_yes_here) && bears_on_action(clause);
        if !in_question {
            self.go_ahead |= go_ahead;
            self.weak_yes |= yes_head || agreement;
        }
        self.negation |= !negators.is_empty();
        // "No, …", "Do not …", "Absolutely not", "ok no": a negator among the
        // first two words after the fillers opens the clause as a refusal.
        let head_offset = clause.len() - head.len();
        // "If not, …" opens a condition (the alternative), not a refusal.
        // "No water resistance", "no item modifications": a `no` before a
        // noun describes; as an interjection it stands alone or before a
        // pronoun or verb ("No, …", "ok no", "no I want to keep it").
        let opens_negated = negators.iter().any(|&i| {
            i < head_offset + 2 && !follows_condition(clause, i) && !is_determiner_no(clause, i)
        });
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

    /// Whether anything qualifies the reply's own yes: [`Self::any_defeater`]
    /// with only the negations at or after the yes.
    #[must_use]
    fn qualifies_yes(&self) -> bool {
        Markers {
            negation: self.negation_after_yes,
            ..*self
        }
        .any_defeater()
    }

    /// The stance these markers make; see the `dialogue` module for the rule.
    #[must_use]
    pub(crate) fn stance(&self) -> Stance {
        if self.refusal || self.withdrawal || (self.sarcasm && self.says_yes()) {
            return Stance::Refuse;
        }
        let still_deciding = self.question && !self.go_ahead;
        if self.says_yes() && !self.qualifies_yes() && !still_deciding {
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

/// Where a sentence of a reply stands: in the answer to the request for a
/// decision, or (after a yes) in another request the user moves on to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    Answer,
    NextRequest,
}

/// Whether a sentence moves on to another request of the user's own: it
/// opens with "also" (after fillers, "and", "but") or names another
/// issue/question/thing, and speaks in the first person.
fn opens_new_request(sentence: &Sentence) -> bool {
    let all: Vec<String> = sentence.tokens().cloned().collect();
    let head = all
        .iter()
        .skip_while(|w| matches!(w.as_str(), "and" | "but" | "oh" | "um" | "so" | "well"))
        .take(NEW_TOPIC_HEAD_WINDOW)
        .any(|w| w == NEW_TOPIC_HEAD);
    let marker = NEW_TOPIC.iter().any(|p| contains_phrase(&all, p));
    (head || marker) && all.iter().any(|w| FIRST_PERSON.contains(&w.as_str()))
}

/// Classifies one user reply to the agent's request for a decision. Pure and
/// deterministic; the rule is documented on the `dialogue` module.
#[must_use]
pub fn reply_stance(reply: &str) -> Stance {
    Markers::of(reply).stance()
}

/// Longest quoted span treated as a mention, in words.
const MAX_MENTION_WORDS: usize = 8;

/// The characters that open a quotation [`without_quoted_mentions`] blanks.
const QUOTE_OPENERS: [char; 2] = ['"', '\u{201c}'];

/// Whether [`without_quoted_mentions`] leaves `reply` as it is: it opens no
/// quotation.
pub(crate) fn quotes_nothing(reply: &str) -> bool {
    !reply.contains(QUOTE_OPENERS)
}

/// `reply` with short double-quoted spans blanked: `The reason is "no longer
/// needed"` mentions the words, it does not say "no". An unbalanced or long
/// quotation is kept, so it is read as the user's own words.
fn without_quoted_mentions(reply: &str) -> String {
    let mut out = String::with_capacity(reply.len());
    let mut rest = reply;
    while let Some(open) = rest.find(QUOTE_OPENERS) {
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

/// Whether a clause makes something a condition: a condition marker that no
/// concession ("even if") directly precedes and no indirect question ("let
/// me know once …and when …", "check if …") precedes in the clause.
fn states_condition(clause: &[String]) -> bool {
    let owned = |p: &[&str]| p.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
    CONDITIONS.iter().any(|p| {
        phrase_positions(clause, p).into_iter().any(|at| {
            let before = clause.get(..at).unwrap_or_default();
            let after = clause.get(at..).unwrap_or_default();
            let conceded = CONCESSIONS.iter().any(|n| before.ends_with(&owned(n)));
            let asked = INDIRECT_QUESTIONS
                .iter()
                .chain(ACKNOWLEDGEMENTS)
                .any(|n| contains_phrase(before, n));
            let courtesy = COURTESY_CONDITIONS
                .iter()
                .any(|n| after.starts_with(&owned(n)));
            let marker = match p {
                [word] if TEMPORAL.contains(word) => Some(*word),
                _ => None,
            };
            let afterwards = marker.is_some_and(|marker| {
                let next = after.get(1).map(String::as_str);
                let after_the_action = marker == "after"
                    && match next {
                        Some("the") => after
                            .get(2)
                            .is_some_and(|w| ACTION_NOUNS.contains(&w.as_str())),
                        Some(word) => ACTION_ANAPHORS.contains(&word),
                        None => false,
                    };
                after_the_action || after.iter().any(|w| COMPLETIONS.contains(&w.as_str()))
            });
            !(conceded || asked || courtesy || afterwards)
        })
    })
}

/// Whether a clause bears on the action being confirmed ([`ACTION_STEMS`]),
/// other than by acknowledging a consequence ([`ACKNOWLEDGEMENTS`]).
fn bears_on_action(clause: &[String]) -> bool {
    let acknowledged = ACKNOWLEDGEMENTS.iter().any(|p| contains_phrase(clause, p));
    !acknowledged
        && clause.iter().any(|w| {
            ACTION_STEMS
                .iter()
                .any(|stem| w.starts_with(stem) && (stem.len() >= 4 || w == stem))
        })
}

/// Whether a clause is a detail's value after its field name ("Insurance:
/// no", "Reason: no longer needed"): its negator describes, it does not
/// answer — unless the field is the answer itself ("Confirm: no").
fn is_field_value(clause: &[String], label: Option<&[String]>) -> bool {
    let Some(label) = label else {
        return false;
    };
    let opens_negated = clause
        .first()
        .is_some_and(|w| NEGATORS.contains(&w.as_str()));
    let names_decision = label
        .last()
        .is_some_and(|w| DECISION_LABELS.contains(&w.as_str()))
        || GO_AHEAD
            .iter()
            .chain(YES_HEADS)
            .any(|p| contains_phrase(label, p));
    opens_negated && !names_decision
}

/// Whether the `no` at `i` is a determiner ("no bags", "no longer needed")
/// rather than an interjection: another word follows it in the clause, and
/// not one an interjection leads into ([`INTERJECTION_FOLLOWERS`]).
fn is_determiner_no(tokens: &[String], i: usize) -> bool {
    tokens.get(i).is_some_and(|w| w == "no")
        && tokens
            .get(i + 1)
            .is_some_and(|next| !INTERJECTION_FOLLOWERS.contains(&next.as_str()))
}

/// Whether the word at `i` directly follows "if" or "whether" ("if not":
/// the alternative of a condition).
fn follows_condition(tokens: &[String], i: usize) -> bool {
    i.checked_sub(1)
        .and_then(|j| tokens.get(j))
        .is_some_and(|w| w == "if" || w == "whether")
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
        let m = markers("If not, change it");
        assert!(m.negation && m.condition && !m.refusal);
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

    /// Each reply's stance, reported all at once on failure.
    fn expect(cases: &[(&str, Stance)]) {
        let wrong: Vec<String> = cases
            .iter()
            .filter(|(reply, want)| reply_stance(reply) != *want)
            .map(|(reply, want)| format!("{reply}: want {want:?}, got {:?}", reply_stance(reply)))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// None of these replies is consent, whatever else it is.
    fn expect_no_consent(replies: &[&str]) {
        let affirmed: Vec<&str> = replies
            .iter()
            .copied()
            .filter(|reply| reply_stance(reply) == Stance::Affirm)
            .collect();
        assert!(affirmed.is_empty(), "taken as consent: {affirmed:?}");
    }

    #[test]
    fn a_negation_before_the_yes_describes_one_after_it_qualifies() {
        expect(&[
            (
                "I'd like the earbuds that are not water resistant. Yes, please proceed with this change.",
                Stance::Affirm,
            ),
            (
                "Yes, please proceed. The ones that are not water resistant.",
                Stance::Unknown,
            ),
            // After the yes, a negation qualifies it only in a clause bearing on
            // the action (an action verb, an anaphor, wanting or agreeing).
            (
                "Yes, go ahead. I don't want it refunded to my card.",
                Stance::Unknown,
            ),
            (
                "Yes, go ahead. I don't have my email handy.",
                Stance::Affirm,
            ),
            ("Yes, the one without a case.", Stance::Affirm),
            // A refusal counts wherever it stands.
            ("Do not cancel it. Yes.", Stance::Refuse),
            ("No. Yes, go ahead.", Stance::Refuse),
            // Other defeaters before the yes still qualify it.
            (
                "Actually, use my card instead. And yes, go ahead.",
                Stance::Unknown,
            ),
            ("If it is free, then yes, go ahead.", Stance::Unknown),
        ]);
    }

    #[test]
    fn a_sentence_moving_on_to_another_request_does_not_qualify_the_yes() {
        expect(&[
            (
                "Yes, that's correct. Please go ahead and update them. Also, I ordered a jigsaw, can you check if it's shipped yet? If not, I'd like to change it.",
                Stance::Affirm,
            ),
            (
                "Yes, go ahead with those changes. But I also have another issue: I want to exchange an air purifier.",
                Stance::Affirm,
            ),
            // Not the user's own next request: the condition is on this answer.
            ("Yes, go ahead. Also, only if it is free.", Stance::Unknown),
        ]);
        // The next request cannot hide a refusal, withdrawal or correction.
        expect_no_consent(&[
            "Yes, go ahead. Also, I do not want it cancelled.",
            "Yes, go ahead. Also, I changed my mind.",
            "Yes, go ahead. Also, I'd like the red one instead.",
            "Yes, go ahead. Also, I want to keep it.",
            "Yes, go ahead. By the way, I was kidding lol.",
            "Sure. Also, I want this when pigs fly.",
        ]);
        expect(&[
            // A new-request sentence before any yes is part of the answer.
            (
                "Also, I have another question: if it ships today, yes.",
                Stance::Unknown,
            ),
        ]);
    }

    #[test]
    fn field_values_temporal_clauses_and_courtesy_conditions_do_not_qualify() {
        expect(&[
            (
                "YES, please proceed. Insurance: no. Checked bags: none. Reason: no longer needed.",
                Stance::Affirm,
            ),
            // A field that is the answer itself.
            ("Yes. Confirm: no.", Stance::Refuse),
            (
                "Yes, please cancel it. Please confirm once it's cancelled.",
                Stance::Affirm,
            ),
            (
                "Yes, proceed. When you've submitted it, could you confirm?",
                Stance::Affirm,
            ),
            (
                "Yes, proceed. If possible, send the receipt.",
                Stance::Affirm,
            ),
            // A temporal clause without a completion is still a condition.
            ("Yes, proceed once my refund arrives.", Stance::Unknown),
            ("Yes, go ahead if it is free.", Stance::Unknown),
            (
                "Yes, proceed. Please confirm the refund after the change.",
                Stance::Affirm,
            ),
            (
                "Yes, change it. Just use PayPal if there's any difference.",
                Stance::Affirm,
            ),
            // "before" keeps the action waiting.
            (
                "Yes. Share the confirmation before finalizing.",
                Stance::Unknown,
            ),
        ]);
    }

    #[test]
    fn no_before_a_noun_describes_and_alone_refuses() {
        expect(&[
            (
                "YES. Change the boots to size 8, no water resistance.",
                Stance::Affirm,
            ),
            // Still a negation of the action when the noun is the action.
            ("Yes. No item modifications.", Stance::Unknown),
        ]);
        expect(&[
            ("ok no", Stance::Refuse),
            ("No thanks.", Stance::Refuse),
            ("No I want to keep it.", Stance::Refuse),
            ("No, go ahead later.", Stance::Refuse),
        ]);
        expect_no_consent(&["No cancellation please."]);
    }

    #[test]
    fn a_reluctant_yes_is_a_yes() {
        expect(&[
            (
                "Yes, please do it now. I appreciate it, even though I'm not happy about having to downgrade.",
                Stance::Affirm,
            ),
            // Without the concession the contrast still qualifies.
            (
                "Yes, though I'm not happy about having to downgrade.",
                Stance::Unknown,
            ),
            ("I'm not happy about it, but go ahead.", Stance::Unknown),
        ]);
    }

    #[test]
    fn acknowledging_a_consequence_is_not_a_qualification() {
        expect(&[
            (
                "YES, please proceed. I understand the order can't be modified again after this change.",
                Stance::Affirm,
            ),
            (
                "YES, please proceed. But I don't want it modified again.",
                Stance::Unknown,
            ),
        ]);
    }

    #[test]
    fn elongation() {
        assert!(is_elongated("suuure"));
        assert!(!is_elongated("yes"));
        assert!(!is_elongated("1000"));
    }
}
