//! A domain's words, as the reader takes them from a bundle: which words
//! name the domain's actions and records ([`DomainWords`], what a bundle
//! declares), compiled once per bundle into a [`Lexicon`] that tags every
//! word of a turn as the turn is tokenized. The grammar then asks a word
//! whether it is, say, a word for an action ([`DomainClass`]) or opens a
//! domain phrase ([`DomainPhrase`]) without knowing the domain.
//!
//! Everything English (yes, no, negation, hedges, question shapes) is the
//! reader's own (`lexicon.rs`, matched through `vocabulary.rs`); nothing
//! here lists a word.

use std::sync::{Arc, LazyLock};

use hashbrown::HashMap;
use smol_str::SmolStr;

use super::tokens::{Word, normalise, words};

/// The words a domain's bundle gives the reader, each list in normalised
/// word form (lower case) or as phrases (a phrase is its words separated by
/// spaces). The lists are read as the field documentation says; the
/// compiled bundle builds one [`Lexicon`] from them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DomainWords {
    /// Words naming a state-changing action of the domain, in every form a
    /// turn writes them ("cancel", "cancellation", "refill").
    pub action_words: Vec<String>,
    /// Stems of the action words: a clause holding a word that opens with
    /// one (four letters or more; a shorter stem must be the whole word)
    /// bears on the action.
    pub action_stems: Vec<String>,
    /// Nouns for an action: "after the change" presupposes it.
    pub action_nouns: Vec<String>,
    /// Field names whose value is the answer itself ("Cancel: no").
    pub decision_labels: Vec<String>,
    /// Words saying an action has happened ("cancelled"): "once it's
    /// cancelled" asks to be told afterwards, it makes nothing conditional.
    pub completions: Vec<String>,
    /// Words a `no` interjection may lead into ("no, cancel …").
    pub interjection_followers: Vec<String>,
    /// Nouns for the records an action is about ("order", "flights").
    pub object_words: Vec<String>,
    /// Nouns after an ordinal that pick one of several records a request
    /// named ("the second order").
    pub record_nouns: Vec<String>,
    /// Actions that take something away from the user (a cancellation, a
    /// return): after a request for one, the user's "no need" for the thing
    /// restates the reason.
    pub removal_actions: Vec<String>,
    /// Stems of handing the user over to a person ("transf").
    pub hand_over_stems: Vec<String>,
    /// Words for the people a user may be handed over to ("human", "agent").
    pub hand_over_people: Vec<String>,
    /// Go-ahead phrases naming an action ("please cancel", "book it").
    pub go_ahead: Vec<String>,
    /// Phrases holding a negator that negate nothing the user is asked
    /// about (a status "not yet shipped", a reason "no longer needed").
    pub neutral_negations: Vec<String>,
    /// Descriptions of a record's state that hold a withdrawal phrase ("not
    /// yet processed"): they describe, they withdraw nothing.
    pub state_descriptions: Vec<String>,
    /// Phrases by which a user moves on to another request about another
    /// record ("another order").
    pub new_topics: Vec<String>,
}

/// A class of single words of the domain, carried by each word of a turn
/// read with the domain's [`Lexicon`] (one bit per class).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DomainClass {
    /// [`DomainWords::action_words`].
    ActionWord,
    /// Opens with a stem of [`DomainWords::action_stems`].
    ActionStem,
    /// [`DomainWords::action_nouns`].
    ActionNoun,
    /// [`DomainWords::decision_labels`].
    DecisionLabel,
    /// [`DomainWords::completions`].
    Completion,
    /// [`DomainWords::interjection_followers`].
    InterjectionFollower,
    /// [`DomainWords::object_words`].
    ObjectWord,
    /// [`DomainWords::record_nouns`].
    RecordNoun,
    /// [`DomainWords::hand_over_people`].
    HandOverPerson,
    /// Opens with a stem of [`DomainWords::hand_over_stems`].
    HandOver,
    /// A form of an action word: it opens with an action word's first
    /// [`FORM_STEM`] letters ("cancelled", "transferring").
    ActionForm,
    /// A form of a removal action ([`DomainWords::removal_actions`], by
    /// their first [`FORM_STEM`] letters).
    RemovalForm,
}

/// How many first letters two forms of an action word share ("cance" of
/// "cancelled" and "cancellation").
pub(crate) const FORM_STEM: usize = 5;

impl DomainClass {
    const fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// A class of phrases of the domain. Each word of a turn read with the
/// domain's [`Lexicon`] carries, per class, the length of the phrase of
/// that class starting at it in its sentence (the longest, if several do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DomainPhrase {
    /// [`DomainWords::go_ahead`].
    GoAhead,
    /// [`DomainWords::neutral_negations`].
    NeutralNegation,
    /// [`DomainWords::state_descriptions`].
    StateDescription,
    /// [`DomainWords::new_topics`].
    NewTopic,
}

impl DomainPhrase {
    /// The bit offset of this class's phrase length (four bits each).
    const fn shift(self) -> u16 {
        4 * self as u16
    }

    /// Every phrase of this class in `words`: its start and its length, by
    /// start (a phrase must end inside `words`).
    pub(crate) fn matches(self, words: &[Word]) -> impl Iterator<Item = (usize, usize)> + '_ {
        words.iter().enumerate().filter_map(move |(at, word)| {
            let len = word.tags().phrase_len(self);
            (len > 0 && at + len <= words.len()).then_some((at, len))
        })
    }

    /// Whether a phrase of this class occurs in `words`.
    pub(crate) fn any_in(self, words: &[Word]) -> bool {
        self.matches(words).next().is_some()
    }

    /// Whether `words` open with a phrase of this class.
    pub(crate) fn opens(self, words: &[Word]) -> bool {
        words
            .first()
            .is_some_and(|w| (1..=words.len()).contains(&w.tags().phrase_len(self)))
    }
}

/// What the domain says about one word of a turn: its classes and the
/// domain phrases starting at it (see [`DomainClass`], [`DomainPhrase`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct DomainTags {
    classes: u16,
    /// Per [`DomainPhrase`], four bits: the length of the phrase of that
    /// class starting at this word (0: none).
    phrases: u16,
}

impl DomainTags {
    /// Whether the word is in `class`.
    pub(crate) fn has(self, class: DomainClass) -> bool {
        self.classes & class.bit() != 0
    }

    /// The length of the phrase of `class` starting at the word (0: none).
    fn phrase_len(self, class: DomainPhrase) -> usize {
        usize::from((self.phrases >> class.shift()) & 0xf)
    }

    fn set_phrase_len(&mut self, class: DomainPhrase, len: usize) {
        let len = u16::try_from(len.min(MAX_PHRASE_WORDS)).unwrap_or(0);
        let shift = class.shift();
        let current = (self.phrases >> shift) & 0xf;
        if len > current {
            self.phrases = (self.phrases & !(0xf << shift)) | (len << shift);
        }
    }
}

/// The longest domain phrase, in words (its length is kept in four bits).
const MAX_PHRASE_WORDS: usize = 15;

/// A stem tried against every word ([`DomainClass::ActionStem`],
/// [`DomainClass::HandOver`], [`DomainClass::ActionForm`],
/// [`DomainClass::RemovalForm`]): its class, and whether a word shorter
/// than four letters must equal it rather than open with it.
#[derive(Debug, Clone)]
struct Stem {
    text: SmolStr,
    class: DomainClass,
    whole_if_short: bool,
}

/// A domain phrase: its class and its words.
type Phrase = (DomainPhrase, Box<[SmolStr]>);

/// Stems of four letters or more match as prefixes; a shorter one only as
/// the whole word ("go", "it" among the English stems).
const PREFIX_STEM_LEN: usize = 4;

/// A domain's words compiled for tagging turns: a table from a word to its
/// classes, the stems by their first byte, and the phrases by their first
/// word. Built once per bundle; an English-only reader uses
/// [`Lexicon::english`], which tags nothing.
#[derive(Debug, Default)]
pub struct Lexicon {
    /// Each listed word's classes.
    classes: HashMap<SmolStr, u16>,
    /// The stems, by their first byte.
    stems: Vec<Vec<Stem>>,
    /// The phrases, by their first word.
    phrases: HashMap<SmolStr, Vec<Phrase>>,
    /// Whether nothing is listed (every word's tags are empty).
    empty: bool,
}

/// The lexicon of a reader that knows no domain.
pub(crate) static ENGLISH: LazyLock<Arc<Lexicon>> =
    LazyLock::new(|| Arc::new(Lexicon::new(&DomainWords::default())));

impl Lexicon {
    /// Compiles a domain's words.
    #[must_use]
    pub fn new(domain: &DomainWords) -> Self {
        let mut lexicon = Lexicon {
            stems: vec![Vec::new(); 256],
            ..Lexicon::default()
        };
        let word_lists = [
            (DomainClass::ActionWord, &domain.action_words),
            (DomainClass::ActionNoun, &domain.action_nouns),
            (DomainClass::DecisionLabel, &domain.decision_labels),
            (DomainClass::Completion, &domain.completions),
            (
                DomainClass::InterjectionFollower,
                &domain.interjection_followers,
            ),
            (DomainClass::ObjectWord, &domain.object_words),
            (DomainClass::RecordNoun, &domain.record_nouns),
            (DomainClass::HandOverPerson, &domain.hand_over_people),
        ];
        for (class, list) in word_lists {
            for word in list {
                *lexicon.classes.entry(word_form(word)).or_default() |= class.bit();
            }
        }
        let stem_lists = [
            (DomainClass::ActionStem, &domain.action_stems, None),
            (DomainClass::HandOver, &domain.hand_over_stems, None),
            (
                DomainClass::ActionForm,
                &domain.action_words,
                Some(FORM_STEM),
            ),
            (
                DomainClass::RemovalForm,
                &domain.removal_actions,
                Some(FORM_STEM),
            ),
        ];
        for (class, list, cut) in stem_lists {
            for stem in list {
                let form = word_form(stem);
                let text = match cut {
                    Some(len) => SmolStr::new(form.get(..len).unwrap_or(&form)),
                    None => form,
                };
                lexicon.add_stem(Stem {
                    whole_if_short: cut.is_none(),
                    class,
                    text,
                });
            }
        }
        let phrase_lists = [
            (DomainPhrase::GoAhead, &domain.go_ahead),
            (DomainPhrase::NeutralNegation, &domain.neutral_negations),
            (DomainPhrase::StateDescription, &domain.state_descriptions),
            (DomainPhrase::NewTopic, &domain.new_topics),
        ];
        for (class, list) in phrase_lists {
            for phrase in list {
                let read: Box<[SmolStr]> = words(&normalise(phrase))
                    .iter()
                    .map(|w| SmolStr::new(w.as_str()))
                    .collect();
                let Some(first) = read.first().cloned() else {
                    continue;
                };
                if read.len() <= MAX_PHRASE_WORDS {
                    lexicon
                        .phrases
                        .entry(first)
                        .or_default()
                        .push((class, read));
                }
            }
        }
        lexicon.empty = lexicon.classes.is_empty()
            && lexicon.phrases.is_empty()
            && lexicon.stems.iter().all(Vec::is_empty);
        lexicon
    }

    /// The lexicon of a reader that knows no domain: it tags nothing.
    #[must_use]
    pub fn english() -> Arc<Lexicon> {
        ENGLISH.clone()
    }

    /// Whether the lexicon lists nothing (every word's tags are empty).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.empty
    }

    fn add_stem(&mut self, stem: Stem) {
        let first = stem.text.as_bytes().first().map_or(0, |&b| usize::from(b));
        if let Some(stems) = self.stems.get_mut(first) {
            stems.push(stem);
        }
    }

    /// Tags the words of one sentence: each word's classes, and the domain
    /// phrases starting at it.
    pub(crate) fn tag(&self, sentence: &mut [Word]) {
        if self.empty {
            return;
        }
        for word in sentence.iter_mut() {
            let tags = DomainTags {
                classes: self.classes_of(word.as_str()),
                phrases: 0,
            };
            word.set_tags(tags);
        }
        for at in 0..sentence.len() {
            let Some(first) = sentence.get(at) else {
                break;
            };
            let Some(phrases) = self.phrases.get(first.as_str()) else {
                continue;
            };
            let rest = sentence.get(at..).unwrap_or_default();
            let found: Vec<(DomainPhrase, usize)> = phrases
                .iter()
                .filter(|(_, phrase)| {
                    rest.len() >= phrase.len()
                        && rest.iter().zip(phrase.iter()).all(|(w, p)| w.as_str() == p)
                })
                .map(|(class, phrase)| (*class, phrase.len()))
                .collect();
            if let Some(word) = sentence.get_mut(at) {
                let mut tags = word.tags();
                for (class, len) in found {
                    tags.set_phrase_len(class, len);
                }
                word.set_tags(tags);
            }
        }
    }

    /// The classes of `word`: those listing it, and those of the stems it
    /// opens with.
    fn classes_of(&self, word: &str) -> u16 {
        let listed = self.classes.get(word).copied().unwrap_or(0);
        let Some(&first) = word.as_bytes().first() else {
            return listed;
        };
        self.stems
            .get(usize::from(first))
            .into_iter()
            .flatten()
            .filter(|stem| {
                word.starts_with(stem.text.as_str())
                    && (!stem.whole_if_short
                        || stem.text.len() >= PREFIX_STEM_LEN
                        || word == stem.text)
            })
            .fold(listed, |classes, stem| classes | stem.class.bit())
    }
}

/// A word of a list in the form turns are tokenized to (lower case; a
/// listed word is one word).
fn word_form(word: &str) -> SmolStr {
    SmolStr::new(normalise(word.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialogue::tokens::sentences_in;

    fn lexicon() -> Lexicon {
        Lexicon::new(&DomainWords {
            action_words: vec!["freeze".into(), "refill".into()],
            action_stems: vec!["freez".into(), "go".into()],
            hand_over_stems: vec!["transf".into()],
            go_ahead: vec!["please freeze".into()],
            neutral_negations: vec!["not yet shipped".into()],
            ..DomainWords::default()
        })
    }

    #[test]
    fn words_carry_their_domain_classes() {
        let lexicon = lexicon();
        let read = sentences_in("Please freeze it, and go transfer the refills.", &lexicon);
        let words = read[0].words();
        let has = |i: usize, class| words[i].tags().has(class);
        assert!(has(1, DomainClass::ActionWord), "freeze");
        assert!(has(1, DomainClass::ActionStem) && has(1, DomainClass::ActionForm));
        assert!(!has(2, DomainClass::ActionWord), "it");
        assert!(
            has(4, DomainClass::ActionStem),
            "a short stem as the whole word"
        );
        assert!(has(5, DomainClass::HandOver), "transfer");
        assert!(has(7, DomainClass::ActionForm), "refills opens with refil");
        assert!(!has(7, DomainClass::ActionWord));
        assert_eq!(
            DomainPhrase::GoAhead.matches(words).collect::<Vec<_>>(),
            [(0, 2)]
        );
        assert!(!DomainPhrase::GoAhead.any_in(&words[1..]));
        assert!(DomainPhrase::GoAhead.opens(words));
        assert!(
            !DomainPhrase::GoAhead.opens(&words[..1]),
            "ends past the slice"
        );
    }

    #[test]
    fn an_english_lexicon_tags_nothing() {
        let english = Lexicon::english();
        assert!(english.is_empty());
        for sentence in sentences_in("Please freeze it, not yet shipped.", &english) {
            for word in sentence.words() {
                assert_eq!(word.tags(), DomainTags::default());
            }
        }
        let read = sentences_in("not yet shipped", &lexicon());
        assert!(DomainPhrase::NeutralNegation.opens(read[0].words()));
        assert!(!DomainPhrase::StateDescription.any_in(read[0].words()));
    }
}
