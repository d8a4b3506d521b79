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

use super::inflect::{inflections, past_forms, plurals};
use super::tokens::{Word, normalise, words};
use super::vocabulary::WordClass;

/// What a domain's bundle tells the reader: the words for each of its
/// actions, the hand-over to a person, the nouns for its records and the
/// values its data uses. Words are in any case, one word each; the reader
/// adds their inflections ("freeze": freezes, freezing, froze, frozen) and
/// plurals. The compiled bundle builds one [`Lexicon`] from it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DomainWords {
    /// The domain's state-changing actions (one per write tool).
    pub actions: Vec<ActionWords>,
    /// Handing the user over to a person, if the domain can.
    pub hand_over: Option<HandOverWords>,
    /// Nouns for the domain's records, singular ("order", "laptop").
    pub record_nouns: Vec<String>,
    /// The values the domain's data writes as words ("pending", "no longer
    /// needed"): quoted in a reply, they describe, they answer nothing.
    pub values: Vec<String>,
}

/// The words for one action of a domain.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionWords {
    /// Verbs and nouns people name the action by ("cancel",
    /// "cancellation").
    pub words: Vec<String>,
    /// The action takes something away from the user (a cancellation, a
    /// return): after a request for it, the user's "I no longer need it"
    /// restates the reason and refuses nothing.
    pub takes_away: bool,
    /// The action's tool takes an amount: a summary states the amount it
    /// gives the action where it names the action
    /// ([`Lexicon::amount_actions`]).
    pub takes_amount: bool,
}

#[cfg(test)]
impl DomainWords {
    /// The words of a domain with one action per list of `actions`, and
    /// nothing else: what a reader test needs.
    pub(crate) fn of_actions(actions: &[&[&str]]) -> Self {
        DomainWords {
            actions: actions
                .iter()
                .map(|words| ActionWords {
                    words: words.iter().map(|w| (*w).to_owned()).collect(),
                    takes_away: false,
                    takes_amount: false,
                })
                .collect(),
            ..DomainWords::default()
        }
    }
}

/// Handing the user over to a person.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HandOverWords {
    /// The verbs of the hand-over ("transfer").
    pub words: Vec<String>,
    /// Words for the people a user may be handed over to ("human",
    /// "agent", "pharmacist").
    pub people: Vec<String>,
}

/// A class of single words of the domain, carried by each word of a turn
/// read with the domain's [`Lexicon`] (one bit per class).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DomainClass {
    /// A form of a word for one of the domain's actions ("cancel",
    /// "cancelled", "cancellation"): an inflection of one.
    ActionWord,
    /// A word for an action as the domain names it, uninflected ("cancel",
    /// "cancellation"): a field label whose value is the answer ("Cancel:
    /// no"), a word a `no` interjection leads into ("no, cancel it").
    ActionName,
    /// Opens with the first [`FORM_STEM`] letters of a word for an action
    /// ("cancelling", "refills"), or is an inflection of a shorter one.
    ActionForm,
    /// A past form of a word for an action ("cancelled", "frozen"): "once
    /// it's cancelled" asks to be told afterwards.
    Completion,
    /// A noun for one of the domain's records, or its plural.
    RecordNoun,
    /// A form of a hand-over verb ("transferring"), as [`DomainClass::ActionForm`].
    HandOver,
    /// A word for a person the user may be handed over to.
    HandOverPerson,
    /// A form of an action that takes something away, as
    /// [`DomainClass::ActionForm`].
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
    /// "please" and a word for an action: "please cancel".
    GoAhead,
    /// A value holding a negator ("no longer needed"), or "not yet" and a
    /// value ("not yet delivered"): it negates nothing asked about.
    NeutralNegation,
    /// "not yet" and a value: a record's state, no withdrawal.
    StateDescription,
    /// "another" and a noun for a record: the user moves on to another
    /// request.
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
    /// The domain's actions the word is a form of, one bit per action (the
    /// first sixteen; the others' words have none and are told apart by
    /// their stems): two words share a bit when they name the same action
    /// ("change", "update").
    actions: u16,
    /// Per [`DomainPhrase`], four bits: the length of the phrase of that
    /// class starting at this word (0: none).
    phrases: u16,
}

impl DomainTags {
    /// Whether the word is in `class`.
    pub(crate) fn has(self, class: DomainClass) -> bool {
        self.classes & class.bit() != 0
    }

    /// Whether the domain says nothing of the word: no class, no action.
    pub(crate) fn is_plain(self) -> bool {
        self.classes == 0 && self.actions == 0
    }

    /// The actions the word is a form of (a bit per action).
    pub(crate) fn actions(self) -> u16 {
        self.actions
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

/// How many actions have a bit of their own in [`DomainTags`].
const ACTION_BITS: usize = 16;

/// The longest domain phrase, in words (its length is kept in four bits).
const MAX_PHRASE_WORDS: usize = 15;

/// A stem tried against every word ([`DomainClass::ActionForm`],
/// [`DomainClass::HandOver`], [`DomainClass::RemovalForm`]): a word
/// opening with it is in its class.
#[derive(Debug, Clone)]
struct Stem {
    text: SmolStr,
    class: DomainClass,
}

/// The stems, by their first byte (each is [`FORM_STEM`] bytes long).
#[derive(Debug, Clone)]
struct Stems(Vec<Vec<Stem>>);

impl Default for Stems {
    fn default() -> Self {
        Stems(vec![Vec::new(); 256])
    }
}

impl Stems {
    fn add(&mut self, stem: Stem) {
        let first = stem.text.as_bytes().first().map_or(0, |&b| usize::from(b));
        if let Some(stems) = self.0.get_mut(first) {
            stems.push(stem);
        }
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(Vec::is_empty)
    }

    /// The classes of the stems `word` opens with.
    fn classes_of(&self, word: &str) -> u16 {
        // Every stem is `FORM_STEM` bytes: a shorter word opens with none.
        if word.len() < FORM_STEM {
            return 0;
        }
        let Some(&first) = word.as_bytes().first() else {
            return 0;
        };
        self.0
            .get(usize::from(first))
            .into_iter()
            .flatten()
            .filter(|stem| word.starts_with(stem.text.as_str()))
            .fold(0, |classes, stem| classes | stem.class.bit())
    }
}

/// A domain phrase: its class and its words.
type Phrase = (DomainPhrase, Box<[SmolStr]>);

/// A domain's words as a bundle's lists give them: three tables from a
/// word to its classes, to its actions and to the phrases it opens, and
/// the stems. [`Lexicon::new`] collects them, then folds them into one
/// table, so a turn's word is looked up once.
#[derive(Debug, Default)]
struct Tables {
    /// Each listed word's classes.
    classes: HashMap<SmolStr, u16>,
    /// The actions each listed word is a form of (see [`DomainTags`]).
    actions: HashMap<SmolStr, u16>,
    /// The phrases, by their first word.
    phrases: HashMap<SmolStr, Vec<Phrase>>,
    stems: Stems,
    /// The actions whose tool takes an amount, a bit each.
    amount_actions: u16,
}

impl Tables {
    /// Collects a domain's words.
    fn new(domain: &DomainWords) -> Self {
        let mut tables = Tables::default();
        for (index, action) in domain.actions.iter().enumerate() {
            // Past the sixteenth action, words keep no bit: two actions never
            // pass for one.
            let bit = if index < ACTION_BITS {
                1u16 << index
            } else {
                0
            };
            if action.takes_amount {
                tables.amount_actions |= bit;
            }
            for word in &action.words {
                tables.add_word(word, DomainClass::ActionName);
                for form in inflections(word) {
                    tables.add_word(&form, DomainClass::ActionWord);
                    *tables.actions.entry(word_form(&form)).or_default() |= bit;
                    tables.add_phrase(DomainPhrase::GoAhead, &format!("please {form}"));
                }
                for past in past_forms(word) {
                    tables.add_word(&past, DomainClass::Completion);
                }
                tables.add_forms(word, DomainClass::ActionForm);
                if action.takes_away {
                    tables.add_forms(word, DomainClass::RemovalForm);
                }
            }
        }
        if let Some(hand_over) = &domain.hand_over {
            for word in &hand_over.words {
                tables.add_forms(word, DomainClass::HandOver);
            }
            for person in &hand_over.people {
                tables.add_word(person, DomainClass::HandOverPerson);
                for plural in plurals(person) {
                    tables.add_word(&plural, DomainClass::HandOverPerson);
                }
            }
        }
        for noun in &domain.record_nouns {
            tables.add_word(noun, DomainClass::RecordNoun);
            for plural in plurals(noun) {
                tables.add_word(&plural, DomainClass::RecordNoun);
            }
            tables.add_phrase(DomainPhrase::NewTopic, &format!("another {noun}"));
        }
        for value in &domain.values {
            // A value of several words holding a negator ("no longer
            // needed") names something; a bare "no" (an insurance flag) is
            // still a no.
            let read = words(&normalise(value));
            if read.len() > 1 && read.iter().any(|w| WordClass::Negators.has(w)) {
                tables.add_phrase(DomainPhrase::NeutralNegation, value);
            }
            let state = format!("not yet {value}");
            tables.add_phrase(DomainPhrase::NeutralNegation, &state);
            tables.add_phrase(DomainPhrase::StateDescription, &state);
        }
        tables
    }

    fn add_word(&mut self, word: &str, class: DomainClass) {
        *self.classes.entry(word_form(word)).or_default() |= class.bit();
    }

    /// Puts every form of `word` in `class`: its inflections, and the
    /// words opening with its first [`FORM_STEM`] letters ("cancellation");
    /// a shorter word has only its inflections ("add" → adds, adding,
    /// added; never "address").
    fn add_forms(&mut self, word: &str, class: DomainClass) {
        let form = word_form(word);
        for inflected in inflections(&form) {
            self.add_word(&inflected, class);
        }
        if let Some(stem) = form.get(..FORM_STEM) {
            self.stems.add(Stem {
                text: SmolStr::new(stem),
                class,
            });
        }
    }

    fn add_phrase(&mut self, class: DomainPhrase, phrase: &str) {
        let read: Box<[SmolStr]> = words(&normalise(phrase))
            .iter()
            .map(|w| SmolStr::new(w.as_str()))
            .collect();
        let Some(first) = read.first().cloned() else {
            return;
        };
        if read.len() > MAX_PHRASE_WORDS {
            return;
        }
        let listed = self.phrases.entry(first).or_default();
        if !listed.iter().any(|(c, p)| *c == class && *p == read) {
            listed.push((class, read));
        }
    }

    /// One entry per word any table lists: all the tables say of it.
    fn fold(self) -> Lexicon {
        let empty = self.classes.is_empty() && self.phrases.is_empty() && self.stems.is_empty();
        let mut listed: HashMap<SmolStr, Listed> = HashMap::new();
        for word in self
            .classes
            .keys()
            .chain(self.actions.keys())
            .chain(self.phrases.keys())
        {
            if listed.contains_key(word) {
                continue;
            }
            let entry = Listed {
                classes: self.classes.get(word).copied().unwrap_or(0) | self.stems.classes_of(word),
                actions: self.actions.get(word).copied().unwrap_or(0),
                phrases: self
                    .phrases
                    .get(word)
                    .map(|p| p.clone().into_boxed_slice())
                    .unwrap_or_default(),
            };
            listed.insert(word.clone(), entry);
        }
        let mut shapes = vec![0u32; 256];
        for word in listed.keys() {
            if let Some(lengths) = shape_slot(&mut shapes, word) {
                *lengths |= length_bit(word);
            }
        }
        Lexicon {
            shapes,
            listed,
            stems: self.stems,
            empty,
            amount_actions: self.amount_actions,
        }
    }
}

/// All a domain says of one listed word.
#[derive(Debug, Clone, Default)]
struct Listed {
    /// Its classes, those of the stems it opens with included.
    classes: u16,
    /// The actions it is a form of (see [`DomainTags`]).
    actions: u16,
    /// The phrases it opens.
    phrases: Box<[Phrase]>,
}

/// A domain's words compiled for tagging turns: one table from a listed
/// word to all its tags, and the stems by their first byte for the words
/// no list names. Built once per bundle; an English-only reader uses
/// [`Lexicon::english`], which tags nothing.
#[derive(Debug, Default)]
pub struct Lexicon {
    /// Every listed word: a word of a list, or a phrase's first word.
    listed: HashMap<SmolStr, Listed>,
    /// Per first byte, the lengths of the listed words opening with it
    /// ([`length_bit`]): most words of a turn have no listed word of
    /// their first byte and length, and are not looked up.
    shapes: Vec<u32>,
    /// The stems, for the words no list names.
    stems: Stems,
    /// Whether nothing is listed (every word's tags are empty).
    empty: bool,
    /// The actions whose tool takes an amount, a bit each
    /// ([`ActionWords::takes_amount`]).
    amount_actions: u16,
}

/// The lexicon of a reader that knows no domain.
pub(crate) static ENGLISH: LazyLock<Arc<Lexicon>> =
    LazyLock::new(|| Arc::new(Lexicon::new(&DomainWords::default())));

impl Lexicon {
    /// Compiles a domain's words.
    #[must_use]
    pub fn new(domain: &DomainWords) -> Self {
        Tables::new(domain).fold()
    }

    /// The lexicon of a reader that knows no domain: it tags nothing.
    #[must_use]
    pub fn english() -> Arc<Lexicon> {
        ENGLISH.clone()
    }

    /// The domain's actions whose tool takes an amount, a bit per action
    /// ([`Lexicon::action_bits`]): none, in a domain no action of which
    /// takes one, and a summary's amounts are then never read for them.
    #[must_use]
    pub fn amount_actions(&self) -> u16 {
        self.amount_actions
    }

    /// The domain's actions `word` (any case, one word) is a form of, a bit
    /// per action (the first sixteen; 0 for any other word): two words
    /// sharing a bit name the same action ("wipe", "erase").
    #[must_use]
    pub fn action_bits(&self, word: &str) -> u16 {
        self.listed(&word_form(word)).map_or(0, |l| l.actions)
    }

    /// Whether `word` (any case) is one of the domain's words for its
    /// actions, in any form.
    #[must_use]
    pub fn is_action_word(&self, word: &str) -> bool {
        self.classes_of(&word.trim().to_lowercase()) & DomainClass::ActionWord.bit() != 0
    }

    /// Whether `word` (any case) names one of the domain's actions, in
    /// any form, or its records: a reply's words about the call itself,
    /// not about which value it takes.
    #[must_use]
    pub fn names_action_or_record(&self, word: &str) -> bool {
        let bits = DomainClass::ActionWord.bit()
            | DomainClass::ActionForm.bit()
            | DomainClass::RecordNoun.bit();
        self.classes_of(&word.trim().to_lowercase()) & bits != 0
    }

    /// Whether the lexicon lists nothing (every word's tags are empty).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.empty
    }

    /// What the lists say of `word`, if any names it.
    fn listed(&self, word: &str) -> Option<&Listed> {
        if let Some(&first) = word.as_bytes().first() {
            let lengths = self.shapes.get(usize::from(first)).copied().unwrap_or(0);
            if lengths & length_bit(word) == 0 {
                return None;
            }
        }
        self.listed.get(word)
    }

    /// Tags the words of one sentence: each word's classes, and the domain
    /// phrases starting at it.
    pub(crate) fn tag(&self, sentence: &mut [Word]) {
        if self.empty {
            return;
        }
        for at in 0..sentence.len() {
            let Some(word) = sentence.get(at).map(Word::as_str) else {
                break;
            };
            let tags = match self.listed(word) {
                None => DomainTags {
                    classes: self.stems.classes_of(word),
                    ..DomainTags::default()
                },
                Some(listed) => {
                    let mut tags = DomainTags {
                        classes: listed.classes,
                        actions: listed.actions,
                        phrases: 0,
                    };
                    let rest = sentence.get(at..).unwrap_or_default();
                    for (class, phrase) in &listed.phrases {
                        if opens_with(rest, phrase) {
                            tags.set_phrase_len(*class, phrase.len());
                        }
                    }
                    tags
                }
            };
            if let Some(word) = sentence.get_mut(at) {
                word.set_tags(tags);
            }
        }
    }

    /// The classes of `word`: those listing it, and those of the stems it
    /// opens with.
    fn classes_of(&self, word: &str) -> u16 {
        self.listed(word)
            .map_or_else(|| self.stems.classes_of(word), |l| l.classes)
    }
}

/// A word's length as one bit of a [`Lexicon`]'s shapes (lengths of 31
/// and over share the last).
fn length_bit(word: &str) -> u32 {
    1 << word.len().min(31)
}

/// The shapes' slot of `word`'s first byte (none for the empty word,
/// which is always looked up).
fn shape_slot<'s>(shapes: &'s mut [u32], word: &str) -> Option<&'s mut u32> {
    let first = usize::from(*word.as_bytes().first()?);
    shapes.get_mut(first)
}

/// Whether `words` open with `phrase`, word for word.
fn opens_with(words: &[Word], phrase: &[SmolStr]) -> bool {
    words.len() >= phrase.len() && words.iter().zip(phrase).all(|(w, p)| w.as_str() == p)
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
    use crate::dialogue::value::tests::vendored_messages;

    impl Tables {
        /// [`Lexicon::tag`] read from the three tables and the stems: the
        /// answers the folded table is tested against.
        fn tag(&self, sentence: &mut [Word]) {
            for word in sentence.iter_mut() {
                let listed = self.classes.get(word.as_str()).copied().unwrap_or(0);
                word.set_tags(DomainTags {
                    classes: listed | self.stems.classes_of(word.as_str()),
                    actions: self.actions.get(word.as_str()).copied().unwrap_or(0),
                    phrases: 0,
                });
            }
            for at in 0..sentence.len() {
                let Some(phrases) = self.phrases.get(sentence[at].as_str()) else {
                    continue;
                };
                let mut tags = sentence[at].tags();
                for (class, phrase) in phrases {
                    if opens_with(&sentence[at..], phrase) {
                        tags.set_phrase_len(*class, phrase.len());
                    }
                }
                sentence[at].set_tags(tags);
            }
        }
    }

    /// The domain words of the tests: the tau2 bundles' and [`lexicon`]'s.
    fn domains() -> Vec<DomainWords> {
        vec![
            crate::dialogue::test_words::tau2_words(),
            domain(),
            DomainWords::default(),
        ]
    }

    /// Every word's tags from the one table equal the three tables'
    /// answers: for every word a table lists, the words opening with a
    /// stem or a listed word, every phrase in place, and every word of
    /// every vendored turn.
    #[test]
    fn the_folded_table_answers_as_the_three_tables() {
        let messages = vendored_messages();
        for domain in domains() {
            let tables = Tables::new(&domain);
            let lexicon = Lexicon::new(&domain);
            let assert_same = |words: &[Word]| {
                let (mut folded, mut three) = (words.to_vec(), words.to_vec());
                lexicon.tag(&mut folded);
                tables.tag(&mut three);
                let tags = |w: &[Word]| w.iter().map(Word::tags).collect::<Vec<_>>();
                assert_eq!(tags(&folded), tags(&three), "{words:?}");
            };
            let mut listed: Vec<&SmolStr> = tables
                .classes
                .keys()
                .chain(tables.actions.keys())
                .chain(tables.phrases.keys())
                .collect();
            listed.extend(tables.stems.0.iter().flatten().map(|s| &s.text));
            for word in listed {
                for variant in [
                    word.to_string(),
                    format!("{word}s"),
                    format!("{word}ation"),
                    word.chars().take(4).collect(),
                    word.chars().skip(1).collect(),
                ] {
                    assert_same(&[Word::new(&variant)]);
                }
            }
            for (_, phrases) in &tables.phrases {
                for (_, phrase) in phrases {
                    let mut words: Vec<Word> = phrase.iter().map(Word::new).collect();
                    assert_same(&words);
                    words.pop();
                    assert_same(&words);
                }
            }
            for (_, text) in &messages {
                for sentence in sentences_in(text, &Lexicon::english()) {
                    assert_same(sentence.words());
                }
            }
        }
    }

    fn lexicon() -> Lexicon {
        Lexicon::new(&domain())
    }

    fn domain() -> DomainWords {
        DomainWords {
            actions: vec![
                ActionWords {
                    words: vec!["freeze".into(), "add".into()],
                    takes_away: false,
                    takes_amount: false,
                },
                ActionWords {
                    words: vec!["cancel".into()],
                    takes_away: true,
                    takes_amount: false,
                },
            ],
            hand_over: Some(HandOverWords {
                words: vec!["transfer".into()],
                people: vec!["person".into()],
            }),
            record_nouns: vec!["card".into()],
            values: vec!["shipped".into(), "no longer needed".into(), "no".into()],
        }
    }

    #[test]
    fn words_carry_their_domain_classes() {
        let lexicon = lexicon();
        let read = sentences_in(
            "Please freeze it, or add the cards and transfer people; frozen, address, cancelled.",
            &lexicon,
        );
        let words = read[0].words();
        let has = |i: usize, class| words[i].tags().has(class);
        assert!(has(1, DomainClass::ActionWord) && has(1, DomainClass::ActionForm));
        assert!(!has(2, DomainClass::ActionWord), "it");
        assert!(
            has(4, DomainClass::ActionWord) && has(4, DomainClass::ActionForm),
            "add"
        );
        assert!(has(6, DomainClass::RecordNoun), "cards");
        assert!(has(8, DomainClass::HandOver) && has(9, DomainClass::HandOverPerson));
        let read = &read[1];
        let words = read.words();
        let has = |i: usize, class| words[i].tags().has(class);
        assert!(has(0, DomainClass::Completion), "frozen");
        assert!(
            !has(1, DomainClass::ActionForm),
            "address is no form of add"
        );
        assert!(has(2, DomainClass::RemovalForm) && has(2, DomainClass::Completion));
        let read = sentences_in("Please freeze it.", &lexicon);
        let words = read[0].words();
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
    fn values_describe_and_another_record_moves_on() {
        let lexicon = lexicon();
        let read = sentences_in("not yet shipped, no longer needed, another card", &lexicon);
        let words = read[0].words();
        assert!(DomainPhrase::StateDescription.opens(words));
        assert_eq!(
            DomainPhrase::NeutralNegation
                .matches(words)
                .map(|(at, _)| at)
                .collect::<Vec<_>>(),
            [0, 3]
        );
        assert!(DomainPhrase::NewTopic.opens(&words[6..]));
        let read = sentences_in("No.", &lexicon);
        assert!(
            !DomainPhrase::NeutralNegation.any_in(read[0].words()),
            "a bare no value"
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
    }
}
