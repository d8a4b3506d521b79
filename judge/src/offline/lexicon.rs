//! The offline judge's phrase tables: which words and phrases say yes, no or
//! "not yet", which open a clause without meaning anything, which negate or
//! make hypothetical a phrase after them, and which make an agent turn a
//! request for a decision. Data only; the rules that read it are in
//! `consent`.

/// Stems whose presence makes a criterion a confirmation/consent criterion
/// (with the word "yes", checked separately).
pub(super) const CONSENT_STEMS: &[&str] = &[
    "confirm",
    "consent",
    "agree",
    "approv",
    "permission",
    "authoriz",
    "authoris",
];

/// Consent/go-ahead phrases that commit the user even next to other requests.
pub(super) const STRONG: &[&[&str]] = &[
    &["go", "ahead"],
    &["proceed"],
    &["i", "confirm"],
    &["confirmed"],
    &["please", "do"],
    &["do", "it"],
    &["book", "it"],
    &["let's", "do"],
    &["yes", "please"],
    &["please", "confirm"],
    &["please", "cancel"],
    &["please", "process"],
    &["please", "book"],
    &["please", "update"],
    &["please", "change"],
    &["please", "make"],
    &["please", "return"],
    &["please", "exchange"],
    &["please", "modify"],
    &["please", "remove"],
    &["please", "continue"],
];

/// Words that, opening a clause, say yes.
pub(super) const WEAK_HEADS: &[&str] = &[
    "yes",
    "yeah",
    "yep",
    "yup",
    "ya",
    "sure",
    "correct",
    "right",
    "absolutely",
    "definitely",
    "certainly",
    "exactly",
    "ok",
    "okay",
    "alright",
    "perfect",
    "affirmative",
];

/// Phrases that say yes wherever they occur.
pub(super) const WEAK_PHRASES: &[&[&str]] = &[
    &["that's", "right"],
    &["that's", "correct"],
    &["that", "is", "correct"],
    &["is", "correct"],
    &["are", "correct"],
    &["all", "correct"],
    &["sounds", "good"],
    &["sounds", "great"],
    &["looks", "good"],
    &["that", "works"],
    &["works", "for", "me"],
    &["i", "agree"],
    &["that's", "fine"],
    &["fine", "by", "me"],
];

/// Words that, opening a clause, say no or not yet.
pub(super) const NEGATIVE_HEADS: &[&str] = &[
    "nope", "nah", "wait", "stop", "hold", "don't", "dont", "not",
];

/// Phrases that refuse, hesitate or withdraw wherever they occur.
pub(super) const NEGATIVE_PHRASES: &[&[&str]] = &[
    &["not", "yet"],
    &["hold", "on"],
    &["hold", "off"],
    &["don't", "proceed"],
    &["do", "not", "proceed"],
    &["don't", "do", "that"],
    &["don't", "do", "it"],
    &["changed", "my", "mind"],
    &["change", "my", "mind"],
    &["never", "mind"],
    &["nevermind"],
    &["think", "about", "it"],
    &["not", "sure"],
    &["that's", "not"],
    &["that", "is", "not"],
    &["not", "correct"],
    &["not", "right"],
    &["incorrect"],
    &["that's", "wrong"],
    &["before", "i"],
    &["let", "me", "think"],
];

/// Words skipped at the start of a clause before looking for yes/no.
pub(super) const FILLERS: &[&str] = &[
    "um", "uh", "umm", "uhh", "oh", "well", "and", "so", "hmm", "hm", "then", "also", "great",
    "thanks", "merci", "please",
];

/// Words that, shortly before a phrase, negate it.
pub(super) const NEGATORS: &[&str] = &[
    "not",
    "don't",
    "dont",
    "didn't",
    "won't",
    "can't",
    "cannot",
    "never",
    "no",
    "shouldn't",
];

/// Words that, shortly before a phrase, make it hypothetical ("I'm not sure
/// if these are correct"): such an occurrence says neither yes nor no.
pub(super) const CONDITIONALS: &[&str] = &["if", "whether"];

/// Cues that an agent turn asks the user to decide something.
pub(super) const ASK_CUES: &[&[&str]] = &[
    &["confirm"],
    &["confirmation"],
    &["proceed"],
    &["go", "ahead"],
    &["shall", "i"],
    &["should", "i"],
    &["would", "you", "like"],
    &["do", "you", "want"],
    &["want", "me", "to"],
    &["like", "me", "to"],
    &["yes"],
    &["is", "that", "correct"],
    &["is", "this", "correct"],
    &["is", "that", "right"],
    &["are", "you", "sure"],
    &["okay", "with"],
    &["ok", "with"],
    &["sound", "good"],
    &["ready", "to"],
];
