//! The audit's fast path against its full path. The fast path (what
//! `turnstile audit` takes with `--judge none` and the offline judge) reads
//! tool results unparsed and parses only those of the tools the bundle
//! reads; the full path parses every result, as `replay` does. On every
//! vendored tau2 trace of every shipped bundle, under both judges, the two
//! must give the same report, field for field (verdict, deviations,
//! requests, metrics, anomalies, timeline). Also: a result of a tool the
//! bundle reads as JSON that is not JSON is reported, on both paths.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "support/tau2.rs"]
mod tau2;

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;

use turnstile_engine::audit::{
    AssumingJudge, AuditJudge, AuditPlan, Auditor, Counters, Item, JudgeMode, RunOptions,
    TraceOptions, TraceReport, TraceSource, audit_trace, run,
};
use turnstile_engine::import::{Format, ResultContent, TraceReader};
use turnstile_engine::session::BundleRuntime;
use turnstile_judge::OfflineJudge;

fn runtime(bundle: &str) -> Arc<BundleRuntime> {
    BundleRuntime::new(Arc::new(tau2::shipped_bundle(bundle))).unwrap()
}

fn plan(bundle: &str, mode: JudgeMode) -> AuditPlan {
    AuditPlan::new(runtime(bundle), mode)
}

/// Every report of `files`, in order, on the path `results` selects.
fn reports(auditor: &Auditor, files: &[PathBuf]) -> Vec<TraceReport> {
    let mut out = Vec::new();
    // Two workers: the reports still come in input order.
    let run_options = RunOptions {
        threads: 2,
        format: None,
    };
    run(
        files,
        &run_options,
        &Counters::default(),
        auditor,
        &mut |item| {
            match item {
                Item::Report(report) => out.push(*report),
                Item::Rejected(rejection) => panic!("rejected: {rejection:?}"),
                Item::File(_) => {}
            }
            ControlFlow::Continue(())
        },
    )
    .unwrap();
    out
}

#[test]
fn the_fast_path_gives_the_full_paths_reports_on_every_tau2_trace() {
    let judges = || {
        [
            ("none", AuditJudge::Assume),
            ("offline", AuditJudge::Immediate(Arc::new(OfflineJudge))),
        ]
    };
    for bundle in ["retail", "airline", "telecom"] {
        let files = tau2::domain_trace_files(bundle);
        for ((name, judge), (_, same)) in judges().into_iter().zip(judges()) {
            // Neither judge reads tool turns: the auditor takes the fast path.
            let fast = Auditor::new(runtime(bundle), judge, true);
            assert_eq!(fast.results(), ResultContent::Raw, "--judge {name}");
            let full =
                Auditor::new(runtime(bundle), same, true).with_results(ResultContent::Parsed);
            let full = reports(&full, &files);
            let fast = reports(&fast, &files);
            assert!(!full.is_empty(), "{bundle}: no traces");
            assert_eq!(full.len(), fast.len(), "{bundle} --judge {name}");
            for (a, b) in full.iter().zip(&fast) {
                assert_eq!(a, b, "{bundle} --judge {name}: trace {}", a.trace);
            }
            // The check can fail: the audit found something to report.
            assert!(
                full.iter().any(|r| r.flagged()),
                "{bundle} --judge {name}: nothing flagged"
            );
        }
    }
}

#[test]
fn the_fast_path_leaves_the_results_of_tools_the_bundle_does_not_read_unparsed() {
    let plan = plan("retail", JudgeMode::Assumed);
    assert!(plan.reads_result("get_order_details"));
    assert!(
        !plan.reads_result("calculate"),
        "calculate is read by no spec"
    );
}

/// The anomalies of a retail conversation, read from native JSONL with
/// tool results delivered as `results`, whose `get_order_details` (read as
/// JSON) answers `content` (its JSON text).
fn anomalies(content: &str, results: ResultContent) -> Vec<String> {
    let lines = [
        r#"{"type":"user","text":"Please cancel order #W1."}"#.to_owned(),
        r##"{"type":"call","id":"c1","tool":"get_order_details","args":{"order_id":"#W1"}}"##
            .to_owned(),
        format!(r#"{{"type":"result","id":"c1","ok":true,"content":{content}}}"#),
    ];
    let reader = TraceReader::from_reader(
        std::io::Cursor::new(lines.join("\n")),
        "t.jsonl",
        Format::Native,
    )
    .with_result_content(results);
    let traces: Vec<_> = reader.map(Result::unwrap).collect();
    assert_eq!(traces.len(), 1);
    let plan = plan("retail", JudgeMode::Assumed);
    let options = TraceOptions {
        timeline: false,
        results,
    };
    let trace = traces.into_iter().next().unwrap();
    let source = TraceSource::default();
    audit_trace(&plan, trace, &source, &AssumingJudge, options)
        .unwrap()
        .anomalies
}

#[test]
fn a_result_that_is_not_json_for_a_tool_read_as_json_is_reported() {
    // The tool answered text: the native line holds it as a JSON string.
    let text = r#""Order W1: pending (could not render JSON)""#;
    let parsed = anomalies(text, ResultContent::Parsed);
    assert_eq!(parsed, anomalies(text, ResultContent::Raw));
    assert_eq!(parsed.len(), 1, "{parsed:?}");
    assert!(
        parsed[0].contains("event 2") && parsed[0].contains("get_order_details is not JSON"),
        "{parsed:?}"
    );
    // A JSON result, raw or parsed, is not reported.
    let json = r##"{"order_id": "#W1", "status": "pending"}"##;
    assert!(anomalies(json, ResultContent::Raw).is_empty());
    assert!(anomalies(json, ResultContent::Parsed).is_empty());
}
