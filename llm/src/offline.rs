//! The offline default judge: deterministic word-level heuristics, no network.
//!
//! It answers two kinds of question and declines everything else with
//! [`Verdict::Unknown`].
//!
//! **Confirmation criteria.** A criterion whose text mentions confirmation or
//! consent (`confirm`, `consent`, `agree`, `approve`, `yes`, `permission`,
//! `authoriz…`) is read as "the user said yes to what the agent last
//! proposed". The judge takes the last user turn of the slice and the agent's
//! last text turn before it (the *summary*); the user turns after the summary
//! are the reply. If the agent spoke again after the reply and asked for
//! confirmation, the reply is stale and the criterion is not satisfied. If no
//! user turn follows the summary, it is not satisfied. If the summary does not
//! ask for a decision at all (no `confirm`, `proceed`, `go ahead`,
//! `shall I`, `would you like`, `(yes)`, …), the answer is unknown.
//!
//! Each reply turn is read clause by clause, case-insensitively, on word
//! boundaries, tolerating punctuation ("Yes, please." / "Yes—go ahead" /
//! "yes!"):
//! - a *negation* ("no", "nope", "wait", "hold on", "not yet", "don't
//!   proceed", "cancel that", "changed my mind", "before I confirm", or a
//!   go-ahead phrase negated by one of the three words before it, as in "I
//!   don't want to go ahead") -> `NotSatisfied`. Openers such as "no",
//!   "wait" and "cancel that" count only at the start of a clause, so "No
//!   other items" or "I'll wait until it's delivered" do not;
//! - phrases governed by "if"/"whether" ("not sure if these are correct")
//!   are hypothetical and count neither way;
//! - an affirmative together with a *correction* ("yes, but …",
//!   "actually …", "… instead", or an affirmative plus a negation) ->
//!   **`Unknown`**: the user agreed to something other than what was listed,
//!   so the details must be restated; `Unknown` keeps the gate closed like
//!   `NotSatisfied` but tells the caller the answer was not a plain no;
//! - a *strong* go-ahead ("go ahead", "proceed", "I confirm", "please do",
//!   "do it", "please cancel/process/book …") -> `Satisfied`, even if a later
//!   sentence adds a new request or question ("Yes, go ahead. Also, could you
//!   add a bag?"), because that does not retract the consent;
//! - a *weak* affirmative ("yes", "yeah", "sure", "correct", "that's right",
//!   "sounds good", …) -> `Satisfied` unless the turn also asks a question,
//!   in which case the user is still deciding -> `NotSatisfied`;
//! - a question without any affirmative -> `NotSatisfied`;
//! - anything else -> `Unknown`.
//!
//! When several user turns follow the summary, the last one with a
//! recognisable answer decides, and it is the evidence event.
//!
//! **Criteria with keywords.** Any other criterion for which the bundle
//! declares `keywords` (phrases such as "no longer need" for "the user stated
//! an accepted cancellation reason") is satisfied by the last user turn of
//! the slice containing one of them as a whole word sequence, and not
//! satisfied when no user turn does. Without keywords it is `Unknown`.
//!
//! **Classification.** Each branch scores the number of occurrences, in the
//! slice's user turns, of its keywords and of its label (underscores read as
//! spaces), matched as whole word sequences. The unique highest positive score
//! wins, with the first user turn that matched one of its terms as evidence; a
//! tie or no match is `Unknown`.

use async_trait::async_trait;

use crate::judge::Judge;
use crate::types::{Branch, JudgeRequest, Judgement, Question, Role, Turn, Verdict};

/// Identity of the offline judge (part of cache keys); bump on behaviour change.
pub const OFFLINE_JUDGE_NAME: &str = "offline-v1";

/// The deterministic offline judge. See the module documentation.
#[derive(Debug, Clone, Copy, Default)]
pub struct OfflineJudge;

impl OfflineJudge {
    /// A new offline judge.
    #[must_use]
    pub fn new() -> Self {
        Self
    }

    /// The judgement, synchronously (the judge never waits on anything).
    #[must_use]
    pub fn decide(&self, request: &JudgeRequest) -> Judgement {
        match &request.question {
            Question::Criterion {
                text,
                keywords,
                said_by,
            } => {
                if *said_by == Role::User && is_consent_criterion(text) {
                    judge_consent(&request.conversation)
                } else if !keywords.is_empty() {
                    judge_by_keywords(keywords, *said_by, &request.conversation)
                } else {
                    Judgement::unknown(
                        "the offline judge decides only confirmation/consent criteria and criteria with keywords",
                    )
                }
            }
            Question::Classify { branches } => classify(branches, &request.conversation),
        }
    }
}

#[async_trait]
impl Judge for OfflineJudge {
    fn name(&self) -> &str {
        OFFLINE_JUDGE_NAME
    }

    async fn judge(&self, request: &JudgeRequest) -> Judgement {
        self.decide(request)
    }
}

fn is_consent_criterion(text: &str) -> bool {
    let lower = text.to_lowercase();
    [
        "confirm",
        "consent",
        "agree",
        "approv",
        "permission",
        "authoriz",
        "authoris",
    ]
    .iter()
    .any(|stem| lower.contains(stem))
        || words(&lower).iter().any(|w| w == "yes")
}

/// How one user turn answers a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// Plain consent.
    Affirm,
    /// Consent mixed with a correction or a negation ("yes, but …").
    AffirmWithCorrection,
    /// Refusal, hesitation or a correction without consent.
    Negative,
    /// A question without consent (or with only weak consent).
    Question,
    /// Nothing recognisable.
    Unclear,
}

/// Classifies one user utterance as an answer to a proposal.
#[must_use]
pub fn classify_reply(text: &str) -> Reply {
    let text = normalise(text);
    let sentences = sentences(&text);
    let mut negative = false;
    let mut correction = false;
    let mut strong = false;
    let mut weak = false;
    let mut question = false;
    for (sentence_index, (sentence, is_question)) in sentences.iter().enumerate() {
        question |= *is_question;
        let tokens = words(sentence);
        // "I don't want to go ahead …" mentions a go-ahead only to refuse it.
        for phrase in STRONG {
            match phrase_polarity(&tokens, phrase) {
                Some(true) if !*is_question => strong = true,
                Some(false) => negative = true,
                _ => {}
            }
        }
        for phrase in WEAK_PHRASES {
            match phrase_polarity(&tokens, phrase) {
                Some(true) => weak = true,
                Some(false) => negative = true,
                None => {}
            }
        }
        if NEGATIVE_PHRASES.iter().any(|p| contains_phrase(&tokens, p)) {
            negative = true;
        }
        if tokens.iter().any(|t| t == "instead") || contains_phrase(&tokens, &["rather", "than"]) {
            correction = true;
        }
        for (clause_index, clause) in clauses(sentence).iter().enumerate() {
            let tokens = words(clause);
            let head = skip_fillers(&tokens);
            // "Yes, but …" / "Yes but …" / "That sounds good, but …": a `but`
            // right after the opening words qualifies the agreement; a later
            // `but` usually restates details ("… but keep the pet bed").
            if sentence_index == 0
                && ((clause_index == 1 && head.first().is_some_and(|w| w == "but"))
                    || (clause_index == 0 && head.iter().take(4).any(|w| w == "but")))
            {
                correction = true;
            }
            match head.first().map(String::as_str) {
                Some(w) if WEAK_HEADS.contains(&w) => weak = true,
                Some("no")
                    if head.len() == 1 || head.get(1).is_some_and(|w| w.starts_with("thank")) =>
                {
                    negative = true;
                }
                Some(w) if NEGATIVE_HEADS.contains(&w) => negative = true,
                // Only as an opener: "Maybe I can just cancel that item" is
                // not a withdrawal.
                Some("cancel") if head.get(1).is_some_and(|w| w == "that") => negative = true,
                Some("actually" | "however" | "except") => correction = true,
                _ => {}
            }
        }
    }
    let affirm = strong || weak;
    match (affirm, negative || correction) {
        (true, true) => Reply::AffirmWithCorrection,
        (false, true) => Reply::Negative,
        (true, false) if strong || !question => Reply::Affirm,
        (true, false) => Reply::Question,
        (false, false) if question => Reply::Question,
        (false, false) => Reply::Unclear,
    }
}

/// Consent/go-ahead phrases that commit the user even next to other requests.
const STRONG: &[&[&str]] = &[
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
const WEAK_HEADS: &[&str] = &[
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
const WEAK_PHRASES: &[&[&str]] = &[
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
const NEGATIVE_HEADS: &[&str] = &[
    "nope", "nah", "wait", "stop", "hold", "don't", "dont", "not",
];

/// Phrases that refuse, hesitate or withdraw wherever they occur.
const NEGATIVE_PHRASES: &[&[&str]] = &[
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
const FILLERS: &[&str] = &[
    "um", "uh", "umm", "uhh", "oh", "well", "and", "so", "hmm", "hm", "then", "also", "great",
    "thanks", "merci", "please",
];

fn skip_fillers(tokens: &[String]) -> &[String] {
    let start = tokens
        .iter()
        .position(|t| !FILLERS.contains(&t.as_str()))
        .unwrap_or(tokens.len());
    &tokens[start..]
}

/// Lower-cases and unifies typographic quotes and dashes; drops tau2's
/// `###STOP###` marker.
fn normalise(text: &str) -> String {
    text.replace("###STOP###", " ")
        .to_lowercase()
        .chars()
        .map(|c| match c {
            '\u{2019}' | '\u{2018}' | '`' => '\'',
            '\u{2014}' | '\u{2013}' => ',',
            c => c,
        })
        .collect()
}

/// Sentences with whether each ends in a question mark.
fn sentences(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '.' | '!' | '?' | '\n' | ';' => {
                if !current.trim().is_empty() {
                    out.push((std::mem::take(&mut current), c == '?'));
                } else if c == '?'
                    && let Some(last) = out.last_mut()
                {
                    last.1 = true;
                }
                current.clear();
            }
            c => current.push(c),
        }
    }
    if !current.trim().is_empty() {
        out.push((current, false));
    }
    out
}

fn clauses(sentence: &str) -> Vec<String> {
    sentence
        .split([',', ':', '(', ')', '"', '-'])
        .filter(|c| !c.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// Words: maximal runs of alphanumerics and apostrophes, lower-cased.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Words that, shortly before a phrase, negate it.
const NEGATORS: &[&str] = &[
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
const CONDITIONALS: &[&str] = &["if", "whether"];

/// `Some(true)` if `phrase` occurs un-negated, `Some(false)` if it occurs only
/// with a negator among the three words before it, `None` if absent or only
/// hypothetical.
fn phrase_polarity(tokens: &[String], phrase: &[&str]) -> Option<bool> {
    if phrase.is_empty() || phrase.len() > tokens.len() {
        return None;
    }
    let mut negated = false;
    for start in 0..=tokens.len() - phrase.len() {
        if tokens[start..start + phrase.len()]
            .iter()
            .zip(phrase)
            .all(|(a, b)| a == b)
        {
            let window = &tokens[start.saturating_sub(3)..start];
            if window.iter().any(|w| CONDITIONALS.contains(&w.as_str())) {
                continue;
            }
            if window.iter().any(|w| NEGATORS.contains(&w.as_str())) {
                negated = true;
            } else {
                return Some(true);
            }
        }
    }
    negated.then_some(false)
}

fn contains_phrase(tokens: &[String], phrase: &[&str]) -> bool {
    count_phrase(tokens, phrase) > 0
}

fn count_phrase<S: AsRef<str>>(tokens: &[String], phrase: &[S]) -> usize {
    if phrase.is_empty() || phrase.len() > tokens.len() {
        return 0;
    }
    tokens
        .windows(phrase.len())
        .filter(|w| w.iter().zip(phrase).all(|(a, b)| a == b.as_ref()))
        .count()
}

/// Cues that an agent turn asks the user to decide something.
const ASK_CUES: &[&[&str]] = &[
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

fn asks_for_decision(text: &str) -> bool {
    let tokens = words(&normalise(text));
    ASK_CUES.iter().any(|p| contains_phrase(&tokens, p))
}

fn is_agent_text(turn: &Turn) -> bool {
    turn.role == Role::Agent && !turn.text.trim().is_empty()
}

fn judge_consent(conversation: &[Turn]) -> Judgement {
    let Some(last_user) = conversation.iter().rposition(|t| t.role == Role::User) else {
        return Judgement::new(Verdict::NotSatisfied, "no user turn in the slice");
    };
    if let Some(pending) = conversation[last_user + 1..]
        .iter()
        .find(|t| is_agent_text(t) && asks_for_decision(&t.text))
    {
        return Judgement::new(
            Verdict::NotSatisfied,
            format!(
                "the agent's request for confirmation at event {} has no user reply",
                pending.event_index
            ),
        );
    }
    let summary = conversation[..last_user].iter().rposition(is_agent_text);
    if let Some(s) = summary
        && !asks_for_decision(&conversation[s].text)
    {
        return Judgement::unknown(format!(
            "the agent's last turn (event {}) does not ask for confirmation",
            conversation[s].event_index
        ));
    }
    let first_reply = summary.map_or(0, |s| s + 1);
    let decisive = conversation[first_reply..=last_user]
        .iter()
        .filter(|t| t.role == Role::User)
        .map(|t| (t, classify_reply(&t.text)))
        .rfind(|(_, r)| *r != Reply::Unclear);
    match decisive {
        Some((turn, Reply::Affirm)) => Judgement::new(
            Verdict::Satisfied {
                evidence_event: turn.event_index,
            },
            format!("the user agreed at event {}", turn.event_index),
        ),
        Some((turn, Reply::AffirmWithCorrection)) => Judgement::unknown(format!(
            "the user agreed with a correction at event {}; the details must be restated",
            turn.event_index
        )),
        Some((turn, Reply::Negative)) => Judgement::new(
            Verdict::NotSatisfied,
            format!(
                "the user declined or hesitated at event {}",
                turn.event_index
            ),
        ),
        Some((turn, Reply::Question)) => Judgement::new(
            Verdict::NotSatisfied,
            format!(
                "the user asked a question at event {} instead of confirming",
                turn.event_index
            ),
        ),
        Some((_, Reply::Unclear)) | None => {
            Judgement::unknown("no recognisable yes or no in the user's reply")
        }
    }
}

/// A criterion the bundle gave keywords for: satisfied by the last turn of
/// `said_by` in the slice that contains one of them (whole word sequences).
fn judge_by_keywords(keywords: &[String], said_by: Role, conversation: &[Turn]) -> Judgement {
    let who = said_by.as_str();
    let terms: Vec<Vec<String>> = keywords
        .iter()
        .map(|k| words(&normalise(k)))
        .filter(|t| !t.is_empty())
        .collect();
    if !conversation.iter().any(|t| t.role == said_by) {
        return Judgement::new(Verdict::NotSatisfied, format!("no {who} turn in the slice"));
    }
    let hit = conversation
        .iter()
        .rev()
        .filter(|t| t.role == said_by)
        .find_map(|turn| {
            let tokens = words(&normalise(&turn.text));
            let term = terms.iter().find(|t| count_phrase(&tokens, t) > 0)?;
            Some((turn.event_index, term.join(" ")))
        });
    match hit {
        Some((evidence_event, term)) => Judgement::new(
            Verdict::Satisfied { evidence_event },
            format!("the {who} said `{term}` at event {evidence_event}"),
        ),
        None => Judgement::new(
            Verdict::NotSatisfied,
            format!("no {who} turn in the slice contains one of the criterion's keywords"),
        ),
    }
}

fn classify(branches: &[Branch], conversation: &[Turn]) -> Judgement {
    let user_turns: Vec<(&Turn, Vec<String>)> = conversation
        .iter()
        .filter(|t| t.role == Role::User)
        .map(|t| (t, words(&normalise(&t.text))))
        .collect();
    let mut scored: Vec<(usize, &str, Option<u32>)> = Vec::with_capacity(branches.len());
    for branch in branches {
        let mut terms: Vec<Vec<String>> = branch
            .keywords
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(branch.label.as_str()))
            .map(|t| words(&normalise(&t.replace('_', " "))))
            .filter(|t| !t.is_empty())
            .collect();
        // The label is usually also a keyword; count each term once.
        terms.sort();
        terms.dedup();
        let mut score = 0;
        let mut first = None;
        for (turn, tokens) in &user_turns {
            let n: usize = terms.iter().map(|t| count_phrase(tokens, t)).sum();
            if n > 0 && first.is_none() {
                first = Some(turn.event_index);
            }
            score += n;
        }
        scored.push((score, branch.label.as_str(), first));
    }
    let best = scored.iter().map(|s| s.0).max().unwrap_or(0);
    let winners: Vec<_> = scored.iter().filter(|s| s.0 == best).collect();
    match winners.as_slice() {
        _ if best == 0 => Judgement::unknown("no branch keyword occurs in the user's turns"),
        [(score, label, Some(evidence_event))] => Judgement::new(
            Verdict::Chosen {
                label: (*label).to_owned(),
                evidence_event: *evidence_event,
            },
            format!("{score} keyword match(es) for `{label}`"),
        ),
        _ => Judgement::unknown(format!(
            "tie between branches {}",
            winners.iter().map(|w| w.1).collect::<Vec<_>>().join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn consent(turns: Vec<Turn>) -> Verdict {
        OfflineJudge
            .decide(&JudgeRequest {
                bundle_hash: "b".into(),
                node_id: "n".into(),
                question: Question::Criterion {
                    text: "the user explicitly confirmed (yes) after the agent listed the action details"
                        .into(), keywords: Vec::new(), said_by: Role::User },
                policy_excerpt: None,
                bindings: BTreeMap::new(),
                conversation: turns,
            })
            .verdict
    }

    const ASK: &str = "I will cancel order #W1. Do you confirm (yes/no)?";

    fn by_keywords(keywords: &[&str], turns: Vec<Turn>) -> Verdict {
        OfflineJudge
            .decide(&JudgeRequest {
                bundle_hash: "b".into(),
                node_id: "n".into(),
                question: Question::Criterion {
                    text: "The user stated an accepted reason for cancelling.".into(),
                    keywords: keywords.iter().map(|k| (*k).to_owned()).collect(),
                    said_by: Role::User,
                },
                policy_excerpt: None,
                bindings: BTreeMap::new(),
                conversation: turns,
            })
            .verdict
    }

    #[test]
    fn keyword_criteria_cite_the_last_user_turn_that_says_one() {
        let reasons = ["no longer need", "ordered by mistake"];
        let turns = vec![
            Turn::new(3, Role::User, "I ordered it by mistake, honestly."),
            Turn::new(
                4,
                Role::Agent,
                "I see. Any other reason? I no longer need to know.",
            ),
            Turn::new(5, Role::User, "I just no longer need it."),
            Turn::new(6, Role::User, "Thanks!"),
        ];
        assert_eq!(
            by_keywords(&reasons, turns),
            Verdict::Satisfied { evidence_event: 5 }
        );
        // Agent text never counts; a different phrasing does not match.
        let turns = vec![
            Turn::new(3, Role::Agent, "Was it ordered by mistake?"),
            Turn::new(4, Role::User, "It arrived too late for the party."),
        ];
        assert_eq!(by_keywords(&reasons, turns), Verdict::NotSatisfied);
        assert_eq!(by_keywords(&reasons, Vec::new()), Verdict::NotSatisfied);
        // Without keywords the offline judge cannot tell.
        assert!(matches!(
            by_keywords(&[], vec![Turn::new(1, Role::User, "no longer need it")]),
            Verdict::Unknown { .. }
        ));
    }

    #[test]
    fn punctuation_tolerant_yes() {
        for reply in [
            "Yes, please.",
            "Yes—go ahead",
            "yes!",
            "YEP",
            "sure thing",
            "Go ahead.",
        ] {
            assert_eq!(
                consent(vec![
                    Turn::new(1, Role::Agent, ASK),
                    Turn::new(2, Role::User, reply)
                ]),
                Verdict::Satisfied { evidence_event: 2 },
                "{reply}"
            );
        }
    }

    #[test]
    fn slice_shapes() {
        // No reply yet: premature.
        assert_eq!(
            consent(vec![
                Turn::new(1, Role::User, "yes"),
                Turn::new(2, Role::Agent, ASK)
            ]),
            Verdict::NotSatisfied
        );
        // A tool call between the yes and now does not matter.
        assert_eq!(
            consent(vec![
                Turn::new(1, Role::Agent, ASK),
                Turn::new(2, Role::User, "yes"),
                Turn::new(3, Role::Tool, "get_order_details"),
                Turn::new(4, Role::Agent, "Processing it now."),
            ]),
            Verdict::Satisfied { evidence_event: 2 }
        );
        assert_eq!(consent(vec![]), Verdict::NotSatisfied);
        assert!(matches!(
            consent(vec![
                Turn::new(1, Role::Agent, "What is your email?"),
                Turn::new(2, Role::User, "Sure, it's a@b.c")
            ]),
            Verdict::Unknown { .. }
        ));
    }

    #[test]
    fn other_criteria_are_unknown() {
        let v = OfflineJudge
            .decide(&JudgeRequest {
                bundle_hash: "b".into(),
                node_id: "n".into(),
                question: Question::Criterion {
                    text: "the agent explained the refund timeline".into(),
                    keywords: Vec::new(),
                    said_by: Role::User,
                },
                policy_excerpt: None,
                bindings: BTreeMap::new(),
                conversation: vec![Turn::new(1, Role::User, "yes")],
            })
            .verdict;
        assert!(matches!(v, Verdict::Unknown { .. }));
    }

    #[test]
    fn classification() {
        let branches = vec![
            Branch {
                label: "cancel".into(),
                description: String::new(),
                keywords: vec!["cancel".into(), "cancellation".into()],
            },
            Branch {
                label: "return".into(),
                description: String::new(),
                keywords: vec!["send back".into(), "refund".into()],
            },
            Branch {
                label: "transfer".into(),
                description: String::new(),
                keywords: vec!["human agent".into()],
            },
        ];
        let req = |text: &str| JudgeRequest {
            bundle_hash: "b".into(),
            node_id: "classify".into(),
            question: Question::Classify {
                branches: branches.clone(),
            },
            policy_excerpt: None,
            bindings: BTreeMap::new(),
            conversation: vec![
                Turn::new(0, Role::Agent, "How can I help? I can cancel or refund."),
                Turn::new(1, Role::User, "Hi there."),
                Turn::new(2, Role::User, text),
            ],
        };
        assert_eq!(
            OfflineJudge
                .decide(&req("I want to send back my shoes for a refund"))
                .verdict,
            Verdict::Chosen {
                label: "return".into(),
                evidence_event: 2
            }
        );
        assert!(matches!(
            OfflineJudge.decide(&req("cancel or refund?")).verdict,
            Verdict::Unknown { .. }
        ));
        assert!(matches!(
            OfflineJudge.decide(&req("hello")).verdict,
            Verdict::Unknown { .. }
        ));
        assert_eq!(
            OfflineJudge.decide(&req("get me a human agent")).verdict,
            Verdict::Chosen {
                label: "transfer".into(),
                evidence_event: 2
            }
        );
    }
}
