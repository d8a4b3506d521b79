//! The session's byte cap, now counted without building each event's JSON
//! (`Event::json_size`): the count equals the serialized length on every
//! event of every vendored tau2 trace (results parsed and unparsed) and on
//! text that needs escaping, and a conversation that reaches the cap is
//! refused exactly where it was before — one byte over is refused, exactly
//! at the cap is not.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "support/tau2.rs"]
mod tau2;

use std::sync::Arc;

use serde_json::json;
use turnstile_engine::import::{ResultContent, TraceReader};
use turnstile_engine::session::{BundleRuntime, GateVerdict, Schedule, Session, SessionLimits};
use turnstile_engine::trace::Event;
use turnstile_judge::OfflineJudge;
use turnstile_rules::Reason;

fn serialized_len(event: &Event) -> usize {
    serde_json::to_vec(event).unwrap().len()
}

#[test]
fn the_counted_size_is_the_serialized_length_on_every_tau2_event() {
    let mut events = 0;
    for domain in ["retail", "airline", "telecom"] {
        for file in tau2::domain_trace_files(domain) {
            for results in [ResultContent::Parsed, ResultContent::Raw] {
                let reader = TraceReader::open(&file, None)
                    .unwrap()
                    .with_result_content(results);
                for trace in reader {
                    for event in trace.unwrap().events {
                        assert_eq!(event.json_size(), serialized_len(&event), "{event:?}");
                        events += 1;
                    }
                }
            }
        }
    }
    assert!(events > 10_000, "only {events} events read");
}

#[test]
fn the_counted_size_is_the_serialized_length_of_text_that_needs_escaping() {
    let texts = [
        "",
        "plain",
        "quote \" backslash \\ slash /",
        "controls \u{0} \u{1f} \t \n \r \u{8} \u{c} \u{7f}",
        "unicode é — 😀 \u{2028}",
    ];
    for text in texts {
        let events = [
            Event::User {
                text: text.to_owned(),
            },
            Event::Call {
                id: text.to_owned(),
                tool: "t".to_owned(),
                args: json!({ text: [text, 1.5e300, -0.0, 12, null, true] }),
                requestor: turnstile_engine::bundle::model::Side::User,
            },
            Event::Result {
                id: "c".to_owned(),
                ok: false,
                content: json!(text),
            },
        ];
        for event in events {
            assert_eq!(event.json_size(), serialized_len(&event), "{event:?}");
        }
    }
}

/// The verdict of the last event of `events` pushed through a retail
/// session whose byte cap is `max_bytes`.
fn last_verdict(events: &[Event], max_bytes: usize) -> GateVerdict {
    let rt = BundleRuntime::new(Arc::new(tau2::shipped_bundle("retail"))).unwrap();
    let limits = SessionLimits {
        max_events: 1_000,
        max_bytes,
    };
    let mut session = Session::with_limits(rt, Schedule::Workflow, limits);
    let mut last = None;
    for event in events {
        let report = session.push(event.clone(), &OfflineJudge).unwrap();
        last = Some(report.verdict);
    }
    last.unwrap()
}

#[test]
fn a_conversation_over_the_byte_cap_is_refused_and_one_at_it_is_not() {
    let events = vec![
        Event::User {
            text: "Please cancel my order \"#W1\" — it was a mistake.".to_owned(),
        },
        Event::Agent {
            text: "Sure, let me look it up.".to_owned(),
        },
        Event::Call {
            id: "c1".to_owned(),
            tool: "get_order_details".to_owned(),
            args: json!({"order_id": "#W1"}),
            requestor: turnstile_engine::bundle::model::Side::Agent,
        },
    ];
    let total: usize = events.iter().map(serialized_len).sum();
    let full = |verdict: &GateVerdict| {
        matches!(
            verdict,
            GateVerdict::Block {
                reason: Reason::SessionFull,
                ..
            }
        )
    };
    let over = last_verdict(&events, total - 1);
    assert!(full(&over), "one byte over the cap: {over:?}");
    let at = last_verdict(&events, total);
    assert!(!full(&at), "exactly at the cap: {at:?}");
}
