//! Renders a compiled workflow as Graphviz DOT, Mermaid or JSON. Node types
//! are drawn distinctly, as in the PolicyGuide figures: authorizations as
//! trapezoids, decisions as diamonds, user turns as parallelograms.

use std::collections::BTreeMap;
use std::fmt::Write;

use petgraph::visit::EdgeRef;
use serde_json::json;

use crate::bundle::model::NodeKind;
use crate::compile::CompiledBundle;
use crate::fsm::{Edge, Node};

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

/// The compiled workflow of `bundle`, drawn in `format`.
pub fn render_graph(bundle: &CompiledBundle, format: GraphFormat) -> String {
    match format {
        GraphFormat::Dot => dot(bundle),
        GraphFormat::Mermaid => mermaid(bundle),
        GraphFormat::Json => json(bundle),
    }
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

fn short_label(node: &Node) -> String {
    let name = node.id.rsplit('.').next().unwrap_or(&node.id);
    let detail = match (&node.tool, node.outcome) {
        (Some(tool), _) => format!("\n{tool}"),
        (None, Some(outcome)) => format!("\n{outcome:?}").to_lowercase(),
        _ => String::new(),
    };
    // ASCII: Graphviz's default fonts lack most symbols.
    let judged = if node.criterion.judge.is_some() {
        " (judge)"
    } else {
        ""
    };
    format!("{name}{judged}{detail}")
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

fn dot(bundle: &CompiledBundle) -> String {
    let graph = &bundle.workflow.graph;
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", dot_escape(&bundle.name));
    let _ = writeln!(
        out,
        "  graph [rankdir=TB, fontname=\"Helvetica\", label=\"{}\", labelloc=t];",
        dot_escape(&bundle.name)
    );
    let _ = writeln!(
        out,
        "  node [fontname=\"Helvetica\", fontsize=10, style=filled];"
    );
    let _ = writeln!(out, "  edge [fontname=\"Helvetica\", fontsize=9];");
    let mut clusters: BTreeMap<&str, Vec<_>> = BTreeMap::new();
    for idx in graph.node_indices() {
        clusters
            .entry(instance(&graph[idx].id))
            .or_default()
            .push(idx);
    }
    for (cluster_index, (name, members)) in clusters.iter().enumerate() {
        let indent = if name.is_empty() { "  " } else { "    " };
        if !name.is_empty() {
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
            let _ = writeln!(
                out,
                "{indent}n{} [label=\"{}\", shape={shape}, fillcolor=\"{fill}\", tooltip=\"{}\"];",
                idx.index(),
                dot_escape(&short_label(node)),
                dot_escape(node.expect.as_deref().unwrap_or(&node.id)),
            );
        }
        if !name.is_empty() {
            let _ = writeln!(out, "  }}");
        }
    }
    for edge in graph.edge_references() {
        let label = match edge.weight() {
            Edge::Next => String::new(),
            Edge::Branch { label, .. } => format!(" [label=\"{}\"]", dot_escape(label)),
        };
        let _ = writeln!(
            out,
            "  n{} -> n{}{label};",
            edge.source().index(),
            edge.target().index()
        );
    }
    out.push_str("}\n");
    out
}

fn mermaid_escape(text: &str) -> String {
    text.replace('"', "#quot;").replace('\n', "<br/>")
}

fn mermaid(bundle: &CompiledBundle) -> String {
    let graph = &bundle.workflow.graph;
    let mut out = String::from("flowchart TD\n");
    for idx in graph.node_indices() {
        let node = &graph[idx];
        let label = mermaid_escape(&short_label(node));
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
        let (s, t) = (edge.source().index(), edge.target().index());
        match edge.weight() {
            Edge::Next => {
                let _ = writeln!(out, "  n{s} --> n{t}");
            }
            Edge::Branch { label, .. } => {
                let _ = writeln!(out, "  n{s} -->|\"{}\"| n{t}", mermaid_escape(label));
            }
        }
    }
    out
}

fn json(bundle: &CompiledBundle) -> String {
    let graph = &bundle.workflow.graph;
    let nodes: Vec<_> = graph
        .node_indices()
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

/// The JSON Schema of every bundle file, keyed by file role.
pub fn bundle_schema() -> serde_json::Value {
    let manifest = schemars::schema_for!(crate::bundle::model::Manifest);
    let domain = schemars::schema_for!(crate::bundle::model::DomainFile);
    let flow = schemars::schema_for!(crate::bundle::model::FlowDef);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Turnstile workflow bundle",
        "description": "Schemas of the three kinds of bundle files: bundle.yaml (manifest), the domain file and each flow file.",
        "manifest": manifest,
        "domain": domain,
        "flow": flow,
    })
}
