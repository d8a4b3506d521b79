//! Lowers the compiled FSM to the evaluator's step graph: one step per node,
//! plus one per decision branch (whose guard becomes that step's criterion),
//! each with the timing at which its criterion is decided.

use std::collections::BTreeMap;

use petgraph::visit::EdgeRef;
use turnstile_rules::{
    Check, CheckSet, CompiledChecks, ConsentSpec, Interner, Step, StepId, StepOrigin, Timing,
};

use super::CompiledBundle;
use crate::bundle::model::{Actor, NodeKind, Side};
use crate::fsm::{Binding, Edge, NodeIdx, Workflow};
use crate::schema::Domain;

/// The step graph plus what fact extraction needs per step.
pub(crate) struct Steps {
    pub program: CompiledChecks,
    /// Binding sources of each step, by step index.
    pub binds: Vec<Vec<Binding>>,
    /// The step of each decision branch, by graph edge index.
    pub branch_steps: BTreeMap<usize, StepId>,
}

/// Lowers `workflow` to the step graph: steps in node order, then one per decision branch.
pub(crate) fn lower_steps(
    workflow: &Workflow,
    mut checks: CheckSet,
    domain: &Domain,
    vars: usize,
) -> Steps {
    let graph = &workflow.graph;
    let tool_symbol = |name: &Option<String>| {
        name.as_deref()
            .and_then(|t| domain.tool(t))
            .map(|t| t.symbol)
    };
    let mut steps = Vec::new();
    let mut binds = Vec::new();
    for idx in graph.node_indices() {
        let node = &graph[idx];
        let tool = tool_symbol(&node.tool);
        let (timing, check) = match (node.kind, tool) {
            (NodeKind::ToolCall, Some(t)) => (Timing::Result(t), node.criterion.check),
            (NodeKind::ToolAuthorization, Some(t)) => (Timing::Call(t), node.guard),
            _ => (Timing::State, node.criterion.check),
        };
        steps.push(Step {
            name: node.id.clone(),
            origin: StepOrigin::Node,
            timing,
            check,
            semantic: node.criterion.judge.is_some(),
            binds: node.binds.iter().map(|b| b.var).collect(),
            authorizes: if node.kind == NodeKind::ToolAuthorization {
                tool
            } else {
                None
            },
        });
        binds.push(node.binds.clone());
    }
    let mut edges = Vec::new();
    let mut branch_steps = BTreeMap::new();
    for source in graph.node_indices() {
        let outgoing: Vec<_> = graph.edges(source).collect();
        let formal_guards: Vec<Check> = outgoing
            .iter()
            .filter_map(|e| match e.weight() {
                Edge::Branch { check: Some(c), .. } => checks.get(*c).cloned(),
                _ => None,
            })
            .collect();
        let all_formal = outgoing.iter().all(|e| match e.weight() {
            Edge::Branch {
                check, otherwise, ..
            } => check.is_some() || *otherwise,
            Edge::Next => true,
        });
        for edge in outgoing {
            let (from, to) = (
                step_id(edge.source().index()),
                step_id(edge.target().index()),
            );
            match edge.weight() {
                Edge::Next => edges.push((from, to)),
                Edge::Branch {
                    label,
                    check,
                    judge,
                    otherwise,
                    ..
                } => {
                    let check = match (*otherwise, check) {
                        // `otherwise` holds exactly when no formal sibling does;
                        // with semantic siblings the judge decides, so it is free.
                        (true, _) if all_formal => Some(
                            checks.push(Check::Not(Box::new(Check::Any(formal_guards.clone())))),
                        ),
                        (_, c) => *c,
                    };
                    let branch = step_id(steps.len());
                    steps.push(Step {
                        name: format!("{}[{label}]", graph[edge.source()].id),
                        origin: StepOrigin::Branch {
                            decision: from,
                            label: label.clone(),
                        },
                        timing: Timing::State,
                        check,
                        semantic: judge.is_some(),
                        binds: Vec::new(),
                        authorizes: None,
                    });
                    binds.push(Vec::new());
                    branch_steps.insert(edge.id().index(), branch);
                    edges.push((from, branch));
                    edges.push((branch, to));
                }
            }
        }
    }
    // Every agent write, and any other agent tool the bundle chose to gate
    // with a tool_authorization node (a transfer only on the user's request).
    let mut gated_tools: Vec<turnstile_rules::Symbol> = Vec::new();
    for symbol in domain.agent_writes().map(|t| t.symbol).chain(
        workflow
            .graph
            .node_weights()
            .filter(|n| n.kind == NodeKind::ToolAuthorization)
            .filter_map(|n| n.tool.as_deref())
            .filter_map(|name| domain.tool(name))
            .filter(|t| t.side == Side::Agent)
            .map(|t| t.symbol),
    ) {
        if !gated_tools.contains(&symbol) {
            gated_tools.push(symbol);
        }
    }
    Steps {
        program: CompiledChecks {
            checks,
            steps,
            edges,
            entry: step_id(workflow.entry.index()),
            vars: u32::try_from(vars).unwrap_or(u32::MAX),
            gated_tools,
            consent: Default::default(),
            protections: Vec::new(),
        },
        binds,
        branch_steps,
    }
}

/// Which conditions of the bundle's writes are the user's consent: the
/// `user_input` steps whose judge criterion asks for the user's yes, and
/// per gated tool its declared action words (only those some check names:
/// a word no check interned cannot be a `confirmed(...)` operand).
pub(super) fn consent_spec(
    program: &CompiledChecks,
    workflow: &Workflow,
    domain: &Domain,
    interner: &Interner,
) -> ConsentSpec {
    let steps = program
        .steps
        .iter()
        .enumerate()
        .filter(|(_, step)| step.semantic && step.origin == StepOrigin::Node)
        .filter(|(i, _)| {
            workflow
                .graph
                .node_weight(NodeIdx::new(*i))
                .is_some_and(|node| {
                    node.kind == NodeKind::UserInput
                        && node.actor != Actor::Agent
                        && node
                            .criterion
                            .judge
                            .as_deref()
                            .is_some_and(turnstile_judge::is_consent_criterion)
                })
        })
        .map(|(i, _)| step_id(i))
        .collect();
    let actions = program
        .gated_tools
        .iter()
        .filter_map(|&symbol| {
            let tool = domain.tools.values().find(|t| t.symbol == symbol)?;
            let words: Vec<_> = tool
                .actions
                .iter()
                .filter_map(|w| interner.get(w))
                .collect();
            (!words.is_empty()).then_some((symbol, words))
        })
        .collect();
    ConsentSpec { steps, actions }
}

fn step_id(i: usize) -> StepId {
    StepId(u32::try_from(i).unwrap_or(u32::MAX))
}

impl CompiledBundle {
    /// The step of node `id` (a qualified id such as `cancel.authorize`).
    pub fn step(&self, id: &str) -> Option<StepId> {
        self.workflow
            .index
            .get(id)
            .and_then(|i| u32::try_from(i.index()).ok())
            .map(StepId)
    }

    /// The step of decision `node`'s branch `label`.
    pub fn branch_step(&self, node: &str, label: &str) -> Option<StepId> {
        let decision = self.step(node)?;
        self.program
            .steps
            .iter()
            .position(|s| match &s.origin {
                StepOrigin::Branch {
                    decision: d,
                    label: l,
                } => *d == decision && l == label,
                StepOrigin::Node => false,
            })
            .and_then(|i| u32::try_from(i).ok())
            .map(StepId)
    }

    /// The display name of `step` (`?` for an unknown step).
    pub fn step_name(&self, step: StepId) -> &str {
        self.program.step(step).map_or("?", |s| s.name.as_str())
    }
}
