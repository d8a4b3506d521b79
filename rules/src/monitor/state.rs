//! The monitor's view of the conversation so far: the latest value of every
//! entity field, the arguments of every call, and the events matching each
//! event filter (all of them, and by the value of the filter's key argument).
//! Updating it costs time proportional to the event's own facts.

use hashbrown::HashMap;
use serde::{Deserialize, Serialize};

use crate::env::Env;
use crate::facts::{EventFacts, SCALAR};
use crate::intern::Symbol;
use crate::ir::Outcome;
use crate::value::Value;

use super::plan::{Plan, to_u32};

/// The latest read of one field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Latest {
    pub values: Vec<Value>,
    pub is_list: bool,
    pub read_at: u32,
}

impl Latest {
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
#[derive(Clone, Debug, Default)]
struct CallArgs {
    tool: Option<Symbol>,
    values: Vec<(u32, u32, Value)>,
    lens: Vec<(u32, u32)>,
}

/// `(event, call)` pairs.
type Matches = Vec<(u32, u32)>;

#[derive(Clone, Debug, Default)]
pub struct State {
    /// Events applied so far.
    pub events: u32,
    attrs: HashMap<(Symbol, Symbol, Symbol), Latest>,
    calls: HashMap<u32, CallArgs>,
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
}

impl State {
    /// Applies the facts of the next event.
    pub fn apply(&mut self, plan: &Plan, facts: &EventFacts) {
        let k = facts.event.0;
        self.events = k.saturating_add(1);
        self.visible = None;
        self.call_now = None;
        self.ok_result_now = None;
        self.binds_now.clear();
        self.dialogue.apply(facts);
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
            self.visible = Some(k);
            self.call_now = Some((call.tool, call.by_agent));
            self.record_filters(plan, call.tool, Outcome::Called, k, k);
        }
        if let Some(result) = facts.result {
            self.visible = Some(result.call.0);
            let tool = self.calls.get(&result.call.0).and_then(|c| c.tool);
            if let (true, Some(tool)) = (result.ok, tool) {
                self.ok_result_now = Some(tool);
                self.record_filters(plan, tool, Outcome::Succeeded, k, result.call.0);
            }
        }
        for read in &facts.reads {
            self.attrs.insert(
                (read.entity, read.id, read.field),
                Latest {
                    values: read.values.clone(),
                    is_list: read.is_list,
                    read_at: k,
                },
            );
        }
        for bind in facts.binds.iter().filter(|b| b.event.0 == k) {
            let env = self.binds_now.entry(bind.step.0).or_insert(Env::EMPTY);
            *env = env.with(bind.var, bind.value);
        }
    }

    fn record_filters(&mut self, plan: &Plan, tool: Symbol, outcome: Outcome, ev: u32, call: u32) {
        let Some(filters) = plan.filters_of.get(&tool) else {
            return;
        };
        for &(f, wanted, key_path) in filters {
            if wanted != outcome {
                continue;
            }
            self.filter_all.entry(f).or_default().push((ev, call));
            let keys: Vec<Value> = match key_path {
                None => vec![Value::Bool(true)],
                Some(path) => self.arg_values(call, path).map(|(_, v)| v).collect(),
            };
            for key in keys {
                let list = self.filter_by_key.entry((f, key)).or_default();
                if !list.contains(&(ev, call)) {
                    list.push((ev, call));
                }
            }
        }
    }

    pub fn attr(&self, entity: Symbol, id: Symbol, field: Symbol) -> Option<&Latest> {
        self.attrs.get(&(entity, id, field))
    }

    pub fn args_visible(&self) -> Option<u32> {
        self.visible
    }

    pub fn arg_values(&self, call: u32, path: u32) -> impl Iterator<Item = (u32, Value)> + '_ {
        self.calls
            .get(&call)
            .into_iter()
            .flat_map(|c| c.values.iter())
            .filter(move |(p, _, _)| *p == path)
            .map(|(_, el, v)| (*el, *v))
    }

    pub fn arg_len(&self, call: u32, path: u32) -> Option<u32> {
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
