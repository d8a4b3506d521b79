//! The dialogue predicates of the check language (`said`, `confirmed`) on
//! turns written the way tau2 agents and users write them (the texts below
//! are taken from the recorded retail conversations in `data/tau2/traces`):
//! the facts the extractor derives (which values a turn names, with `#`,
//! case, bold, lists and JSON-wrapped agent messages), and the gate on the
//! shipped retail bundle, whose write guards require `confirmed(...)` over
//! the write's key arguments.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde_json::{Value as Json, json};
use turnstile_engine::bundle::model::Side;
use turnstile_engine::check_bundle;
use turnstile_engine::extract::extract;
use turnstile_engine::session::{BundleRuntime, ConsentState, GateVerdict, Schedule, Session};
use turnstile_engine::trace::{Event, Trace};
use turnstile_judge::OfflineJudge;
use turnstile_rules::Speaker;

const USER: &str = "aarav_anderson_6891";
const ORDER: &str = "#W3470184";
const ITEM: &str = "2757705742";
const OTHER_ITEM: &str = "6452271382";

fn runtime() -> Arc<BundleRuntime> {
    static RT: OnceLock<Arc<BundleRuntime>> = OnceLock::new();
    RT.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/retail");
        let bundle = check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"));
        BundleRuntime::new(Arc::new(bundle)).unwrap()
    })
    .clone()
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

fn ok(id: &str, content: Json) -> Event {
    Event::Result {
        id: id.into(),
        ok: true,
        content,
    }
}

/// Authenticated by email, profile and the delivered order read.
fn identified() -> Vec<Event> {
    vec![
        user("Hi! My email is aarav.anderson9752@example.com."),
        call(
            "find",
            "find_user_id_by_email",
            json!({"email": "aarav.anderson9752@example.com"}),
        ),
        ok("find", json!(USER)),
        call("profile", "get_user_details", json!({"user_id": USER})),
        ok(
            "profile",
            json!({
                "user_id": USER,
                "name": {"first_name": "Aarav", "last_name": "Anderson"},
                "address": {"address1": "931 Maple Drive", "city": "Denver", "zip": "80236",
                            "state": "CO", "country": "USA", "address2": "Suite 446"},
                "email": "aarav.anderson9752@example.com",
                "payment_methods": {"gift_card_7245904": {"source": "gift_card",
                    "id": "gift_card_7245904", "balance": 17.0}},
                "orders": [ORDER],
            }),
        ),
        call("order", "get_order_details", json!({"order_id": ORDER})),
        ok(
            "order",
            json!({
                "order_id": ORDER,
                "user_id": USER,
                "status": "delivered",
                "items": [
                    {"name": "Wireless Earbuds", "product_id": "9924732112",
                     "item_id": ITEM, "price": 258.97, "options": {}},
                    {"name": "Wireless Earbuds", "product_id": "9924732112",
                     "item_id": OTHER_ITEM, "price": 232.49, "options": {}},
                ],
                "payment_history": [{"transaction_type": "payment", "amount": 491.46,
                                     "payment_method_id": "gift_card_7245904"}],
            }),
        ),
    ]
}

/// A real agent summary (JSON-wrapped, bold, `Item <id>:` bullets).
const SUMMARY: &str = "{\"message\":\"Thanks, Aarav. Order details:\\n- Order ID: **#W3470184** (status: delivered)\\n- Item 2757705742: Wireless Earbuds, IPX7, price $258.97\\n\\nTo confirm: return item 2757705742 from order #W3470184, refund to gift_card_7245904. Shall I proceed?\"}";

fn return_call(items: &[&str]) -> Event {
    call(
        "return",
        "return_delivered_order_items",
        json!({"order_id": ORDER, "item_ids": items, "payment_method_id": "gift_card_7245904"}),
    )
}

fn verdict(events: Vec<Event>) -> GateVerdict {
    let mut last = None;
    for schedule in Schedule::ALL {
        let mut session = Session::new(runtime(), schedule);
        let mut report = None;
        for event in &events {
            report = Some(session.push(event.clone(), &OfflineJudge).unwrap());
        }
        let v = report.unwrap().verdict;
        if let Some(previous) = &last {
            assert_eq!(
                std::mem::discriminant(previous),
                std::mem::discriminant(&v),
                "{schedule}: {v:?}"
            );
        }
        last = Some(v);
    }
    last.unwrap()
}

#[test]
fn turns_name_values_whatever_the_spelling() {
    let mut events = identified();
    events.push(agent(SUMMARY));
    events.push(user(
        "ok so the order is w3470184 and the items are 2757705742, 6452271382.",
    ));
    let bundle = &runtime().bundle;
    let trace = Trace {
        events,
        ..Trace::default()
    };
    let facts = extract(bundle, &trace);
    let named = |value: &str, speaker: Speaker| {
        let symbol = facts.interner.get(value).unwrap();
        facts
            .mentions
            .iter()
            .filter(|m| m.value == turnstile_rules::Value::Str(symbol) && m.speaker == speaker)
            .map(|m| m.event.0)
            .collect::<Vec<_>>()
    };
    // `#W3470184` bold in a JSON-wrapped agent turn, hash-less and lower-case
    // in the user's; an item id inside a comma-separated list.
    assert_eq!(named(ORDER, Speaker::Agent), [7]);
    assert_eq!(named(ORDER, Speaker::User), [8]);
    assert_eq!(named(ITEM, Speaker::Agent), [7]);
    assert_eq!(named(OTHER_ITEM, Speaker::User), [8]);
    assert!(named(OTHER_ITEM, Speaker::Agent).is_empty());
    // The email the user wrote, interned when the lookup was called later.
    assert_eq!(named("aarav.anderson9752@example.com", Speaker::User), [0]);
    let summary = facts.turns.iter().find(|t| t.event.0 == 7).unwrap();
    assert!(summary.asks_decision && summary.speaker == Speaker::Agent);
}

#[test]
fn a_yes_to_the_summary_naming_the_items_allows_the_return() {
    let mut events = identified();
    events.push(agent(SUMMARY));
    events.push(user("Yes, please proceed."));
    events.push(return_call(&[ITEM]));
    let v = verdict(events);
    assert!(matches!(v, GateVerdict::Allow { .. }), "{v:?}");
}

#[test]
fn a_summary_that_does_not_name_the_order_blocks() {
    let mut events = identified();
    events.push(agent(
        "To confirm: return item 2757705742, refund to gift_card_7245904. Shall I proceed?",
    ));
    events.push(user("Yes, please proceed."));
    events.push(return_call(&[ITEM]));
    let v = verdict(events);
    // Not consent, but every formal check holds and the reader cannot tell
    // a refusal: held for the user's confirmation (the call does not run).
    assert!(
        matches!(
            v,
            GateVerdict::Confirm {
                consent: ConsentState::Qualified,
                ..
            }
        ),
        "{v:?}"
    );
}

#[test]
fn a_qualified_real_reply_is_not_consent() {
    // A real user reply: a yes followed by a correction of the scope.
    let mut events = identified();
    events.push(agent(SUMMARY));
    events.push(user(
        "Yes—return the earbuds from #W3470184. That’s the only item I’m returning from that order, but refund it to my credit card instead.",
    ));
    events.push(return_call(&[ITEM]));
    let v = verdict(events);
    // Not consent, but every formal check holds and the reader cannot tell
    // a refusal: held for the user's confirmation (the call does not run).
    assert!(
        matches!(
            v,
            GateVerdict::Confirm {
                consent: ConsentState::Qualified,
                ..
            }
        ),
        "{v:?}"
    );
}

#[test]
fn without_a_summary_a_yes_confirms_nothing() {
    let mut events = identified();
    events.push(agent(
        "Would you like me to look at the order? It is #W3470184.",
    ));
    events.push(user("Yes please."));
    events.push(return_call(&[ITEM]));
    let v = verdict(events);
    // Not consent, but every formal check holds and the reader cannot tell
    // a refusal: held for the user's confirmation (the call does not run).
    assert!(
        matches!(
            v,
            GateVerdict::Confirm {
                consent: ConsentState::Qualified,
                ..
            }
        ),
        "{v:?}"
    );
}
