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
use turnstile_engine::session::{
    BundleRuntime, ConsentState, Explainer, GateVerdict, Schedule, Session,
};
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

/// The one order the conversation read is the one in play: a summary naming
/// the action without the order id is about it (policy: "list the action
/// details", and no other order could be meant).
#[test]
fn a_summary_naming_the_action_is_about_the_only_order_in_play() {
    let mut events = identified();
    events.push(agent(
        "To confirm: return item 2757705742, refund to gift_card_7245904. Shall I proceed?",
    ));
    events.push(user("Yes, please proceed."));
    events.push(return_call(&[ITEM]));
    let v = verdict(events);
    assert!(matches!(v, GateVerdict::Allow { .. }), "{v:?}");
}

/// The twin: a second order read before the summary, and the summary names
/// neither, so the yes may be about either.
#[test]
fn a_summary_that_does_not_name_the_order_is_no_consent_with_two_orders_in_play() {
    let mut events = identified();
    events.push(call(
        "order2",
        "get_order_details",
        json!({"order_id": "#W5866402"}),
    ));
    events.push(ok(
        "order2",
        json!({
            "order_id": "#W5866402",
            "user_id": USER,
            "status": "delivered",
            "items": [{"name": "Desk Lamp", "product_id": "6817146515",
                       "item_id": "1270145486", "price": 144.07, "options": {}}],
            "payment_history": [{"transaction_type": "payment", "amount": 144.07,
                                 "payment_method_id": "gift_card_7245904"}],
        }),
    ));
    events.push(agent(
        "To confirm: return item 2757705742, refund to gift_card_7245904. Shall I proceed?",
    ));
    events.push(user("Yes, please proceed."));
    events.push(return_call(&[ITEM]));
    let v = verdict(events);
    // Not consent (no request for a decision named the order), but every
    // formal check holds: held for the user's confirmation (the call does
    // not run).
    assert!(
        matches!(
            v,
            GateVerdict::Confirm {
                consent: ConsentState::Absent,
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
    // No request for a decision named the return: held for the user's
    // confirmation (the call does not run).
    assert!(
        matches!(
            v,
            GateVerdict::Confirm {
                consent: ConsentState::Absent,
                ..
            }
        ),
        "{v:?}"
    );
}

/// The explanation of the block, or of the hold for confirmation, of
/// `events`' last call, by the monitor and by the Datalog reference (the
/// same text, tested), and whether it is a block.
fn block_explanations(events: &[Event]) -> (bool, String) {
    let mut texts = Vec::new();
    for explainer in [Explainer::Monitor, Explainer::Datalog] {
        let mut session = Session::new(runtime(), Schedule::Workflow);
        session.set_explainer(explainer);
        let mut report = None;
        for event in events {
            report = Some(session.push(event.clone(), &OfflineJudge).unwrap());
        }
        match report.unwrap().verdict {
            GateVerdict::Block { explanation, .. } => texts.push((true, explanation)),
            GateVerdict::Confirm { explanation, .. } => texts.push((false, explanation)),
            other => panic!("{explainer:?}: neither a block nor a confirm: {other:?}"),
        }
    }
    assert_eq!(texts[0], texts[1], "the monitor and the reference differ");
    texts.swap_remove(0)
}

/// A failed consent says how the user answered and which turn it is about:
/// refused, withdrawn, qualified, or absent (no request for a decision, or
/// none answered), the same by both explainers.
#[test]
fn a_failed_consent_says_its_outcome_and_turn() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["No, don't return anything."],
            "consent: refused at event 8",
        ),
        (
            &[
                "Yes, please proceed.",
                "Hmm, never mind, I changed my mind.",
            ],
            "consent: withdrawn at event 9",
        ),
        (
            &["Yes, but only if the refund goes to my credit card."],
            "consent: qualified at event 8",
        ),
        (
            &["How long does the refund take?"],
            "consent: absent: the request for a decision at event 7 has no yes",
        ),
        (
            &[
                "Okay.",
                "No wait, that's wrong. I meant the other one, it's a no.",
            ],
            "consent: refused at event 9",
        ),
    ];
    for (replies, expected) in cases {
        let mut events = identified();
        events.push(agent(SUMMARY));
        events.extend(replies.iter().map(|r| user(r)));
        events.push(return_call(&[ITEM]));
        let (blocked, explanation) = block_explanations(&events);
        assert!(explanation.contains(expected), "{replies:?}: {explanation}");
        // A refusal or a withdrawal stays a block; anything else is held
        // for the user's confirmation.
        let revoked = expected.contains("refused") || expected.contains("withdrawn");
        assert_eq!(blocked, revoked, "{replies:?}: {explanation}");
    }
    // No request for a decision at all.
    let mut events = identified();
    events.push(user("Yes, return it."));
    events.push(return_call(&[ITEM]));
    let (_, explanation) = block_explanations(&events);
    assert!(
        explanation
            .contains("consent: absent: no agent turn asked for a decision naming these values"),
        "{explanation}"
    );
}
