//! The reply-stance grammar: which markers a reply contains (see
//! [`Markers`]) and how they combine into a [`Stance`]. The rule itself is
//! documented on the `dialogue` module.

use std::borrow::Cow;

use super::asked::{AskedWords, record_ids_in};
use super::domain::{DomainClass, DomainPhrase, Lexicon};
use super::lexicon::{
    ACKNOWLEDGING_YES, ACTION_OBJECT_WINDOW, ADDING_WORDS, ADDITIVE_FOCUS, ASKED_LINE_HEADS,
    BARE_REFUSAL_WORDS, CONCEDING_OPENINGS, HYPOTHETICALS, KEEP_IDIOM_COMPLEMENTS,
    KEEP_IDIOM_HEADS, KEEP_IDIOM_OBJECTS, NEW_TOPIC_HEAD, NEW_TOPIC_HEAD_WINDOW, OFFER_OBJECTS,
    OFFER_VERBS, OVERLOOKING, OVERLOOKING_AUXILIARIES, PARTICIPLE_SUBJECTS, PRECEDENCE, PURPOSES,
    QUESTION_NOUNS, REQUEST_HEAD_WINDOW, RETENTION_AFTER_OBJECT, SARCASM_MARKS, TEMPORAL,
    WHOLE_SCOPE,
};
use super::lexicon::{
    AFTER_PERSON_OBJECT, DEADLINES, EXCLUDING_WORDS, KEEPING_VERBS, KEPT_NOUN_COMPLEMENTS,
    NOT_THIRD_PERSONS, NUMBER_WORDS, ORDINALS, OTHER_CLOSERS, OWN_CONCLUSIONS, PERSON_OBJECTS,
    PICK_WORDS, PLACING_WORDS, POSSESSIVES, REMAINING_VERBS, REPORTING_VERBS, RESTRICTING_WORDS,
    S_CONTRACTIONS, SPEAKER_FRAMES, SPEAKER_TAILS, STAYS_PLACES, SUBJECT_MODALS, THIRD_POSSESSIVES,
    TIME_UNITS,
};
use super::tokens::{Rewrite, Sentence, Word, contains_phrase, sentences, sentences_in};
use super::vocabulary::{PhraseClass, WordClass, has_action_stem};

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
    /// Such a yes that does not also acknowledge ([`ACKNOWLEDGING_YES`]):
    /// "Yes", "yep", "sure", not "Okay".
    pub plain_yes: bool,
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
    /// A time after now the yes places the action at ("yes, tomorrow",
    /// "do it tonight"): agreement to doing it then, not now
    /// ([`puts_off`]).
    pub defers: bool,
    /// Keeping what the action would change ("keep it", "leave it").
    pub retention: bool,
    /// A withdrawal ("changed my mind", a clause opening with "wait").
    pub withdrawal: bool,
    /// A withdrawal other than a clause opening with *wait*, *hold on* or
    /// *hang on*: those alone, with no yes, pause before an answer.
    pub takes_back: bool,
    /// A sarcasm marker.
    pub sarcasm: bool,
    /// Someone other than the user answers ([`answered_by_another`]): their
    /// yes is not the user's.
    pub relayed: bool,
    /// Some sentence is a question.
    pub question: bool,
    /// A weak yes whose sentence goes on to ask for something the request
    /// for a decision did not ("Yes, I'd like to know the delivery
    /// estimate", "Yes, I want to change the address"): the yes answers
    /// that, not the summary.
    pub other_request: bool,
    /// How many of the reply's sentences are its answer: those before it
    /// moves on to another request of the user's own.
    pub answer_sentences: usize,
    /// The reply corrects what the user said before to an explicit yes
    /// ([`corrected_to_yes`]); these markers are the reply's from that yes on.
    pub corrects_itself: bool,
    /// The sentences (a bit per sentence, the first 64) that hold back
    /// another of the records the reply addresses ([`held_back_sentences`]):
    /// none of their markers counts, and their records are no part of the
    /// answer.
    pub held_back: u64,
    /// Those of them that refuse their records outright.
    pub held_back_refused: u64,
    /// The reply answers labelled things one by one, one yes and another
    /// no ([`answers_labels_yes_and_no`]): a `no` after a label is an
    /// answer, not a detail's value.
    pub labels_answered: bool,
}

impl Markers {
    /// Reads the markers of one reply, every qualifier counted.
    #[must_use]
    pub(crate) fn of(reply: &str) -> Self {
        Self::read(reply, None)
    }

    /// Reads the markers of one reply; with `asked`, a retention or
    /// negation about something no request for a decision named ([`AskedWords`])
    /// does not count.
    #[must_use]
    pub(crate) fn read(reply: &str, asked: Option<&AskedWords>) -> Self {
        Markers::read_sentences(reply, &sentences(&without_quoted_mentions(reply)), asked)
    }

    /// [`Markers::read`] of `reply` whose sentences, short quotations
    /// blanked, are `read` (`sentences(&without_quoted_mentions(reply))`:
    /// a caller holding the reply's sentences passes them when
    /// [`quotes_nothing`] says blanking changes nothing).
    pub(crate) fn read_sentences(
        reply: &str,
        read: &[Sentence],
        asked: Option<&AskedWords>,
    ) -> Self {
        let mut m = Markers {
            sarcasm: has_sarcasm_mark(reply),
            ..Markers::default()
        };
        let mut scope = Scope::Answer;
        let mut yes_sentence = None;
        // An inquiry after the yes opening a list ("Could you share:")
        // asks what its lines name ([`lists_what_is_asked`]).
        let mut inquiry_list = false;
        // The reply's record ids as written, read once if needed.
        let mut written: Option<Vec<String>> = None;
        // A reply saying only "confirm": the word a request asks the user
        // to reply with ("Reply CONFIRM to proceed"), a go-ahead as "I
        // confirm" is.
        m.go_ahead = matches!(read, [only] if only_confirms(only));
        (m.held_back, m.held_back_refused) = held_back_sentences(read, asked);
        m.labels_answered = answers_labels_yes_and_no(read);
        m.relayed = answered_by_another(read);
        for (index, sentence) in read.iter().enumerate() {
            // Asked only of a sentence holding a pause, which few do.
            let yes_follows = || {
                read.get(index + 1..)
                    .unwrap_or_default()
                    .iter()
                    .any(|later| says_yes_from(later.words(), 0))
            };
            let had_yes = m.says_yes();
            if had_yes && opens_new_request(sentence) {
                scope = Scope::NextRequest;
            }
            if scope == Scope::Answer {
                m.answer_sentences += 1;
            }
            if is_bit_set(m.held_back, index) {
                continue;
            }
            inquiry_list &= sentence.list.item;
            match scope {
                // A question after the yes asking about the action, or an
                // offer of more, asks nothing of the decision ("Yes. When
                // will it be ready?", "Okay. Do you need anything else from
                // me?"); after a yes that may only acknowledge, a question
                // about the action leaves it open ("Okay. When will it be
                // cancelled?").
                Scope::Answer
                    if (m.go_ahead || m.plain_yes || (m.says_yes() && offers_more(sentence)))
                        && (asks_for_information(sentence)
                            || announces_questions(sentence)
                            || (inquiry_list && lists_what_is_asked(sentence))) =>
                {
                    m.read_inquiry(sentence, asked);
                    inquiry_list |= sentence.list.opens;
                }
                Scope::Answer => m.read_sentence(sentence, asked, yes_follows),
                Scope::NextRequest => m.read_next_request(sentence, asked),
            }
            if !had_yes && m.says_yes() {
                yes_sentence = Some(sentence);
            } else if scope == Scope::Answer
                && had_yes
                && let Some(asked) = asked
                && sentence
                    .words()
                    .iter()
                    .any(|w| super::asked::is_identifier(w))
                && !sentence
                    .words()
                    .iter()
                    .any(|w| WordClass::Negators.has(w) || sets_apart(w))
            {
                // "Yes. Just BK-51019.": a sentence of the answer naming
                // another record of a kind the request named, which it
                // does not hold back nor negate or keep ("I do not want to
                // cancel #W2" is about that order), says which record the
                // yes is for.
                let written = written.get_or_insert_with(|| record_ids_in(reply));
                m.other_request |= asked.names_another_of_kind(sentence.words(), written);
            }
        }
        // "Cancel it.": with no other yes, an order to do an action asked
        // about to what was discussed says yes, when the reply names no
        // action the requests did not ("Upgrade it, then cancel it" orders
        // something else too).
        if !m.says_yes()
            && let Some(asked) = asked
            && !read
                .iter()
                .flat_map(Sentence::words)
                .any(|w| is_action_word(w) && !asked.names_action(w))
        {
            yes_sentence = read.iter().find(|sentence| {
                !sentence.question
                    && sentence
                        .clauses()
                        .filter_map(imperative_verb)
                        .any(|verb| asked.names_action(verb))
            });
            m.go_ahead = yes_sentence.is_some();
        }
        // The sentence that says yes picks part of what was asked ("Yes,
        // cancel #W4597054" to a summary of #W9300146 and #W4597054).
        if let (Some(sentence), Some(asked)) = (yes_sentence, asked) {
            m.other_request |= asked.selects_part(sentence.words(), &record_ids_in(reply));
        }
        m
    }

    /// A sentence of the answer itself: every marker counts.
    /// `yes_follows`: a later sentence of the reply says yes, so a pause in
    /// this one is resolved ([`pauses_unresolved`]).
    fn read_sentence(
        &mut self,
        sentence: &Sentence,
        asked: Option<&AskedWords>,
        yes_follows: impl Fn() -> bool,
    ) {
        self.question |= sentence.question;
        let all = sentence.words();
        let any = |class: PhraseClass| class.any_in(all);
        let described = described_positions(all);
        self.contrast |= PhraseClass::Contrast.matches(all).any(|(at, p)| {
            if described.contains(&at) || closes_its_clause_as_adverb(sentence, at) {
                return false;
            }
            let conceded = at
                .checked_sub(1)
                .and_then(|i| all.get(i))
                .is_some_and(|w| WordClass::ContrastConcessions.has(w));
            let before = all.get(..at).unwrap_or_default();
            let after = all.get(at + p.len()..).unwrap_or_default();
            // "Don't cancel it, but go ahead" refuses the action before the
            // contrast; "not thrilled that it's email-only, but fine" is a
            // complaint about something else, conceded.
            let refused_before = bears_on_action(before)
                && before.iter().any(is_action_word)
                && !stance_negators(before, true).is_empty();
            // "No need to transfer me to a person though": the contrast is
            // about the hand-over the clause declines, not the action.
            let about_hand_over = declines_hand_over(before) || declines_hand_over(after);
            // "…, but keep the pet bed" after "everything except the pet
            // bed": the contrast restates what the request keeps.
            let restates_kept = asked.is_some_and(|asked| keeps_only_what_was_kept(after, asked));
            !conceded
                && !about_hand_over
                && !restates_kept
                && (refused_before || !concedes_to_yes(after))
        });
        let pauses: Vec<(usize, usize)> = PhraseClass::Pauses
            .matches(all)
            .map(|(at, p)| (at, at + p.len()))
            .collect();
        // "let me think": the pause decides, not its *think*.
        self.hedge |= PhraseClass::Hedges.matches(all).any(|(at, _)| {
            !pauses
                .iter()
                .any(|&(start, end)| (start..end).contains(&at))
        }) || all.iter().any(|w| is_elongated(w) && !is_pause_word(w))
            || not_knowing(all)
            || pauses_unresolved(all, yes_follows);
        // "Can you check the price first?": the action waits on the answer.
        self.condition |=
            orders_first(all, |w| w == "first") && any(PhraseClass::IndirectQuestions);
        self.retention |= retains_asked(sentence, asked);
        let takes_back = withdraws(sentence);
        self.withdrawal |= takes_back;
        self.takes_back |= takes_back;
        // Sarcasm and elongation ("suuure") read across clause boundaries.
        self.sarcasm |= any(PhraseClass::Sarcasm)
            || laughs_at_the_answer(all)
            || all.iter().any(|w| is_elongated(w) && !is_pause_word(w));
        // An acknowledgement with its "that" ("I understand that, after
        // this, the order can't be changed") covers the clauses after it in
        // its sentence, until a contrast, a yes or a wish of the user's own
        // turns away from it ("I understand, I don't want it" is two).
        let about_other = about_other_things(all, asked);
        let anaphoric = is_anaphoric(all);
        let mut acknowledging = false;
        // A sentence relaying another person's answer is theirs from the
        // report up to a clause where the user speaks again.
        let mut relayed = false;
        for (clause, label) in sentence.labelled_clauses() {
            relayed = if relayed {
                !speaks_for_oneself(clause)
            } else {
                reports_another_persons_answer(clause)
            };
            let carried = acknowledging && !turns_from_acknowledgement(clause);
            acknowledging = carried || acknowledges_that(clause);
            let acknowledged = carried
                || (PhraseClass::Acknowledgements.any_in(clause) && !states_own_wish(clause));
            self.condition |= !carried
                && (states_condition(clause)
                    || PhraseClass::ConditionHeads.opens(skip_fillers(clause)));
            if is_field_value(clause, label, self.labels_answered) || quotes_detail(clause, asked) {
                continue;
            }
            let context = ClauseContext {
                acknowledged,
                about_other,
                anaphoric,
                removal_asked: removal_asked(asked),
                leaves_out_kept: asked.is_some_and(|asked| leaves_out_only_kept(clause, asked)),
            };
            // A yes someone else gave, relayed ("She says yes, go ahead"),
            // is not the user's: it is read as a question's would be.
            self.read_clause(clause, sentence.question || relayed, context);
        }
        if !sentence.question && !self.go_ahead && !self.other_request {
            self.other_request = requests_something_else(sentence, asked);
        }
        // "Yes, please exchange it" to a cancellation: a go-ahead for an
        // action no request for a decision named.
        self.other_request |= asked.is_some_and(|asked| {
            DomainPhrase::GoAhead.matches(all).any(|(at, len)| {
                len == 2
                    && all
                        .get(at + 1)
                        .is_some_and(|verb| is_action_word(verb) && !asked.names_action(verb))
            })
        });
    }

    /// A sentence after a go-ahead that asks for information about the
    /// action ([`asks_for_information`]): its conditions are about what is
    /// asked ("If you have a timeline, please share it"), except the firm
    /// ones ("only if", "unless"); everything else counts as in a sentence
    /// moving on to another request, and so do its hedges and an opening
    /// contrast ("But what is the fee?").
    fn read_inquiry(&mut self, sentence: &Sentence, asked: Option<&AskedWords>) {
        let all = sentence.words();
        let opening_contrast = sentence.clauses().next().is_some_and(|clause| {
            let head = skip_fillers(clause);
            PhraseClass::Contrast.opens(head) || PhraseClass::ContrastHeads.opens(head)
        });
        let retention = self.retention;
        self.read_next_request(sentence, asked);
        // "How long do you keep a book on the shelf?" asks what the agent's
        // side keeps; it keeps nothing ("Is it too late to keep it?" does).
        let agent_keeps = all
            .windows(2)
            .any(|pair| matches!(pair, [you, verb] if you == "you" && KEEPING_VERBS.contains(&verb.as_str())));
        if sentence.question && agent_keeps {
            self.retention = retention;
        }
        self.hedge |= PhraseClass::Hedges.any_in(all) || not_knowing(all);
        self.contrast |= opening_contrast;
        self.condition |= PhraseClass::FirmConditions
            .matches(all)
            .any(|(at, p)| !is_participle(all, at, p));
    }

    /// A sentence after the yes that moves on to another request: its
    /// conditions, hedges, questions and contrasts are about that request; a
    /// negation (but the alternative "if not"), refusal, withdrawal, sarcasm,
    /// retention or correction still takes the yes back.
    fn read_next_request(&mut self, sentence: &Sentence, asked: Option<&AskedWords>) {
        let all = sentence.words();
        let any = |class: PhraseClass| class.any_in(all);
        self.contrast |= any(PhraseClass::Corrections);
        self.retention |= retains_asked(sentence, asked);
        let takes_back = withdraws(sentence);
        self.withdrawal |= takes_back;
        self.takes_back |= takes_back;
        self.sarcasm |= any(PhraseClass::Sarcasm)
            || laughs_at_the_answer(all)
            || all.iter().any(|w| is_elongated(w));
        let context = ClauseContext {
            acknowledged: false,
            about_other: about_other_things(all, asked),
            anaphoric: is_anaphoric(all),
            removal_asked: removal_asked(asked),
            leaves_out_kept: false,
        };
        for (clause, label) in sentence.labelled_clauses() {
            if is_field_value(clause, label, self.labels_answered) || quotes_detail(clause, asked) {
                continue;
            }
            let before = *self;
            self.read_clause(clause, true, context);
            // Only the clause's refusal and withdrawal forms are kept, and
            // only those bearing on the action: a condition's negation ("if
            // it isn't expired") or a bound of the next request ("but not
            // before Friday") are that request's. A bare "no" or a refusal
            // phrase still refuses.
            let bears = bears_on_action(clause)
                && !context.about_other
                && !PhraseClass::Conditions.opens(skip_fillers(clause));
            let negates = bears
                && stance_negators(clause, context.anaphoric)
                    .into_iter()
                    .any(|i| !follows_condition(clause, i) && !declines_transfer(clause, i + 1));
            let refuses = self.refusal
                && (bears
                    || clause.len() <= BARE_REFUSAL_WORDS
                    || PhraseClass::Refusals.any_in(clause));
            *self = Markers {
                refusal: before.refusal || refuses,
                withdrawal: self.withdrawal,
                negation: self.negation,
                negation_after_yes: before.negation_after_yes || negates,
                ..before
            };
        }
    }

    /// One clause, in its sentence's [`ClauseContext`].
    fn read_clause(&mut self, clause: &[Word], in_question: bool, context: ClauseContext) {
        let negators = if context.about_other || context.leaves_out_kept {
            Vec::new()
        } else {
            stance_negators(clause, context.anaphoric)
                .into_iter()
                .filter(|&i| !(context.removal_asked && restates_no_need(clause, i)))
                .filter(|&i| !declines_transfer(clause, i + 1))
                .collect()
        };
        let head = after_item_reference(skip_fillers(clause));
        let yes_head = PhraseClass::YesHeads.opens(head);
        let go_ahead = go_ahead_in(clause);
        let agreement = PhraseClass::Agreement.any_in(clause);
        let says_yes_here = !in_question && (yes_head || go_ahead || agreement);
        self.negation_after_yes |= !negators.is_empty()
            && (self.says_yes() || says_yes_here)
            && !context.acknowledged
            && bears_on_action(clause);
        if !in_question {
            self.go_ahead |= go_ahead;
            self.weak_yes |= yes_head || agreement;
            self.plain_yes |= agreement
                || (yes_head
                    && head
                        .first()
                        .is_some_and(|w| !ACKNOWLEDGING_YES.contains(&w.as_str())));
        }
        self.negation |= !negators.is_empty();
        self.defers |= !in_question && puts_off(clause);
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
        self.refusal |= opens_negated || negated_yes || PhraseClass::Refusals.any_in(clause);
        self.contrast |= PhraseClass::ContrastHeads.opens(head);
        let opening = PhraseClass::WithdrawalHeads.opening(head);
        let takes_back = opening.is_some_and(|p| p == ["stop"])
            || PhraseClass::ClauseWithdrawals
                .opening(head)
                .is_some_and(|p| p.len() == head.len());
        self.withdrawal |= opening.is_some() || takes_back;
        self.takes_back |= takes_back;
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
            || self.defers
            || self.hedge
            || self.retention
            || self.withdrawal
            || self.sarcasm
            || self.relayed
    }

    /// Whether anything qualifies the reply's own yes: [`Self::any_defeater`]
    /// with only the negations at or after the yes.
    #[must_use]
    fn qualifies_yes(&self) -> bool {
        self.other_request
            || Markers {
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
        let qualified = self.contrast
            || self.condition
            || self.relayed
            || self.defers
            || self.retention
            || self.negation
            || self.other_request;
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

/// The markers of a reply that corrects what it said before to a yes, read
/// from that yes on: after a self-correction ([`PhraseClass::SelfCorrections`]:
/// an apology, a slip named, "actually", "wait", "scratch that"), the first
/// yes is an explicit one — a go-ahead, a yes naming an action a request
/// for a decision named, or a yes restating the answer ("I meant yes") —
/// and the reply from it on affirms. "No — sorry, misread. Yes, please
/// wipe it", "wait sorry, I misread, yes please revoke it". What came
/// before the correction (a no, a pause) is taken back; a plain "ok" or a
/// yes still qualified after it takes nothing back. `None` when the reply
/// makes no such correction.
pub(crate) fn corrected_to_yes(
    reply: &str,
    read: &[Sentence],
    asked: Option<&AskedWords>,
) -> Option<Markers> {
    let mut corrected = false;
    let mut restated = false;
    // What the user said since the latest correction: a correction takes
    // back what came before it only if it adds nothing of its own.
    let mut adds_something = false;
    for (index, sentence) in read.iter().enumerate() {
        let words = sentence.words();
        for (start, end) in sentence.clause_spans() {
            let clause = words.get(start..end).unwrap_or_default();
            let mut from = 0;
            if let Some((at, phrase)) = PhraseClass::SelfCorrections.matches(clause).last() {
                corrected = true;
                adds_something = false;
                from = at + phrase.len();
                restated = PhraseClass::RestatedAnswers
                    .opening(clause.get(at..).unwrap_or_default())
                    .is_some();
            }
            if !corrected {
                continue;
            }
            let rest = clause.get(from..).unwrap_or_default();
            let yes_at = [
                PhraseClass::YesHeads,
                PhraseClass::GoAhead,
                PhraseClass::Agreement,
            ]
            .into_iter()
            .filter_map(|class| class.matches(rest).map(|(at, _)| at).next())
            .min();
            let said = rest.get(..yes_at.unwrap_or(rest.len())).unwrap_or_default();
            adds_something |= adds_to_the_answer(said) || (yes_at.is_none() && sentence.question);
            let Some(yes_at) = yes_at else {
                restated &= rest.is_empty();
                continue;
            };
            if adds_something {
                return None;
            }
            let tail: Vec<Sentence> = std::iter::once(sentence.starting_at(start + from + yes_at))
                .chain(read.get(index + 1..).unwrap_or_default().iter().cloned())
                .collect();
            let markers = Markers::read_sentences(reply, &tail, asked);
            let names_asked_action = asked.is_some_and(|asked| {
                tail.iter()
                    .flat_map(Sentence::words)
                    .any(|w| is_action_word(w) && asked.names_action(w))
            });
            let explicit = markers.go_ahead || names_asked_action || (restated && yes_at == 0);
            // The answer still spans the sentences before the correction,
            // and the sentences held back are counted from the reply's first.
            // Past the 64 sentences a mask holds, no correction is read.
            let shift = |bits: u64| u32::try_from(index).ok().and_then(|i| bits.checked_shl(i));
            let (held_back, held_back_refused) =
                (shift(markers.held_back)?, shift(markers.held_back_refused)?);
            return (explicit && markers.stance() == Stance::Affirm).then_some(Markers {
                corrects_itself: true,
                answer_sentences: markers.answer_sentences + index,
                held_back,
                held_back_refused,
                ..markers
            });
        }
    }
    None
}

/// Whether words a user says between correcting themselves and a yes add
/// something of their own to the answer: a wish or request ("I'd like the
/// refund to go to my card instead"), a contrast, a condition, a hedge, a
/// retention or an action. Such a correction changes the request; it does
/// not take back a no.
fn adds_to_the_answer(words: &[Word]) -> bool {
    words
        .iter()
        .any(|w| WordClass::Wishes.has(w) || is_action_word(w))
        || [
            PhraseClass::Contrast,
            PhraseClass::Conditions,
            PhraseClass::Hedges,
            PhraseClass::Retention,
            PhraseClass::Corrections,
        ]
        .into_iter()
        .any(|class| class.any_in(words))
}

/// Whether a sentence laughs at the answer ([`WordClass::Laughter`]): the
/// laughter stands alone, or after a yes, a go-ahead or an action word of
/// its sentence ("Yes lol", "Sure, cancel it haha"). Closing a sentence
/// about something else ("I need maps to find my shuttle lol") it sets a
/// tone and takes nothing back.
fn laughs_at_the_answer(words: &[Word]) -> bool {
    words.iter().enumerate().any(|(at, word)| {
        if !WordClass::Laughter.has(word) {
            return false;
        }
        let before = words.get(..at).unwrap_or_default();
        before
            .iter()
            .all(|w| WordClass::Fillers.has(w) || WordClass::Laughter.has(w))
            || PhraseClass::YesHeads.any_in(before)
            || PhraseClass::GoAhead.any_in(before)
            || before.iter().any(is_action_word)
    })
}

/// Whether a reply holds a sarcasm mark ([`SARCASM_MARKS`]) standing on
/// its own: an ASCII mark ("/s") must not touch a letter or digit on either
/// side ("tax/shipping adjustments" holds no mark); an emoji is one anywhere.
fn has_sarcasm_mark(reply: &str) -> bool {
    SARCASM_MARKS.iter().any(|mark| {
        if !mark.is_ascii() {
            return reply.contains(mark);
        }
        reply.match_indices(mark).any(|(at, _)| {
            let before = reply.get(..at).and_then(|b| b.chars().next_back());
            let after = reply.get(at + mark.len()..).and_then(|a| a.chars().next());
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
    })
}

/// What a clause's sentence says about how to read the clause.
#[derive(Clone, Copy)]
struct ClauseContext {
    /// An acknowledgement before it in the sentence covers it: its negation
    /// states a consequence.
    acknowledged: bool,
    /// The sentence is about things no request for a decision named
    /// ([`about_other_things`]): its negations do not bear on the action.
    about_other: bool,
    /// The sentence holds an anaphor for the action ([`is_anaphoric`]).
    anaphoric: bool,
    /// A request for a decision named an action that takes something away
    /// ([`DomainClass::RemovalForm`]): "I no longer need it" restates its reason.
    removal_asked: bool,
    /// The clause only leaves out what the request kept ("not the
    /// lisinopril" after "Lisinopril is not included"): its *not* agrees.
    leaves_out_kept: bool,
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
/// issue/question/thing, and speaks in the first person; or it says that
/// what follows is about something else ([`PhraseClass::TopicChanges`]:
/// "Unrelated, but …", "Quick side question: …").
fn opens_new_request(sentence: &Sentence) -> bool {
    let all = sentence.words();
    let head = all
        .iter()
        .skip_while(|w| matches!(w.as_str(), "and" | "but" | "oh" | "um" | "so" | "well"))
        .take(NEW_TOPIC_HEAD_WINDOW)
        .any(|w| w == NEW_TOPIC_HEAD);
    let marker = PhraseClass::NewTopic.any_in(all) || DomainPhrase::NewTopic.any_in(all);
    PhraseClass::TopicChanges.any_in(all)
        || ((head || marker || follows_the_action(sentence))
            && all.iter().any(|w| WordClass::FirstPerson.has(w)))
}

/// Whether a sentence opens with a clause placing what follows after the
/// action ("Once that's applied, I need …", "After that, I'd like …"): the
/// clause presupposes the action ([`presupposes_action`]) and more follows.
fn follows_the_action(sentence: &Sentence) -> bool {
    let mut clauses = sentence.clauses();
    clauses
        .next()
        .is_some_and(|first| presupposes_action(skip_fillers(first)))
        && clauses.next().is_some()
}

/// Whether a sentence asks for information about the action rather than
/// making the answer wait on something: it opens with a question word
/// ("what", "when", "whether", "any"), or with a modal whose subject is not
/// "you" ("Will I get a label", "Is there a fee"; "Could you cancel it if …"
/// asks the agent to act), or holds a request to be told or sent something
/// ("let me know", "please share", "can you confirm"); and it orders nothing
/// before the action ([`PRECEDENCE`]: "before you submit", "first").
fn asks_for_information(sentence: &Sentence) -> bool {
    let all = sentence.words();
    if offers_more(sentence) {
        return true;
    }
    if orders_first(all, |w| WordClass::Precedence.has(w)) {
        return false;
    }
    // "Quick questions: how long …?": past a clause naming questions, the
    // question itself.
    let mut clauses = sentence.clauses();
    let first = clauses.next().unwrap_or_default();
    let head = match clauses.next() {
        Some(next) if first.iter().any(|w| QUESTION_NOUNS.contains(&w.as_str())) => next,
        _ => first,
    };
    let head = skip_fillers(head);
    let word = |i: usize| head.get(i);
    let negated_next = word(1).is_some_and(|w| WordClass::Negators.has(w));
    let wh_question = word(0).is_some_and(|w| WordClass::Interrogatives.has(w)) && !negated_next;
    let modal_question = word(0).is_some_and(|w| WordClass::ModalHeads.has(w))
        && word(1).is_some_and(|w| w != "you" && !WordClass::Negators.has(w));
    wh_question || modal_question || PhraseClass::InformationRequests.any_in(all)
}

/// Whether `words` order something before the action with a word `orders`
/// takes ("check the price first", "before you submit"), an ordinal after
/// a determiner aside ("after the first login", "my first order": a
/// thing's place, not the action's), and a length of time asked about
/// ("how long until it shows?").
fn orders_first(words: &[Word], orders: impl Fn(&Word) -> bool) -> bool {
    words.iter().enumerate().any(|(at, w)| {
        let before = at.checked_sub(1).and_then(|i| words.get(i));
        orders(w)
            && !(w == "first"
                && before.is_some_and(|before| ASKED_LINE_HEADS.contains(&before.as_str())))
            && !((w == "until" || w == "till") && before.is_some_and(|before| before == "long"))
    })
}

/// Whether a sentence opens a list of questions ("A couple of questions:",
/// "Some queries first:" is not one: it orders them before the action).
fn announces_questions(sentence: &Sentence) -> bool {
    sentence.list.opens
        && !orders_first(sentence.words(), |w| WordClass::Precedence.has(w))
        && sentence
            .words()
            .iter()
            .any(|w| QUESTION_NOUNS.contains(&w.as_str()))
}

/// Whether a line of a list an inquiry after the yes opens ("Could you
/// share:\n- the timeline for the refund once the carrier scans it") names
/// something asked, as the inquiry's own words would: it opens with a
/// determiner ([`ASKED_LINE_HEADS`]: a noun phrase naming what to tell, not
/// "- only do it if it's free", which asks the agent to act), and orders
/// nothing before the action ([`PRECEDENCE`]: "- the fee before you submit
/// it" makes the action wait). A line asking a question of its own is an
/// inquiry by itself ([`asks_for_information`]).
fn lists_what_is_asked(sentence: &Sentence) -> bool {
    let all = sentence.words();
    let head = sentence
        .clauses()
        .next()
        .map(skip_fillers)
        .unwrap_or_default();
    head.first()
        .is_some_and(|w| ASKED_LINE_HEADS.contains(&w.as_str()))
        && !orders_first(all, |w| WordClass::Precedence.has(w))
}

/// Whether a question offers the agent whatever more it needs from the user
/// ("Is there anything else you need from me before you submit it?", "Do
/// you need anything more?"): a verb of needing with *you* just before it
/// ([`OFFER_VERBS`]) and an open object ([`OFFER_OBJECTS`]). It orders
/// nothing before the action: the user stands ready to give more.
fn offers_more(sentence: &Sentence) -> bool {
    let all = sentence.words();
    sentence.question
        && all.iter().any(|w| OFFER_OBJECTS.contains(&w.as_str()))
        && all.iter().enumerate().any(|(at, w)| {
            OFFER_VERBS.contains(&w.as_str())
                && all
                    .get(at.saturating_sub(2)..at)
                    .is_some_and(|before| before.iter().any(|b| b == "you"))
        })
}

/// The sentences of a reply that hold back another of the records the
/// reply addresses, as bits (the first 64 sentences), and those of them
/// refusing outright. Such a sentence names identifiers, every one of a
/// kind (length, digits only or not) another sentence names and none named
/// by another sentence; read alone, it says no yes (or refuses the one it
/// says: "please don't cancel it") and it qualifies,
/// refuses, withdraws or defers ("Yes, cancel #W1. Keep #W2 as is.", "For
/// #W5733668, I'll reach out after it's delivered."). An anaphor before its
/// first identifier may point elsewhere, and a word for everything
/// ([`WHOLE_SCOPE`]) reaches past its records: neither holds back. A
/// sentence naming no identifier holds back "the other" of the records
/// ([`names_the_other_record`]: "Yes to RX-26619. Hold off on the other
/// one."), when another sentence names one. Either holds back only beside
/// a sentence naming a record the latest request for a decision named
/// ("Never mind #W1, do #W2" to a request for #W1 takes it back). A
/// record said to stay as it is is held back as a kept one is ("Yes. The
/// 8LMN552 one stays at 1000."). A sentence holding back an action the
/// yes did not name is held back too ([`actions_held_back`]).
fn held_back_sentences(read: &[Sentence], asked: Option<&AskedWords>) -> (u64, u64) {
    let (held, refused) = records_held_back(read, asked);
    let (actions_held, actions_refused) = actions_held_back(read, asked);
    (held | actions_held, refused | actions_refused)
}

/// The sentences of a reply, as bits, that hold back an action the latest
/// request for a decision proposed beside the ones the reply says yes to
/// by name ("Yes to the payment plan. Hold off on the autopay though."),
/// and those of them refusing it outright: a sentence naming no
/// identifier, naming actions the request named and none of those the
/// other sentences' *yes to …* or order after a yes names, and saying no
/// yes of its own. The yes then covers the actions it named alone
/// ([`TurnCues::answer_actions`](super::TurnCues::answer_actions)).
fn actions_held_back(read: &[Sentence], asked: Option<&AskedWords>) -> (u64, u64) {
    let Some(asked) = asked else {
        return (0, 0);
    };
    let asked_bits = |sentence: &Sentence| {
        sentence
            .words()
            .iter()
            .filter(|w| is_action_word(w) && asked.names_action(w))
            .fold(0u16, |bits, w| bits | w.tags().actions())
    };
    // Most replies name no action the request named, or one only.
    if read.len() < 2 || read.iter().filter(|s| asked_bits(s) != 0).count() < 2 {
        return (0, 0);
    }
    let (mut held, mut refused) = (0u64, 0u64);
    for (index, sentence) in read.iter().enumerate().take(64) {
        let own = asked_bits(sentence);
        if own == 0
            || sentence
                .words()
                .iter()
                .any(|w| super::asked::is_identifier(w))
        {
            continue;
        }
        let others = read
            .iter()
            .enumerate()
            .filter(|&(other, _)| other != index)
            .map(|(_, sentence)| sentence);
        let said_yes_to = super::yes_to_actions(others)
            .into_iter()
            .fold(0u16, |bits, w| bits | w.tags().actions());
        if said_yes_to == 0 || said_yes_to & own != 0 {
            continue;
        }
        // "And autopay too." adds to the yes.
        let words = sentence.words();
        if go_ahead_in(words) || words.iter().any(|w| ADDING_WORDS.contains(&w.as_str())) {
            continue;
        }
        let alone = Markers::read_sentences("", std::slice::from_ref(sentence), Some(asked));
        if alone.says_yes() && alone.stance() != Stance::Refuse {
            continue;
        }
        held |= 1 << index;
        if alone.stance() == Stance::Refuse {
            refused |= 1 << index;
        }
    }
    (held, refused)
}

/// The sentences of a reply holding back records, and those refusing
/// them: the record half of [`held_back_sentences`].
fn records_held_back(read: &[Sentence], asked: Option<&AskedWords>) -> (u64, u64) {
    let ids: Vec<Vec<&Word>> = read
        .iter()
        .map(|sentence| {
            sentence
                .words()
                .iter()
                .filter(|w| super::asked::is_identifier(w))
                .collect()
        })
        .collect();
    let naming = ids.iter().filter(|named| !named.is_empty()).count();
    // "Yes. Not RX-47032.": the only sentence naming records sets some of
    // those the request named apart from a yes naming none, which answers
    // the others.
    let apart_from_yes = |index: usize, own: &[&Word]| {
        naming == 1
            && asked.is_some_and(|asked| asked.names_others_than(own))
            && read.iter().enumerate().any(|(other, sentence)| {
                other != index
                    && ids.get(other).is_some_and(Vec::is_empty)
                    && Markers::read_sentences("", std::slice::from_ref(sentence), asked).stance()
                        == Stance::Affirm
            })
    };
    // "Yes, extend it. Don't touch BK-50211 though.": the only sentence
    // naming records names none of those the request wrote, beside a
    // sentence saying yes that names none, which answers the request.
    let beside_yes = |index: usize, own: &[&Word]| {
        naming == 1
            && !own.is_empty()
            && asked.is_some_and(|asked| asked.names_records_other_than(own))
            && read.iter().enumerate().any(|(other, sentence)| {
                other != index
                    && ids.get(other).is_some_and(Vec::is_empty)
                    && (says_yes_from(sentence.words(), 0) || go_ahead_in(sentence.words()))
                    && Markers::read_sentences("", std::slice::from_ref(sentence), asked).stance()
                        == Stance::Affirm
            })
    };
    let beside_a_yes = || {
        ids.iter()
            .enumerate()
            .any(|(index, own)| beside_yes(index, own))
    };
    // With one sentence naming records, only "the other", those set apart
    // from a yes, or others beside it, can be held back.
    let may_set_apart = || {
        read.iter()
            .zip(&ids)
            .any(|(sentence, own)| !own.is_empty() && sentence.words().iter().any(sets_apart))
            && asked.is_some_and(AskedWords::lays_out_several_records)
    };
    if naming == 0
        || (naming == 1
            && !read.iter().flat_map(Sentence::tokens).any(|w| w == "other")
            && !may_set_apart()
            && !beside_a_yes())
    {
        return (0, 0);
    }
    let kind = |w: &Word| {
        (
            w.as_str().len(),
            w.as_str().bytes().all(|b| b.is_ascii_digit()),
        )
    };
    let (mut held, mut refused) = (0u64, 0u64);
    for (index, (sentence, own)) in read.iter().zip(&ids).enumerate().take(64) {
        let words = sentence.words();
        // "all but RX-47032" sets its records apart from the whole.
        let reaches_all = words.iter().enumerate().any(|(at, w)| {
            WHOLE_SCOPE.contains(&w.as_str())
                && words
                    .get(at + 1)
                    .is_none_or(|next| next != "but" && !EXCLUDING_WORDS.contains(&next.as_str()))
        });
        if reaches_all {
            continue;
        }
        let others: Vec<&Word> = ids
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != index)
            .flat_map(|(_, named)| named.iter().copied())
            .collect();
        let set_apart = || apart_from_yes(index, own) || beside_yes(index, own);
        // The rest of the reply answers the request: it names one of the
        // records the request did ("Never mind #W1, do #W2" to a request
        // for #W1 takes the request back), or says yes to them all.
        if !others
            .iter()
            .any(|id| asked.is_none_or(|asked| asked.latest_names_or_none(id)))
            && (own.is_empty() || !set_apart())
        {
            continue;
        }
        let about_another = match own.first() {
            Some(first) => {
                let apart = own.iter().all(|id| {
                    !others.contains(id) && others.iter().any(|other| kind(other) == kind(id))
                });
                let first_at = words.iter().position(|w| w == *first).unwrap_or(0);
                let points_elsewhere = words.iter().take(first_at).any(|w| {
                    WordClass::ActionAnaphors.has(w) || WordClass::AnaphoricObjects.has(w)
                });
                ((naming >= 2 && apart) || set_apart()) && !points_elsewhere
            }
            None => names_the_other_record(sentence),
        };
        // Set apart from a yes, a sentence holds its records back only by
        // a word negating, excluding or keeping them ("Not RX-47032",
        // "except the metformin", "skip the metformin"), not by restricting
        // the yes to them ("RX-47031 only", "but just the metformin"), by a
        // contrast alone ("I need RX-47031 though") or a hedge ("the credit
        // one I used last, I think").
        // Records the request never wrote are held back by anything else
        // the sentence says of them, but not by restricting the yes to
        // them ("Just BK-50211").
        let restricts = || {
            words.iter().any(|w| {
                RESTRICTING_WORDS.contains(&w.as_str()) && !EXCLUDING_WORDS.contains(&w.as_str())
            })
        };
        let excludes = || !restricts() && words.iter().any(sets_apart);
        let about_another = about_another
            && (own.is_empty()
                || naming >= 2
                || excludes()
                || (beside_yes(index, own) && !restricts()));
        if !about_another {
            continue;
        }
        let alone = Markers::read_sentences("", std::slice::from_ref(sentence), asked);
        // A question naming only another record asks about that one ("Yes,
        // refill RX-62005. How long does RX-62031 take?").
        let asks_about_it = sentence.question && !own.is_empty();
        // A yes it refuses itself ("please don't cancel it") is none.
        let says_yes = alone.says_yes() && alone.stance() != Stance::Refuse;
        // Nor does a sentence say yes to its records that neither names the
        // action asked about nor adds them to the yes ("PK-82033 — let it
        // be delivered normally, please"): it says something else of them.
        // A sentence naming its records alone, by their ids or the words
        // the requests named them with ("PK-25598", "Bookshelf
        // (4900661478)": a list the cut record by record parted), says
        // nothing else.
        let says_else = || {
            words.iter().any(|w| {
                w.len() >= MIN_SAYING_WORD
                    && !super::asked::is_identifier(w)
                    && !WordClass::Fillers.has(w)
                    && !w.tags().has(DomainClass::RecordNoun)
                    && !asked.is_some_and(|asked| asked.named(w))
            })
        };
        let adds_to_yes = || {
            go_ahead_in(words)
                || PhraseClass::YesHeads.any_in(words)
                || words.iter().any(|w| {
                    ADDING_WORDS.contains(&w.as_str())
                        || (is_action_word(w) && asked.is_none_or(|asked| asked.names_action(w)))
                })
        };
        let says_other = says_else() && !adds_to_yes();
        // Beside a yes, a record the request never wrote is held back only
        // by a reservation or a question, not by a correction ("I meant
        // BK-51019", "BK-51019 instead" say which record the yes is for),
        // nor by one reaching the record asked about too ("Don't cancel
        // #W2, or this one.").
        let only_beside = naming == 1 && beside_yes(index, own) && !apart_from_yes(index, own);
        let reaches_asked = || {
            words.windows(2).any(|pair| match pair {
                [this, one] if this == "this" => {
                    one == "one" || one.tags().has(DomainClass::RecordNoun)
                }
                [joined, it] => {
                    matches!(joined.as_str(), "or" | "and" | "nor")
                        && matches!(it.as_str(), "it" | "this" | "that")
                }
                _ => false,
            })
        };
        if only_beside
            && (PhraseClass::SelfCorrections.any_in(words)
                || PhraseClass::Corrections.any_in(words)
                || reaches_asked())
        {
            continue;
        }
        let says_other = says_other && !only_beside;
        // "The 8LMN552 one stays at 1000": a record said to stay as it is
        // is kept, whether the request wrote it or not.
        let stays = own.first().is_some_and(|first| {
            words
                .iter()
                .skip_while(|w| w != first)
                .any(|w| REMAINING_VERBS.contains(&w.as_str()))
        });
        if says_yes || !(alone.any_defeater() || asks_about_it || says_other || stays) {
            continue;
        }
        held |= 1 << index;
        if alone.stance() == Stance::Refuse {
            refused |= 1 << index;
        }
    }
    (held, refused)
}

/// Shortest word that says something of a record besides naming it
/// ([`held_back_sentences`]): longer than "pk" of "PK-25598" or "and".
const MIN_SAYING_WORD: usize = 4;

/// Whether a reply holds back another of the records it addresses, read
/// as written or cut record by record ([`held_back_sentences`],
/// [`item_parts`]): what a reading that stands only then needs, found
/// without reading the whole reply.
pub(crate) fn holds_back_a_record(read: &[Sentence], asked: Option<&AskedWords>) -> bool {
    held_back_sentences(read, asked).0 != 0 || matches!(item_parts(read, asked), Cow::Owned(_))
}

/// Whether a sentence names "the other" of the records ("Leave the other
/// one", "Hold off on the other card", "not the other", "leave the other
/// alone for now"): *the other* before *one*, *ones*, a noun for a record,
/// the end of its clause, or a word that names nothing and ends the noun
/// phrase ([`OTHER_CLOSERS`], a filler, a modal, a verb of remaining).
pub(crate) fn names_the_other_record(sentence: &Sentence) -> bool {
    sentence.clauses().any(|clause| {
        clause.windows(2).enumerate().any(|(at, pair)| {
            matches!(pair, [the, other] if the == "the" && other == "other")
                && clause.get(at + 2).is_none_or(|next| {
                    next == "one"
                        || next == "ones"
                        || next.tags().has(DomainClass::RecordNoun)
                        || OTHER_CLOSERS.contains(&next.as_str())
                        || RETENTION_AFTER_OBJECT.contains(&next.as_str())
                        || SUBJECT_MODALS.contains(&next.as_str())
                        || REMAINING_VERBS.contains(&next.as_str())
                        || WordClass::Fillers.has(next)
                })
        })
    })
}

/// A reply answering the records of a request one by one inside a sentence
/// ("RX-40812 yes please, RX-40877 no thanks"), read as one sentence per
/// record: a sentence is cut before each clause naming identifiers none of
/// which the clauses since the last cut named, when those named one. The
/// cut reading is kept only where a part then holds back another record
/// ([`held_back_sentences`]); otherwise the reply is read as written.
pub(crate) fn item_parts<'s>(
    read: &'s [Sentence],
    asked: Option<&AskedWords>,
) -> Cow<'s, [Sentence]> {
    // Most replies cut nothing: nothing is collected for them.
    let Some(first_cut) = read.iter().position(|s| !item_cuts(s).is_empty()) else {
        return Cow::Borrowed(read);
    };
    let cuts: Vec<Vec<usize>> = read
        .iter()
        .enumerate()
        .map(|(index, s)| {
            if index < first_cut {
                Vec::new()
            } else {
                item_cuts(s)
            }
        })
        .collect();
    let mut parts = Vec::with_capacity(read.len() + 2);
    for (sentence, cuts) in read.iter().zip(&cuts) {
        if cuts.is_empty() {
            parts.push(sentence.clone());
            continue;
        }
        let bounds: Vec<usize> = std::iter::once(0)
            .chain(cuts.iter().copied())
            .chain(std::iter::once(sentence.clauses().count()))
            .collect();
        parts.extend(bounds.windows(2).filter_map(|w| match w {
            [first, end] => Some(sentence.clauses_between(*first, *end)),
            _ => None,
        }));
    }
    if held_back_sentences(&parts, asked).0 == 0 {
        return Cow::Borrowed(read);
    }
    Cow::Owned(parts)
}

/// Whether a word sets what follows it apart from a yes: a negator, an
/// excluding word or a verb of keeping ("not", "except", "skip").
fn sets_apart(word: &Word) -> bool {
    WordClass::Negators.has(word)
        || EXCLUDING_WORDS.contains(&word.as_str())
        || KEEPING_VERBS.contains(&word.as_str())
        || REMAINING_VERBS.contains(&word.as_str())
}

/// The clauses a sentence is cut before by [`item_parts`].
fn item_cuts(sentence: &Sentence) -> Vec<usize> {
    let mut cuts = Vec::new();
    // A cut needs two clauses and two identifiers; most sentences have
    // neither.
    let two_ids = || {
        sentence
            .tokens()
            .filter(|w| super::asked::is_identifier(w))
            .nth(1)
            .is_some()
    };
    if sentence.clause_spans().nth(1).is_none() {
        return cuts;
    }
    // "Yes, but not RX-47032": a yes naming nothing, then a clause naming
    // records ([`held_back_sentences`] sets them apart from the yes).
    let mut clauses = sentence.clauses();
    if clauses.next().is_some_and(|first| {
        PhraseClass::YesHeads.opens(skip_fillers(first))
            && !first.iter().any(|w| super::asked::is_identifier(w))
    }) && let Some(at) =
        clauses.position(|clause| clause.iter().any(|w| super::asked::is_identifier(w)))
        && sentence.clauses().nth(at + 1).is_some_and(|clause| {
            // Things laid out with no record id ("Yes, please keep the
            // Makeup Kit, …") may be what the request proposed to keep: a
            // clause naming only those is cut off the yes by a word
            // negating or excluding, not by one keeping.
            let records = clause
                .iter()
                .any(|w| super::asked::is_identifier(w) && !super::asked::is_item_id(w));
            skip_fillers(clause).iter().take(2).any(|w| {
                if records {
                    sets_apart(w)
                } else {
                    WordClass::Negators.has(w) || EXCLUDING_WORDS.contains(&w.as_str())
                }
            })
        })
    {
        cuts.push(at + 1);
    }
    if !two_ids() {
        return cuts;
    }
    let mut named: Vec<&Word> = Vec::new();
    for (index, clause) in sentence.clauses().enumerate() {
        let ids: Vec<&Word> = clause
            .iter()
            .filter(|w| super::asked::is_identifier(w))
            .collect();
        if !named.is_empty() && !ids.is_empty() && ids.iter().all(|id| !named.contains(id)) {
            if !cuts.contains(&index) {
                cuts.push(index);
            }
            named.clear();
        }
        named.extend(ids);
    }
    cuts.sort_unstable();
    cuts
}

/// Whether a reply answers labelled things one by one, one with a yes and
/// another with a no ("Atorvastatin: yes. Lisinopril: no."): two clauses
/// after different labels, neither the decision itself
/// ([`label_names_decision`]), one opening with a yes and one with a
/// negator, and no yes outside such a label ("Insurance: no. Bags: yes.
/// Yes, please book it." lists details).
/// Such labels are the things answered, as record ids are ("RX-40812: yes,
/// RX-40877: no"), not fields of a detail.
fn answers_labels_yes_and_no(read: &[Sentence]) -> bool {
    // Most replies hold no label: nothing else is read.
    if !read
        .iter()
        .flat_map(Sentence::labelled_clauses)
        .any(|(_, label)| label.is_some())
    {
        return false;
    }
    let mut yes: Option<&[Word]> = None;
    let mut no: Option<&[Word]> = None;
    for (clause, label) in read.iter().flat_map(Sentence::labelled_clauses) {
        let head = skip_fillers(clause);
        let Some(label) = label.filter(|label| !label_names_decision(label)) else {
            // A yes of the reply's own: its labels are details.
            if PhraseClass::YesHeads.opens(head) || go_ahead_in(clause) {
                return false;
            }
            continue;
        };
        if PhraseClass::YesHeads.opens(head) {
            yes.get_or_insert(label);
        } else if head.first().is_some_and(|w| WordClass::Negators.has(w)) {
            no.get_or_insert(label);
        }
    }
    matches!((yes, no), (Some(a), Some(b)) if a != b)
}

/// Whether bit `index` of `bits` is set (indices past 63 never are).
pub(crate) fn is_bit_set(bits: u64, index: usize) -> bool {
    u32::try_from(index)
        .ok()
        .and_then(|i| bits.checked_shr(i))
        .is_some_and(|b| b & 1 == 1)
}

/// Whether a sentence is about things no request for a decision named: it
/// names identifiers, none of them asked about, and no anaphor that could
/// point at what was ("I do not want to exchange the puzzle in #W5416052"
/// after a summary of #W3916020; not "… #W5416052, or this one"). Without
/// `asked` (a reply read alone), nothing is.
fn about_other_things(sentence: &[Word], asked: Option<&AskedWords>) -> bool {
    asked.is_some_and(|asked| asked.only_other_identifiers(sentence))
        && !sentence
            .iter()
            .any(|w| WordClass::ActionAnaphors.has(w) || WordClass::AnaphoricObjects.has(w))
}

/// Whether a sentence keeps something the user may have been asked to
/// change ([`RETENTION`]). A retention of everything but the action ("keep
/// the other items", "leave the other orders alone": [`COMPLEMENT_SCOPE`]
/// before any word for the action's object) does not count, nor, with
/// `asked`, one in a clause naming only identifiers no request for a
/// decision named ([`AskedWords`]).
fn retains_asked(sentence: &Sentence, asked: Option<&AskedWords>) -> bool {
    let all = sentence.words();
    if about_other_things(all, asked) {
        return false;
    }
    let anaphoric = is_anaphoric(all);
    sentence.clauses().any(|clause| {
        PhraseClass::Retention.matches(clause).any(|(at, p)| {
            let object_before = p
                .first()
                .is_some_and(|w| RETENTION_AFTER_OBJECT.contains(w));
            let object = if object_before {
                clause.get(..at)
            } else {
                clause.get(at + p.len()..)
            }
            .unwrap_or_default();
            !keeps_going(p, object)
                && (anaphoric || !scoped_to_the_rest(object))
                && !asked.is_some_and(|asked| asked.keeps_what_latest_kept(object))
        }) || says_it_stays(clause, asked)
    })
}

/// Whether a clause says that something a request for a decision named
/// stays as it is: a verb of remaining ([`stays_as_verb`]: "The Visa should
/// stay the payment method", "the card ending 5724 remains untouched",
/// "Emma's birth date should be left unchanged") whose subject is no
/// person ([`no_kept_subject`]: "I'll stay on the line") and names what
/// was asked ([`stays_what_was_asked`]), not everything else nor what the
/// request itself said stays as it is ("no change to your card ending
/// 1205" answered "ensure the card ending 1205 remains untouched"), nor
/// asked to be told ("Please confirm the shoe stays at size 9"). A record
/// named by its id is held back on its own ([`held_back_sentences`]).
fn says_it_stays(clause: &[Word], asked: Option<&AskedWords>) -> bool {
    clause.iter().enumerate().any(|(at, w)| {
        let subject = clause.get(..at).unwrap_or_default();
        REMAINING_VERBS.contains(&w.as_str())
            && stays_as_verb(clause, at)
            && !no_kept_subject(subject)
            && stays_what_was_asked(subject, asked)
            && !scoped_to_the_rest(subject)
            && !asked.is_some_and(|asked| asked.keeps_what_latest_kept(subject))
            && !PhraseClass::InformationRequests.any_in(subject)
            && !subject.iter().any(|w| super::asked::is_identifier(w))
    })
}

/// Whether the verb of remaining at `at` of a clause says its subject
/// stays as it is: *stay* or *remain* after a modal ("should stay", "will
/// remain"), *stays* or *remains* before what it stays as ("stays the
/// same", "remains untouched", "stays at 5,000": [`KEPT_NOUN_COMPLEMENTS`],
/// [`STAYS_PLACES`]), *left* after a form
/// of *be* and before a word of staying ("is left unchanged", "be left as
/// it is"). "my Oslo stay" names a record, and "stays valid for a day"
/// describes one.
fn stays_as_verb(clause: &[Word], at: usize) -> bool {
    let before = at.checked_sub(1).and_then(|before| clause.get(before));
    let after = clause.get(at + 1);
    match clause.get(at).map(Word::as_str) {
        Some("stay" | "remain") => {
            before.is_some_and(|before| SUBJECT_MODALS.contains(&before.as_str()))
        }
        Some("stays" | "remains") => after.is_some_and(|next| {
            KEPT_NOUN_COMPLEMENTS.contains(&next.as_str()) || STAYS_PLACES.contains(&next.as_str())
        }),
        Some("left") => {
            before.is_some_and(|b| matches!(b.as_str(), "is" | "are" | "be" | "been"))
                && after.is_some_and(|next| {
                    matches!(
                        next.as_str(),
                        "unchanged" | "untouched" | "intact" | "alone" | "as"
                    )
                })
        }
        _ => false,
    }
}

/// Whether the words before a phrase saying something stays as it is name
/// what a request for a decision named, or point at it ("The Visa should
/// stay" after a summary switching from the Visa; "it stays"): "The jacket
/// should be left unchanged" to a summary changing a T-shirt keeps
/// something the request does not touch. Without `asked` (a reply read
/// alone) they may.
fn stays_what_was_asked(object: &[Word], asked: Option<&AskedWords>) -> bool {
    let Some(asked) = asked else {
        return true;
    };
    object.iter().any(|w| {
        WordClass::ActionAnaphors.has(w)
            || WordClass::AnaphoricObjects.has(w)
            || (w.len() >= MIN_NAMING_WORD && asked.named(w) && !WordClass::Fillers.has(w))
    })
}

/// Whether the words before a retention phrase that follows its object
/// ("stays", "remains", "unchanged", "as is") name nothing kept: there are
/// none but fillers and modals ("please stay on the line"), or the
/// subject is a person ("I'll stay on the line", "we remain available"):
/// the user stays, not what the action would change.
fn no_kept_subject(object: &[Word]) -> bool {
    let subject = skip_fillers(object)
        .iter()
        .rev()
        .find(|w| !SUBJECT_MODALS.contains(&w.as_str()));
    subject.is_none_or(|w| {
        WordClass::FirstPerson.has(w) || matches!(w.as_str(), "you" | "he" | "she" | "they")
    })
}

/// Whether `words` (after a contrast) only keep something the latest
/// request for a decision said stays as it is: a retention phrase
/// ([`RETENTION`]) then nothing but what it kept ("but keep the pet bed"
/// after "everything except the pet bed").
fn keeps_only_what_was_kept(words: &[Word], asked: &AskedWords) -> bool {
    match PhraseClass::Retention.matches(words).next() {
        Some((0, phrase))
            if !phrase
                .first()
                .is_some_and(|w| RETENTION_AFTER_OBJECT.contains(w)) =>
        {
            asked.keeps_what_latest_kept(words.get(phrase.len()..).unwrap_or_default())
        }
        _ => false,
    }
}

/// Whether a clause is *not* and nothing but what the latest request for a
/// decision said stays as it is ("not the lisinopril" after "Lisinopril is
/// not included", "not the pet bed" after "everything except the pet
/// bed").
fn leaves_out_only_kept(clause: &[Word], asked: &AskedWords) -> bool {
    match skip_fillers(clause).split_first() {
        Some((not, rest)) if not == "not" => asked.keeps_what_latest_kept(rest),
        _ => false,
    }
}

/// Whether a retention phrase and its object are an idiom of going on or
/// of being told ("keep this moving", "keep me posted":
/// [`KEEP_IDIOM_OBJECTS`] then [`KEEP_IDIOM_COMPLEMENTS`]; "keep up the
/// good work", "keep calm": [`KEEP_IDIOM_HEADS`]), not keeping what the
/// action would change.
fn keeps_going(phrase: &[&str], object: &[Word]) -> bool {
    phrase == ["keep"]
        && match object {
            [what, how, ..]
                if KEEP_IDIOM_OBJECTS.contains(&what.as_str())
                    && KEEP_IDIOM_COMPLEMENTS.contains(&how.as_str()) =>
            {
                true
            }
            [head, ..] => KEEP_IDIOM_HEADS.contains(&head.as_str()),
            [] => false,
        }
}

/// Whether words name everything but the action: "other" or "else" comes
/// before any anaphor or word for the action's object ("the other two
/// orders", "anything else"; not "it or anything else").
fn scoped_to_the_rest(words: &[Word]) -> bool {
    words
        .iter()
        .position(|w| WordClass::ComplementScope.has(w))
        .is_some_and(|end| {
            words
                .get(..end)
                .unwrap_or_default()
                .iter()
                .all(|w| !WordClass::ActionAnaphors.has(w) && !is_object_word(w))
        })
}

/// Whether a sentence holds a withdrawal ([`WITHDRAWALS`]) that is not part
/// of a description of a record's state ("any pending (not yet processed)
/// orders": [`DomainPhrase::StateDescription`]), not in a clause conceding a case ("even
/// if my plans are on pause": [`CONCEDING_OPENINGS`]) and not about handing
/// the user over to a human agent ("hold off on transferring me":
/// [`declines_transfer`]).
fn withdraws(sentence: &Sentence) -> bool {
    let words = sentence.words();
    let described = described_positions(words);
    // Clauses partition the sentence's words, in order.
    let mut start = 0;
    let clauses: Vec<(usize, &[Word])> = sentence
        .clauses()
        .map(|clause| {
            let at = start;
            start += clause.len();
            (at, clause)
        })
        .collect();
    PhraseClass::Withdrawals.matches(words).any(|(at, p)| {
        // A domain whose action is one of these words ("revoke", "pause",
        // "withdraw") names its action by it, not a withdrawal.
        if p.len() == 1 && words.get(at).is_some_and(is_action_word) {
            return false;
        }
        let Some(&(clause_start, clause)) = clauses
            .iter()
            .rfind(|(clause_start, _)| *clause_start <= at)
        else {
            return true;
        };
        let conceded = CONCEDING_OPENINGS
            .iter()
            .any(|opening| opens_with(skip_fillers(clause), opening));
        // "If the total is higher, pause and let me know": a contingency,
        // read as the condition its opening clause states.
        let contingent = clauses.first().is_some_and(|&(first_start, first)| {
            first_start < clause_start
                && HYPOTHETICALS
                    .iter()
                    .any(|condition| opens_with(skip_fillers(first), condition))
        });
        // "hold off on transferring me, and on the cancellation": a clause
        // joined on by a coordinator carries the withdrawal on.
        let carried_on = clauses
            .iter()
            .filter(|(start, _)| *start > clause_start)
            .take_while(|(_, next)| {
                next.first()
                    .is_some_and(|w| COORDINATORS.contains(&w.as_str()))
            })
            .any(|(_, next)| names_more_than_the_transfer(next));
        !described.contains(&at)
            && !conceded
            && !contingent
            && (carried_on || !declines_transfer(clause, at - clause_start + p.len()))
    })
}

/// Words that join a clause on to the one before it, so a withdrawal there
/// carries on into it.
const COORDINATORS: &[&str] = &["and", "or", "nor", "plus"];

/// Whether, in a clause, the first action word within
/// [`ACTION_OBJECT_WINDOW`] words from `from` hands the user over to a human
/// agent and nothing else is done in the clause: a hand-over
/// ([`DomainClass::HandOver`]) ending the clause or followed by "me" or
/// "us", or by "to" and a word for a person
/// ([`DomainClass::HandOverPerson`]), with no other action word after it — "do not
/// transfer", "no need to transfer me", "hold off on transferring me to a
/// human". No write the gate confirms is a hand-over, so declining one
/// answers nothing about the action; declining any other transfer ("don't
/// transfer the refund to PayPal") or more than the hand-over ("do not
/// transfer me or cancel anything") still does.
fn declines_transfer(clause: &[Word], from: usize) -> bool {
    let rest = clause.get(from..).unwrap_or_default();
    let Some(at) = rest
        .iter()
        .take(ACTION_OBJECT_WINDOW)
        .position(is_action_form)
    else {
        return false;
    };
    let transfer = rest
        .get(at)
        .is_some_and(|w| w.tags().has(DomainClass::HandOver));
    let object = rest.get(at + 1..).unwrap_or_default();
    let hands_over = match object.first().map(Word::as_str) {
        None | Some("me" | "us") => true,
        Some("to") => object
            .iter()
            .skip(1)
            .take(HUMAN_WINDOW)
            .any(|w| w.tags().has(DomainClass::HandOverPerson)),
        Some(_) => false,
    };
    transfer && hands_over && !names_more_than_the_transfer(object)
}

/// Whether a negator in `words` declines a hand-over to a person and
/// nothing else ([`declines_transfer`] after it).
fn declines_hand_over(words: &[Word]) -> bool {
    stance_negators(words, true)
        .into_iter()
        .any(|i| declines_transfer(words, i + 1))
}

/// Whether the words after a declined transfer name something the action
/// may be about: another action word, an anaphor or a word for the action's
/// object ("transferring me and the order").
fn names_more_than_the_transfer(words: &[Word]) -> bool {
    words.iter().any(|w| {
        (is_action_form(w) && !w.tags().has(DomainClass::HandOver))
            || WordClass::ActionAnaphors.has(w)
            || is_object_word(w)
    })
}

/// Whether a word is a form of one of the domain's action words
/// ([`DomainClass::ActionForm`]: "transferring", "cancelled") or of a
/// hand-over.
fn is_action_form(word: &Word) -> bool {
    let tags = word.tags();
    tags.has(DomainClass::HandOver) || tags.has(DomainClass::ActionForm)
}

/// Whether a word is one of the domain's words for its actions.
pub(crate) fn is_action_word(word: &Word) -> bool {
    word.tags().has(DomainClass::ActionWord)
}

/// Whether a word names the object of the action: an English pronoun for
/// it ([`WordClass::ObjectWords`]) or a domain's noun for its records.
fn is_object_word(word: &Word) -> bool {
    WordClass::ObjectWords.has(word) || word.tags().has(DomainClass::RecordNoun)
}

/// Whether a clause reports another person's answer: a third person and a
/// verb of saying or agreeing at its head ("She says yes", "my husband said
/// to go ahead", "Sam agrees"). The policy asks for the user's own yes.
fn reports_another_persons_answer(clause: &[Word]) -> bool {
    let head = skip_fillers(clause);
    let third_person = |before: &[Word]| match before {
        [.., owner, _] if POSSESSIVES.contains(&owner.as_str()) => before.len() <= 3,
        [.., subject] => {
            before.len() <= 2
                && subject.chars().all(char::is_alphabetic)
                && !NOT_THIRD_PERSONS.contains(&subject.as_str())
                && !WHOLE_SCOPE.contains(&subject.as_str())
                && !before
                    .first()
                    .is_some_and(|w| NOT_THIRD_PERSONS.contains(&w.as_str()))
        }
        [] => false,
    };
    // At most one word (an interjection: "ok my boss agreed") before the
    // person.
    head.iter().enumerate().take(4).any(|(at, verb)| {
        REPORTING_VERBS.contains(&verb.as_str()) && third_person(head.get(..at).unwrap_or_default())
    })
}

/// Whether a clause after a relayed answer is the user's own again: it opens
/// with a word drawing the user's conclusion ("so", "but") or speaks in the
/// first person ("and I agree").
fn speaks_for_oneself(clause: &[Word]) -> bool {
    clause
        .first()
        .is_some_and(|w| OWN_CONCLUSIONS.contains(&w.as_str()))
        || clause.iter().any(|w| w == "i")
}

/// Whether a go-ahead ("go ahead", "please cancel") occurs in `words`.
fn go_ahead_in(words: &[Word]) -> bool {
    PhraseClass::GoAhead.any_in(words) || DomainPhrase::GoAhead.any_in(words)
}

/// Whether a sentence says only "confirm" (fillers aside).
fn only_confirms(sentence: &Sentence) -> bool {
    !sentence.question && matches!(skip_fillers(sentence.words()), [only] if only == "confirm")
}

/// The verb of a clause that orders the action done to what was just
/// discussed: after fillers ("please", "just", "then"), a word for an
/// action and an anaphor for its object ("Cancel it.", "Transfer it to CVS
/// please", "Refill both"). Such a reply is a go-ahead, as "please cancel"
/// is; an imperative naming its object anew is read by [`orders_named`].
fn imperative_verb(clause: &[Word]) -> Option<&Word> {
    let head = skip_fillers(clause);
    let (verb, object) = (head.first()?, head.get(1)?);
    let anaphor = WordClass::ActionAnaphors.has(object)
        || (WordClass::AnaphoricObjects.has(object) && object != "one" && object != "ones");
    (is_action_word(verb) && anaphor).then_some(verb)
}

/// The verb of a clause that orders the action done to what the requests
/// for a decision named, naming it ("Renew The Hobbit", "Freeze the card
/// ending 4411", "Redirect PX-40127 to the locker"): after fillers, a word
/// for an action, then a word naming what was asked. That is a record's
/// identifier or a number naming it, a name the request wrote with a
/// record id beside it ([`AskedWords::record_named_by`]: the order is then
/// read with that id), an item of the request read as its id (the reading
/// that passes over the others), or a word the request named when it laid
/// out one thing only. A noun for records names no
/// particular one ("Freeze the card"); a name of one of several things
/// picks among them, which a name read as a word cannot
/// ([`AskedWords::lays_out_several_records`]); and another one of a kind
/// is none ("Cancel the other order").
pub(crate) fn orders_named<'c>(clause: &'c [Word], asked: &AskedWords) -> Option<&'c Word> {
    let head = skip_fillers(clause);
    let verb = head.first().filter(|verb| is_action_word(verb))?;
    let object = head.get(1..).unwrap_or_default();
    if object.iter().any(|w| OTHER_RECORD.contains(&w.as_str())) {
        return None;
    }
    object
        .iter()
        .any(|w| names_what_was_asked(w, asked))
        .then_some(verb)
}

/// Whether a word names what the requests for a decision named, as an
/// order's object does ([`orders_named`]): a record's identifier or a
/// number naming it, a name the request wrote with a record id beside it,
/// an item of the request read as its id, or a word the request named
/// when it laid out one thing only.
fn names_what_was_asked(w: &Word, asked: &AskedWords) -> bool {
    if asked.item_word(w).is_some() || asked.record_named_by(w).is_some() {
        return true;
    }
    if super::asked::is_identifier(w) || super::asked::is_alias_number(w) {
        return asked.named(w);
    }
    w.len() >= MIN_NAMING_WORD
        && asked.named(w)
        && !is_action_word(w)
        && !w.tags().has(DomainClass::RecordNoun)
        && !asked.lays_out_several_records()
}

/// A reply saying no yes, read with the yes its order stands for: "Renew
/// The Hobbit." as "Yes, renew The Hobbit." An order counts where it names
/// what was asked ([`orders_named`]) outside a question, and the reply
/// names no action the requests did not, to a request that does not ask
/// which thing to act on (a pick answers that). What follows the order is
/// then read as it is after any yes: a time, a condition or a record held
/// back qualifies it. `None` when the reply holds no such order.
pub(crate) fn ordered_as_yes(read: &[Sentence], asked: &AskedWords) -> Option<Vec<Sentence>> {
    // An answer to "which one shall I freeze?" picks; it is read as a pick.
    if asked.asks_which()
        || read
            .iter()
            .flat_map(Sentence::words)
            .any(|w| is_action_word(w) && !asked.names_action(w))
    {
        return None;
    }
    let order_in = |read: &[Sentence]| {
        read.iter().enumerate().find_map(|(index, sentence)| {
            if sentence.question {
                return None;
            }
            let words = sentence.words();
            sentence.clause_spans().find_map(|(start, end)| {
                let clause = words.get(start..end)?;
                orders_named(clause, asked)
                    .filter(|verb| asked.names_action(verb))
                    .map(|_| (index, start))
            })
        })
    };
    if let Some((index, start)) = order_in(read) {
        return Some(with_yes_at(read, index, start, asked));
    }
    // An id the request wrote split in two words ("Renew LN-12.": `ln`,
    // `12`) names its record once joined, as a long one does alone.
    let Cow::Owned(joined) = asked.ids_joined(read) else {
        return None;
    };
    let (index, start) = order_in(&joined)?;
    Some(with_yes_at(&joined, index, start, asked))
}

/// `read` with a *yes* before the word at `start` of its sentence at
/// `index`, that sentence's things named by their names read as the
/// records the request wrote beside them: the yes an order or a pick
/// stands for.
fn with_yes_at(read: &[Sentence], index: usize, start: usize, asked: &AskedWords) -> Vec<Sentence> {
    read.iter()
        .enumerate()
        .map(|(at, sentence)| {
            if at == index {
                let said = sentence.rewritten(|word_at, _| {
                    if word_at == start {
                        Rewrite::Before(Word::new_static("yes"))
                    } else {
                        Rewrite::Keep
                    }
                });
                asked.with_names_as_records(&said)
            } else {
                sentence.clone()
            }
        })
        .collect()
}

/// A reply saying no yes that opens with a pick among what the latest
/// request for a decision asked about, read with the yes it stands for:
/// "just LN-12", "LN-7 please.", "Just the first one, thanks.", "all
/// except the Dune one", "Only the first one. Leave the second as it is."
/// as "Yes, just LN-12" and so on. The pick is a statement of
/// [`PICK_WORDS`], ordinals and words naming what was asked (a record's
/// id, a name the request wrote beside one, an item:
/// [`names_what_was_asked`]), one of them at least naming a record or a
/// place; any other word in it (a verb, a negator, a hedge, a question)
/// leaves the reply as it is. The pick is its first sentence, or every
/// sentence is such a statement; what follows the pick is read as it is
/// after any yes (a sentence keeping another record holds that one back,
/// a condition qualifies, a withdrawal withdraws). `None` when the reply is
/// no such pick, the request laid out fewer than two records, or it asked
/// which thing to act on (a pick answers that as a pick).
pub(crate) fn picked_as_yes(read: &[Sentence], asked: &AskedWords) -> Option<Vec<Sentence>> {
    // A pick picks among several: to a request about one thing, a word
    // it wrote may answer another of its questions ("store credit" to
    // "a refund or store credit?", "text please" to "a text or an
    // email?").
    if asked.asks_which() || !asked.lays_out_several_records() || read.is_empty() {
        return None;
    }
    let joined = asked.ids_joined(read);
    // Whether a sentence only picks: `None` where it says anything else.
    let only_picks = |sentence: &Sentence| {
        if sentence.question {
            return None;
        }
        let mut picks = false;
        for word in skip_fillers(sentence.words()) {
            if PICK_WORDS.contains(&word.as_str()) {
                continue;
            }
            // A place picks only among items the request laid out
            // ("Only the second." to a list of bare ids places nothing).
            let places = ORDINALS.iter().any(|&(ordinal, place)| {
                ordinal == word.as_str() && (1..=asked.item_count()).contains(&place)
            });
            if !(places || names_what_was_asked(word, asked) || asked.names_an_item(word)) {
                return None;
            }
            picks = true;
        }
        Some(picks)
    };
    // The reply opens with the pick; what follows it ("Leave the second
    // as it is.", "Hold off on the other one.") is read as it is after
    // any yes, and holds back, qualifies or withdraws as it would there.
    let mut sentences = joined.iter();
    let opens_with_pick = sentences.next().and_then(only_picks)?;
    let picks = opens_with_pick
        || sentences
            .map(only_picks)
            .try_fold(false, |picked, pick| Some(picked || pick?))
            .unwrap_or(false);
    picks.then(|| with_yes_at(&joined, 0, 0, asked))
}

/// A reply saying no yes that opens with a pick, by its label or place, of
/// an option the latest request for a decision labelled line by line,
/// where that option proposes the action: read with the yes it stands for
/// ("Option 1 - add the third bag, please." to "1) Add one bag … 2) Keep
/// it at 2 bags" as "Yes, option 1 - add …"). A pick of an option keeping
/// things as they are, or of none, is left as it is.
pub(crate) fn picked_option_as_yes(read: &[Sentence], asked: &AskedWords) -> Option<Vec<Sentence>> {
    let first = read.first().filter(|sentence| !sentence.question)?;
    let words = skip_fillers(first.words());
    asked
        .picked_option_proposes(words)?
        .then(|| with_yes_at(read, 0, first.words().len() - words.len(), asked))
}

/// Words making an ordered object another than the one named ("the other
/// order", "another card").
const OTHER_RECORD: &[&str] = &["other", "another", "different", "else"];

/// Whether `words` open with a go-ahead.
fn go_ahead_opens(words: &[Word]) -> bool {
    PhraseClass::GoAhead.opens(words) || DomainPhrase::GoAhead.opens(words)
}

/// How many words after "transfer to" a word for a person is looked for
/// ("to a live human agent").
const HUMAN_WINDOW: usize = 3;

/// The positions of the words inside descriptions of a record's state
/// ([`DomainPhrase::StateDescription`]): no marker there counts ("not yet
/// processed" holds a withdrawal and a contrast, and describes).
fn described_positions(words: &[Word]) -> Vec<usize> {
    DomainPhrase::StateDescription
        .matches(words)
        .flat_map(|(at, len)| at..at + len)
        .collect()
}

/// Whether a sentence says a weak yes and then, after it, asks for
/// something else than what the user was asked to decide: a request ("I'd
/// like", "I want", "please send") whose words name no anaphor for the
/// action and nothing the requests for a decision named, or name a
/// state-changing action they did not ("Yes, I'd like to return it" to a
/// cancellation). Without `asked` (a reply read alone) nothing says which
/// action was asked about: an anaphor or any action word ties the request
/// to it ("Yes, I'd like that", "Yes, cancel the order").
fn requests_something_else(sentence: &Sentence, asked: Option<&AskedWords>) -> bool {
    let all = sentence.words();
    let Some(yes_end) = first_yes_end(all) else {
        return false;
    };
    let after = all.get(yes_end..).unwrap_or_default();
    let Some(request) = request_words(after) else {
        return false;
    };
    let actions: Vec<&Word> = request.iter().filter(|w| is_action_word(w)).collect();
    // A pronoun for a person is the object of an action's order only
    // ("Yes, add him"; "Yes, please send me the receipt" asks for more).
    let anaphor = request.iter().enumerate().any(|(at, w)| {
        WordClass::ActionAnaphors.has(w)
            || WordClass::AnaphoricObjects.has(w)
            || (!actions.is_empty() && stands_for_a_person(request, at))
    });
    match asked {
        Some(asked) => {
            let other_action = actions.iter().any(|w| !asked.names_action(w));
            let names_asked = request
                .iter()
                .any(|w| w.len() >= MIN_NAMING_WORD && asked.named(w));
            other_action || !(anaphor || names_asked)
        }
        None => !anaphor && actions.is_empty(),
    }
}

/// Whether the word at `at` is an object pronoun standing for a person
/// ("Yes, add him", "Sure, sign me up", "yes, switch her over"): the
/// person the request named, as *it* stands for its thing. *her* before a
/// noun is a possessive ("add her son") and names someone else.
fn stands_for_a_person(words: &[Word], at: usize) -> bool {
    let Some(word) = words.get(at) else {
        return false;
    };
    if !PERSON_OBJECTS.contains(&word.as_str()) {
        return false;
    }
    word != "her"
        || words
            .get(at + 1)
            .is_none_or(|next| AFTER_PERSON_OBJECT.contains(&next.as_str()))
}

/// Shortest word that, named both in a request and in the agent's request
/// for a decision, ties the two ("order", "cancel").
const MIN_NAMING_WORD: usize = 4;

/// Where the first yes head of a sentence ends: a clause opening (after
/// fillers) with a [`YES_HEADS`] phrase.
fn first_yes_end(all: &[Word]) -> Option<usize> {
    let start = all
        .iter()
        .position(|t| !WordClass::Fillers.has(t))
        .unwrap_or(all.len());
    let head = all.get(start..).unwrap_or_default();
    PhraseClass::YesHeads.opening(head).map(|p| start + p.len())
}

/// The words of a request after a yes: an imperative action verb opening
/// them ("upgrade my shipping"), or, without its head, a first-person word
/// with a verb of wanting shortly after it ("I'd like to know …"), or
/// "please" and a verb that is no go-ahead ("please send me …").
fn request_words(after: &[Word]) -> Option<&[Word]> {
    // An imperative right after the yes: "Yes, upgrade my shipping".
    let head = skip_fillers(after);
    if head.first().is_some_and(is_action_word) {
        return Some(head);
    }
    for (i, word) in after.iter().enumerate() {
        if WordClass::FirstPerson.has(word) {
            let window = after.get(i + 1..).unwrap_or_default();
            if let Some(j) = window
                .iter()
                .take(REQUEST_HEAD_WINDOW)
                .position(|w| WordClass::Wishes.has(w))
            {
                let request = window.get(j + 1..).unwrap_or_default();
                if !request.is_empty() {
                    return Some(request);
                }
            }
        }
        if word == "please" {
            let rest = after.get(i..).unwrap_or_default();
            if !go_ahead_opens(rest) && rest.len() > 1 {
                return rest.get(1..);
            }
        }
    }
    None
}

/// Whether the contrast word at `at` is *yet* closing its clause: the
/// adverb of time ("Has PC-55102 shipped yet?", "not yet"), not the
/// conjunction opening a clause ("…, yet I'd rather wait").
fn closes_its_clause_as_adverb(sentence: &Sentence, at: usize) -> bool {
    sentence
        .words()
        .get(at)
        .is_some_and(|w| w.as_str() == "yet")
        && sentence.clause_spans().any(|(_, end)| end == at + 1)
}

/// Whether the words after a contrast marker concede to the action ("not
/// thrilled, but go ahead", "but fine, let's do it"): a go-ahead, a yes or
/// an agreement opens them.
fn concedes_to_yes(after: &[Word]) -> bool {
    let head = skip_fillers(after);
    go_ahead_opens(head)
        || PhraseClass::YesHeads.opens(head)
        || PhraseClass::Agreement.opens(head)
        || head
            .first()
            .is_some_and(|w| WordClass::ConcedingWords.has(w))
}

/// Whether a clause places the action at a time after now ([`LATER_TIMES`],
/// or *in* a number of [`TIME_UNITS`]; not a deadline: "before tomorrow",
/// [`DEADLINES`]): the time stands where the action's time goes, at the
/// clause's start after any yes ("yes, tomorrow", "in an hour please"),
/// or after the action, its object or the go-ahead ("freeze it tonight",
/// "go ahead next week"; [`PLACING_WORDS`]). A time after a noun
/// describes it ("the flight tomorrow"), and the user's own plans ("I'm
/// flying tomorrow") place nothing.
fn puts_off(clause: &[Word]) -> bool {
    let head = skip_fillers(clause);
    let yes_len = [PhraseClass::YesHeads, PhraseClass::Agreement]
        .into_iter()
        .find_map(|class| class.opening(head))
        .map_or(0, <[&str]>::len);
    let after_yes = skip_fillers(head.get(yes_len..).unwrap_or_default());
    let opening = clause.len() - after_yes.len();
    let placed = |at: usize| {
        let before = at.checked_sub(1).and_then(|i| clause.get(i));
        at == opening
            || before.is_some_and(|w| PLACING_WORDS.contains(&w.as_str()) || is_action_word(w))
    };
    let deadline = |at: usize| {
        at.checked_sub(1)
            .and_then(|i| clause.get(i))
            .is_some_and(|w| DEADLINES.contains(&w.as_str()))
    };
    let in_units = clause.windows(3).enumerate().any(|(at, run)| {
        matches!(run, [inn, count, unit]
            if inn == "in"
                && (count.bytes().all(|b| b.is_ascii_digit())
                    || NUMBER_WORDS.contains(&count.as_str()))
                && TIME_UNITS.contains(&unit.as_str()))
            && placed(at)
    });
    in_units
        || PhraseClass::LaterTimes
            .matches(clause)
            .any(|(at, _)| placed(at) && !deadline(at))
}

/// Whether a clause acknowledges a consequence with a "that" after the
/// acknowledgement ("I understand that …"), so the clauses after it in the
/// sentence state the consequence.
fn acknowledges_that(clause: &[Word]) -> bool {
    PhraseClass::Acknowledgements
        .matches(clause)
        .any(|(at, p)| {
            clause
                .get(at + p.len()..)
                .unwrap_or_default()
                .iter()
                .any(|w| w == "that")
        })
}

/// Whether a clause states a wish of the user's own ("I don't want it"): a
/// first-person word and a verb of wanting ([`WISHES`]).
fn states_own_wish(clause: &[Word]) -> bool {
    clause.iter().any(|w| WordClass::FirstPerson.has(w))
        && clause.iter().any(|w| WordClass::Wishes.has(w))
}

/// Whether a clause turns away from an acknowledgement before it: it speaks
/// in the first person (the consequence acknowledged is about the order or
/// the policy; "that's why I'm saying no" is the user's stance again), opens
/// with a contrast, or says yes or goes ahead.
fn turns_from_acknowledgement(clause: &[Word]) -> bool {
    if clause.iter().any(|w| WordClass::FirstPerson.has(w)) {
        return true;
    }
    let head = skip_fillers(clause);
    PhraseClass::Contrast.opens(head)
        || PhraseClass::ContrastHeads.opens(head)
        || PhraseClass::YesHeads.opens(head)
        || go_ahead_in(clause)
}

/// The negators the stance grammar reads in a clause: [`negator_positions`]
/// without those whose scope is everything but the action ("do not use any
/// other card", "I don't need anything else"; [`COMPLEMENT_SCOPE`]), unless
/// an anaphor or a word for the action's object comes between ("not this
/// order or any other") or the sentence is `anaphoric` ("don't cancel it,
/// or anything else"), and none in a clause conceding a case ("even if you
/// can't give the date": [`CONCEDING_OPENINGS`]).
fn stance_negators(clause: &[Word], anaphoric: bool) -> Vec<usize> {
    // "even if you can't give the exact date": a case the user concedes.
    if CONCEDING_OPENINGS
        .iter()
        .any(|opening| opens_with(skip_fillers(clause), opening))
    {
        return Vec::new();
    }
    negator_positions(clause)
        .into_iter()
        .filter(|&i| anaphoric || !scoped_to_the_rest(clause.get(i + 1..).unwrap_or_default()))
        .filter(|&i| !states_forgetting(clause, i))
        .filter(|&i| !adds_to(clause, i))
        .filter(|&i| !states_purpose(clause, i))
        .collect()
}

/// Whether the negator at `at` adds to what follows rather than negating it
/// ("not just email", "not only the lamp"): an additive focus word right
/// after it ([`ADDITIVE_FOCUS`]).
fn adds_to(clause: &[Word], at: usize) -> bool {
    clause
        .get(at + 1)
        .is_some_and(|w| ADDITIVE_FOCUS.contains(&w.as_str()))
}

/// Whether the negator at `at` follows a purpose marker in its clause
/// ([`PURPOSES`]) and negates a verb of overlooking ([`OVERLOOKING`]): "just
/// to be sure nothing slips through" states a goal of thoroughness, not the
/// user's stance on the action ("so that it does not go through" is one).
fn states_purpose(clause: &[Word], at: usize) -> bool {
    let before = clause.get(..at).unwrap_or_default();
    let verb = clause
        .get(at + 1..)
        .unwrap_or_default()
        .iter()
        .find(|w| !OVERLOOKING_AUXILIARIES.contains(&w.as_str()));
    PURPOSES
        .iter()
        .any(|purpose| contains_phrase(before, purpose))
        && verb.is_some_and(|w| OVERLOOKING.contains(&w.as_str()))
}

/// Whether a sentence says the user does not know, as a hesitation: "I
/// don't know", "not know if I want to", "don't know yet" ("idk" and
/// "dunno" are hedges already). Not knowing a thing ("I don't know my
/// email") is not one.
fn not_knowing(sentence: &[Word]) -> bool {
    sentence.windows(2).enumerate().any(|(at, pair)| {
        matches!(pair, [not, know] if not.as_str() == "not" && know.as_str() == "know")
            && sentence.get(at + 2).is_none_or(|next| {
                matches!(
                    next.as_str(),
                    "if" | "whether" | "about" | "yet" | "anymore" | "what" | "which" | "now"
                )
            })
    })
}

/// Verbs of memory: not remembering something is about what the user
/// knows, never a no to the action.
const MEMORY_VERBS: &[&str] = &["remember", "recall", "recollect"];

/// Whether the negator at `at` says the user does not remember something
/// ("I don't remember my email", "(I don't remember it)", "since I don't
/// recall mine"): first person right before it, a memory verb right after
/// it, and no action named in the clause. "I don't know" is not one: it
/// hesitates.
fn states_forgetting(clause: &[Word], at: usize) -> bool {
    let first_person = clause
        .get(at.saturating_sub(2)..at)
        .unwrap_or_default()
        .iter()
        .any(|w| matches!(w.as_str(), "i" | "we"));
    let memory_verb = clause
        .get(at + 1)
        .is_some_and(|w| MEMORY_VERBS.contains(&w.as_str()));
    first_person && memory_verb && !clause.iter().any(is_action_word)
}

/// Whether a sentence holds an anaphor for the action ("it", "this",
/// "that"): then no negation or retention in it is taken as scoped to
/// everything else ("Do not touch the other order, or this one").
fn is_anaphoric(sentence: &[Word]) -> bool {
    sentence.iter().any(|w| WordClass::ActionAnaphors.has(w))
}

/// Whether a request for a decision so far named an action that takes
/// something away ([`DomainClass::RemovalForm`]: a cancellation, a return).
fn removal_asked(asked: Option<&AskedWords>) -> bool {
    asked.is_some_and(AskedWords::removal_asked)
}

/// Whether the negator at `at` opens the user's own "no need" for the
/// thing ("I no longer need it", "I don't need them anymore"): the reason
/// for a cancellation or return, restated, not a negation of the action.
/// The clause must name no action and end with the thing and time words
/// ([`NO_NEED_TAIL`]).
fn restates_no_need(clause: &[Word], at: usize) -> bool {
    let after = clause.get(at + 1..).unwrap_or_default();
    let after = match after.first().map(Word::as_str) {
        Some("longer") => after.get(1..).unwrap_or_default(),
        _ => after,
    };
    let first_person = clause
        .get(..at)
        .unwrap_or_default()
        .iter()
        .any(|w| matches!(w.as_str(), "i" | "we"));
    first_person
        && matches!(after.first().map(Word::as_str), Some("need" | "needed"))
        && after
            .get(1..)
            .unwrap_or_default()
            .iter()
            .all(|w| WordClass::NoNeedTail.has(w))
        && !clause.iter().any(is_action_word)
}

/// Classifies one user reply to the agent's request for a decision, read
/// without a domain's words ([`reply_stance_in`]). Pure and deterministic;
/// the rule is documented on the `dialogue` module.
#[must_use]
pub fn reply_stance(reply: &str) -> Stance {
    Markers::of(reply).stance()
}

/// [`reply_stance`] of a reply read with a domain's words (its `lexicon`:
/// the words its bundle declares for its actions and records).
#[must_use]
pub fn reply_stance_in(reply: &str, lexicon: &Lexicon) -> Stance {
    let read = sentences_in(&without_quoted_mentions(reply), lexicon);
    Markers::read_sentences(reply, &yes_apart_from_question(&read), None).stance()
}

/// The sentences of a reply, a question opening with a clause that is a
/// bare yes ("Yes please — how long does the refund take?", "yes - does
/// the toll pass carry over?") read as that yes and then the question: a
/// dash or a comma after a bare yes ends it as a full stop would, so the
/// yes is not asked ("Yes? When will it arrive?" asks it).
pub(crate) fn yes_apart_from_question(read: &[Sentence]) -> Cow<'_, [Sentence]> {
    if !read.iter().any(opens_with_bare_yes) {
        return Cow::Borrowed(read);
    }
    let mut parts = Vec::with_capacity(read.len() + 1);
    for sentence in read {
        if opens_with_bare_yes(sentence) {
            let mut yes = sentence.clauses_between(0, 1);
            yes.question = false;
            parts.push(yes);
            parts.push(sentence.clauses_between(1, sentence.clauses().count()));
        } else {
            parts.push(sentence.clone());
        }
    }
    Cow::Owned(parts)
}

/// Whether a question opens with a clause of yes words and fillers alone,
/// with more clauses after it.
fn opens_with_bare_yes(sentence: &Sentence) -> bool {
    let mut clauses = sentence.clauses();
    sentence.question
        && clauses.next().is_some_and(|first| {
            PhraseClass::YesHeads.opens(skip_fillers(first))
                && first.iter().all(|w| {
                    WordClass::Fillers.has(w)
                        || PhraseClass::YesHeads.opens(std::slice::from_ref(w))
                })
        })
        && clauses.next().is_some()
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
pub(crate) fn without_quoted_mentions(reply: &str) -> String {
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
fn states_condition(clause: &[Word]) -> bool {
    PhraseClass::Conditions.matches(clause).any(|(at, p)| {
        {
            let before = clause.get(..at).unwrap_or_default();
            let after = clause.get(at..).unwrap_or_default();
            let conceded = PhraseClass::Concessions.closes(before);
            // "let me know before you cancel it": the action waits on the
            // answer, so a precedence marker stays a condition.
            let orders_first = p.first().is_some_and(|w| PRECEDENCE.contains(w));
            let asked = !orders_first
                && (PhraseClass::IndirectQuestions.any_in(before)
                    || PhraseClass::Acknowledgements.any_in(before));
            let courtesy = PhraseClass::CourtesyConditions.opens(after);
            let afterwards = presupposes_action(after);
            let verb = is_participle(clause, at, p);
            !(conceded || asked || courtesy || afterwards || verb)
        }
    })
}

/// Whether `words`, from a temporal marker on ([`TEMPORAL`]), place
/// something after the action rather than wait on it: "after this", "after
/// the change", or a completion word ("once it's done", "when the refund is
/// issued").
fn presupposes_action(words: &[Word]) -> bool {
    let Some(marker) = words.first().filter(|w| TEMPORAL.contains(&w.as_str())) else {
        return false;
    };
    let after_the_action = marker == "after"
        && match words.get(1).map(Word::as_str) {
            Some("the") => words.get(2).is_some_and(is_action_word),
            Some(word) => WordClass::ActionAnaphors.has_text(word),
            None => false,
        };
    after_the_action
        || words
            .iter()
            .any(|w| WordClass::Completions.has(w) || w.tags().has(DomainClass::Completion))
}

/// Whether the condition marker `p` at `at` is a verb's participle ("the
/// labels will be provided", "the address you provided"): an auxiliary or
/// a subject pronoun right before it ([`PARTICIPLE_SUBJECTS`]).
fn is_participle(words: &[Word], at: usize, p: &[&str]) -> bool {
    matches!(p, ["provided" | "providing"])
        && at
            .checked_sub(1)
            .and_then(|i| words.get(i))
            .is_some_and(|w| PARTICIPLE_SUBJECTS.contains(&w.as_str()))
}

/// Whether a clause bears on the action being confirmed (an English stem,
/// [`ACTION_STEMS`], or a domain's action stem), other than by
/// acknowledging a consequence ([`ACKNOWLEDGEMENTS`]).
fn bears_on_action(clause: &[Word]) -> bool {
    let acknowledged = PhraseClass::Acknowledgements.any_in(clause) && !states_own_wish(clause);
    !acknowledged
        && clause
            .iter()
            .any(|w| has_action_stem(w) || w.tags().has(DomainClass::ActionForm))
}

/// Whether a clause is a detail's value after its field name ("Insurance:
/// no", "Reason: no longer needed"): its negator describes, it does not
/// answer — unless the field is the answer itself ("Confirm: no"), the
/// label names a record ("RX-40877: no"), or the reply answers its labels
/// one by one (`labels_answered`: "Atorvastatin: yes. Lisinopril: no.").
fn is_field_value(clause: &[Word], label: Option<&[Word]>, labels_answered: bool) -> bool {
    let Some(label) = label else {
        return false;
    };
    if labels_answered {
        return false;
    }
    let opens_negated = clause.first().is_some_and(|w| WordClass::Negators.has(w));
    // "RX-40877: no" answers for the record the label names.
    let names_record = label.iter().any(|w| super::asked::is_identifier(w));
    opens_negated && !names_record && !label_names_decision(label)
}

/// Whether a label is the decision itself ("Confirm", "Proceed", "Cancel
/// order"): its value is the answer.
fn label_names_decision(label: &[Word]) -> bool {
    label
        .last()
        .is_some_and(|w| WordClass::DecisionLabels.has(w) || w.tags().has(DomainClass::ActionName))
        || go_ahead_in(label)
        || PhraseClass::YesHeads.any_in(label)
}

/// Words that report an answer rather than describe a thing: "say no",
/// "the answer is no". A clause ending in one of them and a yes or no is
/// never a quoted detail ([`quotes_detail`]).
const ANSWER_VERBS: &[&str] = &[
    "say", "said", "says", "saying", "answer", "reply", "respond", "type", "tell", "told", "is",
    "was", "be", "are", "am", "means", "meant",
];

/// Whether a clause quotes back a detail of a request for a decision that
/// ends in a yes or no: "(synthetic, waterproof no)" after a summary naming
/// the boots "size 8, synthetic, waterproof no". The `no` is the option's
/// value the agent listed, not an answer; neither is such a `yes`. The
/// clause must be two or more words ending in `yes` or `no`, with no other
/// negator or yes word, the word before it no verb of answering, and that
/// word and the `yes` / `no` adjacent in an agent turn that asked for a
/// decision. Or it opens with `no` before a noun and its first three words
/// stand in a row in such a turn: "- No item modifications" after a summary
/// listing "No item modifications will be made" (a `no` before `to`, a
/// pronoun or a verb is an answer: "No to cancelling" is never a detail).
fn quotes_detail(clause: &[Word], asked: Option<&AskedWords>) -> bool {
    let Some(asked) = asked else {
        return false;
    };
    if is_determiner_no(clause, 0) && clause.len() >= 3 {
        return clause.get(..3).is_some_and(|run| asked.named_triple(run))
            && !clause.iter().skip(1).any(|w| {
                WordClass::Negators.has(w) || PhraseClass::YesHeads.opens(std::slice::from_ref(w))
            });
    }
    let [rest @ .., before, last] = clause else {
        return false;
    };
    let stance_word = |w: &Word| {
        WordClass::Negators.has(w) || PhraseClass::YesHeads.opens(std::slice::from_ref(w))
    };
    matches!(last.as_str(), "yes" | "no")
        && !stance_word(before)
        && !rest.iter().any(stance_word)
        && !ANSWER_VERBS.contains(&before.as_str())
        && asked.named_pair(before, last)
}

/// Whether the `no` at `i` is a determiner ("no bags", "no longer needed")
/// rather than an interjection: another word follows it in the clause, and
/// not one an interjection leads into ([`INTERJECTION_FOLLOWERS`]).
fn is_determiner_no(tokens: &[Word], i: usize) -> bool {
    tokens.get(i).is_some_and(|w| w == "no")
        && tokens.get(i + 1).is_some_and(|next| {
            !WordClass::InterjectionFollowers.has(next) && !next.tags().has(DomainClass::ActionName)
        })
}

/// Whether the word at `i` directly follows "if" or "whether" ("if not":
/// the alternative of a condition).
fn follows_condition(tokens: &[Word], i: usize) -> bool {
    i.checked_sub(1)
        .and_then(|j| tokens.get(j))
        .is_some_and(|w| w == "if" || w == "whether")
}

/// Whether `words` open with `phrase`.
fn opens_with(words: &[Word], phrase: &[&str]) -> bool {
    words
        .get(..phrase.len())
        .is_some_and(|start| contains_phrase(start, phrase))
}

/// `tokens` without the filler words that open it.
/// The answer after an identifier opening a clause ("RX-40812 yes",
/// "w7654321 no thanks"): a reply answering the records of a request one by
/// one names each before its yes or no. The identifier is one word or its
/// letters then its digits ([`asked::identifiers_in`]); a clause it does
/// not open, or whose rest is no yes or negator, is returned whole.
///
/// [`asked::identifiers_in`]: super::asked::identifiers_in
fn after_item_reference(head: &[Word]) -> &[Word] {
    let digits = |w: &Word| w.bytes().all(|b| b.is_ascii_digit());
    let letters = |w: &Word| w.bytes().all(|b| b.is_ascii_alphabetic());
    let skipped = match head {
        [id, ..] if super::asked::is_identifier(id) => 1,
        [prefix, id, ..]
            if letters(prefix) && digits(id) && id.len() >= super::asked::WRITTEN_ID_DIGITS =>
        {
            2
        }
        _ => return head,
    };
    let rest = head.get(skipped..).unwrap_or_default();
    let answers = PhraseClass::YesHeads.opens(rest)
        || rest.first().is_some_and(|w| WordClass::Negators.has(w));
    if answers { rest } else { head }
}

pub(crate) fn skip_fillers(tokens: &[Word]) -> &[Word] {
    let start = tokens
        .iter()
        .position(|t| !WordClass::Fillers.has(t))
        .unwrap_or(tokens.len());
    tokens.get(start..).unwrap_or_default()
}

/// Positions of negators in `tokens`, except those opening an idiom that
/// negates nothing ("no problem", or a domain's "not yet shipped").
pub(crate) fn negator_positions(tokens: &[Word]) -> Vec<usize> {
    let neutral: Vec<usize> = PhraseClass::NeutralNegations
        .matches(tokens)
        .map(|(at, _)| at)
        .chain(
            DomainPhrase::NeutralNegation
                .matches(tokens)
                .map(|(at, _)| at),
        )
        .collect();
    tokens
        .iter()
        .enumerate()
        .filter(|(i, t)| WordClass::Negators.has(t) && !neutral.contains(i))
        .map(|(i, _)| i)
        .collect()
}

/// A word with one letter three times in a row ("suuure", "yesss"): drawn-out
/// emphasis that reads as sarcasm or hesitation, never as a plain yes.
/// Whether `words` say yes at or after position `from`: a yes head, a
/// go-ahead or an agreement phrase.
fn says_yes_from(words: &[Word], from: usize) -> bool {
    let rest = words.get(from..).unwrap_or_default();
    PhraseClass::YesHeads.any_in(rest)
        || PhraseClass::GoAhead.any_in(rest)
        || PhraseClass::Agreement.any_in(rest)
}

/// Whether a pause ([`PhraseClass::Pauses`], a pause word: *hmm*, *umm*)
/// in `words` is followed by no yes, in its sentence or (`yes_follows`) a
/// later one: thinking aloud before a yes is resolved by it, a pause with
/// no yes after it hedges.
fn pauses_unresolved(words: &[Word], yes_follows: impl Fn() -> bool) -> bool {
    let after_phrase = PhraseClass::Pauses
        .matches(words)
        .map(|(at, p)| at + p.len());
    let after_word = words
        .iter()
        .enumerate()
        .filter(|(_, w)| is_pause_word(w))
        .map(|(at, _)| at + 1);
    let mut ends = after_phrase.chain(after_word).peekable();
    ends.peek().is_some() && !yes_follows() && ends.any(|end| !says_yes_from(words, end))
}

/// Whether a word is a pause interjection ([`lexicon::PAUSE_WORDS`]) with
/// its letter runs collapsed: *hmm*, *hmmm*, *errr*, *uhh*.
fn is_pause_word(word: &str) -> bool {
    if !word
        .as_bytes()
        .first()
        .is_some_and(|b| matches!(b, b'h' | b'u' | b'e' | b'a' | b'm'))
    {
        return false;
    }
    // Pause words are short ASCII: collapse into a small buffer, no
    // allocation per word.
    let mut collapsed = [0u8; 8];
    let mut len = 0;
    for &b in word.as_bytes() {
        if len > 0 && collapsed.get(len - 1) == Some(&b) {
            continue;
        }
        let Some(slot) = collapsed.get_mut(len) else {
            return false;
        };
        *slot = b;
        len += 1;
    }
    let collapsed = collapsed.get(..len).unwrap_or_default();
    super::lexicon::PAUSE_WORDS
        .iter()
        .any(|pause| pause.as_bytes() == collapsed)
}

fn is_elongated(word: &str) -> bool {
    if word.is_ascii() {
        // The common case, without collecting the characters.
        return word
            .as_bytes()
            .windows(3)
            .any(|w| matches!(w, [a, b, c] if a == b && b == c && a.is_ascii_alphabetic()));
    }
    let chars: Vec<char> = word.chars().collect();
    chars
        .windows(3)
        .any(|w| matches!(w, [a, b, c] if a == b && b == c && a.is_alphabetic()))
}

/// Whether a reply says someone other than the user answers it: the one
/// typing speaks for the user or says the user is away ([`RELAYED`]: "Tom
/// typing for Nadia", "Nadia stepped away"), or names themselves as a third
/// person's relation ([`RELATION_NOUNS`] after *her*, *his*, *their* or a
/// name's *'s*): after "this is", "I'm" or "it's" ("This is her husband,
/// Tom", "This is Priya, his carer"), before "here", "speaking" or "typing" ("Mia's colleague here"),
/// or as a signature, a last or bracketed clause after a name alone ("—
/// Tom, Gareth's son"). "My husband will pick it up" is the user's own.
fn answered_by_another(read: &[Sentence]) -> bool {
    let third_possessive = |w: &Word| {
        THIRD_POSSESSIVES.contains(&w.as_str())
            || (w.as_str().ends_with("'s") && !S_CONTRACTIONS.contains(&w.as_str()))
    };
    read.iter().any(|sentence| {
        let words = sentence.words();
        if PhraseClass::Relayed.any_in(words) {
            return true;
        }
        // Most replies name no relation: nothing else is read.
        if !words.iter().any(|w| WordClass::RelationNouns.has(w)) {
            return false;
        }
        let clauses: Vec<&[Word]> = sentence.clauses().collect();
        clauses.iter().enumerate().any(|(index, clause)| {
            clause.windows(2).enumerate().any(|(at, pair)| {
                let [owner, relation] = pair else {
                    return false;
                };
                if !WordClass::RelationNouns.has(relation) || !third_possessive(owner) {
                    return false;
                }
                // The frame stands before the relation in its clause, or
                // in the clause before one the relation opens ("This is
                // Priya, his carer").
                let previous = index
                    .checked_sub(1)
                    .and_then(|before| clauses.get(before))
                    .copied()
                    .unwrap_or_default();
                let before = match clause.get(..at).unwrap_or_default() {
                    [] => previous,
                    before => before,
                };
                let framed = SPEAKER_FRAMES
                    .iter()
                    .any(|frame| contains_phrase(before, frame));
                let tailed = clause
                    .get(at + 2)
                    .is_some_and(|w| SPEAKER_TAILS.contains(&w.as_str()));
                let signed = at == 0
                    && (index + 1 == clauses.len() || sentence.is_bracketed(index))
                    && previous.len() == 1;
                framed || tailed || signed
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialogue::test_words::tau2;

    /// A reply's markers, read with the tau2 bundles' words.
    #[test]
    fn a_reply_someone_else_types_is_not_the_users_yes() {
        for reply in [
            "Lena here, Nadia stepped away for a sec - yes, upgrade us!",
            "(Tom typing for Nadia) yep, confirm",
            "This is her husband, Tom. Go ahead.",
            "Sure, confirm. (This is Priya, his carer, he can't type right now.)",
            "Hi, it's Dana's assistant typing, yes please",
            "[Mia's colleague here, she's in a meeting] yes, cancel it",
            "Yes, that's right.\n- Tom, Gareth's son",
            "I'm answering on her behalf: yes, go ahead.",
        ] {
            let read = markers(reply);
            assert!(read.relayed, "{reply}");
            assert_ne!(read.stance(), Stance::Affirm, "{reply}");
        }
        for reply in [
            "Yes, my husband Tom will pick the car up.",
            "Yes please, my wife asked me to do this.",
            "Yes, go ahead. Tell Lena I said hi.",
            "Yes, that's me, Dana, go ahead.",
            "Yes, add her husband as a driver.",
            "Yep, my assistant booked the original, but yes, cancel it.",
            "Yes! (typing from my phone)",
        ] {
            let read = markers(reply);
            assert!(!read.relayed, "{reply}");
        }
    }

    fn markers(reply: &str) -> Markers {
        read_in(reply, None)
    }

    #[test]
    fn a_question_after_a_plain_yes_asks_about_the_action() {
        expect(&[
            ("1. Yes\n2. Yes\n\nWhen will they be ready?", Stance::Affirm),
            ("Yes. How long will the refund take?", Stance::Affirm),
            ("Yes, renew it. When's the new due date?", Stance::Affirm),
            ("Sure thing. Where's the label sent?", Stance::Affirm),
            (
                "Yes, please cancel it. Quick questions: how long do you keep my card details on file?",
                Stance::Affirm,
            ),
            ("Yes. If anything fails, just let me know.", Stance::Affirm),
            // A dash or a comma after a bare yes ends it.
            (
                "Yes please — how long does the refund usually take?",
                Stance::Affirm,
            ),
            ("yes - does the toll pass carry over?", Stance::Affirm),
            ("Sure, will I get an email about it?", Stance::Affirm),
            (
                "Go ahead. How long until it shows on my card?",
                Stance::Affirm,
            ),
        ]);
        // The question orders something before the action, asks the agent
        // to act, or the yes itself is asked.
        expect_no_consent(&[
            "Yes. Before you do it, what is the fee?",
            "Yes. Can you do it tomorrow instead?",
            "Yes? When will it arrive?",
            "Yes, only if it is free. When will it arrive?",
            "Yes, can you do it tomorrow instead?",
            "Okay - when will it be cancelled?",
            "Yes, but what is the fee?",
            "Yes. Can you wait until Friday?",
        ]);
    }

    #[test]
    fn a_sentence_changing_the_topic_moves_on() {
        expect(&[
            (
                "Yes, go ahead with the 15,000. Unrelated, but will I get a letter, or does it just show up in the app?",
                Stance::Affirm,
            ),
            (
                "Yes, go ahead. Quick side question: how long is the password valid before it expires?",
                Stance::Affirm,
            ),
            (
                "Go ahead. On a different note, my address changed, but I'll update it myself.",
                Stance::Affirm,
            ),
        ]);
        // A refusal bearing on the action still counts there, and without a
        // yes before it nothing moves on.
        expect_no_consent(&[
            "Yes, go ahead. Unrelated, but actually don't cancel it.",
            "Unrelated, but will I get a letter?",
        ]);
    }

    #[test]
    fn a_yes_relayed_from_someone_else_is_not_the_users() {
        expect_no_consent(&[
            "She says yes, go ahead.",
            "My husband says go ahead and do it.",
            "ok my boss agreed, please proceed",
            "Tom told me to say yes.",
            "They approved it, go ahead with it.",
        ]);
        expect(&[
            ("Yes, go ahead. My wife says thanks!", Stance::Affirm),
            ("She says yes, and I agree, go ahead.", Stance::Affirm),
            (
                "My wife thinks it's a good idea, so yes, go ahead.",
                Stance::Affirm,
            ),
            ("As you said, go ahead.", Stance::Affirm),
            ("That said, go ahead.", Stance::Affirm),
            ("Both agreed, go ahead with the two.", Stance::Affirm),
            (
                "Yes, cancel it - my doctor wants me off it.",
                Stance::Affirm,
            ),
        ]);
    }

    fn read_in(reply: &str, asked: Option<&AskedWords>) -> Markers {
        let read = sentences_in(&without_quoted_mentions(reply), &tau2());
        Markers::read_sentences(reply, &read, asked)
    }

    /// A reply's stance, read with the tau2 bundles' words.
    fn reply_stance(reply: &str) -> Stance {
        reply_stance_in(reply, &tau2())
    }

    /// What the agent asked, read with the tau2 bundles' words.
    fn asked_in(text: &str) -> AskedWords {
        let mut asked = AskedWords::default();
        asked.add_sentences(&sentences_in(text, &tau2()));
        asked
    }

    #[test]
    fn a_yes_placing_the_action_later_is_no_yes_to_doing_it_now() {
        for reply in [
            "yes, tomorrow",
            "yes do it later",
            "go ahead tomorrow morning",
            "yes but do it tomorrow",
            "sure, in 2 hours",
            "yes, in an hour please",
            "yes please cancel it tonight",
            "ok, proceed next week",
        ] {
            let read = markers(reply);
            assert!(read.defers, "{reply}");
            assert_ne!(read.stance(), Stance::Affirm, "{reply}");
        }
        // A time about something else, or a deadline, places nothing.
        for reply in [
            "yes, I'm flying tomorrow, so go ahead",
            "yes, the flight tomorrow",
            "yes please, before tomorrow",
            "yes, by tonight if you can",
            "yes, right now please",
            "yes, it was stolen yesterday",
            "yes, the later flight",
        ] {
            assert!(!markers(reply).defers, "{reply}");
        }
    }

    #[test]
    fn an_order_whose_object_is_a_person_acts_on_the_one_asked_about() {
        // A short action word, which names no request by itself.
        let lexicon = std::sync::Arc::new(Lexicon::new(&super::super::DomainWords::of_actions(&[
            &["add"],
        ])));
        let mut asked = AskedWords::default();
        asked.add_sentences(&sentences_in(
            "Shall I add Jordan Bell (licence B3360482) to policy POL-41377?",
            &lexicon,
        ));
        let other = |reply: &str| {
            let read = sentences_in(reply, &lexicon);
            Markers::read_sentences(reply, &read, Some(&asked)).other_request
        };
        for reply in [
            "Yes, add him.",
            "Sure, add her please",
            "Yes, add her to the policy.",
            "yes, add me",
        ] {
            assert!(!other(reply), "{reply}");
        }
        // *her* before a noun says whose; another object is another request.
        for reply in [
            "Yes, add her son.",
            "Yes, add xyzzy.",
            "Yes, please send me the receipt.",
        ] {
            assert!(other(reply), "{reply}");
        }
    }

    #[test]
    fn a_reply_saying_only_confirm_goes_ahead() {
        for reply in ["CONFIRM", "confirm.", "please confirm", "Confirm!"] {
            assert_eq!(reply_stance(reply), Stance::Affirm, "{reply}");
        }
        expect_no_yes(&[
            "confirm?",
            "confirm\nfalse",
            "I can't confirm that",
            "confirm the address",
        ]);
    }

    fn clause(text: &str) -> Vec<Word> {
        sentences_in(text, &tau2())
            .first()
            .map(|s| s.words().to_vec())
            .unwrap_or_default()
    }

    #[test]
    fn a_sarcasm_mark_stands_on_its_own() {
        assert!(has_sarcasm_mark("Sure, cancel it /s"));
        assert!(has_sarcasm_mark("Oh great, go ahead /s."));
        assert!(has_sarcasm_mark("Yes \u{1f644}"));
        assert!(!has_sarcasm_mark("include any tax/shipping adjustments"));
        assert!(!has_sarcasm_mark("see https://example.com/status"));
        expect(&[(
            "Yes to both actions. Please include any tax/shipping adjustments.",
            Stance::Affirm,
        )]);
        assert_eq!(reply_stance("Yes, go ahead /s"), Stance::Refuse);
    }

    #[test]
    fn declining_a_hand_over_to_a_human_answers_nothing_about_the_action() {
        let at = |words: &[Word], w: &str| words.iter().position(|x| x == w).unwrap() + 1;
        for (text, after, declines) in [
            ("do not transfer", "not", true),
            ("do not transfer me", "not", true),
            ("no need to transfer me to a human agent", "no", true),
            (
                "hold off on transferring me to a human for now",
                "off",
                true,
            ),
            ("do not transfer me or cancel anything", "not", false),
            ("do not transfer the refund to paypal", "not", false),
            ("do not cancel or transfer me", "not", false),
            ("do not transfer it to my card", "not", false),
        ] {
            let words = clause(text);
            assert_eq!(
                declines_transfer(&words, at(&words, after)),
                declines,
                "{text}"
            );
        }
        expect(&[
            ("Yes, cancel it. Don't transfer me.", Stance::Affirm),
            (
                "Yes. Please hold off on transferring me to a human.",
                Stance::Affirm,
            ),
        ]);
        expect_no_yes(&[
            "Yes. Do not transfer me or cancel anything.",
            "Yes, cancel it. Hold off on transferring the refund.",
            "Please hold off on transferring me and on the cancellation.",
        ]);
    }

    #[test]
    fn a_negation_stating_a_purpose_is_no_answer_unless_it_names_the_action() {
        let words = clause("just to be sure nothing slips through");
        assert!(states_purpose(&words, 4));
        let words = clause("so that nothing gets cancelled");
        assert!(!states_purpose(&words, 2));
        let words = clause("nothing slips through");
        assert!(!states_purpose(&words, 0));
        expect(&[(
            "Yes, please go ahead, just to be sure nothing slips through the cracks.",
            Stance::Affirm,
        )]);
        expect_no_yes(&[
            "Yes, so that nothing gets cancelled.",
            "Yes, go ahead, just to be sure it is not cancelled.",
            "Yes. Just to be sure, do not cancel it.",
        ]);
    }

    #[test]
    fn a_withdrawal_conceding_a_case_and_keep_going_idioms_take_nothing_back() {
        expect(&[
            (
                "Yes, go ahead. Even if my plans are on pause, at least this is sorted.",
                Stance::Affirm,
            ),
            (
                "Yes, go ahead. I just want to keep things steady.",
                Stance::Affirm,
            ),
            ("Yes, proceed so we can keep this moving.", Stance::Affirm),
        ]);
        expect_no_yes(&[
            "Sure. Even if it costs more, hold off for now.",
            "Yes, go ahead even if I'm having second thoughts.",
            "Yes, keep things as they are.",
            "Yes. Keep it.",
        ]);
    }

    #[test]
    fn not_remembering_something_is_no_answer() {
        expect(&[
            (
                "YES — please proceed with all three actions. Please send confirmations to the email on file (I don't remember it). Thanks!",
                Stance::Affirm,
            ),
            (
                "Yes, please submit it. I'm okay with the email you have on file since I don't remember mine.",
                Stance::Affirm,
            ),
            ("Yes, go ahead. I don't recall my email.", Stance::Affirm),
        ]);
        expect_no_yes(&[
            "Yes. I don't know.",
            "Yes. I don't remember asking to cancel it.",
            "Yes, go ahead. I don't remember, do not cancel it.",
            "Yes? I don't remember it.",
            "I don't remember it.",
        ]);
    }

    #[test]
    fn a_detail_of_the_summary_quoted_back_is_no_answer() {
        let asked = asked_in(
            "Please confirm: change the boots from size 10 (synthetic, waterproof yes) \
             to size 8 (synthetic, waterproof no). Reply YES to proceed or say no.",
        );
        let stance = |reply: &str| read_in(reply, Some(&asked)).stance();
        for reply in [
            "YES. Please change the boots from size 10 (synthetic, waterproof yes) to size 8 \
             (synthetic, waterproof no). No other changes.",
            "Yes, size 8 (waterproof no).",
        ] {
            assert_eq!(stance(reply), Stance::Affirm, "{reply}");
        }
        // The quoted detail is no yes either, and a no the summary did not
        // pair with that word, or an answer reported, is still an answer.
        assert_ne!(stance("Size 8, waterproof yes."), Stance::Affirm);
        for reply in [
            "Yes. Actually, waterproof no, do not change it.",
            "Yes. Synthetic no.",
            "Say no.",
            "Yes? Reply no.",
        ] {
            assert_ne!(stance(reply), Stance::Affirm, "{reply}");
        }
        // Without the summary the `no` is an answer.
        assert_eq!(reply_stance("Yes, size 8 (waterproof no)."), Stance::Refuse);

        let asked = asked_in(
            "Cancel order #W9284598, reason ordered by mistake. No item modifications will \
             be made. Reply yes to proceed or no to keep it.",
        );
        let stance = |reply: &str| read_in(reply, Some(&asked)).stance();
        assert_eq!(
            stance(
                "Yes, proceed exactly as listed: - Reason: ordered by mistake - No item modifications"
            ),
            Stance::Affirm
        );
        for reply in [
            "Yes. No item modifications, do not cancel.",
            "Yes. No cancellation.",
            "Yes. No to keep it.",
            "Yes. No modifications will be made, I changed my mind.",
        ] {
            assert_ne!(stance(reply), Stance::Affirm, "{reply}");
        }
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
        let m = markers("There is no refund, fine");
        assert!(m.negation && !m.refusal);
        // One in a case the user concedes is neither.
        let m = markers("Even if there is no refund, fine");
        assert!(!m.negation && !m.refusal);
        // "no problem" negates nothing.
        assert!(!markers("No problem, go ahead").negation);
    }

    /// Laughter at the answer takes the yes back as sarcasm does;
    /// laughter closing a sentence about something else sets a tone.
    #[test]
    fn laughter_is_sarcasm_only_at_the_answer() {
        for reply in [
            "Yes please! I need maps to find my hotel shuttle lol",
            "Yes, go ahead. My phone has been dead all morning haha",
            "sure. the other one was in my coat pocket the whole time lmao",
        ] {
            let m = markers(reply);
            assert!(m.says_yes() && !m.sarcasm, "{reply}: {m:?}");
        }
        for reply in [
            "Yes lol",
            "Sure, cancel it haha",
            "lol yes",
            "Yes please. lol",
            "go ahead lmao",
        ] {
            assert!(markers(reply).sarcasm, "{reply}");
        }
    }

    #[test]
    fn a_pause_before_a_yes_is_resolved_and_one_after_it_hedges() {
        for reply in [
            "hmm... yes, definitely, do it",
            "errr yes go ahead",
            "umm ok yes please",
            "let me think. ok, yes, cancel it",
            "One sec. Yes, go ahead.",
        ] {
            let m = markers(reply);
            assert!(m.says_yes() && !m.hedge && !m.sarcasm, "{reply}: {m:?}");
        }
        for reply in [
            "hmm",
            "yes, hmm",
            "hmm, yes I guess",
            "ok, let me check",
            "yes... ummm",
        ] {
            assert!(markers(reply).hedge, "{reply}");
        }
        assert!(markers("suuure").sarcasm);
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
    /// Every reply of `replies` is read as anything but a yes.
    fn expect_no_yes(replies: &[&str]) {
        for reply in replies {
            assert_ne!(reply_stance(reply), Stance::Affirm, "{reply}");
        }
    }

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
            // A complaint conceded to: the go-ahead comes after the contrast.
            ("I'm not happy about it, but go ahead.", Stance::Affirm),
            (
                "Not thrilled about the fee, but fine, go ahead.",
                Stance::Affirm,
            ),
        ]);
        // A no before the contrast is not conceded away; a contrast after
        // the go-ahead still qualifies it.
        expect_no_consent(&[
            "I don't want it cancelled, but go ahead.",
            "Do not cancel it, but go ahead.",
            "Go ahead, but use my other card.",
            "Yes, but fine, keep it.",
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
    fn questions_about_the_action_after_a_go_ahead_do_not_qualify_it() {
        expect(&[
            (
                "YES, please proceed with the return. What's the return window, and are there any fees?",
                Stance::Affirm,
            ),
            (
                "Yes, go ahead. If you have an estimated refund timeline, please share it.",
                Stance::Affirm,
            ),
            (
                "Yes, please submit the exchange. Will I receive a return label, and when would the new unit ship?",
                Stance::Affirm,
            ),
            (
                "Yes, proceed.\n- Whether there will be any return shipping fees deducted\n- When the refund hits my card",
                Stance::Affirm,
            ),
            (
                "Yes, please proceed. If email is the only option, please let me know which address you'll use.",
                Stance::Affirm,
            ),
            (
                "YES, please proceed. Can you confirm where the instructions will be sent?",
                Stance::Affirm,
            ),
            // A weak yes with a question is still deciding.
            ("Okay. When will it be cancelled?", Stance::Question),
        ]);
        // A question that makes the action wait, asks the agent to act under
        // a condition, or doubts it, still qualifies the go-ahead.
        expect_no_consent(&[
            "Yes, go ahead. Could you do it only if it's free?",
            "Yes, go ahead. Could you cancel it if it's free?",
            "Yes, go ahead. Let me know the price before you cancel it.",
            "Yes, go ahead. Can you check the price first?",
            "Yes, go ahead. What if I don't want it cancelled?",
            "Yes, go ahead. Let me know if I should wait.",
            "Yes, proceed. Let me know, unless you think I should keep it.",
            "Yes, go ahead. But what is the fee?",
            "Yes, go ahead. Actually, what is the fee?",
            "Yes, go ahead. Is it too late to keep it?",
            "Yes, go ahead. Will you wait until tomorrow?",
            "Yes, please proceed. Let me know, maybe I'll change my mind.",
            "Yes, please proceed. Tell me, do I really need to? Maybe not.",
            "Yes, go ahead. When will it be done? Never mind, don't.",
        ]);
    }

    #[test]
    fn a_condition_in_other_words_qualifies() {
        expect_no_consent(&[
            "Yes - so long as the lisinopril still comes through this week.",
            "Yes, on condition that the fee is waived.",
            "Go ahead, on the condition that my other card stays active.",
            "Yes, conditional on the refund reaching my card.",
            "Yes, go ahead. Can you tell me the fee, so long as it's under 10?",
        ]);
    }

    #[test]
    fn the_lines_of_a_list_an_inquiry_opens_are_what_it_asks() {
        expect(&[
            (
                "Yes, please proceed. Could you share:\n- The confirmation number\n- The typical \
                 timeline for the refund to hit PayPal once the carrier scans the package",
                Stance::Affirm,
            ),
            (
                "Yes, go ahead. Please let me know:\n1. The fee, if any applies when I'm abroad\n\
                 2. When the new limit takes effect",
                Stance::Affirm,
            ),
            (
                "Yes, do it. A couple of questions:\n* the reference number\n* the date it \
                 arrives once it's posted",
                Stance::Affirm,
            ),
        ]);
        // An ordinal after a determiner is a thing's place, not an order.
        expect(&[
            (
                "Yes, go ahead. Please let me know:\n- whether I have to pick a new one after the first login",
                Stance::Affirm,
            ),
            (
                "Yes, go ahead. Please let me know whether I have to pick a new one after the first login.",
                Stance::Affirm,
            ),
        ]);
        expect_no_consent(&[
            "Yes, go ahead. First, let me know the fee.",
            "Yes, go ahead. Let me know the fee first.",
            "Yes, go ahead. Could you tell me:\n- the fee for the first month before you submit it",
        ]);
        // A line asking the agent to act, making the action wait, or taking
        // the yes back is no part of what is asked; nor is a line under a
        // lead-in that asks nothing.
        expect_no_consent(&[
            "Yes, please go ahead. Could you tell me:\n- only do it if the fee is waived\n- the reference",
            "Yes, please go ahead. Could you tell me:\n- the fee before you submit it",
            "Yes, please go ahead. Could you tell me:\n1. The fee once it posts\n2. Actually, hold off for now.",
            "Yes, go ahead. Note:\n- once my salary arrives",
            "Yes, go ahead. Could you tell me:\n- the fee, but only if it's waived",
            "Yes, go ahead.\n- the timeline once my salary arrives",
        ]);
    }

    #[test]
    fn an_acknowledgement_with_that_covers_its_sentence() {
        expect(&[
            (
                "Yes, please proceed. I understand that after these changes, the order can't be canceled or modified further.",
                Stance::Affirm,
            ),
            (
                "Yes, go ahead. I understand that, after this, it cannot be undone.",
                Stance::Affirm,
            ),
        ]);
        expect_no_consent(&[
            "Yes. I understand, I don't want it anymore.",
            "Yes. I understand that, but I don't want it cancelled.",
            "Yes. I understand that it can't be undone, so no, don't.",
            "Yes. I understand that, however do not cancel it.",
            "Yes, go ahead. I know that, I'd rather not cancel it.",
        ]);
    }

    #[test]
    fn a_negation_over_everything_else_restricts_it_does_not_refuse() {
        expect(&[
            (
                "Yes, please proceed. Do not use any other payment methods.",
                Stance::Affirm,
            ),
            ("Yes, go ahead. I don't need anything else.", Stance::Affirm),
            (
                "Yes, proceed. Please don't change any other items.",
                Stance::Affirm,
            ),
            (
                "Yes, go ahead. Leave the other two orders unchanged.",
                Stance::Affirm,
            ),
            (
                "Yes, proceed. Keep the other items as they are.",
                Stance::Affirm,
            ),
        ]);
        expect_no_consent(&[
            "Yes. Don't cancel it or anything else.",
            "Yes. Do not cancel this order or any other.",
            "Yes, go ahead. Actually, don't, or anything else.",
            "Don't do it, or anything else.",
            "No, nothing else, don't cancel.",
            "Yes. Keep it and the other one.",
            "Yes. Keep this order and the other ones.",
            "Yes, go ahead. Leave the order alone, and the other too.",
        ]);
    }

    #[test]
    fn elongation() {
        assert!(is_elongated("suuure"));
        assert!(!is_elongated("yes"));
        assert!(!is_elongated("1000"));
    }
}
