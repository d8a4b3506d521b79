//! End-to-end tests of the `turnstile` binary: exit codes, located
//! diagnostics for every broken fixture, graph output that Graphviz renders.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "../../engine/tests/support/mod.rs"]
mod support;

use std::process::{Command, Output};

use support::{BROKEN, bundle_in, mutated, position_of, toy_bundle};

fn turnstile(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_turnstile"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run turnstile")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn check_accepts_the_example_bundle() {
    let out = turnstile(&["check", toy_bundle().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("ok: bundle `toy-orders`"));
}

#[test]
fn check_rejects_each_broken_fixture_and_names_the_line() {
    for case in BROKEN {
        let dir = mutated(case.edits);
        let root = bundle_in(&dir);
        let out = turnstile(&["check", root.to_str().unwrap()]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {stderr}", case.name);
        assert!(
            stderr.contains(case.code),
            "{}: no {} in {stderr}",
            case.name,
            case.code
        );
        if let Some((file, needle)) = case.at {
            let (line, column) = position_of(&root, file, needle);
            let location = format!("toy-orders/{file}:{line}:{column}");
            assert!(
                stderr.contains(&location),
                "{}: no {location} in {stderr}",
                case.name
            );
        }
    }
}

#[test]
fn check_reports_json_for_machines() {
    let dir = mutated(&[support::Edit {
        file: "flows/cancel.yaml",
        find: "    next: verify",
        replace: "    next: verfiy",
    }]);
    let out = turnstile(&[
        "check",
        bundle_in(&dir).to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["valid"], false);
    let problem = &report["problems"][0];
    assert_eq!(problem["code"], "turnstile::unknown_node");
    assert_eq!(problem["file"], "toy-orders/flows/cancel.yaml");
    assert_eq!(problem["line"], 57);
    assert_eq!(problem["help"], "did you mean `verify`?");
}

#[test]
fn a_missing_bundle_is_an_error_not_a_panic() {
    let out = turnstile(&["check", "/nonexistent/bundle"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("cannot read"));
}

#[test]
fn usage_errors_exit_with_two() {
    let out = turnstile(&["graph", toy_bundle().to_str().unwrap(), "--format", "png"]);
    assert_eq!(out.status.code(), Some(2));
}

fn graph(format: &str) -> String {
    let out = turnstile(&["graph", toy_bundle().to_str().unwrap(), "--format", format]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn graph_dot_draws_node_types_distinctly_and_renders() {
    let dot = graph("dot");
    assert!(
        dot.contains("shape=trapezium"),
        "authorization as trapezoid"
    );
    assert!(dot.contains("shape=diamond"), "decision as diamond");
    assert!(
        dot.contains("shape=parallelogram"),
        "user input as parallelogram"
    );
    assert!(dot.contains("label=\"cancel\""), "subflow cluster");
    let dir = tempfile::tempdir().unwrap();
    let (dot_file, svg_file) = (dir.path().join("g.dot"), dir.path().join("g.svg"));
    std::fs::write(&dot_file, &dot).unwrap();
    let rendered = Command::new("dot")
        .args(["-Tsvg", "-o"])
        .arg(&svg_file)
        .arg(&dot_file)
        .output()
        .expect("Graphviz `dot` must be installed (`.ci/run` installs Debian's graphviz)");
    assert!(rendered.status.success(), "{}", text(&rendered.stderr));
    let svg = std::fs::read_to_string(&svg_file).unwrap();
    assert!(svg.contains("authorize") && svg.contains("<svg"));
}

#[test]
fn graph_mermaid_uses_mermaid_shapes() {
    let mermaid = graph("mermaid");
    assert!(mermaid.starts_with("flowchart TD\n"));
    assert!(mermaid.contains("[/\"authorize"), "trapezoid");
    assert!(mermaid.contains("{\"status\"}"), "diamond");
    assert!(mermaid.contains("-->|\"pending\"|"));
}

#[test]
fn graph_json_lists_nodes_and_edges() {
    let value: serde_json::Value = serde_json::from_str(&graph("json")).unwrap();
    let nodes = value["nodes"].as_array().unwrap();
    let edges = value["edges"].as_array().unwrap();
    assert_eq!(value["entry"], "start");
    let auth = nodes
        .iter()
        .find(|n| n["id"] == "cancel.authorize")
        .unwrap();
    assert_eq!(auth["type"], "tool_authorization");
    assert_eq!(auth["tool"], "cancel_pending_order");
    assert!(edges.iter().any(|e| e["from"] == "cancel.status"
        && e["to"] == "cancel.reason"
        && e["when"] == "pending"));
    assert!(
        edges
            .iter()
            .any(|e| e["from"] == "identify.done" && e["to"] == "classify")
    );
}

#[test]
fn graph_writes_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.mmd");
    let out = turnstile(&[
        "graph",
        toy_bundle().to_str().unwrap(),
        "--format",
        "mermaid",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        std::fs::read_to_string(file)
            .unwrap()
            .starts_with("flowchart TD")
    );
}

#[test]
fn schema_describes_every_bundle_file() {
    let out = turnstile(&["schema"]);
    assert_eq!(out.status.code(), Some(0));
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = schema.to_string();
    for key in ["manifest", "domain", "flow"] {
        assert!(schema[key].is_object(), "no {key} schema");
    }
    for field in [
        "request_types",
        "out_of_scope",
        "guard",
        "branches",
        "remediation",
        "tool_authorization",
        "reads",
    ] {
        assert!(text.contains(field), "schema lacks {field}");
    }
}
