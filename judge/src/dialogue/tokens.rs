//! Normalising dialogue text into the units the stance grammar reads:
//! sentences (with whether each is a question), clauses, and lower-case word
//! tokens with contractions expanded ("don't" -> "do not"), so a negator is
//! always the one token `not`.
//!
//! A token is a [`Word`]: a short word (up to 23 bytes, nearly every one) is
//! held inline, so reading a turn allocates per clause, not per word, and a
//! sentence's words are copied (the grammar reads them flattened) and
//! dropped without touching the allocator.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, Range};

use smol_str::{SmolStr, StrExt};

use super::domain::{DomainTags, ENGLISH, Lexicon};
use super::lexicon::{self, YES_HEADS};
use super::vocabulary::{OTHER, VOCABULARY, WordId};

/// One word token: its text (a short word, up to 23 bytes, held inline),
/// its id in the dialogue vocabulary (`vocabulary.rs`), looked up once
/// when the word is made, so the grammar's word classes and phrase lists
/// match it by id, and what the domain's lexicon says of it
/// (its domain tags, set when its sentence is read with one).
#[derive(Clone)]
pub struct Word {
    text: SmolStr,
    id: WordId,
    tags: DomainTags,
}

impl Word {
    /// The word `text` (already normalised), with its vocabulary id.
    #[must_use]
    pub fn new(text: impl AsRef<str>) -> Self {
        Word::from_text(SmolStr::new(text))
    }

    /// [`Word::new`] of a static string.
    #[must_use]
    pub fn new_static(text: &'static str) -> Self {
        Word::from_text(SmolStr::new_static(text))
    }

    fn from_text(text: SmolStr) -> Self {
        let id = VOCABULARY.id(&text);
        Word {
            text,
            id,
            tags: DomainTags::default(),
        }
    }

    /// The word's text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The word's vocabulary id ([`OTHER`] for a word in no list).
    pub(crate) fn id(&self) -> WordId {
        self.id
    }

    /// What the domain's lexicon says of the word (nothing, for a word not
    /// read with one).
    pub(crate) fn tags(&self) -> DomainTags {
        self.tags
    }

    pub(crate) fn set_tags(&mut self, tags: DomainTags) {
        self.tags = tags;
    }
}

impl Deref for Word {
    type Target = str;

    fn deref(&self) -> &str {
        &self.text
    }
}

impl AsRef<str> for Word {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

/// A word is looked up by its text (`HashSet<Word>::contains(&str)`): its
/// hash and equality are its text's.
impl Borrow<str> for Word {
    fn borrow(&self) -> &str {
        &self.text
    }
}

impl PartialEq for Word {
    fn eq(&self, other: &Self) -> bool {
        // The id is a function of the text: two listed words are equal iff
        // their ids are; only two unlisted words compare their text.
        self.id == other.id && (self.id != OTHER || self.text == other.text)
    }
}

impl Eq for Word {}

impl PartialOrd for Word {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Word {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.text.cmp(&other.text)
    }
}

impl Hash for Word {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialEq<str> for Word {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}

impl PartialEq<&str> for Word {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl fmt::Debug for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One sentence: its clauses (each a run of word tokens) and whether it
/// ends in a question mark. Its words are held in one list, clause by
/// clause, so the grammar reads them flattened ([`Sentence::words`]) without
/// copying them and a clause is a slice of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sentence {
    /// Every token of the sentence, in order.
    words: Vec<Word>,
    /// Where each clause ends in `words` (clauses split at commas, colons, spaced slashes,
    /// brackets, quotes and dashes; none is empty).
    clause_ends: Vec<usize>,
    /// For each clause, the clause that is its label: the words before a
    /// colon that opens it ("insurance" for "Insurance: no"), if short
    /// enough to be a field name ([`MAX_LABEL_WORDS`]).
    labels: Vec<Option<usize>>,
    /// The clauses inside brackets, a bit per clause (the first 64): what
    /// they say describes what stands before them ("Confluence (the wiki)").
    bracketed: u64,
    /// Whether the sentence ends with `?`.
    pub question: bool,
    /// Where the sentence stands in a list ([`ListPlace`]).
    pub(crate) list: ListPlace,
}

/// Where a sentence stands in a list the text lays out line by line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ListPlace {
    /// The sentence opens a line with a bullet ("- ", "* ", "• ") or a
    /// number ("2) ", or "2. " written as a sentence of its own before it).
    pub(crate) item: bool,
    /// The sentence ends in a colon: what follows, line by line, is what
    /// it introduces.
    pub(crate) opens: bool,
}

impl Sentence {
    /// Every token of the sentence, clause boundaries dropped.
    pub(crate) fn words(&self) -> &[Word] {
        &self.words
    }

    /// Every token of the sentence, clause boundaries dropped.
    pub(crate) fn tokens(&self) -> impl Iterator<Item = &Word> {
        self.words.iter()
    }

    /// The clause at `index`.
    fn clause(&self, index: usize) -> Option<&[Word]> {
        let start = index
            .checked_sub(1)
            .map_or(Some(0), |i| self.clause_ends.get(i).copied())?;
        let end = *self.clause_ends.get(index)?;
        self.words.get(start..end)
    }

    /// Where each clause starts and ends in [`Sentence::words`], in order.
    pub(crate) fn clause_spans(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let starts = std::iter::once(0).chain(self.clause_ends.iter().copied());
        starts.zip(self.clause_ends.iter().copied())
    }

    /// Clauses `first..end` read as a sentence of their own, each label
    /// kept where its clause is kept too.
    pub(crate) fn clauses_between(&self, first: usize, end: usize) -> Sentence {
        let start = first
            .checked_sub(1)
            .and_then(|i| self.clause_ends.get(i).copied())
            .unwrap_or(0);
        let ends = self.clause_ends.get(first..end).unwrap_or_default();
        Sentence {
            words: self
                .words
                .get(start..ends.last().copied().unwrap_or(start))
                .unwrap_or_default()
                .to_vec(),
            clause_ends: ends.iter().map(|&e| e - start).collect(),
            labels: self
                .labels
                .get(first..end)
                .unwrap_or_default()
                .iter()
                .map(|label| label.and_then(|l| l.checked_sub(first)))
                .collect(),
            bracketed: shifted_bits(self.bracketed, first),
            question: self.question,
            list: self.list,
        }
    }

    /// The sentence with each word rewritten as `rewrite` says (by its
    /// position and text): kept, replaced or dropped. Clauses and labels
    /// are kept; a word whose clause would be left empty is kept.
    pub(crate) fn rewritten(&self, rewrite: impl Fn(usize, &Word) -> Rewrite) -> Sentence {
        let mut words = Vec::with_capacity(self.words.len());
        let mut clause_ends = Vec::with_capacity(self.clause_ends.len());
        for (start, end) in self.clause_spans() {
            let clause_start = words.len();
            for at in start..end {
                let Some(word) = self.words.get(at) else {
                    break;
                };
                match rewrite(at, word) {
                    Rewrite::Keep => words.push(word.clone()),
                    Rewrite::Replace(other) => words.push(other),
                    Rewrite::Drop => {}
                    Rewrite::Before(other) => {
                        words.push(other);
                        words.push(word.clone());
                    }
                }
            }
            if words.len() == clause_start {
                words.extend(
                    self.words
                        .get(start..end)
                        .unwrap_or_default()
                        .iter()
                        .cloned(),
                );
            }
            clause_ends.push(words.len());
        }
        Sentence {
            words,
            clause_ends,
            labels: self.labels.clone(),
            bracketed: self.bracketed,
            question: self.question,
            list: self.list,
        }
    }

    /// Whether the clause at `index` stands inside brackets.
    pub(crate) fn is_bracketed(&self, index: usize) -> bool {
        u32::try_from(index)
            .ok()
            .and_then(|i| self.bracketed.checked_shr(i))
            .is_some_and(|bits| bits & 1 == 1)
    }

    /// The sentence from word `at` on, read as a sentence of its own: its
    /// clauses from the one holding `at` (cut at `at`), a label kept only
    /// where the label is kept too.
    pub(crate) fn starting_at(&self, at: usize) -> Sentence {
        let first = self
            .clause_ends
            .iter()
            .position(|&end| end > at)
            .unwrap_or(self.clause_ends.len());
        Sentence {
            words: self.words.get(at..).unwrap_or_default().to_vec(),
            clause_ends: self
                .clause_ends
                .get(first..)
                .unwrap_or_default()
                .iter()
                .map(|&end| end - at)
                .collect(),
            labels: self
                .labels
                .get(first..)
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(i, label)| label.filter(|_| i > 0).and_then(|l| l.checked_sub(first)))
                .collect(),
            bracketed: shifted_bits(self.bracketed, first),
            question: self.question,
            list: self.list,
        }
    }

    /// The clauses, in order.
    pub(crate) fn clauses(&self) -> impl Iterator<Item = &[Word]> {
        (0..self.clause_ends.len()).filter_map(|i| self.clause(i))
    }

    /// The clauses, each with its label ([`Sentence::labels`]).
    pub(crate) fn labelled_clauses(&self) -> impl Iterator<Item = (&[Word], Option<&[Word]>)> {
        self.clauses().zip(&self.labels).map(|(clause, label)| {
            let label = label.and_then(|i| self.clause(i));
            (clause, label)
        })
    }

    /// Each clause's label, as words.
    #[cfg(test)]
    pub(crate) fn labels(&self) -> Vec<Option<&[Word]>> {
        self.labelled_clauses().map(|(_, label)| label).collect()
    }

    /// Whether the sentence has no word.
    fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// `bits` (a bit per clause) of the clauses from `first` on.
fn shifted_bits(bits: u64, first: usize) -> u64 {
    u32::try_from(first)
        .ok()
        .and_then(|f| bits.checked_shr(f))
        .unwrap_or(0)
}

/// What [`Sentence::rewritten`] does with one word.
pub(crate) enum Rewrite {
    Keep,
    Replace(Word),
    Drop,
    /// The word, then the one it stands before.
    Before(Word),
}

/// tau2's end-of-conversation marker, read as a space.
const STOP_MARKER: &str = "###STOP###";

/// Lower-cases, unifies typographic quotes and dashes (a dash separates
/// clauses) and drops tau2's `###STOP###` marker.
#[must_use]
pub(crate) fn normalise(text: &str) -> String {
    let stopped;
    let text = if text.contains(STOP_MARKER) {
        stopped = text.replace(STOP_MARKER, " ");
        stopped.as_str()
    } else {
        text
    };
    if text.is_ascii() {
        // The common case: of the characters unified below only the
        // back-tick is ASCII, and ASCII lower-cases byte by byte (a copy,
        // not a string collected character by character).
        let mut lower = text.to_ascii_lowercase();
        if lower.contains('`') {
            lower = lower.replace('`', "'");
        }
        return lower;
    }
    if text.contains(FINAL_SIGMA_CASE) {
        // `str::to_lowercase` lowers a capital sigma by its context (final
        // or not); any other character lowers on its own.
        return normalise_general(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        // A run of ASCII is copied and lowered in place (of its characters
        // only the back-tick is unified); the character after it is
        // lowered and unified on its own.
        let run_end = rest
            .bytes()
            .position(|b| !b.is_ascii())
            .unwrap_or(rest.len());
        let (run, after) = (
            rest.get(..run_end).unwrap_or_default(),
            rest.get(run_end..).unwrap_or_default(),
        );
        let from = out.len();
        if run.as_bytes().contains(&b'`') {
            out.push_str(&run.replace('`', "'"));
        } else {
            out.push_str(run);
        }
        if let Some(lowered) = out.get_mut(from..) {
            lowered.make_ascii_lowercase();
        }
        let mut chars = after.chars();
        let Some(c) = chars.next() else {
            break;
        };
        out.extend(c.to_lowercase().map(unify_mark));
        rest = chars.as_str();
    }
    out
}

/// The capital sigma, the one character whose lower case depends on its
/// neighbours.
const FINAL_SIGMA_CASE: char = '\u{3a3}';

/// A lower-cased character with typographic quotes and dashes unified
/// (a dash separates clauses).
fn unify_mark(c: char) -> char {
    match c {
        '\u{2019}' | '\u{2018}' | '`' | '\u{00b4}' => '\'',
        '\u{201c}' | '\u{201d}' => '"',
        '\u{2014}' | '\u{2013}' | '\u{2026}' => ',',
        c => c,
    }
}

/// [`normalise`] for any text (the ASCII case is done in one pass there).
fn normalise_general(text: &str) -> String {
    text.replace(STOP_MARKER, " ")
        .to_lowercase()
        .chars()
        .map(unify_mark)
        .collect()
}

/// Splits normalised text into sentences, read without a domain
/// ([`sentences_in`] with [`Lexicon::english`]).
#[must_use]
pub(crate) fn sentences(text: &str) -> Vec<Sentence> {
    sentences_in(text, &ENGLISH)
}

/// Splits normalised text into sentences, each word tagged by `lexicon`. A
/// `.` ends a sentence only when whitespace or the end follows it, so
/// `$22.55` and `mms.carrier.com` stay whole; `!`, `?`, `;` and line breaks
/// always end one.
#[must_use]
pub(crate) fn sentences_in(text: &str, lexicon: &Lexicon) -> Vec<Sentence> {
    let normalised = normalise(text);
    let mut out: Vec<Sentence> = Vec::new();
    let mut places = ListPlaces::default();
    for (text, end) in sentence_texts(&normalised) {
        let mut sentence = sentence(text, end == b'?', lexicon);
        sentence.list = places.place(text, end);
        if sentence.is_empty() {
            // "Yes?!" or "...?": a bare mark belongs to the sentence before.
            if end == b'?'
                && let Some(last) = out.last_mut()
            {
                last.question = true;
            }
            continue;
        }
        out.push(sentence);
    }
    out
}

/// Where the sentences of a text end, as [`sentences_in`] splits
/// normalised text: each sentence's byte range, without the mark that ends
/// it, and that mark (`None` for the text after the last one). A `.` ends a
/// sentence only when whitespace or the end follows it, so `$22.55` and
/// `jo.doe@example.org` stay whole; `!`, `?`, `;` and line breaks always
/// end one. Sentences holding no word are among them.
pub(crate) fn sentence_spans(text: &str) -> impl Iterator<Item = (Range<usize>, Option<u8>)> + '_ {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    let mut done = false;
    // The marks are ASCII, so a byte scan finds them (no byte of a longer
    // UTF-8 character is ASCII).
    std::iter::from_fn(move || {
        while let Some(&b) = bytes.get(at) {
            let ends = match b {
                b'!' | b'?' | b';' | b'\n' => true,
                b'.' => text
                    .get(at + 1..)
                    .and_then(|rest| rest.chars().next())
                    .is_none_or(char::is_whitespace),
                _ => false,
            };
            at += 1;
            if ends {
                let span = start..at - 1;
                start = at;
                return Some((span, Some(b)));
            }
        }
        if done {
            return None;
        }
        done = true;
        Some((start..bytes.len(), None))
    })
}

/// The sentences of a text ([`sentence_spans`]), each with the mark that
/// ends it (`\n` for the last).
fn sentence_texts(text: &str) -> impl Iterator<Item = (&str, u8)> + '_ {
    sentence_spans(text)
        .map(|(span, mark)| (text.get(span).unwrap_or_default(), mark.unwrap_or(b'\n')))
}

/// Whether a user's turn puts the value `value` forward as its own: names
/// its words in a row in a sentence stating something outright, no
/// question (ending in `?`) and no negator (*not*, *never*, …), and
/// not right after a possessive (*my*, *our*, …). "Yes, go
/// ahead with the minivan." puts *minivan* forward; "or would the minivan
/// be cheaper?", "not the minivan" and "my family will love it" (a thing
/// of someone's, not the value) do not. A value is read as words, so
/// `full_size` is "full size".
#[must_use]
pub fn puts_forward(text: &str, value: &str) -> bool {
    let wanted = words(&normalise(&value.replace('_', " ")));
    if wanted.is_empty() {
        return false;
    }
    sentence_texts(text).any(|(sentence, mark)| {
        if mark == b'?' {
            return false;
        }
        let said = words(&normalise(sentence));
        if said
            .iter()
            .any(|word| lexicon::NEGATORS.contains(&word.as_str()))
        {
            return false;
        }
        said.windows(wanted.len()).enumerate().any(|(at, window)| {
            window == wanted.as_slice()
                && at
                    .checked_sub(1)
                    .and_then(|before| said.get(before))
                    .is_none_or(|before| !lexicon::POSSESSIVES.contains(&before.as_str()))
        })
    })
}

/// The amounts (canonical, [`super::value::amount_of`]) that the sentences
/// of `text` naming one of `lexicon`'s actions taking an amount
/// ([`Lexicon::amount_actions`]) name (split as
/// [`sentences_in`] splits normalised text): where an agent's summary
/// states the amounts it gives the action ("I can waive $40.00 of it",
/// "Amount disputed: 300.00"). Only a sentence naming an amount has its
/// words looked up.
#[must_use]
pub(crate) fn action_amounts(text: &str, lexicon: &Lexicon) -> Vec<SmolStr> {
    let taking = lexicon.amount_actions();
    if taking == 0 || !text.bytes().any(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    let mut stated: Vec<SmolStr> = Vec::new();
    for (sentence, _) in sentence_texts(text) {
        if !sentence.bytes().any(|b| b.is_ascii_digit()) {
            continue;
        }
        let amounts = super::value::amounts_named(sentence);
        if amounts.is_empty()
            || !words(sentence)
                .iter()
                .any(|word| lexicon.action_bits(word) & taking != 0)
        {
            continue;
        }
        let wholes = portioned_wholes(sentence);
        for amount in amounts {
            if !stated.contains(&amount) && !wholes.contains(&amount) {
                stated.push(amount);
            }
        }
    }
    stated
}

/// The questions of `text` (sentences ending in `?`, split as the
/// reader splits normalised text) that name one of `lexicon`'s
/// actions, as written (trimmed, the mark left off): where a summary asks about the action it proposes
/// ("To confirm: change booking BK-40788 from midsize to the suv class?"),
/// as against its statements describing records or options.
#[must_use]
pub fn asking_action_sentences(text: &str, lexicon: &Lexicon) -> Vec<String> {
    if !text.contains('?') {
        return Vec::new();
    }
    sentence_texts(text)
        .filter(|&(sentence, mark)| {
            mark == b'?' && words(sentence).iter().any(|w| lexicon.action_bits(w) != 0)
        })
        .map(|(sentence, _)| sentence.trim().to_owned())
        .collect()
}

/// The values of the lines of `text` that label a detail by one of
/// `names` (a parameter's words, lower case): "- **New cabin:** economy
/// ($140)" gives "economy ($140)" for `["cabin"]`, and so does a table row
/// "| New cabin | economy |" (its first cell the label, the rest the
/// value). A label is the text before a line's first colon, past its
/// bullet or number and markup, of at most four words; one holding a word
/// saying the value is not the one given (`lexicon::UNCHOSEN_VALUE_LABELS`:
/// "Current cabin:", "Fuel before:", "Other accepted reason:") gives
/// nothing.
#[must_use]
pub fn labelled_values<'t>(text: &'t str, names: &[&str]) -> Vec<&'t str> {
    if names.is_empty() || !text.contains([':', '|']) {
        return Vec::new();
    }
    text.lines()
        .filter_map(|line| {
            let row = line.trim();
            let (label, value) = match row.strip_prefix('|') {
                Some(cells) => cells.split_once('|')?,
                None => line.split_once(':')?,
            };
            let words: Vec<String> = label
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty() && !w.bytes().all(|b| b.is_ascii_digit()))
                .map(str::to_lowercase)
                .collect();
            let names_it = words.iter().any(|w| names.contains(&w.as_str()));
            let unchosen = words
                .iter()
                .any(|w| lexicon::UNCHOSEN_VALUE_LABELS.contains(&w.as_str()));
            (names_it && !unchosen && words.len() <= 4).then_some(value)
        })
        .collect()
}

/// The amounts a sentence names as the whole the action takes a part of:
/// an amount after *of* (and a determiner) that follows another amount or
/// a word for a part ("$12.50 (half of $25.00)", "waive $40 of the $45
/// fee", "20% of 300"). "A refund of $25" names the refund's own amount.
fn portioned_wholes(sentence: &str) -> Vec<SmolStr> {
    if !sentence.contains(" of ") {
        return Vec::new();
    }
    let tokens = super::value::value_tokens(sentence);
    let mut wholes = Vec::new();
    for (at, token) in tokens.iter().enumerate() {
        if token.as_str() != "of" {
            continue;
        }
        let part = at.checked_sub(1).and_then(|before| tokens.get(before));
        let portions = part.is_some_and(|part| {
            lexicon::PORTIONS.contains(&part.as_str()) || super::value::amount_of(part).is_some()
        });
        if !portions {
            continue;
        }
        let whole = tokens
            .get(at + 1..)
            .unwrap_or_default()
            .iter()
            .find(|t| !lexicon::PORTION_DETERMINERS.contains(&t.as_str()));
        if let Some(amount) = whole.and_then(|t| super::value::amount_of(t)) {
            wholes.push(amount);
        }
    }
    wholes
}

/// What [`sentences_in`] knows of the lines so far, to place each
/// sentence in a list ([`ListPlace`]).
#[derive(Default)]
struct ListPlaces {
    /// The sentence before ended its line (or there was none).
    mid_line: bool,
    /// The sentence before was a line's number ("2" of "2. The fee").
    numbered: bool,
}

impl ListPlaces {
    /// The place of the sentence `text`, ended by the mark `end`.
    fn place(&mut self, text: &str, end: u8) -> ListPlace {
        let line_start = !self.mid_line;
        let bulleted = line_start && {
            let opened = text.trim_start();
            opened.starts_with(['-', '*', '\u{2022}'])
                || opened
                    .as_bytes()
                    .iter()
                    .take(3)
                    .position(|&b| b == b')')
                    .and_then(|at| opened.get(..at))
                    .is_some_and(is_list_number)
        };
        let number = line_start && end == b'.' && text.len() <= 4 && is_list_number(text.trim());
        let place = ListPlace {
            item: bulleted || number || self.numbered,
            opens: text.trim_end().ends_with(':'),
        };
        self.numbered = number;
        self.mid_line = end != b'\n';
        place
    }
}

/// Whether `text` is a list line's number: one or two digits.
fn is_list_number(text: &str) -> bool {
    (1..=2).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit())
}

/// Longest field name read as a label ("Checked bags: none").
pub(crate) const MAX_LABEL_WORDS: usize = 3;

/// One sentence of normalised text, read into clauses of word tokens
/// (empty clauses dropped), each with the label it is the value of (see
/// [`Sentence::labels`]), its words tagged by `lexicon`.
fn sentence(text: &str, question: bool, lexicon: &Lexicon) -> Sentence {
    let written;
    let text = match yes_but_at(text) {
        Some(at) => {
            written = format!(
                "{},{}",
                text.get(..at).unwrap_or_default(),
                text.get(at..).unwrap_or_default()
            );
            written.as_str()
        }
        None => text,
    };
    let mut read = Sentence {
        // About one word in six bytes: most sentences need no regrowth.
        words: Vec::with_capacity(text.len() / 6 + 1),
        clause_ends: Vec::new(),
        labels: Vec::new(),
        bracketed: 0,
        question,
        list: ListPlace::default(),
    };
    let mut after_colon = false;
    let mut in_bracket = false;
    let mut rest = text;
    loop {
        // The separators are ASCII, and no byte of a longer UTF-8
        // character is: a byte search finds the same place as a character
        // search.
        let end = rest
            .bytes()
            .position(|b| matches!(b, b',' | b':' | b'(' | b')' | b'"' | b'[' | b']'))
            .unwrap_or(rest.len());
        let part = rest.get(..end).unwrap_or_default();
        let pieces = if part.as_bytes().iter().any(|&b| b == b'-' || b == b'/') {
            Pieces::Split(
                part.split(" - ")
                    .flat_map(|piece| piece.split(" / "))
                    .collect::<Vec<_>>()
                    .into_iter(),
            )
        } else {
            Pieces::One(Some(part))
        };
        for (i, piece) in pieces.enumerate() {
            let start = read.words.len();
            push_words(piece, Case::Lowered, &mut read.words);
            if read.words.len() == start {
                continue;
            }
            let label = (after_colon && i == 0)
                .then(|| {
                    let last = read.clause_ends.len().checked_sub(1)?;
                    let words = read.clause(last)?.len();
                    (words <= MAX_LABEL_WORDS).then_some(last)
                })
                .flatten();
            if in_bracket && let Ok(index) = u32::try_from(read.clause_ends.len()) {
                read.bracketed |= 1u64.checked_shl(index).unwrap_or(0);
            }
            read.clause_ends.push(read.words.len());
            read.labels.push(label);
        }
        let Some(separator) = rest.get(end..).and_then(|r| r.chars().next()) else {
            break;
        };
        after_colon = separator == ':';
        match separator {
            '(' | '[' => in_bracket = true,
            ')' | ']' => in_bracket = false,
            _ => {}
        }
        rest = rest.get(end + separator.len_utf8()..).unwrap_or_default();
    }
    lexicon.tag(&mut read.words);
    read
}

/// Where *but* stands right after a one-word yes opening a sentence ("yes
/// but not PK-9"): a clause ends before it, as "Yes, but not PK-9" writes
/// it, since replies typed in a hurry leave the comma out.
fn yes_but_at(text: &str) -> Option<usize> {
    // A yes head is ASCII: bytes find its end.
    let opened = text.trim_ascii_start();
    let yes_len = opened.bytes().position(|b| !b.is_ascii_alphanumeric())?;
    let after = opened.get(yes_len..)?;
    let rest = after.trim_ascii_start();
    // Most sentences have no *but* second: the yes is looked up last.
    if rest.len() == after.len()
        || !rest
            .strip_prefix("but")
            .is_some_and(|but| but.starts_with(|c: char| c.is_ascii_whitespace()))
    {
        return None;
    }
    let yes = opened.get(..yes_len)?;
    YES_HEADS
        .iter()
        .any(|head| matches!(head, [only] if *only == yes))
        .then(|| text.len() - rest.len())
}

/// The parts of a clause text between ` - ` dashes and ` / ` slashes
/// ("jira: yes / confluence: no"): most have neither, and splitting them
/// would set up a substring search for nothing.
enum Pieces<'a> {
    One(Option<&'a str>),
    Split(std::vec::IntoIter<&'a str>),
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        match self {
            Pieces::One(part) => part.take(),
            Pieces::Split(split) => split.next(),
        }
    }
}

/// Word tokens of normalised text: runs of letters, digits and apostrophes,
/// contractions of `not` expanded. Other characters separate words.
#[must_use]
pub(crate) fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    push_words(text, Case::Any, &mut out);
    out
}

/// Whether a text handed to [`push_words`] may hold ASCII capitals.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Case {
    /// Any text.
    Any,
    /// [`normalise`]d text: no ASCII capital is left in it (every path of
    /// `normalise` lowers them), so an ASCII word is taken as it is.
    Lowered,
}

/// Appends the [`words`] of `text` to `out`.
fn push_words(text: &str, case: Case, out: &mut Vec<Word>) {
    if text.is_ascii() {
        // The common case, byte by byte: an ASCII character is alphanumeric
        // or an apostrophe exactly when its byte is, and every byte index
        // of ASCII text is a character boundary.
        let bytes = text.as_bytes();
        let mut start = 0;
        for end in 0..=bytes.len() {
            if bytes
                .get(end)
                .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'\'')
            {
                continue;
            }
            let raw = text.get(start..end).unwrap_or_default();
            start = end + 1;
            let word = trim_apostrophes(raw);
            if word.is_empty() {
                continue;
            }
            let lower = match case {
                Case::Lowered => SmolStr::new(word),
                Case::Any => word.to_ascii_lowercase_smolstr(),
            };
            expand_contraction(Word::from_text(lower), out);
        }
    } else {
        push_words_general(text, out);
    }
}

/// `word` without the apostrophes at either end (`trim_matches('\'')`),
/// deciding the common case, none, from its first and last bytes.
fn trim_apostrophes(word: &str) -> &str {
    match word.as_bytes() {
        [first, .., last] if *first != b'\'' && *last != b'\'' => word,
        [only] if *only != b'\'' => word,
        _ => word.trim_matches('\''),
    }
}

/// [`push_words`] for any text (ASCII text is read byte by byte there).
fn push_words_general(text: &str, out: &mut Vec<Word>) {
    let is_apostrophe = |c: char| matches!(c, '\'' | '\u{2019}' | '\u{2018}');
    for raw in text.split(|c: char| !(c.is_alphanumeric() || is_apostrophe(c))) {
        // Trimming every apostrophe form equals unifying them first and
        // trimming `'`; an ASCII word is lower-cased in one allocation (the
        // hot path: `str::to_lowercase` is only needed for the rest).
        let word = raw.trim_matches(is_apostrophe);
        if word.is_empty() {
            continue;
        }
        let lower = Word::from_text(if word.is_ascii() {
            word.to_ascii_lowercase_smolstr()
        } else {
            word.replace(['\u{2019}', '\u{2018}'], "'")
                .to_lowercase_smolstr()
        });
        expand_contraction(lower, out);
    }
}

/// Irregular negative contractions, with and without the apostrophe.
const IRREGULAR_NEGATIVES: &[(&str, &[&str])] = &[
    ("won't", &["will", "not"]),
    ("wont", &["will", "not"]),
    ("can't", &["can", "not"]),
    ("cant", &["can", "not"]),
    ("cannot", &["can", "not"]),
    ("shan't", &["shall", "not"]),
    ("ain't", &["is", "not"]),
    ("dont", &["do", "not"]),
    ("doesnt", &["does", "not"]),
    ("didnt", &["did", "not"]),
    ("isnt", &["is", "not"]),
    ("arent", &["are", "not"]),
    ("wasnt", &["was", "not"]),
    ("werent", &["were", "not"]),
    ("shouldnt", &["should", "not"]),
    ("wouldnt", &["would", "not"]),
    ("couldnt", &["could", "not"]),
    ("havent", &["have", "not"]),
    ("hasnt", &["has", "not"]),
];

/// Pushes `word`, with a `not` contraction split into its verb and `not`.
fn expand_contraction(word: Word, out: &mut Vec<Word>) {
    // Every contraction above, and every `n't`, ends in `t`: other words
    // (nearly all) skip the list.
    if !word.ends_with('t') {
        out.push(word);
    } else if let Some((_, expansion)) = IRREGULAR_NEGATIVES.iter().find(|(w, _)| word == *w) {
        out.extend(expansion.iter().map(|w| Word::new_static(w)));
    } else if let Some(stem) = word.strip_suffix("n't")
        && !stem.is_empty()
    {
        out.push(Word::new(stem));
        out.push(Word::new_static("not"));
    } else {
        out.push(word);
    }
}

/// Start positions of `phrase` in `tokens` as a whole word sequence.
pub(crate) fn phrase_positions<S: AsRef<str>>(tokens: &[Word], phrase: &[S]) -> Vec<usize> {
    if phrase.is_empty() || phrase.len() > tokens.len() {
        return Vec::new();
    }
    tokens
        .windows(phrase.len())
        .enumerate()
        .filter(|(_, w)| starts_with_phrase(w, phrase))
        .map(|(i, _)| i)
        .collect()
}

/// Whether `phrase` occurs in `tokens` as a whole word sequence.
pub(crate) fn contains_phrase<T: AsRef<str>, S: AsRef<str>>(tokens: &[T], phrase: &[S]) -> bool {
    !phrase.is_empty()
        && phrase.len() <= tokens.len()
        && tokens
            .windows(phrase.len())
            .any(|w| starts_with_phrase(w, phrase))
}

/// Whether `tokens` open with `phrase`, word by word.
fn starts_with_phrase<T: AsRef<str>, S: AsRef<str>>(tokens: &[T], phrase: &[S]) -> bool {
    tokens.len() >= phrase.len()
        && tokens
            .iter()
            .zip(phrase)
            .all(|(a, b)| same_word(a.as_ref(), b.as_ref()))
}

/// `a == b`, deciding the common case — two different words — from their
/// lengths and first bytes, without a call to compare the bytes (phrase
/// matching compares every lexicon phrase at every position of a sentence).
fn same_word(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.as_bytes().first() == b.as_bytes().first() && a == b
}

/// Every word token of `sentences`, in order, clause and sentence
/// boundaries dropped: the same tokens as `words(&normalise(text))` of the
/// text they were read from (every boundary character also separates
/// words), without tokenizing it again.
pub(crate) fn flat_tokens(sentences: &[Sentence]) -> Vec<&Word> {
    sentences.iter().flat_map(Sentence::tokens).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialogue::{ActionWords, DomainWords};

    #[test]
    fn a_line_labelled_by_a_parameter_gives_its_value_unless_it_says_what_was() {
        let summary = "Here is the change:\n\n- **Reservation:** M81TLD\n- **Current cabin:** \
                       business ($390)\n- **New cabin:** economy ($140, refund of $250)\n\
                       - Basic economy would be $88.\n2. Cabin class: economy\nConfirm?";
        assert_eq!(
            labelled_values(summary, &["cabin"]),
            ["** economy ($140, refund of $250)", " economy"]
        );
        assert!(labelled_values("Fuel before: electricity", &["fuel"]).is_empty());
        assert!(labelled_values("Other accepted reason: no longer needed", &["reason"]).is_empty());
        let table = "| Field | Value |\n|---|---|\n| Reason | no longer needed |\n| Current cabin | economy |";
        assert_eq!(
            labelled_values(table, &["reason", "cabin"]),
            [" no longer needed |"]
        );
        assert!(labelled_values("The fuel you picked was not: gas, sadly", &["fuel"]).is_empty());
        assert!(labelled_values("Fuel: gas", &[]).is_empty());
    }

    #[test]
    fn the_questions_naming_an_action_are_where_a_summary_asks_about_it() {
        let lexicon = Lexicon::new(&DomainWords {
            actions: vec![ActionWords {
                words: vec!["change".to_owned()],
                takes_away: false,
                takes_amount: false,
            }],
            ..DomainWords::default()
        });
        let summary = "For BK-40788 suv, minivan and full_size are available. To confirm: \
                       change booking BK-40788 from midsize to the suv class? Anything else?";
        assert_eq!(
            asking_action_sentences(summary, &lexicon),
            ["To confirm: change booking BK-40788 from midsize to the suv class"]
        );
        // A statement naming the action asks nothing; a turn with no
        // question has none.
        assert!(asking_action_sentences("I'll change it to the suv class.", &lexicon).is_empty());
        assert!(asking_action_sentences("Changing it to suv. Is that all?", &lexicon).is_empty());
    }

    #[test]
    fn a_summary_states_the_amounts_it_gives_the_action_where_it_names_it() {
        let words = |takes_amount: bool| DomainWords {
            actions: vec![ActionWords {
                words: vec!["waive".to_owned(), "dispute".to_owned()],
                takes_away: false,
                takes_amount,
            }],
            ..DomainWords::default()
        };
        let lexicon = Lexicon::new(&words(true));
        let summary = "The late-return fee on BK-38817 is $45.00. I can waive $40.00 of it, \
                       leaving $5.00. Shall I go ahead?";
        assert_eq!(action_amounts(summary, &lexicon), ["40", "5"]);
        let lines = "* Transaction: txn_9003, 30 Nov 2026, 1,200.00\n* Amount disputed: **300.00**\nMay I file this dispute?";
        assert_eq!(action_amounts(lines, &lexicon), ["300"]);
        // The whole the action takes a part of is no amount it gives it.
        let part = "Waive $12.50 (half of $25.00) of the late fee on BK-1? y/n";
        assert_eq!(action_amounts(part, &lexicon), ["12.5"]);
        let of_the = "I can waive $40.00 of the $45.00 fee. Shall I?";
        assert_eq!(action_amounts(of_the, &lexicon), ["40"]);
        let share = "Shall I waive 50% of the 300.00 charge?";
        assert_eq!(action_amounts(share, &lexicon), ["50"]);
        // An amount after *of* following no part is the action's own.
        let own = "Shall I dispute a charge of $25.00?";
        assert_eq!(action_amounts(own, &lexicon), ["25"]);
        // A summary naming no amount beside the action states none.
        assert!(action_amounts("The fee is $45. Shall I waive it?", &lexicon).is_empty());
        // Nor does a domain none of whose actions takes an amount.
        assert!(action_amounts(summary, &Lexicon::new(&words(false))).is_empty());
    }

    #[test]
    fn a_value_is_put_forward_only_in_a_plain_statement() {
        assert!(puts_forward("Yes, go ahead with the minivan.", "minivan"));
        assert!(puts_forward("Yes please. By email.", "email"));
        assert!(puts_forward("yes, full size please", "full_size"));
        assert!(!puts_forward(
            "Yes - or would the minivan be cheaper?",
            "minivan"
        ));
        assert!(!puts_forward("Yes, the SUV. Not the minivan!", "minivan"));
        assert!(!puts_forward("Yes. I don't want the compact.", "compact"));
        assert!(!puts_forward("Yes! My family will love it.", "family"));
        assert!(!puts_forward("Yes, the SUV.", "minivan"));
    }

    #[test]
    fn contractions_become_not() {
        assert_eq!(words("don't"), ["do", "not"]);
        assert_eq!(words("I can’t"), ["i", "can", "not"]);
        assert_eq!(
            words("won't cannot dont"),
            ["will", "not", "can", "not", "do", "not"]
        );
        assert_eq!(words("shouldn't"), ["should", "not"]);
        assert_eq!(words("'yes'"), ["yes"]);
    }

    #[test]
    fn sentences_and_questions() {
        let s = sentences("Yes—go ahead. Charge $22.55 to mms.carrier.com! Really?");
        assert_eq!(s.len(), 3);
        let clauses = |s: &Sentence| s.clauses().map(<[Word]>::to_vec).collect::<Vec<_>>();
        assert_eq!(clauses(&s[0]), vec![vec!["yes"], vec!["go", "ahead"]]);
        assert!(!s[0].question);
        assert_eq!(
            clauses(&s[1])[0],
            ["charge", "22", "55", "to", "mms", "carrier", "com"]
        );
        assert!(s[2].question);
        assert!(sentences("Yes?!")[0].question);
        assert!(sentences("###STOP###").is_empty());
        let fields = sentences("- Checked bags: none, Reason: no longer needed");
        assert_eq!(
            fields[0].labels(),
            vec![
                None,
                Some(&[Word::new("checked"), Word::new("bags")][..]),
                None,
                Some(&[Word::new("reason")][..]),
            ]
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            crate::dialogue::value::tests::proptest_cases()
        ))]

        /// On any string, and on strings dense in ASCII runs between marks
        /// and letters of other scripts, `normalise` is the general rule,
        /// and the words of ASCII text read byte by byte are the general
        /// rule's.
        #[test]
        fn normalising_and_words_are_the_general_rules(
            any in proptest::prelude::any::<String>(),
            picks in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..48)
        ) {
            let alphabet: Vec<char> = crate::dialogue::value::tests::SCAN_ALPHABET.chars().collect();
            let dense: String = picks.iter().map(|i| *i.get(&alphabet)).collect();
            for text in [any.as_str(), dense.as_str()] {
                proptest::prop_assert_eq!(normalise(text), normalise_general(text));
                let ascii: String = text.chars().filter(char::is_ascii).collect();
                let (mut bytes, mut general) = (Vec::new(), Vec::new());
                push_words(&ascii, Case::Any, &mut bytes);
                push_words_general(&ascii, &mut general);
                proptest::prop_assert_eq!(bytes, general);
            }
        }
    }

    /// ASCII text, text with a capital sigma and other non-ASCII text each
    /// take their own path through `normalise`.
    #[test]
    fn normalising_is_the_general_rule() {
        for text in [
            "Yes, GO Ahead `now`. ###STOP###",
            "###stop### ###STOP###x",
            "Caf\u{e9} \u{2019}ok\u{2019} \u{2014} \u{3a3}\u{3a3} ###STOP###",
            "",
            "Caf\u{e9} \u{2019}OK\u{2019} \u{2014} `x` \u{201c}Q\u{201d} ###STOP### \u{130}stanbul",
            "\u{1f600} Yes\u{2026} \u{00b4}\u{2013}\u{2018}",
            "ODYSSEUS \u{3a3}\u{3a3} \u{3a3}A",
        ] {
            assert_eq!(normalise(text), normalise_general(text), "{text}");
        }
    }

    #[test]
    fn ascii_words_are_the_general_rule() {
        for text in [
            "don't won't 'quoted' ''x'' it's n't a-b c_d 12.5 W9300146 ###stop###",
            "Yes, GO Ahead! cant can't i'D",
            "",
            "'",
        ] {
            let (mut ascii, mut general, mut lowered) = (Vec::new(), Vec::new(), Vec::new());
            push_words(text, Case::Any, &mut ascii);
            push_words_general(text, &mut general);
            assert_eq!(ascii, general, "{text}");
            push_words(&normalise(text), Case::Lowered, &mut lowered);
            assert_eq!(lowered, general, "{text}");
        }
    }

    #[test]
    fn flat_tokens_are_the_words_of_the_text() {
        for text in [
            "Yes—go ahead. Charge $22.55 to mms.carrier.com! Really?",
            "- Checked bags: none, Reason: no longer needed (don't) [x] \"q\"; a - b\nc",
            "I can’t; won't... ###STOP### 'quoted' it's",
            "",
        ] {
            let read = sentences(text);
            let flat: Vec<Word> = flat_tokens(&read).into_iter().cloned().collect();
            assert_eq!(flat, words(&normalise(text)), "{text}");
        }
    }

    #[test]
    fn phrases_match_whole_words() {
        let t = words("please do not proceed");
        assert_eq!(phrase_positions(&t, &["do", "not"]), [1]);
        assert!(contains_phrase(&t, &["proceed"]));
        assert!(!contains_phrase(&t, &["pro"]));
        assert!(!contains_phrase(&t, &[] as &[&str]));
    }
}
