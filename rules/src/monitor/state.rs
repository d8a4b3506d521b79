//! The monitor's view of the conversation so far: the latest value of every
//! entity field, the arguments of every call, and the events matching each
//! event filter (all of them, and by the value of the filter's key argument).
//! Updating it costs time proportional to the event's own facts.
//!
//! Nothing is overwritten: every read of a field is kept (in event order) and
//! filter matches are appended, so a [`View`] can look at the state as it was
//! at any earlier event. The live decision only looks at "now"; block
//! explanations look back (see `explain.rs`).

use std::collections::{BTreeMap, BTreeSet};

use hashbrown::{HashMap, HashSet};
use serde::{Deserialize, Serialize};

use crate::env::Env;
use crate::facts::{EventFacts, SCALAR};
use crate::intern::Symbol;
use crate::ir::{Outcome, VarId};
use crate::value::{DateTime, Value};

use super::plan::{Plan, to_u32};

/// The latest read of one field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Latest {
    pub values: Vec<Value>,
    pub is_list: bool,
    pub read_at: u32,
}

impl Latest {
    /// Whether the read concluded a value: a list (empty or not) or a scalar.
    pub fn holds_value(&self) -> bool {
        self.is_list || !self.values.is_empty()
    }

    pub fn elements(&self) -> impl Iterator<Item = (u32, Value)> + '_ {
        self.values.iter().enumerate().map(|(i, v)| {
            let el = if self.is_list { to_u32(i) } else { SCALAR };
            (el, *v)
        })
    }

    pub fn len(&self) -> u32 {
        to_u32(self.values.len())
    }
}

/// One call's argument values along the extracted paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct CallArgs {
    tool: Option<Symbol>,
    values: Vec<(u32, u32, Value)>,
    lens: Vec<(u32, u32)>,
}

/// `(event, call)` pairs.
type Matches = Vec<(u32, u32)>;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// Events applied so far.
    pub events: u32,
    /// Every read of each field, in event order (the last one is current).
    attrs: HashMap<(Symbol, Symbol, Symbol), Vec<Latest>>,
    calls: HashMap<u32, CallArgs>,
    /// Result event to the call it answers (successful or not).
    results: HashMap<u32, u32>,
    /// Every call or result event, in order.
    pub tool_events: Vec<u32>,
    /// Per tool: its call events (by anyone), in order.
    pub tool_calls: HashMap<Symbol, Vec<u32>>,
    /// Per tool: its successful `(result event, call event)`s, in order.
    pub tool_results: HashMap<Symbol, Vec<(u32, u32)>>,
    /// What each step bound at each event: `(step, event)` to the bindings.
    pub binds_at: HashMap<(u32, u32), Env>,
    /// Every value each variable was bound to so far.
    pub candidates: BTreeMap<VarId, BTreeSet<Symbol>>,
    /// Every string value any read returned so far.
    pub read_strings: HashSet<Symbol>,
    /// The call whose arguments the current event shows (its own call, or
    /// the call a result answers).
    visible: Option<u32>,
    filter_all: HashMap<u32, Matches>,
    filter_by_key: HashMap<(u32, Value), Matches>,
    /// Per step: the variables the current event binds for it.
    binds_now: HashMap<u32, Env>,
    /// The current event is a call of this tool (by the agent: `true`).
    pub call_now: Option<(Symbol, bool)>,
    /// The current event is a successful result of this tool.
    pub ok_result_now: Option<Symbol>,
    /// The turns and the values named in them, for the dialogue predicates.
    pub dialogue: super::dialogue::Dialogue,
    /// Field reads held (`attrs`' values, all together): with
    /// `filter_matches` and `visible`, a stamp of what an operand can read
    /// ([`super::ReadStamp`]). Counts of what is held, not of what happened,
    /// so an undone push and its repetition give the same count.
    field_reads: u64,
    /// Filter matches held (`filter_all` and `filter_by_key` together).
    filter_matches: u64,
    /// The time of every event that has one, in event order (`now()`).
    times: Vec<(u32, DateTime)>,
    /// The current event's time differs from the previous event's: a
    /// criterion reading `now()` may change here.
    pub time_changed_now: bool,
}

/// One change [`State::apply`] made, so the monitor can undo its last event.
#[derive(Clone, Debug)]
pub enum StateChange {
    CallInserted(u32),
    ToolEventPushed,
    ToolCallPushed(Symbol),
    ResultInserted(u32),
    ToolResultPushed(Symbol),
    FilterAllPushed(u32),
    FilterKeyPushed(u32, Value),
    ReadStringAdded(Symbol),
    AttrPushed((Symbol, Symbol, Symbol)),
    CandidateAdded(VarId, Symbol),
    BindsAtWas((u32, u32), Option<Env>),
    DialogueChanged(super::dialogue::DialogueChange),
    TimePushed,
}

/// What [`State::apply`] overwrote rather than appended to.
#[derive(Clone, Debug, Default)]
pub struct StateBefore {
    events: u32,
    visible: Option<u32>,
    binds_now: HashMap<u32, Env>,
    call_now: Option<(Symbol, bool)>,
    ok_result_now: Option<Symbol>,
    time_changed_now: bool,
}

/// Pops the last element of `map[key]`, and the entry once it is empty
/// (every such entry was created by the push its first element came with).
fn pop_last<K: std::hash::Hash + Eq, T>(map: &mut HashMap<K, Vec<T>>, key: &K) {
    if let Some(list) = map.get_mut(key) {
        list.pop();
        if list.is_empty() {
            map.remove(key);
        }
    }
}

impl State {
    /// Applies the facts of the next event, recording in `undo` every change
    /// so [`State::revert`] can take it back; returns what it overwrote.
    pub fn apply(
        &mut self,
        plan: &Plan,
        facts: &EventFacts,
        undo: &mut Vec<StateChange>,
    ) -> StateBefore {
        let k = facts.event.0;
        let before = StateBefore {
            events: self.events,
            visible: self.visible.take(),
            binds_now: std::mem::take(&mut self.binds_now),
            call_now: self.call_now.take(),
            ok_result_now: self.ok_result_now.take(),
            time_changed_now: self.time_changed_now,
        };
        let before_time = k.checked_sub(1).and_then(|previous| self.time_of(previous));
        self.time_changed_now = k > 0 && before_time != facts.now;
        if let Some(time) = facts.now {
            self.times.push((k, time));
            undo.push(StateChange::TimePushed);
        }
        self.events = k.saturating_add(1);
        self.dialogue.apply(facts, undo);
        if let Some(call) = facts.call {
            let mut args = CallArgs {
                tool: Some(call.tool),
                ..CallArgs::default()
            };
            args.values
                .extend(facts.args.iter().map(|a| (a.path, a.elem, a.value)));
            args.lens
                .extend(facts.arg_lens.iter().map(|a| (a.path, a.len)));
            self.calls.insert(k, args);
            undo.push(StateChange::CallInserted(k));
            self.tool_events.push(k);
            undo.push(StateChange::ToolEventPushed);
            self.tool_calls.entry(call.tool).or_default().push(k);
            undo.push(StateChange::ToolCallPushed(call.tool));
            self.visible = Some(k);
            self.call_now = Some((call.tool, call.by_agent));
            self.record_filters(plan, call.tool, Outcome::Called, k, k, undo);
        }
        if let Some(result) = facts.result {
            self.visible = Some(result.call.0);
            self.results.insert(k, result.call.0);
            undo.push(StateChange::ResultInserted(k));
            if self.tool_events.last() != Some(&k) {
                self.tool_events.push(k);
                undo.push(StateChange::ToolEventPushed);
            }
            let tool = self.calls.get(&result.call.0).and_then(|c| c.tool);
            if let (true, Some(tool)) = (result.ok, tool) {
                self.tool_results
                    .entry(tool)
                    .or_default()
                    .push((k, result.call.0));
                undo.push(StateChange::ToolResultPushed(tool));
                self.ok_result_now = Some(tool);
                self.record_filters(plan, tool, Outcome::Succeeded, k, result.call.0, undo);
            }
        }
        for read in &facts.reads {
            for value in &read.values {
                if let Value::Str(s) = value
                    && self.read_strings.insert(*s)
                {
                    undo.push(StateChange::ReadStringAdded(*s));
                }
            }
            let key = (read.entity, read.id, read.field);
            self.attrs.entry(key).or_default().push(Latest {
                values: read.values.clone(),
                is_list: read.is_list,
                read_at: k,
            });
            self.field_reads += 1;
            undo.push(StateChange::AttrPushed(key));
        }
        for bind in &facts.binds {
            if self
                .candidates
                .entry(bind.var)
                .or_default()
                .insert(bind.value)
            {
                undo.push(StateChange::CandidateAdded(bind.var, bind.value));
            }
            let key = (bind.step.0, bind.event.0);
            let was = self.binds_at.get(&key).copied();
            self.binds_at
                .insert(key, was.unwrap_or(Env::EMPTY).with(bind.var, bind.value));
            undo.push(StateChange::BindsAtWas(key, was));
            if bind.event.0 == k {
                let env = self.binds_now.entry(bind.step.0).or_insert(Env::EMPTY);
                *env = env.with(bind.var, bind.value);
            }
        }
        before
    }

    /// Reverts one change [`State::apply`] recorded (the last first).
    pub fn revert(&mut self, change: StateChange) {
        match change {
            StateChange::CallInserted(k) => {
                self.calls.remove(&k);
            }
            StateChange::ToolEventPushed => {
                self.tool_events.pop();
            }
            StateChange::ToolCallPushed(tool) => pop_last(&mut self.tool_calls, &tool),
            StateChange::ResultInserted(k) => {
                self.results.remove(&k);
            }
            StateChange::ToolResultPushed(tool) => pop_last(&mut self.tool_results, &tool),
            StateChange::FilterAllPushed(f) => {
                self.filter_matches = self.filter_matches.saturating_sub(1);
                pop_last(&mut self.filter_all, &f);
            }
            StateChange::FilterKeyPushed(f, key) => {
                self.filter_matches = self.filter_matches.saturating_sub(1);
                pop_last(&mut self.filter_by_key, &(f, key));
            }
            StateChange::ReadStringAdded(s) => {
                self.read_strings.remove(&s);
            }
            StateChange::AttrPushed(key) => {
                self.field_reads = self.field_reads.saturating_sub(1);
                pop_last(&mut self.attrs, &key);
            }
            StateChange::CandidateAdded(var, value) => {
                if let Some(values) = self.candidates.get_mut(&var) {
                    values.remove(&value);
                    if values.is_empty() {
                        self.candidates.remove(&var);
                    }
                }
            }
            StateChange::BindsAtWas(key, Some(was)) => {
                self.binds_at.insert(key, was);
            }
            StateChange::BindsAtWas(key, None) => {
                self.binds_at.remove(&key);
            }
            StateChange::DialogueChanged(change) => self.dialogue.revert(change),
            StateChange::TimePushed => {
                self.times.pop();
            }
        }
    }

    /// Puts back what [`State::apply`] overwrote, once its changes are reverted.
    pub fn restore(&mut self, before: StateBefore) {
        self.events = before.events;
        self.visible = before.visible;
        self.binds_now = before.binds_now;
        self.call_now = before.call_now;
        self.ok_result_now = before.ok_result_now;
        self.time_changed_now = before.time_changed_now;
    }

    /// The time of event `k`, if it has one.
    fn time_of(&self, k: u32) -> Option<DateTime> {
        let n = self.times.partition_point(|(ev, _)| *ev <= k);
        n.checked_sub(1)
            .and_then(|i| self.times.get(i))
            .filter(|(ev, _)| *ev == k)
            .map(|(_, t)| *t)
    }

    /// The events whose time differs from the previous event's, up to
    /// event `k`: where a criterion reading `now()` may change.
    pub fn time_changes(&self, k: u32) -> impl Iterator<Item = u32> + '_ {
        (1..=k.min(self.events.saturating_sub(1)))
            .filter(|&e| self.time_of(e) != self.time_of(e - 1))
    }

    fn record_filters(
        &mut self,
        plan: &Plan,
        tool: Symbol,
        outcome: Outcome,
        ev: u32,
        call: u32,
        undo: &mut Vec<StateChange>,
    ) {
        let Some(filters) = plan.filters_of.get(&tool) else {
            return;
        };
        for &(f, wanted, key_path) in filters {
            if wanted != outcome {
                continue;
            }
            self.filter_all.entry(f).or_default().push((ev, call));
            self.filter_matches += 1;
            undo.push(StateChange::FilterAllPushed(f));
            let keys: Vec<Value> = match key_path {
                None => vec![Value::Bool(true)],
                Some(path) => self.arg_values(call, path).map(|(_, v)| v).collect(),
            };
            for key in keys {
                let list = self.filter_by_key.entry((f, key)).or_default();
                if !list.contains(&(ev, call)) {
                    list.push((ev, call));
                    self.filter_matches += 1;
                    undo.push(StateChange::FilterKeyPushed(f, key));
                }
            }
        }
    }

    /// What the operands can read now, as a stamp (see [`super::ReadStamp`]).
    pub fn read_stamp(&self) -> super::ReadStamp {
        super::ReadStamp {
            field_reads: self.field_reads,
            filter_matches: self.filter_matches,
            visible: self.visible,
            time: self.time_of(self.events.saturating_sub(1)),
        }
    }

    /// The state now (after the last event applied).
    pub fn now(&self) -> View<'_> {
        View {
            state: self,
            at: u32::MAX,
            visible: self.visible,
        }
    }

    /// The state as it was right after event `k` was applied.
    pub fn at(&self, k: u32) -> View<'_> {
        let visible = if self.calls.contains_key(&k) {
            Some(k)
        } else {
            self.results.get(&k).copied()
        };
        View {
            state: self,
            at: k,
            visible,
        }
    }

    /// The reads of field `(entity, id, field)` where its value changes, in
    /// order: where a value starts and where one stops. A read that
    /// concludes nothing (`Read::unknown`) ends the value before it but,
    /// after no value, changes nothing (as the Datalog inputs' spans).
    pub fn read_events(
        &self,
        entity: Symbol,
        id: Symbol,
        field: Symbol,
    ) -> impl Iterator<Item = u32> + '_ {
        let history = self
            .attrs
            .get(&(entity, id, field))
            .map_or(&[][..], Vec::as_slice);
        history.iter().enumerate().filter_map(move |(i, read)| {
            let ends_a_value = i
                .checked_sub(1)
                .and_then(|before| history.get(before))
                .is_some_and(Latest::holds_value);
            (read.holds_value() || ends_a_value).then_some(read.read_at)
        })
    }

    /// The argument values of call `call` along facts path `path`.
    pub fn arg_values(&self, call: u32, path: u32) -> impl Iterator<Item = (u32, Value)> + '_ {
        self.calls
            .get(&call)
            .into_iter()
            .flat_map(|c| c.values.iter())
            .filter(move |(p, _, _)| *p == path)
            .map(|(_, el, v)| (*el, *v))
    }

    /// Every string argument value of call `call`.
    pub fn call_strings(&self, call: u32) -> impl Iterator<Item = Symbol> + '_ {
        self.calls
            .get(&call)
            .into_iter()
            .flat_map(|c| c.values.iter())
            .filter_map(|(_, _, v)| match v {
                Value::Str(s) => Some(*s),
                _ => None,
            })
    }

    fn arg_len(&self, call: u32, path: u32) -> Option<u32> {
        self.calls
            .get(&call)?
            .lens
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, n)| *n)
    }

    /// Events matching `filter` so far: all of them, or those whose key
    /// argument equals `key`.
    pub fn filter_events(&self, filter: u32, key: Option<Value>) -> &[(u32, u32)] {
        let list = match key {
            None => self.filter_all.get(&filter),
            Some(key) => self.filter_by_key.get(&(filter, key)),
        };
        list.map_or(&[], Vec::as_slice)
    }

    /// The variables the current event binds for `step`.
    pub fn binds_now(&self, step: u32) -> Env {
        self.binds_now.get(&step).copied().unwrap_or(Env::EMPTY)
    }

    /// Whether the current event is an evaluation point of a step with this timing.
    pub fn is_point(&self, timing: crate::steps::Timing) -> bool {
        match timing {
            crate::steps::Timing::State => true,
            crate::steps::Timing::Call(t) => self.call_now.is_some_and(|(c, _)| c == t),
            crate::steps::Timing::Result(t) => self.ok_result_now == Some(t),
        }
    }

    pub fn is_tool_event(&self) -> bool {
        self.visible.is_some()
    }
}

/// The state as of one event: what the check interpreter reads. Every list
/// it looks into is in event order, so "as of `at`" is a prefix.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    state: &'a State,
    /// The event looked at (`u32::MAX`: now).
    at: u32,
    /// The call whose arguments that event shows.
    visible: Option<u32>,
}

impl<'a> View<'a> {
    /// The latest read of a field at or before the event looked at.
    pub fn attr(&self, entity: Symbol, id: Symbol, field: Symbol) -> Option<&'a Latest> {
        let history = self.state.attrs.get(&(entity, id, field))?;
        let n = history.partition_point(|l| l.read_at <= self.at);
        history.get(n.checked_sub(1)?)
    }

    /// The call whose arguments the event shows.
    pub fn args_visible(&self) -> Option<u32> {
        self.visible
    }

    /// The argument values of call `call` along facts path `path`.
    pub fn arg_values(&self, call: u32, path: u32) -> impl Iterator<Item = (u32, Value)> + 'a {
        self.state.arg_values(call, path)
    }

    /// The length of list argument `path` of call `call`.
    pub fn arg_len(&self, call: u32, path: u32) -> Option<u32> {
        self.state.arg_len(call, path)
    }

    /// The event looked at (the last applied one for "now").
    pub fn event(&self) -> u32 {
        if self.at == u32::MAX {
            self.state.events.saturating_sub(1)
        } else {
            self.at
        }
    }

    /// The time of the event looked at (`now()`), if it has one.
    pub fn now(&self) -> Option<DateTime> {
        self.state.time_of(self.event())
    }

    /// The turns and mentions; its queries take the event they are asked at.
    pub fn dialogue(&self) -> &'a super::dialogue::Dialogue {
        &self.state.dialogue
    }

    /// Events matching `filter` up to the event looked at.
    pub fn filter_events(&self, filter: u32, key: Option<Value>) -> &'a [(u32, u32)] {
        let list = self.state.filter_events(filter, key);
        let n = list.partition_point(|(ev, _)| *ev <= self.at);
        list.get(..n).unwrap_or_default()
    }
}
