//! Trace facts: what a conversation established, as typed, interned tuples.
//! The engine extracts them from events using the bundle's domain schema; the
//! evaluator never sees JSON.

use serde::{Deserialize, Serialize};

use crate::intern::{Interner, Symbol};
use crate::ir::ArgPath;
use crate::spec::StepId;
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
    pub var: u32,
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
