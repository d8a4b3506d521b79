//! The conversation as the monitor's dialogue predicates read it: every
//! turn's cues and every value named in a turn, so `said(...)` and
//! `confirmed(...)` are decided with exactly the rule of the Datalog program
//! ([`crate::program`], "dialogue predicates").

use hashbrown::{HashMap, HashSet};

use crate::evaluate::{ConsentFailure, ConsentOutcome};
use crate::facts::{
    EventFacts, MentionFact, Reply, SCALAR, Speaker, TurnFact, UNKNOWN_PLACE, UNPLACED_SEGMENT,
};
use crate::ids::EventIdx;
use crate::intern::Symbol;
use crate::value::Value;

use smallvec::SmallVec;

use super::eval::OpVal;
use super::state::StateChange;

/// The fields of one list of a call's items (`confirmed(...)`'s `items`):
/// each field's operand node, with its values by element and its length.
pub type ItemFields = Vec<(u32, OpVal)>;

/// One list's fields as a request places them: per field (its operand
/// node and lengths), each value's place.
type PlacedFields = SmallVec<[((u32, SmallVec<[u32; 1]>), SmallVec<[PlacedValue; 4]>); 4]>;

/// Where a request spells one value of a call's item.
#[derive(Clone, Copy, Debug)]
struct PlacedValue {
    /// The item (element) it belongs to.
    el: u32,
    /// The segments and the clauses it stands in, as bits.
    segments: u32,
    clauses: u32,
    /// Spelt where no segment is known: it may stand in any.
    unplaced: bool,
    /// Named, not only declined.
    named: bool,
    /// Its first and last places in the turn's order
    /// (`MentionFact::first_place`), when it is named and they are known.
    places: Option<(u32, u32)>,
}

/// Whether one list's fields, as placed, pair in some segment (`level`:
/// segments or clauses) one field's value of item `i` with another
/// field's value of item `j`, the first field's value of `j` and the
/// second's of `i` standing elsewhere ([`Dialogue::mixes_items`]).
fn mixes_in(fields: &PlacedFields, level: impl Fn(&PlacedValue) -> u32) -> bool {
    let absent_at = |values: &[PlacedValue], el: u32, bit: u32| {
        values
            .iter()
            .any(|w| w.el == el && !w.unplaced && level(w) & bit == 0)
    };
    fields.iter().any(|((f, f_lens), first)| {
        fields.iter().any(|((h, h_lens), second)| {
            f != h
                && f_lens.iter().any(|n| h_lens.contains(n))
                && first.iter().filter(|x| x.named).any(|x| {
                    second.iter().filter(|y| y.named && y.el != x.el).any(|y| {
                        let shared = level(x) & level(y);
                        (0..UNPLACED_SEGMENT.trailing_zeros())
                            .map(|s| 1 << s)
                            .filter(|bit| shared & bit != 0)
                            .any(|bit| absent_at(first, y.el, bit) && absent_at(second, x.el, bit))
                    })
                })
        })
    })
}

/// Whether one list's fields, as placed, are laid out as two lists, one
/// field's values all before another's ("A and B for C and D", "Out: A,
/// B" then "In: C, D"), that pair by their order an item's value of one
/// with another item's value of the other: the first field's values of
/// items `i` and `j` stand in one order and the second's in the other.
/// Each value stands where it is spelt nearest the other list (its last
/// place in the first list, its first in the second), and all must be
/// named where their places are known.
fn crosses_in_order(fields: &PlacedFields) -> bool {
    /// Each item's first and last places.
    type ItemPlaces = SmallVec<[(u32, (u32, u32)); 4]>;

    let places = |values: &[PlacedValue]| -> Option<ItemPlaces> {
        values.iter().map(|v| v.places.map(|p| (v.el, p))).collect()
    };
    fields.iter().any(|((f, f_lens), first)| {
        fields.iter().any(|((h, h_lens), second)| {
            if f == h || !f_lens.iter().any(|n| h_lens.contains(n)) {
                return false;
            }
            let (Some(first), Some(second)) = (places(first), places(second)) else {
                return false;
            };
            let before = first
                .iter()
                .all(|&(_, (_, last))| second.iter().all(|&(_, (next, _))| last < next));
            before
                && first.iter().any(|&(i, (_, pi))| {
                    first.iter().any(|&(j, (_, pj))| {
                        pi < pj
                            && second.iter().any(|&(i2, (qi, _))| {
                                i2 == i && second.iter().any(|&(j2, (qj, _))| j2 == j && qj < qi)
                            })
                    })
                })
        })
    })
}

/// Whether a request names one list's items clause by clause: every
/// clause naming a value of one of its fields names one of another.
fn itemised(fields: &PlacedFields) -> bool {
    let per_field: SmallVec<[(u32, u32); 4]> = fields
        .iter()
        .map(|((node, _), values)| {
            let clauses = values
                .iter()
                .filter(|v| v.named)
                .fold(0, |bits, v| bits | v.clauses);
            (*node, clauses)
        })
        .collect();
    per_field.iter().all(|&(node, bits)| {
        let others = per_field
            .iter()
            .filter(|&&(other, _)| other != node)
            .fold(0, |all, &(_, b)| all | b);
        bits & !others == 0
    })
}

/// Where a turn of several segments or clauses spells a value: its
/// segments and clauses as bits (`MentionFact::segments`,
/// `MentionFact::clauses`) and its first and last places
/// (`MentionFact::first_place`, `MentionFact::last_place`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spelt {
    segments: u32,
    clauses: u32,
    first_place: u32,
    last_place: u32,
}

impl Spelt {
    /// Also spelt where `mention` says. A place not known leaves the value
    /// no place in the turn's order.
    fn with(self, mention: &MentionFact) -> Spelt {
        let (first_place, last_place) = match (
            (self.first_place, self.last_place),
            (mention.first_place, mention.last_place),
        ) {
            ((0, _), places) | (places, (0, _)) => places,
            ((UNKNOWN_PLACE, _), _) | (_, (UNKNOWN_PLACE, _)) => (UNKNOWN_PLACE, UNKNOWN_PLACE),
            ((first, last), (other_first, other_last)) => {
                (first.min(other_first), last.max(other_last))
            }
        };
        Spelt {
            segments: self.segments | mention.segments,
            clauses: self.clauses | mention.clauses,
            first_place,
            last_place,
        }
    }
}

/// Turns and mentions seen so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dialogue {
    /// Every turn, in event order.
    turns: Vec<TurnFact>,
    /// `(value, turn event, speaker)`: the value is named in that turn.
    mentions: HashSet<(Value, u32, Speaker)>,
    /// The earliest turn of each speaker naming each value.
    earliest: HashMap<(Value, Speaker), u32>,
    /// The values named anywhere that are record identifiers.
    records: HashSet<Value>,
    /// The values named anywhere that are words for the domain's actions.
    actions: HashSet<Value>,
    /// Each literal of the bundle's enums, with the enums declaring it.
    literals: HashMap<Value, Vec<Symbol>>,
    /// `(identifier, user turn event)`: named in the turn's answer.
    in_answer: HashSet<(Value, u32)>,
    /// `(action word, agent turn event)`: named only as what not to do.
    declined: HashSet<(Value, u32)>,
    /// `(entity type, id)` of every entity read, with its first read's event.
    entity_ids: HashMap<(Symbol, Symbol), u32>,
    /// The user turns disowning each value, in event order.
    disowned: HashMap<Value, Vec<u32>>,
    /// `(value, user turn event)`: the reply picked another option a
    /// question offered in place of the value.
    passed_over: HashSet<(Value, u32)>,
    /// `(value, user turn event)`: the reply picked none of the options a
    /// question offered beside the value.
    unpicked: HashSet<(Value, u32)>,
    /// Per agent turn event, `(value, entity type, record)`: the request
    /// names the value as that record's, another record it names.
    held: HashMap<u32, Vec<(Value, Symbol, Value)>>,
    /// `(value, agent turn event)`: where a turn of several segments or
    /// clauses spells the value.
    segments: HashMap<(Value, u32), Spelt>,
    /// Per agent turn event, how many values it places (keys of
    /// `segments`).
    placed_per_turn: HashMap<u32, u32>,
}

/// A kind of value a yes may pick some of among those a summary named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// An order-like record id.
    Record,
    /// A word for one of the domain's actions.
    Action,
    /// An id of an entity of this type read by then.
    Entity(Symbol),
}

/// One change [`Dialogue::apply`] made, so the monitor can undo its last event.
#[derive(Clone, Copy, Debug)]
pub enum DialogueChange {
    TurnPushed,
    MentionAdded((Value, u32, Speaker)),
    EarliestWas((Value, Speaker), Option<u32>),
    RecordAdded(Value),
    ActionAdded(Value),
    InAnswerAdded((Value, u32)),
    DeclinedAdded((Value, u32)),
    EntityIdAdded((Symbol, Symbol)),
    DisownAdded(Value, u32),
    LiteralAdded(Value, Symbol),
    PassedOverAdded((Value, u32), bool),
    /// The last value added to the held values of an agent turn.
    HeldAdded(u32),
    /// A value's segments in an agent turn, before this event's mentions.
    SegmentsWere((Value, u32), Option<Spelt>),
}

impl Dialogue {
    /// Adds one event's turn, mentions, disownings and the ids of the
    /// entities it read.
    pub fn apply(&mut self, facts: &EventFacts, undo: &mut Vec<StateChange>) {
        self.apply_disowned(facts, undo);
        for p in &facts.passed_over {
            let key = (p.value, p.event.0);
            let set = if p.picked_another {
                &mut self.passed_over
            } else {
                &mut self.unpicked
            };
            if set.insert(key) {
                undo.push(StateChange::DialogueChanged(
                    DialogueChange::PassedOverAdded(key, p.picked_another),
                ));
            }
        }
        for h in &facts.held {
            let here = self.held.entry(h.event.0).or_default();
            let held = (h.value, h.entity, h.record);
            if !here.contains(&held) {
                here.push(held);
                undo.push(StateChange::DialogueChanged(DialogueChange::HeldAdded(
                    h.event.0,
                )));
            }
        }
        for literal in &facts.literals {
            let sets = self.literals.entry(literal.value).or_default();
            if !sets.contains(&literal.of) {
                sets.push(literal.of);
                undo.push(StateChange::DialogueChanged(DialogueChange::LiteralAdded(
                    literal.value,
                    literal.of,
                )));
            }
        }
        // A read that holds no value of a scalar field reads nothing.
        for read in facts
            .reads
            .iter()
            .filter(|r| r.is_list || !r.values.is_empty())
        {
            let key = (read.entity, read.id);
            if !self.entity_ids.contains_key(&key) {
                self.entity_ids.insert(key, facts.event.0);
                undo.push(StateChange::DialogueChanged(DialogueChange::EntityIdAdded(
                    key,
                )));
            }
        }
        if let Some(turn) = facts.turn {
            self.turns.push(turn);
            undo.push(StateChange::DialogueChanged(DialogueChange::TurnPushed));
        }
        for m in &facts.mentions {
            if (m.segments | m.clauses | m.first_place) != 0 && m.speaker == Speaker::Agent {
                let key = (m.value, m.event.0);
                let was = self.segments.get(&key).copied();
                let now = was.unwrap_or_default().with(m);
                if was != Some(now) {
                    self.segments.insert(key, now);
                    if was.is_none() {
                        *self.placed_per_turn.entry(key.1).or_default() += 1;
                    }
                    undo.push(StateChange::DialogueChanged(DialogueChange::SegmentsWere(
                        key, was,
                    )));
                }
            }
            let mention = (m.value, m.event.0, m.speaker);
            if self.mentions.insert(mention) {
                undo.push(StateChange::DialogueChanged(DialogueChange::MentionAdded(
                    mention,
                )));
            }
            if m.record && self.records.insert(m.value) {
                undo.push(StateChange::DialogueChanged(DialogueChange::RecordAdded(
                    m.value,
                )));
            }
            if m.action && self.actions.insert(m.value) {
                undo.push(StateChange::DialogueChanged(DialogueChange::ActionAdded(
                    m.value,
                )));
            }
            if m.in_answer && self.in_answer.insert((m.value, m.event.0)) {
                undo.push(StateChange::DialogueChanged(DialogueChange::InAnswerAdded(
                    (m.value, m.event.0),
                )));
            }
            if m.declined && self.declined.insert((m.value, m.event.0)) {
                undo.push(StateChange::DialogueChanged(DialogueChange::DeclinedAdded(
                    (m.value, m.event.0),
                )));
            }
            // A reference names the record for `confirmed`, never for `said`.
            if m.implied {
                continue;
            }
            let key = (m.value, m.speaker);
            let was = self.earliest.get(&key).copied();
            let first = was.map_or(m.event.0, |w| w.min(m.event.0));
            if was != Some(first) {
                self.earliest.insert(key, first);
                undo.push(StateChange::DialogueChanged(DialogueChange::EarliestWas(
                    key, was,
                )));
            }
        }
    }

    /// Adds the disownings of one event's facts.
    fn apply_disowned(&mut self, facts: &EventFacts, undo: &mut Vec<StateChange>) {
        for d in &facts.disowned {
            let events = self.disowned.entry(d.value).or_default();
            let at = events.partition_point(|&e| e < d.event.0);
            if events.get(at) != Some(&d.event.0) {
                events.insert(at, d.event.0);
                undo.push(StateChange::DialogueChanged(DialogueChange::DisownAdded(
                    d.value, d.event.0,
                )));
            }
        }
    }

    /// Reverts one change [`Dialogue::apply`] recorded (the last first).
    pub fn revert(&mut self, change: DialogueChange) {
        match change {
            DialogueChange::TurnPushed => {
                self.turns.pop();
            }
            DialogueChange::MentionAdded(mention) => {
                self.mentions.remove(&mention);
            }
            DialogueChange::SegmentsWere(key, Some(was)) => {
                self.segments.insert(key, was);
            }
            DialogueChange::SegmentsWere(key, None) => {
                self.segments.remove(&key);
                if let Some(count) = self.placed_per_turn.get_mut(&key.1) {
                    *count = count.saturating_sub(1);
                    if *count == 0 {
                        self.placed_per_turn.remove(&key.1);
                    }
                }
            }
            DialogueChange::EarliestWas(key, Some(was)) => {
                self.earliest.insert(key, was);
            }
            DialogueChange::EarliestWas(key, None) => {
                self.earliest.remove(&key);
            }
            DialogueChange::RecordAdded(value) => {
                self.records.remove(&value);
            }
            DialogueChange::ActionAdded(value) => {
                self.actions.remove(&value);
            }
            DialogueChange::InAnswerAdded(named) => {
                self.in_answer.remove(&named);
            }
            DialogueChange::DeclinedAdded(named) => {
                self.declined.remove(&named);
            }
            DialogueChange::PassedOverAdded(key, true) => {
                self.passed_over.remove(&key);
            }
            DialogueChange::PassedOverAdded(key, false) => {
                self.unpicked.remove(&key);
            }
            DialogueChange::EntityIdAdded(key) => {
                self.entity_ids.remove(&key);
            }
            DialogueChange::HeldAdded(event) => {
                if let Some(here) = self.held.get_mut(&event) {
                    here.pop();
                    if here.is_empty() {
                        self.held.remove(&event);
                    }
                }
            }
            DialogueChange::LiteralAdded(value, of) => {
                if let Some(sets) = self.literals.get_mut(&value) {
                    sets.retain(|&s| s != of);
                    if sets.is_empty() {
                        self.literals.remove(&value);
                    }
                }
            }
            DialogueChange::DisownAdded(value, event) => {
                if let Some(events) = self.disowned.get_mut(&value) {
                    events.retain(|&e| e != event);
                    if events.is_empty() {
                        self.disowned.remove(&value);
                    }
                }
            }
        }
    }

    /// The events of every turn so far, in order: where a dialogue
    /// predicate may change value.
    pub fn turn_events(&self) -> impl Iterator<Item = u32> + '_ {
        self.turns.iter().map(|t| t.event.0)
    }

    /// The event of every record's first read so far: where `confirmed`
    /// may change value without a turn, a record read becoming one of a
    /// kind another named record is of.
    pub fn first_reads(&self) -> impl Iterator<Item = u32> + '_ {
        self.entity_ids.values().copied()
    }

    /// Whether `speaker` named `value` in a turn at or before event `k`,
    /// and — the user, or the ticket — the user did not disown it since (a
    /// turn naming a value to disown it names it for nothing).
    pub fn said(&self, speaker: Speaker, value: Value, k: u32) -> bool {
        let named = self
            .earliest
            .get(&(value, speaker))
            .is_some_and(|&event| event <= k);
        let last_disowned = match speaker {
            Speaker::User | Speaker::Ticket => self.disowned.get(&value).and_then(|events| {
                let n = events.partition_point(|&e| e <= k);
                events.get(n.checked_sub(1)?).copied()
            }),
            Speaker::Agent => None,
        };
        match last_disowned {
            None => named,
            Some(d) => self
                .mentions
                .iter()
                .any(|&(v, ev, sp)| v == value && sp == speaker && ev > d && ev <= k),
        }
    }

    /// Whether the agent turn at `event` names every value, none only as
    /// what not to do.
    fn agent_named_all(&self, values: &[Value], event: u32) -> bool {
        values.iter().all(|v| {
            self.mentions.contains(&(*v, event, Speaker::Agent))
                && !self.declined.contains(&(*v, event))
        })
    }

    /// The kinds of record `value` is at event `k`: an order-like record id,
    /// a word for an action, and the type of every entity read with it (a
    /// string) as id by then.
    fn kinds(&self, value: Value, k: u32) -> impl Iterator<Item = Kind> + '_ {
        let shaped = self.records.contains(&value).then_some(Kind::Record);
        let action = self.actions.contains(&value).then_some(Kind::Action);
        let read = self
            .entity_ids
            .iter()
            .filter(move |&(&(_, id), &first)| value == Value::Str(id) && first <= k)
            .map(|(&(entity, _), _)| Kind::Entity(entity));
        shaped.into_iter().chain(action).chain(read)
    }

    /// Whether a user turn's yes, given item by item (`TurnFact::by_item`),
    /// names none of `values` in its answer, the action aside ("Amex: yes,
    /// freeze it" names the freeze of every card): it is no yes to them.
    fn misses_its_item(&self, values: &[Value], turn: &TurnFact) -> bool {
        turn.by_item
            && !values
                .iter()
                .any(|&v| !self.actions.contains(&v) && self.in_answer.contains(&(v, turn.event.0)))
    }

    /// Whether the answer of the user's turn at `reply` names a record the
    /// summary at `summary` named, of the kind of a record among `values`
    /// it does not name: a yes to the records it names, not to these
    /// values (at event `k`).
    fn names_other_records(&self, values: &[Value], summary: u32, reply: u32, k: u32) -> bool {
        let answered: Vec<Value> = self
            .in_answer
            .iter()
            .filter(|&&(_, event)| event == reply)
            .map(|&(w, _)| w)
            .filter(|w| self.mentions.contains(&(*w, summary, Speaker::Agent)))
            .collect();
        values
            .iter()
            .filter(|&&key| !self.in_answer.contains(&(key, reply)))
            .any(|&key| {
                self.kinds(key, k).any(|kind| {
                    answered
                        .iter()
                        .any(|&w| self.kinds(w, k).any(|other| other == kind))
                })
            })
    }

    /// Whether, at event `k`, the user's yes answers the latest agent turn
    /// asking for a decision that names every value, not revoked since
    /// ([`Dialogue::consent`] is [`ConsentOutcome::Affirmative`]).
    #[cfg(test)]
    pub fn confirmed(&self, values: &[Value], k: u32) -> bool {
        self.consent(values, Vec::<Value>::new, Vec::<ItemFields>::new, k)
            .outcome
            == ConsentOutcome::Affirmative
    }

    /// How the user answered, by event `k`, the latest agent turn asking
    /// for a decision that names every value (the summary): the strongest
    /// reply after it that took consent away (a refusal over a withdrawal
    /// over a qualification; a correction after the yes qualifies; a
    /// qualification before the yes naming no action is a pause the yes
    /// answers; a reply picking another option a question offered in
    /// place of a value refuses; a yes in the window correcting what the
    /// user said before takes back every one before it), at its first turn
    /// of that kind; else the first yes in its window (before
    /// any later agent question) that names no other record of the
    /// summary's in place of the values; else absent, at the summary (or
    /// with no turn, when no summary names the values).
    ///
    /// With no yes, no refusal and no withdrawal (a qualified answer is no
    /// yes that stands), a yes to a later request naming another record in
    /// place of the call's ([`Dialogue::contradicting_yes`]) refuses the
    /// call, at that yes.
    ///
    /// `call` holds the call's other arguments: a request naming, in place
    /// of one of them, another record or literal of its kind
    /// ([`Dialogue::states_another_call`]) is no summary of this call.
    pub fn consent<C, I>(
        &self,
        values: &[Value],
        call: impl FnOnce() -> C,
        items: impl FnOnce() -> I,
        k: u32,
    ) -> ConsentFailure
    where
        C: AsRef<[Value]>,
        I: AsRef<[ItemFields]>,
    {
        // Turns are in event order: only those up to `k`, from the summary
        // on, are read (not the whole conversation).
        let upto = self.turns.partition_point(|t| t.event.0 <= k);
        let turns = self.turns.get(..upto).unwrap_or_default();
        let call = std::cell::LazyCell::new(call);
        let items = std::cell::LazyCell::new(items);
        let summary = turns.iter().rposition(|t| {
            t.speaker == Speaker::Agent
                && t.asks_decision
                && self.agent_named_all(values, t.event.0)
                && !self.states_another_call(
                    values,
                    std::cell::LazyCell::force(&call).as_ref(),
                    t.event.0,
                    k,
                )
                // Only a turn placing some value can pair the call's items.
                && !(self.placed_per_turn.contains_key(&t.event.0)
                    && self.mixes_items(std::cell::LazyCell::force(&items).as_ref(), t.event.0))
        });
        let answered = summary.map(|at| self.answer(values, turns, at, k));
        // A qualified answer is no yes that stands: a later yes to the call
        // on another record still refuses it.
        if let Some(failure) = answered
            && !matches!(
                failure.outcome,
                ConsentOutcome::Absent | ConsentOutcome::Qualified
            )
        {
            return failure;
        }
        let from = summary.map_or(0, |at| at + 1);
        if let Some(yes) = self.contradicting_yes(values, turns.get(from..).unwrap_or_default(), k)
        {
            return ConsentFailure {
                outcome: ConsentOutcome::Refused,
                turn: Some(EventIdx(yes)),
            };
        }
        answered.unwrap_or(ConsentFailure {
            outcome: ConsentOutcome::Absent,
            turn: None,
        })
    }

    /// The user's answer to the summary at `turns[summary]`: the strongest
    /// revocation, else the first yes in its window, else absent at it.
    fn answer(
        &self,
        values: &[Value],
        turns: &[TurnFact],
        summary: usize,
        k: u32,
    ) -> ConsentFailure {
        let summary_event = turns.get(summary).map_or(0, |t| t.event.0);
        let mut window_open = true;
        let mut yes: Option<u32> = None;
        let mut revoked: Option<(Reply, u32)> = None;
        // A qualification before any yes, naming no action ("hold on, let
        // me check", "only if it arrives tomorrow"): no answer, so it stands
        // only if no yes follows.
        let mut paused: Option<(Reply, u32)> = None;
        let after = turns.get(summary + 1..).unwrap_or_default();
        for turn in after {
            match turn.speaker {
                Speaker::Agent => window_open &= !turn.asks_anything,
                Speaker::User | Speaker::Ticket => {
                    // A yes correcting what the user said before takes back
                    // every revocation and pause since the summary.
                    let picks_none = !self.unpicked.is_empty()
                        && values
                            .iter()
                            .any(|&v| self.unpicked.contains(&(v, turn.event.0)));
                    if turn.retracts
                        && turn.reply == Reply::Affirms
                        && window_open
                        && !picks_none
                        && !self.names_other_records(values, summary_event, turn.event.0, k)
                        && !self.misses_its_item(values, turn)
                    {
                        revoked = None;
                        paused = None;
                    }
                    let picked_another = !self.passed_over.is_empty()
                        && values
                            .iter()
                            .any(|&v| self.passed_over.contains(&(v, turn.event.0)));
                    let reply = if picked_another {
                        Reply::Refuses
                    } else if yes.is_some() && turn.corrects {
                        turn.reply.max(Reply::Qualifies)
                    } else {
                        turn.reply
                    };
                    // Naming an action, it may propose another: no pause.
                    let pause = yes.is_none()
                        && !turn.corrects
                        && reply.revoke_rank() < Reply::Withdraws.revoke_rank();
                    let kept = if pause { &mut paused } else { &mut revoked };
                    if reply.revoke_rank() > kept.map_or(0, |(r, _)| r.revoke_rank()) {
                        *kept = Some((reply, turn.event.0));
                    }
                    if yes.is_none()
                        && turn.reply == Reply::Affirms
                        && window_open
                        && !picks_none
                        && !self.names_other_records(values, summary_event, turn.event.0, k)
                        && !self.misses_its_item(values, turn)
                    {
                        yes = Some(turn.event.0);
                    }
                }
            }
        }
        let revoked = match (revoked, paused) {
            (revoked, _) if yes.is_some() => revoked,
            (Some(r), Some(p)) => Some(if p.0.revoke_rank() > r.0.revoke_rank() {
                p
            } else {
                r
            }),
            (revoked, paused) => revoked.or(paused),
        };
        match (revoked, yes) {
            (Some((reply, at)), _) => ConsentFailure {
                outcome: ConsentOutcome::of_reply(reply).unwrap_or(ConsentOutcome::Qualified),
                turn: Some(EventIdx(at)),
            },
            (None, Some(at)) => ConsentFailure {
                outcome: ConsentOutcome::Affirmative,
                turn: Some(EventIdx(at)),
            },
            (None, None) => ConsentFailure {
                outcome: ConsentOutcome::Absent,
                turn: Some(EventIdx(summary_event)),
            },
        }
    }

    /// The first user yes, among `turns` (those after the summary, up to
    /// `k`), to an agent request for a decision that weighs no several
    /// actions and contradicts the call ([`Dialogue::contradicts`]): in that
    /// request's window (before any later agent question), naming none of
    /// `values` the request left out. A yes naming what the request named
    /// itself ("Yes, cancel that one.") repeats it; one naming the call's
    /// value in place of the request's rival ("Yes, RF-5520 please")
    /// corrects it, and refuses nothing.
    fn contradicting_yes(&self, values: &[Value], turns: &[TurnFact], k: u32) -> Option<u32> {
        // A later request's first yes comes no earlier than an earlier
        // request's, so the first request with a yes that contradicts
        // decides; the yes is looked for first, as most requests have none.
        turns.iter().enumerate().find_map(|(at, request)| {
            if request.speaker != Speaker::Agent || !request.asks_decision || request.weighs_actions
            {
                return None;
            }
            let left_out: Vec<Value> = values
                .iter()
                .filter(|&&v| {
                    !self
                        .mentions
                        .contains(&(v, request.event.0, Speaker::Agent))
                        || self.declined.contains(&(v, request.event.0))
                })
                .copied()
                .collect();
            let yes =
                self.first_yes_naming_none(&left_out, turns.get(at + 1..).unwrap_or_default())?;
            self.contradicts(values, request.event.0, k).then_some(yes)
        })
    }

    /// The first user yes among `turns` before an agent question, naming
    /// none of `values`.
    fn first_yes_naming_none(&self, values: &[Value], turns: &[TurnFact]) -> Option<u32> {
        for turn in turns {
            match turn.speaker {
                Speaker::Agent if turn.asks_anything => return None,
                Speaker::Agent => {}
                Speaker::User | Speaker::Ticket => {
                    let u = turn.event.0;
                    let names_a_value = values.iter().any(|&v| {
                        [Speaker::User, Speaker::Ticket]
                            .iter()
                            .any(|&speaker| self.mentions.contains(&(v, u, speaker)))
                    });
                    if turn.reply == Reply::Affirms && !names_a_value {
                        return Some(u);
                    }
                }
            }
        }
        None
    }

    /// Whether the agent request at event `a` names, in place of one of the
    /// call's other arguments `call` (none of `values`), another record or
    /// literal of its kind that is none of `values` nor of `call`: it states
    /// another call (at event `k`). A value named there only declined (a
    /// description of a record, a thing set aside) is not named.
    fn states_another_call(&self, values: &[Value], call: &[Value], a: u32, k: u32) -> bool {
        let named = |v: &Value| {
            self.mentions.contains(&(*v, a, Speaker::Agent)) && !self.declined.contains(&(*v, a))
        };
        let carried = |w: &Value| values.contains(w) || call.contains(w);
        // A value the request names as another record's it names, of a
        // type the call's values are of, is that record's detail.
        let held_here = self.held.get(&a).map_or(&[][..], Vec::as_slice);
        let of_type = |entity: Symbol| {
            values.iter().chain(call).any(|v| match v {
                Value::Str(id) => self
                    .entity_ids
                    .get(&(entity, *id))
                    .is_some_and(|&first| first <= k),
                _ => false,
            })
        };
        let held_elsewhere = |w: &Value| {
            held_here
                .iter()
                .any(|&(value, entity, record)| value == *w && !carried(&record) && of_type(entity))
        };
        let rival = |w: &Value| !carried(w) && named(w) && !held_elsewhere(w);
        // A value named only to describe a record ("the order with the
        // bananas") or set aside is not stated for the action.
        call.iter()
            .filter(|v| !values.contains(v) && !named(v))
            .any(|v| {
                let rival_literal = self.literals.get(v).is_some_and(|sets| {
                    self.literals
                        .iter()
                        .any(|(w, of)| rival(w) && of.iter().any(|set| sets.contains(set)))
                });
                rival_literal
                    || self.kinds(*v, k).any(|kind| match kind {
                        Kind::Action => false,
                        Kind::Record => self.records.iter().any(rival),
                        Kind::Entity(entity) => self.entity_ids.iter().any(|(&(t, id), &first)| {
                            t == entity && first <= k && rival(&Value::Str(id))
                        }),
                    })
            })
    }

    /// Whether the agent request at event `a` pairs, in one of its
    /// segments, a field's value of one of the call's items with another
    /// field's value of another item, naming neither the first field's
    /// value of the second item nor the second field's of the first there
    /// (`items`: per list of the call, its fields, as long as each other).
    /// Clauses are read the same way when every clause naming a value of
    /// the list names values of two of its fields (the request lays the
    /// items out clause by clause, not "A and B for C and D"). A value spelt
    /// where no segment is known may stand in any. Two lists laid out one
    /// after the other pair by their order ([`crosses_in_order`]).
    fn mixes_items(&self, items: &[ItemFields], a: u32) -> bool {
        items.iter().any(|fields| {
            let placed = self.place_items(fields, a);
            (placed
                .iter()
                .any(|(_, values)| values.iter().any(|v| v.segments | v.clauses != 0))
                && (mixes_in(&placed, |v| v.segments)
                    || (itemised(&placed) && mixes_in(&placed, |v| v.clauses))))
                || crosses_in_order(&placed)
        })
    }

    /// Where the agent turn at event `a` spells each value of one list's
    /// fields.
    fn place_items(&self, fields: &ItemFields, a: u32) -> PlacedFields {
        fields
            .iter()
            .map(|(node, field)| {
                let values = field
                    .vals
                    .iter()
                    .filter(|&&(el, _)| el != SCALAR)
                    .map(|&(el, v)| {
                        let spelt = self.segments.get(&(v, a)).copied().unwrap_or_default();
                        let named = self.mentions.contains(&(v, a, Speaker::Agent))
                            && !self.declined.contains(&(v, a));
                        PlacedValue {
                            el,
                            segments: spelt.segments & !UNPLACED_SEGMENT,
                            clauses: spelt.clauses & !UNPLACED_SEGMENT,
                            unplaced: (spelt.segments | spelt.clauses) & UNPLACED_SEGMENT != 0,
                            named,
                            places: (named
                                && spelt.first_place != 0
                                && spelt.first_place != UNKNOWN_PLACE
                                && spelt.last_place != UNKNOWN_PLACE)
                                .then_some((spelt.first_place, spelt.last_place)),
                        }
                    })
                    .collect();
                ((*node, field.lens.clone()), values)
            })
            .collect()
    }

    /// Whether the agent request at event `a` proposes the call with
    /// another record: it names some of `values`, and in place of each it
    /// does not name, another record of that value's kind (an order-like
    /// id, an id of the same entity type read by `k`, or another literal of
    /// the same enum) that is none of `values`. Action words are no rival
    /// kind: a tool's synonyms are all action words. (A request weighing
    /// several actions is none such: the caller skips it.)
    fn contradicts(&self, values: &[Value], a: u32, k: u32) -> bool {
        let named = |v: &Value| {
            self.mentions.contains(&(*v, a, Speaker::Agent)) && !self.declined.contains(&(*v, a))
        };
        if !values.iter().any(named) {
            return false;
        }
        let mut missing = values.iter().filter(|v| !named(v)).peekable();
        if missing.peek().is_none() {
            return false;
        }
        let rival = |w: Value| !values.contains(&w) && named(&w);
        let rival_literal = |v: &Value| {
            self.literals.get(v).is_some_and(|sets| {
                self.literals
                    .iter()
                    .any(|(&w, of)| rival(w) && of.iter().any(|set| sets.contains(set)))
            })
        };
        missing.all(|&v| {
            rival_literal(&v)
                || self.kinds(v, k).any(|kind| match kind {
                    Kind::Action => false,
                    Kind::Record => self.records.iter().any(|&w| rival(w)),
                    Kind::Entity(entity) => self.entity_ids.iter().any(|(&(t, id), &first)| {
                        t == entity && first <= k && rival(Value::Str(id))
                    }),
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::MentionFact;

    const ORDER: Symbol = Symbol(7);
    const OTHER: Symbol = Symbol(8);
    /// An action word, not a record.
    const ACTION: Symbol = Symbol(9);

    fn agent(k: u32, asks: bool, named: &[Symbol]) -> EventFacts {
        turn(k, Speaker::Agent, [asks, asks, false, false, false], named)
    }

    fn user(k: u32, affirms: bool, revokes: bool, corrects: bool) -> EventFacts {
        turn(
            k,
            Speaker::User,
            [false, false, affirms, revokes, corrects],
            &[],
        )
    }

    fn replying(k: u32, reply: Reply) -> EventFacts {
        let mut facts = user(k, false, false, false);
        if let Some(turn) = &mut facts.turn {
            turn.reply = reply;
        }
        facts
    }

    /// The cues of an agent turn asking for a decision ([`turn`]).
    const ASKS_DECISION: [bool; 5] = [true, true, false, false, false];
    /// The cues of a user's plain yes ([`turn`]).
    const PLAIN_YES: [bool; 5] = [false, false, true, false, false];

    fn turn(k: u32, speaker: Speaker, cues: [bool; 5], named: &[Symbol]) -> EventFacts {
        let [asks_decision, asks_anything, affirms, revokes, corrects] = cues;
        let reply = match (affirms, revokes) {
            (_, true) => Reply::Qualifies,
            (true, false) => Reply::Affirms,
            (false, false) => Reply::Other,
        };
        EventFacts {
            event: EventIdx(k),
            turn: Some(TurnFact {
                event: EventIdx(k),
                speaker,
                asks_decision,
                asks_anything,
                reply,
                corrects,
                weighs_actions: false,
                retracts: false,
                by_item: false,
            }),
            mentions: named
                .iter()
                .map(|&value| MentionFact {
                    value: Value::Str(value),
                    event: EventIdx(k),
                    speaker,
                    record: value != ACTION,
                    in_answer: value != ACTION && speaker == Speaker::User,
                    declined: false,
                    action: false,
                    implied: false,
                    segments: 0,
                    clauses: 0,
                    first_place: 0,
                    last_place: 0,
                })
                .collect(),
            ..EventFacts::default()
        }
    }

    fn user_yes_naming(k: u32, named: &[Symbol]) -> EventFacts {
        turn(k, Speaker::User, [false, false, true, false, false], named)
    }

    fn dialogue(events: &[EventFacts]) -> Dialogue {
        let mut d = Dialogue::default();
        for e in events {
            d.apply(e, &mut Vec::new());
        }
        d
    }

    /// "jira: yes / confluence: no" to a request naming both: the yes covers
    /// a call on what its answer names, and no other.
    #[test]
    fn a_yes_given_item_by_item_covers_only_what_its_answer_names() {
        let asked = agent(0, true, &[ORDER, OTHER]);
        let mut by_item = user_yes_naming(1, &[ORDER]);
        if let Some(turn) = &mut by_item.turn {
            turn.by_item = true;
        }
        let d = dialogue(&[asked, by_item]);
        assert!(d.confirmed(&[Value::Str(ORDER)], 1));
        assert!(!d.confirmed(&[Value::Str(OTHER)], 1));
        // A yes item by item naming nothing of the call is none to it; read
        // as a whole, the same yes is.
        let asked = agent(0, true, &[ORDER]);
        let mut naming_nothing = user(1, true, false, false);
        let whole = dialogue(&[asked.clone(), naming_nothing.clone()]);
        assert!(whole.confirmed(&[Value::Str(ORDER)], 1));
        if let Some(turn) = &mut naming_nothing.turn {
            turn.by_item = true;
        }
        let d = dialogue(&[asked, naming_nothing]);
        assert!(!d.confirmed(&[Value::Str(ORDER)], 1));
        // The action its answer names ("Amex: yes, freeze it") is no item:
        // a call on another record with that action has no yes.
        let asked = agent(0, true, &[ORDER, OTHER, ACTION]);
        let mut with_action = user_yes_naming(1, &[ORDER]);
        with_action.mentions.push(MentionFact {
            value: Value::Str(ACTION),
            event: EventIdx(1),
            speaker: Speaker::User,
            record: false,
            in_answer: true,
            declined: false,
            action: true,
            implied: false,
            segments: 0,
            clauses: 0,
            first_place: 0,
            last_place: 0,
        });
        if let Some(turn) = &mut with_action.turn {
            turn.by_item = true;
        }
        let d = dialogue(&[asked, with_action]);
        assert!(d.confirmed(&[Value::Str(ORDER), Value::Str(ACTION)], 1));
        assert!(!d.confirmed(&[Value::Str(OTHER), Value::Str(ACTION)], 1));
    }

    #[test]
    fn a_value_the_user_disowned_is_not_said_until_named_again() {
        let named = |k: u32| user_yes_naming(k, &[ORDER]);
        let disown = |k: u32| EventFacts {
            event: EventIdx(k),
            disowned: vec![crate::facts::DisownFact {
                value: Value::Str(ORDER),
                event: EventIdx(k),
            }],
            ..EventFacts::default()
        };
        let d = dialogue(&[named(0), disown(1), named(2)]);
        let said = |k| d.said(Speaker::User, Value::Str(ORDER), k);
        assert!(said(0));
        assert!(!said(1), "disowned");
        assert!(said(2), "named again");
        // A turn that names the value to disown it names it for nothing.
        let mut both = named(0);
        both.disowned = disown(0).disowned;
        let d = dialogue(&[both]);
        assert!(!d.said(Speaker::User, Value::Str(ORDER), 3));
    }

    #[test]
    fn a_yes_to_the_summary_naming_the_values_confirms_them() {
        let d = dialogue(&[agent(0, true, &[ORDER]), user(1, true, false, false)]);
        assert!(d.confirmed(&[Value::Str(ORDER)], 2));
        assert!(!d.confirmed(&[Value::Str(OTHER)], 2), "another order");
        assert!(!d.confirmed(&[Value::Str(ORDER)], 0), "not yet answered");
    }

    #[test]
    fn a_later_question_closes_the_window_and_a_refusal_revokes() {
        let closed = dialogue(&[
            agent(0, true, &[ORDER]),
            agent(1, true, &[]),
            user(2, true, false, false),
        ]);
        assert!(!closed.confirmed(&[Value::Str(ORDER)], 3));
        let revoked = dialogue(&[
            agent(0, true, &[ORDER]),
            user(1, true, false, false),
            user(2, false, true, false),
        ]);
        assert!(revoked.confirmed(&[Value::Str(ORDER)], 1));
        assert!(!revoked.confirmed(&[Value::Str(ORDER)], 2));
        let corrected = dialogue(&[
            agent(0, true, &[ORDER]),
            user(1, true, false, false),
            user(2, false, false, true),
        ]);
        assert!(!corrected.confirmed(&[Value::Str(ORDER)], 2));
    }

    #[test]
    fn a_request_naming_the_action_only_as_what_not_to_do_is_no_summary() {
        let mut declining = agent(0, true, &[ORDER, ACTION]);
        for m in &mut declining.mentions {
            m.declined = m.value == Value::Str(ACTION);
        }
        let d = dialogue(&[declining, user(1, true, false, false)]);
        let values = [Value::Str(ORDER), Value::Str(ACTION)];
        assert!(!d.confirmed(&values, 2));
        assert_eq!(
            d.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 2)
                .outcome,
            ConsentOutcome::Absent
        );
        assert!(d.confirmed(&[Value::Str(ORDER)], 2), "the record alone");
        assert!(d.said(Speaker::Agent, Value::Str(ACTION), 2), "it was said");
    }

    #[test]
    fn the_outcome_is_the_strongest_revocation_or_the_yes_or_absent() {
        let values = [Value::Str(ORDER)];
        let at = |outcome, turn: Option<u32>| ConsentFailure {
            outcome,
            turn: turn.map(EventIdx),
        };
        assert_eq!(
            dialogue(&[user(0, true, false, false)]).consent(
                &values,
                Vec::<Value>::new,
                Vec::<ItemFields>::new,
                1
            ),
            at(ConsentOutcome::Absent, None),
            "no request for a decision"
        );
        let asked = agent(0, true, &[ORDER]);
        assert_eq!(
            dialogue(std::slice::from_ref(&asked)).consent(
                &values,
                Vec::<Value>::new,
                Vec::<ItemFields>::new,
                1
            ),
            at(ConsentOutcome::Absent, Some(0)),
            "no reply"
        );
        let d = dialogue(&[
            asked.clone(),
            replying(1, Reply::Qualifies),
            replying(2, Reply::Withdraws),
            replying(3, Reply::Qualifies),
            replying(4, Reply::Withdraws),
        ]);
        assert_eq!(
            d.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 1),
            at(ConsentOutcome::Qualified, Some(1))
        );
        assert_eq!(
            d.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 4),
            at(ConsentOutcome::Withdrawn, Some(2))
        );
        let d = dialogue(&[
            asked.clone(),
            user(1, true, false, false),
            replying(2, Reply::Refuses),
        ]);
        assert_eq!(
            d.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 1),
            at(ConsentOutcome::Affirmative, Some(1))
        );
        assert_eq!(
            d.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 2),
            at(ConsentOutcome::Refused, Some(2))
        );
        // A correction after the yes qualifies it.
        let d = dialogue(&[
            asked,
            user(1, true, false, false),
            user(2, false, false, true),
        ]);
        assert_eq!(
            d.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 2),
            at(ConsentOutcome::Qualified, Some(2))
        );
    }

    #[test]
    fn a_yes_correcting_what_the_user_said_takes_back_the_revocations_before_it() {
        let values = [Value::Str(ORDER)];
        let asked = agent(0, true, &[ORDER]);
        let retracting = |k: u32| {
            let mut facts = user(k, true, false, false);
            if let Some(turn) = &mut facts.turn {
                turn.retracts = true;
            }
            facts
        };
        let outcome = |events: &[EventFacts], k: u32| {
            let mut all = vec![asked.clone()];
            all.extend_from_slice(events);
            dialogue(&all).consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, k)
        };
        let no = replying(1, Reply::Refuses);
        // "no" … "sorry, misread — yes, please cancel it".
        assert_eq!(
            outcome(&[no.clone(), retracting(2)], 2).outcome,
            ConsentOutcome::Affirmative
        );
        assert_eq!(
            outcome(&[no.clone(), retracting(2)], 1).outcome,
            ConsentOutcome::Refused
        );
        // A no after it counts again; a plain yes takes nothing back.
        assert_eq!(
            outcome(&[no.clone(), retracting(2), replying(3, Reply::Refuses)], 3),
            ConsentFailure {
                outcome: ConsentOutcome::Refused,
                turn: Some(EventIdx(3)),
            }
        );
        assert_eq!(
            outcome(&[no.clone(), user(2, true, false, false)], 2).outcome,
            ConsentOutcome::Refused
        );
        // After a later agent question the correction answers that one.
        let question = turn(2, Speaker::Agent, [false, true, false, false, false], &[]);
        assert_eq!(
            outcome(&[no, question, retracting(3)], 3).outcome,
            ConsentOutcome::Refused
        );
    }

    #[test]
    fn a_reply_picking_another_option_refuses_and_one_picking_none_is_no_yes() {
        let values = [Value::Str(ORDER)];
        let asked = agent(0, true, &[ORDER, OTHER]);
        let picking = |picked_another: bool| {
            let mut facts = user(1, true, false, false);
            facts.passed_over = vec![crate::facts::PassedOverFact {
                value: Value::Str(ORDER),
                event: EventIdx(1),
                picked_another,
            }];
            facts
        };
        // "ORDER or OTHER?" → "yes, OTHER": the call on ORDER is refused.
        assert_eq!(
            dialogue(&[asked.clone(), picking(true)]).consent(
                &values,
                Vec::<Value>::new,
                Vec::<ItemFields>::new,
                1
            ),
            ConsentFailure {
                outcome: ConsentOutcome::Refused,
                turn: Some(EventIdx(1)),
            }
        );
        // "ORDER or OTHER?" → "yes": no yes to either.
        assert_eq!(
            dialogue(&[asked.clone(), picking(false)])
                .consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 1)
                .outcome,
            ConsentOutcome::Absent
        );
        // A call on the value the reply picked is no matter of it.
        assert!(dialogue(&[asked, user(1, true, false, false)]).confirmed(&values, 1));
    }

    #[test]
    fn a_pause_before_the_yes_is_answered_by_it() {
        let values = [Value::Str(ORDER)];
        let asked = agent(0, true, &[ORDER]);
        let outcome = |replies: &[EventFacts], k: u32| {
            let mut events = vec![asked.clone()];
            events.extend_from_slice(replies);
            dialogue(&events)
                .consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, k)
                .outcome
        };
        // "Hold on, let me check." (the reader's qualification) … "OK, yes,
        // go ahead."
        assert_eq!(
            outcome(
                &[replying(1, Reply::Qualifies), user(2, true, false, false)],
                2
            ),
            ConsentOutcome::Affirmative
        );
        // With no yes after it, it stands.
        assert_eq!(
            outcome(&[replying(1, Reply::Qualifies)], 1),
            ConsentOutcome::Qualified
        );
        // A deferral or a refusal before the yes still revokes; so does a
        // pause after it.
        assert_eq!(
            outcome(
                &[replying(1, Reply::Withdraws), user(2, true, false, false)],
                2
            ),
            ConsentOutcome::Withdrawn
        );
        assert_eq!(
            outcome(
                &[replying(1, Reply::Refuses), user(2, true, false, false)],
                2
            ),
            ConsentOutcome::Refused
        );
        assert_eq!(
            outcome(
                &[user(1, true, false, false), replying(2, Reply::Qualifies)],
                2
            ),
            ConsentOutcome::Qualified
        );
        // A pause naming an action may propose another: it revokes.
        let mut naming = replying(1, Reply::Qualifies);
        if let Some(turn) = &mut naming.turn {
            turn.corrects = true;
        }
        assert_eq!(
            outcome(&[naming, user(2, true, false, false)], 2),
            ConsentOutcome::Qualified
        );
    }

    /// A dialogue where the call's order was read before its first event
    /// (an order-like record the monitor knows).
    fn known_order(events: &[EventFacts]) -> Dialogue {
        let read = EventFacts {
            event: EventIdx(0),
            mentions: vec![MentionFact {
                value: Value::Str(ORDER),
                event: EventIdx(0),
                speaker: Speaker::User,
                record: true,
                in_answer: false,
                declined: false,
                action: false,
                implied: false,
                segments: 0,
                clauses: 0,
                first_place: 0,
                last_place: 0,
            }],
            ..EventFacts::default()
        };
        dialogue(&[std::slice::from_ref(&read), events].concat())
    }

    #[test]
    fn a_yes_to_a_request_naming_another_record_in_place_of_the_calls_refuses_it() {
        let values = [Value::Str(ORDER), Value::Str(ACTION)];
        let at = |outcome, turn: u32| ConsentFailure {
            outcome,
            turn: Some(EventIdx(turn)),
        };
        // The call's order was never proposed; the other one was, and agreed.
        let other = known_order(&[
            agent(0, true, &[OTHER, ACTION]),
            user(1, true, false, false),
        ]);
        assert_eq!(
            other.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 2),
            at(ConsentOutcome::Refused, 1)
        );
        assert!(other.confirmed(&[Value::Str(OTHER), Value::Str(ACTION)], 2));
        // Its summary had no yes; a later request for the other order had.
        let later = known_order(&[
            agent(0, true, &[ORDER, ACTION]),
            agent(1, true, &[OTHER, ACTION]),
            user(2, true, false, false),
        ]);
        assert_eq!(
            later.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 3),
            at(ConsentOutcome::Refused, 2)
        );
        // A yes to its own summary stands though another order is agreed later.
        let both = known_order(&[
            agent(0, true, &[ORDER, ACTION]),
            user(1, true, false, false),
            agent(2, true, &[OTHER, ACTION]),
            user(3, true, false, false),
        ]);
        assert_eq!(
            both.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 4),
            at(ConsentOutcome::Affirmative, 1)
        );
        // A request before the summary proposes nothing against it.
        let earlier = known_order(&[
            agent(0, true, &[OTHER, ACTION]),
            user(1, true, false, false),
            agent(2, true, &[ORDER, ACTION]),
        ]);
        assert_eq!(
            earlier.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 3),
            at(ConsentOutcome::Absent, 2)
        );
        // A request naming none of the values is about something else.
        let unrelated = known_order(&[agent(0, true, &[OTHER]), user(1, true, false, false)]);
        assert_eq!(
            unrelated
                .consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 2)
                .outcome,
            ConsentOutcome::Absent
        );
        // A yes naming the call's order is no yes to the other.
        let named = known_order(&[
            agent(0, true, &[OTHER, ACTION]),
            user_yes_naming(1, &[ORDER]),
        ]);
        assert_eq!(
            named
                .consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 2)
                .outcome,
            ConsentOutcome::Absent
        );
        // A yes naming what the request named itself (its action word)
        // repeats the request: it still refuses the call.
        let repeats = known_order(&[
            agent(0, true, &[OTHER, ACTION]),
            user_yes_naming(1, &[ACTION]),
        ]);
        assert_eq!(
            repeats.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 2),
            at(ConsentOutcome::Refused, 1)
        );
        // A question qualifying the call's own summary is no yes that
        // stands: a later yes to the other order refuses the call.
        let qualified = known_order(&[
            agent(0, true, &[ORDER, ACTION]),
            replying(1, Reply::Qualifies),
            agent(2, true, &[OTHER, ACTION]),
            user(3, true, false, false),
        ]);
        assert_eq!(
            qualified.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 4),
            at(ConsentOutcome::Refused, 3)
        );
        // The other order only as context of the question's record is no rival.
        let mut context = agent(0, true, &[OTHER, ACTION]);
        for m in &mut context.mentions {
            m.declined = m.value == Value::Str(OTHER);
        }
        let context = known_order(&[context, user(1, true, false, false)]);
        assert_eq!(
            context
                .consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 2)
                .outcome,
            ConsentOutcome::Absent
        );
        // After a later agent question the yes answers that one.
        let closed = known_order(&[
            agent(0, true, &[OTHER, ACTION]),
            agent(1, true, &[]),
            user(2, true, false, false),
        ]);
        assert_eq!(
            closed
                .consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 3)
                .outcome,
            ConsentOutcome::Absent
        );
    }

    #[test]
    fn a_yes_to_another_literal_of_the_calls_enum_refuses_it() {
        use crate::facts::LiteralFact;
        const SPEED: Symbol = Symbol(20);
        const OTHER_ENUM: Symbol = Symbol(21);
        let values = [Value::Str(ORDER), Value::Str(ACTION)];
        let literals = |of: &[(Symbol, Symbol)]| EventFacts {
            event: EventIdx(0),
            literals: of
                .iter()
                .map(|&(value, of)| LiteralFact {
                    value: Value::Str(value),
                    of,
                })
                .collect(),
            ..EventFacts::default()
        };
        // Literals are no records: only their enum makes them rivals.
        let mut request = agent(1, true, &[OTHER, ACTION]);
        for m in &mut request.mentions {
            m.record = false;
        }
        let yes = user(2, true, false, false);
        let outcome = |declared: &[(Symbol, Symbol)]| {
            dialogue(&[literals(declared), request.clone(), yes.clone()])
                .consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 3)
                .outcome
        };
        assert_eq!(
            outcome(&[(ORDER, SPEED), (OTHER, SPEED)]),
            ConsentOutcome::Refused
        );
        // Literals of two enums, or no enum at all: the detail is unstated.
        assert_eq!(
            outcome(&[(ORDER, SPEED), (OTHER, OTHER_ENUM)]),
            ConsentOutcome::Absent
        );
        assert_eq!(outcome(&[]), ConsentOutcome::Absent);
        // Undone with its event.
        let mut d = dialogue(&[literals(&[(ORDER, SPEED), (OTHER, SPEED)])]);
        let mut undo = Vec::new();
        d.apply(&literals(&[(ORDER, OTHER_ENUM)]), &mut undo);
        for change in undo.into_iter().rev() {
            if let StateChange::DialogueChanged(change) = change {
                d.revert(change);
            }
        }
        assert_eq!(d, dialogue(&[literals(&[(ORDER, SPEED), (OTHER, SPEED)])]));
    }

    #[test]
    fn another_action_word_is_no_rival_and_a_request_weighing_actions_proposes_none() {
        const SYNONYM: Symbol = Symbol(10);
        let mut request = agent(0, true, &[ORDER, SYNONYM]);
        for m in &mut request.mentions {
            if m.value == Value::Str(SYNONYM) {
                m.record = false;
                m.action = true;
            }
        }
        let mut facts = vec![request, user(1, true, false, false)];
        // The call's own action word is an action word too.
        facts.push(EventFacts {
            event: EventIdx(2),
            mentions: vec![MentionFact {
                value: Value::Str(ACTION),
                event: EventIdx(2),
                speaker: Speaker::Agent,
                record: false,
                in_answer: false,
                declined: false,
                action: true,
                implied: false,
                segments: 0,
                clauses: 0,
                first_place: 0,
                last_place: 0,
            }],
            ..EventFacts::default()
        });
        let d = dialogue(&facts);
        let values = [Value::Str(ORDER), Value::Str(ACTION)];
        assert_eq!(
            d.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 1)
                .outcome,
            ConsentOutcome::Absent
        );
        // A request weighing the call's action and another (the reader's
        // `weighs_actions`) proposes neither for sure.
        let mut weighing = agent(3, true, &[OTHER, ACTION, SYNONYM]);
        for m in &mut weighing.mentions {
            if m.value != Value::Str(OTHER) {
                m.record = false;
                m.action = true;
            }
        }
        if let Some(turn) = &mut weighing.turn {
            turn.weighs_actions = true;
        }
        let mut read = known_order(&[]);
        for e in [weighing, user(4, true, false, false)] {
            read.apply(&e, &mut Vec::new());
        }
        assert_eq!(
            read.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 5)
                .outcome,
            ConsentOutcome::Absent
        );
        let mut alone = agent(6, true, &[OTHER, ACTION]);
        for m in &mut alone.mentions {
            if m.value == Value::Str(ACTION) {
                m.record = false;
                m.action = true;
            }
        }
        for e in [alone, user(7, true, false, false)] {
            read.apply(&e, &mut Vec::new());
        }
        assert_eq!(
            read.consent(&values, Vec::<Value>::new, Vec::<ItemFields>::new, 8)
                .outcome,
            ConsentOutcome::Refused
        );
    }

    #[test]
    fn a_yes_naming_one_record_of_a_summary_of_two_confirms_that_one_only() {
        let summary = agent(0, true, &[ORDER, OTHER, ACTION]);
        let key = |order| [Value::Str(order), Value::Str(ACTION)];
        let other_only = dialogue(&[summary.clone(), user_yes_naming(1, &[OTHER])]);
        assert!(other_only.confirmed(&key(OTHER), 2));
        assert!(
            !other_only.confirmed(&key(ORDER), 2),
            "the yes named the other order"
        );
        let both = dialogue(&[summary.clone(), user_yes_naming(1, &[ORDER, OTHER])]);
        assert!(both.confirmed(&key(ORDER), 2) && both.confirmed(&key(OTHER), 2));
        let bare = dialogue(&[summary.clone(), user_yes_naming(1, &[ACTION])]);
        assert!(bare.confirmed(&key(ORDER), 2) && bare.confirmed(&key(OTHER), 2));
        // A later yes naming the order, in the same window, confirms it.
        let then_this = dialogue(&[
            summary,
            user_yes_naming(1, &[OTHER]),
            user_yes_naming(2, &[ORDER]),
        ]);
        assert!(then_this.confirmed(&key(ORDER), 3));
        // Undo restores the records: the monitor's journal reverts them.
        let mut d = Dialogue::default();
        let mut undo = Vec::new();
        d.apply(&agent(0, true, &[ORDER]), &mut undo);
        for change in undo.into_iter().rev() {
            if let StateChange::DialogueChanged(c) = change {
                d.revert(c);
            }
        }
        assert_eq!(d, Dialogue::default());
    }

    /// Consent covers every item of the call: a summary naming, in place of
    /// an item the call carries, another item of its kind states another
    /// call; one naming an item the call carries beside it (an exchange's
    /// old item) states nothing against it.
    #[test]
    fn an_item_the_call_carries_is_no_rival_of_its_other_items() {
        const ITEM: Symbol = Symbol(30);
        const OLD: Symbol = Symbol(31);
        const NEW: Symbol = Symbol(32);
        const SUMMARISED: Symbol = Symbol(33);
        let summary = ASKS_DECISION;
        let yes = PLAIN_YES;
        let reads = [
            read(0, ITEM, OLD),
            read(1, ITEM, NEW),
            read(2, ITEM, SUMMARISED),
        ];
        let values = [Value::Str(ORDER), Value::Str(ACTION)];
        let call = [Value::Str(OLD), Value::Str(NEW)];
        let other_new = dialogue(
            &[
                &reads[..],
                &[
                    plain_turn(
                        3,
                        Speaker::Agent,
                        summary,
                        &[ORDER, OLD, SUMMARISED, ACTION],
                    ),
                    plain_turn(4, Speaker::User, yes, &[]),
                ],
            ]
            .concat(),
        );
        assert_eq!(
            other_new
                .consent(&values, || call, Vec::<ItemFields>::new, 5)
                .outcome,
            ConsentOutcome::Absent
        );
        let old_only = dialogue(
            &[
                &reads[..],
                &[
                    plain_turn(3, Speaker::Agent, summary, &[ORDER, OLD, ACTION]),
                    plain_turn(4, Speaker::User, yes, &[]),
                ],
            ]
            .concat(),
        );
        assert_eq!(
            old_only
                .consent(&values, || call, Vec::<ItemFields>::new, 5)
                .outcome,
            ConsentOutcome::Affirmative
        );
    }

    /// "On the order with the bananas, I'll remove the oat milk": the call
    /// removing the bananas is not the one summarised. A value of the call
    /// the request names only as a description of a record (declined there)
    /// is not stated for the action, so another record of its kind the
    /// request does state is a rival.
    #[test]
    fn a_call_value_named_only_to_describe_a_record_is_not_stated_for_it() {
        const ITEM: Symbol = Symbol(30);
        const CALLED: Symbol = Symbol(31);
        const SUMMARISED: Symbol = Symbol(32);
        let reads = [read(0, ITEM, CALLED), read(1, ITEM, SUMMARISED)];
        let values = [Value::Str(ORDER), Value::Str(ACTION)];
        let call = [Value::Str(CALLED)];
        let consent = |describes: bool| {
            let mut request = plain_turn(
                2,
                Speaker::Agent,
                ASKS_DECISION,
                &[ORDER, CALLED, SUMMARISED, ACTION],
            );
            for m in &mut request.mentions {
                m.declined = describes && m.value == Value::Str(CALLED);
            }
            let turns = [request, plain_turn(3, Speaker::User, PLAIN_YES, &[])];
            dialogue(&[&reads[..], &turns[..]].concat())
                .consent(&values, || call, Vec::<ItemFields>::new, 4)
                .outcome
        };
        assert_eq!(consent(true), ConsentOutcome::Absent);
        assert_eq!(consent(false), ConsentOutcome::Affirmative);
    }

    /// A read at `k` of entity `entity` with id `id` (one scalar field).
    fn read(k: u32, entity: Symbol, id: Symbol) -> EventFacts {
        EventFacts {
            event: EventIdx(k),
            reads: vec![crate::facts::Read {
                entity,
                id,
                field: Symbol(99),
                values: vec![Value::Str(Symbol(98))],
                is_list: false,
            }],
            ..EventFacts::default()
        }
    }

    /// A turn naming identifiers that are no order-like record ids
    /// (`ZFA04Y`): only entity reads make them records of a kind.
    fn plain_turn(k: u32, speaker: Speaker, cues: [bool; 5], named: &[Symbol]) -> EventFacts {
        let mut facts = turn(k, speaker, cues, named);
        for m in &mut facts.mentions {
            m.record = false;
        }
        facts
    }

    #[test]
    fn a_yes_naming_one_of_two_entities_read_confirms_that_one_only() {
        const RESERVATION: Symbol = Symbol(20);
        const FLIGHT_ENTITY: Symbol = Symbol(21);
        const FLIGHT: Symbol = Symbol(22);
        let summary = ASKS_DECISION;
        let yes = PLAIN_YES;
        let d = dialogue(&[
            read(0, RESERVATION, ORDER),
            read(1, RESERVATION, OTHER),
            read(2, FLIGHT_ENTITY, FLIGHT),
            plain_turn(3, Speaker::Agent, summary, &[ORDER, OTHER, FLIGHT, ACTION]),
            plain_turn(4, Speaker::User, yes, &[OTHER]),
        ]);
        let key = |id| [Value::Str(id), Value::Str(ACTION)];
        assert!(d.confirmed(&key(OTHER), 5));
        assert!(
            !d.confirmed(&key(ORDER), 5),
            "the yes named the other reservation"
        );
        // A yes naming a record of another kind (a flight) picks nothing
        // among the reservations.
        let flight_only = dialogue(&[
            read(0, RESERVATION, ORDER),
            read(2, FLIGHT_ENTITY, FLIGHT),
            plain_turn(3, Speaker::Agent, summary, &[ORDER, FLIGHT, ACTION]),
            plain_turn(4, Speaker::User, yes, &[FLIGHT]),
        ]);
        assert!(flight_only.confirmed(&key(ORDER), 5));
        // An entity read only after the event asked about is no kind yet.
        let late = dialogue(&[
            read(0, RESERVATION, ORDER),
            plain_turn(3, Speaker::Agent, summary, &[ORDER, OTHER, ACTION]),
            plain_turn(4, Speaker::User, yes, &[OTHER]),
            read(6, RESERVATION, OTHER),
        ]);
        assert!(late.confirmed(&key(ORDER), 5));
        assert!(!late.confirmed(&key(ORDER), 6));
    }

    #[test]
    fn a_summary_naming_another_record_for_an_argument_of_the_call_is_none_of_its() {
        const BOOKING: Symbol = Symbol(20);
        const FEE_ENTITY: Symbol = Symbol(21);
        const FEE: Symbol = Symbol(22);
        const OTHER_FEE: Symbol = Symbol(23);
        let summary = ASKS_DECISION;
        let yes = PLAIN_YES;
        let asked = |named: &[Symbol]| {
            dialogue(&[
                read(0, BOOKING, ORDER),
                read(1, FEE_ENTITY, FEE),
                read(1, FEE_ENTITY, OTHER_FEE),
                plain_turn(2, Speaker::Agent, summary, named),
                plain_turn(3, Speaker::User, yes, &[]),
            ])
        };
        let values = [Value::Str(ORDER), Value::Str(ACTION)];
        let call = [Value::Str(FEE)];
        // "Waive $48 of fee F-3301 on BK-1?" → "Yes" → a waiver of F-3302.
        let other = asked(&[ORDER, OTHER_FEE, ACTION]);
        assert_eq!(
            other.consent(&values, || call, Vec::<ItemFields>::new, 4),
            ConsentFailure {
                outcome: ConsentOutcome::Absent,
                turn: None,
            }
        );
        assert!(
            other.confirmed(&values, 4),
            "without the call's other arguments"
        );
        // Naming the call's fee, or no fee at all, states no other call.
        for named in [&[ORDER, FEE, OTHER_FEE, ACTION][..], &[ORDER, ACTION]] {
            assert_eq!(
                asked(named)
                    .consent(&values, || call, Vec::<ItemFields>::new, 4)
                    .outcome,
                ConsentOutcome::Affirmative
            );
        }
    }

    #[test]
    fn dates_and_amounts_are_confirmed_like_strings() {
        let date = Value::Date(crate::value::Date(19_871));
        let other_date = Value::Date(crate::value::Date(19_869));
        let price = Value::Amount(crate::value::Amount(114_000_000));
        let mut summary = agent(0, true, &[ORDER]);
        for value in [date, price] {
            summary.mentions.push(MentionFact {
                value,
                event: EventIdx(0),
                speaker: Speaker::Agent,
                record: false,
                in_answer: false,
                declined: false,
                action: false,
                implied: false,
                segments: 0,
                clauses: 0,
                first_place: 0,
                last_place: 0,
            });
        }
        let d = dialogue(&[summary, user(1, true, false, false)]);
        assert!(d.confirmed(&[Value::Str(ORDER), date, price], 2));
        assert!(
            !d.confirmed(&[Value::Str(ORDER), other_date], 2),
            "the summary named another date"
        );
        assert!(d.said(Speaker::Agent, date, 0));
        assert!(!d.said(Speaker::User, date, 2));
    }

    #[test]
    fn said_counts_turns_up_to_the_event_only() {
        let d = dialogue(&[turn(3, Speaker::User, [false; 5], &[ORDER])]);
        assert!(d.said(Speaker::User, Value::Str(ORDER), 3));
        assert!(!d.said(Speaker::User, Value::Str(ORDER), 2));
        assert!(!d.said(Speaker::Agent, Value::Str(ORDER), 3));
        assert!(!d.said(Speaker::User, Value::Int(3), 3));
    }
}
