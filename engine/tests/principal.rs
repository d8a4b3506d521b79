//! The host's `principal` event: a logged-in app or an MCP client that
//! authenticated the user itself names them. Where the bundle says
//! `host_principal: true` its id and claims count as the user's words for
//! identification (`said(user, …)`); elsewhere, and for a second, different
//! principal of one conversation, it is an anomaly (`PrincipalRefused`) and
//! names nothing. It travels in the native format like any event.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a panic is a failure report

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;
use turnstile_engine::session::{BundleRuntime, GateVerdict, Schedule, Session};
use turnstile_engine::trace::{Event, Trace, TraceMeta};
use turnstile_engine::{check_bundle, extract::extract};
use turnstile_judge::OfflineJudge;
use turnstile_rules::{ExtractionProblem, Speaker, Value};

use support::{agent, call, ok, user};

const USER: &str = "yusuf_rossi_9620";
const EMAIL: &str = "yusuf.rossi@example.com";
const ORDER: &str = "#W9300146";

/// The shipped retail bundle, copied, with `host_principal` set as asked.
fn retail(host_principal: bool) -> (tempfile::TempDir, PathBuf) {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/retail");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("retail");
    copy_dir(&shipped, &root);
    if host_principal {
        let manifest = root.join("bundle.yaml");
        let text = std::fs::read_to_string(&manifest).unwrap();
        std::fs::write(&manifest, format!("{text}host_principal: true\n")).unwrap();
    }
    (dir, root)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

fn principal(id: &str, claims: &[(&str, &str)]) -> Event {
    Event::Principal {
        id: id.into(),
        claims: claims
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect::<BTreeMap<_, _>>(),
    }
}

/// `first` (the host's events, if any), then a lookup by email the user
/// never typed, the profile, the order, the reason, the summary, the yes
/// and the cancellation.
fn conversation(first: Vec<Event>) -> Vec<Event> {
    let mut events = first;
    events.extend([
        user("Hi, I need to cancel an order."),
        call("find", "find_user_id_by_email", json!({"email": EMAIL})),
        ok("find", json!(USER)),
        call("profile", "get_user_details", json!({"user_id": USER})),
        ok(
            "profile",
            json!({"user_id": USER, "email": EMAIL, "orders": [ORDER],
                   "name": {"first_name": "Yusuf", "last_name": "Rossi"},
                   "address": {"zip": "19122"}, "payment_methods": {}}),
        ),
        call("order", "get_order_details", json!({"order_id": ORDER})),
        ok(
            "order",
            json!({"order_id": ORDER, "user_id": USER, "status": "pending",
                   "items": [], "payment_history": []}),
        ),
        user("I want to cancel #W9300146, I no longer need it."),
        agent("To confirm: cancel order #W9300146, reason no longer needed. Shall I proceed?"),
        user("Yes, please."),
        call(
            "cancel",
            "cancel_pending_order",
            json!({"order_id": ORDER, "reason": "no longer needed"}),
        ),
    ]);
    events
}

/// The verdict on the conversation's last event under `workflow`.
fn last_verdict(root: &Path, events: Vec<Event>) -> GateVerdict {
    let bundle = check_bundle(root).unwrap_or_else(|p| panic!("{p}"));
    let rt = BundleRuntime::new(Arc::new(bundle)).unwrap();
    let mut session = Session::new(rt, Schedule::Workflow);
    let mut last = None;
    for event in events {
        last = Some(session.push(event, &OfflineJudge).unwrap().verdict);
    }
    last.unwrap()
}

fn is_allow(verdict: &GateVerdict) -> bool {
    matches!(verdict, GateVerdict::Allow { .. })
}

#[test]
fn a_principal_the_bundle_accepts_stands_for_the_users_words() {
    let (_dir, root) = retail(true);
    let verdict = last_verdict(
        &root,
        conversation(vec![principal(USER, &[("email", EMAIL)])]),
    );
    assert!(is_allow(&verdict), "{verdict:?}");
}

#[test]
fn without_a_principal_the_email_must_be_the_users() {
    let (_dir, root) = retail(true);
    let verdict = last_verdict(&root, conversation(Vec::new()));
    assert!(!is_allow(&verdict), "{verdict:?}");
}

#[test]
fn a_bundle_that_does_not_accept_host_principals_ignores_them() {
    let (_dir, root) = retail(false);
    let verdict = last_verdict(
        &root,
        conversation(vec![principal(USER, &[("email", EMAIL)])]),
    );
    assert!(!is_allow(&verdict), "{verdict:?}");
}

/// One principal per conversation: a second, different one names nothing,
/// so its email is no identification.
#[test]
fn a_second_different_principal_opens_nothing() {
    let (_dir, root) = retail(true);
    let verdict = last_verdict(
        &root,
        conversation(vec![
            principal("mei_kovacs_8020", &[("email", "mei.kovacs@example.com")]),
            principal(USER, &[("email", EMAIL)]),
        ]),
    );
    assert!(!is_allow(&verdict), "{verdict:?}");
}

/// The principal is the host's: a user message quoting it is the user's
/// words only, and a principal for someone else names another email.
#[test]
fn a_principal_naming_someone_else_does_not_identify_the_user() {
    let (_dir, root) = retail(true);
    let verdict = last_verdict(
        &root,
        conversation(vec![principal(
            "mei_kovacs_8020",
            &[("email", "mei.kovacs@example.com")],
        )]),
    );
    assert!(!is_allow(&verdict), "{verdict:?}");
}

#[test]
fn the_extractor_takes_the_first_principal_and_refuses_the_rest() {
    let (_dir, root) = retail(true);
    let bundle = check_bundle(&root).unwrap_or_else(|p| panic!("{p}"));
    let trace = Trace {
        meta: TraceMeta::default(),
        events: vec![
            principal(USER, &[("email", EMAIL)]),
            principal(USER, &[("email", EMAIL)]),
            principal("mei_kovacs_8020", &[]),
            call("find", "find_user_id_by_email", json!({"email": EMAIL})),
            ok("find", json!(USER)),
        ],
    };
    let facts = extract(&bundle, &trace);
    let email = facts.interner.get(EMAIL).expect("the email is a value");
    let said_at: Vec<u32> = facts
        .mentions
        .iter()
        .filter(|m| m.value == Value::Str(email) && m.speaker == Speaker::User)
        .map(|m| m.event.0)
        .collect();
    assert_eq!(said_at, [0], "the first principal names the email");
    let refused: Vec<u32> = facts
        .diagnostics
        .iter()
        .filter(|d| d.kind == ExtractionProblem::PrincipalRefused)
        .map(|d| d.event.0)
        .collect();
    assert_eq!(
        refused,
        [2],
        "the same principal again is harmless; another is refused"
    );
    assert!(ExtractionProblem::PrincipalRefused.is_anomaly());
    // A principal event is a user turn with no cues: it says no yes.
    let turn = facts.turns.iter().find(|t| t.event.0 == 0).unwrap();
    assert_eq!(turn.speaker, Speaker::User);
    assert!(turn.reply == turnstile_rules::Reply::Other && !turn.corrects);

    let (_dir, plain) = retail(false);
    let bundle = check_bundle(&plain).unwrap_or_else(|p| panic!("{p}"));
    let facts = extract(&bundle, &trace);
    assert!(facts.mentions.iter().all(|m| m.speaker != Speaker::User));
    assert_eq!(
        facts
            .diagnostics
            .iter()
            .filter(|d| d.kind == ExtractionProblem::PrincipalRefused)
            .count(),
        3
    );
}

#[test]
fn a_principal_line_round_trips_through_the_native_format() {
    let line = r#"{"type":"principal","id":"yusuf_rossi_9620","claims":{"email":"yusuf.rossi@example.com"}}"#;
    let event: Event = serde_json::from_str(line).unwrap();
    assert_eq!(event, principal(USER, &[("email", EMAIL)]));
    assert_eq!(serde_json::to_string(&event).unwrap(), line);
    let bare: Event = serde_json::from_str(r#"{"type":"principal","id":"u1"}"#).unwrap();
    assert_eq!(bare, principal("u1", &[]));
    assert_eq!(
        serde_json::to_string(&bare).unwrap(),
        r#"{"type":"principal","id":"u1"}"#
    );
    assert!(!bare.is_agent_event());
    // Through the importer, in a file.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.jsonl");
    std::fs::write(
        &file,
        format!(
            "{{\"type\":\"trace\",\"id\":\"t\"}}\n{line}\n{{\"type\":\"user\",\"text\":\"hi\"}}\n"
        ),
    )
    .unwrap();
    let mut traces = Vec::new();
    turnstile_engine::import::for_each_trace(&file, None, |t| {
        traces.push(t.unwrap());
        std::ops::ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(traces.len(), 1);
    assert_eq!(traces[0].events[0], principal(USER, &[("email", EMAIL)]));
}
