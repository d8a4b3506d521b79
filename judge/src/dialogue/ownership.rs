//! Ownership denial: whether a turn says that something it names (or that
//! the turn before it named) is not the speaker's — "W12 is not mine",
//! "that isn't my account", "that's my sister's", "it belongs to my
//! colleague", "I don't own it". Read by code, in English only: what the
//! thing is (an account, a card, an order) is never asked, so no domain's
//! words are needed.
//!
//! A turn is read as clauses: sentences (ended by `.` `!` `?` `;` or a line
//! break) split at *but, however, though, although, whereas*. A clause
//! denies ownership when it is a statement (not a question) and
//! - negates the speaker's possession after a copula or at its start:
//!   *is / was / 's / are* (an adverb may stand between) *not / never / no
//!   longer* followed by *mine, ours*, or *my / our* and a noun — not a
//!   person ("not my brother" names who else it is not), not an idiom ("not
//!   my fault / problem / idea / …") and not a possessive ("not my wife's"
//!   says whose it is not); or says *not mine / not ours* anywhere;
//! - gives it to someone else after a copula (and *in / under*: "is
//!   under my husband's name"): *my / our / his / her / their / someone /
//!   somebody / another* with a possessive within two words ("my
//!   husband's", "someone else's", "another person's"), or *his / her /
//!   their* and a noun ("her booking"); or *belongs to* anyone but *me /
//!   us*;
//! - negates belonging or holding: *not belong to me/us*, *not registered
//!   to / under / in* the speaker, *not in / under my name*, *do not own*,
//!   *never had a*; or says *not my* and a thing anywhere ("never seen it,
//!   not my card") but right after another thing of the speaker's, which
//!   it only sets against it ("into my bank account, not my credit card");
//!   or says *is not me* (who the agent found).
//!
//! A denying clause that names a value denies it ([`Disowning::disowns`]);
//! one that names none refers back: to the values of an earlier clause of
//! the same turn, or — when it is the turn's first clause — to the turn
//! before ([`Disowning::disowns_previous`]). A bare no ("No.", "Nope", "No
//! it isn't") denies what the turn before named only when that turn asked
//! whether it is the user's ([`asks_ownership`]: "Is that your account?",
//! "Is D-12 yours?", "Does it belong to you?", "Is that you?").
//!
//! Its words are its own, not the grammar's tokens (`tokens.rs`): a value
//! stays one word as values are written (`jo.doe@example.org`, `W12-34`),
//! and a word keeps whether it was possessive (`parents'`), where the
//! grammar splits the one and drops the other.

use std::borrow::Cow;

use smol_str::{SmolStr, StrExt};

/// Words that link a subject to what it is.
const COPULAS: &[&str] = &["is", "are", "was", "were", "be", "been", "am"];

/// Pronouns after which `'s` is *is* ("that's"), not a possessive.
const PRONOUNS: &[&str] = &[
    "it", "that", "this", "he", "she", "there", "here", "what", "who", "which", "one",
];

/// Negators of a possession.
const NEGATORS: &[&str] = &["not", "never"];

/// Nouns that follow "not my" in idioms about anything but possession.
const IDIOMS: &[&str] = &[
    "fault",
    "problem",
    "issue",
    "idea",
    "choice",
    "decision",
    "concern",
    "intention",
    "plan",
    "job",
    "responsibility",
    "business",
    "style",
    "thing",
    "mistake",
    "call",
    "area",
    "place",
    "day",
    "turn",
    "favorite",
    "favourite",
    "preference",
    "priority",
    "question",
    "point",
    "worry",
    "cup",
    "first",
    "intent",
    "understanding",
];

/// People someone may own a thing for: "not my brother" says who else the
/// owner is not.
const PEOPLE: &[&str] = &[
    "brother",
    "sister",
    "wife",
    "husband",
    "mom",
    "mum",
    "mother",
    "dad",
    "father",
    "son",
    "daughter",
    "friend",
    "partner",
    "colleague",
    "coworker",
    "boss",
    "roommate",
    "flatmate",
    "neighbor",
    "neighbour",
    "kid",
    "kids",
    "child",
    "children",
    "parent",
    "parents",
    "uncle",
    "aunt",
    "cousin",
    "grandmother",
    "grandfather",
    "grandma",
    "grandpa",
    "girlfriend",
    "boyfriend",
    "fiance",
    "fiancee",
    "spouse",
    "employer",
    "landlord",
    "tenant",
    "family",
];

/// Words that open a clause without changing what it says.
const OPENERS: &[&str] = &[
    "no", "nope", "nah", "oh", "well", "um", "uh", "hmm", "sorry", "actually", "so", "and",
];

/// Words a bare no may be made of ("No.", "Nope, it isn't", "No, sorry").
const BARE_NO: &[&str] = &[
    "no",
    "nope",
    "nah",
    "not",
    "it",
    "that",
    "this",
    "is",
    "sorry",
    "i",
    "am",
    "afraid",
    "definitely",
    "really",
];

/// Words that split a sentence into clauses.
const CONTRASTS: &[&str] = &["but", "however", "though", "although", "whereas"];

/// One word of a turn: lower-cased (a short word, nearly every one, held
/// inline), and whether it carried a possessive `'s` (or a plural's `'`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Word {
    text: SmolStr,
    possessive: bool,
}

/// A clause: its words, and whether its sentence is a question.
#[derive(Clone, Debug)]
struct Clause {
    words: Vec<Word>,
    question: bool,
}

/// One clause's reading.
#[derive(Clone, Debug)]
struct Reading {
    clause: Clause,
    /// The clause denies that something is the speaker's.
    denies: bool,
}

/// A turn read for ownership denials once, asked about many values.
#[derive(Clone, Debug)]
pub struct Disowning {
    readings: Vec<Reading>,
}

impl Disowning {
    /// Reads `turn`.
    #[must_use]
    pub fn new(turn: &str) -> Self {
        let readings = clauses(turn)
            .into_iter()
            .map(|clause| Reading {
                denies: !clause.question && denies(&clause.words),
                clause,
            })
            .collect();
        Disowning { readings }
    }

    /// Whether the turn denies that `value` is the speaker's: a denying
    /// clause names it, or a denying clause that names nothing follows a
    /// clause naming it.
    #[must_use]
    pub fn disowns(&self, value: &str) -> bool {
        // Either way a clause must deny: most turns have none.
        if !self.readings.iter().any(|r| r.denies) {
            return false;
        }
        let needle = value_words(value);
        if needle.is_empty() {
            return false;
        }
        let names = |r: &Reading| contains(&r.clause.words, &needle);
        self.readings.iter().enumerate().any(|(i, r)| {
            (r.denies && names(r))
                || (names(r)
                    && self
                        .readings
                        .iter()
                        .skip(i + 1)
                        .any(|later| later.denies && !names_a_value(&later.clause.words)))
        })
    }

    /// Whether the turn opens by denying that what the turn before named is
    /// the speaker's: its first clause that says more than an opener
    /// ("No.", "Hmm") denies and names no value of its own.
    #[must_use]
    pub fn disowns_previous(&self) -> bool {
        self.readings
            .iter()
            .find(|r| {
                !r.clause
                    .words
                    .iter()
                    .all(|w| OPENERS.contains(&w.text.as_str()))
            })
            .is_some_and(|r| r.denies && !names_a_value(&r.clause.words))
    }

    /// Whether the turn opens with a bare no: its first clause is a no
    /// and at most a few words restating it ("No it isn't", "Nope, sorry").
    #[must_use]
    pub fn answers_no(&self) -> bool {
        self.readings.first().is_some_and(|r| {
            let words = &r.clause.words;
            !r.clause.question
                && words
                    .first()
                    .is_some_and(|w| matches!(w.text.as_str(), "no" | "nope" | "nah"))
                && words.iter().all(|w| BARE_NO.contains(&w.text.as_str()))
        })
    }
}

/// Whether the agent's `turn` asks whether something is the user's: a
/// question whose copula is followed by *yours*, *you*, or *your* and one
/// noun ending it ("Is that your account?", "Can you confirm X is your
/// policy?", "Is that you?"), or that asks whether it belongs to them.
///
/// Only the turn's questions are read: a clause's question mark is its
/// sentence's, so a turn with none (most agent turns) is not tokenized.
#[must_use]
pub fn asks_ownership(turn: &str) -> bool {
    if !turn.contains('?') {
        return false;
    }
    let mut read = Vec::new();
    sentence_pieces(turn)
        .into_iter()
        .filter(|piece| piece.question)
        .any(|piece| {
            read.clear();
            push_clauses(&piece, &mut read);
            read.iter().any(asks_whose)
        })
}

/// Whether `clause` asks whether something is the listener's (see
/// [`asks_ownership`]; whether it is a question is its caller's to ask).
fn asks_whose(clause: &Clause) -> bool {
    let words: Vec<&str> = clause.words.iter().map(|w| w.text.as_str()).collect();
    let belongs = words
        .windows(3)
        .any(|w| matches!(w, ["belong" | "belongs", "to", "you"]));
    let copula_ends_with_you = words.iter().enumerate().any(|(i, w)| {
        COPULAS.contains(w)
            && match words.get(i + 1..) {
                Some(rest) => ends_with_you(rest),
                None => false,
            }
    });
    belongs || copula_ends_with_you
}

/// Whether the words after a copula end the clause on *yours* or *your*
/// and a noun (within five words), or are *that / this / it you*.
fn ends_with_you(rest: &[&str]) -> bool {
    let n = rest.len();
    let tail = |k: usize| rest.get(n.saturating_sub(k)..).unwrap_or_default();
    (n <= 5 && (matches!(tail(1), ["yours"]) || matches!(tail(2), ["your", _])))
        || matches!(rest, ["that" | "this" | "it", "you"])
}

/// Whether `words` deny that something is the speaker's (see the module).
fn denies(words: &[Word]) -> bool {
    let text = |i: usize| words.get(i).map_or("", |w| w.text.as_str());
    let possessive = |i: usize| words.get(i).is_some_and(|w| w.possessive);
    let starts = words
        .iter()
        .position(|w| !OPENERS.contains(&w.text.as_str()))
        .unwrap_or(words.len());
    for i in 0..words.len() {
        let w = text(i);
        // "not mine", "not ours", "not my card" anywhere.
        if NEGATORS.contains(&w)
            && (matches!(text(i + 1), "mine" | "ours")
                || (matches!(text(i + 1), "my" | "our")
                    && owned_noun(words, i + 2)
                    && !contrasts_own_things(words, i)))
        {
            return true;
        }
        // A negated possession after a copula (an adverb between), or at
        // the clause's start.
        let negation = if COPULAS.contains(&w) {
            negator_after(words, i + 1)
        } else if i == starts && NEGATORS.contains(&w) {
            Some(i + 1)
        } else {
            None
        };
        if let Some(j) = negation {
            let j = if is_adverb(text(j)) { j + 1 } else { j };
            // "not mine"; "that's not me" (who the agent found).
            if matches!(text(j), "mine" | "ours" | "me" | "us") {
                return true;
            }
            if matches!(text(j), "my" | "our") && owned_noun(words, j + 1) {
                return true;
            }
            if matches!(text(j), "in" | "under")
                && matches!(text(j + 1), "my" | "our")
                && text(j + 2) == "name"
            {
                return true;
            }
            if matches!(text(j), "registered" | "listed" | "issued")
                && matches!(text(j + 1), "to" | "under" | "in" | "for")
                && matches!(text(j + 2), "me" | "us" | "my" | "our")
            {
                return true;
            }
        }
        // Someone else's, after a copula (and "in / under": someone
        // else's name).
        if COPULAS.contains(&w) {
            let k = if is_adverb(text(i + 1)) { i + 2 } else { i + 1 };
            let k = if matches!(text(k), "in" | "under") {
                k + 1
            } else {
                k
            };
            let owner = text(k);
            if matches!(
                owner,
                "my" | "our" | "his" | "her" | "their" | "someone" | "somebody" | "another"
            ) && (possessive(k + 1) || possessive(k + 2))
            {
                return true;
            }
            if matches!(owner, "his" | "her" | "their") && !text(k + 1).is_empty() {
                return true;
            }
        }
        // Belonging.
        if matches!(w, "belong" | "belongs") && text(i + 1) == "to" {
            let negated = i >= 1 && NEGATORS.contains(&text(i - 1));
            let mine = matches!(text(i + 2), "me" | "us");
            if negated == mine {
                return true;
            }
        }
        // "I do not own", "I never owned", "I have never had a …".
        if matches!(w, "own" | "owned") && i >= 1 && NEGATORS.contains(&text(i - 1)) {
            return true;
        }
        if w == "never" && text(i + 1) == "had" && matches!(text(i + 2), "a" | "an" | "any") {
            return true;
        }
    }
    false
}

/// Whether the *not* at `at` sets one of the speaker's things against
/// another it follows right after ("pay into my bank account, not my
/// credit card"), or another of the same noun earlier in the clause
/// ("cancel my hold on Circe, not my hold on Dune"): both are the
/// speaker's, and the contrast says which, not whose.
fn contrasts_own_things(words: &[Word], at: usize) -> bool {
    let noun = words.get(at + 2).map(|w| w.text.as_str());
    (0..at).any(|k| {
        words
            .get(k)
            .is_some_and(|w| matches!(w.text.as_str(), "my" | "our"))
            && k + 1 < at
            && owned_noun(words, k + 1)
            && (k + CONTRAST_REACH >= at || words.get(k + 1).map(|w| w.text.as_str()) == noun)
    })
}

/// How many words before a *not* the thing it is set against may begin:
/// *my* and a noun of up to two words ("my bank account, not …").
const CONTRAST_REACH: usize = 3;

/// The position after a negator following position `i` (an adverb may
/// stand before it), if there is one: *not*, *never*, *no longer*.
fn negator_after(words: &[Word], i: usize) -> Option<usize> {
    let text = |i: usize| words.get(i).map_or("", |w| w.text.as_str());
    let i = if is_adverb(text(i)) { i + 1 } else { i };
    if NEGATORS.contains(&text(i)) {
        Some(i + 1)
    } else if text(i) == "no" && text(i + 1) == "longer" {
        Some(i + 2)
    } else {
        None
    }
}

/// Whether the word after *my / our* at `i` is a thing owned: a noun that
/// is no person, idiom or possessive.
fn owned_noun(words: &[Word], i: usize) -> bool {
    words.get(i).is_some_and(|w| {
        !w.possessive
            && !PEOPLE.contains(&w.text.as_str())
            && !IDIOMS.contains(&w.text.as_str())
            && w.text.chars().any(char::is_alphabetic)
    })
}

/// An adverb that may stand inside a copula's phrase ("is definitely not").
fn is_adverb(word: &str) -> bool {
    word.len() > 3 && word.ends_with("ly")
        || matches!(word, "even" | "actually" | "still" | "also" | "just")
}

/// Whether a clause names something that looks like a value: a word with
/// a digit, `@` or `_`.
fn names_a_value(words: &[Word]) -> bool {
    words.iter().any(|w| {
        w.text
            .chars()
            .any(|c| c.is_ascii_digit() || c == '@' || c == '_')
    })
}

/// Whether `needle` occurs in `words` as consecutive words.
fn contains(words: &[Word], needle: &[SmolStr]) -> bool {
    words
        .windows(needle.len())
        .any(|window| window.iter().zip(needle).all(|(w, n)| w.text == *n))
}

/// A value's words, as a clause's words are read.
fn value_words(value: &str) -> Vec<SmolStr> {
    words_of(value).into_iter().map(|w| w.text).collect()
}

/// The clauses of `turn` (see the module documentation).
fn clauses(turn: &str) -> Vec<Clause> {
    let mut out = Vec::new();
    for piece in sentence_pieces(turn) {
        push_clauses(&piece, &mut out);
    }
    out
}

/// Appends the clauses of one sentence to `out`: a clause never spans two
/// sentences, so each sentence is read on its own.
fn push_clauses(piece: &Piece<'_>, out: &mut Vec<Clause>) {
    let words = words_of(piece.text);
    if !words.iter().any(|w| CONTRASTS.contains(&w.text.as_str())) {
        // One clause, the sentence's words as they are (most sentences).
        if !words.is_empty() {
            out.push(Clause {
                words,
                question: piece.question,
            });
        }
        return;
    }
    let mut current: Vec<Word> = Vec::new();
    for word in words {
        if CONTRASTS.contains(&word.text.as_str()) {
            if !current.is_empty() {
                out.push(Clause {
                    words: std::mem::take(&mut current),
                    question: piece.question,
                });
            }
            continue;
        }
        current.push(word);
    }
    if !current.is_empty() {
        out.push(Clause {
            words: current,
            question: piece.question,
        });
    }
}

/// A sentence of a turn and whether it is a question.
struct Piece<'t> {
    text: &'t str,
    question: bool,
}

/// The sentences of `turn`: ended by `!` `?` `;` a line break, or a `.`
/// that ends a word (not one inside `jo.doe@example.org` or `3.5`).
fn sentence_pieces(turn: &str) -> Vec<Piece<'_>> {
    super::tokens::sentence_spans(turn)
        .filter_map(|(span, mark)| {
            // A piece holds the mark that ends it; the text after the last
            // one only when it says something.
            let end = span.end + usize::from(mark.is_some());
            let text = turn.get(span.start..end)?;
            (mark.is_some() || !text.trim().is_empty()).then_some(Piece {
                text,
                question: mark == Some(b'?'),
            })
        })
        .collect()
}

/// The words of `text`: runs of letters, digits and `_ - . @ / + '`,
/// stripped of the punctuation around them, lower-cased; `n't` becomes
/// *not* ("isn't" → *is not*, "won't" → *will not*, "can't" → *can not*);
/// `'s` after a pronoun becomes *is*, after any other word marks it
/// possessive, as a plural's final `'` does.
fn words_of(text: &str) -> Vec<Word> {
    const QUOTES: [char; 3] = ['\u{2019}', '\u{2018}', '`'];
    let normal = if text.contains(QUOTES) {
        Cow::Owned(text.replace(QUOTES, "'"))
    } else {
        Cow::Borrowed(text)
    };
    // About one word in six bytes: most turns need no regrowth.
    let mut out = Vec::with_capacity(normal.len() / 6 + 1);
    for_each_run(&normal, |raw, trimmed| {
        if raw.contains('\'') {
            push_word(raw, trimmed, &mut out);
        } else {
            // No contraction and no possessive without an apostrophe (and
            // lower-casing makes none): most words skip [`push_word`].
            out.push(Word {
                text: lower(trimmed),
                possessive: false,
            });
        }
    });
    out
}

/// Pushes the words of `raw`, a run of joining characters (`trimmed`: it
/// without the punctuation around it, not empty), by the rules of
/// [`words_of`].
fn push_word(raw: &str, trimmed: &str, out: &mut Vec<Word>) {
    let token = lower(trimmed);
    if let Some(stem) = token.strip_suffix("n't") {
        let stem = match stem {
            "wo" => "will",
            "ca" => "can",
            "sha" => "shall",
            other => other,
        };
        if !stem.is_empty() {
            out.push(plain(stem));
        }
        out.push(plain("not"));
        return;
    }
    if let Some(stem) = token.strip_suffix("'s") {
        if PRONOUNS.contains(&stem) {
            out.push(plain(stem));
            out.push(plain("is"));
        } else {
            out.push(Word {
                text: SmolStr::new(stem),
                possessive: true,
            });
        }
        return;
    }
    let contracted = [
        ("'re", "are"),
        ("'m", "am"),
        ("'ve", "have"),
        ("'ll", "will"),
    ]
    .into_iter()
    .find_map(|(suffix, expanded)| Some((token.strip_suffix(suffix)?, expanded)));
    if let Some((stem, expanded)) = contracted {
        out.push(plain(stem));
        out.push(plain(expanded));
        return;
    }
    let possessive = raw
        .trim_end_matches(|c: char| !c.is_alphanumeric() && c != '\'')
        .ends_with("s'");
    out.push(Word {
        text: SmolStr::new(token.trim_end_matches('\'')),
        possessive,
    });
}

/// The runs of joining characters of `text` (letters, digits and any of
/// `_ - . @ / + '`), each with itself stripped of the punctuation around
/// it; runs of punctuation only are left out.
///
/// ASCII text (most turns) is read byte by byte, where a byte is its
/// character ([`runs_by_chars`] is the rule, tested equal); other text by
/// characters.
fn for_each_run<'t>(text: &'t str, mut f: impl FnMut(&'t str, &'t str)) {
    if !text.is_ascii() {
        for (raw, trimmed) in runs_by_chars(text) {
            f(raw, trimmed);
        }
        return;
    }
    let bytes = text.as_bytes();
    let mut start = 0;
    for end in 0..=bytes.len() {
        if bytes.get(end).is_some_and(|&b| joins(char::from(b))) {
            continue;
        }
        let raw = text.get(start..end).unwrap_or_default();
        start = end + 1;
        let raw_bytes = raw.as_bytes();
        let Some(first) = raw_bytes.iter().position(u8::is_ascii_alphanumeric) else {
            continue;
        };
        let last = raw_bytes
            .iter()
            .rposition(u8::is_ascii_alphanumeric)
            .unwrap_or(first);
        if let Some(trimmed) = raw.get(first..=last) {
            f(raw, trimmed);
        }
    }
}

/// Whether a character joins a run ([`for_each_run`]).
fn joins(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '@' | '/' | '+' | '\'')
}

/// The runs of [`for_each_run`], by a split of the characters.
fn runs_by_chars(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.split(|c: char| !joins(c))
        .map(|raw| (raw, raw.trim_matches(|c: char| !c.is_alphanumeric())))
        .filter(|(_, trimmed)| !trimmed.is_empty())
}

/// `word` lower-cased as `str::to_lowercase` does, held inline when short:
/// an ASCII word byte by byte, any other with the whole word as context (a
/// capital sigma lowers by its place in the word).
fn lower(word: &str) -> SmolStr {
    if word.is_ascii() {
        word.to_ascii_lowercase_smolstr()
    } else {
        SmolStr::from(word.to_lowercase())
    }
}

fn plain(text: &str) -> Word {
    Word {
        text: SmolStr::new(text),
        possessive: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        words_of(s)
            .into_iter()
            .map(|w| w.text.to_string())
            .collect()
    }

    #[test]
    fn contractions_and_possessives_are_read() {
        assert_eq!(texts("That isn't mine."), ["that", "is", "not", "mine"]);
        assert_eq!(texts("it's my wife's"), ["it", "is", "my", "wife"]);
        assert!(words_of("my wife's")[1].possessive);
        assert!(words_of("my parents' car")[1].possessive);
        assert_eq!(texts("won't"), ["will", "not"]);
        assert_eq!(texts("jo.doe@example.org."), ["jo.doe@example.org"]);
    }

    /// [`words_of`] with every run read by [`push_word`]: the rule its
    /// shortcut for a run without an apostrophe keeps.
    fn words_of_every_run_by_rule(text: &str) -> Vec<Word> {
        let normal = text.replace(['\u{2019}', '\u{2018}', '`'], "'");
        let mut out = Vec::new();
        for (raw, trimmed) in runs_by_chars(&normal) {
            push_word(raw, trimmed, &mut out);
        }
        out
    }

    #[test]
    fn ascii_runs_are_the_runs_of_the_characters() {
        for text in [
            "W12-34 is NOT Jo.Doe@Example.org's; (you're) sure?? -- ... 'x' a+b/c_d",
            "..., --",
            "'",
            "",
        ] {
            let mut runs = Vec::new();
            for_each_run(text, |raw, trimmed| runs.push((raw, trimmed)));
            let by_chars: Vec<(&str, &str)> = runs_by_chars(text).collect();
            assert_eq!(runs, by_chars, "{text}");
        }
    }

    #[test]
    fn a_word_without_an_apostrophe_is_read_by_the_rule() {
        for text in [
            "That isn't mine; it's my wife's, not my parents' car.",
            "W12-34 is NOT Jo.Doe@Example.org's, you're sure? I'M NOT.",
            "Caf\u{c9} \u{3a3}\u{3a3} ODYSSEUS \u{130}stanbul won\u{2019}t `x` -- ... 'quoted'",
            "",
        ] {
            assert_eq!(words_of(text), words_of_every_run_by_rule(text), "{text}");
        }
    }

    #[test]
    fn sentences_end_at_a_word_final_period_only() {
        let pieces = sentence_pieces("Email jo.doe@example.org. Is it 3.5? Yes");
        let texts: Vec<&str> = pieces.iter().map(|p| p.text.trim()).collect();
        assert_eq!(texts, ["Email jo.doe@example.org.", "Is it 3.5?", "Yes"]);
        assert!(pieces[1].question);
        let pieces = sentence_pieces("Caf\u{e9}.\u{a0}Na\u{ef}ve.\u{e9} \u{2014}ok?\u{1f600}!");
        let texts: Vec<&str> = pieces.iter().map(|p| p.text).collect();
        assert_eq!(
            texts,
            [
                "Caf\u{e9}.",
                "\u{a0}Na\u{ef}ve.\u{e9} \u{2014}ok?",
                "\u{1f600}!"
            ]
        );
    }

    /// Agent turns of every shape the ownership question takes, and of the
    /// shapes around it.
    const AGENT_TURNS: &[&str] = &[
        "Is that your account?",
        "I found order #W12. Is W12 yours? Let me know.",
        "Can you confirm X-9 is your policy?",
        "Does it belong to you?",
        "Is that you? The name on file is Jo Doe.",
        "That is your account. It belongs to you.",
        "Here are the details:\n- Order W12\n- Total $30.00\nWould you like me to proceed?",
        "Is it yours, but not your wife's? Or is it your brother's account?",
        "The card ending 4821 is yours; is the other one your partner's card",
        "Thanks! I\u{2019}ve cancelled it. Is there anything else?",
        "",
        "?",
        "Is \u{3a3}AS your account?",
    ];

    /// The rule [`asks_ownership`] shortcuts: every clause of the turn
    /// read, its questions asked.
    fn asks_ownership_of_every_clause(turn: &str) -> bool {
        clauses(turn).iter().filter(|c| c.question).any(asks_whose)
    }

    #[test]
    fn reading_only_the_questions_asks_the_same() {
        for turn in AGENT_TURNS {
            assert_eq!(
                asks_ownership(turn),
                asks_ownership_of_every_clause(turn),
                "{turn}"
            );
        }
        assert!(asks_ownership(
            "I found order #W12. Is W12 yours? Let me know."
        ));
        assert!(!asks_ownership("That is your account. It belongs to you."));
    }

    #[test]
    fn a_turn_without_a_question_mark_asks_nothing() {
        for turn in AGENT_TURNS {
            let statement = turn.replace('?', ".");
            assert!(!asks_ownership(&statement), "{statement}");
            assert!(!asks_ownership_of_every_clause(&statement), "{statement}");
        }
    }

    /// Non-ASCII words are lowered with their context, as `str::to_lowercase`
    /// lowers them: a final capital sigma is a final sigma.
    #[test]
    fn words_lower_as_the_standard_library_does() {
        for word in [
            "ODYSSEUS",
            "\u{3a3}\u{3a3}",
            "Caf\u{c9}",
            "\u{130}stanbul",
            "W12",
        ] {
            assert_eq!(lower(word), word.to_lowercase(), "{word}");
        }
    }

    #[test]
    fn a_question_denies_nothing() {
        assert!(!Disowning::new("Is W12 not mine?").disowns("W12"));
        assert!(Disowning::new("W12 is not mine.").disowns("W12"));
    }

    #[test]
    fn one_of_my_things_set_against_another_denies_neither() {
        let contrast = Disowning::new(
            "POL-41390, DOB November 2, 1979. My approved claim should pay into my bank \
             account, not my credit card.",
        );
        assert!(!contrast.disowns("POL-41390"));
        assert!(!contrast.disowns("1979"));
        assert!(
            !Disowning::new("Order W12: send it to my home address, not my office.").disowns("W12")
        );
        let same_noun = Disowning::new(
            "My card is 2900451. Please cancel my hold on Circe, not my hold on Dune.",
        );
        assert!(!same_noun.disowns("2900451"));
        // A thing that is not the speaker's still is denied.
        assert!(Disowning::new("5512? never seen it before, not my card").disowns("5512"));
        assert!(Disowning::new("Card 5512 is not my card.").disowns("5512"));
        assert!(Disowning::new("W12 - my statement shows it, not my order").disowns("W12"));
    }
}
