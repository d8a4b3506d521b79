//! `turnstile gate --judge openai --state <store>` deciding the consent the
//! offline reader cannot, against a fake OpenAI-compatible server on
//! loopback that answers every question of a completion by its type
//! (classification: `cancel`; criterion: not satisfied, so the write lacks
//! only consent; consent: yes, citing the user's reply) and counts the
//! completions. A second gate process on the same store, and a server
//! killed and restarted on its store, continue the session: the write the
//! judge allowed is not held for the host, and no question is asked again.
//! `replay` and `audit` with the model judge say the consent was the
//! judge's.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{Server, copy_dir, gate, json, turnstile};

/// A fake chat-completions server: the number of completions it answered,
/// and how many of their questions were consent questions.
struct FakeModel {
    url: String,
    completions: Arc<AtomicUsize>,
    consent_questions: Arc<AtomicUsize>,
}

impl FakeModel {
    /// The flags that make `turnstile` ask this server.
    fn flags(&self) -> Vec<&str> {
        vec![
            "--judge",
            "openai",
            "--judge-url",
            self.url.as_str(),
            "--judge-model",
            "fake",
        ]
    }

    fn start() -> FakeModel {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let completions = Arc::new(AtomicUsize::new(0));
        let consent_questions = Arc::new(AtomicUsize::new(0));
        let (calls, consents) = (Arc::clone(&completions), Arc::clone(&consent_questions));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (calls, consents) = (Arc::clone(&calls), Arc::clone(&consents));
                std::thread::spawn(move || serve(stream, &calls, &consents));
            }
        });
        FakeModel {
            url,
            completions,
            consent_questions,
        }
    }
}

/// Answers the requests of one connection until it closes.
fn serve(stream: TcpStream, calls: &AtomicUsize, consents: &AtomicUsize) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut length = 0;
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        calls.fetch_add(1, Ordering::SeqCst);
        let request: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let prompt = request["messages"][1]["content"].as_str().unwrap();
        let content = answers(prompt, consents);
        let reply = serde_json::json!({
            "id": "x",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10}
        })
        .to_string();
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{reply}",
            reply.len()
        );
        if writer.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}

/// The answer object to the numbered questions of `prompt`, by type.
fn answers(prompt: &str, consents: &AtomicUsize) -> String {
    let mut members = serde_json::Map::new();
    for block in prompt.split("\nQuestion ").skip(1) {
        let number = block.lines().next().unwrap().trim().to_owned();
        let answer = if block.contains("Type: consent") {
            consents.fetch_add(1, Ordering::SeqCst);
            serde_json::json!({"verdict": "satisfied", "evidence_event": 9, "rationale": "agreed"})
        } else if block.contains("Type: classification") {
            serde_json::json!({"label": "cancel", "evidence_event": 0})
        } else {
            serde_json::json!({"verdict": "not_satisfied"})
        };
        members.insert(number, answer);
    }
    serde_json::Value::Object(members).to_string()
}

fn shop() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/fixtures/shop")
}

const OPENING: &[&str] = &[
    r##"{"type":"user","text":"Hi! I'd like to cancel an order. My email is u1@example.com."}"##,
    r##"{"type":"agent","text":"Sure, let me look you up."}"##,
    r##"{"type":"call","id":"c1","tool":"find_user_id_by_email","args":{"email":"u1@example.com"}}"##,
    r##"{"type":"result","id":"c1","ok":true,"content":"u1"}"##,
    r##"{"type":"call","id":"c2","tool":"get_user_details","args":{"user_id":"u1"}}"##,
    r##"{"type":"result","id":"c2","ok":true,"content":{"user_id":"u1","orders":["#O1"],"payment_methods":{},"bills":[]}}"##,
    r##"{"type":"call","id":"c3","tool":"get_order_details","args":{"order_id":"#O1"}}"##,
    r##"{"type":"result","id":"c3","ok":true,"content":{"order_id":"#O1","user_id":"u1","status":"pending","total":10,"items":[]}}"##,
    r##"{"type":"agent","text":"Order #O1: cancel it with reason 'no longer needed'? Please confirm (yes)."}"##,
    r##"{"type":"user","text":"Hmm, how long does a refund take?"}"##,
    r##"{"type":"call","id":"c4","tool":"cancel_pending_order","args":{"order_id":"#O1","reason":"no longer needed"}}"##,
];

fn lines(events: &[&str]) -> Vec<u8> {
    let mut input = events.join("\n").into_bytes();
    input.push(b'\n');
    input
}

#[test]
fn the_models_consent_is_stored_and_a_restarted_gate_keeps_it() {
    let model = FakeModel::start();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let mut judge = model.flags();
    judge.extend(["--session", "s1"]);
    let (code, verdicts, stderr) = gate(&shop(), &store, &judge, &lines(OPENING));
    assert_eq!(code, Some(0), "{stderr}");
    let write = &verdicts[10];
    assert_eq!(write["verdict"], "allow", "{write}");
    assert_eq!(write["consent_by_judge"]["evidence"], 9, "{write}");
    assert!(
        write["judge"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["node"] == "cancel.confirm#consent"),
        "{write}"
    );
    assert_eq!(model.consent_questions.load(Ordering::SeqCst), 1);
    let asked = model.completions.load(Ordering::SeqCst);
    // The consent question went in a call of its own, after the others.
    assert!(asked >= 2, "{asked} completions");
    // A second gate restores the session from the store: an approval of
    // the allowed call names no held call, and nothing is asked.
    let approval = r#"{"type":"approval","call":"c4","granted":true,"by":"user"}"#;
    let (code, verdicts, stderr) = gate(&shop(), &store, &judge, &lines(&[approval]));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(verdicts[0]["event"], 11, "{}", verdicts[0]);
    assert!(
        !verdicts[0]["anomalies"].as_array().unwrap().is_empty(),
        "{}",
        verdicts[0]
    );
    assert_eq!(model.completions.load(Ordering::SeqCst), asked);
}

#[test]
fn the_offline_judge_leaves_the_same_write_to_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let (code, verdicts, stderr) = gate(&shop(), &store, &[], &lines(OPENING));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(verdicts[10]["verdict"], "confirm", "{}", verdicts[10]);
    assert_eq!(verdicts[10]["consent"], "qualified", "{}", verdicts[10]);
}

#[test]
fn a_served_session_keeps_the_models_consent_across_a_restart() {
    let model = FakeModel::start();
    let dir = tempfile::tempdir().unwrap();
    let bundles = dir.path().join("bundles");
    copy_dir(&shop(), &bundles.join("shop"));
    let store = dir.path().join("s.db");
    let judge = model.flags();
    let mut server = Server::start_with(&bundles, &store, &judge);
    let (status, body) = server.request(
        "POST",
        "/v1/sessions",
        Some(r#"{"bundle":"shop","schedule":"workflow"}"#),
    );
    assert_eq!(status, 201, "{body}");
    let id = json(&body)["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/sessions/{id}/events");
    let (status, body) = server.request("POST", &path, Some(&format!("[{}]", OPENING.join(","))));
    assert_eq!(status, 200, "{body}");
    let verdicts = json(&body);
    let write = &verdicts[10];
    assert_eq!(write["verdict"], "allow", "{write}");
    assert_eq!(write["consent_by_judge"]["evidence"], 9, "{write}");
    let (_, doc) = server.request("GET", "/openapi.json", None);
    assert!(
        json(&doc)["components"]["schemas"]["Verdict"]["properties"]["consent_by_judge"]
            .is_object(),
        "{doc}"
    );
    let asked = model.completions.load(Ordering::SeqCst);
    server.kill();
    let server = Server::start_with(&bundles, &store, &judge);
    let approval = r#"{"type":"approval","call":"c4","granted":true,"by":"user"}"#;
    let (status, body) = server.request("POST", &path, Some(approval));
    assert_eq!(status, 200, "{body}");
    let verdict = json(&body);
    assert_eq!(verdict["event"], 11, "{verdict}");
    assert!(
        !verdict["anomalies"].as_array().unwrap().is_empty(),
        "{verdict}"
    );
    assert_eq!(model.completions.load(Ordering::SeqCst), asked);
    assert_eq!(model.consent_questions.load(Ordering::SeqCst), 1);
}

#[test]
fn replay_and_audit_say_the_consent_was_the_judges() {
    let model = FakeModel::start();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("conversation.jsonl");
    let mut text = String::from("{\"type\":\"trace\",\"id\":\"undecided\"}\n");
    text.push_str(&OPENING.join("\n"));
    text.push('\n');
    std::fs::write(&file, text).unwrap();
    let (shop, file) = (shop(), file.to_string_lossy().into_owned());
    let judge = model.flags();
    let mut replay = vec!["replay", shop.to_str().unwrap(), file.as_str()];
    replay.extend(&judge);
    let out = turnstile(&replay);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(
            "ALLOW  cancel.authorize {order=#O1, user=u1} (consent read by the judge in event 9)"
        ),
        "{stdout}"
    );
    let mut audit = vec![
        "audit",
        "--bundle",
        shop.to_str().unwrap(),
        "--format",
        "json",
        "--quiet",
    ];
    audit.extend(&judge);
    audit.push(file.as_str());
    let out = turnstile(&audit);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let report = traced(&stdout);
    assert_eq!(report["verdict"], "compliant", "{report}");
    assert_eq!(report["consent_by_judge"][0]["event"], 10, "{report}");
    assert_eq!(report["consent_by_judge"][0]["evidence"], 9, "{report}");
    assert!(report.get("needs_review").is_none(), "{report}");
    let mut table = vec!["audit", "--bundle", shop.to_str().unwrap(), "--quiet"];
    table.extend(&judge);
    table.push(file.as_str());
    let out = turnstile(&table);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("consent read by the model judge where the reader could not decide it: 1 mutating calls allowed"),
        "{stdout}"
    );
    // Offline, the same write needs review.
    let out = turnstile(&[
        "audit",
        "--bundle",
        shop.to_str().unwrap(),
        "--format",
        "json",
        "--quiet",
        file.as_str(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report = traced(&stdout);
    assert_eq!(report["verdict"], "needs_review", "{report}");
    assert!(report.get("consent_by_judge").is_none(), "{report}");
}

/// The audit report's trace `undecided`.
fn traced(stdout: &str) -> serde_json::Value {
    json(stdout)["traces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["trace"] == "undecided")
        .cloned()
        .unwrap_or_else(|| panic!("{stdout}"))
}
