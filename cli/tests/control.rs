//! `control` (who calls the telecom bundle's device tools) through the live
//! gate and the server: set by a trace header or the session-create request,
//! kept in the store, and honoured after a restart — a solo session still
//! lets the agent call a device tool, a dual one still blocks it as
//! `WrongSide`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod common;

use std::path::Path;

use common::{Server, json, root};

const OPENING: &[&str] = &[
    r#"{"type":"agent","text":"Hi! How can I help you today?"}"#,
    r#"{"type":"user","text":"My mobile data is not working."}"#,
];

/// The agent runs a device tool itself (a fresh call id per use).
fn device_call(id: &str) -> String {
    format!(
        r#"{{"type":"call","id":"{id}","tool":"check_status_bar","args":{{}},"requestor":"agent"}}"#
    )
}

/// `turnstile gate` on the telecom bundle: the verdicts for `lines`.
fn gate(store: &Path, extra: &[&str], lines: &[String]) -> Vec<serde_json::Value> {
    let bundle = root().join("bundles/telecom");
    let (code, verdicts, stderr) = common::gate(&bundle, store, extra, lines.join("\n").as_bytes());
    assert_eq!(code, Some(0), "{stderr}");
    verdicts
}

/// The error of a refused line.
fn error_of(verdict: &serde_json::Value) -> &str {
    assert_eq!(verdict["verdict"], "block", "{verdict}");
    verdict["error"].as_str().unwrap_or_default()
}

fn is_wrong_side(verdict: &serde_json::Value) -> bool {
    verdict["verdict"] == "block" && verdict["reason"] == "WrongSide"
}

#[test]
fn the_gate_honours_and_keeps_a_headers_control() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    for control in ["solo", "dual"] {
        let mut lines = vec![format!(
            r#"{{"type":"trace","id":"{control}-session","control":"{control}"}}"#
        )];
        lines.extend(OPENING.iter().map(|l| (*l).to_owned()));
        lines.push(device_call("d1"));
        let verdicts = gate(&store, &[], &lines);
        assert_eq!(verdicts[0]["verdict"], "observe");
        assert_eq!(verdicts[0]["control"], control);
        let first = &verdicts[3];
        // A restarted gate continues the stored session: same control.
        let again = gate(
            &store,
            &["--session", &format!("{control}-session")],
            &[device_call("d2")],
        );
        let restored = &again[0];
        assert_eq!(restored["event"], 3, "{restored}");
        match control {
            "solo" => {
                assert_ne!(first["verdict"], "block", "{first}");
                assert_ne!(restored["verdict"], "block", "{restored}");
            }
            _ => {
                assert!(is_wrong_side(first), "{first}");
                assert!(is_wrong_side(restored), "{restored}");
            }
        }
    }
}

#[test]
fn the_gate_refuses_a_header_with_an_unknown_control() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        r#"{"type":"trace","id":"t","control":"both"}"#.to_owned(),
        OPENING[0].to_owned(),
        r#"{"type":"trace","id":"u"}"#.to_owned(),
        device_call("d1"),
    ];
    let verdicts = gate(&dir.path().join("s.db"), &[], &lines);
    assert!(
        error_of(&verdicts[0]).contains("control"),
        "{}",
        verdicts[0]
    );
    // No session until the next header; that one runs under the bundle's.
    assert!(
        error_of(&verdicts[1]).contains("no session"),
        "{}",
        verdicts[1]
    );
    assert_eq!(verdicts[2]["control"], "dual");
    assert!(is_wrong_side(&verdicts[3]), "{}", verdicts[3]);
}

#[test]
fn the_server_honours_and_keeps_a_sessions_control() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let mut server = Server::start(&store, &[]);
    let mut sessions = Vec::new();
    for control in [Some("solo"), Some("dual"), None] {
        let body = match control {
            Some(c) => format!(r#"{{"bundle":"telecom","control":"{c}"}}"#),
            None => r#"{"bundle":"telecom"}"#.to_owned(),
        };
        let (status, created) = server.request("POST", "/v1/sessions", Some(&body));
        assert_eq!(status, 201, "{created}");
        let created = json(&created);
        let expected = control.unwrap_or("dual");
        assert_eq!(created["control"], expected, "{created}");
        let id = created["id"].as_str().unwrap().to_owned();
        let path = format!("/v1/sessions/{id}/events");
        let events = format!("[{},{}]", OPENING.join(","), device_call("d1"));
        let (status, verdicts) = server.request("POST", &path, Some(&events));
        assert_eq!(status, 200, "{verdicts}");
        let first = json(&verdicts)[2].clone();
        assert_eq!(is_wrong_side(&first), expected == "dual", "{first}");
        sessions.push((id, expected));
    }
    // Unknown controls are refused before any session exists.
    let (status, body) = server.request(
        "POST",
        "/v1/sessions",
        Some(r#"{"bundle":"telecom","control":"both"}"#),
    );
    assert_eq!(status, 422, "{body}");
    // The OpenAPI document describes the field.
    let (_, doc) = server.request("GET", "/openapi.json", None);
    let doc = json(&doc);
    let field = &doc["components"]["schemas"]["CreateSession"]["properties"]["control"];
    assert!(field.is_object(), "{doc}");
    // A restart: every session comes back from the store with its control.
    server.kill();
    let server = Server::start(&store, &[]);
    for (id, control) in sessions {
        let (status, view) = server.request("GET", &format!("/v1/sessions/{id}"), None);
        assert_eq!(status, 200, "{view}");
        assert_eq!(json(&view)["control"], control);
        let (status, verdict) = server.request(
            "POST",
            &format!("/v1/sessions/{id}/events"),
            Some(&device_call("d2")),
        );
        assert_eq!(status, 200, "{verdict}");
        let verdict = json(&verdict);
        assert_eq!(verdict["event"], 3, "{verdict}");
        assert_eq!(
            is_wrong_side(&verdict),
            control == "dual",
            "{control}: {verdict}"
        );
    }
}
