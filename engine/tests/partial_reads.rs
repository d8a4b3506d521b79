//! Partial reads: a read tool declares the arguments that limit or page its
//! result and the list it must cover (`pages` in the domain); the
//! extractor decides whether a result is a part — it lacks an id the list
//! holds, or, that list unread, a limiting argument was passed — and then
//! the lists gathered over its records are unknown (`Read::unknown`), so a
//! check concluding absence from them fails closed. Decided in the
//! extractor, the monitor and the Datalog program agree by construction
//! (checked here for the explainers too; `monitor_vs_datalog` generates such
//! reads).
//!
//! The fixture is the toy bundle with `list_orders(user_id, limit)`, which
//! must cover the profile's `order_ids`, and a cancellation guard that no
//! order of the user is disputed (`count(user[$user].order_statuses,
//! "disputed") == 0`): a page hiding the disputed order proves nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a panic is a failure report

mod support;

use std::sync::Arc;

use serde_json::{Value as Json, json};
use support::{Edit, bundle_in, call, mutated, ok};
use turnstile_engine::audit::AssumingJudge;
use turnstile_engine::session::{BundleRuntime, Explainer, GateVerdict, Schedule, Session};
use turnstile_engine::trace::{Event, Trace, TraceMeta};
use turnstile_engine::{ProblemKind, check_bundle, extract::extract};
use turnstile_rules::{ExtractionProblem, Reason};

const DOMAIN: &str = "domain.yaml";

/// The toy bundle with the paged read and the guard on it.
fn edits() -> Vec<Edit> {
    vec![
        Edit {
            file: DOMAIN,
            find: "      order_ids: list<string>\n",
            replace: "      order_ids: list<string>\n      order_statuses: list<string>\n",
        },
        Edit {
            file: DOMAIN,
            find: "  - name: cancel_pending_order\n",
            replace: "  - name: list_orders
    side: agent
    kind: read
    params:
      user_id: string
      limit: integer
    pages:
      limits: [limit]
      records: $[*].order_id
      complete_against:
        entity: user
        id: user_id
        field: order_ids
    reads:
      - entity: user
        id: $[0].user_id
        fields:
          order_statuses: $[*].status
      - entity: order
        each: $[*]
        id: .order_id
        fields:
          user_id: .user_id
  - name: cancel_pending_order\n",
        },
        Edit {
            file: "flows/cancel.yaml",
            find: "order[args.order_id].status == \"pending\"\n",
            replace: "order[args.order_id].status == \"pending\" && count(user[$user].order_statuses, \"disputed\") == 0\n",
        },
    ]
}

fn runtime() -> (tempfile::TempDir, Arc<BundleRuntime>) {
    let edits = edits();
    let dir = mutated(&edits);
    let bundle = check_bundle(&bundle_in(&dir)).unwrap_or_else(|p| panic!("{p}"));
    (dir, BundleRuntime::new(Arc::new(bundle)).unwrap())
}

fn record(order_id: &str, status: &str) -> Json {
    json!({"order_id": order_id, "user_id": "u1", "status": status})
}

/// The profile read, listing the user's three orders.
fn profile() -> Vec<Event> {
    vec![
        call("p", "get_user_details", json!({"user_id": "u1"})),
        ok(
            "p",
            json!({"user_id": "u1", "email": "a@b.co", "orders": ["W1", "W2", "W3"]}),
        ),
    ]
}

/// `list_orders` with `args`, returning `records`.
fn listing(n: u32, args: Json, records: &[Json]) -> Vec<Event> {
    let id = format!("l{n}");
    vec![
        call(&id, "list_orders", args),
        ok(&id, Json::Array(records.to_vec())),
    ]
}

/// The first two orders (W3, the disputed one, is older).
fn page() -> Vec<Json> {
    vec![record("W1", "pending"), record("W2", "delivered")]
}

fn all(third: &str) -> Vec<Json> {
    vec![
        record("W1", "pending"),
        record("W2", "delivered"),
        record("W3", third),
    ]
}

/// Identification, `middle`, the order read, and the cancellation of W1.
fn conversation(middle: Vec<Event>) -> Vec<Event> {
    let mut events = vec![
        Event::User {
            text: "Hi, my email is a@b.co. Cancel W1, I no longer need it.".into(),
        },
        call("f", "find_user_id_by_email", json!({"email": "a@b.co"})),
        ok("f", json!("u1")),
    ];
    events.extend(middle);
    events.extend([
        call("o", "get_order_details", json!({"order_id": "W1"})),
        ok(
            "o",
            json!({"order_id": "W1", "user_id": "u1", "status": "pending", "items": []}),
        ),
        Event::Agent {
            text: "To confirm: cancel order W1, reason no longer needed. Proceed?".into(),
        },
        Event::User {
            text: "Yes.".into(),
        },
        call(
            "c",
            "cancel_pending_order",
            json!({"order_id": "W1", "reason": "no longer needed"}),
        ),
    ]);
    events
}

/// The verdict on the last event, and the same with the Datalog explainer
/// (which must agree).
fn verdict(rt: &Arc<BundleRuntime>, events: &[Event]) -> GateVerdict {
    let mut verdicts = Vec::new();
    for explainer in [Explainer::Monitor, Explainer::Datalog] {
        let mut session = Session::new(Arc::clone(rt), Schedule::Workflow);
        session.set_explainer(explainer);
        let mut last = None;
        for event in events {
            last = Some(session.push(event.clone(), &AssumingJudge).unwrap());
        }
        verdicts.push(last.unwrap().verdict);
    }
    assert_eq!(verdicts[0], verdicts[1], "the explainers disagree");
    verdicts.remove(0)
}

fn is_allow(v: &GateVerdict) -> bool {
    matches!(v, GateVerdict::Allow { .. })
}

fn missing_read(v: &GateVerdict) -> bool {
    matches!(
        v,
        GateVerdict::Block {
            reason: Reason::MissingRead,
            ..
        }
    )
}

#[test]
fn a_page_hiding_the_disputed_order_proves_nothing() {
    let (_dir, rt) = runtime();
    let mut middle = profile();
    middle.extend(listing(0, json!({"user_id": "u1", "limit": 2}), &page()));
    let v = verdict(&rt, &conversation(middle));
    assert!(missing_read(&v), "{v:?}");
}

#[test]
fn the_whole_list_decides() {
    let (_dir, rt) = runtime();
    for args in [
        json!({"user_id": "u1"}),
        json!({"user_id": "u1", "limit": 10}),
    ] {
        let mut middle = profile();
        middle.extend(listing(0, args.clone(), &all("delivered")));
        let v = verdict(&rt, &conversation(middle));
        assert!(is_allow(&v), "{args}: {v:?}");
        // And a disputed order in it blocks.
        let mut middle = profile();
        middle.extend(listing(0, args.clone(), &all("disputed")));
        let v = verdict(&rt, &conversation(middle));
        assert!(!is_allow(&v), "{args}: {v:?}");
    }
}

/// With the list it must cover unread, a limiting argument makes the
/// result a part; without one, the tool's whole answer is taken.
#[test]
fn unread_the_list_a_limit_makes_a_part() {
    let (_dir, rt) = runtime();
    let limited = listing(0, json!({"user_id": "u1", "limit": 2}), &page());
    let mut middle = limited;
    middle.extend(profile());
    let v = verdict(&rt, &conversation(middle));
    assert!(missing_read(&v), "{v:?}");
    let mut middle = listing(0, json!({"user_id": "u1"}), &all("delivered"));
    middle.extend(profile());
    let v = verdict(&rt, &conversation(middle));
    assert!(is_allow(&v), "{v:?}");
}

/// A part read after the whole list takes its place: the earlier whole
/// read no longer says the current state.
#[test]
fn a_later_part_makes_the_list_unknown_again() {
    let (_dir, rt) = runtime();
    let mut middle = profile();
    middle.extend(listing(0, json!({"user_id": "u1"}), &all("delivered")));
    middle.extend(listing(
        1,
        json!({"user_id": "u1", "limit": 1}),
        &[record("W1", "pending")],
    ));
    let v = verdict(&rt, &conversation(middle));
    assert!(missing_read(&v), "{v:?}");
    // Reading the rest again decides.
    middle = profile();
    middle.extend(listing(
        0,
        json!({"user_id": "u1", "limit": 1}),
        &[record("W1", "pending")],
    ));
    middle.extend(listing(
        1,
        json!({"user_id": "u1", "limit": 5}),
        &all("delivered"),
    ));
    let v = verdict(&rt, &conversation(middle));
    assert!(is_allow(&v), "{v:?}");
}

#[test]
fn the_extractor_says_what_is_missing() {
    let (dir, _) = runtime();
    let bundle = check_bundle(&bundle_in(&dir)).unwrap();
    let mut events = profile();
    events.extend(listing(0, json!({"user_id": "u1", "limit": 2}), &page()));
    let facts = extract(
        &bundle,
        &Trace {
            meta: TraceMeta::default(),
            events,
        },
    );
    let partial: Vec<&str> = facts
        .diagnostics
        .iter()
        .filter(|d| d.kind == ExtractionProblem::PartialRead)
        .map(|d| d.detail.as_str())
        .collect();
    assert_eq!(partial.len(), 1, "{partial:?}");
    assert!(
        partial[0].contains("returned 2 of the 3 records user[u1].order_ids lists")
            && partial[0].contains("read the rest"),
        "{}",
        partial[0]
    );
    // Each record of the page is still read: its own facts stand.
    let user_id = facts.interner.get("user_id").unwrap();
    let w2 = facts.interner.get("W2").unwrap();
    assert!(facts.attrs.iter().any(|a| a.id == w2 && a.field == user_id));
    // The gathered list is not.
    let statuses = facts.interner.get("order_statuses").unwrap();
    assert!(!facts.attrs.iter().any(|a| a.field == statuses));
    assert!(!facts.attr_lens.iter().any(|a| a.field == statuses));
}

#[test]
fn a_pages_declaration_is_checked() {
    let cases: [(&str, &str, ProblemKind); 4] = [
        (
            "      limits: [limit]\n",
            "      limits: [page_size]\n",
            ProblemKind::UnknownParam,
        ),
        (
            "        id: user_id\n",
            "        id: customer\n",
            ProblemKind::UnknownParam,
        ),
        (
            "        entity: user\n",
            "        entity: customer\n",
            ProblemKind::UnknownEntity,
        ),
        (
            "        field: order_ids\n",
            "        field: email\n",
            ProblemKind::TypeMismatch,
        ),
    ];
    for (find, replace, kind) in cases {
        let mut edits = edits();
        let base = edits.remove(1);
        let replaced = base.replace.replacen(find, replace, 1);
        assert_ne!(replaced, base.replace, "{find}");
        let paged = Edit {
            file: base.file,
            find: base.find,
            replace: Box::leak(replaced.into_boxed_str()),
        };
        edits.insert(1, paged);
        let dir = mutated(&edits);
        let problems = check_bundle(&bundle_in(&dir)).unwrap_err();
        assert!(
            problems.iter().any(|p| p.kind == kind),
            "{replace}: {problems}"
        );
    }
}
