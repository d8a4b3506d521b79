//! Renders a compiled workflow as Graphviz DOT, Mermaid or JSON. Node types
//! are drawn distinctly, as in the PolicyGuide figures: authorizations as
//! trapezoids, decisions as diamonds, user turns as parallelograms.

use std::collections::BTreeMap;
use std::fmt::Write;

use petgraph::visit::EdgeRef;
use serde_json::json;

use crate::bundle::model::{Actor, NodeKind};
use crate::compile::CompiledBundle;
use crate::fsm::{Edge, Node, NodeIdx};

/// How [`render_graph`] writes the workflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphFormat {
    /// Graphviz DOT, subflows as clusters.
    Dot,
    /// A Mermaid flowchart.
    Mermaid,
    /// Nodes and edges as JSON.
    Json,
}

/// What a drawing shows beyond the structure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GraphOptions {
    /// Show each node's check, guard and judge question and each branch's
    /// guard, whole and wrapped, on the drawing itself (not only in the
    /// tooltips, which carry them whole too but which PNG and most SVG
    /// viewers do not show).
    pub detail: bool,
    /// Draw one flow instance only (`""` the main flow, `mobile_data`,
    /// `mobile_data.service`, see [`flow_instances`]): its own nodes, each
    /// subflow it invokes a single box joined to where the conversation
    /// goes on once it returns. `None`: everything, subflows expanded.
    pub flow: Option<String>,
}

/// The flow instances of `bundle`'s compiled workflow, the main flow (`""`)
/// first: what [`GraphOptions::flow`] accepts.
pub fn flow_instances(bundle: &CompiledBundle) -> Vec<String> {
    let graph = &bundle.workflow.graph;
    let mut names: Vec<String> = graph
        .node_indices()
        .map(|idx| instance(&graph[idx].id).to_owned())
        .collect();
    names.sort();
    names.dedup();
    names
}

impl GraphOptions {
    /// Whether `node` is drawn.
    fn shows(&self, node: &Node) -> bool {
        self.flow
            .as_deref()
            .is_none_or(|flow| instance(&node.id) == flow)
    }
}

/// The compiled workflow of `bundle`, drawn in `format`.
pub fn render_graph(bundle: &CompiledBundle, format: GraphFormat) -> String {
    render_graph_with(bundle, format, GraphOptions::default())
}

/// The compiled workflow of `bundle`, drawn in `format` with `options`.
pub fn render_graph_with(
    bundle: &CompiledBundle,
    format: GraphFormat,
    options: GraphOptions,
) -> String {
    match format {
        GraphFormat::Dot => dot(bundle, &options),
        GraphFormat::Mermaid => mermaid(bundle, &options),
        GraphFormat::Json => json(bundle, &options),
    }
}

/// Every node type with the words the legend uses for it, in reading order.
const LEGEND: [(NodeKind, &str); 8] = [
    (NodeKind::Entry, "entry"),
    (NodeKind::UserInput, "user input"),
    (NodeKind::AgentAction, "agent action"),
    (NodeKind::ToolCall, "tool call (read)"),
    (NodeKind::ToolAuthorization, "tool authorization"),
    (NodeKind::Decision, "decision"),
    (NodeKind::Subflow, "subflow"),
    (NodeKind::Exit, "exit"),
];

/// Longest line of an expression on a drawing: longer ones wrap.
const DETAIL_CHARS: usize = 44;

/// `text` whole, its words on lines of at most [`DETAIL_CHARS`] characters
/// (a longer word on a line of its own): nothing is cut.
fn wrap(text: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= DETAIL_CHARS => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_owned()),
        }
    }
    lines.join("\n")
}

/// The lines `--detail` adds under a node's name: every check, guard and
/// question, whole.
fn detail_lines(node: &Node) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(check) = &node.source.check {
        lines.push(wrap(&format!("check: {check}")));
    }
    if let Some(guard) = &node.source.guard {
        lines.push(wrap(&format!("guard: {guard}")));
    }
    if let Some(judge) = &node.criterion.judge {
        lines.push(wrap(&format!("judge: {judge}")));
    }
    lines
}

/// A node's tooltip: what it expects, then its check, guard and question,
/// each whole on one line.
fn tooltip(node: &Node) -> String {
    let flat = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut lines = vec![flat(node.expect.as_deref().unwrap_or(&node.id))];
    for (name, text) in [
        ("check", node.source.check.as_deref()),
        ("guard", node.source.guard.as_deref()),
        ("judge", node.criterion.judge.as_deref()),
    ] {
        if let Some(text) = text {
            lines.push(format!("{name}: {}", flat(text)));
        }
    }
    lines.join("\n")
}

/// What a branch is taken on, as written.
enum BranchGuard<'a> {
    Check(&'a str),
    Judge(&'a str),
    Otherwise,
    Unguarded,
}

/// A branch's label and guard; `None` for any other edge.
fn branch_guard(edge: &Edge) -> Option<(&str, BranchGuard<'_>)> {
    let Edge::Branch {
        label,
        judge,
        otherwise,
        check_source,
        ..
    } = edge
    else {
        return None;
    };
    let guard = match (check_source, judge, otherwise) {
        (Some(check), _, _) => BranchGuard::Check(check),
        (None, Some(judge), _) => BranchGuard::Judge(judge),
        (None, None, true) => BranchGuard::Otherwise,
        (None, None, false) => BranchGuard::Unguarded,
    };
    Some((label, guard))
}

/// A branch's tooltip: its label and its guard or question, whole.
fn branch_tooltip(edge: &Edge) -> Option<String> {
    let (label, guard) = branch_guard(edge)?;
    let flat = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(match guard {
        BranchGuard::Check(check) => format!("{label}: {}", flat(check)),
        BranchGuard::Judge(judge) => format!("{label}: judge: {}", flat(judge)),
        BranchGuard::Otherwise => format!("{label}: otherwise"),
        BranchGuard::Unguarded => label.to_owned(),
    })
}

/// A branch's label, with its guard under it when `detail` is asked.
fn branch_label(edge: &Edge, detail: bool) -> Option<String> {
    let (label, guard) = branch_guard(edge)?;
    if !detail {
        return Some(label.to_owned());
    }
    let guard = match guard {
        BranchGuard::Check(check) => format!("\n{}", wrap(check)),
        BranchGuard::Judge(judge) => format!("\n{}", wrap(&format!("judge: {judge}"))),
        BranchGuard::Otherwise => "\n(otherwise)".to_owned(),
        BranchGuard::Unguarded => String::new(),
    };
    Some(format!("{label}{guard}"))
}

fn dot_style(kind: NodeKind) -> (&'static str, &'static str) {
    match kind {
        NodeKind::Entry => ("circle", "#d9f2d9"),
        NodeKind::Exit => ("doublecircle", "#f2d9d9"),
        NodeKind::AgentAction => ("box", "#ffffff"),
        NodeKind::UserInput => ("parallelogram", "#e6f0ff"),
        NodeKind::ToolCall => ("cylinder", "#fff5d6"),
        NodeKind::ToolAuthorization => ("trapezium", "#ffd6d6"),
        NodeKind::Decision => ("diamond", "#f0e6ff"),
        NodeKind::Subflow => ("component", "#eeeeee"),
    }
}

fn short_label(node: &Node, detail: bool) -> String {
    let name = node.id.rsplit('.').next().unwrap_or(&node.id);
    let tool_or_outcome = match (&node.tool, node.outcome) {
        // Dual control: the user runs it on their device.
        (Some(tool), _) if node.actor == Actor::User => format!("\n{tool} (user)"),
        (Some(tool), _) => format!("\n{tool}"),
        (None, Some(outcome)) => format!("\n{outcome:?}").to_lowercase(),
        _ => String::new(),
    };
    // ASCII: Graphviz's default fonts lack most symbols.
    let judged = if node.criterion.judge.is_some() && !detail {
        " (judge)"
    } else {
        ""
    };
    let mut label = format!("{name}{judged}{tool_or_outcome}");
    if detail {
        for line in detail_lines(node) {
            label.push('\n');
            label.push_str(&line);
        }
    }
    label
}

/// The subflow instance a node belongs to: its id up to the last dot.
fn instance(id: &str) -> &str {
    id.rfind('.').map_or("", |i| &id[..i])
}

fn dot_escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// For each subflow node, where the conversation goes once the subflow
/// returns: the targets of its instance's return edges.
fn after_return(bundle: &CompiledBundle) -> BTreeMap<NodeIdx, Vec<NodeIdx>> {
    let graph = &bundle.workflow.graph;
    let mut after: BTreeMap<NodeIdx, Vec<NodeIdx>> = BTreeMap::new();
    for edge in graph.edge_references() {
        let (from, to) = (&graph[edge.source()], &graph[edge.target()]);
        if from.kind != NodeKind::Exit || instance(&from.id) == instance(&to.id) {
            continue;
        }
        if let Some(&invoker) = bundle.workflow.index.get(instance(&from.id)) {
            let targets = after.entry(invoker).or_default();
            if !targets.contains(&edge.target()) {
                targets.push(edge.target());
            }
        }
    }
    after
}

fn dot(bundle: &CompiledBundle, options: &GraphOptions) -> String {
    let graph = &bundle.workflow.graph;
    let mut out = String::new();
    let title = match options.flow.as_deref() {
        None => bundle.name.clone(),
        Some("") => format!("{}: main flow", bundle.name),
        Some(flow) => format!("{}: flow {flow}", bundle.name),
    };
    let _ = writeln!(out, "digraph \"{}\" {{", dot_escape(&bundle.name));
    // Top-down; `newrank` ranks clusters with the rest, so the main flow
    // reads from the top and each subflow hangs beside its invoking node.
    let _ = writeln!(
        out,
        "  graph [rankdir=TB, newrank=true, compound=true, nodesep=0.4, ranksep=0.45, fontname=\"Helvetica\", label=\"{}\", labelloc=t];",
        dot_escape(&title)
    );
    let _ = writeln!(
        out,
        "  node [fontname=\"Helvetica\", fontsize=10, style=filled];"
    );
    let _ = writeln!(out, "  edge [fontname=\"Helvetica\", fontsize=9];");
    let mut clusters: BTreeMap<&str, Vec<_>> = BTreeMap::new();
    for idx in graph.node_indices().filter(|i| options.shows(&graph[*i])) {
        clusters
            .entry(instance(&graph[idx].id))
            .or_default()
            .push(idx);
    }
    let mut cluster_of: BTreeMap<&str, usize> = BTreeMap::new();
    for (cluster_index, (name, members)) in clusters.iter().enumerate() {
        // The flow drawn alone is the page's main column.
        let main = name.is_empty() || options.flow.is_some();
        let indent = if main { "  " } else { "    " };
        if !main {
            cluster_of.insert(name, cluster_index);
            let _ = writeln!(out, "  subgraph cluster_{cluster_index} {{");
            let _ = writeln!(
                out,
                "    label=\"{}\"; style=rounded; color=\"#999999\";",
                dot_escape(name)
            );
        }
        for &idx in members {
            let node = &graph[idx];
            let (shape, fill) = dot_style(node.kind);
            // The main flow's nodes share a group: Graphviz keeps them in
            // one straight column.
            let group = if main { ", group=main" } else { "" };
            let _ = writeln!(
                out,
                "{indent}n{} [label=\"{}\", shape={shape}, fillcolor=\"{fill}\"{group}, tooltip=\"{}\"];",
                idx.index(),
                dot_escape(&short_label(node, options.detail)),
                dot_escape(&tooltip(node)),
            );
        }
        if !main {
            let _ = writeln!(out, "  }}");
        }
    }
    for edge in graph.edge_references() {
        let (from, to) = (&graph[edge.source()], &graph[edge.target()]);
        if !(options.shows(from) && options.shows(to)) {
            continue;
        }
        let mut attributes = Vec::new();
        if let Some(label) = branch_label(edge.weight(), options.detail) {
            attributes.push(format!("label=\"{}\"", dot_escape(&label)));
        }
        if let Some(tip) = branch_tooltip(edge.weight()) {
            let tip = dot_escape(&tip);
            attributes.push(format!("tooltip=\"{tip}\", labeltooltip=\"{tip}\""));
        }
        let crosses = instance(&from.id) != instance(&to.id);
        if crosses && from.kind == NodeKind::Exit {
            // A return: drawn, but it must not pull the invoking flow's
            // next node below the subflow.
            attributes.push("style=dashed, constraint=false, color=\"#888888\"".to_owned());
        } else if crosses {
            attributes.push("style=dashed, color=\"#888888\"".to_owned());
        } else if instance(&from.id).is_empty() {
            attributes.push("weight=8".to_owned());
        }
        let attributes = if attributes.is_empty() {
            String::new()
        } else {
            format!(" [{}]", attributes.join(", "))
        };
        let _ = writeln!(
            out,
            "  n{} -> n{}{attributes};",
            edge.source().index(),
            edge.target().index()
        );
    }
    // The main flow's spine through each subflow: its node, then where the
    // conversation continues after the subflow returns.
    // Drawn alone, a subflow is one box: this edge is the way on.
    let spine = if options.flow.is_some() {
        "label=\"returns\", style=bold, weight=8"
    } else {
        "style=invis, weight=8"
    };
    for (invoker, targets) in after_return(bundle) {
        for target in targets {
            if !(options.shows(&graph[invoker]) && options.shows(&graph[target])) {
                continue;
            }
            let _ = writeln!(
                out,
                "  n{} -> n{} [{spine}];",
                invoker.index(),
                target.index()
            );
        }
    }
    legend(&mut out);
    out.push_str("}\n");
    out
}

/// A boxed legend of the node shapes, drawn under the workflow.
fn legend(out: &mut String) {
    let _ = writeln!(out, "  subgraph cluster_legend {{");
    let _ = writeln!(
        out,
        "    label=\"Legend\"; style=rounded; color=\"#bbbbbb\"; fontsize=10;"
    );
    for (i, (kind, words)) in LEGEND.iter().enumerate() {
        let (shape, fill) = dot_style(*kind);
        let _ = writeln!(
            out,
            "    legend_{i} [label=\"{words}\", shape={shape}, fillcolor=\"{fill}\", fontsize=9];"
        );
    }
    // Invisible links keep the legend in one row.
    let chain: Vec<String> = (0..LEGEND.len()).map(|i| format!("legend_{i}")).collect();
    let _ = writeln!(out, "    {{ rank=same; {} }}", chain.join("; "));
    let _ = writeln!(out, "    {} [style=invis];", chain.join(" -> "));
    let _ = writeln!(out, "  }}");
}

fn mermaid_escape(text: &str) -> String {
    text.replace('"', "#quot;").replace('\n', "<br/>")
}

fn mermaid(bundle: &CompiledBundle, options: &GraphOptions) -> String {
    let graph = &bundle.workflow.graph;
    let mut out = String::from("flowchart TD\n");
    for idx in graph.node_indices().filter(|i| options.shows(&graph[*i])) {
        let node = &graph[idx];
        let label = mermaid_escape(&short_label(node, options.detail));
        let (open, close) = match node.kind {
            NodeKind::Entry | NodeKind::Exit => ("([\"", "\"])"),
            NodeKind::AgentAction => ("[\"", "\"]"),
            NodeKind::UserInput => ("[/\"", "\"/]"),
            NodeKind::ToolCall => ("[(\"", "\")]"),
            NodeKind::ToolAuthorization => ("[/\"", "\"\\]"),
            NodeKind::Decision => ("{\"", "\"}"),
            NodeKind::Subflow => ("[[\"", "\"]]"),
        };
        let _ = writeln!(out, "  n{}{open}{label}{close}", idx.index());
    }
    for edge in graph.edge_references() {
        if !(options.shows(&graph[edge.source()]) && options.shows(&graph[edge.target()])) {
            continue;
        }
        let (s, t) = (edge.source().index(), edge.target().index());
        match edge.weight() {
            Edge::Next => {
                let _ = writeln!(out, "  n{s} --> n{t}");
            }
            branch @ Edge::Branch { .. } => {
                let label = branch_label(branch, options.detail).unwrap_or_default();
                let _ = writeln!(out, "  n{s} -->|\"{}\"| n{t}", mermaid_escape(&label));
            }
        }
    }
    if options.flow.is_some() {
        for (invoker, targets) in after_return(bundle) {
            for target in targets {
                if options.shows(&graph[invoker]) && options.shows(&graph[target]) {
                    let _ = writeln!(
                        out,
                        "  n{} ==>|returns| n{}",
                        invoker.index(),
                        target.index()
                    );
                }
            }
        }
    }
    out
}

fn json(bundle: &CompiledBundle, options: &GraphOptions) -> String {
    let graph = &bundle.workflow.graph;
    let nodes: Vec<_> = graph
        .node_indices()
        .filter(|i| options.shows(&graph[*i]))
        .map(|idx| {
            let node = &graph[idx];
            json!({
                "index": idx.index(),
                "id": node.id,
                "type": node.kind,
                "actor": node.actor,
                "flow": node.flow,
                "expect": node.expect,
                "check": node.criterion.check.map(|c| c.0),
                "judge": node.criterion.judge,
                "tool": node.tool,
                "guard": node.guard.map(|c| c.0),
                "outcome": node.outcome,
                "classifier": node.classifier,
                "cites": node.cites,
                "remediation": node.remediation.as_ref().map(|r| &r.source),
                "origin": node.origin,
            })
        })
        .collect();
    let edges: Vec<_> = graph
        .edge_references()
        .filter(|e| options.shows(&graph[e.source()]) && options.shows(&graph[e.target()]))
        .map(|edge| {
            let (label, judge, otherwise) = match edge.weight() {
                Edge::Next => (None, None, false),
                Edge::Branch {
                    label,
                    judge,
                    otherwise,
                    ..
                } => (Some(label), judge.as_ref(), *otherwise),
            };
            json!({
                "from": graph[edge.source()].id,
                "to": graph[edge.target()].id,
                "when": label.map_or("satisfied", |l| l.as_str()),
                "judge": judge,
                "otherwise": otherwise,
            })
        })
        .collect();
    let value = json!({
        "bundle": bundle.name,
        "hash": bundle.hash,
        "entry": graph[bundle.workflow.entry].id,
        "nodes": nodes,
        "edges": edges,
    });
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

/// The kinds of file a bundle is made of, each with its own schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BundleFile {
    /// `bundle.yaml`, the manifest.
    Manifest,
    /// The domain file (`domain.yaml`).
    Domain,
    /// One flow file (`flows/*.yaml`).
    Flow,
}

impl BundleFile {
    /// Every kind, in the order a bundle is read.
    pub const ALL: [BundleFile; 3] = [BundleFile::Manifest, BundleFile::Domain, BundleFile::Flow];

    /// The kind's name on the command line and in schema file names
    /// (`manifest.schema.json`).
    pub fn name(self) -> &'static str {
        match self {
            BundleFile::Manifest => "manifest",
            BundleFile::Domain => "domain",
            BundleFile::Flow => "flow",
        }
    }
}

/// The JSON Schema of one kind of bundle file: a document of its own, so an
/// editor can be pointed at it (`# yaml-language-server: $schema=...`).
pub fn bundle_schema(file: BundleFile) -> serde_json::Value {
    let (schema, title, description) = match file {
        BundleFile::Manifest => (
            schemars::schema_for!(crate::bundle::model::Manifest),
            "Turnstile bundle manifest (bundle.yaml)",
            "What the bundle is and where its parts live: flows, request types, protected reads, the clock.",
        ),
        BundleFile::Domain => (
            schemars::schema_for!(crate::bundle::model::DomainFile),
            "Turnstile bundle domain (domain.yaml)",
            "The domain's enums, entities and tools, and the facts tool results carry.",
        ),
        BundleFile::Flow => (
            schemars::schema_for!(crate::bundle::model::FlowDef),
            "Turnstile bundle flow (flows/*.yaml)",
            "One flow of the workflow: its variables and nodes.",
        ),
    };
    let mut value = serde_json::to_value(schema).unwrap_or_default();
    if let Some(fields) = value.as_object_mut() {
        fields.insert("title".to_owned(), json!(title));
        fields.insert("description".to_owned(), json!(description));
    }
    value
}
