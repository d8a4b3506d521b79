//! Pure, deterministic text functions for deciding dialogue predicates by
//! code: how a user reply answers a request for a decision
//! ([`reply_stance`]), whether a turn mentions an argument value
//! ([`names_value`]), whether the user consented to an action
//! ([`consent`]), and whether a keyword is asserted rather than negated
//! ([`count_asserted`]). The offline judge is built on them; the engine may
//! call them directly.
//!
//! # What counts as consent
//!
//! Text is read case-insensitively as sentences (ended by `.` `!` `?` `;` or
//! a line break; a `?` makes the sentence a question) split into clauses
//! (at `,` `:` brackets, quotes and dashes), with `n't` expanded to `not`.
//!
//! A reply is **affirmative** ([`Stance::Affirm`]) only if
//! 1. it says yes in a statement, not in a question: a clause that opens
//!    (after fillers such as "oh", "well", "thanks", "please") with *yes,
//!    yeah, yep, yup, sure, ok, okay, alright, absolutely, definitely,
//!    certainly, correct, right, exactly, affirmative, of course*; or an
//!    agreement phrase (*that's right/correct, sounds good, looks good, that
//!    works, I agree/approve/accept*); or a go-ahead anywhere in a statement
//!    (*go ahead, go for it, proceed, I confirm, confirmed, please do, do it,
//!    yes please, please confirm/continue/cancel/process/book/update/change/
//!    make/return/exchange/modify/remove*);
//! 2. nothing in the reply defeats it: a **negator** in the clause of the
//!    first yes or after it, in a clause bearing on the action — an action
//!    verb, an anaphor (*it, that, this, them*), wanting or agreeing — (*no,
//!    not, n't, never, nothing, none, nope, nah, nor, neither, without*; the
//!    idioms "no problem", "no other", "not happy about" excepted; one before
//!    the yes describes what is chosen — "the ones that are not water
//!    resistant. Yes, proceed" —; "I don't have my email handy" and "I don't
//!    remember it" (first person, a memory verb, no action named) are not
//!    about the action; one after *I understand / I acknowledge* states the
//!    policy's consequence; a field value after a short label — "Insurance:
//!    no", "Reason: no longer needed" — describes, unless the label is the
//!    decision itself, "Confirm: no"; a detail of a request for a decision
//!    quoted back — "(synthetic, waterproof no)" after a summary listing
//!    "waterproof no": the word before a clause-final yes or no adjacent to
//!    it there, no answering verb ("say no"); or `no` before a noun and
//!    the two words after it in a row there, "No item modifications" — is
//!    neither a no nor a yes;
//!    when a request for a decision named
//!    a cancellation, return or removal, the user's own "no need" for the
//!    thing — "I no longer need it", "I don't need them anymore", in a
//!    clause naming no action — restates the reason; though a clause *opening* with a
//!    negator is a refusal wherever it stands, `no` before a noun — "no
//!    water resistance" — excepted), a **contrast** (*but, however, though,
//!    rather, instead, actually, except, otherwise, yet, I mean*; not "even
//!    though"), a **condition** (*if, unless, when, whether, until, once,
//!    after, provided, assuming, before, as long as, in case, depends*; not
//!    after "even", nor after an indirect question or acknowledgement in its
//!    clause — "let me know when", "check if", "please confirm once" —, nor a
//!    temporal one about the action having happened — "once it's done",
//!    "after the change", "after this"; "after I get my refund" stays a
//!    condition —, nor a courtesy — "if possible", "if there's any
//!    difference"; "if not" is a condition, not a refusal), a **hedge**
//!    (*maybe, perhaps, probably, might, guess, suppose, think, hmm, dunno,
//!    kind of, whatever, let me check, a minute*, "I don't know" alone or
//!    before *if, whether, about, yet*, or a drawn-out word such as
//!    "suuure"), **retention** (*keep, retain, leave it, leave the, alone, as is*), a
//!    **withdrawal** (*changed my mind, never mind, scratch that, forget it,
//!    on second thought, not yet, hold off, undo, pause, on hold, please
//!    wait, should wait*, deferring to someone — *check with, ask my, talk
//!    to my, consult* —, or a clause opening with *wait, stop, hold on, hang
//!    on*), or
//!    **sarcasm** (*when pigs fly, yeah right, oh sure, as if, in your
//!    dreams, over my dead body, joking, kidding, lol*, `/s`, an eye-roll
//!    emoji);
//! 3. if its only yes is a weak one (an interjection or agreement phrase, not
//!    a go-ahead), it asks no question: "Okay. What does it cost?" is still
//!    deciding, "Yes, go ahead. Can you also add a bag?" is consent.
//!
//! After a **go-ahead** (not a bare "yes"), a sentence that **asks for
//! information** about the action — it opens with a question word (*what,
//! when, whether, how, any, …*) or a modal whose subject is not "you" ("Will
//! I get a label", "Is there a fee"; "Could you cancel it if …" asks the
//! agent to act), or asks to be told or sent something (*let me know, please
//! share, provide, can you confirm*) — and orders nothing before the action
//! (*before, first, prior, until, unless*) is about what it asks: its
//! conditions ("If you have a timeline, please share it") do not qualify the
//! yes, but the firm ones (*only if, unless, provided, as long as, …*), its
//! hedges, an opening contrast ("But what is the fee?") and everything a
//! next-request sentence keeps (below) still do.
//!
//! An acknowledgement with its *that* ("I understand that, after these
//! changes, the order can't be modified") covers the clauses after it in its
//! sentence until one speaks in the first person, opens with a contrast or
//! says yes; a clause stating the user's own wish ("I understand and I don't
//! want it") is never an acknowledgement. A negation or retention of
//! **everything but the action** — *other* or *else* before any anaphor or
//! word for the action's object, in a sentence without *it/this/that*: "Do
//! not use any other payment method", "Leave my other orders as they are" —
//! restricts, it does not qualify. A contrast directly followed by a
//! go-ahead, a yes or *fine* concedes ("I'm not thrilled, but go ahead"),
//! unless a negation bearing on the action comes before it ("I don't want it
//! cancelled, but go ahead" stays qualified). In a conversation ([`consent`],
//! [`turn_cues`]), a negation or retention in a sentence whose identifiers
//! were all never named by any agent request for a decision, and which has
//! no anaphor, is about those other things ([`AskedWords`]): "I do not want
//! to exchange the puzzle in #W5416052" after a summary of #W3916020. Which
//! *described* thing a clause is about ("keep the pet bed") is meaning, not
//! decided by code: such a clause still qualifies.
//!
//! A **weak yes followed in its sentence by a request for something else**
//! answers that request, not the summary: "Yes, I'd like to know the
//! delivery estimate", "Yes, please send me the tracking number", "Yes,
//! upgrade my shipping" — a request (*I'd like, I want, I need, please …*,
//! or an action verb opening the words after the yes) whose words name
//! neither an anaphor for the action nor anything the requests for a
//! decision named, or that names an action they did not ("Yes, I'd like to
//! return it" to a cancellation). In a conversation a go-ahead naming an
//! action no request for a decision named ("Yes, please exchange it" to a
//! cancellation) is not consent either. Read alone ([`reply_stance`]),
//! nothing says which action was asked about, so any action word or anaphor
//! ties the request to it.
//!
//! In a conversation, a yes whose sentence **names another order than the
//! latest request for a decision, or picks one of several by position**, is
//! no yes to that request ([`AskedWords`]): it names record ids (letters,
//! then five or more digits: order ids) of a kind named there but none of
//! those ("Yes, cancel #W4597054" to a summary of #W9300146), or, with
//! several of one kind named, says "the second one". A yes naming *some*
//! of several orders of one summary is a yes to the ones it names and no
//! yes to the others ([`names_other_records`]): its answer (the sentences
//! before it moves on to another request, below) names a record the
//! summary named but not the write's key record ("Yes, cancel W4597054" to
//! a summary of #W9300146 and #W4597054 does not confirm cancelling
//! #W9300146). This is decided against the write's key values, not per
//! turn, because agents' summaries often list every order of the account
//! and users name the one they mean; `confirmed(...)` applies the same rule
//! to the records the turn's answer names ([`TurnCues::answer_records`]).
//!
//! When a request for a decision ends with a **question about something
//! else** (its last question names no action, anaphor or decision word
//! such as *proceed, confirm, correct, these changes*: "… Also, would you
//! like a 10% discount code?"), a bare yes answers that last question: only
//! a yes naming the action asked about, or *proceed*, answers the request
//! ("Yes, please proceed with this change").
//!
//! A sentence **after the yes that moves on to another request** of the
//! user's own (it opens with *also* — after *and*, *but* — or names
//! *another issue/question/thing/order*, *one more thing*, *by the way*, …,
//! and speaks in the first person: "But I also have another issue: …")
//! and every sentence after it belong to that request: their contrasts,
//! conditions, hedges and questions do not qualify this answer. Refusals,
//! withdrawals, sarcasm, retention, corrections (*instead, rather, except,
//! otherwise*) and negations (but "if not") there still do: "Yes. Also, I
//! do not want it cancelled" is no consent.
//!
//! Otherwise the reply is [`Stance::Refuse`] (a clause opening with a
//! negator — "No, …", "Do not …", "Absolutely not", "ok no" —, a negator in
//! the same clause as a yes word — "I confirm nothing" —, a withdrawal, a
//! sarcastic yes, or a hedge or retention without a yes), [`Stance::Unknown`]
//! (a yes qualified by a contrast, condition, retention or negation — the
//! details must be restated — or no recognisable answer), or
//! [`Stance::Question`] (a question without a go-ahead). Only `Affirm` is ever
//! consent; every other stance keeps a gate shut.
//!
//! # Which reply counts
//!
//! [`consent`] looks for the **summary**: the latest agent turn that asks for
//! a decision (*confirm, proceed, go ahead, shall I, would you like, do you
//! want, yes, is that correct, …*) and names every key value
//! ([`names_value`]). Without key values, the summary is the latest such
//! turn that names some identifier (a token mixing letters and digits, a
//! `#`-prefixed token, a number of five or more digits, or a capitalised
//! code such as `XEHM4B`), so "Do you want a coffee?" is never a summary.
//! Consent is **given** by the first `Affirm` user turn after the summary
//! that comes before any later agent question (a yes to a later, unrelated
//! question does not count), and only if no user turn after the summary —
//! before or after that yes, up to the end of the slice — refuses,
//! withdraws, carries any defeater listed above, or (after the yes) asks for
//! a state-changing action without saying yes again ("Could you cancel it
//! and book a new one instead?": a correction, so the agent must ask again).
//! A later plain question or remark ("Thanks! What time is it there?") does
//! not revoke it.
//!
//! # Keywords
//!
//! [`count_asserted`] counts a keyword only where it is not negated: a
//! negator earlier in the same clause, with no *and, but, because, so, or,
//! …* in between, negates it ("it's not a mistake"); negators inside the
//! keyword itself ("don't need") do not. A keyword ending in *need, want,
//! have, like, wish, plan* directly followed by *to* is an infinitive ("I
//! don't need to cancel"), a different sense, and does not count.

mod asked;
mod lexicon;
mod ownership;
mod stance;
mod tokens;
mod value;
mod vocabulary;

pub use ownership::{Disowning, asks_ownership};

use crate::types::{Role, Turn};

use asked::is_identifier;
use stance::{Markers, negator_positions, quotes_nothing, without_quoted_mentions};
pub(crate) use tokens::{Sentence, sentences};
use tokens::{flat_tokens, phrase_positions, words};
use value::value_tokens;
use vocabulary::{PhraseClass, WordClass};

pub use asked::{AskedWords, identifier_word, is_record_word, names_other_records};
pub use stance::{Stance, reply_stance};
pub use tokens::Word;
pub use value::{Lookup, ReadTurn, ReadValue, ValueToken, names_value};

/// What the consent rule ([`consent`]) needs to know about one turn, read by
/// code once so an evaluator can apply the rule to any key values later
/// (the check language's `confirmed(...)`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct TurnCues {
    /// An agent turn asking for a decision ([`asks_for_decision`]): a
    /// summary when it also names every key value.
    pub asks_decision: bool,
    /// An agent turn asking anything: after a summary it closes the window
    /// in which a yes answers the summary.
    pub asks_anything: bool,
    /// A user turn whose stance is [`Stance::Affirm`].
    pub affirms: bool,
    /// A user turn that refuses, withdraws or qualifies a yes (any defeater).
    pub revokes: bool,
    /// A user turn naming a state-changing action without a yes: after a
    /// yes, a correction the agent must summarise again.
    pub corrects: bool,
    /// The identifiers a user turn's answer names (its sentences before it
    /// moves on to another request), as turns write them (`w9300146`,
    /// `zfa04y`): a yes naming some of a summary's records is a yes to
    /// those only ([`names_other_records`]).
    pub answer_records: Vec<String>,
}

/// The consent cues of one turn by `role` saying `text`, in a conversation
/// whose requests for a decision so far are `asked` (an agent turn asking
/// for one is added to it).
#[must_use]
pub fn turn_cues(role: Role, text: &str, asked: &mut AskedWords) -> TurnCues {
    turn_cues_of(&Turn::new(0, role, text), asked)
}

/// The consent cues of `turn` ([`turn_cues`]), read from its sentences
/// ([`Turn::tokenized`]): the turn is tokenized once, for its cues and for
/// every judge that reads it later.
#[must_use]
pub fn turn_cues_of(turn: &Turn, asked: &mut AskedWords) -> TurnCues {
    match turn.role {
        Role::Agent if !turn.text.trim().is_empty() => {
            let asks_decision = asks_decision_in(&flat_tokens(turn.sentences()));
            if asks_decision {
                note_request(asked, turn);
            }
            TurnCues {
                asks_decision,
                // `asks_anything` without tokenizing the turn a second time.
                asks_anything: asks_decision || turn.text.contains('?'),
                ..TurnCues::default()
            }
        }
        Role::User => {
            let (markers, answer_records) = markers_of(turn, Some(asked));
            let stance = markers.stance();
            TurnCues {
                affirms: stance == Stance::Affirm && answers_the_action(turn, asked),
                revokes: stance.revokes(&markers),
                corrects: stance != Stance::Affirm
                    && names_action_in(&flat_tokens(turn.sentences())),
                answer_records,
                ..TurnCues::default()
            }
        }
        Role::Agent | Role::Tool => TurnCues::default(),
    }
}

/// The reply markers of a user turn, and the record ids its answer names
/// ([`TurnCues::answer_records`]): from its shared sentences unless it
/// quotes something (then from its text with the quotations blanked).
fn markers_of(turn: &Turn, asked: Option<&AskedWords>) -> (Markers, Vec<String>) {
    let answer = |markers: Markers, read: &[Sentence]| {
        let records = read
            .iter()
            .take(markers.answer_sentences)
            .flat_map(Sentence::tokens)
            .filter(|w| is_identifier(w))
            .map(|w| w.to_string())
            .collect();
        (markers, records)
    };
    if quotes_nothing(&turn.text) {
        let read = turn.sentences();
        answer(Markers::read_sentences(&turn.text, read, asked), read)
    } else {
        let read = sentences(&without_quoted_mentions(&turn.text));
        answer(Markers::read_sentences(&turn.text, &read, asked), &read)
    }
}

/// Whether the user consented, per [`consent`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Consent {
    /// An affirmative reply to the summary, not revoked.
    Given {
        /// The agent turn that asked (its event index).
        summary_event: u32,
        /// The user's affirmative turn.
        evidence_event: u32,
    },
    /// No consent: no summary was answered, the user refused, withdrew or is
    /// still asking, or the yes answered a later, unrelated question.
    NotGiven {
        /// Why, for reports.
        reason: String,
    },
    /// The reply cannot be read as a yes or a no (a qualified yes, or no
    /// recognisable answer). Never consent.
    Unknown {
        /// Why, for reports.
        reason: String,
    },
}

impl Consent {
    /// Whether consent was given.
    #[must_use]
    pub fn is_given(&self) -> bool {
        matches!(self, Consent::Given { .. })
    }

    fn not_given(reason: impl Into<String>) -> Self {
        Consent::NotGiven {
            reason: reason.into(),
        }
    }

    fn unknown(reason: impl Into<String>) -> Self {
        Consent::Unknown {
            reason: reason.into(),
        }
    }
}

/// Whether an agent turn asks the user to decide something.
#[must_use]
pub fn asks_for_decision(text: &str) -> bool {
    asks_decision_in(&words(&tokens::normalise(text)))
}

/// [`asks_for_decision`] of a turn's word tokens.
fn asks_decision_in<T: std::borrow::Borrow<Word>>(tokens: &[T]) -> bool {
    PhraseClass::AskCues.any_in(tokens)
}

/// Whether an agent turn's last question is about something else than an
/// action ("… Shall I proceed? Also, would you like a discount code?"): it
/// names no action, anaphor or decision word ([`DECISION_WORDS`]).
fn last_question_elsewhere(turn: &Turn) -> bool {
    turn.sentences()
        .iter()
        .rev()
        .find(|s| s.question)
        .is_some_and(|last| {
            !last.tokens().any(|w| {
                WordClass::ActionWords.has(w)
                    || WordClass::ActionAnaphors.has(w)
                    || WordClass::DecisionWords.has(w)
            })
        })
}

/// Adds an agent turn asking for a decision to what was asked.
fn note_request(asked: &mut AskedWords, turn: &Turn) {
    asked.add_sentences(turn.sentences());
    asked.mark_latest_asks_other(last_question_elsewhere(turn));
}

/// Whether a user's yes answers the action the latest request for a
/// decision asked about: always, unless that request ended with a question
/// about something else ([`last_question_elsewhere`]) — then only a yes
/// naming the action asked about, or "proceed", does ("Yes, please proceed
/// with this change"; a bare "Yes!" answers the last question).
fn answers_the_action(turn: &Turn, asked: &AskedWords) -> bool {
    !asked.latest_asks_other()
        || turn
            .sentences()
            .iter()
            .flat_map(|s| s.tokens())
            .any(|w| w == "proceed" || (WordClass::ActionWords.has(w) && asked.names_action(w)))
}

/// Whether an agent turn asks the user anything (a decision or a question
/// mark): after the summary, such a turn closes the window in which a yes
/// answers the summary.
fn asks_anything(turn: &Turn) -> bool {
    turn.text.contains('?') || asks_decision_in(&flat_tokens(turn.sentences()))
}

/// Whether `text` names an identifier: a token mixing letters and digits, a
/// `#`-prefixed token, a number of at least five digits, or a code of five
/// or more capitals and digits (`XEHM4B`, `SDZQKO`).
#[must_use]
pub fn names_identifier(text: &str) -> bool {
    let hashed = text
        .split('#')
        .skip(1)
        .any(|rest| rest.starts_with(|c: char| c.is_alphanumeric()));
    let capital_code = text.split(|c: char| !c.is_alphanumeric()).any(|w| {
        (5..=10).contains(&w.len())
            && w.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    });
    hashed
        || capital_code
        || value_tokens(text).iter().any(|t| {
            let letters = t.chars().any(char::is_alphabetic);
            let digits = t.chars().filter(char::is_ascii_digit).count();
            (letters && digits > 0) || (digits >= 5 && t.chars().all(|c| c.is_ascii_digit()))
        })
}

/// Whether a turn of these word tokens names a state-changing action ("cancel", "refund",
/// "upgrade", …).
fn names_action_in<T: std::borrow::Borrow<Word>>(tokens: &[T]) -> bool {
    tokens
        .iter()
        .any(|w| WordClass::ActionWords.has(w.borrow()))
}

/// Whether an agent turn is a summary for these key values: it asks for a
/// decision and names every key value (or, with none, some identifier or
/// state-changing action).
fn is_summary(turn: &Turn, key_values: &[&str]) -> bool {
    turn.role == Role::Agent
        && asks_decision_in(&flat_tokens(turn.sentences()))
        && if key_values.is_empty() {
            names_identifier(&turn.text) || names_action_in(&flat_tokens(turn.sentences()))
        } else {
            key_values.iter().all(|v| names_value(&turn.text, v))
        }
}

/// Whether the user consented to the action the key values identify, on
/// this conversation slice (the rule is in the module documentation).
#[must_use]
pub fn consent(conversation: &[Turn], key_values: &[&str]) -> Consent {
    let Some(summary_at) = conversation.iter().rposition(|t| is_summary(t, key_values)) else {
        return if conversation.iter().any(|t| t.role == Role::User) {
            Consent::unknown("no agent turn in the slice asks for a decision naming the action")
        } else {
            Consent::not_given("no user turn in the slice")
        };
    };
    let summary_event = conversation.get(summary_at).map_or(0, |t| t.event_index);
    let summary_text = conversation.get(summary_at).map_or("", |t| t.text.as_str());
    let (up_to_summary, after) = conversation.split_at((summary_at + 1).min(conversation.len()));
    let mut asked = AskedWords::default();
    for turn in up_to_summary {
        if turn.role == Role::Agent && asks_decision_in(&flat_tokens(turn.sentences())) {
            note_request(&mut asked, turn);
        }
    }
    let mut window_open = true;
    let mut evidence = None;
    let mut revoked: Option<(u32, Stance)> = None;
    let mut last_reply: Option<(u32, Stance, bool)> = None;
    for turn in after {
        match turn.role {
            Role::Agent if !turn.text.trim().is_empty() && asks_anything(turn) => {
                if asks_decision_in(&flat_tokens(turn.sentences())) {
                    note_request(&mut asked, turn);
                }
                window_open = false;
            }
            Role::User => {
                let (markers, answer_records) = markers_of(turn, Some(&asked));
                let stance = markers.stance();
                // A new request for an action after the yes corrects what is
                // wanted: the agent must summarise and ask again.
                let corrects = evidence.is_some()
                    && stance != Stance::Affirm
                    && names_action_in(&flat_tokens(turn.sentences()));
                if stance.revokes(&markers) || corrects {
                    revoked = Some((turn.event_index, stance));
                }
                if stance == Stance::Affirm
                    && window_open
                    && evidence.is_none()
                    && answers_the_action(turn, &asked)
                    && !names_other_records(summary_text, &answer_records, key_values)
                {
                    evidence = Some(turn.event_index);
                }
                last_reply = Some((turn.event_index, stance, window_open));
            }
            Role::Agent | Role::Tool => {}
        }
    }
    if let Some((event, stance)) = revoked {
        return match stance {
            Stance::Unknown => Consent::unknown(format!(
                "the user qualified the answer at event {event}; the details must be restated"
            )),
            Stance::Question => Consent::not_given(format!(
                "the user asked a question with reservations at event {event}"
            )),
            Stance::Refuse | Stance::Affirm => Consent::not_given(format!(
                "the user declined, hesitated or withdrew at event {event}"
            )),
        };
    }
    if let Some(evidence_event) = evidence {
        return Consent::Given {
            summary_event,
            evidence_event,
        };
    }
    match last_reply {
        None => Consent::not_given(format!(
            "the agent's request for a decision at event {summary_event} has no user reply"
        )),
        Some((event, Stance::Affirm, false)) => Consent::not_given(format!(
            "the yes at event {event} answers a later agent question, not the request at event {summary_event}"
        )),
        Some((event, Stance::Question, _)) => Consent::not_given(format!(
            "the user asked a question at event {event} instead of confirming"
        )),
        Some(_) => Consent::unknown("no recognisable yes or no in the user's reply"),
    }
}

/// The normalised word form of a keyword: two keywords with the same form
/// ("don't need", "do not need") are the same keyword.
#[must_use]
pub fn keyword_form(phrase: &str) -> String {
    words(&tokens::normalise(&phrase.replace('_', " "))).join(" ")
}

/// How often `phrase` occurs in `text` asserted rather than negated (the
/// rule is in the module documentation). Both are normalised alike.
#[must_use]
pub fn count_asserted(text: &str, phrase: &str) -> usize {
    Keyword::new(phrase).count_in(&sentences(text))
}

/// A keyword in word form, for counting its asserted occurrences in many
/// turns without normalising it again for each ([`count_asserted`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Keyword {
    words: Vec<Word>,
    ends_in_infinitive_verb: bool,
}

impl Keyword {
    pub(crate) fn new(phrase: &str) -> Self {
        let words = words(&tokens::normalise(&phrase.replace('_', " ")));
        let ends_in_infinitive_verb = words
            .last()
            .is_some_and(|w| WordClass::InfinitiveVerbs.has(w));
        Keyword {
            words,
            ends_in_infinitive_verb,
        }
    }

    /// Asserted occurrences in text already split into `sentences`.
    pub(crate) fn count_in(&self, sentences: &[Sentence]) -> usize {
        let phrase = &self.words;
        if phrase.is_empty() {
            return 0;
        }
        sentences
            .iter()
            .flat_map(Sentence::clauses)
            .map(|clause| {
                let starts = phrase_positions(clause, phrase);
                if starts.is_empty() {
                    return 0;
                }
                let negators = negator_positions(clause);
                starts
                    .into_iter()
                    .filter(|&start| {
                        let end = start + phrase.len();
                        let infinitive = self.ends_in_infinitive_verb
                            && clause.get(end).is_some_and(|w| w == "to");
                        !infinitive && !negated_at(clause, &negators, start)
                    })
                    .count()
            })
            .sum()
    }
}

/// Whether a negator before `start` in the clause scopes over it: none of the
/// words between them ends the negator's scope.
fn negated_at(clause: &[Word], negators: &[usize], start: usize) -> bool {
    negators.iter().any(|&n| {
        n < start
            && !clause
                .get(n + 1..start)
                .unwrap_or_default()
                .iter()
                .any(|w| WordClass::ScopeEnds.has(w))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_yes_is_a_yes_to_the_records_its_answer_names() {
        let summary =
            "To confirm: cancel #W9300146 and #W4597054, reason no longer needed. Proceed?";
        let given = |reply: &str, key: &str| {
            let turns = [
                Turn::new(1, Role::Agent, summary),
                Turn::new(2, Role::User, reply),
            ];
            consent(&turns, &[key, "cancel"]).is_given()
        };
        assert!(!given("Yes, cancel W4597054.", "#W9300146"));
        assert!(given("Yes, cancel W4597054.", "#W4597054"));
        assert!(!given("Yes. Cancel #W4597054 only.", "#W9300146"));
        assert!(given("Yes, cancel both.", "#W9300146"));
        assert!(given("Yes, cancel #W9300146 and #W4597054.", "#W9300146"));
        // A record named in another request the user moves on to is not
        // part of the answer.
        assert!(given(
            "Yes, please proceed with both. Also, I need the tracking number for #W4597054.",
            "#W9300146"
        ));
    }

    #[test]
    fn a_request_ending_in_another_question_takes_only_a_yes_naming_the_action() {
        let summary = "To confirm: cancel order #W9300146, reason no longer needed. \
                       Also, would you like a 10% discount code for your next purchase?";
        let given = |reply: &str| {
            let turns = [
                Turn::new(1, Role::Agent, summary),
                Turn::new(2, Role::User, reply),
            ];
            consent(&turns, &["#W9300146", "cancel"]).is_given()
        };
        assert!(!given("Yes!"));
        assert!(!given("Sure, go ahead."));
        assert!(given("Yes, please cancel it."));
        assert!(given("Yes, please proceed."));
        let mut asked = AskedWords::default();
        let cues = turn_cues(Role::Agent, summary, &mut asked);
        assert!(cues.asks_decision);
        assert!(!turn_cues(Role::User, "Yes!", &mut asked).affirms);
        assert!(turn_cues(Role::User, "Yes, cancel it.", &mut asked).affirms);
    }

    #[test]
    fn identifier_words_are_identifiers_as_turns_write_them() {
        let record = |v: &str| identifier_word(v).filter(|w| is_record_word(w));
        assert_eq!(record("#W9300146").as_deref(), Some("w9300146"));
        assert_eq!(record("W9300146").as_deref(), Some("w9300146"));
        assert_eq!(record("1008292230"), None, "an item id is no record id");
        assert_eq!(record("HAT170"), None, "nor a flight number");
        assert_eq!(identifier_word("ZFA04Y").as_deref(), Some("zfa04y"));
        assert_eq!(identifier_word("HAT170").as_deref(), Some("hat170"));
        assert_eq!(identifier_word("gift_card_7711863"), None);
        assert_eq!(identifier_word("cancel"), None);
    }

    #[test]
    fn identifiers() {
        assert!(names_identifier("cancel order #W1?"));
        assert!(names_identifier("reservation XEHM4B"));
        assert!(names_identifier("item 1008292230"));
        assert!(!names_identifier("Do you want a coffee?"));
        assert!(!names_identifier(
            "It arrives on May 5. Want a reminder for 2 pm?"
        ));
    }

    #[test]
    fn keyword_negation_scope() {
        assert_eq!(count_asserted("I ordered it by mistake", "by mistake"), 1);
        assert_eq!(
            count_asserted("It's not a mistake and I still need it", "mistake"),
            0
        );
        assert_eq!(
            count_asserted("It's not urgent, and it was a mistake", "mistake"),
            1
        );
        assert_eq!(count_asserted("not this, but a mistake", "mistake"), 1);
        assert_eq!(count_asserted("I don't need it anymore", "don't need"), 1);
        assert_eq!(count_asserted("I don't need to cancel it", "don't need"), 0);
        assert_eq!(count_asserted("I don't need to cancel it", "cancel"), 0);
        assert_eq!(count_asserted("Cancel it. Cancel both!", "cancel"), 2);
        assert_eq!(count_asserted("anything", ""), 0);
    }

    fn t(i: u32, role: Role, text: &str) -> Turn {
        Turn::new(i, role, text)
    }

    #[test]
    fn consent_windows() {
        let ask = "To confirm: cancel order #W9300146. Shall I proceed?";
        let given = |c: Consent| c.is_given();
        assert!(given(consent(
            &[t(1, Role::Agent, ask), t(2, Role::User, "Yes.")],
            &["W9300146"]
        )));
        // A yes to a later unrelated question.
        assert!(!given(consent(
            &[
                t(1, Role::Agent, ask),
                t(2, Role::User, "Hmm."),
                t(3, Role::Agent, "Do you want a coffee?"),
                t(4, Role::User, "Yes."),
            ],
            &[]
        )));
        // Withdrawn.
        assert!(!given(consent(
            &[
                t(1, Role::Agent, ask),
                t(2, Role::User, "Yes."),
                t(3, Role::User, "Wait, no!"),
            ],
            &[]
        )));
        // A neutral question afterwards keeps it.
        assert_eq!(
            consent(
                &[
                    t(1, Role::Agent, ask),
                    t(2, Role::User, "Yes."),
                    t(3, Role::User, "How long will it take?"),
                ],
                &[]
            ),
            Consent::Given {
                summary_event: 1,
                evidence_event: 2
            }
        );
        // A new request for an action after the yes is a correction.
        assert!(!given(consent(
            &[
                t(1, Role::Agent, ask),
                t(2, Role::User, "Yes."),
                t(3, Role::Agent, "Our policy does not allow that."),
                t(4, Role::User, "I see. Could you cancel the other order?"),
            ],
            &[]
        )));
        assert!(matches!(consent(&[], &[]), Consent::NotGiven { .. }));
    }

    /// A negation or retention naming only orders no request for a decision
    /// named is about those orders; one naming an order asked about, or
    /// none, still takes the yes back — also after a later agent question.
    #[test]
    fn qualifiers_about_orders_never_asked_about_do_not_take_the_yes_back() {
        let ask = "To confirm: cancel order #W3289292, reason no longer needed. Shall I proceed?";
        let keys = ["W3289292"];
        let given = |turns: &[Turn]| consent(turns, &keys).is_given();
        for reply in [
            "Yes, please cancel #W3289292. Leave the other two orders (#W9154975 and #W7284266) unchanged.",
            "Yes, go ahead. I do not want to cancel #W9154975.",
            "Yes, proceed. Keep #W7284266 as is.",
        ] {
            assert!(
                given(&[t(1, Role::Agent, ask), t(2, Role::User, reply)]),
                "{reply}"
            );
        }
        for reply in [
            "Yes. Leave #W3289292 as is.",
            "Yes, go ahead. I do not want to cancel #W3289292 or #W9154975.",
            "Yes, go ahead. Keep it.",
            "Yes. Don't cancel the order #W9154975, or this one.",
        ] {
            assert!(
                !given(&[t(1, Role::Agent, ask), t(2, Role::User, reply)]),
                "{reply}"
            );
        }
        // After a later question that names no order, a no to the order
        // asked about earlier still takes the yes back.
        assert!(!given(&[
            t(1, Role::Agent, ask),
            t(2, Role::User, "Yes."),
            t(3, Role::Agent, "Would you like anything else?"),
            t(4, Role::User, "Do not cancel #W3289292!"),
        ]));
        // A yes to cancelling one order never covers another one the user
        // keeps: the other order's own summary is what its write needs.
        let both = "Shall I cancel #W3289292 and #W9154975?";
        assert!(
            !consent(
                &[
                    t(1, Role::Agent, both),
                    t(2, Role::User, "Yes, cancel #W3289292. Keep #W9154975."),
                ],
                &["W9154975"],
            )
            .is_given()
        );
    }
}
