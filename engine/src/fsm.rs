//! The compiled workflow: a flat, typed finite-state machine over petgraph with
//! `u32` indices. Subflows are already inlined (ids prefixed with the invoking
//! node's id) and every expression is lowered to the rules IR.

use std::collections::BTreeMap;

use petgraph::graph::{DiGraph, NodeIndex};
use serde::Serialize;
use turnstile_rules::{ArgPath, CheckId, Operand, VarId};

use crate::bundle::model::{Actor, ExitOutcome, JudgeWindow, NodeKind};
use crate::schema::JsonPath;

/// A node of [`Workflow::graph`]. Petgraph's index type is kept as is: it is
/// already distinct from every other integer and from edge indices, and the
/// graph is indexed with it directly.
pub type NodeIdx = NodeIndex<u32>;

/// What must hold for a node to be satisfied: a formal check, a question for
/// the judge, or both (both must then hold).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Criterion {
    /// The formal check, decided from trace facts.
    pub check: Option<CheckId>,
    /// The question put to the dialogue judge.
    pub judge: Option<String>,
    /// Phrases of the user's messages that establish `judge` (offline judge).
    pub keywords: Vec<String>,
    /// What the judge sees of the conversation.
    pub window: JudgeWindow,
}

/// Where a request variable's value comes from when its node's call happens.
#[derive(Debug, Clone, Serialize)]
pub enum BindSource {
    /// An argument of the call (`args.order_id`).
    Arg(ArgPath),
    /// A value in the call's result (`result.order_id`).
    Result(JsonPath),
    /// The composite id of a keyed entity made of the call's arguments
    /// (`flight_date[args.flight_number, args.date]`), each part typed by
    /// the entity's `key`.
    Key {
        /// The keyed entity.
        entity: String,
        /// One top-level argument per key part.
        args: Vec<String>,
    },
}

/// A node's `bind` entry: which request variable it sets, from where.
#[derive(Debug, Clone, Serialize)]
pub struct Binding {
    /// The request variable bound.
    pub var: VarId,
    /// Where its value comes from.
    pub source: BindSource,
}

/// One piece of a remediation [`Template`].
#[derive(Debug, Clone, Serialize)]
pub enum TemplatePiece {
    /// Literal text, shown as is.
    Text(String),
    /// A placeholder: its operand and its source text (without braces).
    Value {
        /// The value shown, evaluated against the facts so far.
        operand: Operand,
        /// The placeholder as written, shown when the value is unknown.
        text: String,
    },
}

/// A remediation message with typed placeholders.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Template {
    /// The template as written in the bundle.
    pub source: String,
    /// Text and placeholders, in order.
    pub pieces: Vec<TemplatePiece>,
}

/// One step of the procedure, as compiled.
#[derive(Debug, Clone, Serialize)]
pub struct Node {
    /// Qualified id, e.g. `cancel.authorize_cancel`.
    pub id: String,
    /// What kind of step this is (tool call, authorization, decision, ...).
    pub kind: NodeKind,
    /// Who acts in it: the agent, the user or the system.
    pub actor: Actor,
    /// The flow that defined the node.
    pub flow: String,
    /// What the step expects, in words (for people and remediation).
    pub expect: Option<String>,
    /// What must hold for the step to be satisfied.
    pub criterion: Criterion,
    /// What to tell the agent when the step is unmet.
    pub remediation: Option<Template>,
    /// The policy lines the step implements.
    pub cites: Vec<String>,
    /// The tool called or authorized, for tool nodes.
    pub tool: Option<String>,
    /// An authorization's condition on the call (arguments and state).
    pub guard: Option<CheckId>,
    /// Request variables the step's call binds.
    pub binds: Vec<Binding>,
    /// How the conversation ends, for exit nodes.
    pub outcome: Option<ExitOutcome>,
    /// A decision whose branches classify the request (judge-decided).
    pub classifier: bool,
    /// `file:line` of the node's definition.
    pub origin: String,
    /// The `check` and `guard` as written, for drawings and reports.
    pub source: NodeSource,
}

/// A node's expressions as the bundle author wrote them.
#[derive(Debug, Clone, Default, Serialize)]
pub struct NodeSource {
    /// The `check`, if any.
    pub check: Option<String>,
    /// The `guard`, if any.
    pub guard: Option<String>,
}

/// A transition of the workflow.
#[derive(Debug, Clone, Serialize)]
pub enum Edge {
    /// Taken once the source node is satisfied.
    Next,
    /// A decision branch with its own guard.
    Branch {
        /// The branch's label, unique within its decision.
        label: String,
        /// The formal guard.
        check: Option<CheckId>,
        /// The question for the judge, for a semantic guard.
        judge: Option<String>,
        /// Taken when no sibling's guard holds.
        otherwise: bool,
        /// Phrases establishing `judge` for the offline judge.
        keywords: Vec<String>,
        /// The formal guard as written, for drawings.
        check_source: Option<String>,
    },
}

impl Edge {
    /// The branch label; `None` for a plain `next` edge.
    pub fn label(&self) -> Option<&str> {
        match self {
            Edge::Next => None,
            Edge::Branch { label, .. } => Some(label),
        }
    }
}

/// The whole procedure: one flat graph, subflows inlined.
#[derive(Debug, Clone)]
pub struct Workflow {
    /// The nodes and transitions.
    pub graph: DiGraph<Node, Edge, u32>,
    /// The main flow's entry node.
    pub entry: NodeIdx,
    /// Every node by its qualified id.
    pub index: BTreeMap<String, NodeIdx>,
}

impl Workflow {
    /// The node with qualified id `id`.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.index.get(id).and_then(|&i| self.graph.node_weight(i))
    }

    /// The `tool_authorization` nodes that authorize calls of `tool`.
    pub fn authorization_of<'a>(&'a self, tool: &'a str) -> impl Iterator<Item = NodeIdx> + 'a {
        self.graph.node_indices().filter(move |&i| {
            self.graph.node_weight(i).is_some_and(|node| {
                node.kind == NodeKind::ToolAuthorization && node.tool.as_deref() == Some(tool)
            })
        })
    }
}
