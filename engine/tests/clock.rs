//! Time as a value: `now()`, `days(n)`, `hours(n)` in checks, on the clock
//! the bundle declares. The toy bundle, changed so a cancellation is
//! allowed only within 30 days of the order being placed, is run on each
//! clock: `fixed` decides every event at one instant, `event` at the events'
//! own times, `system` at the gate's clock (`--now` in tests). A session
//! records the time it decided each event with and restores with it; a
//! replay of a trace that records no time refuses, saying what to give.
//! The dialogue steps are granted (`AssumingJudge`): only the clock decides.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

mod support;

use std::sync::Arc;

use serde_json::json;
use support::{Edit, bundle_in, call, mutated, ok};
use turnstile_engine::audit::AssumingJudge;
use turnstile_engine::clock::Clock;
use turnstile_engine::session::replay_at;
use turnstile_engine::session::{
    BundleRuntime, Explainer, GateVerdict, Schedule, Session, SessionError, SessionState,
};
use turnstile_engine::trace::{Event, Trace, TraceMeta};
use turnstile_engine::{check_bundle, compile, decide::decide};
use turnstile_rules::{DateTime, Reason};

/// The toy bundle with `clock:` set to `clock` and a 30-day window on
/// cancellations, read from the order's `placed_at`.
fn windowed(clock: &'static str) -> tempfile::TempDir {
    mutated(&[
        Edit {
            file: "bundle.yaml",
            find: "domain: domain.yaml",
            replace: clock,
        },
        Edit {
            file: "domain.yaml",
            find: "      item_prices: list<amount>",
            replace: "      item_prices: list<amount>\n      placed_at: datetime",
        },
        Edit {
            file: "domain.yaml",
            find: "          item_prices: $.items[*].price",
            replace: "          item_prices: $.items[*].price\n          placed_at: $.placed_at",
        },
        Edit {
            file: "flows/cancel.yaml",
            find: "&& order[args.order_id].status == \"pending\"",
            replace: "&& order[args.order_id].status == \"pending\" && order[args.order_id].placed_at >= now() - days(30)",
        },
    ])
}

fn runtime(dir: &tempfile::TempDir) -> Arc<BundleRuntime> {
    let bundle = check_bundle(&bundle_in(dir)).unwrap_or_else(|p| panic!("{p}"));
    BundleRuntime::new(Arc::new(bundle)).unwrap()
}

fn at(text: &str) -> DateTime {
    DateTime::parse(text).unwrap()
}

/// A cancellation of order #O1, placed on `placed`, confirmed and made;
/// the write is the last event.
fn cancellation(placed: &str) -> Vec<Event> {
    vec![
        Event::User {
            text: "Please cancel my order #O1, I no longer need it. My email is u1@example.com."
                .into(),
        },
        call(
            "c1",
            "find_user_id_by_email",
            json!({"email": "u1@example.com"}),
        ),
        ok("c1", json!("u1")),
        call("c2", "get_user_details", json!({"user_id": "u1"})),
        ok(
            "c2",
            json!({"user_id": "u1", "email": "u1@example.com", "orders": ["#O1"]}),
        ),
        call("c3", "get_order_details", json!({"order_id": "#O1"})),
        ok(
            "c3",
            json!({"order_id": "#O1", "user_id": "u1", "status": "pending",
                   "items": [{"price": 10}], "placed_at": placed}),
        ),
        Event::Agent {
            text: "I will cancel order #O1 with reason 'no longer needed'. Shall I proceed?".into(),
        },
        Event::User {
            text: "Yes, please.".into(),
        },
        call(
            "c4",
            "cancel_pending_order",
            json!({"order_id": "#O1", "reason": "no longer needed"}),
        ),
    ]
}

fn last_verdict(session: &mut Session, events: Vec<Event>) -> GateVerdict {
    let mut last = None;
    for event in events {
        last = Some(session.push(event, &AssumingJudge).unwrap().verdict);
    }
    last.unwrap()
}

#[test]
fn a_fixed_clock_decides_every_event_at_its_instant() {
    let dir = windowed("domain: domain.yaml\nclock: fixed 2024-05-15T15:00:00");
    let rt = runtime(&dir);
    assert_eq!(
        rt.bundle.clock,
        Some(Clock::Fixed(at("2024-05-15T15:00:00")))
    );
    assert!(rt.bundle.reads_now);
    // Placed 30 days before, to the hour: the window still holds.
    let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
    let verdict = last_verdict(&mut session, cancellation("2024-04-15T15:00:00"));
    assert!(matches!(verdict, GateVerdict::Allow { .. }), "{verdict:?}");
    assert!(
        session
            .decided_times()
            .iter()
            .all(|t| *t == Some(at("2024-05-15T15:00:00")))
    );
    let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
    let verdict = last_verdict(&mut session, cancellation("2024-04-15T14:59:59"));
    let GateVerdict::Block {
        explanation,
        reason,
        ..
    } = &verdict
    else {
        panic!("{verdict:?}")
    };
    assert_eq!(*reason, Reason::OutOfWindow, "{explanation}");
    assert!(explanation.contains("2024-04-15T14:59:59"), "{explanation}");
    assert!(explanation.contains("now() - 30 days"), "{explanation}");
}

#[test]
fn a_session_records_its_times_and_restores_with_them() {
    let dir = windowed("domain: domain.yaml\nclock: system");
    let rt = runtime(&dir);
    let events = cancellation("2024-04-20T10:00:00");
    let (before, write) = events.split_at(events.len() - 1);
    let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
    session.set_clock_now(Some(at("2024-05-15T15:00:00")));
    last_verdict(&mut session, before.to_vec());
    let saved = serde_json::to_string(&session.snapshot()).unwrap();
    assert!(saved.contains("\"2024-05-15T15:00:00\""), "{saved}");
    // Restored a month later: the events taken keep their time, the next
    // one is decided on the clock as it is then (past the window).
    let state = SessionState::from_json(&saved).unwrap();
    let mut restored = Session::restore(Arc::clone(&rt), state).unwrap();
    assert_eq!(restored.decided_times(), session.decided_times());
    restored.set_clock_now(Some(at("2024-06-15T15:00:00")));
    session.set_clock_now(Some(at("2024-05-15T15:00:00")));
    let later = last_verdict(&mut restored, write.to_vec());
    let then = last_verdict(&mut session, write.to_vec());
    assert!(matches!(then, GateVerdict::Allow { .. }), "{then:?}");
    assert!(later.is_block(), "{later:?}");
}

#[test]
fn an_event_clock_reads_the_events_times() {
    let dir = windowed("domain: domain.yaml\nclock: event");
    let rt = runtime(&dir);
    let events = cancellation("2024-04-20T10:00:00");
    let n = events.len();
    for (when, allowed) in [
        ("2024-05-15T15:00:00", true),
        ("2024-05-25T15:00:00", false),
    ] {
        let mut session = Session::new(Arc::clone(&rt), Schedule::Workflow);
        let mut last = None;
        for (k, event) in events.iter().enumerate() {
            // Only the first and the write carry a time: it carries forward.
            let time = match k {
                0 => Some(at("2024-05-01T09:00:00")),
                k if k == n - 1 => Some(at(when)),
                _ => None,
            };
            last = Some(
                session
                    .push_at(event.clone(), time, &AssumingJudge)
                    .unwrap()
                    .verdict,
            );
        }
        let last = last.unwrap();
        assert_eq!(
            matches!(last, GateVerdict::Allow { .. }),
            allowed,
            "{when}: {last:?}"
        );
        assert_eq!(session.decided_times()[3], Some(at("2024-05-01T09:00:00")));
    }
}

#[test]
fn a_replay_takes_the_recorded_times_else_now_else_refuses() {
    let dir = windowed("domain: domain.yaml\nclock: system");
    let rt = runtime(&dir);
    let events = cancellation("2024-04-20T10:00:00");
    let judge = AssumingJudge;
    let mut trace = Trace {
        meta: TraceMeta {
            id: "t1".into(),
            ..TraceMeta::default()
        },
        events,
    };
    let replayed = |trace: Trace, now: Option<DateTime>| {
        replay_at(
            &rt,
            &trace,
            Schedule::Workflow,
            &judge,
            Explainer::Monitor,
            now,
        )
    };
    let refused = replayed(trace.clone(), None).unwrap_err();
    assert!(matches!(refused, SessionError::Clock(_)), "{refused}");
    let message = refused.to_string();
    assert!(message.contains("--now"), "{message}");
    assert!(message.contains("`system` clock"), "{message}");
    let within = replayed(trace.clone(), Some(at("2024-05-15T15:00:00"))).unwrap();
    assert!(!within.events.last().unwrap().verdict.is_block());
    // Recorded times win over --now.
    trace.meta.times = vec![Some(at("2024-06-15T15:00:00")); trace.events.len()];
    let recorded = replayed(trace.clone(), Some(at("2024-05-15T15:00:00"))).unwrap();
    assert!(recorded.events.last().unwrap().verdict.is_block());
    // The whole-trace reference reads the same times.
    let decision = decide(&rt.bundle, &trace, &[]).unwrap();
    assert_eq!(
        decision.facts.clock.first().map(|(_, t)| *t),
        Some(at("2024-06-15T15:00:00"))
    );
}

#[test]
fn now_needs_a_clock_and_durations_are_typed() {
    let problems = |clock: &'static str, guard: &'static str| {
        let dir = mutated(&[
            Edit {
                file: "bundle.yaml",
                find: "domain: domain.yaml",
                replace: clock,
            },
            Edit {
                file: "flows/cancel.yaml",
                find: "&& order[args.order_id].status == \"pending\"",
                replace: guard,
            },
        ]);
        match turnstile_engine::bundle::load(&bundle_in(&dir)).map(compile) {
            Ok(Ok(_)) => Vec::new(),
            Ok(Err(problems)) | Err(problems) => problems
                .iter()
                .map(|p| format!("{} {}", p.kind.code(), p.message))
                .collect(),
        }
    };
    let none = problems("domain: domain.yaml", "&& now() > now()");
    assert_eq!(none.len(), 2, "{none:?}");
    assert!(none[0].starts_with("turnstile::no_clock"), "{none:?}");
    let bad = problems(
        "domain: domain.yaml\nclock: fixed tomorrow",
        "&& now() > now()",
    );
    assert_eq!(bad.len(), 1, "one diagnostic for the clock line: {bad:?}");
    assert!(bad[0].starts_with("turnstile::bad_clock"), "{bad:?}");
    let clock = "domain: domain.yaml\nclock: event";
    for (guard, wanted) in [
        ("&& now() - days(30) <= now()", None),
        ("&& now() - hours(24) > date(\"2024-05-01\")", None),
        (
            "&& now() > 5",
            Some("cannot compare a datetime with an integer"),
        ),
        (
            "&& now() - 5 > now()",
            Some("arithmetic needs two numbers, or times and durations"),
        ),
        (
            "&& days(\"x\") > hours(1)",
            Some("a duration counts whole units"),
        ),
        (
            "&& now() - now() > 3",
            Some("cannot compare a duration with an integer"),
        ),
    ] {
        let found = problems(clock, guard);
        match wanted {
            None => assert!(found.is_empty(), "{guard}: {found:?}"),
            Some(text) => assert!(
                found.len() == 1 && found[0].contains(text),
                "{guard}: {found:?}"
            ),
        }
    }
}
