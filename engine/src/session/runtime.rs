//! What every session of one bundle shares, computed once: the monitor plan
//! (with remediation placeholders encoded as operands), and per step its node,
//! its judge question, its remediation template, its depth and whether it is
//! an exit.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use petgraph::visit::EdgeRef;
use turnstile_rules::{CompiledChecks, OperandId, Plan, Reads};
use turnstile_rules::{EvaluateError, StepId, StepOrigin, Symbol};

use turnstile_judge::Role;

use crate::bundle::model::{Actor, JudgeWindow, NodeKind};
use crate::compile::CompiledBundle;
use crate::fsm::{Edge, NodeIdx, TemplatePiece};

/// A remediation template with its placeholders as monitor operands.
#[derive(Clone, Debug)]
pub enum RemedyPiece {
    Text(String),
    /// Encoded operand node, and the placeholder's source text (for "unknown").
    Value(OperandId, String),
}

/// Where a semantic step's question comes from.
#[derive(Clone, Debug)]
pub enum Asked {
    /// A yes/no criterion of a node.
    Criterion {
        text: String,
        keywords: Vec<String>,
        /// Whose turns the keywords are looked for in.
        said_by: Role,
        window: JudgeWindow,
    },
    /// One branch of a decision: asked together with its sibling branches.
    Branch {
        decision: NodeIdx,
        label: String,
        description: String,
        keywords: Vec<String>,
        /// The words of the actions only this branch leads to
        /// ([`branch_actions`]).
        actions: Vec<String>,
    },
}

#[derive(Clone, Debug)]
pub struct StepInfo {
    /// The node the step belongs to (for a branch, its decision).
    pub node: NodeIdx,
    pub asked: Option<Asked>,
    pub remediation: Option<Vec<RemedyPiece>>,
    /// What of the monitor's state the remediation's placeholders read: a
    /// cached rendering stays valid while that part does not change.
    pub remedy_reads: Reads,
    /// Whether the remediation has a placeholder at all (one without a
    /// value reads the type errors to say why).
    pub remedy_values: bool,
    pub depth: u32,
    pub is_exit: bool,
}

/// Shared, immutable per-bundle runtime data.
#[derive(Debug)]
pub struct BundleRuntime {
    /// The compiled bundle.
    pub bundle: Arc<CompiledBundle>,
    /// The monitor plan, with remediation placeholders encoded.
    pub plan: Arc<Plan>,
    /// Per step: its node, question, remediation, depth and whether it is an exit.
    pub steps: Vec<StepInfo>,
    /// Who the conversation is with ([`crate::extract::principal_mask`]);
    /// the other variables are what a request is about.
    pub(crate) principal_mask: u32,
    /// Whether any step is decided by a judge: sessions render their events
    /// for it only then.
    pub(crate) asks_judge: bool,
    /// Per gated tool: the steps on a path to one of its authorizations
    /// (the authorizations included). A write asks the judge only about
    /// these: no answer about another step can change its decision.
    pub(crate) on_path: HashMap<Symbol, BTreeSet<StepId>>,
    /// Per step: whether another semantic step can follow it. Only the
    /// answers about such steps can raise a next question, so a session
    /// looks ahead only from them.
    pub(crate) opens_semantic: Vec<bool>,
    /// The terminal exit steps (`StepInfo::is_exit`): a request with
    /// evidence at one is finished.
    pub(crate) exits: Vec<StepId>,
    /// Every step: what an eager session ([`super::Session::judge_eagerly`])
    /// asks about.
    pub(crate) every_step: BTreeSet<StepId>,
    /// Per gated tool with a consent condition on its path: the workflow
    /// with that consent taken as given (`ConsentSpec::granted`), and its
    /// plan. A blocked write its plan allows fails on consent alone.
    pub(crate) granted: HashMap<Symbol, Granted>,
    /// Per protected read tool: its protection's remediation.
    pub(crate) read_remedies: HashMap<String, Vec<RemedyPiece>>,
}

/// The workflow with the consent of one tool's writes taken as given.
#[derive(Debug)]
pub(crate) struct Granted {
    /// For the reference (Datalog) evaluator.
    pub checks: CompiledChecks,
    /// For the monitor.
    pub plan: Arc<Plan>,
}

/// A remediation template with its placeholders encoded in `plan`, so the
/// monitor can evaluate them.
fn remedy_pieces(
    template: &crate::fsm::Template,
    plan: &mut Plan,
    bundle: &CompiledBundle,
) -> Vec<RemedyPiece> {
    template
        .pieces
        .iter()
        .map(|p| match p {
            TemplatePiece::Text(text) => RemedyPiece::Text(text.clone()),
            TemplatePiece::Value { operand, text } => {
                RemedyPiece::Value(plan.add_operand(operand, &bundle.arg_paths), text.clone())
            }
        })
        .collect()
}

impl BundleRuntime {
    /// Precomputes the runtime of `bundle`.
    pub fn new(bundle: Arc<CompiledBundle>) -> Result<Arc<BundleRuntime>, EvaluateError> {
        let mut plan = Plan::new(&bundle.program, &bundle.arg_paths)?;
        let graph = &bundle.workflow.graph;
        let depth = turnstile_rules::step_depths(&bundle.program);
        let mut steps = Vec::with_capacity(bundle.program.steps.len());
        for (i, step) in bundle.program.steps.iter().enumerate() {
            let node = match &step.origin {
                StepOrigin::Node => NodeIdx::new(i),
                StepOrigin::Branch { decision, .. } => NodeIdx::new(decision.0 as usize),
            };
            let is_node = step.origin == StepOrigin::Node;
            let Some(node_data) = graph.node_weight(node) else {
                return Err(EvaluateError::StepWithoutNode(step.name.clone()));
            };
            let asked = if !step.semantic {
                None
            } else if is_node {
                let criterion = &node_data.criterion;
                let said_by = match node_data.actor {
                    Actor::Agent => Role::Agent,
                    _ => Role::User,
                };
                criterion.judge.clone().map(|text| Asked::Criterion {
                    text,
                    keywords: criterion.keywords.clone(),
                    said_by,
                    window: criterion.window,
                })
            } else {
                branch_question(&bundle, i)
            };
            let remediation = node_data
                .remediation
                .as_ref()
                .map(|t| remedy_pieces(t, &mut plan, &bundle));
            let pieces: &[RemedyPiece] = remediation.as_deref().unwrap_or_default();
            let placeholders = || {
                pieces.iter().filter_map(|piece| match piece {
                    RemedyPiece::Value(operand, _) => Some(*operand),
                    RemedyPiece::Text(_) => None,
                })
            };
            let remedy_reads = placeholders()
                .map(|o| plan.operand_reads(o.0))
                .fold(Reads::default(), Reads::union);
            let remedy_values = placeholders().next().is_some();
            steps.push(StepInfo {
                node,
                asked,
                remediation,
                remedy_reads,
                remedy_values,
                depth: depth.get(i).copied().unwrap_or(u32::MAX),
                // Subflow exits return to their caller; only terminal exits end a request.
                is_exit: is_node
                    && node_data.kind == NodeKind::Exit
                    && !bundle.program.edges.iter().any(|(a, _)| a.0 as usize == i),
            });
        }
        let on_path: HashMap<Symbol, BTreeSet<StepId>> = plan
            .auth_steps
            .iter()
            .map(|(tool, auths)| {
                let steps = auths
                    .iter()
                    .flat_map(|a| {
                        let reaching = plan.reaching.get(a).map_or(&[][..], Vec::as_slice);
                        std::iter::once(a).chain(reaching)
                    })
                    .map(|&s| StepId(s))
                    .collect();
                (*tool, steps)
            })
            .collect();
        let opens_semantic = (0..plan.steps.len())
            .map(|from| semantic_after(&plan, from))
            .collect();
        let every_step = (0..plan.steps.len())
            .filter_map(|i| u32::try_from(i).ok().map(StepId))
            .collect();
        let exits = steps
            .iter()
            .enumerate()
            .filter(|(_, info)| info.is_exit)
            .filter_map(|(i, _)| u32::try_from(i).ok().map(StepId))
            .collect();
        let read_remedies = bundle
            .protected_reads
            .iter()
            .map(|p| {
                (
                    p.tool.clone(),
                    remedy_pieces(&p.remediation, &mut plan, &bundle),
                )
            })
            .collect();
        let granted = granted_workflows(&bundle, &on_path)?;
        Ok(Arc::new(BundleRuntime {
            granted,
            read_remedies,
            every_step,
            exits,
            opens_semantic,
            on_path,
            plan: Arc::new(plan),
            principal_mask: crate::extract::principal_mask(&bundle),
            asks_judge: steps.iter().any(|s| s.asked.is_some()),
            bundle,
            steps,
        }))
    }

    /// What is known about `step`.
    pub fn step(&self, step: StepId) -> Option<&StepInfo> {
        self.steps.get(step.0 as usize)
    }

    /// Whether a person's approval of a call settles the judged `step`
    /// when the judge could not: a consent step, or a branch of a
    /// classifier (what the user asks for). Approving a call says the
    /// user wants it; it settles no reason they gave and no fact.
    pub fn approval_settles(&self, step: StepId) -> bool {
        if self.bundle.program.consent.is_step(step) {
            return true;
        }
        match self.step(step).and_then(|info| info.asked.as_ref()) {
            Some(Asked::Branch { decision, .. }) => self
                .bundle
                .workflow
                .graph
                .node_weight(*decision)
                .is_some_and(|node| node.classifier),
            _ => false,
        }
    }

    /// The display name of `step`.
    pub fn step_name(&self, step: StepId) -> &str {
        self.bundle.step_name(step)
    }
}

/// Whether a semantic step is reachable from step `from` along one or more
/// edges.
fn semantic_after(plan: &Plan, from: usize) -> bool {
    let mut seen = vec![false; plan.steps.len()];
    let mut stack: Vec<u32> = plan
        .steps
        .get(from)
        .map(|s| s.succs.clone())
        .unwrap_or_default();
    while let Some(next) = stack.pop() {
        let Some(step) = plan.steps.get(next as usize) else {
            continue;
        };
        if step.semantic {
            return true;
        }
        if let Some(slot) = seen.get_mut(next as usize)
            && !*slot
        {
            *slot = true;
            stack.extend(&step.succs);
        }
    }
    false
}

fn edge_of_branch(bundle: &CompiledBundle, step: usize) -> Option<usize> {
    bundle
        .branch_steps
        .iter()
        .find(|(_, s)| s.0 as usize == step)
        .map(|(e, _)| *e)
}

fn branch_question(bundle: &CompiledBundle, step: usize) -> Option<Asked> {
    let edge = edge_of_branch(bundle, step)?;
    let graph = &bundle.workflow.graph;
    let e = graph.edge_references().find(|e| e.id().index() == edge)?;
    match e.weight() {
        Edge::Branch {
            label,
            judge: Some(judge),
            keywords,
            ..
        } => Some(Asked::Branch {
            decision: e.source(),
            label: label.clone(),
            description: judge.clone(),
            keywords: keywords.clone(),
            actions: branch_actions(bundle, e.source(), e.target()),
        }),
        _ => None,
    }
}

/// The action words of the agent writes a branch of the classifier
/// `decision` into `target` leads to, and none of its sibling branches
/// does: the writes whose authorizations are reachable from `target`
/// without passing through `decision` again. A user who said yes to a
/// request for a decision on one of these actions asked for this branch; a
/// write every branch leads to (a hand-over) tells no branch apart. Another
/// judged decision (was the flight delayed or cancelled?) asks about a
/// fact, which no yes to an action answers: its branches have none.
fn branch_actions(bundle: &CompiledBundle, decision: NodeIdx, target: NodeIdx) -> Vec<String> {
    let graph = &bundle.workflow.graph;
    if !graph
        .node_weight(decision)
        .is_some_and(|node| node.classifier)
    {
        return Vec::new();
    }
    let writes_from = |start: NodeIdx| -> BTreeSet<&str> {
        let mut seen = vec![false; graph.node_count()];
        let mut stack = vec![start];
        let mut tools = BTreeSet::new();
        while let Some(node) = stack.pop() {
            if node == decision {
                continue;
            }
            let Some(slot) = seen.get_mut(node.index()) else {
                continue;
            };
            if *slot {
                continue;
            }
            *slot = true;
            if let Some(weight) = graph.node_weight(node)
                && weight.kind == NodeKind::ToolAuthorization
                && let Some(tool) = weight.tool.as_deref()
            {
                tools.insert(tool);
            }
            stack.extend(graph.neighbors(node));
        }
        tools
    };
    let siblings: Vec<BTreeSet<&str>> = graph
        .edges(decision)
        .filter(|e| e.target() != target && matches!(e.weight(), Edge::Branch { .. }))
        .map(|e| writes_from(e.target()))
        .collect();
    let mut words: Vec<String> = writes_from(target)
        .into_iter()
        .filter(|tool| !siblings.iter().all(|other| other.contains(tool)) || siblings.is_empty())
        .filter_map(|tool| bundle.domain.tool(tool))
        .flat_map(|tool| tool.actions.iter().cloned())
        .collect();
    words.sort();
    words.dedup();
    words
}

/// Per gated tool whose path has a consent condition (a consent step on the
/// way to it, or action words of its own): its workflow with that consent
/// granted.
fn granted_workflows(
    bundle: &CompiledBundle,
    on_path: &HashMap<Symbol, BTreeSet<StepId>>,
) -> Result<HashMap<Symbol, Granted>, EvaluateError> {
    let consent = &bundle.program.consent;
    let mut granted = HashMap::new();
    for &tool in &bundle.program.gated_tools {
        let has_step = on_path
            .get(&tool)
            .is_some_and(|steps| steps.iter().any(|s| consent.is_step(*s)));
        if !has_step && consent.words(tool).is_empty() {
            continue;
        }
        let checks = consent.granted(&bundle.program, tool);
        let plan = Arc::new(Plan::new(&checks, &bundle.arg_paths)?);
        granted.insert(tool, Granted { checks, plan });
    }
    Ok(granted)
}
