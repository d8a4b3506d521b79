//! What the agent has asked the user to decide so far ([`AskedWords`]): the
//! words of every agent turn that asked for a decision. A negation or
//! retention in a user's reply that names only identifiers no request for a
//! decision named is about something else: "leave orders W9154975 and
//! W7284266 unchanged" does not take back a yes to cancelling W3289292.
//! Only identifiers decide it: which *described* thing ("keep the red
//! one") a clause is about is meaning, so such a clause still counts.
//! Once a turn after the latest request names another record of a kind
//! that request named, a yes naming none of the request's records cannot
//! be placed ([`AskedWords::leaves_record_open`]). The things the latest
//! request laid out side by side by words ("jira and confluence", a list of
//! titles) are its items: a reply naming them is read with each as a
//! record ([`AskedWords::items_as_ids`]).

use std::borrow::Cow;

use hashbrown::HashSet;

use super::choice::is_consent_word;
use super::domain::DomainClass;
use super::lexicon::{
    ALL_OF_THEM, FIRST_OF_TWO, ITEM_COORDINATORS, ITEM_LEADS, KEEPING_VERBS, KEPT_OBJECT_FILLERS,
    MAX_ITEM_LEADS, NAME_DETERMINERS, OPTION_WORDS, ORDINALS, PART_DETERMINERS, PICKING_NOTHING,
    RESTRICTING_WORDS, SECOND_OF_TWO,
};
use super::stance::{is_action_word, names_the_other_record};
use super::tokens::{MAX_LABEL_WORDS, Rewrite, Sentence, Word, normalise, words};
use super::vocabulary::{OTHER, PhraseClass, WordClass};

/// Words shorter than this are too common to name an option by ("on",
/// "at").
const MIN_NAMING_WORD: usize = 3;

/// Whether a word is one a quoted detail can end in ([`AskedWords::named_pair`]).
fn is_answer_word(word: &Word) -> bool {
    word == "yes" || word == "no"
}

/// How many first letters two forms of an action word share ("cancel",
/// "cancellation"; "modif-y", "modif-ication").
const ACTION_STEM_LEN: usize = 5;

/// The words of every agent turn that asked the user for a decision, in
/// the conversation so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AskedWords {
    words: HashSet<Word>,
    /// Every two adjacent words of those turns ending in `yes` or `no`
    /// ("waterproof", "no"): the details a reply may quote back
    /// ([`AskedWords::named_pair`]; no other pair is ever asked about, and
    /// keeping every pair cost a seventh of an audit).
    pairs: HashSet<(Word, Word)>,
    /// Every three adjacent words of those turns opening with `no` ("no",
    /// "item", "modifications"; [`AskedWords::named_triple`]).
    triples: HashSet<(Word, Word, Word)>,
    /// The record ids the latest request for a decision named
    /// ([`record_ids_of`]).
    latest: Vec<String>,
    /// How many distinct numbers a person names a record by
    /// ([`is_alias_number`]) the latest request for a decision wrote ("card
    /// ending 4411 and card ending 2630").
    latest_numbers: usize,
    /// The latest request for a decision asked something else last
    /// ([`AskedWords::mark_latest_asks_other`]).
    latest_asks_other: bool,
    /// The latest request for a decision offered keeping things as they
    /// are instead of its action
    /// ([`AskedWords::mark_latest_offers_keeping`]).
    latest_offers_keeping: bool,
    /// The text of the latest request for a decision, whose labelled
    /// options ([`labelled_options`]) are read only when a reply picks one.
    latest_text: String,
    /// A request for a decision named an action that takes something away
    /// (a word of [`DomainClass::RemovalForm`]).
    removal_asked: bool,
    /// The domain's actions the requests for a decision named (a bit per
    /// action, as words carry them).
    actions: u16,
    /// The record ids as people write them the latest request for a
    /// decision named ([`record_ids_in`]).
    latest_ids: Vec<String>,
    /// A turn after the latest request for a decision named another record
    /// of a kind it named ([`AskedWords::note_discussed`]).
    other_discussed: bool,
    /// The latest request for a decision asked which of the things it laid
    /// out to act on ([`AskedWords::mark_latest_picks_one`]).
    latest_picks_one: bool,
    /// What the latest request for a decision says stays as it is, each as
    /// the words naming it ([`AskedWords::keeps_what_latest_kept`]).
    latest_kept: Vec<Vec<Word>>,
    /// The things the latest request for a decision laid out side by
    /// side, each as the one word naming it, in order
    /// ([`coordinated_items`]): "jira" and "confluence" of "access to jira
    /// and confluence". A reply answers them one by one as it answers
    /// records by their ids ([`AskedWords::items_as_ids`]).
    latest_items: Vec<Word>,
    /// The other item words of a listed item's line, each with its item's
    /// place ("darkness" of "3. The Left Hand of Darkness"): a reply may
    /// name the item by any of them.
    latest_item_words: Vec<(Word, usize)>,
    /// Per item, the record id its list line wrote, if one ("* #W9300146 —
    /// Laptop"): a reply naming the item names that record.
    latest_item_records: Vec<Option<String>>,
    /// The latest request for a decision asked about all of its items at
    /// once ("Shall I grant both?"): a reply naming one of them answers for
    /// that one alone.
    latest_asks_all: bool,
    /// Each word naming one of the things the latest request for a
    /// decision wrote with a record id beside it, with that id
    /// ([`named_records`]): "bottle" with `8538875209` of "Water Bottle
    /// (item 8538875209)".
    latest_named: Vec<(Word, String)>,
    /// The same pairs from every agent turn so far ([`AskedWords::note_names`]),
    /// the latest last: a request naming a record by its id alone ("Shall I
    /// wipe LT-7720 and LT-7734?") after a turn that named it ("- MacBook
    /// Pro (LT-7720)") lets a reply name it by that name.
    named_before: Vec<(Word, String)>,
    /// The things the latest request for a decision laid out in its
    /// statements that its question, laying out others of them, left out
    /// ([`AskedWords::set_aside`]).
    latest_set_aside: Vec<Word>,
}

impl AskedWords {
    /// Adds the words of an agent turn that asked for a decision, read
    /// without a domain's words.
    pub fn add_turn(&mut self, text: &str) {
        self.add_words(words(&normalise(text)));
    }

    /// [`AskedWords::add_turn`] of a turn already read into `sentences`
    /// (their words are the turn's, [`super::tokens::flat_tokens`]).
    pub(crate) fn add_sentences(&mut self, sentences: &[Sentence]) {
        self.add_words(
            sentences
                .iter()
                .flat_map(Sentence::tokens)
                .cloned()
                .collect(),
        );
    }

    fn add_words(&mut self, turn: Vec<Word>) {
        self.actions |= turn.iter().fold(0, |bits, w| bits | w.tags().actions());
        self.removal_asked |= turn.iter().any(|w| w.tags().has(DomainClass::RemovalForm));
        self.latest = turn
            .iter()
            .filter(|w| is_record_id(w))
            .map(Word::to_string)
            .collect();
        self.latest.sort();
        self.latest.dedup();
        let mut numbers: Vec<&Word> = turn.iter().filter(|w| is_alias_number(w)).collect();
        numbers.sort_unstable();
        numbers.dedup();
        self.latest_numbers = numbers.len();

        self.pairs
            .extend(turn.windows(2).filter_map(|pair| match pair {
                [a, b] if is_answer_word(b) => Some((a.clone(), b.clone())),
                _ => None,
            }));
        self.triples
            .extend(turn.windows(3).filter_map(|run| match run {
                [a, b, c] if a == "no" => Some((a.clone(), b.clone(), c.clone())),
                _ => None,
            }));
        self.words.extend(turn);
    }

    /// Whether a reply picks a part of, or something beside, what the
    /// latest request for a decision named ([`is_record_id`]s, such as order
    /// ids; a choice among flights or product variants is an answer, not a
    /// part): it names identifiers of a kind
    /// named there, none of them one named there ("Yes, cancel #W4597054"
    /// to a summary of #W9300146), or, with several of one kind, selects
    /// ("the second one only"). A yes that does is no yes to the summary as
    /// a whole. A yes naming *some* of several ("Yes, cancel W4597054" to a
    /// summary of two orders) is a yes to the ones it names: that is decided
    /// against the write's key values ([`names_other_records`]), not here.
    pub(crate) fn selects_part(&self, reply: &[Word], written: &[String]) -> bool {
        let beside = self.names_another_of_kind(reply, written);
        let several = self.latest.iter().any(|id| {
            self.latest
                .iter()
                .filter(|other| same_kind(id, other))
                .count()
                >= 2
        });
        let selects = several
            && reply.windows(2).any(|pair| {
                matches!(pair, [ordinal, noun]
                    if WordClass::SelectingWords.has(ordinal)
                        && (noun == "one" || noun.tags().has(DomainClass::RecordNoun)))
            });
        beside || selects
    }

    /// Whether `words` (of a reply whose record ids are `written`) name
    /// identifiers of a kind the latest request for a decision named, none
    /// of them one it named: "Just BK-51019" to a request for BK-51004.
    pub(crate) fn names_another_of_kind(&self, words: &[Word], written: &[String]) -> bool {
        // "card 7732" to a request naming CARD-7731 names a card.
        let named = ids_in(words, is_record_id, |id| {
            written.iter().any(|w| w == id) || self.latest_ids.iter().any(|l| same_kind(l, id))
        });
        self.latest.iter().chain(&self.latest_ids).any(|l| {
            let of_kind: Vec<&String> = named.iter().filter(|n| same_kind(n, l)).collect();
            !of_kind.is_empty()
                && !of_kind
                    .iter()
                    .any(|n| self.latest.contains(n) || self.latest_ids.contains(n))
        })
    }

    /// Notes the text of a request for a decision just added: the record
    /// ids it names, none discussed since.
    pub(crate) fn note_request_ids(&mut self, text: &str) {
        self.latest_ids = record_ids_in(text);
        self.other_discussed = false;
        // An id written in two words ("RX-6120") is a word of the request
        // as one, as a reply joining it reads it ([`AskedWords::ids_joined`]).
        self.words.extend(self.latest_ids.iter().map(Word::new));
    }

    /// Notes the things the request for a decision just added lays out
    /// side by side ([`coordinated_items`]); fewer than two lay out none.
    pub(crate) fn note_request_items(&mut self, text: &str, sentences: &[Sentence]) {
        self.latest_named = self.request_names(sentences);
        self.latest_text.clear();
        self.latest_text.push_str(text);
        let listed = listed_items(text, sentences);
        let (joined, mut set_aside) = coordinated_items(sentences, &self.latest_ids);
        let laid = if listed.len() >= 2 {
            // A question joining some of the things a list lays out ("1.
            // Hamnet … 3. Piranesi. Shall I place holds on Hamnet and
            // Circe?") sets the others aside.
            let asked: Vec<&Word> = joined.iter().filter_map(|(w, _)| w.first()).collect();
            // Each joined thing is a listed one, and two of them at least
            // are different ones: "Klara and the Sun" joins the words of
            // one title.
            let listed_at: Vec<Option<usize>> = asked
                .iter()
                .map(|a| listed.iter().position(|(w, _)| w.contains(a)))
                .collect();
            let mut places: Vec<usize> = listed_at.iter().flatten().copied().collect();
            places.dedup();
            set_aside = if places.len() >= 2 && listed_at.iter().all(Option::is_some) {
                listed
                    .iter()
                    .filter(|(words, _)| !words.iter().any(|w| asked.contains(&w)))
                    .filter_map(|(words, _)| words.first().cloned())
                    .collect()
            } else {
                Vec::new()
            };
            listed
        } else {
            joined
        };
        // A thing the request says stays as it is ("Shipping address and
        // payment method will remain the same", "everything except the pet
        // bed") is not laid out to act on: the request sets it aside.
        let (kept, laid): (Vec<LaidItem>, Vec<LaidItem>) = laid
            .into_iter()
            .partition(|(words, _)| self.kept_whole(words));
        set_aside.extend(
            kept.into_iter()
                .filter_map(|(words, _)| words.into_iter().next()),
        );
        self.latest_set_aside = set_aside;
        self.latest_item_words.clear();
        self.latest_item_records.clear();
        let mut items = Vec::with_capacity(laid.len());
        for (mut words, record) in laid {
            if words.is_empty() {
                continue;
            }
            let at = items.len();
            let main = words.remove(0);
            self.latest_item_words
                .extend(words.into_iter().map(|word| (word, at)));
            self.latest_item_records.push(record);
            items.push(main);
        }
        self.latest_items = items;
        // The digits of a record id the request wrote ("RX-8801") name
        // that record, not an item.
        let ids = &self.latest_ids;
        let before = self.latest_items.len();
        self.latest_items.retain(|item| {
            !ids.iter().any(|id| {
                id.strip_suffix(item.as_str()).is_some_and(|prefix| {
                    !prefix.is_empty() && prefix.bytes().all(|b| b.is_ascii_alphabetic())
                })
            })
        });
        if self.latest_items.len() < before {
            // The places of the other words no longer line up.
            self.latest_item_words.clear();
            self.latest_item_records.clear();
        }
        if self.latest_items.len() < 2 {
            self.latest_items.clear();
            self.latest_item_words.clear();
            self.latest_item_records.clear();
        }
        // "Shall I grant both?": the question asks about all of them ("all
        // 3 bags will be free" in a statement does not).
        let asking = sentences.iter().filter(|s| s.question);
        self.latest_asks_all = asking
            .flat_map(Sentence::tokens)
            .any(|w| ALL_OF_THEM.contains(&w.as_str()));
        // An item's id, and the record id of its line as one word, are
        // words of the request, as its own word is.
        self.words
            .extend((0..self.latest_items.len()).map(|at| Word::new(item_id(at))));
        self.words
            .extend(self.latest_item_records.iter().flatten().map(Word::new));
    }

    /// A reply's sentences with every word naming an item the latest
    /// request for a decision laid out ([`AskedWords::note_request_items`])
    /// read as that item's id ([`item_id`]): "jira: yes / confluence: no"
    /// is then read as "RX-40812: yes, RX-40877: no" is, each item its own
    /// record. A reply naming none of them is read as written.
    pub(crate) fn items_as_ids<'s>(&self, read: &'s [Sentence]) -> Cow<'s, [Sentence]> {
        if self.latest_items.is_empty() {
            return Cow::Borrowed(read);
        }
        let mut named: Vec<usize> = read
            .iter()
            .flat_map(|s| (0..s.words().len()).filter_map(move |at| self.item_at(s, at)))
            .collect();
        named.sort_unstable();
        named.dedup();
        // One item named answers for it alone only where the request asked
        // about all of them; elsewhere it may be a detail the request listed
        // ("Confluence offers viewer, editor and space-admin").
        let answers_items = match named.len() {
            0 => false,
            1 => self.latest_asks_all,
            _ => true,
        };
        // A reply naming every item in one sentence, with no word that
        // could hold one back, answers them all alike: it is read as
        // written. Sentences naming items apart ("The electricity reading,
        // yes. The gas one I'll deal with myself.") each say their own.
        let in_one_sentence = || {
            read.iter().any(|s| {
                let in_it: Vec<usize> = (0..s.words().len())
                    .filter_map(|at| self.item_at(s, at))
                    .collect();
                named.iter().all(|item| in_it.contains(item))
            })
        };
        if !answers_items
            || (named.len() == self.latest_items.len() && !may_hold_back(read) && in_one_sentence())
        {
            return Cow::Borrowed(read);
        }
        Cow::Owned(
            read.iter()
                .map(|sentence| {
                    sentence.rewritten(|at, word| match self.item_at(sentence, at) {
                        Some(item) => Rewrite::Replace(self.item_as_id(item)),
                        // "first one" is read as the first item's id alone.
                        None if (word == "one" || word == "ones")
                            && at.checked_sub(1).is_some_and(|before| {
                                self.ordinal_item(sentence, before).is_some()
                            }) =>
                        {
                            Rewrite::Drop
                        }
                        None => Rewrite::Keep,
                    })
                })
                .collect(),
        )
    }

    /// Notes the things an agent turn (`text`, read into `sentences`)
    /// names with a record id beside them ([`named_records`]), for a later
    /// request naming those records by their ids alone.
    pub(crate) fn note_names(&mut self, text: &str, sentences: &[Sentence]) {
        // Every such pair has a bracket or a dash around its id.
        if !text.contains(['(', '-', '\u{2013}', '\u{2014}']) {
            return;
        }
        let named = named_records(sentences, &record_ids_in(text));
        self.remember_names(&named);
    }

    /// The names of the request just added (`sentences`): the pairs it
    /// writes, and those an earlier turn wrote for a record it names by
    /// its id alone, unless that turn's word names two records, or the
    /// request pairs the word itself.
    fn request_names(&mut self, sentences: &[Sentence]) -> Vec<(Word, String)> {
        let mut named = named_records(sentences, &self.latest_ids);
        if self.named_before.is_empty() {
            self.remember_names(&named);
            return named;
        }
        // The request names an id as one word, or as its letters and digits
        // (`latest_ids`).
        let requested = |id: &String| {
            self.latest_ids.contains(id)
                || sentences
                    .iter()
                    .any(|s| s.words().iter().any(|w| w.as_str() == id.as_str()))
        };
        let own = named.len();
        for (word, id) in &self.named_before {
            let one_record = || {
                self.named_before
                    .iter()
                    .all(|(other, other_id)| other != word || other_id == id)
            };
            if !named.iter().any(|(known, _)| known == word) && one_record() && requested(id) {
                named.push((word.clone(), id.clone()));
            }
        }
        let own: Vec<(Word, String)> = named.iter().take(own).cloned().collect();
        self.remember_names(&own);
        named
    }

    /// Adds `named` to the pairs of earlier turns, the oldest dropped past
    /// [`MAX_NAMED_BEFORE`].
    fn remember_names(&mut self, named: &[(Word, String)]) {
        self.named_before.extend_from_slice(named);
        let excess = self.named_before.len().saturating_sub(MAX_NAMED_BEFORE);
        self.named_before.drain(..excess);
    }

    /// A reply's sentences with each word naming one of the things the
    /// latest request for a decision wrote with a record id beside it
    /// ([`named_records`]) read as that id, a run of words naming one thing
    /// as one: "Water bottle: let's hold off" is read as "8538875209: let's
    /// hold off" is, so a thing held back by its name is held back as its
    /// record. A reply naming none of them is read as written.
    pub(crate) fn names_as_records<'s>(&self, read: &'s [Sentence]) -> Cow<'s, [Sentence]> {
        let record_of = |word: &Word| self.record_named_by(word);
        if self.latest_named.is_empty() {
            return Cow::Borrowed(read);
        }
        // The reading stands only where a sentence holds a record back
        // beside another naming one ([`super::stance::held_back_sentences`]):
        // a reply naming one thing, and no other record, is read as written
        // without being read twice.
        let mut named: Vec<&String> = read
            .iter()
            .flat_map(|s| s.words().iter().filter_map(record_of))
            .collect();
        named.sort_unstable();
        named.dedup();
        let beside_another = match named.as_slice() {
            [] => false,
            // Held back beside the others the request laid out, in a reply
            // naming records by names alone, with no label ("Yes, but not
            // the metformin"; "Statin: yes. Lisinopril: no." leaves a label
            // unplaced),
            // or beside a record of its kind the reply writes: of its
            // length, digits alone or not.
            [_] if self.latest_ids.len() >= 2
                && !read.iter().any(|s| {
                    s.words().iter().any(|w| is_identifier(w.as_str()))
                        || s.labelled_clauses().any(|(_, label)| label.is_some())
                }) =>
            {
                true
            }
            [one] => read.iter().any(|s| {
                s.words().iter().any(|w| {
                    is_identifier(w.as_str())
                        && !one.ends_with(w.as_str())
                        && w.len() == one.len()
                        && w.bytes().all(|b| b.is_ascii_digit())
                            == one.bytes().all(|b| b.is_ascii_digit())
                })
            }),
            _ => true,
        };
        if !beside_another {
            return Cow::Borrowed(read);
        }
        Cow::Owned(
            read.iter()
                .map(|sentence| self.with_names_as_records(sentence))
                .collect(),
        )
    }

    /// The record ids a reply's `sentence` names by the names the latest
    /// request for a decision wrote beside them: a name of [`named_records`]
    /// ("the Visa" of "Visa Platinum ending 4411 (card crd_7d2e90)") or an
    /// item of a list line writing its record ([`AskedWords::item_at`]).
    /// None unless the request laid out several records: a name then picks
    /// among them as their ids would.
    pub(crate) fn records_named_in(&self, sentence: &Sentence) -> Vec<String> {
        if !self.names_records() {
            return Vec::new();
        }
        let mut records: Vec<String> = Vec::new();
        for (at, word) in sentence.words().iter().enumerate() {
            let record = self.record_named_by(word).or_else(|| {
                let item = self.item_at(sentence, at)?;
                self.latest_item_records.get(item)?.as_ref()
            });
            if let Some(record) = record
                && !records.contains(record)
            {
                records.push(record.clone());
            }
        }
        records
    }

    /// Whether the latest request for a decision laid out several records
    /// and wrote a name beside one ([`AskedWords::records_named_in`]).
    pub(crate) fn names_records(&self) -> bool {
        // Most requests write no name beside a record.
        (!self.latest_named.is_empty() || self.latest_item_records.iter().any(Option::is_some))
            && self.lays_out_several_records()
    }

    /// Whether `records` hold every record the latest request for a
    /// decision wrote a name beside ([`AskedWords::records_named_in`]): a
    /// reply naming them all picks none of them out.
    pub(crate) fn names_every_named_record(&self, records: &[String]) -> bool {
        self.latest_named
            .iter()
            .map(|(_, id)| id)
            .chain(self.latest_item_records.iter().flatten())
            .all(|id| records.contains(id))
    }

    /// The record id the latest request for a decision wrote beside a
    /// thing `word` names ([`named_records`]).
    pub(crate) fn record_named_by(&self, word: &str) -> Option<&String> {
        self.latest_named
            .iter()
            .find(|(name, _)| name == word)
            .map(|(_, id)| id)
    }

    /// A sentence with each word naming a thing the latest request wrote
    /// with a record id beside it read as that id, a run of words naming
    /// one thing as one, and the determiner before it dropped ("the
    /// vase" is the id).
    pub(crate) fn with_names_as_records(&self, sentence: &Sentence) -> Sentence {
        let words = sentence.words();
        sentence.rewritten(|at, word| match self.record_named_by(word) {
            Some(id)
                if at
                    .checked_sub(1)
                    .and_then(|before| words.get(before))
                    .and_then(|before| self.record_named_by(before))
                    == Some(id) =>
            {
                Rewrite::Drop
            }
            Some(id) => Rewrite::Replace(Word::new(id)),
            None if NAME_DETERMINERS.contains(&word.as_str())
                && words
                    .get(at + 1)
                    .and_then(|next| self.record_named_by(next))
                    .is_some() =>
            {
                Rewrite::Drop
            }
            None => Rewrite::Keep,
        })
    }

    /// A reply's sentences with each record id the latest request for a
    /// decision named that they write in two words of which the second is
    /// no identifier ("RX-6120" as `rx` `6120`: four digits name a card's
    /// ending too) read as one (`rx6120`), as a longer one is read: "RX-6120
    /// yes. RX-6121 no" answers record by record.
    pub(crate) fn ids_joined<'s>(&self, read: &'s [Sentence]) -> Cow<'s, [Sentence]> {
        let joined_at = |sentence: &Sentence, at: usize| -> Option<Word> {
            let words = sentence.words();
            let digits = words.get(at)?.as_str();
            let letters = words.get(at.checked_sub(1)?)?.as_str();
            if is_identifier(digits)
                || !digits.bytes().all(|b| b.is_ascii_digit())
                || !letters.bytes().all(|b| b.is_ascii_alphabetic())
            {
                return None;
            }
            let id = format!("{letters}{digits}");
            self.latest_ids.contains(&id).then(|| Word::new(&id))
        };
        // Only an id of letters then fewer than five digits is written in
        // two such words: most requests name none.
        let splits = |id: &String| {
            let digits = id.bytes().rev().take_while(u8::is_ascii_digit).count();
            (1..5).contains(&digits)
                && id.get(..id.len() - digits).is_some_and(|letters| {
                    !letters.is_empty() && letters.bytes().all(|b| b.is_ascii_alphabetic())
                })
        };
        if !self.latest_ids.iter().any(splits)
            || !read
                .iter()
                .any(|s| (0..s.words().len()).any(|at| joined_at(s, at).is_some()))
        {
            return Cow::Borrowed(read);
        }
        Cow::Owned(
            read.iter()
                .map(|sentence| {
                    sentence.rewritten(|at, _| match joined_at(sentence, at) {
                        Some(id) => Rewrite::Replace(id),
                        None if joined_at(sentence, at + 1).is_some() => Rewrite::Drop,
                        None => Rewrite::Keep,
                    })
                })
                .collect(),
        )
    }

    /// The things the latest request for a decision laid out in its
    /// statements and left out of its question, which laid out others
    /// ("You have Jira, Confluence and Bitbucket. Shall I grant Jira and
    /// Confluence?" sets Bitbucket aside): the request proposes nothing
    /// for them.
    pub(crate) fn set_aside(&self) -> &[Word] {
        &self.latest_set_aside
    }

    /// The word a reply's word naming the item at `item` is read as: the
    /// record id its list line wrote, or the item's own id ([`item_id`]).
    fn item_as_id(&self, item: usize) -> Word {
        match self.latest_item_records.get(item) {
            Some(Some(record)) => Word::new(record),
            _ => Word::new(item_id(item)),
        }
    }

    /// Whether the latest request for a decision laid out several records
    /// or things, kept or not: record ids, numbers naming records, things
    /// with a record id beside them, or items side by side. A reply naming one of them
    /// by another word picks among them, which only a reading placing that
    /// word as its record can tell.
    pub(crate) fn lays_out_several_records(&self) -> bool {
        let named_ids = || {
            let mut ids: Vec<&String> = self.latest_named.iter().map(|(_, id)| id).collect();
            ids.sort_unstable();
            ids.dedup();
            ids.len()
        };
        self.latest_ids.len() >= 2
            || self.latest_numbers >= 2
            || self.latest_items.len() >= 2
            || named_ids() >= 2
    }

    /// The item (its place among the latest request's items, from 0) the
    /// word at `at` of a reply's sentence names: by the item's word, or by
    /// its place ([`AskedWords::ordinal_item`]).
    fn item_at(&self, sentence: &Sentence, at: usize) -> Option<usize> {
        let words = sentence.words();
        let word = words.get(at)?;
        self.latest_items
            .iter()
            .position(|item| item == word)
            .filter(|&item| !self.in_name_of_another(words, at, item))
            .or_else(|| {
                let mut places = self
                    .latest_item_words
                    .iter()
                    .filter(|(other, _)| other == word)
                    .map(|&(_, place)| place);
                // A word two items share names neither.
                let place = places.next()?;
                places.all(|p| p == place).then_some(place)
            })
            .or_else(|| self.ordinal_item(sentence, at))
    }

    /// Whether the word at `at`, an item's first word, stands beside a word
    /// the latest request wrote in the name of another record: "the Jira
    /// Service Management one" names not the item Jira Software.
    fn in_name_of_another(&self, words: &[Word], at: usize, item: usize) -> bool {
        if self.latest_named.is_empty() {
            return false;
        }
        let own = self.latest_item_records.get(item).and_then(Option::as_ref);
        [at.checked_sub(1), Some(at + 1)]
            .into_iter()
            .flatten()
            .filter_map(|near| self.record_named_by(words.get(near)?))
            .any(|record| Some(record) != own)
    }

    /// The item an ordinal at `at` picks by its place among the latest
    /// request's items: before *one* or a noun for a record ("the first
    /// one", "top one"), alone in its clause ("Second, yes"), or ending its
    /// clause after *the* ("not the second"). *Top* is the first, *last*
    /// and *bottom* the last.
    fn ordinal_item(&self, sentence: &Sentence, at: usize) -> Option<usize> {
        let words = sentence.words();
        let count = self.latest_items.len();
        let place = match words.get(at)?.as_str() {
            "top" => 1,
            "last" | "bottom" => count,
            word => ORDINALS
                .iter()
                .find(|(ordinal, _)| *ordinal == word)
                .map(|&(_, place)| place)?,
        };
        if place == 0 || place > count {
            return None;
        }
        let (start, end) = sentence.clause_spans().find(|&(s, e)| s <= at && at < e)?;
        let next = words.get(at + 1).filter(|_| at + 1 < end);
        let the_before = at > start && words.get(at - 1).is_some_and(|w| w == "the");
        let points = next
            .is_some_and(|w| w == "one" || w == "ones" || w.tags().has(DomainClass::RecordNoun))
            || (next.is_none() && (at == start || the_before));
        points.then(|| place - 1)
    }

    /// Whether the latest request for a decision laid out several things
    /// to act on: items ([`AskedWords::note_request_items`]), record ids, or a question
    /// about all of them ("Shall I grant both?"); and kept none as it is
    /// ("Cancel PX-3561. PX-3577 won't be affected.": "both" then asks for
    /// more than it proposed).
    pub(crate) fn lays_out_several(&self) -> bool {
        (self.latest_items.len() >= 2 || self.latest_ids.len() >= 2 || self.latest_asks_all)
            && self.latest_kept.is_empty()
    }

    /// Whether `word` is a word of the name of an item the latest request
    /// for a decision laid out ("minibar" of "1) refund the minibar
    /// charge …").
    pub(crate) fn names_an_item(&self, word: &Word) -> bool {
        self.latest_items.contains(word)
            || self
                .latest_item_words
                .iter()
                .any(|(item_word, _)| item_word == word)
    }

    /// The words naming the item an id of [`AskedWords::items_as_ids`]
    /// stands for: its word, then the other words of its name no other
    /// item's name holds ("electricity" and "3301" of "1. Electricity
    /// reading rd_e_3301 …"), by which a value of the item is found.
    pub(crate) fn item_words(&self, id: &str) -> Vec<&Word> {
        let Some(at) = id
            .strip_prefix(ITEM_ID_PREFIX)
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| n.checked_sub(1))
        else {
            return Vec::new();
        };
        let own = self
            .latest_item_words
            .iter()
            .filter(|(word, place)| {
                *place == at
                    && !self
                        .latest_item_words
                        .iter()
                        .any(|(other, other_place)| other == word && *other_place != at)
            })
            .map(|(word, _)| word);
        self.latest_items.get(at).into_iter().chain(own).collect()
    }

    /// The word naming the item an id of [`AskedWords::items_as_ids`]
    /// stands for.
    pub(crate) fn item_word(&self, id: &str) -> Option<&Word> {
        let at = id.strip_prefix(ITEM_ID_PREFIX)?.parse::<usize>().ok()?;
        self.latest_items.get(at.checked_sub(1)?)
    }

    /// Whether the latest request for a decision names a record id of the
    /// kind of the record `id` (as a trace holds it), none of them `id`:
    /// "Shall I upgrade PK-71466?" is about PK-71466, not about PK-71420, the
    /// only parcel read. Ids are read as people write them (letters, an
    /// optional hyphen, four or more digits); two are of one kind when their
    /// letters are the same and their lengths equal.
    #[must_use]
    pub fn latest_names_another_record(&self, id: &str) -> bool {
        let written = record_ids_in(id);
        let [word] = written.as_slice() else {
            return false;
        };
        self.latest_ids
            .iter()
            .any(|named| named != word && same_kind(named, word))
    }

    /// Whether the latest request for a decision named no record id, or
    /// named the identifier `word` (as a reply's word holds it: `40812` or
    /// `rx40812` for RX-40812).
    /// Whether the latest request for a decision wrote record ids, none of
    /// them one of `own` (as a reply's words hold them), each of which is an
    /// id of a kind it wrote or one long enough to name a record by itself
    /// (a plate, "9QWE118"; not "Q4" or "8GB").
    pub(crate) fn names_records_other_than(&self, own: &[&Word]) -> bool {
        // A reply may write an id's digits apart from its letters
        // ("BK-51019" read as "51019").
        let of_kind = |latest: &String, id: &str| {
            same_kind(latest, id)
                || (id.bytes().all(|b| b.is_ascii_digit())
                    && latest.trim_start_matches(|c: char| c.is_alphabetic()).len() == id.len())
        };
        let names_a_record = |id: &&Word| {
            let digits = id.bytes().filter(u8::is_ascii_digit).count();
            self.latest_ids.iter().any(|l| of_kind(l, id))
                || (id.len() >= WRITTEN_ID_DIGITS + 2 && digits >= WRITTEN_ID_DIGITS - 1)
        };
        !self.latest_ids.is_empty()
            && own.iter().all(names_a_record)
            && !own.iter().any(|id| self.latest_names_or_none(id))
    }

    pub(crate) fn latest_names_or_none(&self, word: &str) -> bool {
        self.item_word(word).is_some()
            || self.latest_ids.is_empty()
            || self.latest_ids.iter().any(|id| {
                id.strip_suffix(word)
                    .is_some_and(|prefix| prefix.bytes().all(|b| b.is_ascii_alphabetic()))
            })
    }

    /// Whether the latest request for a decision named several record ids,
    /// some of them among `own` (as a reply's words hold them) and some
    /// not, one of which it proposed to act on (it did not say it stays as
    /// it is): a yes naming none of them then reaches the others.
    pub(crate) fn names_others_than(&self, own: &[&Word]) -> bool {
        let is_own = |id: &String| {
            own.iter().any(|word| {
                id.strip_suffix(word.as_str())
                    .is_some_and(|prefix| prefix.bytes().all(|b| b.is_ascii_alphabetic()))
            })
        };
        let kept = |id: &String| {
            self.latest_kept
                .iter()
                .any(|span| span.iter().any(|w| w.as_str() == id.as_str()))
        };
        self.latest_ids.len() >= 2
            && self.latest_ids.iter().any(is_own)
            && self.latest_ids.iter().any(|id| !is_own(id) && !kept(id))
    }

    /// The records of the latest request for a decision that an answer
    /// naming `answered`, some of them that request's, passes over: each of
    /// a kind it names, not named itself ("Yes to RX-40812" to a request
    /// for RX-40812 and RX-40877 passes over RX-40877).
    pub(crate) fn passed_over_by(&self, answered: &[String]) -> Vec<String> {
        let items = (0..self.latest_items.len())
            .filter(|&at| !matches!(self.latest_item_records.get(at), Some(Some(_))))
            .map(item_id);
        let laid_out: Vec<String> = self.latest_ids.iter().cloned().chain(items).collect();
        if !answered.iter().any(|a| laid_out.contains(a)) {
            return Vec::new();
        }
        // The records of the items a request lays out side by side are of
        // one kind whatever their letters ("Looker (BI-5)", "Snowflake
        // (DW-2)").
        let of_an_item = |id: &String| self.latest_item_records.iter().flatten().any(|r| r == id);
        laid_out
            .into_iter()
            .filter(|id| {
                !answered.contains(id)
                    && answered
                        .iter()
                        .any(|a| same_kind(a, id) || (of_an_item(a) && of_an_item(id)))
            })
            .collect()
    }

    /// Notes a turn after the latest request for a decision (not itself
    /// one): whether it names a record of a kind that request named, not
    /// one it named ("Is LT-4480 the old ThinkPad?" after "Shall I wipe
    /// LT-4471?").
    pub(crate) fn note_discussed(&mut self, text: &str) {
        if self.latest_ids.is_empty() || self.other_discussed {
            return;
        }
        self.other_discussed = record_ids_in(text).iter().any(|id| {
            !self.latest_ids.contains(id) && self.latest_ids.iter().any(|l| same_kind(id, l))
        });
    }

    /// Whether a yes saying `reply` cannot be placed: another record of a
    /// kind the latest request for a decision named was discussed since,
    /// and the yes names none of that request's ("yes, wipe it" may be
    /// about either laptop).
    pub(crate) fn leaves_record_open(&self, reply: &str) -> bool {
        self.other_discussed
            && !record_ids_in(reply)
                .iter()
                .any(|id| self.latest_ids.contains(id))
    }

    /// Records whether the request for a decision just added asks which of
    /// the things it lays out to act on ("Which one was in the phone case?
    /// I'll freeze it."): a yes then answers it only with a pick.
    pub(crate) fn mark_latest_picks_one(&mut self, picks_one: bool) {
        self.latest_picks_one = picks_one;
    }

    /// Whether a number a reply names (`word`, [`is_alias_number`]) picks
    /// among records the latest request for a decision named by such
    /// numbers: it wrote that number and another ("card ending 4411 and
    /// card ending 2630"). A number the request wrote alone is a detail
    /// ("refund to the Visa ending 7285").
    pub(crate) fn picks_by_number(&self, word: &str) -> bool {
        self.latest_numbers >= 2 && self.named(word)
    }

    /// How many items the latest request for a decision laid out.
    pub(crate) fn item_count(&self) -> usize {
        self.latest_items.len()
    }

    /// Whether the option of the latest request for a decision that a
    /// reply picks by its label (`option` and a label: "option 1", "Option
    /// (a)"; a number alone: "2"; a place: "the first one") is the one
    /// option proposing the action, the others keeping things as they are.
    /// `None` where the reply picks no labelled option of it.
    pub(crate) fn picked_option_proposes(&self, words: &[Word]) -> Option<bool> {
        // The pick's shape is read first: most replies are none, and the
        // request's options are read only for one that is.
        let pick = match words {
            [lead, label, ..] if OPTION_WORDS.contains(&lead.as_str()) => OptionPick::Label(label),
            [label, ..] if label.as_str().bytes().all(|b| b.is_ascii_digit()) => {
                OptionPick::Label(label)
            }
            // A word alone picks by a label's shape: a letter or a number.
            [label] if label.as_str().len() <= 2 => OptionPick::Label(label),
            _ => {
                let rest = words
                    .strip_prefix(&[Word::new_static("the")][..])
                    .unwrap_or(words);
                let (ordinal, after) = rest.split_first()?;
                let place = ORDINALS
                    .iter()
                    .find(|(o, _)| *o == ordinal.as_str())
                    .map(|&(_, place)| place)?;
                if !after
                    .first()
                    .is_none_or(|w| w == "one" || OPTION_WORDS.contains(&w.as_str()))
                {
                    return None;
                }
                OptionPick::Place(place.checked_sub(1)?)
            }
        };
        let options = labelled_options(&self.latest_text, |word| self.words.get(word));
        if options.len() < 2 {
            return None;
        }
        let at = match pick {
            OptionPick::Label(label) => options.iter().position(|(own, _)| own == label.as_str()),
            OptionPick::Place(at) => Some(at),
        }?;
        // Where several options do the action, a pick chooses among their
        // details, which a yes would not keep apart.
        let doing = options.iter().filter(|(_, proposes)| *proposes).count();
        options.get(at).map(|&(_, proposes)| proposes && doing == 1)
    }

    /// Whether the latest request for a decision asks which of the things
    /// it lays out to act on ([`AskedWords::mark_latest_picks_one`]).
    pub(crate) fn asks_which(&self) -> bool {
        self.latest_picks_one
    }

    /// Whether a yes saying `reply` picks nothing the latest request for a
    /// decision asked the user to pick among: that request asked which
    /// thing to act on, and the reply holds no identifier or number, no
    /// place ("the second one", "the latter", "both", or a letter alone
    /// labelling an option: "A."), and no other word of its
    /// own the request used ("figma", "the mastercard"); only a yes, a
    /// go-ahead, the action's words, pronouns and words that pick nothing
    /// ("either is fine", "yes please wipe it").
    pub(crate) fn leaves_pick_open(&self, reply: &[Sentence]) -> bool {
        self.latest_picks_one && self.picks_nothing(reply)
    }

    /// Whether no word of a reply may pick one of the things the latest
    /// request laid out ([`AskedWords::picks_by`]), nor a letter alone
    /// labelling an option.
    fn picks_nothing(&self, reply: &[Sentence]) -> bool {
        !reply
            .iter()
            .flat_map(Sentence::tokens)
            .any(|word| self.picks_by(word))
            && !reply
                .iter()
                .flat_map(Sentence::clauses)
                .any(is_letter_label)
    }

    /// Whether a yes saying `reply` sets "the other" apart from a pick it
    /// makes by nothing the reader can place ("Yes - the bigger one. Leave
    /// the other alone for now."): the latest request for a decision laid
    /// out several things, a sentence of the reply names the other of them
    /// ([`names_the_other_record`]), and no word of the reply picks one
    /// ([`AskedWords::picks_nothing`]). Which one is meant is not read.
    pub(crate) fn leaves_the_other_unplaced(&self, reply: &[Sentence]) -> bool {
        !self.latest_picks_one
            && self.lays_out_several()
            && reply.iter().any(names_the_other_record)
            && self.picks_nothing(reply)
    }

    /// Whether a reply holds back a part of what the latest request for a
    /// decision laid out ([`AskedWords::lays_out_several`], not asking which
    /// one to act on): one of its clauses refuses something by *no to* /
    /// *no for* ("no to the second", not "no to both"), or names a part
    /// ([`AskedWords::names_a_part`]) beside a negator or a word keeping it
    /// ("the personal one not right now", "not Circe", "leave Steve's") or
    /// with a restricting word next to it ("the first one only", "just the
    /// first"). Saying a part stays as the request said it would ("my
    /// access stays as it is") holds nothing back.
    pub(crate) fn holds_back_a_part(&self, reply: &[Sentence]) -> bool {
        if self.latest_picks_one || !self.lays_out_several() {
            return false;
        }
        reply.iter().flat_map(Sentence::clauses).any(|clause| {
            let negator_at = |at: usize| clause.get(at).is_some_and(|w| WordClass::Negators.has(w));
            // A negator, or keeping the part as it is ("leave Steve's").
            let negated = (0..clause.len()).any(negator_at)
                || clause.iter().any(|w| KEEPING_VERBS.contains(&w.as_str()))
                || PhraseClass::Retention.any_in(clause);
            let restricting = clause
                .iter()
                .any(|w| RESTRICTING_WORDS.contains(&w.as_str()));
            if !negated && !restricting {
                return false;
            }
            // "No to the second", not "no to both" (a no to all of them).
            let refuses_to = negated
                && (0..clause.len()).any(|at| {
                    negator_at(at)
                        && clause.get(at + 1).is_some_and(|w| w == "to" || w == "for")
                        && clause
                            .get(at + 2..)
                            .into_iter()
                            .flatten()
                            .find(|w| !PART_DETERMINERS.contains(&w.as_str()))
                            .is_some_and(|w| {
                                !ALL_OF_THEM.contains(&w.as_str())
                                    && !WordClass::AnaphoricObjects.has(w)
                                    && !WordClass::ActionAnaphors.has(w)
                            })
                });
            if refuses_to {
                return true;
            }
            (0..clause.len())
                .filter(|&at| self.names_a_part(clause, at))
                .any(|at| negated || restricts(clause, at))
        })
    }

    /// Whether the word at `at` of a reply's `clause` names one of several
    /// things the latest request laid out: a place ("first", "latter"), a
    /// word of an item it laid out, a word the request used before *one*
    /// ("the business one"), or a word of the request no English word
    /// list knows (a title, a product name), unless told not to happen
    /// ("don't transfer").
    fn names_a_part(&self, clause: &[Word], at: usize) -> bool {
        let Some(written) = clause.get(at) else {
            return false;
        };
        // A possessive names its owner ("Steve's").
        let owner = written.as_str().strip_suffix("'s").map(Word::new);
        let word = owner.as_ref().unwrap_or(written);
        let text = word.as_str();
        if ORDINALS.iter().any(|(ordinal, _)| *ordinal == text)
            || FIRST_OF_TWO.contains(&text)
            || SECOND_OF_TWO.contains(&text)
            || self.latest_items.contains(word)
            || self.latest_item_words.iter().any(|(item, _)| item == word)
        {
            return true;
        }
        let before_one = clause
            .get(at + 1)
            .is_some_and(|next| next == "one" || next == "ones");
        if !before_one && word.id() != OTHER {
            return false;
        }
        let used = text.len() >= MIN_NAMING_WORD
            && !PICKING_NOTHING.contains(&text)
            && !PART_DETERMINERS.contains(&text)
            && !ALL_OF_THEM.contains(&text)
            && !is_consent_word(text)
            && !is_action_word(word);
        // "Don't transfer me": a verb told not to happen names no part.
        let told_not_to = at >= 2
            && clause.get(at - 1).is_some_and(|w| w == "not")
            && clause.get(at - 2).is_some_and(|w| w == "do");
        used && !told_not_to && self.words.contains(word)
    }

    /// Whether a word of a reply may pick one of the things a request laid
    /// out ([`AskedWords::leaves_pick_open`]).
    fn picks_by(&self, word: &Word) -> bool {
        let text = word.as_str();
        if is_identifier(word) || text.bytes().any(|b| b.is_ascii_digit()) {
            return true;
        }
        // "both" picks every one of them.
        if text == "both"
            || ORDINALS.iter().any(|(ordinal, _)| *ordinal == text)
            || FIRST_OF_TWO.contains(&text)
            || SECOND_OF_TWO.contains(&text)
        {
            return true;
        }
        text.len() >= MIN_NAMING_WORD
            && self.words.contains(word)
            && !PICKING_NOTHING.contains(&text)
            && !is_consent_word(text)
            && !is_action_word(word)
            && !word.tags().has(DomainClass::RecordNoun)
            && !WordClass::ActionAnaphors.has(word)
            && !WordClass::AnaphoricObjects.has(word)
    }

    /// Records whether the request for a decision just added ends with a
    /// question about something else ("… Also, would you like a discount
    /// code?"): a bare yes then answers that question, not the request.
    pub(crate) fn mark_latest_asks_other(&mut self, asks_other: bool) {
        self.latest_asks_other = asks_other;
    }

    /// Notes whether the latest request for a decision offered keeping
    /// things as they are instead of its action ("…, or leave it as it
    /// is?"): a bare yes then picks neither.
    pub(crate) fn mark_latest_offers_keeping(&mut self, offers_keeping: bool) {
        self.latest_offers_keeping = offers_keeping;
    }

    /// Whether the latest request for a decision offered keeping things as
    /// they are instead of its action.
    pub(crate) fn latest_offers_keeping(&self) -> bool {
        self.latest_offers_keeping
    }

    /// Whether a request for a decision so far named an action that takes
    /// something away from the user (a cancellation, a return).
    pub(crate) fn removal_asked(&self) -> bool {
        self.removal_asked
    }

    /// Whether the latest request for a decision ended with a question
    /// about something else.
    pub(crate) fn latest_asks_other(&self) -> bool {
        self.latest_asks_other
    }

    /// Whether a request for a decision had `first` right before `second`,
    /// which is `yes` or `no` (any other pair is never named).
    pub(crate) fn named_pair(&self, first: &Word, second: &Word) -> bool {
        is_answer_word(second) && self.pairs.contains(&(first.clone(), second.clone()))
    }

    /// Whether a request for a decision had these three words in a row, the
    /// first `no` (any other run is never named).
    pub(crate) fn named_triple(&self, run: &[Word]) -> bool {
        match run {
            [a, b, c] => self.triples.contains(&(a.clone(), b.clone(), c.clone())),
            _ => false,
        }
    }

    /// Whether a request for a decision named this word.
    pub(crate) fn named(&self, word: &str) -> bool {
        self.words.contains(word)
    }

    /// Whether a request for a decision named this action, in any form
    /// ("cancel" for "cancellation", "exchange" for "exchanging": a word
    /// sharing its first [`ACTION_STEM_LEN`] letters) or by another of the
    /// domain's words for it ("update" for "change").
    pub(crate) fn names_action(&self, action: &Word) -> bool {
        if action.tags().actions() & self.actions != 0 {
            return true;
        }
        let stem = action.get(..ACTION_STEM_LEN).unwrap_or(action);
        self.words.iter().any(|w| w.starts_with(stem))
    }

    /// Notes what the latest request for a decision says stays as it is
    /// (`TurnCues::kept`).
    pub(crate) fn set_latest_kept(&mut self, mut kept: Vec<Vec<Word>>) {
        // A record id the span writes in two words is kept as one too, as
        // a reply joining it reads it ([`AskedWords::ids_joined`]).
        for span in &mut kept {
            let joined: Vec<Word> = span
                .windows(2)
                .filter_map(|pair| match pair {
                    [letters, digits] => {
                        let id = format!("{letters}{digits}");
                        self.latest_ids.contains(&id).then(|| Word::new(&id))
                    }
                    _ => None,
                })
                .collect();
            span.extend(joined);
        }
        self.latest_kept = kept;
    }

    /// Whether the words a reply keeps (`object`, after or before its
    /// retention phrase) name something the latest request said stays as
    /// it is: every word of the object but [`KEPT_OBJECT_FILLERS`] is a
    /// word of one thing it kept ("keep the shipping address the same"
    /// after "Shipping address and payment method will remain the same").
    pub(crate) fn keeps_what_latest_kept(&self, object: &[Word]) -> bool {
        let mut named = object
            .iter()
            .filter(|w| !KEPT_OBJECT_FILLERS.contains(&w.as_str()))
            .peekable();
        named.peek().is_some()
            && self
                .latest_kept
                .iter()
                .any(|kept| named.clone().all(|w| kept.contains(w)))
    }

    /// Whether every word naming a thing is a word of one thing the latest
    /// request for a decision said stays as it is.
    fn kept_whole(&self, words: &[Word]) -> bool {
        !words.is_empty()
            && self
                .latest_kept
                .iter()
                .any(|kept| words.iter().all(|w| kept.contains(w)))
    }

    /// Whether a clause's identifiers are all ones no request for a
    /// decision named (and it has at least one): the clause is about
    /// something else than any action the user was asked about.
    pub(crate) fn only_other_identifiers(&self, clause: &[Word]) -> bool {
        let mut ids = clause.iter().filter(|w| is_identifier(w)).peekable();
        ids.peek().is_some() && ids.all(|id| !self.words.contains(id))
    }
}

/// Whether a reply holds a word or phrase that could hold something back:
/// a negator, a deferral or wait, a hedge, a withdrawal, a refusal, a
/// retention or a pause ("not now", "let me think", "keep").
fn may_hold_back(read: &[Sentence]) -> bool {
    read.iter().any(|sentence| {
        let words = sentence.words();
        words.iter().any(|w| {
            WordClass::Negators.has(w)
                || WordClass::Deferrals.has(w)
                || WordClass::WaitingHeads.has(w)
        }) || [
            PhraseClass::Hedges,
            PhraseClass::Withdrawals,
            PhraseClass::Refusals,
            PhraseClass::Declining,
            PhraseClass::Retention,
            PhraseClass::Keeping,
            PhraseClass::Pauses,
        ]
        .iter()
        .any(|class| class.any_in(words))
    })
}

/// How the id of an item a request laid out opens ([`item_id`]): letters
/// no record id of a domain opens with.
const ITEM_ID_PREFIX: &str = "zzitem";

/// Whether `word` is the id of an item a request laid out with no record
/// id ([`item_id`]), not a record's.
pub(crate) fn is_item_id(word: &str) -> bool {
    word.starts_with(ITEM_ID_PREFIX)
}

/// The id the item at `at` (from 0) of the latest request's items is read
/// as in a reply ([`AskedWords::items_as_ids`]): an identifier of a kind of
/// its own, all items of one kind (`zzitem00001`).
fn item_id(at: usize) -> String {
    format!("{ITEM_ID_PREFIX}{:05}", at + 1)
}

/// Whether the part named at `at` of a reply's `clause` is restricted to:
/// *only* after it ("the first one only"), or a restricting word before it
/// with only determiners between ("just the first", "except for the second").
fn restricts(clause: &[Word], at: usize) -> bool {
    let after = clause
        .get(at + 1..)
        .into_iter()
        .flatten()
        .find(|w| *w != "one" && *w != "ones");
    let before = clause
        .get(..at)
        .into_iter()
        .flatten()
        .rev()
        .find(|w| !PART_DETERMINERS.contains(&w.as_str()));
    after.is_some_and(|w| w == "only")
        || before.is_some_and(|w| RESTRICTING_WORDS.contains(&w.as_str()))
}

/// The most words a sentence laying out items holds ("I can grant you
/// access to jira and confluence"): a longer one is prose, whose *and*
/// joins more than things to act on.
const MAX_LAYOUT_WORDS: usize = 24;

/// The most words of one thing's name a layout reads on either side of its
/// coordinator ("the metformin refill RF-30811", "sertraline 25 mg").
const MAX_NAME_WORDS: usize = 5;

/// One thing a layout lays out: the item words of its name, the one naming
/// it first, and the record id it writes, if one.
type LaidItem = (Vec<Word>, Option<String>);

/// The things a request lays out side by side, in order: the names on
/// either side of a coordinator ([`ITEM_COORDINATORS`]; a few
/// [`ITEM_LEADS`] before them skipped: "to jira and to confluence"), and
/// the names ending the short clauses of a list before it ("figma, notion
/// and zoom"), each read by [`name_along`]: "I can grant you access to
/// figma, notion and zoom" lays out figma, notion and zoom; "Shall I cancel
/// the metformin refill RF-30811 and the lisinopril refill RF-30812?" lays
/// out metformin (RF-30811) and lisinopril (RF-30812). Only one sentence
/// may join items, of at most [`MAX_LAYOUT_WORDS`] words, or a statement
/// and a question may join the same ones: a turn joining other things in
/// several, or in a long one, is prose, not a layout; where a question
/// joins things its statements join otherwise, the question's are laid
/// out (what a reply answers is what was asked), and the things only the
/// statements join are returned beside them, set aside.
fn coordinated_items(sentences: &[Sentence], ids: &[String]) -> (Vec<LaidItem>, Vec<Word>) {
    let mut layouts: Vec<(bool, Vec<LaidItem>)> = Vec::new();
    for sentence in sentences {
        let laid = sentence_layout(sentence, ids);
        if !laid.is_empty() {
            layouts.push((sentence.question, laid));
        }
    }
    fn names(laid: &[LaidItem]) -> Vec<&Word> {
        let mut first: Vec<&Word> = laid.iter().filter_map(|(w, _)| w.first()).collect();
        first.sort_unstable_by(|a, b| a.as_str().cmp(b.as_str()));
        first.dedup();
        first
    }
    let agree = |chosen: &mut dyn Iterator<Item = &(bool, Vec<LaidItem>)>| {
        let mut chosen = chosen.peekable();
        let first = names(&chosen.peek()?.1);
        chosen.all(|(_, laid)| names(laid) == first).then_some(())
    };
    let chosen: Vec<&(bool, Vec<LaidItem>)> = if agree(&mut layouts.iter()).is_some() {
        layouts.iter().collect()
    } else if agree(&mut layouts.iter().filter(|(question, _)| *question)).is_some() {
        layouts.iter().filter(|(question, _)| *question).collect()
    } else {
        return (Vec::new(), Vec::new());
    };
    let mut items: Vec<LaidItem> = Vec::new();
    for (words, record) in chosen.into_iter().flat_map(|(_, laid)| laid) {
        let Some(main) = words.first() else { continue };
        match items
            .iter_mut()
            .find(|(known, _)| known.first() == Some(main))
        {
            // A name written again ("…: Dune and Circe. Shall I renew
            // Dune and Circe?") keeps the record either writes.
            Some((_, known)) => {
                if known.is_none() {
                    known.clone_from(record);
                }
            }
            None => items.push((words.clone(), record.clone())),
        }
    }
    let mut set_aside: Vec<Word> = {
        let asked = names(&items);
        layouts
            .iter()
            .filter(|(question, _)| !question)
            .flat_map(|(_, laid)| names(laid))
            .filter(|name| !asked.contains(name))
            .cloned()
            .collect()
    };
    set_aside.dedup();
    (items, set_aside)
}

/// The things one sentence lays out side by side ([`coordinated_items`]),
/// in order.
fn sentence_layout(sentence: &Sentence, ids: &[String]) -> Vec<LaidItem> {
    let words = sentence.words();
    if words.len() > MAX_LAYOUT_WORDS
        || !words
            .iter()
            .any(|w| ITEM_COORDINATORS.contains(&w.as_str()))
    {
        return Vec::new();
    }
    // What a bracket says describes the thing before it ("Confluence
    // (the wiki) and Jira"): its clauses are passed over, but a record id
    // it writes is that thing's.
    let all: Vec<(usize, usize)> = sentence.clause_spans().collect();
    let record_after = |end: usize| {
        let index = all.iter().position(|&(s, _)| s == end)?;
        let &(s, e) = all.get(index)?;
        if !sentence.is_bracketed(index) {
            return None;
        }
        (s..e).find_map(|at| record_at(words, at, ids))
    };
    let spans: Vec<(usize, usize)> = all
        .iter()
        .enumerate()
        .filter(|&(index, _)| !sentence.is_bracketed(index))
        .map(|(_, &span)| span)
        .collect();
    let mut found: Vec<(usize, LaidItem)> = Vec::new();
    let push = |found: &mut Vec<(usize, LaidItem)>, name: Name, clause_end: usize| {
        let record = name.record.or_else(|| {
            (name.last + 1 == clause_end)
                .then(|| record_after(clause_end))
                .flatten()
        });
        let item: Vec<Word> = name
            .items
            .iter()
            .filter_map(|&at| words.get(at).cloned())
            .collect();
        if let Some(&first) = name.items.first() {
            found.push((first, (item, record)));
        }
    };
    for (clause, &(start, end)) in spans.iter().enumerate() {
        for at in start..end {
            if !words
                .get(at)
                .is_some_and(|w| ITEM_COORDINATORS.contains(&w.as_str()))
            {
                continue;
            }
            // A coordinator opening its clause ("…, and zoom") joins the
            // name ending the clause before.
            let left_clause = if at == start {
                clause.checked_sub(1)
            } else {
                Some(clause)
            };
            let left_end = if at == start {
                left_clause
                    .and_then(|c| spans.get(c))
                    .map_or(start, |s| s.1)
            } else {
                at
            };
            let left_start = left_clause
                .and_then(|c| spans.get(c))
                .map_or(start, |s| s.0);
            let Some(left) = name_along(words, &mut (left_start..left_end).rev(), true, ids) else {
                continue;
            };
            let Some(right) = name_along(words, &mut (at + 1..end), false, ids) else {
                continue;
            };
            push(&mut found, left, left_end);
            push(&mut found, right, end);
            // The short clauses of a list before it, and the clause opening
            // the list ("… access to figma").
            let mut before = left_clause.and_then(|c| c.checked_sub(1));
            while let Some(c) = before {
                let Some(&(s, e)) = spans.get(c) else { break };
                let Some(name) = name_along(words, &mut (s..e).rev(), true, ids)
                    .filter(|name| name.last + 1 == e)
                else {
                    break;
                };
                push(&mut found, name, e);
                if e - s > MAX_LABEL_WORDS {
                    break;
                }
                before = c.checked_sub(1);
            }
        }
    }
    found.sort_by_key(|&(at, _)| at);
    let mut laid: Vec<LaidItem> = Vec::new();
    for (_, item) in found {
        if !laid
            .iter()
            .any(|(known, _)| known.first() == item.0.first())
        {
            laid.push(item);
        }
    }
    laid
}

/// Whether a word is a number ("500", "2.5").
fn is_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// The record id the word at `at` writes, as [`record_ids_in`] writes it:
/// the word itself (`w9300146`), or its digits with the letters before
/// them (`rf` `30811` of "RF-30811"), when the request wrote that id
/// (`ids`, [`record_ids_in`]).
fn record_at(words: &[Word], at: usize, ids: &[String]) -> Option<String> {
    let word = words.get(at)?.as_str();
    let written = |id: Option<String>| id.filter(|id| ids.contains(id));
    written(record_id_of_chunk(word)).or_else(|| {
        let letters = words.get(at.checked_sub(1)?)?.as_str();
        (word.bytes().all(|b| b.is_ascii_digit())
            && letters.bytes().all(|b| b.is_ascii_alphabetic()))
        .then(|| written(Some(format!("{letters}{word}"))))
        .flatten()
    })
}

/// A thing's name read from a coordinator outwards ([`name_along`]).
struct Name {
    /// The positions of its item words, the nearest the coordinator first.
    items: Vec<usize>,
    /// The record id it writes, if one.
    record: Option<String>,
    /// Its last word's position.
    last: usize,
}

/// The name of a thing read along `positions` from a coordinator
/// (`backward`: the thing before it), past a few [`ITEM_LEADS`]: words that
/// name things (item words, [`is_item_word`]), identifiers, numbers and
/// their units ("500 mg"), and the domain's words after an item word
/// ("the metformin refill"), at most [`MAX_NAME_WORDS`]; none without an
/// item word. A word of the grammar's lists ends it, and so does an action
/// word before its item word ("and freeze card 1234" joins an action).
fn name_along(
    words: &[Word],
    positions: &mut dyn Iterator<Item = usize>,
    backward: bool,
    ids: &[String],
) -> Option<Name> {
    let mut skipped = 0;
    let mut read = 0;
    let mut items: Vec<usize> = Vec::new();
    let mut record = None;
    let mut last = 0;
    for at in positions {
        let Some(word) = words.get(at) else { break };
        let text = word.as_str();
        if read == 0 && ITEM_LEADS.contains(&text) && skipped < MAX_ITEM_LEADS {
            skipped += 1;
            continue;
        }
        if read == MAX_NAME_WORDS {
            break;
        }
        // Reading forward, an item word is seen before the domain words
        // after it; reading backward, after them.
        let item_seen_in_reading_order = if backward {
            items.is_empty()
        } else {
            !items.is_empty()
        };
        let after_number = at
            .checked_sub(1)
            .and_then(|before| words.get(before))
            .is_some_and(|w| is_number(w.as_str()));
        if let Some(id) = record_at(words, at, ids) {
            record.get_or_insert(id);
        } else if is_item_word(word) && !after_number {
            items.push(at);
        } else {
            // "500 mg": a number and its unit.
            let number = is_identifier(text) || is_number(text) || after_number;
            let domain = !word.tags().is_plain();
            let names =
                number || (domain && item_seen_in_reading_order) || (!domain && word.id() == OTHER);
            if !names {
                break;
            }
        }
        read += 1;
        last = last.max(at);
    }
    (!items.is_empty()).then_some(Name {
        items,
        record,
        last,
    })
}

/// How many first words of a list line are looked at for its item word.
const MAX_LINE_LEAD: usize = 4;

/// The things a request lays out as a list, one per line opening with a
/// list mark (`1.`, `2)`, `-`, `*`, `•`) or one per step of a numbered plan
/// written in one line ("Here's the plan: 1) grant access to Jira; 2)
/// grant access to Confluence."), each as an item word of its step among
/// its first [`MAX_LINE_LEAD`] words ([`is_item_word`]: "hobbit" of "1. The
/// Hobbit (LN-51002)") with the other item words of its name
/// ([`step_name`]), in order. The item word is the step's first one, or
/// where an earlier step holds that (or, in a plan written inline, another
/// step's name), in a numbered list the first of its name no other step's
/// name holds ("jira" of "grant access to Jira"). Where no step of a
/// numbered list has such a word, each step writing one record id is named
/// by that id. None when a step has no name, or steps are named some by
/// words and some by ids (the places would not line up). Each comes with
/// the record id its step writes, if it writes one. The words are read as
/// `sentences` tagged them (the domain's action words are no items).
fn listed_items(text: &str, sentences: &[Sentence]) -> Vec<LaidItem> {
    let tagged = |word: &Word| {
        sentences
            .iter()
            .flat_map(Sentence::tokens)
            .find(|tagged| *tagged == word)
            .filter(|tagged| tagged.tags().is_plain())
            .cloned()
    };
    let mut numbered = true;
    let mut steps: Vec<&str> = Vec::new();
    if text.contains('\n') {
        for line in text.lines() {
            let line = line.trim_start();
            if let Some(rest) = after_list_mark(line) {
                numbered &= line.starts_with(|c: char| c.is_ascii_digit());
                steps.push(rest);
            }
        }
    }
    let inline = steps.is_empty();
    if inline {
        steps = inline_steps(text);
    }
    if steps.len() < 2 {
        return Vec::new();
    }
    // Every step's words, read only where a step's own are weighed
    // against the others'.
    let all_words: std::cell::OnceCell<Vec<Vec<Word>>> = std::cell::OnceCell::new();
    let words_of = || {
        all_words.get_or_init(|| {
            steps
                .iter()
                .map(|step| words(&normalise(step_name(step))))
                .collect()
        })
    };
    let mut items: Vec<LaidItem> = Vec::new();
    let mut named_by_ids = false;
    for (at, step) in steps.iter().enumerate() {
        let name = step_name(step);
        let own_words;
        let line_words: &[Word] = match all_words.get() {
            Some(all) => all.get(at).map_or(&[], Vec::as_slice),
            None => {
                own_words = words(&normalise(name));
                &own_words
            }
        };
        // The step's record is the one id it writes ("Dune (LN-60101)"),
        // or of several the one its name writes ("cancel refill RF-9001,
        // … (Lisinopril, 7KXR214)").
        let mut step_ids = record_ids_in(step);
        if step_ids.len() > 1 {
            step_ids = record_ids_in(name);
        }
        // The digits of a record id the step writes ("9001" of RF-9001) name
        // that record, not an item.
        let nameable = |at: usize, w: &Word| {
            is_item_word_at(line_words, at)
                && !step_ids.iter().any(|id| {
                    id.strip_suffix(w.as_str())
                        .is_some_and(|prefix| !prefix.is_empty())
                })
        };
        // Words the domain names (an action opening the line: "Renew
        // Dune", "Place a hold on The Road") are passed over, and not
        // counted in the lead.
        let plain: Vec<(usize, Word)> = line_words
            .iter()
            .enumerate()
            .filter_map(|(at, w)| Some((at, tagged(w)?)))
            .collect();
        let lead: Vec<(usize, Word)> = plain
            .iter()
            .take(MAX_LINE_LEAD)
            .filter(|(at, _)| is_item_word_at(line_words, *at))
            .cloned()
            .collect();
        let taken = |w: &Word| items.iter().any(|(item, _)| item.contains(w));
        let in_another = |w: &Word| {
            words_of()
                .iter()
                .enumerate()
                .any(|(other, words)| other != at && words.contains(w))
        };
        let record = match step_ids.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        };
        let by_word = match lead.first() {
            Some((at, first))
                if !taken(first) && (!inline || (nameable(*at, first) && !in_another(first))) =>
            {
                Some(first.clone())
            }
            // Only a numbered plan's steps are named past their first
            // words: a bulleted line may be a detail ("- Please confirm
            // the reason for cancellation").
            _ if !numbered => None,
            _ => plain
                .iter()
                .find(|(at, w)| nameable(*at, w) && !taken(w) && !in_another(w))
                .map(|(_, w)| w.clone()),
        };
        let by_id = || {
            let word = Word::new(&identifier_word(record.as_deref()?)?);
            (!taken(&word)).then_some(word)
        };
        // Steps are named alike, all by words or all by ids: a step with no
        // word beside steps with words is named some way the places would
        // not show ("The Remains of the Day").
        let first = match by_word {
            Some(word) if !named_by_ids => Some(word),
            None if numbered && (at == 0 || named_by_ids) => {
                named_by_ids = true;
                by_id()
            }
            _ => None,
        };
        let Some(first) = first else {
            return Vec::new();
        };
        let mut words = vec![first];
        for (at, word) in line_words.iter().enumerate() {
            if is_item_word_at(line_words, at)
                && !words.contains(word)
                && let Some(word) = tagged(word)
            {
                words.push(word);
            }
        }
        items.push((words, record));
    }
    items
}

/// The name of a list line or a plan's step: up to where its details open
/// ("Dune (LN-60101)", "Dune, due Friday", "Dune: print", "Dune - print").
fn step_name(step: &str) -> &str {
    let bytes = step.as_bytes();
    let details = bytes
        .iter()
        .position(|b| matches!(b, b'(' | b',' | b':' | b';' | b'['))
        .unwrap_or(bytes.len());
    let dash = bytes
        .get(..details)
        .unwrap_or_default()
        .windows(3)
        .position(|w| w == b" - ")
        .unwrap_or(details);
    step.get(..dash).unwrap_or(step)
}

/// The steps of a numbered plan written inline: the text after each mark
/// `1)`/`1.`, `2)`/`2.`, … counted from one (at the start or after a space
/// or a colon, a space after it), the last step up to the end of its
/// sentence. None unless two marks at least follow each other.
pub(crate) fn inline_steps(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut marks: Vec<(usize, usize)> = Vec::new();
    for (at, &b) in bytes.iter().enumerate() {
        let Some(wanted) = b"123456789".get(marks.len()) else {
            break;
        };
        if b != *wanted {
            continue;
        }
        let opens = at == 0 || bytes.get(at - 1).is_some_and(|&c| c == b' ' || c == b':');
        let marked = bytes.get(at + 1).is_some_and(|&c| c == b')' || c == b'.')
            && bytes.get(at + 2) == Some(&b' ');
        if opens && marked {
            marks.push((at, at + 3));
        }
    }
    if marks.len() < 2 {
        return Vec::new();
    }
    let mut steps = Vec::with_capacity(marks.len());
    for (index, &(_, from)) in marks.iter().enumerate() {
        let to = marks.get(index + 1).map_or(text.len(), |&(next, _)| next);
        let Some(step) = text.get(from..to) else {
            return Vec::new();
        };
        // The last step ends with its sentence: what follows asks about
        // the plan.
        let step = if index + 1 == marks.len() {
            step.find(['?', '!', '\n'])
                .into_iter()
                .chain(step.find(". "))
                .min()
                .map_or(step, |end| step.get(..end).unwrap_or(step))
        } else {
            step
        };
        steps.push(step);
    }
    steps
}

/// The things a request names with a record id beside them, each word of a
/// thing's name (its item words, [`is_item_word`]) with the id: a name then
/// a bracket opening with the id ("Desk Lamp (item 8384507844)", "Dune
/// (LN-48230, print)"), an id then a bracket holding a name and no id
/// ("LT-7720 (your MacBook)"), or a clause that is a name then one that is
/// the id with at most [`MAX_ID_LEADS`] words before it ("ThinkPad X1 —
/// asset LT-7734"). A word naming two things names neither; `ids` are the
/// record ids the request wrote ([`record_ids_in`]).
fn named_records(sentences: &[Sentence], ids: &[String]) -> Vec<(Word, String)> {
    let mut named: Vec<(Word, String)> = Vec::new();
    let mut shared: Vec<Word> = Vec::new();
    for sentence in sentences {
        let words = sentence.words();
        // Every pair writes an id, and every id a digit.
        if !words.iter().any(|w| w.bytes().any(|b| b.is_ascii_digit())) {
            continue;
        }
        let spans: Vec<(usize, usize)> = sentence.clause_spans().collect();
        for (index, pair) in spans.windows(2).enumerate() {
            let [(start, end), (next_start, next_end)] = *pair else {
                continue;
            };
            let next_bracketed = sentence.is_bracketed(index + 1);
            let found = if sentence.is_bracketed(index) {
                None
            } else if let Some(id) = if next_bracketed {
                leading_record(words, next_start..next_end, ids)
            } else {
                sole_record(words, next_start..next_end, ids)
            } {
                // The name ends the clause before the id.
                name_along(words, &mut (start..end).rev(), true, ids)
                    .filter(|name| name.last + 1 == end && name.record.is_none())
                    .map(|name| (name.items, id))
            } else if next_bracketed {
                // The id ends its clause; the bracket names it.
                let id = end
                    .checked_sub(1)
                    .and_then(|last| identifier_at(words, last, ids));
                // Read on its own: the id before it is no number the
                // bracket's first word is a unit of.
                let bracket = words.get(next_start..next_end).unwrap_or_default();
                id.and_then(|id| {
                    let name = name_along(bracket, &mut (0..bracket.len()), false, ids)?;
                    (name.record.is_none() && identifiers_in(bracket, ids).is_empty()).then(|| {
                        let items = name.items.iter().map(|at| at + next_start).collect();
                        (items, id)
                    })
                })
            } else {
                None
            };
            let Some((items, id)) = found else { continue };
            for word in items.iter().filter_map(|&at| words.get(at)) {
                match named.iter().find(|(known, _)| known == word) {
                    Some((_, other)) if *other != id => shared.push(word.clone()),
                    Some(_) => {}
                    None => named.push((word.clone(), id.clone())),
                }
            }
        }
    }
    named.retain(|(word, _)| !shared.contains(word));
    named
}

/// How many name–record pairs of earlier turns are kept
/// ([`AskedWords::note_names`]): the latest win.
const MAX_NAMED_BEFORE: usize = 64;

/// How many words may stand before a record id in the clause naming it
/// alone after a name ("asset LT-7734", "item no. 8384507844").
const MAX_ID_LEADS: usize = 2;

/// The record id a bracket opens with, past at most [`MAX_ID_LEADS`]
/// words ("(item 8384507844)", "(LN-48230, print)").
fn leading_record(words: &[Word], span: std::ops::Range<usize>, ids: &[String]) -> Option<String> {
    let lead_end = span.end.min(span.start + MAX_ID_LEADS + 2);
    (span.start..lead_end).find_map(|at| identifier_at(words, at, ids))
}

/// The one record id a clause holds, past at most [`MAX_ID_LEADS`] other
/// words ("asset LT-7734"); none when it holds more.
fn sole_record(words: &[Word], span: std::ops::Range<usize>, ids: &[String]) -> Option<String> {
    // A split id and its leads at most: most clauses are longer.
    if span.len() > MAX_ID_LEADS + 2 {
        return None;
    }
    let found: Vec<(usize, String)> = span
        .clone()
        .filter_map(|at| Some((at, identifier_at(words, at, ids)?)))
        .collect();
    let [(at, id)] = found.as_slice() else {
        return None;
    };
    // A split id ("lt", "7720") is two of the clause's words.
    let id_words = if words.get(*at).is_some_and(|w| w == id.as_str()) {
        1
    } else {
        2
    };
    (span.len() <= id_words + MAX_ID_LEADS).then(|| id.clone())
}

/// The identifier the word at `at` writes: the record id it ends as the
/// request wrote it ([`record_at`]: `px91057` of "PX-91057"), or the word
/// itself when it is one ([`is_identifier`]).
fn identifier_at(words: &[Word], at: usize, ids: &[String]) -> Option<String> {
    // Every identifier holds a digit: most words end here.
    if !words.get(at)?.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    record_at(words, at, ids).or_else(|| {
        words
            .get(at)
            .filter(|w| is_identifier(w.as_str()))
            .map(ToString::to_string)
    })
}

/// The rest of a line after the list mark it opens with, if it does.
/// The options a request labels, one per line: a line opening (after
/// markdown emphasis) with `option` or `choice` and a label, or with a
/// label and its mark (`1)`, `2.`, `(a)`, `b)`), the label a number of one
/// or two digits or one letter. Each comes with its label, lowered, and
/// whether it proposes the action: it names an action word and keeps
/// nothing as it is ([`PhraseClass::Keeping`], [`PhraseClass::Declining`];
/// a noun for the domain's records, a hotel's *stay*, keeps nothing).
/// None where fewer than two lines are labelled, or two share a label. The
/// words are read as the request tagged them (`tagged`).
fn labelled_options<'w>(
    text: &str,
    tagged: impl Fn(&Word) -> Option<&'w Word>,
) -> Vec<(String, bool)> {
    if !text.contains('\n') {
        return Vec::new();
    }
    let mut lines: Vec<(String, &str)> = Vec::new();
    for line in text.lines() {
        let Some((label, rest)) = option_label(line) else {
            continue;
        };
        if lines.iter().any(|(own, _)| *own == label) {
            return Vec::new();
        }
        lines.push((label, rest));
    }
    if lines.len() < 2 {
        return Vec::new();
    }
    lines
        .into_iter()
        .map(|(label, rest)| {
            let said = words(&normalise(rest));
            // A noun for the domain's records keeps nothing (a hotel's
            // *stay*).
            let plain: Vec<Word> = said
                .iter()
                .filter(|word| !tagged(word).is_some_and(|t| t.tags().has(DomainClass::RecordNoun)))
                .cloned()
                .collect();
            let proposes = said
                .iter()
                .any(|word| tagged(word).is_some_and(is_action_word))
                && !PhraseClass::Keeping.any_in(&plain)
                && !PhraseClass::Declining.any_in(&plain)
                && !PhraseClass::DecliningClause.any_in(&plain);
            (label, proposes)
        })
        .collect()
}

/// How a reply picks a labelled option ([`AskedWords::picked_option_proposes`]).
enum OptionPick<'a> {
    /// By its label: "option 1", "(b)", "2".
    Label(&'a Word),
    /// By its place among the options, from 0: "the first one".
    Place(usize),
}

/// The label a line opens with as an option ([`labelled_options`]), lowered,
/// and the rest of the line.
fn option_label(line: &str) -> Option<(String, &str)> {
    let line = line.trim_start().trim_start_matches(['*', '_', '#', ' ']);
    let lead = line
        .get(..7)
        .filter(|lead| lead.eq_ignore_ascii_case("option "))
        .or_else(|| {
            line.get(..7)
                .filter(|lead| lead.eq_ignore_ascii_case("choice "))
        });
    let (named, rest) = match lead {
        Some(lead) => (true, line.get(lead.len()..)?.trim_start()),
        None => (false, line),
    };
    let bracketed = rest.starts_with('(');
    let rest = rest.strip_prefix('(').unwrap_or(rest);
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len = match digits {
        1 | 2 => digits,
        0 if rest.starts_with(|c: char| c.is_ascii_alphabetic())
            && !rest
                .get(1..)
                .is_some_and(|after| after.starts_with(|c: char| c.is_ascii_alphanumeric())) =>
        {
            1
        }
        _ => return None,
    };
    let label = rest.get(..len)?.to_ascii_lowercase();
    let after = rest.get(len..)?;
    let marked = if bracketed {
        after.strip_prefix(')')
    } else if named {
        Some(after.trim_start_matches([')', '.', ':', '-', '*', ' ']))
    } else {
        after.strip_prefix([')', '.'])
    }?;
    // A letter alone opening a sentence ("A. Smith", "I.") is no label
    // unless brackets or `option` mark it, or a bracket follows it.
    if digits == 0 && !bracketed && !named && !after.starts_with(')') {
        return None;
    }
    Some((label, marked.trim_start()))
}

fn after_list_mark(line: &str) -> Option<&str> {
    if let Some(rest) = line
        .strip_prefix(['-', '*', '•'])
        .filter(|rest| rest.starts_with(' '))
    {
        return Some(rest);
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let rest = line.get(digits..)?;
    (1..=2)
        .contains(&digits)
        .then(|| rest.strip_prefix(['.', ')']))
        .flatten()
        .filter(|rest| rest.starts_with(' '))
}

/// Whether a word can name an item a request lays out: a word of no list of
/// the grammar's and nothing the domain names (no action, no record noun),
/// no identifier (those are read as records already), no form in *-ing*
/// and no [`ITEM_LEADS`]; three or more letters, or a number of four digits
/// ("5517" of a card ending 5517; not "000" of "9,000").
fn is_item_word(word: &Word) -> bool {
    names_a_thing(word, false)
}

/// Whether the word at `at` of a step's words is an item word: as
/// [`is_item_word`], and a form in -ing after a determiner is a noun ("the
/// parking charge", "your wedding booking").
fn is_item_word_at(words: &[Word], at: usize) -> bool {
    let after_determiner = at
        .checked_sub(1)
        .and_then(|before| words.get(before))
        .is_some_and(|before| NAME_DETERMINERS.contains(&before.as_str()));
    words
        .get(at)
        .is_some_and(|word| names_a_thing(word, after_determiner))
}

/// [`is_item_word`]; `nominal`: a form in -ing is read as a noun.
fn names_a_thing(word: &Word, nominal: bool) -> bool {
    let text = word.as_str();
    let named_by_letters = text.chars().count() >= 3 && text.chars().any(char::is_alphabetic);
    let last_digits = text.len() == 4 && text.bytes().all(|b| b.is_ascii_digit());
    // A form in -ing does something ("adding 3 bags"); it names nothing.
    let doing = !nominal && text.ends_with("ing");
    word.id() == OTHER
        && word.tags().is_plain()
        && (named_by_letters || last_digits)
        && !doing
        && !is_identifier(text)
        && !ITEM_LEADS.contains(&text)
}

/// Whether a clause is one letter that labels an option ("A." answering
/// "A) proceed … B) cancel …").
fn is_letter_label(clause: &[Word]) -> bool {
    matches!(clause, [only] if only.len() == 1
        && only.as_str().bytes().all(|b| (b'a'..=b'h').contains(&b)))
}

/// The word a value (a key value of a write, as the trace holds it:
/// `#W9300146`, `ZFA04Y`) is written as in turns, if it is one identifier
/// (letters mixed with digits, or five or more digits) once normalised as
/// turns are: `w9300146`, `zfa04y`.
#[must_use]
pub fn identifier_word(value: &str) -> Option<String> {
    // An identifier holds an ASCII digit, and normalising makes none (no
    // character lowers to one): most values (names, words) are refused
    // without being read.
    if !value.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    // An ASCII value that is one run of letters and digits between marks
    // that separate words (`#W9300146`) is that run lower-cased: nothing to
    // normalise, no contraction (it has a digit; `'` and `` ` `` go the long
    // way).
    let core = value.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    if value.is_ascii()
        && !value.contains(['\'', '`'])
        && !core.is_empty()
        && core.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        let word = core.to_ascii_lowercase();
        return is_identifier(&word).then_some(word);
    }
    // A record id written with a hyphen (`PX-40127`) is the word the
    // answer of a turn writing it reads ([`identifiers_in`]).
    if core.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return record_id_of_chunk(core);
    }
    match words(&normalise(value)).as_slice() {
        [word] if is_identifier(word) => Some(word.to_string()),
        _ => None,
    }
}

/// Whether an identifier word ([`identifier_word`]) is a record id
/// (letters, then five or more digits, as order ids are).
#[must_use]
pub fn is_record_word(word: &str) -> bool {
    is_record_id(word)
}

/// Whether a yes whose answer names the identifiers `answer_records` (the
/// identifier words of its sentences before it moves on to another request),
/// to the request for a decision `summary`, names records the summary named
/// but not every record among the write's `key_values`: "Yes, cancel
/// W4597054" to a summary of #W9300146 and #W4597054 is a yes to cancelling
/// #W4597054 only. Without a record of the summary in its answer ("Yes",
/// "Yes, cancel both") it is a yes to all.
#[must_use]
pub fn names_other_records(summary: &str, answer_records: &[String], key_values: &[&str]) -> bool {
    let summary_records: HashSet<String> = words(&normalise(summary))
        .into_iter()
        .filter(|w| is_record_id(w))
        .map(|w| w.to_string())
        .chain(record_ids_in(summary))
        .collect();
    answer_records.iter().any(|w| summary_records.contains(w))
        && key_values.iter().any(|v| {
            identifier_word(v)
                .is_some_and(|word| is_record_id(&word) && !answer_records.contains(&word))
        })
}

/// The identifiers a run of words names: each word that is one
/// ([`is_identifier`]), and each record id its text wrote with a hyphen
/// (`written`, [`record_ids_in`]), which the words hold as two
/// ([`ids_in`]).
pub(crate) fn identifiers_in<'w>(
    words: impl IntoIterator<Item = &'w Word>,
    written: &[String],
) -> Vec<String> {
    ids_in(words, is_identifier, |id| written.iter().any(|w| w == id))
}

/// Fewest digits of a number a person names a record by
/// ([`is_alias_number`]): the last four of a card, not a count or a price.
const MIN_ALIAS_DIGITS: usize = 4;

/// Whether a word is a bare number a person names a record by ("the card
/// ending 4821"): [`MIN_ALIAS_DIGITS`] digits or more, too few to be an
/// identifier. A value written so names its record only where the data
/// read it so, which the engine decides.
pub(crate) fn is_alias_number(word: &str) -> bool {
    word.len() >= MIN_ALIAS_DIGITS
        && word.bytes().all(|b| b.is_ascii_digit())
        && !is_identifier(word)
}

/// The words of a run that are ids by `one_word`, and each record id it
/// holds as two words, its letters then at least [`WRITTEN_ID_DIGITS`]
/// digits (`PX-40127` → `px`, `40127` → `px40127`, as [`identifier_word`]
/// writes the value), when `written` takes it (the text wrote it as one,
/// [`record_ids_in`], or it is of a kind a request named); in order. A word
/// and a number the text did not join ("card ending 1108") are two
/// things.
fn ids_in<'w>(
    words: impl IntoIterator<Item = &'w Word>,
    one_word: fn(&str) -> bool,
    written: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut ids = Vec::new();
    let mut letters: Option<&Word> = None;
    for word in words {
        if one_word(word) {
            ids.push(word.to_string());
        }
        if let Some(prefix) = letters
            && !word.is_empty()
            && word.bytes().all(|b| b.is_ascii_digit())
        {
            let id = format!("{prefix}{word}");
            if written(&id) {
                ids.push(id);
            }
        }
        letters = word
            .bytes()
            .all(|b| b.is_ascii_alphabetic())
            .then_some(word);
    }
    ids
}

/// An identifier of a record a write acts on, as users and agents write
/// it: letters, then at least [`RECORD_ID_DIGITS`] digits (`w9300146`).
/// Product specs (`i7`, `8gb`), flight numbers and bare numbers are not.
pub(crate) fn is_record_id(word: &str) -> bool {
    let letters = word.chars().take_while(|c| c.is_alphabetic()).count();
    let rest = word.get(letters..).unwrap_or_default();
    letters > 0 && rest.len() >= RECORD_ID_DIGITS && rest.chars().all(|c| c.is_ascii_digit())
}

/// The record ids `text` names as people write them, lower-cased without
/// `#` or hyphen: letters, an optional hyphen, then at least
/// [`WRITTEN_ID_DIGITS`] digits (`LT-4471` → `lt4471`, `#W9300146` →
/// `w9300146`). Flight numbers (`HAT170`), booking codes (`ZFA04Y`),
/// product specs (`8GB`) and bare numbers are not.
///
/// Read by bytes: the characters a chunk is made of are ASCII, and every
/// byte of a longer character separates as that character does, so the
/// chunks are those of a split by characters ([`record_ids_by_chars`]).
pub(crate) fn record_ids_in(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = text
        .as_bytes()
        .split(|&b| !(b.is_ascii_alphanumeric() || b == b'-' || b == b'#'))
        .filter_map(|chunk| {
            // Every id has a digit: most chunks (words) end here.
            if !chunk.iter().any(u8::is_ascii_digit) {
                return None;
            }
            let chunk = std::str::from_utf8(chunk).ok()?;
            record_id_of_chunk(chunk)
        })
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// The record id a chunk of ASCII letters, digits, `-` and `#` is, as
/// [`record_ids_in`] writes it.
fn record_id_of_chunk(chunk: &str) -> Option<String> {
    let chunk = chunk.trim_start_matches('#').trim_matches('-');
    let letters = chunk.chars().take_while(char::is_ascii_alphabetic).count();
    let (prefix, rest) = (chunk.get(..letters)?, chunk.get(letters..)?);
    let hyphened = rest.strip_prefix('-');
    let digits = hyphened.unwrap_or(rest);
    let long = digits.len() >= WRITTEN_ID_DIGITS;
    let short_code = hyphened.is_some()
        && !digits.is_empty()
        && letters >= 2
        && prefix.bytes().all(|b| b.is_ascii_uppercase());
    (letters > 0 && (long || short_code) && digits.chars().all(|c| c.is_ascii_digit()))
        .then(|| format!("{prefix}{digits}").to_ascii_lowercase())
}

/// [`record_ids_in`] as a split of the text by characters: the rule the
/// byte reading is tested against.
#[cfg(test)]
fn record_ids_by_chars(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '#'))
        .filter_map(record_id_of_chunk)
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// Digits a written record id has at least ([`record_ids_in`]).
pub(crate) const WRITTEN_ID_DIGITS: usize = 4;

/// Digits a record id has at least ([`is_record_id`]).
const RECORD_ID_DIGITS: usize = 5;

/// Whether two identifiers are of one kind (two order ids, two item ids):
/// the same letters before the first digit, and the same length or both
/// short codes (fewer than [`WRITTEN_ID_DIGITS`] digits: `LN-7`, `LN-12`),
/// whose lengths grow as they are issued.
fn same_kind(a: &str, b: &str) -> bool {
    let prefix = |s: &str| s.chars().take_while(|c| c.is_alphabetic()).count();
    let short = |s: &str| s.len() - prefix(s) < WRITTEN_ID_DIGITS;
    (a.len() == b.len() || (short(a) && short(b)))
        && prefix(a) == prefix(b)
        && a.get(..prefix(a)) == b.get(..prefix(b))
}

/// A word that identifies one thing: letters mixed with digits
/// (`w5416052`), or five or more digits (`7453605304`).
pub(crate) fn is_identifier(word: &str) -> bool {
    // Most words hold no digit: one pass over their bytes settles them.
    if !word.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    let digits = word.chars().filter(char::is_ascii_digit).count();
    let letters = word.chars().any(char::is_alphabetic);
    // An ordinal or a time of day ("the 29th", "4pm") is no record.
    let ordinal_or_time = || {
        let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
        rest.len() == 2
            && rest.len() < word.len()
            && ["st", "nd", "rd", "th", "am", "pm"].contains(&rest)
    };
    if letters && ordinal_or_time() {
        return false;
    }
    (letters && digits > 0) || (digits >= 5 && !letters)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<Word> {
        words(&normalise(text))
    }

    #[test]
    fn a_request_lays_out_the_items_it_joins_or_lists() {
        let items = |text: &str| {
            let mut asked = AskedWords::default();
            asked.note_request_ids(text);
            asked.note_request_items(text, &super::super::sentences(text));
            asked
                .latest_items
                .iter()
                .map(Word::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            items("I can grant you access to figma, notion and zoom."),
            ["figma", "notion", "zoom"]
        );
        assert_eq!(
            items("access to salesforce and to tableau?"),
            ["salesforce", "tableau"]
        );
        assert_eq!(
            items("Shall I freeze the cards ending 4821 and 5517?"),
            ["4821", "5517"]
        );
        assert_eq!(
            items("1. The Hobbit (LN-51002)\n2. Piranesi (LN-51003)\n- Middlemarch\nRenew all?"),
            ["hobbit", "piranesi", "middlemarch"]
        );
        // Amounts and the digits of a written record id are no items.
        assert!(
            items("I can raise card 1620 to 9,000 and the card ending 8407 to 3,000.").is_empty()
        );
        // A name reads past its amount and unit ("20 mg") and the
        // bracket after it.
        assert_eq!(
            items("atorvastatin 20 mg (RX-8801) and metformin 1000 mg (RX-8815)"),
            ["atorvastatin", "metformin"]
        );
        assert_eq!(
            items("Shall I refill sertraline 50 mg and levothyroxine 50 mcg?"),
            ["sertraline", "levothyroxine"]
        );
        // A statement joining three and a question joining two: the
        // question's two.
        assert_eq!(
            items(
                "You have sertraline 50 mg (RX-8250), levothyroxine 50 mcg (RX-8251) and \
                 omeprazole 20 mg (RX-8252). Shall I refill sertraline 50 mg and \
                 levothyroxine 50 mcg?"
            ),
            ["sertraline", "levothyroxine"]
        );
        // One thing is no layout.
        assert!(items("Shall I grant you access to jira?").is_empty());
    }

    #[test]
    fn a_turn_read_into_sentences_adds_the_same_words() {
        for text in [
            "To confirm: cancel #W9300146 and #W4597054 — shall I proceed?",
            "Can't do that; won't... ###STOP### 'quoted' (it's) gift_card_7711863.",
            "",
        ] {
            let (mut by_text, mut by_sentences) = (AskedWords::default(), AskedWords::default());
            by_text.add_turn(text);
            by_sentences.add_sentences(&super::super::sentences(text));
            assert_eq!(by_text, by_sentences, "{text}");
        }
    }

    /// A request spelling another record id of a record's kind is about
    /// that one; ids of other kinds, or the record's own, are not.
    #[test]
    fn a_request_names_another_record_of_a_kind_by_its_id() {
        let mut asked = AskedWords::default();
        asked.note_request_ids("Shall I upgrade PK-71466 to next day, paid with card 5519?");
        assert!(asked.latest_names_another_record("PK-71420"));
        assert!(!asked.latest_names_another_record("PK-71466"));
        assert!(!asked.latest_names_another_record("#W9300146"));
        assert!(!asked.latest_names_another_record("olivia_lopez_3865"));
        asked.note_request_ids("Shall I upgrade it to next day?");
        assert!(!asked.latest_names_another_record("PK-71420"));
    }

    #[test]
    fn record_ids_read_by_bytes_are_read_by_characters() {
        for text in [
            "Shall I wipe LT-4471 and #W9300146? Not lt-4480\u{2014}W12 or 8GB.",
            "caf\u{e9}W93001 \u{2019}#AB-12345\u{2019} -X-99999- ##q1234 W-1234-",
            "\u{1f600}w12345\u{1f600}12345 a1234b 1234",
            "",
        ] {
            assert_eq!(record_ids_in(text), record_ids_by_chars(text), "{text}");
        }
        assert_eq!(
            record_ids_in("Shall I wipe LT-4471 and #W9300146?"),
            ["lt4471", "w9300146"]
        );
    }

    /// A value without an ASCII digit is no identifier, and an ASCII run
    /// of letters and digits is itself: the shortcuts of [`identifier_word`]
    /// give what reading the value gives.
    #[test]
    fn a_value_without_a_digit_is_no_identifier() {
        let read = |value: &str| match words(&normalise(value)).as_slice() {
            [word] if is_identifier(word) => Some(word.to_string()),
            _ => None,
        };
        for value in [
            "#W9300146",
            "(#W9300146).",
            "'W9300146'",
            "`W9300146`",
            "###STOP###W12",
            "W12###STOP###",
            "###STOP###12345",
            "W12 W13",
            "w12n't",
            "W9300146\u{2019}",
            "ZFA04Y",
            "7453605304",
            "Jo Doe",
            "cancel",
            "\u{2167}",
            "\u{661}\u{662}\u{663}\u{664}\u{665}",
            "ab\u{661}",
            "",
        ] {
            assert_eq!(identifier_word(value), read(value), "{value}");
        }
        assert_eq!(identifier_word("#W9300146").as_deref(), Some("w9300146"));
    }

    /// A record id written with a hyphen is one identifier, the word a
    /// turn writing it with a hyphen or a space names.
    #[test]
    fn a_record_id_with_a_hyphen_is_one_identifier() {
        assert_eq!(identifier_word("PX-40127").as_deref(), Some("px40127"));
        assert_eq!(identifier_word("LT-4471").as_deref(), Some("lt4471"));
        assert_eq!(identifier_word("555-123-2002"), None, "a phone number");
        assert_eq!(
            identifier_word("LT-447").as_deref(),
            Some("lt447"),
            "a short code"
        );
        assert_eq!(
            identifier_word("lt-447"),
            None,
            "lower case, too few digits"
        );
        let named = |text: &str| identifiers_in(&tokens(text), &record_ids_in(text));
        assert!(named("the PX-40127 one").contains(&"px40127".to_string()));
        assert!(named("yes, px-40127").contains(&"px40127".to_string()));
        // A word and a number the text did not join are two things.
        assert!(!named("card ending 11089").contains(&"ending11089".to_string()));
    }

    #[test]
    fn identifiers_no_request_named_are_other_things() {
        let mut asked = AskedWords::default();
        asked.add_turn("Shall I cancel order #W3289292?");
        assert!(asked.only_other_identifiers(&tokens("leave order W9154975 unchanged")));
        assert!(!asked.only_other_identifiers(&tokens("leave order W3289292 unchanged")));
        assert!(!asked.only_other_identifiers(&tokens("leave W3289292 and W9154975 unchanged")));
        assert!(!asked.only_other_identifiers(&tokens("leave it unchanged")));
    }

    #[test]
    fn a_reply_picking_part_of_the_latest_request_selects() {
        let selects = |asked: &AskedWords, reply: &str| {
            asked.selects_part(&tokens(reply), &record_ids_in(reply))
        };
        let mut asked = AskedWords::default();
        asked.add_turn("Shall I cancel #W9300146?");
        assert!(selects(&asked, "Yes, cancel #W4597054."));
        assert!(!selects(&asked, "Yes, cancel #W9300146."));
        assert!(!selects(&asked, "Yes, refund to gift_card_7711863."));
        assert!(!selects(&asked, "Yes, only that one."));
        asked.add_turn("Shall I cancel #W9300146 and #W4597054?");
        assert!(selects(&asked, "Yes, the second one only."));
        assert!(!selects(
            &asked,
            "Yes, cancel W4597054. That's the only one."
        ));
        assert!(!selects(&asked, "Yes, cancel both."));
        assert!(!selects(&asked, "Yes, cancel #W9300146 and #W4597054."));
        // Items of another kind than the orders are not a selection of them.
        asked.add_turn("Exchange item 1234567890 for 0987654321 in order #W9300146?");
        assert!(!selects(&asked, "Yes, exchange it in #W9300146."));
        // A record id written with a hyphen is one id: another card than
        // the one asked about is beside it.
        let request = "Would you like me to freeze card CARD-7731?";
        asked.add_turn(request);
        asked.note_request_ids(request);
        assert!(selects(&asked, "yes, freeze CARD-7732"));
        assert!(selects(&asked, "yes freeze card-7732"));
        assert!(selects(&asked, "yes freeze card 7732"));
        assert!(!selects(&asked, "yes, freeze CARD-7731"));
        assert!(!selects(&asked, "yes, freeze the card ending 7732"));
    }

    /// A short id of capital letters, a hyphen and digits ("APP-12") is a
    /// record id as a long one is; lower-case words before digits
    /// ("covid-19"), one letter ("W-2") or no hyphen ("HAT12") are not.
    #[test]
    fn a_short_id_is_a_record_id_of_its_kind() {
        assert_eq!(
            record_ids_in("Jira (APP-12), Snowflake (DW-2) and LN-7; not covid-19, W-2 or HAT12."),
            ["app12", "dw2", "ln7"]
        );
        assert_eq!(identifier_word("APP-12").as_deref(), Some("app12"));
        assert!(same_kind("ln7", "ln12") && same_kind("pk9", "pk204"));
        assert!(!same_kind("ln7", "hd12") && !same_kind("ln7", "ln12345"));
        let text =
            "I can grant access to:\n- Jira Software (APP-12)\n- Confluence (APP-14)\nShall I?";
        let named = named_records(&super::super::sentences(text), &record_ids_in(text));
        assert!(named.iter().any(|(w, id)| w == "software" && id == "app12"));
        assert!(
            named
                .iter()
                .any(|(w, id)| w == "confluence" && id == "app14")
        );
    }

    /// Titles laid out as list lines are read past the action opening a
    /// line, and a title joining words with *and* sets no other title
    /// aside.
    #[test]
    fn list_lines_name_their_titles_past_their_action() {
        use super::super::domain::{DomainWords, Lexicon};
        let lexicon = Lexicon::new(&DomainWords::of_actions(&[
            &["place", "hold"],
            &["cancel", "cancellation"],
        ]));
        let laid = |text: &str| {
            let mut asked = AskedWords::default();
            asked.note_request_ids(text);
            let sentences = super::super::tokens::sentences_in(text, &lexicon);
            asked.note_request_items(text, &sentences);
            let items: Vec<String> = asked.latest_items.iter().map(Word::to_string).collect();
            let set_aside: Vec<String> = asked.set_aside().iter().map(Word::to_string).collect();
            (items, set_aside)
        };
        let (items, set_aside) = laid(
            "Both fit:\n- Place a hold on The Road, print (BK-40)\n- Place a hold on Piranesi, ebook (BK-307)\nShall I place both holds?",
        );
        assert_eq!(items, ["road", "piranesi"]);
        assert!(set_aside.is_empty());
        let (items, set_aside) = laid(
            "These are the two holds:\n- Klara and the Sun (HD-8101)\n- Lessons in Chemistry (HD-8102)\nShall I cancel both holds?",
        );
        assert_eq!(items, ["klara", "lessons"]);
        assert!(set_aside.is_empty(), "{set_aside:?}");
        // A question joining two of three listed titles sets the third aside.
        let (_, set_aside) =
            laid("Your loans:\n1. Hamnet\n2. Circe\n3. Piranesi\nShall I renew Hamnet and Circe?");
        assert_eq!(set_aside, ["piranesi"]);
    }
}
