//! The word classes the stance grammar is built from. Data only; the rules
//! that combine them are in `stance`. Every entry is a token sequence after
//! normalisation (lower case, `n't` expanded to `not`).

/// Interjections that say yes when they open a clause (after fillers):
/// "Yes, …", "Sure.", "Okay, …". Weak: a question elsewhere in the reply
/// means the user is still deciding.
pub(crate) const YES_HEADS: &[&[&str]] = &[
    &["yes"],
    &["yeah"],
    &["yep"],
    &["yup"],
    &["yea"],
    &["ya"],
    &["sure"],
    &["ok"],
    &["okay"],
    &["alright"],
    &["all", "right"],
    &["absolutely"],
    &["definitely"],
    &["certainly"],
    &["correct"],
    &["right"],
    &["exactly"],
    &["affirmative"],
    &["of", "course"],
];

/// Go-ahead phrases that say yes anywhere in a statement (not inside a
/// question): strong, they stand even if the reply adds an unrelated question.
pub(crate) const GO_AHEAD: &[&[&str]] = &[
    &["go", "ahead"],
    &["go", "for", "it"],
    &["proceed"],
    &["i", "confirm"],
    &["confirmed"],
    &["please", "do"],
    &["do", "it"],
    &["yes", "please"],
    &["let's", "do"],
    &["book", "it"],
    &["please", "confirm"],
    &["please", "continue"],
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
];

/// Agreement phrases that say yes anywhere in a statement; weak like
/// [`YES_HEADS`].
pub(crate) const AGREEMENT: &[&[&str]] = &[
    &["that's", "right"],
    &["that", "is", "right"],
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
    &["i", "approve"],
    &["i", "accept"],
    &["that's", "fine"],
    &["fine", "by", "me"],
];

/// Words skipped at the start of a clause before looking for its head.
pub(crate) const FILLERS: &[&str] = &[
    "um", "uh", "umm", "uhh", "oh", "well", "and", "so", "then", "also", "great", "perfect",
    "thanks", "thank", "you", "merci", "please", "just", "cool", "awesome",
];

/// Negators: any of them anywhere defeats a yes; one opening a clause, or in
/// the same clause as a yes word, makes the reply a refusal.
pub(crate) const NEGATORS: &[&str] = &[
    "no", "not", "never", "nothing", "none", "nope", "nah", "nay", "nor", "neither", "without",
    "nobody",
];

/// Idioms whose negator negates nothing the user is asked about.
pub(crate) const NEUTRAL_NEGATIONS: &[&[&str]] = &[
    &["no", "problem"],
    &["no", "worries"],
    // Closing a list: "No other changes needed", "nothing else".
    &["no", "other"],
    &["nothing", "else"],
];

/// Refusal verbs: saying one is a refusal.
pub(crate) const REFUSALS: &[&[&str]] = &[
    &["refuse"],
    &["decline"],
    &["reject"],
    &["deny"],
    &["object"],
];

/// Contrast and correction markers: with a yes, the user agreed to something
/// other than what was listed ("yes, but …", "… instead").
pub(crate) const CONTRAST: &[&[&str]] = &[
    &["but"],
    &["however"],
    &["although"],
    &["though"],
    &["rather"],
    &["instead"],
    &["except"],
    &["otherwise"],
    &["whereas"],
    &["yet"],
    &["i", "mean"],
];

/// Contrast markers only when they open a clause: "Actually, …" corrects,
/// "how much I'm actually saving" emphasises.
pub(crate) const CONTRAST_HEADS: &[&[&str]] = &[&["actually"], &["still"]];

/// Words before a condition marker that make it no condition on the answer:
/// "even if" concedes, "let me know if" asks to be told.
pub(crate) const CONDITION_NEUTRALISERS: &[&[&str]] =
    &[&["even"], &["let", "me", "know"], &["let", "us", "know"]];

/// Conditions: the yes holds only under something not yet established.
pub(crate) const CONDITIONS: &[&[&str]] = &[
    &["if"],
    &["unless"],
    &["when"],
    &["whenever"],
    &["whether"],
    &["until"],
    &["till"],
    &["once"],
    &["provided"],
    &["providing"],
    &["assuming"],
    &["before"],
    &["as", "long", "as"],
    &["in", "case"],
    &["depends"],
];

/// Hedges: the user is unsure, so there is no explicit yes.
pub(crate) const HEDGES: &[&[&str]] = &[
    &["maybe"],
    &["perhaps"],
    &["possibly"],
    &["probably"],
    &["might"],
    &["guess"],
    &["suppose"],
    &["think"],
    &["unsure"],
    &["uncertain"],
    &["hmm"],
    &["hm"],
    &["idk"],
    &["dunno"],
    &["kinda"],
    &["sorta"],
    &["kind", "of"],
    &["sort", "of"],
    &["wonder"],
    &["hesitant"],
    &["reluctant"],
    &["whatever"],
    &["let", "me", "check"],
    &["let", "me", "see"],
    &["a", "minute"],
    &["a", "moment"],
    &["a", "second"],
];

/// Keeping what the action would change: the opposite of consent to it.
pub(crate) const RETENTION: &[&[&str]] = &[
    &["keep"],
    &["retain"],
    &["hold", "onto"],
    &["hold", "on", "to"],
    &["hang", "onto"],
    &["hang", "on", "to"],
    &["leave", "it"],
    &["leave", "them"],
    &["as", "it", "is"],
    &["as", "is"],
];

/// Withdrawals anywhere in the reply: the user takes back or stops.
pub(crate) const WITHDRAWALS: &[&[&str]] = &[
    &["changed", "my", "mind"],
    &["change", "my", "mind"],
    &["changing", "my", "mind"],
    &["never", "mind"],
    &["nevermind"],
    &["scratch", "that"],
    &["forget", "it"],
    &["forget", "that"],
    &["forget", "about", "it"],
    &["second", "thought"],
    &["second", "thoughts"],
    &["take", "it", "back"],
    &["take", "that", "back"],
    &["reconsider"],
    &["retract"],
    &["withdraw"],
    &["revoke"],
    &["hold", "off"],
    &["not", "yet"],
];

/// Withdrawals only when they open a clause ("Wait, …", "Hold on."), so "I'll
/// wait until it's delivered" is not one.
pub(crate) const WITHDRAWAL_HEADS: &[&[&str]] = &[
    &["wait"],
    &["stop"],
    &["hold", "on"],
    &["hang", "on"],
    &["cancel", "that"],
];

/// Sarcasm: a yes said with one of these means no.
pub(crate) const SARCASM: &[&[&str]] = &[
    &["pigs", "fly"],
    &["pigs", "can", "fly"],
    &["yeah", "right"],
    &["oh", "sure"],
    &["oh", "yeah"],
    &["as", "if"],
    &["in", "your", "dreams"],
    &["dream", "on"],
    &["you", "wish"],
    &["dead", "body"],
    &["hell", "freezes"],
    &["million", "years"],
    &["fat", "chance"],
    &["nice", "try"],
    &["good", "one"],
    &["like", "i'd"],
    &["like", "i", "would"],
    &["set", "my", "house", "on", "fire"],
    &["lol"],
    &["lmao"],
    &["rofl"],
    &["haha"],
    &["hahaha"],
];

/// Sarcasm marks read from the raw text (they are not words).
pub(crate) const SARCASM_MARKS: &[&str] =
    &["/s", "\u{1f644}", "\u{1f612}", "\u{1f643}", "\u{1f60f}"];

/// Cues that an agent turn asks the user to decide something.
pub(crate) const ASK_CUES: &[&[&str]] = &[
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

/// Verbs and nouns of state-changing actions: without key values, an agent
/// request for a decision is a summary only if it names an identifier or one
/// of these ("Do you want a coffee?" names neither).
pub(crate) const ACTION_WORDS: &[&str] = &[
    "cancel",
    "cancelling",
    "canceling",
    "cancellation",
    "modify",
    "modification",
    "change",
    "update",
    "exchange",
    "return",
    "refund",
    "book",
    "booking",
    "upgrade",
    "downgrade",
    "remove",
    "charge",
    "transfer",
    "reset",
    "replace",
    "rebook",
    "delete",
];

/// Words of a keyword after which `to` starts an infinitive ("I don't need
/// to cancel"), a different sense from the keyword's object use ("I don't
/// need it").
pub(crate) const INFINITIVE_VERBS: &[&str] = &["need", "want", "have", "like", "wish", "plan"];

/// Words that end a negator's scope inside a clause.
pub(crate) const SCOPE_ENDS: &[&str] = &[
    "and", "but", "because", "since", "so", "although", "though", "while", "whereas", "however",
    "or",
];
