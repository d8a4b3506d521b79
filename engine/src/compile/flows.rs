//! Lowers the flows of a bundle into one FSM: checks each node's attributes
//! for its type, type-checks its expressions, and inlines subflows with ids
//! prefixed by the invoking node (`cancel.authorize`).

use std::collections::BTreeMap;

use petgraph::graph::DiGraph;
use turnstile_rules::{Check, CheckSet, EventFilter, Outcome, ValueType, VarId};

use crate::bundle::LoadedBundle;
use crate::bundle::model::{Actor, ExitOutcome, FlowDef, NodeDef, NodeKind, Sp, ToolKind};
use crate::compile::typecheck::{Scope, Site};
use crate::compile::{Ctx, SemanticCriterion, Variable};
use crate::diag::{ProblemKind, RawProblem};
use crate::expr::ast::ExprKind;
use crate::expr::template::{Piece, parse_template};
use crate::expr::{ParseError, parse};
use crate::fsm::{
    BindSource, Binding, Criterion, Edge, Node, NodeIdx, Template, TemplatePiece, Workflow,
};
use crate::schema::{Domain, JsonPath, JsonStep, Tool};
use crate::source::FileId;

/// The result of lowering, before graph validation.
pub(crate) struct Lowered {
    pub workflow: Workflow,
    pub checks: CheckSet,
    pub variables: Vec<Variable>,
    pub semantic: Vec<SemanticCriterion>,
    /// Where each graph node is defined, in node index order.
    pub sites: Vec<crate::source::Loc>,
    /// For each decision node: its branches' lowered checks.
    pub decisions: Vec<(NodeIdx, Vec<BranchInfo>)>,
}

pub(crate) struct BranchInfo {
    pub label: String,
    pub check: Option<Check>,
    pub has_judge: bool,
    pub otherwise: bool,
    pub loc: crate::source::Loc,
}

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
            .help(format!("defined flows: {known}")),
        );
        return None;
    }
    let mut builder = Builder {
        ctx,
        domain,
        flows,
        vars,
        graph: DiGraph::default(),
        index: BTreeMap::new(),
        checks: CheckSet::default(),
        semantic: Vec::new(),
        sites: Vec::new(),
        decisions: Vec::new(),
    };
    let mut stack = vec![main.clone()];
    let (entry, returns) = builder.expand(main, "", &mut stack)?;
    for ret in returns {
        let loc = builder.sites[ret.index()];
        builder.ctx.report(
            RawProblem::new(
                ProblemKind::MisplacedReturn,
                Some(loc),
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

struct Builder<'c, 'a, 'd> {
    ctx: &'c mut Ctx<'a>,
    domain: &'d Domain,
    flows: BTreeMap<String, (FileId, &'d FlowDef)>,
    vars: BTreeMap<String, (VarId, String)>,
    graph: DiGraph<Node, Edge, u32>,
    index: BTreeMap<String, NodeIdx>,
    checks: CheckSet,
    semantic: Vec<SemanticCriterion>,
    sites: Vec<crate::source::Loc>,
    decisions: Vec<(NodeIdx, Vec<BranchInfo>)>,
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
                    .help(format!("defined flows: {known}")),
                );
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
                return;
            }
            stack.push(name.clone());
            let sub_prefix = format!("{prefix}{}.", node.id.value());
            let expanded = self.expand(name, &sub_prefix, stack);
            stack.pop();
            let Some((entry, returns)) = expanded else {
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
        if let Some(next) = next {
            self.graph.add_edge(idx, next, Edge::Next);
        }
        let mut infos = Vec::new();
        for branch in &node.branches {
            let Some(to) = self.resolve(local, &branch.to, file, flow) else {
                continue;
            };
            let tool = None;
            let check = branch
                .check
                .as_ref()
                .and_then(|c| self.lower_check_text(c, file, tool));
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
                },
            );
        }
        if *node.kind.value() == NodeKind::Decision {
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

    fn add_node(&mut self, def: &NodeDef, file: FileId, flow: &str, prefix: &str) -> NodeIdx {
        let kind = *def.kind.value();
        let id = format!("{prefix}{}", def.id.value());
        self.check_attributes(def, file);
        let tool = def.tool.as_ref().and_then(|t| self.tool_for(def, t, file));
        let actor = def
            .actor
            .as_ref()
            .map(|a| *a.value())
            .unwrap_or(match kind {
                NodeKind::UserInput => Actor::User,
                NodeKind::Entry | NodeKind::Exit | NodeKind::Subflow => Actor::System,
                _ => Actor::Agent,
            });
        let mut criterion = Criterion {
            check: None,
            judge: def.judge.as_ref().map(|j| j.value().clone()),
            keywords: def.keywords.clone(),
            window: def
                .judge_window
                .as_ref()
                .map(|w| *w.value())
                .unwrap_or_default(),
        };
        let explicit = def
            .check
            .as_ref()
            .and_then(|c| self.lower_check_text(c, file, tool));
        let implicit = (kind == NodeKind::ToolCall)
            .then(|| tool.map(succeeded))
            .flatten();
        criterion.check = match (implicit, explicit) {
            (Some(a), Some(Check::All(mut rest))) => {
                rest.insert(0, a);
                Some(self.checks.push(Check::All(rest)))
            }
            (Some(a), Some(b)) => Some(self.checks.push(Check::All(vec![a, b]))),
            (Some(c), None) | (None, Some(c)) => Some(self.checks.push(c)),
            (None, None) => None,
        };
        if let Some(question) = &criterion.judge {
            self.semantic.push(SemanticCriterion {
                node: id.clone(),
                branch: None,
                question: question.clone(),
            });
        }
        let guard = def
            .guard
            .as_ref()
            .and_then(|g| self.lower_check_text(g, file, tool))
            .map(|c| self.checks.push(c));
        let remediation = def
            .remediation
            .as_ref()
            .and_then(|r| self.lower_template(r, file, tool));
        let binds = def
            .bind
            .iter()
            .filter_map(|(var, source)| self.lower_binding(var, source, file, tool))
            .collect();
        let loc = def.id.loc(file);
        let origin = self
            .ctx
            .sources
            .line_col(loc)
            .zip(self.ctx.sources.file(file))
            .map(|((line, _), f)| format!("{}:{line}", f.display))
            .unwrap_or_default();
        let node = Node {
            id: id.clone(),
            kind,
            actor,
            flow: flow.to_owned(),
            expect: def.expect.clone(),
            criterion,
            remediation,
            cites: def.cites.as_ref().map(|c| c.to_vec()).unwrap_or_default(),
            tool: tool.map(|t| t.name.clone()),
            guard,
            binds,
            outcome: def.outcome.as_ref().map(|o| *o.value()),
            classifier: def.classifier,
            origin,
        };
        let idx = self.graph.add_node(node);
        self.index.insert(id, idx);
        self.sites.push(loc);
        idx
    }

    /// Reports attributes a node of its type must have or must not have.
    fn check_attributes(&mut self, def: &NodeDef, file: FileId) {
        use NodeKind::*;
        let kind = *def.kind.value();
        let present = [
            ("next", def.next.is_some()),
            ("tool", def.tool.is_some()),
            ("guard", def.guard.is_some()),
            ("flow", def.flow.is_some()),
            ("branches", !def.branches.is_empty()),
            ("outcome", def.outcome.is_some()),
            ("check", def.check.is_some()),
            ("judge", def.judge.is_some()),
            ("keywords", !def.keywords.is_empty()),
            ("judge_window", def.judge_window.is_some()),
            ("bind", !def.bind.is_empty()),
            ("classifier", def.classifier),
            ("expect", def.expect.is_some()),
            ("remediation", def.remediation.is_some()),
        ];
        let (required, allowed): (&[&str], &[&str]) = match kind {
            Entry => (&["next"], &["expect"]),
            Exit => (&["outcome"], &["expect", "remediation"]),
            AgentAction | UserInput => (
                &["next", "expect", "remediation"],
                &["check", "judge", "keywords", "judge_window"],
            ),
            ToolCall => (
                &["tool", "next", "expect", "remediation"],
                &["check", "judge", "keywords", "judge_window", "bind"],
            ),
            ToolAuthorization => (
                &["tool", "next", "expect", "remediation"],
                &["guard", "bind", "judge", "keywords", "judge_window"],
            ),
            Decision => (&["branches", "expect", "remediation"], &["classifier"]),
            Subflow => (&["flow", "next"], &["expect", "remediation"]),
        };
        let loc = Some(def.kind.loc(file));
        for (name, is_present) in present {
            if required.contains(&name) && !is_present {
                self.ctx.report(
                    RawProblem::new(
                        ProblemKind::MissingAttribute,
                        Some(def.id.loc(file)),
                        format!("{} node `{}` needs `{name}`", kind.name(), def.id.value()),
                    )
                    .label("this node"),
                );
            } else if is_present && !required.contains(&name) && !allowed.contains(&name) {
                self.ctx.report(
                    RawProblem::new(
                        ProblemKind::UnexpectedAttribute,
                        loc,
                        format!(
                            "`{name}` does not apply to a {} node (`{}`)",
                            kind.name(),
                            def.id.value()
                        ),
                    )
                    .help(attribute_help(kind)),
                );
            }
        }
        if matches!(kind, AgentAction | UserInput) && def.check.is_none() && def.judge.is_none() {
            self.ctx.report(
                RawProblem::new(
                    ProblemKind::MissingAttribute,
                    Some(def.id.loc(file)),
                    format!(
                        "{} node `{}` needs a criterion: `check`, `judge` or both",
                        kind.name(),
                        def.id.value()
                    ),
                )
                .help("a formal `check` is decided from data; `judge` asks the dialogue judge"),
            );
        }
        if kind == Decision && def.branches.len() < 2 && !def.branches.is_empty() {
            self.ctx.report(RawProblem::new(
                ProblemKind::DecisionIncomplete,
                Some(def.id.loc(file)),
                format!(
                    "decision `{}` has a single branch; use `next` instead",
                    def.id.value()
                ),
            ));
        }
    }

    fn tool_for(&mut self, def: &NodeDef, name: &Sp<String>, file: FileId) -> Option<&'d Tool> {
        let Some(tool) = self.domain.tool(name.value()) else {
            self.ctx.report(
                RawProblem::new(
                    ProblemKind::UnknownTool,
                    Some(name.loc(file)),
                    format!("unknown tool `{}`", name.value()),
                )
                .help("tools are declared in the domain file"),
            );
            return None;
        };
        let kind = *def.kind.value();
        let expected: &[ToolKind] = match kind {
            NodeKind::ToolAuthorization => &[ToolKind::Write],
            _ => &[ToolKind::Read, ToolKind::Generic],
        };
        if !expected.contains(&tool.kind) {
            let help = if kind == NodeKind::ToolAuthorization {
                "only mutating tools need authorization; reads go in tool_call nodes"
            } else {
                "a mutating tool is reached through a tool_authorization node"
            };
            self.ctx.report(
                RawProblem::new(
                    ProblemKind::WrongToolKind,
                    Some(name.loc(file)),
                    format!(
                        "{} node `{}` names `{}`, a {:?} tool",
                        kind.name(),
                        def.id.value(),
                        tool.name,
                        tool.kind
                    )
                    .to_lowercase(),
                )
                .help(help),
            );
        }
        let actor = def
            .actor
            .as_ref()
            .map(|a| *a.value())
            .unwrap_or(Actor::Agent);
        let side_ok = match actor {
            Actor::User => tool.side == crate::bundle::model::Side::User,
            _ => tool.side == crate::bundle::model::Side::Agent,
        };
        if !side_ok {
            self.ctx.report(
                RawProblem::new(
                    ProblemKind::WrongToolSide,
                    Some(name.loc(file)),
                    format!("tool `{}` is called by the {:?} side, but node `{}` is acted by the {actor:?}", tool.name, tool.side, def.id.value()).to_lowercase(),
                )
                .help("set the node's `actor` to match the tool's `side`"),
            );
        }
        Some(tool)
    }

    fn lower_check_text(
        &mut self,
        sp: &Sp<String>,
        file: FileId,
        tool: Option<&'d Tool>,
    ) -> Option<Check> {
        let site = Site { sp, file, shift: 0 };
        let expr = match parse(sp.value()) {
            Ok(e) => e,
            Err(e) => return self.syntax_error(site, e),
        };
        let scope = Scope {
            domain: self.domain,
            tool,
            vars: &self.vars,
        };
        self.ctx.lower_check(&scope, site, &expr)
    }

    fn syntax_error<T>(&mut self, site: Site<'_>, e: ParseError) -> Option<T> {
        let loc = self.ctx.inner_loc(
            site.sp,
            site.file,
            site.shift + e.span.start..site.shift + e.span.end,
        );
        self.ctx
            .report(RawProblem::new(ProblemKind::ExprSyntax, Some(loc), e.message).label("here"));
        None
    }

    fn lower_template(
        &mut self,
        sp: &Sp<String>,
        file: FileId,
        tool: Option<&'d Tool>,
    ) -> Option<Template> {
        let site = Site { sp, file, shift: 0 };
        let pieces = match parse_template(sp.value()) {
            Ok(p) => p,
            Err(e) => {
                let loc = self.ctx.inner_loc(sp, file, e.span);
                self.ctx.report(
                    RawProblem::new(ProblemKind::BadTemplate, Some(loc), e.message).label("here"),
                );
                return None;
            }
        };
        let mut lowered = Vec::new();
        for piece in pieces {
            match piece {
                Piece::Text(t) => lowered.push(TemplatePiece::Text(t)),
                Piece::Value(expr, range) => {
                    let scope = Scope {
                        domain: self.domain,
                        tool,
                        vars: &self.vars,
                    };
                    let typed = self.ctx.lower_operand(
                        &scope,
                        Site {
                            shift: range.start,
                            ..site
                        },
                        &expr,
                    )?;
                    let text = sp.value().get(range.clone()).unwrap_or("?").to_owned();
                    lowered.push(TemplatePiece::Value {
                        operand: typed.operand,
                        text,
                    });
                }
            }
        }
        Some(Template {
            source: sp.value().clone(),
            pieces: lowered,
        })
    }

    fn lower_binding(
        &mut self,
        var: &str,
        source: &Sp<String>,
        file: FileId,
        tool: Option<&'d Tool>,
    ) -> Option<Binding> {
        let Some((id, _)) = self.vars.get(var).cloned() else {
            let known = self
                .vars
                .keys()
                .map(|v| format!("${v}"))
                .collect::<Vec<_>>()
                .join(", ");
            self.ctx.report(
                RawProblem::new(
                    ProblemKind::UnknownVariable,
                    Some(source.loc(file)),
                    format!("`bind` names unknown variable `{var}`"),
                )
                .help(format!(
                    "declare it under the flow's `vars`; declared: {known}"
                )),
            );
            return None;
        };
        let site = Site {
            sp: source,
            file,
            shift: 0,
        };
        let expr = match parse(source.value()) {
            Ok(e) => e,
            Err(e) => return self.syntax_error(site, e),
        };
        let tool = tool?;
        match &expr.kind {
            ExprKind::Args(path) => {
                let (path, ty) = self.ctx.lower_arg_path(site, &expr.span, tool, path)?;
                if !matches!(ty, ValueType::Str | ValueType::Enum(_)) {
                    let shown = self.ctx.show_type(&ty);
                    let loc = self.ctx.inner_loc(source, file, expr.span.clone());
                    return self.ctx.error(
                        ProblemKind::TypeMismatch,
                        Some(loc),
                        format!("a variable holds one entity id (a string), but this argument is a {shown}"),
                    );
                }
                Some(Binding {
                    var: id,
                    source: BindSource::Arg(path),
                })
            }
            ExprKind::Result(path) => {
                let steps = path
                    .iter()
                    .map(|seg| match seg {
                        crate::expr::PathSeg::Key(k) => JsonStep::Key(k.clone()),
                        crate::expr::PathSeg::Index(i) => JsonStep::Index(*i as usize),
                        crate::expr::PathSeg::Each => JsonStep::EachItem,
                    })
                    .collect();
                Some(Binding {
                    var: id,
                    source: BindSource::Result(JsonPath {
                        from_root: true,
                        steps,
                    }),
                })
            }
            _ => {
                let loc = self.ctx.inner_loc(source, file, expr.span.clone());
                self.ctx.error(
                    ProblemKind::ExprSyntax,
                    Some(loc),
                    "a binding takes `args.<param>` or `result.<path>`",
                )
            }
        }
    }
}

fn succeeded(tool: &Tool) -> Check {
    Check::Happened(EventFilter {
        tool: tool.symbol,
        outcome: Outcome::Succeeded,
        constraints: Vec::new(),
    })
}

fn attribute_help(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Entry => "an entry node has only `next` (and `expect`)",
        NodeKind::Exit => "an exit node has `outcome` (normal, general, transfer, refuse, return)",
        NodeKind::AgentAction | NodeKind::UserInput => {
            "these nodes take `check` and/or `judge`, `expect`, `remediation`, `next`"
        }
        NodeKind::ToolCall => "a tool_call node takes `tool`, `check`, `judge`, `bind`, `next`",
        NodeKind::ToolAuthorization => {
            "a tool_authorization node takes `tool`, `guard`, `bind`, `next`"
        }
        NodeKind::Decision => "a decision carries its guards on `branches`, not on the node",
        NodeKind::Subflow => "a subflow node takes `flow` and `next`",
    }
}

/// Levenshtein distance, for "did you mean" hints.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(row[j]).min(cur)
            };
            prev = cur;
        }
    }
    row[b.len()]
}
