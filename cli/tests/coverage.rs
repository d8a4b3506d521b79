//! `turnstile coverage` end to end: every shipped bundle under every
//! schedule, and a written witness that `turnstile replay` accepts and
//! blocks exactly where predicted.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn turnstile(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_turnstile"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run turnstile")
}

/// The command exited 0 (else its stderr is the failure).
fn assert_succeeded(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `turnstile replay` of a witness under `schedule`, judged by its verdicts,
/// as JSON.
fn replay_witness(bundle: &Path, file: &Path, verdicts: &Path, schedule: &str) -> Output {
    let judge = format!("recorded:{}", verdicts.display());
    turnstile(&[
        "replay",
        bundle.to_str().unwrap(),
        file.to_str().unwrap(),
        "--schedule",
        schedule,
        "--judge",
        &judge,
        "--format",
        "json",
    ])
}

/// `turnstile coverage <bundle> --format json` with `extra` flags, which must
/// succeed: one report per schedule.
fn coverage_reports(bundle: &Path, extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["coverage", bundle.to_str().unwrap(), "--format", "json"];
    args.extend(extra);
    let out = turnstile(&args);
    assert_succeeded(&out);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Writes `witness` into `dir` as `<name>.jsonl` and `<name>.verdicts.jsonl`
/// (what `--witnesses` writes) and replays it under every schedule: the
/// replay's JSON line.
fn replay_written(
    bundle: &Path,
    dir: &Path,
    name: &str,
    witness: &turnstile_engine::coverage::Witness,
) -> serde_json::Value {
    let file = dir.join(format!("{name}.jsonl"));
    let verdicts = dir.join(format!("{name}.verdicts.jsonl"));
    std::fs::write(&file, witness.trace_jsonl()).unwrap();
    std::fs::write(&verdicts, witness.verdicts_jsonl()).unwrap();
    let out = replay_witness(bundle, &file, &verdicts, "all");
    assert_succeeded(&out);
    serde_json::from_slice(&out.stdout).unwrap()
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
        let reports = coverage_reports(&dir, &["--schedule", "all"]);
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
            // The per-kind totals add up; `action` covers writes only.
            let kinds = report["by_kind"].as_object().unwrap();
            let (mut covered, mut uncovered) = (0, 0);
            for (kind, row) in kinds {
                covered += row["covered"].as_u64().unwrap();
                uncovered += row["uncovered"].as_u64().unwrap();
                if report["schedule"] == "action" {
                    assert_eq!(
                        row["covered"].as_u64() == Some(0),
                        kind != "write",
                        "{kind}"
                    );
                }
            }
            assert_eq!(covered, report["covered"].as_u64().unwrap());
            assert_eq!(uncovered, report["uncovered"].as_u64().unwrap());
            if dir.ends_with("telecom") {
                assert!(kinds.contains_key("instruct") && kinds.contains_key("claim"));
            }
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
    assert_succeeded(&out);
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
    let replay = replay_witness(&toy, &file, &verdicts, "action");
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(text.contains("\"verdict\":\"block\""), "{text}");
}

/// Telecom's instructions and claims: the witness of a premature instruction
/// (at the start of a user turn) and of an unverified claim (mid-turn),
/// written as native JSONL, replayed by `turnstile replay` under every
/// schedule: `deviate` at the predicted message exactly under the schedules
/// that cover it, never under `action` (Corollary 1's gap).
#[test]
fn telecom_instruction_and_claim_witnesses_replay_to_deviate() {
    use std::sync::Arc;
    use turnstile_engine::coverage::WitnessBuilder;
    use turnstile_engine::coverage::{AgentClass, Turn, analyze};
    use turnstile_engine::{BundleRuntime, Schedule, check_bundle};

    let telecom = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bundles/telecom");
    let bundle = Arc::new(check_bundle(&telecom).unwrap());
    let analysis = analyze(&bundle);
    let rt = BundleRuntime::new(Arc::clone(&bundle)).unwrap();
    let mut builder = WitnessBuilder::new(rt, &analysis);
    let shallowest = |instruction: bool, turn: Turn| {
        analysis
            .deviations
            .iter()
            .filter(|d| d.state.turn == turn)
            .filter(|d| match d.class {
                AgentClass::Instruct(_) => instruction,
                AgentClass::Claim(_) => !instruction,
                _ => false,
            })
            .min_by_key(|d| d.prefix.len())
            .unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    for (i, d) in [
        shallowest(true, Turn::TurnStart),
        shallowest(false, Turn::MidTurn),
    ]
    .into_iter()
    .enumerate()
    {
        let witness = builder.witness(d).unwrap();
        let line = replay_written(&telecom, dir.path(), &i.to_string(), &witness);
        let last = witness.trace.events.len() - 1;
        let replays = line["replays"].as_array().unwrap();
        assert_eq!(replays.len(), 3);
        for replay in replays {
            let schedule: Schedule = replay["schedule"].as_str().unwrap().parse().unwrap();
            let events = replay["events"].as_array().unwrap();
            let deviated: Vec<u64> = events
                .iter()
                .filter(|e| e["verdict"] == "deviate")
                .map(|e| e["event"].as_u64().unwrap())
                .collect();
            let expected: Vec<u64> = if d.covered_by(schedule) {
                vec![last as u64]
            } else {
                Vec::new()
            };
            assert_eq!(deviated, expected, "{:?} under {schedule}", d.class);
            if let Some(e) = events.iter().find(|e| e["verdict"] == "deviate") {
                let action = e["action"].as_str().unwrap();
                assert_eq!(
                    action,
                    format!(
                        "{} {}",
                        if d.class.kind() == "instruct" {
                            "instructs"
                        } else {
                            "claims"
                        },
                        d.class.tool()
                    )
                );
            }
        }
        // Under `action` nothing deviates: the workflow reference's
        // deviation is in its missed list.
        let missed = line["coverage"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["schedule"] == "action")
            .map(|c| c["unwritten_missed"].clone())
            .unwrap();
        assert_eq!(missed, serde_json::json!([last]), "{:?}", d.class);
        assert!(!d.covered_by(Schedule::Action));
    }
}

/// `--witness-limit` writes a sample spread over the whole list (not only
/// the first deviations), `--witness-node` only the deviations at a node or
/// under a flow; an unknown node is an error, and both need `--witnesses`.
#[test]
fn witness_selection_writes_a_spread_sample_or_one_node() {
    let toy = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bundles/toy-orders");
    let toy = toy.to_str().unwrap();
    let run = |extra: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        let mut args = vec!["coverage", toy, "--format", "json", "--witnesses"];
        args.push(dir.path().to_str().unwrap());
        args.extend_from_slice(extra);
        let out = turnstile(&args);
        assert_succeeded(&out);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let traces = std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                let name = name.to_str().unwrap();
                name.ends_with(".jsonl") && !name.ends_with(".verdicts.jsonl")
            })
            .count();
        (report, traces)
    };
    let (all, _) = run(&[]);
    let total = all["deviations"].as_u64().unwrap();
    assert!(total > 20);

    let (report, traces) = run(&["--witness-limit", "5"]);
    let w = &report["witnesses"];
    assert_eq!(w["selected"].as_u64(), Some(5));
    let confirmed = w["confirmed"].as_u64().unwrap();
    assert_eq!(
        confirmed + w["unrealised"].as_u64().unwrap() + w["overtaken"].as_u64().unwrap(),
        5
    );
    assert_eq!(w["disagree"].as_u64(), Some(0));
    // Every witness not confirmed is counted under its cause.
    let by_cause: u64 = w["causes"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(by_cause, 5 - confirmed);
    assert_eq!(traces as u64, confirmed);
    let ids: Vec<u64> = report["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["witness"].is_string())
        .map(|d| d["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids.len() as u64, confirmed);
    assert!(
        ids.iter().any(|&id| id >= total / 2),
        "the sample is spread over the list: {ids:?} of {total}"
    );

    // The node with the most deviations; its flow prefix selects at least as many.
    let mut per_node = std::collections::BTreeMap::new();
    for d in all["list"].as_array().unwrap() {
        *per_node
            .entry(d["node"].as_str().unwrap().to_owned())
            .or_insert(0u64) += 1;
    }
    let (node, count) = per_node.iter().max_by_key(|(_, c)| **c).unwrap();
    let (report, _) = run(&["--witness-node", node]);
    assert_eq!(report["witnesses"]["selected"].as_u64(), Some(*count));
    for d in report["list"].as_array().unwrap() {
        if d["witness"].is_string() {
            assert_eq!(d["node"].as_str(), Some(node.as_str()));
        }
    }
    if let Some((flow, _)) = node.split_once('.') {
        let (report, _) = run(&["--witness-node", flow, "--witness-limit", "3"]);
        let selected = report["witnesses"]["selected"].as_u64().unwrap();
        assert!((1..=3).contains(&selected), "{selected}");
        for d in report["list"].as_array().unwrap() {
            if d["witness"].is_string() {
                assert!(d["node"].as_str().unwrap().starts_with(flow));
            }
        }
    }

    let dir = tempfile::tempdir().unwrap();
    let unknown = turnstile(&[
        "coverage",
        toy,
        "--witnesses",
        dir.path().to_str().unwrap(),
        "--witness-node",
        "no.such.node",
    ]);
    assert_ne!(unknown.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no deviation at node"));
    let without = turnstile(&["coverage", toy, "--witness-limit", "3"]);
    assert_ne!(without.status.code(), Some(0));
}

/// `--control solo`: the report says so and counts the agent's device calls
/// (kind `device`, never covered by `action`); a device-call witness carries
/// `control: solo` in its header, so `turnstile replay` takes it as the
/// agent's call and answers `deviate` (`calls <fix>`) exactly there under
/// the schedules that cover it.
#[test]
fn solo_control_is_analysed_and_its_device_call_witness_replays_to_deviate() {
    use std::sync::Arc;
    use turnstile_engine::bundle::model::Control;
    use turnstile_engine::coverage::WitnessBuilder;
    use turnstile_engine::coverage::{AgentClass, analyze_with};
    use turnstile_engine::{BundleRuntime, Schedule, check_bundle};

    let telecom = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bundles/telecom");
    for (control, devices) in [("solo", true), ("dual", false)] {
        let reports = coverage_reports(&telecom, &["--schedule", "action", "--control", control]);
        let report = &reports[0];
        assert_eq!(report["control"], control);
        let device = &report["by_kind"]["device"];
        assert_eq!(device.is_object(), devices, "{control}: {device}");
        if devices {
            assert_eq!(device["covered"], 0);
            assert!(device["uncovered"].as_u64().unwrap() > 0);
        }
    }

    let bundle = Arc::new(check_bundle(&telecom).unwrap());
    let analysis = analyze_with(&bundle, Control::Solo);
    let rt = BundleRuntime::new(Arc::clone(&bundle)).unwrap();
    let mut builder = WitnessBuilder::new(rt, &analysis);
    let d = analysis
        .deviations
        .iter()
        .filter(|d| matches!(d.class, AgentClass::DeviceCall(_)))
        .min_by_key(|d| d.prefix.len())
        .unwrap();
    let witness = builder.witness(d).unwrap();
    // The header's key order depends on serde_json's `preserve_order`
    // (unified on by a workspace build): read it, not its bytes.
    let jsonl = witness.trace_jsonl();
    let header: serde_json::Value =
        serde_json::from_str(jsonl.lines().next().unwrap_or_default()).unwrap();
    assert_eq!(header["control"], "solo", "{header}");
    let dir = tempfile::tempdir().unwrap();
    let line = replay_written(&telecom, dir.path(), "device", &witness);
    let last = (witness.trace.events.len() - 1) as u64;
    for replay in line["replays"].as_array().unwrap() {
        let schedule: Schedule = replay["schedule"].as_str().unwrap().parse().unwrap();
        let deviated: Vec<(u64, String)> = replay["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["verdict"] == "deviate")
            .map(|e| {
                (
                    e["event"].as_u64().unwrap(),
                    e["action"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let expected = if d.covered_by(schedule) {
            vec![(last, format!("calls {}", d.class.tool()))]
        } else {
            Vec::new()
        };
        assert_eq!(deviated, expected, "under {schedule}");
    }
}
