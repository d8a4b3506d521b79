//! The gate fails closed on everything unknown (issue #11): undeclared
//! tools, side claims that contradict the bundle, wrong types, used
//! authorizations, malformed input and oversized sessions — each a
//! conversation on the `shop` fixture that the gate must block or flag.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value as Json, json};
use turnstile_engine::bundle::model::Side;
use turnstile_engine::check_bundle;
use turnstile_engine::session::{
    BundleRuntime, EventReport, GateVerdict, Schedule, Session, SessionLimits,
};
use turnstile_engine::trace::Event;
use turnstile_judge::OfflineJudge;
use turnstile_rules::Reason;

fn runtime() -> Arc<BundleRuntime> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shop");
    let bundle = check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"));
    BundleRuntime::new(Arc::new(bundle)).unwrap()
}

fn user(text: &str) -> Event {
    Event::User { text: text.into() }
}

fn agent(text: &str) -> Event {
    Event::Agent { text: text.into() }
}

fn call(id: &str, tool: &str, args: Json) -> Event {
    Event::Call {
        id: id.into(),
        tool: tool.into(),
        args,
        requestor: Side::Agent,
    }
}

fn user_call(id: &str, tool: &str, args: Json) -> Event {
    Event::Call {
        id: id.into(),
        tool: tool.into(),
        args,
        requestor: Side::User,
    }
}

fn ok(id: &str, content: Json) -> Event {
    Event::Result {
        id: id.into(),
        ok: true,
        content,
    }
}

fn failed(id: &str) -> Event {
    Event::Result {
        id: id.into(),
        ok: false,
        content: json!("Error: try again"),
    }
}

fn profile() -> Json {
    json!({
        "user_id": "u1",
        "orders": ["#O1", "#O2"],
        "payment_methods": {"cc": {"id": "cc", "source": "credit_card"}},
        "bills": []
    })
}

fn order(id: &str, status: &str) -> Json {
    json!({
        "order_id": id, "user_id": "u1", "status": status, "total": 120.25,
        "items": [{"item_id": "shirt_red_m", "product_id": "shirt", "price": 20}]
    })
}

/// Identification, without the order read: events 0-5.
fn identified() -> Vec<Event> {
    vec![
        user("Hi! I'd like to cancel an order. My email is u1@example.com."),
        agent("Sure, let me look you up."),
        call(
            "c1",
            "find_user_id_by_email",
            json!({"email": "u1@example.com"}),
        ),
        ok("c1", json!("u1")),
        call("c2", "get_user_details", json!({"user_id": "u1"})),
        ok("c2", profile()),
    ]
}

/// Identification and the order read: events 0-7.
fn opening(status: &str) -> Vec<Event> {
    let mut events = identified();
    events.push(call("c3", "get_order_details", json!({"order_id": "#O1"})));
    events.push(ok("c3", order("#O1", status)));
    events
}

fn confirm() -> Vec<Event> {
    vec![
        agent("Order #O1: cancel it with reason 'no longer needed'? Please confirm (yes)."),
        user("Yes, please go ahead."),
    ]
}

fn cancel(id: &str) -> Event {
    call(
        id,
        "cancel_pending_order",
        json!({"order_id": "#O1", "reason": "no longer needed"}),
    )
}

fn run(events: Vec<Event>) -> Vec<EventReport> {
    run_with(Session::new(runtime(), Schedule::Workflow), events)
}

fn run_with(mut session: Session, events: Vec<Event>) -> Vec<EventReport> {
    let judge = OfflineJudge::new();
    let mut out = Vec::new();
    for event in events {
        out.push(session.push(event, &judge).unwrap());
    }
    out
}

/// The block's reason, remediation and explanation; panics on anything else.
fn blocked(report: &EventReport) -> (Reason, Option<String>, String) {
    match &report.verdict {
        GateVerdict::Block {
            reason,
            remediation,
            explanation,
            ..
        } => (*reason, remediation.clone(), explanation.clone()),
        other => panic!("event {}: expected block, got {other:?}", report.event),
    }
}

#[test]
fn undeclared_tools_are_blocked_with_a_hint() {
    for (tool, hint) in [
        ("nonexistent_tool", None),
        ("Cancel_Pending_Order", Some("cancel_pending_order")),
        ("cancel_pending_order ", Some("cancel_pending_order")),
        ("delete_order", None),
    ] {
        let mut events = opening("pending");
        events.push(call("x", tool, json!({"order_id": "#O1"})));
        let reports = run(events);
        let last = reports.last().unwrap();
        let (reason, remediation, explanation) = blocked(last);
        assert_eq!(reason, Reason::UnknownTool, "{tool}");
        assert!(explanation.contains(tool), "{explanation}");
        assert!(last.mutating, "{tool}");
        if let Some(hint) = hint {
            assert_eq!(
                remediation.as_deref(),
                Some(format!("did you mean `{hint}`?").as_str()),
                "{tool}"
            );
        } else {
            assert!(
                !remediation.unwrap_or_default().contains("did you mean"),
                "{tool}"
            );
        }
    }
}

#[test]
fn undeclared_tools_are_blocked_on_every_schedule() {
    for schedule in [Schedule::Action, Schedule::Boundary] {
        let mut events = opening("pending");
        events.push(call("x", "delete_order", json!({"order_id": "#O1"})));
        let reports = run_with(Session::new(runtime(), schedule), events);
        assert_eq!(blocked(reports.last().unwrap()).0, Reason::UnknownTool);
    }
}

#[test]
fn a_write_attributed_to_the_user_is_still_gated() {
    let mut events = opening("pending");
    events.push(user_call(
        "c9",
        "cancel_pending_order",
        json!({"order_id": "#O1", "reason": "no longer needed"}),
    ));
    let reports = run(events);
    let last = reports.last().unwrap();
    assert!(last.mutating);
    // Gated: only the user's yes is missing, so it is held for confirmation.
    assert!(last.verdict.is_confirm(), "{:?}", last.verdict);
}

#[test]
fn a_read_attributed_to_the_user_satisfies_no_agent_step() {
    let mut events = identified();
    events.push(user_call(
        "c3",
        "get_order_details",
        json!({"order_id": "#O1"}),
    ));
    events.push(ok("c3", order("#O1", "pending")));
    events.extend(confirm());
    events.push(cancel("c4"));
    let reports = run(events);
    let (reason, _, explanation) = blocked(reports.last().unwrap());
    assert_ne!(reason, Reason::UnknownTool, "{explanation}");
    assert!(!reports.get(6).unwrap().anomalies.is_empty());
}

#[test]
fn an_argument_of_the_wrong_type_is_a_type_mismatch() {
    let mut events = opening("pending");
    events.extend(confirm());
    events.push(call(
        "c4",
        "cancel_pending_order",
        json!({"order_id": 17, "reason": "no longer needed"}),
    ));
    let reports = run(events);
    let (reason, _, explanation) = blocked(reports.last().unwrap());
    assert_eq!(reason, Reason::TypeMismatch, "{explanation}");
    assert!(explanation.contains("order_id"), "{explanation}");
    assert!(explanation.contains("event 10"), "{explanation}");
}

#[test]
fn a_result_field_of_the_wrong_type_is_a_type_mismatch() {
    let mut events = identified();
    events.push(call("c3", "get_order_details", json!({"order_id": "#O1"})));
    let mut bad = order("#O1", "pending");
    bad["status"] = json!(5);
    events.push(ok("c3", bad));
    events.extend(confirm());
    events.push(cancel("c4"));
    let reports = run(events);
    let (reason, _, explanation) = blocked(reports.last().unwrap());
    assert_eq!(reason, Reason::TypeMismatch, "{explanation}");
    assert!(explanation.contains("status"), "{explanation}");
    assert!(explanation.contains("event 7"), "{explanation}");
}

#[test]
fn a_retry_after_a_failed_write_names_the_used_authorization() {
    let mut events = opening("pending");
    events.extend(confirm());
    events.push(cancel("c4"));
    events.push(failed("c4"));
    events.push(cancel("c5"));
    let reports = run(events);
    assert!(matches!(
        reports.get(10).unwrap().verdict,
        GateVerdict::Allow { .. }
    ));
    let (reason, _, explanation) = blocked(reports.last().unwrap());
    assert_eq!(reason, Reason::AuthorizationUsed, "{explanation}");
    assert!(explanation.contains("failed:"), "{explanation}");
    assert!(explanation.contains("event 10"), "{explanation}");
}

#[test]
fn a_second_write_after_a_successful_one_names_the_used_authorization() {
    let mut events = opening("pending");
    events.extend(confirm());
    events.push(cancel("c4"));
    events.push(ok("c4", json!({"status": "cancelled"})));
    events.push(cancel("c5"));
    let reports = run(events);
    let (reason, _, explanation) = blocked(reports.last().unwrap());
    assert_eq!(reason, Reason::AuthorizationUsed, "{explanation}");
    assert!(explanation.contains("failed:"), "{explanation}");
}

#[test]
fn orphan_results_and_reused_call_ids_are_reported() {
    let mut events = opening("pending");
    events.push(ok("nobody", order("#O2", "pending")));
    events.push(call("c3", "get_order_details", json!({"order_id": "#O2"})));
    let reports = run(events);
    let orphan = reports.get(8).unwrap();
    assert!(
        orphan
            .anomalies
            .iter()
            .any(|a| a.contains("unknown call id")),
        "{:?}",
        orphan.anomalies
    );
    let reused = reports.get(9).unwrap();
    assert!(
        reused.anomalies.iter().any(|a| a.contains("already used")),
        "{:?}",
        reused.anomalies
    );
    // The clean events carry no anomalies (and serialize as before).
    assert!(reports.get(7).unwrap().anomalies.is_empty());
    let json = serde_json::to_string(reports.get(7).unwrap()).unwrap();
    assert!(!json.contains("anomalies"), "{json}");
}

#[test]
fn an_orphan_result_satisfies_nothing() {
    let mut events = identified();
    events.push(ok("c3", order("#O1", "pending")));
    events.extend(confirm());
    events.push(cancel("c4"));
    let reports = run(events);
    assert!(reports.last().unwrap().verdict.is_block());
}

/// A call id sent again while its first call is open: the result carrying
/// it may answer either call, so it answers neither. The same conversation
/// with two ids is allowed.
#[test]
fn a_result_for_an_id_reused_while_open_satisfies_nothing() {
    let with_ids = |first: &str, second: &str| {
        let mut events = identified();
        events.push(call(first, "get_order_details", json!({"order_id": "#O2"})));
        events.push(call(
            second,
            "get_order_details",
            json!({"order_id": "#O1"}),
        ));
        events.push(ok(second, order("#O1", "pending")));
        events.extend(confirm());
        events.push(cancel("c5"));
        run(events)
    };
    let reused = with_ids("c3", "c3");
    assert!(
        reused
            .get(7)
            .unwrap()
            .anomalies
            .iter()
            .any(|a| a.contains("still open")),
        "{:?}",
        reused.get(7).unwrap().anomalies
    );
    let (reason, _, explanation) = blocked(reused.last().unwrap());
    assert_eq!(reason, Reason::MissingRead, "{explanation}");
    let distinct = with_ids("c3", "c4");
    assert!(
        matches!(distinct.last().unwrap().verdict, GateVerdict::Allow { .. }),
        "{:?}",
        distinct.last().unwrap().verdict
    );
}

#[test]
fn a_full_session_refuses_every_further_call() {
    let limits = SessionLimits {
        max_events: 8,
        ..SessionLimits::default()
    };
    let mut events = opening("pending");
    events.extend(confirm());
    events.push(cancel("c4"));
    let reports = run_with(
        Session::with_limits(runtime(), Schedule::Workflow, limits),
        events,
    );
    assert!(matches!(
        reports.get(8).unwrap().verdict,
        GateVerdict::Observe
    ));
    let (reason, _, _) = blocked(reports.last().unwrap());
    assert_eq!(reason, Reason::SessionFull);

    let limits = SessionLimits {
        max_bytes: 300,
        ..SessionLimits::default()
    };
    let reports = run_with(
        Session::with_limits(runtime(), Schedule::Workflow, limits),
        opening("pending"),
    );
    assert!(reports.iter().any(|r| matches!(
        r.verdict,
        GateVerdict::Block {
            reason: Reason::SessionFull,
            ..
        }
    )));
}
