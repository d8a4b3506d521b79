//! Shared inputs of the benchmarks (figures in BENCHMARKS.md at the workspace
//! root): the bundles and synthetic traces of a chosen length.

use std::path::{Path, PathBuf};

use serde_json::json;
use turnstile_engine::CompiledBundle;
use turnstile_engine::bundle::model::Side;
use turnstile_engine::trace::{Event, Trace};
use turnstile_rules::StepId;

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
pub fn shop_trace(bundle: &CompiledBundle, events: usize) -> (Trace, Vec<(StepId, u32)>) {
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
        let asked = out.len() as u32;
        out.push(Event::User {
            text: format!("what about {order}?"),
        });
        if round == 0
            && let Some(step) = classify
        {
            judged.push((step, asked));
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
            let yes = out.len() as u32;
            out.push(Event::User {
                text: "cancel it, no longer needed: yes".into(),
            });
            if let Some(step) = confirm {
                judged.push((step, yes));
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
    (
        Trace {
            events: out,
            ..Trace::default()
        },
        judged,
    )
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
}
