//! `turnstile replay --explain datalog|monitor`: the reference Datalog
//! explainer and the live gate's monitor give every block of real tau2
//! traces the same first unmet step and reason; the flag is in `--help` and
//! the README.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod common;

use std::process::Command;

use common::{json, root};

/// `replay --format json` of `traces` (only trace `only`, if given) with
/// `extra`; (status, stdout, stderr).
fn replay(
    bundle: &str,
    traces: &str,
    only: Option<&str>,
    extra: &[&str],
) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_turnstile"))
        .arg("replay")
        .arg(root().join("bundles").join(bundle))
        .arg(root().join("data/tau2/traces").join(traces))
        .args(["--format", "json"])
        .args(only.iter().flat_map(|id| ["--trace", id]))
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every block of a replay: (trace, event, first unmet step, reason).
fn blocks(stdout: &str) -> Vec<(String, u64, String, String)> {
    let mut found = Vec::new();
    for line in stdout.lines() {
        for trace in json(line)["replays"].as_array().unwrap() {
            for event in trace["events"].as_array().unwrap() {
                if event["verdict"] == "block" {
                    found.push((
                        trace["trace"].as_str().unwrap().to_owned(),
                        event["event"].as_u64().unwrap(),
                        event["step"].as_str().unwrap_or("").to_owned(),
                        event["reason"].as_str().unwrap().to_owned(),
                    ));
                }
            }
        }
    }
    found
}

#[test]
fn datalog_and_monitor_explain_tau2_blocks_alike() {
    for (bundle, traces, only) in [
        ("retail", "retail_gpt-4.1-mini_single.json.zst", None),
        // One trace of the file (the whole file takes long in a debug build):
        // roaming and a refuel on a line whose number the user never gave.
        (
            "telecom",
            "telecom_gpt-4o.json.zst",
            Some("telecom_gpt-4o#9143235a-bff5-4aae-b07f-99d4f07895ac"),
        ),
    ] {
        let mut by_explainer = Vec::new();
        for explain in [None, Some("monitor"), Some("datalog")] {
            let extra: Vec<&str> = explain.map_or(vec![], |e| vec!["--explain", e]);
            let (code, stdout, stderr) = replay(bundle, traces, only, &extra);
            assert_eq!(code, Some(0), "{traces} {explain:?}: {stderr}");
            by_explainer.push((blocks(&stdout), stdout));
        }
        let (default, monitor, datalog) = (&by_explainer[0], &by_explainer[1], &by_explainer[2]);
        assert!(!monitor.0.is_empty(), "{traces}: the trace has blocks");
        assert!(
            monitor.0.iter().all(|b| !b.2.is_empty()),
            "{traces}: every block names its first unmet step: {:?}",
            monitor.0
        );
        assert_eq!(datalog.0, monitor.0, "{traces}: step and reason");
        // Beyond step and reason, the whole report agrees (failed
        // conditions, remediation, cited values).
        assert_eq!(datalog.1, monitor.1, "{traces}: the whole report");
        assert_eq!(default.1, monitor.1, "{traces}: monitor is the default");
    }
}

#[test]
fn the_explain_flag_is_documented_and_checked() {
    let help = Command::new(env!("CARGO_BIN_EXE_turnstile"))
        .args(["replay", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(help.contains("--explain <EXPLAIN>"), "{help}");
    assert!(
        help.contains("datalog") && help.contains("[default: monitor]"),
        "{help}"
    );
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains("[--explain monitor|datalog]"));
    assert!(readme.contains("`--explain datalog`"));
    let (code, _, stderr) = replay(
        "retail",
        "retail_gpt-4.1-mini_single.json.zst",
        None,
        &["--explain", "cedar"],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("invalid value 'cedar'"), "{stderr}");
}
