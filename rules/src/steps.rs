//! What the evaluator needs to know about a compiled bundle: its checks and
//! its workflow as a graph of *steps* (FSM nodes, plus one step per decision
//! branch so a branch guard is a criterion like any other).

use serde::{Deserialize, Serialize};

use crate::consent::ConsentSpec;
use crate::intern::Symbol;
use crate::ir::{CheckId, CheckSet, VarId};

#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
/// Index of a step in [`CompiledChecks::steps`].
pub struct StepId(pub u32);

/// When a step's formal criterion is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Timing {
    /// At any event; the criterion is a property of the state.
    State,
    /// Only at a call event of this tool (an authorization: the call itself).
    Call(Symbol),
    /// Only at a successful result event of this tool (a read).
    Result(Symbol),
}

/// Where a step comes from in the workflow.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StepOrigin {
    /// A workflow node; its step id is the node's index in the workflow graph.
    Node,
    /// One branch of a decision node: the decision's step and the branch label.
    Branch {
        /// The step of the decision node the branch leaves.
        decision: StepId,
        /// The branch label, as written in the bundle.
        label: String,
    },
}

/// One step of the workflow as the evaluator walks it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// For rendering only: the node id, or `node[label]` for a decision
    /// branch. Code that needs to know what the step is matches [`Step::origin`].
    pub name: String,
    /// The node or decision branch the step stands for.
    pub origin: StepOrigin,
    /// When the step's criterion is decided.
    pub timing: Timing,
    /// Formal criterion; `None` means trivially true.
    pub check: Option<CheckId>,
    /// Whether a judge must also confirm this step.
    pub semantic: bool,
    /// Variables this step binds from its call (when `timing` is a call or result).
    pub binds: Vec<VarId>,
    /// The mutating tool this step authorizes.
    pub authorizes: Option<Symbol>,
}

impl Step {
    /// The variables the step binds, as a bit mask.
    pub fn bind_mask(&self) -> u32 {
        self.binds.iter().fold(0u32, |m, v| m | v.mask())
    }

    /// The variables its check reads but does not bind: a request must have
    /// bound them all for the step to be satisfiable.
    pub fn key_mask(&self, encoded: &crate::encode::Encoded) -> u32 {
        self.check.map(|c| encoded.mask(c)).unwrap_or(0) & !self.bind_mask()
    }
}

/// A read the bundle protects: an agent's call of `tool` is allowed only
/// when some request has satisfied one of the `after` steps at or before
/// the call, and `guard` holds at the call under that request's bindings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Protection {
    /// The protected read tool.
    pub tool: Symbol,
    /// The identification steps, any one of which opens the read (the
    /// entry step when the guard alone decides).
    pub after: Vec<StepId>,
    /// What must hold at the call, over the facts read, its arguments and
    /// the identifying request's bindings.
    pub guard: Option<CheckId>,
}

/// The workflow and every check, as the evaluator consumes them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompiledChecks {
    /// Every check the steps refer to.
    pub checks: CheckSet,
    /// The steps; a node's step id is its graph index.
    pub steps: Vec<Step>,
    /// The step graph's edges.
    pub edges: Vec<(StepId, StepId)>,
    /// Where every request starts.
    pub entry: StepId,
    /// Number of request variables (`$user`, `$order`, ...).
    pub vars: u32,
    /// Agent-side mutating tools: every call of one must be authorized.
    pub gated_tools: Vec<Symbol>,
    /// Which conditions of a write are the user's consent.
    #[serde(default)]
    pub consent: ConsentSpec,
    /// Protected reads: every agent call of their tools must be permitted.
    #[serde(default)]
    pub protections: Vec<Protection>,
}

impl CompiledChecks {
    /// The step `id`.
    pub fn step(&self, id: StepId) -> Option<&Step> {
        self.steps.get(id.0 as usize)
    }
}
