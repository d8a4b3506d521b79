//! `turnstile graph`: a legend of the node shapes, the main flow as the
//! top-down spine, guards and checks on the drawing with `--detail`, and
//! SVG/PNG straight from Graphviz (with a clear error when it is missing).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "../../engine/tests/support/mod.rs"]
mod support;

use std::process::{Command, Output};

use support::toy_bundle;

fn turnstile(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_turnstile"));
    command.args(args).env("NO_COLOR", "1");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("run turnstile")
}

fn graph(extra: &[&str]) -> String {
    let toy = toy_bundle();
    let mut args = vec!["graph", toy.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = turnstile(&args, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_dot_output_has_a_legend_of_every_node_shape() {
    let dot = graph(&[]);
    let legend_start = dot
        .find("subgraph cluster_legend {")
        .expect("a legend cluster");
    let legend = &dot[legend_start..];
    assert!(legend.contains("label=\"Legend\""));
    for (words, shape) in [
        ("entry", "circle"),
        ("user input", "parallelogram"),
        ("agent action", "box"),
        ("tool call (read)", "cylinder"),
        ("tool authorization", "trapezium"),
        ("decision", "diamond"),
        ("subflow", "component"),
        ("exit", "doublecircle"),
    ] {
        assert!(
            legend.contains(&format!("[label=\"{words}\", shape={shape},")),
            "legend entry {words} as {shape}:\n{legend}"
        );
    }
}

#[test]
fn the_main_flow_is_the_top_down_spine() {
    let dot = graph(&[]);
    assert!(dot.contains("rankdir=TB"));
    // Main-flow nodes share a group, subflow nodes do not.
    let line_of = |label: &str| {
        dot.lines()
            .find(|l| l.contains(&format!("[label=\"{label}")))
            .unwrap_or_else(|| panic!("no node {label}:\n{dot}"))
            .to_owned()
    };
    assert!(line_of("classify").contains("group=main"));
    assert!(!line_of("read_order").contains("group=main"));
    // A subflow's returns do not pull the main flow below it; the main flow
    // continues from the subflow node itself.
    assert!(dot.contains("style=dashed, constraint=false"));
    assert!(dot.contains("[style=invis, weight=8]"));
}

#[test]
fn detail_shows_guards_checks_and_questions_whole() {
    let plain = graph(&[]);
    assert!(!plain.contains("label=\"authorize\\ncancel_pending_order\\nguard: "));
    // The whole guard, wrapped over lines, on the drawing...
    let detailed = graph(&["--detail"]);
    assert!(
        detailed.contains(
            "guard: args.order_id == $order &&\\nargs.reason in enum(cancel_reason) &&\\norder[args.order_id].status == \\\"pending\\\""
        ),
        "{detailed}"
    );
    assert!(detailed.contains("check: args.user_id == $user"));
    assert!(detailed.contains("label=\"pending\\norder[$order].status == \\\"pending\\\"\""));
    assert!(detailed.contains("judge: The user asks to cancel an order."));
    let mermaid = graph(&["--format", "mermaid", "--detail"]);
    assert!(mermaid.contains("guard: args.order_id"));
    // ... and in the tooltips, with or without --detail: the node's
    // expectation and its whole guard; a branch's whole check.
    assert!(
        plain.contains(
            "tooltip=\"Cancel exactly the order that was checked, with an accepted reason.\\nguard: args.order_id == $order && args.reason in enum(cancel_reason) && order[args.order_id].status == \\\"pending\\\"\""
        ),
        "{plain}"
    );
    assert!(
        plain.contains("labeltooltip=\"pending: order[$order].status == \\\"pending\\\"\""),
        "{plain}"
    );
}

#[test]
fn svg_and_png_come_straight_from_graphviz() {
    let svg = graph(&["--format", "svg"]);
    assert!(svg.contains("<svg") && svg.contains("authorize") && svg.contains("Legend"));
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("toy.png");
    graph(&["--format", "png", "--detail", "-o", png.to_str().unwrap()]);
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG file");
}

#[test]
fn without_graphviz_the_error_says_what_to_install() {
    let toy = toy_bundle();
    let out = turnstile(
        &["graph", toy.to_str().unwrap(), "--format", "svg"],
        &[("TURNSTILE_DOT", "/nonexistent/dot")],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`--format svg` needs Graphviz's `dot`")
            && stderr.contains("install Graphviz"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// `--flow`: one flow alone (telecom's service troubleshooting), its
/// subflows as single boxes joined to where the conversation goes on, the
/// user's device tools marked; an unknown flow lists the known ones.
#[test]
fn one_flow_is_drawn_alone_with_its_subflows_as_boxes() {
    let telecom = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/telecom");
    let telecom = telecom.to_str().unwrap();
    let out = turnstile(&["graph", telecom, "--flow", "mobile_data.service"], &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dot = String::from_utf8(out.stdout).unwrap();
    let all = turnstile(&["graph", telecom], &[]);
    let all = String::from_utf8(all.stdout).unwrap();
    let nodes = |d: &str| {
        d.lines()
            .filter(|l| l.contains(" [label=") && l.trim_start().starts_with('n'))
            .count()
    };
    assert!(
        nodes(&dot) < nodes(&all) / 5,
        "{} of {}",
        nodes(&dot),
        nodes(&all)
    );
    assert!(dot.contains("telecom: flow mobile_data.service"));
    // The manual's order, each step's node present; the device fixes are the user's.
    for step in [
        "status_bar",
        "airplane",
        "sim_check",
        "apn_check",
        "line",
        "resume",
        "escalate",
    ] {
        assert!(dot.contains(&format!("label=\"{step}")), "{step}");
    }
    assert!(dot.contains("toggle_airplane_mode (user)"));
    assert!(
        dot.contains("label=\"returns\""),
        "a subflow box continues where it returns"
    );
    assert!(!dot.contains("subgraph cluster_0"), "no expanded subflow");
    let mermaid = turnstile(
        &["graph", telecom, "--flow", "main", "--format", "mermaid"],
        &[],
    );
    assert_eq!(mermaid.status.code(), Some(0));
    assert!(
        String::from_utf8(mermaid.stdout)
            .unwrap()
            .contains("==>|returns|")
    );
    let unknown = turnstile(&["graph", telecom, "--flow", "mobile"], &[]);
    assert_eq!(unknown.status.code(), Some(2));
    let err = String::from_utf8(unknown.stderr).unwrap();
    assert!(
        err.contains("has no flow `mobile`") && err.contains("mobile_data.service"),
        "{err}"
    );
}
