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

use std::future::Future;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;

use turnstile_engine::audit::run::{Counters, Item, RunOptions, run};
use turnstile_engine::audit::{
    AssumingJudge, AuditPlan, JudgeMode, TraceOptions, TraceReport, TraceSource, audit_trace,
};
use turnstile_engine::import::ResultContent;
use turnstile_engine::session::BundleRuntime;
use turnstile_engine::trace::{Event, Trace, TraceMeta};
use turnstile_judge::{Judge, OfflineJudge};

fn block_on<F: Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        std::thread::yield_now();
    }
}

fn plan(bundle: &str, mode: JudgeMode) -> AuditPlan {
    let rt = BundleRuntime::new(Arc::new(tau2::shipped_bundle(bundle))).unwrap();
    AuditPlan::new(rt, mode)
}

/// Every report of `files`, in order, on the path `results` selects.
fn reports(
    plan: &AuditPlan,
    judge: &dyn Judge,
    files: &[PathBuf],
    results: ResultContent,
) -> Vec<TraceReport> {
    let options = TraceOptions {
        timeline: true,
        results,
    };
    let audit = |trace, source: &_| {
        block_on(audit_trace(plan, trace, source, judge, options)).map_err(|e| e.to_string())
    };
    let mut out = Vec::new();
    // Two workers: the reports still come in input order.
    let run_options = RunOptions {
        threads: 2,
        format: None,
        results,
    };
    run(
        files,
        &run_options,
        &Counters::default(),
        &audit,
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
    let judges: [(&str, JudgeMode, &dyn Judge); 2] = [
        ("none", JudgeMode::Assumed, &AssumingJudge),
        ("offline", JudgeMode::Judged, &OfflineJudge),
    ];
    for bundle in ["retail", "airline", "telecom"] {
        let files = tau2::domain_trace_files(bundle);
        for (name, mode, judge) in judges {
            let plan = plan(bundle, mode);
            let full = reports(&plan, judge, &files, ResultContent::Parsed);
            let fast = reports(&plan, judge, &files, ResultContent::Raw);
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

/// A retail conversation whose `get_order_details` (read as JSON) answers
/// `content`.
fn order_lookup(content: serde_json::Value) -> Trace {
    Trace {
        meta: TraceMeta {
            id: "t".into(),
            ..TraceMeta::default()
        },
        events: vec![
            Event::User {
                text: "Please cancel order #W1.".into(),
            },
            Event::Call {
                id: "c1".into(),
                tool: "get_order_details".into(),
                args: serde_json::json!({"order_id": "#W1"}),
                requestor: turnstile_engine::bundle::model::Side::Agent,
            },
            Event::Result {
                id: "c1".into(),
                ok: true,
                content,
            },
        ],
    }
}

fn anomalies(trace: Trace, results: ResultContent) -> Vec<String> {
    let plan = plan("retail", JudgeMode::Assumed);
    let options = TraceOptions {
        timeline: false,
        results,
    };
    let report = block_on(audit_trace(
        &plan,
        trace,
        &TraceSource::default(),
        &AssumingJudge,
        options,
    ))
    .unwrap();
    report.anomalies
}

#[test]
fn a_result_that_is_not_json_for_a_tool_read_as_json_is_reported() {
    let text = "Order #W1: pending (could not render JSON)";
    // Full path: the importer kept the text as a string.
    let parsed = anomalies(order_lookup(text.into()), ResultContent::Parsed);
    // Fast path: the raw text, parsed by the audit (and failing).
    let raw = anomalies(order_lookup(text.into()), ResultContent::Raw);
    assert_eq!(parsed, raw);
    assert_eq!(parsed.len(), 1, "{parsed:?}");
    assert!(
        parsed[0].contains("event 2") && parsed[0].contains("get_order_details is not JSON"),
        "{parsed:?}"
    );
    // A JSON result, raw or parsed, is not reported.
    let json = r##"{"order_id": "#W1", "status": "pending"}"##;
    assert!(anomalies(order_lookup(json.into()), ResultContent::Raw).is_empty());
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    assert!(anomalies(order_lookup(value), ResultContent::Parsed).is_empty());
}
