//! `turnstile audit`: every shipped bundle over its vendored tau2 traces,
//! the output formats and their independence from the thread count, judge
//! modes, bad input (reported with file, record and path; the rest still
//! audited), exit codes, and the HTML report in headless Chromium.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn turnstile(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_turnstile"))
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn lines(out: &Output) -> Vec<serde_json::Value> {
    text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The simulations in a vendored tau2 file, counted independently of the
/// importer (the `"task_id"` keys of the simulations are not needed: the
/// JSON `simulations` array is measured by serde_json itself).
fn simulations(path: &Path) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let plain = ruzstd::decoding::StreamingDecoder::new(bytes.as_slice()).unwrap();
    let value: serde_json::Value = serde_json::from_reader(plain).unwrap();
    value["simulations"].as_array().unwrap().len()
}

#[test]
fn every_shipped_bundle_audits_all_its_vendored_traces() {
    let traces_dir = root().join("data/tau2/traces");
    let mut covered = Vec::new();
    let mut bundles: Vec<PathBuf> = std::fs::read_dir(root().join("bundles"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("bundle.yaml").is_file())
        .collect();
    bundles.sort();
    for bundle in bundles {
        let name = bundle.file_name().unwrap().to_str().unwrap().to_owned();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&traces_dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .starts_with(&format!("{name}_"))
            })
            .collect();
        if files.is_empty() {
            continue; // a bundle without recorded tau2 traces (toy-orders)
        }
        files.sort();
        let expected: usize = files.iter().map(|f| simulations(f)).sum();
        let mut args = vec![
            "audit",
            "--bundle",
            s(&bundle),
            "--judge",
            "none",
            "--threads",
            "2",
            "--format",
            "jsonl",
        ];
        args.extend(files.iter().map(|f| s(f)));
        let out = turnstile(&args);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        let reports = lines(&out);
        assert_eq!(reports.len(), expected, "{name}: one report per simulation");
        for r in &reports {
            let verdict = r["verdict"].as_str().unwrap();
            assert!(
                ["compliant", "violation", "needs_review", "unverified"].contains(&verdict),
                "{r}"
            );
            if verdict == "violation" {
                let first = &r["first_deviation"];
                assert!(
                    first["event"].is_u64() && first["reason"].is_string(),
                    "{r}"
                );
            }
            assert!(
                r["model"].is_string(),
                "tau2 files name the agent model: {r}"
            );
            assert_eq!(r["domain"].as_str(), Some(name.as_str()), "{r}");
        }
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(&format!("{expected} read, {expected} audited, 0 rejected")),
            "{stderr}"
        );
        covered.push(name);
    }
    assert!(covered.contains(&"retail".to_owned()), "{covered:?}");
    assert!(covered.contains(&"airline".to_owned()), "{covered:?}");
}

fn example() -> PathBuf {
    root().join("examples/retail-sample.jsonl")
}

#[test]
fn json_jsonl_and_csv_are_byte_identical_for_any_thread_count() {
    let retail = root().join("bundles/retail");
    let single = root().join("data/tau2/traces/retail_gpt-4.1-mini_single.json.zst");
    for format in ["json", "jsonl", "csv"] {
        let run = |threads: &str| {
            let out = turnstile(&[
                "audit",
                "--bundle",
                s(&retail),
                "--format",
                format,
                "--threads",
                threads,
                s(&example()),
                s(&single),
                s(&example()),
            ]);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            out.stdout
        };
        let one = run("1");
        assert!(!one.is_empty());
        assert_eq!(one, run("3"), "{format}");
    }
}

#[test]
fn the_json_report_holds_every_trace_and_a_summary_that_adds_up() {
    let out = turnstile(&[
        "audit",
        "--bundle",
        s(&root().join("bundles/retail")),
        "--format",
        "json",
        s(&example()),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let traces = doc["traces"].as_array().unwrap();
    assert_eq!(traces.len(), 5);
    let summary = &doc["summary"];
    assert_eq!(summary["read"], 5);
    assert_eq!(summary["audited"], 5);
    assert_eq!(summary["rejected"], 0);
    let total = &summary["total"];
    let by_verdict = ["compliant", "violation", "needs_review", "unverified"]
        .iter()
        .map(|v| total[v].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(by_verdict, 5);
    // The example's known deviation: an exchange without reading the product.
    let exchange = traces
        .iter()
        .find(|t| t["trace"].as_str().unwrap().contains("031c0b0c"))
        .unwrap();
    assert_eq!(exchange["verdict"], "violation");
    assert_eq!(exchange["first_deviation"]["node"], "exchange.read_product");
    assert_eq!(exchange["first_deviation"]["reason"], "missing_read");
    assert!(
        exchange["first_deviation"]["remediation"].is_string(),
        "{exchange}"
    );
    assert!(exchange["metrics"]["step_tcr"].as_f64().unwrap() < 1.0);
    let nodes = summary["violations_by_node"].as_array().unwrap();
    assert!(
        nodes
            .iter()
            .any(|n| n["node"] == "exchange.read_product" && n["reason"] == "missing_read")
    );
}

#[test]
fn judge_none_reports_writes_resting_on_unjudged_dialogue_as_unverified() {
    let run = |bundle: &str, judge: &str, input: &Path| {
        let out = turnstile(&[
            "audit",
            "--bundle",
            s(&root().join("bundles").join(bundle)),
            "--format",
            "jsonl",
            "--judge",
            judge,
            s(input),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        lines(&out)
    };
    let find = |reports: &[serde_json::Value], id: &str| {
        reports
            .iter()
            .find(|t| t["trace"].as_str().unwrap().contains(id))
            .cloned()
            .unwrap()
    };
    // Retail's cancel confirmation is a formal `confirmed(...)` guard: the
    // cancellation is compliant without any judge, and no model is asked.
    let none = run("retail", "none", &example());
    assert_eq!(find(&none, "67002b62")["verdict"], "compliant");
    // A formal violation stays a violation without a judge.
    let exchange = find(&none, "031c0b0c");
    assert_eq!(exchange["verdict"], "violation");
    assert_eq!(exchange["first_deviation"]["reason"], "missing_read");
    for r in &none {
        assert_eq!(r["judge"]["calls"], 0);
    }
    // Airline's cancellation reason is a judged step: a cancel whose formal
    // checks hold is unverified without a judge, naming exactly that step
    // (with a judge it is decided one way or the other).
    let airline = root().join("data/tau2/traces/airline_gpt-4.1.json.zst");
    let offline = run("airline", "offline", &airline);
    assert_ne!(find(&offline, "01d73d39")["verdict"], "unverified");
    let none = run("airline", "none", &airline);
    let unverified = find(&none, "01d73d39");
    assert_eq!(unverified["verdict"], "unverified");
    let write = &unverified["unverified"][0];
    assert_eq!(write["node"], "cancel.authorize");
    assert_eq!(write["assumed"], serde_json::json!(["cancel.reason"]));
}

#[test]
fn fail_on_violation_exits_with_four() {
    let retail = root().join("bundles/retail");
    let sample = example();
    let args = ["audit", "--bundle", s(&retail), "-q", s(&sample)];
    assert_eq!(turnstile(&args).status.code(), Some(0));
    let mut strict = args.to_vec();
    strict.push("--fail-on-violation");
    assert_eq!(turnstile(&strict).status.code(), Some(4));
}

/// A directory with one good file and each kind of bad input.
fn bad_corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(example(), d.join("a_good.jsonl")).unwrap();
    // A zstd file cut in the middle.
    let shipped =
        std::fs::read(root().join("data/tau2/traces/retail_gpt-4.1-mini_single.json.zst")).unwrap();
    std::fs::write(
        d.join("b_truncated.json.zst"),
        &shipped[..shipped.len() / 2],
    )
    .unwrap();
    // Native lines: a call without its tool, invalid UTF-8, a result that
    // answers no call, then a good trace.
    let mut native = Vec::new();
    native.extend_from_slice(b"{\"type\":\"trace\",\"id\":\"n1\"}\n");
    native.extend_from_slice(b"{\"type\":\"call\",\"id\":\"c1\"}\n");
    native.extend_from_slice(b"{\"type\":\"user\",\"text\":\"caf\xff\"}\n");
    native.extend_from_slice(b"{\"type\":\"trace\",\"id\":\"n2\"}\n");
    native.extend_from_slice(b"{\"type\":\"user\",\"text\":\"hello\"}\n");
    std::fs::write(d.join("c_native.jsonl"), native).unwrap();
    // A tau2 file whose second simulation lacks its messages, and whose
    // tool-call arguments in the third are not JSON.
    let tau2 = serde_json::json!({
        "info": {"environment_info": {"domain_name": "retail"}, "agent_info": {"llm": "m"}},
        "simulations": [
            {"id": "s0", "messages": [{"role": "user", "content": "hi"}]},
            {"id": "s1"},
            {"id": "s2", "messages": [{"role": "assistant", "content": "",
                "tool_calls": [{"id": "x", "name": "get_order_details", "arguments": "{not json"}]}]}
        ]
    });
    std::fs::write(d.join("d_tau2.json"), tau2.to_string()).unwrap();
    // A line over the importer's limit.
    let mut long = b"{\"type\":\"user\",\"text\":\"".to_vec();
    long.resize(turnstile_limit() + 10, b'a');
    long.extend_from_slice(b"\"}\n");
    std::fs::write(d.join("e_long.jsonl"), long).unwrap();
    // A file that cannot be read: a dangling link.
    #[cfg(unix)]
    std::os::unix::fs::symlink(d.join("missing.json"), d.join("f_dangling.json")).unwrap();
    dir
}

/// The importer's per-line bound (`MAX_LINE_BYTES`), kept in step by the
/// assertion on the reason below.
fn turnstile_limit() -> usize {
    16 * 1024 * 1024
}

#[test]
fn bad_input_is_reported_with_its_place_and_the_rest_is_audited() {
    let dir = bad_corpus();
    let out = turnstile(&[
        "audit",
        "--bundle",
        s(&root().join("bundles/retail")),
        "--format",
        "jsonl",
        "--threads",
        "2",
        s(dir.path()),
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let items = lines(&out);
    let rejected: Vec<&serde_json::Value> =
        items.iter().filter_map(|i| i.get("rejected")).collect();
    let reports: Vec<&serde_json::Value> = items
        .iter()
        .filter(|i| i.get("rejected").is_none())
        .collect();
    let has = |file: &str, record: Option<u64>, path: &str, reason: &str| {
        rejected.iter().any(|r| {
            r["file"].as_str().unwrap().ends_with(file)
                && r["record"].as_u64() == record
                && r["path"].as_str().unwrap().contains(path)
                && r["reason"].as_str().unwrap().contains(reason)
        })
    };
    let truncated = rejected.iter().any(|r| {
        r["file"]
            .as_str()
            .unwrap()
            .ends_with("b_truncated.json.zst")
            && r["reason"]
                .as_str()
                .unwrap()
                .contains("truncated zstd stream")
    });
    assert!(truncated, "{rejected:#?}");
    assert!(
        has("c_native.jsonl", Some(2), "", "missing field `tool`"),
        "{rejected:#?}"
    );
    assert!(has("c_native.jsonl", Some(3), "", "UTF-8"), "{rejected:#?}");
    assert!(
        has(
            "d_tau2.json",
            Some(1),
            "simulations[1]",
            "missing field `messages`"
        ),
        "{rejected:#?}"
    );
    assert!(
        has(
            "d_tau2.json",
            Some(2),
            "simulations[2].messages[0].tool_calls[0].arguments",
            "not valid JSON"
        ),
        "{rejected:#?}"
    );
    assert!(
        has("e_long.jsonl", Some(1), "", "larger than"),
        "{rejected:#?}"
    );
    #[cfg(unix)]
    assert!(
        has("f_dangling.json", None, "", "cannot read"),
        "{rejected:#?}"
    );
    // Everything else was audited: the five example traces, the native
    // traces and the good tau2 simulation.
    let audited: Vec<&str> = reports
        .iter()
        .map(|r| r["trace"].as_str().unwrap())
        .collect();
    assert_eq!(
        audited
            .iter()
            .filter(|t| t.starts_with("retail_gpt-4.1#"))
            .count(),
        5
    );
    assert!(audited.contains(&"d_tau2#s0"), "{audited:?}");
    assert!(audited.iter().any(|t| t.contains("n2")), "{audited:?}");
    // read = audited + rejected, in the summary too.
    let summary = turnstile(&[
        "audit",
        "--bundle",
        s(&root().join("bundles/retail")),
        "--format",
        "json",
        s(dir.path()),
    ]);
    assert_eq!(summary.status.code(), Some(3));
    let doc: serde_json::Value = serde_json::from_slice(&summary.stdout).unwrap();
    let sum = &doc["summary"];
    assert_eq!(
        sum["read"].as_u64().unwrap(),
        sum["audited"].as_u64().unwrap() + sum["rejected"].as_u64().unwrap()
    );
    assert_eq!(sum["audited"].as_u64().unwrap(), reports.len() as u64);
    assert!(sum["rejected"].as_u64().unwrap() >= 7, "{sum}");
}

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|name| {
            Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

#[test]
fn the_html_report_passes_its_self_test_in_headless_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let airline = root().join("data/tau2/traces/airline_gpt-4.1.json.zst");
    let out = turnstile(&[
        "audit",
        "--bundle",
        s(&root().join("bundles/airline")),
        "-q",
        "--html",
        s(&page),
        "--format",
        "json",
        s(&airline),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no network"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let nodes = doc["summary"]["violations_by_node"]
        .as_array()
        .unwrap()
        .len()
        .min(20);
    let models = doc["summary"]["by_model"].as_object().unwrap().len() * 2;
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium is required in CI (.ci/run installs it)"
        );
        eprintln!("skipped: chromium is not installed (apt-get install chromium)");
        return;
    };
    let profile = dir.path().join("profile");
    let dom = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}#selftest", page.display()))
        .output()
        .unwrap();
    let dom_text = text(&dom.stdout);
    let result = dom_text
        .split("id=\"selftest-result\">")
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .unwrap_or_else(|| panic!("no self-test result in the page: {}", text(&dom.stderr)));
    assert!(result.starts_with("SELFTEST PASS"), "{result}");
    assert!(result.contains(&format!("bars nodes={nodes};")), "{result}");
    assert!(
        result.contains(&format!("bars models={models};")),
        "{result}"
    );
    assert!(result.contains("bars positions=10;"), "{result}");
    assert!(result.contains("timeline shown"), "{result}");
    assert!(result.contains("errors=0"), "{result}");
    let console: Vec<String> = text(&dom.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_owned)
        .collect();
    assert!(console.is_empty(), "console messages: {console:#?}");
}
