//! Trace facts: what a conversation established, as typed, interned tuples.
//! The engine extracts them from events using the bundle's domain schema; the
//! evaluator never sees JSON.

use serde::{Deserialize, Serialize};

use crate::env::Env;
use crate::ids::EventIdx;
use crate::intern::{Interner, Symbol};
use crate::ir::{ArgPath, VarId};
use crate::steps::StepId;
use crate::value::{DateTime, Value};

/// `elem` of a scalar value; list elements are numbered from 0.
pub const SCALAR: u32 = u32::MAX;

/// An event index past the end of any trace: "until further notice".
pub const FOREVER: EventIdx = EventIdx::FOREVER;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// A tool call.
pub struct CallFact {
    /// The call's event index.
    pub event: EventIdx,
    /// The tool called.
    pub tool: Symbol,
    /// Made by the agent (as opposed to the user's device).
    pub by_agent: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// A tool result.
pub struct ResultFact {
    /// The result's event index.
    pub event: EventIdx,
    /// The event index of the call it answers.
    pub call: EventIdx,
    /// Whether the call succeeded.
    pub ok: bool,
}

/// `entity[id].field` (element `elem`) is `value` for events in `[from, until)`:
/// read by the successful result at `from`, superseded by the next read of the
/// same field at `until` (latest read wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttrFact {
    /// The entity type.
    pub entity: Symbol,
    /// The entity id.
    pub id: Symbol,
    /// The field.
    pub field: Symbol,
    /// Element index in a list field, [`SCALAR`] for a scalar.
    pub elem: u32,
    /// The value read.
    pub value: Value,
    /// The read's event index.
    pub from: EventIdx,
    /// The next read of the field, or [`FOREVER`].
    pub until: EventIdx,
}

/// Length of a list field over the same interval as its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttrLenFact {
    /// The entity type.
    pub entity: Symbol,
    /// The entity id.
    pub id: Symbol,
    /// The list field.
    pub field: Symbol,
    /// The number of elements.
    pub len: u32,
    /// The read's event index.
    pub from: EventIdx,
    /// The next read of the field, or [`FOREVER`].
    pub until: EventIdx,
}

/// The value at `path` (index into [`TraceFacts::arg_paths`]) of call `call`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgFact {
    /// The call's event index.
    pub call: EventIdx,
    /// Index into [`TraceFacts::arg_paths`].
    pub path: u32,
    /// Element index in a list argument, [`SCALAR`] for a scalar.
    pub elem: u32,
    /// The argument value.
    pub value: Value,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
/// Length of a list argument.
pub struct ArgLenFact {
    /// The call's event index.
    pub call: EventIdx,
    /// Index into [`TraceFacts::arg_paths`].
    pub path: u32,
    /// The number of elements.
    pub len: u32,
}

/// Step `step` satisfied at `event` binds variable `var` to `value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BindFact {
    /// The step satisfied.
    pub step: StepId,
    /// The event index it is satisfied at.
    pub event: EventIdx,
    /// The variable bound.
    pub var: VarId,
    /// The symbol it is bound to.
    pub value: Symbol,
}

/// Who wrote a conversation turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Speaker {
    /// The customer.
    User,
    /// The agent (its text, not its tool calls).
    Agent,
    /// The task's ticket: what the customer stated before the conversation.
    /// Every value it names is named by [`Speaker::User`] too (a mention
    /// of each); `said(ticket, x)` asks for the ticket alone.
    Ticket,
}

/// A conversation turn as the dialogue predicates read it: its cues, decided
/// by code over its text when it was extracted (see
/// `turnstile_judge::dialogue::turn_cues`; the rules crate only combines them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnFact {
    /// The turn's event index.
    pub event: EventIdx,
    /// Who wrote it.
    pub speaker: Speaker,
    /// An agent turn asking for a decision (a summary when it names the key values).
    pub asks_decision: bool,
    /// An agent turn asking anything (it closes the window of an earlier summary).
    pub asks_anything: bool,
    /// How a user turn answers a request for a decision.
    pub reply: Reply,
    /// A user turn asking for an action without a yes (a correction after a yes).
    pub corrects: bool,
    /// An agent turn naming two actions no word of theirs shares: it weighs
    /// them, so it proposes no call with another record for sure.
    #[serde(default)]
    pub weighs_actions: bool,
    /// A user turn correcting what the user said before to an explicit yes
    /// ("No — sorry, misread. Yes, go ahead"): in the window of the
    /// request it answers, it takes back the refusals, withdrawals and
    /// qualifications since the request (`confirmed(...)`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retracts: bool,
    /// A user turn whose yes answers the things a request laid out one by
    /// one ("jira: yes / confluence: no"): it is a yes only to a call
    /// carrying a value its answer names (`confirmed(...)`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_item: bool,
}

/// How a user turn answers a request for a decision, as the reader decided
/// it (`turnstile_judge::dialogue`): the yes that consents, and the three
/// ways a reply takes consent away, from the weakest to the strongest.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub enum Reply {
    /// No answer either way: an agent turn, a question, a remark.
    #[default]
    Other,
    /// An explicit, unqualified yes to the action asked about.
    Affirms,
    /// A yes with a condition, a contrast, a hedge or a correction, or an
    /// answer that is neither yes nor no: the details must be restated.
    Qualifies,
    /// A yes taken back, deferred to someone else, or said by someone else.
    Withdraws,
    /// A no, a sarcastic yes, or keeping what the action would change.
    Refuses,
}

impl Reply {
    /// How strongly the reply takes consent away: 0 for none, then
    /// [`Reply::Qualifies`] < [`Reply::Withdraws`] < [`Reply::Refuses`].
    #[must_use]
    pub const fn revoke_rank(self) -> u8 {
        match self {
            Reply::Other | Reply::Affirms => 0,
            Reply::Qualifies => 1,
            Reply::Withdraws => 2,
            Reply::Refuses => 3,
        }
    }

    /// The reply whose [`Reply::revoke_rank`] is `rank` (0: none).
    #[must_use]
    pub fn of_revoke_rank(rank: u8) -> Option<Reply> {
        match rank {
            1 => Some(Reply::Qualifies),
            2 => Some(Reply::Withdraws),
            3 => Some(Reply::Refuses),
            _ => None,
        }
    }
}

/// The value is named in the turn at `event`, written by `speaker`: an
/// interned string (an id, an enum value), or a date or amount the turn
/// spells in any of the forms `turnstile_judge::dialogue::names_value` reads.
/// Emitted when the later of the two (the turn, or the value's first
/// appearance in the trace) is extracted, so every value an operand can have
/// at an event has its mentions up to that event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MentionFact {
    /// The value named: a string (`Value::Str`), a date or an amount.
    pub value: Value,
    /// The turn's event index.
    pub event: EventIdx,
    /// Who wrote the turn.
    pub speaker: Speaker,
    /// The value is a record identifier (an order id such as `#W9300146`),
    /// the kind of value a yes naming some of a summary's records picks
    /// among (`confirmed(...)`).
    pub record: bool,
    /// An identifier named in the answer of a user turn (its sentences
    /// before it moves on to another request of the user's own), known as
    /// a value when the turn was read.
    pub in_answer: bool,
    /// An action an agent turn asking for a decision names only as what not
    /// to do ("hold off on wiping", "instead of refilling"): the turn is no
    /// request to do it (`confirmed(...)`), though it said it.
    #[serde(default)]
    pub declined: bool,
    /// The value is one of the domain's words for its actions: actions are
    /// a kind, like records, a yes naming some of a summary's picks among
    /// ("Yes to the transfer" to a refill and a transfer).
    #[serde(default)]
    pub action: bool,
    /// The turn does not spell the value: it asks for a decision on an
    /// action while this record is the only one of its kind in play, so it
    /// refers to it. `confirmed(...)` reads the reference as naming the
    /// record; `said(...)` does not (nobody said it).
    #[serde(default)]
    pub implied: bool,
    /// In an agent turn of several segments (lines, or sentences of one:
    /// `turnstile_judge::dialogue::ReadTurn::token_segments`), the
    /// segments where the value is spelt, as bits (segment `s` is bit
    /// `s`); [`UNPLACED_SEGMENT`] when it is spelt where no segment is
    /// known. `0` in a turn of one segment, and for a value not spelt.
    /// Which value goes with which inside a list (`confirmed(...)`) is read
    /// from them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub segments: u32,
    /// Likewise, the clauses where the value is spelt: a segment, or a
    /// part of one that *and* opens.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub clauses: u32,
    /// Likewise, the first and the last place where the value is spelt:
    /// a token's index plus one; [`UNKNOWN_PLACE`] where it is spelt but
    /// no place is known. Two lists laid out one after the other ("A and
    /// B for C and D") pair their values by these places.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub first_place: u32,
    /// The last place where the value is spelt ([`MentionFact::first_place`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub last_place: u32,
}

/// [`MentionFact::first_place`] and [`MentionFact::last_place`] of a value
/// spelt where no place is known: it has no place in the turn's order.
pub const UNKNOWN_PLACE: u32 = u32::MAX;

/// The bit of [`MentionFact::segments`] for a value spelt in a turn of
/// several segments where no segment is known: it may stand in any.
pub const UNPLACED_SEGMENT: u32 = 1 << 31;

fn is_zero(bits: &u32) -> bool {
    *bits == 0
}

/// The user said, in the turn at `event`, that the value is not theirs
/// ("W12 is not mine", "that's my sister's"; read by
/// `turnstile_judge::dialogue::Disowning`): from there on `said(user,
/// value)` does not hold, until a later user turn names the value again.
/// Emitted, like a mention, when the later of the turn and the value's
/// first appearance is extracted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DisownFact {
    /// The value disowned.
    pub value: Value,
    /// The user turn's event index.
    pub event: EventIdx,
}

/// The user's reply at `event` did not pick `value` among the options a
/// question offered (read by `turnstile_judge::dialogue::Alternative`): it
/// picked another ("30 or 90 tablets?" → "30 please" passes over 90), which
/// refuses a call carrying the value, or none ("yes"), which is no yes to
/// such a call (`confirmed(...)`).
/// Emitted, like a mention, when the later of the reply and the value's
/// first appearance is extracted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PassedOverFact {
    /// The value the reply did not pick.
    pub value: Value,
    /// The user turn's event index.
    pub event: EventIdx,
    /// The reply picked another option (else it picked none).
    pub picked_another: bool,
}

/// In the request for a decision at `event`, `value` is held by `record`,
/// a record of type `entity` the request also names, and by no other record
/// it names: in a plan of one action per record ("change the watch in
/// #W4219264 and the air purifier in #W6729841"), it is that record's
/// detail, no rival of a call on another record of that type
/// (`confirmed(...)`). Held: read in one of the record's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HeldFact {
    /// The value the request names.
    pub value: Value,
    /// The agent turn's event index.
    pub event: EventIdx,
    /// The type of the record holding it.
    pub entity: Symbol,
    /// The record holding it.
    pub record: Value,
}

/// A value is a literal of one of the bundle's enums (`next_day` of
/// `delivery_speed`): two literals of one enum are values of one kind, so a
/// request naming another literal in place of the call's proposes another
/// call (`confirmed(...)`). Emitted at the trace's first event, for every
/// literal the bundle declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LiteralFact {
    /// The literal.
    pub value: Value,
    /// The enum declaring it.
    pub of: Symbol,
}

/// Why a part of the trace could not be turned into facts. Checks that would
/// have needed the missing facts are not satisfied (fail closed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtractionDiagnostic {
    /// The event the problem is at.
    pub event: EventIdx,
    /// What kind of problem.
    pub kind: ExtractionProblem,
    /// A human-readable description.
    pub detail: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
/// What kind of extraction problem.
pub enum ExtractionProblem {
    /// A read result that is not the JSON its schema describes.
    NotJson,
    /// A declared field (or entity id) absent from the result.
    MissingField,
    /// A value of the wrong type (a string where a number is declared...).
    WrongType,
    /// A number too large for its type.
    Overflow,
    /// A result whose call is unknown.
    OrphanResult,
    /// A value outside its closed enum.
    NotInEnum,
    /// A call reusing the id of an earlier call of the trace; the later call
    /// replaces the open one (its result answers the later call).
    ReusedCallId,
    /// A call the event attributes to the user, of a read tool the bundle
    /// declares agent-side: it satisfies no agent step and reads nothing.
    UntrustedSide,
    /// A host's principal event the bundle does not accept (no
    /// `host_principal: true`), or a second, different principal in one
    /// conversation: it names nothing.
    PrincipalRefused,
    /// A paged read's result is a part of the list it must cover (or was
    /// limited with that list unread): the lists gathered over its records
    /// are unknown.
    PartialRead,
    /// A ticket (what the user stated before the conversation) after the
    /// agent's first event: it could be read as a reply, so it states
    /// nothing.
    LateTicket,
}

impl ExtractionProblem {
    /// A value of the wrong type, out of range or outside its enum: a
    /// `TypeMismatch` when a decision needs it.
    pub fn is_type_error(self) -> bool {
        matches!(
            self,
            ExtractionProblem::WrongType
                | ExtractionProblem::Overflow
                | ExtractionProblem::NotInEnum
        )
    }

    /// Malformed input structure (not content): reported as an anomaly.
    pub fn is_anomaly(self) -> bool {
        matches!(
            self,
            ExtractionProblem::OrphanResult
                | ExtractionProblem::ReusedCallId
                | ExtractionProblem::UntrustedSide
                | ExtractionProblem::PrincipalRefused
                | ExtractionProblem::LateTicket
        )
    }
}

/// Everything the evaluator knows about one trace.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TraceFacts {
    /// The bundle's interner extended with the trace's strings.
    pub interner: Interner,
    /// The number of events in the trace.
    pub events: u32,
    /// Every tool call.
    pub calls: Vec<CallFact>,
    /// Every tool result.
    pub results: Vec<ResultFact>,
    /// Every entity field value read, with its validity interval.
    pub attrs: Vec<AttrFact>,
    /// Every list field length read, with its validity interval.
    pub attr_lens: Vec<AttrLenFact>,
    /// The argument paths that `args` facts refer to, by index.
    pub arg_paths: Vec<ArgPath>,
    /// Every argument value of every call.
    pub args: Vec<ArgFact>,
    /// Every list argument length.
    pub arg_lens: Vec<ArgLenFact>,
    /// Every variable binding of a step.
    pub binds: Vec<BindFact>,
    /// Semantic criteria the judge found satisfied: step, the request it was
    /// asked about (a verdict satisfies the step for that request only) and
    /// evidence event.
    pub judged: Vec<(StepId, Env, EventIdx)>,
    /// Everything that could not be turned into facts.
    pub diagnostics: Vec<ExtractionDiagnostic>,
    /// Every conversation turn's cues.
    #[serde(default)]
    pub turns: Vec<TurnFact>,
    /// Every string value named in a turn.
    #[serde(default)]
    pub mentions: Vec<MentionFact>,
    /// The time of every event that has one (what `now()` reads), in
    /// event order.
    #[serde(default)]
    pub clock: Vec<(EventIdx, DateTime)>,
    /// Every value the user disowned.
    #[serde(default)]
    pub disowned: Vec<DisownFact>,
    /// Every literal of the bundle's enums.
    #[serde(default)]
    pub literals: Vec<LiteralFact>,
    /// Every value a user reply passed over for another option.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passed_over: Vec<PassedOverFact>,
    /// Every value a request names as another named record's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<HeldFact>,
}

impl TraceFacts {
    /// The index of `path` in [`TraceFacts::arg_paths`], if it is there.
    pub fn arg_path_index(&self, path: &ArgPath) -> Option<u32> {
        self.arg_paths
            .iter()
            .position(|p| p == path)
            .and_then(|i| u32::try_from(i).ok())
    }
}

/// One successful read of one entity field at an event: the value(s) it
/// returned. Valid until the next read of the same field (latest read wins).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Read {
    /// The entity type.
    pub entity: Symbol,
    /// The entity id.
    pub id: Symbol,
    /// The field.
    pub field: Symbol,
    /// The value, or a list field's elements.
    pub values: Vec<Value>,
    /// A list field (its length is a fact too), as opposed to a scalar.
    pub is_list: bool,
}

impl Read {
    /// A read that says the field's value is no longer known (a list a part
    /// of a result would conclude absence from): no value and not a list,
    /// it ends the value read before and gives none, so every check on the
    /// field fails closed until the next read.
    pub fn unknown(entity: Symbol, id: Symbol, field: Symbol) -> Read {
        Read {
            entity,
            id,
            field,
            values: Vec::new(),
            is_list: false,
        }
    }
}

/// What one event adds to the facts. The incremental monitor consumes these
/// one at a time; [`FactsBuilder`] folds them into [`TraceFacts`] for the
/// Datalog program, so both evaluators see exactly the same input.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventFacts {
    /// The event's index.
    pub event: EventIdx,
    /// The call the event is, if it is one.
    pub call: Option<CallFact>,
    /// The result the event is, if it is one.
    pub result: Option<ResultFact>,
    /// The entity fields a successful result read.
    pub reads: Vec<Read>,
    /// The call's argument values.
    pub args: Vec<ArgFact>,
    /// The call's list argument lengths.
    pub arg_lens: Vec<ArgLenFact>,
    /// The variables steps bind at this event.
    pub binds: Vec<BindFact>,
    /// What could not be turned into facts.
    pub diagnostics: Vec<ExtractionDiagnostic>,
    /// The turn the event is, if it is one.
    #[serde(default)]
    pub turn: Option<TurnFact>,
    /// Values named in this or an earlier turn, found at this event.
    #[serde(default)]
    pub mentions: Vec<MentionFact>,
    /// The time the event happened at, as the session's clock gives it
    /// (`None`: no time is known; `now()` is then absent).
    #[serde(default)]
    pub now: Option<DateTime>,
    /// Values the user disowned in this or an earlier turn, found at this
    /// event.
    #[serde(default)]
    pub disowned: Vec<DisownFact>,
    /// The literals of the bundle's enums, at the trace's first event.
    #[serde(default)]
    pub literals: Vec<LiteralFact>,
    /// Values a user reply in this or an earlier turn passed over for
    /// another option, found at this event.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passed_over: Vec<PassedOverFact>,
    /// Values the request for a decision at this event names as another
    /// record's it names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<HeldFact>,
}

/// `(entity, id, field)`.
type FieldKey = (Symbol, Symbol, Symbol);

/// Indices of a field's current `attrs` facts and `attr_lens` fact.
type OpenVersion = (Vec<usize>, Option<usize>);

/// Accumulates [`EventFacts`] into [`TraceFacts`], closing each attribute
/// version's interval when the same field is read again.
#[derive(Clone, Debug, Default)]
pub struct FactsBuilder {
    facts: TraceFacts,
    /// Per field: indices of its current (open) `attrs` and `attr_lens` facts.
    open: hashbrown::HashMap<FieldKey, OpenVersion>,
}

impl FactsBuilder {
    /// A builder whose argument facts use `arg_paths`' numbering.
    pub fn new(arg_paths: Vec<ArgPath>) -> Self {
        FactsBuilder {
            facts: TraceFacts {
                arg_paths,
                ..TraceFacts::default()
            },
            open: hashbrown::HashMap::new(),
        }
    }

    /// The extraction problems of every event so far, in order.
    pub fn diagnostics(&self) -> &[ExtractionDiagnostic] {
        &self.facts.diagnostics
    }

    /// Adds one event's facts; events must arrive in order.
    pub fn push(&mut self, event: &EventFacts) {
        let k = event.event;
        self.facts.events = self.facts.events.max(k.0.saturating_add(1));
        self.facts.calls.extend(event.call);
        self.facts.results.extend(event.result);
        self.facts.args.extend_from_slice(&event.args);
        self.facts.arg_lens.extend_from_slice(&event.arg_lens);
        self.facts.binds.extend_from_slice(&event.binds);
        self.facts.turns.extend(event.turn);
        self.facts.mentions.extend_from_slice(&event.mentions);
        if let Some(time) = event.now {
            self.facts.clock.push((k, time));
        }
        self.facts.disowned.extend_from_slice(&event.disowned);
        self.facts.literals.extend_from_slice(&event.literals);
        self.facts.passed_over.extend_from_slice(&event.passed_over);
        self.facts.held.extend_from_slice(&event.held);
        self.facts
            .diagnostics
            .extend(event.diagnostics.iter().cloned());
        for read in &event.reads {
            self.read(k, read);
        }
    }

    fn read(&mut self, k: EventIdx, read: &Read) {
        let key = (read.entity, read.id, read.field);
        if let Some((attrs, len)) = self.open.remove(&key) {
            for i in attrs {
                if let Some(a) = self.facts.attrs.get_mut(i) {
                    a.until = k;
                }
            }
            if let Some(l) = len.and_then(|i| self.facts.attr_lens.get_mut(i)) {
                l.until = k;
            }
        }
        let mut attrs = Vec::with_capacity(read.values.len());
        for (elem, value) in read.values.iter().enumerate() {
            attrs.push(self.facts.attrs.len());
            self.facts.attrs.push(AttrFact {
                entity: read.entity,
                id: read.id,
                field: read.field,
                elem: if read.is_list {
                    u32::try_from(elem).unwrap_or(u32::MAX)
                } else {
                    SCALAR
                },
                value: *value,
                from: k,
                until: FOREVER,
            });
        }
        let len = read.is_list.then(|| {
            self.facts.attr_lens.push(AttrLenFact {
                entity: read.entity,
                id: read.id,
                field: read.field,
                len: u32::try_from(read.values.len()).unwrap_or(u32::MAX),
                from: k,
                until: FOREVER,
            });
            self.facts.attr_lens.len() - 1
        });
        self.open.insert(key, (attrs, len));
    }

    /// The facts so far, with the interner that resolves their symbols;
    /// `events` is at least `events_seen` (trailing events may carry no facts).
    pub fn snapshot(&self, interner: &Interner, events_seen: u32) -> TraceFacts {
        let mut facts = self.facts.clone();
        facts.interner = interner.clone();
        facts.events = facts.events.max(events_seen);
        facts
    }

    /// Like [`FactsBuilder::snapshot`], consuming the builder.
    pub fn finish(mut self, interner: Interner, events_seen: u32) -> TraceFacts {
        self.facts.interner = interner;
        self.facts.events = self.facts.events.max(events_seen);
        self.facts
    }
}
