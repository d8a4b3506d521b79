//! `turnstile coverage` end to end: every shipped bundle under every
//! schedule, and a written witness that `turnstile replay` accepts and
//! blocks exactly where predicted.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::PathBuf;
use std::process::{Command, Output};

fn turnstile(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_turnstile"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run turnstile")
}

fn bundles() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bundles");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("bundle.yaml").is_file())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn coverage_runs_on_every_bundle_under_every_schedule() {
    for dir in bundles() {
        let out = turnstile(&[
            "coverage",
            dir.to_str().unwrap(),
            "--schedule",
            "all",
            "--format",
            "json",
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let reports: Vec<serde_json::Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(reports.len(), 3, "{}", dir.display());
        let all = reports[0]["deviations"].as_u64().unwrap();
        assert!(all > 0);
        // workflow, boundary, action: the workflow schedule covers all.
        assert_eq!(reports[0]["covered"].as_u64(), Some(all));
        for report in &reports {
            assert_eq!(
                report["covered"].as_u64().unwrap() + report["uncovered"].as_u64().unwrap(),
                all
            );
            assert_eq!(report["list"].as_array().unwrap().len() as u64, all);
        }
        let human = turnstile(&["coverage", dir.to_str().unwrap(), "--schedule", "action"]);
        assert_eq!(human.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&human.stdout).contains("|D_G| = "));
    }
}

#[test]
fn a_written_witness_replays_to_the_predicted_block() {
    let toy = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bundles/toy-orders");
    let dir = tempfile::tempdir().unwrap();
    let out = turnstile(&[
        "coverage",
        toy.to_str().unwrap(),
        "--schedule",
        "action",
        "--format",
        "json",
        "--witnesses",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["witnesses"]["disagree"].as_u64(), Some(0));
    // The first write deviation covered by `action`: replay blocks its last call.
    let write = report["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "write" && d["covered"] == true && d["witness"].is_string())
        .unwrap();
    let file = dir.path().join(write["witness"].as_str().unwrap());
    let verdicts = file.with_extension("verdicts.jsonl");
    let judge = format!("recorded:{}", verdicts.display());
    let replay = turnstile(&[
        "replay",
        toy.to_str().unwrap(),
        file.to_str().unwrap(),
        "--schedule",
        "action",
        "--judge",
        &judge,
        "--format",
        "json",
    ]);
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(text.contains("\"verdict\":\"block\""), "{text}");
}
