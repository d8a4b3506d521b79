//! Lowers the flows of a bundle into one FSM: collects flows and request
//! variables, expands the main flow, inlines subflows with ids prefixed by the
//! invoking node (`cancel.authorize`), and connects `next` edges and decision
//! branches. Each node itself is lowered by `compile::nodes`.

use std::collections::{BTreeMap, BTreeSet};

use petgraph::graph::DiGraph;
use turnstile_rules::{Check, CheckSet, VarId};

use crate::bundle::LoadedBundle;
use crate::bundle::model::{ExitOutcome, FlowDef, NodeDef, NodeKind, Sp};
use crate::compile::{Ctx, SemanticCriterion, Variable};
use crate::diag::{ProblemKind, RawProblem, name_hint};
use crate::fsm::{Edge, Node, NodeIdx, Workflow};
use crate::schema::Domain;
use crate::source::{FileId, Loc};

/// The result of lowering, before graph validation.
pub(crate) struct Lowered {
    /// The flat FSM.
    pub workflow: Workflow,
    /// Every check lowered so far, referenced by id from the graph.
    pub checks: CheckSet,
    /// Request variables, in `VarId` order.
    pub variables: Vec<Variable>,
    /// Every question for the judge.
    pub semantic: Vec<SemanticCriterion>,
    /// Where each graph node is defined, in node index order.
    pub sites: Vec<Loc>,
    /// For each decision node: its branches' lowered checks.
    pub decisions: Vec<(NodeIdx, Vec<BranchInfo>)>,
    /// Nodes with an outgoing reference already reported (an unknown or
    /// missing `next`, branch target or subflow): reachability treats them
    /// as leading anywhere in their flow, so the cut is reported only once.
    pub dangling: BTreeSet<NodeIdx>,
    /// Nodes whose tool or expressions already have a problem reported:
    /// graph rules that depend on them are not checked again.
    pub broken: BTreeSet<NodeIdx>,
}

impl Lowered {
    /// Where graph node `idx` is defined.
    pub fn site(&self, idx: NodeIdx) -> Option<Loc> {
        self.sites.get(idx.index()).copied()
    }
}

/// A decision branch as validation needs it: its label, lowered guard and
/// where it is written.
pub(crate) struct BranchInfo {
    /// The branch label.
    pub label: String,
    /// The lowered formal guard, for completeness and overlap checks.
    pub check: Option<Check>,
    /// Whether the judge decides the branch.
    pub has_judge: bool,
    /// Whether the branch is the fallback.
    pub otherwise: bool,
    /// Where the label is written.
    pub loc: Loc,
}

/// Lowers every flow of `bundle` into one FSM, starting at the main flow; `None` when there is
/// no main flow to expand.
pub(crate) fn lower_flows(
    ctx: &mut Ctx<'_>,
    domain: &Domain,
    bundle: &LoadedBundle,
) -> Option<Lowered> {
    let mut flows: BTreeMap<String, (FileId, &FlowDef)> = BTreeMap::new();
    for (file, flow) in &bundle.flows {
        let name = flow.flow.value();
        if flows.contains_key(name) {
            ctx.report(RawProblem::new(
                ProblemKind::DuplicateId,
                Some(flow.flow.loc(*file)),
                format!("flow `{name}` is defined twice"),
            ));
            continue;
        }
        flows.insert(name.clone(), (*file, flow));
    }
    let vars = collect_vars(ctx, domain, &flows);
    let (manifest_file, manifest) = &bundle.manifest;
    let main = manifest.main.value();
    if !flows.contains_key(main) {
        let known = flows.keys().cloned().collect::<Vec<_>>().join(", ");
        ctx.report(
            RawProblem::new(
                ProblemKind::UnknownFlow,
                Some(manifest.main.loc(*manifest_file)),
                format!("main flow `{main}` is not defined"),
            )
            .help(name_hint(main, known.split(", "), "defined flows")),
        );
        return None;
    }
    let mut builder = Builder {
        ctx,
        domain,
        flows,
        vars,
        visible: BTreeMap::new(),
        current_flow: String::new(),
        graph: DiGraph::default(),
        index: BTreeMap::new(),
        checks: CheckSet::default(),
        semantic: Vec::new(),
        sites: Vec::new(),
        decisions: Vec::new(),
        dangling: BTreeSet::new(),
        broken: BTreeSet::new(),
    };
    let mut stack = vec![main.clone()];
    let (entry, returns) = builder.expand(main, "", &mut stack)?;
    for ret in returns {
        let loc = builder.sites.get(ret.index()).copied();
        builder.ctx.report(
            RawProblem::new(
                ProblemKind::MisplacedReturn,
                loc,
                "an exit with `outcome: return` in the main flow has nowhere to return to",
            )
            .help("use normal, general, transfer or refuse in the main flow"),
        );
    }
    let mut variables: Vec<(VarId, Variable)> = builder
        .vars
        .iter()
        .map(|(name, (id, entity))| {
            (
                *id,
                Variable {
                    name: name.clone(),
                    entity: entity.clone(),
                },
            )
        })
        .collect();
    variables.sort_by_key(|(id, _)| *id);
    Some(Lowered {
        workflow: Workflow {
            graph: builder.graph,
            entry,
            index: builder.index,
        },
        checks: builder.checks,
        variables: variables.into_iter().map(|(_, v)| v).collect(),
        semantic: builder.semantic,
        sites: builder.sites,
        decisions: builder.decisions,
        dangling: builder.dangling,
        broken: builder.broken,
    })
}

fn collect_vars(
    ctx: &mut Ctx<'_>,
    domain: &Domain,
    flows: &BTreeMap<String, (FileId, &FlowDef)>,
) -> BTreeMap<String, (VarId, String)> {
    let mut vars: BTreeMap<String, (VarId, String)> = BTreeMap::new();
    for (file, flow) in flows.values() {
        for (name, entity) in &flow.vars {
            if !domain.entities.contains_key(entity.value()) {
                ctx.report(RawProblem::new(
                    ProblemKind::UnknownEntity,
                    Some(entity.loc(*file)),
                    format!(
                        "variable `${name}` refers to unknown entity `{}`",
                        entity.value()
                    ),
                ));
                continue;
            }
            match vars.get(name) {
                Some((_, existing)) if existing != entity.value() => ctx.report(RawProblem::new(
                    ProblemKind::DuplicateId,
                    Some(entity.loc(*file)),
                    format!(
                        "variable `${name}` is declared as `{existing}` elsewhere and `{}` here",
                        entity.value()
                    ),
                )),
                Some(_) => {}
                None => {
                    let id = VarId(u32::try_from(vars.len()).unwrap_or(u32::MAX));
                    vars.insert(name.clone(), (id, entity.value().clone()));
                }
            }
        }
    }
    vars
}

/// The FSM under construction while the main flow is expanded; `nodes` adds
/// the nodes, this module the flow structure.
pub(super) struct Builder<'c, 'a, 'd> {
    /// Interner and problem list.
    pub(super) ctx: &'c mut Ctx<'a>,
    /// The compiled domain, for names and types.
    pub(super) domain: &'d Domain,
    flows: BTreeMap<String, (FileId, &'d FlowDef)>,
    /// Request variables by name: their id and entity.
    pub(super) vars: BTreeMap<String, (VarId, String)>,
    /// The variables the flow being expanded may use: those it declares and
    /// those of every flow that invokes it.
    pub(super) visible: BTreeMap<String, (VarId, String)>,
    /// The flow being expanded.
    pub(super) current_flow: String,
    /// The graph built so far.
    pub(super) graph: DiGraph<Node, Edge, u32>,
    /// Nodes by qualified id.
    pub(super) index: BTreeMap<String, NodeIdx>,
    /// Checks lowered so far.
    pub(super) checks: CheckSet,
    /// Questions for the judge found so far.
    pub(super) semantic: Vec<SemanticCriterion>,
    /// Where each graph node is defined, in node index order.
    pub(super) sites: Vec<Loc>,
    decisions: Vec<(NodeIdx, Vec<BranchInfo>)>,
    dangling: BTreeSet<NodeIdx>,
    pub(super) broken: BTreeSet<NodeIdx>,
}

impl<'d> Builder<'_, '_, 'd> {
    /// Adds `flow`'s nodes under `prefix`; returns its entry and its
    /// `return` exits.
    fn expand(
        &mut self,
        flow: &str,
        prefix: &str,
        stack: &mut Vec<String>,
    ) -> Option<(NodeIdx, Vec<NodeIdx>)> {
        let (file, def) = *self.flows.get(flow)?;
        let visible = self.visible_in(stack);
        let outer_visible = std::mem::replace(&mut self.visible, visible);
        let outer_flow = std::mem::replace(&mut self.current_flow, flow.to_owned());
        let expanded = self.expand_nodes(flow, file, def, prefix, stack);
        self.visible = outer_visible;
        self.current_flow = outer_flow;
        expanded
    }

    /// The variables declared by the flows of `stack` (the flow being
    /// expanded and every flow that invokes it).
    fn visible_in(&self, stack: &[String]) -> BTreeMap<String, (VarId, String)> {
        stack
            .iter()
            .filter_map(|name| self.flows.get(name))
            .flat_map(|(_, def)| def.vars.keys())
            .filter_map(|name| Some((name.clone(), self.vars.get(name)?.clone())))
            .collect()
    }

    /// The flows that declare variable `name`.
    pub(super) fn declaring_flows(&self, name: &str) -> Vec<&str> {
        self.flows
            .iter()
            .filter(|(_, (_, def))| def.vars.contains_key(name))
            .map(|(flow, _)| flow.as_str())
            .collect()
    }

    fn expand_nodes(
        &mut self,
        flow: &str,
        file: FileId,
        def: &'d FlowDef,
        prefix: &str,
        stack: &mut Vec<String>,
    ) -> Option<(NodeIdx, Vec<NodeIdx>)> {
        let mut local: BTreeMap<&str, NodeIdx> = BTreeMap::new();
        let mut entries = Vec::new();
        let mut returns = Vec::new();
        for node in &def.nodes {
            let id = node.id.value().as_str();
            if local.contains_key(id) {
                self.ctx.report(
                    RawProblem::new(
                        ProblemKind::DuplicateId,
                        Some(node.id.loc(file)),
                        format!("node id `{id}` is used twice in flow `{flow}`"),
                    )
                    .label("second use"),
                );
                continue;
            }
            let idx = self.add_node(node, file, flow, prefix);
            local.insert(id, idx);
            match node.kind.value() {
                NodeKind::Entry => entries.push(idx),
                NodeKind::Exit
                    if node.outcome.as_ref().map(|o| *o.value()) == Some(ExitOutcome::Return) =>
                {
                    returns.push(idx)
                }
                _ => {}
            }
        }
        if entries.len() != 1 {
            self.ctx.report(
                RawProblem::new(
                    ProblemKind::EntryCount,
                    Some(def.flow.loc(file)),
                    format!(
                        "flow `{flow}` has {} entry nodes; it needs exactly one",
                        entries.len()
                    ),
                )
                .help("add one node with `type: entry`"),
            );
        }
        for node in &def.nodes {
            let Some(&idx) = local.get(node.id.value().as_str()) else {
                continue;
            };
            self.connect(node, idx, file, flow, prefix, &local, stack);
        }
        Some((*entries.first()?, returns))
    }

    #[allow(clippy::too_many_arguments)]
    fn connect(
        &mut self,
        node: &NodeDef,
        idx: NodeIdx,
        file: FileId,
        flow: &str,
        prefix: &str,
        local: &BTreeMap<&str, NodeIdx>,
        stack: &mut Vec<String>,
    ) {
        let next = node
            .next
            .as_ref()
            .and_then(|n| self.resolve(local, n, file, flow));
        if *node.kind.value() == NodeKind::Subflow {
            let Some(sub) = &node.flow else { return };
            let name = sub.value();
            if !self.flows.contains_key(name) {
                let known = self.flows.keys().cloned().collect::<Vec<_>>().join(", ");
                self.ctx.report(
                    RawProblem::new(
                        ProblemKind::UnknownFlow,
                        Some(sub.loc(file)),
                        format!("unknown flow `{name}`"),
                    )
                    .help(name_hint(name, known.split(", "), "defined flows")),
                );
                self.dangling.insert(idx);
                return;
            }
            if stack.contains(name) {
                let chain = stack
                    .iter()
                    .chain(std::iter::once(name))
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" -> ");
                self.ctx.report(
                    RawProblem::new(
                        ProblemKind::SubflowCycle,
                        Some(sub.loc(file)),
                        format!("subflow cycle: {chain}"),
                    )
                    .help("a flow cannot invoke itself, directly or through other flows"),
                );
                self.dangling.insert(idx);
                return;
            }
            stack.push(name.clone());
            let sub_prefix = format!("{prefix}{}.", node.id.value());
            let expanded = self.expand(name, &sub_prefix, stack);
            stack.pop();
            let Some((entry, returns)) = expanded else {
                self.dangling.insert(idx);
                return;
            };
            self.graph.add_edge(idx, entry, Edge::Next);
            if let Some(next) = next {
                for ret in returns {
                    self.graph.add_edge(ret, next, Edge::Next);
                }
            }
            return;
        }
        match next {
            Some(next) => {
                self.graph.add_edge(idx, next, Edge::Next);
            }
            // A missing or unknown `next` is reported once; the paths it
            // cuts are not reported again as unreachable or without exit.
            None if !matches!(node.kind.value(), NodeKind::Exit | NodeKind::Decision) => {
                self.dangling.insert(idx);
            }
            None => {}
        }
        let mut infos = Vec::new();
        // A branch whose target or guard is already reported makes the
        // decision's completeness unknowable: it is not checked.
        let mut broken = false;
        let reported_before = self.ctx.problems.len();
        for branch in &node.branches {
            let Some(to) = self.resolve(local, &branch.to, file, flow) else {
                self.dangling.insert(idx);
                broken = true;
                continue;
            };
            let tool = None;
            let check = branch
                .check
                .as_ref()
                .and_then(|c| self.lower_check_text(c, file, tool));
            broken |= branch.check.is_some() && check.is_none();
            let check_id = check.clone().map(|c| self.checks.push(c));
            let judge = branch.judge.as_ref().map(|j| j.value().clone());
            if let Some(question) = &judge {
                self.semantic.push(SemanticCriterion {
                    node: self.graph[idx].id.clone(),
                    branch: Some(branch.label.value().clone()),
                    question: question.clone(),
                });
            }
            infos.push(BranchInfo {
                label: branch.label.value().clone(),
                check,
                has_judge: judge.is_some(),
                otherwise: branch.otherwise,
                loc: branch.label.loc(file),
            });
            self.graph.add_edge(
                idx,
                to,
                Edge::Branch {
                    label: branch.label.value().clone(),
                    check: check_id,
                    judge,
                    otherwise: branch.otherwise,
                    keywords: branch.keywords.clone(),
                    check_source: branch.check.as_ref().map(|c| c.value().clone()),
                },
            );
        }
        self.explain_out_of_scope_variables(reported_before);
        if *node.kind.value() == NodeKind::Decision && !broken {
            self.decisions.push((idx, infos));
        }
    }

    fn resolve(
        &mut self,
        local: &BTreeMap<&str, NodeIdx>,
        target: &Sp<String>,
        file: FileId,
        flow: &str,
    ) -> Option<NodeIdx> {
        if let Some(&idx) = local.get(target.value().as_str()) {
            return Some(idx);
        }
        let mut known: Vec<&str> = local.keys().copied().collect();
        known.sort_by_key(|k| edit_distance(k, target.value()));
        let hint = match known.first() {
            Some(best) if edit_distance(best, target.value()) <= 3 => {
                format!("did you mean `{best}`?")
            }
            _ => format!("nodes of flow `{flow}`: {}", known.join(", ")),
        };
        self.ctx.report(
            RawProblem::new(
                ProblemKind::UnknownNode,
                Some(target.loc(file)),
                format!("unknown node `{}` in flow `{flow}`", target.value()),
            )
            .label("no node with this id")
            .help(hint),
        );
        None
    }
}

/// Levenshtein distance, for "did you mean" hints.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    // `row[j]` is the distance from the prefix of `a` read so far to `b[..j]`,
    // updated in place one character of `a` at a time.
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = i;
        let mut left = i + 1;
        if let Some(first) = row.first_mut() {
            *first = left;
        }
        for (cb, cell) in b.iter().zip(row.iter_mut().skip(1)) {
            let above = *cell;
            *cell = if ca == *cb {
                diagonal
            } else {
                1 + diagonal.min(left).min(above)
            };
            diagonal = above;
            left = *cell;
        }
    }
    row.last().copied().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("verify", "verify"), 0);
        assert_eq!(edit_distance("verfy", "verify"), 1);
        assert_eq!(edit_distance("é", "e"), 1);
    }
}
