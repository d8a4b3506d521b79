//! The telecom bundle on hand-written conversations: deviations without a
//! write (a fix before its diagnosis, a payment asked for before the user
//! saw the request, "resolved" without a re-check) are reported as `deviate`
//! at the event where they happen under the `workflow` schedule, and the
//! `action` schedule - which fires only on mutating calls - misses them; a
//! line resumed with an overdue bill is a write and is blocked under both.
//! Dual control vs solo, and bad input (a device report that is not text, a
//! device tool called by the agent, an unknown tool).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "support/tau2.rs"]
mod tau2;

use std::sync::Arc;

use serde_json::{Value as Json, json};
use turnstile_engine::bundle::model::{Control, Side};
use turnstile_engine::extract::extract;
use turnstile_engine::session::{BundleRuntime, EventReport, GateVerdict, Schedule, Session};
use turnstile_engine::session::{coverage, replay};
use turnstile_engine::trace::{Event, Trace, TraceMeta};
use turnstile_judge::OfflineJudge;
use turnstile_rules::{EventIdx, ExtractionProblem, Reason};

fn runtime() -> Arc<BundleRuntime> {
    BundleRuntime::new(Arc::new(tau2::shipped_bundle("telecom"))).unwrap()
}

fn user(text: &str) -> Event {
    Event::User { text: text.into() }
}

fn agent(text: &str) -> Event {
    Event::Agent { text: text.into() }
}

fn call_by(id: &str, tool: &str, args: Json, requestor: Side) -> Event {
    Event::Call {
        id: id.into(),
        tool: tool.into(),
        args,
        requestor,
    }
}

/// An agent call.
fn call(id: &str, tool: &str, args: Json) -> Event {
    call_by(id, tool, args, Side::Agent)
}

/// A user's device call.
fn device(id: &str, tool: &str) -> Event {
    call_by(id, tool, json!({}), Side::User)
}

fn ok(id: &str, content: Json) -> Event {
    Event::Result {
        id: id.into(),
        ok: true,
        content,
    }
}

fn text(id: &str, report: &str) -> Event {
    ok(id, Json::String(report.into()))
}

fn customer() -> Json {
    json!({
        "customer_id": "C1001",
        "full_name": "John Smith",
        "phone_number": "555-123-2002",
        "account_status": "Active",
        "line_ids": ["L1001", "L1002"],
        "bill_ids": ["B1002", "B1234321"]
    })
}

/// The customer identified, and a data problem reported.
fn opening(problem: &str) -> Vec<Event> {
    vec![
        agent("Hi! How can I help you today?"),
        user(problem),
        agent("Could you give me your phone number?"),
        user("It is 555-123-2002."),
        call(
            "c1",
            "get_customer_by_phone",
            json!({"phone_number": "555-123-2002"}),
        ),
        ok("c1", customer()),
    ]
}

fn trace(events: Vec<Event>) -> Trace {
    Trace {
        meta: TraceMeta {
            id: "hand-written".into(),
            ..TraceMeta::default()
        },
        events,
    }
}

fn run(schedule: Schedule, events: Vec<Event>) -> Vec<EventReport> {
    let mut session = Session::new(runtime(), schedule);
    let mut reports = Vec::new();
    for event in events {
        reports.push(session.push(event, &OfflineJudge).unwrap());
    }
    reports
}

/// The deviations reported: (event, action, step, at).
fn deviations(reports: &[EventReport]) -> Vec<(EventIdx, String, Option<String>, EventIdx)> {
    reports
        .iter()
        .filter_map(|r| match &r.verdict {
            GateVerdict::Deviate {
                action, step, at, ..
            } => Some((r.event, action.clone(), step.clone(), *at)),
            _ => None,
        })
        .collect()
}

fn ev(i: usize) -> EventIdx {
    EventIdx::from_usize(i)
}

/// Replays under workflow and action and returns (workflow deviations, the
/// coverage of the action schedule).
fn compare(events: Vec<Event>) -> (Vec<EventIdx>, turnstile_engine::session::Coverage) {
    let rt = runtime();
    let t = trace(events);
    let workflow = replay(&rt, &t, Schedule::Workflow, &OfflineJudge).unwrap();
    let action = replay(&rt, &t, Schedule::Action, &OfflineJudge).unwrap();
    (workflow.deviated(), coverage(&workflow, &action))
}

#[test]
fn a_fix_before_its_diagnosis_is_a_deviation_the_action_schedule_misses() {
    let mut events = opening("My mobile data is not working at all.");
    events.push(agent(
        "Please turn off airplane mode on your phone (toggle_airplane_mode) and tell me what happens.",
    ));
    events.push(device("d1", "toggle_airplane_mode"));
    events.push(text(
        "d1",
        "Airplane Mode is now OFF.\nStatus Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%",
    ));
    let reports = run(Schedule::Workflow, events.clone());
    let found = deviations(&reports);
    assert_eq!(found.len(), 1, "{found:?}");
    let (event, action, step, at) = &found[0];
    assert_eq!(*event, ev(6), "reported at the instruction");
    assert_eq!(*at, ev(6));
    assert_eq!(action, "instructs toggle_airplane_mode");
    let step = step.as_deref().unwrap();
    assert!(
        step.ends_with("status_bar") || step.ends_with("network_status"),
        "{step}"
    );
    match &reports[6].verdict {
        GateVerdict::Deviate {
            reason,
            remediation,
            ..
        } => {
            assert_eq!(*reason, Reason::MissingStep);
            let remediation = remediation.as_deref().unwrap();
            assert!(remediation.contains("check_status_bar"), "{remediation}");
        }
        other => panic!("{other:?}"),
    }
    // The user's call that followed is not counted a second time.
    assert_eq!(reports[7].verdict, GateVerdict::Observe);

    let (deviated, cov) = compare(events);
    assert_eq!(deviated, vec![ev(6)]);
    assert_eq!(cov.unwritten, vec![ev(6)]);
    assert!(cov.unwritten_caught.is_empty());
    assert_eq!(
        cov.unwritten_missed,
        vec![ev(6)],
        "no mutating call: action never fires"
    );
}

#[test]
fn the_same_fix_after_its_diagnosis_is_guided() {
    let mut events = opening("My mobile data is not working at all.");
    events.push(agent("Please check your status bar (check_status_bar)."));
    events.push(device("d0", "check_status_bar"));
    events.push(text("d0", "Status Bar: ✈️ Airplane Mode | 🔋 80%"));
    events.push(user("I see an airplane icon."));
    events.push(agent("Airplane mode is on. Please turn off airplane mode."));
    events.push(device("d1", "toggle_airplane_mode"));
    events.push(text(
        "d1",
        "Airplane Mode is now OFF.\nStatus Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%",
    ));
    let reports = run(Schedule::Workflow, events);
    assert!(
        deviations(&reports).is_empty(),
        "{:?}",
        deviations(&reports)
    );
    assert_eq!(reports[10].verdict.label(), "guide");
}

#[test]
fn a_fix_the_text_does_not_name_is_shown_by_the_users_call() {
    let mut events = opening("My internet is very slow.");
    events.push(agent(
        "Please flip the switch we talked about and let me know.",
    ));
    events.push(device("d1", "toggle_data"));
    events.push(text(
        "d1",
        "Mobile Data is now ON.\nStatus Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%",
    ));
    let reports = run(Schedule::Workflow, events.clone());
    let found = deviations(&reports);
    assert_eq!(found.len(), 1, "{found:?}");
    let (event, action, _, at) = &found[0];
    assert_eq!(*event, ev(7), "shown by the user's device call");
    assert_eq!(*at, ev(6), "pointing back at the instruction");
    assert_eq!(action, "calls toggle_data");
    // Under the action schedule nothing is reported.
    let action = run(Schedule::Action, events);
    assert!(deviations(&action).is_empty());
}

#[test]
fn a_payment_asked_for_before_the_user_saw_the_request_is_a_deviation() {
    let mut events = opening("I want to pay my overdue bill.");
    events.push(call(
        "c2",
        "get_bills_for_customer",
        json!({"customer_id": "C1001"}),
    ));
    events.push(ok(
        "c2",
        json!([
            {"bill_id": "B1002", "customer_id": "C1001", "total_due": 150.0, "status": "Paid"},
            {"bill_id": "B1234321", "customer_id": "C1001", "total_due": 65.0, "status": "Overdue"}
        ]),
    ));
    events.push(agent(
        "Your bill B1234321 of $65 is overdue. Please make the payment now.",
    ));
    let reports = run(Schedule::Workflow, events.clone());
    let found = deviations(&reports);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, ev(8));
    assert_eq!(found[0].1, "instructs make_payment");
    assert_eq!(found[0].2.as_deref(), Some("payment.user_checks"));

    let (deviated, cov) = compare(events);
    assert_eq!(deviated, vec![ev(8)]);
    assert_eq!(cov.unwritten_missed, vec![ev(8)]);

    // In order: the request sent, the user checks it, then pays.
    let mut events = opening("I want to pay my overdue bill.");
    events.push(call(
        "c2",
        "get_bills_for_customer",
        json!({"customer_id": "C1001"}),
    ));
    events.push(ok(
        "c2",
        json!([{"bill_id": "B1234321", "customer_id": "C1001", "total_due": 65.0, "status": "Overdue"}]),
    ));
    events.push(call(
        "c3",
        "send_payment_request",
        json!({"customer_id": "C1001", "bill_id": "B1234321"}),
    ));
    events.push(text(
        "c3",
        "Payment request sent to the customer for bill B1234321",
    ));
    events.push(agent(
        "I sent a payment request; please check your payment requests.",
    ));
    events.push(device("d1", "check_payment_request"));
    events.push(text(
        "d1",
        "You have a payment request for bill B1234321 of 65.0 USD.",
    ));
    events.push(user("I accept it."));
    events.push(agent("Great, please make the payment."));
    let reports = run(Schedule::Workflow, events);
    assert!(
        deviations(&reports).is_empty(),
        "{:?}",
        deviations(&reports)
    );
    assert_eq!(
        reports[8].verdict.label(),
        "allow",
        "{:?}",
        reports[8].verdict
    );
}

#[test]
fn a_paid_claim_before_the_bill_was_re_read_is_a_deviation() {
    let mut events = opening("I want to pay my overdue bill.");
    events.push(call(
        "c2",
        "get_bills_for_customer",
        json!({"customer_id": "C1001"}),
    ));
    events.push(ok(
        "c2",
        json!([{"bill_id": "B1234321", "customer_id": "C1001", "total_due": 65.0, "status": "Overdue"}]),
    ));
    events.push(device("d1", "make_payment"));
    events.push(text(
        "d1",
        "Payment of 65.0 USD has been made for bill B1234321.",
    ));
    events.push(agent("Thank you, your bill has been paid."));
    let reports = run(Schedule::Workflow, events);
    let found = deviations(&reports);
    assert!(
        found.iter().any(|(e, a, s, _)| *e == ev(10)
            && a == "claims bill_paid"
            && s.as_deref() == Some("payment_verified")),
        "{found:?}"
    );
}

#[test]
fn resolved_without_re_verification_is_a_deviation() {
    let fixed = |recheck: bool| {
        let mut events = opening("I have no service on my phone.");
        events.push(agent("Please check your status bar."));
        events.push(device("d0", "check_status_bar"));
        events.push(text("d0", "Status Bar: ✈️ Airplane Mode | 🔋 80%"));
        events.push(agent("Please turn off airplane mode."));
        events.push(device("d1", "toggle_airplane_mode"));
        events.push(text("d1", "Airplane Mode is now OFF."));
        if recheck {
            events.push(agent("Please check your status bar again."));
            events.push(device("d2", "check_status_bar"));
            events.push(text(
                "d2",
                "Status Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%",
            ));
        }
        events.push(agent("Great, your issue is now resolved!"));
        events
    };
    let events = fixed(false);
    let claim = events.len() - 1;
    let reports = run(Schedule::Workflow, events.clone());
    let found = deviations(&reports);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, ev(claim));
    assert_eq!(found[0].1, "claims resolved");
    let (_, cov) = compare(events);
    assert_eq!(cov.unwritten_missed, vec![ev(claim)]);

    let reports = run(Schedule::Workflow, fixed(true));
    assert!(
        deviations(&reports).is_empty(),
        "{:?}",
        deviations(&reports)
    );
}

#[test]
fn a_line_resumed_with_an_overdue_bill_is_blocked_under_both_schedules() {
    let mut events = opening("My line is suspended, please resume it.");
    events.push(call("c2", "get_details_by_id", json!({"id": "L1002"})));
    events.push(ok(
        "c2",
        json!({"line_id": "L1002", "phone_number": "555-123-2002", "status": "Suspended",
               "plan_id": "P1002", "roaming_enabled": false, "contract_end_date": "2026-12-31",
               "data_used_gb": 8.7, "data_refueling_gb": 0.0}),
    ));
    events.push(call(
        "c3",
        "get_bills_for_customer",
        json!({"customer_id": "C1001"}),
    ));
    events.push(ok(
        "c3",
        json!([{"bill_id": "B1234321", "customer_id": "C1001", "total_due": 65.0, "status": "Overdue"}]),
    ));
    events.push(call(
        "c4",
        "resume_line",
        json!({"customer_id": "C1001", "line_id": "L1002"}),
    ));
    let write = events.len() - 1;
    for schedule in [Schedule::Workflow, Schedule::Action] {
        let reports = run(schedule, events.clone());
        assert!(
            reports[write].verdict.is_block(),
            "{schedule}: {:?}",
            reports[write].verdict
        );
    }
    // Paid and re-read: allowed.
    let mut paid = events.clone();
    paid[9] = ok(
        "c3",
        json!([{"bill_id": "B1234321", "customer_id": "C1001", "total_due": 65.0, "status": "Paid"}]),
    );
    let reports = run(Schedule::Workflow, paid);
    assert_eq!(
        reports[write].verdict.label(),
        "allow",
        "{:?}",
        reports[write].verdict
    );
}

#[test]
fn an_agent_calling_a_device_tool_is_blocked_under_dual_control_only() {
    let mut events = opening("My mobile data is not working.");
    events.push(call("d1", "check_status_bar", json!({})));
    events.push(text("d1", "Status Bar: ✈️ Airplane Mode | 🔋 80%"));
    let reports = run(Schedule::Workflow, events.clone());
    match &reports[6].verdict {
        GateVerdict::Block { reason, .. } => assert_eq!(*reason, Reason::WrongSide),
        other => panic!("{other:?}"),
    }
    assert!(!reports[6].anomalies.is_empty(), "the call reads nothing");
    // Solo (tau2 `llm_agent_solo`): the agent runs the device tools itself.
    let mut session = Session::new(runtime(), Schedule::Workflow);
    session.set_control(Control::Solo);
    let mut reports = Vec::new();
    for event in events {
        reports.push(session.push(event, &OfflineJudge).unwrap());
    }
    assert!(!reports[6].verdict.is_block(), "{:?}", reports[6].verdict);
    assert!(reports[6].anomalies.is_empty());
    let mut solo = Session::new(runtime(), Schedule::Workflow);
    solo.set_control(Control::Solo);
    let mut fix_first = opening("My mobile data is not working.");
    fix_first.push(call("d1", "toggle_airplane_mode", json!({})));
    let mut reports = Vec::new();
    for event in fix_first {
        reports.push(solo.push(event, &OfflineJudge).unwrap());
    }
    assert_eq!(
        deviations(&reports).first().map(|d| d.1.clone()),
        Some("calls toggle_airplane_mode".to_owned()),
        "in solo mode the agent's own fix before its diagnosis is the deviation"
    );
}

#[test]
fn an_unknown_tool_is_blocked() {
    let mut events = opening("My mobile data is not working.");
    events.push(call("x1", "factory_reset_phone", json!({})));
    let reports = run(Schedule::Workflow, events);
    match &reports[6].verdict {
        GateVerdict::Block { reason, .. } => assert_eq!(*reason, Reason::UnknownTool),
        other => panic!("{other:?}"),
    }
}

#[test]
fn device_reports_become_device_facts_and_structured_data_does_not() {
    let bundle = tau2::shipped_bundle("telecom");
    let read = |content: Json| {
        let mut events = opening("no service");
        events.push(device("d1", "check_status_bar"));
        events.push(ok("d1", content));
        extract(&bundle, &trace(events))
    };
    let device_reads = |facts: &turnstile_rules::TraceFacts| {
        facts
            .attrs
            .iter()
            .filter(|r| facts.interner.resolve(r.entity) == "device")
            .count()
    };
    let good = read(Json::String("Status Bar: ✈️ Airplane Mode | 🔋 80%".into()));
    assert!(device_reads(&good) >= 2, "airplane mode and service read");
    // A device tool whose result is JSON instead of its text report: located
    // diagnostic, no fact.
    let bad = read(json!({"airplane": true}));
    assert_eq!(device_reads(&bad), 0);
    assert!(
        bad.diagnostics
            .iter()
            .any(|d| d.kind == ExtractionProblem::NotJson && d.event == ev(7)),
        "{:?}",
        bad.diagnostics
    );
    // An agent tool whose result is not JSON: no customer fact.
    let mut events = opening("no service");
    events[5] = text("c1", "<html>500 Internal Server Error</html>");
    let facts = extract(&bundle, &trace(events));
    assert!(
        facts
            .attrs
            .iter()
            .all(|r| facts.interner.resolve(r.entity) != "customer")
    );
    assert!(facts.diagnostics.iter().any(|d| d.event == ev(5)));
}

/// `get_data_usage` quotes its numbers; its read opts in with
/// `quoted_numbers`, so the usage becomes line facts. Anything but a plain
/// decimal string stays a type mismatch, and a read without the opt-in
/// (the bill's `total_due`) still refuses a quoted amount.
#[test]
fn quoted_usage_numbers_are_read_as_amounts_only_where_the_read_opts_in() {
    let bundle = tau2::shipped_bundle("telecom");
    let usage = |used: Json| {
        let mut events = opening("no data");
        events.push(call(
            "u1",
            "get_data_usage",
            json!({"customer_id": "C1001", "line_id": "L1002"}),
        ));
        events.push(ok(
            "u1",
            json!({"line_id": "L1002", "data_used_gb": used, "data_limit_gb": "5.0",
                   "data_refueling_gb": "0.0", "cycle_end_date": "2025-02-28"}),
        ));
        extract(&bundle, &trace(events))
    };
    let line_reads = |facts: &turnstile_rules::TraceFacts| {
        facts
            .attrs
            .iter()
            .filter(|r| facts.interner.resolve(r.entity) == "line")
            .map(|r| facts.interner.resolve(r.field).to_owned())
            .collect::<Vec<_>>()
    };
    let good = usage(json!("5.2"));
    let fields = line_reads(&good);
    for field in ["data_used_gb", "data_limit_gb", "data_refueling_gb"] {
        assert!(fields.iter().any(|f| f == field), "{field}: {fields:?}");
    }
    assert!(good.diagnostics.is_empty(), "{:?}", good.diagnostics);
    for bad in [
        json!("5,2"),
        json!("1e3"),
        json!("five"),
        json!(" 5.2"),
        json!("5."),
    ] {
        let facts = usage(bad.clone());
        assert!(
            !line_reads(&facts).iter().any(|f| f == "data_used_gb"),
            "{bad}"
        );
        assert!(
            facts
                .diagnostics
                .iter()
                .any(|d| d.kind == ExtractionProblem::WrongType),
            "{bad}: {:?}",
            facts.diagnostics
        );
    }
    let mut events = opening("bill");
    events.push(call(
        "b1",
        "get_bills_for_customer",
        json!({"customer_id": "C1001"}),
    ));
    events.push(ok(
        "b1",
        json!([{"bill_id": "B1", "customer_id": "C1001", "status": "Overdue", "total_due": "50.0"}]),
    ));
    let facts = extract(&bundle, &trace(events));
    assert!(
        facts
            .diagnostics
            .iter()
            .any(|d| d.kind == ExtractionProblem::WrongType),
        "{:?}",
        facts.diagnostics
    );
}
