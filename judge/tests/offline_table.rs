//! Table test of the offline judge on real user utterances copied verbatim
//! from the tau2-bench traces in `data/tau2/traces` (typographic quotes and
//! tau2's `###STOP###` marker included). Each is judged as the reply to an
//! agent turn that listed an action and asked for confirmation.

// Test helpers outside #[test] functions panic on broken fixtures on purpose.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/tau2_reader.rs"]
mod tau2_reader;

use std::collections::BTreeMap;

use turnstile_judge::{JudgeRequest, OfflineJudge, Question, Role, Verdict};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Yes,
    No,
    Unknown,
}
use Want::{No, Unknown, Yes};

const ASK: &str = "To summarise: I will cancel order #W5481803 (2 items) and refund $120.50 to \
                   your original payment method. Do you confirm you want me to proceed (yes/no)?";

const TABLE: &[(&str, Want)] = &[
    // Plain and strong consent.
    ("Yes, please proceed with those changes. Thank you!", Yes),
    (
        "Yes, that’s correct. Please go ahead and make the change.",
        Yes,
    ),
    ("Yes.", Yes),
    ("yes", Yes),
    ("Yes, that all looks good. Please proceed.", Yes),
    // Said to a request about #W4689314; to this table's request, about
    // #W5481803, it names another order as the one the yes is for.
    (
        "Yes—please proceed with the return exactly as outlined. Only the digital camera from order #W4689314 (quantity 1). No other items. Please refund to the original payment method.",
        Unknown,
    ),
    (
        "Yes, please go ahead and cancel the reservation for me.",
        Yes,
    ),
    (
        "Yes, I confirm these changes. Thank you for your help!",
        Yes,
    ),
    (
        "Yes, please confirm and complete the booking.###STOP###",
        Yes,
    ),
    (
        "Alright, just go ahead and refund it to my PayPal then. Thanks for checking!",
        Yes,
    ),
    (
        "Yes, I’d like to proceed. I prefer to pay with a gift card.",
        Yes,
    ),
    (
        "Yes, that's the one. Please go ahead and downgrade it to economy class.",
        Yes,
    ),
    (
        "Sure, please use the gift card with ID gift_card_8190333 for the payment.",
        Yes,
    ),
    (
        "Yes, that would be great. Thank you for offering the compensation.",
        Yes,
    ),
    ("Merci! Please continue with the cancellations.", Yes),
    (
        "Please proceed with the three individual reservations. I appreciate your assistance!",
        Yes,
    ),
    // Consent plus an unrelated new request or question: still consent.
    (
        "Yes, please go ahead and change my reservation to those flights. Also, could you add one checked bag to my reservation?",
        Yes,
    ),
    (
        "Yes, I confirm these changes. Also, could you please make sure to use my gift card with the smallest balance for any payment or refund?",
        Yes,
    ),
    (
        "Yeah, that’s exactly what I want. Go ahead and do it—just charge the $22.55 to my card. How soon will I get the new helmet? And do I need to send this one back first or what?",
        Yes,
    ),
    // Refusals, hesitation, corrections without consent.
    (
        "No, that’s okay. I’ll keep my current reservation. Thanks for your help!###STOP###",
        No,
    ),
    ("Actually, I want to think about it for a bit.", No),
    (
        "Before I confirm, could you please tell me how much the 30MP, 10x zoom, SD card model costs? I just want to make sure it fits my budget.",
        No,
    ),
    (
        "Before I confirm, can you let me know if I’ll get a refund for canceling this reservation? I don’t want to go ahead with the cancellation if I won’t get my money back.",
        No,
    ),
    (
        "No, I really don't want to be transferred. Is there any way you can help me change the flight to May 22nd instead?",
        No,
    ),
    (
        "Actually, I’ve changed my mind. I don’t want to exchange anything right now. Instead, I’d like to return the water bottle. Can you help me with that?",
        No,
    ),
    (
        "No, that’s not the one. I want it sent to my New York address—the one I used for my other order, not the Seattle one. Can you use that address instead?",
        No,
    ),
    (
        "No, that’s okay, thank you. I’d like to cancel my order instead. I realized I ordered by mistake.",
        No,
    ),
    ("No, that’s all I needed. Thanks for your help!", No),
    (
        "Wait. XEHM4B is basic economy. I want to upgrade it to economy first, then cancel. Also, can you check if I have any other upcoming flights? And what’s the total cost of those?",
        No,
    ),
    (
        "I understand, but I read on your website that insurance should cover the fees for changes. Could you please double-check that for me? I would like to have the fees waived as per the policy.",
        No,
    ),
    (
        "No, I don't want to change or cancel my reservation. I need to keep the flight as it is. I'm looking for compensation for the inconvenience caused by the delay.",
        No,
    ),
    (
        "No, I only need the name changed from Mei Lee to Mei Garcia. Please just update that one passenger.",
        No,
    ),
    // Questions: the user is still deciding.
    (
        "I read on your website that the insurance covers change fees as well. Could you please double-check that for me? I would appreciate it if you could honor that policy.",
        No,
    ),
    (
        "Could you please let me know the total cost of the reservation? I want to decide whether to use my certificate or a combination of my gift card and credit card based on the price.",
        No,
    ),
    (
        "Hmm, okay. If I can’t split the payment, can you tell me what the most expensive item in my order is, and how much it costs? Maybe I can just cancel that item.",
        No,
    ),
    (
        "Okay, then can you tell me what the most expensive item in my order is, and how much it costs?",
        No,
    ),
    (
        "Thanks for checking. I'll go with the cheaper option from Atlanta (ATL) to Philadelphia (PHL) for $207. Can you proceed with changing my reservation to that flight?",
        No,
    ),
    (
        "I checked my APN settings, and it shows the APN name as “internet” and the MMSC URL as “http://mms.carrier.com/mms/wapenc.” I’m not sure if these are correct, but that’s what’s currently set. Should I go ahead and reset the APN settings to default?",
        No,
    ),
    // A yes, then a sentence moving on to another request of the user's own
    // ("But I also have another issue: …"): that sentence's contrast,
    // condition or question is about the next request, not this answer.
    (
        "Yes, go ahead with those changes. But I also have another issue: I got an air purifier with my sneakers order, and I want to exchange it for a large size with night mode, but still with a HEPA filter. Can you help with that too?",
        Yes,
    ),
    (
        "Yes, that’s correct. Please go ahead and update them. Also, I ordered a jigsaw—can you check if it’s shipped yet? If not, I’d like to change it to the easiest one you have, since my kid is too young for the one I picked.",
        Yes,
    ),
    // A negation before the yes describes what is chosen.
    (
        "Thanks for the options! I’d like to go with the blue earbuds that have 8 hours of battery and are not water resistant for $242.92. Yes, please proceed with this change, and that’s the only item I want to modify in my order. Let me know once it’s updated and when I can expect the refund for the price difference.",
        Yes,
    ),
    // "Yes, but …": agreement with a correction -> Unknown (details must be restated).
    (
        "Um, actually, I’d like the refund to go to my credit card instead, if that’s okay... And, yes, please go ahead with both actions.",
        Unknown,
    ),
    (
        "That sounds good, but I have travel insurance, so I believe any change fees should be waived. Could you please confirm that for me?",
        Unknown,
    ),
    (
        "Yes, I’d like to proceed. Before I provide payment details, can you also confirm if I’ll be able to remove my checked bag and get a refund for it?",
        Unknown,
    ),
    // A yes with a contrast, condition or retention anywhere in the reply is
    // not an explicit, unqualified yes (the narrow rule of
    // `turnstile_judge::dialogue`): the agent must restate the details. These
    // were `Yes` under offline-v1.
    (
        "Yes, that's correct—I want to return the Electric Kettle and Mechanical Keyboard, but keep the pet bed. Please go ahead and start the return process. Thank you!",
        Unknown,
    ),
    (
        "Yes, please update my default address to the one from order #W1994898. For the jacket, I’ll wait until it’s delivered before doing the exchange.",
        Unknown,
    ),
    // A weak yes followed by a question: the user is still deciding.
    (
        "Yes, those flights work for me. Could you also confirm if there are any fees for these changes? I have insurance, so I believe the fees should be waived.",
        No,
    ),
    // Nothing recognisable as a yes or no to the listed details.
    ("I want to cancel both. Just a change of plans.", Unknown),
    (
        "Just upgrade XEHM4B to economy, then cancel it. And I still want to know if I have any other upcoming flights and the total cost of those.",
        Unknown,
    ),
    (
        "Merci! I would like to cancel all of them, please—all the flights. Even if there is no refund, c’est pas grave. I just want to free my seat for someone else.",
        Unknown,
    ),
    (
        "In that case, please use my credit card for the full amount.",
        Unknown,
    ),
    (
        "The reservation is just for me—James Lee. My original return flight is scheduled for next Friday. Let me know if you need anything else!",
        Unknown,
    ),
];

fn judge(reply: &str) -> Verdict {
    OfflineJudge::new()
        .decide(&JudgeRequest {
            bundle_hash: "table".into(),
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
            conversation: vec![
                tau2_reader::turn(10, Role::Agent, ASK),
                tau2_reader::turn(11, Role::User, reply),
            ]
            .into(),
        })
        .verdict
}

#[test]
fn real_tau2_utterances() {
    assert!(TABLE.len() >= 40);
    let mut failures = Vec::new();
    for (reply, want) in TABLE {
        let got = judge(reply);
        let ok = match want {
            Yes => got == Verdict::Satisfied { evidence_event: 11 },
            No => got == Verdict::NotSatisfied,
            Unknown => matches!(got, Verdict::Unknown { .. }),
        };
        if !ok {
            failures.push(format!("want {want:?}, got {got:?}: {reply}"));
        }
        if *want != Yes {
            assert!(!got.is_satisfied(), "gate opened on: {reply}");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
