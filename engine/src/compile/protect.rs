//! Protected reads (`protected_reads:` in `bundle.yaml`): which read tools
//! the policy protects, the identification steps a read waits for (`after`)
//! and the guard over what was read that must hold at the call. Each tool
//! is checked (an agent-side read or generic tool the workflow does not
//! gate), each `after` node resolved, the guard type-checked against the
//! tool's `args` and the bundle's variables, and the remediation template
//! lowered; the result is one [`turnstile_rules::Protection`] per tool.

use std::collections::BTreeMap;

use serde::Serialize;
use turnstile_rules::{CheckId, Protection, StepId, VarId};

use super::Ctx;
use super::flows::Lowered;
use super::lower::Scope;
use super::typecheck::Site;
use crate::bundle::LoadedBundle;
use crate::bundle::model::{ProtectedReadDef, Side, ToolKind};
use crate::diag::{ProblemKind, RawProblem, name_hint};
use crate::expr::parse;
use crate::fsm::Template;
use crate::schema::Domain;
use crate::source::FileId;

/// A read the bundle protects, as the gate reports it.
#[derive(Debug, Clone, Serialize)]
pub struct ProtectedRead {
    /// The protected tool.
    pub tool: String,
    /// The identification nodes, any one of which opens the read (none:
    /// the guard alone decides).
    pub after: Vec<String>,
    /// The guard as written.
    pub guard: Option<String>,
    /// What the agent should do instead.
    pub remediation: Template,
    /// The policy lines it enforces.
    pub cites: Vec<String>,
    /// What the evaluators decide it by.
    pub protection: Protection,
}

/// Compiles the manifest's `protected_reads`; their guards are added to
/// `lowered`'s checks. Every problem is reported.
pub(super) fn compile_protected_reads(
    ctx: &mut Ctx<'_>,
    domain: &Domain,
    bundle: &LoadedBundle,
    lowered: &mut Lowered,
) -> Vec<ProtectedRead> {
    let (file, manifest) = &bundle.manifest;
    let vars: BTreeMap<String, (VarId, String)> = lowered
        .variables
        .iter()
        .enumerate()
        .map(|(i, v)| {
            (
                v.name.clone(),
                (
                    VarId(u32::try_from(i).unwrap_or(u32::MAX)),
                    v.entity.clone(),
                ),
            )
        })
        .collect();
    let gated: Vec<String> = lowered
        .workflow
        .graph
        .node_weights()
        .filter(|n| n.kind == crate::bundle::model::NodeKind::ToolAuthorization)
        .filter_map(|n| n.tool.clone())
        .collect();
    let mut out = Vec::new();
    let mut protected = std::collections::BTreeSet::new();
    for def in &manifest.protected_reads {
        let after = resolve_after(ctx, *file, def, lowered);
        if def.after.is_empty() && def.guard.is_none() {
            ctx.report(
                RawProblem::new(
                    ProblemKind::MissingAttribute,
                    def.tools.first().map(|t| t.loc(*file)),
                    "a protected read needs `after` (the identification it waits for), `guard`, or both",
                )
                .help("e.g. `after: [identify.find_by_email]`"),
            );
            continue;
        }
        for written in &def.tools {
            let Some(tool) = protected_tool(ctx, *file, written, domain, &gated) else {
                continue;
            };
            if !protected.insert(tool.name.clone()) {
                ctx.report(
                    RawProblem::new(
                        ProblemKind::DuplicateId,
                        Some(written.loc(*file)),
                        format!("`{}` is protected twice", tool.name),
                    )
                    .help("give each tool one entry: its identification steps and one guard"),
                );
                continue;
            }
            let scope = Scope {
                domain,
                tool: Some(tool),
                vars: &vars,
            };
            let guard = match &def.guard {
                None => None,
                Some(sp) => {
                    let site = Site {
                        sp,
                        file: *file,
                        shift: 0,
                    };
                    let lowered_guard = match parse(sp.value()) {
                        Ok(expr) => ctx.lower_check(&scope, site, &expr),
                        Err(e) => {
                            let loc = ctx.inner_loc(sp, *file, e.span);
                            ctx.report(
                                RawProblem::new(ProblemKind::ExprSyntax, Some(loc), e.message)
                                    .label("here"),
                            );
                            None
                        }
                    };
                    let Some(check) = lowered_guard else { continue };
                    Some(lowered.checks.push(check))
                }
            };
            if def.after.is_empty() && guard.is_some_and(|g| reads_variables(lowered, g)) {
                if let Some(sp) = &def.guard {
                    ctx.report(
                        RawProblem::new(
                            ProblemKind::UnknownVariable,
                            Some(sp.loc(*file)),
                            "this guard reads request variables, which only an identification binds",
                        )
                        .help("name the identification it waits for in `after`"),
                    );
                }
                continue;
            }
            let Some(remediation) = ctx.lower_template(&scope, &def.remediation, *file) else {
                continue;
            };
            let Some(after) = after.clone() else { continue };
            let steps: Vec<StepId> = if after.is_empty() {
                vec![step_id(lowered.workflow.entry.index())]
            } else {
                after.iter().map(|(_, s)| *s).collect()
            };
            for citation in def.cites.as_ref().map(|c| c.to_vec()).unwrap_or_default() {
                if let Some((message, help)) =
                    super::validate::citation_problem(&citation, &bundle.cited)
                {
                    let loc = written.loc(*file);
                    ctx.report(
                        RawProblem::new(ProblemKind::BadCitation, Some(loc), message)
                            .label("cited for this read")
                            .help(help),
                    );
                }
            }
            out.push(ProtectedRead {
                tool: tool.name.clone(),
                after: after.into_iter().map(|(name, _)| name).collect(),
                guard: def.guard.as_ref().map(|g| g.value().clone()),
                remediation,
                cites: def.cites.as_ref().map(|c| c.to_vec()).unwrap_or_default(),
                protection: Protection {
                    tool: tool.symbol,
                    after: steps,
                    guard,
                },
            });
        }
    }
    out
}

/// The `after` nodes by qualified id, with their steps; `None` when one is
/// unknown (reported).
fn resolve_after(
    ctx: &mut Ctx<'_>,
    file: FileId,
    def: &ProtectedReadDef,
    lowered: &Lowered,
) -> Option<Vec<(String, StepId)>> {
    let mut resolved = Vec::new();
    let mut known = true;
    for name in &def.after {
        match lowered.workflow.index.get(name.value()) {
            Some(idx) => resolved.push((name.value().clone(), step_id(idx.index()))),
            None => {
                known = false;
                ctx.report(
                    RawProblem::new(
                        ProblemKind::UnknownNode,
                        Some(name.loc(file)),
                        format!("protected read waits for unknown node `{}`", name.value()),
                    )
                    .help(name_hint(
                        name.value(),
                        lowered.workflow.index.keys().map(String::as_str),
                        "use the node's qualified id, `flow.node`; nodes",
                    )),
                );
            }
        }
    }
    known.then_some(resolved)
}

/// The domain tool `written` names, if it can be protected: an agent-side
/// read or generic tool the workflow does not gate (reported otherwise).
fn protected_tool<'d>(
    ctx: &mut Ctx<'_>,
    file: FileId,
    written: &crate::bundle::model::Sp<String>,
    domain: &'d Domain,
    gated: &[String],
) -> Option<&'d crate::schema::Tool> {
    let loc = Some(written.loc(file));
    let Some(tool) = domain.tool(written.value()) else {
        ctx.report(
            RawProblem::new(
                ProblemKind::UnknownTool,
                loc,
                format!("protected read names unknown tool `{}`", written.value()),
            )
            .help(name_hint(
                written.value(),
                domain.tools.keys().map(String::as_str),
                "tools are declared in the domain file; declared",
            )),
        );
        return None;
    };
    if tool.side != Side::Agent {
        return ctx.error(
            ProblemKind::WrongToolSide,
            loc,
            format!(
                "`{}` is a user-side tool; only the agent's reads are protected",
                tool.name
            ),
        );
    }
    let problem = if !matches!(tool.kind, ToolKind::Read | ToolKind::Generic) {
        Some(format!(
            "`{}` is a mutating tool; protect only reads",
            tool.name
        ))
    } else if gated.contains(&tool.name) {
        Some(format!(
            "`{}` is gated by a tool_authorization; protect only reads",
            tool.name
        ))
    } else {
        None
    };
    if let Some(message) = problem {
        ctx.report(
            RawProblem::new(ProblemKind::WrongToolKind, loc, message)
                .help("a gated tool is already allowed only where the workflow authorizes it"),
        );
        return None;
    }
    Some(tool)
}

/// Whether check `id` reads a request variable.
fn reads_variables(lowered: &Lowered, id: CheckId) -> bool {
    lowered
        .checks
        .get(id)
        .is_some_and(|check| turnstile_rules::Encoded::new(&single(check)).mask(CheckId(0)) != 0)
}

/// A check set holding only `check`.
fn single(check: &turnstile_rules::Check) -> turnstile_rules::CheckSet {
    let mut set = turnstile_rules::CheckSet::default();
    set.push(check.clone());
    set
}

fn step_id(i: usize) -> StepId {
    StepId(u32::try_from(i).unwrap_or(u32::MAX))
}
