//! Whether a turn mentions an argument value ([`names_value`]), reading what
//! users and agents actually write: any case, `#W9300146` or `W9300146`,
//! quoted, back-ticked or bold, followed by punctuation; amounts with or
//! without a currency sign, thousands separators and trailing zeros; dates as
//! ISO, `05/22/2024`, `May 22, 2024` or `22 May`.

use std::borrow::Cow;
use std::ops::Range;

use smol_str::{SmolStr, StrExt};

use super::lexicon::{
    ANSWER_LABEL_REACH, ANSWER_WORDS, ASIDE_JOINS, ASIDE_RELATIVES, ASKED_ANSWER_REACH,
    ASKED_ANSWER_VERBS, HOLDING_VERBS, HOLDING_WORDS, NAME_DETERMINERS, PHRASE_BREAKS,
};

/// One token of a turn or value as [`names_value`] reads it (split at
/// markup, not at the grammar's boundaries): a short token is held inline.
pub type ValueToken = SmolStr;

/// Whether `turn` mentions `value` as a whole token (an id `W930` is not
/// found in `W9300146`), an equal amount, or the same date.
#[must_use]
pub fn names_value(turn: &str, value: &str) -> bool {
    ReadTurn::new(turn).names(value)
}

/// Whether `word` (lowered) is a word replies answer with (*yes*, *no*):
/// an enum holding one as a literal names its values by its fields' names
/// ([`ReadTurn::answers_for_field`]).
#[must_use]
pub fn is_answer_word(word: &str) -> bool {
    ANSWER_WORDS.contains(&word)
}

/// A turn read once for many [`names_value`] questions: its tokens and
/// amounts are computed on construction, so asking about every value a
/// conversation has seen costs a lookup per value, not a re-read of the turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadTurn {
    tokens: TokenText,
    amounts: Vec<Amount>,
    /// Where a choice may be offered (`dialogue::alternative_to`), in
    /// order: every *or*, and, in a turn asking the user to pick one of
    /// several ([`picking_in`]), every *and*.
    choice_marks: Vec<usize>,
    /// In a turn asking the user to pick one of several ([`picking_in`]),
    /// the lists it lays out line by line ([`list_items`]): each item's
    /// tokens, list by list.
    option_lists: Vec<Vec<Range<usize>>>,
    /// The tokens standing inside brackets, in order: an option's
    /// description ("figma (editor) or sketch (member)").
    bracketed: Vec<usize>,
}

/// A turn's [`value_tokens`] held in one string: the turn with its ASCII
/// letters lowered, then every token holding another character, lowered
/// on its own; each token is a span of it. Reading a turn allocates this
/// string and the spans, not a string per token.
#[derive(Clone, Default)]
struct TokenText {
    text: String,
    /// Each token's start and end in `text`, in order.
    spans: Vec<(usize, usize)>,
    /// Each token's [`head`], in order: a value's first token is looked
    /// for among a turn's by these, not by their bytes.
    heads: Vec<u32>,
    /// The length of the turn's own text at the start of `text`: a token
    /// spanning bytes past it is spelt after the turn.
    turn_len: usize,
}

/// A token's length and first byte in one number: two tokens with
/// different heads differ.
fn head(token: &str) -> u32 {
    let first = token.as_bytes().first().copied().unwrap_or(0);
    let len = u32::try_from(token.len())
        .unwrap_or(u32::MAX)
        .min(0x00ff_ffff);
    (len << 8) | u32::from(first)
}

impl TokenText {
    /// How many tokens there are.
    fn len(&self) -> usize {
        self.spans.len()
    }

    /// The token at `index`.
    fn get(&self, index: usize) -> Option<&str> {
        let &(start, end) = self.spans.get(index)?;
        self.text.get(start..end)
    }

    /// The tokens, in order.
    fn iter(&self) -> impl Iterator<Item = &str> {
        self.spans
            .iter()
            .map(|&(start, end)| self.text.get(start..end).unwrap_or_default())
    }

    /// Adds the token spanning `start..end` of the text.
    fn push(&mut self, start: usize, end: usize) {
        self.spans.push((start, end));
        self.heads
            .push(head(self.text.get(start..end).unwrap_or_default()));
    }

    /// Whether the tokens from `at` on open with `words`.
    #[inline]
    fn opens_at(&self, at: usize, words: &[ValueToken], across_phrases: bool) -> bool {
        self.spans.get(at..).is_some_and(|rest| {
            rest.len() >= words.len()
                && rest.iter().zip(words).all(|(&(start, end), word)| {
                    self.text.as_bytes().get(start..end) == Some(word.as_bytes())
                })
                && (across_phrases
                    || words.len() < 2
                    || rest
                        .get(..words.len())
                        .unwrap_or_default()
                        .windows(2)
                        .all(|pair| !self.ends_phrase_between(pair)))
        })
    }

    /// Whether a phrase of the turn ends between two tokens (`[first,
    /// second]`, in order): a comma, a full stop or a line break stands
    /// between them in the turn's own text.
    fn ends_phrase_between(&self, pair: &[(usize, usize)]) -> bool {
        let [(_, end), (start, _)] = pair else {
            return false;
        };
        *start <= self.turn_len
            && self.text.as_bytes().get(*end..*start).is_some_and(|gap| {
                // Most words stand one space apart.
                gap != b" " && gap.iter().any(|&b| breaks_phrase(b))
            })
    }

    /// Where `words` (at least one) start among the tokens: every
    /// occurrence, within one phrase unless `across_phrases`.
    fn positions<'a>(
        &'a self,
        words: &'a [ValueToken],
        across_phrases: bool,
    ) -> impl Iterator<Item = usize> + 'a {
        let first = words.first().map_or(u32::MAX, |w| head(w));
        let last_start = (self.len() + 1).saturating_sub(words.len().max(1));
        self.heads
            .iter()
            .take(last_start)
            .enumerate()
            .filter(move |&(at, &head)| head == first && self.opens_at(at, words, across_phrases))
            .map(|(at, _)| at)
    }
}

impl PartialEq for TokenText {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for TokenText {}

impl std::fmt::Debug for TokenText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Where a choice may be offered among `tokens` ([`ReadTurn::choice_marks`]),
/// in order: the rule the scan of [`ReadTurn::new`] is tested against.
#[cfg(test)]
fn choice_mark_positions(tokens: &TokenText) -> Vec<usize> {
    let picking = picking_in(tokens) != Picking::No;
    tokens
        .iter()
        .enumerate()
        .filter(|(_, token)| *token == "or" || (picking && *token == "and"))
        .map(|(at, _)| at)
        .collect()
}

/// Words asking the user to pick one of several things: "which one",
/// "which store", "either one", "pick one", "choose", "select".
const PICKING_WORDS: &[&str] = &["which", "either", "pick", "choose", "select"];

/// Whether a word (lowered) is one asking the user to pick ([`PICKING_WORDS`]).
pub(crate) fn is_picking_word(word: &str) -> bool {
    PICKING_WORDS.contains(&word)
}

/// Words after a [`PICKING_WORDS`] word that make it no pick: "pick up",
/// "either way".
const NOT_PICKING: &[&str] = &["up", "way"];

/// Words after a [`PICKING_WORDS`] word that point it at the things the
/// turn lays out, not at a kind of thing it names: "which one", "which of
/// them", "which to cancel", "either one", "pick one", "choose
/// whichever"; not "which email".
const POINTING_AT_OPTIONS: &[&str] = &["one", "ones", "of", "to", "between", "whichever"];

/// Verbs after *which* that ask the user ("which would you like", "which
/// should I cancel", "which do you want") when the user or the agent
/// follows them ([`ASKED_PERSONS`]); without one, *which* may open a
/// relative clause ("…, which would be cheaper", "which you won't be able
/// to open").
const ASKING_VERBS: &[&str] = &[
    "would", "should", "do", "does", "shall", "will", "can", "could", "did",
];

/// Who an [`ASKING_VERBS`] verb after *which* asks about.
const ASKED_PERSONS: &[&str] = &["you", "i", "we"];

/// How a turn asks the user to pick ([`picking_in`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Picking {
    /// It asks nothing to be picked.
    No,
    /// A picking word names a kind of thing ("which email should get the
    /// receipt?") or may open a relative clause.
    Kind,
    /// A picking word points at the things laid out ("which one", "either
    /// of them", "which would you like"): the user is to pick one of them.
    One,
}

/// How a turn's tokens ask the user to pick one of several things: a
/// [`PICKING_WORDS`] word, not before one of [`NOT_PICKING`], pointing at
/// the things laid out when one of [`POINTING_AT_OPTIONS`] follows it, or
/// an [`ASKING_VERBS`] verb and one of [`ASKED_PERSONS`] follow it, maybe
/// after a noun naming their kind ("which card should I freeze"; the
/// strongest such word decides). Where it asks at all, the things it joins with
/// *and*, and the items of a list it lays out, are options, as those it
/// joins with *or* are.
fn picking_in(tokens: &TokenText) -> Picking {
    picking_of(|at| tokens.get(at), |_| false)
}

/// Whether words (lowered, by place) ask the user to pick one of the
/// things laid out ([`picking_in`]'s [`Picking::One`]): "which one should
/// I freeze?", "choose whichever suits you".
pub(crate) fn asks_to_pick_one<'t>(
    word_at: impl Fn(usize) -> Option<&'t str>,
    record_noun: impl Fn(usize) -> bool,
) -> bool {
    picking_of(word_at, record_noun) == Picking::One
}

/// [`picking_in`] of the words `word_at` gives by place, until it gives
/// none; `record_noun`: whether the word at a place names a kind of record
/// the domain acts on ("card" in "which card should I freeze?").
fn picking_of<'t>(
    word_at: impl Fn(usize) -> Option<&'t str>,
    record_noun: impl Fn(usize) -> bool,
) -> Picking {
    let mut found = Picking::No;
    let mut at = 0;
    while let Some(word) = word_at(at) {
        at += 1;
        if !PICKING_WORDS.contains(&word) {
            continue;
        }
        let next = word_at(at);
        // A turn ending with its picking word ("… Please tell me which.")
        // points it back at what it laid out.
        let asks_person = |verb: usize| {
            word_at(verb).is_some_and(|word| ASKING_VERBS.contains(&word))
                && word_at(verb + 1).is_some_and(|word| ASKED_PERSONS.contains(&word))
        };
        // "which one", "which would you like", "which card should I
        // freeze" (a word for the action's record): the question asks the
        // user to pick one of the things laid out.
        let points = next.is_none_or(|word| POINTING_AT_OPTIONS.contains(&word))
            || asks_person(at)
            || (record_noun(at) && asks_person(at + 1));
        if points {
            return Picking::One;
        }
        if next.is_none_or(|word| !NOT_PICKING.contains(&word)) {
            found = Picking::Kind;
        }
    }
    found
}

/// The byte ranges inside the outermost round brackets of `text`, in
/// order (an unclosed bracket encloses nothing).
fn bracket_ranges(text: &str) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (at, b) in text.bytes().enumerate() {
        match b {
            b'(' => {
                if depth == 0 {
                    start = at + 1;
                }
                depth += 1;
            }
            b')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    ranges.push(start..at);
                }
            }
            _ => {}
        }
    }
    ranges
}

/// The markers opening a line of a bulleted list.
const BULLETS: &[&str] = &["-", "*", "\u{2022}", "\u{b7}", "\u{2013}", "\u{2014}"];

/// The byte ranges of the items of the lists `text` lays out line by line,
/// list by list: runs of two or more lines each opening with a marker (a
/// number and `.` or `)`, or a bullet, [`BULLETS`]), each item the text
/// after its marker, blank lines inside a run allowed. The items of a run
/// stand at one indent: a line indented deeper belongs to the item above
/// it (a detail of that option, not another), and a line indented less
/// opens another run. A line labelling a detail ("- Reason: no longer
/// needed") is no option and ends the run ([`is_labelled`]). Only a list
/// beside a line asking to pick is one of options ([`asks_beside`]).
fn list_items(text: &str) -> Vec<Vec<Range<usize>>> {
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if !line.trim().is_empty() {
            lines.push((offset, line));
        }
        offset += line.len();
    }
    let mut lists: Vec<Vec<Range<usize>>> = Vec::new();
    let mut run: Vec<Range<usize>> = Vec::new();
    let mut run_indent = 0;
    // The line before the run's first item.
    let mut run_from = 0;
    for (at, &(start, line)) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if !run.is_empty() && indent > run_indent {
            continue;
        }
        let item = item_content(trimmed)
            .filter(|content| !is_labelled(content.trim()))
            .map(|content| {
                let from = start + indent + (trimmed.len() - content.len());
                from..start + line.trim_end().len()
            });
        if !run.is_empty() && (item.is_none() || indent < run_indent) {
            let run = std::mem::take(&mut run);
            if run.len() >= 2 && asks_beside(&lines, run_from, Some(at)) {
                lists.push(run);
            }
        }
        if let Some(item) = item {
            if run.is_empty() {
                run_indent = indent;
                run_from = at;
            }
            run.push(item);
        }
    }
    if run.len() >= 2 && asks_beside(&lines, run_from, None) {
        lists.push(run);
    }
    lists
}

/// Whether the line before a list (the one before `lines[first]`) or the
/// one after it (`lines[after]`) asks to pick ([`picking_of`]): a list is
/// the options of the question laid out around it ("Which of these should
/// I cancel?"), not details elsewhere in a turn that asks to pick something
/// else.
fn asks_beside(lines: &[(usize, &str)], first: usize, after: Option<usize>) -> bool {
    let asks = |at: usize| {
        lines.get(at).is_some_and(|(_, line)| {
            let words = value_tokens(line);
            picking_of(|i| words.get(i).map(SmolStr::as_str), |_| false) != Picking::No
        })
    };
    first.checked_sub(1).is_some_and(asks) || after.is_some_and(asks)
}

/// The text of a list line after its marker (a number and `.` or `)`, or a
/// bullet, each followed by a space), if it opens with one.
fn item_content(line: &str) -> Option<&str> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits <= 2 {
        let rest = line.get(digits..)?;
        let rest = rest.strip_prefix('.').or_else(|| rest.strip_prefix(')'))?;
        return rest.starts_with(' ').then_some(rest);
    }
    BULLETS
        .iter()
        .find_map(|bullet| line.strip_prefix(bullet))
        .filter(|rest| rest.starts_with(' '))
}

/// Whether a list item labels a detail: words then a colon ("Reason: no
/// longer needed", "Refund to: PayPal"), unless the label numbers the
/// option ("option 2: quickbooks") or names a record by its id
/// ("RF-90412: sertraline 50 mg", "Order #W2611340: pending": a word of
/// three or more characters holding a digit).
fn is_labelled(item: &str) -> bool {
    let Some((label, _)) = item.split_once(':') else {
        return false;
    };
    let words: Vec<&str> = label.split_whitespace().collect();
    let numbers_option = matches!(words.as_slice(), [word, number]
        if word.eq_ignore_ascii_case("option") && number.bytes().all(|b| b.is_ascii_digit()));
    let names_record = words.iter().any(|word| {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric());
        word.len() >= 3 && word.bytes().any(|b| b.is_ascii_digit())
    });
    words.len() <= 4 && !numbers_option && !names_record
}

/// An amount, canonical ([`parse_amount`]): short, so held inline.
type Amount = SmolStr;

impl ReadTurn {
    /// Reads `turn`: its tokens and its amounts in one pass over its
    /// bytes.
    #[must_use]
    pub fn new(turn: &str) -> Self {
        let mut amounts = Vec::new();
        let mut ors = Vec::new();
        let mut ands = Vec::new();
        let mut lowered = turn.to_owned();
        lowered.make_ascii_lowercase();
        let mut tokens = TokenText {
            text: lowered,
            spans: Vec::with_capacity(turn.len() / 6 + 1),
            heads: Vec::with_capacity(turn.len() / 6 + 1),
            turn_len: turn.len(),
        };
        // A list offers options only in a turn asking to pick one: its
        // lines are read only where a picking word may stand.
        let items =
            if turn.contains('\n') && PICKING_WORDS.iter().any(|word| tokens.text.contains(word)) {
                list_items(turn)
            } else {
                Vec::new()
            };
        // Each item's tokens, found as the scan passes its bytes.
        let mut item_tokens: Vec<Vec<Range<usize>>> =
            items.iter().map(|list| vec![0..0; list.len()]).collect();
        let flat: Vec<(usize, usize, &Range<usize>)> = items
            .iter()
            .enumerate()
            .flat_map(|(l, list)| list.iter().enumerate().map(move |(i, r)| (l, i, r)))
            .collect();
        let mut cursor = 0;
        let brackets = if turn.contains('(') {
            bracket_ranges(turn)
        } else {
            Vec::new()
        };
        let mut bracketed = Vec::new();
        let mut bracket = 0;
        scan(turn, Some(&mut amounts), |token, at, ascii| {
            while brackets.get(bracket).is_some_and(|r| r.end <= at) {
                bracket += 1;
            }
            if brackets.get(bracket).is_some_and(|r| r.contains(&at)) {
                bracketed.push(tokens.len());
            }
            while flat.get(cursor).is_some_and(|(_, _, r)| r.end <= at) {
                cursor += 1;
            }
            if let Some(&(l, i, r)) = flat.get(cursor)
                && r.contains(&at)
                && let Some(item) = item_tokens.get_mut(l).and_then(|list| list.get_mut(i))
            {
                if item.start == item.end {
                    *item = tokens.len()..tokens.len();
                }
                item.end = tokens.len() + 1;
            }
            let start = if ascii {
                // An ASCII token stands where it stood, lowered.
                at
            } else {
                // Lowered as a token is ([`value_tokens`]): a capital sigma
                // lowers by its place in the token, not in the turn.
                let start = tokens.text.len();
                tokens.text.push_str(&token.to_lowercase_smolstr());
                start
            };
            let end = if ascii {
                at + token.len()
            } else {
                tokens.text.len()
            };
            if token.eq_ignore_ascii_case("or") {
                ors.push(tokens.len());
            } else if token.eq_ignore_ascii_case("and") {
                ands.push(tokens.len());
            }
            tokens.push(start, end);
        });
        let has_ands = !ands.is_empty();
        let picking = (has_ands || !item_tokens.is_empty()) && picking_in(&tokens) != Picking::No;
        let option_lists = if picking {
            item_tokens
                .into_iter()
                .filter(|list| list.iter().all(|item| item.start < item.end))
                .collect()
        } else {
            Vec::new()
        };
        let choice_marks = if picking && has_ands {
            let mut marks = ors;
            marks.extend(ands);
            marks.sort_unstable();
            marks
        } else {
            ors
        };
        ReadTurn {
            tokens,
            amounts,
            choice_marks,
            option_lists,
            bracketed,
        }
    }

    /// Whether the turn names a value written the way `alias` is but
    /// another: a token of the same length with a digit where `alias` has
    /// one and a letter where it has one ("1156" beside "5519"), or, for an
    /// alias of letters and digits mixed, a token mixing both within two
    /// characters of its length ("FVFD71Q3P0" beside "C02XK1LMHV2"). People
    /// name records by such fields; a turn naming another such value is
    /// about another record of the kind.
    #[must_use]
    pub fn names_alias_rival(&self, alias: &str) -> bool {
        let alias = alias.to_lowercase();
        fn digits(token: &str) -> impl Iterator<Item = bool> + '_ {
            token.chars().map(|c| c.is_ascii_digit())
        }
        let alphanumeric = |token: &str| token.chars().all(char::is_alphanumeric);
        let mixed = |token: &str| {
            token.chars().any(|c| c.is_ascii_digit()) && token.chars().any(char::is_alphabetic)
        };
        if !alphanumeric(&alias) || !alias.chars().any(|c| c.is_ascii_digit()) {
            return false;
        }
        let alias_mixed = mixed(&alias);
        self.tokens.iter().any(|token| {
            token != alias
                && alphanumeric(token)
                && ((token.len() == alias.len() && digits(token).eq(digits(&alias)))
                    || (alias_mixed && mixed(token) && token.len().abs_diff(alias.len()) <= 2))
        })
    }

    /// Whether the turn names `value`, with [`names_value`]'s rule.
    #[must_use]
    pub fn names(&self, value: &str) -> bool {
        self.names_read(&ReadValue::new(value))
    }

    /// Like [`ReadTurn::names`], for a value read once.
    #[must_use]
    pub fn names_read(&self, value: &ReadValue) -> bool {
        if value.tokens.is_empty() {
            return false;
        }
        if let Some(amount) = &value.amount {
            return self.amounts.contains(amount);
        }
        if let Some(date) = value.date {
            return mentions_date(&self.tokens, date);
        }
        // The first token decides most places: the rest is compared only
        // there.
        self.tokens
            .positions(&value.tokens, value.spans_phrases)
            .next()
            .is_some()
    }
}

impl ReadTurn {
    /// How many tokens the turn has.
    #[must_use]
    pub fn token_count(&self) -> usize {
        self.tokens.len()
    }

    /// The token at `at`, lowered.
    #[must_use]
    pub fn token(&self, at: usize) -> Option<&str> {
        self.tokens.get(at)
    }

    /// Where a choice may be offered, in order: every *or*, and every
    /// *and* of a turn asking the user to pick one of several things
    /// ("which one", "either of them").
    #[must_use]
    pub fn choice_marks(&self) -> &[usize] {
        &self.choice_marks
    }

    /// The lists a turn asking the user to pick one of several lays out
    /// line by line: each item's tokens, list by list.
    #[must_use]
    pub fn option_lists(&self) -> &[Vec<Range<usize>>] {
        &self.option_lists
    }

    /// Whether the token at `at` stands inside brackets: a description of
    /// what stands before them.
    #[must_use]
    pub fn is_bracketed(&self, at: usize) -> bool {
        self.bracketed.binary_search(&at).is_ok()
    }

    /// Whether the token at `at` is an answer the turn tells the user to
    /// give: a *yes* or *no* shortly after a verb of answering ("Reply YES
    /// and I'll book it", "type yes to confirm or no to keep it"), not a
    /// value of the action.
    #[must_use]
    pub fn is_asked_answer(&self, at: usize) -> bool {
        matches!(self.token(at), Some("yes" | "no"))
            && (at.saturating_sub(ASKED_ANSWER_REACH)..at).any(|before| {
                self.token(before)
                    .is_some_and(|t| ASKED_ANSWER_VERBS.contains(&t))
            })
    }

    /// Whether the token at `at` is a word replies answer with (*yes*,
    /// *no*): it names a field's value only where
    /// [`Self::answers_for_field`] says so.
    #[must_use]
    pub fn is_answer_word(&self, at: usize) -> bool {
        self.token(at).is_some_and(is_answer_word)
    }

    /// Whether the answer word at `at` states the value of a field named
    /// by one of `names` (lowered words): the name stands before it in the
    /// same phrase, as a label ("Insurance: no", "travel insurance - yes"),
    /// or, for a *no*, after it as what it denies ("no travel insurance").
    /// Elsewhere it answers ("Yes, I can book that"), denies something
    /// else ("no bags, travel insurance included") or is the reply asked
    /// for ([`Self::is_asked_answer`]).
    #[must_use]
    pub fn answers_for_field(&self, at: usize, names: &[String]) -> bool {
        if names.is_empty() || self.is_asked_answer(at) {
            return false;
        }
        let named = |i: usize| self.token(i).is_some_and(|t| names.iter().any(|n| n == t));
        // A label stands before the answer, across spaces and label marks
        // (`:`, `-`, `*`), never across a phrase's end.
        for before in (at.saturating_sub(ANSWER_LABEL_REACH)..at).rev() {
            if !self.one_phrase(before, |gap| !gap.bytes().any(breaks_phrase)) {
                break;
            }
            if named(before) {
                return true;
            }
        }
        if self.token(at) != Some("no") {
            return false;
        }
        // What a *no* denies follows it, words apart by spaces alone.
        for after in at + 1..=at + ANSWER_LABEL_REACH {
            if !self.one_phrase(after - 1, |gap| gap.bytes().all(|b| b == b' ')) {
                break;
            }
            if named(after) {
                return true;
            }
        }
        false
    }

    /// Whether tokens `at` and `at + 1` both stand in the turn's own text
    /// with a gap between them that `joins` accepts. A token holding a
    /// character beyond ASCII is spelt after the turn's text, so no gap of
    /// the turn lies between it and another.
    fn one_phrase(&self, at: usize, joins: impl Fn(&str) -> bool) -> bool {
        let spans = &self.tokens.spans;
        let (Some(&(_, end)), Some(&(start, _))) = (spans.get(at), spans.get(at + 1)) else {
            return false;
        };
        start > end
            && start <= self.tokens.turn_len
            && self.tokens.text.get(end..start).is_some_and(joins)
    }

    /// Whether a choice may be offered at token `at` ([`Self::choice_marks`]).
    #[must_use]
    pub fn marks_choice(&self, at: usize) -> bool {
        self.choice_marks.binary_search(&at).is_ok()
    }

    /// Whether the turn holds `token` (lowered) as a token of its own.
    #[must_use]
    pub fn has_token(&self, token: &str) -> bool {
        self.tokens.iter().any(|t| t == token)
    }

    /// Whether the turn names the amount `amount` (canonical, as
    /// `amount_of` gives it).
    #[must_use]
    pub fn has_amount(&self, amount: &str) -> bool {
        self.amounts.iter().any(|a| a == amount)
    }

    /// Where the turn names `value`, as token spans `(first, count)`: a
    /// value of words at each place its words stand, an amount at each
    /// token that is that amount on its own (`90`, `$249.99`); none for a
    /// date, which is named in too many forms to place.
    #[must_use]
    pub fn spans(&self, value: &ReadValue) -> Vec<(usize, usize)> {
        self.spans_in(value, 0..self.tokens.len())
    }

    /// Where the turn writes `value`, as token spans `(first, count)`:
    /// [`ReadTurn::spans`], and a date at the token where each of its
    /// forms starts.
    #[must_use]
    pub fn places(&self, value: &ReadValue) -> Vec<(usize, usize)> {
        match value.date {
            Some(date) if !value.tokens.is_empty() => {
                date_places(&self.tokens, date).map(|at| (at, 1)).collect()
            }
            _ => self.spans(value),
        }
    }

    /// Every amount the turn writes, canonical, with the token it starts
    /// at: read once for the turn, so each amount value's
    /// [`ReadTurn::places`] is a lookup ([`ReadTurn::places_among`]).
    #[must_use]
    pub fn amount_places(&self) -> Vec<(ValueToken, usize)> {
        let mut out = Vec::new();
        for at in 0..self.tokens.len() {
            let Some(first) = self.tokens.get(at) else {
                continue;
            };
            if !first.as_bytes().first().is_some_and(u8::is_ascii_digit) {
                continue;
            }
            let mut written = String::new();
            for count in 1..=MAX_AMOUNT_GROUPS {
                let Some(token) = self.tokens.get(at + count - 1) else {
                    break;
                };
                if count > 1 {
                    written.push(',');
                }
                written.push_str(token);
                if let Some(amount) = amount_of(&written)
                    && !out.contains(&(amount.clone(), at))
                {
                    out.push((amount, at));
                }
            }
        }
        out
    }

    /// [`ReadTurn::places`], an amount's looked up among the turn's
    /// `amounts` ([`ReadTurn::amount_places`]).
    #[must_use]
    pub fn places_among(
        &self,
        value: &ReadValue,
        amounts: &[(ValueToken, usize)],
    ) -> Vec<(usize, usize)> {
        match &value.amount {
            Some(amount) => amounts
                .iter()
                .filter(|(a, _)| a == amount)
                .map(|&(_, at)| (at, 1))
                .collect(),
            None => self.places(value),
        }
    }

    /// [`ReadTurn::places`] of a value of one token's key
    /// ([`Lookup::Token`]) among the tokens `starts`, where its first
    /// token stands ([`ReadTurn::lookup_keys`]).
    #[must_use]
    pub fn places_at(
        &self,
        value: &ReadValue,
        starts: impl IntoIterator<Item = usize>,
    ) -> Vec<(usize, usize)> {
        starts
            .into_iter()
            .filter(|&at| self.tokens.opens_at(at, &value.tokens, value.spans_phrases))
            .map(|at| (at, value.tokens.len()))
            .collect()
    }

    /// [`ReadTurn::spans`] starting among the tokens `within`.
    #[must_use]
    pub fn spans_in(&self, value: &ReadValue, within: Range<usize>) -> Vec<(usize, usize)> {
        if let Some(amount) = &value.amount {
            // Thousands separators split an amount into tokens ("5", "000").
            // A token can open the amount only if the amount's digits
            // open with the token's whole digits ("5" of "5,000").
            let opens = |at: usize| {
                self.tokens.get(at).is_some_and(|t| {
                    // Most tokens are words: only one opening with a digit
                    // can open an amount.
                    if !t.as_bytes().first().is_some_and(u8::is_ascii_digit) {
                        return false;
                    }
                    let whole = t.split('.').next().unwrap_or(t).trim_start_matches('0');
                    !whole.is_empty()
                        && whole.bytes().all(|b| b.is_ascii_digit())
                        && amount.starts_with(whole)
                })
            };
            return within
                .filter(|&at| opens(at))
                .filter_map(|at| {
                    let mut written = String::new();
                    (1..=MAX_AMOUNT_GROUPS).find_map(|count| {
                        let token = self.tokens.get(at + count - 1)?;
                        if count > 1 {
                            written.push(',');
                        }
                        written.push_str(token);
                        (amount_of(&written).as_ref() == Some(amount)).then_some((at, count))
                    })
                })
                .collect();
        }
        if value.date.is_some() {
            return Vec::new();
        }
        let first = value.tokens.first().map_or(u32::MAX, |w| head(w));
        let end = within.end.min(self.tokens.len());
        (within.start..end)
            .filter(|&at| {
                self.tokens.heads.get(at) == Some(&first)
                    && self.tokens.opens_at(at, &value.tokens, value.spans_phrases)
            })
            .map(|at| (at, value.tokens.len()))
            .collect()
    }
}

/// Whether the text between two tokens holds a dash setting a phrase off
/// (an em or en dash, or a hyphen with a space on each side), not one
/// joining two words.
fn is_dash(gap: &str) -> bool {
    gap.contains(['\u{2014}', '\u{2013}']) || gap.contains(" - ") || gap.contains(" -- ")
}

/// Whether a byte between two tokens ends their sentence.
fn ends_sentence(b: u8) -> bool {
    matches!(b, b'.' | b'?' | b'!' | b';' | b':' | b'\n')
}

/// How many tokens an amount written with thousands separators may span
/// ("1,250,000.50").
const MAX_AMOUNT_GROUPS: usize = 4;

/// The canonical amount a token is on its own (`90`, `249.99`, `1,200`),
/// if it is one.
#[must_use]
pub fn amount_of(token: &str) -> Option<SmolStr> {
    parse_amount(token)
}

impl ReadValue {
    /// The value's tokens, lowered (an amount's or a date's too).
    pub fn tokens(&self) -> impl Iterator<Item = &str> {
        self.tokens.iter().map(ValueToken::as_str)
    }

    /// Whether the value is an amount (named by value, not by words).
    #[must_use]
    pub fn is_amount(&self) -> bool {
        self.amount.is_some()
    }
}

impl ReadTurn {
    /// Where the value's tokens stand in a row in the turn, as token spans
    /// `(first, count)`, whatever the value is: a card's last four digits
    /// where the turn writes "4242", not where it writes the amount
    /// "4,242".
    #[must_use]
    pub fn token_spans(&self, value: &ReadValue) -> Vec<(usize, usize)> {
        if value.tokens.is_empty() {
            return Vec::new();
        }
        self.tokens
            .positions(&value.tokens, value.spans_phrases)
            .map(|at| (at, value.tokens.len()))
            .collect()
    }

    /// Where each of `values` starts among the turn's tokens, by its tokens
    /// as [`ReadTurn::token_spans`] finds them, in one pass over the turn.
    #[must_use]
    pub fn token_starts_of(&self, values: &[&ReadValue]) -> Vec<Vec<usize>> {
        let mut by_head: hashbrown::HashMap<u32, Vec<usize>> = hashbrown::HashMap::new();
        for (i, value) in values.iter().enumerate() {
            if let Some(first) = value.tokens.first() {
                by_head.entry(head(first)).or_default().push(i);
            }
        }
        let mut found = vec![Vec::new(); values.len()];
        if by_head.is_empty() {
            return found;
        }
        for (at, h) in self.tokens.heads.iter().enumerate() {
            let Some(candidates) = by_head.get(h) else {
                continue;
            };
            for &i in candidates {
                if let (Some(value), Some(starts)) = (values.get(i), found.get_mut(i))
                    && self.tokens.opens_at(at, &value.tokens, value.spans_phrases)
                {
                    starts.push(at);
                }
            }
        }
        found
    }

    /// Where a value of words (not an amount or a date) starts in the
    /// turn, by token: every occurrence.
    #[must_use]
    pub fn word_positions(&self, value: &ReadValue) -> Vec<usize> {
        if value.tokens.is_empty() || value.amount.is_some() || value.date.is_some() {
            return Vec::new();
        }
        self.tokens
            .positions(&value.tokens, value.spans_phrases)
            .collect()
    }
}

impl ReadTurn {
    /// The line of the turn each token stands on (counted from 0), in
    /// token order. A token spelt after the turn's text (one holding a
    /// character beyond ASCII) stands on the line of the token before it.
    #[must_use]
    pub fn token_lines(&self) -> Vec<u32> {
        let text = self.tokens.text.as_bytes();
        let mut lines = Vec::with_capacity(self.tokens.len());
        let (mut line, mut scanned) = (0u32, 0usize);
        for &(start, _) in &self.tokens.spans {
            if start < self.tokens.turn_len {
                let upto = start.max(scanned);
                let breaks = text
                    .get(scanned..upto)
                    .map_or(0, |gap| gap.iter().filter(|&&b| b == b'\n').count());
                line = line.saturating_add(u32::try_from(breaks).unwrap_or(u32::MAX));
                scanned = upto;
            }
            lines.push(line);
        }
        lines
    }

    /// The segment and the clause of the turn each token stands in, when
    /// the turn has more than one of either. A segment is a line, or a
    /// sentence of one (a full stop, a question or exclamation mark, or a
    /// semicolon followed by a space ends it); a clause is a segment, or a
    /// part of one that *and* or a comma opens. A summary laying out
    /// several items gives each its line, its sentence or its clause ("X
    /// with Y and Z with W", "$40 on the gift card, $130 on the Visa"), so
    /// what one names goes together. Segments and clauses
    /// past [`MAX_SEGMENTS`] share the last.
    #[must_use]
    pub fn token_segments(&self) -> Option<TokenSegments> {
        let text = self.tokens.text.as_bytes();
        let turn_len = self.tokens.turn_len;
        let mut out = TokenSegments {
            segments: Vec::with_capacity(self.tokens.len()),
            clauses: Vec::with_capacity(self.tokens.len()),
        };
        let (mut segment, mut clause, mut previous_end) = (0u8, 0u8, None::<usize>);
        let next = |n: u8| n.saturating_add(1).min(MAX_SEGMENTS - 1);
        for (at, &(start, end)) in self.tokens.spans.iter().enumerate() {
            if start < turn_len && previous_end.is_some() {
                if previous_end
                    .and_then(|from| text.get(from..start))
                    .is_some_and(ends_segment)
                {
                    segment = next(segment);
                    clause = next(clause);
                } else if self.tokens.get(at) == Some("and")
                    || previous_end
                        .and_then(|from| text.get(from..start))
                        .is_some_and(|gap| gap.contains(&b','))
                {
                    clause = next(clause);
                }
            }
            if start < turn_len {
                previous_end = Some(end);
            }
            out.segments.push(segment);
            out.clauses.push(clause);
        }
        if segment == 0 {
            out.segments.clear();
        }
        (clause > 0).then_some(out)
    }

    /// Whether token `at + 1` follows token `at` with only spaces between:
    /// one phrase ("sneakers order"), not the end of one sentence or line
    /// and the start of the next ("sneakers. Order").
    #[must_use]
    pub fn runs_on(&self, at: usize) -> bool {
        self.one_phrase(at, |gap| gap.bytes().all(|b| b == b' '))
    }

    /// The kind of record that the `len` tokens from `at` describe, if
    /// they stand as a description of a record rather than as a thing of
    /// their own: between a determiner and a record noun ("the air
    /// purifier from your sneakers order"), or after a record noun and a
    /// word for holding ("the order with the bananas", "the booking that
    /// has Ana Ruiz"). `noun` is the kind a token names as a record noun.
    #[must_use]
    pub fn described_record<K>(
        &self,
        at: usize,
        len: usize,
        noun: impl Fn(&str) -> Option<K>,
    ) -> Option<K> {
        let last = (at + len).checked_sub(1)?;
        let is = |i: usize, words: &[&str]| self.token(i).is_some_and(|t| words.contains(&t));
        let before = at.checked_sub(1);
        let determined = before.filter(|&d| is(d, NAME_DETERMINERS) && self.runs_on(d));
        if determined.is_some()
            && self.runs_on(last)
            && let Some(kind) = self.token(at + len).and_then(&noun)
        {
            return Some(kind);
        }
        // "the order with the bananas": a record noun the determiner of
        // the noun phrase before the value opens.
        let opening = determined.or(before.filter(|&w| self.runs_on(w)).map(|w| w + 1))?;
        let joint = opening.checked_sub(1).filter(|&j| self.runs_on(j))?;
        let head = match self.token(joint)? {
            "with" if determined.is_some() => joint.checked_sub(1),
            t if HOLDING_WORDS.contains(&t) && t != "with" => joint.checked_sub(1),
            t if HOLDING_VERBS.contains(&t) => joint
                .checked_sub(1)
                .filter(|&w| is(w, &["that", "which"]) && self.runs_on(w))
                .and_then(|w| w.checked_sub(1)),
            _ => None,
        }?;
        if !self.runs_on(head) {
            return None;
        }
        let kind = noun(self.token(head)?)?;
        // "the order with the bananas" is the order holding them; "an
        // order with bananas" may be an order of bananas alone.
        let determiner = head.checked_sub(1)?;
        (is(determiner, NAME_DETERMINERS) && self.runs_on(determiner)).then_some(kind)
    }

    /// What stands between token `at` and the next when both are spelt in
    /// the turn's text (a token holding a character beyond ASCII is spelt
    /// after it, so no gap of the turn lies beside it).
    fn gap_after(&self, at: usize) -> Option<&str> {
        let spans = &self.tokens.spans;
        let (&(_, end), &(start, _)) = (spans.get(at)?, spans.get(at + 1)?);
        (start >= end)
            .then(|| self.tokens.text.get(end..start))
            .flatten()
    }

    /// The asides of the turn: phrases set off after what a sentence says
    /// that say which thing stands before them, not what to do with it.
    /// An aside opens
    /// - after a dash, with a determiner, a relative pronoun or a word of
    ///   likeness ("Circe (LN-48233) — the book you checked out with your
    ///   Dune loan", "FE-11 — the smaller of the two, below your $60.00
    ///   cleaning fee FE-12 —"), not with a detail ("Figma - role editor");
    /// - after a comma, with a determiner ("CH-902, the charge posted the
    ///   same day as your minibar charge"), unless the sentence goes on to
    ///   join another part of a list ("…, the World Elite from 5000 to 8000,
    ///   and the Visa …"), or with a relative pronoun or a word of likeness
    ///   ("RF-8802, which was queued right after RF-8801", ", like Arjun
    ///   Raman on your Boulder booking");
    /// - inside brackets, with a determiner ("BK-40755 (the one right after
    ///   your Denver booking BK-40712)").
    ///
    /// Each is given as the tokens of its sentence before it (what it
    /// describes) and its own tokens, up to the end of its sentence or
    /// what closes it first: the next dash after a dash, the closing
    /// bracket, and the next dash or comma after a comma.
    #[must_use]
    pub fn asides(&self) -> Vec<(Range<usize>, Range<usize>)> {
        let mut found = Vec::new();
        let is = |at: usize, words: &[&str]| self.token(at).is_some_and(|t| words.contains(&t));
        for open in 1..self.tokens.len() {
            let Some(gap) = self.gap_after(open - 1) else {
                continue;
            };
            if gap == " " {
                continue;
            }
            let dash = is_dash(gap) && !gap.contains([',', '(']);
            let comma = gap.trim() == ",";
            let bracket = gap.trim_end().ends_with('(');
            if !(dash || comma || bracket) || gap.bytes().any(ends_sentence) {
                continue;
            }
            let determined = is(open, NAME_DETERMINERS);
            if !(determined || (!bracket && is(open, ASIDE_RELATIVES))) {
                continue;
            }
            let sentence_end = (open..self.tokens.len())
                .find(|&at| {
                    self.gap_after(at)
                        .is_none_or(|g| g.bytes().any(ends_sentence))
                })
                .map_or(self.tokens.len(), |at| at + 1);
            // "…, the World Elite from 5000 to 8000, and the Visa …": a
            // list going on, not an aside.
            let listed = comma
                && determined
                && (open + 1..sentence_end).any(|at| {
                    is(at, ASIDE_JOINS)
                        && (self.gap_after(at - 1).is_some_and(|g| g.contains(','))
                            || is(at + 1, NAME_DETERMINERS))
                });
            if listed {
                continue;
            }
            let first = (0..open - 1)
                .rev()
                .find(|&at| {
                    self.gap_after(at)
                        .is_none_or(|gap| gap.bytes().any(ends_sentence))
                })
                .map_or(0, |at| at + 1);
            let end = (open..sentence_end)
                .find(|&at| {
                    self.gap_after(at).is_none_or(|gap| {
                        if bracket {
                            gap.contains(')')
                        } else if dash {
                            is_dash(gap)
                        } else {
                            is_dash(gap) || gap.contains(',')
                        }
                    })
                })
                .map_or(sentence_end, |at| at + 1);
            found.push((first..open, open..end));
        }
        found
    }

    /// Whether a value of words (not an amount or a date) stands in the
    /// turn from token `at` on ([`ReadTurn::word_positions`] at one place).
    #[must_use]
    pub fn names_words_at(&self, at: usize, value: &ReadValue) -> bool {
        value.words() > 0 && self.tokens.opens_at(at, &value.tokens, value.spans_phrases)
    }
}

impl ReadValue {
    /// Where this value's words stand inside the longer value `longer`
    /// ("economy" in "basic economy": 1), if they do; never for amounts
    /// and dates, which are named by value, not by words.
    #[must_use]
    pub fn offset_in(&self, longer: &ReadValue) -> Option<usize> {
        let words_only = |v: &ReadValue| v.amount.is_none() && v.date.is_none();
        if self.tokens.is_empty()
            || longer.tokens.len() <= self.tokens.len()
            || !words_only(self)
            || !words_only(longer)
        {
            return None;
        }
        longer
            .tokens
            .windows(self.tokens.len())
            .position(|window| window == self.tokens.as_slice())
    }
}

impl ReadTurn {
    /// The turn's tokens and its amounts (a key may come more than once),
    /// each token with its position among the turn's tokens: a value can be
    /// named in the turn only if its [`ReadValue::lookup`] key is among
    /// them (or it is a date), and a value of words only where its first
    /// word stands ([`ReadTurn::names_words_at`]), so an index over these
    /// finds every candidate turn of a value, and the places to look in it,
    /// without asking every turn.
    pub fn lookup_keys(&self) -> impl Iterator<Item = (Lookup<'_>, Option<usize>)> {
        let tokens = self
            .tokens
            .iter()
            .enumerate()
            .map(|(at, token)| (Lookup::Token(token), Some(at)));
        tokens.chain(self.amounts.iter().map(|a| (Lookup::Amount(a), None)))
    }
}

/// Where a value must show in a turn for [`ReadTurn::names_read`] to hold:
/// an index key (see [`ReadTurn::lookup_keys`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lookup<'a> {
    /// A token of the turn: a non-amount, non-date value's first token.
    Token(&'a str),
    /// An amount of the turn, canonical: an amount value's.
    Amount(&'a str),
    /// A date value: any turn may spell it, so it has no key.
    Date,
    /// A value with no token: never named.
    Never,
}

/// A value read once for many [`ReadTurn::names_read`] questions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadValue {
    tokens: Vec<ValueToken>,
    amount: Option<Amount>,
    date: Option<Date>,
    /// Whether the value's words are written across a phrase's end (a
    /// comma, a full stop, a line break: "Suite 978, Houston"): a turn may
    /// then name them so too. Else its words stand in one phrase of the
    /// turn: "catering, no parking" does not name "catering: no".
    spans_phrases: bool,
}

impl ReadValue {
    /// Reads `value`.
    #[must_use]
    pub fn new(value: &str) -> Self {
        let value = value.trim();
        let tokens = value_tokens(value);
        // Only a value of several words can span phrases.
        let spans_phrases = tokens.len() >= 2 && value.bytes().any(breaks_phrase);
        ReadValue {
            tokens,
            amount: parse_amount(value),
            date: parse_iso_date(value),
            spans_phrases,
        }
    }

    /// How many tokens the value has (none: it is never named).
    #[must_use]
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// The key a turn must hold for [`ReadTurn::names_read`] to be true of
    /// this value (same order of tests as that rule).
    #[must_use]
    pub fn lookup(&self) -> Lookup<'_> {
        let Some(first) = self.tokens.first() else {
            return Lookup::Never;
        };
        if let Some(amount) = &self.amount {
            Lookup::Amount(amount)
        } else if self.date.is_some() {
            Lookup::Date
        } else {
            Lookup::Token(first)
        }
    }

    /// The value's first word, when it is read as words (not an amount or a
    /// date).
    #[must_use]
    pub fn first_word(&self) -> Option<&str> {
        (self.words() > 0)
            .then(|| self.tokens.first().map(ValueToken::as_str))
            .flatten()
    }

    /// The value's words, when it is read as words (none for an amount
    /// or a date).
    pub fn word_list(&self) -> impl Iterator<Item = &str> {
        let words = if self.words() > 0 {
            self.tokens.as_slice()
        } else {
            &[]
        };
        words.iter().map(ValueToken::as_str)
    }

    /// How many words the value is read as: none for an amount or a date,
    /// which are named by value ([`ReadValue::offset_in`]).
    #[must_use]
    pub fn words(&self) -> usize {
        if self.amount.is_some() || self.date.is_some() {
            0
        } else {
            self.tokens.len()
        }
    }

    /// Whether the value has no token (it is never named).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
}

/// Characters that may be part of an identifier token (beside letters and
/// digits): `gift_card_8190333`, `a.b@c.com`, `2024-05-22`, `05/22/2024`.
#[cfg(test)]
fn joins_token(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '@' | '/' | '+' | '\'')
}

/// The amounts a text names, canonical ([`amount_of`]), as a turn read
/// with [`ReadTurn::new`] holds them.
pub(crate) fn amounts_named(text: &str) -> Vec<SmolStr> {
    let mut amounts = Vec::new();
    scan(text, Some(&mut amounts), |_, _, _| {});
    amounts
}

/// Lower-case tokens of a turn or value: split at whitespace and markup
/// (`#`, quotes, back-ticks, `*`, brackets, commas, …), then stripped of the
/// punctuation that ends a sentence or wraps a word ([`scan`]).
pub(crate) fn value_tokens(text: &str) -> Vec<ValueToken> {
    let mut tokens = Vec::with_capacity(text.len() / 6 + 1);
    scan(text, None, |token, _, ascii| {
        tokens.push(if ascii {
            token.to_ascii_lowercase_smolstr()
        } else {
            token.to_lowercase_smolstr()
        });
    });
    tokens
}

/// Which bytes end a phrase ([`PHRASE_BREAKS`]), by byte.
// Built at compile time: an index out of bounds fails the build, it cannot
// panic at run time.
#[allow(clippy::indexing_slicing)]
const PHRASE_BREAK_BYTES: [bool; 256] = {
    let mut breaks = [false; 256];
    let mut at = 0;
    while at < PHRASE_BREAKS.len() {
        breaks[PHRASE_BREAKS[at] as usize] = true;
        at += 1;
    }
    breaks
};

/// Where each token of a turn stands ([`ReadTurn::token_segments`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenSegments {
    /// Each token's line or sentence, in token order (none in a turn of
    /// one segment).
    pub segments: Vec<u8>,
    /// Each token's clause, in token order.
    pub clauses: Vec<u8>,
}

/// The most segments [`ReadTurn::token_segments`] tells apart: a mention's
/// segments are bits of one word, the last kept for a value spelt where no
/// segment is known.
pub const MAX_SEGMENTS: u8 = 31;

/// Whether the bytes between two tokens end a segment
/// ([`ReadTurn::token_segments`]): a line break, or a sentence's end
/// followed by a space.
fn ends_segment(gap: &[u8]) -> bool {
    gap.contains(&b'\n')
        || gap
            .windows(2)
            .any(|pair| matches!(pair, [b'.' | b'?' | b'!' | b';', b' ' | b'\t' | b'\r']))
}

/// Whether the byte `b` ends a phrase: a comma, a full stop, a bracket, a
/// line's end ([`PHRASE_BREAKS`]).
fn breaks_phrase(b: u8) -> bool {
    PHRASE_BREAK_BYTES
        .get(usize::from(b))
        .copied()
        .unwrap_or(false)
}

/// What an ASCII byte is to [`scan`], as bits: it joins a value token
/// (`joins_token`); it bars an amount from starting right after it; it
/// is a digit.
const JOINS: u8 = 1;
const BARS_AMOUNT: u8 = 2;
const DIGIT: u8 = 4;

/// [`JOINS`], [`BARS_AMOUNT`] and [`DIGIT`] of each ASCII byte (none of a
/// byte of a longer character: those are decoded).
// Built at compile time: an index out of bounds fails the build, it cannot
// panic at run time.
#[allow(clippy::indexing_slicing)]
const ASCII_CLASSES: [u8; 256] = {
    let mut classes = [0u8; 256];
    let mut b = 0u8;
    while b < 128 {
        let alphanumeric = b.is_ascii_alphanumeric();
        let mut class = 0;
        if alphanumeric || matches!(b, b'_' | b'-' | b'.' | b'@' | b'/' | b'+' | b'\'') {
            class |= JOINS;
        }
        if alphanumeric || matches!(b, b'_' | b'-' | b'/' | b'.') {
            class |= BARS_AMOUNT;
        }
        if b.is_ascii_digit() {
            class |= DIGIT;
        }
        classes[b as usize] = class;
        b += 1;
    }
    classes
};

/// Hands each of the [`value_tokens`] of `text` to `token`, as it stands
/// in `text` (not lowered), with where it starts and whether it is all
/// ASCII; and, when `amounts` is given, pushes its amounts there (every standalone number, canonicalised like
/// [`parse_amount`]: a number glued to a letter, `W9300146`, `3rd`, or
/// inside an identifier, `card_123`, `2024-05-22`, is not an amount), in
/// one pass over its bytes.
///
/// An ASCII byte is its character, classed by a table; a longer character
/// is decoded only to ask whether it is alphanumeric (the only other
/// characters that join a token, bar an amount or glue to one are ASCII).
/// Most turns hold a typographic quote or dash, so the non-ASCII case is
/// the common one, not an exception. [`value_tokens_general`] and
/// [`amounts_in`], over characters, are the rules it is tested equal to.
fn scan(
    text: &str,
    mut amounts: Option<&mut Vec<Amount>>,
    mut token: impl FnMut(&str, usize, bool),
) {
    let bytes = text.as_bytes();
    // The token being read starts at `start`; `ascii` while all of it is.
    let (mut start, mut at, mut ascii) = (0, 0, true);
    // Whether the character before `at` bars an amount from starting
    // there (nothing before the text does).
    let mut barred = false;
    // Where the last amount read ends: no amount starts inside one.
    let mut amount_end = 0;
    while let Some(&b) = bytes.get(at) {
        let (width, joins, bars) = if b.is_ascii() {
            let class = ASCII_CLASSES.get(usize::from(b)).copied().unwrap_or(0);
            if class & DIGIT != 0
                && !barred
                && at >= amount_end
                && let Some(out) = amounts.as_deref_mut()
            {
                amount_end = read_amount(text, at, out);
            }
            (1, class & JOINS != 0, class & BARS_AMOUNT != 0)
        } else {
            let c = text.get(at..).and_then(|rest| rest.chars().next());
            let alphanumeric = c.is_some_and(char::is_alphanumeric);
            (c.map_or(1, char::len_utf8), alphanumeric, alphanumeric)
        };
        if joins {
            ascii &= width == 1;
        } else {
            trim_value_token(text, start, at, ascii, &mut token);
            start = at + width;
            ascii = true;
        }
        barred = bars;
        at += width;
    }
    trim_value_token(text, start, at, ascii, &mut token);
}

/// Reads the number starting at `start` (an ASCII digit no character
/// barring an amount precedes): digits, with `,` or `.` only when a digit
/// follows. Pushes it to `out` as an amount unless a letter, digit, `_`,
/// `-` or `/` is glued to its end; a `/` before a letter is a rate's
/// ("$5.00/GB", "$45/day"), not a glue. Returns where it ends.
fn read_amount(text: &str, start: usize, out: &mut Vec<Amount>) -> usize {
    let bytes = text.as_bytes();
    let digit_at = |at: usize| bytes.get(at).is_some_and(u8::is_ascii_digit);
    let mut end = start;
    while let Some(&d) = bytes.get(end) {
        if d.is_ascii_digit() || (matches!(d, b',' | b'.') && digit_at(end + 1)) {
            end += 1;
        } else {
            break;
        }
    }
    let mut rest = text.get(end..).unwrap_or_default().chars();
    let glued = rest.next().is_some_and(|n| {
        n.is_alphanumeric()
            || matches!(n, '_' | '-')
            || (n == '/' && !rest.next().is_some_and(char::is_alphabetic))
    });
    // The number is digits, `,` and `.` only: its amount body is itself.
    if !glued && let Some(amount) = text.get(start..end).and_then(canonical_amount) {
        out.push(amount);
    }
    end.max(start + 1)
}

/// Hands the token of `text[start..end]` (a run of joining characters;
/// `ascii` when all are ASCII) to `token`, stripped of the punctuation at
/// either end (always ASCII: a longer character joins only if
/// alphanumeric, so a byte of one counts as alphanumeric here) and of a
/// final `'s`; an empty token is dropped.
fn trim_value_token(
    text: &str,
    start: usize,
    end: usize,
    ascii: bool,
    token: &mut impl FnMut(&str, usize, bool),
) {
    let Some(raw) = text.as_bytes().get(start..end) else {
        return;
    };
    let alphanumeric = |b: &u8| !b.is_ascii() || b.is_ascii_alphanumeric();
    // Most tokens open and close with a letter or digit: nothing to strip.
    let (first, last) = match raw {
        [open, .., close] if alphanumeric(open) && alphanumeric(close) => (0, raw.len() - 1),
        _ => {
            let Some(first) = raw.iter().position(alphanumeric) else {
                return;
            };
            (first, raw.iter().rposition(alphanumeric).unwrap_or(first))
        }
    };
    // `last` is the last byte of a character: the token ends after it.
    let Some(trimmed) = text.get(start + first..=start + last) else {
        return;
    };
    let trimmed = trimmed.strip_suffix("'s").unwrap_or(trimmed);
    if trimmed.is_empty() {
        return;
    }
    let at = start + first;
    if ascii && is_joined_words(trimmed) {
        let mut offset = 0;
        for word in trimmed.split(['_', '-']) {
            if !word.is_empty() {
                token(word, at + offset, true);
            }
            offset += word.len() + 1;
        }
    } else {
        token(trimmed, at, ascii);
    }
}

/// Whether a token is words joined by `_` or `-` and nothing else
/// (`basic_economy`, `next-day`): an API's snake_case literal or a
/// hyphenated compound, read as its words, so `basic_economy` is named by
/// "basic economy", "Basic-Economy" or itself alike. A token holding a
/// digit is an identifier (`gift_card_8190333`, `LT-4471`) and stays
/// whole.
fn is_joined_words(token: &str) -> bool {
    token.bytes().any(|b| matches!(b, b'_' | b'-'))
        && token
            .bytes()
            .all(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'-'))
}

/// [`value_tokens`] as a split of the text by characters: the rule the
/// byte reading is tested against.
#[cfg(test)]
fn value_tokens_general(text: &str) -> Vec<ValueToken> {
    text.split(|c: char| !joins_token(c))
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric()))
        .map(|t| t.strip_suffix("'s").unwrap_or(t))
        .flat_map(|t| {
            if t.is_ascii() && is_joined_words(t) {
                t.split(['_', '-']).collect()
            } else {
                vec![t]
            }
        })
        .filter(|t| !t.is_empty())
        .map(|t| {
            if t.is_ascii() {
                t.to_ascii_lowercase_smolstr()
            } else {
                t.to_lowercase_smolstr()
            }
        })
        .collect()
}

/// An amount as a canonical decimal string: no sign, separators or trailing
/// zeros (`$1,234.50` -> `1234.5`, `20.00` -> `20`).
fn parse_amount(text: &str) -> Option<Amount> {
    let body = amount_body(text);
    // An amount's body is digits, `,` and `.`: anything else (most
    // values asked about: names, ids) is refused before any allocation.
    if !body
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b',' | b'.'))
    {
        return None;
    }
    canonical_amount(body)
}

/// `text` without a currency sign or a ` USD` suffix.
fn amount_body(text: &str) -> &str {
    let body = text
        .strip_prefix('$')
        .or_else(|| text.strip_prefix('€'))
        .or_else(|| text.strip_prefix('£'))
        .unwrap_or(text);
    body.strip_suffix(" USD")
        .or_else(|| body.strip_suffix(" usd"))
        .unwrap_or(body)
}

/// The canonical decimal of an amount's body ([`amount_body`]), if it is
/// one.
fn canonical_amount(body: &str) -> Option<Amount> {
    let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
    // Most numbers have no thousands separator: their digits are read in
    // place, not regrouped into a new string.
    let whole: Cow<'_, str> = if whole.contains(',') {
        let groups: Vec<&str> = whole.split(',').collect();
        let grouped_ok = groups.first().is_some_and(|g| (1..=3).contains(&g.len()))
            && groups.iter().skip(1).all(|g| g.len() == 3);
        if !grouped_ok {
            return None;
        }
        Cow::Owned(groups.concat())
    } else {
        Cow::Borrowed(whole)
    };
    if whole.is_empty()
        || !whole.chars().all(|c| c.is_ascii_digit())
        || !fraction.chars().all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let whole = whole.trim_start_matches('0');
    let whole = if whole.is_empty() { "0" } else { whole };
    let fraction = fraction.trim_end_matches('0');
    Some(if fraction.is_empty() {
        SmolStr::new(whole)
    } else {
        smol_str::format_smolstr!("{whole}.{fraction}")
    })
}

/// The amounts [`scan`] reads in a text, as a slice of its characters:
/// the rule the byte reading is tested against.
#[cfg(test)]
fn amounts_in<C: Copy + Into<char>>(text: &[C]) -> Vec<Amount> {
    let char_at = |i: usize| text.get(i).map(|&c| c.into());
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(c) = char_at(i) {
        let starts = c.is_ascii_digit()
            && i.checked_sub(1)
                .and_then(char_at)
                .is_none_or(|p| !(p.is_alphanumeric() || matches!(p, '_' | '-' | '/' | '.')));
        if !starts {
            i += 1;
            continue;
        }
        // Digits, with `,` or `.` only when a digit follows.
        let mut end = i;
        while let Some(d) = char_at(end) {
            let joins =
                matches!(d, ',' | '.') && char_at(end + 1).is_some_and(|n| n.is_ascii_digit());
            if d.is_ascii_digit() || joins {
                end += 1;
            } else {
                break;
            }
        }
        let glued = char_at(end).is_some_and(|n| {
            n.is_alphanumeric()
                || matches!(n, '_' | '-')
                || (n == '/' && !char_at(end + 1).is_some_and(char::is_alphabetic))
        });
        if !glued {
            let number: String = (i..end).filter_map(char_at).collect();
            if let Some(amount) = parse_amount(&number) {
                out.push(amount);
            }
        }
        i = end.max(i + 1);
    }
    out
}

/// A date (year, month, day).
type Date = (u32, u32, u32);

/// `YYYY-MM-DD`.
fn parse_iso_date(text: &str) -> Option<Date> {
    let mut parts = text.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let date = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    ((1..=12).contains(&date.1) && (1..=31).contains(&date.2)).then_some(date)
}

const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The month number of a month name or its three-letter abbreviation.
fn month_number(word: &str) -> Option<u32> {
    let index = MONTHS
        .iter()
        .position(|m| *m == word || (word.len() == 3 && m.starts_with(word)))?;
    u32::try_from(index + 1).ok()
}

/// A day of the month, with or without an ordinal suffix (`22`, `22nd`).
fn day_number(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = word.get(digits.len()..).unwrap_or_default();
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

/// Whether a text of these [`value_tokens`] mentions `date`: ISO,
/// `MM/DD/YYYY`, or a month name with the day (and, if written, the year) in
/// either order.
fn mentions_date(tokens: &TokenText, date: Date) -> bool {
    date_places(tokens, date).next().is_some()
}

/// The tokens where a date is written: in ISO form, as month/day/year,
/// or by its month's name beside its day (and a year, if one follows).
fn date_places(tokens: &TokenText, (year, month, day): Date) -> impl Iterator<Item = usize> + '_ {
    let year_ok = move |t: Option<&str>| {
        t.and_then(|t| t.parse::<u32>().ok())
            .is_none_or(|y| y < 1000 || y == year)
    };
    tokens.iter().enumerate().filter_map(move |(i, token)| {
        date_at(tokens, i, token, (year, month, day), year_ok).then_some(i)
    })
}

/// Whether the date is written at token `i` ([`date_places`]).
fn date_at(
    tokens: &TokenText,
    i: usize,
    token: &str,
    (year, month, day): Date,
    year_ok: impl Fn(Option<&str>) -> bool,
) -> bool {
    if parse_iso_date(token) == Some((year, month, day)) {
        return true;
    }
    let mut slashed = token.split('/');
    if let (Some(m), Some(d), Some(y), None) = (
        slashed.next(),
        slashed.next(),
        slashed.next(),
        slashed.next(),
    ) && m.parse() == Ok(month)
        && d.parse() == Ok(day)
        && y.parse() == Ok(year)
    {
        return true;
    }
    if month_number(token) != Some(month) {
        return false;
    }
    let next = tokens.get(i + 1);
    let before = i.checked_sub(1).and_then(|p| tokens.get(p));
    (next.and_then(day_number) == Some(day) && year_ok(tokens.get(i + 2)))
        || (before.and_then(day_number) == Some(day) && year_ok(next))
}

#[cfg(test)]
pub(crate) mod tests {

    #[test]
    fn a_yes_or_no_after_a_verb_of_answering_is_the_answer_asked_for() {
        let at = |turn: &ReadTurn, token: &str| {
            (0..turn.token_count())
                .filter(|&i| turn.token(i) == Some(token))
                .collect::<Vec<_>>()
        };
        let asked = ReadTurn::new("Insurance: no. Reply YES to book it, or NO to keep looking.");
        let [first_no, second_no] = at(&asked, "no")[..] else {
            panic!(
                "two noes in {:?}",
                (0..asked.token_count())
                    .map(|i| asked.token(i))
                    .collect::<Vec<_>>()
            );
        };
        assert!(!asked.is_asked_answer(first_no));
        assert!(asked.is_asked_answer(second_no));
        assert!(at(&asked, "yes").iter().all(|&i| asked.is_asked_answer(i)));
        let stated = ReadTurn::new("Travel insurance: yes. Shall I book it?");
        assert!(
            at(&stated, "yes")
                .iter()
                .all(|&i| !stated.is_asked_answer(i))
        );
    }
    use super::*;

    /// A value of several words is named within one phrase of a turn:
    /// not across a comma, a full stop, a bracket or a line's end, unless
    /// the value is itself written across one.
    #[test]
    fn a_value_of_several_words_is_named_within_one_phrase() {
        let names =
            |turn: &str, value: &str| ReadTurn::new(turn).names_read(&ReadValue::new(value));
        assert!(names("Catering: no, parking: yes", "catering: no"));
        assert!(names("with no parking and no AV", "no parking"));
        assert!(names("Mia Li (1990-04-05)", "Mia Li"));
        assert!(!names("with catering, no parking", "catering: no"));
        assert!(!names("Catering: No\nParking: Yes", "no parking"));
        assert!(!names("Delivered to Mia. Li Wei paid.", "Mia Li"));
        assert!(!names("free (no) parking", "no parking"));
        assert!(names(
            "592 Elm Avenue, Suite 978, Houston",
            "Suite 978, Houston"
        ));
        assert!(names("Suite 978 Houston", "Suite 978, Houston"));
    }

    /// A *yes* or *no* states a field only beside its name: as the value
    /// of a label, or as what a *no* denies. Paraphrases of each side,
    /// none of them a phrase the rule names.
    #[test]
    fn a_yes_or_no_states_a_field_only_beside_its_name() {
        let names = ["insurance".to_owned(), "parking".to_owned()];
        let stated_at = |text: &str| -> Vec<bool> {
            let turn = ReadTurn::new(text);
            (0..turn.token_count())
                .filter(|&i| turn.is_answer_word(i))
                .map(|i| turn.answers_for_field(i, &names))
                .collect()
        };
        for text in [
            "Insurance: no",
            "Travel insurance - yes",
            "**Insurance:** Yes",
            "Parking = no",
            "no travel insurance",
            "No parking needed",
            "insurance coverage: yes",
        ] {
            assert_eq!(stated_at(text), [true], "{text}");
        }
        for text in [
            "Yes, I can book that for you.",
            "no bags, travel insurance included",
            "Shall I book it (yes/no)?",
            "Reply yes to confirm the parking.",
            "No problem! The insurance is on file.",
            "Is parking needed? No worries either way",
            "no extra guests",
        ] {
            assert!(stated_at(text).iter().all(|&stated| !stated), "{text}");
        }
        // With no field of answers, a yes or no states nothing.
        let turn = ReadTurn::new("Insurance: no");
        let at = (0..turn.token_count()).find(|&i| turn.is_answer_word(i));
        assert!(at.is_some_and(|i| !turn.answers_for_field(i, &[])));
    }

    /// The amounts [`ReadTurn::new`] reads in `text`.
    fn amounts(text: &str) -> Vec<Amount> {
        ReadTurn::new(text).amounts
    }

    #[test]
    fn values_are_placed_on_their_lines_in_one_pass() {
        let turn = ReadTurn::new(
            "For order #W4219264:\n- change the Wristwatch to item 2407258246\n\nFor order #W6729841 — the Air Purifier:\n- upgrade it",
        );
        let lines = turn.token_lines();
        assert_eq!(lines.len(), turn.token_count());
        let values = [
            ReadValue::new("#W4219264"),
            ReadValue::new("2407258246"),
            ReadValue::new("#W6729841"),
            ReadValue::new("Air Purifier"),
            ReadValue::new("speaker"),
        ];
        let refs: Vec<&ReadValue> = values.iter().collect();
        let placed: Vec<Vec<u32>> = turn
            .token_starts_of(&refs)
            .iter()
            .map(|starts| starts.iter().map(|&at| lines[at]).collect())
            .collect();
        // A blank line counts; a word beyond ASCII (the dash) stands on its
        // neighbours' line.
        assert_eq!(placed, vec![vec![0], vec![1], vec![3], vec![3], vec![]]);
        // The same starts `token_spans` finds one value at a time.
        for value in &values {
            let one: Vec<usize> = turn.token_spans(value).iter().map(|s| s.0).collect();
            assert_eq!(turn.token_starts_of(&[value]), vec![one]);
        }
    }

    #[test]
    fn a_value_is_found_inside_a_longer_one_and_in_a_turn_by_position() {
        let economy = ReadValue::new("economy");
        let basic = ReadValue::new("basic economy");
        assert_eq!(economy.offset_in(&basic), Some(1));
        assert_eq!(basic.offset_in(&economy), None);
        assert_eq!(economy.offset_in(&ReadValue::new("business")), None);
        // Amounts and dates are named by value, never as words of another.
        assert_eq!(
            ReadValue::new("12").offset_in(&ReadValue::new("12 bags")),
            None
        );
        let turn = ReadTurn::new("Basic economy, or economy? BASIC ECONOMY it is.");
        assert_eq!(turn.word_positions(&basic), [0, 4]);
        assert_eq!(turn.word_positions(&economy), [1, 3, 5]);
        assert!(turn.word_positions(&ReadValue::new("$12.50")).is_empty());
        // At one place, as at every place.
        for value in [&basic, &economy, &ReadValue::new("$12.50")] {
            let positions = turn.word_positions(value);
            for at in 0..9 {
                assert_eq!(turn.names_words_at(at, value), positions.contains(&at));
            }
        }
    }

    #[test]
    fn a_value_written_like_an_alias_but_another_is_its_rival() {
        let rival = |text: &str, alias: &str| ReadTurn::new(text).names_alias_rival(alias);
        assert!(rival("I'll freeze your card ending 1156.", "5519"));
        assert!(rival("Freeze the 1156 card instead?", "5519"));
        assert!(!rival("Freeze the card ending 5519?", "5519"));
        // Not the alias's shape: amounts, dates, words.
        assert!(!rival("Raise it to $16,000 on 2025-03-10?", "5519"));
        assert!(!rival("Freeze card ending 4821.", "Elm Street Locker"));
        assert!(rival(
            "I'll wipe the laptop with serial FVFD71Q3P0.",
            "C02XK1LMHV2"
        ));
        assert!(!rival(
            "I'll wipe the laptop with serial C02XK1LMHV2.",
            "C02XK1LMHV2"
        ));
        assert!(!rival("I'll wipe laptop LT-4410 now.", "C02XK1LMHV2"));
    }

    #[test]
    fn amounts_are_canonical() {
        assert_eq!(parse_amount("$1,234.50").as_deref(), Some("1234.5"));
        assert_eq!(parse_amount("1234.5").as_deref(), Some("1234.5"));
        assert_eq!(parse_amount("20.00").as_deref(), Some("20"));
        assert_eq!(parse_amount("12,34"), None);
        assert_eq!(parse_amount("1,234,567").as_deref(), Some("1234567"));
        assert_eq!(parse_amount(",123"), None);
        assert_eq!(parse_amount("1234,567"), None);
        assert_eq!(parse_amount("1,234,56"), None);
        assert_eq!(parse_amount("00.50").as_deref(), Some("0.5"));
        assert_eq!(parse_amount("1,234.5.6"), None);
        assert_eq!(parse_amount("W123"), None);
        assert_eq!(amounts("refund $1,234.50, then 3 items."), ["1234.5", "3"]);
        assert!(amounts("#W9300146 card_123 2024-05-22 3rd").is_empty());
        // A rate's unit after a slash leaves the amount; a date or a
        // fraction glues it.
        assert_eq!(
            amounts("$5.00/GB x 2 = $10.00, $45/day"),
            ["5", "2", "10", "45"]
        );
        assert!(amounts("05/22/2024 1/2 24/7 5/").is_empty());
        // Text that is not ASCII is read character by character, the same.
        assert_eq!(
            amounts("caf\u{e9} \u{2014} refund $1,234.50, then 3 items; \u{e9}9 12\u{e9}."),
            ["1234.5", "3"]
        );
    }

    #[test]
    fn dates_in_several_spellings() {
        let date = (2024, 5, 22);
        let mentions_date = |text: &str, date| mentions_date(&ReadTurn::new(text).tokens, date);
        assert!(mentions_date("on 2024-05-22.", date));
        assert!(mentions_date("on 05/22/2024", date));
        assert!(mentions_date("on May 22nd, 2024", date));
        assert!(mentions_date("the 22 May flight", date));
        assert!(!mentions_date("May 22, 2023", date));
        assert!(!mentions_date("May 23", date));
        assert_eq!(month_number("sep"), Some(9));
        assert_eq!(day_number("1st"), Some(1));
        assert_eq!(day_number("32"), None);
    }

    /// Texts that take every branch of the byte readings: ASCII and not,
    /// markup, possessives, letters whose lower case is longer, numbers
    /// beside letters of any width.
    const MIXED: &[&str] = &[
        "**#W9300146**, `gift_card_1`. John's 'x' 's '' $1,234.50 a.b@c.com 05/22/2024",
        "-- .. _a_ +1-555 it's, o'neil's. (ok) [z] end.",
        "",
        "'s",
        "x",
        "Caf\u{e9}'s \u{2014} John\u{2019}s \u{201c}W93\u{201d} \u{130}stanbul-\u{e9}. \u{3a3}\u{3a3}A _\u{e9}_",
        "\u{e9}9 12\u{e9} \u{2014}12 12\u{2014} $1,234.50\u{2026} 3\u{b2} \u{661}2 .5 5. 1,2,3 \u{1f600}7",
        "\u{e9}",
        "\u{2019}s\u{e9}'s",
    ];

    /// The byte readings equal the character rules on `text`.
    pub(super) fn assert_byte_readings_are_the_rules(text: &str) {
        assert_eq!(value_tokens(text), value_tokens_general(text), "{text}");
        assert_eq!(ReadTurn::new(text), read_by_the_rules(text), "{text}");
    }

    /// The reading the one scan replaces: the tokens and the amounts,
    /// each by its character rule.
    fn read_by_the_rules(text: &str) -> ReadTurn {
        let chars: Vec<char> = text.chars().collect();
        let mut tokens = TokenText::default();
        for token in value_tokens_general(text) {
            let start = tokens.text.len();
            tokens.text.push_str(&token);
            tokens.push(start, tokens.text.len());
        }
        let choice_marks = choice_mark_positions(&tokens);
        let ReadTurn {
            option_lists,
            bracketed,
            ..
        } = ReadTurn::new(text);
        ReadTurn {
            option_lists,
            bracketed,
            tokens,
            amounts: amounts_in(&chars),
            choice_marks,
        }
    }

    /// Characters that take every branch of the scan: each class of ASCII
    /// byte, letters and digits of other scripts, typographic marks,
    /// letters whose lower case is longer or depends on their neighbours;
    /// digits and number marks often, so that numbers of several groups
    /// come up.
    pub(crate) const SCAN_ALPHABET: &str = "aZs0123456789 ,,..,  _-@/+'$#`*\n\u{e9}\u{2019}\u{2014}\u{201c}\u{3a3}\u{130}\u{661}\u{b2}\u{1f600}";

    /// Test cases per property: 256, scaled as every property of the
    /// workspace is (`turnstile_proptests::cases`, whose file is included:
    /// that crate depends on this one).
    pub(crate) fn proptest_cases() -> u32 {
        cases::cases(256)
    }

    mod cases {
        include!("../../../proptests/src/case_count.rs");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(proptest_cases()))]

        /// On any string, the one scan reads what the two character rules
        /// read.
        #[test]
        fn the_one_scan_reads_as_the_rules_on_any_string(text in proptest::prelude::any::<String>()) {
            proptest::prop_assert_eq!(ReadTurn::new(&text), read_by_the_rules(&text));
        }

        /// On strings dense in the characters the rules tell apart
        /// (numbers, joiners, marks, other scripts), the same.
        #[test]
        fn the_one_scan_reads_as_the_rules_on_dense_strings(
            picks in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..48)
        ) {
            let alphabet: Vec<char> = SCAN_ALPHABET.chars().collect();
            let text: String = picks.iter().map(|i| *i.get(&alphabet)).collect();
            proptest::prop_assert_eq!(ReadTurn::new(&text), read_by_the_rules(&text));
        }
    }

    #[test]
    fn byte_readings_are_the_character_rules() {
        for text in MIXED {
            assert_byte_readings_are_the_rules(text);
        }
    }

    /// Every string of a JSON value (keys too).
    fn strings_of<'v>(value: &'v serde_json::Value, out: &mut Vec<&'v str>) {
        match value {
            serde_json::Value::String(s) => out.push(s),
            serde_json::Value::Array(items) => items.iter().for_each(|v| strings_of(v, out)),
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    out.push(k);
                    strings_of(v, out);
                }
            }
            _ => {}
        }
    }

    /// Every message of every vendored tau2 trace: its role and its text.
    pub(crate) fn vendored_messages() -> Vec<(String, String)> {
        use std::io::Read;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/tau2/traces");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let compressed = std::fs::read(entry.unwrap().path()).unwrap();
            let mut bytes = Vec::new();
            ruzstd::decoding::StreamingDecoder::new(compressed.as_slice())
                .unwrap()
                .read_to_end(&mut bytes)
                .unwrap();
            let file: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            for sim in file["simulations"].as_array().unwrap() {
                for message in sim["messages"].as_array().unwrap() {
                    if let Some(text) = message["content"].as_str() {
                        let role = message["role"].as_str().unwrap_or_default();
                        out.push((role.to_owned(), text.to_owned()));
                    }
                }
            }
        }
        out
    }

    /// Every turn of every vendored tau2 trace, and every string its tool
    /// results hold (the values a turn may name), reads the same by bytes
    /// as by the character rules; and the sentences' words of every turn
    /// are the words of its normalised text.
    #[test]
    fn byte_readings_are_the_rules_on_every_vendored_turn_and_value() {
        let (mut turns, mut values) = (0, 0);
        for (role, text) in vendored_messages() {
            let text = text.as_str();
            assert_byte_readings_are_the_rules(text);
            // The grammar's words of a sentence (its lowered
            // text taken as it is) are the words of the text.
            let read = super::super::tokens::sentences(text);
            let flat: Vec<_> = super::super::tokens::flat_tokens(&read)
                .into_iter()
                .cloned()
                .collect();
            let normalised = super::super::tokens::normalise(text);
            assert_eq!(flat, super::super::tokens::words(&normalised), "{text}");
            turns += 1;
            let content = (role == "tool")
                .then(|| serde_json::from_str::<serde_json::Value>(text).ok())
                .flatten();
            let mut strings = Vec::new();
            if let Some(content) = &content {
                strings_of(content, &mut strings);
            }
            for value in strings {
                assert_byte_readings_are_the_rules(value);
                assert_eq!(
                    parse_amount(value.trim()),
                    canonical_amount(amount_body(value.trim())),
                    "{value}"
                );
                values += 1;
            }
        }
        assert!(
            turns > 10_000 && values > 100_000,
            "{turns} turns, {values} values"
        );
    }

    #[test]
    fn a_picking_word_points_at_the_options_or_names_a_kind() {
        let picking = |text: &str| picking_in(&ReadTurn::new(text).tokens);
        assert_eq!(picking("Which one should I cancel?"), Picking::One);
        assert_eq!(picking("Which of the two should I dispute?"), Picking::One);
        assert_eq!(
            picking("Which would you like, and shall I go ahead?"),
            Picking::One
        );
        assert_eq!(picking("either one works"), Picking::One);
        assert_eq!(
            picking("Which email should get the receipt?"),
            Picking::Kind
        );
        assert_eq!(picking("Which project will you work in?"), Picking::Kind);
        let words = ["which", "card", "would", "you", "like"];
        assert!(asks_to_pick_one(|at| words.get(at).copied(), |at| at == 1));
        assert!(!asks_to_pick_one(|at| words.get(at).copied(), |_| false));
        assert_eq!(picking("Should I pick up the parcel?"), Picking::No);
        assert_eq!(picking("Either way works."), Picking::No);
        assert_eq!(
            picking("Shall I unfreeze one of them? Tell me which."),
            Picking::One
        );
        // The strongest word of the turn decides.
        assert_eq!(
            picking("Which card? Which one should I freeze?"),
            Picking::One
        );
    }

    #[test]
    fn a_list_line_opening_with_a_record_id_is_an_option() {
        let refills = "You have two queued refills:\n- RF-90412: sertraline 50 mg\n\
                       - RF-90418: norethindrone 0.35 mg\nWhich of these should I cancel?";
        assert_eq!(ReadTurn::new(refills).option_lists().len(), 1);
        let details = "Please confirm:\n- Reason: no longer needed\n- Refund to: PayPal\n\
                       - Step 1: the return\nWhich email should get the label?";
        assert!(ReadTurn::new(details).option_lists().is_empty());
        // A line indented under an item is a detail of it, not an option.
        let nested =
            "Which would you like to confirm?\n- **H8Q05L:**\n  - Flight HAT268 to business\n";
        assert!(ReadTurn::new(nested).option_lists().is_empty());
        let two = "Which one?\n1. KC18K6\n   - HAT300\n   - HAT215\n2. H8Q05L\n   - HAT268\n";
        assert_eq!(
            ReadTurn::new(two).option_lists().first().map(Vec::len),
            Some(2)
        );
        assert!(is_labelled("Order total: $52.00"));
        assert!(!is_labelled("Order #W2611340: pending"));
    }

    #[test]
    fn tokens_strip_markup() {
        assert_eq!(
            value_tokens("**#W9300146**, `gift_card_1`."),
            ["w9300146", "gift_card_1"]
        );
    }

    #[test]
    fn words_joined_by_underscores_or_hyphens_are_read_as_words() {
        assert_eq!(value_tokens("basic_economy"), ["basic", "economy"]);
        assert_eq!(value_tokens("`Next-Day`,"), ["next", "day"]);
        assert_eq!(value_tokens("_a__b_"), ["a", "b"]);
        for named in [
            "downgrade to basic economy?",
            "downgrade to Basic-Economy?",
            "downgrade to `basic_economy`?",
        ] {
            assert!(names_value(named, "basic_economy"), "{named}");
        }
        assert!(names_value("refund to your gift card", "gift_card"));
        assert!(!names_value("refund to your gift", "gift_card"));
        assert!(!names_value("refund to your card gift", "gift_card"));
        // An identifier keeps its digits' token whole: its parts are no
        // value's words, and it is named only as written.
        assert_eq!(
            value_tokens("gift_card_8190333 LT-4471"),
            ["gift_card_8190333", "lt-4471"]
        );
        assert!(!names_value("gift card 8190333", "gift_card_8190333"));
        assert!(!names_value("your gift_card_8190333", "gift_card"));
    }

    /// What the tokens of `value` in `turn` (at its first place) describe,
    /// with "order" and "booking" the record nouns.
    fn described(turn: &str, value: &str) -> Option<&'static str> {
        let turn = ReadTurn::new(turn);
        let value = ReadValue::new(value);
        let at = *turn.word_positions(&value).first()?;
        turn.described_record(at, value.len(), |token| match token {
            "order" | "orders" => Some("order"),
            "booking" => Some("booking"),
            _ => None,
        })
    }

    #[test]
    fn a_value_before_a_record_noun_or_held_by_one_describes_that_record() {
        let purifier = "Exchange the air purifier from your sneakers order (#W3445693)?";
        assert_eq!(described(purifier, "sneakers"), Some("order"));
        assert_eq!(described(purifier, "air purifier"), None);
        assert_eq!(
            described(
                "On the order with the Organic Bananas, I'll remove the oat milk.",
                "organic bananas"
            ),
            Some("order")
        );
        assert_eq!(
            described(
                "Shall I change the booking that has Ana Ruiz on it?",
                "ana ruiz"
            ),
            Some("booking")
        );
        assert_eq!(
            described("the booking including Ana Ruiz", "ana ruiz"),
            Some("booking")
        );
        // Not one phrase: the value ends a sentence, or a line.
        assert_eq!(
            described("Remove your sneakers. Order total: $40.", "sneakers"),
            None
        );
        assert_eq!(
            described("Remove your sneakers\norder total: $40.", "sneakers"),
            None
        );
        // "with" is what the action is done with, unless both are definite.
        assert_eq!(
            described("Shall I update the booking with Ana Ruiz?", "ana ruiz"),
            None
        );
        assert_eq!(
            described("Shall I place an order with the bananas?", "bananas"),
            None
        );
        // A thing of its own: no determiner before it, or no record noun after.
        assert_eq!(described("Add sneakers order notes?", "sneakers"), None);
        assert_eq!(
            described("Shall I remove your sneakers from it?", "sneakers"),
            None
        );
    }

    /// Each aside of `turn` as (the words it describes, its own words).
    fn asides(turn: &str) -> Vec<(String, String)> {
        let read = ReadTurn::new(turn);
        let words = |range: Range<usize>| {
            range
                .filter_map(|at| read.token(at))
                .collect::<Vec<_>>()
                .join(" ")
        };
        read.asides()
            .into_iter()
            .map(|(head, inside)| (words(head), words(inside)))
            .collect()
    }

    #[test]
    fn an_aside_after_a_dash_comma_or_bracket_describes_what_its_sentence_named() {
        let pair = |head: &str, inside: &str| vec![(head.to_owned(), inside.to_owned())];
        // A dash, any of three: the aside runs to the next dash.
        assert_eq!(
            asides("I'll renew Circe - the book you borrowed with Dune. Shall I?"),
            pair("i'll renew circe", "the book you borrowed with dune")
        );
        assert_eq!(
            asides(
                "Dispute TX-5532 \u{2014} the duplicate of your TX-5531 charge \u{2014} for 64.00?"
            ),
            pair("dispute tx-5532", "the duplicate of your tx-5531 charge")
        );
        assert_eq!(
            asides("Waive FE-11 \u{2013} the smaller, below fee FE-12 \u{2013} in full?"),
            pair("waive fe-11", "the smaller below fee fe-12")
        );
        // A comma, with a determiner or a relative pronoun: to the next comma.
        assert_eq!(
            asides("Refund CH-902, the charge posted with CH-901 (CH-901, $42), now?"),
            pair("refund ch-902", "the charge posted with ch-901 ch-901")
        );
        assert_eq!(
            asides("I'll cancel RF-8802, which was queued after RF-8801."),
            pair("i'll cancel rf-8802", "which was queued after rf-8801")
        );
        // A bracket, with a determiner: to the closing bracket.
        assert_eq!(
            asides("Cancel BK-40755 (the one after BK-40712), okay?"),
            pair("cancel bk-40755", "the one after bk-40712")
        );
        // The sentence before it, not the turn: a new line ends a sentence.
        assert_eq!(
            asides("Hello.\nCancel BK-2 - the one after BK-1?"),
            pair("cancel bk-2", "the one after bk-1")
        );
    }

    #[test]
    fn a_detail_a_list_or_a_hyphen_is_no_aside() {
        for turn in [
            // A detail after a dash, not a description.
            "Jira (APP-12) - role editor\nFigma (APP-19) - role viewer",
            // A list going on after the comma.
            "I can raise card 5521 to 4000, the card 0839 to 8000, and the Visa to 10000.",
            "Cancel #W1, the order #W2 and the order #W3?",
            // A hyphen joining words; a bracket opening a detail.
            "Cancel the re-issued card (card 4821)?",
            // A dash after a sentence's end opens none.
            "Done. - the order is cancelled.",
        ] {
            assert_eq!(asides(turn), Vec::new(), "{turn}");
        }
    }

    /// The segment and the clause of each token that spells a word of
    /// `words`, by that word.
    fn placed(turn: &str, words: &[&str]) -> Option<Vec<(String, u8, u8)>> {
        let read = ReadTurn::new(turn);
        let placing = read.token_segments()?;
        Some(
            (0..read.token_count())
                .filter_map(|at| {
                    let token = read.token(at)?;
                    words.contains(&token).then(|| {
                        (
                            token.to_owned(),
                            placing.segments.get(at).copied().unwrap_or(u8::MAX),
                            placing.clauses.get(at).copied().unwrap_or(u8::MAX),
                        )
                    })
                })
                .collect(),
        )
    }

    #[test]
    fn lines_and_sentences_are_segments_and_and_or_a_comma_opens_a_clause() {
        let at = |turn: &str| placed(turn, &["x1", "y1", "x2", "y2"]);
        let row = |w: &str, s: u8, c: u8| (w.to_owned(), s, c);
        // One item per line, per sentence, per line of a table.
        for turn in [
            "Here's the exchange:\n1. x1 -> y1\n2. x2 -> y2\nShall I go ahead?",
            "Here's the exchange.\n- x1 becomes y1\n- x2 becomes y2\nConfirm?",
            "| old | new |\n|---|---|\n| x1 | y1 |\n| x2 | y2 |",
        ] {
            let rows = at(turn).unwrap_or_default();
            let segment = |w: &str| rows.iter().find(|r| r.0 == w).map(|r| r.1);
            assert_eq!(segment("x1"), segment("y1"), "{turn}");
            assert_eq!(segment("x2"), segment("y2"), "{turn}");
            assert_ne!(segment("x1"), segment("x2"), "{turn}");
        }
        assert_eq!(
            at("I'll replace x1 with y1. Then x2 with y2? Okay!"),
            Some(vec![
                row("x1", 0, 0),
                row("y1", 0, 0),
                row("x2", 1, 1),
                row("y2", 1, 1)
            ])
        );
        // Clauses: *and*, a comma (in a turn of one segment, no token has
        // a segment).
        let one = u8::MAX;
        assert_eq!(
            at("Shall I replace x1 with y1 and x2 with y2?"),
            Some(vec![
                row("x1", one, 0),
                row("y1", one, 0),
                row("x2", one, 1),
                row("y2", one, 1)
            ])
        );
        assert_eq!(
            at("Payment: $40 on x1, $60 on x2."),
            Some(vec![row("x1", one, 0), row("x2", one, 1)])
        );
        // A full stop inside a token ends nothing; a turn of one clause has
        // none.
        assert_eq!(at("Shall I pay 40.00 on x1 for y1?"), None);
        assert_eq!(at("Shall I pay x1 for y1?"), None);
    }
}
