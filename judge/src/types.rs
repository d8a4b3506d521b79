//! The plain data exchanged with a judge: what is asked ([`JudgeRequest`]) and
//! what comes back ([`Judgement`], [`Verdict`], [`Usage`]).
//!
//! These types deliberately do not depend on the engine: the engine converts
//! its own trace events and workflow nodes into them, so this crate stays a
//! leaf of the workspace.

use std::collections::BTreeMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::iter::Sum;
use std::ops::{Add, AddAssign};
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use crate::dialogue::{DomainClass, Lexicon, Sentence, sentences_in};

/// Who produced a [`Turn`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The customer.
    User,
    /// Natural-language text written by the agent (not its tool calls).
    Agent,
    /// A tool call issued by the agent or a tool result. Kept apart from
    /// [`Role::Agent`] so a tool call between the user's "yes" and the action
    /// is never mistaken for the agent's last summary.
    Tool,
}

impl Role {
    /// Lower-case name used in prompts and recordings.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Agent => "agent",
            Role::Tool => "tool",
        }
    }
}

fn user_role() -> Role {
    Role::User
}

fn is_user(role: &Role) -> bool {
    *role == Role::User
}

/// One event of the conversation slice shown to the judge.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Turn {
    /// Index of the event in the whole trace; evidence positions refer to it.
    pub event_index: u32,
    /// Who produced it.
    pub role: Role,
    /// Its text (for tool events, a rendering of the call or result).
    pub text: String,
    /// The text's sentences, computed by the first judge that reads them and
    /// shared by every clone: a session hands the same turn to every later
    /// question, and it is tokenized once, not once per question. Derived
    /// from `text` (so not part of equality, hashing or the serialized form);
    /// build a new turn rather than editing `text`.
    #[serde(skip)]
    sentences: SharedSentences,
    /// The words of the domain the turn is read with (the bundle's): the
    /// reader tags its words by it when it tokenizes them. A turn made
    /// without one ([`Turn::new`], or deserialized) is read in English only.
    #[serde(skip)]
    lexicon: SharedLexicon,
}

impl Turn {
    /// Convenience constructor.
    #[must_use]
    pub fn new(event_index: u32, role: Role, text: impl Into<String>) -> Self {
        Self::with_lexicon(event_index, role, text, Lexicon::english())
    }

    /// A turn read with a domain's words ([`Lexicon`], compiled once per
    /// bundle): the words its bundle declares for its actions and records.
    #[must_use]
    pub fn with_lexicon(
        event_index: u32,
        role: Role,
        text: impl Into<String>,
        lexicon: Arc<Lexicon>,
    ) -> Self {
        Self {
            event_index,
            role,
            text: text.into(),
            sentences: SharedSentences::default(),
            lexicon: SharedLexicon(lexicon),
        }
    }

    /// Tokenizes the text now rather than when a judge first reads it: a
    /// session does it as the turn arrives, so no question pays for it.
    #[must_use]
    pub fn tokenized(self) -> Self {
        let _ = self.sentences();
        self
    }

    /// The text's sentences, tokenized on the first call.
    pub(crate) fn sentences(&self) -> &[Sentence] {
        self.sentences
            .0
            .get_or_init(|| sentences_in(&self.text, &self.lexicon.0))
    }

    /// The domain's actions the turn names by any of their words, a bit per
    /// action ([`Lexicon::action_bits`]).
    #[must_use]
    pub fn action_bits(&self) -> u16 {
        self.sentences()
            .iter()
            .flat_map(Sentence::tokens)
            .fold(0, |bits, word| bits | word.tags().actions())
    }

    /// Whether the turn names two actions no word of theirs shares
    /// ("return" and "modify"; not "freeze" and "frozen", nor "change" and
    /// "address" when one action has both): it weighs several actions. A
    /// word that is also a noun for a record ("cancel refill RF-1") names
    /// the record, not for sure its action.
    #[must_use]
    pub fn weighs_actions(&self) -> bool {
        let mut words: Vec<u16> = Vec::new();
        for bits in self
            .sentences()
            .iter()
            .flat_map(Sentence::tokens)
            .map(|word| word.tags())
            .filter(|tags| !tags.has(DomainClass::RecordNoun))
            .map(|tags| tags.actions())
            .filter(|&bits| bits != 0)
        {
            if words.contains(&bits) {
                continue;
            }
            if words.iter().any(|&other| other & bits == 0) {
                return true;
            }
            words.push(bits);
        }
        false
    }

    /// The domain's words the turn is read with.
    pub(crate) fn lexicon(&self) -> &Lexicon {
        &self.lexicon.0
    }
}

/// The lexicon a turn is read with, shared between clones; like its
/// sentences, derived data: not part of equality, hashing or the serialized
/// form.
#[derive(Clone)]
struct SharedLexicon(Arc<Lexicon>);

impl Default for SharedLexicon {
    fn default() -> Self {
        SharedLexicon(Lexicon::english())
    }
}

impl PartialEq for SharedLexicon {
    /// Always equal: the lexicon only says how the text is read.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for SharedLexicon {}

impl Hash for SharedLexicon {
    /// Nothing: the lexicon only says how the text is read.
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

impl fmt::Debug for SharedLexicon {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_empty() {
            "english"
        } else {
            "domain"
        })
    }
}

/// A turn's tokenized text, shared between clones.
#[derive(Clone, Default)]
struct SharedSentences(Arc<OnceLock<Vec<Sentence>>>);

impl PartialEq for SharedSentences {
    /// Always equal: the value is a function of the turn's text.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for SharedSentences {}

impl Hash for SharedSentences {
    /// Nothing: the value is a function of the turn's text.
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

impl fmt::Debug for SharedSentences {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "tokenized"
        } else {
            "not tokenized"
        })
    }
}

/// One outcome of a classification decision.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Branch {
    /// The label the judge must answer with (e.g. `cancel`, `general`, `transfer`).
    pub label: String,
    /// What requests of this kind look like, in words.
    #[serde(default)]
    pub description: String,
    /// Words or phrases that indicate this branch (used by the offline judge).
    #[serde(default)]
    pub keywords: Vec<String>,
    /// The words of the actions only this branch leads to (its writes'
    /// `action_words`): the offline judge reads a user's yes to a request
    /// for a decision on one of them as asking for this branch. They come
    /// from the bundle, whose hash keys every answer, so they are neither
    /// sent to a model nor part of the question's hash.
    #[serde(skip)]
    pub actions: Vec<String>,
}

/// What the judge is asked.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Question {
    /// A yes/no semantic criterion, e.g. "the user explicitly confirmed (yes)
    /// after the agent listed the action details".
    Criterion {
        /// The criterion in words.
        text: String,
        /// Phrases of the user's messages that establish it, if the bundle
        /// declares any (the offline judge decides non-consent criteria by them).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        keywords: Vec<String>,
        /// Whose turns the keywords are looked for in: the user's (stated
        /// reasons, choices) or the agent's (an offer or a refusal was made).
        #[serde(default = "user_role", skip_serializing_if = "is_user")]
        said_by: Role,
        /// The values the request is about (an order id, a reservation
        /// code): a confirmation counts only if the agent's summary named
        /// each of them. Empty when the request binds none; omitted from the
        /// serialized form then, so such requests hash as before.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        key_values: Vec<String>,
    },
    /// Which of these request types is the conversation about.
    Classify {
        /// The candidate branches; labels are unique.
        branches: Vec<Branch>,
    },
    /// Whether the user, since the agent's latest request for a decision
    /// about the action, explicitly agreed to exactly this call: asked of a
    /// model judge ([`crate::Judge::decides_consent`]) about a write that
    /// lacks only the user's consent, which the offline reader could not
    /// settle. Answered like a criterion whose evidence is a user turn.
    Consent {
        /// The tool called.
        tool: String,
        /// The call as the user would be asked to approve it (the
        /// confirmation text of the gate's `confirm` verdict).
        call: String,
    },
}

/// The suffix of a consent question's node id (`<step>#consent`): a `#`
/// is never part of a workflow node's id, so a recording tells the two
/// apart by the id alone.
pub const CONSENT_NODE_SUFFIX: &str = "#consent";

/// The node id of the consent question about a write blocked at `step`.
#[must_use]
pub fn consent_node_id(step: &str) -> String {
    format!("{step}{CONSENT_NODE_SUFFIX}")
}

/// A request to judge one semantic node on one conversation slice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeRequest {
    /// Hash of the compiled bundle the node belongs to.
    pub bundle_hash: String,
    /// The node's id, e.g. `cancel_order.confirm`.
    pub node_id: String,
    /// What is asked.
    pub question: Question,
    /// The part of the policy relevant to the node, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_excerpt: Option<String>,
    /// The request's bindings, e.g. `order -> "#W123"`.
    #[serde(default)]
    pub bindings: BTreeMap<String, String>,
    /// The slice of the conversation from the node's lower evidence bound to now.
    pub conversation: Conversation,
}

impl JudgeRequest {
    /// Event index of the last turn of the slice, if the slice is not empty.
    #[must_use]
    pub fn last_event(&self) -> Option<u32> {
        self.conversation.last().map(|t| t.event_index)
    }

    /// The turn with this event index, if it is part of the slice.
    #[must_use]
    pub fn turn_at(&self, event_index: u32) -> Option<&Turn> {
        self.conversation
            .iter()
            .find(|t| t.event_index == event_index)
    }
}

/// The turns a judge is shown: a range of a list of turns that many
/// requests share. A session renders each event once, as it arrives, and
/// every question of a firing takes its slice as a range of that list, so
/// building a request costs the range, not a copy of the turns. It reads as
/// a `&[Turn]` (`Deref`), compares, hashes and serializes as the visible
/// turns only (a JSON array of turns, as before), so two requests showing
/// the same turns are equal however their lists are shared.
#[derive(Clone, Default)]
pub struct Conversation {
    turns: Arc<Vec<Turn>>,
    start: usize,
    end: usize,
}

impl Conversation {
    /// The turns `range` of `turns` (clamped to the list), sharing the list.
    #[must_use]
    pub fn shared(turns: &Arc<Vec<Turn>>, range: std::ops::Range<usize>) -> Self {
        let end = range.end.min(turns.len());
        Self {
            turns: Arc::clone(turns),
            start: range.start.min(end),
            end,
        }
    }

    /// The visible turns as an owned list (copies them).
    #[must_use]
    pub fn to_vec(&self) -> Vec<Turn> {
        self.as_slice().to_vec()
    }

    /// The visible turns.
    #[must_use]
    pub fn as_slice(&self) -> &[Turn] {
        let end = self.end.min(self.turns.len());
        self.turns.get(self.start.min(end)..end).unwrap_or_default()
    }

    /// Edits the visible turns (copying them first if the list is shared
    /// or only partly visible); the conversation is then the whole list,
    /// whatever the edit leaves in it.
    pub fn make_mut(&mut self) -> &mut Vec<Turn> {
        if self.start != 0 || self.end < self.turns.len() {
            *self = Self::from(self.to_vec());
        }
        self.end = usize::MAX;
        Arc::make_mut(&mut self.turns)
    }
}

impl std::ops::Deref for Conversation {
    type Target = [Turn];
    fn deref(&self) -> &[Turn] {
        self.as_slice()
    }
}

impl From<Vec<Turn>> for Conversation {
    fn from(turns: Vec<Turn>) -> Self {
        let end = turns.len();
        Self {
            turns: Arc::new(turns),
            start: 0,
            end,
        }
    }
}

impl FromIterator<Turn> for Conversation {
    fn from_iter<I: IntoIterator<Item = Turn>>(iter: I) -> Self {
        Self::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl<'a> IntoIterator for &'a Conversation {
    type Item = &'a Turn;
    type IntoIter = std::slice::Iter<'a, Turn>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl PartialEq for Conversation {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Conversation {}

impl Hash for Conversation {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl fmt::Debug for Conversation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl Serialize for Conversation {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Conversation {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Turn>::deserialize(deserializer).map(Self::from)
    }
}

/// The judge's answer.
///
/// Callers must fail closed: only [`Verdict::Satisfied`] and
/// [`Verdict::Chosen`] mean the criterion holds; [`Verdict::NotSatisfied`] and
/// [`Verdict::Unknown`] (errors, timeouts, unparsable answers) must keep a
/// gate closed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// The criterion holds; the given user turn is the evidence.
    Satisfied {
        /// Event index of the evidence turn.
        evidence_event: u32,
    },
    /// Classification picked this branch.
    Chosen {
        /// One of the request's branch labels.
        label: String,
        /// Event index of the evidence turn.
        evidence_event: u32,
    },
    /// The criterion does not hold on this slice.
    NotSatisfied,
    /// No usable answer: judge error, timeout, invalid answer, or undecidable.
    Unknown {
        /// Why, for reports. Never contains secrets.
        reason: String,
    },
}

impl Verdict {
    /// True only for a positive, definitive answer ([`Verdict::Satisfied`] or
    /// [`Verdict::Chosen`]). Everything else must be treated as not satisfied.
    #[must_use]
    pub fn is_satisfied(&self) -> bool {
        matches!(self, Verdict::Satisfied { .. } | Verdict::Chosen { .. })
    }

    /// True for every verdict except [`Verdict::Unknown`]; only these are
    /// worth caching.
    #[must_use]
    pub fn is_definitive(&self) -> bool {
        !matches!(self, Verdict::Unknown { .. })
    }

    /// The evidence event of a positive verdict.
    #[must_use]
    pub fn evidence_event(&self) -> Option<u32> {
        match self {
            Verdict::Satisfied { evidence_event } | Verdict::Chosen { evidence_event, .. } => {
                Some(*evidence_event)
            }
            Verdict::NotSatisfied | Verdict::Unknown { .. } => None,
        }
    }

    /// Shorthand for an [`Verdict::Unknown`] with this reason.
    #[must_use]
    pub fn unknown(reason: impl Into<String>) -> Self {
        Verdict::Unknown {
            reason: reason.into(),
        }
    }
}

/// Cost of producing one or many judgements; sums with `+=` and `Sum`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Usage {
    /// Requests sent to a model (retries count).
    pub calls: u64,
    /// Prompt tokens reported by the model.
    pub input_tokens: u64,
    /// Completion tokens reported by the model.
    pub output_tokens: u64,
    /// Wall-clock time spent, in microseconds.
    pub latency_micros: u64,
    /// Judgements answered from the verdict cache.
    pub cache_hits: u64,
}

impl Usage {
    /// The usage of one judgement served from the cache.
    #[must_use]
    pub fn cache_hit() -> Self {
        Self {
            cache_hits: 1,
            ..Self::default()
        }
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, rhs: Self) {
        self.calls += rhs.calls;
        self.input_tokens += rhs.input_tokens;
        self.output_tokens += rhs.output_tokens;
        self.latency_micros += rhs.latency_micros;
        self.cache_hits += rhs.cache_hits;
    }
}

impl Add for Usage {
    type Output = Usage;
    fn add(mut self, rhs: Self) -> Self {
        self += rhs;
        self
    }
}

impl Sum for Usage {
    fn sum<I: Iterator<Item = Usage>>(iter: I) -> Self {
        iter.fold(Usage::default(), Add::add)
    }
}

impl<'a> Sum<&'a Usage> for Usage {
    fn sum<I: Iterator<Item = &'a Usage>>(iter: I) -> Self {
        iter.copied().sum()
    }
}

/// A verdict with its explanation and cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judgement {
    /// The answer.
    pub verdict: Verdict,
    /// A short explanation for reports.
    #[serde(default)]
    pub rationale: String,
    /// What it cost.
    #[serde(default)]
    pub usage: Usage,
}

impl Judgement {
    /// A judgement with zero usage.
    #[must_use]
    pub fn new(verdict: Verdict, rationale: impl Into<String>) -> Self {
        Self {
            verdict,
            rationale: rationale.into(),
            usage: Usage::default(),
        }
    }

    /// An [`Verdict::Unknown`] judgement whose rationale repeats the reason.
    #[must_use]
    pub fn unknown(reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Self::new(Verdict::unknown(reason.clone()), reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_sums() {
        let a = Usage {
            calls: 1,
            input_tokens: 10,
            output_tokens: 2,
            latency_micros: 5,
            cache_hits: 0,
        };
        let total: Usage = [a, a, Usage::cache_hit()].iter().sum();
        assert_eq!(total.calls, 2);
        assert_eq!(total.input_tokens, 20);
        assert_eq!(total.output_tokens, 4);
        assert_eq!(total.latency_micros, 10);
        assert_eq!(total.cache_hits, 1);
    }

    #[test]
    fn only_positive_verdicts_are_satisfied() {
        assert!(Verdict::Satisfied { evidence_event: 1 }.is_satisfied());
        assert!(
            Verdict::Chosen {
                label: "x".into(),
                evidence_event: 1
            }
            .is_satisfied()
        );
        assert!(!Verdict::NotSatisfied.is_satisfied());
        assert!(!Verdict::unknown("x").is_satisfied());
    }

    #[test]
    fn a_shared_conversation_is_its_visible_turns() {
        let turns = Arc::new(vec![
            Turn::new(0, Role::User, "a"),
            Turn::new(1, Role::Agent, "b"),
            Turn::new(2, Role::User, "c"),
        ]);
        let shared = Conversation::shared(&turns, 1..3);
        let owned = Conversation::from(turns[1..3].to_vec());
        assert_eq!(shared, owned);
        assert_eq!(shared.len(), 2);
        assert_eq!(shared.first().map(|t| t.event_index), Some(1));
        assert_eq!(
            serde_json::to_string(&shared).unwrap(),
            serde_json::to_string(&turns[1..3]).unwrap()
        );
        let back: Conversation =
            serde_json::from_str(&serde_json::to_string(&shared).unwrap()).unwrap();
        assert_eq!(back, shared);
        // Sharing: no copy of the list.
        assert_eq!(Arc::strong_count(&turns), 2);
        // Out-of-range bounds clamp instead of panicking.
        assert!(Conversation::shared(&turns, 5..9).is_empty());
        assert_eq!(Conversation::shared(&turns, 2..9).len(), 1);
        // Editing copies, leaving the shared list alone.
        let mut edited = shared.clone();
        edited.make_mut().remove(0);
        assert_eq!(edited.len(), 1);
        assert_eq!(shared.len(), 2);
        assert_eq!(turns.len(), 3);
    }

    #[test]
    fn verdict_serde_is_flat() {
        let v = Verdict::Satisfied { evidence_event: 7 };
        let s = serde_json::to_string(&v).unwrap();
        assert_eq!(s, r#"{"verdict":"satisfied","evidence_event":7}"#);
        let back: Verdict = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }
}
