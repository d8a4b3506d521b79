//! The requirement classes of the tau2 policies, each with a trace that
//! satisfies it and traces that violate it, decided by the Datalog program:
//! status gates, amounts, counts, ordering, grounding, same product,
//! latest-read-wins, and bad input failing closed.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value as Json, json};
use turnstile_engine::bundle::model::Side;
use turnstile_engine::decide::{Decision, decide, explain, for_every_request};
use turnstile_engine::trace::{Event, Trace};
use turnstile_engine::{CompiledBundle, check_bundle};
use turnstile_rules::ExtractionProblem;
use turnstile_rules::{EventIdx, Plan, Reason, StepId};

fn shop() -> CompiledBundle {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shop");
    check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"))
}

/// Builds a conversation event by event.
#[derive(Default)]
struct Convo {
    events: Vec<Event>,
    calls: usize,
}

impl Convo {
    fn at(&self) -> u32 {
        self.events.len() as u32
    }

    fn user(&mut self, text: &str) -> u32 {
        self.events.push(Event::User { text: text.into() });
        self.at() - 1
    }

    fn call(&mut self, tool: &str, args: Json) -> (u32, String) {
        self.calls += 1;
        let id = format!("c{}", self.calls);
        self.events.push(Event::Call {
            id: id.clone(),
            tool: tool.into(),
            args,
            requestor: Side::Agent,
        });
        (self.at() - 1, id)
    }

    fn result(&mut self, id: &str, ok: bool, content: Json) -> u32 {
        self.events.push(Event::Result {
            id: id.into(),
            ok,
            content,
        });
        self.at() - 1
    }

    /// A call and its successful result; returns the call's event.
    fn read(&mut self, tool: &str, args: Json, content: Json) -> u32 {
        let (k, id) = self.call(tool, args);
        self.result(&id, true, content);
        k
    }

    /// A gated call; returns its event. Succeeds in the trace (what the
    /// agent did), whether or not the gate would allow it.
    fn write(&mut self, tool: &str, args: Json) -> u32 {
        let (k, id) = self.call(tool, args);
        self.result(&id, true, json!({}));
        k
    }

    fn trace(&self) -> Trace {
        Trace {
            events: self.events.clone(),
            ..Trace::default()
        }
    }
}

fn profile() -> Json {
    json!({
        "user_id": "u1",
        "orders": ["#O1", "#O2"],
        "payment_methods": {
            "gc_small": {"id": "gc_small", "source": "gift_card", "balance": 10},
            "gc_big": {"id": "gc_big", "source": "gift_card", "balance": 500.5},
            "gc_3": {"id": "gc_3", "source": "gift_card", "balance": 5},
            "gc_4": {"id": "gc_4", "source": "gift_card", "balance": 5},
            "cc": {"id": "cc", "source": "credit_card"},
            "cc2": {"id": "cc2", "source": "credit_card"},
            "cert1": {"id": "cert1", "source": "certificate", "balance": 100},
            "cert2": {"id": "cert2", "source": "certificate", "balance": 100}
        },
        "bills": [{"bill_id": "B1", "status": "Paid"}]
    })
}

fn order(id: &str, status: &str) -> Json {
    json!({
        "order_id": id, "user_id": "u1", "status": status, "total": 120.25,
        "items": [
            {"item_id": "shirt_red_m", "product_id": "shirt", "price": 20},
            {"item_id": "shoe_41", "product_id": "shoe", "price": 80}
        ]
    })
}

fn shirts() -> Json {
    json!({
        "product_id": "shirt",
        "variants": {
            "shirt_red_m": {"item_id": "shirt_red_m", "price": 20, "available": true},
            "shirt_blue_l": {"item_id": "shirt_blue_l", "price": 45.5, "available": true},
            "shirt_gold": {"item_id": "shirt_gold", "price": 95, "available": true},
            "shirt_green_s": {"item_id": "shirt_green_s", "price": 18, "available": false}
        }
    })
}

/// Authenticated conversation: identify done, request type chosen.
fn opening(request: &str) -> (Convo, Vec<(StepId, u32)>) {
    opening_with(profile(), request)
}

fn opening_with(profile: Json, request: &str) -> (Convo, Vec<(StepId, u32)>) {
    let bundle = shop();
    let mut c = Convo::default();
    c.user("hello, I'm u1@example.com");
    c.read(
        "find_user_id_by_email",
        json!({"email": "u1@example.com"}),
        json!("u1"),
    );
    c.read("get_user_details", json!({"user_id": "u1"}), profile);
    let asked = c.user(&format!("I want to {request}"));
    let judged = vec![(bundle.branch_step("classify", request).unwrap(), asked)];
    (c, judged)
}

fn confirm(bundle: &CompiledBundle, c: &mut Convo, judged: &mut Vec<(StepId, u32)>, step: &str) {
    let yes = c.user("yes, go ahead");
    judged.push((bundle.step(step).unwrap(), yes));
}

fn run(c: &Convo, judged: &[(StepId, u32)]) -> Decision {
    let judged: Vec<(StepId, EventIdx)> = judged.iter().map(|&(s, k)| (s, EventIdx(k))).collect();
    let bundle = shop();
    let plan = Arc::new(Plan::new(&bundle.program, &bundle.arg_paths).unwrap());
    let trace = c.trace();
    let judged = for_every_request(&bundle, &plan, &trace, &judged).unwrap();
    decide(&bundle, &trace, &judged).unwrap()
}

fn assert_allowed(d: &Decision, event: u32) {
    let why = d
        .derived
        .violations
        .iter()
        .find(|v| v.event == EventIdx(event))
        .map(|v| explain(&shop(), d, v));
    assert!(
        d.derived.is_allowed(EventIdx(event)),
        "event {event} blocked: {why:?}"
    );
}

fn assert_blocked(d: &Decision, event: u32, reason: Reason, unmet: &str) -> String {
    assert!(
        !d.derived.is_allowed(EventIdx(event)),
        "event {event} allowed"
    );
    let bundle = shop();
    let v = d
        .derived
        .violations
        .iter()
        .find(|v| v.event == EventIdx(event))
        .unwrap_or_else(|| panic!("no violation recorded for {event}"));
    let text = explain(&bundle, d, v);
    assert_eq!(v.reason, reason, "{text}");
    assert_eq!(
        v.unmet.map(|s| bundle.step_name(s).to_owned()).as_deref(),
        Some(unmet),
        "{text}"
    );
    text
}

// ---- status gates ----

fn cancel(status: &str, reason: &str, confirmed: bool) -> (Decision, u32) {
    let bundle = shop();
    let (mut c, mut judged) = opening("cancel");
    c.read(
        "get_order_details",
        json!({"order_id": "#O1"}),
        order("#O1", status),
    );
    if confirmed {
        confirm(&bundle, &mut c, &mut judged, "cancel.confirm");
    }
    let k = c.write(
        "cancel_pending_order",
        json!({"order_id": "#O1", "reason": reason}),
    );
    (run(&c, &judged), k)
}

#[test]
fn status_gate_allows_a_pending_order() {
    let (d, k) = cancel("pending", "no longer needed", true);
    assert_allowed(&d, k);
    let bundle = shop();
    let verify = bundle.step("cancel.verify").unwrap();
    assert!(
        d.derived.evidence.keys().any(|(s, _)| *s == verify),
        "verify node satisfied after the result"
    );
}

#[test]
fn status_gate_blocks_a_delivered_order_and_cites_the_read() {
    let (d, k) = cancel("delivered", "no longer needed", true);
    let text = assert_blocked(&d, k, Reason::WrongValue, "cancel.authorize");
    assert!(
        text.contains("order[$order].status = \"delivered\" (read at event 7)"),
        "{text}"
    );
}

#[test]
fn an_unlisted_cancellation_reason_is_blocked() {
    let (d, k) = cancel("pending", "too expensive", true);
    let text = assert_blocked(&d, k, Reason::WrongValue, "cancel.authorize");
    assert!(text.contains("args.reason"), "{text}");
}

#[test]
fn a_missing_confirmation_is_blocked() {
    let (d, k) = cancel("pending", "no longer needed", false);
    assert_blocked(&d, k, Reason::DialogueUnmet, "cancel.confirm");
}

#[test]
fn latest_read_wins() {
    let bundle = shop();
    let (mut c, mut judged) = opening("cancel");
    c.read(
        "get_order_details",
        json!({"order_id": "#O1"}),
        order("#O1", "pending"),
    );
    confirm(&bundle, &mut c, &mut judged, "cancel.confirm");
    c.read(
        "get_order_details",
        json!({"order_id": "#O1"}),
        order("#O1", "processed"),
    );
    let k = c.write(
        "cancel_pending_order",
        json!({"order_id": "#O1", "reason": "ordered by mistake"}),
    );
    let d = run(&c, &judged);
    let text = assert_blocked(&d, k, Reason::WrongValue, "cancel.authorize");
    assert!(text.contains("\"processed\""), "{text}");
}

// ---- ordering ----

#[test]
fn a_write_before_the_read_it_depends_on_is_blocked() {
    let bundle = shop();
    let (mut c, mut judged) = opening("cancel");
    confirm(&bundle, &mut c, &mut judged, "cancel.confirm");
    let k = c.write(
        "cancel_pending_order",
        json!({"order_id": "#O1", "reason": "no longer needed"}),
    );
    c.read(
        "get_order_details",
        json!({"order_id": "#O1"}),
        order("#O1", "pending"),
    );
    let d = run(&c, &judged);
    assert_blocked(&d, k, Reason::MissingRead, "cancel.read");
}

fn repair(steps: &[&str]) -> (Decision, Vec<u32>) {
    let (mut c, judged) = opening("repair");
    let mut writes = Vec::new();
    for step in steps {
        match *step {
            "diagnose_down" => {
                c.read(
                    "check_network",
                    json!({"line_id": "L1"}),
                    json!({"line_id": "L1", "network": "down"}),
                );
            }
            "diagnose_up" => {
                c.read(
                    "check_network",
                    json!({"line_id": "L1"}),
                    json!({"line_id": "L1", "network": "up"}),
                );
            }
            "reset" => writes.push(c.write("reset_network", json!({"line_id": "L1"}))),
            "close" => writes.push(c.write("close_ticket", json!({"line_id": "L1"}))),
            other => panic!("unknown step {other}"),
        }
    }
    (run(&c, &judged), writes)
}

#[test]
fn diagnose_then_fix_then_reverify_is_allowed() {
    let (d, w) = repair(&["diagnose_down", "reset", "diagnose_up", "close"]);
    assert_allowed(&d, w[0]);
    assert_allowed(&d, w[1]);
}

#[test]
fn a_fix_before_diagnosis_is_blocked() {
    let (d, w) = repair(&["reset", "diagnose_down"]);
    assert_blocked(&d, w[0], Reason::MissingRead, "repair.diagnose");
}

#[test]
fn closing_without_reverifying_after_the_fix_is_blocked() {
    let (d, w) = repair(&["diagnose_down", "reset", "close"]);
    assert_allowed(&d, w[0]);
    assert_blocked(&d, w[1], Reason::MissingRead, "repair.reverify");
}

#[test]
fn verifying_before_the_fix_does_not_count() {
    let (d, w) = repair(&["diagnose_down", "diagnose_up", "reset", "close"]);
    // The "up" read came before the reset, so it cannot re-verify it.
    assert_blocked(&d, w[1], Reason::MissingRead, "repair.reverify");
}

#[test]
fn a_fix_when_the_diagnosis_shows_no_fault_is_blocked() {
    let (d, w) = repair(&["diagnose_up", "reset"]);
    assert_blocked(&d, w[0], Reason::WrongValue, "repair.is_down");
}

// ---- grounding ----

#[test]
fn a_write_on_an_order_other_than_the_one_read_is_ungrounded() {
    let bundle = shop();
    let (mut c, mut judged) = opening("cancel");
    c.read(
        "get_order_details",
        json!({"order_id": "#O1"}),
        order("#O1", "pending"),
    );
    confirm(&bundle, &mut c, &mut judged, "cancel.confirm");
    let k = c.write(
        "cancel_pending_order",
        json!({"order_id": "#O9", "reason": "no longer needed"}),
    );
    let d = run(&c, &judged);
    assert_blocked(&d, k, Reason::Ungrounded, "cancel.authorize");
}

#[test]
fn reading_an_order_of_another_user_does_not_open_a_request() {
    let bundle = shop();
    let (mut c, mut judged) = opening("cancel");
    c.read(
        "get_order_details",
        json!({"order_id": "#O7"}),
        order("#O7", "pending"),
    );
    confirm(&bundle, &mut c, &mut judged, "cancel.confirm");
    let k = c.write(
        "cancel_pending_order",
        json!({"order_id": "#O7", "reason": "no longer needed"}),
    );
    let d = run(&c, &judged);
    assert_blocked(&d, k, Reason::Ungrounded, "cancel.read");
}

#[test]
fn two_orders_are_two_requests() {
    let bundle = shop();
    let (mut c, mut judged) = opening("cancel");
    c.read(
        "get_order_details",
        json!({"order_id": "#O1"}),
        order("#O1", "pending"),
    );
    c.read(
        "get_order_details",
        json!({"order_id": "#O2"}),
        order("#O2", "delivered"),
    );
    confirm(&bundle, &mut c, &mut judged, "cancel.confirm");
    let first = c.write(
        "cancel_pending_order",
        json!({"order_id": "#O1", "reason": "no longer needed"}),
    );
    let second = c.write(
        "cancel_pending_order",
        json!({"order_id": "#O2", "reason": "no longer needed"}),
    );
    let d = run(&c, &judged);
    assert_allowed(&d, first);
    let text = assert_blocked(&d, second, Reason::WrongValue, "cancel.authorize");
    assert!(text.contains("$order = #O2"), "{text}");
}

// ---- exchange: same product, amounts, counts ----

fn exchange(old: &[&str], new: &[&str], payment: &str, twice: bool) -> (Decision, Vec<u32>) {
    let (mut c, judged) = opening("exchange");
    c.read(
        "get_order_details",
        json!({"order_id": "#O1"}),
        order("#O1", "delivered"),
    );
    c.read(
        "get_product_details",
        json!({"product_id": "shirt"}),
        shirts(),
    );
    let args = json!({"order_id": "#O1", "item_ids": old, "new_item_ids": new, "payment_method_id": payment});
    let mut writes = vec![c.write("exchange_delivered_order_items", args.clone())];
    if twice {
        writes.push(c.write("exchange_delivered_order_items", args));
    }
    (run(&c, &judged), writes)
}

#[test]
fn exchange_for_another_option_of_the_same_product_is_allowed() {
    let (d, w) = exchange(&["shirt_red_m"], &["shirt_blue_l"], "gc_big", false);
    assert_allowed(&d, w[0]);
}

#[test]
fn exchange_for_another_product_is_blocked() {
    let (d, w) = exchange(&["shoe_41"], &["shirt_blue_l"], "cc", false);
    let text = assert_blocked(&d, w[0], Reason::WrongValue, "exchange.authorize");
    assert!(text.contains("product_id"), "{text}");
}

#[test]
fn exchange_for_the_same_option_is_blocked() {
    let (d, w) = exchange(&["shirt_red_m"], &["shirt_red_m"], "cc", false);
    let text = assert_blocked(&d, w[0], Reason::WrongValue, "exchange.authorize");
    assert!(
        text.contains("args.new_item_ids[*] != args.item_ids[*]"),
        "{text}"
    );
}

#[test]
fn exchange_for_an_unavailable_item_is_blocked() {
    let (d, w) = exchange(&["shirt_red_m"], &["shirt_green_s"], "cc", false);
    assert_blocked(&d, w[0], Reason::WrongValue, "exchange.authorize");
}

#[test]
fn gift_card_balance_must_cover_the_price_difference() {
    // shirt_gold costs 75 more than shirt_red_m.
    let (d, w) = exchange(&["shirt_red_m"], &["shirt_gold"], "gc_small", false);
    let text = assert_blocked(&d, w[0], Reason::AmountOutOfBounds, "exchange.authorize");
    assert!(text.contains("= 10"), "{text}");
    let (d, w) = exchange(&["shirt_red_m"], &["shirt_gold"], "gc_big", false);
    assert_allowed(&d, w[0]);
    let (d, w) = exchange(&["shirt_red_m"], &["shirt_gold"], "cc", false);
    assert_allowed(&d, w[0]);
}

#[test]
fn exchange_happens_at_most_once_per_order() {
    let (d, w) = exchange(&["shirt_red_m"], &["shirt_blue_l"], "cc", true);
    assert_allowed(&d, w[0]);
    assert_blocked(&d, w[1], Reason::TooManyCalls, "exchange.authorize");
}

#[test]
fn exchanged_items_must_belong_to_the_order() {
    let (d, w) = exchange(&["shirt_blue_l"], &["shirt_gold"], "cc", false);
    assert_blocked(&d, w[0], Reason::Ungrounded, "exchange.authorize");
}

#[test]
fn a_payment_method_the_user_does_not_have_is_ungrounded() {
    let (d, w) = exchange(&["shirt_red_m"], &["shirt_blue_l"], "gift_card_999", false);
    assert_blocked(&d, w[0], Reason::Ungrounded, "exchange.authorize");
}

// ---- payments: sums and per-kind limits ----

fn pay(payments: Json) -> (Decision, u32) {
    let (mut c, judged) = opening("pay");
    c.read(
        "get_order_details",
        json!({"order_id": "#O1"}),
        order("#O1", "pending"),
    );
    let k = c.write(
        "pay_order",
        json!({"order_id": "#O1", "payments": payments}),
    );
    (run(&c, &judged), k)
}

#[test]
fn payments_adding_up_to_the_total_are_allowed() {
    let (d, k) =
        pay(json!([{"payment_id": "cert1", "amount": 100}, {"payment_id": "cc", "amount": 20.25}]));
    assert_allowed(&d, k);
}

#[test]
fn payments_not_adding_up_are_blocked() {
    let (d, k) =
        pay(json!([{"payment_id": "cert1", "amount": 100}, {"payment_id": "cc", "amount": 20.24}]));
    let text = assert_blocked(&d, k, Reason::AmountOutOfBounds, "pay.authorize");
    assert!(text.contains("120.24") && text.contains("120.25"), "{text}");
}

#[test]
fn at_most_one_certificate_one_credit_card_three_gift_cards() {
    let two_certs =
        json!([{"payment_id": "cert1", "amount": 100}, {"payment_id": "cert2", "amount": 20.25}]);
    let (d, k) = pay(two_certs);
    assert_blocked(&d, k, Reason::AmountOutOfBounds, "pay.authorize");
    let two_cards =
        json!([{"payment_id": "cc", "amount": 100}, {"payment_id": "cc2", "amount": 20.25}]);
    let (d, k) = pay(two_cards);
    assert_blocked(&d, k, Reason::AmountOutOfBounds, "pay.authorize");
    let four_gift_cards = json!([
        {"payment_id": "gc_small", "amount": 10}, {"payment_id": "gc_big", "amount": 100.25},
        {"payment_id": "gc_3", "amount": 5}, {"payment_id": "gc_4", "amount": 5}
    ]);
    let (d, k) = pay(four_gift_cards);
    assert_blocked(&d, k, Reason::AmountOutOfBounds, "pay.authorize");
    let three_gift_cards = json!([
        {"payment_id": "gc_small", "amount": 10}, {"payment_id": "gc_big", "amount": 105.25},
        {"payment_id": "gc_3", "amount": 5}
    ]);
    let (d, k) = pay(three_gift_cards);
    assert_allowed(&d, k);
}

// ---- telecom amounts ----

fn refuel(amount: Json) -> (Decision, u32) {
    let (mut c, judged) = opening("refuel");
    let k = c.write("refuel_data", json!({"line_id": "L1", "gb_amount": amount}));
    (run(&c, &judged), k)
}

#[test]
fn refuel_at_most_two_gigabytes() {
    let (d, k) = refuel(json!(2));
    assert_allowed(&d, k);
    let (d, k) = refuel(json!(1.5));
    assert_allowed(&d, k);
    let (d, k) = refuel(json!(2.5));
    assert_blocked(&d, k, Reason::AmountOutOfBounds, "refuel.authorize");
}

// ---- telecom bills: status gate and "at most one awaiting payment" ----

fn bill_request(bills: Json, bill: &str) -> (Decision, u32) {
    let mut p = profile();
    p["bills"] = bills;
    let (mut c, judged) = opening_with(p, "bill");
    let k = c.write("send_payment_request", json!({"bill_id": bill}));
    (run(&c, &judged), k)
}

#[test]
fn a_payment_request_needs_an_overdue_bill() {
    let (d, k) = bill_request(
        json!([{"bill_id": "B1", "status": "Overdue"}, {"bill_id": "B0", "status": "Paid"}]),
        "B1",
    );
    assert_allowed(&d, k);
    let (d, k) = bill_request(
        json!([{"bill_id": "B1", "status": "Overdue"}, {"bill_id": "B0", "status": "Paid"}]),
        "B0",
    );
    let text = assert_blocked(&d, k, Reason::WrongValue, "bill.authorize");
    assert!(text.contains("\"Paid\""), "{text}");
}

#[test]
fn at_most_one_bill_awaits_payment() {
    let bills = json!([{"bill_id": "B1", "status": "Overdue"}, {"bill_id": "B2", "status": "Awaiting Payment"}]);
    let (d, k) = bill_request(bills, "B1");
    assert_blocked(&d, k, Reason::AmountOutOfBounds, "bill.authorize");
}

// ---- bad input fails closed ----

#[test]
fn a_read_result_that_is_not_json_is_diagnosed_and_blocks() {
    let bundle = shop();
    let (mut c, mut judged) = opening("cancel");
    let (_, id) = c.call("get_order_details", json!({"order_id": "#O1"}));
    c.result(&id, true, json!("Order #O1: pending"));
    confirm(&bundle, &mut c, &mut judged, "cancel.confirm");
    let k = c.write(
        "cancel_pending_order",
        json!({"order_id": "#O1", "reason": "no longer needed"}),
    );
    let d = run(&c, &judged);
    assert!(
        d.facts
            .diagnostics
            .iter()
            .any(|x| x.kind == ExtractionProblem::NotJson && x.event == EventIdx(7))
    );
    assert!(!d.derived.is_allowed(EventIdx(k)));
}

#[test]
fn a_missing_or_mistyped_field_is_diagnosed_and_blocks() {
    let bundle = shop();
    for (content, problem) in [
        (
            json!({"order_id": "#O1", "user_id": "u1", "items": []}),
            ExtractionProblem::MissingField,
        ),
        (
            json!({"order_id": "#O1", "user_id": "u1", "status": 5, "items": []}),
            ExtractionProblem::WrongType,
        ),
    ] {
        let (mut c, mut judged) = opening("cancel");
        c.read("get_order_details", json!({"order_id": "#O1"}), content);
        confirm(&bundle, &mut c, &mut judged, "cancel.confirm");
        let k = c.write(
            "cancel_pending_order",
            json!({"order_id": "#O1", "reason": "no longer needed"}),
        );
        let d = run(&c, &judged);
        assert!(
            d.facts.diagnostics.iter().any(|x| x.kind == problem),
            "{:?}",
            d.facts.diagnostics
        );
        assert_blocked(&d, k, Reason::MissingRead, "cancel.authorize");
    }
}

#[test]
fn a_string_where_a_number_is_declared_blocks() {
    let (d, k) = refuel(json!("2"));
    assert!(
        d.facts
            .diagnostics
            .iter()
            .any(|x| x.kind == ExtractionProblem::WrongType)
    );
    assert!(!d.derived.is_allowed(EventIdx(k)));
}

#[test]
fn a_numeric_overflow_is_diagnosed_and_blocks() {
    let (mut c, judged) = opening("pay");
    let mut big = order("#O1", "pending");
    big["total"] = json!(1e300);
    c.read("get_order_details", json!({"order_id": "#O1"}), big);
    let k = c.write(
        "pay_order",
        json!({"order_id": "#O1", "payments": [{"payment_id": "cc", "amount": 1}]}),
    );
    let d = run(&c, &judged);
    assert!(
        d.facts
            .diagnostics
            .iter()
            .any(|x| x.kind == ExtractionProblem::Overflow),
        "{:?}",
        d.facts.diagnostics
    );
    assert!(!d.derived.is_allowed(EventIdx(k)));
}

#[test]
fn an_orphan_result_is_diagnosed() {
    let (mut c, judged) = opening("cancel");
    c.result("nope", true, json!({}));
    let d = run(&c, &judged);
    assert!(
        d.facts
            .diagnostics
            .iter()
            .any(|x| x.kind == ExtractionProblem::OrphanResult)
    );
}
