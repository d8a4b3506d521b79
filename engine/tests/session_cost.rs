//! What a session's push costs, counted rather than timed
//! (`Session::work`): only a write the booked verdicts do not allow asks the
//! judge, once, with every question it needs; every other push — guidance,
//! observed turns, allowed writes — asks nothing, replays nothing and hands
//! the judge no turn, however long the conversation; each event is rendered
//! for the judge once and never copied (questions take ranges of the shared
//! list). And the shortcuts must not change anything: after every push that
//! asked or amended, the session's monitor equals a fresh monitor fed the
//! whole conversation with the session's accepted verdicts, on a long
//! synthetic conversation and on every recorded tau2 retail and airline
//! conversation.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[path = "support/tau2.rs"]
mod tau2;

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value as Json, json};
use turnstile_engine::bundle::model::Side;
use turnstile_engine::check_bundle;
use turnstile_engine::extract::Extractor;
use turnstile_engine::import::import_file;
use turnstile_engine::session::{BundleRuntime, GateVerdict, Schedule, Session, SessionWork};
use turnstile_engine::trace::Event;
use turnstile_judge::OfflineJudge;
use turnstile_rules::{EventIdx, Monitor};

fn shop() -> Arc<BundleRuntime> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shop");
    let bundle = check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"));
    BundleRuntime::new(Arc::new(bundle)).unwrap()
}

/// A conversation of about `events` events on the shop fixture: the user
/// is identified, cancels three orders one after the other (the order read,
/// the agent's summary, the user's yes, the cancel), then asks about them
/// until the conversation is long enough, and finally cancels `#OF` after
/// a summary and a yes.
fn long_conversation(events: usize) -> Vec<Event> {
    let mut c = Conversation::identified(&["#O0", "#O1", "#O2", "#OF"]);
    let orders = ["#O0", "#O1", "#O2"];
    for o in orders {
        c.say(true, &format!("Please cancel {o} too."));
        c.cancel(o, true);
    }
    for o in orders.iter().cycle() {
        if c.0.len() + 9 > events {
            break;
        }
        c.say(true, &format!("What is the status of {o} now?"));
        c.read(o, "cancelled");
        c.say(false, &format!("{o} is cancelled."));
    }
    c.cancel("#OF", false);
    c.0
}

/// Events built in order; calls numbered as they are added.
#[derive(Default)]
struct Conversation(Vec<Event>);

impl Conversation {
    /// The user asks to cancel and gives an email; the agent finds the
    /// user `u1`, whose profile lists `orders`.
    fn identified(orders: &[&str]) -> Self {
        let mut c = Conversation::default();
        c.say(
            true,
            "Hi, I'd like to cancel an order. My email is u1@example.com.",
        );
        c.tool(
            "find_user_id_by_email",
            json!({"email": "u1@example.com"}),
            json!("u1"),
        );
        let profile =
            json!({"user_id": "u1", "orders": orders, "payment_methods": {}, "bills": []});
        c.tool("get_user_details", json!({"user_id": "u1"}), profile);
        c
    }

    fn say(&mut self, by_user: bool, text: &str) {
        let text = text.to_owned();
        self.0.push(if by_user {
            Event::User { text }
        } else {
            Event::Agent { text }
        });
    }

    /// An agent call, and its successful result unless `result` is null.
    fn tool(&mut self, tool: &str, args: Json, result: Json) {
        let id = format!("c{}", self.0.len());
        self.0.push(Event::Call {
            id: id.clone(),
            tool: tool.into(),
            args,
            requestor: Side::Agent,
        });
        if !result.is_null() {
            self.0.push(Event::Result {
                id,
                ok: true,
                content: result,
            });
        }
    }

    fn read(&mut self, order: &str, status: &str) {
        let content =
            json!({"order_id": order, "user_id": "u1", "status": status, "total": 10, "items": []});
        self.tool("get_order_details", json!({"order_id": order}), content);
    }

    /// The order read, the summary, the user's yes and the cancel (with its
    /// result when `answered`).
    fn cancel(&mut self, order: &str, answered: bool) {
        self.read(order, "pending");
        self.say(
            false,
            &format!(
                "Order {order}: cancel it with reason 'no longer needed'? Please confirm (yes)."
            ),
        );
        self.say(true, "Yes, please go ahead.");
        let result = if answered {
            json!({"status": "cancelled"})
        } else {
            Json::Null
        };
        let args = json!({"order_id": order, "reason": "no longer needed"});
        self.tool("cancel_pending_order", args, result);
    }
}

fn push(session: &mut Session, event: Event) -> GateVerdict {
    push_report(session, event).verdict
}

fn push_report(session: &mut Session, event: Event) -> turnstile_engine::session::EventReport {
    session.push(event, &OfflineJudge).unwrap()
}

fn minus(a: SessionWork, b: SessionWork) -> SessionWork {
    SessionWork {
        turns_rendered: a.turns_rendered - b.turns_rendered,
        turns_sent: a.turns_sent - b.turns_sent,
        turns_copied: a.turns_copied - b.turns_copied,
        events_replayed: a.events_replayed - b.events_replayed,
        verdicts_amended: a.verdicts_amended - b.verdicts_amended,
        fallback_rounds: a.fallback_rounds - b.fallback_rounds,
        pushes_undone: a.pushes_undone - b.pushes_undone,
        views_rendered: a.views_rendered - b.views_rendered,
        views_reused: a.views_reused - b.views_reused,
        granted_events_pushed: a.granted_events_pushed - b.granted_events_pushed,
    }
}

/// The session's work over the whole conversation, and that of its last
/// push (the final cancel, which follows the user's yes).
fn run(events: &[Event]) -> (SessionWork, SessionWork) {
    let mut session = Session::new(shop(), Schedule::Workflow);
    let (last, prefix) = events.split_last().unwrap();
    for event in prefix {
        let verdict = push(&mut session, event.clone());
        assert!(!verdict.is_block(), "{verdict:?}");
    }
    let before = session.work();
    let verdict = push(&mut session, last.clone());
    assert!(
        matches!(verdict, GateVerdict::Allow { .. }),
        "the final cancel is allowed: {verdict:?}"
    );
    (session.work(), minus(session.work(), before))
}

#[test]
fn deciding_the_last_call_costs_the_same_at_100_and_1000_events() {
    let short = long_conversation(100);
    let long = long_conversation(1_000);
    assert!(
        short.len() <= 100 && long.len() > 990,
        "{} {}",
        short.len(),
        long.len()
    );
    let (short_total, short_last) = run(&short);
    let (long_total, long_last) = run(&long);

    // Each event is rendered for the judge once over the session, as it
    // arrives, and never copied: questions take ranges of the shared list.
    assert_eq!(short_total.turns_rendered, short.len() as u64);
    assert_eq!(long_total.turns_rendered, long.len() as u64);
    assert_eq!(long_last.turns_rendered, 1);
    assert_eq!(long_total.turns_copied, 0, "{long_total:?}");
    // The last push is a write blocked at the unjudged confirmation: it
    // asks, and the confirmation in the latest turn amends the monitor.
    assert!(long_last.verdicts_amended >= 1, "{long_last:?}");
    // It goes back to the event before the write by undoing the write's
    // push, not by replaying the conversation.
    assert_eq!(long_last.pushes_undone, 1, "{long_last:?}");
    assert_eq!(long_last.events_replayed, 0, "{long_last:?}");
    assert_eq!(short_last.events_replayed, 0, "{short_last:?}");
    assert_eq!(long_last.verdicts_amended, short_last.verdicts_amended);
    // Every question it needed was in its first call.
    assert_eq!(long_total.fallback_rounds, 0, "{long_total:?}");
    assert_eq!(long_last.turns_rendered, short_last.turns_rendered);
}

/// The request views a firing reports are rendered only for the requests
/// whose view can have changed: over a long conversation most firings
/// reuse every view, and the views rendered per firing do not grow with
/// the conversation (a regression to rendering every request at every
/// firing fails here).
#[test]
fn request_views_are_rendered_again_only_when_they_can_change() {
    let per_firing = |events: usize| {
        let conversation = long_conversation(events);
        let mut session = Session::new(shop(), Schedule::Workflow);
        let mut firings = 0u64;
        for event in conversation {
            let report = push_report(&mut session, event);
            firings += u64::from(report.fired);
        }
        let work = session.work();
        assert!(
            work.views_reused > work.views_rendered,
            "{events} events: {work:?}"
        );
        (work.views_rendered as f64 / firings as f64, work)
    };
    let (short, short_work) = per_firing(100);
    let (long, long_work) = per_firing(1_000);
    assert!(
        long <= short * 1.5,
        "views rendered per firing grew: {short} at 100 events ({short_work:?}), {long} at 1,000 ({long_work:?})"
    );
}

/// Counts the judge's batches, with the questions of each.
#[derive(Default)]
struct CountingJudge(std::sync::Mutex<Vec<Vec<String>>>);

impl turnstile_judge::SyncJudge for CountingJudge {
    fn name(&self) -> &str {
        "counting-offline"
    }

    fn judge_batch(
        &self,
        requests: &[turnstile_judge::JudgeRequest],
    ) -> Vec<turnstile_judge::Judgement> {
        self.0
            .lock()
            .unwrap()
            .push(requests.iter().map(|r| r.node_id.clone()).collect());
        turnstile_judge::SyncJudge::judge_batch(&OfflineJudge, requests)
    }
}

/// Only a write that the verdicts already booked do not allow asks the
/// judge; every other push of a long conversation — guidance, observed
/// turns and results, an allowed write — asks nothing, replays nothing and
/// sends no turn, however long the conversation: a regression to asking
/// (or rendering, copying, replaying) at every event fails here.
#[test]
fn only_a_write_that_needs_an_answer_asks_the_judge() {
    let events = long_conversation(1_000);
    let judge = CountingJudge::default();
    let mut session = Session::new(shop(), Schedule::Workflow);
    let mut asking = Vec::new();
    for (index, event) in events.iter().enumerate() {
        let calls_before = judge.0.lock().unwrap().len();
        let before = session.work();
        let report = session.push(event.clone(), &judge).unwrap();
        let work = minus(session.work(), before);
        let calls = judge.0.lock().unwrap().len() - calls_before;
        assert!(
            !report.verdict.is_block(),
            "event {index}: {:?}",
            report.verdict
        );
        if calls == 0 {
            assert!(report.judge.is_empty(), "event {index}");
            assert_eq!(
                (work.turns_sent, work.turns_copied, work.events_replayed),
                (0, 0, 0),
                "event {index} ({}): {work:?}",
                report.kind
            );
            assert_eq!(work.turns_rendered, 1, "event {index}");
        } else {
            assert!(report.mutating, "event {index} ({}) asked", report.kind);
            // One call per write: the confirmation a classification would
            // open next was asked with it.
            assert_eq!(calls, 1, "event {index}: {:?}", judge.0.lock().unwrap());
            asking.push(index);
        }
    }
    // The four cancels, each right after the user's yes.
    assert_eq!(asking.len(), 4, "{asking:?}");
    let batches = judge.0.lock().unwrap();
    assert!(
        batches[0].iter().any(|n| n == "classify")
            && batches[0].iter().any(|n| n == "cancel.confirm"),
        "the first cancel asks the classification and the confirmation together: {:?}",
        batches[0]
    );
    assert_eq!(session.work().fallback_rounds, 0);
    assert_eq!(session.work().turns_copied, 0);
}

/// The session's monitor against a fresh one fed every event with the
/// session's accepted verdicts, at the times the session decided them.
fn assert_same_as_replayed(rt: &Arc<BundleRuntime>, session: &Session, at: &str) {
    let bundle = &rt.bundle;
    let judged = session.judged();
    let times = session.decided_times();
    let mut extractor = Extractor::new(bundle);
    let mut reference = Monitor::new(Arc::clone(&rt.plan));
    for (index, past) in session.events().iter().enumerate() {
        let k = EventIdx::from_usize(index);
        let mut facts = extractor.event(bundle, k, past).facts;
        facts.now = times.get(index).copied().flatten();
        let now: Vec<_> = judged
            .iter()
            .filter(|(_, _, e)| *e == k)
            .map(|(s, env, _)| (*s, *env))
            .collect();
        reference.push(&facts, &now).unwrap();
    }
    let monitor = session.monitor();
    assert_eq!(monitor.sat(), reference.sat(), "{at}: sat");
    assert_eq!(monitor.evidence(), reference.evidence(), "{at}: evidence");
    assert_eq!(monitor.allowed(), reference.allowed(), "{at}: allowed");
    assert_eq!(monitor.waiting(), reference.waiting(), "{at}: waiting");
    assert!(
        *monitor == reference,
        "{at}: the whole monitor state (values read, pending requests)"
    );
}

/// Pushes `events` through a session, comparing its monitor with a replayed
/// one after every push that asked the judge or amended the monitor
/// (`every`: after every push), and at the end. Returns the verdicts
/// amended and the pushes that asked the judge.
fn same_as_replayed(
    rt: &Arc<BundleRuntime>,
    events: &[Event],
    what: &str,
    every: bool,
) -> (u64, u64) {
    let mut session = Session::new(Arc::clone(rt), Schedule::Workflow);
    let mut asked = 0;
    for (index, event) in events.iter().enumerate() {
        let before = session.work();
        let report = push_report(&mut session, event.clone());
        let amended = session.work().verdicts_amended > before.verdicts_amended;
        asked += u64::from(!report.judge.is_empty());
        if every || amended || !report.judge.is_empty() || index + 1 == events.len() {
            assert_same_as_replayed(rt, &session, &format!("{what}, after event {index}"));
        }
    }
    (session.work().verdicts_amended, asked)
}

#[test]
fn an_amended_monitor_equals_a_replayed_one_on_a_long_conversation() {
    let rt = shop();
    let events = long_conversation(120);
    assert_eq!(
        Session::new(Arc::clone(&rt), Schedule::Workflow).work(),
        SessionWork::default()
    );
    let (amended, _) = same_as_replayed(&rt, &events, "shop", true);
    // The conversation exercises the shortcut: its four confirmations amend.
    assert!(amended >= 4, "{amended}");
}

#[test]
fn an_amended_monitor_equals_a_replayed_one_on_real_conversations() {
    // Consent is decided by code in these bundles, so a write's questions
    // mostly cite earlier events (a classification, a stated reason) and
    // are replayed rather than amended; every asking push is compared.
    let mut asked = 0;
    for (domain, bundle) in [("retail", "retail"), ("airline", "airline")] {
        let rt = BundleRuntime::new(Arc::new(tau2::shipped_bundle(bundle))).unwrap();
        for path in tau2::domain_trace_files(domain) {
            for trace in import_file(&path, None).unwrap().traces {
                let what = tau2::trace_stem(&path);
                asked += same_as_replayed(&rt, &trace.events, &what, false).1;
            }
        }
    }
    assert!(asked > 0, "no real conversation asked the judge");
}

/// A conversation of about `events` events on the shop fixture in which
/// the agent cancels three pending orders without asking (each a write that
/// fails on consent alone), then one order that is no longer pending.
fn unasked_cancels(events: usize) -> Vec<Event> {
    let mut c = Conversation::identified(&["#P0", "#P1", "#P2", "#P3", "#P4"]);
    while c.0.len() + 3 + 4 * 4 <= events {
        c.say(true, "What is the status of #P0 now?");
        c.read("#P0", "pending");
        c.say(false, "#P0 is pending.");
    }
    for (order, status) in [
        ("#P1", "pending"),
        ("#P2", "pending"),
        ("#P3", "pending"),
        ("#P4", "processed"),
    ] {
        c.read(order, status);
        c.say(false, &format!("Cancelling {order} now."));
        let args = json!({"order_id": order, "reason": "no longer needed"});
        c.tool("cancel_pending_order", args, Json::Null);
    }
    c.0
}

/// What the four cancels of [`unasked_cancels`] were answered, each with
/// the events the session pushed into the consent-granted monitors for it.
fn cancels_and_granted_pushes(events: &[Event]) -> Vec<(GateVerdict, u64)> {
    let mut session = Session::new(shop(), Schedule::Workflow);
    let mut cancels = Vec::new();
    for event in events {
        let is_cancel = matches!(event, Event::Call { tool, .. } if tool == "cancel_pending_order");
        let before = session.work();
        let verdict = push(&mut session, event.clone());
        if is_cancel {
            let pushed = minus(session.work(), before).granted_events_pushed;
            cancels.push((verdict, pushed));
        }
    }
    cancels
}

/// Whether a blocked write fails on consent alone is decided in the
/// workflow with consent granted, over the whole log; its monitor is kept
/// between blocks, so a block pushes into it only the events since the
/// previous one, however long the conversation; and a write refused on
/// facts no consent reads (an order no longer pending) pushes nothing. A
/// regression to replaying the conversation at every block fails here.
#[test]
fn a_block_replays_only_the_events_since_the_previous_one() {
    let short = unasked_cancels(100);
    let long = unasked_cancels(1_000);
    assert!(long.len() > 990, "{}", long.len());
    let short = cancels_and_granted_pushes(&short);
    let long = cancels_and_granted_pushes(&long);
    for (verdict, _) in short.iter().chain(&long).take(3) {
        assert!(
            matches!(verdict, GateVerdict::Confirm { .. }),
            "an unasked cancel of a pending order is held for confirmation: {verdict:?}"
        );
    }
    let (refused, _) = &long[3];
    assert!(
        matches!(refused, GateVerdict::Block { .. }),
        "a cancel of a processed order is blocked: {refused:?}"
    );
    // The first block replays the conversation so far.
    assert!(long[0].1 > 900, "{long:?}");
    // Each later one: the previous cancel, the order read and its result,
    // the agent's message and the cancel itself.
    let later: Vec<u64> = long[1..].iter().map(|(_, pushed)| *pushed).collect();
    assert_eq!(later, [5, 5, 0], "{long:?}");
    assert_eq!(
        later,
        short[1..]
            .iter()
            .map(|(_, pushed)| *pushed)
            .collect::<Vec<_>>()
    );
}
