//! Graph validation of the inlined FSM: reachability, exits, authorization
//! coverage of every mutating tool, decision completeness and consistency,
//! and classifier coverage of every request type.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use petgraph::Direction;
use turnstile_rules::{Check, CmpOp, Operand, Outcome, Symbol, Value, ValueType};

use crate::bundle::LoadedBundle;
use crate::bundle::model::NodeKind;
use crate::compile::Ctx;
use crate::compile::flows::{BranchInfo, Lowered};
use crate::diag::{ProblemKind, RawProblem, name_hint};
use crate::fsm::NodeIdx;
use crate::schema::Domain;

/// Labels every classifier must offer besides the declared request types.
pub const BUILTIN_REQUEST_TYPES: [&str; 2] = ["general", "transfer"];

/// Validates the lowered graph: reachability, exits, authorization and verify nodes, decision
/// completeness and consistency, classifiers.
pub(crate) fn validate(
    ctx: &mut Ctx<'_>,
    domain: &Domain,
    bundle: &LoadedBundle,
    lowered: &Lowered,
) {
    reachability(ctx, lowered);
    authorizations(ctx, domain, bundle, lowered);
    for (idx, branches) in &lowered.decisions {
        decision(ctx, domain, lowered, *idx, branches);
    }
    classifiers(ctx, bundle, lowered);
    citations(ctx, bundle);
}

/// The classifier label standing for built-in request type `builtin`: the
/// bundle's own from `builtin_labels`, or the built-in name.
fn builtin_label(
    labels: &BTreeMap<String, crate::bundle::model::Sp<String>>,
    builtin: &str,
) -> String {
    labels
        .get(builtin)
        .map_or_else(|| builtin.to_owned(), |l| l.value().clone())
}

/// Every `cites` entry (`file`, `file:line` or `file:first-last`) names a
/// readable file and lines it has.
fn citations(ctx: &mut Ctx<'_>, bundle: &LoadedBundle) {
    for (file, flow) in &bundle.flows {
        for node in &flow.nodes {
            let Some(cites) = &node.cites else { continue };
            let node_loc = node.id.loc(*file);
            for citation in cites.to_vec() {
                let Some(problem) = citation_problem(&citation, &bundle.cited) else {
                    continue;
                };
                // The citation's own text, searched from the node's id on.
                let text = ctx
                    .sources
                    .file(*file)
                    .map(|f| f.text.as_str())
                    .unwrap_or("");
                let loc = text
                    .get(node_loc.offset..)
                    .and_then(|rest| rest.find(citation.as_str()))
                    .map(|at| node_loc.narrow(at, citation.len()))
                    .unwrap_or(node_loc);
                ctx.report(
                    RawProblem::new(ProblemKind::BadCitation, Some(loc), problem.0)
                        .label("cited here")
                        .help(problem.1),
                );
            }
        }
    }
}

/// What is wrong with one citation, and the help line.
pub(super) fn citation_problem(
    citation: &str,
    cited: &BTreeMap<String, Option<usize>>,
) -> Option<(String, String)> {
    let file = crate::bundle::cited_file(citation);
    let Some(lines) = cited.get(file).copied().flatten() else {
        return Some((
            format!("cannot read cited file `{file}`"),
            "paths in `cites` are relative to the bundle directory".to_owned(),
        ));
    };
    let range = citation.split_once(':').map(|(_, r)| r)?;
    let (first, last) = range.split_once('-').unwrap_or((range, range));
    let parsed = first
        .trim()
        .parse::<usize>()
        .ok()
        .zip(last.trim().parse::<usize>().ok());
    let help = "write `file`, `file:line` or `file:first-last`".to_owned();
    match parsed {
        None => Some((format!("`{citation}` is not a line or line range"), help)),
        Some((first, last)) if first == 0 || last < first => {
            Some((format!("`{citation}` is not a line or line range"), help))
        }
        Some((_, last)) if last > lines => Some((
            format!("`{citation}` cites line {last}, but `{file}` has {lines} lines"),
            "renumber the citation after editing the policy".to_owned(),
        )),
        Some(_) => None,
    }
}

fn reachability(ctx: &mut Ctx<'_>, lowered: &Lowered) {
    let graph = &lowered.workflow.graph;
    let reached = flood(lowered, [lowered.workflow.entry], Direction::Outgoing);
    let terminals = graph.node_indices().filter(|&i| {
        let node = &graph[i];
        node.kind == NodeKind::Exit
            && graph
                .edges_directed(i, Direction::Outgoing)
                .next()
                .is_none()
    });
    // A node with an already-reported broken reference may have been meant
    // to reach an exit.
    let ends = terminals.chain(lowered.dangling.iter().copied());
    let finishes = flood(lowered, ends, Direction::Incoming);
    for idx in graph.node_indices() {
        let site = lowered.site(idx);
        let id = &graph[idx].id;
        if !reached.contains(&idx) {
            ctx.report(
                RawProblem::new(
                    ProblemKind::Unreachable,
                    site,
                    format!("node `{id}` cannot be reached from the entry"),
                )
                .help("link it with `next` or a branch `to`, or remove it"),
            );
        } else if !finishes.contains(&idx) {
            ctx.report(
                RawProblem::new(ProblemKind::NoExit, site, format!("no exit can be reached from node `{id}`"))
                    .help("every path must end at an exit node (a conversation that cannot end cannot be audited)"),
            );
        }
    }
}

/// The flow instance a node belongs to: its qualified id without the last
/// segment (`cancel.` for `cancel.authorize`, empty for the main flow).
fn instance(id: &str) -> &str {
    id.rfind('.').map_or("", |i| id.get(..=i).unwrap_or(""))
}

fn flood(
    lowered: &Lowered,
    start: impl IntoIterator<Item = NodeIdx>,
    direction: Direction,
) -> BTreeSet<NodeIdx> {
    let graph = &lowered.workflow.graph;
    let mut seen: BTreeSet<NodeIdx> = BTreeSet::new();
    let mut queue: VecDeque<NodeIdx> = start.into_iter().collect();
    while let Some(idx) = queue.pop_front() {
        if seen.insert(idx) {
            queue.extend(graph.neighbors_directed(idx, direction));
            // Forward from a broken reference, any node of its flow
            // instance may be where it was meant to go.
            if direction == Direction::Outgoing && lowered.dangling.contains(&idx) {
                let here = instance(&graph[idx].id);
                queue.extend(
                    graph.node_indices().filter(|&other| {
                        instance(&graph[other].id) == here && !seen.contains(&other)
                    }),
                );
            }
        }
    }
    seen
}

fn authorizations(ctx: &mut Ctx<'_>, domain: &Domain, bundle: &LoadedBundle, lowered: &Lowered) {
    let (manifest_file, manifest) = &bundle.manifest;
    let (domain_file, domain_def) = &bundle.domain;
    let graph = &lowered.workflow.graph;
    let mut out_of_scope = BTreeSet::new();
    for entry in &manifest.out_of_scope {
        let name = entry.tool.value();
        let loc = Some(entry.tool.loc(*manifest_file));
        match domain.tool(name) {
            None => ctx.report(RawProblem::new(ProblemKind::UnknownTool, loc, format!("unknown tool `{name}` in `out_of_scope`"))),
            Some(t) if t.kind != crate::bundle::model::ToolKind::Write => ctx.report(RawProblem::new(
                ProblemKind::OutOfScopeConflict,
                loc,
                format!("`{name}` is not a mutating tool; only write tools need to be declared out of scope"),
            )),
            Some(_) if lowered.workflow.authorization_of(name).next().is_some() => ctx.report(
                RawProblem::new(
                    ProblemKind::OutOfScopeConflict,
                    loc,
                    format!("`{name}` is declared out of scope but the workflow authorizes it"),
                )
                .help("remove it from `out_of_scope` or remove its tool_authorization node"),
            ),
            Some(_) => {
                out_of_scope.insert(name.clone());
            }
        }
    }
    for entry in &manifest.pass_through {
        let name = entry.tool.value();
        if domain.tool(name).is_some() {
            ctx.report(
                RawProblem::new(
                    ProblemKind::OutOfScopeConflict,
                    Some(entry.tool.loc(*manifest_file)),
                    format!("`{name}` is declared in the domain; `pass_through` lists undeclared tools only"),
                )
                .help("remove it from `pass_through`: a declared tool is gated by its kind and side"),
            );
        }
    }
    // An authorization node whose tool is already reported unknown may be
    // the one meant for a tool that now looks unauthorized.
    // So may a subflow that could not be inlined.
    let unknown_authorization = graph.node_indices().any(|i| {
        let node = &graph[i];
        (node.kind == NodeKind::ToolAuthorization
            && node.tool.is_none()
            && lowered.broken.contains(&i))
            || (node.kind == NodeKind::Subflow && lowered.dangling.contains(&i))
    });
    for tool in domain.agent_writes() {
        let auths: Vec<NodeIdx> = lowered.workflow.authorization_of(&tool.name).collect();
        if auths.is_empty() && !out_of_scope.contains(&tool.name) && !unknown_authorization {
            let loc = domain_def
                .tools
                .iter()
                .find(|t| t.name.value() == &tool.name)
                .map(|t| t.name.loc(*domain_file));
            ctx.report(
                RawProblem::new(
                    ProblemKind::MissingAuthorization,
                    loc,
                    format!("mutating tool `{}` has no tool_authorization node", tool.name),
                )
                .help("add a tool_authorization node (followed by a verify node), or list the tool under `out_of_scope` in bundle.yaml with a reason"),
            );
        }
        for auth in auths {
            let verified = graph
                .neighbors_directed(auth, Direction::Outgoing)
                .any(|next| verifies(lowered, next, tool.symbol) || lowered.broken.contains(&next));
            if !verified {
                ctx.report(
                    RawProblem::new(
                        ProblemKind::MissingVerify,
                        lowered.site(auth),
                        format!(
                            "authorization `{}` is not followed by a verify node for `{}`",
                            graph[auth].id, tool.name
                        ),
                    )
                    .help(format!(
                        "its `next` must be a node whose check requires `succeeded({}, ...)`",
                        tool.name
                    )),
                );
            }
        }
    }
}

/// Whether `idx`'s criterion demands that `tool` succeeded.
fn verifies(lowered: &Lowered, idx: NodeIdx, tool: Symbol) -> bool {
    let node = &lowered.workflow.graph[idx];
    let Some(check) = node.criterion.check.and_then(|c| lowered.checks.get(c)) else {
        return false;
    };
    let demands = |c: &Check| matches!(c, Check::Happened(f) if f.tool == tool && f.outcome == Outcome::Succeeded);
    match check {
        Check::All(items) => items.iter().any(demands),
        other => demands(other),
    }
}

fn decision(
    ctx: &mut Ctx<'_>,
    domain: &Domain,
    lowered: &Lowered,
    idx: NodeIdx,
    branches: &[BranchInfo],
) {
    let node = &lowered.workflow.graph[idx];
    let loc = lowered.site(idx);
    let mut labels = BTreeSet::new();
    for (i, branch) in branches.iter().enumerate() {
        if !labels.insert(branch.label.as_str()) {
            ctx.report(RawProblem::new(
                ProblemKind::DecisionInconsistent,
                Some(branch.loc),
                format!(
                    "decision `{}` has two branches labelled `{}`",
                    node.id, branch.label
                ),
            ));
        }
        let guarded = branch.check.is_some() || branch.has_judge;
        if branch.otherwise && (guarded || i + 1 != branches.len()) {
            ctx.report(
                RawProblem::new(
                    ProblemKind::DecisionInconsistent,
                    Some(branch.loc),
                    format!(
                        "the `otherwise` branch of `{}` must be the last one and have no guard",
                        node.id
                    ),
                )
                .help("`otherwise` is taken exactly when no other branch holds"),
            );
        }
        if !branch.otherwise && !guarded {
            ctx.report(
                RawProblem::new(
                    ProblemKind::DecisionIncomplete,
                    Some(branch.loc),
                    format!("branch `{}` of `{}` has no guard", branch.label, node.id),
                )
                .help("give it a `check`, a `judge`, or mark it `otherwise: true`"),
            );
        }
    }
    if branches.iter().any(|b| b.otherwise) || node.classifier {
        return;
    }
    if branches.iter().any(|b| b.check.is_none()) {
        ctx.report(
            RawProblem::new(
                ProblemKind::DecisionIncomplete,
                loc,
                format!(
                    "decision `{}` cannot be shown complete: its semantic branches may all fail",
                    node.id
                ),
            )
            .help("add a last branch with `otherwise: true`"),
        );
        return;
    }
    match split_cases(branches) {
        Some((subject, cases)) => complete_split(ctx, domain, lowered, idx, loc, &subject, &cases),
        None => ctx.report(
            RawProblem::new(
                ProblemKind::DecisionIncomplete,
                loc,
                format!("cannot prove that the branches of `{}` cover every case", node.id),
            )
            .help("split on one enum or bool value (`x == \"a\"`, `x in [\"b\", \"c\"]`), or add a last branch with `otherwise: true`"),
        ),
    }
}

/// The common subject and per-branch literal sets when every branch is
/// `subject == literal` or `subject in [literals]`.
/// Branch index and the literals it matches.
type Cases = Vec<(usize, Vec<Value>)>;

fn split_cases(branches: &[BranchInfo]) -> Option<(Operand, Cases)> {
    let mut subject: Option<&Operand> = None;
    let mut cases = Vec::new();
    for (i, branch) in branches.iter().enumerate() {
        let (operand, values) = match branch.check.as_ref()? {
            Check::Compare {
                op: CmpOp::Eq,
                lhs,
                rhs: Operand::Const(v),
            } => (lhs, vec![*v]),
            Check::OneOf { operand, set } => {
                let values = set
                    .iter()
                    .map(|o| match o {
                        Operand::Const(v) => Some(*v),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()?;
                (operand, values)
            }
            _ => return None,
        };
        match subject {
            Some(s) if s != operand => return None,
            _ => subject = Some(operand),
        }
        cases.push((i, values));
    }
    Some((subject?.clone(), cases))
}

fn complete_split(
    ctx: &mut Ctx<'_>,
    domain: &Domain,
    lowered: &Lowered,
    idx: NodeIdx,
    loc: Option<crate::source::Loc>,
    subject: &Operand,
    cases: &Cases,
) {
    let node = &lowered.workflow.graph[idx];
    let mut owner: BTreeMap<Value, usize> = BTreeMap::new();
    for (branch, values) in cases {
        for v in values {
            if let Some(first) = owner.insert(*v, *branch) {
                let shown = show_value(ctx, v);
                ctx.report(RawProblem::new(
                    ProblemKind::DecisionInconsistent,
                    loc,
                    format!(
                        "decision `{}`: {shown} is matched by branches {} and {}",
                        node.id,
                        first + 1,
                        branch + 1
                    ),
                ));
            }
        }
    }
    let universe: Option<Vec<Value>> = match subject_type(ctx, domain, subject) {
        Some(ValueType::Enum(e)) => domain.enums.values().find(|d| d.symbol == e).map(|d| {
            d.values
                .iter()
                .map(|v| Value::Str(ctx.interner.intern(v)))
                .collect()
        }),
        Some(ValueType::Bool) => Some(vec![Value::Bool(true), Value::Bool(false)]),
        _ => None,
    };
    let Some(universe) = universe else {
        ctx.report(
            RawProblem::new(
                ProblemKind::DecisionIncomplete,
                loc,
                format!(
                    "decision `{}` splits on a value with no closed set of cases",
                    node.id
                ),
            )
            .help("split on an enum or bool field, or add a last branch with `otherwise: true`"),
        );
        return;
    };
    let missing: Vec<String> = universe
        .iter()
        .filter(|v| !owner.contains_key(v))
        .map(|v| show_value(ctx, v))
        .collect();
    if !missing.is_empty() {
        ctx.report(
            RawProblem::new(
                ProblemKind::DecisionIncomplete,
                loc,
                format!(
                    "decision `{}` has no branch for {}",
                    node.id,
                    missing.join(", ")
                ),
            )
            .help("add those cases to a branch, or add a last branch with `otherwise: true`"),
        );
    }
}

fn subject_type(ctx: &Ctx<'_>, domain: &Domain, subject: &Operand) -> Option<ValueType> {
    let Operand::Field { entity, field, .. } = subject else {
        return None;
    };
    let entity = domain.entities.values().find(|e| e.symbol == *entity)?;
    entity.fields.get(ctx.interner.resolve(*field)).cloned()
}

fn show_value(ctx: &Ctx<'_>, value: &Value) -> String {
    match value {
        Value::Str(s) => format!("\"{}\"", ctx.interner.resolve(*s)),
        Value::Bool(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}

fn classifiers(ctx: &mut Ctx<'_>, bundle: &LoadedBundle, lowered: &Lowered) {
    let (manifest_file, manifest) = &bundle.manifest;
    let graph = &lowered.workflow.graph;
    for (builtin, label) in &manifest.builtin_labels {
        if !BUILTIN_REQUEST_TYPES.contains(&builtin.as_str()) {
            ctx.report(
                RawProblem::new(
                    ProblemKind::UnexpectedAttribute,
                    Some(label.loc(*manifest_file)),
                    format!("`{builtin}` is not a built-in request type"),
                )
                .help(name_hint(
                    builtin,
                    BUILTIN_REQUEST_TYPES,
                    "the built-in request types",
                )),
            );
        } else if manifest
            .request_types
            .iter()
            .any(|r| r.value() == label.value())
        {
            ctx.report(
                RawProblem::new(
                    ProblemKind::DuplicateId,
                    Some(label.loc(*manifest_file)),
                    format!(
                        "label `{}` stands for built-in `{builtin}` and is also a request type",
                        label.value()
                    ),
                )
                .help("each classifier label stands for one kind of request"),
            );
        }
    }
    let required: Vec<String> = manifest
        .request_types
        .iter()
        .map(|r| r.value().clone())
        .chain(
            BUILTIN_REQUEST_TYPES
                .iter()
                .map(|s| builtin_label(&manifest.builtin_labels, s)),
        )
        .collect();
    let classifiers: Vec<NodeIdx> = graph
        .node_indices()
        .filter(|&i| graph[i].classifier)
        .collect();
    if classifiers.is_empty() && !manifest.request_types.is_empty() {
        ctx.report(
            RawProblem::new(
                ProblemKind::ClassifierIncomplete,
                manifest.request_types.first().map(|r| r.loc(*manifest_file)),
                "request types are declared but no decision node has `classifier: true`",
            )
            .help("add a classifier decision with one branch per request type plus `general` and `transfer`"),
        );
    }
    for idx in classifiers {
        let labels: BTreeSet<&str> = graph
            .edges_directed(idx, Direction::Outgoing)
            .filter_map(|e| e.weight().label())
            .collect();
        let missing: Vec<&str> = required
            .iter()
            .map(String::as_str)
            .filter(|r| !labels.contains(r))
            .collect();
        let loc = lowered.site(idx);
        if !missing.is_empty() {
            ctx.report(
                RawProblem::new(
                    ProblemKind::ClassifierIncomplete,
                    loc,
                    format!("classifier `{}` has no branch for {}", graph[idx].id, missing.join(", ")),
                )
                .help("a classifier offers every request type in bundle.yaml plus `general` and `transfer` (or the labels `builtin_labels` gives them)"),
            );
        }
        for label in labels.iter().filter(|l| !required.iter().any(|r| r == *l)) {
            ctx.report(
                RawProblem::new(
                    ProblemKind::ClassifierIncomplete,
                    loc,
                    format!(
                        "classifier `{}` branch `{label}` is not a declared request type",
                        graph[idx].id
                    ),
                )
                .help("add it to `request_types` in bundle.yaml"),
            );
        }
    }
}
