//! `turnstile diff`: the calls whose verdict changes between two versions
//! of a bundle — none between a bundle and itself over real tau2 traces,
//! exactly the calls a guard change touches (with both verdicts, reasons,
//! steps and remediations) in every output format, `--fail-on-change` for
//! CI, rejected input reported, and the HTML page as headless Chromium
//! renders it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{chromium_unless_ci, copy_dir, root, turnstile};

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A copy of `bundle` with `from` replaced by `to` in `file` (which must
/// contain it).
fn changed(dir: &Path, bundle: &Path, file: &str, from: &str, to: &str) -> PathBuf {
    let copy = dir.join(bundle.file_name().unwrap());
    copy_dir(bundle, &copy);
    let path = copy.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file} has {from:?}");
    std::fs::write(&path, text.replace(from, to)).unwrap();
    copy
}

/// The tutorial's bundle with its transfer limit lowered from 10000 to 400.
fn lowered_tutorial(dir: &Path) -> PathBuf {
    changed(
        dir,
        &root().join("examples/tutorial"),
        "flows/transfer.yaml",
        "args.amount <= 10000",
        "args.amount <= 400",
    )
}

/// `turnstile diff <old> <new> <traces> <extra...>`.
fn diff(old: &Path, new: &Path, traces: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "diff",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        traces.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    turnstile(&args)
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}

#[test]
fn a_bundle_against_itself_changes_nothing() {
    let retail = root().join("bundles/retail");
    let traces = root().join("data/tau2/traces/retail_gpt-4.1.json.zst");
    let out = diff(
        &retail,
        &retail,
        &traces,
        &["--format", "json", "--fail-on-change"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out);
    assert_eq!(report["summary"]["changed"], 0);
    assert!(report["summary"]["traces"].as_u64().unwrap() >= 40);
    assert!(report["summary"]["decided"].as_u64().unwrap() > 0);
    assert_eq!(report["changes"], serde_json::json!([]));
}

#[test]
fn a_lower_limit_blocks_exactly_the_transfer_above_it() {
    let tmp = tempfile::tempdir().unwrap();
    let tutorial = root().join("examples/tutorial");
    let lowered = lowered_tutorial(tmp.path());
    let conversations = tutorial.join("tests/conversations.jsonl");
    let out = diff(&tutorial, &lowered, &conversations, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let report = json(&out);
    let changes = report["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 2, "{changes:#?}");
    // A transfer only waiting for the user's yes is held for confirmation;
    // above the new limit it fails a formal check, which no yes opens.
    let held = &changes[1];
    assert_eq!(held["trace"], "not-confirmed");
    assert_eq!(held["old"]["verdict"], "confirm");
    assert_eq!(held["new"]["verdict"], "block");
    let change = &changes[0];
    assert_eq!(change["trace"], "allowed");
    assert_eq!(change["event"], 11);
    assert_eq!(change["kind"], "call wire_transfer");
    assert_eq!(change["old"]["verdict"], "allow");
    assert_eq!(change["old"]["step"], "transfer.authorize");
    assert_eq!(change["new"]["verdict"], "block");
    assert_eq!(change["new"]["reason"], "AmountOutOfBounds");
    assert_eq!(change["new"]["step"], "transfer.authorize");
    assert_eq!(
        change["new"]["request"],
        serde_json::json!({"account": "CHK-1", "customer": "ana-7"})
    );
    assert!(
        change["new"]["remediation"]
            .as_str()
            .unwrap()
            .starts_with("Send from CHK-1 only")
    );
    assert!(
        change["new"]["explanation"]
            .as_str()
            .unwrap()
            .contains("failed: (args.amount <= 400)")
    );
    assert_eq!(report["summary"]["traces"], 9);
    assert_eq!(report["summary"]["traces_changed"], 2);
    assert_eq!(
        report["summary"]["transitions"],
        serde_json::json!({"allow → block": 1, "confirm → block": 1})
    );
    // The table names both verdicts and the count; CI fails on the change.
    let out = diff(&tutorial, &lowered, &conversations, &["--fail-on-change"]);
    assert_eq!(out.status.code(), Some(4));
    let table = stdout(&out);
    // Columns are as wide as their longest cell: compare words.
    let words = table.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("allowed 11 call wire_transfer allow at transfer.authorize block AmountOutOfBounds at transfer.authorize"),
        "{table}"
    );
    assert!(
        words.contains("not-confirmed 10 call wire_transfer confirm at transfer.confirm block DialogueUnmet at transfer.confirm"),
        "{table}"
    );
    assert!(
        table.contains("diff: 2 of 9 traces change: 2 verdicts of 9 decided events"),
        "{table}"
    );
    // Swapped, the change runs the other way.
    let out = diff(&lowered, &tutorial, &conversations, &["--format", "json"]);
    assert_eq!(
        json(&out)["summary"]["transitions"],
        serde_json::json!({"block → allow": 1, "block → confirm": 1})
    );
}

#[test]
fn dropping_the_consent_from_a_guard_allows_the_unconfirmed_cancellations() {
    let tmp = tempfile::tempdir().unwrap();
    let retail = root().join("bundles/retail");
    let lax = changed(
        tmp.path(),
        &retail,
        "flows/cancel.yaml",
        "      && confirmed(args.order_id, args.reason, \"cancel\")\n",
        "",
    );
    let traces = root().join("data/tau2/traces/retail_gpt-4.1-mini.json.zst");
    let out = diff(
        &retail,
        &lax,
        &traces,
        &["--format", "json", "--threads", "2"],
    );
    assert_eq!(out.status.code(), Some(0));
    let report = json(&out);
    let changes = report["changes"].as_array().unwrap();
    assert!(!changes.is_empty());
    for change in changes {
        assert_eq!(change["kind"], "call cancel_pending_order", "{change}");
        // Held for the user's yes, or blocked where the reader is sure it
        // was refused: either way, only the consent stood in the way.
        match change["old"]["verdict"].as_str() {
            Some("confirm") => {}
            Some("block") => assert_eq!(change["old"]["reason"], "DialogueUnmet"),
            other => panic!("{other:?}: {change}"),
        }
        assert_eq!(change["new"]["verdict"], "allow");
        assert!(
            change["old"]["explanation"]
                .as_str()
                .unwrap()
                .contains("confirmed(args.order_id, args.reason, \"cancel\")")
        );
    }
    // One thread or two: the same report, in input order.
    let one = diff(
        &retail,
        &lax,
        &traces,
        &["--format", "json", "--threads", "1"],
    );
    assert_eq!(json(&one)["changes"], report["changes"]);
}

#[test]
fn unreadable_records_are_reported_and_set_the_exit_code() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"type\":\"user\",\"text\":\"hi\"}\n{\"type\":\"result\",\"id\":\"nope\",\"ok\":true}\n",
    )
    .unwrap();
    let toy = root().join("bundles/toy-orders");
    let out = diff(&toy, &toy, &bad, &[]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stdout(&out).contains("bad.jsonl:2: result for unknown call id"),
        "{}",
        stdout(&out)
    );
    // A bundle with problems is reported like `check` does.
    let broken = changed(
        tmp.path(),
        &toy,
        "flows/cancel.yaml",
        "next: status",
        "next: statuz",
    );
    let out = diff(&toy, &broken, &bad, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("turnstile::unknown_node"));
}

#[test]
fn the_html_page_renders_every_change_in_headless_chromium() {
    let tmp = tempfile::tempdir().unwrap();
    let tutorial = root().join("examples/tutorial");
    let lowered = lowered_tutorial(tmp.path());
    let page = tmp.path().join("diff.html");
    let conversations = tutorial.join("tests/conversations.jsonl");
    let out = diff(
        &tutorial,
        &lowered,
        &conversations,
        &["--format", "html", "-o", page.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<span class=\"v allow\">allow</span> at <code>transfer.authorize</code>")
    );
    assert!(html.contains("<span class=\"v block\">block</span> <b>AmountOutOfBounds</b>"));
    let Some(browser) = chromium_unless_ci() else {
        return;
    };
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    assert_eq!(dom.matches("<tr class=\"change\">").count(), 2, "{dom}");
    assert!(
        dom.contains("id=\"changed\"><b>2</b>verdicts changed"),
        "{dom}"
    );
    assert!(dom.contains("allow → block 1"), "{dom}");
}
