//! A blind suite of cancellation reasons, written before the airline
//! bundle's `cancel.reason` criterion was widened, from domains the bundles
//! do not ship (hotel rooms, concert tickets, rental cars, courses, gyms,
//! events): a user asking to cancel and saying why, in words nobody tuned
//! on, and a user asking to cancel without saying why. The policy accepts
//! any reason (airline `policy.md:139`, "change of plan, airline cancelled
//! flight, or other reasons"; within 24 hours of booking, `:144`), but the
//! reason must be obtained: the offline judge's reading of the criterion,
//! with the bundle's own keywords, must tell the two apart.
//!
//! Figures on the first run (the bundle's keywords before the change) and
//! after are in `bundles/README.md`, apart from the airline cases that
//! motivated the change (`engine/tests/blind_airline.rs`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use turnstile_engine::check_bundle;
use turnstile_judge::{
    Conversation, JudgeRequest, OfflineJudge, Question, Role, SyncJudge, Turn, Verdict,
};

/// A user turn that gives a reason for cancelling.
const REASONS: &[&str] = &[
    "I need to cancel the hotel room, my conference got moved to next month.",
    "Cancel my concert ticket please, I came down with the flu.",
    "We're not going to make it to the wedding anymore, so please cancel the rental car.",
    "I booked the wrong weekend by accident.",
    "My manager rescheduled the offsite, so the trip is off.",
    "I found a cheaper option elsewhere.",
    "Honestly I just changed my mind.",
    "My visa application was denied, so I can't go.",
    "There's a transit strike that day.",
    "My daughter is in the hospital.",
    "The event itself was called off by the organizers.",
    "I double-booked by mistake.",
    "We decided to stay home this year.",
    "Work got in the way, I can't get time off.",
    "The forecast says a big snowstorm is coming.",
    "Please cancel the room since my plans fell through.",
    "Because the course was moved online, I won't need the dorm room.",
    "I picked the wrong date when I booked.",
    "Money is tight right now, I have to cancel the membership.",
    "My passport expired and won't be renewed in time.",
    "Personal reasons, I'd rather not go into it.",
    "Due to a family emergency I have to cancel.",
    "The venue is too far from where we're staying now.",
    "My friend who was coming with me dropped out.",
];

/// A user turn that asks to cancel without giving a reason.
const NO_REASON: &[&str] = &[
    "Please cancel my reservation.",
    "I'd like to cancel booking 4471.",
    "Can you cancel it for me?",
    "Cancel the room, thanks.",
    "I want a refund for the ticket.",
    "Cancel it.",
    "What's your cancellation policy?",
    "Yes, cancel it.",
    "Hi, I need help with a cancellation.",
    "I'd rather not say why, just cancel it please.",
];

/// Reasons written after the keywords were widened, without looking at
/// them again: what the keyword reading still misses (the `#[ignore]`d test
/// fails while any is missed; a model judge reads these).
const PROBES: &[&str] = &[
    "My sister's due date moved up and I need to be here.",
    "The hotel we wanted is fully booked.",
    "I got a better offer from another company.",
    "Turns out the conference is virtual this year.",
    "My kid has a school thing that week.",
    "The dates don't work for us.",
    "I'm moving abroad next month.",
    "My dog got sick.",
    "We're expecting a baby around then.",
    "Just not feeling up to travelling.",
];

/// The airline bundle's `cancel.reason` question and keywords.
fn reason_question() -> Question {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bundles/airline");
    let bundle = check_bundle(&dir).unwrap_or_else(|p| panic!("{p}"));
    let node = bundle
        .workflow
        .node("cancel.reason")
        .expect("the airline cancel flow asks for the reason");
    Question::Criterion {
        text: node.criterion.judge.clone().expect("a judge question"),
        keywords: node.criterion.keywords.clone(),
        said_by: Role::User,
        key_values: Vec::new(),
    }
}

/// Whether the offline judge finds the reason given in `turn`.
fn gives_reason(question: &Question, turn: &str) -> bool {
    let request = JudgeRequest {
        bundle_hash: String::new(),
        node_id: "cancel.reason".to_owned(),
        question: question.clone(),
        policy_excerpt: None,
        bindings: Default::default(),
        conversation: Conversation::from(vec![Turn::new(0, Role::User, turn)]),
    };
    OfflineJudge
        .judge_batch(std::slice::from_ref(&request))
        .iter()
        .all(|j| matches!(j.verdict, Verdict::Satisfied { .. }))
}

#[test]
fn any_reason_is_a_reason_and_none_is_none() {
    let question = reason_question();
    let mut missed = Vec::new();
    for turn in REASONS {
        if !gives_reason(&question, turn) {
            missed.push(format!("no reason read in {turn:?}"));
        }
    }
    for turn in NO_REASON {
        if gives_reason(&question, turn) {
            missed.push(format!("a reason read in {turn:?}"));
        }
    }
    println!(
        "{} of {} reasons read, {} of {} requests without one read as none",
        REASONS.len() - missed.iter().filter(|m| m.starts_with("no")).count(),
        REASONS.len(),
        NO_REASON.len() - missed.iter().filter(|m| m.starts_with("a ")).count(),
        NO_REASON.len()
    );
    assert!(missed.is_empty(), "{missed:#?}");
}

#[test]
#[ignore = "what the keyword reading still misses"]
fn probes_written_after_the_widening() {
    let question = reason_question();
    let mut missed = Vec::new();
    for turn in PROBES {
        if !gives_reason(&question, turn) {
            missed.push(*turn);
        }
    }
    println!(
        "{} of {} probes read as reasons",
        PROBES.len() - missed.len(),
        PROBES.len()
    );
    assert!(missed.is_empty(), "{missed:#?}");
}
