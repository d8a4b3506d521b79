//! One node of a flow, lowered: checks the attributes its type requires or
//! forbids, resolves its tool (kind and side), type-checks and lowers its
//! `check`, `guard`, `remediation` template and `bind` sources, and adds it
//! to the graph under construction. Flow structure and subflow inlining are
//! `compile::flows`.

use turnstile_rules::{Check, EventFilter, Outcome, ValueType, VarId};

use crate::bundle::model::{Actor, NodeDef, NodeKind, Side, Sp, ToolKind};
use crate::compile::flows::Builder;
use crate::compile::lower::Scope;
use crate::compile::typecheck::Site;
use crate::compile::{Ctx, SemanticCriterion};
use crate::diag::{ProblemKind, RawProblem, name_hint};
use crate::expr::ast::{ExprKind, PathSeg};
use crate::expr::template::{Piece, parse_template};
use crate::expr::{ParseError, parse};
use crate::fsm::{
    BindSource, Binding, Criterion, Node, NodeIdx, NodeSource, Template, TemplatePiece,
};
use crate::schema::{JsonPath, JsonStep, Tool};
use crate::source::FileId;

impl<'d> Builder<'_, '_, 'd> {
    /// Checks and lowers one node and adds it to the graph under `prefix`.
    pub(super) fn add_node(
        &mut self,
        def: &NodeDef,
        file: FileId,
        flow: &str,
        prefix: &str,
    ) -> NodeIdx {
        let kind = *def.kind.value();
        let id = format!("{prefix}{}", def.id.value());
        self.check_attributes(def, file);
        let reported_before = self.ctx.problems.len();
        let tool = def.tool.as_ref().and_then(|t| self.tool_for(def, t, file));
        // With its tool unknown, every `args` path of the node would also be
        // reported; the unknown tool is the one root cause.
        let tool_unknown = def.tool.is_some() && tool.is_none();
        let problems_before = self.ctx.problems.len();
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
        self.explain_out_of_scope_variables(problems_before);
        if tool_unknown {
            let mut index = 0;
            self.ctx.problems.retain(|p| {
                index += 1;
                index <= problems_before || p.kind != ProblemKind::UnknownParam
            });
        }
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
            source: NodeSource {
                check: def.check.as_ref().map(|c| c.value().clone()),
                guard: def.guard.as_ref().map(|g| g.value().clone()),
            },
        };
        let idx = self.graph.add_node(node);
        if self.ctx.problems.len() > reported_before {
            self.broken.insert(idx);
        }
        self.index.insert(id, idx);
        self.sites.push(loc);
        idx
    }

    /// Rewrites the unknown-variable problems reported since `from` whose
    /// variable is declared, but by a flow that does not invoke this one:
    /// the fix is a declaration in scope, not a new name.
    pub(super) fn explain_out_of_scope_variables(&mut self, from: usize) {
        let flow = self.current_flow.clone();
        let mut rewrites = Vec::new();
        for (index, problem) in self.ctx.problems.iter().enumerate().skip(from) {
            if problem.kind != ProblemKind::UnknownVariable {
                continue;
            }
            let Some(name) = problem
                .message
                .split('`')
                .rev()
                .nth(1)
                .map(|n| n.trim_start_matches('$').to_owned())
            else {
                continue;
            };
            let Some((_, entity)) = self.vars.get(&name) else {
                continue;
            };
            let declaring = self.declaring_flows(&name).join("`, `");
            rewrites.push((
                index,
                format!(
                    "variable `${name}` is declared in flow `{declaring}`, which does not invoke flow `{flow}`"
                ),
                format!(
                    "a flow may use the variables it declares and those of the flows that invoke it; add `{name}: {entity}` to the `vars` of `{flow}` or of a flow that invokes it"
                ),
            ));
        }
        for (index, message, help) in rewrites {
            if let Some(problem) = self.ctx.problems.get_mut(index) {
                problem.message = message;
                problem.help = Some(help);
            }
        }
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
                .label("not declared in the domain")
                .help(name_hint(
                    name.value(),
                    self.domain.tools.keys().map(String::as_str),
                    "tools are declared in the domain file; declared",
                )),
            );
            return None;
        };
        let kind = *def.kind.value();
        let expected: &[ToolKind] = match kind {
            // A generic tool (a transfer to a human) may be gated too.
            NodeKind::ToolAuthorization => &[ToolKind::Write, ToolKind::Generic],
            // A user-side write (a device fix under dual control) is not the
            // agent's to authorize: a `tool_call` node records that it happened.
            _ if tool.side == Side::User => &[ToolKind::Read, ToolKind::Write, ToolKind::Generic],
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
            Actor::User => tool.side == Side::User,
            _ => tool.side == Side::Agent,
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

    /// Parses and lowers the check expression written in `sp`.
    pub(super) fn lower_check_text(
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
            vars: &self.visible,
        };
        let check = self.ctx.lower_check(&scope, site, &expr)?;
        self.ctx.warn_formal_beside_consent(&scope, site, &expr);
        Some(check)
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
        let scope = Scope {
            domain: self.domain,
            tool,
            vars: &self.visible,
        };
        self.ctx.lower_template(&scope, sp, file)
    }

    fn lower_binding(
        &mut self,
        var: &str,
        source: &Sp<String>,
        file: FileId,
        tool: Option<&'d Tool>,
    ) -> Option<Binding> {
        let Some((id, _)) = self.visible.get(var).cloned() else {
            let known = self
                .visible
                .keys()
                .map(|v| format!("${v}"))
                .collect::<Vec<_>>();
            let wanted = format!("${var}");
            self.ctx.report(
                RawProblem::new(
                    ProblemKind::UnknownVariable,
                    Some(source.loc(file)),
                    format!("`bind` names unknown variable `{var}`"),
                )
                .help(name_hint(
                    &wanted,
                    known.iter().map(String::as_str),
                    "declare it under the flow's `vars`; declared",
                )),
            );
            self.explain_out_of_scope_variables(self.ctx.problems.len().saturating_sub(1));
            return None;
        };
        let site = Site {
            sp: source,
            file,
            shift: 0,
        };
        if let Some(binding) = self.key_binding(id, source, file, tool) {
            return binding;
        }
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
                        PathSeg::Key(k) => JsonStep::Key(k.clone()),
                        PathSeg::Index(i) => JsonStep::Index(*i as usize),
                        PathSeg::Each => JsonStep::EachItem,
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

impl<'d> Builder<'_, '_, 'd> {
    /// `entity[args.a, args.b]`: the composite id of a keyed entity made of
    /// the call's arguments. `None` when the source is not of that form;
    /// `Some(None)` after reporting a mistake.
    fn key_binding(
        &mut self,
        var: VarId,
        source: &Sp<String>,
        file: FileId,
        tool: Option<&'d Tool>,
    ) -> Option<Option<Binding>> {
        let text = source.value();
        let name = text.split('[').next()?.trim();
        let entity = self
            .domain
            .entities
            .get(name)
            .filter(|e| !e.key.is_empty())?;
        let parts = super::domain::bracketed(text)?;
        let tool = tool?;
        if parts.len() != entity.key.len() {
            let loc = source.loc(file);
            return Some(self.ctx.error(
                ProblemKind::TypeMismatch,
                Some(loc),
                format!(
                    "`{name}` has a key of {} parts, this gives {}",
                    entity.key.len(),
                    parts.len()
                ),
            ));
        }
        let mut args = Vec::new();
        for ((at, part), ty) in parts.into_iter().zip(&entity.key) {
            let param = part
                .strip_prefix("args.")
                .filter(|p| tool.params.get(*p) == Some(ty));
            let Some(param) = param else {
                let shown = self.ctx.show_type(ty);
                let loc = self.ctx.inner_loc(source, file, at..at + part.len());
                return Some(self.ctx.error(
                    ProblemKind::TypeMismatch,
                    Some(loc),
                    format!("each part of a `{name}` key binding is a parameter `args.<name>` of `{}` of the key part's type ({shown})", tool.name),
                ));
            };
            args.push(param.to_owned());
        }
        Some(Some(Binding {
            var,
            source: BindSource::Key {
                entity: name.to_owned(),
                args,
            },
        }))
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

impl Ctx<'_> {
    /// Parses and lowers a remediation template: its text and its `{...}`
    /// placeholders, each a value typed in `scope`.
    pub(super) fn lower_template(
        &mut self,
        scope: &Scope<'_>,
        sp: &Sp<String>,
        file: FileId,
    ) -> Option<Template> {
        let site = Site { sp, file, shift: 0 };
        let pieces = match parse_template(sp.value()) {
            Ok(p) => p,
            Err(e) => {
                let loc = self.inner_loc(sp, file, e.span);
                self.report(
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
                    let typed = self.lower_operand(
                        scope,
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
}
