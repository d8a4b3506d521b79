//! Shared inputs of the benchmarks (figures in BENCHMARKS.md at the workspace
//! root): the bundles and synthetic traces of a chosen length.

use std::path::{Path, PathBuf};

use serde_json::json;
use turnstile_engine::CompiledBundle;
use turnstile_engine::bundle::model::Side;
use turnstile_engine::extract::extract;
use turnstile_engine::trace::{Event, Trace};
use turnstile_rules::{Env, EventIdx, StepId, VarId};

/// The example bundle every front-end benchmark starts from.
pub fn toy_bundle() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/toy-orders")
}

/// The requirement-class test bundle (five request types, 22 checks).
pub fn shop_bundle() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/fixtures/shop")
}

/// A long conversation of about `events` events against the shop bundle:
/// authentication, then the user cancels five orders one after another (asks,
/// agent reads the order and lists the details, user confirms, agent
/// cancels), then keeps asking about them: every further round re-reads an
/// order (whose status is now `cancelled`) and answers. Entities stay
/// bounded, as in a real conversation; the length comes from the dialogue
/// and the repeated reads. Returns the judge's verdicts for the semantic steps.
pub fn shop_trace(bundle: &CompiledBundle, events: usize) -> (Trace, Vec<(StepId, Env, EventIdx)>) {
    const ORDERS: usize = 5;
    let mut out: Vec<Event> = Vec::new();
    let mut judged = Vec::new();
    let mut calls = 0;
    let mut call =
        |out: &mut Vec<Event>, tool: &str, args: serde_json::Value, result: serde_json::Value| {
            calls += 1;
            let id = format!("c{calls}");
            out.push(Event::Call {
                id: id.clone(),
                tool: tool.into(),
                args,
                requestor: Side::Agent,
            });
            out.push(Event::Result {
                id,
                ok: true,
                content: result,
            });
        };
    let orders: Vec<String> = (0..ORDERS).map(|i| format!("#O{i}")).collect();
    out.push(Event::User {
        text: "hi, u1@example.com".into(),
    });
    call(
        &mut out,
        "find_user_id_by_email",
        json!({"email": "u1@example.com"}),
        json!("u1"),
    );
    call(
        &mut out,
        "get_user_details",
        json!({"user_id": "u1"}),
        json!({"user_id": "u1", "orders": orders, "payment_methods": {}, "bills": []}),
    );
    let classify = bundle.branch_step("classify", "cancel");
    let confirm = bundle.step("cancel.confirm");
    let mut round = 0;
    while out.len() < events {
        let order = &orders[round % ORDERS];
        let cancelling = round < ORDERS;
        let asked = EventIdx::from_usize(out.len());
        out.push(Event::User {
            text: format!("what about {order}?"),
        });
        if round == 0
            && let Some(step) = classify
        {
            judged.push((step, None, asked));
        }
        let status = if cancelling { "pending" } else { "cancelled" };
        call(
            &mut out,
            "get_order_details",
            json!({"order_id": order}),
            json!({"order_id": order, "user_id": "u1", "status": status, "total": 10, "items": []}),
        );
        out.push(Event::Agent {
            text: format!("{order} is {status}."),
        });
        if cancelling {
            let yes = EventIdx::from_usize(out.len());
            out.push(Event::User {
                text: "cancel it, no longer needed: yes".into(),
            });
            if let Some(step) = confirm {
                judged.push((step, Some(order.clone()), yes));
            }
            call(
                &mut out,
                "cancel_pending_order",
                json!({"order_id": order, "reason": "no longer needed"}),
                json!({}),
            );
        }
        round += 1;
    }
    let trace = Trace {
        events: out,
        ..Trace::default()
    };
    // Verdicts are about one request: `{$user}` for the classification,
    // `{$order, $user}` for a confirmation.
    let judged = judged
        .into_iter()
        .map(|(step, order, k)| (step, request(bundle, &trace, "u1", order.as_deref()), k))
        .collect();
    (trace, judged)
}

/// The shop bundle's request `{$user}` or `{$order, $user}` with the symbols
/// of `trace` (a judge verdict is about one request).
pub fn request(bundle: &CompiledBundle, trace: &Trace, user: &str, order: Option<&str>) -> Env {
    let interner = extract(bundle, trace).interner;
    let bind = |env: Env, name: &str, value: &str| {
        let var = bundle
            .variables
            .iter()
            .position(|v| v.name == name)
            .and_then(|i| u32::try_from(i).ok())
            .map(VarId);
        match (var, interner.get(value)) {
            (Some(v), Some(symbol)) => env.with(v, symbol),
            _ => env,
        }
    };
    let env = bind(Env::EMPTY, "user", user);
    order.map_or(env, |o| bind(env, "order", o))
}

/// The shortest [`gate_trace`].
pub const GATE_TRACE_MIN: usize = 10;

/// A conversation of exactly `events` events (at least [`GATE_TRACE_MIN`])
/// on the shop bundle whose last event is a gated agent call,
/// `cancel_pending_order` of order `#OF`: the gate decision the `gate`
/// benchmark times. The user states the intent and identifies; for longer
/// traces the agent then cancels up to five other orders (read, summary
/// asking for confirmation, "yes", acknowledgement, cancel, result) and
/// answers repeated questions about them (re-read, answer); finally it reads
/// `#OF`, summarizes, the user says yes and the agent cancels. `#OF` is
/// `pending` when `allowed` and `processed` otherwise, so the final call is
/// allowed or blocked by the formal guard alone. The wording passes the
/// offline judge (`turnstile_judge::OfflineJudge`): a live session accepts
/// every confirmation and classifies the request as a cancellation.
pub fn gate_trace(events: usize, allowed: bool) -> Trace {
    const ORDERS: usize = 5;
    /// The final read, summary, yes and cancel.
    const FINAL: usize = 5;
    let events = events.max(GATE_TRACE_MIN);
    let mut out: Vec<Event> = Vec::with_capacity(events);
    let mut calls = 0;
    let mut call = |out: &mut Vec<Event>, tool: &str, args: serde_json::Value| {
        calls += 1;
        let id = format!("g{calls}");
        out.push(Event::Call {
            id: id.clone(),
            tool: tool.into(),
            args,
            requestor: Side::Agent,
        });
        id
    };
    let ok = |out: &mut Vec<Event>, id: String, content: serde_json::Value| {
        out.push(Event::Result {
            id,
            ok: true,
            content,
        });
    };
    let user = |out: &mut Vec<Event>, text: String| out.push(Event::User { text });
    let agent = |out: &mut Vec<Event>, text: String| out.push(Event::Agent { text });
    let order = |id: &str, status: &str| json!({"order_id": id, "user_id": "u1", "status": status, "total": 10, "items": []});
    let mut orders: Vec<String> = (0..ORDERS).map(|i| format!("#O{i}")).collect();
    orders.push("#OF".to_owned());

    user(
        &mut out,
        "Hi, I'd like to cancel an order. My email is u1@example.com.".into(),
    );
    let id = call(
        &mut out,
        "find_user_id_by_email",
        json!({"email": "u1@example.com"}),
    );
    ok(&mut out, id, json!("u1"));
    let id = call(&mut out, "get_user_details", json!({"user_id": "u1"}));
    ok(
        &mut out,
        id,
        json!({"user_id": "u1", "orders": orders, "payment_methods": {}, "bills": []}),
    );
    let summary = |o: &str| {
        format!("Order {o}: cancel it with reason 'no longer needed'? Please confirm (yes).")
    };
    let mut round = 0;
    loop {
        let left = events - FINAL - out.len();
        let o = &orders[round % ORDERS];
        if round < ORDERS && left >= 8 {
            user(&mut out, format!("Please cancel {o} too."));
            let id = call(&mut out, "get_order_details", json!({"order_id": o}));
            ok(&mut out, id, order(o, "pending"));
            agent(&mut out, summary(o));
            user(&mut out, "Yes, please go ahead.".into());
            agent(&mut out, format!("Cancelling {o} now."));
            let id = call(
                &mut out,
                "cancel_pending_order",
                json!({"order_id": o, "reason": "no longer needed"}),
            );
            ok(&mut out, id, json!({"status": "cancelled"}));
        } else if left >= 4 {
            user(&mut out, format!("What is the status of {o} now?"));
            let id = call(&mut out, "get_order_details", json!({"order_id": o}));
            let status = if round < ORDERS {
                "pending"
            } else {
                "cancelled"
            };
            ok(&mut out, id, order(o, status));
            agent(&mut out, format!("{o} is {status}."));
        } else if left > 0 {
            if left % 2 == 1 {
                user(&mut out, "Thanks.".into());
            } else {
                agent(&mut out, "You're welcome.".into());
            }
            continue;
        } else {
            break;
        }
        round += 1;
    }
    let status = if allowed { "pending" } else { "processed" };
    let id = call(&mut out, "get_order_details", json!({"order_id": "#OF"}));
    ok(&mut out, id, order("#OF", status));
    agent(&mut out, summary("#OF"));
    user(&mut out, "Yes, please go ahead.".into());
    call(
        &mut out,
        "cancel_pending_order",
        json!({"order_id": "#OF", "reason": "no longer needed"}),
    );
    Trace {
        events: out,
        ..Trace::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use turnstile_engine::check_bundle;
    use turnstile_engine::decide::decide;

    /// The benchmark measures the real path: every cancel in the synthetic
    /// conversation is allowed.
    #[test]
    fn the_benchmark_trace_is_compliant() {
        let bundle = check_bundle(&shop_bundle()).unwrap();
        let (trace, judged) = shop_trace(&bundle, 200);
        let decision = decide(&bundle, &trace, &judged).unwrap();
        let cancels = trace
            .events
            .iter()
            .filter(|e| matches!(e, Event::Call { tool, .. } if tool == "cancel_pending_order"))
            .count();
        assert_eq!(cancels, 5);
        assert_eq!(
            decision.derived.allowed.len(),
            cancels,
            "{:?}",
            decision.derived.violations
        );
        assert!(decision.derived.violations.is_empty());
    }

    /// Exact lengths, the gated call last, and its fate decided by the guard.
    #[test]
    fn the_gate_trace_ends_with_the_decided_call() {
        let bundle = check_bundle(&shop_bundle()).unwrap();
        let confirm = bundle.step("cancel.confirm").unwrap();
        for events in [10usize, 11, 12, 13, 57, 100, 1_000] {
            for allowed in [true, false] {
                let trace = gate_trace(events, allowed);
                assert_eq!(trace.events.len(), events);
                let last = trace.events.last().unwrap();
                assert!(matches!(last, Event::Call { tool, .. } if tool == "cancel_pending_order"));
                // The judge's verdicts a live session accepts: every
                // confirmation ("yes" right before the acknowledgement or
                // the final call) and the classification at the first
                // message after identification.
                let k = EventIdx::from_usize(events - 1);
                // Each yes is about the order read last before it.
                let mut order = None;
                let mut judged: Vec<(StepId, Env, EventIdx)> = Vec::new();
                for (i, e) in trace.events.iter().enumerate() {
                    match e {
                        Event::Call { tool, args, .. } if tool == "get_order_details" => {
                            order = args["order_id"].as_str().map(str::to_owned);
                        }
                        Event::User { text } if text.starts_with("Yes") => judged.push((
                            confirm,
                            request(&bundle, &trace, "u1", order.as_deref()),
                            EventIdx::from_usize(i),
                        )),
                        _ => {}
                    }
                }
                judged.push((
                    bundle.branch_step("classify", "cancel").unwrap(),
                    request(&bundle, &trace, "u1", None),
                    EventIdx(4),
                ));
                let decision = decide(&bundle, &trace, &judged).unwrap();
                assert_eq!(decision.derived.is_allowed(k), allowed, "{events}");
                let blocked: Vec<EventIdx> = decision
                    .derived
                    .violations
                    .iter()
                    .map(|v| v.event)
                    .collect();
                let expected = if allowed { vec![] } else { vec![k] };
                assert_eq!(blocked, expected, "{events}");
            }
        }
    }
}
