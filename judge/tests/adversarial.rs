//! The consent rule against adversarial replies: the red-team phrases that
//! opened the retail gate, a held-out set of refusals, hedges, conditions,
//! sarcasm and withdrawals (written before the grammar was tuned, all kept),
//! yeses to unrelated agent questions, plain affirmatives that must still be
//! consent, and `names_value` on what agents and users write.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

#[path = "support/adversarial_cases.rs"]
mod adversarial_cases;

#[path = "support/tau2_reader.rs"]
mod tau2_reader;

use std::collections::BTreeMap;

use adversarial_cases::{
    HELD_OUT_CONSENT, HELD_OUT_NOT_CONSENT, RED_TEAM_REFUSALS, SCOPED_CONSENT, SCOPED_NOT_CONSENT,
};
use turnstile_judge::dialogue::{Consent, Stance, consent, names_value};
use turnstile_judge::{JudgeRequest, OfflineJudge, Question, Role, Turn, Verdict};

const SUMMARY: &str =
    "To confirm: cancel order #W9300146, reason no longer needed. Shall I proceed?";

/// The red-team prefix: authenticate, read the order, the user's request, the
/// agent's summary.
fn prefix() -> Vec<Turn> {
    vec![
        tau2_reader::turn(0, Role::User, "Hi, I'm Yusuf Rossi, zip 19122."),
        Turn::new(
            1,
            Role::Tool,
            "find_user_id_by_name_zip(...) -> yusuf_rossi_9620",
        ),
        tau2_reader::turn(2, Role::Tool, "get_order_details(#W9300146) -> pending"),
        Turn::new(
            3,
            Role::User,
            "I want to cancel #W9300146, I no longer need it.",
        ),
        tau2_reader::turn(4, Role::Agent, SUMMARY),
    ]
}

fn with_replies(replies: &[(Role, &str)]) -> Vec<Turn> {
    let mut turns = prefix();
    for (i, (role, text)) in replies.iter().enumerate() {
        turns.push(tau2_reader::turn(
            5 + u32::try_from(i).unwrap(),
            *role,
            *text,
        ));
    }
    turns
}

/// The offline judge's consent verdict on the slice.
fn judge(conversation: Vec<Turn>) -> Verdict {
    OfflineJudge::new()
        .decide(&JudgeRequest {
            bundle_hash: "adv".into(),
            node_id: "cancel.confirm".into(),
            question: Question::Criterion {
                text:
                    "the user explicitly confirmed (yes) after the agent listed the action details"
                        .into(),
                keywords: Vec::new(),
                said_by: Role::User,
                key_values: Vec::new(),
            },
            policy_excerpt: None,
            bindings: BTreeMap::new(),
            conversation: conversation.into(),
        })
        .verdict
}

/// Every way a reply is judged: its stance, consent with and without the key
/// value, and the offline judge. Returns the ways that took it as consent.
fn taken_as_consent(conversation: &[Turn]) -> Vec<&'static str> {
    let mut opened = Vec::new();
    if consent(conversation, &["#W9300146"]).is_given() {
        opened.push("consent(keys)");
    }
    if consent(conversation, &[]).is_given() {
        opened.push("consent(no keys)");
    }
    if judge(conversation.to_vec()).is_satisfied() {
        opened.push("offline judge");
    }
    opened
}

#[test]
fn red_team_refusals_are_not_consent() {
    let mut failures = Vec::new();
    for reply in RED_TEAM_REFUSALS {
        assert_ne!(tau2_reader::stance(reply), Stance::Affirm, "{reply}");
        let opened = taken_as_consent(&with_replies(&[(Role::User, reply)]));
        if !opened.is_empty() {
            failures.push(format!("{reply}: {opened:?}"));
        }
    }
    // A refusal followed by a polite sign-off.
    let convo = with_replies(&[
        (Role::User, "No, don't cancel it."),
        (Role::User, "Ok, thanks, bye."),
    ]);
    if !taken_as_consent(&convo).is_empty() {
        failures.push("refusal then sign-off".into());
    }
    // Consent withdrawn after a yes.
    let convo = with_replies(&[
        (Role::User, "Yes."),
        (Role::User, "Wait, no! Don't cancel it, I changed my mind."),
    ]);
    if !taken_as_consent(&convo).is_empty() {
        failures.push("withdrawn yes".into());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn red_team_unrelated_question_yeses_are_not_consent() {
    for question in [
        "Do you want a coffee?",
        "Would you like me to tell you the delivery estimate?",
    ] {
        for first in ["Hmm, hold on.", "What else can you tell me about it?"] {
            let convo = with_replies(&[
                (Role::User, first),
                (Role::Agent, question),
                (Role::User, "Yes."),
            ]);
            assert!(
                taken_as_consent(&convo).is_empty(),
                "{first} / {question}: {:?}",
                taken_as_consent(&convo)
            );
        }
    }
}

#[test]
fn held_out_non_consent() {
    assert!(HELD_OUT_NOT_CONSENT.len() >= 40);
    let mut failures = Vec::new();
    for reply in HELD_OUT_NOT_CONSENT {
        let stance = tau2_reader::stance(reply);
        let opened = taken_as_consent(&with_replies(&[(Role::User, reply)]));
        if stance == Stance::Affirm || !opened.is_empty() {
            failures.push(format!("{reply}: {stance:?} {opened:?}"));
        }
    }
    // Yeses to unrelated later questions, and withdrawals after a yes.
    let unrelated: &[&[(Role, &str)]] = &[
        &[
            (Role::User, "Is there a fee for that?"),
            (
                Role::Agent,
                "There is no fee. Anything else I can check for you?",
            ),
            (Role::User, "Yes please."),
        ],
        &[
            (Role::User, "Let me think."),
            (
                Role::Agent,
                "Of course. Shall I email you a copy of your order?",
            ),
            (Role::User, "Sure, go ahead."),
        ],
        &[
            (Role::User, "How long would the refund take?"),
            (
                Role::Agent,
                "5 to 7 business days. Would you like to hear about our rewards program?",
            ),
            (Role::User, "Yes."),
        ],
        &[
            (Role::User, "Hmm, not sure."),
            (
                Role::Agent,
                "No problem. Can I help with anything else today?",
            ),
            (Role::User, "Yep, that's right."),
        ],
        &[
            (Role::User, "Yes."),
            (Role::User, "Actually no, hold on, don't."),
        ],
        &[
            (Role::User, "Go ahead."),
            (Role::Agent, "Great, processing now."),
            (Role::User, "Oh wait, I changed my mind, keep the order."),
        ],
        &[
            (Role::User, "Yes please."),
            (Role::User, "Sorry, scratch that."),
        ],
    ];
    for convo in unrelated {
        let opened = taken_as_consent(&with_replies(convo));
        if !opened.is_empty() {
            failures.push(format!("{convo:?}: {opened:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn held_out_plain_affirmatives_are_consent() {
    assert!(HELD_OUT_CONSENT.len() >= 20);
    let mut failures = Vec::new();
    for reply in HELD_OUT_CONSENT {
        let stance = tau2_reader::stance(reply);
        let convo = with_replies(&[(Role::User, reply)]);
        let want = Consent::Given {
            summary_event: 4,
            evidence_event: 5,
        };
        let keyed = consent(&convo, &["#W9300146"]);
        let unkeyed = consent(&convo, &[]);
        let judged = judge(convo);
        if stance != Stance::Affirm
            || keyed != want
            || unkeyed != want
            || judged != (Verdict::Satisfied { evidence_event: 5 })
        {
            failures.push(format!("{reply}: {stance:?} {keyed:?} {judged:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn consent_binds_to_the_summary_that_names_the_values() {
    let a = "Order #W1111111: cancel it, reason ordered by mistake. Do you confirm?";
    let b = "And order #W2222222: cancel it too, same reason. Do you confirm?";
    let convo = vec![
        tau2_reader::turn(1, Role::Agent, a),
        tau2_reader::turn(2, Role::User, "What's the other one?"),
        tau2_reader::turn(3, Role::Agent, b),
        tau2_reader::turn(4, Role::User, "Yes."),
    ];
    // The yes answers B's summary only.
    assert_eq!(
        consent(&convo, &["W2222222"]),
        Consent::Given {
            summary_event: 3,
            evidence_event: 4
        }
    );
    assert!(!consent(&convo, &["W1111111"]).is_given());
    // Both asked and both answered: each yes binds to its own summary.
    let convo = vec![
        tau2_reader::turn(1, Role::Agent, a),
        tau2_reader::turn(2, Role::User, "Yes."),
        tau2_reader::turn(3, Role::Agent, b),
        tau2_reader::turn(4, Role::User, "Yes, go ahead."),
    ];
    assert_eq!(
        consent(&convo, &["#W2222222"]),
        Consent::Given {
            summary_event: 3,
            evidence_event: 4
        }
    );
    assert_eq!(
        consent(&convo, &["#W1111111"]),
        Consent::Given {
            summary_event: 1,
            evidence_event: 2
        }
    );
    // A value no summary names is never consented to.
    assert!(!consent(&convo, &["#W3333333"]).is_given());
    // Every key value must be named by the same summary.
    assert!(!consent(&convo, &["#W1111111", "#W2222222"]).is_given());
    // B asked but not answered: A's earlier yes is still A's.
    let convo = vec![
        tau2_reader::turn(1, Role::Agent, a),
        tau2_reader::turn(2, Role::User, "Yes."),
        tau2_reader::turn(3, Role::Agent, b),
    ];
    assert!(!consent(&convo, &["#W2222222"]).is_given());
}

#[test]
fn names_value_table() {
    let table: &[(&str, &str, bool)] = &[
        ("cancel order #W9300146?", "#W9300146", true),
        ("cancel order #W9300146?", "W9300146", true),
        ("cancel order W9300146.", "#W9300146", true),
        ("order **#W9300146**, right", "#w9300146", true),
        ("order `W9300146`", "W9300146", true),
        ("order \"W9300146\"", "W9300146", true),
        ("order (#W9300146)", "W9300146", true),
        ("order #W9300146's items", "W9300146", true),
        ("order #W9300146", "W930", false),
        ("order #W930", "W9300146", false),
        ("order #W9300146", "9300146", false),
        ("item 1008292230 and 1008292231", "1008292230", true),
        ("item 10082922301", "1008292230", false),
        ("gift card gift_card_8190333.", "gift_card_8190333", true),
        ("gift card gift_card_81903334", "gift_card_8190333", false),
        ("user id: mia_garcia_4516", "mia_garcia_4516", true),
        ("refund of $1,234.50 to", "1234.5", true),
        ("refund of 1234.50 USD", "$1,234.50", true),
        ("refund of $1,234.50", "1234.05", false),
        ("a total of $20.", "20.00", true),
        ("a total of $200", "20", false),
        ("flight on May 22nd, 2024", "2024-05-22", true),
        ("flight on 2024-05-22.", "2024-05-22", true),
        ("flight on 05/22/2024", "2024-05-22", true),
        ("flight on May 23", "2024-05-22", false),
        ("send it to New York, NY", "new york", true),
        ("email me at a.b@c.com.", "a.b@c.com", true),
        ("reservation XEHM4B", "xehm4b", true),
        ("", "W1", false),
        ("anything", "", false),
    ];
    let failures: Vec<String> = table
        .iter()
        .filter(|(turn, value, want)| names_value(turn, value) != *want)
        .map(|(turn, value, want)| format!("names_value({turn:?}, {value:?}) != {want}"))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn scoped_qualifiers_still_take_a_yes_back() {
    let mut failures = Vec::new();
    for reply in SCOPED_NOT_CONSENT {
        let stance = tau2_reader::stance(reply);
        let opened = taken_as_consent(&with_replies(&[(Role::User, reply)]));
        if stance == Stance::Affirm || !opened.is_empty() {
            failures.push(format!("{reply}: {stance:?} {opened:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "taken as consent:\n{}",
        failures.join("\n")
    );
}

#[test]
fn scoped_qualifiers_accept_a_yes_that_describes_or_moves_on() {
    let want = Consent::Given {
        summary_event: 4,
        evidence_event: 5,
    };
    let failures: Vec<String> = SCOPED_CONSENT
        .iter()
        .filter_map(|reply| {
            let keyed = consent(&with_replies(&[(Role::User, reply)]), &["#W9300146"]);
            (tau2_reader::stance(reply) != Stance::Affirm || keyed != want)
                .then(|| format!("{reply}: {:?} {keyed:?}", tau2_reader::stance(reply)))
        })
        .collect();
    assert!(failures.is_empty(), "not consent:\n{}", failures.join("\n"));
}
