//! What a reply picks among values a question offered side by side ("30
//! or 90 tablets?", "by SMS or by email?", "Walgreens Main St or
//! Walgreens Harbor Rd?"): the option an *or* sets against a value the
//! question names ([`alternative_to`]), and which of the two a reply picks
//! ([`Alternative::pick`]). A yes that picks another option is no yes to a
//! call carrying the value, and a yes picking neither confirms neither.
//!
//! Only the words around *or* decide it, not what the values mean: the
//! alternative is the words on the other side of *or*, as many as the
//! value has, after any word opening an option ([`OPTION_LEADS`]); words
//! the value's own phrase repeats after it ("30 tablets or 90 tablets")
//! are the shared head, not the alternative. An *or* before a word that
//! offers no value of the kind ("90 or not", "30, or would you …";
//! [`NOT_AN_OPTION`]) offers no alternative, and an amount's alternative
//! is an amount.

use std::ops::Range;

use smol_str::SmolStr;

use super::lexicon::{
    AGREEMENT, FILLERS, FIRST_OF_TWO, GO_AHEAD, INTERROGATIVES, NOT_AN_OPTION, OPTION_LEADS,
    ORDINALS, SECOND_OF_TWO, YES_HEADS,
};
use super::value::{ReadTurn, ReadValue, amount_of};

/// How many words may stand between a value and *or* when the same words
/// follow the alternative ("30 tablets or 90 tablets").
const MAX_SHARED_HEAD: usize = 2;

/// Words shorter than this, without a digit, are too common to pick an
/// option by ("st", "rd").
const MIN_PICKING_WORD: usize = 3;

/// Which of a value and its alternative a reply picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// The reply names the value.
    Value,
    /// The reply picks the alternative, not the value.
    Alternative,
    /// The reply names neither, nor picks one by its place, and says
    /// nothing else that could pick: only a yes, a go-ahead, politeness, the
    /// domain's words for its actions and records, and the question's
    /// other details ("sure, go ahead and refill it at Oak Plaza").
    Neither,
    /// The reply names both, or says something else that may pick one in
    /// other words ("to my PayPal" beside "your PayPal on file
    /// (paypal_3742148)", "the one from the 21st"): which it picks is not
    /// read.
    Unclear,
}

/// How many words on either side of *or* stand near the options: the
/// question's words further away are its other details.
const NEAR_OR: usize = 6;

/// The option an *or* in a question sets against a value it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alternative {
    /// The alternative's words the value does not share, each with its
    /// amount when it is one.
    words: Vec<(SmolStr, Option<SmolStr>)>,
    /// The alternative stands after the value (it is the second of the two).
    after: bool,
    /// The value's words the alternative does not share that could pick
    /// it ([`could_pick`]): "metformin" of "metformin 1000 mg" beside
    /// "atorvastatin 20 mg".
    own: Vec<SmolStr>,
    /// Where the question's words near the *or* stand (within
    /// [`NEAR_OR`]): its words elsewhere are its other details, and a reply
    /// repeating them restates those.
    near: Range<usize>,
    /// The options are joined by *and* in a turn asking the user to pick
    /// ("PX-40112 and PX-40127 … which one?"). A reply picking neither
    /// picks none only where the question asks which of them to act on
    /// ([`Alternative::pick`]'s `picks_one`); elsewhere ("which email …?")
    /// it is read as before, since *and* joins more than options.
    by_and: bool,
    /// The options are the items of a list the turn lays out, the value's
    /// the one at this place: a reply picks by place among all of them
    /// ("#2", "option 3", "the third one").
    place: Option<ListPlace>,
}

/// Where a value's item stands in a list of options: its index and how
/// many items the list has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ListPlace {
    index: usize,
    count: usize,
}

/// Whether a word only says yes, goes ahead or is polite ([`YES_HEADS`],
/// [`GO_AHEAD`], [`AGREEMENT`], [`FILLERS`]).
pub(crate) fn is_consent_word(word: &str) -> bool {
    FILLERS.contains(&word)
        || [YES_HEADS, GO_AHEAD, AGREEMENT]
            .iter()
            .any(|phrases| phrases.iter().any(|p| p.contains(&word)))
}

/// Whether a word could pick an option: not an option's opening, not a
/// word offering no value, holding a letter or digit (an emoji picks
/// nothing), and of at least [`MIN_PICKING_WORD`] letters or holding a
/// digit.
fn could_pick(word: &str) -> bool {
    word.chars().any(char::is_alphanumeric)
        && !OPTION_LEADS.contains(&word)
        && !NOT_AN_OPTION.contains(&word)
        && (word.len() >= MIN_PICKING_WORD || word.bytes().any(|b| b.is_ascii_digit()))
}

/// The alternative an *or* of `turn` sets against `value` where the turn
/// names it, if any (the first place that has one; one an *and* of a turn
/// asking to pick one sets only where no *or* does). A number or amount
/// (`by_value`) may stand a few words from its *or* ("the whole $86.40, or
/// only the $24.00 extra"); a string written in digits (an id, a card's
/// last four) is words, its option the words on the other side.
#[must_use]
pub fn alternative_to(turn: &ReadTurn, value: &ReadValue, by_value: bool) -> Option<Alternative> {
    match marked_alternative(turn, value, by_value) {
        Some(by_or) if !by_or.by_and => Some(by_or),
        by_and => list_alternative(turn, value).or(by_and),
    }
}

/// The options a list of a turn asking the user to pick one sets against
/// `value` ([`ReadTurn::option_lists`]): the other items, when the value
/// stands in one of them only.
fn list_alternative(turn: &ReadTurn, value: &ReadValue) -> Option<Alternative> {
    turn.option_lists().iter().find_map(|list| {
        let mut holding = list
            .iter()
            .enumerate()
            .filter(|(_, item)| !turn.spans_in(value, (*item).clone()).is_empty())
            .map(|(index, _)| index);
        let index = holding.next()?;
        // A value every option shares ("23.10 at PharmaPlus" in each) is
        // a detail of all of them, not one option.
        if holding.next().is_some() {
            return None;
        }
        let item_words = |item: &Range<usize>| item.clone().filter_map(|at| turn.token(at));
        let own_item: Vec<&str> = list.get(index).map(item_words)?.collect();
        let others: Vec<&str> = list
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != index)
            .flat_map(|(_, item)| item_words(item))
            .collect();
        let mut words: Vec<(SmolStr, Option<SmolStr>)> = Vec::new();
        for &word in &others {
            if !own_item.contains(&word)
                && !OPTION_LEADS.contains(&word)
                && !words.iter().any(|(w, _)| w == word)
            {
                words.push((SmolStr::new(word), amount_of(word)));
            }
        }
        let own = own_item
            .iter()
            .filter(|w| could_pick(w) && !others.contains(w))
            .map(SmolStr::new)
            .collect();
        let start = list.first().map_or(0, |item| item.start);
        let end = list.last().map_or(0, |item| item.end);
        Some(Alternative {
            words,
            after: false,
            own,
            near: start..end,
            by_and: false,
            place: Some(ListPlace {
                index,
                count: list.len(),
            }),
        })
    })
}

/// The alternative an *or* (or an *and* of a turn asking to pick one) sets
/// against `value` ([`alternative_to`]).
fn marked_alternative(turn: &ReadTurn, value: &ReadValue, by_value: bool) -> Option<Alternative> {
    let ors = turn.choice_marks();
    if ors.is_empty() {
        return None;
    }
    // Only a value near an *or* can be one of its options: it is looked
    // for around each *or*, the windows of nearby ones merged. An *and*
    // offers only what stands right beside it.
    let mut windows: Vec<Range<usize>> = Vec::with_capacity(ors.len());
    for &or in ors {
        let near = if turn.token(or) == Some("and") {
            AND_WINDOW
        } else {
            OR_WINDOW
        };
        let window = or.saturating_sub(value.len() + near)..or + near + 1;
        match windows.last_mut() {
            // An *and*'s window after an *or*'s may end before it.
            Some(last) if last.end >= window.start => last.end = last.end.max(window.end),
            _ => windows.push(window),
        }
    }
    let spans: Vec<(usize, usize)> = windows
        .into_iter()
        .flat_map(|window| turn.spans_in(value, window))
        .collect();
    if spans.is_empty() {
        return None;
    }
    if value.is_amount() && by_value {
        return spans
            .iter()
            .find_map(|&(at, len)| amount_alternative(turn, at, len));
    }
    let own: Vec<&str> = value.tokens().collect();
    let option = |(words, after, or): (Vec<&str>, bool, usize)| {
        let mut alternative = Alternative::of(&words, &own, by_value && value.is_amount(), after)?;
        alternative.own = own
            .iter()
            .filter(|w| could_pick(w) && !words.contains(w))
            .map(SmolStr::new)
            .collect();
        alternative.near = or.saturating_sub(NEAR_OR)..or + NEAR_OR + 1;
        alternative.by_and = turn.token(or) == Some("and");
        Some(alternative)
    };
    // An option an *or* sets against the value counts before one an *and*
    // of a turn asking to pick one does ("the Visa ending 5566 and the
    // Mastercard ending 2218 … which one: the card ending 5566 or the card
    // ending 2218?").
    let mut by_and = None;
    for &(at, len) in &spans {
        // The value's description in brackets names it too: "cetirizine" of
        // "RF-5527 (cetirizine)".
        let described = |mut alternative: Alternative| {
            for word in bracketed_after(turn, at + len) {
                if could_pick(word)
                    && !alternative.words.iter().any(|(w, _)| w == word)
                    && !alternative.own.iter().any(|w| w == word)
                {
                    alternative.own.push(SmolStr::new(word));
                }
            }
            alternative
        };
        for found in [following(turn, at, len), preceding(turn, at, len)] {
            match found.and_then(option).map(described) {
                Some(alternative) if !alternative.by_and => return Some(alternative),
                Some(alternative) => {
                    by_and.get_or_insert(alternative);
                }
                None => {}
            }
        }
    }
    by_and
}

/// How far from an *or* (besides the value's own length) a value may stand
/// and still be one of its options: past option openings, a shared head
/// and an amount's reach.
const OR_WINDOW: usize = 2 * MAX_SHARED_HEAD + AMOUNT_REACH + 4;

/// How far from an *and* of a turn asking to pick one a value may stand
/// and still be one of its options (besides its own length): past option
/// openings and a shared head.
const AND_WINDOW: usize = 2 * MAX_SHARED_HEAD + 2;

/// How many words may stand between an amount and *or*, or between *or*
/// and the amount on its other side ("the whole $86.40, or only the $24.00
/// extra").
const AMOUNT_REACH: usize = 4;

/// The amount an *or* sets against the amount at `at..at + len`: the
/// nearest amount on the other side of the nearest *or*, each within
/// [`AMOUNT_REACH`] words.
fn amount_alternative(turn: &ReadTurn, at: usize, len: usize) -> Option<Alternative> {
    let reach = AMOUNT_REACH;
    let end = at + len;
    let has_digit = |i: usize| {
        turn.token(i)
            .is_some_and(|t| t.bytes().any(|b| b.is_ascii_digit()))
    };
    // An *and* joins amounts only side by side: no other number stands
    // between either amount and it ("TXN-50231 and TXN-50388, each for
    // 15.99" offers no amount).
    let by_and = |mark: usize| turn.token(mark) == Some("and");
    let after = (end..end + reach)
        .find(|&i| turn.marks_choice(i))
        .filter(|&or| !by_and(or) || !(end..or).any(has_digit))
        .and_then(|or| {
            let first_number = (or + 1..=or + reach).find(|&i| has_digit(i));
            (or + 1..=or + reach)
                .filter(|&from| !by_and(or) || Some(from) == first_number)
                .find_map(|from| {
                    (1..=MAX_AMOUNT_TOKENS)
                        .rev()
                        .find_map(|count| amount_run(turn, from, count))
                })
                .map(|amount| (amount, true, or))
        });
    // The nearest amount ending before the *or*, read whole.
    let before = || {
        let or = (at.saturating_sub(reach)..at)
            .rev()
            .find(|&i| turn.marks_choice(i))
            .filter(|&or| !by_and(or) || !(or + 1..at).any(has_digit))?;
        let last_number = (or.saturating_sub(reach)..or).rev().find(|&i| has_digit(i));
        (or.saturating_sub(reach) + 1..=or)
            .rev()
            .filter(|&end| !by_and(or) || Some(end) == last_number.map(|n| n + 1))
            .find_map(|end| {
                (1..=MAX_AMOUNT_TOKENS.min(end))
                    .rev()
                    .find_map(|count| amount_run(turn, end - count, count))
            })
            .map(|amount| (amount, false, or))
    };
    let ((written, whole), after, or) = after.or_else(before)?;
    Some(Alternative {
        words: vec![(written, Some(whole))],
        after,
        own: Vec::new(),
        near: 0..0,
        by_and: by_and(or),
        place: None,
    })
}

/// The amount the `count` tokens from `from` write (thousands groups
/// joined by `,`): the tokens as written and the canonical amount.
fn amount_run(turn: &ReadTurn, from: usize, count: usize) -> Option<(SmolStr, SmolStr)> {
    let tokens = run(turn, from, count);
    if tokens.len() < count || tokens.iter().skip(1).any(|t| t.len() < 3) {
        return None;
    }
    let written = tokens.join(",");
    let whole = amount_of(&written)?;
    Some((SmolStr::new(&written), whole))
}

/// How many tokens an amount with thousands separators may span.
const MAX_AMOUNT_TOKENS: usize = 4;

/// The amount a token writes with a thousands suffix ("10k", "7.5k"), if
/// it is one.
fn thousands(token: &str) -> Option<SmolStr> {
    let number = token.strip_suffix('k')?;
    let whole = amount_of(number)?;
    let (units, fraction) = whole.split_once('.').unwrap_or((&whole, ""));
    let mut digits: String = fraction
        .chars()
        .chain(std::iter::repeat('0'))
        .take(3)
        .collect();
    digits.insert_str(0, units);
    amount_of(&digits)
}

/// The words of `turn` from `from` (up to `len` of them).
fn run(turn: &ReadTurn, from: usize, len: usize) -> Vec<&str> {
    (from..from.saturating_add(len))
        .map_while(|at| turn.token(at))
        .collect()
}

/// The alternative after *or* following the value at `at..at + len` (past
/// a description of it in brackets), maybe across a shared head the alternative repeats after it ("30
/// tablets or 90 tablets") or before it ("card ending 5046 or card ending
/// 8133").
fn following(turn: &ReadTurn, at: usize, len: usize) -> Option<(Vec<&str>, bool, usize)> {
    // A description in brackets after the value is part of its option.
    let mut end = at + len;
    while turn.is_bracketed(end) {
        end += 1;
    }
    (0..=MAX_SHARED_HEAD).find_map(|gap| {
        turn.token(end + gap)?;
        if !turn.marks_choice(end + gap) {
            return None;
        }
        let mut from = end + gap + 1;
        while turn.token(from).is_some_and(|t| OPTION_LEADS.contains(&t)) {
            from += 1;
        }
        let lead = (0..=MAX_SHARED_HEAD.min(at))
            .rev()
            .find(|&pre| pre == 0 || run(turn, from, pre) == run(turn, at - pre, pre))?;
        let from = from + lead;
        let mut words = run(turn, from, len);
        // An option shorter than the value ends where a question opens
        // ("adobe-cc and canva. Which …?"): the turn's tokens hold no
        // sentence ends.
        if let Some(question) = words
            .iter()
            .skip(1)
            .position(|w| INTERROGATIVES.contains(w))
        {
            words.truncate(question + 1);
        }
        let head = run(turn, end, gap);
        if gap == 0 {
            words.extend(bracketed_after(turn, from + words.len()));
        }
        (gap == 0 || run(turn, from + len, gap) == head).then_some((words, true, end + gap))
    })
}

/// The alternative before the *or* preceding the value at `at..at + len`
/// (past any word opening the value's option, a description of the
/// alternative in brackets, and a shared head the
/// alternative has before it too), maybe across a shared head the value
/// repeats after it.
fn preceding(turn: &ReadTurn, at: usize, len: usize) -> Option<(Vec<&str>, bool, usize)> {
    let mut start = at;
    while start > 0
        && turn
            .token(start - 1)
            .is_some_and(|t| OPTION_LEADS.contains(&t))
    {
        start -= 1;
    }
    (0..=MAX_SHARED_HEAD.min(start)).rev().find_map(|lead| {
        let or = (start - lead).checked_sub(1)?;
        if !turn.marks_choice(or) {
            return None;
        }
        let lead_words = run(turn, start - lead, lead);
        // A description in brackets before the *or* is part of the
        // alternative, not the alternative itself.
        let mut before = or;
        while before > 0 && turn.is_bracketed(before - 1) {
            before -= 1;
        }
        (0..=MAX_SHARED_HEAD).rev().find_map(|gap| {
            let head_start = before.checked_sub(gap)?;
            if gap > 0 && run(turn, head_start, gap) != run(turn, at + len, gap) {
                return None;
            }
            let from = head_start.saturating_sub(len);
            if lead > 0
                && from.checked_sub(lead).map(|b| run(turn, b, lead)) != Some(lead_words.clone())
            {
                return None;
            }
            let mut words = run(turn, from, head_start - from);
            words.extend(run(turn, before, or - before));
            (!words.is_empty()).then_some((words, false, or))
        })
    })
}

/// Whether `reply` writes `value` as one word of its letters and digits
/// ("txn50388" or "rf90412" for TXN-50388 or RF-90412), as people type an
/// id.
fn names_joined(reply: &ReadTurn, value: &ReadValue) -> bool {
    let mut parts = 0;
    let mut written = 0;
    let mut joined = String::new();
    for token in value.tokens() {
        parts += 1;
        written += token.len();
        joined.extend(token.chars().filter(|c| c.is_alphanumeric()));
    }
    (parts > 1 || joined.len() < written) && !joined.is_empty() && reply.has_token(&joined)
}

/// The words in brackets from token `at` on ("cetirizine 10 mg" after
/// "RF-5527"): a description of what stands before them.
fn bracketed_after(turn: &ReadTurn, at: usize) -> Vec<&str> {
    (at..)
        .take_while(|&i| turn.is_bracketed(i))
        .map_while(|i| turn.token(i))
        .collect()
}

/// The place (from 0) of the item of a list of `count` options `reply`
/// picks by its place, if it does: an ordinal ("the third one", "2nd"),
/// *former* or *latter* of two, *last*, or a number after *option*,
/// *number* or *#*, or standing alone ("#2", "option 3", "2 please").
fn picked_place(reply: &ReadTurn, count: usize) -> Option<usize> {
    let words: Vec<&str> = (0..reply.token_count())
        .filter_map(|at| reply.token(at))
        .collect();
    words.iter().find_map(|word| {
        let place = if let Some(&(_, place)) = ORDINALS.iter().find(|(w, _)| w == word) {
            place
        } else if count == 2 && FIRST_OF_TWO.contains(word) {
            1
        } else if (count == 2 && SECOND_OF_TWO.contains(word)) || *word == "last" {
            count
        } else {
            word.parse::<usize>().ok()?
        };
        (1..=count).contains(&place).then(|| place - 1)
    })
}

impl Alternative {
    /// The alternative of `words` to a value of words `own` (`amount`: the
    /// value is an amount): none when it opens with a word offering no
    /// value, has no word of its own, or is no amount beside one.
    fn of(words: &[&str], own: &[&str], amount: bool, after: bool) -> Option<Alternative> {
        let opening = if after { words.first() } else { words.last() };
        if opening.is_none_or(|w| NOT_AN_OPTION.contains(w)) {
            return None;
        }
        // An amount with thousands separators is one word of several tokens.
        let written = words.join(",");
        if amount && let Some(whole) = amount_of(&written) {
            return Some(Alternative {
                words: vec![(SmolStr::new(&written), Some(whole))],
                after,
                own: Vec::new(),
                near: 0..0,
                by_and: false,
                place: None,
            });
        }
        let words: Vec<(SmolStr, Option<SmolStr>)> = words
            .iter()
            .filter(|w| !own.contains(w) && !OPTION_LEADS.contains(w))
            .map(|w| (SmolStr::new(w), amount_of(w)))
            .collect();
        let shaped = if amount {
            words.iter().any(|(_, a)| a.is_some())
        } else {
            words
                .iter()
                .all(|(w, _)| !NOT_AN_OPTION.contains(&w.as_str()))
        };
        (shaped && !words.is_empty()).then_some(Alternative {
            words,
            after,
            own: Vec::new(),
            near: 0..0,
            by_and: false,
            place: None,
        })
    }

    /// Which option `reply` picks: the value when it names it, a word of
    /// its own or its place ("the first one"); the alternative when it
    /// names a word of it (an amount by its amount; a word of letters of at
    /// least `MIN_PICKING_WORD` letters) or its place; neither when it
    /// says nothing that could pick (`plain`: the domain's words for its
    /// actions and records, besides English yes, go-ahead and politeness).
    /// `question` is the turn that offered the choice; `picks_one`: it
    /// asks which of the things it lays out to act on ("which one should I
    /// freeze?"), so a reply naming none of them picks none, whatever else
    /// it says.
    #[must_use]
    pub fn pick(
        &self,
        question: &ReadTurn,
        picks_one: bool,
        reply: &ReadTurn,
        value: &ReadValue,
        plain: impl Fn(&str) -> bool,
    ) -> Pick {
        let names_value = reply.names_read(value)
            || names_joined(reply, value)
            || self.own.iter().any(|w| reply.has_token(w))
            || match self.place {
                Some(place) => picked_place(reply, place.count) == Some(place.index),
                None => self.placed(reply, !self.after),
            };
        match (names_value, self.picked_by(reply)) {
            (true, false) => Pick::Value,
            (false, true) => Pick::Alternative,
            (true, true) => Pick::Unclear,
            (false, false) => {
                let more: Vec<&str> = (0..reply.token_count())
                    .filter_map(|i| reply.token(i))
                    .filter(|w| {
                        could_pick(w)
                            && !plain(w)
                            && !is_consent_word(w)
                            && !self.restates(question, w)
                    })
                    .collect();
                // Words the question itself has beside the options may name
                // one of them ("to my PayPal" beside "your PayPal on file
                // (paypal_3742148)").
                let names_beside = more.iter().any(|w| question.has_token(w));
                // A question asking which of the options to act on ("which
                // one?") asks for one of them by name or place: a reply
                // describing one in words the question never used ("the one
                // near work") picks none it can be held to. Elsewhere other
                // words may pick one, and *and* joins more than options.
                let unclear = if picks_one {
                    names_beside
                } else {
                    !more.is_empty() || self.by_and
                };
                if unclear {
                    Pick::Unclear
                } else {
                    Pick::Neither
                }
            }
        }
    }

    /// Whether `word` is one of `question`'s words away from the options:
    /// a detail of the request, not of the choice.
    fn restates(&self, question: &ReadTurn, word: &str) -> bool {
        (0..question.token_count())
            .filter(|i| !self.near.contains(i))
            .any(|i| question.token(i) == Some(word))
    }

    /// Whether `reply` names a word of the alternative or picks it by its
    /// place.
    fn picked_by(&self, reply: &ReadTurn) -> bool {
        let names_a_word = self.words.iter().any(|(word, amount)| match amount {
            Some(amount) => {
                reply.has_amount(amount)
                    || (0..reply.token_count())
                        .filter_map(|i| reply.token(i))
                        .any(|t| thousands(t).as_ref() == Some(amount))
            }
            None => could_pick(word) && reply.has_token(word),
        });
        names_a_word
            || match self.place {
                Some(place) => picked_place(reply, place.count).is_some_and(|at| at != place.index),
                None => self.placed(reply, self.after),
            }
    }

    /// Whether `reply` picks by its place ("the first one", "the latter")
    /// the second of the two options (`second`) or the first.
    fn placed(&self, reply: &ReadTurn, second: bool) -> bool {
        let ordinals = if second { SECOND_OF_TWO } else { FIRST_OF_TWO };
        (1..reply.token_count()).any(|at| {
            reply.token(at - 1) == Some("the")
                && reply.token(at).is_some_and(|t| ordinals.contains(&t))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `reply` picks between `value` and the option beside it in
    /// `question` (`by_value`: the value is a number of the call), with
    /// "refill" the domain's only word, the question asking to pick one when
    /// its words do; `None` when no option is offered.
    fn pick_in(question: &str, value: &str, by_value: bool, reply: &str) -> Option<Pick> {
        let value = ReadValue::new(value);
        let question = ReadTurn::new(question);
        let alternative = alternative_to(&question, &value, by_value)?;
        // Whether the question asks to pick one, its action aside.
        let picks_one = super::super::value::asks_to_pick_one(|at| question.token(at), |_| false);
        Some(
            alternative.pick(&question, picks_one, &ReadTurn::new(reply), &value, |w| {
                w == "refill"
            }),
        )
    }

    /// Whether `reply` picks the option beside the number `value`.
    fn picks(question: &str, value: &str, reply: &str) -> Option<bool> {
        pick_in(question, value, true, reply).map(|p| p == Pick::Alternative)
    }

    #[test]
    fn a_reply_naming_the_other_option_picks_it() {
        let q = "Shall I refill your metformin 1000 mg at Maple Ave? 30 or 90 tablets?";
        assert_eq!(picks(q, "90", "yes, 30 please"), Some(true));
        assert_eq!(picks(q, "90", "yes, 90 please"), Some(false));
        assert_eq!(picks(q, "30", "90!"), Some(true));
        assert_eq!(picks(q, "30", "yes, the first one"), Some(false));
        assert_eq!(picks(q, "90", "the first one"), Some(true));
        assert_eq!(picks(q, "90", "yes please"), Some(false));
        let pick = |reply: &str| pick_in(q, "90", true, reply);
        assert_eq!(pick("yes please"), Some(Pick::Neither));
        assert_eq!(pick("90"), Some(Pick::Value));
        assert_eq!(pick("the latter, yes"), Some(Pick::Value));
        assert_eq!(pick("yes, the former"), Some(Pick::Alternative));
        // A word near the options may name one in other words.
        let paypal = "Refund to your PayPal on file (paypal_3742148) or to your existing gift card (gift_card_3406421)?";
        let pick = |reply: &str| pick_in(paypal, "paypal_3742148", false, reply);
        assert_eq!(pick("to my PayPal please"), Some(Pick::Unclear));
        assert_eq!(pick("yes"), Some(Pick::Neither));
        // A word of the value's own picks it; a word of both is unclear.
        let drugs = "Shall I refill your atorvastatin 20 mg or your metformin 1000 mg, 90 tablets, for pickup at Oak Plaza today?";
        let pick = |reply: &str| pick_in(drugs, "metformin 1000 mg", false, reply);
        assert_eq!(pick("yes the metformin"), Some(Pick::Value));
        assert_eq!(pick("the atorvastatin"), Some(Pick::Alternative));
        assert_eq!(pick("sure, go ahead and refill it"), Some(Pick::Neither));
        assert_eq!(
            pick("yes please, pickup today is great"),
            Some(Pick::Neither)
        );
        assert_eq!(pick("yes, the cheaper one"), Some(Pick::Unclear));
        let by = "Shall I reset it and send the temporary password by SMS or by email?";
        assert_eq!(picks(by, "sms", "email please"), Some(true));
        assert_eq!(picks(by, "email", "yes, by sms"), Some(true));
        assert_eq!(picks(by, "email", "yes, email"), Some(false));
        let stores = "Which store - Walgreens Main St or Walgreens Harbor Rd?";
        assert_eq!(
            picks(stores, "Walgreens Harbor Rd", "the main st one"),
            Some(true)
        );
        assert_eq!(
            picks(stores, "Walgreens Harbor Rd", "harbor rd"),
            Some(false)
        );
        // "st" alone is too common a word to pick by.
        assert_eq!(
            picks(stores, "Walgreens Harbor Rd", "the st one"),
            Some(false)
        );
        let heads = "Would you like 30 tablets or 90 tablets?";
        assert_eq!(picks(heads, "90", "30 please"), Some(true));
        assert_eq!(picks(heads, "30", "ninety, i mean 90"), Some(true));
        let amounts = "Raise the limit to $5,000 or $8,000?";
        assert_eq!(picks(amounts, "8000", "yeah 5k pls"), Some(true));
        let only = "Do you want me to dispute the whole $86.40, or only the $24.00 extra?";
        assert_eq!(picks(only, "86.4", "the latter, yes"), Some(true));
        assert_eq!(picks(only, "24", "just the 24 please"), Some(false));
        assert_eq!(picks(amounts, "8000", "yes, $5,000"), Some(true));
        assert_eq!(picks(amounts, "8000", "yes, 8000.00 please"), Some(false));
    }

    #[test]
    fn an_or_offering_no_value_of_the_kind_offers_no_alternative() {
        let value = |question: &str, value: &str| {
            alternative_to(&ReadTurn::new(question), &ReadValue::new(value), true)
        };
        assert_eq!(value("Refill 90 tablets or not?", "90"), None);
        assert_eq!(value("Refill 90, or would you prefer fewer?", "90"), None);
        assert_eq!(value("Shall I refill 90 tablets?", "90"), None);
        assert_eq!(value("Shall I send 90 or something else?", "90"), None);
        // An amount's alternative is an amount.
        assert_eq!(value("Raise it to 8000 or wait?", "8000"), None);
        assert!(value("Viewer or editor access?", "editor").is_some());
        // A card's last four is no amount offered beside the limits after it.
        let card = |q: &str| alternative_to(&ReadTurn::new(q), &ReadValue::new("4821"), false);
        assert_eq!(card("Raise card ending 4821 to $6,000 or to $8,000?"), None);
        assert!(card("Card ending 4821 or 5046?").is_some());
        // A head both options repeat before their value.
        let cards = "Shall I unfreeze card ending 5046 or card ending 8133?";
        let pick = |value: &str, reply: &str| pick_in(cards, value, false, reply);
        assert_eq!(
            pick("8133", "the credit card is 5046"),
            Some(Pick::Alternative)
        );
        assert_eq!(pick("5046", "8133 please"), Some(Pick::Alternative));
        assert_eq!(pick("5046", "yes, 5046"), Some(Pick::Value));
    }

    #[test]
    fn things_a_turn_asking_to_pick_one_joins_with_and_are_options() {
        let lockers = "Both lockers are open: the Elm St Locker (PP-118) and the Pine Rd \
                       Locker (PP-220). I can hold PX-3302 at either one - which would you like?";
        let pick = |value: &str, reply: &str| pick_in(lockers, value, false, reply);
        assert_eq!(
            pick("PP-118", "yes — the second one"),
            Some(Pick::Alternative)
        );
        assert_eq!(
            pick("PP-118", "the pine rd one please"),
            Some(Pick::Alternative)
        );
        // The question points at the lockers: a reply picking neither
        // picks none.
        assert_eq!(pick("PP-118", "yes"), Some(Pick::Neither));
        assert_eq!(pick("PP-118", "sounds good \u{1f44d}"), Some(Pick::Neither));
        assert_eq!(
            pick("PP-118", "ok go ahead and hold it"),
            Some(Pick::Neither)
        );
        // A description in brackets belongs to its option.
        let tools = "I can grant figma (editor) or sketch (member). Which one?";
        let refills = "Queued: RF-34421 (prednisone 10 mg, 21 tablets) and RF-34427 (cetirizine \
                       10 mg). Which one should I cancel?";
        let drugs = "Shall I cancel RF-5510 (amoxicillin) or RF-5527 (cetirizine)?";
        for (question, value, reply, picked) in [
            (tools, "sketch", "figma please, yes", Pick::Alternative),
            (tools, "figma", "sketch, yes", Pick::Alternative),
            (refills, "RF-34427", "yes, RF-34421", Pick::Alternative),
            (refills, "RF-34421", "rf-34427 yes", Pick::Alternative),
            (
                drugs,
                "RF-5527",
                "yes cancel the amoxicillin one",
                Pick::Alternative,
            ),
            (drugs, "RF-5527", "the cetirizine one", Pick::Value),
            (drugs, "RF-5510", "the cetirizine one", Pick::Alternative),
        ] {
            assert_eq!(
                pick_in(question, value, false, reply),
                Some(picked),
                "{value} after {reply:?}"
            );
        }
        // Other words naming neither locker pick neither of them.
        assert_eq!(
            pick("PP-118", "the one by the station, yes"),
            Some(Pick::Neither)
        );
        // *And* joins more than options: where the question names another
        // kind of thing, a reply picking neither is read as before.
        let receipt = "I'll hold PX-3302 at the Elm St Locker (PP-118) and PX-3310 at the \
                       Pine Rd Locker (PP-220). Which email should get the codes?";
        assert_eq!(
            pick_in(receipt, "PP-118", false, "yes"),
            Some(Pick::Unclear)
        );
        // Without a question asking to pick one, *and* offers nothing.
        let both = "I'll hold PX-3302 at the Elm St Locker (PP-118) and email you the code. OK?";
        assert_eq!(pick_in(both, "PP-118", false, "the second one"), None);
    }

    #[test]
    fn the_items_of_a_list_a_turn_asks_to_pick_from_are_options() {
        let finance = "Thanks, Marta (E6123, Finance). Options for the grant to E6123:\n\
                       - option 1: netsuite\n- option 2: quickbooks\nPick one and I'll go ahead - shall I?";
        let pick = |value: &str, reply: &str| pick_in(finance, value, false, reply);
        assert_eq!(pick("netsuite", "option 2. yes"), Some(Pick::Alternative));
        assert_eq!(pick("netsuite", "option 1. yes"), Some(Pick::Value));
        assert_eq!(pick("netsuite", "quickbooks pls"), Some(Pick::Alternative));
        assert_eq!(pick("netsuite", "yes"), Some(Pick::Neither));
        let refills = "You have two queued refills at Maple Ave:\n\
                       - RF-90412: sertraline 50 mg, 30 tablets\n\
                       - RF-90418: norethindrone 0.35 mg, 28 tablets\nWhich of these should I cancel?";
        let pick = |value: &str, reply: &str| pick_in(refills, value, false, reply);
        assert_eq!(pick("RF-90412", "sure, go ahead"), Some(Pick::Neither));
        assert_eq!(pick("RF-90412", "the second one"), Some(Pick::Alternative));
        assert_eq!(pick("RF-90412", "rf-90412 please"), Some(Pick::Value));
        assert_eq!(pick("RF-90412", "rf90412 yes"), Some(Pick::Value));
        // A detail every option shares is no option.
        let twins = "Two identical charges:\n- TXN-2207: 23.10 at PharmaPlus\n\
                     - TXN-2209: 23.10 at PharmaPlus\nWhich one should I dispute?";
        assert_eq!(pick_in(twins, "23.10", true, "TXN-2209, yes"), None);
        // An *and* joins amounts only side by side.
        let charges = "Two charges on your card ending 5508: TXN-50231 and TXN-50388, each \
                       for 15.99. Which one would you like disputed?";
        assert_eq!(pick_in(charges, "15.99", true, "yes txn50388"), None);
        let limits = "I can raise it to 4,500 and to 6,000 too; which one would you like?";
        assert_eq!(
            pick_in(limits, "6000", true, "4500 please"),
            Some(Pick::Alternative)
        );
    }

    #[test]
    fn an_option_ends_where_a_question_opens() {
        let q = "Either one works for your team: adobe-cc and canva. Which should I grant \
                 E7345 access to? Shall I go ahead then?";
        assert_eq!(
            pick_in(q, "adobe-cc", false, "canva, its way easier. yes"),
            Some(Pick::Alternative)
        );
        assert_eq!(
            pick_in(q, "adobe-cc", false, "adobe please, yes"),
            Some(Pick::Value)
        );
    }
}
