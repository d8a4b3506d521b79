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

/// The toy bundle with one edit; the edit list takes static text, so a
/// test's few replacements are leaked.
fn edited(file: &'static str, find: &'static str, replace: String) -> tempfile::TempDir {
    mutated(&[support::Edit {
        file,
        find,
        replace: replace.leak(),
    }])
}

/// The toy bundle with `clause` added to the cancellation's guard.
fn with_cancel_guard(clause: &str) -> tempfile::TempDir {
    edited(
        "flows/cancel.yaml",
        "&& order[args.order_id].status == \"pending\"\n",
        format!("&& order[args.order_id].status == \"pending\" && {clause}\n"),
    )
}

/// `turnstile check` on the bundle at `root`, which must load (a warning
/// never fails it): its standard error.
fn check_loads(root: &std::path::Path) -> String {
    let out = turnstile(&["check", root.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    stderr
}

/// `stderr` holds a warning at `needle` of `file` in the bundle at `root`,
/// and ends with `summary`, the count of each kind of warning.
fn assert_warned_at(stderr: &str, root: &std::path::Path, file: &str, needle: &str, summary: &str) {
    let (line, column) = position_of(root, file, needle);
    assert!(
        stderr.contains(&format!("toy-orders/{file}:{line}:{column}")),
        "{stderr}"
    );
    assert!(stderr.contains(summary), "{stderr}");
}

/// Each bundle `variant` makes of its text loads with no warning of `code`.
fn assert_no_warning<'a>(
    code: &str,
    texts: impl IntoIterator<Item = &'a str>,
    variant: impl Fn(&str) -> tempfile::TempDir,
) {
    for written in texts {
        let stderr = check_loads(&bundle_in(&variant(written)));
        assert!(!stderr.contains(code), "{written}: {stderr}");
    }
}

/// A confirmation template naming none of its tool's action words is a
/// located warning (the gate would ask a question whose yes confirms
/// nothing); the bundle still compiles. Worded with one of them, or with a
/// form of one, it is none.
#[test]
fn check_warns_of_a_confirmation_naming_no_action_word() {
    let with_template = |template: &str| {
        edited(
            "domain.yaml",
            "    action_words: [cancel, cancellation]\n",
            format!("    action_words: [cancel, cancellation]\n    confirmation: \"{template}\"\n"),
        )
    };
    let silent = with_template("Drop order {order_id} for reason {reason}?");
    let root = bundle_in(&silent);
    let stderr = check_loads(&root);
    assert!(
        stderr.contains("turnstile::silent_confirmation"),
        "{stderr}"
    );
    assert!(stderr.contains("(cancel, cancellation)"), "{stderr}");
    assert_warned_at(
        &stderr,
        &root,
        "domain.yaml",
        "\"Drop order",
        "1 warning: 1 confirmation naming no action word",
    );
    assert_no_warning(
        "silent_confirmation",
        [
            "Cancel order {order_id} ({reason})?",
            "Shall I go ahead with cancelling {order_id}?",
        ],
        with_template,
    );
}

/// A `confirmed(...)` alternative beside a consent whose word is no action
/// word of the tool is a located warning (where it holds, the call's other
/// arguments are not compared with the summary); the bundle still
/// compiles. Alternatives that all name action words, that list the other
/// arguments themselves, that stand beside no consent or under a negation
/// are none.
#[test]
fn check_warns_of_an_alternative_beside_consent_that_reads_less_of_the_call() {
    let with_consent = |consent: &str| with_cancel_guard(&format!("({consent})"));
    let beside =
        with_consent("confirmed(args.order_id, \"cancel\") || confirmed(args.order_id, \"drop\")");
    let root = bundle_in(&beside);
    let stderr = check_loads(&root);
    assert!(
        stderr.contains("turnstile::formal_beside_consent"),
        "{stderr}"
    );
    // The tool's action words, and the argument the alternative skips.
    let json = turnstile(&["check", root.to_str().unwrap(), "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let message = report["warnings"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("(cancel, cancellation)"), "{report}");
    assert!(message.contains("(reason)"), "{report}");
    assert_warned_at(
        &stderr,
        &root,
        "flows/cancel.yaml",
        "confirmed(args.order_id, \"drop\")",
        "1 warning: 1 alternative beside a consent reading less of the call",
    );
    assert_no_warning(
        "formal_beside_consent",
        [
            // Every alternative names an action word.
            "confirmed(args.order_id, \"cancel\") || confirmed(args.order_id, \"cancellation\")",
            // The alternative lists every other argument itself.
            "confirmed(args.order_id, \"cancel\") || confirmed(args.order_id, args.reason, \"drop\")",
            // No consent beside it.
            "confirmed(args.order_id, \"drop\") || confirmed(args.order_id, \"remove\")",
            // Under a negation an alternative says what must not be stated.
            "!(confirmed(args.order_id, \"cancel\") || confirmed(args.order_id, \"keep\")) || args.reason == \"ordered by mistake\"",
        ],
        with_consent,
    );
}

/// A computed value in `confirmed` or `said` (a sum, arithmetic, a count
/// of calls) is a located warning: turns are read for the values calls
/// carry and reads hold, so a summary stating it is found only where it
/// equals one of those. The bundle still compiles. The values it is
/// computed from, and read fields, are none.
#[test]
fn check_warns_of_a_computed_value_in_a_dialogue_predicate() {
    let with_consent = with_cancel_guard;
    let computed =
        with_consent("confirmed(args.order_id, sum(order[args.order_id].item_prices), \"cancel\")");
    let root = bundle_in(&computed);
    let stderr = check_loads(&root);
    assert!(
        stderr.contains("turnstile::computed_in_dialogue"),
        "{stderr}"
    );
    assert_warned_at(
        &stderr,
        &root,
        "flows/cancel.yaml",
        "sum(order[args.order_id].item_prices)",
        "1 warning: 1 computed value not looked for in the text",
    );
    assert_no_warning(
        "computed_in_dialogue",
        [
            "confirmed(args.order_id, order[args.order_id].item_prices, \"cancel\")",
            "confirmed(args.order_id, args.reason, \"cancel\")",
        ],
        with_consent,
    );
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
    assert_eq!(problem["line"], 58);
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
    let out = turnstile(&["graph", toy_bundle().to_str().unwrap(), "--format", "gif"]);
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

/// Each kind of bundle file has a schema document of its own, whose
/// top-level properties are that file's keys: what an editor needs.
#[test]
fn schema_describes_each_bundle_file_in_its_own_document() {
    let schema = |kind: &str| {
        let out = turnstile(&["schema", kind]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    for (kind, keys) in [
        (
            "manifest",
            &["request_types", "out_of_scope", "protected_reads", "clock"][..],
        ),
        ("domain", &["enums", "entities", "tools"][..]),
        ("flow", &["flow", "vars", "nodes"][..]),
    ] {
        let document = schema(kind);
        assert!(document["$schema"].is_string(), "{kind}");
        assert!(document["title"].as_str().unwrap().contains(kind) || kind == "manifest");
        for key in keys {
            assert!(
                document["properties"][key].is_object(),
                "the {kind} schema lacks property {key}"
            );
        }
    }
    let flow = schema("flow").to_string();
    for field in ["guard", "branches", "remediation", "tool_authorization"] {
        assert!(flow.contains(field), "the flow schema lacks {field}");
    }
    // No kind: an error naming the choices.
    let out = turnstile(&["schema"]);
    assert_eq!(out.status.code(), Some(2));
    // --dir writes all three.
    let dir = tempfile::tempdir().unwrap();
    let out = turnstile(&["schema", "--dir", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    for kind in ["manifest", "domain", "flow"] {
        let written = std::fs::read(dir.path().join(format!("{kind}.schema.json"))).unwrap();
        let document: serde_json::Value = serde_json::from_slice(&written).unwrap();
        assert_eq!(document, schema(kind));
    }
}

// ---- replay and gate ----

fn shop_bundle() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../engine/tests/fixtures/shop")
        .to_string_lossy()
        .into_owned()
}

/// A cancellation in the native format: identification, order read, the
/// user's yes, the cancel call (event 10), then a second, unconfirmed
/// cancellation of a delivered order (event 14).
const SHOP_TRACE: &str = r##"{"type":"trace","id":"shop-1","task_id":"7"}
{"type":"user","text":"Hi! I'd like to cancel an order. My email is u1@example.com."}
{"type":"agent","text":"Sure, let me look you up."}
{"type":"call","id":"c1","tool":"find_user_id_by_email","args":{"email":"u1@example.com"}}
{"type":"result","id":"c1","ok":true,"content":"u1"}
{"type":"call","id":"c2","tool":"get_user_details","args":{"user_id":"u1"}}
{"type":"result","id":"c2","ok":true,"content":{"user_id":"u1","orders":["#O1","#O2"],"payment_methods":{},"bills":[]}}
{"type":"call","id":"c3","tool":"get_order_details","args":{"order_id":"#O1"}}
{"type":"result","id":"c3","ok":true,"content":{"order_id":"#O1","user_id":"u1","status":"pending","total":10,"items":[]}}
{"type":"agent","text":"Order #O1: cancel it with reason 'no longer needed'? Please confirm (yes)."}
{"type":"user","text":"Yes, please go ahead."}
{"type":"call","id":"c4","tool":"cancel_pending_order","args":{"order_id":"#O1","reason":"no longer needed"}}
{"type":"result","id":"c4","ok":true,"content":{}}
{"type":"call","id":"c5","tool":"get_order_details","args":{"order_id":"#O2"}}
{"type":"result","id":"c5","ok":true,"content":{"order_id":"#O2","user_id":"u1","status":"delivered","total":10,"items":[]}}
{"type":"call","id":"c6","tool":"cancel_pending_order","args":{"order_id":"#O2","reason":"no longer needed"}}
"##;

fn shop_trace_file() -> tempfile::NamedTempFile {
    let mut file = tempfile::Builder::new()
        .suffix(".jsonl")
        .tempfile()
        .unwrap();
    std::io::Write::write_all(&mut file, SHOP_TRACE.as_bytes()).unwrap();
    file
}

#[test]
fn replay_prints_each_event_with_its_verdict() {
    let traces = shop_trace_file();
    let out = turnstile(&["replay", &shop_bundle(), traces.path().to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        stdout.contains("== shop-1 (task 7) · schedule workflow · 15 events"),
        "{stdout}"
    );
    let line = |n: &str| {
        stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{n} ")))
            .unwrap_or_else(|| panic!("no line for event {n} in {stdout}"))
            .to_owned()
    };
    assert!(
        line("10").contains("ALLOW  cancel.authorize {order=#O1, user=u1}"),
        "{}",
        line("10")
    );
    assert!(
        line("14").contains("BLOCK  DialogueUnmet at cancel.confirm"),
        "{}",
        line("14")
    );
    assert!(line("1").contains("guide") && line("1").contains("identify.find"));
    assert!(stdout.contains("mutating calls 2, blocked 1"), "{stdout}");
}

#[test]
fn replay_under_all_schedules_reports_coverage_as_json() {
    let traces = shop_trace_file();
    let out = turnstile(&[
        "replay",
        &shop_bundle(),
        traces.path().to_str().unwrap(),
        "--schedule",
        "all",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let line: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    let schedules: Vec<&str> = line["replays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["schedule"].as_str().unwrap())
        .collect();
    assert_eq!(schedules, ["workflow", "boundary", "action"]);
    let coverage = line["coverage"].as_array().unwrap();
    // Event 14 follows no user message: the boundary schedule misses it.
    assert_eq!(coverage[0]["schedule"], "boundary");
    assert_eq!(coverage[0]["missed"], serde_json::json!([14]));
    assert_eq!(coverage[1]["schedule"], "action");
    assert_eq!(coverage[1]["caught"], serde_json::json!([14]));
}

#[test]
fn replay_rejects_a_bad_judge_and_reports_bad_records() {
    let traces = shop_trace_file();
    let path = traces.path().to_str().unwrap().to_owned();
    let out = turnstile(&["replay", &shop_bundle(), &path, "--judge", "oracle"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unknown judge"),
        "{}",
        text(&out.stderr)
    );
    let out = turnstile(&[
        "replay",
        &shop_bundle(),
        &path,
        "--judge",
        "recorded:/nonexistent/v.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let mut broken = tempfile::Builder::new()
        .suffix(".jsonl")
        .tempfile()
        .unwrap();
    std::io::Write::write_all(
        &mut broken,
        b"{\"type\":\"user\",\"text\":\"hi\"}\n{\"type\":\"result\",\"id\":\"zz\",\"ok\":true}\n",
    )
    .unwrap();
    let out = turnstile(&["replay", &shop_bundle(), broken.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("record 2"),
        "{}",
        text(&out.stderr)
    );
}

fn gate(state: &std::path::Path, input: &str) -> Vec<serde_json::Value> {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_turnstile"))
        .args(["gate", &shop_bundle(), "--state", state.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn gate_answers_one_verdict_per_event_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("session.json");
    let events: Vec<&str> = SHOP_TRACE.lines().skip(1).collect();
    // First run: events 0-8, with a comment, a blank line and a garbled line.
    let mut first = events[..9].join("\n");
    first.push_str("\n# a comment\n\n{\"type\":\"call\",\"tool\":\n");
    let verdicts = gate(&state, &first);
    assert_eq!(verdicts.len(), 10);
    assert_eq!(verdicts[0]["verdict"], "observe");
    assert_eq!(verdicts[1]["verdict"], "guide");
    assert_eq!(verdicts[8]["event"], 8);
    assert_eq!(verdicts[9]["verdict"], "block");
    assert!(
        verdicts[9]["error"]
            .as_str()
            .unwrap()
            .contains("not an event")
    );
    assert!(state.is_file());
    // Second run restores the session: event numbering and state continue.
    let verdicts = gate(&state, &events[9..].join("\n"));
    assert_eq!(verdicts.len(), 6);
    assert_eq!(verdicts[1]["event"], 10);
    assert_eq!(verdicts[1]["verdict"], "allow");
    assert_eq!(verdicts[1]["step"], "cancel.authorize");
    assert_eq!(verdicts[5]["event"], 14);
    assert_eq!(verdicts[5]["verdict"], "block");
    assert_eq!(verdicts[5]["reason"], "DialogueUnmet");
}

#[test]
fn an_unreachable_judge_keeps_the_gate_closed() {
    let traces = shop_trace_file();
    let out = Command::new(env!("CARGO_BIN_EXE_turnstile"))
        .args([
            "replay",
            &shop_bundle(),
            traces.path().to_str().unwrap(),
            "--judge",
            "openai",
            "--judge-url",
            "http://127.0.0.1:9/v1",
            "--judge-model",
            "none",
        ])
        .env("TURNSTILE_JUDGE_TIMEOUT_MS", "300")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The classification fails too: nothing is allowed. The first write,
    // which lacks only the classification and the consent, is left to a
    // person (the judge could not answer the consent either); the other
    // is blocked.
    assert!(
        stdout.contains("mutating calls 2, blocked 1, held for confirmation 1"),
        "{stdout}"
    );
    assert!(!stdout.contains("ALLOW"), "{stdout}");
    assert!(stdout.contains("CONFIRM  consent unknown"), "{stdout}");
    assert!(
        stdout.contains("the judge could not decide: cancel an order (classify[cancel])"),
        "{stdout}"
    );
    assert!(stdout.contains("unknown:"), "{stdout}");
}

#[test]
fn a_recorded_replay_reproduces_the_report() {
    let traces = shop_trace_file();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("verdicts.jsonl");
    let path = traces.path().to_str().unwrap();
    let first = turnstile(&[
        "replay",
        &shop_bundle(),
        path,
        "--format",
        "json",
        "--record",
        record.to_str().unwrap(),
    ]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let spec = format!("recorded:{}", record.display());
    let second = turnstile(&[
        "replay",
        &shop_bundle(),
        path,
        "--format",
        "json",
        "--judge",
        &spec,
    ]);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    assert_eq!(text(&first.stdout), text(&second.stdout));
}

#[test]
fn the_readme_main_command_replays_the_shipped_examples() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = turnstile(&[
        "replay",
        root.join("bundles/retail").to_str().unwrap(),
        root.join("examples/retail-sample.jsonl").to_str().unwrap(),
        "--schedule",
        "all",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        stdout.contains("5 of 5 traces replayed: 8 mutating calls, 4 blocked (workflow)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("BLOCK  MissingRead at exchange.read_product"),
        "{stdout}"
    );
    assert!(
        stdout.contains("action    caught 4 deviations, missed 0"),
        "{stdout}"
    );
}

// ---- compressed trace files ----

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut encoder, bytes).unwrap();
    encoder.finish().unwrap()
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
}

/// `name`, `name.gz` and `name.zst` in `dir`, each holding `plain`.
fn three_copies(dir: &tempfile::TempDir, name: &str, plain: &[u8]) -> [std::path::PathBuf; 3] {
    let copies = [
        (name.to_owned(), plain.to_vec()),
        (format!("{name}.gz"), gzip(plain)),
        (format!("{name}.zst"), zstd(plain)),
    ];
    copies.map(|(file, bytes)| {
        let path = dir.path().join(file);
        std::fs::write(&path, bytes).unwrap();
        path
    })
}

/// Stdout of a successful run.
fn stdout_of(args: &[&str]) -> String {
    let out = turnstile(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

#[test]
fn replay_and_convert_read_gzip_and_zstd_files_like_plain_ones() {
    let dir = tempfile::tempdir().unwrap();
    let shop = three_copies(&dir, "shop.jsonl", SHOP_TRACE.as_bytes());
    let bundle = shop_bundle();
    let replays = shop
        .iter()
        .map(|p| stdout_of(&["replay", &bundle, p.to_str().unwrap(), "--schedule", "all"]))
        .collect::<Vec<_>>();
    let converted = shop
        .iter()
        .map(|p| stdout_of(&["convert", p.to_str().unwrap()]))
        .collect::<Vec<_>>();
    assert!(
        replays[0].contains("BLOCK  DialogueUnmet"),
        "{}",
        replays[0]
    );
    assert!(
        converted[0].contains("\"id\":\"shop-1\""),
        "{}",
        converted[0]
    );
    for (replay, convert) in replays.iter().zip(&converted).skip(1) {
        assert_eq!(replay, &replays[0]);
        assert_eq!(convert, &converted[0]);
    }

    // A shipped tau2 results file (compressed by the zstd tool) replays like
    // its decompressed copy.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let shipped = root.join("data/tau2/traces/retail_gpt-4.1-mini_single.json.zst");
    let mut plain = Vec::new();
    std::io::Read::read_to_end(
        &mut ruzstd::decoding::StreamingDecoder::new(std::fs::File::open(&shipped).unwrap())
            .unwrap(),
        &mut plain,
    )
    .unwrap();
    let copies = three_copies(&dir, "retail_gpt-4.1-mini_single.json", &plain);
    let retail = root.join("bundles/retail");
    let expected = stdout_of(&[
        "replay",
        retail.to_str().unwrap(),
        copies[0].to_str().unwrap(),
    ]);
    assert!(expected.contains("1 of 1 traces replayed"), "{expected}");
    for path in [&copies[1], &copies[2], &shipped] {
        let replayed = stdout_of(&["replay", retail.to_str().unwrap(), path.to_str().unwrap()]);
        assert_eq!(replayed, expected, "{}", path.display());
    }
    let converted = stdout_of(&["convert", copies[0].to_str().unwrap()]);
    assert_eq!(
        stdout_of(&["convert", shipped.to_str().unwrap()]),
        converted
    );
}

#[test]
fn a_truncated_compressed_trace_file_fails_with_the_message() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = shop_bundle();
    for (name, compressed, format) in [
        ("cut.jsonl.gz", gzip(SHOP_TRACE.as_bytes()), "gzip"),
        ("cut.jsonl.zst", zstd(SHOP_TRACE.as_bytes()), "zstd"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, &compressed[..compressed.len() - 6]).unwrap();
        let path = path.to_str().unwrap();
        for args in [vec!["convert", path], vec!["replay", &bundle, path]] {
            let out = turnstile(&args);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(
                stderr.contains(name) && stderr.contains(&format!("truncated {format} stream")),
                "{args:?}: {stderr}"
            );
        }
    }
}
