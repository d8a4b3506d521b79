//! Pure, deterministic text functions for deciding dialogue predicates by
//! code: how a user reply answers a request for a decision
//! ([`reply_stance`]), whether a turn mentions an argument value
//! ([`names_value`]), whether the user consented to an action
//! ([`consent`]), and whether a keyword is asserted rather than negated
//! ([`count_asserted`]). The offline judge is built on them; the engine may
//! call them directly.
//!
//! # English here, the domain in its bundle
//!
//! The words below are English: yes, no, negation, hedges, withdrawals,
//! question shapes. A domain's words — how its users name its actions
//! ("cancel", "refill", "wipe") and its records ("order", "laptop"), its
//! actions' nouns and past forms, the phrases naming a record's state —
//! come from its bundle ([`DomainWords`]), compiled once into a
//! [`Lexicon`] that tags each word of a [`Turn`] as the turn is tokenized
//! ([`Turn::with_lexicon`]). Where the rule below says "an action word", "a
//! go-ahead naming an action" ("please cancel") or "a word for the action's
//! object", it means the domain's; a turn read without a lexicon knows none.
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
//!    yes please, please confirm/continue/process/make/submit/apply*, and
//!    the domain's: *please cancel*);
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
//!    after, provided, assuming, before, as long as, in case, depends,
//!    subject to, contingent on, depending on*, or a clause opening with
//!    *pending*; not
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
//!    wait, should wait, nvm, strike that, disregard, ignore that*,
//!    deferring to someone — *check with, ask my, talk to my, consult, run
//!    it by* —, disowning the yes — *did not mean it, was not me, typed
//!    that, answered for me* —, or a clause opening with *wait, stop, hold
//!    on, hang on*), or
//!    **sarcasm** (*when pigs fly, yeah right, oh sure, as if, in your
//!    dreams, over my dead body, joking, kidding, psych, not really, lol*,
//!    `/s`, an eye-roll emoji);
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
//! unless a negation in words naming the action comes before it ("I don't
//! want it cancelled, but go ahead" stays qualified). A clause conceding a
//! case ("even if you can't give the date") negates nothing; *not just /
//! not only* adds; *provided* after an auxiliary or subject is a verb. An
//! instruction to stop or pause in a sentence opening with *if / unless /
//! in case / should* is a contingency: a condition, not a withdrawal. A
//! question offering the agent anything more it needs from the user ("Is
//! there anything else you need from me before you submit it?") asks for
//! information after any yes. A sentence after the yes opening with a
//! clause placed after the action ("Once that's applied, I need …") starts
//! the user's next request, where a negation inside a condition or a
//! refusal bearing on nothing of the action is that request's. In a conversation ([`consent`],
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
//! After a request for a decision, once a turn names **another record of
//! a kind it named** (a record id as people write it: letters, an optional
//! hyphen, four or more digits — "Is LT-4480 the old ThinkPad?" after
//! "Shall I wipe LT-4471?"), a yes naming none of the request's records
//! ("yes, wipe it") cannot be placed: it qualifies, and the agent must ask
//! again ([`AskedWords`]).
//! Actions are picked the same way, but only by "yes to …" ("Yes to the
//! transfer" to "Shall I refill RX-20417 and transfer RX-20533?" confirms
//! no refill: [`TurnCues::answer_actions`]); elsewhere in a reply an
//! action's verb may describe a detail of the one asked about. Two words
//! of one action's bundle words ("change", "update") name the same action
//! ([`Lexicon::action_bits`]; the extractor reads a guard's action word as
//! named by the others).
//!
//! A request for a decision may be a **question asking which of the things
//! it lays out to act on** ("Which one was in the phone case? I'll freeze
//! it."; [`TurnCues::picks_one`]): a turn naming one of the domain's
//! actions with a sentence asking to pick one of them (*which one, which
//! of, which would you …, either one, pick one*, or *which* before a word
//! for the domain's records in its last asking sentence), unless a later
//! question names a record or all of them. Its last question is the
//! request, not something else (below), and a yes answers it only if it
//! picks: it names an identifier or number, a place (*first*, *the
//! latter*, *both*, "A."), or another word the request used ("figma");
//! "yes please wipe it" picks none and qualifies.
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
//! want, yes, is that correct, …*, or a question ending with a tag: "…,
//! OK?", "sound good?", "is that okay?") and names every key value
//! ([`names_value`]). Without key values, the summary is the latest such
//! turn that names some identifier (a token mixing letters and digits, a
//! `#`-prefixed token, a number of five or more digits, or a capitalised
//! code such as `XEHM4B`), so "Do you want a coffee?" is never a summary.
//! A summary proposes doing the action, as its asking sentences propose
//! it: a turn naming it there only after a declining word in its clause
//! (*hold off on, wait, skip, keep, leave, instead of, rather than, not,
//! without*) or in a clause keeping things as they are (*on hold, as it
//! is*), naming it only as the step waiting on the question (*before I file
//! it, can you confirm …?*), asking only to keep things as they are while a
//! statement describes the action, or offering keeping after an *or*, names
//! it as what not to do, and is no summary of it ([`TurnCues::declined`]).
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
mod choice;
mod domain;
mod inflect;
mod lexicon;
mod ownership;
mod stance;
mod structured;
mod tokens;
mod value;
mod vocabulary;

pub use ownership::{Disowning, asks_ownership};
#[cfg(test)]
pub(crate) mod test_words {
    //! The tau2 bundles' words, for the unit tests written against them.
    use std::sync::{Arc, LazyLock};

    use super::{ActionWords, DomainWords, HandOverWords, Lexicon};

    include!("../../tests/support/tau2_words.rs");

    static TAU2: LazyLock<Arc<Lexicon>> = LazyLock::new(|| Arc::new(Lexicon::new(&tau2_words())));

    /// The lexicon of the tau2 bundles.
    pub(crate) fn tau2() -> Arc<Lexicon> {
        TAU2.clone()
    }
}

use std::borrow::Cow;
use std::sync::Arc;

use crate::types::{Role, Turn};

use asked::{identifiers_in, is_alias_number, is_identifier, record_ids_in};
use lexicon::{
    ACTION_OBJECT_WINDOW, ALL_OF_THEM, ASKED_ANSWER_VERBS, KEPT_NOUN_COMPLEMENTS,
    KEPT_OBJECT_FILLERS, KEPT_SPAN_ENDS, LEAVE_ADJECTIVES, LEAVE_MODALS, NOT_A_VERB,
    PHRASAL_PARTICLES, PLAN_VERBS, VERB_SLOT_CUES,
};
use stance::{Markers, is_action_word, negator_positions, quotes_nothing, without_quoted_mentions};
pub(crate) use tokens::{Sentence, sentences, sentences_in};
use tokens::{flat_tokens, phrase_positions, words};
use value::{asks_to_pick_one, is_picking_word, value_tokens};
use vocabulary::{PhraseClass, WordClass};

pub use asked::{AskedWords, identifier_word, is_record_word, names_other_records};
pub use choice::{Alternative, Pick, alternative_to};
pub(crate) use domain::DomainClass;
pub use domain::{ActionWords, DomainWords, HandOverWords, Lexicon};
pub use inflect::{inflections, plurals};
pub use stance::{Stance, reply_stance, reply_stance_in};
pub use structured::readable_text;
pub use tokens::{Word, asking_action_sentences, labelled_values, puts_forward};
pub use value::{
    Lookup, MAX_SEGMENTS, ReadTurn, ReadValue, TokenSegments, ValueToken, amount_of,
    is_answer_word, names_value,
};

/// What the consent rule ([`consent`]) needs to know about one turn, read by
/// code once so an evaluator can apply the rule to any key values later
/// (the check language's `confirmed(...)`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct TurnCues {
    /// An agent turn asking for a decision ([`asks_for_decision`]): a
    /// summary when it also names every key value.
    pub asks_decision: bool,
    /// An agent turn asks which of the things it lays out to act on
    /// ("Which one should I freeze?"): a reply picking none of them picks
    /// none, whatever else it says.
    pub picks_one: bool,
    /// An agent turn asking anything: after a summary it closes the window
    /// in which a yes answers the summary.
    pub asks_anything: bool,
    /// How a user turn answers the request for a decision.
    pub reply: Reply,
    /// A user turn holding a yes, outright, weak or hedged ("Yes, but …",
    /// "I guess so"): a [`Reply::Qualifies`] without one ("I did that, but
    /// it still fails") agrees to nothing.
    pub agrees: bool,
    /// A user turn naming a state-changing action without a yes: after a
    /// yes, a correction the agent must summarise again.
    pub corrects: bool,
    /// A user turn that corrects what the user said before to an explicit
    /// yes ("No — sorry, misread. Yes, go ahead"; "sorry, wrong button, I
    /// meant yes"): it takes back the refusals, withdrawals and
    /// qualifications of the request before it.
    pub retracts: bool,
    /// The identifiers a user turn's answer names (its sentences before it
    /// moves on to another request), as turns write them (`w9300146`,
    /// `zfa04y`): a yes naming some of a summary's records is a yes to
    /// those only ([`names_other_records`]).
    pub answer_records: Vec<String>,
    /// The actions a user's yes is restricted to, by the stem of their
    /// words ([`TurnCues::answers_action`]): "Yes to the transfer" to a
    /// refill and a transfer is a yes to the transfer only.
    pub answer_actions: Vec<String>,
    /// The same actions, a bit per action ([`Lexicon::action_bits`]): "Yes
    /// to the erase" picks every word of the action "erase" is one of.
    pub answer_action_bits: u16,
    /// The identifiers a user turn holds back, each with whether it
    /// refuses them outright: a sentence refusing, keeping, deferring or
    /// conditioning another of the records the reply addresses ("Yes,
    /// cancel #W1. Keep #W2 as is."), whose markers are that record's
    /// alone. A call carrying one has no yes in this turn (a refusal, if
    /// refused).
    pub held_back: Vec<(String, bool)>,
    /// The things the latest request for a decision laid out side by side
    /// ("access to jira and confluence") that a user turn's yes answers one
    /// by one ("jira: yes"), each as the word naming it: the yes is given
    /// item by item, and covers only a call carrying a value that word
    /// names ([`TurnCues::names_item`]).
    pub answer_items: Vec<String>,
    /// Those things the turn holds back, as [`TurnCues::held_back`] holds
    /// back records ("confluence: no"), each with whether it refuses them.
    pub held_back_items: Vec<(String, bool)>,
    /// The actions an agent turn asking for a decision names only as what
    /// not to do, or what to do something else instead of ("hold off on
    /// wiping", "instead of refilling"), by the stem of their words
    /// ([`TurnCues::declines`]): the turn proposes none of them.
    pub declined: Vec<String>,
    /// What an agent turn asking for a decision says stays as it is, each
    /// as the words naming it ("LT-7734 stays as it is", "no change to
    /// PX-9915"): a value named there is no subject of the
    /// action proposed ([`TurnCues::keeps`]).
    pub kept: Vec<Vec<Word>>,
    /// The words of an agent turn's request sentence, when one sentence
    /// asks (a question, or a sentence holding a request cue: "Shall I
    /// freeze the card ending 6610?"), as turns are read: a record the turn
    /// names only outside it, beside another of its kind it names, is
    /// context, not what the turn proposes ([`TurnCues::proposes`]).
    pub proposal: Vec<Word>,
    /// The things an agent turn asking for a decision lays out in its
    /// statements but leaves out of its question, which lays out others of
    /// them ("You have Jira, Confluence and Bitbucket. Shall I grant Jira
    /// and Confluence?"), each as the word naming it: a value one of them
    /// names is no subject of the action proposed ([`TurnCues::sets_aside`]).
    pub set_aside: Vec<Word>,
    /// The amounts (canonical, as [`value::amount_of`] gives them) an agent
    /// turn asking for a decision names in its sentences naming one of the
    /// domain's actions: a summary stating amounts for the action states
    /// them there ("I can waive $40.00 of it"), and an amount it names only
    /// elsewhere ("The fee is $45.00") describes a record, not the call.
    /// A user turn's are the amounts it gives an action it names ("yes,
    /// refund the $35 please"): a call for another amount is not the one
    /// it agreed to.
    pub action_amounts: Vec<ValueToken>,
}

impl TurnCues {
    /// Whether the request sentences of an agent turn name `value` (its
    /// words in a row, as turns are normalised).
    #[must_use]
    pub fn proposes(&self, value: &str) -> bool {
        let wanted = words(&tokens::normalise(value));
        !wanted.is_empty()
            && self
                .proposal
                .windows(wanted.len())
                .any(|window| window == wanted.as_slice())
    }

    /// Whether one of the things the turn set aside
    /// ([`TurnCues::set_aside`]) names the value read as `value`.
    #[must_use]
    pub fn sets_aside(&self, value: &value::ReadValue) -> bool {
        TurnCues::names_item(self.set_aside.iter().map(Word::as_str), value)
    }

    /// Whether the turn names `value` (any case) only as what stays as it
    /// is ([`TurnCues::kept`]): its words in a row inside one such span.
    #[must_use]
    pub fn keeps(&self, value: &str) -> bool {
        TurnCues::spans_keep(&self.kept, value)
    }

    /// Whether one of the spans a turn kept ([`TurnCues::kept`]) names
    /// `value` (any case): its words in a row inside the span.
    #[must_use]
    pub fn spans_keep(kept: &[Vec<Word>], value: &str) -> bool {
        if kept.is_empty() {
            return false;
        }
        let wanted = words(&tokens::normalise(value));
        !wanted.is_empty()
            && kept.iter().any(|span| {
                span.windows(wanted.len())
                    .any(|window| window == wanted.as_slice())
            })
    }

    /// Whether one of `items` ([`TurnCues::answer_items`],
    /// [`TurnCues::held_back_items`]) names the value read as `value`: it is
    /// one of the value's words ("hobbit" of "The Hobbit").
    #[must_use]
    pub fn names_item<'i>(
        items: impl IntoIterator<Item = &'i str>,
        value: &value::ReadValue,
    ) -> bool {
        let mut items = items.into_iter().peekable();
        items.peek().is_some() && items.any(|item| value.word_list().any(|w| w == item))
    }

    /// Whether the turn names the action `word` (a value, any case) only as
    /// what not to do: no proposal of it counts.
    #[must_use]
    pub fn declines(&self, word: &str) -> bool {
        declines_action(&self.declined, word)
    }

    /// Whether a user turn's answer names the action `word` (a value, any
    /// case), in any of its forms.
    #[must_use]
    pub fn answers_action(&self, word: &str) -> bool {
        declines_action(&self.answer_actions, word)
    }
}

/// Whether `word` (a value, any case) is one of the `declined` actions of
/// an agent turn ([`TurnCues::declined`]).
#[must_use]
pub fn declines_action(declined: &[String], word: &str) -> bool {
    !declined.is_empty() && declined.contains(&action_stem(&word.to_lowercase()))
}

/// The stem by which the forms of one action word are grouped: its first
/// [`domain::FORM_STEM`] letters ("cance" of "cancel" and "cancelling").
fn action_stem(word: &str) -> String {
    word.chars().take(domain::FORM_STEM).collect()
}

/// What an agent turn asking for a decision proposes, read from its asking
/// sentences ([`read_proposal`]).
#[derive(Debug, Default)]
struct Proposal {
    /// The actions (by [`action_stem`]) it names only as what not to do.
    declined: Vec<String>,
    /// Every asking sentence proposes only keeping things as they are or
    /// waiting: the turn proposes no action, whatever words its statements
    /// use for one ("I could take the limit to $16,000. Should I keep it as
    /// it is for now?"), so it asks for no decision on any.
    keeps_only: bool,
    /// A question offers, after an *or*, keeping things as they are
    /// instead of the action ("Shall I cancel it, or leave it as it is?"):
    /// a bare yes picks neither option, a reply naming the action or going
    /// ahead picks it ([`picks_the_action`]).
    yes_picks_neither: bool,
}

/// What an agent turn proposes ([`Proposal`]): the actions (by
/// [`action_stem`]) it names only as what not to do, and whether it
/// proposes only keeping things as they are. A turn proposes what its asking sentences (a question, or a sentence
/// holding a request cue) propose:
/// - an action an asking sentence names after a declining word in its
///   clause ("hold off on wiping", "rather than revoke it", "don't
///   transfer", "without the wipe": no scope-ending word such as "and",
///   "or", "but" in between), or in a clause that keeps things as they are
///   ("put the cancellation on hold"), is declined, though a statement of
///   the turn describes it ("I can cancel it. Should I wait until tomorrow
///   before cancelling?");
/// - an action an asking sentence without a go-ahead names in a clause
///   opening with *before* or *prior* is the step waiting on the question,
///   not what it proposes ("Before I file it, can you confirm the email on
///   the account is …?");
/// - a statement's word for that waiting action (or for any action, when
///   the clause names it by an anaphor: "Before I do that, …?"), which the
///   asking sentences propose by no word of theirs, is declined with it
///   (one action's words: the bits of `DomainTags::actions`);
/// - when every asking sentence proposes only keeping things as they are
///   or waiting (a [`PhraseClass::Keeping`] word or a keeping clause, no
///   action word it does not decline, no go-ahead: "Upgrading would cost
///   £8.90. Do you want to keep it at standard instead?"), the actions its
///   statements describe are declined too;
/// - when a clause of an asking sentence offers, after an *or*, keeping
///   things as they are and no action ("Shall I cancel it, or would you
///   rather I leave it?", "…, or just keep it on its current route?"), a
///   yes picks neither option: every action the turn names is declined.
fn read_proposal(sentences: &[Sentence]) -> Proposal {
    let mut proposed: Vec<String> = Vec::new();
    let mut declined: Vec<String> = Vec::new();
    // The actions (a bit each) some asking sentence names as the step
    // waiting on it, and those one proposes.
    let (mut waiting_bits, mut proposed_bits) = (0u16, 0u16);
    let mut described: Vec<(String, u16)> = Vec::new();
    let mut asking = 0;
    let mut keeping_only = 0;
    let mut either_or = false;
    let mut yes_picks_neither = false;
    let mut waits_for_described = false;
    let push = |list: &mut Vec<String>, stem: String| {
        if !list.contains(&stem) {
            list.push(stem);
        }
    };
    for sentence in sentences {
        let asks = sentence.question || PhraseClass::AskCues.any_in(sentence.words());
        let go_ahead = asks && PhraseClass::GoAhead.any_in(sentence.words());
        let mut proposes_action = false;
        for clause in sentence.clauses() {
            let keeps = asks && PhraseClass::DecliningClause.any_in(clause);
            // "Before I file it, can you confirm …?": the step waiting on
            // the question, not what it proposes.
            let waits = asks
                && !go_ahead
                && clause
                    .first()
                    .is_some_and(|w| WordClass::WaitingHeads.has(w));
            let declining: Vec<(usize, usize)> = if asks {
                PhraseClass::Declining
                    .matches(clause)
                    .map(|(at, p)| (at, at + p.len()))
                    .collect()
            } else {
                Vec::new()
            };
            let decliners: Vec<usize> = declining.iter().map(|&(_, end)| end).collect();
            // "Before I do that, …?": the action the statements describe
            // waits, named by an anaphor.
            if waits
                && !clause.iter().any(is_action_word)
                && clause.iter().any(|w| WordClass::ActionAnaphors.has(w))
            {
                waits_for_described = true;
            }
            for (at, word) in clause.iter().enumerate() {
                // A word of a declining phrase is no action's ("hold off"
                // where *hold* is one).
                if !is_action_word(word)
                    || declining
                        .iter()
                        .any(|&(start, end)| (start..end).contains(&at))
                {
                    continue;
                }
                if asks && reports_done(clause, at) {
                    continue;
                }
                let stem = action_stem(word);
                let bits = word.tags().actions();
                if !asks {
                    if !described.iter().any(|(s, _)| *s == stem) {
                        described.push((stem, bits));
                    }
                    continue;
                }
                let declines = keeps
                    || waits
                    || decliners.iter().any(|&from| {
                        from <= at
                            && !clause
                                .get(from..at)
                                .unwrap_or_default()
                                .iter()
                                .any(|w| WordClass::ScopeEnds.has(w))
                    });
                if declines {
                    if waits {
                        waiting_bits |= bits;
                    }
                    push(&mut declined, stem);
                } else {
                    proposes_action = true;
                    proposed_bits |= bits;
                    push(&mut proposed, stem);
                }
            }
        }
        if !asks {
            continue;
        }
        let words = sentence.words();
        asking += 1;
        if !proposes_action && !go_ahead && proposes_keeping(words) {
            keeping_only += 1;
        }
        let offers_keeping = sentence.clauses().any(|clause| {
            clause
                .iter()
                .enumerate()
                .any(|(at, w)| w == "or" && clause.get(at + 1..).is_some_and(offers_waiting))
        });
        either_or |= offers_keeping;
        // "Reply YES to confirm or NO to keep the order": the yes is the
        // action's option.
        yes_picks_neither |= offers_keeping && !words.iter().any(|w| w == "yes");
    }
    let described = described.into_iter();
    if either_or {
        // Keeping things as they are is the other option: the action is
        // proposed, for the reply to pick.
        declined.retain(|stem| !proposed.contains(stem));
        return Proposal {
            declined,
            keeps_only: false,
            yes_picks_neither,
        };
    }
    let keeping = asking > 0 && keeping_only == asking;
    // A statement's word for an action the questions name as the step
    // waiting on them, and propose by no word, is declined with it ("I can
    // file the claim. Before I file it, …?" declines *claim* too).
    for (stem, bits) in described {
        let waits = waits_for_described || bits & waiting_bits != 0;
        if keeping || (waits && bits & proposed_bits == 0) {
            push(&mut declined, stem);
        }
    }
    declined.retain(|stem| !proposed.contains(stem));
    Proposal {
        declined,
        keeps_only: keeping,
        yes_picks_neither: false,
    }
}

/// Whether the option after an *or* keeps things as they are or waits
/// instead of the action: it proposes keeping, naming an action only as the
/// state kept ("…, or keep it frozen until tomorrow?"), or puts the action
/// off: it opens with a word of time or ends with one of deferral ("…, or
/// after your next pickup?", "…, or check the app together first?").
fn offers_waiting(option: &[Word]) -> bool {
    let keeps = proposes_keeping(option)
        && option
            .iter()
            .all(|w| !is_action_word(w) || w.tags().has(DomainClass::Completion));
    let head = stance::skip_fillers(option);
    let defers = head
        .first()
        .is_some_and(|w| WordClass::Temporal.has(w) || WordClass::Deferrals.has(w))
        || option.last().is_some_and(|w| WordClass::Deferrals.has(w));
    keeps
        || (defers
            && !option
                .iter()
                .any(|w| is_action_word(w) && !w.tags().has(DomainClass::Completion)))
}

/// Whether the action's word at `at` in `clause` reports what was done: a
/// past form ([`DomainClass::Completion`]) in the perfect or after
/// *already* ([`WordClass::PerfectMarkers`], up to
/// [`lexicon::PERFECT_WINDOW`] words before it): "Should I leave it as is
/// while you check whether they've already cancelled it?" proposes no
/// cancellation.
fn reports_done(clause: &[Word], at: usize) -> bool {
    clause
        .get(at)
        .is_some_and(|w| w.tags().has(DomainClass::Completion))
        && clause
            .get(at.saturating_sub(lexicon::PERFECT_WINDOW)..at)
            .unwrap_or_default()
            .iter()
            .any(|w| WordClass::PerfectMarkers.has(w))
}

/// Whether `words` propose keeping things as they are, or waiting
/// ([`PhraseClass::Keeping`], or a keeping clause: "as it is", "on hold").
fn proposes_keeping(words: &[Word]) -> bool {
    PhraseClass::Keeping.any_in(words) || PhraseClass::DecliningClause.any_in(words)
}

/// How a user turn answers a request for a decision: the yes that
/// consents, or how it takes consent away (weakest first).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reply {
    /// No answer either way: a question, a remark (or not a user turn).
    #[default]
    Other,
    /// [`Stance::Affirm`], answering the action asked about.
    Affirms,
    /// A yes with a contrast, condition, hedge, retention or negation
    /// bearing on the action; a hedge without a yes; or a yes answering
    /// something else than what was asked.
    Qualifies,
    /// A withdrawal: a yes taken back, deferred to someone else, or
    /// disowned.
    Withdraws,
    /// A refusal, a sarcastic yes, or keeping what the action would change
    /// without a yes.
    Refuses,
}

impl Reply {
    /// How the reply read into `markers` (of stance `stance`) answers: a yes
    /// is [`Reply::Affirms`] only if it `answers` the action asked about.
    fn of(stance: Stance, markers: &Markers, answers: bool) -> Reply {
        match stance {
            Stance::Affirm if answers => Reply::Affirms,
            Stance::Affirm => Reply::Other,
            _ if !stance.revokes(markers) => Reply::Other,
            // Sarcasm says no; "never mind" opens with a negator but takes
            // back.
            _ if markers.sarcasm => Reply::Refuses,
            // "Hold on, let me check." with no yes: a pause, no answer.
            _ if markers.withdrawal && (markers.takes_back || markers.says_yes()) => {
                Reply::Withdraws
            }
            _ if markers.refusal || (markers.retention && !markers.says_yes()) => Reply::Refuses,
            _ => Reply::Qualifies,
        }
    }

    /// Whether the reply takes consent away.
    #[must_use]
    pub fn revokes(self) -> bool {
        matches!(self, Reply::Qualifies | Reply::Withdraws | Reply::Refuses)
    }
}

/// The consent cues of one turn by `role` saying `text`, read with a
/// domain's `lexicon`, in a conversation whose requests for a decision so
/// far are `asked` (an agent turn asking for one is added to it).
#[must_use]
pub fn turn_cues(
    role: Role,
    text: &str,
    lexicon: &Arc<Lexicon>,
    asked: &mut AskedWords,
) -> TurnCues {
    turn_cues_of(&Turn::with_lexicon(0, role, text, lexicon.clone()), asked)
}

/// The consent cues of `turn` ([`turn_cues`]), read from its sentences
/// ([`Turn::tokenized`]): the turn is tokenized once, for its cues and for
/// every judge that reads it later.
#[must_use]
pub fn turn_cues_of(turn: &Turn, asked: &mut AskedWords) -> TurnCues {
    match turn.role {
        Role::Agent if !turn.text.trim().is_empty() => {
            let proposal = if turn_asks_decision(turn) {
                Some(read_proposal(turn.sentences()))
            } else {
                None
            };
            let asks_decision = proposal.as_ref().is_some_and(|p| !p.keeps_only);
            let picks_one = asks_which_to_act_on(turn.sentences());
            let kept = if asks_decision {
                kept_as_is(turn.sentences())
            } else {
                Vec::new()
            };
            if asks_decision {
                note_request(asked, turn, picks_one, kept.clone());
                asked.mark_latest_offers_keeping(
                    proposal.as_ref().is_some_and(|p| p.yes_picks_neither),
                );
            } else {
                asked.note_discussed(&turn.text);
                asked.note_names(&turn.text, turn.sentences());
            }
            TurnCues {
                asks_decision,
                picks_one,
                declined: proposal
                    .filter(|_| asks_decision)
                    .map(|p| p.declined)
                    .unwrap_or_default(),
                proposal: if asks_decision {
                    request_words(turn.sentences())
                } else {
                    Vec::new()
                },
                kept,
                set_aside: if asks_decision {
                    asked.set_aside().to_vec()
                } else {
                    Vec::new()
                },
                action_amounts: if asks_decision {
                    tokens::action_amounts(&turn.text, turn.lexicon())
                } else {
                    Vec::new()
                },
                // `asks_anything` without tokenizing the turn a second time.
                asks_anything: asks_decision || turn.text.contains('?'),
                ..TurnCues::default()
            }
        }
        Role::User => {
            let (markers, answer) = markers_of(turn, Some(asked));
            let stance = markers.stance();
            let reply = if (stance == Stance::Affirm
                || (stance == Stance::Refuse && markers.says_yes()))
                && answer.places_nothing()
                && asked.holds_back_a_part(turn.sentences())
            {
                // "Yes to the first one, no to the second" when the reader
                // placed neither: the yes covers a part it cannot name.
                Reply::Qualifies
            } else if stance == Stance::Affirm
                && (asked.leaves_record_open(&turn.text)
                    || asked.leaves_pick_open(turn.sentences())
                    || asked.leaves_the_other_unplaced(turn.sentences())
                    || (asked.latest_offers_keeping() && !picks_the_action(turn, asked)))
            {
                Reply::Qualifies
            } else if asks_what_a_condition_brings(turn, &markers, asked) {
                Reply::Other
            } else if stance == Stance::Unknown
                && !markers.any_defeater()
                && asked.lays_out_several()
                && picks_them_all(turn.sentences())
            {
                // "All three, thanks!" to "Shall I renew these three?".
                Reply::Affirms
            } else {
                Reply::of(stance, &markers, answers_the_action(turn, asked))
            };
            asked.note_discussed(&turn.text);
            TurnCues {
                reply,
                agrees: markers.says_yes() || markers.hedge,
                corrects: stance != Stance::Affirm
                    && names_action_in(&flat_tokens(turn.sentences())),
                retracts: markers.corrects_itself && reply == Reply::Affirms,
                answer_records: answer.records,
                answer_actions: answer.actions,
                answer_action_bits: answer.action_bits,
                held_back: answer.held_back,
                answer_items: answer.items,
                held_back_items: answer.held_back_items,
                action_amounts: tokens::action_amounts(&turn.text, turn.lexicon()),
                ..TurnCues::default()
            }
        }
        Role::Agent | Role::Tool => TurnCues::default(),
    }
}

/// Whether a user turn only asks what would follow on a condition ("Will it
/// arrive tomorrow if I do that?"): every sentence a question, no yes, no
/// marker but the condition, and no action but those asked about. Such a
/// question answers nothing, so it does not qualify the request; the yes
/// after the agent's answer does. A question naming another action ("Could
/// you cancel it if that's cheaper?") proposes it, and still qualifies.
fn asks_what_a_condition_brings(turn: &Turn, markers: &Markers, asked: &AskedWords) -> bool {
    let only_condition = Markers {
        condition: true,
        question: true,
        // "What happens if I can't pick it up?": a negator inside the
        // condition is part of what is asked about.
        negation: markers.negation && negators_only_in_conditions(turn.sentences()),
        answer_sentences: markers.answer_sentences,
        ..Markers::default()
    };
    *markers == only_condition
        && turn.sentences().iter().all(|s| s.question)
        && turn
            .sentences()
            .iter()
            .flat_map(Sentence::tokens)
            .filter(|w| is_action_word(w))
            .all(|w| asked.names_action(w))
}

/// Whether a reply only picks everything the request laid out ("all three
/// please", "Both, thanks!", "all of them"): no question, and besides one
/// word for all of them ([`ALL_OF_THEM`]) only a count, *of them* and the
/// like, and politeness.
fn picks_them_all(sentences: &[Sentence]) -> bool {
    let mut all = 0;
    for sentence in sentences {
        if sentence.question {
            return false;
        }
        for word in sentence.tokens() {
            let text = word.as_str();
            if ALL_OF_THEM.contains(&text) {
                all += 1;
            } else if !(WordClass::Fillers.has(word)
                || lexicon::NUMBER_WORDS.contains(&text)
                || lexicon::WHOLE_COUNT_FILLERS.contains(&text)
                || text.bytes().all(|b| b.is_ascii_digit())
                || word.tags().has(DomainClass::RecordNoun))
            {
                return false;
            }
        }
    }
    all == 1
}

/// Whether every negator of `sentences` stands after a condition word of
/// its clause ("… if I can't pick it up"), none outside a condition.
fn negators_only_in_conditions(sentences: &[Sentence]) -> bool {
    sentences.iter().all(|sentence| {
        sentence.clauses().all(|clause| {
            let condition = PhraseClass::Conditions
                .matches(clause)
                .map(|(at, _)| at)
                .min();
            clause
                .iter()
                .enumerate()
                .all(|(at, w)| !WordClass::Negators.has(w) || condition.is_some_and(|c| c < at))
        })
    })
}

/// What a user turn's answer (its sentences before it moves on to another
/// request) names: record ids ([`TurnCues::answer_records`]) and actions
/// ([`TurnCues::answer_actions`]).
#[derive(Debug, Default)]
struct Answer {
    records: Vec<String>,
    actions: Vec<String>,
    action_bits: u16,
    /// [`TurnCues::held_back`].
    held_back: Vec<(String, bool)>,
    /// [`TurnCues::answer_items`].
    items: Vec<String>,
    /// [`TurnCues::held_back_items`].
    held_back_items: Vec<(String, bool)>,
}

impl Answer {
    /// Whether the answer placed nothing it answers or holds back: no
    /// record, item or action of its own.
    fn places_nothing(&self) -> bool {
        self.records.is_empty()
            && self.actions.is_empty()
            && self.held_back.is_empty()
            && self.items.is_empty()
            && self.held_back_items.is_empty()
    }

    /// Moves the ids of the items a request laid out
    /// ([`AskedWords::items_as_ids`]) out of the records and held-back
    /// records into the items, as the words naming them.
    fn items_apart(&mut self, asked: &AskedWords) {
        let word = |id: &str| asked.item_word(id).map(Word::to_string);
        let words = |id: &str| asked.item_words(id).into_iter().map(Word::to_string);
        self.items = self.records.iter().flat_map(|id| words(id)).collect();
        self.items.dedup();
        self.records.retain(|id| word(id).is_none());
        self.held_back_items = self
            .held_back
            .iter()
            .flat_map(|(id, refused)| words(id).map(move |word| (word, *refused)))
            .collect();
        self.held_back.retain(|(id, _)| word(id).is_none());
    }
}

/// The reply markers of a user turn, and what its answer names: from its
/// shared sentences unless it quotes something (then from its text with the
/// quotations blanked).
fn markers_of(turn: &Turn, asked: Option<&AskedWords>) -> (Markers, Answer) {
    let written = record_ids_in(&turn.text);
    let answer = |markers: Markers, read: &[Sentence]| {
        let answer = read.get(..markers.answer_sentences).unwrap_or(read);
        let held = |index: usize| stance::is_bit_set(markers.held_back, index);
        let mut named = Answer {
            items: Vec::new(),
            held_back_items: Vec::new(),
            records: answer
                .iter()
                .enumerate()
                .filter(|&(index, _)| !held(index))
                .flat_map(|(_, sentence)| sentence.clauses())
                .flat_map(|clause| identifiers_in(clause, &written))
                .collect(),
            actions: Vec::new(),
            action_bits: 0,
            held_back: read
                .iter()
                .enumerate()
                .filter(|&(index, _)| held(index))
                .flat_map(|(index, sentence)| {
                    let refused = stance::is_bit_set(markers.held_back_refused, index);
                    sentence
                        .clauses()
                        .flat_map(|clause| identifiers_in(clause, &written))
                        .map(move |id| (id, refused))
                        .collect::<Vec<_>>()
                })
                .collect(),
        };
        // A yes naming some of the records a request laid out is a yes to
        // those alone: the others are passed over, unless the answer also
        // reaches them ("both", "the other one too").
        // An item a request laid out, or a record the reply names by a name
        // and not by its id, is answered only by a sentence that says yes
        // to it ("The personal one not right now", "Yes. The levothyroxine
        // is the one I'm almost out of." answer nothing).
        // A record id the reply writes has its digits, from the first, in
        // the text as written ("rx47032" of "RX-47032").
        let written_out = |id: &str| {
            let digits = id.trim_start_matches(|c: char| c.is_ascii_alphabetic());
            if digits.bytes().all(|b| b.is_ascii_digit()) {
                return !digits.is_empty() && turn.text.contains(digits);
            }
            turn.text
                .as_bytes()
                .windows(digits.len())
                .any(|w| w.eq_ignore_ascii_case(digits.as_bytes()))
        };
        let by_name_only = |id: &String| {
            asked.is_some_and(|asked| asked.item_word(id).is_some()) || !written_out(id)
        };
        if let Some(asked) = asked
            && named.records.iter().any(by_name_only)
        {
            let said_yes: Vec<String> = answer
                .iter()
                .enumerate()
                .filter(|&(index, _)| !held(index))
                .filter(|(_, sentence)| {
                    let alone =
                        Markers::read_sentences("", std::slice::from_ref(sentence), Some(asked));
                    alone.stance() == Stance::Affirm
                })
                .flat_map(|(_, sentence)| sentence.clauses())
                .flat_map(|clause| identifiers_in(clause, &written))
                .collect();
            named
                .records
                .retain(|id| !by_name_only(id) || said_yes.contains(id));
        }
        // A name the request wrote beside a record id ("Yes, freeze the
        // Visa") answers for that record as its id would, in a sentence
        // saying yes on its own ("The Visa is the one I use most" names a
        // detail), in a reply reaching no further ("Yes, both, the Visa
        // first"; "Yes for Wolf Hall. Station Eleven too" adds the other)
        // and not naming them all (which picks none out).
        let reaches_further = |sentence: &Sentence| {
            stance::names_the_other_record(sentence)
                || sentence.tokens().any(|w| {
                    lexicon::WHOLE_SCOPE.contains(&w.as_str())
                        || lexicon::ADDING_WORDS.contains(&w.as_str())
                })
        };
        if let Some(asked) = asked
            && asked.names_records()
            && !answer
                .iter()
                .enumerate()
                .any(|(index, sentence)| !held(index) && reaches_further(sentence))
        {
            let by_name = answer
                .iter()
                .enumerate()
                .filter(|&(index, _)| !held(index))
                .map(|(_, sentence)| (sentence, asked.records_named_in(sentence)))
                .filter(|(_, records)| !records.is_empty())
                .filter(|(sentence, _)| {
                    Markers::read_sentences("", std::slice::from_ref(*sentence), Some(asked))
                        .stance()
                        == Stance::Affirm
                })
                .flat_map(|(_, records)| records)
                .collect::<Vec<String>>();
            let picked = if asked.names_every_named_record(&by_name) {
                Vec::new()
            } else {
                by_name
            };
            for record in picked {
                if !named.records.contains(&record) {
                    named.records.push(record);
                }
            }
        }
        let passed_over = match asked {
            Some(asked) if markers.stance() == Stance::Affirm => {
                asked.passed_over_by(&named.records)
            }
            _ => Vec::new(),
        };
        let reaches_the_rest = || {
            answer
                .iter()
                .enumerate()
                .filter(|&(index, _)| !held(index))
                .any(|(_, sentence)| {
                    stance::names_the_other_record(sentence)
                        || sentence
                            .tokens()
                            .any(|w| lexicon::WHOLE_SCOPE.contains(&w.as_str()))
                })
        };
        if !passed_over.is_empty() && !reaches_the_rest() {
            for id in passed_over {
                if !named.held_back.iter().any(|(held, _)| *held == id) {
                    named.held_back.push((id, false));
                }
            }
        }
        let answered = answer
            .iter()
            .enumerate()
            .filter(|&(index, _)| !held(index))
            .map(|(_, sentence)| sentence);
        for word in yes_to_actions(answered) {
            let stem = action_stem(word);
            if !named.actions.contains(&stem) {
                named.actions.push(stem);
            }
            named.action_bits |= word.tags().actions();
        }
        if let Some(asked) = asked {
            named.items_apart(asked);
        }
        // The numbers a person names a record by ("the card ending 4411"),
        // picking among those the request named so, answer for the record
        // the data read them as, which the engine knows. Only a sentence
        // saying yes on its own answers with them ("dont touch 5517" holds
        // its number back, read or not).
        let numbers = answer
            .iter()
            .enumerate()
            .filter(|&(index, _)| !held(index))
            .filter(|(_, sentence)| sentence.words().iter().any(|w| is_alias_number(w)))
            .filter(|(_, sentence)| {
                Markers::read_sentences("", std::slice::from_ref(sentence), asked).stance()
                    == Stance::Affirm
            })
            .flat_map(|(_, sentence)| sentence.words())
            .filter(|w| is_alias_number(w) && asked.is_some_and(|asked| asked.picks_by_number(w)))
            .map(Word::to_string);
        for number in numbers {
            if !named.records.contains(&number) {
                named.records.push(number);
            }
        }
        (markers, named)
    };
    // A reply correcting itself to a yes is read from that yes on.
    let read_reply = |read: &[Sentence]| {
        let whole = Markers::read_sentences(&turn.text, read, asked);
        match stance::corrected_to_yes(&turn.text, read, asked) {
            Some(_) if whole.stance() == Stance::Affirm => Markers {
                corrects_itself: true,
                ..whole
            },
            Some(corrected) => corrected,
            None => whole,
        }
    };
    let read_from = |sentences: &[Sentence]| {
        let read = stance::item_parts(sentences, asked);
        answer(read_reply(&read), &read)
    };
    // The items a request laid out are read as records ("jira: yes /
    // confluence: no"); that reading stands only where it holds an item
    // back, as a cut record by record does ([`stance::item_parts`]).
    let by_items = |sentences: &[Sentence]| {
        let joined = asked.map(|a| a.ids_joined(sentences));
        let sentences: &[Sentence] = joined.as_deref().unwrap_or(sentences);
        // A thing the request wrote with its record id, held back by its
        // name ("Water bottle: let's hold off"), is held back as that record.
        // That reading stands only where a sentence holds a record back and
        // the rest says yes: a name the request did not pair with an id
        // ("The HP, yes" of "HP ProBook 450 (LT-5120)") leaves a yes unplaced.
        if let Some(Cow::Owned(named)) = asked.map(|a| a.names_as_records(sentences))
            && stance::holds_back_a_record(&named, asked)
        {
            let read = read_from(&named);
            if read.0.held_back != 0 && read.0.stance() == Stance::Affirm {
                return read;
            }
        }
        if let Some(Cow::Owned(itemised)) = asked.map(|a| a.items_as_ids(sentences)) {
            let read = read_from(&itemised);
            if !read.1.held_back_items.is_empty() || !read.1.held_back.is_empty() {
                return read;
            }
        }
        read_from(sentences)
    };
    // "Renew The Hobbit.": an order naming what was asked, in a reply that
    // says no yes, is read as the yes it stands for.
    let read_all = |sentences: &[Sentence]| {
        let read = by_items(sentences);
        if read.0.says_yes() {
            return read;
        }
        // "just LN-12": a pick among what was asked, the yes it stands for.
        let said = asked.and_then(|asked| {
            stance::ordered_as_yes(sentences, asked)
                .or_else(|| stance::picked_as_yes(sentences, asked))
                .or_else(|| stance::picked_option_as_yes(sentences, asked))
        });
        match said {
            Some(said) => by_items(&said),
            None => read,
        }
    };
    if quotes_nothing(&turn.text) {
        read_all(&stance::yes_apart_from_question(turn.sentences()))
    } else {
        read_all(&stance::yes_apart_from_question(&sentences_in(
            &without_quoted_mentions(&turn.text),
            turn.lexicon(),
        )))
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
    asks_decision_of(&sentences(text))
}

/// Whether a turn asks the user to decide something ([`asks_decision_of`]
/// of its sentences, read once).
fn turn_asks_decision(turn: &Turn) -> bool {
    asks_decision_of(turn.sentences())
}

/// What sentences say stays as it is, each as the words naming it: the
/// words before a [`PhraseClass::KeptAfter`] phrase ("LT-7734 stays as it
/// is", "Jira remains untouched") back to the clause's start, its last
/// action word or a [`KEPT_SPAN_ENDS`] word ("I'll wipe LT-7720 and
/// LT-7734 stays": LT-7734 only; the clause before, when the phrase opens
/// its own: "Your other card, ending 8133, stays active"), and the words
/// after a
/// [`PhraseClass::KeptBefore`] one ("no change to PX-9915", "leave LT-4480
/// as it is") up to the next action word or such word. What a question of
/// the turn names is proposed, not kept: "I downgraded all but JG7FMM.
/// Shall I downgrade JG7FMM?" keeps nothing.
fn kept_as_is(sentences: &[Sentence]) -> Vec<Vec<Word>> {
    let ends = |w: &Word| is_action_word(w) || KEPT_SPAN_ENDS.contains(&w.as_str());
    // Each span with whether a question of the turn keeps it.
    let mut kept: Vec<(Vec<Word>, bool)> = Vec::new();
    for sentence in sentences {
        let mut previous: &[Word] = &[];
        // The clause before `previous`, when `previous` is bracketed.
        let mut headed: &[Word] = &[];
        for (index, clause) in sentence.clauses().enumerate() {
            for (at, phrase) in PhraseClass::KeptAfter.matches(clause) {
                if names_a_record(clause, at, phrase.len()) {
                    continue;
                }
                // A phrase opening its clause keeps the clause before it:
                // "Your other prescription, RX-71104, stays here"; and a
                // bracketed clause there describes the one before it,
                // which it keeps too: "Ticket TK-90312 (seat D4) stays".
                let before = match clause.get(..at).unwrap_or_default() {
                    [] => previous,
                    before => before,
                };
                let start = subjects_start(before, ends);
                let mut span = before.get(start..).unwrap_or_default().to_vec();
                if at == 0 && !headed.is_empty() {
                    let head = headed
                        .get(subjects_start(headed, ends)..)
                        .unwrap_or_default();
                    span.splice(0..0, head.iter().cloned());
                }
                if !span.is_empty() {
                    kept.push((span, sentence.question));
                }
            }
            for (at, phrase) in PhraseClass::KeptBefore.matches(clause) {
                let after = clause.get(at + phrase.len()..).unwrap_or_default();
                let end = after.iter().position(ends).unwrap_or(after.len());
                let span = after.get(..end).unwrap_or_default();
                if !span.is_empty() {
                    kept.push((span.to_vec(), sentence.question));
                }
            }
            headed = if sentence.is_bracketed(index) {
                previous
            } else {
                &[]
            };
            previous = clause;
        }
    }
    if kept.iter().all(|(_, asked)| *asked) {
        return kept.into_iter().map(|(span, _)| span).collect();
    }
    let proposed: Vec<&Word> = sentences
        .iter()
        .filter(|s| s.question)
        .flat_map(Sentence::tokens)
        .filter(|w| !kept.iter().any(|(span, asked)| *asked && span.contains(w)))
        .collect();
    kept.into_iter()
        .filter(|(span, asked)| {
            *asked
                || !span
                    .iter()
                    .filter(|w| !KEPT_OBJECT_FILLERS.contains(&w.as_str()))
                    .all(|w| proposed.contains(&w))
        })
        .map(|(span, _)| span)
        .collect()
}

/// Whether the one-word [`PhraseClass::KeptAfter`] phrase at `at` is the
/// domain's noun for its records rather than the verb ("your Oslo stay
/// HBL-39018" names a stay; "your Porto stay stays as it is" keeps it):
/// a record noun keeps only before what stays says about it (*as*, *the
/// same*, *unchanged*, …).
fn names_a_record(clause: &[Word], at: usize, len: usize) -> bool {
    let Some(word) = clause.get(at) else {
        return false;
    };
    len == 1
        && word.tags().has(DomainClass::RecordNoun)
        && clause
            .get(at + 1)
            .is_none_or(|next| !KEPT_NOUN_COMPLEMENTS.contains(&next.as_str()))
}

/// Where the things a [`PhraseClass::KeptAfter`] phrase keeps begin in the
/// words `before` it: after the last word `ends` takes, but over an *and*
/// joining subjects ("Shipping address and payment method will remain the
/// same": both), which is one whose words before it, back to the previous
/// end, follow no action word ("I'll wipe LT-7720 and LT-7734 stays":
/// LT-7734 only).
fn subjects_start(before: &[Word], ends: impl Fn(&Word) -> bool) -> usize {
    let mut start = before.iter().rposition(&ends).map_or(0, |i| i + 1);
    while let Some(joint) = start.checked_sub(1)
        && before.get(joint).is_some_and(|w| w == "and")
    {
        let prior = before.get(..joint).unwrap_or_default();
        let prior_start = prior.iter().rposition(&ends).map_or(0, |i| i + 1);
        let follows_action = prior_start
            .checked_sub(1)
            .and_then(|i| prior.get(i))
            .is_some_and(is_action_word);
        if prior_start == joint || follows_action {
            break;
        }
        start = prior_start;
    }
    start
}

/// The words of the one sentence of a request for a decision that asks it
/// (a question, or a sentence holding a request cue); none when several
/// do: a turn asking several things may propose each on other records.
fn request_words(sentences: &[Sentence]) -> Vec<Word> {
    let mut asking = sentences
        .iter()
        .filter(|s| s.question || sentence_asks_decision(s));
    match (asking.next(), asking.next()) {
        (Some(only), None) => without_asked_answers(only.words()),
        _ => Vec::new(),
    }
}

/// A request sentence's words but the answers it tells the user to give: a
/// *yes* or *no* after a verb of answering ("Please reply "yes" to
/// confirm", "Type YES to proceed or NO to keep it") is the reply asked
/// for, not a detail of the action, and names no record whose field reads
/// yes.
fn without_asked_answers(words: &[Word]) -> Vec<Word> {
    let Some(answering) = words
        .iter()
        .position(|w| ASKED_ANSWER_VERBS.contains(&w.as_str()))
    else {
        return words.to_vec();
    };
    words
        .iter()
        .enumerate()
        .filter(|&(at, w)| at <= answering || !matches!(w.as_str(), "yes" | "no"))
        .map(|(_, w)| w.clone())
        .collect()
}

/// Whether sentences ask the user to decide something: they hold a cue
/// ("shall I", "do you want", "please confirm", …), a tag question ("…,
/// ok?"), or a question opening with an action's word ("Hold PCL-9002 at
/// the Harbor Mall counter?", "File it now?": [`proposes_by_its_verb`]).
fn asks_decision_of(sentences: &[Sentence]) -> bool {
    // Most turns hold no statement's own yes: their words are read whole.
    let holds_cue = if sentences.iter().any(answers_with_yes) {
        let words: Vec<&Word> = sentences.iter().flat_map(asking_words).collect();
        asks_decision_in(&words)
    } else {
        asks_decision_in(&flat_tokens(sentences))
    };
    holds_cue
        || sentences
            .iter()
            .any(|s| s.question && s.clauses().last().is_some_and(is_tag_question))
        || sentences.iter().any(proposes_by_its_verb)
        || sentences.iter().any(asks_leave_to_act)
        || asks_which_to_act_on(sentences)
}

/// Whether a question asks leave to do an action of the domain: *may I*,
/// *can I*, *could I*, *OK to*, *okay to* or *alright to*, then a word for
/// the action later in the sentence ("May I place both refills?", "OK to
/// freeze card ending 4821?"). Without the action's word it asks for
/// something else ("May I have your employee id?").
fn asks_leave_to_act(sentence: &Sentence) -> bool {
    if !sentence.question {
        return false;
    }
    let words = sentence.words();
    words.windows(2).enumerate().any(|(at, pair)| {
        let leave = matches!(pair, [modal, i] if i == "i" && LEAVE_MODALS.contains(&modal.as_str()))
            || matches!(pair, [ok, to] if to == "to" && LEAVE_ADJECTIVES.contains(&ok.as_str()));
        leave
            && words
                .get(at + 2..)
                .unwrap_or_default()
                .iter()
                .any(|w| is_action_word(w) && !w.tags().has(DomainClass::Completion))
    })
}

/// Whether a turn asks the user which of the things it lays out to act on,
/// in a turn naming one of the domain's actions ("Which one was in the
/// phone case? I'll freeze it."): a sentence asks to pick one of them
/// ("which one", "pick one", "which would you like": [`asks_to_pick_one`]),
/// unless a later question names a record or proposes to act on them all
/// ("Which one will you use more? Shall I go ahead with both grants?",
/// "Which one arrived late? Shall I cancel #W1234567?": asked in passing);
/// or
/// a sentence asks which record of the domain's kinds ("Which card would
/// you like increased?") and is the turn's last asking sentence or names
/// the action itself ("Which device will you log in on? OK to go ahead
/// with the reset?" asks in passing). Picking is deciding: the user's pick
/// of one, with a yes, answers it.
fn asks_which_to_act_on(sentences: &[Sentence]) -> bool {
    let names_action = |s: &Sentence| s.words().iter().any(is_action_word);
    // Most turns hold no picking word: nothing else is read.
    let picking = |s: &Sentence| s.words().iter().any(|w| is_picking_word(w.as_str()));
    if !sentences.iter().any(picking) || !sentences.iter().any(names_action) {
        return false;
    }
    let points = sentences.iter().rposition(|s| picks_in_sentence(s, false));
    // A later question naming a record, or all of them, settles the pick.
    let by_pointing = points.is_some_and(|pick| {
        !sentences.iter().skip(pick + 1).any(|s| {
            (s.question || sentence_asks_decision(s))
                && s.words()
                    .iter()
                    .any(|w| ALL_OF_THEM.contains(&w.as_str()) || is_identifier(w))
        })
    });
    let last_asking = sentences
        .iter()
        .rposition(|s| s.question || sentence_asks_decision(s));
    by_pointing
        || sentences.iter().enumerate().any(|(at, s)| {
            picks_in_sentence(s, true) && (Some(at) == last_asking || names_action(s))
        })
}

/// Whether a sentence asks the user to pick one of the things laid out
/// ([`asks_to_pick_one`]; `by_kind`: also by a word for a record of the
/// domain naming their kind, "which card should I freeze?").
fn picks_in_sentence(sentence: &Sentence, by_kind: bool) -> bool {
    let words = sentence.words();
    asks_to_pick_one(
        |at| words.get(at).map(Word::as_str),
        |at| {
            by_kind
                && words
                    .get(at)
                    .is_some_and(|w| w.tags().has(DomainClass::RecordNoun))
        },
    )
}

/// Whether a sentence is a question opening with an action's word as the
/// domain names it (not a past form) and naming what it acts on (an
/// identifier or any token with a digit, a record noun or an anaphor): the
/// request itself with "shall I" left out ("Cancel order #W1?", "File it
/// now?"; not "Cancellation reason?").
fn proposes_by_its_verb(sentence: &Sentence) -> bool {
    let opens_with_action = |clause: &[Word]| {
        stance::skip_fillers(clause).first().is_some_and(|w| {
            w.tags().has(DomainClass::ActionName) && !w.tags().has(DomainClass::Completion)
        })
    };
    sentence.question
        && sentence.clauses().next().is_some_and(opens_with_action)
        && sentence.words().iter().any(|w| {
            w.tags().has(DomainClass::RecordNoun)
                || WordClass::ActionAnaphors.has(w)
                || WordClass::AnaphoricObjects.has(w)
                || is_identifier(w)
                || w.as_str().bytes().any(|b| b.is_ascii_digit())
        })
}

/// Whether a sentence holds a request cue ([`asks_decision_in`] of its
/// [`asking_words`]).
fn sentence_asks_decision(sentence: &Sentence) -> bool {
    if answers_with_yes(sentence) {
        asks_decision_in(&asking_words(sentence))
    } else {
        asks_decision_in(sentence.words())
    }
}

/// Whether a clause is a bare *yes* (after fillers).
fn is_bare_yes(clause: &[Word]) -> bool {
    matches!(stance::skip_fillers(clause), [only] if only == "yes")
}

/// Whether a statement holds a clause that is a bare *yes*: it answers the
/// user ("Yes, it should arrive tomorrow.", "…, so yes, it will").
fn answers_with_yes(sentence: &Sentence) -> bool {
    !sentence.question && sentence.clauses().any(is_bare_yes)
}

/// The words of a sentence that may ask for a decision: all of them, but
/// for the clauses of a statement that are a bare *yes*
/// ([`answers_with_yes`]), whose yes answers the user rather than asking
/// them ("Reply yes to confirm", "(yes/no)").
fn asking_words(sentence: &Sentence) -> Vec<&Word> {
    if sentence.question {
        return sentence.words().iter().collect();
    }
    sentence
        .clauses()
        .filter(|clause| !is_bare_yes(clause))
        .flatten()
        .collect()
}

/// [`asks_for_decision`] of a turn's word tokens.
fn asks_decision_in<T: std::borrow::Borrow<Word>>(tokens: &[T]) -> bool {
    PhraseClass::AskCues.any_in(tokens)
}

/// Whether an agent turn's last question is about something else than the
/// action, so that a bare yes answers that question:
/// - when it is the turn's only asking sentence, it names no action,
///   anaphor or decision word ([`WordClass::DecisionWords`]): "Thanks for waiting.
///   Would you like a discount code?"), or it offers a service of its own
///   on an object of its own ([`offers_service_on_its_own_object`]: "By the way, would you like to subscribe
///   to our newsletter for return updates?"); unless it asks which of the
///   things laid out the action the turn names is to act on ("Which one
///   was in the phone case? I'll freeze it": [`asks_which_to_act_on`]);
/// - when an earlier sentence asked (the turn asks two things: "Should I go
///   ahead? Also, is your manager still Karen Liu?"), it does not itself
///   ask about the action ([`asks_about_the_action`]). Whatever it asks (a
///   fact, a pick among values, "which …?"), a yes that names no action
///   may be its answer, and a pick of values answered by a yes is no
///   consent to the values the call took. An action's word inside another
///   matter ("… the best address for the cancellation notice?") or a
///   decision word in an aside ("just so I have it right: …") does not
///   make it about the action.
fn last_question_elsewhere(turn: &Turn, picks_one: bool) -> bool {
    let sentences = turn.sentences();
    let Some(last_at) = sentences.iter().rposition(|s| s.question) else {
        return false;
    };
    let (earlier, last) = sentences.split_at(last_at);
    let Some(last) = last.first() else {
        return false;
    };
    if earlier
        .iter()
        .any(|s| s.question || sentence_asks_decision(s))
    {
        !asks_about_the_action(last)
    } else {
        // A question asking which of the things laid out to act on ("Which
        // one was in the phone case? I'll freeze it.") is the request.
        // One offering a service of its own ("By the way, would you like to
        // subscribe to our newsletter for return updates?") asks about that
        // service, whatever words of the action its object holds.
        let picks_what_to_act_on = picks_one && picks_in_sentence(last, true);
        !picks_what_to_act_on
            && (offers_service_on_its_own_object(last.words())
                || !last.tokens().any(|w| {
                    is_action_word(w)
                        || WordClass::ActionAnaphors.has(w)
                        || WordClass::DecisionWords.has(w)
                }))
    }
}

/// Whether a question asks about the action: it asks for a decision
/// ([`asks_decision_of`]: a request cue, a tag, the action's word opening
/// it) and names the plan ([`names_the_plan`]), or it asks whether the plan
/// is right ([`asks_whether_plan_is_right`]).
fn asks_about_the_action(question: &Sentence) -> bool {
    let alone = std::slice::from_ref(question);
    let words = question.words();
    (asks_decision_of(alone)
        && (names_the_plan(words) || only_asks(words))
        && !offers_another_service(words))
        || proposes_by_its_verb(question)
        || question.clauses().last().is_some_and(is_tag_question)
        || question.clauses().any(asks_whether_plan_is_right)
}

/// Whether words name the plan a request is about: an action's word, a
/// word for the plan ([`WordClass::PlanWords`]), or an anaphor standing for
/// it (not *that* or *it* opening a clause of its own:
/// [`WordClass::ClauseAfterAnaphor`]).
fn names_the_plan(words: &[Word]) -> bool {
    words.iter().enumerate().any(|(at, w)| {
        is_action_word(w)
            || WordClass::PlanWords.has(w)
            || (WordClass::ActionAnaphors.has(w)
                && !words
                    .get(at + 1)
                    .is_some_and(|next| WordClass::ClauseAfterAnaphor.has(next)))
    })
}

/// Whether a question offers a service of its own: after a cue that leaves
/// the verb to it ("should I", "would you like me to", …), the verb is
/// none of the domain's actions nor a verb of carrying out a plan ("Also,
/// would you like me to email you a copy of the summary?"). A word for the
/// plan after it is that service's object, not the action.
fn offers_another_service(words: &[Word]) -> bool {
    !service_objects(words).is_empty()
}

/// The words after the verb of each service a question offers of its own
/// ([`offers_another_service`]): its object first.
fn service_objects(words: &[Word]) -> Vec<&[Word]> {
    (0..words.len())
        .filter_map(|at| {
            let rest = words.get(at..).unwrap_or_default();
            let cue = VERB_SLOT_CUES.iter().find(|cue| {
                cue.len() <= rest.len() && cue.iter().zip(rest).all(|(c, w)| w == *c)
            })?;
            let slot = stance::skip_fillers(rest.get(cue.len()..).unwrap_or_default());
            let (verb, object) = slot.split_first()?;
            if PLAN_VERBS.contains(&verb.as_str()) {
                return phrasal_object(object);
            }
            (!is_action_word(verb)
                && !NOT_A_VERB.contains(&verb.as_str())
                && verb.as_str().chars().all(char::is_alphabetic))
            .then_some(object)
        })
        .collect()
}

/// The object of its own a verb of carrying out a plan takes with a
/// particle ([`PHRASAL_PARTICLES`]): "set up email reminders for when her
/// next refill is due" offers the reminders. Only where no word of the
/// action, of the plan, or an anaphor for it stands in the
/// [`ACTION_OBJECT_WINDOW`] words after the particle: "set up the refill",
/// "set up these changes" carry out the plan.
fn phrasal_object(object: &[Word]) -> Option<&[Word]> {
    let (particle, own) = object.split_first()?;
    (PHRASAL_PARTICLES.contains(&particle.as_str()) && !own.is_empty() && !names_the_plan_near(own))
        .then_some(own)
}

/// Whether a word of the action, of the plan, or an anaphor for it stands
/// in the [`ACTION_OBJECT_WINDOW`] words of `object`.
fn names_the_plan_near(object: &[Word]) -> bool {
    object.iter().take(ACTION_OBJECT_WINDOW).any(|w| {
        is_action_word(w)
            || WordClass::PlanWords.has(w)
            || WordClass::ActionAnaphors.has(w)
            || WordClass::AnaphoricObjects.has(w)
    })
}

/// Whether a question offers a service of its own on an object of its own
/// ([`offers_another_service`]), not on the action: no word of the action,
/// of the plan, or an anaphor for it stands in the
/// [`ACTION_OBJECT_WINDOW`] words after the service's verb ("would you
/// like to subscribe to our newsletter …?", not "shall I issue this
/// refund?" or "shall I send it through?").
fn offers_service_on_its_own_object(words: &[Word]) -> bool {
    let objects = service_objects(words);
    !objects.is_empty() && objects.iter().all(|object| !names_the_plan_near(object))
}

/// Whether words are a request cue and nothing of their own ("Do you
/// confirm?", "Shall I?"): every word is a cue's ([`PhraseClass::AskCues`]),
/// a filler, an auxiliary or the speaker.
fn only_asks(words: &[Word]) -> bool {
    let mut covered = vec![false; words.len()];
    for (at, phrase) in PhraseClass::AskCues.matches(words) {
        for slot in covered.iter_mut().skip(at).take(phrase.len()) {
            *slot = true;
        }
    }
    words.iter().zip(covered).all(|(w, cue)| {
        cue || WordClass::Fillers.has(w)
            || WordClass::ModalHeads.has(w)
            || WordClass::FirstPerson.has(w)
    })
}

/// Whether a clause asks whether the plan is right: after fillers and an
/// auxiliary ([`WordClass::ModalHeads`]), it opens with the plan (an anaphor
/// or a word for it, *the* and *all* skipped) and holds a verdict
/// ([`WordClass::Verdicts`]): "Are these details correct?", "Everything
/// okay?", "Does that all look right?"; not "Is your address still
/// correct?".
fn asks_whether_plan_is_right(clause: &[Word]) -> bool {
    let mut rest = stance::skip_fillers(clause);
    if rest.first().is_some_and(|w| WordClass::ModalHeads.has(w)) {
        rest = rest.get(1..).unwrap_or_default();
    }
    let opens_with_plan = rest
        .iter()
        .find(|w| *w != "the" && *w != "all")
        .is_some_and(|w| WordClass::PlanWords.has(w) || WordClass::ActionAnaphors.has(w));
    opens_with_plan && rest.iter().any(|w| WordClass::Verdicts.has(w))
}

/// Whether a clause is a tag question ("…, ok?", "… — sound good?").
fn is_tag_question(clause: &[Word]) -> bool {
    let tail = stance::skip_fillers(clause);
    PhraseClass::TagQuestions
        .opening(tail)
        .is_some_and(|p| p.len() == tail.len())
}

/// Whether a yes picks the action over keeping things as they are, when
/// the request offered both: it names an action the requests named ("Yes,
/// cancel it", "Cancel it.") or says to go on with it ("go ahead",
/// "proceed", "do it", "go for it"); "yes please" or "please do" could
/// answer either option.
fn picks_the_action(turn: &Turn, asked: &AskedWords) -> bool {
    turn.sentences().iter().any(|sentence| {
        let words = sentence.words();
        words
            .iter()
            .any(|w| is_action_word(w) && asked.names_action(w))
            || lexicon::GOING_ON
                .iter()
                .any(|phrase| tokens::contains_phrase(words, phrase))
    })
}

/// Adds an agent turn asking for a decision to what was asked.
/// `picks_one`: the turn asks which of the things it lays out to act on
/// ([`asks_which_to_act_on`]); `kept`: what it says stays as it is
/// ([`kept_as_is`], read once for the turn's cues too).
fn note_request(asked: &mut AskedWords, turn: &Turn, picks_one: bool, kept: Vec<Vec<Word>>) {
    asked.add_sentences(turn.sentences());
    asked.note_request_ids(&turn.text);
    asked.set_latest_kept(kept);
    asked.note_request_items(&turn.text, turn.sentences());
    asked.mark_latest_asks_other(last_question_elsewhere(turn, picks_one));
    asked.mark_latest_picks_one(picks_one);
}

/// Whether a user's yes answers the action the latest request for a
/// decision asked about: always, unless that request ended with a question
/// about something else ([`last_question_elsewhere`]) — then only a yes
/// naming the action asked about, "proceed" ("Yes, please proceed with
/// this change"), or a yes to every question ("Yes to both") does; a bare
/// "Yes!" or "Sure, go ahead" answers the last question.
fn answers_the_action(turn: &Turn, asked: &AskedWords) -> bool {
    !asked.latest_asks_other()
        || turn.sentences().iter().any(|sentence| {
            let words = sentence.words();
            words
                .iter()
                .any(|w| w == "proceed" || (is_action_word(w) && asked.names_action(w)))
                || lexicon::EVERY_QUESTION
                    .iter()
                    .any(|phrase| tokens::contains_phrase(words, phrase))
        })
}

/// Whether an agent turn asks the user anything (a decision or a question
/// mark): after the summary, such a turn closes the window in which a yes
/// answers the summary.
fn asks_anything(turn: &Turn) -> bool {
    turn.text.contains('?') || turn_asks_decision(turn)
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

/// The actions the user asked for by agreeing to them: for each user turn
/// whose reply says yes to the latest request for a decision on an action,
/// outright or not ([`Reply::Affirms`], or [`Reply::Qualifies`] holding a
/// yes or a hedge ([`TurnCues::agrees`]): a yes made conditional or hedged
/// still asks for that action, and consent decides whether it may run; a
/// report of what the user did, however qualified, asks for nothing), the
/// turn's event and the actions that request
/// proposed, a bit per action ([`Lexicon::action_bits`]; an action it
/// names only as what not to do is not proposed), narrowed to the actions
/// the yes names when it names some ("Yes to the transfer"). As for
/// consent, a request stays open until the agent asks anything else or
/// the user answers it; a refusal or withdrawal asks for nothing.
#[must_use]
pub fn accepted_actions(conversation: &[Turn]) -> Vec<(u32, u16)> {
    let mut asked = AskedWords::default();
    let mut open: u16 = 0;
    let mut accepted = Vec::new();
    for turn in conversation {
        let cues = turn_cues_of(turn, &mut asked);
        match turn.role {
            Role::Agent if cues.asks_decision => {
                open = proposed_action_bits(turn, &cues);
            }
            Role::Agent if cues.asks_anything => open = 0,
            Role::User
                if open != 0
                    && (cues.reply == Reply::Affirms
                        || (cues.reply == Reply::Qualifies && cues.agrees)) =>
            {
                let named = cues.answer_action_bits & open;
                accepted.push((turn.event_index, if named == 0 { open } else { named }));
                open = 0;
            }
            Role::User if cues.reply != Reply::Other => open = 0,
            _ => {}
        }
    }
    accepted
}

/// The actions an agent turn asking for a decision proposes, a bit per
/// action: those its request sentence names ([`TurnCues::proposal`]), when
/// one sentence asks and names some ("Card ending 9902 is frozen. Unfreeze
/// it now?" proposes no freeze), else those the turn names; never one it
/// names only as what not to do ([`TurnCues::declined`]). A word that is
/// also a noun for a record ("cancel refill RF-5521") names the record when
/// another word of its sentence names an action, as in
/// [`Turn::weighs_actions`]; in a plan of one action per line ("1. Refill
/// … 2. Transfer …") each line's word is its action.
fn proposed_action_bits(turn: &Turn, cues: &TurnCues) -> u16 {
    let bits_of = |words: &mut dyn Iterator<Item = &Word>| {
        let words: Vec<&Word> = words
            .filter(|word| !declines_action(&cues.declined, word))
            .collect();
        let verbs = words
            .iter()
            .filter(|word| !word.tags().has(DomainClass::RecordNoun))
            .fold(0, |bits, word| bits | word.tags().actions());
        if verbs == 0 {
            words
                .iter()
                .fold(0, |bits, word| bits | word.tags().actions())
        } else {
            verbs
        }
    };
    let asked = bits_of(&mut cues.proposal.iter());
    if asked == 0 {
        turn.sentences()
            .iter()
            .fold(0, |bits, sentence| bits | bits_of(&mut sentence.tokens()))
    } else {
        asked
    }
}

/// Whether a turn of these word tokens names a state-changing action ("cancel", "refund",
/// "upgrade", …).
fn names_action_in<T: std::borrow::Borrow<Word>>(tokens: &[T]) -> bool {
    tokens.iter().any(|w| is_action_word(w.borrow()))
}

/// Whether an agent turn is a summary for these key values: it asks for a
/// decision and names every key value (or, with none, some identifier or
/// state-changing action), and proposes doing the actions among them (it
/// names none only as what not to do: [`read_proposal`]).
fn is_summary(turn: &Turn, key_values: &[&str]) -> bool {
    if turn.role != Role::Agent || !turn_asks_decision(turn) {
        return false;
    }
    let proposal = read_proposal(turn.sentences());
    !proposal.keeps_only
        && if key_values.is_empty() {
            names_identifier(&turn.text) || names_action_in(&flat_tokens(turn.sentences()))
        } else {
            key_values.iter().all(|v| {
                names_value(&turn.text, v)
                    && !proposal.declined.contains(&action_stem(&v.to_lowercase()))
            })
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
    let summary_sentences = conversation
        .get(summary_at)
        .map_or(&[][..], |t| t.sentences());
    let (up_to_summary, after) = conversation.split_at((summary_at + 1).min(conversation.len()));
    let mut asked = AskedWords::default();
    for turn in up_to_summary {
        if turn.role == Role::Agent && turn_asks_decision(turn) {
            note_request(
                &mut asked,
                turn,
                asks_which_to_act_on(turn.sentences()),
                kept_as_is(turn.sentences()),
            );
            asked.mark_latest_offers_keeping(read_proposal(turn.sentences()).yes_picks_neither);
        }
    }
    let mut window_open = true;
    let mut evidence = None;
    let mut revoked: Option<(u32, Stance)> = None;
    let mut paused: Option<(u32, Stance)> = None;
    let mut last_reply: Option<(u32, Stance, bool)> = None;
    for turn in after {
        match turn.role {
            Role::Agent if !turn.text.trim().is_empty() && asks_anything(turn) => {
                if turn_asks_decision(turn) {
                    note_request(
                        &mut asked,
                        turn,
                        asks_which_to_act_on(turn.sentences()),
                        kept_as_is(turn.sentences()),
                    );
                    asked.mark_latest_offers_keeping(
                        read_proposal(turn.sentences()).yes_picks_neither,
                    );
                } else {
                    asked.note_discussed(&turn.text);
                    asked.note_names(&turn.text, turn.sentences());
                }
                window_open = false;
            }
            Role::User => {
                let (markers, answer) = markers_of(turn, Some(&asked));
                let mut stance = markers.stance();
                // A reply holding back one of the key records is no yes to
                // this call.
                if let Some(&(_, refused)) = answer.held_back.iter().find(|(id, _)| {
                    key_values
                        .iter()
                        .any(|v| identifier_word(v).as_deref() == Some(id.as_str()))
                }) {
                    stance = if refused {
                        Stance::Refuse
                    } else {
                        Stance::Unknown
                    };
                    revoked.get_or_insert((turn.event_index, stance));
                }
                // A yes naming none of the summary's records after another
                // of their kind was discussed may be about that one.
                if stance == Stance::Affirm
                    && (asked.leaves_record_open(&turn.text)
                        || asked.leaves_pick_open(turn.sentences())
                        || asked.leaves_the_other_unplaced(turn.sentences())
                        || (asked.latest_offers_keeping() && !picks_the_action(turn, &asked)))
                {
                    stance = Stance::Unknown;
                    revoked.get_or_insert((turn.event_index, stance));
                }
                // A yes correcting what the user said before takes back
                // the refusals, withdrawals and pauses before it.
                if markers.corrects_itself
                    && stance == Stance::Affirm
                    && window_open
                    && answers_the_action(turn, &asked)
                    && !names_other_records(summary_text, &answer.records, key_values)
                {
                    revoked = None;
                    paused = None;
                }
                asked.note_discussed(&turn.text);
                // A new request for an action after the yes corrects what is
                // wanted: the agent must summarise and ask again.
                let corrects = evidence.is_some()
                    && stance != Stance::Affirm
                    && names_action_in(&flat_tokens(turn.sentences()));
                if corrects
                    || (stance.revokes(&markers)
                        && (evidence.is_some()
                            || Reply::of(stance, &markers, true) > Reply::Qualifies))
                {
                    revoked = Some((turn.event_index, stance));
                } else if stance.revokes(&markers)
                    && !names_action_in(&flat_tokens(turn.sentences()))
                {
                    // A pause or a condition before any yes, naming no
                    // action: it stands only if no yes follows.
                    paused.get_or_insert((turn.event_index, stance));
                } else if stance.revokes(&markers) {
                    revoked = Some((turn.event_index, stance));
                }
                if stance == Stance::Affirm
                    && window_open
                    && evidence.is_none()
                    && answers_the_action(turn, &asked)
                    && !names_other_records(summary_text, &answer.records, key_values)
                    && !names_other_actions(summary_sentences, &answer.actions, key_values)
                {
                    evidence = Some(turn.event_index);
                }
                last_reply = Some((turn.event_index, stance, window_open));
            }
            Role::Agent => {
                asked.note_discussed(&turn.text);
                asked.note_names(&turn.text, turn.sentences());
            }
            Role::Tool => {}
        }
    }
    if evidence.is_none() {
        revoked = revoked.or(paused);
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

/// The actions a yes is restricted to by "yes to …" ("Yes to the
/// transfer", "yes to refilling it"): the action words of a clause opening
/// (after fillers) with a yes head followed by "to", by stem; or the
/// action a yes orders at once, an action's verb opening what follows the
/// yes in its clause or the clause after a bare yes ("Yes, refill
/// RX-62005"), when the answer names no other action. Only these
/// constructions pick actions: elsewhere in a reply
/// an action's verb may describe a detail of the one asked about ("charge
/// the $22.55 to my card" in a yes to an exchange).
fn yes_to_actions<'s>(answer: impl Iterator<Item = &'s Sentence> + Clone) -> Vec<&'s Word> {
    let mut actions: Vec<&Word> = Vec::new();
    let mut ordered: Vec<&Word> = Vec::new();
    for sentence in answer.clone() {
        let mut after_bare_yes = false;
        for clause in sentence.clauses() {
            let head = stance::skip_fillers(clause);
            let opening = PhraseClass::YesHeads.opening(head);
            let rest = head
                .get(opening.map_or(0, <[&str]>::len)..)
                .unwrap_or_default();
            if opening.is_some() && rest.first().is_some_and(|w| w == "to") {
                actions.extend(head.iter().filter(|w| is_action_word(w)));
            } else if (opening.is_some() || after_bare_yes)
                && let Some(verb) = stance::skip_fillers(rest).first()
                && is_action_word(verb)
                && !verb.tags().has(DomainClass::Completion)
            {
                // "Yes, refill RX-62005": the order right after the yes.
                ordered.push(verb);
            }
            after_bare_yes = opening.is_some() && rest.is_empty();
        }
    }
    // An answer naming another action besides ("Yes, cancel both. For
    // returns, please request …") orders more than one.
    let only_ordered = !ordered.is_empty()
        && answer
            .flat_map(Sentence::tokens)
            .filter(|w| is_action_word(w))
            .all(|w| ordered.iter().any(|o| std::ptr::eq(*o, w)));
    if only_ordered {
        actions.extend(ordered);
    }
    actions
}

/// Whether a yes whose answer names the actions `answer_actions` (stems),
/// to the request for a decision `summary`, names one the summary named but
/// not an action among the write's `key_values`: "Yes to the transfer" to
/// "Shall I refill RX-20417 and transfer RX-20533?" is no yes to the refill.
fn names_other_actions(
    summary: &[Sentence],
    answer_actions: &[String],
    key_values: &[&str],
) -> bool {
    if answer_actions.is_empty() {
        return false;
    }
    let summary_actions: Vec<String> = summary
        .iter()
        .flat_map(Sentence::tokens)
        .filter(|w| is_action_word(w))
        .map(|w| action_stem(w))
        .collect();
    answer_actions.iter().any(|a| summary_actions.contains(a))
        && key_values.iter().any(|v| {
            let stem = action_stem(&v.to_lowercase());
            summary_actions.contains(&stem) && !answer_actions.contains(&stem)
        })
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
        self.occurrences_in(sentences).count()
    }

    /// Where it occurs, asserted, in text already split into `sentences`:
    /// each occurrence as its clause's index among the text's clauses and
    /// the range of its words there.
    pub(crate) fn occurrences_in<'s>(
        &'s self,
        sentences: &'s [Sentence],
    ) -> impl Iterator<Item = (usize, std::ops::Range<usize>)> + 's {
        let phrase = &self.words;
        sentences
            .iter()
            .flat_map(Sentence::clauses)
            .enumerate()
            .filter(|_| !phrase.is_empty())
            .flat_map(move |(index, clause)| {
                let mut starts = phrase_positions(clause, phrase);
                starts.extend(glued_positions(clause, phrase));
                let negators = if starts.is_empty() {
                    Vec::new()
                } else {
                    negator_positions(clause)
                };
                starts.into_iter().filter_map(move |start| {
                    let end = start + phrase.len();
                    let infinitive =
                        self.ends_in_infinitive_verb && clause.get(end).is_some_and(|w| w == "to");
                    (!infinitive && !negated_at(clause, &negators, start))
                        .then_some((index, start..end))
                })
            })
    }
}

/// Where `phrase` occurs in `clause` with its first word glued to a number
/// before it, as people type a quantity ("1GB" for the keyword "gb",
/// "500mg" for "mg"): the number and its unit are two words run together.
fn glued_positions(clause: &[Word], phrase: &[Word]) -> Vec<usize> {
    let Some((unit, rest)) = phrase.split_first() else {
        return Vec::new();
    };
    if !unit.as_str().chars().all(char::is_alphabetic) {
        return Vec::new();
    }
    (0..clause.len())
        .filter(|&at| {
            clause.get(at).is_some_and(|word| {
                word.as_str()
                    .strip_suffix(unit.as_str())
                    .is_some_and(|number| {
                        number.starts_with(|c: char| c.is_ascii_digit())
                            && number.chars().all(|c| c.is_ascii_digit() || c == '.')
                    })
            }) && clause.get(at + 1..).is_some_and(|after| {
                after.len() >= rest.len() && after.iter().zip(rest).all(|(a, b)| a == b)
            })
        })
        .collect()
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
    use test_words::tau2;

    /// A turn read with the tau2 bundles' words.
    fn turn(i: u32, role: Role, text: &str) -> Turn {
        Turn::with_lexicon(i, role, text, tau2())
    }

    #[test]
    fn a_yes_is_a_yes_to_the_records_its_answer_names() {
        let summary =
            "To confirm: cancel #W9300146 and #W4597054, reason no longer needed. Proceed?";
        let given = |reply: &str, key: &str| {
            let turns = [turn(1, Role::Agent, summary), turn(2, Role::User, reply)];
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
    fn what_a_request_says_stays_as_it_is_is_kept() {
        let cues = |text: &str| turn_cues(Role::Agent, text, &tau2(), &mut AskedWords::default());
        let kept = cues("I'll wipe LT-7720 now. LT-7734 stays as it is for now. Shall I go ahead?");
        assert!(kept.keeps("LT-7734"));
        assert!(!kept.keeps("LT-7720"));
        let apposed = cues(
            "Shall I transfer RX-71109 to CVS Lake Street? Your other prescription, \
             RX-71104, stays here with us.",
        );
        assert!(apposed.keeps("RX-71104"));
        assert!(!apposed.keeps("RX-71109"));
        let joined = cues("I'll cancel #W1234567 and #W7654321 remains pending. Proceed?");
        assert!(joined.keeps("#W7654321"));
        assert!(!joined.keeps("#W1234567"));
        let before = cues("I'll cancel #W1234567. No change to #W7654321. Shall I proceed?");
        assert!(before.keeps("#W7654321"));
        assert!(!before.keeps("#W1234567"));
        let left = cues("I'll cancel #W1234567 and leave #W7654321 as it is. Shall I proceed?");
        assert!(left.keeps("#W7654321"));
        assert!(!left.keeps("#W1234567"));
        // A turn asking for no decision keeps nothing.
        assert!(!cues("LT-7734 stays as it is.").keeps("LT-7734"));
        // A bracketed description between a record and what stays says of
        // it keeps the record too, and not the record proposed.
        let described = cues(
            "Here's the plan:\n- Wipe LT-7720 (the old MacBook)\n- LT-7734 (the ThinkPad) \
             stays as it is\n\nShall I go ahead?",
        );
        assert!(described.keeps("LT-7734"));
        assert!(!described.keeps("LT-7720"));
    }

    #[test]
    fn the_answer_a_request_asks_for_is_no_detail_it_proposes() {
        let cues = |text: &str| turn_cues(Role::Agent, text, &tau2(), &mut AskedWords::default());
        for text in [
            "Please reply \"yes\" to confirm and I'll cancel order #W1234567.",
            "Type YES to cancel order #W1234567 or NO to keep it.",
        ] {
            let request = cues(text);
            assert!(request.asks_decision, "{text}");
            assert!(request.proposes("#W1234567"), "{text}");
            assert!(!request.proposes("yes"), "{text}");
            assert!(!request.proposes("no"), "{text}");
        }
        // A yes the request gives a detail, with no verb of answering
        // before it, is proposed.
        let detail = cues("Shall I set travel insurance to yes on #W1234567?");
        assert!(detail.proposes("yes"));
    }

    #[test]
    fn a_domain_noun_for_its_records_keeps_only_as_a_verb() {
        let mut words = words_of(&[&["refund"]]);
        words.record_nouns = vec!["stay".to_owned()];
        let lexicon = Arc::new(Lexicon::new(&words));
        let cues = |text: &str| turn_cues(Role::Agent, text, &lexicon, &mut AskedWords::default());
        let named = cues(
            "I see a room service charge of $42.00 on your Oslo stay HBL-39018. I can refund \
             it in full. Would you like me to?",
        );
        assert!(!named.keeps("HBL-39018"));
        assert!(!named.keeps("Oslo"));
        let kept = cues(
            "I'll refund the minibar charge on HBL-39018. Your Lisbon stay stays as it is. \
             Shall I go ahead?",
        );
        assert!(kept.keeps("Lisbon"));
        assert!(!kept.keeps("HBL-39018"));
    }

    #[test]
    fn what_a_request_leaves_out_a_reply_may_keep() {
        let summary = "Order #W5565470 holds an electric kettle, a mechanical keyboard and a pet bed. \
             You asked to return everything except the pet bed. Shall I return the kettle and \
             the keyboard from #W5565470 to your PayPal?";
        let given = |reply: &str| {
            let turns = [turn(1, Role::Agent, summary), turn(2, Role::User, reply)];
            consent(&turns, &["#W5565470", "return"]).is_given()
        };
        assert!(given(
            "Yes, return the kettle and the keyboard, but keep the pet bed."
        ));
        // Keeping a thing the request proposes to act on holds it back.
        assert!(!given("Yes, go ahead, but keep the keyboard."));
        assert!(!given("Yes, but keep the pet bed and the kettle."));
        assert!(given(
            "That's right - just those two, not the pet bed. Go ahead please."
        ));
        assert!(!given("That's right - not the keyboard. Go ahead please."));
        // A question names what it proposes: a report's exclusion of the
        // same record keeps nothing.
        let cues = |text: &str| turn_cues(Role::Agent, text, &tau2(), &mut AskedWords::default());
        let reported = cues(
            "I downgraded all your reservations except JG7FMM. Would you like me to downgrade \
             JG7FMM too?",
        );
        assert!(!reported.keeps("JG7FMM"));
        let excluded = cues("I'll cancel everything except #W7654321. Shall I proceed?");
        assert!(excluded.keeps("#W7654321"));
        // The question's own keeping stands.
        let asked = cues("I'll cancel #W1234567. Shall I proceed, leaving #W7654321 as it is?");
        assert!(asked.keeps("#W7654321"));
    }

    #[test]
    fn things_a_request_keeps_are_not_items_it_lays_out() {
        let summary = "I'll change the jacket to the red half-zip on #W2466703, refunding $6.74 \
             to PayPal. Shipping address and payment method will remain the same. Reply YES to \
             proceed.";
        let given = |reply: &str| {
            let turns = [turn(1, Role::Agent, summary), turn(2, Role::User, reply)];
            consent(&turns, &["#W2466703", "change"]).is_given()
        };
        assert!(given(
            "YES, switch it to the red half-zip. Use PayPal, and keep the shipping address the same."
        ));
        assert!(!given("YES. But change the shipping address too."));
    }

    #[test]
    fn a_record_id_written_with_a_hyphen_is_named_in_an_answer() {
        let summary = "You have two parcels in transit, PX-40112 and PX-40127. \
                       Which should I cancel, and shall I go ahead?";
        let given = |reply: &str, key: &str| {
            let turns = [turn(1, Role::Agent, summary), turn(2, Role::User, reply)];
            consent(&turns, &[key, "cancel"]).is_given()
        };
        assert!(!given("the PX-40127 one, yes", "PX-40112"));
        assert!(given("the PX-40127 one, yes", "PX-40127"));
        assert!(given("Yes, cancel both.", "PX-40112"));
    }

    #[test]
    fn a_request_asking_which_to_act_on_takes_only_a_yes_that_picks() {
        let which = "You have two pending orders, #W1234567 and #W7654321. \
                     Which one should I cancel?";
        let given = |summary: &str, reply: &str, key: &str| {
            let turns = [turn(1, Role::Agent, summary), turn(2, Role::User, reply)];
            consent(&turns, &[key, "cancel"]).is_given()
        };
        assert!(!given(which, "yes please cancel it", "#W1234567"));
        assert!(!given(which, "sure, go ahead", "#W7654321"));
        assert!(!given(which, "either is fine, yes", "#W7654321"));
        assert!(given(which, "#W7654321, yes", "#W7654321"));
        assert!(given(which, "w7654321 please, go ahead", "#W7654321"));
        // A pick question without an action named asks nothing to act on.
        let fact = "You have two pending orders, #W1234567 and #W7654321. \
                    Which one arrived late? Shall I cancel #W1234567?";
        assert!(given(fact, "yes", "#W1234567"));
        // A pick asked in passing before a proposal to act on both.
        let passing = "I'll cancel #W1234567 and #W7654321. Which one did you order \
                       first? Shall I go ahead with both cancellations?";
        assert!(given(passing, "yes go ahead", "#W1234567"));
    }

    #[test]
    fn a_request_ending_in_another_question_takes_only_a_yes_naming_the_action() {
        let summary = "To confirm: cancel order #W9300146, reason no longer needed. \
                       Also, would you like a 10% discount code for your next purchase?";
        let given = |reply: &str| {
            let turns = [turn(1, Role::Agent, summary), turn(2, Role::User, reply)];
            consent(&turns, &["#W9300146", "cancel"]).is_given()
        };
        assert!(!given("Yes!"));
        assert!(!given("Sure, go ahead."));
        assert!(given("Yes, please cancel it."));
        assert!(given("Yes, please proceed."));
        let mut asked = AskedWords::default();
        let cues = turn_cues(Role::Agent, summary, &tau2(), &mut asked);
        assert!(cues.asks_decision);
        assert_eq!(
            turn_cues(Role::User, "Yes!", &tau2(), &mut asked).reply,
            Reply::Other
        );
        assert_eq!(
            turn_cues(Role::User, "Yes, cancel it.", &tau2(), &mut asked).reply,
            Reply::Affirms
        );
    }

    #[test]
    fn a_yes_to_a_turn_asking_two_things_answers_the_last_one_a_yes_can_answer() {
        let given = |summary: &str, reply: &str| {
            let turns = [turn(1, Role::Agent, summary), turn(2, Role::User, reply)];
            consent(&turns, &["#W9300146", "cancel"]).is_given()
        };
        // A fact check after the request, naming the action only inside
        // its own matter or a decision word only in an aside.
        let email = "I can cancel order #W9300146, reason no longer needed. Shall I cancel it? \
                     And one more thing: is d.kim@example.com still the best address for the \
                     cancellation notice?";
        assert!(!given(email, "yes that's still my email"));
        assert!(!given(email, "Yes"));
        assert!(given(email, "yes, cancel it, and yes that's my email"));
        let aside = "Shall I cancel order #W9300146 (reason: no longer needed)? Also, just so I \
                     have it right for the ticket: is your manager still Karen Liu?";
        assert!(!given(aside, "yes, Karen's still my manager"));
        // A later question about the plan, or the request asked last: the
        // yes answers the request.
        for last in [
            "Are these details correct?",
            "Do you confirm?",
            "Everything okay?",
        ] {
            let summary =
                format!("To confirm: cancel order #W9300146, reason no longer needed. {last}");
            assert!(given(&summary, "Yes."), "{last}");
        }
        assert!(given(
            "Is d.kim@example.com still your email? And shall I go ahead and cancel order \
             #W9300146, reason no longer needed?",
            "yes please do"
        ));
        // A later question offering a service of its own, even one whose
        // object is a word for the plan: a yes to every question answers
        // the request too.
        let service = "Shall I cancel order #W9300146, reason no longer needed? Also, would you \
                       like me to email you a copy of the cancellation summary?";
        assert!(!given(service, "Yes!"));
        assert!(!given(service, "Yes please, email it."));
        assert!(given(service, "Yes to both."));
        assert!(given(service, "Yes, cancel it, and yes email me."));
        let go_on = "Shall I cancel order #W9300146, reason no longer needed? Also, should I go \
                     ahead and send the summary once it's done?";
        assert!(given(go_on, "Yes."));
        // A fact check, an offer, a pick among values or a question a yes
        // cannot answer leaves a bare yes unattached to the request: "yes,
        // 30" to "30 or 90 tablets?" consents to no call taking 90.
        for last in [
            "Can you confirm that your email is still d.kim@example.com?",
            "Is that still your email on file?",
            "Is your address still correct?",
            "What about a discount code for your next order?",
            "Which email should the notice go to?",
            "Was it a mistake or a change of mind?",
        ] {
            let summary =
                format!("Shall I cancel order #W9300146, reason no longer needed? {last}");
            assert!(!given(&summary, "Yes."), "{last}");
        }
    }

    /// Whether `reply` consents to the return of #W9300146 that `summary`
    /// asks about.
    fn return_consented(summary: &str, reply: &str) -> bool {
        let turns = [turn(1, Role::Agent, summary), turn(2, Role::User, reply)];
        consent(&turns, &["#W9300146", "return"]).is_given()
    }

    /// A summary stated as a statement, then one question offering a
    /// service of its own on an object of its own: a yes answers the
    /// offer. A question whose generic verb takes the plan ("send this
    /// through", "issue this refund") still asks about the action.
    #[test]
    fn a_lone_question_offering_a_service_of_its_own_asks_nothing_of_the_action() {
        let given = return_consented;
        let statement =
            "Return on #W9300146: Backpack, $208.43, refunded to your Visa ending 1198.";
        for offer in [
            "By the way, would you like to subscribe to our newsletter so you get return status updates by email?",
            "Do you want to sign up for text alerts about your return?",
            "Would you like me to email you a receipt of today's chat?",
        ] {
            let summary = format!("{statement} {offer}");
            assert!(!given(&summary, "Sure, yes."), "{offer}");
            assert!(
                given(&summary, "Yes, go ahead with the return. No newsletter."),
                "{offer}"
            );
        }
        for about_it in [
            "Shall I send this return through?",
            "Would you like me to put it through now?",
            "Would you like to go ahead?",
            "Would you like me to process the return?",
        ] {
            let summary = format!("{statement} {about_it}");
            assert!(given(&summary, "Sure, yes."), "{about_it}");
        }
    }

    /// A verb of carrying out a plan with a particle of its own takes an
    /// object of its own: asked after the summary's own question, it asks
    /// about that object, so a bare yes answers it. With the plan as its
    /// object the particle changes nothing.
    #[test]
    fn a_plan_verb_with_a_particle_of_its_own_offers_a_service() {
        let given = return_consented;
        let request = "Return on #W9300146: Backpack, $208.43, refunded to your Visa ending \
                       1198. Shall I submit the return?";
        for offer in [
            "By the way, would you like me to set up email reminders for when your next return is due?",
            "Also, should I sign up your account for text alerts about the return?",
            "Would you like me to turn on delivery notifications for future returns?",
        ] {
            let summary = format!("{request} {offer}");
            assert!(!given(&summary, "Yes please!"), "{offer}");
            assert!(given(&summary, "Yes to both."), "{offer}");
        }
        for about_it in [
            "Would you like me to set that up now?",
            "Shall I set up the return for pickup?",
            "Should I set it up for you?",
        ] {
            let summary = format!("{request} {about_it}");
            assert!(given(&summary, "Yes please!"), "{about_it}");
        }
    }

    /// A reply picking, by its label or place, the one labelled option
    /// that does the action (the others keep things as they are) is the
    /// yes it stands for; a pick of a keeping option, of a label the
    /// request never wrote, or of one of two options both doing the action
    /// is none.
    #[test]
    fn a_pick_of_the_one_option_doing_the_action_is_its_yes() {
        let lexicon = lexicon_of(&[&["cancel"], &["upgrade"]]);
        let reply_to = |request: &str, reply: &str| reply_cues(&lexicon, request, reply).reply;
        let keep_or_cancel = "Booking HB-1234 is refundable. Two options:\n1) Cancel booking \
                              HB-1234 now; $212 goes back to your Visa ending 4417.\n2) Keep \
                              the booking as it is.\nWhich would you prefer?";
        let lettered = "Booking HB-1234 is refundable.\n(a) Leave HB-1234 as it is\n(b) Cancel \
                        it and refund $212 to the Visa ending 4417\nWhich one?";
        for (request, reply) in [
            (keep_or_cancel, "Option 1 - cancel it please."),
            (keep_or_cancel, "1"),
            (keep_or_cancel, "The first one."),
            (lettered, "Option (b)"),
            (lettered, "Option (b)."),
        ] {
            assert_eq!(reply_to(request, reply), Reply::Affirms, "{reply}");
        }
        let both_act = "Two options:\n1) Upgrade HB-1234 to a suite for $90.\n2) Upgrade \
                        HB-1234 to a deluxe room for $40.\nWhich would you like?";
        for (request, reply) in [
            (keep_or_cancel, "Option 2."),
            (keep_or_cancel, "Option 3."),
            (lettered, "(a)"),
            (both_act, "Option 1."),
        ] {
            assert_ne!(reply_to(request, reply), Reply::Affirms, "{reply}");
        }
    }

    /// A numbered plan written in one line lays out its steps as a list
    /// does: a reply picking some of them by place, name or id picks those
    /// alone, and one restricting its yes to a part the reader cannot
    /// place qualifies.
    #[test]
    fn an_inline_numbered_plan_lays_out_its_steps() {
        let lexicon = lexicon_of(&[&["cancel"], &["transfer"], &["refill"], &["grant"]]);
        let cues_after = |request: &str, reply: &str| reply_cues(&lexicon, request, reply);
        let by_ids = "Here's the plan: 1) cancel refill RF-9001, Lisinopril 10mg, which is still \
                      queued; 2) transfer RX-50212, Atorvastatin 20mg, to CityCare Pharmacy 5th \
                      Street. Reply yes to proceed.";
        for reply in [
            "just the first one please",
            "the first one only",
            "yes, RF-9001 only",
        ] {
            let read = cues_after(by_ids, reply);
            assert_eq!(read.reply, Reply::Affirms, "{reply}");
            assert_eq!(read.answer_records, ["rf9001"], "{reply}");
            assert_eq!(read.held_back, [("rx50212".to_owned(), false)], "{reply}");
        }
        let read = cues_after(by_ids, "Yes to both.");
        assert_eq!(read.reply, Reply::Affirms);
        assert!(read.held_back.is_empty());
        // Steps sharing their first words are named by the words only one
        // holds: a yes restricted to one of them holds the other back.
        for request in [
            "Here's the plan: 1) grant E-10422 access to Jira; 2) grant E-10422 access to \
             Confluence. Reply yes to proceed.",
            "Here's the plan:\n1) grant E-10422 access to Jira;\n2) grant E-10422 access to \
             Confluence.\nReply yes to proceed.",
        ] {
            for reply in ["yes, only Jira", "just the first one please"] {
                assert_ne!(cues_after(request, reply).reply, Reply::Affirms, "{reply}");
            }
            assert_eq!(cues_after(request, "yes").reply, Reply::Affirms);
        }
        // A bulleted list is no plan: a line whose first words another
        // shares is a detail, and the yes covers the request.
        let bullets = "I can help you with that. To proceed, I need to confirm a few \
                       details:\n\n- The order you want to cancel is for the Portable Charger \
                       (order #W9373487), and its status is currently pending, so it is \
                       eligible for cancellation.\n- Please confirm the reason for \
                       cancellation: is it \u{201c}no longer needed\u{201d} or \u{201c}ordered by \
                       mistake\u{201d}?\n\nOnce you confirm these details, I\u{2019}ll proceed \
                       with the cancellation.";
        let read = reply_cues(
            &tau2(),
            bullets,
            "Yes, that\u{2019}s the right order. The reason is \u{201c}no longer needed.\u{201d} \
             Please go ahead and cancel it.",
        );
        assert_eq!(read.reply, Reply::Affirms);
        assert!(read.answer_items.is_empty() && read.held_back.is_empty());
        // Marks that do not count from one, or a single mark, are no plan.
        assert!(inline_steps_of("Option 2) is cheaper; 3) is faster.").is_empty());
        assert!(inline_steps_of("Step 1) cancel RF-9001.").is_empty());
        assert_eq!(
            inline_steps_of("Plan: 1) cancel RF-9001; 2. transfer RX-50212. OK?"),
            ["cancel RF-9001; ", "transfer RX-50212"]
        );
    }

    fn inline_steps_of(text: &str) -> Vec<&str> {
        asked::inline_steps(text)
    }

    /// Reads what an agent turn proposes, with a domain of `actions`.
    fn proposal_reader(actions: &[&[&str]]) -> impl Fn(&str) -> Proposal {
        let lexicon = lexicon_of(actions);
        move |text| {
            read_proposal(Turn::with_lexicon(0, Role::Agent, text, lexicon.clone()).sentences())
        }
    }

    #[test]
    fn an_option_after_or_that_waits_leaves_a_bare_yes_picking_neither() {
        let read = proposal_reader(&[&["freeze"], &["unfreeze"], &["transfer"]]);
        for text in [
            "Do you want me to unfreeze card ending 7702 now, or keep it frozen until tomorrow?",
            "Want me to freeze card ending 0093 right away, or check the app together first?",
            "Shall I transfer RX-7020 to CVS Main Street now, or after your next pickup here?",
            "Shall I freeze card ending 0093 now, or later?",
        ] {
            assert!(read(text).yes_picks_neither, "{text}");
        }
        for text in [
            "Shall I freeze card ending 0093 or unfreeze card ending 7702 first?",
            "Shall I freeze card ending 0093, or not?",
        ] {
            assert!(!read(text).yes_picks_neither, "{text}");
        }
    }

    #[test]
    fn an_action_reported_done_in_a_question_is_not_proposed() {
        let read = proposal_reader(&[&["cancel"], &["freeze"]]);
        let waiting = read(
            "PCL-10388 is at label_created, so it can still be cancelled. I can cancel \
             shipment PCL-10388. Should I leave it as is for now, while you check with the \
             shop whether they've already cancelled it on their side?",
        );
        assert!(waiting.keeps_only, "{waiting:?}");
        let frozen = read("Should I wait until you have checked whether the card has been frozen?");
        assert!(frozen.keeps_only, "{frozen:?}");
        // A past form with no perfect before it still proposes the action.
        for text in [
            "Do you want PCL-10388 cancelled?",
            "It hasn't been cancelled yet. Shall I cancel it now?",
        ] {
            let proposing = read(text);
            assert!(
                !proposing.keeps_only && proposing.declined.is_empty(),
                "{text}: {proposing:?}"
            );
        }
    }

    #[test]
    fn a_word_of_a_declining_phrase_names_no_action() {
        // A parcel desk whose tool to hold a parcel at a locker says "hold".
        let read = proposal_reader(&[&["hold"], &["cancel"]]);
        let waiting = read(
            "We could have PX-90011234 sent to the locker instead. \
             Want me to hold off until you're sure about Thursday?",
        );
        assert!(waiting.keeps_only, "{waiting:?}");
        let holding = read("Shall I hold PX-90011234 at the Oak Avenue Locker?");
        assert!(
            !holding.keeps_only && holding.declined.is_empty(),
            "{holding:?}"
        );
    }

    #[test]
    fn a_question_offering_the_action_or_keeping_is_answered_by_naming_one() {
        for text in [
            "Shall I cancel #W9300146, or would you rather wait?",
            "Shall I cancel #W9300146, or just leave it as it is?",
            "Should I go ahead with cancelling #W9300146, or hold off for now?",
            "Do you want me to cancel order #W9300146, or keep it as is?",
        ] {
            let proposal = read_proposal(turn(0, Role::Agent, text).sentences());
            assert!(
                proposal.declined.is_empty() && proposal.yes_picks_neither,
                "{text}"
            );
            let given = |reply: &str| {
                consent(
                    &[turn(1, Role::Agent, text), turn(2, Role::User, reply)],
                    &["#W9300146"],
                )
                .is_given()
            };
            for reply in [
                "Cancel it.",
                "Yes, cancel it please.",
                "Go ahead.",
                "Please proceed.",
            ] {
                assert!(given(reply), "{text} -> {reply}");
            }
            for reply in [
                "Yes.",
                "Yes please.",
                "Sure",
                "Leave it.",
                "Keep it as is.",
                "Either is fine.",
            ] {
                assert!(!given(reply), "{text} -> {reply}");
            }
        }
        // A yes/no prompt whose no keeps things: its yes is the action's.
        let prompt = "I can cancel order #W9300146. Reply YES to confirm or NO to keep the order.";
        assert!(!read_proposal(turn(0, Role::Agent, prompt).sentences()).yes_picks_neither);
        assert!(
            consent(
                &[turn(1, Role::Agent, prompt), turn(2, Role::User, "YES")],
                &["#W9300146", "cancel"]
            )
            .is_given()
        );
    }

    #[test]
    fn a_request_proposing_not_to_act_or_to_act_otherwise_is_no_request_to_act() {
        let declined = |text: &str| read_proposal(turn(0, Role::Agent, text).sentences()).declined;
        for text in [
            "Do you want me to hold off on cancelling order #W9300146?",
            "Would you rather I exchange it instead of cancelling order #W9300146?",
            "Should I keep order #W9300146 rather than cancel it?",
            "Is it okay if I don't cancel #W9300146 yet?",
            "Shall I put the cancellation of #W9300146 on hold?",
            "Would you like me to skip the cancellation for now?",
            // The question declines what a statement describes.
            "I can cancel order #W9300146 now. Should I wait until tomorrow before cancelling?",
            // The only question proposes keeping things as they are.
            "Cancelling order #W9300146 is free. Do you want to keep it instead?",
            "I could cancel order #W9300146 today. Would you prefer to leave it as it is?",
        ] {
            assert_eq!(declined(text), ["cance"], "{text}");
            let turns = [turn(1, Role::Agent, text), turn(2, Role::User, "Yes.")];
            assert!(
                !consent(&turns, &["#W9300146", "cancel"]).is_given(),
                "{text}"
            );
        }
        for text in [
            "Shall I cancel order #W9300146?",
            "I can't undo it later. Shall I cancel order #W9300146?",
            // A go-ahead, or another question asking to go ahead, proposes
            // what the statements describe.
            "I'll cancel order #W9300146. Shall I proceed and keep your other orders as they are?",
            "I'll cancel order #W9300146. Do you want to keep the other order? Shall I proceed?",
            "I'll cancel order #W9300146. Shall I proceed without a refund to the gift card?",
            // An *or* offering another action is no offer to keep.
            "Shall I cancel #W9300146, or would you rather I exchange it?",
            "Shall I cancel #W9300146? If you'd rather wait, I can hold off on the cancellation.",
            "Shall I exchange it and cancel #W9300146 instead of returning it?",
        ] {
            assert!(
                declined(text).iter().all(|stem| stem != "cance"),
                "{text}: {:?}",
                declined(text)
            );
        }
        // A statement is no request: its negations propose nothing.
        assert!(declined("Your other orders will not be cancelled.").is_empty());
        // The step waiting on a question about something else is not what
        // it proposes, by any of the action's words.
        let waiting = declined(
            "I can change the address of order #W9300146. Before I update it, can you confirm your email is jo@example.org?",
        );
        assert!(waiting.contains(&"updat".to_owned()), "{waiting:?}");
        assert!(waiting.contains(&"chang".to_owned()), "{waiting:?}");
        for text in [
            "I'll cancel order #W9300146. Before I do that, can you confirm your email is jo@example.org?",
            "Cancelling order #W9300146 is free. Ahead of the cancellation, is your email still jo@example.org?",
        ] {
            assert_eq!(declined(text), ["cance"], "{text}");
        }
        for text in [
            "Before I proceed, shall I cancel order #W9300146?",
            "Before I cancel order #W9300146, please confirm you want to proceed.",
            "Before I cancel it, can you confirm you want order #W9300146 cancelled?",
            "I'll cancel order #W9300146. Before I do that, shall I proceed?",
        ] {
            assert!(
                declined(text).iter().all(|stem| stem != "cance"),
                "{text}: {:?}",
                declined(text)
            );
        }
    }

    #[test]
    fn a_reply_is_a_yes_or_one_of_three_ways_to_take_consent_away() {
        let summary = "To confirm: cancel order #W9300146. Shall I proceed?";
        assert_replies(
            summary,
            &[
                ("Yes, go ahead.", Reply::Affirms),
                ("No.", Reply::Refuses),
                ("Sure, when pigs fly.", Reply::Refuses),
                ("I'll keep it.", Reply::Refuses),
                ("Yes. Never mind, I changed my mind.", Reply::Withdraws),
                (
                    "Yes, but let me check with my wife first.",
                    Reply::Withdraws,
                ),
                ("Yes, if it's free.", Reply::Qualifies),
                ("Maybe.", Reply::Qualifies),
                ("What's the fee?", Reply::Other),
            ],
        );
    }

    #[test]
    fn a_question_about_what_follows_on_a_condition_answers_nothing() {
        let summary = "I can cancel order #W9300146 for you. Shall I proceed?";
        assert_replies(
            summary,
            &[
                ("Will I get the refund today if I cancel it?", Reply::Other),
                ("What happens if it has already shipped?", Reply::Other),
                (
                    "Could you exchange it instead if that's cheaper?",
                    Reply::Qualifies,
                ),
                ("Could you exchange it if that's cheaper?", Reply::Qualifies),
                (
                    "I only want it cancelled if the refund is today.",
                    Reply::Qualifies,
                ),
                // Another action than the one asked about.
                (
                    "Will I get the refund if I don't return it?",
                    Reply::Qualifies,
                ),
                // A negator inside the condition is part of what is asked.
                (
                    "Will I get the refund if it can't be cancelled today?",
                    Reply::Other,
                ),
                ("What if it can't be delivered by Friday?", Reply::Other),
                ("Maybe, if it's quick?", Reply::Qualifies),
                ("Don't, if it has already shipped?", Reply::Refuses),
                ("I won't need it if it ships late, right?", Reply::Qualifies),
            ],
        );
    }

    /// Replies after `summary`, in a pharmacy's words (no shipped domain's).
    fn assert_pharmacy_replies(summary: &str, cases: &[(&str, Reply)]) {
        let lexicon = lexicon_of(&[&["refill"], &["transfer", "move"], &["cancel"]]);
        assert_replies_in(&lexicon, summary, cases);
    }

    #[test]
    fn an_order_to_do_the_action_to_what_was_discussed_is_a_go_ahead() {
        let summary = "Refill RF-90311 (Metformin 500 mg, 90 tablets) is queued. Do you want me to cancel it?";
        assert_pharmacy_replies(
            summary,
            &[
                ("Cancel it.", Reply::Affirms),
                ("cancel that please", Reply::Affirms),
                ("Ok, just cancel it", Reply::Affirms),
                // Another action, a negation, a question, a new object.
                ("Transfer it instead.", Reply::Qualifies),
                ("Move it to CVS.", Reply::Other),
                ("Don't cancel it.", Reply::Refuses),
                ("Cancel it?", Reply::Other),
                ("Cancel the other one.", Reply::Other),
                ("Cancel it if it hasn't been filled yet.", Reply::Qualifies),
                ("Cancel it. Actually no, never mind.", Reply::Withdraws),
            ],
        );
    }

    #[test]
    fn a_question_about_doing_both_asks_about_the_actions() {
        let plan = "1. Refill Metformin 500 mg, 90 tablets, pickup at Downtown.\n\
                    2. Transfer Levothyroxine 50 mcg to Walgreens 5th Avenue.\nShall I do both?";
        assert_pharmacy_replies(
            plan,
            &[("Yes.", Reply::Affirms), ("Yes, do both.", Reply::Affirms)],
        );
        // A last question about something else still takes the bare yes.
        let elsewhere = "I will refill Metformin and transfer Levothyroxine. \
                         Shall I do both? Also, would you like a text reminder?";
        assert_pharmacy_replies(elsewhere, &[("Yes.", Reply::Other)]);
        assert!(asks_for_decision(
            "Would you prefer I transfer the Lisinopril to CVS Pharmacy #4412?"
        ));
    }

    #[test]
    fn a_statement_whose_yes_answers_the_user_asks_nothing() {
        for text in [
            "Yes, it should arrive tomorrow.",
            "Parcels upgraded before 6pm arrive the next day, so yes, it should arrive tomorrow.",
            "Oh yes, I'll cancel order #W9300146 now.",
        ] {
            assert!(!asks_for_decision(text), "{text}");
        }
        for text in [
            "Please reply yes to confirm.",
            "Cancel order #W9300146? (yes/no)",
            "Yes. Shall I proceed?",
            "Yes, please confirm you want it cancelled.",
            "Yes?",
        ] {
            assert!(asks_for_decision(text), "{text}");
        }
    }

    /// Each reply, read right after `summary`, answers it as `want`.
    fn assert_replies(summary: &str, cases: &[(&str, Reply)]) {
        assert_replies_in(&tau2(), summary, cases);
    }

    /// [`assert_replies`] in a domain's words.
    fn assert_replies_in(lexicon: &Arc<Lexicon>, summary: &str, cases: &[(&str, Reply)]) {
        for &(reply, want) in cases {
            let mut asked = AskedWords::default();
            let _ = turn_cues(Role::Agent, summary, lexicon, &mut asked);
            assert_eq!(
                turn_cues(Role::User, reply, lexicon, &mut asked).reply,
                want,
                "{summary} -> {reply}"
            );
        }
    }

    #[test]
    fn keeping_what_the_request_said_stays_agrees_with_it() {
        let lexicon = lexicon_of(&[&["freeze", "frozen"], &["wipe", "wiped"]]);
        let summary = "I propose to freeze the card ending 6621, reason lost. \
                       There will be no change to your card ending 1205. May I proceed?";
        assert_replies_in(
            &lexicon,
            summary,
            &[
                (
                    "I confirm. Kindly ensure the card ending 1205 remains as it is.",
                    Reply::Affirms,
                ),
                (
                    "Yes, and leave my card ending 1205 as it is.",
                    Reply::Affirms,
                ),
                // The card the action changes, or one the request never kept.
                (
                    "Yes, but keep the card ending 6621 as it is.",
                    Reply::Qualifies,
                ),
                ("Yes, and keep my other card as it is.", Reply::Qualifies),
                (
                    "Yes. Please make sure my savings card is kept.",
                    Reply::Qualifies,
                ),
                // Idioms about the person or the talk keep nothing.
                ("Yes thanks, keep me posted.", Reply::Affirms),
                ("Go ahead, and keep up the good work!", Reply::Affirms),
                ("Yes, but keep me on the old card.", Reply::Qualifies),
            ],
        );
        // An *and* after no action word joins what stays; after one it ends
        // the action's part.
        let both = "I'll change the jacket to the red one. Shipping address and \
                    payment method will remain the same. Reply YES to proceed.";
        assert_replies_in(
            &lexicon,
            both,
            &[("YES. Keep the shipping address the same.", Reply::Affirms)],
        );
        let wipe = "I'll wipe LT-7720 and LT-7734 stays as it is. Shall I go ahead?";
        assert_replies_in(
            &lexicon,
            wipe,
            &[
                ("Yes, and keep LT-7734 as it is.", Reply::Affirms),
                ("Yes, but keep LT-7720 as it is.", Reply::Qualifies),
            ],
        );
    }

    /// A reply answering the records of a request one by one: each record's
    /// answer is its own, whether the parts are sentences, clauses, labels
    /// or "the other one"; a yes naming some of the records passes over the
    /// rest.
    #[test]
    fn a_reply_answering_laid_out_items_answers_each_alone() {
        let lexicon = lexicon_of(&[&["grant", "granted"], &["renew", "renewed"]]);
        let cues_after = |request: &str, reply: &str| reply_cues(&lexicon, request, reply);
        let by_and = "I can grant you access to jira and confluence. Shall I grant both?";
        let by_list = "I can renew these:\n1. The Hobbit\n2. Piranesi\nShall I renew both?";
        for (request, reply, answered, held, refused) in [
            (
                by_and,
                "jira: yes / confluence: no",
                "jira",
                "confluence",
                true,
            ),
            (
                by_and,
                "Jira yes; confluence no, not needed",
                "jira",
                "confluence",
                true,
            ),
            (
                by_and,
                "Yes to Jira. Confluence I don't need, no.",
                "jira",
                "confluence",
                true,
            ),
            (by_and, "Yes to Jira.", "jira", "confluence", false),
            (
                by_and,
                "confluence: no. jira: go ahead",
                "jira",
                "confluence",
                true,
            ),
            (
                by_list,
                "first one yes, second one no",
                "hobbit",
                "piranesi",
                true,
            ),
            (
                by_list,
                "Piranesi: yes / Hobbit: no",
                "piranesi",
                "hobbit",
                true,
            ),
            (
                by_list,
                "Second, yes. The first, no thanks.",
                "piranesi",
                "hobbit",
                true,
            ),
        ] {
            let read = cues_after(request, reply);
            assert_eq!(read.reply, Reply::Affirms, "{reply}");
            assert_eq!(read.answer_items, [answered], "{reply}");
            assert_eq!(
                read.held_back_items,
                [(held.to_owned(), refused)],
                "{reply}"
            );
        }
        // A list line writing a record's id: naming the item names the record.
        let with_ids = "To confirm, I'll cancel both orders:\n* #W9300146 — Laptop\n\
                        * #W4597054 — Desk lamp\nProceed?";
        let read = cues_after(with_ids, "Yes to the lamp. Not the laptop.");
        assert_eq!(read.reply, Reply::Affirms);
        assert_eq!(read.answer_records, ["w4597054"]);
        assert_eq!(read.held_back, [("w9300146".to_owned(), true)]);
        // Every item answered yes, or none named: nothing held back, and the
        // reply is read as written (a yes to the whole).
        for reply in ["Jira yes. Confluence, yes too.", "Yes to both."] {
            let read = cues_after(by_and, reply);
            assert_eq!(read.reply, Reply::Affirms, "{reply}");
            assert!(
                read.answer_items.is_empty() && read.held_back_items.is_empty(),
                "{reply}"
            );
        }
        // One thing of a list named where the request asks about one action
        // is a detail, not an item answered alone.
        let read = cues_after(
            "Confluence offers viewer, editor and space-admin. Shall I grant you editor?",
            "yes, editor please",
        );
        assert_eq!(read.reply, Reply::Affirms);
        assert!(read.answer_items.is_empty() && read.held_back_items.is_empty());
    }

    #[test]
    fn a_reply_answering_record_by_record_answers_each_alone() {
        let lexicon = lexicon_of(&[&["refill", "refilled"]]);
        let summary = "I can refill RX-40812 (Atorvastatin 20 mg) and RX-40877 (Lisinopril 10 mg), \
                       both for pickup at Elm Street. Do you want both refills?";
        let cues = |reply: &str| {
            let mut asked = AskedWords::default();
            let _ = turn_cues(Role::Agent, summary, &lexicon, &mut asked);
            turn_cues(Role::User, reply, &lexicon, &mut asked)
        };
        for (reply, refused) in [
            ("RX-40812 yes. RX-40877 no, I stopped taking it.", true),
            ("RX-40812: yes. RX-40877: no.", true),
            ("RX-40812 yes please, RX-40877 no thanks.", true),
            ("RX-40812: yes, RX-40877: no", true),
            (
                "Go ahead with RX-40812. Leave the other one, I'm not taking it.",
                false,
            ),
            ("Yes to RX-40812. Hold off on the other one.", false),
            ("Yes to RX-40812.", false),
            (
                "Yes, refill RX-40812. What does RX-40877 cost these days?",
                false,
            ),
        ] {
            let read = cues(reply);
            assert_eq!(read.reply, Reply::Affirms, "{reply}");
            assert_eq!(read.answer_records, ["40812", "rx40812"], "{reply}");
            assert!(
                holds_back(&read, "rx40877"),
                "{reply}: {:?}",
                read.held_back
            );
            if refused {
                assert!(read.held_back.iter().all(|(_, no)| *no), "{reply}");
            }
        }
        // The answer reaches the other record too, or names no record of the
        // request: nothing is passed over.
        for reply in [
            "Yes to RX-40812. The other one too.",
            "Yes to both, RX-40812 first.",
            "Yes, go ahead.",
        ] {
            let read = cues(reply);
            assert_eq!(read.reply, Reply::Affirms, "{reply}");
            assert!(read.held_back.is_empty(), "{reply}: {:?}", read.held_back);
        }
        // Labels answered yes and no: the no answers, it is no field value.
        // A label naming what the request wrote with its id answers that
        // record; one it paired with none cannot be placed.
        let read = cues("Atorvastatin: yes. Lisinopril: no.");
        assert_eq!(read.reply, Reply::Affirms);
        assert_eq!(read.answer_records, ["rx40812"]);
        assert_eq!(read.held_back, [("rx40877".to_owned(), true)]);
        let read = cues("Statin: yes. Lisinopril: no.");
        assert_ne!(read.reply, Reply::Affirms);
        for details in [
            "Insurance: no. Confirm: yes.",
            "Insurance: no. Pickup reminder: yes. Yes, please refill both.",
        ] {
            assert_eq!(cues(details).reply, Reply::Affirms, "{details}");
        }
        // An identifier before the yes or no heads the answer.
        assert_eq!(cues("RX-40812 yes.").reply, Reply::Affirms);
        assert_eq!(cues("RX-40812 no.").reply, Reply::Refuses);
    }

    #[test]
    fn a_sentence_holding_back_another_of_the_records_is_that_records_alone() {
        let lexicon = lexicon_of(&[&["cancel", "cancelled"]]);
        let summary = "Shall I cancel orders #W1234567 and #W7654321?";
        let cues = |reply: &str| {
            let mut asked = AskedWords::default();
            let _ = turn_cues(Role::Agent, summary, &lexicon, &mut asked);
            turn_cues(Role::User, reply, &lexicon, &mut asked)
        };
        for (reply, refused) in [
            (
                "Yes, cancel #W1234567. Please leave #W7654321 as is.",
                false,
            ),
            ("Yes, cancel #W1234567. Do not cancel #W7654321.", true),
            (
                "Keep #W7654321 for now. Yes, go ahead with #W1234567.",
                false,
            ),
            (
                "Yes, cancel #W1234567. For #W7654321, let's hold off until it arrives.",
                false,
            ),
        ] {
            let read = cues(reply);
            assert_eq!(read.reply, Reply::Affirms, "{reply}");
            assert_eq!(read.answer_records, ["w1234567"], "{reply}");
            assert_eq!(read.held_back.len(), 1, "{reply}");
            assert_eq!(read.held_back[0].0, "w7654321", "{reply}");
            // Refused or only put off: the yes is no yes to a call on it.
            if refused {
                assert!(read.held_back[0].1, "{reply}");
            }
        }
        for reply in [
            // The same record the yes names.
            "Yes, cancel #W1234567. Actually hold off on #W1234567 until Friday.",
            // Everything, or an anaphor before the record: past its records.
            "Yes, cancel #W1234567. Hold off on everything, #W7654321 included.",
            "Yes, cancel #W1234567. Wait on that, #W7654321 first.",
            // A record of another kind than the ones the reply addresses.
            "Yes, cancel #W1234567. Don't touch item 4983901480.",
        ] {
            // Nothing held back; a yes naming one of the two passes over
            // the other.
            let read = cues(reply);
            assert!(
                read.held_back
                    .iter()
                    .all(|(id, refused)| id == "w7654321" && !refused),
                "{reply}: {:?}",
                read.held_back
            );
        }
        // A yes naming nothing, beside a sentence keeping one of the records
        // the request named, is a yes to the other.
        let read = cues("Yes, go ahead. Keep #W7654321 as is.");
        assert_eq!(read.reply, Reply::Affirms);
        assert!(
            !read.held_back.is_empty() && read.held_back.iter().all(|(id, _)| id == "w7654321"),
            "{:?}",
            read.held_back
        );
        let same = cues("Yes, cancel #W1234567. Actually hold off on #W1234567 until Friday.");
        assert_ne!(same.reply, Reply::Affirms);
        // A question naming only the other record asks about that one: the
        // yes stands for the record it names, and the other has none.
        let read = cues("Yes, cancel #W1234567. How long will #W7654321 take to arrive?");
        assert_eq!(read.reply, Reply::Affirms);
        assert_eq!(read.answer_records, ["w1234567"]);
        assert_eq!(read.held_back, [("w7654321".to_owned(), false)]);
        // The consent rule: a reply holding back a key record is no yes to
        // its call; the other record's call has its yes.
        let turns = [
            Turn::with_lexicon(0, Role::Agent, summary, lexicon.clone()),
            Turn::with_lexicon(
                1,
                Role::User,
                "Yes, cancel #W1234567. Do not cancel #W7654321.",
                lexicon.clone(),
            ),
        ];
        assert!(
            consent(&turns, &["#W1234567"]).is_given(),
            "{:?}",
            consent(&turns, &["#W1234567"])
        );
        assert!(!consent(&turns, &["#W7654321"]).is_given());
        let only_the_other = [
            Turn::with_lexicon(
                0,
                Role::Agent,
                "Shall I cancel order #W7654321?",
                lexicon.clone(),
            ),
            Turn::with_lexicon(
                1,
                Role::User,
                "Yes, cancel #W1234567. Do not cancel #W7654321.",
                lexicon.clone(),
            ),
        ];
        assert!(!consent(&only_the_other, &["#W7654321"]).is_given());
    }

    #[test]
    fn what_a_reply_says_after_or_around_its_yes_is_read_by_its_class() {
        let lexicon = lexicon_of(&[&["freeze", "frozen"], &["unfreeze"]]);
        let summary = "I'll freeze card CARD-7731, the one ending 4821. Shall I go ahead?";
        assert_replies_in(
            &lexicon,
            summary,
            &[
                // A complaint conceded before the go-ahead.
                (
                    "Not thrilled that it's phone-only and I can't get an answer, but fine, go ahead.",
                    Reply::Affirms,
                ),
                ("Don't freeze it, but go ahead.", Reply::Refuses),
                ("Go ahead, but only if there is no fee.", Reply::Qualifies),
                // The next request, placed after the action.
                (
                    "Yes. Once that's done, I need my other card's pin reset, but only after Friday.",
                    Reply::Affirms,
                ),
                (
                    "Yes. After that, I'd like a new statement if it's free.",
                    Reply::Affirms,
                ),
                (
                    "Yes. Once you've checked the fee, go ahead.",
                    Reply::Qualifies,
                ),
                ("Yes, do it once my paycheck clears.", Reply::Qualifies),
                // An offer of more.
                (
                    "Yes, go ahead. Is there anything else you need from me before you submit it?",
                    Reply::Affirms,
                ),
                ("Yes. Do you need anything more from me?", Reply::Affirms),
                (
                    "Yes, but before you do it, what's the fee?",
                    Reply::Qualifies,
                ),
                (
                    "Yes. Can you show me the final summary before you submit it?",
                    Reply::Qualifies,
                ),
                // Words that only look like markers.
                (
                    "Yes, go ahead. Please tell me how the new card will be provided.",
                    Reply::Affirms,
                ),
                (
                    "Yes, go ahead provided the fee is waived.",
                    Reply::Qualifies,
                ),
                (
                    "Yes, go ahead. You'll post it in my account as well (not just by email), correct?",
                    Reply::Affirms,
                ),
                // A contingency is a condition, not a withdrawal.
                (
                    "Yes, go ahead. If there is a fee, pause and let me know first.",
                    Reply::Qualifies,
                ),
                ("Yes, go ahead. Actually, hold on.", Reply::Withdraws),
                // A negation in a case the user concedes.
                (
                    "Yes, go ahead, even if you can't tell me the exact date.",
                    Reply::Affirms,
                ),
                ("Yes, go ahead, but I can't pay a fee.", Reply::Qualifies),
                // The next request's own bounds and conditions are its own.
                (
                    "Yes, go ahead. Once that's done, I also need my other card's pin reset, but not before Friday.",
                    Reply::Affirms,
                ),
                (
                    "Yes please. After that, could you check whether my other card is active, if it isn't expired already?",
                    Reply::Affirms,
                ),
                (
                    "Yes. Once that's done, don't freeze it after all.",
                    Reply::Refuses,
                ),
                ("Yes, go ahead. Also, no.", Reply::Refuses),
            ],
        );
    }

    /// Things a request names in a statement and again in its question
    /// are one layout, restated: a reply answers them one by one. Two
    /// sentences joining different things are two layouts, and neither is
    /// read as items.
    #[test]
    fn a_layout_restated_in_the_question_is_one_layout() {
        let lexicon = lexicon_of(&[&["renew", "renewed"]]);
        let cues_after = |request: &str, reply: &str| reply_cues(&lexicon, request, reply);
        let restated = "Both of your loans can be renewed: Dune (LN-48230, print) and Circe \
                        (LN-48231, ebook). Would you like me to renew Dune and Circe?";
        // Each answered as the record its name's bracket writes.
        let read = cues_after(restated, "Dune: yes / Circe: no");
        assert_eq!(read.reply, Reply::Affirms);
        assert_eq!(read.answer_records, ["ln48230"]);
        assert_eq!(read.held_back, [("ln48231".to_owned(), true)]);
        // Statements joining other things: the question's layout is what
        // the reply answers.
        let two_layouts = "I can renew Dune and Circe. Kafka and Beloved are held by others. \
                           Would you like me to renew Dune and Circe?";
        let read = cues_after(two_layouts, "Dune: yes / Circe: no");
        assert_eq!(read.answer_items, ["dune"]);
        assert_eq!(read.held_back_items, [("circe".to_owned(), true)]);
        let asked_of_all = "You have Dune, Circe and Emma out. I can renew Dune and Circe. \
                            Would you like me to renew Dune and Circe?";
        let read = cues_after(asked_of_all, "Dune: yes / Circe: no");
        assert_eq!(read.answer_items, ["dune"]);
        // With no question joining things, two statements joining others
        // lay out none.
        let no_question_layout = "I can renew Dune and Circe. Kafka and Beloved are held by \
                                  others. Shall I go ahead?";
        let read = cues_after(no_question_layout, "Dune: yes / Circe: no");
        assert!(read.answer_items.is_empty() && read.held_back_items.is_empty());
    }

    /// An order to do the action, naming what was asked (its id, a number
    /// naming it, its name beside its id, or the one thing laid out), says
    /// yes as "Yes, …" would: what follows it qualifies it or holds a
    /// record back, a name of one of several things is read as its record,
    /// and an order naming nothing particular, another thing, or put as a
    /// question says no yes.
    #[test]
    fn an_order_naming_what_was_asked_says_yes_to_it() {
        let mut words = words_of(&[&["renew", "renewed"], &["cancel", "cancelled"]]);
        words.record_nouns = vec!["loan".to_owned(), "hold".to_owned()];
        let lexicon = Arc::new(Lexicon::new(&words));
        let one = "Your loan of The Hobbit (LN-48230) can be renewed to 2026-12-20. \
                   Shall I renew The Hobbit?";
        assert_replies_in(
            &lexicon,
            one,
            &[
                ("Renew The Hobbit.", Reply::Affirms),
                ("just renew the hobbit please", Reply::Affirms),
                ("Renew LN-48230.", Reply::Affirms),
                (
                    "Renew The Hobbit if it's still free next week.",
                    Reply::Qualifies,
                ),
                ("Renew The Hobbit. Actually no, hold on.", Reply::Withdraws),
                ("Don't renew The Hobbit.", Reply::Refuses),
            ],
        );
        for reply in [
            "Can you renew The Hobbit?",
            "Renew the other one.",
            "Renew the loan.",
        ] {
            assert_ne!(
                reply_cues(&lexicon, one, reply).reply,
                Reply::Affirms,
                "{reply}"
            );
        }
        let two = "The two holds:\n- Cancel the hold on Normal People (HD-8901, print)\n\
                   - Cancel the hold on The Overstory (HD-8902, print)\nShall I cancel both?";
        let read = reply_cues(&lexicon, two, "Cancel Normal People then.");
        assert_eq!(read.reply, Reply::Affirms);
        assert_eq!(read.answer_records, ["hd8901"]);
        assert!(holds_back(&read, "hd8902"), "{:?}", read.held_back);
    }

    /// A number a person names a record by ("the card ending 4411") is
    /// part of the answer of a sentence saying yes, not of one holding it
    /// back; a sentence about another record saying neither yes nor the
    /// action, nor adding it, holds it back; a thing that "can wait" waits.
    #[test]
    fn a_yes_picks_or_sets_apart_the_records_it_names() {
        let lexicon = lexicon_of(&[&["refill", "refilled"]]);
        let refills = "Your three prescriptions have refills left:\n\
                       1. Lisinopril 10 mg (RX-47031)\n\
                       2. Metformin 850 mg (RX-47032)\n\
                       3. Simvastatin 20 mg (RX-47033)\n\
                       Shall I refill RX-47031, RX-47032 and RX-47033?";
        let picked = reply_cues(&lexicon, refills, "Yes, refill the metformin.");
        assert_eq!(picked.reply, Reply::Affirms);
        assert_eq!(picked.answer_records, ["rx47032"]);
        // Naming every record, or a remark naming one after the yes, picks
        // nothing (no held-back id); setting one apart holds it back, as
        // written and as its digits.
        for (reply, held) in [
            (
                "Yes, refill the lisinopril, the metformin and the simvastatin.",
                None,
            ),
            ("Yes. The metformin is the one I'm almost out of.", None),
            ("Yes, but not the metformin.", Some("47032")),
            ("Yes, except RX-47032.", Some("47032")),
            ("Yes. Not RX-47032 though.", Some("47032")),
            ("Yes. Skip the metformin.", Some("47032")),
            ("Yes please, all except the metformin", Some("47032")),
        ] {
            let read = reply_cues(&lexicon, refills, reply);
            assert_eq!(read.reply, Reply::Affirms, "{reply}");
            let as_expected = match held {
                None => read.answer_records.is_empty() && read.held_back.is_empty(),
                Some(id) => {
                    !read.held_back.is_empty()
                        && read.held_back.iter().all(|(held, _)| held.ends_with(id))
                }
            };
            assert!(
                as_expected,
                "{reply}: {:?} {:?}",
                read.answer_records, read.held_back
            );
        }
        assert_none_reads_as(
            &lexicon,
            refills,
            &[
                "Yes, but only RX-47031.",
                "Yes, but just the metformin.",
                "Yes. I need RX-47031 though.",
                "Yes, but RX-47032 first.",
            ],
            Reply::Affirms,
        );
    }

    /// A reply saying no yes that only picks among the records a request
    /// laid out is the yes it stands for, to those records; a word of a
    /// request about one thing, a question, a negator or a verb is no
    /// pick. A yes with *but* and no comma after it reads as one with.
    #[test]
    fn a_bare_pick_is_the_yes_it_stands_for() {
        let lexicon = lexicon_of(&[&["renew", "renewed"], &["refill"]]);
        let loans = "- Renew Dune (LN-7, print)\n- Renew Circe (LN-12, ebook)\n\
                     Shall I renew LN-7 (Dune) and LN-12 (Circe)?";
        for (reply, record) in [
            ("just LN-12", "ln12"),
            ("ln-12 only", "ln12"),
            ("LN-7 please.", "ln7"),
            ("Just the Circe one, thanks.", "ln12"),
        ] {
            let read = reply_cues(&lexicon, loans, reply);
            assert_eq!(read.reply, Reply::Affirms, "{reply}");
            assert_eq!(read.answer_records, [record], "{reply}");
        }
        assert_none_reads_as(
            &lexicon,
            loans,
            &["LN-12?", "not LN-12", "LN-12 I think", "LN-12 is overdue"],
            Reply::Affirms,
        );
        let one = "Shall I refill your atenolol for pickup at Main St? A text or an email?";
        assert_ne!(
            reply_cues(&lexicon, one, "text please").reply,
            Reply::Affirms
        );
        let ordered = reply_cues(&lexicon, loans, "Renew LN-12.");
        assert_eq!(ordered.reply, Reply::Affirms);
        assert_eq!(ordered.answer_records, ["ln12"]);
        let read = reply_cues(&lexicon, loans, "yes but not LN-7");
        assert_eq!(read.reply, Reply::Affirms);
        assert!(holds_back(&read, "ln7"), "{:?}", read.held_back);
    }

    #[test]
    fn what_a_reply_says_of_each_record_it_names_is_its_own() {
        let lexicon = lexicon_of(&[&["freeze", "frozen"], &["hold", "held"], &["file"]]);
        let cards = "I can freeze card ending 2290 and card ending 5517 with the reason \
                     stolen. Freeze both?";
        let read = reply_cues(&lexicon, cards, "Yes, freeze the card ending 2290.");
        assert_eq!(read.reply, Reply::Affirms);
        assert!(read.answer_records.iter().any(|r| r == "2290"));
        let read = reply_cues(
            &lexicon,
            cards,
            "yes freez 2290. dont touch 5517 its in my other jacket at home",
        );
        assert!(!read.answer_records.iter().any(|r| r == "5517"));
        let parcels = "PK-82033, PK-82061 and PK-82090 are in transit. Shall I hold all three \
                       at the Elm Street Locker?";
        let read = reply_cues(
            &lexicon,
            parcels,
            "Yes, hold PK-82061 and PK-82090 at the locker. PK-82033 — let it be delivered \
             normally, please.",
        );
        assert_eq!(read.reply, Reply::Affirms);
        assert!(holds_back(&read, "pk82033"));
        for added in [
            "Yes, hold PK-82061. PK-82090 too.",
            "Yes, hold PK-82061. Hold PK-82090.",
        ] {
            let read = reply_cues(&lexicon, parcels, added);
            assert!(
                !holds_back(&read, "pk82090"),
                "{added}: {:?}",
                read.held_back
            );
        }
        let claims = "Proposed claims: PK-71402, refund_to_original; PK-71455, \
                      refund_to_original. File both?";
        let read = reply_cues(
            &lexicon,
            claims,
            "Yes, file PK-71455. The delivered one can wait a bit.",
        );
        assert_ne!(read.reply, Reply::Affirms);
        let read = reply_cues(
            &lexicon,
            claims,
            "Yes, file both. I can wait for the refund.",
        );
        assert_eq!(read.reply, Reply::Affirms);
    }

    /// A reply correcting itself to a yes holds back what it held back
    /// after the correction, counted from its first sentence.
    #[test]
    fn a_record_held_back_after_a_correction_is_that_one() {
        let lexicon = lexicon_of(&[&["revoke", "revoked"]]);
        let request = "On E8405 I can revoke:\n- VPN (vpn), role user\n- GitHub (github), role \
                       developer\nShall I revoke these two?";
        let read = reply_cues(
            &lexicon,
            request,
            "no to both, I'll just leave them... actually ok, go ahead with the vpn one. \
             github stays",
        );
        assert_eq!(read.reply, Reply::Affirms);
        assert!(
            read.held_back_items
                .iter()
                .any(|(item, _)| item == "github"),
            "{:?}",
            read.held_back_items
        );
        assert!(!read.held_back_items.iter().any(|(item, _)| item == "vpn"));
    }

    /// A thing the request wrote with its record id beside it (a bracket
    /// holding the id after its name, its name in a bracket after the id,
    /// or the id alone in the clause after it), held back by its name, is
    /// held back as that record; the rest of the reply is its answer. A word
    /// two such names share names neither, and a name the request paired
    /// with no id leaves the reply read as written.
    #[test]
    fn a_thing_held_back_by_its_name_is_held_back_as_its_record() {
        let lexicon = lexicon_of(&[&["wipe", "wiped"], &["cancel", "cancelled"]]);
        let held = |request: &str, reply: &str, answered: &str, held: &str| {
            let read = reply_cues(&lexicon, request, reply);
            assert_eq!(read.reply, Reply::Affirms, "{reply}");
            assert!(
                read.answer_records.iter().any(|id| id == answered),
                "{reply}: {:?}",
                read.answer_records
            );
            assert!(holds_back(&read, held), "{reply}: {:?}", read.held_back);
            assert!(!read.answer_records.iter().any(|id| id == held), "{reply}");
        };
        let bracketed = "You have two laptops:\n- MacBook Pro (LT-77201)\n- ThinkPad X1 \
                         (LT-77342)\nShall I wipe LT-77201 and LT-77342?";
        held(
            bracketed,
            "Go ahead with the MacBook. Leave the ThinkPad as it is.",
            "lt77201",
            "lt77342",
        );
        held(
            bracketed,
            "- MacBook: yes, wipe it\n- ThinkPad: hold off for now",
            "lt77201",
            "lt77342",
        );
        let id_first = "I can cancel RF-90061 (Vitamin D 1000 IU) and RF-90062 (Iron tablets \
                        65 mg). Cancel both refills?";
        held(
            id_first,
            "Yes to the vitamin D. No to the iron tablets.",
            "rf90061",
            "rf90062",
        );
        let dashed = "Both are flagged stolen:\n- ThinkPad X1 — asset LT-77342\n- MacBook Pro \
                      — asset LT-77201\nShall I wipe both?";
        held(
            dashed,
            "Only the MacBook, please wipe it. The ThinkPad stays as is.",
            "lt77201",
            "lt77342",
        );
        // A turn before the request may name what the request names by
        // its id alone.
        let mut asked = AskedWords::default();
        for request in [
            "You have two laptops:\n- MacBook Pro (LT-77201)\n- ThinkPad X1 (LT-77342)",
            "Wiping cannot be undone. Shall I wipe LT-77201 and LT-77342?",
        ] {
            let _ = turn_cues(Role::Agent, request, &lexicon, &mut asked);
        }
        let reply = "Yes, wipe the MacBook. Leave the ThinkPad as it is.";
        let read = turn_cues(Role::User, reply, &lexicon, &mut asked);
        assert_eq!(read.reply, Reply::Affirms);
        assert_eq!(read.answer_records, ["lt77201"]);
        assert!(holds_back(&read, "lt77342"));
        // "Visa" names both cards: the reply is read as written.
        let shared = "- Visa Gold (CD-40011)\n- Visa Debit (CD-40022)\nShall I cancel both?";
        let read = reply_cues(
            &lexicon,
            shared,
            "Cancel the Gold. Leave the Visa as it is.",
        );
        assert!(read.held_back.is_empty(), "{:?}", read.held_back);
        assert_ne!(read.reply, Reply::Affirms);
        // A name paired with no id ("The HP" of "HP ProBook 450") leaves a
        // reply naming it read as written.
        let unpaired = "- HP ProBook 450 (LT-51201)\n- Lenovo ThinkPad T16 (LT-51342)\nShall I \
                        wipe LT-51201 and LT-51342?";
        let read = reply_cues(
            &lexicon,
            unpaired,
            "The HP, yes.\nAnd the Lenovo — yes too, wipe it.",
        );
        assert!(read.held_back.is_empty(), "{:?}", read.held_back);
    }

    /// A thing a request joins is named by its whole name, not only the
    /// word beside the coordinator ("the metformin refill RF-30811",
    /// "sertraline 25 mg"): a reply naming it by any word of its own
    /// answers for the record its name writes. A record id written in two
    /// words ("RX-6120") is answered as one.
    #[test]
    fn things_a_request_joins_are_named_by_their_whole_names() {
        let lexicon = lexicon_of(&[&["cancel"], &["refill"], &["transfer"]]);
        let cues_after = |request: &str, reply: &str| reply_cues(&lexicon, request, reply);
        let refills = "Shall I cancel the metformin refill RF-30811 and the lisinopril \
                       refill RF-30812?";
        for reply in [
            "metformin yes, lisinopril no",
            "Metformin: yes. Lisinopril: no.",
        ] {
            let read = cues_after(refills, reply);
            assert_eq!(read.reply, Reply::Affirms, "{reply}");
            assert_eq!(read.answer_records, ["rf30811"], "{reply}");
            assert_eq!(read.held_back, [("rf30812".to_owned(), true)], "{reply}");
        }
        let medications = "I found sertraline 25 mg (RX-93011) and escitalopram 10 mg \
                           (RX-93022). Shall I transfer sertraline 25 mg and escitalopram \
                           10 mg to Rite Aid?";
        let read = cues_after(
            medications,
            "Yes, transfer the sertraline. As for the escitalopram, I haven't made up my mind.",
        );
        assert_eq!(read.answer_records, ["rx93011"]);
        assert_eq!(read.held_back, [("rx93022".to_owned(), false)]);
        let short_ids = "Shall I refill RX-6120 and RX-6121?";
        let read = cues_after(short_ids, "RX-6120 yes. RX-6121 no");
        assert_eq!(read.reply, Reply::Affirms);
        assert_eq!(read.answer_records, ["rx6120"]);
        assert_eq!(read.held_back, [("rx6121".to_owned(), true)]);
    }

    /// A yes that holds back a part of what the request laid out, when the
    /// reader cannot place which part ("yes to the first one, no to the
    /// second" to a list it could not read as items), is qualified: it is
    /// not a yes to every call. A yes to all of them, a plain yes with a
    /// negation about something else, and a pick the request asked for
    /// are read as before.
    #[test]
    fn a_yes_holding_back_a_part_the_reader_cannot_place_is_qualified() {
        let lexicon = lexicon_of(&[&["renew", "renewed"], &["freeze", "frozen"]]);
        let cues_after = |request: &str, reply: &str| reply_cues(&lexicon, request, reply);
        // Lines naming their things alike lay out no items the reader can
        // name.
        let listed = "Here is what I can renew:\n1. Your first loan (LN-51120)\n\
                      2. Your second loan (LN-51121)\nDo you want both renewed?";
        let cards = "Your business card ends 1620 and your personal card ends 8407. \
                     Shall I freeze both cards?";
        for (request, reply, read) in [
            (
                listed,
                "yes to the first one, no to the second",
                Reply::Qualifies,
            ),
            (
                listed,
                "Yes to the first one. No to the second one.",
                Reply::Qualifies,
            ),
            (listed, "yes, the first one only", Reply::Qualifies),
            (
                listed,
                "yes for the first, not the second",
                Reply::Qualifies,
            ),
            (
                listed,
                "Yes to Wolf Hall. No to Station Eleven.",
                Reply::Qualifies,
            ),
            (listed, "just the first one please, yes", Reply::Qualifies),
            (listed, "yes please, both", Reply::Affirms),
            (
                listed,
                "Yes, go ahead. I just want it done.",
                Reply::Affirms,
            ),
            (
                listed,
                "Yes, go ahead and renew them, I just need more time.",
                Reply::Affirms,
            ),
            (listed, "Yes, renew them, no problem.", Reply::Affirms),
        ] {
            assert_eq!(cues_after(request, reply).reply, read, "{reply}");
        }
        // A list line's title, past the action opening it, names its
        // item and the record the line writes.
        let titled = "Here is what I can renew:\n1. Renew Wolf Hall (LN-51120)\n\
                      2. Renew Station Eleven (LN-51121)\nDo you want both renewed?";
        let read = cues_after(titled, "yes to the first one, no to the second");
        assert_eq!(read.answer_records, ["ln51120"]);
        assert_eq!(read.held_back.len(), 1);
        assert_eq!(
            read.held_back.first().map(|(id, _)| id.as_str()),
            Some("ln51121")
        );
        // Names the request joins are items, each by any word of its own:
        // the business card is the one ending 1620.
        let read = cues_after(
            cards,
            "The business one, yes. The personal one not right now.",
        );
        assert_eq!(read.reply, Reply::Affirms);
        assert_eq!(read.answer_items, ["1620", "business"]);
        assert_eq!(
            read.held_back_items.first(),
            Some(&("personal".to_owned(), false))
        );
        // Asked which one to act on, a pick is the answer.
        let which = "You have Wolf Hall and Station Eleven out. Which one should I renew?";
        let read = cues_after(which, "just the first one, yes");
        assert_ne!(read.reply, Reply::Qualifies);
    }

    /// The cues of the user's `reply` to the agent's `request`.
    /// Whether a turn's answer holds the record `id` back.
    fn holds_back(read: &TurnCues, id: &str) -> bool {
        read.held_back.iter().any(|(held, _)| held == id)
    }

    /// Asserts that no reply of `replies` to the agent's `request` reads
    /// as `reply`.
    fn assert_none_reads_as(lexicon: &Arc<Lexicon>, request: &str, replies: &[&str], reply: Reply) {
        for text in replies {
            assert_ne!(reply_cues(lexicon, request, text).reply, reply, "{text}");
        }
    }

    fn reply_cues(lexicon: &Arc<Lexicon>, request: &str, reply: &str) -> TurnCues {
        let mut asked = AskedWords::default();
        let _ = turn_cues(Role::Agent, request, lexicon, &mut asked);
        turn_cues(Role::User, reply, lexicon, &mut asked)
    }

    /// A lexicon of one word list per action.
    fn lexicon_of(actions: &[&[&str]]) -> Arc<Lexicon> {
        Arc::new(Lexicon::new(&words_of(actions)))
    }

    /// The domain words of one word list per action.
    fn words_of(actions: &[&[&str]]) -> DomainWords {
        DomainWords::of_actions(actions)
    }

    /// *Yet* closing its clause is the adverb of time, no contrast: a
    /// question about another record after the yes qualifies nothing.
    /// Opening a clause, it still sets something against the yes.
    #[test]
    fn yet_closing_its_clause_is_no_contrast() {
        let lexicon = lexicon_of(&[&["hold"]]);
        let request = "To confirm: hold PC-55140 at pickup point PP-204 (Elm Street Locker)?";
        assert_none_reads_as(
            &lexicon,
            request,
            &[
                "Thanks! Also, has PC-55102 been picked up by the courier yet?",
                "Is PC-55102 there yet?",
                "Has it shipped yet, or is it still in the depot?",
            ],
            Reply::Qualifies,
        );
        assert_none_reads_as(
            &lexicon,
            request,
            &[
                "Yes, yet I'd rather wait a day.",
                "Yes. Yet maybe not today.",
            ],
            Reply::Affirms,
        );
    }

    #[test]
    fn a_turn_weighs_actions_when_two_of_its_words_share_none() {
        let lexicon = lexicon_of(&[
            &["refill"],
            &["transfer", "move"],
            &["change", "address"],
            &["change", "modify"],
        ]);
        let weighs =
            |text: &str| Turn::with_lexicon(0, Role::Agent, text, lexicon.clone()).weighs_actions();
        assert!(weighs(
            "Shall I refill it, or transfer it to the other pharmacy?"
        ));
        assert!(weighs(
            "You can't modify it yet; shall I change the address instead?"
        ));
        assert!(!weighs("Shall I refill RX-1? The refill is 30 tablets."));
        assert!(!weighs("Shall I transfer RX-1, that is move it to Elm St?"));
        assert!(
            !weighs("Shall I change the address?"),
            "one action has both words"
        );
        assert!(!weighs("Shall I go ahead?"));
        let nouns = Arc::new(Lexicon::new(&DomainWords {
            record_nouns: vec!["refill".into()],
            ..words_of(&[&["refill"], &["cancel"]])
        }));
        let weighs_with_nouns =
            |text: &str| Turn::with_lexicon(0, Role::Agent, text, nouns.clone()).weighs_actions();
        assert!(
            !weighs_with_nouns("Shall I cancel refill RF-5521?"),
            "the record's noun"
        );
    }

    /// Whether `reply` to `summary` consents to the action keyed `keys`.
    fn given_with(lexicon: &Arc<Lexicon>, summary: &str, reply: &str, keys: &[&str]) -> bool {
        let turns = [
            Turn::with_lexicon(1, Role::Agent, summary, lexicon.clone()),
            Turn::with_lexicon(2, Role::User, reply, lexicon.clone()),
        ];
        consent(&turns, keys).is_given()
    }

    #[test]
    fn a_question_ending_in_a_tag_asks_for_a_decision() {
        let it = lexicon_of(&[&["wipe", "erase"]]);
        let summary = "I'll wipe laptop LT-4471 now. Everything on it will be erased. OK?";
        assert!(given_with(&it, summary, "ok", &["LT-4471", "wipe"]));
        assert!(given_with(
            &it,
            "I'll wipe laptop LT-4471 now, sound good?",
            "Yes.",
            &["LT-4471", "wipe"]
        ));
        assert!(asks_for_decision(
            "I'll wipe laptop LT-4471 now, is that okay?"
        ));
        // A statement ending in "ok" asks nothing; a question whose last
        // clause says more is no tag.
        assert!(!asks_for_decision("The wipe of LT-4471 went ok."));
        assert!(!asks_for_decision("Is the laptop ok after the update?"));
    }

    #[test]
    fn a_yes_to_one_of_two_actions_is_no_yes_to_the_other() {
        let pharmacy = lexicon_of(&[&["refill"], &["transfer"], &["cancel"]]);
        let summary = "Shall I refill RX-20417 and transfer RX-20533 to Riverside?";
        let reply = "Yes to the transfer.";
        assert!(!given_with(
            &pharmacy,
            summary,
            reply,
            &["RX-20417", "refill"]
        ));
        assert!(given_with(
            &pharmacy,
            summary,
            reply,
            &["RX-20533", "transfer"]
        ));
        assert!(given_with(
            &pharmacy,
            summary,
            "Yes to both.",
            &["RX-20417", "refill"]
        ));
        // Only "yes to …" picks: a bare yes to both is a yes to each.
        assert!(given_with(
            &pharmacy,
            summary,
            "Yes.",
            &["RX-20417", "refill"]
        ));
    }

    #[test]
    fn two_words_of_one_action_name_the_same_action() {
        let it = lexicon_of(&[&["wipe", "erase"], &["reset"]]);
        let summary = "Shall I remotely wipe laptop LT-4471?";
        assert!(given_with(
            &it,
            summary,
            "Yes, please erase it.",
            &["LT-4471"]
        ));
        assert!(!given_with(
            &it,
            summary,
            "Yes, please reset it.",
            &["LT-4471"]
        ));
    }

    #[test]
    fn a_yes_deferred_disowned_made_conditional_or_not_meant_is_no_yes() {
        let it = lexicon_of(&[&["wipe", "erase"]]);
        let summary = "Shall I wipe laptop LT-4471?";
        for reply in [
            "Yes, but let me run it by my manager first.",
            "Yes. Actually nvm.",
            "Yes. Strike that.",
            "Yes. Please disregard my last message.",
            "Sorry, that yes was not me, my colleague typed it.",
            "Yes, subject to my manager's approval.",
            "Yes, contingent on IT security signing off.",
            "Yes, pending sign-off from security.",
            "Yes! Psych.",
            "Oh yes, absolutely. Not really.",
        ] {
            assert!(
                !given_with(&it, summary, reply, &["LT-4471", "wipe"]),
                "{reply}"
            );
        }
        assert!(given_with(
            &it,
            summary,
            "Yes, wipe the pending laptop.",
            &["LT-4471", "wipe"]
        ));
    }

    #[test]
    fn a_yes_after_another_record_of_the_kind_was_discussed_must_name_its_record() {
        let it = lexicon_of(&[&["wipe", "erase"]]);
        let given = |between: &[(Role, &str)], reply: &str| {
            let mut turns = vec![Turn::with_lexicon(
                1,
                Role::Agent,
                "Shall I wipe laptop LT-4471?",
                it.clone(),
            )];
            for (&(role, text), event) in between.iter().zip(2..) {
                turns.push(Turn::with_lexicon(event, role, text, it.clone()));
            }
            turns.push(Turn::with_lexicon(9, Role::User, reply, it.clone()));
            consent(&turns, &["LT-4471", "wipe"]).is_given()
        };
        let other = [
            (Role::User, "Is LT-4480 the old ThinkPad?"),
            (
                Role::Agent,
                "LT-4480 is your older ThinkPad, still assigned to you.",
            ),
        ];
        assert!(!given(&other, "yes wipe it"));
        assert!(given(&other, "Yes, wipe LT-4471."));
        // Another kind of identifier, or the same record again, leaves
        // nothing open.
        let ticket = [(Role::Agent, "I logged this as ticket 88213.")];
        assert!(given(&ticket, "yes wipe it"));
        let same = [(Role::Agent, "LT-4471 was reported lost on Monday.")];
        assert!(given(&same, "yes wipe it"));
        // The cue both evaluators read says the same.
        let mut asked = AskedWords::default();
        let _ = turn_cues(Role::Agent, "Shall I wipe laptop LT-4471?", &it, &mut asked);
        let _ = turn_cues(Role::User, "Is LT-4480 the old ThinkPad?", &it, &mut asked);
        assert_eq!(
            turn_cues(Role::User, "yes wipe it", &it, &mut asked).reply,
            Reply::Qualifies
        );
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
        // A unit glued to its number is the unit's word.
        assert_eq!(count_asserted("1GB please", "gb"), 1);
        assert_eq!(count_asserted("just 0.5gb of data", "gb of data"), 1);
        assert_eq!(count_asserted("not 2GB", "gb"), 0);
        assert_eq!(count_asserted("gb12 is my plan", "gb"), 0);
        assert_eq!(count_asserted("abcgb", "gb"), 0);
    }

    fn t(i: u32, role: Role, text: &str) -> Turn {
        turn(i, role, text)
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

    #[test]
    fn a_reply_correcting_itself_to_an_explicit_yes_takes_back_the_no_before_it() {
        let ask = "Shall I cancel order #W9300146?";
        let cues = |reply: &str| {
            let mut asked = AskedWords::default();
            let _ = turn_cues(Role::Agent, ask, &tau2(), &mut asked);
            turn_cues(Role::User, reply, &tau2(), &mut asked)
        };
        for reply in [
            "No — sorry, misread. Yes, please cancel it.",
            "wait sorry, I misread, yes please cancel it",
            "no no, wrong button, I meant yes",
            "nope. scratch that, yes go ahead and cancel #W9300146",
            "sorry, yes go ahead",
        ] {
            let c = cues(reply);
            assert_eq!((c.reply, c.retracts), (Reply::Affirms, true), "{reply}");
        }
        // A correction adding something of its own changes the request; a
        // plain ok, a no after the yes, or no yes at all takes nothing back.
        for reply in [
            "Actually, I'd like the refund on my card instead. Yes, go ahead.",
            "No. Sorry. Ok.",
            "Yes. Actually no, leave it.",
            "sorry, no",
            "no. wait, is there a fee?",
        ] {
            let c = cues(reply);
            assert!(!c.retracts, "{reply}: {c:?}");
            assert_ne!(c.reply, Reply::Affirms, "{reply}");
        }
        // The offline judge reads a correction over two messages the same way.
        let turns = [
            t(1, Role::Agent, ask),
            t(2, Role::User, "no"),
            t(3, Role::User, "sorry, misread. yes, please cancel it"),
        ];
        assert!(consent(&turns, &["#W9300146", "cancel"]).is_given());
        let plain_ok = [
            t(1, Role::Agent, ask),
            t(2, Role::User, "no"),
            t(3, Role::User, "ok"),
        ];
        assert!(!consent(&plain_ok, &["#W9300146", "cancel"]).is_given());
    }

    #[test]
    fn a_withdrawal_word_the_domain_acts_by_names_the_action() {
        let words = DomainWords {
            actions: vec![ActionWords {
                words: vec!["revoke".to_owned()],
                takes_away: true,
                takes_amount: false,
            }],
            record_nouns: vec!["access".to_owned()],
            ..DomainWords::default()
        };
        let lexicon = Arc::new(Lexicon::new(&words));
        let reply = |text: &str| {
            let mut asked = AskedWords::default();
            let _ = turn_cues(
                Role::Agent,
                "Shall I revoke your github access?",
                &lexicon,
                &mut asked,
            );
            turn_cues(Role::User, text, &lexicon, &mut asked).reply
        };
        assert_eq!(reply("yes please revoke my github access"), Reply::Affirms);
        assert_eq!(reply("yes. actually, undo that"), Reply::Withdraws);
        // Without the domain's word, *revoke* takes a yes back.
        let mut asked = AskedWords::default();
        let _ = turn_cues(
            Role::Agent,
            "Shall I cancel #W9300146?",
            &tau2(),
            &mut asked,
        );
        assert_eq!(
            turn_cues(
                Role::User,
                "yes, cancel it. I revoke that.",
                &tau2(),
                &mut asked
            )
            .reply,
            Reply::Withdraws
        );
    }

    /// A reply opening with a pick, then saying something of the rest, is
    /// the yes its pick stands for, the rest read as after any yes.
    #[test]
    fn a_pick_opening_a_reply_is_its_yes_and_the_rest_is_read_after_it() {
        let lexicon = lexicon_of(&[&["cancel"], &["transfer"]]);
        let request = "Here's the plan: 1) cancel refill RF-9001, Lisinopril 10mg; 2) cancel \
                       refill RF-9002, Metformin 500mg. Reply yes to proceed.";
        for reply in [
            "Only the first one. Leave RF-9002 as it is.",
            "Just RF-9001. Keep RF-9002 as it is, I still need it.",
        ] {
            let read = reply_cues(&lexicon, request, reply);
            assert_eq!(read.reply, Reply::Affirms, "{reply}");
            assert!(read.answer_records.iter().any(|r| r == "rf9001"), "{reply}");
            assert!(holds_back(&read, "rf9002"), "{reply}: {:?}", read.held_back);
        }
        for reply in [
            "Only the first one. Actually, no, do neither.",
            "Just the first one. But only after Friday.",
        ] {
            assert_ne!(
                reply_cues(&lexicon, request, reply).reply,
                Reply::Affirms,
                "{reply}"
            );
        }
    }

    /// A record said to stay as it is, by a verb of remaining, is held
    /// back beside a yes, as one kept is.
    #[test]
    fn a_record_said_to_stay_as_it_is_is_held_back() {
        let lexicon = lexicon_of(&[&["change"]]);
        let request = "Here's what I'll do: 1) change the deductible of policy POL-40218 from \
                       500 to 1000; 2) change the deductible of policy POL-40233 from 1000 to \
                       2000. OK to proceed?";
        for reply in [
            "Yes, POL-40218 only; POL-40233 remains at 1000.",
            "Yes to POL-40218. POL-40233 should stay at 1000.",
            "Yes to POL-40218. POL-40233 is left unchanged.",
        ] {
            let read = reply_cues(&lexicon, request, reply);
            assert_eq!(read.reply, Reply::Affirms, "{reply}");
            assert!(
                holds_back(&read, "pol40233"),
                "{reply}: {:?}",
                read.held_back
            );
        }
    }

    /// Items named in sentences of their own each say their own; an item
    /// is found by every word of its name no other item holds.
    #[test]
    fn items_named_apart_are_answered_apart() {
        let lexicon = lexicon_of(&[&["dispute"], &["refund"]]);
        let request = "I can open these disputes on account ACC-515020:\n1. Electricity reading \
                       rd_e_3301 (18342, taken 2026-02-27) - reason: estimated_too_high\n2. Gas \
                       reading rd_g_7710 (5521, taken 2026-02-27) - reason: \
                       estimated_too_high\nShall I go ahead?";
        let read = reply_cues(
            &lexicon,
            request,
            "The electricity reading, yes. The gas one I'll deal with myself.",
        );
        assert_eq!(read.reply, Reply::Affirms);
        assert!(read.answer_items.iter().any(|i| i == "electricity"));
        assert!(read.answer_items.iter().any(|i| i == "3301"));
        assert!(read.held_back_items.iter().any(|(i, _)| i == "gas"));
        // Naming both in one sentence answers both alike.
        let read = reply_cues(&lexicon, request, "Yes, electricity and gas, both please.");
        assert_eq!(read.reply, Reply::Affirms);
        assert!(read.held_back_items.is_empty());
        // A noun in -ing after a determiner is an item's name.
        let request = "On your Lisbon stay HBL-55120 I can: 1) refund the minibar charge ch_771 \
                       in full, 38.50; 2) refund the parking charge ch_772 in full, 25.00. Shall \
                       I go ahead?";
        let read = reply_cues(
            &lexicon,
            request,
            "Just the minibar one. The parking was fair enough, leave it.",
        );
        assert_eq!(read.reply, Reply::Affirms);
        assert!(read.answer_items.iter().any(|i| i == "minibar"));
        assert!(read.held_back_items.iter().any(|(i, _)| i == "parking"));
    }

    /// A sentence holding back an action the yes did not name leaves the
    /// yes to the actions it named.
    #[test]
    fn an_action_held_back_beside_a_yes_to_another() {
        let lexicon = lexicon_of(&[&["plan", "spread"], &["autopay", "enroll"]]);
        let request = "I can:\n1) set up a payment plan on ACC-420113: 312.40 over 4 monthly \
                       instalments;\n2) enroll ACC-420113 in autopay from your bank account \
                       ending 5583.\nShall I do both?";
        for reply in [
            "Yes to the payment plan. Hold off on the autopay though - I want to see the first \
             instalment go through.",
            "Yes to the payment plan. No autopay for now.",
        ] {
            let read = reply_cues(&lexicon, request, reply);
            assert_eq!(read.reply, Reply::Affirms, "{reply}");
            assert_eq!(
                read.answer_actions.len(),
                1,
                "{reply}: {:?}",
                read.answer_actions
            );
        }
        let read = reply_cues(
            &lexicon,
            request,
            "Yes to the payment plan. And autopay too.",
        );
        assert_eq!(read.reply, Reply::Affirms);
        assert_ne!(
            reply_cues(
                &lexicon,
                request,
                "Yes to both. Hold off on the autopay though."
            )
            .reply,
            Reply::Affirms
        );
    }

    /// A yes, then a clause saying something the request named stays as
    /// it is, qualifies; one about something else, a person or what the
    /// request itself kept does not.
    #[test]
    fn a_yes_then_what_was_asked_stays_as_it_is_qualifies() {
        let lexicon = lexicon_of(&[&["switch", "change"]]);
        let request = "I'll switch the payment of order #W4402198 from the Visa ending 1187 to \
                       PayPal (paypal_5531); the Visa is refunded in 5-7 business days. Nothing \
                       else changes. Shall I proceed?";
        for reply in [
            "Yes. The Visa should stay the payment method.",
            "Yes, but the Visa remains the card on it.",
        ] {
            assert_eq!(
                reply_cues(&lexicon, request, reply).reply,
                Reply::Qualifies,
                "{reply}"
            );
        }
        for reply in [
            "Yes. The jacket should be left unchanged.",
            "Yes, I'll stay on the line.",
            "Yes. Please confirm the refund stays on the Visa.",
            "Yes. My Oslo stay is fine.",
            "Yes, and the password stays valid for a day.",
        ] {
            assert_eq!(
                reply_cues(&lexicon, request, reply).reply,
                Reply::Affirms,
                "{reply}"
            );
        }
    }

    /// A yes setting "the other" apart from a pick no word of it places is
    /// qualified.
    #[test]
    fn the_other_set_apart_from_an_unplaced_pick_qualifies() {
        let lexicon = lexicon_of(&[&["raise", "increase"]]);
        let request = "Both cards are active. 1) Raise your card ending 6604 (card_6604) from \
                       4,000 to 6,000; 2) raise your card ending 9150 (card_9150) from 2,500 to \
                       5,000. Shall I do both?";
        assert_eq!(
            reply_cues(
                &lexicon,
                request,
                "Yes - the bigger one. Leave the other alone for now."
            )
            .reply,
            Reply::Qualifies
        );
        let read = reply_cues(
            &lexicon,
            request,
            "Yes, the 6604 one. Leave the other alone for now.",
        );
        assert_ne!(read.reply, Reply::Qualifies);
        // "Not the other" inside the yes's own sentence selects a part: no
        // yes the reader can place either (and *yet* closing it is no
        // contrast).
        assert_none_reads_as(
            &lexicon,
            request,
            &[
                "Yes, the cheaper one please, not the other for now.",
                "Yes, the cheaper one please, not the other yet.",
                "Yes, the cheaper one please. Not the other.",
            ],
            Reply::Affirms,
        );
    }
}
