//! The word classes the stance grammar is built from. Data only; the rules
//! that combine them are in `stance`. Every entry is a token sequence after
//! normalisation (lower case, `n't` expanded to `not`).

/// Interjections that say yes when they open a clause (after fillers):
/// "Yes, …", "Sure.", "Okay, …". Weak: a question elsewhere in the reply
/// means the user is still deciding.
pub(crate) const YES_HEADS: &[&[&str]] = &[
    &["yes"],
    &["y"],
    &["k"],
    &["kk"],
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

/// Yes heads that also acknowledge ("Okay. When will it be cancelled?"
/// may only take the news in): a question after one of them alone still
/// leaves the decision open.
pub(crate) const ACKNOWLEDGING_YES: &[&str] = &["ok", "okay", "k", "kk", "alright", "all", "right"];

/// Go-ahead phrases that say yes anywhere in a statement (not inside a
/// question): strong, they stand even if the reply adds an unrelated question.
/// A domain adds those naming its actions ("please cancel").
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
    &["please", "confirm"],
    &["please", "continue"],
    &["please", "process"],
    &["please", "make"],
    &["please", "submit"],
    &["please", "apply"],
];

/// Go-ahead phrases that say to go on with the action itself, not just
/// yes: after a question offering the action or keeping things as they
/// are, they pick the action ("yes please" could answer either).
pub(crate) const GOING_ON: &[&[&str]] = &[
    &["go", "ahead"],
    &["proceed"],
    &["do", "it"],
    &["go", "for", "it"],
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
    "n", "no", "not", "never", "nothing", "none", "nope", "nah", "nay", "nor", "neither",
    "without", "nobody",
];

/// Words a `no` interjection leads into ("no I want to keep it", "no
/// thanks", "no don't"): after any other word `no` is a determiner ("no
/// water resistance").
pub(crate) const INTERJECTION_FOLLOWERS: &[&str] = &[
    "i",
    "i'm",
    "i'd",
    "i'll",
    "we",
    "you",
    "it",
    "that",
    "this",
    "thanks",
    "thank",
    "way",
    "need",
    "please",
    "sorry",
    "wait",
    "stop",
    "do",
    "does",
    "did",
    "will",
    "would",
    "can",
    "should",
    "just",
    "never",
    "not",
    "no",
    "nope",
    "keep",
    "leave",
    "proceed",
    "go",
    "actually",
    "absolutely",
    "definitely",
    "sir",
    "ma'am",
];

/// Idioms whose negator negates nothing the user is asked about (a domain
/// adds its own: a status "not yet shipped", a reason "no longer needed").
pub(crate) const NEUTRAL_NEGATIONS: &[&[&str]] = &[
    &["no", "problem"],
    &["no", "worries"],
    // Closing a list: "No other changes needed", "nothing else".
    &["no", "other"],
    &["nothing", "else"],
    // A feeling about the action, not a no to it ("not happy about having
    // to downgrade"): a contrast or condition with it still qualifies.
    &["not", "happy"],
    &["not", "thrilled"],
    &["not", "pleased"],
    &["not", "excited"],
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
    &["i", "meant"],
];

/// A concession before a contrast marker makes it none: "even though I'm
/// not happy about it" accepts, "though" alone corrects.
pub(crate) const CONTRAST_CONCESSIONS: &[&str] = &["even"];

/// Contrast markers only when they open a clause: "Actually, …" corrects,
/// "how much I'm actually saving" emphasises.
pub(crate) const CONTRAST_HEADS: &[&[&str]] = &[&["actually"], &["still"]];

/// A concession directly before a condition marker makes it none: "even
/// if" accepts the case.
pub(crate) const CONCESSIONS: &[&[&str]] = &[&["even"]];

/// Indirect questions: a condition marker after one of these in the same
/// clause asks to be told ("let me know once it's updated and when …",
/// "check if it has shipped") rather than making the answer conditional.
pub(crate) const INDIRECT_QUESTIONS: &[&[&str]] = &[
    &["please", "confirm"],
    &["you", "confirm"],
    &["let", "me", "know"],
    &["let", "us", "know"],
    &["tell", "me"],
    &["check"],
    &["see"],
    &["ask"],
    &["wondering"],
    &["know"],
];

/// Temporal markers that read as conditions ("when", "once") but, with a
/// completion word after them in the clause ([`COMPLETIONS`]), presuppose
/// the action: "confirm once it's done" asks to be told afterwards.
pub(crate) const TEMPORAL: &[&str] = &["once", "when", "whenever", "after", "until", "till"];

/// Words saying the action has happened (a domain adds its actions' past
/// forms: "cancelled").
pub(crate) const COMPLETIONS: &[&str] = &[
    "done",
    "complete",
    "completed",
    "finished",
    "processed",
    "submitted",
    "applied",
    "issued",
    "placed",
    "confirmed",
    "through",
    "received",
];

/// "if" phrases that only ask the agent to use judgement, not make the
/// answer conditional ("if possible, please confirm the window").
pub(crate) const COURTESY_CONDITIONS: &[&[&str]] = &[
    &["if", "possible"],
    &["if", "needed"],
    &["if", "necessary"],
    &["if", "applicable"],
    &["if", "any"],
    &["if", "there's", "any"],
    &["if", "there", "is", "any"],
    &["if", "there", "are", "any"],
];

/// What "after" may point at directly to presuppose the action: "after
/// this", "after that" (or, after "after the", a domain's noun for the
/// action: "after the change").
pub(crate) const ACTION_ANAPHORS: &[&str] = &["this", "that", "it"];

/// Acknowledging a consequence the agent stated: a negation after these in
/// the clause ("I understand the order can't be modified again") is the
/// policy's, not a qualification of the yes.
pub(crate) const ACKNOWLEDGEMENTS: &[&[&str]] = &[
    &["i", "understand"],
    &["understood"],
    &["i", "acknowledge"],
    &["i", "realize"],
    &["i", "realise"],
    &["i", "am", "aware"],
    &["i'm", "aware"],
    &["i", "know"],
];

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
    &["after"],
    &["as", "long", "as"],
    &["so", "long", "as"],
    &["on", "condition"],
    &["on", "the", "condition"],
    &["conditional", "on"],
    &["conditional", "upon"],
    &["in", "case"],
    &["depends"],
    &["subject", "to"],
    &["contingent", "on"],
    &["contingent", "upon"],
    &["depending", "on"],
];

/// Hypothetical conditions: a clause opening with one makes the
/// instruction after it in the sentence a contingency ("If the total is
/// higher, pause and let me know"), a condition rather than a withdrawal.
pub(crate) const HYPOTHETICALS: &[&[&str]] = &[&["if"], &["unless"], &["in", "case"], &["should"]];

/// Words right before *provided* / *providing* that make it a verb form,
/// not a condition: an auxiliary ("will be provided", "was provided") or a
/// subject pronoun ("the address you provided").
pub(crate) const PARTICIPLE_SUBJECTS: &[&str] = &[
    "be", "been", "being", "is", "are", "was", "were", "am", "has", "have", "had", "get", "got",
    "i", "you", "we", "they", "he", "she",
];

/// Verbs of needing in a question offering the agent more ("anything else
/// you need from me?").
pub(crate) const OFFER_VERBS: &[&str] = &["need", "needs", "require", "requires"];

/// The open objects of such an offer.
pub(crate) const OFFER_OBJECTS: &[&str] = &["anything", "else", "more", "further"];

/// The most words a clause may hold and still be a bare refusal ("no",
/// "ok no") wherever it stands.
pub(crate) const BARE_REFUSAL_WORDS: usize = 2;

/// Focus words after a negator that add rather than negate ("not just
/// email", "not only the lamp").
pub(crate) const ADDITIVE_FOCUS: &[&str] = &["just", "only", "merely", "simply"];

/// Conditions only when they open a clause: "Yes, pending sign-off from
/// security" waits on it, "the pending order" describes.
pub(crate) const CONDITION_HEADS: &[&[&str]] = &[&["pending"]];

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
];

/// Pauses: the user thinking aloud or asking for time. Before a yes in the
/// same reply ("hmm... yes, definitely, do it", "let me think. ok, yes,
/// cancel it") a pause is resolved by it; alone, or after the yes ("yes,
/// hmm", "ok, let me check"), it is a hedge. Single pause words are read
/// with their letter runs collapsed ([`PAUSE_WORDS`]).
pub(crate) const PAUSES: &[&[&str]] = &[
    &["let", "me", "think"],
    &["let", "me", "check"],
    &["let", "me", "see"],
    &["a", "minute"],
    &["a", "moment"],
    &["a", "second"],
    &["a", "sec"],
    &["one", "sec"],
    &["one", "second"],
    // A thing that can wait, not the user ("the other one can wait", not
    // "I can wait for the refund").
    &["one", "can", "wait"],
    &["ones", "can", "wait"],
    &["it", "can", "wait"],
    &["that", "can", "wait"],
    &["this", "can", "wait"],
    &["they", "can", "wait"],
    &["rest", "can", "wait"],
    &["others", "can", "wait"],
];

/// Pause interjections, each letter run collapsed to one letter: *hmm*,
/// *hmmm*, *umm*, *uhh*, *errr*, *erm*, *ahh*, *mmm*.
pub(crate) const PAUSE_WORDS: &[&str] = &["hm", "um", "uh", "er", "erm", "ah", "m", "uhm"];

/// Contrast markers that correct what was summarised wherever they stand,
/// even in a sentence that moves on to another request ("Also, I'd like the
/// red one instead").
pub(crate) const CORRECTIONS: &[&[&str]] =
    &[&["rather"], &["instead"], &["except"], &["otherwise"]];

/// Markers of a sentence that moves on to another request after the answer
/// ("Also, I ordered a jigsaw", "But I also have another issue"): with a
/// first-person word ([`FIRST_PERSON`]) in the same sentence.
pub(crate) const NEW_TOPIC: &[&[&str]] = &[
    &["another", "issue"],
    &["another", "question"],
    &["another", "thing"],
    &["another", "request"],
    &["one", "more", "thing"],
    &["something", "else"],
    &["by", "the", "way"],
    &["separately"],
    &["in", "addition"],
    &["additionally"],
];

/// Markers saying that what follows is about something other than the
/// decision ("Unrelated, but will I get a receipt?", "Quick side question:
/// …"): the sentence moves on, whoever it is about.
pub(crate) const TOPIC_CHANGES: &[&[&str]] = &[
    &["unrelated"],
    &["off", "topic"],
    &["side", "question"],
    &["side", "note"],
    &["different", "question"],
    &["different", "topic"],
    &["on", "another", "note"],
    &["on", "a", "different", "note"],
    &["on", "a", "separate", "note"],
    &["on", "a", "side", "note"],
    &["change", "of", "subject"],
    &["changing", "the", "subject"],
];

/// The word that opens a new request when it comes among a sentence's first
/// words ("Also, I …", "And I also …", "But I also …").
pub(crate) const NEW_TOPIC_HEAD: &str = "also";

/// How many words into a sentence [`NEW_TOPIC_HEAD`] may come.
pub(crate) const NEW_TOPIC_HEAD_WINDOW: usize = 3;

/// First-person words: a sentence about another request is the user's own.
pub(crate) const FIRST_PERSON: &[&str] = &[
    "i", "i'd", "i'm", "i've", "i'll", "me", "my", "we", "we'd", "we're", "our", "us",
];

/// Stems of words that make a clause bear on the action being confirmed,
/// besides the domain's action stems: going ahead, an anaphor for the
/// action, or a verb of wanting or agreeing. A negation after the yes
/// qualifies it only in such a clause ("I don't want it cancelled"); "I
/// don't have my email handy" does not.
pub(crate) const ACTION_STEMS: &[&str] = &[
    "proceed", "process", "submit", "want", "need", "like", "agree", "approv", "authori", "accept",
    "confirm", "okay", "fine", "sure", "go", "it", "them", "that", "this", "these", "those",
];

/// Field names whose value is the answer itself ("Confirm: no"): a negator
/// after one is a refusal, not a detail (a domain adds its actions:
/// "Cancel: no").
pub(crate) const DECISION_LABELS: &[&str] = &[
    "answer",
    "decision",
    "response",
    "reply",
    "confirm",
    "confirmation",
    "consent",
    "approval",
    "approve",
    "proceed",
    "action",
    "yes",
    "ok",
    "okay",
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
    &["leave", "the"],
    &["leave", "my"],
    &["leave", "our"],
    &["leave", "this"],
    &["leave", "that"],
    &["alone"],
    &["as", "it", "is"],
    &["as", "is"],
    &["is", "kept"],
    &["are", "kept"],
    &["be", "kept"],
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
    &["undo"],
    &["reverse", "it"],
    &["reverse", "that"],
    &["reverse", "the"],
    &["pause"],
    &["on", "hold"],
    &["you", "to", "wait"],
    &["please", "wait"],
    &["should", "wait"],
    &["better", "wait"],
    &["rather", "wait"],
    &["better", "to", "wait"],
    &["should", "i", "wait"],
    &["let's", "wait"],
    &["let", "us", "wait"],
    &["worth", "waiting"],
    &["wait", "instead"],
    // Deferring to someone else first.
    &["check", "with"],
    &["ask", "my"],
    &["talk", "to", "my"],
    &["consult"],
    &["run", "it", "by"],
    &["run", "this", "by"],
    &["run", "that", "by"],
    // Taking the last words back.
    &["nvm"],
    &["strike", "that"],
    &["disregard"],
    &["ignore", "that"],
    &["ignore", "my"],
    // Disowning the yes: someone else said it, or it was not meant.
    &["did", "not", "mean", "it"],
    &["did", "not", "mean", "that"],
    &["did", "not", "mean", "to", "say"],
    &["was", "not", "me"],
    &["was", "not", "from", "me"],
    &["typed", "that"],
    &["typed", "it"],
    &["answered", "for", "me"],
    &["was", "answering"],
];

/// Said by someone answering for the user rather than the user: they type
/// or speak for them, or the user is away ("Tom typing for Nadia", "on her
/// behalf", "Nadia stepped away").
pub(crate) const RELAYED: &[&[&str]] = &[
    &["typing", "for"],
    &["speaking", "for"],
    &["answering", "for"],
    &["replying", "for"],
    &["writing", "for"],
    &["on", "behalf", "of"],
    &["on", "her", "behalf"],
    &["on", "his", "behalf"],
    &["on", "their", "behalf"],
    &["stepped", "away"],
    &["stepped", "out"],
];

/// Words for a person standing to another ("her husband", "Dana's
/// assistant"): one naming themselves so answers for someone else.
pub(crate) const RELATION_NOUNS: &[&str] = &[
    "husband",
    "wife",
    "spouse",
    "partner",
    "boyfriend",
    "girlfriend",
    "fiance",
    "fiancee",
    "son",
    "daughter",
    "child",
    "kid",
    "mother",
    "father",
    "mom",
    "mum",
    "dad",
    "brother",
    "sister",
    "cousin",
    "niece",
    "nephew",
    "grandson",
    "granddaughter",
    "aunt",
    "uncle",
    "friend",
    "roommate",
    "flatmate",
    "neighbour",
    "neighbor",
    "colleague",
    "coworker",
    "assistant",
    "secretary",
    "carer",
    "caregiver",
    "caretaker",
    "nurse",
    "manager",
    "boss",
];

/// Third persons' possessives before a relation ("her husband"); a name's
/// (`dana's`) is one too.
pub(crate) const THIRD_POSSESSIVES: &[&str] = &["her", "his", "their"];

/// Words ending in *'s* that are no name's possessive (contractions).
pub(crate) const S_CONTRACTIONS: &[&str] = &[
    "it's",
    "that's",
    "he's",
    "she's",
    "there's",
    "here's",
    "what's",
    "who's",
    "where's",
    "how's",
    "let's",
    "one's",
    "everything's",
    "everyone's",
    "somebody's",
    "someone's",
];

/// A clause naming its speaker: "this is", "I'm", "it's" before the
/// relation ("This is her husband, Tom").
pub(crate) const SPEAKER_FRAMES: &[&[&str]] = &[
    &["this", "is"],
    &["i'm"],
    &["i", "am"],
    &["it's"],
    &["it", "is"],
];

/// Words after a relation saying its holder is the one answering ("Mia's
/// colleague here", "Gareth's son speaking").
pub(crate) const SPEAKER_TAILS: &[&str] = &["here", "speaking", "typing", "writing"];

/// Withdrawals only when they open a clause ("Wait, …", "Hold on."), so "I'll
/// wait until it's delivered" is not one.
pub(crate) const WITHDRAWAL_HEADS: &[&[&str]] =
    &[&["wait"], &["stop"], &["hold", "on"], &["hang", "on"]];

/// Withdrawals only when they are the whole clause: "Cancel that." takes
/// back, "cancel that order" asks for an action.
pub(crate) const CLAUSE_WITHDRAWALS: &[&[&str]] = &[&["cancel", "that"]];

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
    &["another", "lifetime"],
    &["next", "lifetime"],
    &["over", "my", "dead"],
    &["cold", "day", "in", "hell"],
    &["million", "years"],
    &["fat", "chance"],
    &["nice", "try"],
    &["good", "one"],
    &["like", "i'd"],
    &["like", "i", "would"],
    &["set", "my", "house", "on", "fire"],
    &["joking"],
    &["kidding"],
    &["psych"],
    &["psyche"],
    &["not", "really"],
    &["jk"],
];

/// Laughter: sarcasm where it laughs at the answer ("Yes lol", "Sure,
/// cancel it haha"), a tone where it closes a sentence about something
/// else ("Yes please! I need maps to find my shuttle lol").
pub(crate) const LAUGHTER: &[&str] = &["lol", "lmao", "rofl", "haha", "hahaha"];

/// Sarcasm marks read from the raw text (they are not words).
pub(crate) const SARCASM_MARKS: &[&str] =
    &["/s", "\u{1f644}", "\u{1f612}", "\u{1f643}", "\u{1f60f}"];

/// Words that, before an action word in a clause of a request for a
/// decision, make the question propose *not* doing it, or doing something
/// else instead: "hold off on wiping", "skip the refill", "instead of
/// refilling", "rather than revoke it", "if I don't transfer it", "without
/// the wipe", "keep … rather than". (A scope-ending word in between — "and",
/// "or", "but" — ends their reach.)
pub(crate) const DECLINING: &[&[&str]] = &[
    &["hold", "off"],
    &["wait"],
    &["postpone"],
    &["delay"],
    &["defer"],
    &["skip"],
    &["pause"],
    &["stop"],
    &["avoid"],
    &["refrain"],
    &["keep"],
    &["leave"],
    &["instead", "of"],
    &["rather", "than"],
    &["not"],
    &["no"],
    &["never"],
    &["without"],
];

/// Phrases that make a whole clause of a request for a decision propose
/// keeping things as they are, wherever the action word stands in it: "put
/// the cancellation on hold", "leave the limit as it is".
pub(crate) const DECLINING_CLAUSE: &[&[&str]] = &[
    &["on", "hold"],
    &["as", "is"],
    &["as", "it", "is"],
    &["as", "they", "are"],
];

/// Words by which a request for a decision proposes keeping things as they
/// are, or waiting, in place of an action the turn describes: "Do you want
/// to keep it at standard instead?", "…, or would you rather I leave it?",
/// "Should we hold off for now?". Unlike [`DECLINING`] they need no action
/// word after them; the negators and *without*, which decline a detail as
/// often as the action ("proceed without insurance"), are not among them.
pub(crate) const KEEPING: &[&[&str]] = &[
    &["keep"],
    &["leave"],
    &["stay"],
    &["remain"],
    &["wait"],
    &["hold", "off"],
    &["postpone"],
    &["delay"],
    &["defer"],
    &["pause"],
    &["instead"],
    &["rather"],
];

/// Words opening a clause of a request for a decision that names the step
/// waiting on the question, not what it proposes: "Before I file it, can
/// you confirm the email on the account is …?", "Ahead of the grant, …?".
pub(crate) const WAITING_HEADS: &[&str] = &["before", "prior", "ahead"];

/// Tag questions: a question whose last clause is one of these ("I'll reset
/// your password, ok?", "… — sound good?") asks the user to decide.
pub(crate) const TAG_QUESTIONS: &[&[&str]] = &[
    &["ok"],
    &["okay"],
    &["alright"],
    &["all", "right"],
    &["right"],
    &["yes"],
    &["good"],
    &["fine"],
    &["cool"],
    &["agreed"],
    &["deal"],
    &["sound", "good"],
    &["sounds", "good"],
    &["is", "that", "ok"],
    &["is", "that", "okay"],
];

/// Cues that an agent turn asks the user to decide something.
pub(crate) const ASK_CUES: &[&[&str]] = &[
    &["confirm"],
    &["confirmation"],
    &["proceed"],
    &["go", "ahead"],
    &["shall", "i"],
    &["should", "i"],
    &["would", "you", "like"],
    &["would", "you", "prefer"],
    &["do", "you", "prefer"],
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
    &["is", "that", "what", "you"],
    &["is", "that", "what", "you'd"],
    &["is", "this", "what", "you"],
    &["is", "this", "what", "you'd"],
    &["does", "that", "work"],
    &["does", "this", "work"],
    &["would", "that", "work"],
    &["work", "for", "you"],
    &["does", "that", "sound"],
    &["does", "this", "sound"],
    &["does", "that", "look"],
    &["does", "this", "look"],
    &["does", "everything", "look"],
    &["would", "that", "be"],
    &["would", "this", "be"],
    &["are", "you", "happy"],
    &["is", "that", "all", "right"],
    &["is", "this", "all", "right"],
    &["good", "to", "go"],
];

/// Verbs by which a request tells the user what to answer ("Reply YES to
/// confirm", "type yes or no"): the *yes* or *no* after them is the answer
/// asked for.
pub(crate) const ASKED_ANSWER_VERBS: &[&str] = &[
    "reply", "respond", "type", "say", "answer", "write", "enter", "text",
];

/// How many tokens after a verb of answering an asked *yes* or *no* may
/// stand ("reply YES to confirm or NO to keep": four).
pub(crate) const ASKED_ANSWER_REACH: usize = 6;

/// The words a reply answers with, which name a field's value only beside
/// the field's name ("Insurance: no", "no travel insurance"): elsewhere a
/// *yes* answers ("Yes, I can book that") and a *no* is a determiner ("no
/// bags") or an option offered ("(yes/no)").
pub(crate) const ANSWER_WORDS: &[&str] = &["yes", "no"];

/// How many tokens apart an answer word and the field name labelling it
/// may stand ("travel insurance coverage: yes", "no travel insurance").
pub(crate) const ANSWER_LABEL_REACH: usize = 3;

/// Marks that end the phrase an answer word stands in: between a field's
/// name and a *yes* or *no* past one of them, the answer is no longer the
/// field's ("no bags, travel insurance included").
pub(crate) const PHRASE_BREAKS: &[u8] = b",;.!?()[]{}\n";

/// What a reply says to answer every question of a turn at once ("Yes to
/// both", "both please", "yes to all of them").
pub(crate) const EVERY_QUESTION: &[&[&str]] = &[&["both"], &["to", "all"], &["all", "of", "them"]];

/// Request cues after which the verb of what is offered comes ("Should I
/// email you a copy?", "Would you like me to text you the link?", "Would
/// you like to subscribe to our newsletter?").
pub(crate) const VERB_SLOT_CUES: &[&[&str]] = &[
    &["shall", "i"],
    &["should", "i"],
    &["can", "i"],
    &["may", "i"],
    &["could", "i"],
    &["want", "me", "to"],
    &["like", "me", "to"],
    &["you", "want", "to"],
    &["you", "like", "to"],
];

/// Verbs of carrying out whatever plan was laid out: in the verb slot of a
/// request cue they offer the action itself ("Shall I put it through?",
/// "Would you like me to make these changes?").
pub(crate) const PLAN_VERBS: &[&str] = &[
    "go",
    "proceed",
    "continue",
    "confirm",
    "process",
    "submit",
    "make",
    "put",
    "apply",
    "finalize",
    "finalise",
    "complete",
    "execute",
    "carry",
    "handle",
    "do",
    "place",
    "push",
    "start",
    "initiate",
    "file",
    "set",
    "get",
    "take",
    "finish",
    "move",
    "book",
    "arrange",
    "action",
    "implement",
    "run",
    "have",
];

/// Particles that make a verb of carrying out a plan a verb of its own,
/// taking an object of its own: "set up email reminders", "sign up for
/// alerts", "send out a copy" ([`PLAN_VERBS`]; "set that up" keeps the
/// plan as its object).
pub(crate) const PHRASAL_PARTICLES: &[&str] = &["up", "out", "off", "on"];

/// Words that may stand in a request cue's verb slot without being a verb
/// ("Would you like me to also …" is skipped as a filler; "Should I go
/// ahead?" is a plan verb).
pub(crate) const NOT_A_VERB: &[&str] = &[
    "the", "a", "an", "it", "this", "that", "these", "those", "you", "your", "we", "us", "me", "i",
    "now", "still", "first", "instead", "rather", "not", "actually",
];

/// Modals asking leave before *I* ("May I …?", "Can I …?"): with a word
/// for the action after them, a request for a decision.
pub(crate) const LEAVE_MODALS: &[&str] = &["may", "can", "could"];

/// Words asking whether an action is acceptable before *to* ("OK to …?").
pub(crate) const LEAVE_ADJECTIVES: &[&str] = &["ok", "okay", "alright"];

/// Words that make a question about the action asked for (with
/// [`ACTION_WORDS`] and [`ACTION_ANAPHORS`]): "Shall I proceed?", "Is
/// everything correct?", "Would you like me to go ahead with these
/// changes?". A last question with none of them asks something else.
pub(crate) const DECISION_WORDS: &[&str] = &[
    "proceed",
    "confirm",
    "confirmation",
    "ahead",
    "correct",
    "right",
    "ok",
    "okay",
    "sure",
    "ready",
    "continue",
    "details",
    "changes",
    "request",
    "above",
    "these",
    "those",
    "them",
    "both",
    "summary",
    "yes",
    "accurate",
    "everything",
    "all",
    "sound",
    "sounds",
    "go",
];

/// Words naming the plan a request for a decision is about, besides the
/// action's own words and anaphors: a later question of a turn that asks
/// for a decision is about the action when it asks with a request cue and
/// names one of these ("Shall I go ahead?", "Would you like me to proceed
/// with these changes?"); a cue naming none asks something else ("Would you
/// like a discount code?", "Can you confirm your address is still 12 Elm
/// St?").
pub(crate) const PLAN_WORDS: &[&str] = &[
    "proceed",
    "ahead",
    "go",
    "continue",
    "ready",
    "details",
    "changes",
    "request",
    "above",
    "summary",
    "everything",
    "plan",
    "these",
    "those",
    "them",
    "both",
];

/// Verdicts on a plan: a question's clause that opens with the plan
/// ([`PLAN_WORDS`], an anaphor) and holds one asks whether the plan is right
/// ("Are these details correct?", "Everything okay?", "Does that all look
/// right?"); "Is your address still correct?" asks about the address.
pub(crate) const VERDICTS: &[&str] = &[
    "correct",
    "right",
    "accurate",
    "ok",
    "okay",
    "fine",
    "good",
    "alright",
    "acceptable",
];

/// Words of the perfect or of a state reached: an action's past form a few
/// words after one in its clause reports what was done ("whether they've
/// already cancelled it", "has it been frozen?"); it proposes nothing.
/// "Do you want it cancelled?" has none and proposes the action.
pub(crate) const PERFECT_MARKERS: &[&str] = &[
    "have", "has", "had", "been", "already", "i've", "you've", "we've", "they've", "who've",
];

/// How many words before an action's past form a [`PERFECT_MARKERS`] word
/// may stand ("they've already cancelled", "has it already been frozen").
pub(crate) const PERFECT_WINDOW: usize = 3;

/// Words putting something off: an option after an *or* opening or
/// ending with one ("…, or later?", "…, or check the app first?") waits
/// instead of the action.
pub(crate) const DEFERRALS: &[&str] = &["later", "tomorrow", "first", "next"];

/// Words after which *that*, *this* or *it* is the subject of a clause of
/// its own, not the action named as an object: "Can you confirm that your
/// address is …?", "Is that still your email?".
pub(crate) const CLAUSE_AFTER_ANAPHOR: &[&str] = &[
    "is", "are", "was", "were", "has", "have", "had", "will", "would", "still", "your", "the",
    "my", "you", "i", "we", "they",
];

/// Purpose markers: a negator after one in its clause, before a verb of
/// overlooking ([`OVERLOOKING`]), states a goal of thoroughness ("just to
/// be sure nothing slips through"), not the user's stance on the action.
pub(crate) const PURPOSES: &[&[&str]] = &[
    &["to", "be", "sure"],
    &["to", "make", "sure"],
    &["making", "sure"],
    &["to", "ensure"],
    &["so", "that"],
    &["in", "order", "to"],
];

/// Verbs of overlooking: "nothing slips through", "so that I don't miss
/// anything" (see [`PURPOSES`]).
pub(crate) const OVERLOOKING: &[&str] = &[
    "slip",
    "slips",
    "slipped",
    "fall",
    "falls",
    "fell",
    "miss",
    "missed",
    "missing",
    "overlook",
    "overlooked",
    "forget",
    "forgotten",
    "forgot",
];

/// Words between a negator and its verb of overlooking ("nothing gets
/// missed", "I do not miss").
pub(crate) const OVERLOOKING_AUXILIARIES: &[&str] = &[
    "is", "gets", "get", "be", "i", "we", "do", "does", "will", "has", "have",
];

/// Clause openings that concede a case ("even if my plans are on pause"):
/// a withdrawal inside such a clause accepts the case, it takes nothing
/// back.
pub(crate) const CONCEDING_OPENINGS: &[&[&str]] = &[&["even", "if"], &["even", "though"]];

/// How many words after a negator or withdrawal its object's action word is
/// looked for ("no need to transfer me", "hold off on transferring").
pub(crate) const ACTION_OBJECT_WINDOW: usize = 4;

/// `keep` with one of these objects and then one of
/// [`KEEP_IDIOM_COMPLEMENTS`] is an idiom of going on or of being told
/// ("keep this moving", "keep things steady", "keep it short", "keep me
/// posted", "keep us updated"), not keeping what the action would change.
pub(crate) const KEEP_IDIOM_OBJECTS: &[&str] = &["this", "things", "it", "me", "us"];

/// See [`KEEP_IDIOM_OBJECTS`].
pub(crate) const KEEP_IDIOM_COMPLEMENTS: &[&str] = &[
    "moving", "going", "steady", "rolling", "flowing", "simple", "short", "brief", "quick",
    "posted", "updated", "informed", "notified", "advised",
];

/// `keep` right before one of these is an idiom about the person or the
/// talk ("keep up the good work", "keep calm", "keep well", "keep in
/// touch"), keeping nothing the action would change.
pub(crate) const KEEP_IDIOM_HEADS: &[&str] =
    &["up", "calm", "smiling", "well", "safe", "warm", "in"];

/// Words of a keyword after which `to` starts an infinitive ("I don't need
/// to cancel"), a different sense from the keyword's object use ("I don't
/// need it").
pub(crate) const INFINITIVE_VERBS: &[&str] = &["need", "want", "have", "like", "wish", "plan"];

/// Words that end a negator's scope inside a clause.
pub(crate) const SCOPE_ENDS: &[&str] = &[
    "and", "but", "because", "since", "so", "although", "though", "while", "whereas", "however",
    "or",
];

/// Words that open an information question ("When will the refund arrive",
/// "Whether there are fees"), with or without a question mark: after a
/// go-ahead, such a sentence asks about the action, it does not qualify it.
pub(crate) const INTERROGATIVES: &[&str] = &[
    "what", "what's", "when", "when's", "where", "where's", "whether", "how", "how's", "which",
    "who", "who's", "why", "why's", "any",
];

/// Requests to be told or sent something ("let me know", "please share the
/// timeline"): after a go-ahead, a sentence holding one asks for
/// information about the action, it does not qualify it.
pub(crate) const INFORMATION_REQUESTS: &[&[&str]] = &[
    &["let", "me", "know"],
    &["let", "us", "know"],
    &["tell", "me"],
    &["share"],
    &["send", "me"],
    &["email", "me"],
    &["text", "me"],
    &["notify", "me"],
    &["provide"],
    &["you", "confirm"],
    &["please", "confirm"],
    &["i'd", "like", "to", "know"],
    &["i", "would", "like", "to", "know"],
];

/// Words a list line naming what the user asks to be told opens with ("-
/// the reference number", "- any fee deducted").
pub(crate) const ASKED_LINE_HEADS: &[&str] = &[
    "the", "a", "an", "any", "my", "our", "your", "its", "their", "this", "that", "these", "those",
];

/// Nouns a line opening a list of what the user asks names the list by
/// ("A couple of questions:").
pub(crate) const QUESTION_NOUNS: &[&str] = &["question", "questions", "queries"];

/// Words in a detail's label saying the value is not the one the action
/// gives: what was ("Current cabin: business", "Fuel before: electricity",
/// "Previously: dual fuel") or what else could be ("Other accepted reason:
/// no longer needed", "Alternative class: minivan").
pub(crate) const UNCHOSEN_VALUE_LABELS: &[&str] = &[
    "current",
    "currently",
    "previous",
    "previously",
    "old",
    "original",
    "originally",
    "existing",
    "was",
    "were",
    "before",
    "from",
    "prior",
    "earlier",
    "last",
    "other",
    "alternative",
    "alternatives",
    "alternatively",
    "instead",
];

/// Words for a part of a whole: an amount after "<part> of" is the whole
/// an action takes the part of ("half of $25.00"), not its own amount.
pub(crate) const PORTIONS: &[&str] = &[
    "half", "third", "thirds", "quarter", "quarters", "part", "portion", "share", "percent",
    "some", "most",
];

/// Words between *of* and the whole it names ("half of the $25.00 fee").
pub(crate) const PORTION_DETERMINERS: &[&str] = &[
    "the", "a", "an", "your", "my", "this", "that", "its", "their", "our", "his", "her", "total",
];

/// Words that order something before the action ("before you submit",
/// "check the price first"): a sentence holding one is read as part of the
/// answer even when it asks for information, because the action waits on it.
pub(crate) const PRECEDENCE: &[&str] = &["before", "first", "prior", "until", "till", "unless"];

/// Words that scope a negation over everything but the action ("do not use
/// any other payment method", "I don't need anything else"): such a negation
/// restricts, it does not refuse.
pub(crate) const COMPLEMENT_SCOPE: &[&str] = &["other", "else"];

/// Conditions that keep a yes conditional even in a sentence asking for
/// information ("Could you tell me, only if it is free?"): the others there
/// ("if you have a timeline, please share it") are about what is asked.
pub(crate) const FIRM_CONDITIONS: &[&[&str]] = &[
    &["unless"],
    &["provided"],
    &["providing"],
    &["assuming"],
    &["as", "long", "as"],
    &["so", "long", "as"],
    &["on", "condition"],
    &["on", "the", "condition"],
    &["conditional", "on"],
    &["conditional", "upon"],
    &["in", "case"],
    &["depends"],
    &["only", "if"],
    &["only", "when"],
    &["only", "once"],
    &["only", "after"],
    &["subject", "to"],
    &["contingent", "on"],
    &["contingent", "upon"],
];

/// Modal heads of a question that asks the agent to act ("Could you cancel
/// it if …") when "you" follows them; with another subject ("Will I get a
/// label", "Is there a fee") they ask for information.
pub(crate) const MODAL_HEADS: &[&str] = &[
    "will", "would", "is", "are", "can", "could", "do", "does", "did",
];

/// What may follow a contrast marker to concede rather than qualify ("not
/// thrilled, but go ahead", "but fine, let's do it"): besides a go-ahead or
/// a yes.
pub(crate) const CONCEDING_WORDS: &[&str] = &["fine"];

/// Verbs of the user's own wish: a clause with one and a first-person word
/// says what the user wants, never a consequence they acknowledge.
pub(crate) const WISHES: &[&str] = &["want", "need", "like", "wish", "prefer", "rather"];

/// Words for the object of the action being confirmed, besides the
/// domain's nouns for its records: a negation reaching one before
/// "other"/"else" is about it ("not this order or any other").
pub(crate) const OBJECT_WORDS: &[&str] = &["them", "one", "ones"];

/// Retention phrases that follow their object ("leave the bottle *as is*",
/// "leave the order *alone*", "my desktop files *are kept*"), by first
/// word.
pub(crate) const RETENTION_AFTER_OBJECT: &[&str] = &["as", "alone", "is", "are", "be"];

/// Words after *stays* or *remains* that, besides what may follow them
/// when a domain names its records by *stay* ([`KEPT_NOUN_COMPLEMENTS`]:
/// "stays the same", "remains untouched"), make them say their subject
/// stays where it is ("stays at 5,000", "remains on the old plan"), not
/// describe it ("stays valid for a day").
pub(crate) const STAYS_PLACES: &[&str] = &["at", "on", "in"];

/// Words after "the other" that end its noun phrase ("leave the other
/// *for* now", "the other *until* Friday", "not the other *yet*"): it names
/// the other record, not another thing ("the other address").
pub(crate) const OTHER_CLOSERS: &[&str] = &[
    "for", "until", "till", "though", "too", "yet", "now", "today", "tomorrow", "later", "off",
    "out",
];

/// Words between a subject and the verb saying it stays as it is ("the
/// Visa *should* stay", "it *will* remain", "it *can* be left"), passed
/// over to find the subject.
pub(crate) const SUBJECT_MODALS: &[&str] = &[
    "should", "will", "would", "can", "could", "must", "shall", "may", "might", "to", "going",
    "has", "have", "had", "been", "just", "still", "please", "all",
];

/// Object pronouns for a person: an order after a yes whose object is one
/// ("Yes, add him", "Sure, sign me up") acts on the person the request
/// named, not on another thing.
pub(crate) const PERSON_OBJECTS: &[&str] = &["him", "her", "me", "us"];

/// Words that may follow *her* as an object rather than a possessive
/// ("switch her over", "add her to the policy", "add her please").
pub(crate) const AFTER_PERSON_OBJECT: &[&str] = &[
    "to", "on", "for", "from", "as", "now", "please", "too", "today", "up", "over", "in", "off",
    "back", "thanks",
];

/// Pronouns that may point at the action's object besides
/// [`ACTION_ANAPHORS`]: a sentence holding one may be about it, whatever
/// other identifiers it names.
pub(crate) const ANAPHORIC_OBJECTS: &[&str] = &["one", "ones", "them", "these", "those", "both"];

/// The words that may end a restated "no need" ("I don't need it
/// anymore"): the thing, and time.
pub(crate) const NO_NEED_TAIL: &[&str] = &[
    "it", "them", "this", "that", "one", "anymore", "any", "more", "now", "at", "all",
];

/// How many words after a first-person word a verb of wanting may come to
/// open a request ("I'd like", "I would really like").
pub(crate) const REQUEST_HEAD_WINDOW: usize = 3;

/// Ordinals that, before "one" or a domain's noun for a record, pick one of
/// several things a request for a decision named ("the second one").
pub(crate) const SELECTING_WORDS: &[&str] =
    &["first", "second", "third", "last", "latter", "former"];

/// Words that may open one option of a choice a question offers before the
/// option's value ("by SMS or *by* email", "to the Elm St locker or *the*
/// Pine Rd one"): they belong to neither option.
pub(crate) const OPTION_LEADS: &[&str] = &[
    "a", "an", "the", "by", "to", "at", "via", "for", "in", "on", "with", "through", "from",
    "over", "your", "my", "our",
];

/// Words an alternative after (or before) *or* opens with when it offers
/// no value of the kind of the one beside it: not acting, something else,
/// a new clause ("90 or *not*", "30 or *would* you prefer …"). Such an
/// *or* sets no value against the value.
pub(crate) const NOT_AN_OPTION: &[&str] = &[
    "not",
    "no",
    "yes",
    "else",
    "other",
    "others",
    "another",
    "more",
    "less",
    "so",
    "fewer",
    "anything",
    "something",
    "nothing",
    "none",
    "both",
    "either",
    "neither",
    "all",
    "any",
    "later",
    "now",
    "instead",
    "rather",
    "just",
    "only",
    "maybe",
    "would",
    "could",
    "should",
    "shall",
    "will",
    "can",
    "may",
    "might",
    "must",
    "do",
    "does",
    "did",
    "is",
    "are",
    "was",
    "were",
    "be",
    "have",
    "has",
    "had",
    "i",
    "you",
    "we",
    "they",
    "he",
    "she",
    "it",
    "me",
    "that",
    "this",
    "these",
    "those",
    "what",
    "which",
    "who",
    "how",
    "when",
    "where",
    "whether",
    "why",
    "if",
    "prefer",
    "want",
    "like",
    "keep",
    "wait",
    "hold",
    "leave",
];

/// Words proposing to act on every one of the things laid out ("Shall I go
/// ahead with both grants?").
pub(crate) const ALL_OF_THEM: &[&str] = &["both", "all", "each", "every"];

/// Words by which a reply restricts what it answers to a part ("the first
/// one only", "just Dune", "all except the second", "apart from the red
/// one").
pub(crate) const RESTRICTING_WORDS: &[&str] = &["only", "just", "except", "apart", "excluding"];

/// Restricting words that leave out what follows them ("all except the
/// second", "yes, apart from the metformin"), rather than keeping only it.
pub(crate) const EXCLUDING_WORDS: &[&str] = &["except", "apart", "excluding", "besides"];

/// Verbs by which a reply keeps a part of what a request laid out as it
/// is ("leave Steve's", "skip the second").
/// Verbs reporting what someone said or agreed to ("she says yes").
pub(crate) const REPORTING_VERBS: &[&str] = &[
    "says", "said", "agrees", "agreed", "approves", "approved", "thinks", "wants", "told",
    "replied", "answered", "reckons", "insists",
];

/// Words that are no third person before a reporting verb: the user, the
/// agent, or no person at all ("that said", "as said"); nor are the words
/// reaching over records ([`WHOLE_SCOPE`]: "Both agreed").
pub(crate) const NOT_THIRD_PERSONS: &[&str] = &[
    "i", "you", "we", "u", "it", "that", "this", "which", "what", "who", "as", "there", "everyone",
];

/// Possessives before the noun of a person ("my wife", "our manager").
pub(crate) const POSSESSIVES: &[&str] = &["my", "our", "his", "her", "their"];

/// Determiners a reply names a thing with, read away where the name is
/// read as the thing's id (`AskedWords::names_as_records`); a value between
/// one and a record noun describes that record ("your sneakers order").
pub(crate) const NAME_DETERMINERS: &[&str] = &["the", "my", "your", "our", "their", "his", "her"];

/// Words opening, after a comma, an aside about what stands before it: a
/// relative pronoun or a word of likeness ("RF-8802, which was queued
/// right after RF-8801"; ", like Arjun Raman on your Boulder booking").
pub(crate) const ASIDE_RELATIVES: &[&str] = &["which", "who", "whose", "like", "unlike"];

/// Words joining another part of what a sentence lists or asks for: after
/// a comma or before a determiner they show a list going on ("…, the
/// World Elite from 5000 to 8000, and the Visa …").
pub(crate) const ASIDE_JOINS: &[&str] = &["and", "or", "plus", "also", "then"];

/// Words joining a record noun to a thing it holds ("the order with the
/// bananas", "the booking including Ana Ruiz").
pub(crate) const HOLDING_WORDS: &[&str] = &["with", "containing", "including"];

/// Verbs saying a record holds a thing, after *that* or *which* ("the
/// order that has the bananas").
pub(crate) const HOLDING_VERBS: &[&str] = &["has", "have", "holds", "contains", "includes"];

/// Words opening a clause that is the user's own conclusion again after a
/// relayed answer ("she agrees, so go ahead").
pub(crate) const OWN_CONCLUSIONS: &[&str] = &["so", "but", "anyway", "then", "therefore"];

pub(crate) const KEEPING_VERBS: &[&str] = &["leave", "skip", "keep"];

/// Verbs by which a reply says a record it names stays as it is ("PL-2
/// should stay at 1000", "the Visa remains the card", "the jacket should
/// be left unchanged"): they set the record apart from a yes as a keeping
/// verb does.
pub(crate) const REMAINING_VERBS: &[&str] = &["stay", "stays", "remain", "remains", "left"];

/// Words that may stand between a restricting word and the part it
/// restricts to ("just the first", "only my business one", "except for
/// that one").
pub(crate) const PART_DETERMINERS: &[&str] = &[
    "the", "a", "an", "my", "our", "your", "that", "this", "these", "those", "for", "from", "to",
    "with", "one", "which", "each", "any",
];

/// Words around what a reply keeps that name nothing of it ("keep *the*
/// shipping address *the same*", "leave *my* mailbox *as it is*"): the
/// rest must name what the request said stays as it is.
pub(crate) const KEPT_OBJECT_FILLERS: &[&str] = &[
    "the",
    "a",
    "an",
    "my",
    "our",
    "your",
    "his",
    "her",
    "their",
    "its",
    "this",
    "that",
    "same",
    "as",
    "it",
    "is",
    "are",
    "be",
    "they",
    "them",
    "unchanged",
    "untouched",
    "intact",
    "alone",
    "exactly",
    "please",
    "kindly",
    "just",
    "current",
    "existing",
    "too",
    "also",
    "for",
    "now",
    "and",
    "keep",
    "kept",
    "leave",
    "let",
    "make",
    "sure",
    "ensure",
    "stay",
    "stays",
    "remain",
    "remains",
];

/// Words adding a sentence's records to a yes before it ("#W2 too",
/// "PK-82061 as well"): such a sentence says yes to them without a yes of its
/// own.
pub(crate) const ADDING_WORDS: &[&str] = &["too", "also", "likewise", "same", "well"];

/// Words reaching past the records a sentence names ("hold everything",
/// "none of it yet"): a sentence holding one does not hold back only its
/// own records.
pub(crate) const WHOLE_SCOPE: &[&str] = &[
    "both",
    "all",
    "each",
    "every",
    "everything",
    "anything",
    "nothing",
    "none",
    "either",
    "neither",
];

/// Words a reply to "which one?" may hold while picking none of the
/// things laid out: function words any request uses, and words leaving the
/// pick to the agent ("either is fine", "whichever").
pub(crate) const PICKING_NOTHING: &[&str] = &[
    "the",
    "and",
    "for",
    "you",
    "your",
    "with",
    "can",
    "will",
    "would",
    "should",
    "are",
    "was",
    "have",
    "has",
    "all",
    "any",
    "either",
    "whichever",
    "which",
    "what",
    "now",
    "not",
    "but",
    "from",
    "its",
    "out",
    "just",
    "too",
    "also",
    "one",
    "ones",
    "them",
    "they",
    "there",
    "here",
    "then",
    "than",
];

/// Words joining the things a request lays out side by side ("access to
/// jira and confluence", "Dune plus Circe"): the words on either side name
/// items a reply may answer one by one. *Or* offers options instead
/// (`choice.rs`).
pub(crate) const ITEM_COORDINATORS: &[&str] = &["and", "plus"];

/// Words that may stand between a coordinator and the item it joins ("and
/// to tableau", "and your card ending 5517", "and on The Hobbit"), skipped
/// when the item is looked for.
pub(crate) const ITEM_LEADS: &[&str] = &[
    "the", "a", "an", "to", "on", "for", "of", "your", "my", "our", "their", "his", "her", "also",
    "then", "access", "ending", "in", "with", "number",
];

/// How many [`ITEM_LEADS`] may stand between a coordinator and its item.
pub(crate) const MAX_ITEM_LEADS: usize = 3;

/// Words a reply picking all of the things laid out may hold beside the
/// word for all and a count ("all of them", "both ones", "all three
/// thanks").
pub(crate) const WHOLE_COUNT_FILLERS: &[&str] = &[
    "of", "them", "these", "those", "the", "ones", "items", "ok", "okay", "thx", "pls", "plz",
];

/// Ordinals a reply picks the first of two options by ("the first one").
pub(crate) const FIRST_OF_TWO: &[&str] = &["first", "former"];

/// The words a reply picking among what was asked is made of besides
/// what it names ("just LN-12", "LN-7 please.", "all except the Dune
/// one"): a restriction, *all* and its exceptions, a determiner, *one*,
/// thanks.
pub(crate) const PICK_WORDS: &[&str] = &[
    "just", "only", "all", "except", "but", "the", "one", "ones", "please", "pls", "thanks",
    "thank", "you", "thx", "and",
];

/// Words a reply picks a labelled option by ("option 1", "choice b",
/// "number 2").
pub(crate) const OPTION_WORDS: &[&str] = &["option", "choice", "number"];

/// Ordinals a reply picks an item of a list of options by, with its
/// place ("the third one", "2nd").
pub(crate) const ORDINALS: &[(&str, usize)] = &[
    ("first", 1),
    ("1st", 1),
    ("second", 2),
    ("2nd", 2),
    ("third", 3),
    ("3rd", 3),
    ("fourth", 4),
    ("4th", 4),
    ("fifth", 5),
    ("5th", 5),
];

/// Ordinals a reply picks the second of two options by ("the latter").
pub(crate) const SECOND_OF_TWO: &[&str] = &["second", "latter", "last"];

/// A user correcting what they just said: an apology, a slip named, or a
/// turn of thought ("sorry", "misread", "wrong button", "I meant",
/// "actually", "wait", "scratch that"). Before a yes it takes back what
/// came before it ([`super::stance::corrected_to_yes`]).
pub(crate) const SELF_CORRECTIONS: &[&[&str]] = &[
    &["sorry"],
    &["oops"],
    &["whoops"],
    &["my", "bad"],
    &["my", "mistake"],
    &["i", "mean"],
    &["i", "meant"],
    &["meant", "to", "say"],
    &["misread"],
    &["misclicked"],
    &["misspoke"],
    &["mistyped"],
    &["typo"],
    &["autocorrect"],
    &["wrong", "button"],
    &["wrong", "key"],
    &["wrong", "window"],
    &["wrong", "screen"],
    &["wrong", "chat"],
    &["wrong", "tab"],
    &["actually"],
    &["wait"],
    &["scratch", "that"],
    &["hang", "on"],
    &["hold", "on"],
    &["ignore", "that"],
    &["disregard", "that"],
    &["take", "that", "back"],
    &["correction"],
];

/// The self-corrections that restate the answer itself ("I meant yes"):
/// the yes after one is explicit on its own.
pub(crate) const RESTATED_ANSWERS: &[&[&str]] =
    &[&["i", "mean"], &["i", "meant"], &["meant", "to", "say"]];

/// Times after now: a yes placing the action at one ("yes, tomorrow", "do
/// it tonight", "go ahead next week") agrees to doing it then, not now
/// (a deferral). A number of time units after
/// *in* ("in 2 hours") is one too ([`TIME_UNITS`]).
pub(crate) const LATER_TIMES: &[&[&str]] = &[
    &["later"],
    &["tomorrow"],
    &["tonight"],
    &["next", "week"],
    &["next", "month"],
    &["next", "year"],
    &["next", "weekend"],
    &["next", "monday"],
    &["next", "tuesday"],
    &["next", "wednesday"],
    &["next", "thursday"],
    &["next", "friday"],
    &["next", "saturday"],
    &["next", "sunday"],
    &["this", "weekend"],
    &["in", "a", "bit"],
    &["in", "a", "while"],
    &["in", "a", "few"],
    &["in", "an", "hour"],
    &["in", "a", "day"],
    &["in", "a", "week"],
];

/// Units of time: *in* and a number before one places the action later
/// ("in 2 hours", [`LATER_TIMES`]).
pub(crate) const TIME_UNITS: &[&str] = &[
    "min", "mins", "minute", "minutes", "hour", "hours", "hr", "hrs", "day", "days", "week",
    "weeks",
];

/// Numbers written as words, for a count of [`TIME_UNITS`] ("in two
/// hours").
pub(crate) const NUMBER_WORDS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "few", "couple",
];

/// Words after which a time places the action ([`LATER_TIMES`]): its
/// object as a pronoun, the go-ahead's last word, a plea or a contrast
/// ("do it tomorrow", "go ahead tonight", "yes but later").
pub(crate) const PLACING_WORDS: &[&str] = &[
    "it", "this", "that", "them", "please", "pls", "but", "just", "ahead", "proceed", "do",
];

/// Words before a time that make it a deadline, not a deferral: "freeze it
/// before tomorrow" asks for it now ([`LATER_TIMES`]).
pub(crate) const DEADLINES: &[&str] = &["by", "before"];

/// What a request for a decision says stays as it is, after the thing it
/// keeps ("LT-7734 stays as it is", "Jira remains untouched", "PX-5157
/// keeps its current speed", "your other card won't be affected"): that
/// thing is no subject of the action proposed.
pub(crate) const KEPT_AFTER: &[&[&str]] = &[
    &["stays"],
    &["stay"],
    &["remains"],
    &["remain"],
    &["keeps", "its"],
    &["keeps", "their"],
    &["is", "left"],
    &["are", "left"],
    &["be", "left"],
    &["unchanged"],
    &["untouched"],
    &["unaffected"],
    &["not", "be", "affected"],
    &["not", "be", "changed"],
    &["not", "be", "touched"],
    &["is", "not", "affected"],
    &["are", "not", "affected"],
    &["is", "not", "included"],
    &["are", "not", "included"],
    &["is", "excluded"],
    &["are", "excluded"],
];

/// What may follow *stay(s)* or *remain(s)* when the domain also names its
/// records by that word: only then does it keep ("stays as it is", "stays
/// the same", "stays unchanged", "stays with you", "stays put").
pub(crate) const KEPT_NOUN_COMPLEMENTS: &[&str] = &[
    "as",
    "the",
    "same",
    "unchanged",
    "untouched",
    "intact",
    "active",
    "with",
    "put",
    "where",
    "exactly",
    "open",
    "booked",
];

/// What a request for a decision says stays as it is, before the thing it
/// keeps ("no change to PX-9915", "leave LT-4480 as it is"), or leaves out
/// of its action ("everything except the pet bed").
pub(crate) const KEPT_BEFORE: &[&[&str]] = &[
    &["no", "change", "to"],
    &["no", "changes", "to"],
    &["nothing", "changes", "for"],
    &["leave"],
    &["leaving"],
    &["except"],
    &["except", "for"],
    &["apart", "from"],
    &["excluding"],
    &["all", "but"],
    &["everything", "but"],
];

/// Words ending the span of what is kept, after a [`KEPT_BEFORE`] phrase or
/// before a [`KEPT_AFTER`] one: a coordinator or subordinator, or what
/// follows the kept thing ("as it is").
pub(crate) const KEPT_SPAN_ENDS: &[&str] = &[
    "and", "but", "while", "whereas", "so", "then", "as", "which", "since", "because",
];
