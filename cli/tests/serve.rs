//! End-to-end tests of `turnstile serve`, the built binary on a loopback
//! port: the session flow, the token, JSON errors for malformed requests,
//! and a kill -9 harness that checks no acknowledged verdict is ever lost.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod common;

use common::{Server, http, json, root};

/// The events of one trace of the shipped sample (its 4th: a failed task,
/// with blocks), as JSON lines.
fn conversation() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("examples/retail-sample.jsonl")).unwrap();
    let mut traces: Vec<Vec<String>> = Vec::new();
    for line in text.lines() {
        if line.contains("\"type\":\"trace\"") {
            traces.push(Vec::new());
        } else if let Some(trace) = traces.last_mut() {
            trace.push(line.to_owned());
        }
    }
    traces.swap_remove(3)
}

/// What `turnstile gate` answers for the same events.
fn gate_verdicts(events: &[String]) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    let (code, verdicts, stderr) = common::gate(
        &root().join("bundles/retail"),
        &dir.path().join("gate.db"),
        &[],
        events.join("\n").as_bytes(),
    );
    assert_eq!(code, Some(0), "{stderr}");
    verdicts
}

fn create(server: &Server) -> String {
    let (status, body) = server.request(
        "POST",
        "/v1/sessions",
        Some(r#"{"bundle":"retail","schedule":"workflow"}"#),
    );
    assert_eq!(status, 201, "{body}");
    let id = json(&body)["id"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 32, "128 bits in hex: {id}");
    id
}

#[test]
fn a_session_answers_what_the_gate_answers_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("s.db"), &[]);
    let events = conversation();
    let expected = gate_verdicts(&events);
    assert!(expected.iter().any(|v| v["verdict"] == "block"));
    let id = create(&server);
    assert_ne!(id, create(&server), "ids are fresh");
    // The first event alone, the rest as one array.
    let path = format!("/v1/sessions/{id}/events");
    let (status, body) = server.request("POST", &path, Some(&events[0]));
    assert_eq!(status, 200, "{body}");
    let mut got = vec![json(&body)];
    let (status, body) =
        server.request("POST", &path, Some(&format!("[{}]", events[1..].join(","))));
    assert_eq!(status, 200, "{body}");
    got.extend(json(&body).as_array().unwrap().iter().cloned());
    assert_eq!(got, expected);
    let (status, body) = server.request("GET", &format!("/v1/sessions/{id}"), None);
    assert_eq!(status, 200, "{body}");
    let view = json(&body);
    assert_eq!(view["events"], events.len());
    assert_eq!(view["bundle"], "retail");
    assert_eq!(view["verdicts"].as_array().unwrap(), &expected);
    assert!(view["requests"].is_array());
    let (status, body) = server.request("GET", "/healthz", None);
    assert_eq!((status, json(&body)["status"].clone()), (200, "ok".into()));
    let (status, metrics) = server.request("GET", "/metrics", None);
    assert_eq!(status, 200);
    let blocks = expected.iter().filter(|v| v["verdict"] == "block").count();
    assert!(
        metrics.contains(&format!(
            "turnstile_decisions_total{{verdict=\"block\"}} {blocks}"
        )),
        "{metrics}"
    );
    assert!(metrics.contains(&format!(
        "turnstile_decision_seconds_count {}",
        events.len()
    )));
    // Two sessions' creations and each event's commit, all stored.
    assert!(
        metrics.contains(&format!(
            "turnstile_store_writes_total {}",
            events.len() + 2
        )),
        "{metrics}"
    );
    let (status, body) = server.request("GET", "/openapi.json", None);
    assert_eq!(status, 200);
    let doc = json(&body);
    assert!(
        doc["paths"]["/v1/sessions/{id}/events"]["post"].is_object(),
        "{body}"
    );
    // The `confirm` verdict's request and the `approval` event are described.
    let schemas = &doc["components"]["schemas"];
    assert!(
        schemas["ConfirmationDoc"]["properties"]["call"].is_object(),
        "{body}"
    );
    assert!(
        schemas["Verdict"]["properties"]["confirmation"].is_object(),
        "{body}"
    );
    assert!(
        body.contains("\"approval\""),
        "the approval event is in the document: {body}"
    );
}

#[test]
fn every_route_requires_the_token_when_one_is_set() {
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, "s3cret\n").unwrap();
    let server = Server::start(
        &dir.path().join("s.db"),
        &["--token-file", token_file.to_str().unwrap()],
    );
    for (method, path) in [
        ("GET", "/healthz"),
        ("GET", "/metrics"),
        ("GET", "/openapi.json"),
        ("POST", "/v1/sessions"),
        ("GET", "/v1/sessions/0123"),
    ] {
        for token in [None, Some("wrong")] {
            let (status, body) = http(&server.addr, method, path, Some("{}"), token);
            assert_eq!(status, 401, "{method} {path}: {body}");
            assert!(json(&body)["error"].as_str().unwrap().contains("bearer"));
        }
    }
    let (status, _) = http(&server.addr, "GET", "/healthz", None, Some("s3cret"));
    assert_eq!(status, 200);
    let (status, body) = http(
        &server.addr,
        "POST",
        "/v1/sessions",
        Some(r#"{"bundle":"retail"}"#),
        Some("s3cret"),
    );
    assert_eq!(status, 201, "{body}");
}

#[test]
fn malformed_requests_get_4xx_json_errors_never_a_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("s.db"), &["--max-body", "4096"]);
    let id = create(&server);
    let events = format!("/v1/sessions/{id}/events");
    let cases: Vec<(&str, String, Option<String>, u16)> = vec![
        ("POST", events.clone(), Some("{not json".into()), 400),
        (
            "POST",
            events.clone(),
            Some(r#"{"type":"call","id":"c1"}"#.into()),
            422,
        ),
        (
            "POST",
            events.clone(),
            Some(r#"[{"type":"user","text":"hi"}, 7]"#.into()),
            422,
        ),
        (
            "POST",
            events.clone(),
            Some(format!(
                r#"{{"type":"user","text":"{}"}}"#,
                "x".repeat(10_000)
            )),
            413,
        ),
        (
            "POST",
            "/v1/sessions/ffffffffffffffffffffffffffffffff/events".into(),
            Some(r#"{"type":"user","text":"hi"}"#.into()),
            404,
        ),
        (
            "GET",
            "/v1/sessions/ffffffffffffffffffffffffffffffff".into(),
            None,
            404,
        ),
        (
            "POST",
            "/v1/sessions".into(),
            Some(r#"{"bundle":"nope"}"#.into()),
            404,
        ),
        (
            "POST",
            "/v1/sessions".into(),
            Some(r#"{"bundle":"retail","schedule":"sometimes"}"#.into()),
            422,
        ),
        ("POST", "/v1/sessions".into(), Some("[]".into()), 422),
        ("GET", "/v2/nothing".into(), None, 404),
        ("DELETE", "/v1/sessions".into(), None, 405),
    ];
    for (method, path, body, expected) in cases {
        let (status, text) = server.request(method, &path, body.as_deref());
        assert_eq!(status, expected, "{method} {path}: {text}");
        let answer = json(&text);
        assert!(answer["error"].is_string(), "{method} {path}: {text}");
        assert!(answer.get("verdict").is_none(), "{text}");
    }
    // Nothing malformed was ingested.
    let (_, body) = server.request("GET", &format!("/v1/sessions/{id}"), None);
    assert_eq!(json(&body)["events"], 0);
}

/// A small deterministic generator (no dependency needed for a seed).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

#[test]
fn kill_9_at_random_points_loses_no_acknowledged_verdict() {
    let events = conversation();
    let expected = gate_verdicts(&events);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let mut rng = Lcg(0x5eed_2026);
    let mut acknowledged: Vec<serde_json::Value> = Vec::new();
    let mut id: Option<String> = None;
    let mut kills = 0;
    // Bounded: each round acknowledges at least one event or kills once.
    for _round in 0..(events.len() * 2 + 20) {
        let mut server = Server::start(&store, &[]);
        let session = id.get_or_insert_with(|| create(&server)).clone();
        // After a restart the store holds every acknowledged verdict, and
        // at most the one that was in flight when the server died.
        let (status, body) = server.request("GET", &format!("/v1/sessions/{session}"), None);
        assert_eq!(status, 200, "{body}");
        let stored = json(&body)["verdicts"].as_array().unwrap().clone();
        assert!(
            stored.len() >= acknowledged.len(),
            "lost verdicts after kill {kills}"
        );
        assert!(stored.len() <= acknowledged.len() + 1);
        assert_eq!(stored[..acknowledged.len()], acknowledged[..]);
        assert_eq!(
            stored[..],
            expected[..stored.len()],
            "a verdict differs from the uninterrupted run"
        );
        acknowledged = stored;
        if acknowledged.len() == events.len() {
            break;
        }
        let path = format!("/v1/sessions/{session}/events");
        // Acknowledge a few events, then kill the server while one is in
        // flight (before, during or after its commit), at most 6 times.
        let before_kill = 1 + rng.below(8) as usize;
        let mut killed = false;
        for _ in 0..before_kill {
            let next = acknowledged.len();
            if next == events.len() {
                break;
            }
            if kills < 6 && acknowledged.len() + 1 < events.len() && rng.below(3) == 0 {
                let addr = server.addr.clone();
                let event = events[next].clone();
                let p = path.clone();
                let in_flight = std::thread::spawn(move || {
                    std::panic::catch_unwind(|| http(&addr, "POST", &p, Some(&event), None)).ok()
                });
                std::thread::sleep(std::time::Duration::from_micros(rng.below(3000)));
                server.kill();
                if let Some((200, body)) = in_flight.join().unwrap() {
                    acknowledged.push(json(&body));
                }
                kills += 1;
                killed = true;
                break;
            }
            let (status, body) = server.request("POST", &path, Some(&events[next]));
            assert_eq!(status, 200, "{body}");
            acknowledged.push(json(&body));
        }
        if !killed {
            kills += 1;
            server.kill();
        }
    }
    assert_eq!(acknowledged, expected);
    assert!(kills >= 3, "only {kills} kills");
}

/// Idle sessions leave the server's memory and come back from the store on
/// their next event, answering as if they had never left.
#[test]
fn an_evicted_session_is_restored_on_its_next_event() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("s.db"), &["--idle-ms", "40"]);
    let events = conversation();
    let expected = gate_verdicts(&events);
    let id = create(&server);
    let path = format!("/v1/sessions/{id}/events");
    let mut got = Vec::new();
    let half = events.len() / 2;
    for event in &events[..half] {
        let (status, body) = server.request("POST", &path, Some(event));
        assert_eq!(status, 200, "{body}");
        got.push(json(&body));
    }
    let evicted = || {
        let (_, metrics) = server.request("GET", "/metrics", None);
        metrics
            .lines()
            .find_map(|l| l.strip_prefix("turnstile_sessions_evicted_total "))
            .and_then(|n| n.trim().parse::<u64>().ok())
            .unwrap()
    };
    let start = std::time::Instant::now();
    while evicted() == 0 {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "the idle session was not evicted"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    for event in &events[half..] {
        let (status, body) = server.request("POST", &path, Some(event));
        assert_eq!(status, 200, "{body}");
        got.push(json(&body));
    }
    assert_eq!(got, expected, "the restored session answers alike");
    let (status, body) = server.request("GET", &format!("/v1/sessions/{id}"), None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(json(&body)["events"], events.len());
}
