//! The dialogue vocabulary: every word of the lexicon's classes interned
//! once per process into a [`WordId`], so the tokenizer tags each token with
//! its id once and the grammar matches word classes and phrase lists by id:
//! a word class is one bit of a table indexed by id ([`WordClass`]), a
//! phrase class ([`PhraseClass`]) is tried only at the positions whose word
//! opens one of its phrases (one bit again), instead of every phrase of the
//! list at every position of a sentence. Words in no list share the id
//! [`OTHER`]; their text is kept, so identifiers and record words read
//! exactly as before.
//!
//! Which words belong to which class is the lexicon's (`lexicon.rs`); this
//! module only indexes it.

use std::borrow::Borrow;
use std::sync::LazyLock;

use super::lexicon::{
    ACKNOWLEDGEMENTS, ACTION_ANAPHORS, ACTION_STEMS, AGREEMENT, ANAPHORIC_OBJECTS, ASK_CUES,
    CLAUSE_AFTER_ANAPHOR, CLAUSE_WITHDRAWALS, COMPLEMENT_SCOPE, COMPLETIONS, CONCEDING_WORDS,
    CONCESSIONS, CONDITION_HEADS, CONDITIONS, CONTRAST, CONTRAST_CONCESSIONS, CONTRAST_HEADS,
    CORRECTIONS, COURTESY_CONDITIONS, DECISION_LABELS, DECISION_WORDS, DECLINING, DECLINING_CLAUSE,
    DEFERRALS, FILLERS, FIRM_CONDITIONS, FIRST_PERSON, GO_AHEAD, HEDGES, INDIRECT_QUESTIONS,
    INFINITIVE_VERBS, INFORMATION_REQUESTS, INTERJECTION_FOLLOWERS, INTERROGATIVES, KEEPING,
    KEPT_AFTER, KEPT_BEFORE, LATER_TIMES, LAUGHTER, MODAL_HEADS, NEGATORS, NEUTRAL_NEGATIONS,
    NEW_TOPIC, NO_NEED_TAIL, OBJECT_WORDS, PAUSES, PERFECT_MARKERS, PLAN_WORDS, PRECEDENCE,
    REFUSALS, RELATION_NOUNS, RELAYED, RESTATED_ANSWERS, RETENTION, RETENTION_AFTER_OBJECT,
    SARCASM, SCOPE_ENDS, SELECTING_WORDS, SELF_CORRECTIONS, TAG_QUESTIONS, TEMPORAL, TOPIC_CHANGES,
    VERDICTS, WAITING_HEADS, WISHES, WITHDRAWAL_HEADS, WITHDRAWALS, YES_HEADS,
};
use super::tokens::Word;

/// A word's id in the vocabulary; [`OTHER`] for every word in no list.
pub(crate) type WordId = u16;

/// The id of every word the lexicon does not list.
pub(crate) const OTHER: WordId = 0;

/// A list of single words of the lexicon, read by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WordClass {
    Fillers,
    Negators,
    InterjectionFollowers,
    ContrastConcessions,
    Temporal,
    Completions,
    ActionAnaphors,
    FirstPerson,
    DecisionLabels,
    DecisionWords,
    InfinitiveVerbs,
    ScopeEnds,
    Interrogatives,
    Precedence,
    ComplementScope,
    ModalHeads,
    ConcedingWords,
    Wishes,
    ObjectWords,
    RetentionAfterObject,
    AnaphoricObjects,
    NoNeedTail,
    SelectingWords,
    WaitingHeads,
    PlanWords,
    Verdicts,
    ClauseAfterAnaphor,
    PerfectMarkers,
    Deferrals,
    RelationNouns,
    Laughter,
}

impl WordClass {
    /// Every class, in declaration order (a class's bit is its position).
    const ALL: [WordClass; 31] = [
        WordClass::Fillers,
        WordClass::Negators,
        WordClass::InterjectionFollowers,
        WordClass::ContrastConcessions,
        WordClass::Temporal,
        WordClass::Completions,
        WordClass::ActionAnaphors,
        WordClass::FirstPerson,
        WordClass::DecisionLabels,
        WordClass::DecisionWords,
        WordClass::InfinitiveVerbs,
        WordClass::ScopeEnds,
        WordClass::Interrogatives,
        WordClass::Precedence,
        WordClass::ComplementScope,
        WordClass::ModalHeads,
        WordClass::ConcedingWords,
        WordClass::Wishes,
        WordClass::ObjectWords,
        WordClass::RetentionAfterObject,
        WordClass::AnaphoricObjects,
        WordClass::NoNeedTail,
        WordClass::SelectingWords,
        WordClass::WaitingHeads,
        WordClass::PlanWords,
        WordClass::Verdicts,
        WordClass::ClauseAfterAnaphor,
        WordClass::PerfectMarkers,
        WordClass::Deferrals,
        WordClass::RelationNouns,
        WordClass::Laughter,
    ];

    /// The lexicon's list this class reads.
    pub(crate) const fn words(self) -> &'static [&'static str] {
        match self {
            WordClass::Fillers => FILLERS,
            WordClass::Negators => NEGATORS,
            WordClass::InterjectionFollowers => INTERJECTION_FOLLOWERS,
            WordClass::ContrastConcessions => CONTRAST_CONCESSIONS,
            WordClass::Temporal => TEMPORAL,
            WordClass::Completions => COMPLETIONS,
            WordClass::ActionAnaphors => ACTION_ANAPHORS,
            WordClass::FirstPerson => FIRST_PERSON,
            WordClass::DecisionLabels => DECISION_LABELS,
            WordClass::DecisionWords => DECISION_WORDS,
            WordClass::InfinitiveVerbs => INFINITIVE_VERBS,
            WordClass::ScopeEnds => SCOPE_ENDS,
            WordClass::Interrogatives => INTERROGATIVES,
            WordClass::Precedence => PRECEDENCE,
            WordClass::ComplementScope => COMPLEMENT_SCOPE,
            WordClass::ModalHeads => MODAL_HEADS,
            WordClass::ConcedingWords => CONCEDING_WORDS,
            WordClass::Wishes => WISHES,
            WordClass::ObjectWords => OBJECT_WORDS,
            WordClass::RetentionAfterObject => RETENTION_AFTER_OBJECT,
            WordClass::AnaphoricObjects => ANAPHORIC_OBJECTS,
            WordClass::NoNeedTail => NO_NEED_TAIL,
            WordClass::SelectingWords => SELECTING_WORDS,
            WordClass::WaitingHeads => WAITING_HEADS,
            WordClass::PlanWords => PLAN_WORDS,
            WordClass::Verdicts => VERDICTS,
            WordClass::ClauseAfterAnaphor => CLAUSE_AFTER_ANAPHOR,
            WordClass::PerfectMarkers => PERFECT_MARKERS,
            WordClass::Deferrals => DEFERRALS,
            WordClass::RelationNouns => RELATION_NOUNS,
            WordClass::Laughter => LAUGHTER,
        }
    }

    const fn bit(self) -> u64 {
        1 << self as u32
    }

    /// Whether `word` is in this class: one table read.
    pub(crate) fn has(self, word: &Word) -> bool {
        self.has_id(word.id())
    }

    /// Whether the word `id` is in this class.
    fn has_id(self, id: WordId) -> bool {
        VOCABULARY
            .word_classes
            .get(usize::from(id))
            .is_some_and(|classes| classes & self.bit() != 0)
    }

    /// Whether `text` is in this class (a word not yet tokenized: a
    /// lexicon phrase's word, an action name).
    pub(crate) fn has_text(self, text: &str) -> bool {
        self.has_id(VOCABULARY.id(text))
    }
}

/// A list of word sequences of the lexicon, matched by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PhraseClass {
    YesHeads,
    GoAhead,
    Agreement,
    NeutralNegations,
    Refusals,
    Contrast,
    ContrastHeads,
    Concessions,
    IndirectQuestions,
    Acknowledgements,
    Conditions,
    CourtesyConditions,
    Hedges,
    Corrections,
    NewTopic,
    TopicChanges,
    Retention,
    Withdrawals,
    WithdrawalHeads,
    ClauseWithdrawals,
    Sarcasm,
    AskCues,
    InformationRequests,
    FirmConditions,
    Declining,
    DecliningClause,
    ConditionHeads,
    TagQuestions,
    Keeping,
    Pauses,
    SelfCorrections,
    RestatedAnswers,
    LaterTimes,
    KeptAfter,
    KeptBefore,
    Relayed,
}

impl PhraseClass {
    /// Every class, in declaration order (a class's bit is its position).
    const ALL: [PhraseClass; 36] = [
        PhraseClass::YesHeads,
        PhraseClass::GoAhead,
        PhraseClass::Agreement,
        PhraseClass::NeutralNegations,
        PhraseClass::Refusals,
        PhraseClass::Contrast,
        PhraseClass::ContrastHeads,
        PhraseClass::Concessions,
        PhraseClass::IndirectQuestions,
        PhraseClass::Acknowledgements,
        PhraseClass::Conditions,
        PhraseClass::CourtesyConditions,
        PhraseClass::Hedges,
        PhraseClass::Corrections,
        PhraseClass::NewTopic,
        PhraseClass::TopicChanges,
        PhraseClass::Retention,
        PhraseClass::Withdrawals,
        PhraseClass::WithdrawalHeads,
        PhraseClass::ClauseWithdrawals,
        PhraseClass::Sarcasm,
        PhraseClass::AskCues,
        PhraseClass::InformationRequests,
        PhraseClass::FirmConditions,
        PhraseClass::Declining,
        PhraseClass::DecliningClause,
        PhraseClass::ConditionHeads,
        PhraseClass::TagQuestions,
        PhraseClass::Keeping,
        PhraseClass::Pauses,
        PhraseClass::SelfCorrections,
        PhraseClass::RestatedAnswers,
        PhraseClass::LaterTimes,
        PhraseClass::KeptAfter,
        PhraseClass::KeptBefore,
        PhraseClass::Relayed,
    ];

    /// The lexicon's list this class reads.
    pub(crate) const fn phrases(self) -> &'static [&'static [&'static str]] {
        match self {
            PhraseClass::YesHeads => YES_HEADS,
            PhraseClass::GoAhead => GO_AHEAD,
            PhraseClass::Agreement => AGREEMENT,
            PhraseClass::NeutralNegations => NEUTRAL_NEGATIONS,
            PhraseClass::Refusals => REFUSALS,
            PhraseClass::Contrast => CONTRAST,
            PhraseClass::ContrastHeads => CONTRAST_HEADS,
            PhraseClass::Concessions => CONCESSIONS,
            PhraseClass::IndirectQuestions => INDIRECT_QUESTIONS,
            PhraseClass::Acknowledgements => ACKNOWLEDGEMENTS,
            PhraseClass::Conditions => CONDITIONS,
            PhraseClass::CourtesyConditions => COURTESY_CONDITIONS,
            PhraseClass::Hedges => HEDGES,
            PhraseClass::Corrections => CORRECTIONS,
            PhraseClass::NewTopic => NEW_TOPIC,
            PhraseClass::TopicChanges => TOPIC_CHANGES,
            PhraseClass::Retention => RETENTION,
            PhraseClass::Withdrawals => WITHDRAWALS,
            PhraseClass::WithdrawalHeads => WITHDRAWAL_HEADS,
            PhraseClass::ClauseWithdrawals => CLAUSE_WITHDRAWALS,
            PhraseClass::Sarcasm => SARCASM,
            PhraseClass::AskCues => ASK_CUES,
            PhraseClass::InformationRequests => INFORMATION_REQUESTS,
            PhraseClass::FirmConditions => FIRM_CONDITIONS,
            PhraseClass::Declining => DECLINING,
            PhraseClass::DecliningClause => DECLINING_CLAUSE,
            PhraseClass::ConditionHeads => CONDITION_HEADS,
            PhraseClass::TagQuestions => TAG_QUESTIONS,
            PhraseClass::Keeping => KEEPING,
            PhraseClass::Pauses => PAUSES,
            PhraseClass::SelfCorrections => SELF_CORRECTIONS,
            PhraseClass::RestatedAnswers => RESTATED_ANSWERS,
            PhraseClass::LaterTimes => LATER_TIMES,
            PhraseClass::KeptAfter => KEPT_AFTER,
            PhraseClass::KeptBefore => KEPT_BEFORE,
            PhraseClass::Relayed => RELAYED,
        }
    }

    const fn bit(self) -> u64 {
        1 << self as u32
    }

    /// The phrases' ids, in list order.
    fn ids(self) -> &'static [Box<[WordId]>] {
        VOCABULARY
            .phrase_ids
            .get(self as usize)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Every occurrence of a phrase of this class in `words` as a whole
    /// word sequence: its start and the phrase, by start and then in list
    /// order.
    pub(crate) fn matches<'w, T: Borrow<Word>>(
        self,
        words: &'w [T],
    ) -> impl Iterator<Item = (usize, &'static [&'static str])> + 'w {
        let heads = &VOCABULARY.phrase_heads;
        let ids = self.ids();
        let phrases = self.phrases();
        words
            .iter()
            .enumerate()
            .filter(move |(_, word)| {
                let word: &Word = (*word).borrow();
                heads
                    .get(usize::from(word.id()))
                    .is_some_and(|classes| classes & self.bit() != 0)
            })
            .flat_map(move |(at, _)| {
                let rest = words.get(at..).unwrap_or_default();
                ids.iter()
                    .zip(phrases)
                    .filter(move |(phrase, _)| opens_with_ids(rest, phrase))
                    .map(move |(_, phrase)| (at, *phrase))
            })
    }

    /// Whether a phrase of this class occurs in `words`.
    pub(crate) fn any_in<T: Borrow<Word>>(self, words: &[T]) -> bool {
        self.matches(words).next().is_some()
    }

    /// The first phrase of this class, in list order, that `words` open
    /// with.
    pub(crate) fn opening<T: Borrow<Word>>(self, words: &[T]) -> Option<&'static [&'static str]> {
        let first = words.first()?.borrow().id();
        let opens = VOCABULARY
            .phrase_heads
            .get(usize::from(first))
            .is_some_and(|classes| classes & self.bit() != 0);
        if !opens {
            return None;
        }
        self.ids()
            .iter()
            .zip(self.phrases())
            .find(|(phrase, _)| opens_with_ids(words, phrase))
            .map(|(_, phrase)| *phrase)
    }

    /// Whether `words` end with a phrase of this class.
    pub(crate) fn closes<T: Borrow<Word>>(self, words: &[T]) -> bool {
        self.ids().iter().any(|phrase| {
            words
                .len()
                .checked_sub(phrase.len())
                .and_then(|start| words.get(start..))
                .is_some_and(|end| opens_with_ids(end, phrase))
        })
    }

    /// Whether `words` open with a phrase of this class.
    pub(crate) fn opens<T: Borrow<Word>>(self, words: &[T]) -> bool {
        self.opening(words).is_some()
    }
}

/// Whether `words` open with the word sequence `phrase` (ids of listed
/// words: a word in no list never equals one).
fn opens_with_ids<T: Borrow<Word>>(words: &[T], phrase: &[WordId]) -> bool {
    words.len() >= phrase.len()
        && words
            .iter()
            .zip(phrase)
            .all(|(word, &id)| word.borrow().id() == id)
}

/// Whether `word` bears on the action by an English stem ([`ACTION_STEMS`]:
/// going ahead, an anaphor, wanting or agreeing): it opens with a stem of
/// four letters or more, or is a shorter stem itself ("go", "it"). Only the
/// stems sharing the word's first byte are tried. (The domain's action
/// action words are a word's domain tags.)
pub(crate) fn has_action_stem(word: &str) -> bool {
    let Some(&first) = word.as_bytes().first() else {
        return false;
    };
    VOCABULARY
        .stems_by_first_byte
        .get(usize::from(first))
        .is_some_and(|stems| {
            stems
                .iter()
                .any(|stem| word.starts_with(stem) && (stem.len() >= 4 || word == *stem))
        })
}

/// The interned lexicon (built on first use, once per process).
pub(crate) static VOCABULARY: LazyLock<Vocabulary> = LazyLock::new(Vocabulary::build);

/// The word table and, by id, the classes each word is in or opens a
/// phrase of.
pub(crate) struct Vocabulary {
    /// Open-addressed table of the listed words and their ids.
    slots: Box<[Option<(&'static str, WordId)>]>,
    /// The classes of each id ([`WordClass::bit`]).
    word_classes: Vec<u64>,
    /// The phrase classes with a phrase opening with each id
    /// ([`PhraseClass::bit`]).
    phrase_heads: Vec<u64>,
    /// Each phrase class's phrases as ids, in list order.
    phrase_ids: Vec<Vec<Box<[WordId]>>>,
    /// [`ACTION_STEMS`] by their first byte.
    stems_by_first_byte: Vec<Vec<&'static str>>,
    /// The longest listed word's length: a longer word is in no list.
    longest: usize,
}

impl Vocabulary {
    fn build() -> Self {
        let listed: Vec<&'static str> = WordClass::ALL
            .iter()
            .flat_map(|class| class.words().iter().copied())
            .chain(
                PhraseClass::ALL
                    .iter()
                    .flat_map(|class| class.phrases().iter().flat_map(|p| p.iter().copied())),
            )
            .collect();
        let capacity = (listed.len() * 4).next_power_of_two();
        let mut vocabulary = Vocabulary {
            slots: vec![None; capacity].into_boxed_slice(),
            word_classes: vec![0],
            phrase_heads: vec![0],
            phrase_ids: Vec::new(),
            stems_by_first_byte: vec![Vec::new(); 256],
            longest: listed.iter().map(|w| w.len()).max().unwrap_or(0),
        };
        for stem in ACTION_STEMS {
            let first = stem.as_bytes().first().map_or(0, |&b| usize::from(b));
            if let Some(stems) = vocabulary.stems_by_first_byte.get_mut(first) {
                stems.push(stem);
            }
        }
        for word in listed {
            vocabulary.intern(word);
        }
        for class in WordClass::ALL {
            for word in class.words() {
                let id = usize::from(vocabulary.id(word));
                if let Some(classes) = vocabulary.word_classes.get_mut(id) {
                    *classes |= class.bit();
                }
            }
        }
        for class in PhraseClass::ALL {
            let ids: Vec<Box<[WordId]>> = class
                .phrases()
                .iter()
                .map(|phrase| phrase.iter().map(|w| vocabulary.id(w)).collect())
                .collect();
            for phrase in &ids {
                let head = phrase.first().map_or(0, |&id| usize::from(id));
                if let Some(classes) = vocabulary.phrase_heads.get_mut(head) {
                    *classes |= class.bit();
                }
            }
            vocabulary.phrase_ids.push(ids);
        }
        vocabulary
    }

    /// Adds `word` if it is new.
    fn intern(&mut self, word: &'static str) {
        let Some(free) = self.slot_of(word) else {
            return;
        };
        if self.slots.get(free).is_some_and(Option::is_some) {
            return;
        }
        let Ok(id) = WordId::try_from(self.word_classes.len()) else {
            return;
        };
        if let Some(slot) = self.slots.get_mut(free) {
            *slot = Some((word, id));
            self.word_classes.push(0);
            self.phrase_heads.push(0);
        }
    }

    /// The slot holding `word`, or the free slot where it would go.
    fn slot_of(&self, word: &str) -> Option<usize> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut at = hash(word) & mask;
        // The table is at most a quarter full, so a free slot ends every
        // probe sequence.
        for _ in 0..self.slots.len() {
            match self.slots.get(at)? {
                Some((listed, _)) if *listed != word => at = (at + 1) & mask,
                _ => return Some(at),
            }
        }
        None
    }

    /// The id of `word`: its own if listed, [`OTHER`] if not.
    pub(crate) fn id(&self, word: &str) -> WordId {
        if word.len() > self.longest {
            return OTHER;
        }
        self.slot_of(word)
            .and_then(|at| self.slots.get(at).copied().flatten())
            .map_or(OTHER, |(_, id)| id)
    }
}

/// FNV-1a over the word's bytes: words are short, so a simple hash beats
/// a keyed one here (the table is fixed, and built from the lexicon).
fn hash(word: &str) -> usize {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in word.as_bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    // Truncating to the table's index bits is what a hash table does.
    #[allow(clippy::cast_possible_truncation)]
    let folded = (hash ^ (hash >> 32)) as usize;
    folded
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialogue::tokens::{contains_phrase, phrase_positions, words};

    #[test]
    fn every_listed_word_has_its_own_id_and_others_share_one() {
        let mut seen = std::collections::HashMap::new();
        for class in WordClass::ALL {
            for word in class.words() {
                let id = VOCABULARY.id(word);
                assert_ne!(id, OTHER, "{word}");
                assert!(class.has(&Word::new(word)), "{word}");
                if let Some(other) = seen.insert(id, *word) {
                    assert_eq!(other, *word);
                }
            }
        }
        for word in ["w9300146", "zebra", "", "yess", "cancelled!"] {
            assert_eq!(VOCABULARY.id(word), OTHER, "{word}");
        }
        assert!(!WordClass::Fillers.has(&Word::new("zebra")));
        assert!(!WordClass::Fillers.has(&Word::new("no")));
    }

    #[test]
    fn action_stems_by_first_byte_are_the_stem_scan() {
        let scan = |w: &str| {
            ACTION_STEMS
                .iter()
                .any(|stem| w.starts_with(stem) && (stem.len() >= 4 || w == *stem))
        };
        for w in [
            "cancel",
            "cancelled",
            "go",
            "goes",
            "it",
            "its",
            "item",
            "that",
            "thatch",
            "sure",
            "surely",
            "modify",
            "mod",
            "want",
            "",
            "é",
            "zebra",
            "this",
            "those",
            "fine",
        ] {
            assert_eq!(has_action_stem(w), scan(w), "{w}");
        }
    }

    #[test]
    fn phrase_classes_match_as_the_phrase_by_phrase_scan() {
        let texts = [
            "yes please go ahead, but i mean it",
            "no problem, not yet processed; i changed my mind and want to wait instead",
            "of course all right as long as it is not yet shipped",
            "let me know once it is done, or let me check with my wife",
            "pigs can fly over my dead body lol",
            "",
            "go",
        ];
        for text in texts {
            let owned = words(text);
            let tokens = &owned;
            for class in PhraseClass::ALL {
                let expected: Vec<(usize, &[&str])> = (0..tokens.len())
                    .flat_map(|at| {
                        class
                            .phrases()
                            .iter()
                            .filter(move |p| phrase_positions(tokens, p).contains(&at))
                            .map(move |p| (at, *p))
                    })
                    .collect();
                let expected_any = class.phrases().iter().any(|p| contains_phrase(tokens, p));
                let found: Vec<_> = class.matches(tokens).collect();
                assert_eq!(found, expected, "{class:?} in {text:?}");
                assert_eq!(class.any_in(tokens), expected_any);
                let opening = class
                    .phrases()
                    .iter()
                    .find(|p| tokens.get(..p.len()).is_some_and(|s| s == **p))
                    .copied();
                assert_eq!(class.opening(tokens), opening, "{class:?} in {text:?}");
            }
        }
    }
}
