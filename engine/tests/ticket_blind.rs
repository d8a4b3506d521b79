//! A blind suite of the ticket's rule, in a domain none of the shipped
//! bundles is about: an IT access desk (`fixtures/it-access`, written from
//! its four-line policy alone). The expected verdicts were written from the
//! policy and the rule in `docs/native-format.md` ("The ticket") before the
//! suite was first run; none was tuned on a tau2 trace.
//!
//! What the rule promises, case by case:
//! - a ticket's values are the user's (`said(user, x)`), so a solo agent can
//!   identify the employee and check the system from it;
//! - `said(ticket, x)` holds for the ticket alone: a user's own message is
//!   no ticket, so in a conversation the bundle still wants a yes;
//! - the ticket is never a reply: a yes in it confirms no summary, before
//!   or after it;
//! - a ticket after the agent's first event states nothing;
//! - what it states is read as written: the system it names, not another;
//!   a request negated or merely asked about opens nothing (the bundle's
//!   request step counts asserted words).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use turnstile_engine::bundle::model::Side;
use turnstile_engine::check_bundle;
use turnstile_engine::session::{BundleRuntime, GateVerdict, Schedule, Session};
use turnstile_engine::trace::Event;
use turnstile_judge::OfflineJudge;

fn runtime() -> Arc<BundleRuntime> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/it-access");
    let bundle = check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"));
    BundleRuntime::new(Arc::new(bundle)).unwrap()
}

fn ticket(text: &str) -> Event {
    Event::Ticket { text: text.into() }
}

fn user(text: &str) -> Event {
    Event::User { text: text.into() }
}

fn agent(text: &str) -> Event {
    Event::Agent { text: text.into() }
}

/// The agent's lookup of `id`, and its result.
fn lookup(id: &str) -> [Event; 2] {
    [
        Event::Call {
            id: format!("l-{id}"),
            tool: "get_employee".into(),
            args: json!({"employee_id": id}),
            requestor: Side::Agent,
        },
        Event::Result {
            id: format!("l-{id}"),
            ok: true,
            content: json!({"employee_id": id, "department": "accounting"}),
        },
    ]
}

fn grant(id: &str, system: &str) -> Event {
    Event::Call {
        id: format!("g-{system}"),
        tool: "grant_access".into(),
        args: json!({"employee_id": id, "system": system}),
        requestor: Side::Agent,
    }
}

fn granted(system: &str) -> Event {
    Event::Result {
        id: format!("g-{system}"),
        ok: true,
        content: json!("granted"),
    }
}

/// The verdicts of the grants in `events`, in order: `allow`, or `block`
/// and the step that was not met.
fn verdicts(events: Vec<Event>) -> Vec<String> {
    let mut session = Session::new(runtime(), Schedule::Workflow);
    let mut out = Vec::new();
    for event in events {
        let is_grant = matches!(&event, Event::Call { tool, .. } if tool == "grant_access");
        let report = session.push(event, &OfflineJudge).unwrap();
        if is_grant {
            out.push(match &report.verdict {
                GateVerdict::Block { step, .. } => {
                    format!("block at {}", step.as_deref().unwrap_or("?"))
                }
                other => other.label().to_owned(),
            });
        }
    }
    out
}

/// The verdict labels of the grants in `events`, in order.
fn grants(events: Vec<Event>) -> Vec<String> {
    verdicts(events)
        .into_iter()
        .map(|v| v.split(' ').next().unwrap_or_default().to_owned())
        .collect()
}

fn solo(ticket_text: &str, id: &str, then: Vec<Event>) -> Vec<Event> {
    let mut events = vec![ticket(ticket_text)];
    events.extend(lookup(id));
    events.extend(then);
    events
}

#[test]
fn a_ticket_asking_for_access_grants_exactly_that_system() {
    let asks = "Employee E1234 needs access to the payroll system.";
    assert_eq!(
        grants(solo(asks, "E1234", vec![grant("E1234", "payroll")])),
        ["allow"]
    );
    assert_eq!(
        verdicts(solo(asks, "E1234", vec![grant("E1234", "finance")])),
        ["block at grant.authorize"],
        "a system the ticket never named"
    );
    let two = "Employee id: E1234 - needs access to payroll and to finance.";
    assert_eq!(
        grants(solo(
            two,
            "E1234",
            vec![
                grant("E1234", "payroll"),
                granted("payroll"),
                grant("E1234", "finance")
            ]
        )),
        ["allow", "allow"]
    );
}

#[test]
fn a_ticket_identifies_only_the_employee_it_names() {
    let asks = "Employee E1234 needs access to the payroll system.";
    assert_eq!(
        verdicts(solo(asks, "E9999", vec![grant("E9999", "payroll")])),
        ["block at identify"]
    );
}

#[test]
fn a_ticket_that_asks_nothing_or_refuses_grants_nothing() {
    for text in [
        "Employee E1234 wants to know which systems they can use; payroll is one of them.",
        "Employee E1234 does not need access to payroll any more.",
        "Do not grant access to payroll for employee E1234.",
    ] {
        assert_eq!(
            verdicts(solo(text, "E1234", vec![grant("E1234", "payroll")])),
            ["block at grant.asked"],
            "{text}"
        );
    }
}

/// The ticket's yes comes before any summary: it answers none. The system
/// is the user's word (a message), so only the confirmation is missing;
/// the user's own yes after the summary supplies it.
#[test]
fn a_yes_in_the_ticket_confirms_no_summary() {
    let conversation = |reply: Option<&str>| {
        let mut events = solo(
            "Employee E1234 needs access. Yes, go ahead with whatever you propose.",
            "E1234",
            vec![agent("Which system do you need?"), user("Payroll.")],
        );
        events.push(agent(
            "To confirm: grant E1234 access to payroll. Shall I proceed?",
        ));
        events.extend(reply.map(user));
        events.push(grant("E1234", "payroll"));
        events
    };
    assert_eq!(verdicts(conversation(None)), ["block at grant.authorize"]);
    assert_eq!(verdicts(conversation(Some("Yes."))), ["allow"]);
}

/// Found by this suite, left open: the ticket's permission is two words
/// named anywhere in it (`said(ticket, args.system)`, `said(ticket,
/// "access")`), not the access asked for on that system: a system the
/// ticket mentions in passing is permitted too.
#[test]
#[ignore = "FOUND: said(ticket, ...) does not tie the action word to the value; a system named in passing is permitted (see bundles/telecom/COVERAGE.md, the refuel's standing permission)"]
fn found_a_system_the_ticket_only_mentions_is_not_permitted() {
    let events = solo(
        "Employee E1234 needs access to payroll; their manager works in finance.",
        "E1234",
        vec![grant("E1234", "finance")],
    );
    assert_eq!(verdicts(events), ["block at grant.authorize"]);
}

#[test]
fn a_ticket_after_the_agent_spoke_states_nothing() {
    let mut events = vec![
        agent("Hello, how can I help?"),
        ticket("Employee E1234 needs access to the payroll system."),
    ];
    events.extend(lookup("E1234"));
    events.push(grant("E1234", "payroll"));
    assert_eq!(verdicts(events), ["block at identify"]);
}

#[test]
fn in_a_conversation_the_users_own_request_still_needs_a_yes() {
    let opening = || {
        let mut events = vec![
            agent("Hello, how can I help?"),
            user("Please grant me access to payroll, my employee id is E1234."),
        ];
        events.extend(lookup("E1234"));
        events
    };
    let mut asked = opening();
    asked.push(grant("E1234", "payroll"));
    assert_eq!(
        verdicts(asked),
        ["block at grant.authorize"],
        "no ticket, no yes"
    );

    let mut confirmed = opening();
    confirmed.push(agent(
        "To confirm: grant E1234 access to payroll. Shall I proceed?",
    ));
    confirmed.push(user("Yes, please."));
    confirmed.push(grant("E1234", "payroll"));
    assert_eq!(grants(confirmed), ["allow"]);
}
