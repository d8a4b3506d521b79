//! Trace facts: what a conversation established, as typed, interned tuples.
//! The engine extracts them from events using the bundle's domain schema; the
//! evaluator never sees JSON.

use serde::{Deserialize, Serialize};

use crate::intern::{Interner, Symbol};
use crate::ir::{ArgPath, VarId};
use crate::steps::StepId;
use crate::value::Value;

/// `elem` of a scalar value; list elements are numbered from 0.
pub const SCALAR: u32 = u32::MAX;

/// An event index past the end of any trace: "until further notice".
pub const FOREVER: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallFact {
    pub event: u32,
    pub tool: Symbol,
    /// Made by the agent (as opposed to the user's device).
    pub by_agent: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultFact {
    pub event: u32,
    pub call: u32,
    pub ok: bool,
}

/// `entity[id].field` (element `elem`) is `value` for events in `[from, until)`:
/// read by the successful result at `from`, superseded by the next read of the
/// same field at `until` (latest read wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttrFact {
    pub entity: Symbol,
    pub id: Symbol,
    pub field: Symbol,
    pub elem: u32,
    pub value: Value,
    pub from: u32,
    pub until: u32,
}

/// Length of a list field over the same interval as its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttrLenFact {
    pub entity: Symbol,
    pub id: Symbol,
    pub field: Symbol,
    pub len: u32,
    pub from: u32,
    pub until: u32,
}

/// The value at `path` (index into [`TraceFacts::arg_paths`]) of call `call`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgFact {
    pub call: u32,
    pub path: u32,
    pub elem: u32,
    pub value: Value,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgLenFact {
    pub call: u32,
    pub path: u32,
    pub len: u32,
}

/// Step `step` satisfied at `event` binds variable `var` to `value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BindFact {
    pub step: StepId,
    pub event: u32,
    pub var: VarId,
    pub value: Symbol,
}

/// Why a part of the trace could not be turned into facts. Checks that would
/// have needed the missing facts are not satisfied (fail closed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtractionDiagnostic {
    pub event: u32,
    pub kind: ExtractionProblem,
    pub detail: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
}

/// Everything the evaluator knows about one trace.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TraceFacts {
    /// The bundle's interner extended with the trace's strings.
    pub interner: Interner,
    pub events: u32,
    pub calls: Vec<CallFact>,
    pub results: Vec<ResultFact>,
    pub attrs: Vec<AttrFact>,
    pub attr_lens: Vec<AttrLenFact>,
    /// The argument paths that `args` facts refer to, by index.
    pub arg_paths: Vec<ArgPath>,
    pub args: Vec<ArgFact>,
    pub arg_lens: Vec<ArgLenFact>,
    pub binds: Vec<BindFact>,
    /// Semantic criteria the judge found satisfied: step and evidence event.
    pub judged: Vec<(StepId, u32)>,
    pub diagnostics: Vec<ExtractionDiagnostic>,
}

impl TraceFacts {
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
    pub entity: Symbol,
    pub id: Symbol,
    pub field: Symbol,
    pub values: Vec<Value>,
    /// A list field (its length is a fact too), as opposed to a scalar.
    pub is_list: bool,
}

/// What one event adds to the facts. The incremental monitor consumes these
/// one at a time; [`FactsBuilder`] folds them into [`TraceFacts`] for the
/// Datalog program, so both evaluators see exactly the same input.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventFacts {
    pub event: u32,
    pub call: Option<CallFact>,
    pub result: Option<ResultFact>,
    pub reads: Vec<Read>,
    pub args: Vec<ArgFact>,
    pub arg_lens: Vec<ArgLenFact>,
    pub binds: Vec<BindFact>,
    pub diagnostics: Vec<ExtractionDiagnostic>,
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
    pub fn new(arg_paths: Vec<ArgPath>) -> Self {
        FactsBuilder {
            facts: TraceFacts {
                arg_paths,
                ..TraceFacts::default()
            },
            open: hashbrown::HashMap::new(),
        }
    }

    /// Adds one event's facts; events must arrive in order.
    pub fn push(&mut self, event: &EventFacts) {
        let k = event.event;
        self.facts.events = self.facts.events.max(k.saturating_add(1));
        self.facts.calls.extend(event.call);
        self.facts.results.extend(event.result);
        self.facts.args.extend_from_slice(&event.args);
        self.facts.arg_lens.extend_from_slice(&event.arg_lens);
        self.facts.binds.extend_from_slice(&event.binds);
        self.facts
            .diagnostics
            .extend(event.diagnostics.iter().cloned());
        for read in &event.reads {
            self.read(k, read);
        }
    }

    fn read(&mut self, k: u32, read: &Read) {
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
