//! `turnstile init`: a bundle written from tool definitions passes `check`
//! for each tau2 tool set, an MCP `tools/list` result and OpenAI function
//! schemas; it declares every tool and parameter; every guess is a located
//! `turnstile::unreviewed` warning until its comment is deleted; its flow
//! stubs gate the writes on the user's consent; existing work is never
//! overwritten unless asked.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)] // test code

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{printed as text, root, turnstile};

fn init(dir: &Path, tools: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "init",
        dir.to_str().unwrap(),
        "--tools",
        tools.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    turnstile(&args)
}

/// `check --format json` of `dir`: (valid, warnings as (code, file, line)).
fn check(dir: &Path) -> (bool, Vec<(String, String, u64)>) {
    let out = turnstile(&["check", dir.to_str().unwrap(), "--format", "json"]);
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings = value["warnings"]
        .as_array()
        .map(|w| {
            w.iter()
                .map(|w| {
                    (
                        w["code"].as_str().unwrap().to_owned(),
                        w["file"].as_str().unwrap().to_owned(),
                        w["line"].as_u64().unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    (value["valid"] == true, warnings)
}

/// Every `# REVIEW:` comment of the bundle's YAML files, as (file, line).
fn markers(dir: &Path) -> Vec<(String, u64)> {
    let mut found = Vec::new();
    let mut files = vec![dir.join("bundle.yaml"), dir.join("domain.yaml")];
    let mut flows: Vec<PathBuf> = std::fs::read_dir(dir.join("flows"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    flows.sort();
    files.extend(flows);
    let name = dir.file_name().unwrap().to_str().unwrap();
    for file in files {
        let shown = format!(
            "{name}/{}",
            file.strip_prefix(dir).unwrap().to_str().unwrap()
        );
        for (i, line) in std::fs::read_to_string(&file).unwrap().lines().enumerate() {
            if line.contains("# REVIEW:") {
                found.push((shown.clone(), i as u64 + 1));
            }
        }
    }
    found
}

/// Deletes every `# REVIEW:` comment: what a reviewer does when done.
fn review_all(dir: &Path) {
    for entry in walk(dir) {
        if entry.extension().is_some_and(|e| e == "yaml") {
            let kept: Vec<String> = std::fs::read_to_string(&entry)
                .unwrap()
                .lines()
                .filter(|l| !l.trim_start().starts_with("# REVIEW:"))
                .map(|l| match l.find("  # REVIEW:") {
                    Some(at) => l[..at].to_owned(),
                    None => l.to_owned(),
                })
                .collect();
            std::fs::write(&entry, kept.join("\n") + "\n").unwrap();
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn tau2_tools() -> serde_json::Value {
    let text = std::fs::read_to_string(root().join("data/tau2/tools.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn every_tau2_tool_set_gives_a_bundle_that_passes_check() {
    let tools = tau2_tools();
    let file = root().join("data/tau2/tools.json");
    for domain in ["retail", "airline", "telecom"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(domain);
        let out = init(&dir, &file, &["--domain", domain]);
        assert!(out.status.success(), "{domain}: {}", text(&out));
        let (valid, warnings) = check(&dir);
        assert!(valid, "{domain}: check fails");
        // Every guess is a warning at its comment, and nothing else is.
        let at: Vec<(String, u64)> = warnings
            .iter()
            .map(|(code, file, line)| {
                assert_eq!(code, "turnstile::unreviewed");
                (file.clone(), *line)
            })
            .collect();
        let mut expected = markers(&dir);
        let mut at_sorted = at.clone();
        expected.sort();
        at_sorted.sort();
        assert_eq!(at_sorted, expected, "{domain}");
        assert!(!warnings.is_empty());
        // Every tool and parameter, with its side and declared kind.
        let domain_yaml = std::fs::read_to_string(dir.join("domain.yaml")).unwrap();
        for tool in tools[domain].as_array().unwrap() {
            let name = tool["name"].as_str().unwrap();
            let kind = tool["kind"].as_str().unwrap().to_lowercase();
            let side = tool["side"].as_str().unwrap();
            let entry = format!("  - name: {name}\n    side: {side}\n    kind: {kind}\n");
            assert!(domain_yaml.contains(&entry), "{domain}: {entry}");
            for param in tool["params"].as_array().unwrap() {
                let param = param["name"].as_str().unwrap();
                assert!(
                    domain_yaml.contains(&format!("\n      {param}: ")),
                    "{domain}: {name}.{param}"
                );
            }
            let flow = dir.join(format!("flows/{name}.yaml"));
            let agent_write = kind == "write" && side == "agent";
            assert_eq!(flow.exists(), agent_write, "{domain}: {name}'s flow stub");
            if agent_write {
                let stub = std::fs::read_to_string(&flow).unwrap();
                assert!(stub.contains("type: tool_authorization"), "{stub}");
                assert!(
                    stub.contains(&format!("check: succeeded({name})")),
                    "{stub}"
                );
            }
        }
        assert_eq!(std::fs::read_dir(dir.join("tests")).unwrap().count(), 0);
        assert!(
            std::fs::read_to_string(dir.join("policy.md"))
                .unwrap()
                .contains("Paste here the policy the agent must")
        );
        // Reviewed, it compiles without a warning.
        review_all(&dir);
        let (valid, warnings) = check(&dir);
        assert!(valid && warnings.is_empty(), "{domain}: {warnings:?}");
    }
}

#[test]
fn a_stub_guard_is_the_consent_over_the_id_arguments() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("retail");
    let out = init(
        &dir,
        &root().join("data/tau2/tools.json"),
        &["--domain", "retail"],
    );
    assert!(out.status.success(), "{}", text(&out));
    let stub =
        std::fs::read_to_string(dir.join("flows/exchange_delivered_order_items.yaml")).unwrap();
    assert!(
        stub.contains(
            "guard: \"confirmed(args.order_id, args.item_ids[*], args.new_item_ids[*], args.payment_method_id)\""
        ),
        "{stub}"
    );
    // A write without an id argument falls back to the values a summary names.
    let stub = std::fs::read_to_string(dir.join("flows/modify_user_address.yaml")).unwrap();
    assert!(stub.contains("guard: confirmed(args.user_id)"), "{stub}");
}

#[test]
fn an_mcp_tools_list_result_gives_a_bundle_whose_stubs_gate_on_consent() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cards");
    let fixture = root().join("cli/tests/fixtures/mcp-tools-list.json");
    let out = init(&dir, &fixture, &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("7 tools (2 read, 4 write), 3 flow stubs"),
        "{}",
        text(&out)
    );
    let (valid, _) = check(&dir);
    assert!(valid);
    let domain = std::fs::read_to_string(dir.join("domain.yaml")).unwrap();
    for expected in [
        "    # REVIEW: kind read from the server's annotation readOnlyHint: true\n    kind: read",
        "    # REVIEW: kind write from the verb `replace` its name starts with\n    kind: write",
        "    # REVIEW: kind generic: its name says it hands the user to a person",
        "  freeze_card_reason: [lost, stolen, \"suspicious activity\", \"customer request\"]",
        "      reason: enum(freeze_card_reason)",
        "      from: date",
        "      limit: integer",
        "      details: \"object{merchant: string, note: string}\"",
        "      card_id: string   # The card's id, such as 'card_5521'.",
    ] {
        assert!(domain.contains(expected), "{expected}\n{domain}");
    }
    // A name a check cannot spell is left out of scope, for review.
    let manifest = std::fs::read_to_string(dir.join("bundle.yaml")).unwrap();
    assert!(manifest.contains("out_of_scope:\n  - tool: dispute-transaction\n"));
    // The stub at work: a freeze is allowed only after a yes to a summary
    // naming the card, and the main flow hands off through the tool it found.
    std::fs::write(
        dir.join("tests/freeze.jsonl"),
        concat!(
            "{\"type\":\"trace\",\"id\":\"confirmed\"}\n",
            "{\"type\":\"user\",\"text\":\"I lost my card, please freeze card card_5521.\"}\n",
            "{\"type\":\"agent\",\"text\":\"I will freeze card card_5521 (reason: lost). Shall I go ahead?\"}\n",
            "{\"type\":\"user\",\"text\":\"Yes, please.\"}\n",
            "{\"type\":\"call\",\"id\":\"c1\",\"tool\":\"freeze_card\",\"args\":{\"card_id\":\"card_5521\",\"reason\":\"lost\"},\"expect\":\"allow at freeze_card.authorize\"}\n",
            "{\"type\":\"trace\",\"id\":\"not-asked\"}\n",
            "{\"type\":\"user\",\"text\":\"I lost my card, please freeze card card_5521.\"}\n",
            "{\"type\":\"call\",\"id\":\"c1\",\"tool\":\"freeze_card\",\"args\":{\"card_id\":\"card_5521\",\"reason\":\"lost\"},\"expect\":\"block DialogueUnmet at freeze_card.authorize\"}\n",
            "{\"type\":\"trace\",\"id\":\"another-card\"}\n",
            "{\"type\":\"user\",\"text\":\"I lost my card, please freeze card card_5521.\"}\n",
            "{\"type\":\"agent\",\"text\":\"I will freeze card card_5521 (reason: lost). Shall I go ahead?\"}\n",
            "{\"type\":\"user\",\"text\":\"Yes, please.\"}\n",
            "{\"type\":\"call\",\"id\":\"c1\",\"tool\":\"freeze_card\",\"args\":{\"card_id\":\"card_9000\",\"reason\":\"lost\"},\"expect\":\"block DialogueUnmet\"}\n",
            "{\"type\":\"trace\",\"id\":\"out-of-scope\"}\n",
            "{\"type\":\"user\",\"text\":\"I do not recognise a payment.\"}\n",
            "{\"type\":\"call\",\"id\":\"c1\",\"tool\":\"dispute-transaction\",\"args\":{\"transaction_ids\":[\"t1\"]},\"expect\":\"block NoAuthorization\"}\n",
        ),
    )
    .unwrap();
    let out = turnstile(&["test", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("4 conversations (4 runs), 4 expectations checked: 4 passed, 0 failed"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_paged_mcp_result_is_read_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = root().join("cli/tests/fixtures/mcp-tools-list.json");
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    value["result"]["nextCursor"] = "page-2".into();
    let paged = tmp.path().join("paged.json");
    std::fs::write(&paged, value.to_string()).unwrap();
    let out = init(&tmp.path().join("b"), &paged, &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("is one page of tools/list (nextCursor \"page-2\")"),
        "{}",
        text(&out)
    );
}

#[test]
fn openai_function_schemas_give_a_bundle_that_passes_check() {
    let tmp = tempfile::tempdir().unwrap();
    let tools = serde_json::json!({"tools": [
        {"type": "function", "function": {
            "name": "get_ticket", "description": "Get a support ticket.",
            "parameters": {"type": "object", "properties": {"ticket_id": {"type": "string"}}, "required": ["ticket_id"]}}},
        {"type": "function", "function": {
            "name": "grantAccess", "description": "Grant a user access to a system.",
            "parameters": {"type": "object", "properties": {
                "userId": {"type": "string"}, "system": {"type": "string", "enum": ["vpn", "crm"]},
                "until": {"type": "string", "format": "date"}}}}},
        {"type": "function", "function": {"name": "wipe_laptop", "description": "Remotely erase a laptop.",
            "parameters": {"type": "object", "properties": {}}}}
    ]});
    let file = tmp.path().join("tools.json");
    std::fs::write(&file, tools.to_string()).unwrap();
    let dir = tmp.path().join("it-access");
    let out = init(&dir, &file, &[]);
    assert!(out.status.success(), "{}", text(&out));
    let (valid, warnings) = check(&dir);
    assert!(valid);
    assert!(!warnings.is_empty());
    let manifest = std::fs::read_to_string(dir.join("bundle.yaml")).unwrap();
    assert!(manifest.contains("name: it-access\n"), "{manifest}");
    assert!(
        manifest.contains("request_types: [grantAccess, wipe_laptop]"),
        "{manifest}"
    );
    let grant = std::fs::read_to_string(dir.join("flows/grantAccess.yaml")).unwrap();
    assert!(grant.contains("guard: confirmed(args.userId)"), "{grant}");
    // No argument to name: a judge decides the consent.
    let wipe = std::fs::read_to_string(dir.join("flows/wipe_laptop.yaml")).unwrap();
    assert!(wipe.contains("    judge: \"After the agent proposed to wipe laptop, the user explicitly agreed (yes).\""), "{wipe}");
    assert!(!wipe.contains("guard:"), "{wipe}");
}

#[test]
fn existing_work_is_never_overwritten_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("b");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    let tools = root().join("data/tau2/tools.json");
    let out = init(&dir, &tools, &["--domain", "airline"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("exists and is not empty"),
        "{}",
        text(&out)
    );
    assert!(!dir.join("bundle.yaml").exists());
    let out = init(&dir, &tools, &["--domain", "airline", "--force"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(check(&dir).0);
    // An empty directory is fine.
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert!(
        init(&empty, &tools, &["--domain", "retail"])
            .status
            .success()
    );
}

#[test]
fn bad_input_is_refused_with_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let tools = root().join("data/tau2/tools.json");
    let dir = tmp.path().join("b");
    let out = init(&dir, &tools, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("name the domain with --domain (airline, mock, retail, telecom)"),
        "{}",
        text(&out)
    );
    let out = init(&dir, &tools, &["--domain", "bank"]);
    assert!(
        text(&out).contains("has no domain `bank`"),
        "{}",
        text(&out)
    );
    let garbage = tmp.path().join("x.json");
    std::fs::write(&garbage, "{\"tools\": 3}").unwrap();
    let out = init(&dir, &garbage, &[]);
    assert!(
        text(&out).contains("cannot tell the format"),
        "{}",
        text(&out)
    );
    assert!(!dir.exists(), "nothing is written on bad input");
    // A bundle with no tests yet fails `test`, saying why.
    assert!(init(&dir, &tools, &["--domain", "retail"]).status.success());
    let out = turnstile(&["test", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("no test conversations in"),
        "{}",
        text(&out)
    );
}
