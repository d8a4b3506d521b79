//! A trace report read back from its JSON is the report: what one process
//! audited, another can aggregate (`Summary::add` over reports that came
//! from elsewhere, as the Python package's `summarize` does for audits run
//! as Ray tasks). Checked on every vendored tau2 trace of the retail
//! bundle, whose reports have every optional list both empty and not.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "support/tau2.rs"]
mod tau2;

use std::ops::ControlFlow;
use std::sync::Arc;

use turnstile_engine::audit::{
    AuditJudge, Auditor, Counters, Item, RunOptions, Summary, TraceReport, run,
};
use turnstile_engine::session::BundleRuntime;
use turnstile_judge::OfflineJudge;

#[test]
fn every_report_reads_back_from_its_json_and_sums_the_same() {
    let rt = BundleRuntime::new(Arc::new(tau2::shipped_bundle("retail"))).unwrap();
    let auditor = Auditor::new(
        rt,
        AuditJudge::Immediate(Arc::new(OfflineJudge::new())),
        false,
    );
    let files = tau2::domain_trace_files("retail");
    assert!(!files.is_empty());
    let mut reports: Vec<TraceReport> = Vec::new();
    let options = RunOptions {
        threads: 1,
        format: None,
    };
    run(
        &files,
        &options,
        &Counters::default(),
        &auditor,
        &mut |item| {
            if let Item::Report(report) = item {
                reports.push(*report);
            }
            ControlFlow::Continue(())
        },
    )
    .unwrap();
    assert!(reports.iter().any(|r| r.blocked.is_empty()));
    assert!(reports.iter().any(|r| !r.blocked.is_empty()));

    let mut direct = Summary::default();
    let mut read_back = Summary::default();
    for report in &reports {
        let json = serde_json::to_string(report).unwrap();
        let parsed: TraceReport = serde_json::from_str(&json).unwrap();
        // serde_json parses a float to within one unit in the last place
        // (exact only with its `float_roundtrip` feature): the rates read
        // back may differ there, every other field is equal.
        let mut rates_aside = parsed.clone();
        rates_aside.metrics.step_tcr = report.metrics.step_tcr;
        rates_aside.reward = report.reward;
        assert_eq!(&rates_aside, report);
        direct.add(report);
        read_back.add(&parsed);
    }
    assert_eq!(
        read_back.to_json().to_string(),
        direct.to_json().to_string()
    );
}
