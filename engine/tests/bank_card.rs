//! A bank's card-support policy (`fixtures/bank-card/policy.md`), written as
//! a bundle from its policy and its API alone: every rule of it stated and
//! decided. Reads wait for the customer's authentication and are the
//! customer's own; "within 60 days of today" is read off the clock; limits
//! at most double and never above 20,000; a card frozen as stolen is never
//! unfrozen; a dispute is of an undisputed transaction, for at most its
//! amount; one customer per conversation. The conversations are
//! `fixtures/bank-card/tests/conversations.jsonl`, decided on 2026-10-02 at
//! noon (`--now`), each ending with the call under test.
//!
//! The consent conversations name the card the way a bank does ("your card
//! ending 4821") or use the bank's verbs (unfreeze, dispute, raise,
//! increase), with the card named by its alias (`aliases: [last4]`), by
//! being the only card in play, or among two cards the question picks from.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::Path;
use std::sync::Arc;

use turnstile_engine::check_bundle;
use turnstile_engine::import::import_file;
use turnstile_engine::session;
use turnstile_engine::session::{BundleRuntime, EventReport, Explainer, GateVerdict, Schedule};
use turnstile_engine::trace::Trace;
use turnstile_judge::OfflineJudge;
use turnstile_rules::{DateTime, Reason};

fn bundle_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank-card")
}

fn runtime() -> Arc<BundleRuntime> {
    let bundle = check_bundle(&bundle_dir()).unwrap_or_else(|p| panic!("{p}"));
    BundleRuntime::new(Arc::new(bundle)).unwrap()
}

fn conversations() -> Vec<Trace> {
    let imported = import_file(&bundle_dir().join("tests/conversations.jsonl"), None).unwrap();
    assert!(imported.errors.is_empty(), "{:?}", imported.errors);
    imported.traces
}

fn today() -> DateTime {
    DateTime::parse("2026-10-02T12:00:00").unwrap()
}

/// `trace` replayed under the workflow schedule with the offline judge,
/// decided at `now` (`None`: the trace's own times, else refused).
fn replay_at(
    rt: &Arc<BundleRuntime>,
    trace: &Trace,
    explainer: Explainer,
    now: Option<DateTime>,
) -> Result<Vec<EventReport>, String> {
    session::replay_at(
        rt,
        trace,
        Schedule::Workflow,
        &OfflineJudge::new(),
        explainer,
        now,
    )
    .map(|replay| replay.events)
    .map_err(|e| e.to_string())
}

/// Every event's report, decided at noon on 2026-10-02.
fn replayed(rt: &Arc<BundleRuntime>, trace: &Trace, explainer: Explainer) -> Vec<EventReport> {
    replay_at(rt, trace, explainer, Some(today())).unwrap()
}

/// What the call under test (the conversation's last event) gets today.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Today {
    Allow,
    /// Blocked with this reason at this step (`None`: a block no step
    /// explains, a protected read's guard).
    Block(Reason, Option<String>),
    /// Blocked only because the customer's yes was not read as consent:
    /// every formal condition holds.
    OnlyConsent,
    /// Held for the customer's confirmation: every formal condition holds,
    /// the consent is unread.
    Confirm,
}

fn expected(id: &str) -> Today {
    use Reason::*;
    use Today::Allow;
    #[allow(non_snake_case)]
    let Block = |reason, step: Option<&str>| Today::Block(reason, step.map(str::to_owned));
    match id {
        "read-before-authentication" | "listing-before-authentication" => {
            Block(NotIdentified, Some("identify.by_card"))
        }
        "another-customers-card" | "another-customers-profile" => Block(Ungrounded, None),
        "freeze-stolen" | "consent-raise-by-id" | "consent-increase-by-id" => Allow,
        // A plain yes to a question naming the action in the bundle's own
        // words and the card by its id.
        "consent-unfreeze-by-id"
        | "consent-dispute-by-id"
        | "unfreeze-lost"
        | "dispute-recent"
        | "dispute-day-60"
        | "raise-double"
        | "raise-to-the-cap" => Allow,
        "freeze-frozen" => Block(WrongValue, Some("freeze.status[active]")),
        "unfreeze-stolen" => Block(WrongValue, Some("unfreeze.frozen[unfreezable]")),
        "dispute-too-old" => Block(OutOfWindow, Some("dispute.authorize")),
        "dispute-twice" => Block(WrongValue, Some("dispute.authorize")),
        "dispute-more-than-charged" => Block(AmountOutOfBounds, Some("dispute.authorize")),
        "raise-more-than-double" | "raise-over-the-cap" => {
            Block(AmountOutOfBounds, Some("raise_limit.authorize"))
        }
        "raise-frozen" => Block(WrongValue, Some("raise_limit.authorize")),
        "second-customer" => Block(Ungrounded, Some("freeze.read_card")),
        // An unrequested hand-off, also in the middle of another request, is
        // explained at the hand-off's own classification.
        "unrequested-transfer" | "unrequested-transfer-mid-freeze" => {
            Block(DialogueUnmet, Some("classify[transfer]"))
        }
        // The card named by its last four digits (`aliases: [last4]`).
        "consent-freeze-by-last4"
        | "consent-unfreeze-by-last4"
        | "alias-two-cards-freeze-named" => Allow,
        // The yes answered a request to freeze the other card: a refusal
        // of this call.
        "alias-two-cards-freeze-the-other" => Today::OnlyConsent,
        // Two cards in play and the question names neither.
        "in-play-two-cards-unnamed" => Today::Confirm,
        // The only card in play: the question refers to it.
        "in-play-one-card-unnamed" => Allow,
        // The question proposed not doing it.
        "in-play-one-card-hold-off" => Today::Confirm,
        // The reason is the customer's: said in their words (the
        // conversations above: "stolen"), or stated in the summary they said
        // yes to; neither, and the call waits for a confirmation naming it.
        "reason-stated-in-summary" => Allow,
        "reason-unstated-and-unsaid" => Today::Confirm,
        // The summary said another reason: the yes agreed to that call, and
        // the customer never said the call's.
        "reason-differs-from-summary" => Block(DialogueUnmet, Some("freeze.authorize")),
        other => panic!("no expectation for conversation {other}"),
    }
}

fn today_of(report: &EventReport) -> Today {
    match &report.verdict {
        GateVerdict::Allow { .. } => Today::Allow,
        GateVerdict::Block {
            reason: Reason::DialogueUnmet,
            explanation,
            step,
            ..
        } if step.as_deref().is_some_and(|s| s.ends_with(".authorize"))
            && explanation
                .lines()
                .filter(|l| l.trim_start().starts_with("failed:"))
                .all(|l| l.contains("confirmed(")) =>
        {
            Today::OnlyConsent
        }
        GateVerdict::Block { reason, step, .. } => Today::Block(*reason, step.clone()),
        GateVerdict::Confirm { .. } => Today::Confirm,
        other => panic!("the call under test got {other:?}"),
    }
}

#[test]
fn every_rule_of_the_policy_is_decided() {
    let rt = runtime();
    let traces = conversations();
    assert_eq!(traces.len(), 35);
    let mut wrong = Vec::new();
    for trace in &traces {
        let reports = replayed(&rt, trace, Explainer::Monitor);
        let last = reports
            .iter()
            .rev()
            .find(|r| r.kind.starts_with("call"))
            .unwrap();
        let (got, want) = (today_of(last), expected(&trace.meta.id));
        if got != want {
            wrong.push(format!("{}: got {got:?}, expected {want:?}", trace.meta.id));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn the_reference_program_explains_every_block_the_same_way() {
    let rt = runtime();
    for trace in conversations() {
        let monitor = replayed(&rt, &trace, Explainer::Monitor);
        let datalog = replayed(&rt, &trace, Explainer::Datalog);
        for (m, d) in monitor.iter().zip(&datalog) {
            assert_eq!(m.verdict, d.verdict, "{} event {}", trace.meta.id, m.event);
        }
    }
}

/// A failed condition shows the values it compared, whatever their type: a
/// bool read (`disputed`), an enum, an amount and its bound.
#[test]
fn a_failed_condition_shows_every_value_it_read() {
    let rt = runtime();
    let traces = conversations();
    for (id, shown) in [
        (
            "dispute-twice",
            "failed: !(transaction[args.transaction_id].disputed == true)\n    \
             transaction[args.transaction_id].disputed = true (read at event 7)",
        ),
        (
            "unfreeze-stolen",
            "card[$card].freeze_reason = \"stolen\" (read at event 7)",
        ),
        (
            "dispute-more-than-charged",
            "args.amount = 300\n    transaction[args.transaction_id].amount = 120 (read at event 7)",
        ),
    ] {
        let trace = traces.iter().find(|t| t.meta.id == id).unwrap();
        for explainer in [Explainer::Monitor, Explainer::Datalog] {
            let last = replayed(&rt, trace, explainer).pop().unwrap();
            let GateVerdict::Block { explanation, .. } = &last.verdict else {
                panic!("{id}: {:?}", last.verdict)
            };
            assert!(explanation.contains(shown), "{id}: {explanation}");
        }
    }
}

#[test]
fn reads_wait_for_the_authentication_and_are_the_customers_own() {
    let rt = runtime();
    let traces = conversations();
    let by_id = |id: &str| traces.iter().find(|t| t.meta.id == id).unwrap();
    // Before the lookup: blocked, with the protection's remediation.
    let reports = replayed(&rt, by_id("read-before-authentication"), Explainer::Monitor);
    let GateVerdict::Block {
        remediation,
        explanation,
        ..
    } = &reports[1].verdict
    else {
        panic!("{:?}", reports[1].verdict)
    };
    assert!(
        remediation
            .as_deref()
            .unwrap()
            .starts_with("Authenticate the customer first"),
        "{remediation:?}"
    );
    assert!(
        explanation.contains("get_card blocked (NotIdentified)"),
        "{explanation}"
    );
    // Its result still counts as read: the card's status is a fact.
    let decision =
        turnstile_engine::decide::decide(&rt.bundle, by_id("read-before-authentication"), &[])
            .unwrap();
    assert!(
        decision
            .facts
            .attrs
            .iter()
            .any(|a| decision.facts.interner.resolve(a.id) == "CARD-7731"),
        "the blocked read's result is in the facts"
    );
    assert_eq!(
        decision.derived.violations.first().map(|v| v.reason),
        Some(Reason::NotIdentified)
    );
    // A second customer authenticated in the same conversation opens no
    // request of their own: their profile and cards stay closed.
    let reports = replayed(&rt, by_id("second-customer"), Explainer::Monitor);
    let blocked: Vec<(usize, Reason)> = reports
        .iter()
        .filter_map(|r| match &r.verdict {
            GateVerdict::Block { reason, .. } => Some((r.event.as_usize(), *reason)),
            _ => None,
        })
        .collect();
    assert_eq!(
        blocked,
        vec![
            (8, Reason::Ungrounded),
            (10, Reason::Ungrounded),
            (14, Reason::Ungrounded)
        ]
    );
}

#[test]
fn within_60_days_of_today_is_decided_on_the_clock() {
    let rt = runtime();
    assert_eq!(
        rt.bundle.clock,
        Some(turnstile_engine::clock::Clock::System)
    );
    let traces = conversations();
    let day_60 = traces
        .iter()
        .find(|t| t.meta.id == "dispute-day-60")
        .unwrap();
    let at = |now: &str| {
        replay_at(
            &rt,
            day_60,
            Explainer::Monitor,
            Some(DateTime::parse(now).unwrap()),
        )
        .unwrap()
        .pop()
        .unwrap()
    };
    // The 60th day holds all day; three days later it does not.
    assert_eq!(today_of(&at("2026-10-02T23:59:59")), Today::Allow);
    let later = at("2026-10-05T09:00:00");
    assert_eq!(
        today_of(&later),
        Today::Block(Reason::OutOfWindow, Some("dispute.authorize".to_owned()))
    );
    let GateVerdict::Block { explanation, .. } = &later.verdict else {
        unreachable!()
    };
    assert!(
        explanation
            .contains("transaction[args.transaction_id].date = 2026-08-03 (read at event 7)"),
        "{explanation}"
    );
    assert!(
        explanation.contains("now() - 60 days = 2026-08-06T09:00:00"),
        "{explanation}"
    );
    // No time, no --now: the system clock's trace is refused, saying what to give.
    let refused = replay_at(&rt, day_60, Explainer::Monitor, None).unwrap_err();
    assert!(refused.contains("--now"), "{refused}");
}

#[test]
fn a_blocked_read_is_a_violation_in_the_audit() {
    use turnstile_engine::audit::{
        AuditPlan, JudgeMode, TraceOptions, TraceSource, TraceVerdict, audit_trace,
    };
    let rt = runtime();
    let plan = AuditPlan::new(Arc::clone(&rt), JudgeMode::Judged).with_now(Some(today()));
    let trace = conversations()
        .into_iter()
        .find(|t| t.meta.id == "read-before-authentication")
        .unwrap();
    let report = audit_trace(
        &plan,
        trace,
        &TraceSource::default(),
        &OfflineJudge::new(),
        TraceOptions::default(),
    )
    .unwrap();
    assert_eq!(report.verdict, TraceVerdict::Violation);
    let first = report.first_deviation.unwrap();
    assert_eq!(first.reason, "not_identified");
    assert_eq!(first.call, "call get_card");
    assert!(first.executed, "the read ran: its result counts");
}

/// The coverage analysis and the session agree on the protected reads: the
/// analysis' read deviations (before the authentication; a card or profile
/// not the customer's) are what the session blocks, and no action-only
/// guard covers them. Every read deviation's witness, replayed under each
/// schedule, shows exactly the predicted deviation.
#[test]
fn every_read_deviation_of_the_analysis_is_a_block_of_the_session() {
    use turnstile_engine::coverage::witness::{Builder, WitnessError};
    use turnstile_engine::coverage::{AgentClass, Why, analyze};
    let rt = runtime();
    let analysis = analyze(&rt.bundle);
    let reads: Vec<_> = analysis
        .deviations
        .iter()
        .filter(|d| matches!(d.class, AgentClass::Read(_)))
        .collect();
    let why = |w: Why| reads.iter().filter(|d| d.why == w).count();
    assert!(
        why(Why::NotIdentified) > 0 && why(Why::GuardFails) > 0,
        "{reads:?}"
    );
    assert!(reads.iter().all(|d| !d.covered_by(Schedule::Action)));
    let mut builder = Builder::new(Arc::clone(&rt), &analysis);
    let (mut confirmed, mut not_realised) = (0, 0);
    for d in &reads {
        match builder.witness(d) {
            Ok(_) => confirmed += 1,
            Err(WitnessError::Unrealised { .. } | WitnessError::Overtaken { .. }) => {
                not_realised += 1
            }
            Err(e) => panic!("{e} for {d:?}"),
        }
    }
    assert!(
        confirmed * 10 >= reads.len() * 9,
        "{confirmed} of {} read witnesses confirmed ({not_realised} not realised)",
        reads.len()
    );
}
