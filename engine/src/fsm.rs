//! The compiled workflow: a flat, typed finite-state machine over petgraph with
//! `u32` indices. Subflows are already inlined (ids prefixed with the invoking
//! node's id) and every expression is lowered to the rules IR.

use std::collections::BTreeMap;

use petgraph::graph::{DiGraph, NodeIndex};
use serde::Serialize;
use turnstile_rules::{ArgPath, CheckId, Operand, VarId};

use crate::bundle::model::{Actor, ExitOutcome, JudgeWindow, NodeKind};
use crate::schema::JsonPath;

pub type NodeIdx = NodeIndex<u32>;

/// What must hold for a node to be satisfied: a formal check, a question for
/// the judge, or both (both must then hold).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Criterion {
    pub check: Option<CheckId>,
    pub judge: Option<String>,
    /// Phrases of the user's messages that establish `judge` (offline judge).
    pub keywords: Vec<String>,
    /// What the judge sees of the conversation.
    pub window: JudgeWindow,
}

/// Where a request variable's value comes from when its node's call happens.
#[derive(Debug, Clone, Serialize)]
pub enum BindSource {
    Arg(ArgPath),
    Result(JsonPath),
}

#[derive(Debug, Clone, Serialize)]
pub struct Binding {
    pub var: VarId,
    pub source: BindSource,
}

#[derive(Debug, Clone, Serialize)]
pub enum TemplatePiece {
    Text(String),
    /// A placeholder: its operand and its source text (without braces).
    Value {
        operand: Operand,
        text: String,
    },
}

/// A remediation message with typed placeholders.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Template {
    pub source: String,
    pub pieces: Vec<TemplatePiece>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Node {
    /// Qualified id, e.g. `cancel.authorize_cancel`.
    pub id: String,
    pub kind: NodeKind,
    pub actor: Actor,
    /// The flow that defined the node.
    pub flow: String,
    pub expect: Option<String>,
    pub criterion: Criterion,
    pub remediation: Option<Template>,
    pub cites: Vec<String>,
    pub tool: Option<String>,
    pub guard: Option<CheckId>,
    pub binds: Vec<Binding>,
    pub outcome: Option<ExitOutcome>,
    pub classifier: bool,
    /// `file:line` of the node's definition.
    pub origin: String,
}

#[derive(Debug, Clone, Serialize)]
pub enum Edge {
    /// Taken once the source node is satisfied.
    Next,
    /// A decision branch with its own guard.
    Branch {
        label: String,
        check: Option<CheckId>,
        judge: Option<String>,
        otherwise: bool,
        keywords: Vec<String>,
    },
}

impl Edge {
    pub fn label(&self) -> Option<&str> {
        match self {
            Edge::Next => None,
            Edge::Branch { label, .. } => Some(label),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Workflow {
    pub graph: DiGraph<Node, Edge, u32>,
    pub entry: NodeIdx,
    pub index: BTreeMap<String, NodeIdx>,
}

impl Workflow {
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.index.get(id).map(|&i| &self.graph[i])
    }

    pub fn authorization_of<'a>(&'a self, tool: &'a str) -> impl Iterator<Item = NodeIdx> + 'a {
        self.graph.node_indices().filter(move |&i| {
            let node = &self.graph[i];
            node.kind == NodeKind::ToolAuthorization && node.tool.as_deref() == Some(tool)
        })
    }
}
