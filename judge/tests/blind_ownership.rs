//! A blind suite of ownership denial, written before the rule
//! (`turnstile_judge::dialogue::Disowning`) from domains no shipped bundle
//! covers: bank cards, IT help desks, utilities, libraries, patient
//! portals, insurance, car rental, gyms, universities. Each case is a user
//! turn, the id it names (or the id the agent's turn before it named), and
//! whether the user denies the id is theirs. A denial is a refusal of the
//! id: an identification step taking it as the user's words fails.
//!
//! The first run of the rule, as written here, is reported in
//! `bundles/README.md` ("Identity from the user"); a case the rule gets
//! wrong goes in `FOUND_WRONG` (none is), whose `#[ignore]`d test fails
//! while one is there.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use turnstile_judge::dialogue::{Disowning, asks_ownership};

/// `(user turn, id it names, the user denies the id is theirs)`.
type Named = (&'static str, &'static str, bool);

/// The user names the id and denies it is theirs.
const DENIES: &[Named] = &[
    ("Card 4421-7781 is not mine.", "4421-7781", true),
    (
        "That policy number, POL-55102, isn't mine. I've never had car insurance with you.",
        "POL-55102",
        true,
    ),
    ("ACC-20931 is NOT my account.", "ACC-20931", true),
    (
        "The laptop LT-3302 belongs to my colleague.",
        "LT-3302",
        true,
    ),
    (
        "Ticket INC0042177 is someone else's, I never opened it.",
        "INC0042177",
        true,
    ),
    ("Meter number 88-1203 is my neighbour's.", "88-1203", true),
    ("Library card 29384 is my daughter's.", "29384", true),
    (
        "Patient ID P-77123 is my mother's, I'm calling about my own records.",
        "P-77123",
        true,
    ),
    ("That's my husband's card, 5512.", "5512", true),
    ("Membership M-9912 isn't registered to me.", "M-9912", true),
    ("I don't own the car with plate 7KJH221.", "7KJH221", true),
    (
        "Please don't touch booking BK-7731, it's not mine.",
        "BK-7731",
        true,
    ),
    ("BR-1180 doesn't belong to me.", "BR-1180", true),
    (
        "Account 3320019 is my ex-wife's, she still uses it.",
        "3320019",
        true,
    ),
    ("Order ORD-55 is my roommate's.", "ORD-55", true),
    ("The subscription SUB-88 is not ours.", "SUB-88", true),
    ("Claim CLM-0098 isn't my claim.", "CLM-0098", true),
    ("Badge 10442 was never mine.", "10442", true),
    ("Loan L-3307 is not in my name.", "L-3307", true),
    (
        "That email, jo.doe@example.org, isn't mine; mine is jdoe@example.org.",
        "jo.doe@example.org",
        true,
    ),
    ("user_4471 is not my username.", "user_4471", true),
    ("Hmm, KX-2290? That isn't mine.", "KX-2290", true),
    (
        "Router serial 99812 is my landlord's, not mine.",
        "99812",
        true,
    ),
    ("Policy 7781 belongs to my brother.", "7781", true),
    (
        "Reservation R-5590 is for my friend, it's her booking, not mine.",
        "R-5590",
        true,
    ),
    ("gym pass GP-301 is definitely not mine", "GP-301", true),
    (
        "Student number S2231 — that's another person's, I'm S2213.",
        "S2231",
        true,
    ),
    ("Not mine: 4410-2231 belongs to my dad.", "4410-2231", true),
];

/// The user names the id and does not deny it is theirs.
const KEEPS: &[Named] = &[
    ("Card 4421-7781 is mine.", "4421-7781", false),
    ("Yes, ACC-20931 is my account.", "ACC-20931", false),
    (
        "My account is ACC-20931, not the old one.",
        "ACC-20931",
        false,
    ),
    ("I'm not sure if POL-55102 is mine.", "POL-55102", false),
    ("Is LT-3302 mine?", "LT-3302", false),
    ("Isn't INC0042177 my ticket?", "INC0042177", false),
    (
        "It's not my fault the payment failed, but card 4421 is mine.",
        "4421",
        false,
    ),
    (
        "My sister's card is 9932, but I want to pay with mine, 5532.",
        "5532",
        false,
    ),
    ("Account 3320019 is mine, not my wife's.", "3320019", false),
    ("I don't remember if 4421 is mine.", "4421", false),
    (
        "Please cancel booking BK-7731, it's mine.",
        "BK-7731",
        false,
    ),
    (
        "It's my account, 3320019, and I'm not happy about the fees.",
        "3320019",
        false,
    ),
    ("ORD-55 is not shipped yet, and it's mine.", "ORD-55", false),
    (
        "I never got a confirmation for R-5590, which is mine.",
        "R-5590",
        false,
    ),
    (
        "Membership M-9912 is registered to me, not my brother.",
        "M-9912",
        false,
    ),
    (
        "The card ending 4421, is that even mine? I can't tell.",
        "4421",
        false,
    ),
    (
        "Yes that's my order W-123, not my husband's.",
        "W-123",
        false,
    ),
    ("My library card is 29384.", "29384", false),
    (
        "The meter 88-1203 isn't working, and it's definitely ours.",
        "88-1203",
        false,
    ),
    (
        "I don't have CLM-0098 with me right now.",
        "CLM-0098",
        false,
    ),
    (
        "Please don't cancel SUB-88, I still use it.",
        "SUB-88",
        false,
    ),
    ("Badge 10442 is not active anymore.", "10442", false),
    (
        "My sister's card is 9932 and it's not mine, but 5532 is.",
        "5532",
        false,
    ),
];

/// Probes written after the rule's first run had passed every case above,
/// as a red team would vary them (and one reply in [`ANSWERS`], "That's not
/// me"); the first run of the rule on them missed the five marked (see
/// `bundles/README.md`), which the rule then learned.
const PROBES: &[Named] = &[
    ("nah that acct 5512 ain't mine", "5512", true),
    // missed at first: "not my card" after a negated verb phrase
    ("5512? never seen it before, not my card", "5512", true),
    // missed at first: someone else's name after a preposition
    (
        "The account ending 0091 is under my husband's name.",
        "0091",
        true,
    ),
    // missed at first: "never had" a thing
    (
        "I've never had an account with number 77812.",
        "77812",
        true,
    ),
    ("It's my kid's tablet, TB-220.", "TB-220", true),
    (
        "Wrong account, 55-1 belongs to a different customer.",
        "55-1",
        true,
    ),
    ("55-1 isn't even mine lol", "55-1", true),
    // missed at first: "not my order" after an adverb opening the clause
    ("Definitely not my order, W77.", "W77", true),
    ("W77 is my order, not yours.", "W77", false),
    ("TB-220 is under my name.", "TB-220", false),
    ("I do not have my card 7781 with me.", "7781", false),
];

/// `(agent turn, user reply, id the agent's turn named, the reply denies it)`.
type Answered = (&'static str, &'static str, &'static str, bool);

/// The id is named only by the agent; the user's reply refers back to it.
const ANSWERS: &[Answered] = &[
    (
        "I found account ACC-77 under that name. Is that your account?",
        "No, that isn't my account.",
        "ACC-77",
        true,
    ),
    (
        "The card on file is 4421. Shall I charge it?",
        "That's my wife's card, please don't.",
        "4421",
        true,
    ),
    (
        "I see ticket INC-9 open for you.",
        "That's not mine.",
        "INC-9",
        true,
    ),
    (
        "I found user id u_555 for that email. Is that you?",
        "No.",
        "u_555",
        true,
    ),
    ("Is device D-12 yours?", "Nope.", "D-12", true),
    (
        "Can you confirm that policy 88213 is your policy?",
        "No it isn't.",
        "88213",
        true,
    ),
    (
        "Does locker L-40 belong to you?",
        "No, it belongs to my coworker.",
        "L-40",
        true,
    ),
    (
        "I found booking BK-1 for you. Would you like me to cancel it?",
        "No.",
        "BK-1",
        false,
    ),
    (
        "Your account is ACC-77. Anything else?",
        "No, that's all.",
        "ACC-77",
        false,
    ),
    (
        "I found ACC-77. Is that your account?",
        "Yes, that's mine.",
        "ACC-77",
        false,
    ),
    ("Is LT-3 yours?", "No idea, maybe.", "LT-3", false),
    ("Is your order ORD-9 delayed?", "No.", "ORD-9", false),
    (
        "I see card 7712 on file. Do you want to use it?",
        "No, use my other card.",
        "7712",
        false,
    ),
    (
        "Would you like to use your card 7712?",
        "No thanks.",
        "7712",
        false,
    ),
    // missed at first (a probe): "is not me"
    (
        "I found Sam Lee, user 123-44. Is that you?",
        "That's not me, I'm Sam Leigh.",
        "123-44",
        true,
    ),
];

/// Cases the rule gets wrong (see the module documentation).
const FOUND_WRONG: &[Named] = &[];

/// Whether `reply` disowns `id` named by the agent's `agent` turn before it:
/// an anaphoric denial, or a bare no to a question about ownership.
fn disowns_answered(agent: &str, reply: &str) -> bool {
    let reading = Disowning::new(reply);
    reading.disowns_previous() || (reading.answers_no() && asks_ownership(agent))
}

#[test]
fn named_denials_are_read_as_denials() {
    let wrong: Vec<_> = DENIES
        .iter()
        .chain(KEEPS)
        .chain(PROBES)
        .filter(|(turn, id, denied)| Disowning::new(turn).disowns(id) != *denied)
        .collect();
    assert!(wrong.is_empty(), "misread: {wrong:#?}");
}

#[test]
fn answers_to_the_agent_deny_what_it_named() {
    let wrong: Vec<_> = ANSWERS
        .iter()
        .filter(|(agent, reply, _, denied)| disowns_answered(agent, reply) != *denied)
        .collect();
    assert!(wrong.is_empty(), "misread: {wrong:#?}");
}

#[test]
#[ignore = "what the rule still gets wrong"]
fn found_wrong() {
    let wrong: Vec<_> = FOUND_WRONG
        .iter()
        .filter(|(turn, id, denied)| Disowning::new(turn).disowns(id) != *denied)
        .collect();
    assert!(wrong.is_empty(), "misread: {wrong:#?}");
}
